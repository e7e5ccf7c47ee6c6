//! What the operating system says about memory and the terminal.

use std::fmt::Display;
use std::fs;
use std::io::{self, IsTerminal, Write};
use std::time::Duration;

use indicatif::style::TemplateError;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Boards of at least this many cells take long enough to generate, write or picture that
/// `gen` and `show --png` show their progress.
pub(crate) const PROGRESS_CELLS: usize = 10_000_000;

/// The most resident memory this process has used, in bytes (Linux `VmHWM`), if known.
pub(crate) fn peak_rss() -> Option<u64> {
    status_kib("/proc/self/status", "VmHWM:").map(|kib| kib * 1024)
}

/// Memory the system can give a new allocation without swapping (`MemAvailable`), if known.
pub(crate) fn available_memory() -> Option<u64> {
    status_kib("/proc/meminfo", "MemAvailable:").map(|kib| kib * 1024)
}

/// Reads a `Name:   123 kB` line from a `/proc` file.
fn status_kib(path: &str, key: &str) -> Option<u64> {
    let text = fs::read_to_string(path).ok()?;
    let line = text.lines().find(|line| line.starts_with(key))?;
    line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// Fails, naming `what` and both sizes, if `need` bytes exceed the memory available now.
/// Called before allocating, so a run too large fails at once instead of thrashing.
pub(crate) fn ensure_memory(need: u64, what: impl FnOnce() -> String) -> anyhow::Result<()> {
    match available_memory() {
        Some(available) if need > available => anyhow::bail!(
            "{} needs about {} of memory; {} is available",
            what(),
            human_bytes(need),
            human_bytes(available)
        ),
        _ => Ok(()),
    }
}

/// Fails for a board of more than `max` cells, which a subcommand prints cell by cell,
/// naming the option that shows the board another way. Every "too large to print" reads the
/// same.
pub(crate) fn too_large_to_print(
    rows: usize,
    cols: usize,
    max: usize,
    instead: &str,
) -> anyhow::Result<()> {
    if rows.saturating_mul(cols) > max {
        anyhow::bail!(
            "a {rows}x{cols} board is too large to print as text (at most {} cells); use {instead}",
            crate::text::thousands(max)
        );
    }
    Ok(())
}

/// Prints `text` on standard output. A reader that went away (a closed pipe, as after
/// `| head`) ends the output quietly; any other failure is an error.
pub(crate) fn emit(text: impl Display) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    match write!(out, "{text}").and_then(|()| out.flush()) {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => {
            Err(anyhow::Error::new(error).context("cannot write to standard output"))
        }
        _ => Ok(()),
    }
}

/// A progress bar on standard error, of `len` steps (a spinner for `None`), drawn in `style`
/// (indicatif's own if the template did not parse), when standard error is a terminal.
/// Otherwise the bar is hidden: it draws nothing, so pipes, files and tests see no progress.
/// A visible bar redraws itself every `tick`, if given, between updates.
pub(crate) fn progress_bar(
    len: Option<u64>,
    style: Result<ProgressStyle, TemplateError>,
    tick: Option<Duration>,
) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr());
    if let Ok(style) = style {
        bar.set_style(style);
    }
    if let Some(tick) = tick {
        bar.enable_steady_tick(tick);
    }
    bar
}

/// A byte count for people: `1.5 GiB`.
pub(crate) fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} B"),
        _ => format!("{value:.1} {}", UNITS[unit]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_for_people() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(3 << 30), "3.0 GiB");
    }

    #[test]
    fn this_process_has_a_peak() {
        if cfg!(target_os = "linux") {
            assert!(peak_rss().is_some_and(|bytes| bytes > 0));
            assert!(available_memory().is_some_and(|bytes| bytes > 0));
        }
    }
}
