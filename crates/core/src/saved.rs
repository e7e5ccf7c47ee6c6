//! A binary saved-game format: a game's board and view, one bit per cell per plane, behind a
//! checked header, with a CRC-32 at the end. It reads back only games the rules can reach.
//!
//! This is the specification. Every integer is little-endian, and the first 48 bytes are laid
//! out as in the [binary board format](crate::binary), with their own magic.
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 8 | magic, the bytes `89 42 4d 47 0d 0a 1a 0a` (`b"\x89BMG\r\n\x1a\n"`, [`MAGIC`]) |
//! | 8 | 4 | version, `u32`, 1 ([`VERSION`]) |
//! | 12 | 4 | flags, `u32`: bit 0 is set when a seed is recorded, bit 1 when the game is played under the endless rule ([`Rule::Endless`]); every other bit is 0 |
//! | 16 | 8 | rows, `u64`, at least 1 |
//! | 24 | 8 | cols, `u64`, at least 1 |
//! | 32 | 8 | mines, `u64`: the set bits of the mine plane |
//! | 40 | 8 | seed, `u64`; 0 when flag bit 0 is clear |
//! | 48 | 1 | status, `u8`: 0 playing, 1 won, 2 lost (never under the endless rule) |
//! | 49 | 7 | padding, all 0 (so the counts that follow are 8-byte aligned) |
//! | 56 | 8 | revealed, `u64`: the set bits of the revealed plane |
//! | 64 | 8 | flags, `u64`: the set bits of the flagged plane |
//! | 72 | 8 | exploded, `u64`: the number of exploded mines listed after the planes |
//! | 80 | 3 x P | three planes, each P = rows x ceil(cols / 8) bytes: the mines, the revealed cells, the flagged cells. A plane is its rows in order, each in ceil(cols / 8) bytes; in a row, bit `j` of byte `k` (least significant bit first) is the cell in column `8k + j`; the padding bits past column `cols - 1` are 0 |
//! | 80 + 3P | 16 x exploded | the exploded mines, a `(row u64, col u64)` pair each, in strictly increasing order (row first, then column) |
//! | end - 4 | 4 | CRC-32 (IEEE, as zlib and PNG compute it) of every byte before it, `u32` |
//!
//! A file is therefore `84 + 3 * rows * ceil(cols / 8) + 16 * exploded` bytes long. The
//! format is versioned: a reader refuses any version but its own ([`VERSION`]), so a later
//! layout can never be misread as this one. Flag bit 1 came later than the rest of the
//! layout, and a file without it reads exactly as before: a classic game. Which fill a game
//! uses is not saved; a game reads back with the default one. With the `serde` feature, a
//! `Game` serializes as these bytes (with no seed) and deserializes through
//! [`Game::from_saved`].
//!
//! Reading checks everything, in this order, and never panics on any input:
//!
//! 1. the header: the magic, the version, the flags, a seed without its flag, the size
//!    (`EmptyBoard`, `TooLarge`), the status byte (`BadStatus`), the padding
//!    (`HeaderPadding`), and counts beyond what the size allows (`CountTooLarge`: more mines
//!    than cells, more revealed cells than safe ones, more flags than cells, more exploded
//!    mines than mines);
//! 2. the length (`Truncated`, `TrailingBytes`) and the checksum (`ChecksumMismatch`);
//! 3. the planes: padding bits (`PaddingBits`, naming the plane), then the mine count
//!    (`MineCountMismatch`) and the revealed and flag counts (`CountMismatch`);
//! 4. the exploded list: every cell on the board (`OffBoard`), in strictly increasing order
//!    (`ExplodedOrder`);
//! 5. the state, which must be one some sequence of moves reaches under the game's rule
//!    (`Inconsistent`, naming the cell): no exploded cell that is not a mine, or that is also
//!    revealed or flagged; no revealed mine; no flag on a revealed cell; no flag or exploded
//!    mine on a board with no safe cell, which is won before any move. Under the classic
//!    rule also: no exploded mine while every safe cell is revealed (a reveal needs a hidden
//!    safe cell, and a chord sets off a mine only past a flag on a safe cell, which stays
//!    hidden); and two or more exploded mines only if some revealed cell touches them all
//!    with as many flags around it as its number and every other neighbour revealed or
//!    exploded, as the one chord that sets off several mines leaves it. Under the endless
//!    rule any number of mines may have exploded, before or after any safe cell opened.
//!    Every other state is reached by some sequence of moves, so no game play makes is
//!    refused;
//! 6. the status, which must be the one the cells imply (`StatusMismatch`): lost if a mine
//!    exploded under the classic rule, won if every safe cell is revealed, playing otherwise
//!    (so an endless game is never lost).
//!
//! A reader builds each plane as its bytes arrive and the exploded list as its pairs do, so
//! what it allocates is bounded by the bytes actually read, never by what the header claims.
//! A game that reads back passes [`Game::validate`].
//!
//! ```
//! use bitmines_core::{Board, Cell, Game, Status};
//! use bitmines_core::saved::{HEADER_LEN, MAGIC};
//!
//! let mut game = Game::new("*..\n...\n..*\n".parse::<Board>()?);
//! game.toggle_flag(0, 0)?;
//! game.reveal(2, 0)?;
//! game.set_seed(Some(7)); // the seed the board came from, recorded in the header
//! let bytes = game.to_saved()?;
//! assert_eq!(bytes[..8], MAGIC);
//! assert_eq!(bytes.len(), HEADER_LEN + 3 * 3 + 4); // three planes of three one-byte rows
//! let (mines, revealed, flags) = (&bytes[80..83], &bytes[83..86], &bytes[86..89]);
//! assert_eq!(mines, [0b001, 0, 0b100]); // column 0 in bit 0
//! assert_eq!(revealed, [0, 0b011, 0b011]);
//! assert_eq!(flags, [0b001, 0, 0]);
//!
//! let (read, header) = Game::from_saved(&bytes)?;
//! assert_eq!((header.seed, header.status, header.revealed), (Some(7), Status::Playing, 4));
//! assert_eq!(read.cell(0, 0)?, Cell::Flagged);
//! assert_eq!(read.seed(), Some(7)); // remembered
//! assert_eq!(read.to_saved()?, bytes);
//! # Ok::<(), bitmines_core::Error>(())
//! ```
//!
//! An endless game sets flag bit 1 and lists every mine it exploded:
//!
//! ```
//! use bitmines_core::{Board, Cell, Game, Rule, Status};
//!
//! let mut game = Game::new("*.*\n...\n".parse::<Board>()?).with_rule(Rule::Endless);
//! game.reveal(0, 2)?;
//! game.reveal(0, 0)?; // two mines, one reveal each: play goes on
//! let bytes = game.to_saved()?;
//! assert_eq!(bytes[12], 0b10); // flag bit 1, no seed
//! let (read, header) = Game::from_saved(&bytes)?;
//! assert_eq!((header.rule, header.status, header.exploded), (Rule::Endless, Status::Playing, 2));
//! assert_eq!(read.cell(0, 2)?, Cell::Exploded);
//! assert_eq!(read.exploded().collect::<Vec<_>>(), [(0, 0), (0, 2)]); // row by row
//! # Ok::<(), bitmines_core::Error>(())
//! ```
//!
//! # Implementation
//!
//! The format reuses the [binary board format](crate::binary)'s header, row encoder,
//! streaming `Source` and plane reader, so each plane grows only as its bytes arrive; after
//! the length and the CRC it checks padding and counts, then hands the planes to
//! `Board::from_mine_words` and the private `Game::from_view` under the flagged rule, and
//! compares the status.

use std::convert::Infallible;
use std::io::{Read, Write};
use std::sync::Arc;

use crate::binary::{
    self, CRC_LEN, Format, Prefix, Source, encode_plane, exact_len, fill, header_bytes,
    parse_header, read_payload, short_header, too_large, write_pieces,
};
use crate::game::View;
use crate::plane::Plane;
use crate::{Board, Error, Game, Geometry, Rule, Status};

/// The first eight bytes of every saved game.
pub const MAGIC: [u8; 8] = *b"\x89BMG\r\n\x1a\n";

/// The flag that says the game is played under [`Rule::Endless`].
const FLAG_ENDLESS: u32 = 2;

/// The format version this crate reads and writes.
pub const VERSION: u32 = 1;

/// Bytes in a header, everything before the planes.
pub const HEADER_LEN: usize = 80;

/// The saved-game format.
const SAVED: Format = Format {
    name: "bitmines saved game",
    magic: MAGIC,
    version: VERSION,
    flags: binary::FLAG_SEED | FLAG_ENDLESS,
};

/// Bytes of one exploded mine in the list: a row and a column.
const PAIR_LEN: usize = 16;

/// What a saved game's header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Header {
    /// Rows of the board.
    pub rows: usize,
    /// Columns of the board.
    pub cols: usize,
    /// Mines on the board.
    pub mines: usize,
    /// The seed recorded with the game, if any (for example the one its board came from).
    pub seed: Option<u64>,
    /// The rule the game is played under (flag bit 1).
    pub rule: Rule,
    /// The game's status.
    pub status: Status,
    /// Safe cells revealed.
    pub revealed: usize,
    /// Cells flagged.
    pub flags: usize,
    /// Mines exploded.
    pub exploded: usize,
}

/// The header as read: the 48 bytes shared with the board format, then four 8-byte words
/// (status and padding, then the three counts).
struct Head {
    prefix: Prefix,
    tail: [[u8; 8]; 4],
}

/// Reads and checks a saved game's header (see the module docs for the checks) and reads
/// nothing after it, so a game's size can be learnt without reading its planes. The planes,
/// the exploded list and the checksum are not checked; [`Game::read_saved`] checks them.
///
/// ```
/// use bitmines_core::{Board, Game, Status};
/// use bitmines_core::saved::read_header;
///
/// let mut game = Game::new(Board::from_mines(3, 10, [(0, 9)])?);
/// game.reveal(0, 0)?;
/// let bytes = game.to_saved()?;
/// let header = read_header(&bytes[..])?;
/// assert_eq!((header.rows, header.cols, header.mines), (3, 10, 1));
/// assert_eq!((header.status, header.revealed, header.seed), (Status::Won, 29, None));
/// # Ok::<(), bitmines_core::Error>(())
/// ```
pub fn read_header<R: Read>(mut input: R) -> Result<Header, Error> {
    let head = read_head(&mut input)?;
    parse(&head).map(|(header, _)| header)
}

/// Reads the header's bytes, or fails with `Truncated`.
fn read_head(input: &mut impl Read) -> Result<Head, Error> {
    let mut words = [[0; 8]; HEADER_LEN / 8];
    let found = fill(input, words.as_flattened_mut())?;
    if found < HEADER_LEN {
        return Err(short_header(words[0], found, HEADER_LEN, &SAVED));
    }
    let [m, v, r, c, n, s, status, revealed, flags, exploded] = words;
    Ok(Head {
        prefix: [m, v, r, c, n, s],
        tail: [status, revealed, flags, exploded],
    })
}

/// Checks a header, in the order the module docs give.
fn parse(head: &Head) -> Result<(Header, Geometry), Error> {
    let (board, geometry) = parse_header(&head.prefix, &SAVED)?;
    // The flags are the high half of the second field; parse_header has checked them.
    let rule = if u64::from_le_bytes(head.prefix[1]) >> 32 & u64::from(FLAG_ENDLESS) != 0 {
        Rule::Endless
    } else {
        Rule::Classic
    };
    let [[status, padding @ ..], revealed, flags, exploded] = head.tail;
    let status = match status {
        0 => Status::Playing,
        1 => Status::Won,
        2 => Status::Lost,
        found => return Err(Error::BadStatus { found }),
    };
    if let Some((i, &found)) = padding.iter().enumerate().find(|&(_, &b)| b != 0) {
        return Err(Error::HeaderPadding {
            offset: binary::HEADER_LEN + 1 + i,
            found,
        });
    }
    let cells = geometry.cells();
    let mines = board.mines;
    let safe = cells.saturating_sub(mines);
    let count = |what, bytes, max| {
        let count = u64::from_le_bytes(bytes);
        match usize::try_from(count) {
            Ok(n) if n <= max => Ok(n),
            _ => Err(Error::CountTooLarge { what, count, max }),
        }
    };
    // The mine count sits in the shared prefix, which keeps it as a `usize` (saturated).
    if mines > cells {
        return Err(Error::CountTooLarge {
            what: "mines",
            count: u64::try_from(mines).unwrap_or(u64::MAX),
            max: cells,
        });
    }
    let header = Header {
        rows: board.rows,
        cols: board.cols,
        mines,
        seed: board.seed,
        rule,
        status,
        revealed: count("revealed cells", revealed, safe)?,
        flags: count("flags", flags, cells)?,
        exploded: count("exploded mines", exploded, mines)?,
    };
    Ok((header, geometry))
}

/// The length of a saved game with this header, or `None` if it does not fit a `usize`.
fn file_len(header: &Header) -> Option<usize> {
    let plane = header.rows.checked_mul(header.cols.div_ceil(8))?;
    plane
        .checked_mul(3)?
        .checked_add(header.exploded.checked_mul(PAIR_LEN)?)?
        .checked_add(HEADER_LEN + CRC_LEN)
}

impl Game {
    /// Writes the game in the [saved-game format](crate::saved), with its seed recorded if
    /// it knows one ([`Game::seed`]). A deferred game has no board yet and is `Deferred`.
    ///
    /// The planes are streamed a piece of at most 64 KiB at a time, straight from the game's
    /// words, so writing needs no copy of the whole file; `out` is flushed at the end.
    /// Failures of `out` are `Io` errors.
    ///
    /// ```
    /// use bitmines_core::{Error, Game};
    ///
    /// let mut game = Game::seeded(9, 9, 10, 3)?;
    /// let mut file = Vec::new();
    /// assert_eq!(game.write_saved(&mut file), Err(Error::Deferred));
    /// game.reveal(4, 4)?;
    /// game.write_saved(&mut file)?;
    /// assert_eq!(file, game.to_saved()?);
    /// let (read, header) = Game::from_saved(&file)?;
    /// assert_eq!((header.seed, read.seed()), (Some(3), Some(3))); // remembered
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn write_saved<W: Write>(&self, out: W) -> Result<(), Error> {
        let board = self.board().ok_or(Error::Deferred)?;
        write_pieces(out, self.saved_len_on(board), |emit| {
            self.encode_saved(board, self.seed(), emit)
        })
    }

    /// The length in bytes of the game's [saved form](crate::saved) (what
    /// [`Game::write_saved`] writes and [`Game::to_saved`] returns), so that a writer can
    /// give the length before the bytes. A deferred game has no board yet and is `Deferred`.
    ///
    /// ```
    /// use bitmines_core::{Board, Game};
    ///
    /// let mut game = Game::new(Board::from_mines(2, 9, [(0, 0)])?);
    /// game.reveal(1, 8)?;
    /// assert_eq!(game.saved_len()?, game.to_saved()?.len());
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn saved_len(&self) -> Result<usize, Error> {
        let board = self.board().ok_or(Error::Deferred)?;
        // The game's own planes are larger than this, so it cannot overflow.
        Ok(self.saved_len_on(board).unwrap_or(usize::MAX))
    }

    /// The game in the [saved-game format](crate::saved), with its seed recorded if it knows
    /// one ([`Game::seed`]). A deferred game has no board yet and is `Deferred`.
    ///
    /// ```
    /// use bitmines_core::{Board, Game};
    /// use bitmines_core::saved::MAGIC;
    ///
    /// let mut game = Game::new(Board::from_mines(1, 3, [(0, 0)])?);
    /// game.reveal(0, 0)?; // a mine: the game is lost
    /// let bytes = game.to_saved()?;
    /// assert_eq!(bytes[..8], MAGIC);
    /// assert_eq!(bytes[48], 2); // lost
    /// assert_eq!(bytes[72..80], 1u64.to_le_bytes()); // one exploded mine...
    /// assert_eq!(bytes[83..99], [0u8; 16]); // ...at row 0, column 0
    /// assert_eq!(bytes.len(), 84 + 3 + 16);
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn to_saved(&self) -> Result<Vec<u8>, Error> {
        self.to_saved_with(self.seed())
    }

    /// [`Game::to_saved`] with `seed` recorded in place of the game's own.
    pub(crate) fn to_saved_with(&self, seed: Option<u64>) -> Result<Vec<u8>, Error> {
        let board = self.board().ok_or(Error::Deferred)?;
        let mut out = Vec::with_capacity(self.saved_len_on(board).unwrap_or(0));
        let Ok(()) = self.encode_saved(board, seed, |bytes| {
            out.extend_from_slice(bytes);
            Ok::<(), Infallible>(())
        });
        Ok(out)
    }

    /// Reads a game in the [saved-game format](crate::saved) and its header, checking
    /// everything the format requires (see the module docs for the list and its order), so
    /// the game is one the rules can reach and passes [`Game::validate`].
    ///
    /// Each plane is read in pieces of at most 64 KiB and grows as they arrive, so a header
    /// that claims a huge board ahead of a short input is `Truncated` after allocating at
    /// most twice what the input held, plus one 64 KiB buffer. The input must end where the
    /// game does: one more byte is read to check that, and any is `TrailingBytes`. An early
    /// end of input is `Truncated`; other failures of `input` are `Io` errors.
    ///
    /// ```
    /// use bitmines_core::{Board, Cell, Error, Game, Status};
    ///
    /// let mut game = Game::new("*.*\n...\n".parse::<Board>()?);
    /// game.reveal(1, 1)?; // a 2
    /// game.toggle_flag(1, 0)?; // two wrong flags, so the chord sets off both mines
    /// game.toggle_flag(1, 2)?;
    /// assert_eq!(game.chord(1, 1)?.status, Status::Lost);
    /// let bytes = game.to_saved()?;
    ///
    /// let (read, header) = Game::read_saved(&bytes[..])?;
    /// assert_eq!((header.status, header.exploded), (Status::Lost, 2));
    /// assert_eq!(read.cell(0, 2)?, Cell::Exploded);
    /// assert_eq!(read.cell(1, 0)?, Cell::WrongFlag);
    ///
    /// let cut = Game::read_saved(&bytes[..90]);
    /// assert!(matches!(cut, Err(Error::Truncated { needed: 122, found: 90 })));
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn read_saved<R: Read>(mut input: R) -> Result<(Game, Header), Error> {
        let head = read_head(&mut input)?;
        let (header, geometry) = parse(&head)?;
        let len = file_len(&header).ok_or_else(|| too_large(&geometry))?;
        let mut source = Source::new(
            input,
            &[head.prefix.as_flattened(), head.tail.as_flattened()],
            len,
        );
        let mines = read_payload(&mut source, &geometry)?;
        let revealed = read_payload(&mut source, &geometry)?;
        let flagged = read_payload(&mut source, &geometry)?;
        let mut pairs = Vec::new();
        for _ in 0..header.exploded {
            let mut pair = [[0; 8]; 2];
            source.take(pair.as_flattened_mut())?;
            pairs.try_reserve(1).map_err(|_| Error::OutOfMemory {
                bytes: header.exploded.saturating_mul(PAIR_LEN),
                rows: header.rows,
                cols: header.cols,
            })?;
            pairs.push(pair.map(u64::from_le_bytes));
        }
        source.finish()?;

        mines.check_padding("mine", &geometry)?;
        revealed.check_padding("revealed", &geometry)?;
        flagged.check_padding("flagged", &geometry)?;
        if mines.ones != header.mines {
            return Err(Error::MineCountMismatch {
                declared: header.mines,
                found: mines.ones,
            });
        }
        for (what, declared, found) in [
            ("revealed cells", header.revealed, revealed.ones),
            ("flags", header.flags, flagged.ones),
        ] {
            if declared != found {
                return Err(Error::CountMismatch {
                    what,
                    declared,
                    found,
                });
            }
        }
        let exploded = pairs
            .into_iter()
            .map(|pair| {
                // A coordinate past `usize` is off any board; saturating keeps it so.
                let [row, col] = pair.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
                geometry.bit(row, col)
            })
            .collect::<Result<Vec<usize>, Error>>()?;

        let board = Board::from_mine_words(geometry, mines.plane)?;
        let view = View {
            revealed: Plane::from_words(revealed.plane),
            flagged: Plane::from_words(flagged.plane),
            exploded,
        };
        let mut game = Game::from_view(Arc::new(board), header.rule, view)?;
        game.set_seed(header.seed);
        if game.status() != header.status {
            return Err(Error::StatusMismatch {
                declared: header.status,
                actual: game.status(),
            });
        }
        Ok((game, header))
    }

    /// [`Game::read_saved`] on bytes in memory. The length is checked against the header
    /// before the planes are read, so an input of the wrong length fails at once; the errors
    /// are those `read_saved` gives on the same bytes.
    ///
    /// ```
    /// use bitmines_core::{Board, Error, Game};
    ///
    /// let game = Game::new(Board::from_mines(2, 2, [(1, 1)])?);
    /// let mut bytes = game.to_saved()?;
    /// assert_eq!(Game::from_saved(&bytes)?.0.to_saved()?, bytes);
    ///
    /// bytes[82] ^= 1; // a revealed cell the checksum does not know about
    /// assert!(matches!(Game::from_saved(&bytes), Err(Error::ChecksumMismatch { .. })));
    /// bytes.push(0);
    /// assert!(matches!(Game::from_saved(&bytes), Err(Error::TrailingBytes { len: 90 })));
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn from_saved(bytes: &[u8]) -> Result<(Game, Header), Error> {
        if bytes.len() >= HEADER_LEN {
            let mut input = bytes;
            let (header, geometry) = parse(&read_head(&mut input)?)?;
            let len = file_len(&header).ok_or_else(|| too_large(&geometry))?;
            exact_len(bytes.len(), len)?;
        }
        Game::read_saved(bytes)
    }

    /// The length of this game's saved form, if it fits a `usize`.
    fn saved_len_on(&self, board: &Board) -> Option<usize> {
        let plane = board.rows().checked_mul(board.cols().div_ceil(8))?;
        plane
            .checked_mul(3)?
            .checked_add(self.exploded().count().checked_mul(PAIR_LEN)?)?
            .checked_add(HEADER_LEN + CRC_LEN)
    }

    /// Emits the saved form of this game on `board` (its own), stopping at the first error
    /// `emit` returns.
    fn encode_saved<E>(
        &self,
        board: &Board,
        seed: Option<u64>,
        mut emit: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let geometry = board.geometry();
        let mut crc = crc32fast::Hasher::new();
        let mut put = |bytes: &[u8]| {
            crc.update(bytes);
            emit(bytes)
        };
        let mut head = header_bytes(&SAVED, geometry, board.mine_count(), seed);
        if self.rule() == Rule::Endless {
            head[1] = (u64::from_le_bytes(head[1]) | u64::from(FLAG_ENDLESS) << 32).to_le_bytes();
        }
        put(head.as_flattened())?;
        let status: u8 = match self.status() {
            Status::Playing => 0,
            Status::Won => 1,
            Status::Lost => 2,
        };
        let mut exploded: Vec<(usize, usize)> = self.exploded().collect();
        exploded.sort_unstable();
        let count = |n: usize| (n as u64).to_le_bytes();
        let tail = [
            [status, 0, 0, 0, 0, 0, 0, 0],
            count(self.revealed_count()),
            count(self.flag_count()),
            count(exploded.len()),
        ];
        put(tail.as_flattened())?;

        let (revealed, flagged) = self.view_words();
        for plane in [board.mines().words(), revealed, flagged] {
            encode_plane(geometry, plane, &mut put)?;
        }
        for (row, col) in exploded {
            put([count(row), count(col)].as_flattened())?;
        }
        emit(&crc.finalize().to_le_bytes())
    }
}
