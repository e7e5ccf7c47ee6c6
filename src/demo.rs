//! `bitmines demo`: one seeded game played by a player that sees only what a person sees.

use anyhow::{Context, bail};
use bitmines_core::{FirstClick, Game, SeededPlacer, Stats};
use bitmines_solve::{Player, Policy};

use crate::cli::{BoardArgs, Preset, SizeDefault};
use crate::render;
use crate::system::emit;
use crate::text::{count, count_as, thousands};

/// Options of `bitmines demo`; the defaults are the expert board.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    board: BoardArgs,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let chosen = args.board.choose(SizeDefault::Preset(Preset::Expert))?;
    let (rows, cols, mines, seed) = (chosen.rows, chosen.cols, chosen.mines, chosen.seed);
    if rows.saturating_mul(cols) > 1 << 20 {
        bail!("the demo prints its board; {rows}x{cols} is too large (at most 2^20 cells)");
    }
    let mut game = Game::deferred(
        rows,
        cols,
        mines,
        FirstClick::from(chosen.rule),
        SeededPlacer::new(seed),
    )?;
    game.reveal(rows / 2, cols / 2)?;
    let outcome = Player::new(Policy::Safest).play(&mut game)?;
    let mut text = render::picture(&game)?;
    text += &format!(
        "{} on a {}x{} board with {} (seed {}): 1 first click + {} + {}, {} revealed\n",
        game.status(),
        rows,
        cols,
        count(mines, "mine"),
        seed,
        count(outcome.proven, "proven reveal"),
        count_as(outcome.guesses.len(), "guess", "guesses"),
        count(game.revealed_count(), "cell"),
    );
    if let Some(board) = game.board() {
        let stats = Stats::of(board)?;
        text += &format!(
            "board: 3BV {}, {}, {}\n",
            thousands(stats.bbbv),
            count(stats.openings, "opening"),
            count(stats.islands, "island")
        );
    }
    emit(text)?;
    game.validate()
        .context("the finished game failed validation")?;
    Ok(())
}
