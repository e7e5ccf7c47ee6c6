//! Board and game files: reading any supported format, and writing atomically.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow, bail};
use bitmines_core::binary::NoGuessRecord;
use bitmines_core::{Board, Game, Position, binary, saved};

/// The file formats `bitmines` reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// The compact binary format: header, packed mine plane, checksum; or a game saved by
    /// `stress --save` (the same layout with the view's planes added).
    Bin,
    /// Minesweeper Board Format: width, height, mine count, then each mine's x and y.
    Mbf,
    /// Text: one line per row, `*` for a mine and `.` for a safe cell (or a saved game).
    Txt,
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Format::Bin => "bin",
            Format::Mbf => "mbf",
            Format::Txt => "txt",
        })
    }
}

/// What a file held.
pub(crate) enum Loaded {
    /// A board, with its seed and no-guess certificate where the format records them.
    Board(Board, Option<u64>, Option<NoGuessRecord>),
    /// A game in progress or finished (text format).
    Game(Game),
    /// A player's view with no board behind it (text format, `bitmines view ...`).
    View(Position),
}

/// Reads a board or game from `path`, in `format` or, if `None`, the format its first bytes
/// show: the binary magic, text, or otherwise MBF.
pub(crate) fn read(path: &Path, format: Option<Format>) -> anyhow::Result<Loaded> {
    let mut input = open(path)?;
    let (format, sniffed) = match format {
        Some(format) => (format, false),
        None => (
            sniff(&mut input).with_context(|| format!("cannot read {}", path.display()))?,
            true,
        ),
    };
    load(&mut input, format).with_context(|| match (sniffed, format) {
        // Neither the binary magic nor text: MBF was the last format left to try.
        (true, Format::Mbf) => no_format(path),
        _ => format!("{} is not a valid {format} file", path.display()),
    })
}

/// What a file that matches no format is called.
fn no_format(path: &Path) -> String {
    format!(
        "{} is not a bitmines board or game file (tried binary, MBF, text)",
        path.display()
    )
}

/// Opens `path` for reading, naming a folder as one (a folder opens on some systems and
/// fails only on the first read, with a message that does not name it).
fn open(path: &Path) -> anyhow::Result<BufReader<File>> {
    if path.is_dir() {
        bail!(
            "{} is a directory, not a board or game file",
            path.display()
        );
    }
    let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(BufReader::new(file))
}

/// The size a binary board file declares, read from its header alone, or `None` for other
/// formats (whose size is known only once they are read).
pub(crate) fn declared_size(
    path: &Path,
    format: Option<Format>,
) -> anyhow::Result<Option<(usize, usize)>> {
    let mut input = open(path)?;
    let format = match format {
        Some(format) => format,
        None => sniff(&mut input).with_context(|| format!("cannot read {}", path.display()))?,
    };
    if format != Format::Bin {
        return Ok(None);
    }
    let invalid = || format!("{} is not a valid bin file", path.display());
    if input.fill_buf()?.starts_with(&saved::MAGIC) {
        let header = saved::read_header(&mut input).with_context(invalid)?;
        return Ok(Some((header.rows, header.cols)));
    }
    let header = binary::read_header(&mut input).with_context(invalid)?;
    Ok(Some((header.rows, header.cols)))
}

/// Guesses the format from the first bytes of `input`, which stay unread.
fn sniff(input: &mut BufReader<File>) -> io::Result<Format> {
    let head = input.fill_buf()?;
    Ok(
        if head.starts_with(&binary::MAGIC) || head.starts_with(&saved::MAGIC) {
            Format::Bin
        } else if !head.is_empty()
            && head
                .iter()
                .all(|&b| b.is_ascii_graphic() || b.is_ascii_whitespace())
        {
            Format::Txt
        } else {
            Format::Mbf
        },
    )
}

/// Reads the whole of `input` as `format`.
fn load(input: &mut BufReader<File>, format: Format) -> anyhow::Result<Loaded> {
    if format == Format::Bin && input.fill_buf()?.starts_with(&saved::MAGIC) {
        let (game, _) = Game::read_saved(input)?;
        return Ok(Loaded::Game(game));
    }
    if format == Format::Bin {
        let (board, header) = Board::read_binary(input)?;
        return Ok(Loaded::Board(board, header.seed, header.no_guess));
    }
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes)?;
    Ok(match format {
        Format::Mbf => Loaded::Board(Board::from_mbf(&bytes)?, None, None),
        _ => {
            let text = std::str::from_utf8(&bytes).map_err(|e| anyhow!("not UTF-8 text: {e}"))?;
            if text.starts_with("bitmines view") {
                Loaded::View(text.parse()?)
            } else if text.starts_with("bitmines game") {
                Loaded::Game(text.parse()?)
            } else {
                Loaded::Board(text.parse()?, None, None)
            }
        }
    })
}

/// Writes `board` to `out` in `format`; `seed` and a no-guess certificate are recorded
/// where the format has room (the binary format).
pub(crate) fn save_certified(
    out: &mut dyn Write,
    board: &Board,
    seed: Option<u64>,
    record: Option<&NoGuessRecord>,
    format: Format,
) -> anyhow::Result<()> {
    match format {
        Format::Bin => match record {
            Some(record) => board.write_binary_certified(seed, record, out)?,
            None => board.write_binary(seed, out)?,
        },
        Format::Mbf => out.write_all(&board.to_mbf()?)?,
        Format::Txt => write!(out, "{board}")?,
    }
    Ok(())
}

/// How many bytes [`save_certified`] writes for `board` in `format`, with a certificate or
/// without: what a bar of the writing counts up to.
pub(crate) fn saved_len(board: &Board, certified: bool, format: Format) -> u64 {
    let (rows, cols) = (board.rows() as u64, board.cols() as u64);
    match format {
        // The header (the seed has its field whether recorded or not), the certificate if
        // any, rows of whole bytes, the CRC-32.
        Format::Bin => {
            let certificate = if certified {
                binary::CERTIFICATE_LEN
            } else {
                0
            };
            (binary::HEADER_LEN + certificate) as u64 + rows * cols.div_ceil(8) + 4
        }
        // Width, height and mine count, then two bytes a mine.
        Format::Mbf => 4 + 2 * board.mine_count() as u64,
        // A line a row.
        Format::Txt => rows * (cols + 1),
    }
}

/// Writes a file so that readers see either the old file or the whole new one, never a
/// part: `write` fills a temporary file in the same folder, which is flushed to disk and
/// then renamed over `path`. On any error the temporary file is removed and `path` is left
/// as it was.
pub(crate) fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| anyhow!("{} does not name a file", path.display()))?;
    let folder = match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    };
    let name = name.to_string_lossy();
    remove_stale_temps(folder, &name);
    let temp = Temp(folder.join(temp_name(&name, std::process::id())));
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp.0)
        .with_context(|| format!("cannot create {}", temp.0.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    write(&mut out)?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temp.0, path)
        .with_context(|| format!("cannot rename {} to {}", temp.0.display(), path.display()))?;
    std::mem::forget(temp);
    // Make the rename itself durable; not every platform can open a folder, so this is a
    // best effort.
    if let Ok(folder) = File::open(folder) {
        let _ = folder.sync_all();
    }
    Ok(())
}

/// The temporary file process `pid` writes before renaming it to `name`.
fn temp_name(name: &str, pid: u32) -> String {
    format!(".{name}.{pid}.tmp")
}

/// Removes temporary files for `name` left in `folder` by writers that were killed before
/// they could clean up (their process no longer exists). Only where `/proc` tells which
/// processes live; elsewhere stale files stay.
fn remove_stale_temps(folder: &Path, name: &str) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    let prefix = format!(".{name}.");
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|file| file.strip_prefix(&prefix))
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// A temporary file, removed when dropped.
struct Temp(PathBuf);

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("bitmines-files-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("a temp folder");
        dir
    }

    /// `saved_len` is what `save_certified` writes, in every format, with and without a seed
    /// and a certificate, on boards whose rows end inside a byte and on a byte edge.
    #[test]
    fn saved_len_counts_what_save_certified_writes() {
        for (rows, cols, mines) in [(1, 1, 0), (1, 1, 1), (3, 10, 7), (16, 30, 99), (7, 64, 100)] {
            let board = bitmines_core::Board::from_mines(
                rows,
                cols,
                (0..mines).map(|i| (i / cols, i % cols)),
            )
            .expect("a board");
            let record = NoGuessRecord::new(0, 0, bitmines_core::FirstClick::Opening, 1, 0b1)
                .expect("a click on the board");
            for format in [Format::Bin, Format::Mbf, Format::Txt] {
                for seed in [None, Some(7)] {
                    for record in [None, Some(&record)] {
                        let mut bytes = Vec::new();
                        save_certified(&mut bytes, &board, seed, record, format).expect("written");
                        assert_eq!(
                            bytes.len() as u64,
                            saved_len(&board, record.is_some(), format),
                            "{rows}x{cols}, {mines} mines, {format}, seed {seed:?}, {record:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temp() {
        let dir = folder("fail");
        let path = dir.join("board.txt");
        fs::write(&path, "old").expect("write");
        let result = write_atomic(&path, |out| {
            out.write_all(b"half of the new")?;
            Err(anyhow!("disk full"))
        });
        assert!(result.is_err());
        assert_eq!(fs::read_to_string(&path).expect("read"), "old");
        assert_eq!(
            fs::read_dir(&dir).expect("list").count(),
            1,
            "the temp file is gone"
        );
        write_atomic(&path, |out| Ok(out.write_all(b"new")?)).expect("writes");
        assert_eq!(fs::read_to_string(&path).expect("read"), "new");
        assert_eq!(fs::read_dir(&dir).expect("list").count(), 1);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn temps_of_dead_writers_are_removed_and_live_ones_kept() {
        let dir = folder("stale");
        let path = dir.join("game.bin");
        // No process has pid u32::MAX - 1 (Linux caps pids far lower).
        let dead = dir.join(temp_name("game.bin", u32::MAX - 1));
        let live = dir.join(temp_name("game.bin", 1));
        let other = dir.join(temp_name("other.bin", u32::MAX - 1));
        for file in [&dead, &live, &other] {
            fs::write(file, "partial").expect("write");
        }
        write_atomic(&path, |out| Ok(out.write_all(b"whole")?)).expect("writes");
        assert_eq!(fs::read_to_string(&path).expect("read"), "whole");
        if Path::new("/proc/1").exists() {
            assert!(!dead.exists(), "the dead writer's temp file is gone");
            assert!(live.exists(), "a live writer's temp file is kept");
        }
        assert!(other.exists(), "another file's temp file is kept");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn every_format_round_trips() {
        let dir = folder("formats");
        let board: Board = "*..\n.*.\n...\n..*\n".parse().expect("a board");
        for format in [Format::Bin, Format::Mbf, Format::Txt] {
            let path = dir.join(format!("board.{format:?}"));
            write_atomic(&path, |out| {
                save_certified(out, &board, Some(9), None, format)
            })
            .expect("saves");
            for given in [None, Some(format)] {
                let Loaded::Board(read, seed, _) = read(&path, given).expect("reads") else {
                    panic!("{format:?} read back as a game");
                };
                assert_eq!(read.to_string(), board.to_string(), "{format:?}");
                assert_eq!(seed, (format == Format::Bin).then_some(9));
            }
        }
        let _ = fs::remove_dir_all(&dir);
    }
}
