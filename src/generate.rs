//! `bitmines gen`: generate a board and write it to a file.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use bitmines_core::binary::NoGuessRecord;
use bitmines_core::{FirstClick, Geometry};
use bitmines_gen::{Certified, Method, NoGuess, NoGuessError, Progress, no_guess_with_progress};
use indicatif::{ProgressBar, ProgressStyle};

use serde::Serialize;

use crate::cli::{
    BoardArgs, BoardSpec, CellArg, JsonArg, KeepClear, Preset, SizeDefault, ThreadsArg, thread_pool,
};
use crate::files::{
    Dash, Format, check_output, output_name, save_certified, saved_len, write_output,
};
use crate::system::{PROGRESS_CELLS, emit, ensure_memory, progress_bar};
use crate::text::count;

/// The name and version of the `--json` report's shape.
pub(crate) const SCHEMA: &str = "bitmines-gen/1";

/// Options of `bitmines gen`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    board: BoardArgs,
    #[command(flatten)]
    threads: ThreadsArg,
    /// The first click, ROW,COL (default: the centre of the board): it and what
    /// --first-click-rule names are kept free of mines.
    #[arg(long, value_name = "ROW,COL", allow_hyphen_values = true)]
    first_click: Option<CellArg>,
    /// Make a board the solver clears from the first click without a guess (the click is
    /// the centre unless --first-click says; the bin format records the certificate).
    #[arg(long)]
    no_guess: bool,
    /// How to make a no-guess board: rejection (uniform over the boards the solver clears),
    /// repair (moves mines where the solver stalls; fast at any size, not uniform), or auto.
    #[arg(long, value_enum, default_value_t = NoGuessMethod::Auto, requires = "no_guess")]
    method: NoGuessMethod,
    /// File format.
    #[arg(long, value_enum, default_value_t = Format::Bin)]
    format: Format,
    /// The file to write (replaced atomically if it exists), or `-` for standard output.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Print what was written as one JSON object on standard output instead of the line on
    /// standard error.
    #[command(flatten)]
    json: JsonArg,
}

/// What `gen` reports.
#[derive(Serialize)]
struct Report {
    schema: &'static str,
    output: String,
    format: String,
    rows: usize,
    cols: usize,
    mines: usize,
    seed: u64,
    first_click: [usize; 2],
    first_click_rule: KeepClear,
    /// What the certificate vouches for, for a no-guess board.
    no_guess: Option<String>,
    generate_seconds: f64,
    write_seconds: f64,
}

/// How `--no-guess` makes its board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum NoGuessMethod {
    /// Rejection on boards of at most 1024 cells, then repair.
    Auto,
    /// Rejection only.
    Reject,
    /// Repair only.
    Repair,
}

/// One line saying what a recorded no-guess certificate vouches for.
pub(crate) fn describe(record: &NoGuessRecord) -> String {
    let names = ["trivial", "pair", "component", "global"];
    let tiers: Vec<&str> = names
        .iter()
        .enumerate()
        .filter(|&(i, _)| record.tiers >> i & 1 != 0)
        .map(|(_, name)| *name)
        .collect();
    let rule = match record.rule {
        FirstClick::Safe => "safe",
        _ => "opening",
    };
    format!(
        "no guess needed from a first click at ({}, {}) ({rule} rule): certified by solver version {}, rules used: {}",
        record.row,
        record.col,
        record.solver,
        if tiers.is_empty() {
            "none (the first click clears it)".to_string()
        } else {
            tiers.join(", ")
        }
    )
}

/// Planes of a board's size that no-guess generation holds at its peak.
pub(crate) const NO_GUESS_PLANES: u64 = 36;

/// Boards of at least this many cells show the progress of no-guess generation.
const NO_GUESS_PROGRESS_CELLS: usize = 1_000_000;

/// Generates the board and writes it.
pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let chosen = args.board.choose(SizeDefault::Preset(Preset::Expert))?;
    let dash = match args.format {
        Format::Txt => Dash::Text,
        _ => Dash::Binary,
    };
    check_output("-o", &args.output, dash)?;
    if args.json.json && args.output.as_os_str() == "-" {
        anyhow::bail!(
            "--json and -o - would both write to standard output: name a file with -o, or leave out --json"
        );
    }
    let (rows, cols, seed) = (chosen.rows, chosen.cols, chosen.seed);
    // The same first click as every subcommand that plays: the centre unless given. Rule
    // `none` keeps nothing clear, which gives the board of the seed with no first click.
    let click = args.first_click.unwrap_or(CellArg {
        row: rows / 2,
        col: cols / 2,
    });
    let spec = BoardSpec {
        rows,
        cols,
        mines: Some(chosen.mines),
        density: 0.0,
        seed,
        first_click: Some((click, chosen.first_click_rule)),
    };
    let config = spec.config()?;
    let geometry = Geometry::new(rows, cols)?;
    // The board's two planes, and for MBF the file's bytes, four per mine.
    let mbf = match args.format {
        Format::Mbf => config.mines as u64 * 4,
        _ => 0,
    };
    // A no-guess board also holds a game, the solver's planes, a copy of the mines and the
    // mender's planes while it works, and on two threads or more a second game and solver
    // while the first click's play drives its halves at once: about 34 planes at their peak,
    // measured (26 on one thread).
    let planes = if args.no_guess { NO_GUESS_PLANES } else { 2 };
    ensure_memory(geometry.plane_bytes() as u64 * planes + mbf, || {
        format!(
            "a {}x{} {}board",
            geometry.rows(),
            geometry.cols(),
            if args.no_guess { "no-guess " } else { "" }
        )
    })?;
    let pool = thread_pool(args.threads.threads)?;
    // Large boards show, on a terminal, the time spent generating (which reports no progress
    // of its own) and then the bytes written.
    let large = geometry.cells() >= PROGRESS_CELLS;
    // No-guess generation is slower a cell, so it shows its moves from a smaller size.
    let spin = large || (args.no_guess && geometry.cells() >= NO_GUESS_PROGRESS_CELLS);
    let spinner = match spin {
        true => progress_bar(
            None,
            ProgressStyle::with_template("{spinner} {elapsed_precise} generating {msg}"),
            Some(Duration::from_millis(100)),
        ),
        false => ProgressBar::hidden(),
    };
    spinner.set_message(format!(
        "a {}x{} {}board",
        geometry.rows(),
        geometry.cols(),
        if args.no_guess { "no-guess " } else { "" }
    ));
    let started = Instant::now();
    let (board, record) = if args.no_guess {
        let mut request = NoGuess::new(rows, cols, config.mines, seed).first_click(
            chosen.first_click_rule.into(),
            click.row,
            click.col,
        );
        request.method = match args.method {
            NoGuessMethod::Auto => Method::Auto,
            NoGuessMethod::Reject => Method::Reject,
            NoGuessMethod::Repair => Method::Repair,
        };
        let certified = spinning(&spinner, || no_guess_shown(&request, &pool, &spinner))?;
        let record = certified.record()?;
        let certificate = *certified.certificate();
        eprintln!(
            "bitmines: {} ({}, {} boards drawn, {} repairs)",
            describe(&record),
            certificate.method,
            certificate.attempts,
            certificate.repairs
        );
        if args.format != Format::Bin {
            eprintln!(
                "bitmines: the {} format has no room for the certificate; only bin records it",
                args.format
            );
        }
        (certified.into_board(), Some(record))
    } else {
        let board = spinning(&spinner, || {
            pool.install(|| bitmines_gen::generate(&config))
        })?;
        (board, None)
    };
    let generated = started.elapsed();
    let started = Instant::now();
    let bar = match large {
        true => progress_bar(
            Some(saved_len(&board, record.is_some(), args.format)),
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {bytes}/{total_bytes} written, ETA {eta}",
            )
            .map(|style| style.progress_chars("=> ")),
            None,
        ),
        false => ProgressBar::hidden(),
    };
    let written = write_output(&args.output, |out| {
        let out = &mut bar.wrap_write(out);
        save_certified(out, &board, Some(seed), record.as_ref(), args.format)
    });
    bar.finish_and_clear();
    written.with_context(|| format!("cannot write {}", output_name(&args.output)))?;
    if args.json.json {
        let report = Report {
            schema: SCHEMA,
            output: output_name(&args.output),
            format: args.format.to_string(),
            rows,
            cols,
            mines: board.mine_count(),
            seed,
            first_click: [click.row, click.col],
            first_click_rule: chosen.first_click_rule,
            no_guess: record.as_ref().map(describe),
            generate_seconds: generated.as_secs_f64(),
            write_seconds: started.elapsed().as_secs_f64(),
        };
        return emit(format!("{}\n", serde_json::to_string(&report)?));
    }
    eprintln!(
        "bitmines: wrote {} ({}x{}, {}, seed {}, {}) in {:.3} s after {:.3} s generating",
        output_name(&args.output),
        geometry.rows(),
        geometry.cols(),
        count(board.mine_count(), "mine"),
        seed,
        args.format,
        started.elapsed().as_secs_f64(),
        generated.as_secs_f64()
    );
    Ok(())
}

/// Generates the no-guess board `request` asks for on `pool`, showing on `spinner` how far
/// the repairs and the certifying replay have come.
pub(crate) fn no_guess_shown(
    request: &NoGuess,
    pool: &rayon::ThreadPool,
    spinner: &ProgressBar,
) -> Result<Certified, NoGuessError> {
    let safe = request.rows * request.cols - request.mines.min(request.rows * request.cols);
    let report = |p: Progress| {
        spinner.set_message(format!(
            "a {}x{} no-guess board: {} {:.1}% of {} safe cells, {} repairs",
            request.rows,
            request.cols,
            if p.certifying {
                "certifying,"
            } else {
                "repairing,"
            },
            100.0 * p.revealed as f64 / safe.max(1) as f64,
            safe,
            p.repairs
        ));
    };
    pool.install(|| no_guess_with_progress(request, &report))
}

/// Runs `work` with `spinner` on screen, and clears it before anything else is printed.
fn spinning<T>(spinner: &ProgressBar, work: impl FnOnce() -> T) -> T {
    let done = work();
    spinner.finish_and_clear();
    done
}
