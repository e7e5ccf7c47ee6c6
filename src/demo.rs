//! `bitmines demo`: one seeded game played by a player that sees only what a person sees.

use anyhow::{Context, bail};
use bitmines_core::{Cell, FirstClick, Game, SeededPlacer, Stats, Status};
use bitmines_solve::Solver;

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

/// What the player did, by kind of move.
#[derive(Debug, Default)]
struct Moves {
    reveals: usize,
    guesses: usize,
    flags: usize,
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
    let mut moves = Moves::default();
    game.reveal(args.rows / 2, args.cols / 2)?;
    moves.reveals += 1;
    while game.status() == Status::Playing {
        play(&mut game, &mut moves)?;
    }
    let mut text = render::picture(&game)?;
    text += &format!(
        "{} on a {}x{} board with {} mines (seed {}): {} first click + {} proven reveals + {} guesses, {} flags, {} cells revealed\n",
        game.status(),
        args.rows,
        args.cols,
        args.mines,
        args.seed,
        1,
        moves.reveals - 1,
        moves.guesses,
        moves.flags,
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

/// One turn of the solver's player: reveal every cell the solver proves safe and flag
/// every proven mine; when nothing is proven safe, reveal the hidden cell least likely to
/// be a mine (the first such cell, row by row).
fn play(game: &mut Game, moves: &mut Moves) -> anyhow::Result<()> {
    let solution = Solver::new(game)?.solve()?;
    let (certain, odds) = (&solution.certain, &solution.probabilities);
    for (r, c) in certain.mines() {
        if game.cell(r, c)? == Cell::Hidden {
            game.toggle_flag(r, c)?;
            moves.flags += 1;
        }
    }
    let safe: Vec<(usize, usize)> = certain.safe().collect();
    if !safe.is_empty() {
        for (r, c) in safe {
            if game.status() == Status::Playing && game.cell(r, c)? == Cell::Hidden {
                game.reveal(r, c)?;
                moves.reveals += 1;
            }
        }
        if game.status() == Status::Lost {
            bail!("a cell the solver proved safe held a mine");
        }
        return Ok(());
    }
    let mut best: Option<((usize, usize), f64)> = None;
    for r in 0..game.rows() {
        for c in 0..game.cols() {
            if game.cell(r, c)? != Cell::Hidden {
                continue;
            }
            let p = odds.mine(r, c)?;
            if best.is_none_or(|(_, q)| p < q) {
                best = Some(((r, c), p));
            }
        }
    }
    let Some(((r, c), _)) = best else {
        bail!("no hidden cell left to guess, yet the game is still playing");
    };
    game.reveal(r, c)?;
    moves.guesses += 1;
    Ok(())
}
