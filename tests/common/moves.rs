//! Moves on a game, the same for the engine and for the naive twin.
//!
//! Shared by the test harness and by `bitmines stress --check`, which includes this file
//! with `#[path]`; it needs a `crate::naive` module holding the naive twin.

use bitmines_core::{Error, Game, Status};

use crate::naive::NaiveGame;

/// One mutating call on a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Act {
    /// `reveal(row, col)`.
    Reveal(usize, usize),
    /// `toggle_flag(row, col)`.
    Flag(usize, usize),
    /// `chord(row, col)`.
    Chord(usize, usize),
}

/// The successful result of an [`Act`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A reveal or chord opened this many safe cells and left the game in this status.
    Opened(usize, Status),
    /// A flag toggle left the cell flagged (`true`) or not (`false`).
    Flagged(bool),
}

/// Applies `act` to an engine game.
pub(crate) fn play(game: &mut Game, act: Act) -> Result<Outcome, Error> {
    match act {
        Act::Reveal(r, c) => game
            .reveal(r, c)
            .map(|step| Outcome::Opened(step.opened, step.status)),
        Act::Flag(r, c) => game.toggle_flag(r, c).map(Outcome::Flagged),
        Act::Chord(r, c) => game
            .chord(r, c)
            .map(|step| Outcome::Opened(step.opened, step.status)),
    }
}

/// Applies `act` to the naive twin, with its errors as the engine's.
pub(crate) fn play_naive(naive: &mut NaiveGame, act: Act) -> Result<Outcome, Error> {
    match act {
        Act::Reveal(r, c) => naive.reveal(r, c).map(|(n, s)| Outcome::Opened(n, s)),
        Act::Flag(r, c) => naive.toggle_flag(r, c).map(Outcome::Flagged),
        Act::Chord(r, c) => naive.chord(r, c).map(|(n, s)| Outcome::Opened(n, s)),
    }
    .map_err(Error::from)
}
