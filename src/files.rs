//! Board and game files: reading any supported format, and writing atomically.
//!
//! Reading: any board, game or view file, its format told from the first bytes and the length
//! unless given; regular files only, told from their metadata before they are opened, each
//! format read no further than it can hold (the binary formats to the length their header
//! gives, MBF to 131,074 bytes, text to 1 GiB), so no input hangs the program or grows its
//! memory without end. A server's room snapshot reads too (`bitmines show` prints one).
//!
//! Writing: `check_output` checks an output path before the work that writes it, `-` means
//! standard output (`write_output`), and `write_atomic` writes a temporary file in the same
//! folder, `sync_all`, renames it and syncs the folder; the temporary file is removed on any
//! error, and, where `/proc` tells which processes live, temporary files of writers that were
//! killed are removed by the next write to the same file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow, bail};
use bitmines_core::binary::NoGuessRecord;
use bitmines_core::{Board, Game, Position, binary, saved};

use crate::system::{ensure_memory, human_bytes};

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

/// The longest MBF file: width, height and a two-byte mine count, then two bytes for each of
/// at most 65,535 mines. A longer file cannot be MBF, so no more is ever read.
const MBF_MAX_BYTES: u64 = 4 + 2 * 65_535;

/// The longest text file read: 1 GiB, the text of a board of about 10^9 cells (a line of
/// `cols + 1` bytes a row). A larger board is kept in the binary format, which is an eighth
/// of the size and is read a piece at a time; text is read whole before it is parsed.
const TEXT_MAX_BYTES: u64 = 1 << 30;

/// Memory that reading a text file may take for each of its bytes, at worst: the text, read
/// whole, and what the parsers build from it before the board's planes, a list entry of 16
/// bytes for each line and each mine of a board, or 4 bytes a cell and 24 a line for a
/// game's grid. Checked against the memory available before the file is read.
const TEXT_BYTES_PER_BYTE: u64 = 24;

/// How much of a file's start is looked at to tell text.
const SNIFF_BYTES: usize = 8 << 10;

/// The bytes a UTF-8 byte order mark adds to the start of a text file (some editors write
/// one); it is no part of the board.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A regular file opened for reading, and its length when it was opened.
pub(crate) struct Input {
    /// The file, buffered.
    pub(crate) reader: BufReader<File>,
    /// Its length in bytes, from its metadata.
    pub(crate) len: u64,
}

/// Opens a file named on the command line for reading. Only regular files are read: a
/// folder, device, FIFO or socket is refused from its metadata before it is opened, since
/// opening a FIFO with no writer waits forever and a device such as `/dev/zero` never ends.
pub(crate) fn open_input(path: &Path) -> anyhow::Result<Input> {
    let cannot = || format!("cannot read {}", path.display());
    let metadata = fs::metadata(path).with_context(cannot)?;
    not_a_file(path, &metadata.file_type())?;
    let file = File::open(path).with_context(cannot)?;
    // The path may have been replaced between the look and the open, so the file opened is
    // looked at again. (A FIFO put there in that moment would still hold up the open; only
    // a deliberate race can do that, and Ctrl-C ends it.)
    let metadata = file.metadata().with_context(cannot)?;
    not_a_file(path, &metadata.file_type())?;
    Ok(Input {
        // Large enough that a board of 10^8 cells is read in a few hundred system calls.
        reader: BufReader::with_capacity(1 << 20, file),
        len: metadata.len(),
    })
}

/// Fails, naming what `path` is, unless it is a regular file.
fn not_a_file(path: &Path, kind: &fs::FileType) -> anyhow::Result<()> {
    if kind.is_file() {
        return Ok(());
    }
    bail!(
        "{} is {}, not a board or game file",
        path.display(),
        kind_name(kind)
    )
}

/// What a file type is called, with its article.
fn kind_name(kind: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else if kind.is_file() {
        "a file"
    } else {
        "a special file"
    }
}

/// Reads a board or game from `path`, in `format` or, if `None`, the format its first bytes
/// and length show: the binary magic, text, or MBF whose header agrees with the length.
/// No more is read than the format can hold: the binary formats stop where their header
/// says the file ends, MBF at [`MBF_MAX_BYTES`] and text at [`TEXT_MAX_BYTES`].
pub(crate) fn read(path: &Path, format: Option<Format>) -> anyhow::Result<Loaded> {
    let mut input = open_input(path)?;
    let format = choose(path, &mut input, format)?;
    let cap = match format {
        Format::Bin => None,
        Format::Mbf => Some(MBF_MAX_BYTES),
        Format::Txt => Some(TEXT_MAX_BYTES),
    };
    if let Some(cap) = cap {
        too_long(path, input.len, cap, format)?;
        if format == Format::Txt {
            ensure_memory(input.len.saturating_mul(TEXT_BYTES_PER_BYTE), || {
                format!(
                    "reading {} ({} of text)",
                    path.display(),
                    human_bytes(input.len)
                )
            })?;
        }
    }
    load(&mut input.reader, format, cap)
        .with_context(|| format!("{} is not a valid {format} file", path.display()))
}

/// Fails if a file of `len` bytes is longer than `cap`, the most a `format` file can be.
fn too_long(path: &Path, len: u64, cap: u64, format: Format) -> anyhow::Result<()> {
    if len > cap {
        bail!(
            "{} is {}, more than a {format} board or game file can be ({} at most)",
            path.display(),
            human_bytes(len),
            human_bytes(cap)
        );
    }
    Ok(())
}

/// The format to read `input` as: `format` if given, else the one its first bytes and
/// length show. An empty file, and one that matches no format, fail here with its name.
fn choose(path: &Path, input: &mut Input, format: Option<Format>) -> anyhow::Result<Format> {
    let head = input
        .reader
        .fill_buf()
        .with_context(|| format!("cannot read {}", path.display()))?;
    if head.is_empty() {
        bail!("{} is empty, not a board or game file", path.display());
    }
    match format.or_else(|| sniff(head, input.len)) {
        Some(format) => Ok(format),
        None => bail!(no_format(path)),
    }
}

/// What a file that matches no format is called.
fn no_format(path: &Path) -> String {
    format!(
        "{} is not a bitmines board or game file (tried binary, MBF, text)",
        path.display()
    )
}

/// The size a binary board file declares, read from its header alone, or `None` for other
/// formats (whose size is known only once they are read).
pub(crate) fn declared_size(
    path: &Path,
    format: Option<Format>,
) -> anyhow::Result<Option<(usize, usize)>> {
    let mut input = open_input(path)?;
    if choose(path, &mut input, format)? != Format::Bin {
        return Ok(None);
    }
    let input = &mut input.reader;
    let invalid = || format!("{} is not a valid bin file", path.display());
    if input.fill_buf()?.starts_with(&saved::MAGIC) {
        let header = saved::read_header(input).with_context(invalid)?;
        return Ok(Some((header.rows, header.cols)));
    }
    let header = binary::read_header(input).with_context(invalid)?;
    Ok(Some((header.rows, header.cols)))
}

/// Opens a game saved in the binary saved-game format (by `play` or `stress --save`), after
/// checking its magic, so that a board or any other file is named for what it is rather
/// than by the magic numbers it lacks.
pub(crate) fn open_saved(path: &Path) -> anyhow::Result<BufReader<File>> {
    let mut input = open_input(path)?;
    let len = input.len;
    let head = input
        .reader
        .fill_buf()
        .with_context(|| format!("cannot read {}", path.display()))?;
    if head.starts_with(&saved::MAGIC) {
        return Ok(input.reader);
    }
    let takes = "--resume takes a game saved by play (--save or the save key) or by stress --save";
    let name = path.display();
    if head.is_empty() {
        bail!("{name} is empty, not a saved game");
    }
    match sniff(head, len) {
        Some(Format::Txt) => bail!(
            "{name} is a text board or game, not a saved game: {takes}; `bitmines show {name}` prints it"
        ),
        Some(_) => bail!(
            "{name} is a board file, not a saved game: {takes}; `bitmines show {name}` prints the board"
        ),
        None => bail!("{name} is not a bitmines saved game, nor any other bitmines file"),
    }
}

/// Bytes a room's snapshot may take in memory for each of its bytes while it is read and
/// decoded: the file, read whole (its CRC covers all of it), and the board and games built
/// from it, which are smaller than their encoded bytes.
const SNAPSHOT_BYTES_PER_BYTE: u64 = 3;

/// Whether `path` is a room's snapshot, as `bitmines serve` writes them into its data folder
/// (`rooms/NAME/snapshot-N`): a regular file that starts with the snapshot's magic.
pub(crate) fn is_snapshot(path: &Path) -> anyhow::Result<bool> {
    let mut input = open_input(path)?;
    let head = input
        .reader
        .fill_buf()
        .with_context(|| format!("cannot read {}", path.display()))?;
    use bitmines_server::log::{SNAPSHOT_MAGIC, SNAPSHOT_MAGIC_V2, SNAPSHOT_MAGIC_V3};
    Ok([SNAPSHOT_MAGIC, SNAPSHOT_MAGIC_V3, SNAPSHOT_MAGIC_V2]
        .iter()
        .any(|magic| head.starts_with(*magic)))
}

/// Reads a room's snapshot. A snapshot is read whole, since its CRC at the end covers every
/// byte: no more than the length the file had when it was opened is read (a file that grew
/// since is refused), after checking that the memory for it is there; every length the
/// snapshot declares inside is then checked against those bytes as it is decoded.
pub(crate) fn read_snapshot(path: &Path) -> anyhow::Result<bitmines_server::log::SnapshotState> {
    let mut input = open_input(path)?;
    let len = input.len;
    ensure_memory(len.saturating_mul(SNAPSHOT_BYTES_PER_BYTE), || {
        format!(
            "reading {} ({} of snapshot)",
            path.display(),
            human_bytes(len)
        )
    })?;
    let mut bytes = Vec::new();
    // One byte more than the length tells a file that grew while it was read.
    (&mut input.reader)
        .take(len.saturating_add(1))
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.len() as u64 > len {
        bail!(
            "{} grew past {} while being read",
            path.display(),
            human_bytes(len)
        );
    }
    bitmines_server::log::decode_snapshot(&bytes)
        .map_err(|e| anyhow!("{} is not a valid room snapshot: {e}", path.display()))
}

/// Guesses the format from the first bytes of a file (`head`) and its length: the binary
/// magic, then text (UTF-8 after an optional byte order mark), then MBF if its header
/// agrees with the length; `None` if none of them fits.
fn sniff(head: &[u8], len: u64) -> Option<Format> {
    if head.starts_with(&binary::MAGIC) || head.starts_with(&saved::MAGIC) {
        return Some(Format::Bin);
    }
    let text = head.strip_prefix(BOM).unwrap_or(head);
    if looks_like_text(&text[..text.len().min(SNIFF_BYTES)]) {
        return Some(Format::Txt);
    }
    looks_like_mbf(head, len).then_some(Format::Mbf)
}

/// Whether `bytes`, the start of a file, are text: UTF-8 (perhaps cut inside its last
/// character) with no control characters but whitespace. Text that is not a board is then
/// named by the text parser, with the line and column of the first wrong character.
fn looks_like_text(bytes: &[u8]) -> bool {
    let valid = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        // Only a character cut off by the end of `bytes` is forgiven.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    !valid.is_empty()
        && valid
            .chars()
            .all(|ch| !ch.is_control() || ch.is_ascii_whitespace())
}

/// Whether a file starting with `head`, `len` bytes long, has the shape of MBF: a board of
/// at least one cell, no more mines than cells, and exactly two bytes for each mine. Any
/// other bytes would be an MBF file only by accident, and the MBF parser's complaint about
/// them would mislead.
fn looks_like_mbf(head: &[u8], len: u64) -> bool {
    let [width, height, hi, lo, ..] = *head else {
        return false;
    };
    let mines = u64::from(u16::from_be_bytes([hi, lo]));
    width > 0 && height > 0 && mines <= u64::from(width) * u64::from(height) && len == 4 + 2 * mines
}

/// Reads the whole of `input` as `format`, at most `cap` bytes for the formats read whole.
fn load(input: &mut BufReader<File>, format: Format, cap: Option<u64>) -> anyhow::Result<Loaded> {
    if format == Format::Bin && input.fill_buf()?.starts_with(&saved::MAGIC) {
        let (game, _) = Game::read_saved(input)?;
        return Ok(Loaded::Game(game));
    }
    if format == Format::Bin {
        let (board, header) = Board::read_binary(input)?;
        return Ok(Loaded::Board(board, header.seed, header.no_guess));
    }
    let cap = cap.unwrap_or(TEXT_MAX_BYTES);
    let mut bytes = Vec::new();
    // One byte more than the cap tells a file that grew past it since it was measured.
    input.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        bail!("it grew past {} while being read", human_bytes(cap));
    }
    Ok(match format {
        Format::Mbf => Loaded::Board(Board::from_mbf(&bytes)?, None, None),
        _ => {
            let text = bytes.strip_prefix(BOM).unwrap_or(&bytes);
            let text = std::str::from_utf8(text).map_err(|e| anyhow!("not UTF-8 text: {e}"))?;
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

/// What an output option may do with `-`, the name of standard output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dash {
    /// Nothing: the option needs a file (standard output carries something else, or a
    /// file is what the option is for), so `-` is refused rather than taken for a name.
    Refused,
    /// Write text to standard output.
    Text,
    /// Write binary data to standard output, unless it is a terminal.
    Binary,
}

/// Whether `path` is `-`, standard output.
pub(crate) fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How a message names an output: `standard output` for `-`, else the path.
pub(crate) fn output_name(path: &Path) -> String {
    match is_stdout(path) {
        true => "standard output".to_string(),
        false => path.display().to_string(),
    }
}

/// Checks, before any work, that `option`'s file `path` can be written: that it names a file
/// (not a folder, a device or a FIFO, which the rename would replace), that its folder
/// exists, and that a file can be made there, by making and removing the temporary file
/// [`write_atomic`] would write. `-` is standard output where `dash` allows it. A run that
/// would fail only at its end, its work lost, fails here at once in one line instead.
pub(crate) fn check_output(option: &str, path: &Path, dash: Dash) -> anyhow::Result<()> {
    let shown = format!("{option} {}", path.display());
    if is_stdout(path) {
        return match dash {
            Dash::Refused => {
                bail!("{shown}: this option writes a file, not standard output; name a file")
            }
            Dash::Binary if io::stdout().is_terminal() => bail!(
                "{shown}: standard output is a terminal, and the file is binary; redirect it or name a file"
            ),
            Dash::Text | Dash::Binary => Ok(()),
        };
    }
    let Some(name) = path.file_name() else {
        bail!("{shown} does not name a file");
    };
    if let Ok(metadata) = fs::metadata(path) {
        let kind = metadata.file_type();
        if kind.is_dir() {
            bail!("{shown} is a directory; name a file");
        }
        if !kind.is_file() {
            bail!(
                "{shown} is {}, not a file bitmines can replace",
                kind_name(&kind)
            );
        }
    }
    let folder = folder_of(path);
    match fs::metadata(folder) {
        Ok(metadata) if metadata.is_dir() => {}
        Ok(_) => bail!("{shown}: {} is not a folder", folder.display()),
        Err(e) => bail!("{shown}: cannot use the folder {}: {e}", folder.display()),
    }
    let probe = folder.join(temp_name(&name.to_string_lossy(), std::process::id()));
    match OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(file) => {
            drop(file);
            let _ = fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => bail!("{shown}: cannot create a file in {}: {e}", folder.display()),
    }
}

/// The folder a file `path` goes in: its parent, or the current folder for a bare name.
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    }
}

/// Writes an output: to standard output for `-`, else to the file at `path` by
/// [`write_atomic`].
pub(crate) fn write_output(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    if !is_stdout(path) {
        return write_atomic(path, write);
    }
    let mut out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
    write(&mut out)?;
    out.flush()?;
    Ok(())
}

/// Writes a file so that readers see either the old file or the whole new one, never a
/// part: `write` fills a temporary file in the same folder, which is flushed to disk and
/// then renamed over `path`. On any error the temporary file is removed and `path` is left
/// as it was. Errors name no temporary file, which the user never asked for; the caller
/// names `path`.
pub(crate) fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| anyhow!("{} does not name a file", path.display()))?;
    let folder = folder_of(path);
    let name = name.to_string_lossy();
    remove_stale_temps(folder, &name);
    let temp = folder.join(temp_name(&name, std::process::id()));
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .with_context(|| format!("cannot create a file in {}", folder.display()))?;
    // Made only once the file is ours, so that a file already there is never removed.
    let temp = Temp(temp);
    let mut out = BufWriter::with_capacity(1 << 20, file);
    write(&mut out)?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temp.0, path).context("cannot put the new file in its place")?;
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

    /// A write that fails says why without naming the temporary file, which the user never
    /// asked for: neither when no file can be made in the folder nor when the new file
    /// cannot take the old one's place.
    #[test]
    fn write_errors_name_no_temporary_file() {
        let dir = folder("errors");
        let missing = dir.join("missing").join("board.bin");
        let over_a_folder = dir.join("folder");
        fs::create_dir(&over_a_folder).expect("mkdir");
        for path in [&missing, &over_a_folder] {
            let error = write_atomic(path, |out| Ok(out.write_all(b"board")?))
                .expect_err("cannot be written");
            let message = format!("{error:#}");
            assert!(!message.contains(".tmp"), "{message}");
            assert!(
                message.starts_with("cannot create a file in")
                    || message.starts_with("cannot put the new file in its place"),
                "{message}"
            );
        }
        assert_eq!(
            fs::read_dir(&dir).expect("list").count(),
            1,
            "no temp file is left"
        );
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

    /// The format is guessed from the first bytes and the length: MBF only when its header
    /// agrees with the length, so random bytes match nothing.
    #[test]
    fn sniffing_names_each_format_and_nothing_else() {
        let board = Board::from_mines(3, 3, [(0, 0), (2, 2)]).expect("a board");
        let bin = board.to_binary(None);
        let mbf = board.to_mbf().expect("fits MBF");
        let cases: [(&[u8], u64, Option<Format>); 13] = [
            (&bin, bin.len() as u64, Some(Format::Bin)),
            (&saved::MAGIC, 1000, Some(Format::Bin)),
            (&mbf, mbf.len() as u64, Some(Format::Mbf)),
            // The same MBF bytes in a file one byte longer, or one byte shorter.
            (&mbf, mbf.len() as u64 + 1, None),
            (&mbf[..mbf.len() - 1], mbf.len() as u64 - 1, None),
            // More mines than cells, and a board with no cells.
            (&[2, 2, 0, 5, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0], 14, None),
            (&[0, 0, 0, 0], 4, None),
            (b"*..\n.*.\n", 8, Some(Format::Txt)),
            (b"\xEF\xBB\xBF*..\n", 7, Some(Format::Txt)),
            (&[0xFF, 0x00, 0x12, 0x99, 0x07, 0xC3, 0x01], 7, None),
            // UTF-8 that is not a board is text, for the text parser to name what is wrong,
            // even cut inside a character; a control character is not text.
            ("*é.\n".as_bytes(), 5, Some(Format::Txt)),
            (&"*.é".as_bytes()[..3], 4, Some(Format::Txt)),
            (b"*.\x07\n", 4, None),
        ];
        for (head, len, expected) in cases {
            assert_eq!(sniff(head, len), expected, "{head:?}, {len} bytes");
        }
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
