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
        "{mines} mines do not fit on a {rows}x{cols} board: at most {max} with first-click rule {policy}"
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
    /// A board given to [`Game::rebase`](crate::Game::rebase) is not an edit of the game's:
    /// another size, or another number of mines.
    #[error("the new board is not an edit of the game's: {reason}")]
    NotAnEdit {
        /// How it differs.
        reason: String,
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
    /// A plane handed to [`Board::from_mine_words`](crate::Board::from_mine_words) or to a
    /// batch move ([`Game::reveal_cells`](crate::Game::reveal_cells)) does not fit its
    /// geometry.
    #[error("a plane for a {rows}x{cols} board has {expected} words, not {found}")]
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
    /// A plane (of mines, or of cells for a batch move) with bits set in the sentinel border
    /// or the padding.
    #[error("word {word} of the plane has bits outside the board")]
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
    /// Input that does not start with its binary format's magic bytes.
    #[error("not a {format}: it starts {found:02x?} where {expected:02x?} is expected")]
    BadMagic {
        /// The format being read, for example "binary bitmines board".
        format: &'static str,
        /// The format's magic bytes.
        expected: [u8; 8],
        /// The first eight bytes found.
        found: [u8; 8],
    },
    /// Input in a version of its binary format this crate does not read.
    #[error("{format} format version {version} is not supported (this crate reads {supported})")]
    UnsupportedVersion {
        /// The format being read, for example "binary bitmines board".
        format: &'static str,
        /// The version in the header.
        version: u32,
        /// The version this crate reads and writes.
        supported: u32,
    },
    /// A binary board or saved game whose header sets flag bits the format does not define.
    #[error("flags {flags:#010x} set undefined bits {:#010x}", .flags & !.defined)]
    UnknownFlags {
        /// The flags field as found.
        flags: u32,
        /// The flags the format defines.
        defined: u32,
    },
    /// A no-guess certificate in a binary board with a field out of range: a first click
    /// off the board, a rule that is not safe (1) or opening (2), undefined tier bits, or
    /// a nonzero reserved field.
    #[error("the no-guess certificate's {field} is {value}, which the format does not allow")]
    BadCertificate {
        /// The field.
        field: &'static str,
        /// Its value.
        value: u64,
    },
    /// A binary board or saved game with a nonzero seed field but the seed flag clear.
    #[error("the header records seed {seed} but its flags say no seed is recorded")]
    UnflaggedSeed {
        /// The seed field as found.
        seed: u64,
    },
    /// A row of a binary plane with bits set past the board's last column.
    #[error(
        "row {row} of the {plane} plane sets padding bits {bits:#010b} in its last byte, past the board's {cols} columns"
    )]
    PaddingBits {
        /// The plane: "mine", "revealed" or "flagged".
        plane: &'static str,
        /// The row, counted from 0.
        row: usize,
        /// The board's column count.
        cols: usize,
        /// The padding bits found set in the row's last byte.
        bits: u8,
    },
    /// Input whose stored checksum disagrees with the bytes before it.
    #[error("CRC-32 mismatch: the input stores {stored:#010x} but its bytes give {computed:#010x}")]
    ChecksumMismatch {
        /// The checksum stored in the input.
        stored: u32,
        /// The checksum of the bytes read.
        computed: u32,
    },
    /// Input that goes on after the end its header implies.
    #[error("the input goes on past its end at byte {len}")]
    TrailingBytes {
        /// The length the header implies, in bytes.
        len: usize,
    },
    /// A saved game's header declares a count the planes that follow disagree with.
    #[error("the header declares {declared} {what} but the planes hold {found}")]
    CountMismatch {
        /// What was counted: "revealed cells" or "flags".
        what: &'static str,
        /// The count in the header.
        declared: usize,
        /// The count in the planes.
        found: usize,
    },
    /// A saved game's header declares more of something than its own size allows: more
    /// mines, revealed cells or flags than cells, or more exploded mines than mines.
    #[error("the header declares {count} {what}, more than the {max} it allows")]
    CountTooLarge {
        /// What was counted: "mines", "revealed cells", "flags" or "exploded mines".
        what: &'static str,
        /// The count in the header.
        count: u64,
        /// The most the header allows.
        max: usize,
    },
    /// A saved game whose status byte is none of the defined values.
    #[error("status byte {found} is not 0 (playing), 1 (won) or 2 (lost)")]
    BadStatus {
        /// The status byte found.
        found: u8,
    },
    /// A saved game whose header padding is not zero.
    #[error("header byte {offset} is {found:#04x} where the format has a zero padding byte")]
    HeaderPadding {
        /// The byte's offset in the file.
        offset: usize,
        /// The byte found.
        found: u8,
    },
    /// A saved game whose exploded cells are not listed in increasing order, or list a cell
    /// twice.
    #[error(
        "exploded cell ({row}, {col}) is listed after ({}, {}): the list must be strictly increasing",
        .previous.0,
        .previous.1
    )]
    ExplodedOrder {
        /// The cell's row.
        row: usize,
        /// The cell's column.
        col: usize,
        /// The `(row, col)` listed before it.
        previous: (usize, usize),
    },
    /// A player's view (a [`Position`](crate::Position)) with more mines than cells.
    #[error("a view of {cells} cells cannot hold {mines} mines")]
    TooManyMinesForView {
        /// The mine count given.
        mines: usize,
        /// The cells of the board.
        cells: usize,
    },
    /// A revealed cell given a number no cell can show.
    #[error("cell ({row}, {col}) cannot show {number}: numbers run from 0 to 8")]
    BadNumber {
        /// The cell's row.
        row: usize,
        /// The cell's column.
        col: usize,
        /// The number given.
        number: u8,
    },
    /// The text form of a player's view is malformed at a line and column.
    #[error("line {line}, column {col}: {reason}")]
    ViewSyntax {
        /// The 1-based line.
        line: usize,
        /// The 1-based column.
        col: usize,
        /// What is wrong there.
        reason: String,
    },
    /// A tile was asked to play a cell of another tile.
    #[error(
        "cell ({row}, {col}) is not on the tile of rows {top} to {bottom} and columns {left} to \
         {right} (exclusive)"
    )]
    OffTile {
        /// The row asked for.
        row: usize,
        /// The column asked for.
        col: usize,
        /// The tile's first row.
        top: usize,
        /// One past the tile's last row.
        bottom: usize,
        /// The tile's first column.
        left: usize,
        /// One past the tile's last column.
        right: usize,
    },
    /// Tiles need at least one row and one column.
    #[error("a tile needs at least one row and one column, got {rows}x{cols}")]
    EmptyTile {
        /// The rows per tile asked for.
        rows: usize,
        /// The columns per tile asked for.
        cols: usize,
    },
    /// The reader or writer failed. An early end of input is `Truncated` instead.
    #[error("I/O error: {message}")]
    Io {
        /// The kind of the I/O error.
        kind: std::io::ErrorKind,
        /// The I/O error's message.
        message: String,
    },
}

impl Error {
    /// An I/O error as an `Error`, keeping its kind and message (`std::io::Error` itself is
    /// neither `Clone` nor `PartialEq`).
    pub(crate) fn io(error: &std::io::Error) -> Error {
        Error::Io {
            kind: error.kind(),
            message: error.to_string(),
        }
    }
}
