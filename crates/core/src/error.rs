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
    /// A text form holds a character its format does not allow there.
    #[error("line {line}, column {col}: unexpected character {found:?}, expected {expected}")]
    BadChar {
        /// The 1-based line.
        line: usize,
        /// The 1-based column.
        col: usize,
        /// The character found.
        found: char,
        /// What the format allows there.
        expected: &'static str,
    },
    /// A line of a text board or game whose length differs from the others (or from the
    /// header's column count).
    #[error("line {line} has {found} cells where {expected} are expected")]
    Ragged {
        /// The 1-based line.
        line: usize,
        /// The cells every line must have.
        expected: usize,
        /// The cells of this line.
        found: usize,
    },
    /// A text game with more or fewer rows than its header declares.
    #[error("the header declares {declared} rows but {found} follow")]
    RowCountMismatch {
        /// Rows in the header.
        declared: usize,
        /// Rows present.
        found: usize,
    },
    /// A saved or imported state contradicts itself at a cell: a revealed mine, a number that
    /// disagrees with the mines around it, an exploded safe cell.
    #[error("cell ({row}, {col}): {reason}")]
    Inconsistent {
        /// The cell's row.
        row: usize,
        /// The cell's column.
        col: usize,
        /// What contradicts what.
        reason: String,
    },
    /// A saved game's header is missing or malformed.
    #[error("expected a header like {expected:?}, found {found:?}")]
    BadHeader {
        /// What a header looks like.
        expected: &'static str,
        /// The first line found.
        found: String,
    },
    /// A saved game declares a status its cells contradict.
    #[error("the header says the game is {declared} but its cells say {actual}")]
    StatusMismatch {
        /// The status in the header.
        declared: Status,
        /// The status the cells imply.
        actual: Status,
    },
    /// A game whose mines are not placed yet cannot be exported: there is no board.
    #[error("the game's mines are not placed yet (no first reveal), so it has no board to export")]
    Deferred,
    /// Binary input ends too early.
    #[error("truncated input: {needed} bytes needed, {found} found")]
    Truncated {
        /// Bytes the header promises.
        needed: usize,
        /// Bytes present.
        found: usize,
    },
    /// A header's mine count disagrees with the mines that follow.
    #[error("the header declares {declared} mines but {found} follow")]
    MineCountMismatch {
        /// The count in the header.
        declared: usize,
        /// The mines actually present.
        found: usize,
    },
    /// A board too large for a file format.
    #[error("a {rows}x{cols} board does not fit {format}, which holds at most {limit}")]
    TooLargeForFormat {
        /// The board's row count.
        rows: usize,
        /// The board's column count.
        cols: usize,
        /// The format.
        format: &'static str,
        /// The format's limit.
        limit: &'static str,
    },
    /// A mine plane handed to [`Board::from_mine_words`](crate::Board::from_mine_words) does
    /// not fit its geometry.
    #[error("a mine plane for a {rows}x{cols} board has {expected} words, not {found}")]
    PlaneSize {
        /// The board's row count.
        rows: usize,
        /// The board's column count.
        cols: usize,
        /// Words the geometry needs.
        expected: usize,
        /// Words given.
        found: usize,
    },
    /// A mine plane with bits set in the sentinel border or the padding.
    #[error("word {word} of the mine plane has bits outside the board")]
    StrayBits {
        /// The first word found with such bits.
        word: usize,
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
