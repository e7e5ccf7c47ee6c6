//! The solver's one error type.

use bitmines_core::Status;

/// Why the solver could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A coordinate off the board, a bad size, or another error from the engine.
    #[error(transparent)]
    Core(#[from] bitmines_core::Error),
    /// No layout of the mines agrees with the number on this revealed cell together with
    /// the rest of the view.
    #[error("the {number} at ({row}, {col}) cannot be met: {reason}")]
    Contradiction {
        /// The revealed cell's row.
        row: usize,
        /// The revealed cell's column.
        col: usize,
        /// The number it shows.
        number: u8,
        /// What makes it impossible.
        reason: String,
    },
    /// The numbers can be met, but not with the board's mine count.
    #[error(
        "no layout puts exactly {mines} mines on the board: the numbers need between {min} and {max} of them"
    )]
    MineCount {
        /// The board's mine count.
        mines: usize,
        /// The fewest mines a layout meeting every number can hold.
        min: usize,
        /// The most.
        max: usize,
    },
    /// The game is lost: the view shows an exploded mine, and there is nothing left to
    /// deduce.
    #[error("the game is {status}; the solver answers for games in play")]
    Finished {
        /// How the game ended.
        status: Status,
    },
    /// A position given to [`Solver::update`](crate::Solver::update) that is not a later
    /// view of the solver's game: another size or mine count, a revealed cell hidden again
    /// or showing another number, or a proven mine revealed.
    #[error("the position is not a later view of the solver's game: {reason}")]
    NotLater {
        /// What differs, with the cell where it does.
        reason: String,
    },
    /// A cell given to [`Solver::assume_mine`](crate::Solver::assume_mine) that cannot be a
    /// mine: it is revealed, or the view proves it safe.
    #[error("({row}, {col}) cannot be taken as a mine: {reason}")]
    Assumption {
        /// The cell's row.
        row: usize,
        /// The cell's column.
        col: usize,
        /// Why not.
        reason: String,
    },
    /// A position too large for the solver's own planes to be allocated.
    #[error("could not allocate {bytes} bytes of solver state for a {rows}x{cols} board")]
    OutOfMemory {
        /// Bytes asked for.
        bytes: usize,
        /// Rows of the board.
        rows: usize,
        /// Columns of the board.
        cols: usize,
    },
}
