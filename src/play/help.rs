//! Help from the solver: a hint, mine probabilities and proven-wrong flags.
//!
//! Every call to the solver is in this module, so the rest of the game knows only these
//! three answers and their plain types.

use anyhow::bail;
use bitmines_core::Game;

/// A hidden cell proven safe, and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hint {
    /// The cell, `(row, col)`.
    pub(crate) cell: (usize, usize),
    /// One sentence a player can check on the board.
    pub(crate) reason: String,
}

/// The chance that each hidden cell holds a mine, given what the player sees.
#[derive(Debug)]
pub(crate) struct Odds {}

impl Odds {
    /// The chance of a mine at `(row, col)`: 0 for a revealed or proven-safe cell, 1 for a
    /// proven mine; `None` off the board.
    pub(crate) fn mine(&self, _row: usize, _col: usize) -> Option<f64> {
        None
    }

    /// Whether the chances are exact rather than estimated.
    pub(crate) fn exact(&self) -> bool {
        false
    }
}

/// The flags that sit on cells proven safe.
#[derive(Debug)]
pub(crate) struct WrongFlags {}

impl WrongFlags {
    /// Whether the flag at `(row, col)` is proven wrong.
    pub(crate) fn contains(&self, _row: usize, _col: usize) -> bool {
        false
    }

    /// How many flags are proven wrong.
    pub(crate) fn len(&self) -> usize {
        0
    }
}

/// A hidden cell proven safe, or `None` when no cell is.
pub(crate) fn hint(_game: &Game) -> anyhow::Result<Option<Hint>> {
    bail!("this build has no solver to give hints")
}

/// The chance of a mine on every hidden cell.
pub(crate) fn odds(_game: &Game) -> anyhow::Result<Odds> {
    bail!("this build has no solver to give mine probabilities")
}

/// The flags proven wrong.
pub(crate) fn wrong_flags(_game: &Game) -> anyhow::Result<WrongFlags> {
    bail!("this build has no solver to check flags")
}
