//! Help from the solver: a hint, and what the player's view proves (mine probabilities and
//! proven-safe cells, so wrong flags).
//!
//! Every call to `bitmines-solve` is in this module, so the rest of the game knows only these
//! answers and their plain types. The solver reads the game's view, never its mines.

use bitmines_core::Game;
use bitmines_solve::{Certain, Probabilities, Solver};

/// A hidden cell proven safe, and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hint {
    /// The cell, `(row, col)`.
    pub(crate) cell: (usize, usize),
    /// One sentence a player can check on the board.
    pub(crate) reason: String,
}

/// What the player's view proves, from one pass of the solver: the chance of a mine on
/// every hidden cell, and the cells proven safe. The solver never trusts a flag, so this
/// holds until a cell is revealed, whatever flags come and go.
#[derive(Debug)]
pub(crate) struct Knowledge {
    certain: Certain,
    odds: Probabilities,
}

impl Knowledge {
    /// The chance of a mine at `(row, col)`: 0 for a revealed or proven-safe cell, 1 for a
    /// proven mine; `None` off the board.
    pub(crate) fn mine(&self, row: usize, col: usize) -> Option<f64> {
        self.odds.mine(row, col).ok()
    }

    /// Whether the chances are exact rather than estimated (the solver estimates where
    /// counting would take too long).
    pub(crate) fn exact(&self) -> bool {
        self.odds.exact()
    }

    /// Whether `(row, col)` is proven safe, so a flag there is wrong.
    pub(crate) fn proven_safe(&self, row: usize, col: usize) -> bool {
        self.certain.verdict(row, col) == Ok(Some(false))
    }

    /// How many of `game`'s flags sit on cells proven safe.
    pub(crate) fn wrong_flags(&self, game: &Game) -> usize {
        self.certain
            .safe()
            .filter(|&(row, col)| game.cell(row, col) == Ok(bitmines_core::Cell::Flagged))
            .count()
    }
}

/// What `game`'s view proves. One solve gives both the probabilities and the certain cells,
/// so the overlay and the wrong flags together cost one pass over the board.
pub(crate) fn knowledge(game: &Game) -> anyhow::Result<Knowledge> {
    let solution = Solver::new(game)?.solve()?;
    Ok(Knowledge {
        certain: solution.certain,
        odds: solution.probabilities,
    })
}

/// The first unavoidable 50/50 of the view: two cells no number can ever tell apart.
pub(crate) fn fifty_fifty(game: &Game) -> anyhow::Result<Option<[(usize, usize); 2]>> {
    Ok(bitmines_solve::fifty_fifty(game)?)
}

/// A hidden cell proven safe, or `None` when no cell is.
pub(crate) fn hint(game: &Game) -> anyhow::Result<Option<Hint>> {
    Ok(bitmines_solve::hint(game)?.map(|hint| Hint {
        cell: hint.cell(),
        reason: hint.to_string(),
    }))
}
