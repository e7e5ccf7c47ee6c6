//! `bitmines demo`: one seeded game played by a player that sees only what a person sees.
//!
//! The game is a `SeededPlacer` game played by the solver's `Player`.

use anyhow::Context;
use bitmines_core::{FirstClick, Game, Geometry, SeededPlacer, Stats, Status};
use bitmines_solve::{Player, Policy};
use serde::Serialize;

use crate::cli::{BoardArgs, JsonArg, KeepClear, Preset, SizeDefault};
use crate::render;
use crate::system::{emit, ensure_memory, too_large_to_print};
use crate::text::{count, count_as, thousands};

/// The name and version of the `--json` report's shape.
pub(crate) const SCHEMA: &str = "bitmines-demo/1";

/// Boards up to this many cells are played and printed; `--json`, which prints no board, is
/// bounded by memory alone.
const PRINT_MAX_CELLS: usize = 1 << 20;

/// Options of `bitmines demo`; the defaults are the expert board.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    board: BoardArgs,
    /// Print the game's figures (not its board) as one JSON object instead of the text.
    #[command(flatten)]
    json: JsonArg,
}

/// What `demo` reports.
#[derive(Serialize)]
struct Report {
    schema: &'static str,
    /// `won` or `lost`.
    status: String,
    rows: usize,
    cols: usize,
    mines: usize,
    seed: u64,
    first_click: [usize; 2],
    first_click_rule: KeepClear,
    proven: usize,
    guesses: usize,
    revealed: usize,
    /// 3BV, openings and islands of the board.
    bbbv: usize,
    openings: usize,
    islands: usize,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let chosen = args.board.choose(SizeDefault::Preset(Preset::Expert))?;
    let (rows, cols, mines, seed) = (chosen.rows, chosen.cols, chosen.mines, chosen.seed);
    if !args.json.json {
        too_large_to_print(rows, cols, PRINT_MAX_CELLS, "--json")?;
    }
    // The game's planes and the solver's seven.
    let geometry = Geometry::new(rows, cols)?;
    ensure_memory(geometry.plane_bytes() as u64 * 12, || {
        format!("a {rows}x{cols} game")
    })?;
    let mut game = Game::deferred(
        rows,
        cols,
        mines,
        FirstClick::from(chosen.first_click_rule),
        SeededPlacer::new(seed),
    )?;
    // The first click is the centre, as in every subcommand that plays. A board with no
    // safe cell (every cell a mine, with no first-click rule) is won before any click, as
    // `stress` reports it.
    let click = [rows / 2, cols / 2];
    let (mut proven, mut guesses) = (0, 0);
    let clicked = game.status() == Status::Playing;
    if clicked {
        game.reveal(click[0], click[1])?;
        let outcome = Player::new(Policy::Safest).play(&mut game)?;
        (proven, guesses) = (outcome.proven, outcome.guesses.len());
    }
    let stats = game.board().map(|board| Stats::of(board)).transpose()?;
    game.validate()
        .context("the finished game failed validation")?;
    if args.json.json {
        let report = Report {
            schema: SCHEMA,
            status: game.status().to_string(),
            rows,
            cols,
            mines,
            seed,
            first_click: click,
            first_click_rule: chosen.first_click_rule,
            proven,
            guesses,
            revealed: game.revealed_count(),
            bbbv: stats.map_or(0, |s| s.bbbv),
            openings: stats.map_or(0, |s| s.openings),
            islands: stats.map_or(0, |s| s.islands),
        };
        return emit(format!("{}\n", serde_json::to_string(&report)?));
    }
    let mut text = render::picture(&game)?;
    text += &format!(
        "{} on a {}x{} board with {} (seed {}): {} + {} + {}, {} revealed\n",
        game.status(),
        rows,
        cols,
        count(mines, "mine"),
        seed,
        if clicked {
            "1 first click"
        } else {
            "no click (no safe cell)"
        },
        count(proven, "proven reveal"),
        count_as(guesses, "guess", "guesses"),
        count(game.revealed_count(), "cell"),
    );
    if let Some(stats) = stats {
        text += &format!(
            "board: 3BV {}, {}, {}\n",
            thousands(stats.bbbv),
            count(stats.openings, "opening"),
            count(stats.islands, "island")
        );
    }
    emit(text)
}
