//! A compact binary board format: one bit per cell behind a checked header, with a CRC-32
//! at the end.
//!
//! This is the specification. Every integer is little-endian.
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 8 | magic, the bytes `89 42 4d 42 0d 0a 1a 0a` (`b"\x89BMB\r\n\x1a\n"`, [`MAGIC`]) |
//! | 8 | 4 | version, `u32`, 1 ([`VERSION`]) |
//! | 12 | 4 | flags, `u32`: bit 0 is set when a seed is recorded, bit 1 when a no-guess certificate follows the header; every other bit is 0 |
//! | 16 | 8 | rows, `u64`, at least 1 |
//! | 24 | 8 | cols, `u64`, at least 1 |
//! | 32 | 8 | mines, `u64`: the number of set bits in the payload |
//! | 40 | 8 | seed, `u64`; 0 when flag bit 0 is clear |
//! | 48 | 32 | only when flag bit 1 is set, the no-guess certificate ([`NoGuessRecord`]): the first click's row and column, two `u64`s below rows and cols; the first-click rule, `u32`, 1 (safe) or 2 (opening); the solver version, `u32`; the tiers the certifying replay needed, `u32`, bit 0 trivial, bit 1 pair, bit 2 component, bit 3 global, other bits 0; and a `u32` 0. The payload then starts at 80 |
//! | 48 | rows x ceil(cols / 8) | payload: the rows in order, each in ceil(cols / 8) bytes; in a row, bit `j` of byte `k` (least significant bit first) is the cell in column `8k + j`, set for a mine; the padding bits past column `cols - 1` are 0 |
//! | end - 4 | 4 | CRC-32 (IEEE, as zlib and PNG compute it) of every byte before it, `u32` |
//!
//! A file is therefore `52 + rows * ceil(cols / 8)` bytes long, 32 more with a certificate. The magic follows PNG's: the
//! high first byte catches a 7-bit channel, and the CR LF, `^Z`, LF sequence catches
//! line-ending conversion in either direction and stops a DOS `type`. The format is
//! versioned: a reader refuses any version but its own. With the `serde` feature, a `Board`
//! serializes as these bytes (with no seed) and deserializes through [`Board::from_binary`].
//!
//! Reading checks everything, in this order, and never panics on any input: the magic, the
//! version, the flags, a seed without its flag, the size (`EmptyBoard`, `TooLarge`), the
//! certificate's fields (`BadCertificate`), the length (`Truncated`, `TrailingBytes`), the checksum, the padding bits (`PaddingBits`),
//! and the mine count (`MineCountMismatch`). A reader builds the mine plane as the payload
//! arrives, so what it allocates is bounded by the bytes actually read, never by what the
//! header claims.
//!
//! ```
//! use bitmines_core::Board;
//!
//! let board: Board = "*..\n..*\n".parse()?;
//! let bytes = board.to_binary(Some(7));
//! assert_eq!(bytes.len(), 52 + 2);
//! assert_eq!(bytes[48..50], [0b001, 0b100]); // one byte per row, column 0 in bit 0
//!
//! let (read, header) = Board::from_binary(&bytes)?;
//! assert_eq!(read, board);
//! assert_eq!((header.rows, header.cols, header.mines), (2, 3, 2));
//! assert_eq!(header.seed, Some(7));
//! # Ok::<(), bitmines_core::Error>(())
//! ```
//!
//! # Implementation
//!
//! The writer streams each row straight from the plane words, shifted down one bit past the
//! left sentinel. The reader shifts them back up, a 64 KiB piece at a time, and grows the plane
//! only as pieces arrive (the first row is read into the top sentinel row's place and moved
//! down once it is complete), so a header claiming a huge board on a short input costs
//! nothing. Once the checks above pass, it builds through `Board::from_mine_words`. The header,
//! the row encoder, the streaming `Source` and the plane reader are shared with the
//! [saved-game format](crate::saved).

use std::convert::Infallible;
use std::io::{ErrorKind, Read, Write};

use crate::{Board, Error, FirstClick, Geometry};

/// The first eight bytes of every binary board.
pub const MAGIC: [u8; 8] = *b"\x89BMB\r\n\x1a\n";

/// The format version this crate reads and writes.
pub const VERSION: u32 = 1;

/// Bytes in a header, everything before the payload.
pub const HEADER_LEN: usize = 48;

/// The flag that says a seed is recorded.
pub(crate) const FLAG_SEED: u32 = 1;

/// The flag that says a no-guess certificate follows the header (board files only).
pub(crate) const FLAG_NO_GUESS: u32 = 2;

/// Bytes of a no-guess certificate, between the header and the payload.
pub const CERTIFICATE_LEN: usize = 32;

/// Bytes of the checksum after the payload.
pub(crate) const CRC_LEN: usize = 4;

/// Bytes moved per read or write call (a multiple of 8, so each piece holds whole words).
pub(crate) const CHUNK_BYTES: usize = 1 << 16;

/// The least a reader grows its plane by, so small rows do not mean many small reallocations.
const MIN_GROWTH_WORDS: usize = 1 << 10;

/// What tells a binary format apart in the 48-byte header prefix it shares with the others:
/// the magic, the version, and the name errors give it.
#[derive(Debug)]
pub(crate) struct Format {
    pub(crate) name: &'static str,
    pub(crate) magic: [u8; 8],
    pub(crate) version: u32,
    /// The flags the format defines.
    pub(crate) flags: u32,
}

/// The binary board format.
const BOARD: Format = Format {
    name: "binary bitmines board",
    magic: MAGIC,
    version: VERSION,
    flags: FLAG_SEED | FLAG_NO_GUESS,
};

/// What a binary board's header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Header {
    /// Rows of the board.
    pub rows: usize,
    /// Columns of the board.
    pub cols: usize,
    /// Mines on the board.
    pub mines: usize,
    /// The seed recorded with the board, if any (for example the one it was generated from).
    pub seed: Option<u64>,
    /// The no-guess certificate recorded with the board, if any.
    pub no_guess: Option<NoGuessRecord>,
}

/// What a binary board records of its no-guess certificate: the first click a solver
/// clears it from without a guess, the version of that solver's rules, and the tiers of
/// deduction its replay needed (bit 0 trivial, 1 pair, 2 component, 3 global). The board
/// crate stores it and checks its fields; `bitmines-gen` makes the certificate.
///
/// ```
/// use bitmines_core::binary::NoGuessRecord;
/// use bitmines_core::{Board, FirstClick};
///
/// let board = Board::from_mines(3, 3, [(2, 2)])?;
/// let record = NoGuessRecord::new(0, 0, FirstClick::Opening, 1, 0b1)?;
/// let mut bytes = Vec::new();
/// board.write_binary_certified(Some(5), &record, &mut bytes)?;
/// let (read, header) = Board::from_binary(&bytes)?;
/// assert_eq!((read, header.no_guess), (board, Some(record)));
/// # Ok::<(), bitmines_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct NoGuessRecord {
    /// The first click's row.
    pub row: usize,
    /// The first click's column.
    pub col: usize,
    /// What the first click keeps clear: `Safe` or `Opening`.
    pub rule: FirstClick,
    /// The version of the certifying solver's rules.
    pub solver: u32,
    /// The tiers the replay needed, one bit each (bit 0 trivial to bit 3 global).
    pub tiers: u32,
}

impl NoGuessRecord {
    /// A record, checked: the rule must keep the click clear (not `Unprotected`) and the
    /// tiers must be among the four defined bits.
    pub fn new(
        row: usize,
        col: usize,
        rule: FirstClick,
        solver: u32,
        tiers: u32,
    ) -> Result<NoGuessRecord, Error> {
        if rule == FirstClick::Unprotected {
            return Err(Error::BadCertificate {
                field: "first-click rule",
                value: 0,
            });
        }
        if tiers & !0b1111 != 0 {
            return Err(Error::BadCertificate {
                field: "tiers",
                value: u64::from(tiers),
            });
        }
        Ok(NoGuessRecord {
            row,
            col,
            rule,
            solver,
            tiers,
        })
    }

    fn to_bytes(self) -> [u8; CERTIFICATE_LEN] {
        let rule: u32 = if self.rule == FirstClick::Safe { 1 } else { 2 };
        let mut out = [0; CERTIFICATE_LEN];
        let fields = [self.row as u64, self.col as u64]
            .map(u64::to_le_bytes)
            .into_iter()
            .flatten()
            .chain(
                [rule, self.solver, self.tiers, 0]
                    .into_iter()
                    .flat_map(u32::to_le_bytes),
            );
        for (byte, value) in out.iter_mut().zip(fields) {
            *byte = value;
        }
        out
    }

    /// Parses and checks a certificate of a board of `geometry`.
    fn parse(bytes: &[u8; CERTIFICATE_LEN], geometry: &Geometry) -> Result<NoGuessRecord, Error> {
        let u64_at = |i: usize| {
            let mut b = [0; 8];
            b.copy_from_slice(bytes.get(i..i + 8).unwrap_or(&[0; 8]));
            u64::from_le_bytes(b)
        };
        let u32_at = |i: usize| {
            let mut b = [0; 4];
            b.copy_from_slice(bytes.get(i..i + 4).unwrap_or(&[0; 4]));
            u32::from_le_bytes(b)
        };
        let (row, col) = (u64_at(0), u64_at(8));
        let bad = |field, value| Err(Error::BadCertificate { field, value });
        if row >= geometry.rows() as u64 {
            return bad("row", row);
        }
        if col >= geometry.cols() as u64 {
            return bad("column", col);
        }
        let rule = match u32_at(16) {
            1 => FirstClick::Safe,
            2 => FirstClick::Opening,
            other => return bad("first-click rule", u64::from(other)),
        };
        if u32_at(28) != 0 {
            return bad("reserved field", u64::from(u32_at(28)));
        }
        NoGuessRecord::new(row as usize, col as usize, rule, u32_at(20), u32_at(24))
    }
}

/// Reads and checks a binary board's header (magic, version, flags, seed and size) and reads
/// nothing after it, so a board's size can be learnt without reading its payload. The payload
/// and checksum are not checked; [`Board::read_binary`] checks them.
///
/// ```
/// use bitmines_core::Board;
/// use bitmines_core::binary::read_header;
///
/// let bytes = Board::from_mines(3, 10, [(1, 9)])?.to_binary(None);
/// let header = read_header(&bytes[..])?;
/// assert_eq!((header.rows, header.cols, header.mines, header.seed), (3, 10, 1, None));
/// # Ok::<(), bitmines_core::Error>(())
/// ```
pub fn read_header<R: Read>(mut input: R) -> Result<Header, Error> {
    parse_header(&read_prefix(&mut input, &BOARD)?, &BOARD).map(|(header, _)| header)
}

impl Board {
    /// Writes the board in the [binary format](crate::binary), with `seed` recorded if given.
    ///
    /// The board is streamed a piece of at most 64 KiB at a time, straight from its mine
    /// plane, so writing needs no copy of the whole file; `out` is flushed at the end.
    /// Failures of `out` are `Io` errors.
    ///
    /// ```
    /// use bitmines_core::Board;
    ///
    /// let board = Board::from_mines(2, 9, [(0, 0), (1, 8)])?;
    /// let mut file = Vec::new();
    /// board.write_binary(None, &mut file)?;
    /// assert_eq!(file, board.to_binary(None));
    /// assert_eq!(file[48..52], [0b1, 0, 0, 0b1]); // two bytes a row; column 8 in bit 0
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn write_binary<W: Write>(&self, seed: Option<u64>, out: W) -> Result<(), Error> {
        write_pieces(out, file_len(self.geometry()), |emit| {
            self.encode(seed, None, emit)
        })
    }

    /// The length in bytes of the board's [binary form](crate::binary) without a
    /// certificate (what [`Board::write_binary`] writes and [`Board::to_binary`] returns,
    /// with a seed or without), so that a writer can give the length before the bytes.
    ///
    /// ```
    /// use bitmines_core::Board;
    ///
    /// let board = Board::from_mines(3, 9, [(0, 0)])?;
    /// assert_eq!(board.binary_len(), board.to_binary(Some(7)).len());
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn binary_len(&self) -> usize {
        // The board's own planes are larger than this, so it cannot overflow.
        file_len(self.geometry()).unwrap_or(usize::MAX)
    }

    /// [`Board::write_binary`] with a no-guess certificate recorded after the header.
    pub fn write_binary_certified<W: Write>(
        &self,
        seed: Option<u64>,
        record: &NoGuessRecord,
        out: W,
    ) -> Result<(), Error> {
        let len = file_len(self.geometry()).and_then(|n| n.checked_add(CERTIFICATE_LEN));
        write_pieces(out, len, |emit| self.encode(seed, Some(record), emit))
    }

    /// The board in the [binary format](crate::binary), with `seed` recorded if given.
    ///
    /// ```
    /// use bitmines_core::Board;
    /// use bitmines_core::binary::MAGIC;
    ///
    /// let bytes = Board::from_mines(1, 1, [(0, 0)])?.to_binary(Some(42));
    /// assert_eq!(bytes[..8], MAGIC);
    /// assert_eq!(bytes[12..16], [1, 0, 0, 0]); // a seed is recorded
    /// assert_eq!(bytes[40..48], 42u64.to_le_bytes());
    /// assert_eq!(bytes[48], 1);
    /// assert_eq!(bytes.len(), 53);
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn to_binary(&self, seed: Option<u64>) -> Vec<u8> {
        let mut out = Vec::with_capacity(file_len(self.geometry()).unwrap_or(0));
        let Ok(()) = self.encode(seed, None, |bytes| {
            out.extend_from_slice(bytes);
            Ok::<(), Infallible>(())
        });
        out
    }

    /// Reads a board in the [binary format](crate::binary) and its header, checking
    /// everything the format requires (see the module docs for the list and its order).
    ///
    /// The payload is read in pieces of at most 64 KiB and the mine plane grows as they
    /// arrive, so a header that claims a huge board ahead of a short input is `Truncated`
    /// after allocating at most twice what the input held, plus one 64 KiB buffer. The input must end where the board
    /// does: one more byte is read to check that, and any is `TrailingBytes`. An early end of
    /// input is `Truncated`; other failures of `input` are `Io` errors.
    ///
    /// ```
    /// use bitmines_core::{Board, Error};
    ///
    /// let board = Board::from_mines(4, 70, [(0, 0), (3, 69)])?;
    /// let bytes = board.to_binary(None);
    /// let (read, header) = Board::read_binary(&bytes[..])?;
    /// assert_eq!(read, board);
    /// assert_eq!(header.seed, None);
    ///
    /// assert_eq!(
    ///     Board::read_binary(&bytes[..60]),
    ///     Err(Error::Truncated { needed: bytes.len(), found: 60 })
    /// );
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn read_binary<R: Read>(mut input: R) -> Result<(Board, Header), Error> {
        let head = read_prefix(&mut input, &BOARD)?;
        let (mut header, geometry) = parse_header(&head, &BOARD)?;
        let mut len = file_len(&geometry).ok_or_else(|| too_large(&geometry))?;
        let mut certificate = [0; CERTIFICATE_LEN];
        let parts: &[&[u8]] = if flagged_no_guess(&head) {
            let found = fill(&mut input, &mut certificate)?;
            len = len
                .checked_add(CERTIFICATE_LEN)
                .ok_or_else(|| too_large(&geometry))?;
            if found < CERTIFICATE_LEN {
                return Err(Error::Truncated {
                    needed: len,
                    found: HEADER_LEN + found,
                });
            }
            header.no_guess = Some(NoGuessRecord::parse(&certificate, &geometry)?);
            &[head.as_flattened(), &certificate]
        } else {
            &[head.as_flattened()]
        };
        let mut source = Source::new(input, parts, len);
        let payload = read_payload(&mut source, &geometry)?;
        source.finish()?;
        payload.check_padding("mine", &geometry)?;
        if payload.ones != header.mines {
            return Err(Error::MineCountMismatch {
                declared: header.mines,
                found: payload.ones,
            });
        }
        Ok((Board::from_mine_words(geometry, payload.plane)?, header))
    }

    /// [`Board::read_binary`] on bytes in memory. The length is checked against the header
    /// before the payload is read, so an input of the wrong length fails at once; the errors
    /// are those `read_binary` gives on the same bytes.
    ///
    /// ```
    /// use bitmines_core::{Board, Error};
    ///
    /// let board = Board::from_mines(2, 2, [(1, 1)])?;
    /// let mut bytes = board.to_binary(Some(0));
    /// assert_eq!(Board::from_binary(&bytes)?.0, board);
    ///
    /// bytes[48] ^= 1; // a mine the checksum does not know about
    /// assert!(matches!(Board::from_binary(&bytes), Err(Error::ChecksumMismatch { .. })));
    /// bytes.push(0);
    /// assert_eq!(Board::from_binary(&bytes), Err(Error::TrailingBytes { len: 54 }));
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn from_binary(bytes: &[u8]) -> Result<(Board, Header), Error> {
        if bytes.len() >= HEADER_LEN {
            let mut input = bytes;
            let head = read_prefix(&mut input, &BOARD)?;
            let (_, geometry) = parse_header(&head, &BOARD)?;
            let len = file_len(&geometry).ok_or_else(|| too_large(&geometry))?;
            let extra = if flagged_no_guess(&head) {
                CERTIFICATE_LEN
            } else {
                0
            };
            // The certificate's fields are checked before the length, as `read_binary`
            // checks them (the module docs give the order).
            if let Some(Ok(certificate)) = (extra > 0)
                .then(|| bytes.get(HEADER_LEN..HEADER_LEN + CERTIFICATE_LEN))
                .flatten()
                .map(<&[u8; CERTIFICATE_LEN]>::try_from)
            {
                NoGuessRecord::parse(certificate, &geometry)?;
            }
            exact_len(bytes.len(), len.saturating_add(extra))?;
        }
        Board::read_binary(bytes)
    }

    /// Emits the binary form in pieces of at most `CHUNK_BYTES`, stopping at the first error
    /// `emit` returns.
    fn encode<E>(
        &self,
        seed: Option<u64>,
        record: Option<&NoGuessRecord>,
        mut emit: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let geometry = self.geometry();
        let mut crc = crc32fast::Hasher::new();
        let mut put = |bytes: &[u8]| {
            crc.update(bytes);
            emit(bytes)
        };
        let mut head = header_bytes(&BOARD, geometry, self.mine_count(), seed);
        if record.is_some() {
            head[1] = (u64::from_le_bytes(head[1]) | u64::from(FLAG_NO_GUESS) << 32).to_le_bytes();
        }
        put(head.as_flattened())?;
        if let Some(record) = record {
            put(&record.to_bytes())?;
        }
        encode_plane(geometry, self.mines().words(), &mut put)?;
        emit(&crc.finalize().to_le_bytes())
    }
}

/// Streams what `encode` emits to `out` in pieces of at least `CHUNK_BYTES` (the last may be
/// shorter), then flushes `out`; `len` is the length the encoding will have, if known.
/// Failures of `out` are `Io` errors.
pub(crate) fn write_pieces<W: Write>(
    mut out: W,
    len: Option<usize>,
    encode: impl FnOnce(&mut dyn FnMut(&[u8]) -> std::io::Result<()>) -> std::io::Result<()>,
) -> Result<(), Error> {
    let mut buf = Vec::with_capacity(len.map_or(0, |n| n.min(CHUNK_BYTES)));
    encode(&mut |bytes| {
        buf.extend_from_slice(bytes);
        if buf.len() >= CHUNK_BYTES {
            out.write_all(&buf)?;
            buf.clear();
        }
        Ok(())
    })
    .map_err(|e| Error::io(&e))?;
    out.write_all(&buf).map_err(|e| Error::io(&e))?;
    out.flush().map_err(|e| Error::io(&e))
}

/// Emits the board rows of a padded plane in the binary layout: each row in ceil(cols / 8)
/// bytes, column 0 in bit 0 of its first byte, padding bits 0 whatever the plane holds past
/// the last column. Pieces are at most `CHUNK_BYTES` long and end at a row's end.
pub(crate) fn encode_plane<E>(
    geometry: &Geometry,
    plane: &[u64],
    put: &mut impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), E> {
    let cols = geometry.cols();
    let row_bytes = cols.div_ceil(8);
    let row_words = cols.div_ceil(64);
    // Plane bit 0 of a row is its left sentinel, so the row's cells start one bit in: each
    // payload word is a plane word shifted down one, topped with bit 0 of the next. The
    // mask keeps the right sentinel and padding out of the last word (a revealed plane has
    // them set).
    let last_mask = match cols % 64 {
        0 => !0,
        rem => (1 << rem) - 1,
    };
    let mut piece = Vec::with_capacity(row_bytes.min(CHUNK_BYTES));
    for row in 0..geometry.rows() {
        let words = plane.get(geometry.row_words(row)).unwrap_or_default();
        let following = words.iter().skip(1).chain(std::iter::once(&0));
        for (i, (&word, &next)) in words.iter().zip(following).take(row_words).enumerate() {
            let cells = word >> 1 | next << 63;
            let (cells, len) = if i + 1 == row_words {
                (cells & last_mask, row_bytes - 8 * i)
            } else {
                (cells, 8)
            };
            piece.extend(cells.to_le_bytes().into_iter().take(len));
            if piece.len() >= CHUNK_BYTES {
                put(&piece)?;
                piece.clear();
            }
        }
        if !piece.is_empty() {
            put(&piece)?;
            piece.clear();
        }
    }
    Ok(())
}

/// The 48-byte header of the board format, and the first 48 bytes of the saved-game header,
/// as six 8-byte fields.
pub(crate) type Prefix = [[u8; 8]; 6];

/// Reads a header prefix, or fails with `Truncated` if the input ends first.
fn read_prefix(input: &mut impl Read, format: &Format) -> Result<Prefix, Error> {
    let mut head = [[0; 8]; 6];
    let found = fill(input, head.as_flattened_mut())?;
    if found < HEADER_LEN {
        return Err(short_header(head[0], found, HEADER_LEN, format));
    }
    Ok(head)
}

/// The error for a header cut short after `found` bytes: `BadMagic` when the eight bytes
/// that did arrive already name another format (a short file of some other kind), else
/// `Truncated`.
pub(crate) fn short_header(magic: [u8; 8], found: usize, needed: usize, format: &Format) -> Error {
    if found >= magic.len() && magic != format.magic {
        return Error::BadMagic {
            format: format.name,
            expected: format.magic,
            found: magic,
        };
    }
    Error::Truncated { needed, found }
}

/// The 48-byte header prefix of `format` for a board with `mines` mines and an optional seed.
pub(crate) fn header_bytes(
    format: &Format,
    geometry: &Geometry,
    mines: usize,
    seed: Option<u64>,
) -> Prefix {
    let flags = if seed.is_some() { FLAG_SEED } else { 0 };
    let field = |value: u64| value.to_le_bytes();
    [
        format.magic,
        // Version and flags are two `u32`s in one 8-byte field.
        field(u64::from(format.version) | u64::from(flags) << 32),
        field(geometry.rows() as u64),
        field(geometry.cols() as u64),
        field(mines as u64),
        field(seed.unwrap_or(0)),
    ]
}

/// `Truncated` or `TrailingBytes` unless an input of `found` bytes is exactly the `len` its
/// header promises.
pub(crate) fn exact_len(found: usize, len: usize) -> Result<(), Error> {
    if found < len {
        return Err(Error::Truncated { needed: len, found });
    }
    if found > len {
        return Err(Error::TrailingBytes { len });
    }
    Ok(())
}

/// Checks the 48-byte header prefix of `format`: its magic, version, flags, seed and size, in
/// that order.
pub(crate) fn parse_header(head: &Prefix, format: &Format) -> Result<(Header, Geometry), Error> {
    let [magic, version_flags, rows, cols, mines, seed] = *head;
    let field = u64::from_le_bytes;
    if magic != format.magic {
        return Err(Error::BadMagic {
            format: format.name,
            expected: format.magic,
            found: magic,
        });
    }
    // Version and flags are two `u32`s in one 8-byte field.
    let version_flags = field(version_flags);
    let (version, flags) = (version_flags as u32, (version_flags >> 32) as u32);
    if version != format.version {
        return Err(Error::UnsupportedVersion {
            format: format.name,
            version,
            supported: format.version,
        });
    }
    if flags & !format.flags != 0 {
        return Err(Error::UnknownFlags {
            flags,
            defined: format.flags,
        });
    }
    let seed = field(seed);
    if flags & FLAG_SEED == 0 && seed != 0 {
        return Err(Error::UnflaggedSeed { seed });
    }
    // A size that does not fit a `usize` is too large for any board here.
    let size = |bytes| usize::try_from(field(bytes)).unwrap_or(usize::MAX);
    let geometry = Geometry::new(size(rows), size(cols))?;
    let header = Header {
        rows: geometry.rows(),
        cols: geometry.cols(),
        mines: size(mines),
        seed: (flags & FLAG_SEED != 0).then_some(seed),
        no_guess: None,
    };
    Ok((header, geometry))
}

/// Whether a checked header prefix says a no-guess certificate follows.
fn flagged_no_guess(head: &Prefix) -> bool {
    u64::from_le_bytes(head[1]) >> 32 & u64::from(FLAG_NO_GUESS) != 0
}

/// The length of a binary board of this shape, or `None` if it does not fit a `usize` (a
/// valid geometry always fits: its padded plane has more bits than the file has bytes).
fn file_len(geometry: &Geometry) -> Option<usize> {
    geometry
        .rows()
        .checked_mul(geometry.cols().div_ceil(8))?
        .checked_add(HEADER_LEN + CRC_LEN)
}

pub(crate) fn too_large(geometry: &Geometry) -> Error {
    Error::TooLarge {
        rows: geometry.rows(),
        cols: geometry.cols(),
    }
}

/// The input after the header: counts the bytes read and feeds them to the checksum.
pub(crate) struct Source<R> {
    input: R,
    crc: crc32fast::Hasher,
    /// Bytes read so far, header included.
    read: usize,
    /// The length the header implies.
    len: usize,
}

impl<R: Read> Source<R> {
    /// The input after the header, which has been read in `head`'s parts, of a file `len`
    /// bytes long.
    pub(crate) fn new(input: R, head: &[&[u8]], len: usize) -> Source<R> {
        let mut crc = crc32fast::Hasher::new();
        for part in head {
            crc.update(part);
        }
        Source {
            input,
            crc,
            read: head.iter().map(|part| part.len()).sum(),
            len,
        }
    }

    /// Fills `buf` from the input, or fails with `Truncated` if the input ends first.
    pub(crate) fn take(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        let got = fill(&mut self.input, buf)?;
        self.read += got;
        if got < buf.len() {
            return Err(Error::Truncated {
                needed: self.len,
                found: self.read,
            });
        }
        self.crc.update(buf);
        Ok(())
    }

    /// Reads the checksum, checks that the input ends there (`TrailingBytes`), and then that
    /// the checksum is that of every byte before it (`ChecksumMismatch`).
    pub(crate) fn finish(mut self) -> Result<(), Error> {
        // The checksum covers everything before it, so it is taken before reading its bytes.
        let computed = self.crc.clone().finalize();
        let mut stored = [0; CRC_LEN];
        self.take(&mut stored)?;
        if fill(&mut self.input, &mut [0])? > 0 {
            return Err(Error::TrailingBytes { len: self.len });
        }
        let stored = u32::from_le_bytes(stored);
        if stored != computed {
            return Err(Error::ChecksumMismatch { stored, computed });
        }
        Ok(())
    }
}

/// A payload read into a padded plane, with what it takes the checksum to judge.
pub(crate) struct Payload {
    /// The padded plane, sentinel bits clear.
    pub(crate) plane: Vec<u64>,
    /// Set bits in the payload, padding included.
    pub(crate) ones: usize,
    /// The first row with padding bits set, and those bits.
    padding: Option<(usize, u8)>,
}

impl Payload {
    /// `PaddingBits`, naming `plane`, if a row of the payload sets bits past the last column.
    pub(crate) fn check_padding(
        &self,
        plane: &'static str,
        geometry: &Geometry,
    ) -> Result<(), Error> {
        match self.padding {
            Some((row, bits)) => Err(Error::PaddingBits {
                plane,
                row,
                cols: geometry.cols(),
                bits,
            }),
            None => Ok(()),
        }
    }
}

/// Reads a payload of `rows * ceil(cols / 8)` bytes into a padded plane, a piece at a time,
/// growing the plane only as bytes arrive.
pub(crate) fn read_payload<R: Read>(
    source: &mut Source<R>,
    geometry: &Geometry,
) -> Result<Payload, Error> {
    let (cols, wpr) = (geometry.cols(), geometry.words_per_row());
    let row_bytes = cols.div_ceil(8);
    // A row of `cols + 2` padded bits needs one more word than its cells alone when they end
    // on bit 62 or 63 of a word; that word takes the carry out of the last one.
    let extra_word = wpr > cols.div_ceil(64);
    let padding_mask = match cols % 8 {
        0 => 0,
        rem => !0u8 << rem,
    };
    let mut buf = vec![0; row_bytes.next_multiple_of(8).min(CHUNK_BYTES)];
    let mut payload = Payload {
        plane: Vec::new(),
        ones: 0,
        padding: None,
    };
    let plane = &mut payload.plane;
    for row in 0..geometry.rows() {
        let mut carry = 0;
        let mut left = row_bytes;
        while left > 0 {
            // The buffer holds at least 8 bytes, so every pass takes some.
            let take = left.min(buf.len());
            let (bytes, _) = buf.split_at_mut(take);
            source.take(bytes)?;
            left -= bytes.len();
            if left == 0 {
                let stray = bytes.last().map_or(0, |last| last & padding_mask);
                if stray != 0 && payload.padding.is_none() {
                    payload.padding = Some((row, stray));
                }
            }
            grow(plane, bytes.len().div_ceil(8) + 1, geometry)?;
            let groups = bytes.chunks_exact(8);
            let tail = groups.remainder();
            for group in groups.chain((!tail.is_empty()).then_some(tail)) {
                let mut word = [0; 8];
                word.iter_mut()
                    .zip(group)
                    .for_each(|(to, &from)| *to = from);
                let cells = u64::from_le_bytes(word);
                payload.ones += cells.count_ones() as usize;
                plane.push(cells << 1 | carry);
                carry = cells >> 63;
            }
        }
        if extra_word {
            plane.push(carry);
        }
        if row == 0 {
            // The first row was read where the top sentinel row belongs, so that nothing was
            // allocated ahead of the input: move it down a row now that it has arrived.
            grow(plane, wpr, geometry)?;
            plane.extend_from_within(..wpr);
            plane.iter_mut().take(wpr).for_each(|word| *word = 0);
        }
    }
    grow(plane, wpr, geometry)?;
    plane.resize(geometry.words(), 0);
    Ok(payload)
}

/// Makes room for `more` words in a plane being read: at least double the capacity (and at
/// least `MIN_GROWTH_WORDS`), never past the plane's full size, failing with `OutOfMemory`
/// rather than aborting.
fn grow(plane: &mut Vec<u64>, more: usize, geometry: &Geometry) -> Result<(), Error> {
    let needed = plane.len() + more;
    if needed <= plane.capacity() {
        return Ok(());
    }
    let target = (plane.capacity().saturating_mul(2))
        .max(MIN_GROWTH_WORDS)
        .min(geometry.words())
        .max(needed);
    plane
        .try_reserve_exact(target - plane.len())
        .map_err(|_| Error::OutOfMemory {
            bytes: geometry.plane_bytes(),
            rows: geometry.rows(),
            cols: geometry.cols(),
        })
}

/// Reads until `buf` is full or the input ends, and returns the bytes read. An
/// `UnexpectedEof` from the reader counts as the end; other errors but `Interrupted` are
/// `Io` errors.
pub(crate) fn fill(input: &mut impl Read, buf: &mut [u8]) -> Result<usize, Error> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(buf.get_mut(got..).unwrap_or_default()) {
            Ok(0) => break,
            // A reader claiming more than it was given room for cannot push us past the end.
            Ok(n) => got = got.saturating_add(n).min(buf.len()),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(Error::io(&e)),
        }
    }
    Ok(got)
}
