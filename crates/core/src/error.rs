//! The one error type of `bitmines-core`.

use crate::{FirstClick, Status};

/// Everything that can go wrong in `bitmines-core`.
///
/// Every variant names the offending value and the bound it broke, so the message alone
/// tells a user what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A coordinate lies outside the board.
    #[error("cell ({row}, {col}) is off a {rows}x{cols} board")]
    OffBoard {
        /// The row asked for.
        row: usize,
        /// The column asked for.
        col: usize,
        /// The board's row count.
        rows: usize,
        /// The board's column count.
        cols: usize,
    },
    /// A board needs at least one row and one column.
    #[error("a board needs at least one row and one column, got {rows}x{cols}")]
    EmptyBoard {
        /// The row count given.
        rows: usize,
        /// The column count given.
        cols: usize,
    },
    /// The padded board has more bits than this platform can address.
    #[error("a {rows}x{cols} board is too large to address on this platform")]
    TooLarge {
        /// The row count given.
        rows: usize,
        /// The column count given.
        cols: usize,
    },
    /// The allocator refused the memory a board or game needs.
    #[error("could not allocate {bytes} bytes for a {rows}x{cols} board")]
    OutOfMemory {
        /// The bytes that were asked for.
        bytes: usize,
        /// The board's row count.
        rows: usize,
        /// The board's column count.
        cols: usize,
    },
    /// The same mine was listed twice.
    #[error("mine at ({row}, {col}) is listed twice")]
    DuplicateMine {
        /// The mine's row.
        row: usize,
        /// The mine's column.
        col: usize,
    },
    /// More mines than the board (less the first-click zone) can hold.
    #[error(
        "{mines} mines do not fit on a {rows}x{cols} board: at most {max} with first click {policy:?}"
    )]
    TooManyMines {
        /// The mine count asked for.
        mines: usize,
        /// The most mines that fit.
        max: usize,
        /// The board's row count.
        rows: usize,
        /// The board's column count.
        cols: usize,
        /// The first-click policy that keeps cells clear.
        policy: FirstClick,
    },
    /// A mutating call after the game ended.
    #[error("the game is over ({status})")]
    GameOver {
        /// How the game ended.
        status: Status,
    },
    /// A text board holds a character other than `*` and `.`.
    #[error("line {line}, column {col}: unexpected character {found:?}, expected '*' or '.'")]
    BadChar {
        /// The 1-based line.
        line: usize,
        /// The 1-based column.
        col: usize,
        /// The character found.
        found: char,
    },
    /// A text board whose lines differ in length.
    #[error("line {line} has {found} cells but line 1 has {expected}")]
    Ragged {
        /// The 1-based line.
        line: usize,
        /// The length of line 1.
        expected: usize,
        /// The length of this line.
        found: usize,
    },
    /// A game's planes and counters disagree (reported by [`Game::validate`](crate::Game::validate)).
    #[error("invalid game state: {reason}")]
    Invalid {
        /// Which invariant broke.
        reason: String,
    },
    /// A first-click placer returned a board that breaks its request.
    #[error("the mine placer broke its request: {reason}")]
    BadPlacement {
        /// What was wrong with the board it returned.
        reason: String,
    },
}
