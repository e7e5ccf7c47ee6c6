//! What a Minesweeper player can know, from what a player can see.
//!
//! The solver reads a [`View`](bitmines_core::View): the revealed cells with their
//! numbers, the board's size and its mine count. A view has no path to the hidden mines,
//! so nothing here can peek. Flags are the player's notes: the solver never trusts one, and
//! reports those it proves wrong ([`Certain::wrong_flags`]).
//!
//! It works in tiers, cheapest first, and every proven cell carries its [`Reason`]:
//!
//! 1. **Trivial rule, word-parallel.** A number touching as many proven mines as it shows
//!    clears its other hidden neighbours; a number needing all its undecided neighbours
//!    makes them mines. Neighbour counts are bit-sliced adders over shifted 64-bit words,
//!    compared with bit-sliced number planes, then dilated back onto hidden cells, and the
//!    sweep revisits only rows next to a change ([`Solver::sweep`]).
//! 2. **Pairs.** Two numbers within two cells of each other: when the mines one needs
//!    beyond the other cannot fit anywhere but in its own cells, those are mines and the
//!    other's own cells are safe (subsets are the special case).
//! 3. **Exact counting.** The undecided cells next to numbers split into independent
//!    components; cells touching the same numbers merge into one variable. Each component's
//!    layouts are counted by number of mines with a dynamic program over a cut of the
//!    frontier, the components are tied together by the mine count and the binomial ways to
//!    place the rest off the frontier, and a backward pass gives each cell's weighted share.
//!    A cell is certain when no consistent layout disagrees, so with the first two tiers
//!    this finds exactly the cells that enumerating every layout would.
//!
//! ```
//! use bitmines_core::Position;
//!
//! // A 1 in the corner with one hidden neighbour: a mine. The 1 next to it is then met.
//! let position: Position = "bitmines view 2x3 mines 1\n1##\n11#\n".parse()?;
//! let certain = bitmines_solve::certain(&position)?;
//! assert_eq!(certain.mines().collect::<Vec<_>>(), [(0, 1)]);
//! assert_eq!(certain.safe().collect::<Vec<_>>(), [(0, 2), (1, 2)]);
//! println!("{}", certain.reason(0, 2).unwrap()); // the 1 at (1, 1) already touches 1 proven mine
//!
//! let hint = bitmines_solve::hint(&position)?.expect("a safe cell exists");
//! assert_eq!(hint.cell(), (0, 2));
//!
//! let odds = bitmines_solve::probabilities(&"bitmines view 1x3 mines 1\n1##\n".parse::<Position>()?)?;
//! assert_eq!(odds.mine(0, 1)?, 1.0);
//! assert_eq!(odds.mine(0, 2)?, 0.0);
//! assert!(odds.exact());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The same functions take a [`Game`](bitmines_core::Game) (through its view).
//!
//! **Numbers.** Layout counts are `f64`: exact integers up to 2^53 layouts per component,
//! rounded to 53 bits beyond; the weights of the components' mine totals are computed
//! relative to their largest, the binomials as products of their ratios (as logarithms where
//! those would leave 1e-250..1e250), and a possible total never gets a weight below 1e-300. Whether a layout exists is decided exactly, so certainty never
//! rests on rounding. A component whose count needs more states than [`Budget::states`]
//! gets the density estimate and the answer says so ([`Probabilities::exact`]).
//!
//! # What is public
//!
//! [`Solver`] and its answers ([`Certain`], [`Probabilities`], [`Solution`], each fact with
//! its [`Reason`]), the [`Player`] and its [`Policy`], the end game, the 50/50 functions, and
//! [`naive`], the trivial rule cell by cell, public as the reference a user can check the fast
//! sweep against.

// No input may make the library panic: outside tests, no unwrap, expect, panic or unchecked
// indexing. Modules whose loops index planes by word allow indexing, saying why.
#![cfg_attr(
    not(test),
    warn(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadme;

mod endgame;
mod error;
mod exact;
mod few;
mod frontier;
mod global;
pub mod naive;
mod pairs;
mod planes;
mod player;
mod reason;
mod risk;
mod solver;

use bitmines_core::AsView;

pub use endgame::{ENDGAME, EndGame, end_game};
pub use error::Error;
pub use player::{
    FORCED_CHECKS, Guess, LOOKAHEAD, Move, NEAR, Outcome, Player, Policy, fifty_fifty,
};
pub use reason::{Reason, Tier};
pub use risk::fifty_fifty_influence;
pub use solver::{Budget, Certain, Mode, Probabilities, Solution, Solver, Tally, Weighed};

/// Every cell the view proves safe or a mine, each with its reason.
pub fn certain(position: &(impl AsView + ?Sized)) -> Result<Certain, Error> {
    Ok(Solver::new(position)?.solve()?.certain)
}

/// The probability that each hidden cell is a mine, given the view and the mine count.
pub fn probabilities(position: &(impl AsView + ?Sized)) -> Result<Probabilities, Error> {
    // The pair rule only shortens reasons, which are not returned here.
    Solver::new(position)?.probabilities()
}

/// One proven safe hidden cell with its reason, trying the cheap tiers first; `None` when
/// the view proves no hidden cell safe.
pub fn hint(position: &(impl AsView + ?Sized)) -> Result<Option<Hint>, Error> {
    let mut solver = Solver::new(position)?;
    solver.trivial()?;
    if !solver.proves_safe() {
        solver.deduce()?;
    }
    let certain = if solver.proves_safe() {
        solver.into_certain()
    } else {
        solver.solve()?.certain
    };
    let Some(cell) = certain.safe().next() else {
        return Ok(None);
    };
    Ok(certain
        .reason(cell.0, cell.1)
        .map(|reason| Hint { cell, reason }))
}

/// A proven safe cell and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    cell: (usize, usize),
    reason: Reason,
}

impl Hint {
    /// The safe cell, `(row, col)`.
    pub fn cell(&self) -> (usize, usize) {
        self.cell
    }

    /// Why it is safe.
    pub fn reason(&self) -> &Reason {
        &self.reason
    }
}

impl std::fmt::Display for Hint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} is safe: {}", self.cell, self.reason)
    }
}
