//! `bitmines show`: print a board or game file as text, or picture it as a PNG.

use std::path::PathBuf;

use anyhow::{anyhow, bail};
use bitmines_core::{Board, Stats};
use indicatif::{ProgressBar, ProgressStyle};

use crate::files::{Dash, Format, Loaded, check_output, declared_size, output_name, read};
use crate::picture;
use crate::system::{PROGRESS_CELLS, emit, progress_bar};
use crate::text::{count, thousands};

/// Boards up to this many cells are printed as text.
const TEXT_MAX_CELLS: usize = 1_000_000;

/// Options of `bitmines show`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// A board (binary, MBF or text) or a saved game (text).
    file: PathBuf,
    /// The file's format (default: recognised from its first bytes).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Write a PNG picture to FILE (`-`: to standard output) instead of printing text: a
    /// colour a cell, each number written in its cell when cells get 9 pixels a side or more
    /// (boards up to 227 cells a side at the default --png-size), and a legend of the colours
    /// below the board. On a larger board a pixel is the average colour of the cells it
    /// covers, with no digits.
    #[arg(long, value_name = "FILE")]
    png: Option<PathBuf>,
    /// Longest side of the picture, in pixels.
    #[arg(long, value_name = "PIXELS", default_value_t = 2048)]
    png_size: u32,
}

/// Reads the file and shows it.
pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    if args.png_size == 0 {
        bail!("--png-size must be at least 1 pixel");
    }
    if let Some(path) = &args.png {
        check_output("--png", path, Dash::Binary)?;
    }
    if args.png.is_none()
        && let Some((rows, cols)) = declared_size(&args.file, args.format)?
    {
        too_large_for_text(rows, cols)?;
    }
    let loaded = read(&args.file, args.format)?;
    let (rows, cols) = match &loaded {
        Loaded::Board(board, ..) => (board.rows(), board.cols()),
        Loaded::Game(game) => (game.rows(), game.cols()),
        Loaded::View(position) => (position.view().rows(), position.view().cols()),
    };
    if let Some(path) = &args.png {
        let progress = picture_progress(rows, cols);
        let pictured = match &loaded {
            Loaded::Board(board, ..) => picture::write_board(path, board, args.png_size, &progress),
            Loaded::Game(game) => picture::write_game(path, game, args.png_size, &progress),
            Loaded::View(_) => Err(anyhow!(
                "a player's view has no picture; show prints it as text"
            )),
        };
        // Cleared before any error, which is then printed on a line of its own.
        progress.finish_and_clear();
        pictured?;
        eprintln!(
            "bitmines: wrote {} ({rows}x{cols} cells)",
            output_name(path)
        );
        return Ok(());
    }
    too_large_for_text(rows, cols)?;
    match &loaded {
        Loaded::Board(board, seed, record) => {
            let stats = Stats::of(board)?;
            let seed = seed.map_or(String::new(), |seed| format!(", seed {seed}"));
            let certified = record.map_or(String::new(), |record| {
                format!("\n{}", crate::generate::describe(&record))
            });
            emit(format!(
                "{rows}x{cols} board, {}{seed}; {}, {}, 3BV {}{certified}\n{}",
                count(board.mine_count(), "mine"),
                count(stats.openings, "opening"),
                count(stats.islands, "island"),
                thousands(stats.bbbv),
                numbered(board)?
            ))?;
        }
        Loaded::Game(game) => emit(game)?,
        Loaded::View(position) => emit(position)?,
    }
    Ok(())
}

/// A bar of the board's rows as they are pictured, for boards large enough to take a while,
/// on a terminal only.
fn picture_progress(rows: usize, cols: usize) -> ProgressBar {
    if rows.saturating_mul(cols) < PROGRESS_CELLS {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template(
        "{elapsed_precise} [{bar:30}] {human_pos}/{human_len} rows pictured, ETA {eta}",
    )
    .map(|style| style.progress_chars("=> "));
    progress_bar(Some(rows as u64), style, None)
}

/// Fails for boards too large to print, pointing to `--png`.
fn too_large_for_text(rows: usize, cols: usize) -> anyhow::Result<()> {
    if rows.saturating_mul(cols) > TEXT_MAX_CELLS {
        bail!(
            "a {rows}x{cols} board is too large to print as text (at most {TEXT_MAX_CELLS} cells); use --png FILE"
        );
    }
    Ok(())
}

/// The board with every cell shown: `*` for a mine, `.` for a zero cell, else its number.
fn numbered(board: &Board) -> Result<String, bitmines_core::Error> {
    let mut text = String::with_capacity((board.cols() + 1) * board.rows());
    for r in 0..board.rows() {
        for c in 0..board.cols() {
            text.push(match (board.is_mine(r, c)?, board.number(r, c)?) {
                (true, _) => '*',
                (false, 0) => '.',
                (false, n) => char::from(b'0' + n),
            });
        }
        text.push('\n');
    }
    Ok(text)
}
