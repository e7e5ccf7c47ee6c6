//! `bitmines demo`: one seeded game played by a player that sees only what a person sees.

use anyhow::{Context, bail};
use bitmines_core::{Cell, FirstClick, Game, SeededPlacer, Stats, Status};
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::render;
use crate::system::emit;

/// Options of `bitmines demo`; the defaults are the expert board.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Seed for the mines and for the player's guesses.
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
    chords: usize,
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
    let mut rng = Pcg64::seed_from_u64(args.seed ^ 0x5EED_6A3E);
    let mut moves = Moves::default();
    game.reveal(args.rows / 2, args.cols / 2)?;
    moves.reveals += 1;
    while game.status() == Status::Playing {
        if !deduce(&mut game, &mut moves)? {
            guess(&mut game, &mut rng)?;
            moves.guesses += 1;
        }
    }
    let mut text = render::picture(&game)?;
    text += &format!(
        "{} on a {}x{} board with {} mines (seed {}): {} first click + {} guesses, {} flags, {} chords, {} cells revealed\n",
        game.status(),
        args.rows,
        args.cols,
        args.mines,
        args.seed,
        moves.reveals,
        moves.guesses,
        moves.flags,
        moves.chords,
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

/// One pass of single-cell deduction over every open number: flag the hidden neighbours of a
/// number that needs all of them, chord a number whose flags are complete. Returns whether
/// anything changed.
fn deduce(game: &mut Game, moves: &mut Moves) -> anyhow::Result<bool> {
    let mut progress = false;
    for r in 0..game.rows() {
        for c in 0..game.cols() {
            let Cell::Open(number) = game.cell(r, c)? else {
                continue;
            };
            if number == 0 || game.status() != Status::Playing {
                continue;
            }
            let (mut hidden, mut flags) = (Vec::new(), 0);
            for (nr, nc) in neighbours(game, r, c) {
                match game.cell(nr, nc)? {
                    Cell::Hidden => hidden.push((nr, nc)),
                    Cell::Flagged => flags += 1,
                    _ => {}
                }
            }
            if hidden.is_empty() {
                continue;
            }
            if flags == usize::from(number) {
                game.chord(r, c)?;
                moves.chords += 1;
                progress = true;
            } else if flags + hidden.len() == usize::from(number) {
                for (nr, nc) in hidden {
                    game.toggle_flag(nr, nc)?;
                    moves.flags += 1;
                }
                progress = true;
            }
        }
    }
    Ok(progress)
}

/// Reveals a uniformly chosen hidden, unflagged cell.
fn guess(game: &mut Game, rng: &mut Pcg64) -> anyhow::Result<()> {
    let mut hidden = Vec::new();
    for r in 0..game.rows() {
        for c in 0..game.cols() {
            if game.cell(r, c)? == Cell::Hidden {
                hidden.push((r, c));
            }
        }
    }
    if hidden.is_empty() {
        bail!("no hidden cell left to guess, yet the game is still playing");
    }
    let (r, c) = hidden[(rng.next_u64() % hidden.len() as u64) as usize];
    game.reveal(r, c)?;
    Ok(())
}

/// The on-board neighbours of `(r, c)`.
fn neighbours(game: &Game, r: usize, c: usize) -> impl Iterator<Item = (usize, usize)> {
    let (rows, cols) = (game.rows(), game.cols());
    (r.saturating_sub(1)..=(r + 1).min(rows - 1))
        .flat_map(move |nr| (c.saturating_sub(1)..=(c + 1).min(cols - 1)).map(move |nc| (nr, nc)))
        .filter(move |&cell| cell != (r, c))
}
