//! `bitmines demo`: one seeded game played by a player that sees only what a person sees.

use anyhow::{Context, bail};
use bitmines_core::{FirstClick, Game, SeededPlacer, Stats};
use bitmines_solve::{Player, Policy};

use crate::render;
use crate::system::emit;

/// Options of `bitmines demo`; the defaults are the expert board.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Seed for the mines.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    /// Rows of the board.
    #[arg(long, default_value_t = 16)]
    rows: usize,
    /// Columns of the board.
    #[arg(long, default_value_t = 30)]
    cols: usize,
    /// Mines on the board.
    #[arg(long, default_value_t = 99)]
    mines: usize,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    if args.rows.saturating_mul(args.cols) > 1 << 20 {
        bail!(
            "the demo prints its board; {}x{} is too large (at most 2^20 cells)",
            args.rows,
            args.cols
        );
    }
    let mut game = Game::deferred(
        args.rows,
        args.cols,
        args.mines,
        FirstClick::Opening,
        SeededPlacer::new(args.seed),
    )?;
    game.reveal(args.rows / 2, args.cols / 2)?;
    let outcome = Player::new(Policy::Safest).play(&mut game)?;
    let mut text = render::picture(&game)?;
    text += &format!(
        "{} on a {}x{} board with {} mines (seed {}): 1 first click + {} proven reveals + {} guesses, {} cells revealed\n",
        game.status(),
        args.rows,
        args.cols,
        args.mines,
        args.seed,
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
