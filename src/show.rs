//! `bitmines show`: print a board or game file as text, or picture it as a PNG.

use std::path::PathBuf;

use anyhow::anyhow;
use bitmines_core::{Board, Stats};
use indicatif::{ProgressBar, ProgressStyle};

use serde::Serialize;

use crate::cli::{JsonArg, at_least_one};
use crate::files::{
    Dash, Format, Loaded, check_output, declared_size, is_snapshot, output_name, read,
    read_snapshot,
};
use crate::picture;
use crate::system::{PROGRESS_CELLS, emit, progress_bar, too_large_to_print};
use crate::text::{count, thousands};

/// Boards up to this many cells are printed as text.
const TEXT_MAX_CELLS: usize = 1_000_000;

/// The name and version of the `--json` report's shape.
pub(crate) const SCHEMA: &str = "bitmines-show/1";

/// Options of `bitmines show`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// A board (binary, MBF or text), a saved game (binary or text), or a room's snapshot
    /// from a `bitmines serve` data folder (`rooms/NAME/snapshot-N`).
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
    #[arg(long, value_name = "PIXELS", default_value_t = 2048, value_parser = at_least_one::<u32>, allow_negative_numbers = true)]
    png_size: u32,
    /// Print the file's figures (not its cells) as one JSON object instead of the text.
    #[command(flatten)]
    json: JsonArg,
}

/// What `show --json` prints: the figures of the file, never its cells, so a board of any
/// size has a report of a few lines.
#[derive(Serialize)]
struct Report {
    schema: &'static str,
    file: String,
    /// `board`, `game`, `view` or `snapshot`.
    kind: &'static str,
    rows: usize,
    cols: usize,
    mines: usize,
    /// The board's seed, where the file records one.
    seed: Option<u64>,
    /// Openings, islands and 3BV, of a board.
    stats: Option<Figures>,
    /// What a no-guess certificate vouches for, where the file has one.
    no_guess: Option<String>,
    /// `playing`, `won` or `lost`, of a game or view.
    status: Option<String>,
    /// Cells revealed, of a game or view.
    revealed: Option<usize>,
    /// Flags, of a game.
    flags: Option<usize>,
    /// The mine rule (`classic` or `endless`), of a game.
    rule: Option<String>,
    /// Where the picture was written, with --png.
    png: Option<String>,
    /// The room's records the state includes, of a snapshot.
    #[serde(skip_serializing_if = "Option::is_none")]
    records: Option<u64>,
    /// The players, of a snapshot.
    #[serde(skip_serializing_if = "Option::is_none")]
    players: Option<usize>,
    /// The views (one game each: one shared in co-op, one a player in a race), of a
    /// snapshot.
    #[serde(skip_serializing_if = "Option::is_none")]
    views: Option<usize>,
}

/// A board's figures.
#[derive(Serialize)]
struct Figures {
    openings: usize,
    islands: usize,
    bbbv: usize,
}

/// The report of a loaded file, the picture's path if one was written.
fn report(args: &Args, loaded: &Loaded, png: Option<String>) -> anyhow::Result<Report> {
    let mut report = Report {
        schema: SCHEMA,
        file: args.file.display().to_string(),
        kind: "board",
        rows: 0,
        cols: 0,
        mines: 0,
        seed: None,
        stats: None,
        no_guess: None,
        status: None,
        revealed: None,
        flags: None,
        rule: None,
        png,
        records: None,
        players: None,
        views: None,
    };
    match loaded {
        Loaded::Board(board, seed, record) => {
            let stats = Stats::of(board)?;
            (report.rows, report.cols) = (board.rows(), board.cols());
            report.mines = board.mine_count();
            report.seed = *seed;
            report.stats = Some(Figures {
                openings: stats.openings,
                islands: stats.islands,
                bbbv: stats.bbbv,
            });
            report.no_guess = record.map(|record| crate::generate::describe(&record));
        }
        Loaded::Game(game) => {
            report.kind = "game";
            (report.rows, report.cols) = (game.rows(), game.cols());
            report.mines = game.mine_count();
            report.seed = game.seed();
            report.status = Some(game.status().to_string());
            report.revealed = Some(game.revealed_count());
            report.flags = Some(game.flag_count());
            report.rule = Some(game.rule().to_string());
        }
        Loaded::View(position) => {
            let view = position.view();
            report.kind = "view";
            (report.rows, report.cols) = (view.rows(), view.cols());
            report.mines = view.mine_count();
            report.status = Some(view.status().to_string());
            report.revealed = Some(view.revealed_count());
        }
    }
    Ok(report)
}

/// Reads the file and shows it.
pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    if let Some(path) = &args.png {
        check_output("--png", path, Dash::Binary)?;
        if args.json.json && path.as_os_str() == "-" {
            anyhow::bail!(
                "--json and --png - would both write to standard output: name a file with --png, or leave out --json"
            );
        }
    }
    if args.format.is_none() && is_snapshot(&args.file)? {
        return show_snapshot(args);
    }
    if args.png.is_none()
        && !args.json.json
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
        if args.json.json {
            let report = report(args, &loaded, Some(output_name(path)))?;
            return emit(format!("{}\n", serde_json::to_string(&report)?));
        }
        eprintln!(
            "bitmines: wrote {} ({rows}x{cols} cells)",
            output_name(path)
        );
        return Ok(());
    }
    if args.json.json {
        let report = report(args, &loaded, None)?;
        return emit(format!("{}\n", serde_json::to_string(&report)?));
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

/// Shows a room's snapshot: what the room held (its records, players and views), then each
/// view's game as `show` prints a saved game, or the figures as JSON. A snapshot has no
/// picture of its own: each view is a game, and the views differ in a race.
fn show_snapshot(args: &Args) -> anyhow::Result<()> {
    if args.png.is_some() {
        anyhow::bail!(
            "{} is a room's snapshot, which has no picture; show prints its views as text",
            args.file.display()
        );
    }
    let state = read_snapshot(&args.file)?;
    let board = &state.board;
    let (rows, cols) = (board.rows(), board.cols());
    if args.json.json {
        let mut report = report(args, &Loaded::Board((**board).clone(), None, None), None)?;
        report.kind = "snapshot";
        report.records = Some(state.records);
        report.players = Some(state.players.len());
        report.views = Some(state.games.len());
        return emit(format!(
            "{}
",
            serde_json::to_string(&report)?
        ));
    }
    let mut text = format!(
        "room snapshot after {}: {rows}x{cols} board, {}; {}, {}\n",
        count(state.records, "record"),
        count(board.mine_count(), "mine"),
        count(state.players.len(), "player"),
        count(state.games.len(), "view"),
    );
    // Players are numbered from 1, as the protocol numbers them; their tokens are secrets
    // and never shown.
    let name = |p: usize| format!("player {} {:?}", p + 1, state.players[p].name);
    for (p, player) in state.players.iter().enumerate() {
        text.push_str(&format!(
            "{}: view {}, opened {}, {} hit\n",
            name(p),
            player.view,
            count(player.opened, "cell"),
            count(player.mines_hit, "mine"),
        ));
    }
    let printable = rows.saturating_mul(cols) <= TEXT_MAX_CELLS;
    for (v, game) in state.games.iter().enumerate() {
        let players: Vec<String> = (0..state.players.len())
            .filter(|&p| state.players[p].view == v)
            .map(name)
            .collect();
        let whose = if players.is_empty() {
            "no player".to_string()
        } else {
            players.join(", ")
        };
        text.push_str(&format!(
            "\nview {v} ({whose}): {}, {} revealed, {}\n",
            game.status(),
            count(game.revealed_count(), "cell"),
            count(game.flag_count(), "flag"),
        ));
        if printable {
            text.push_str(&game.to_string());
        }
    }
    if !printable {
        text.push_str(&format!(
            "\nthe views' cells are not printed: {} cells is more than {}\n",
            thousands(rows.saturating_mul(cols)),
            thousands(TEXT_MAX_CELLS)
        ));
    }
    emit(text)
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
    too_large_to_print(rows, cols, TEXT_MAX_CELLS, "--png FILE or --json")
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
