//! `bitmines demo`: one seeded game played by a player that sees only what a person sees.

use anyhow::{Context, bail};
use bitmines_core::{FirstClick, Game, SeededPlacer, Stats};
use bitmines_solve::{Player, Policy};

use crate::cli::{BoardArgs, Preset, SizeDefault};
use crate::render;
use crate::system::emit;

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
        "{} on a {}x{} board with {} mines (seed {}): 1 first click + {} proven reveals + {} guesses, {} cells revealed\n",
        game.status(),
        rows,
        cols,
        mines,
        seed,
        outcome.proven,
        outcome.guesses.len(),
        game.revealed_count(),
    );
    if let Some(board) = game.board() {
        let stats = Stats::of(board)?;
        text += &format!(
            "board: 3BV {}, {} openings, {} islands\n",
            stats.bbbv, stats.openings, stats.islands
        );
    }
    emit(text)?;
    game.validate()
        .context("the finished game failed validation")?;
    Ok(())
}
