//! The binary board format against its specification.
//!
//! - A naive encoder and decoder written here from the spec in `bitmines_core::binary`, one
//!   cell at a time, are the twins: the engine's bytes must equal the naive encoder's, and the
//!   engine must accept exactly what the naive decoder accepts, with the same board.
//! - Round trips at the word edges of a padded row (widths 63 to 65, 127 to 129), through
//!   memory, a writer, and a reader that hands over one byte at a time.
//! - Every error path is a row of a table: the input, and the error it must give. Every
//!   truncation and every single-bit flip of small files is an error.
//! - Property tests: arbitrary and mutated bytes never panic, and whatever reads back writes
//!   back to the same bytes.

use std::io::{self, ErrorKind, Write};

use bitmines_core::binary::{HEADER_LEN, MAGIC, VERSION, read_header};
use bitmines_core::{Board, Error};
use proptest::prelude::*;

#[allow(dead_code)]
mod support;
use support::{FailAfter, Rng, trickle};

/// The name errors give the binary board format.
const FORMAT: &str = "binary bitmines board";

/// Widths around the word edges of a padded row (`cols + 2` bits) and of a payload row.
const WIDTHS: [usize; 11] = [1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 200];

/// A `rows x cols` board with each cell a mine with probability `density`.
fn random_board(rows: usize, cols: usize, density: f64, rng: &mut Rng) -> Board {
    let mines: Vec<(usize, usize)> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .filter(|_| rng.chance(density))
        .collect();
    Board::from_mines(rows, cols, mines).unwrap()
}

/// Every mine of a board, row by row, found one cell at a time.
fn mine_cells(board: &Board) -> Vec<(usize, usize)> {
    let mut mines = Vec::new();
    for r in 0..board.rows() {
        for c in 0..board.cols() {
            if board.is_mine(r, c).unwrap() {
                mines.push((r, c));
            }
        }
    }
    mines
}

// ---------------------------------------------------------------------------------------
// The naive twin, from the spec
// ---------------------------------------------------------------------------------------

/// The binary form of a board, built field by field and cell by cell as the spec reads.
fn naive_encode(board: &Board, seed: Option<u64>) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(b"\x89BMB\r\n\x1a\n");
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&u32::from(seed.is_some()).to_le_bytes());
    out.extend_from_slice(&(board.rows() as u64).to_le_bytes());
    out.extend_from_slice(&(board.cols() as u64).to_le_bytes());
    out.extend_from_slice(&(board.mine_count() as u64).to_le_bytes());
    out.extend_from_slice(&seed.unwrap_or(0).to_le_bytes());
    for r in 0..board.rows() {
        for k in 0..board.cols().div_ceil(8) {
            let mut byte = 0u8;
            for j in 0..8 {
                let c = 8 * k + j;
                if c < board.cols() && board.is_mine(r, c).unwrap() {
                    byte |= 1 << j;
                }
            }
            out.push(byte);
        }
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// What the naive decoder makes of a file: its size, seed and mines.
#[derive(Debug, PartialEq)]
struct Decoded {
    rows: usize,
    cols: usize,
    seed: Option<u64>,
    mines: Vec<(usize, usize)>,
}

/// Reads a file as the spec reads, checking every rule; `None` if any is broken.
fn naive_decode(bytes: &[u8]) -> Option<Decoded> {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    if bytes.len() < 52 || bytes[..8] != *b"\x89BMB\r\n\x1a\n" || u32_at(8) != 1 {
        return None;
    }
    let (flags, rows, cols, mines, seed) =
        (u32_at(12), u64_at(16), u64_at(24), u64_at(32), u64_at(40));
    if flags > 1 || (flags == 0 && seed != 0) || rows == 0 || cols == 0 {
        return None;
    }
    let row_bytes = u128::from(cols).div_ceil(8);
    if bytes.len() as u128 != 52 + u128::from(rows) * row_bytes {
        return None;
    }
    let (rows, cols, row_bytes) = (rows as usize, cols as usize, row_bytes as usize);
    let end = bytes.len() - 4;
    if crc32fast::hash(&bytes[..end]) != u32_at(end) {
        return None;
    }
    let mut found = Vec::new();
    for r in 0..rows {
        for k in 0..row_bytes {
            for j in 0..8 {
                if bytes[48 + r * row_bytes + k] >> j & 1 == 1 {
                    if 8 * k + j >= cols {
                        return None;
                    }
                    found.push((r, 8 * k + j));
                }
            }
        }
    }
    if found.len() as u64 != mines {
        return None;
    }
    let seed = (flags == 1).then_some(seed);
    Some(Decoded {
        rows,
        cols,
        seed,
        mines: found,
    })
}

// ---------------------------------------------------------------------------------------
// Readers and writers
// ---------------------------------------------------------------------------------------

/// A writer that takes `room` bytes, then fails (or, with `zero`, reports writing nothing).
struct FullDisk {
    written: Vec<u8>,
    room: usize,
    zero: bool,
}

impl Write for FullDisk {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = buf.len().min(self.room - self.written.len());
        if n == 0 && !buf.is_empty() {
            return if self.zero {
                Ok(0)
            } else {
                Err(io::Error::new(ErrorKind::StorageFull, "no space left"))
            };
        }
        self.written.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------------------

/// Writes `board` every way there is, checks the bytes against the naive encoder, and reads
/// them back every way there is.
fn check_round_trip(board: &Board, seed: Option<u64>) {
    let what = format!(
        "{}x{} with {} mines, seed {seed:?}",
        board.rows(),
        board.cols(),
        board.mine_count()
    );
    let bytes = board.to_binary(seed);
    assert_eq!(bytes, naive_encode(board, seed), "{what}");
    assert_eq!(
        bytes.len(),
        52 + board.rows() * board.cols().div_ceil(8),
        "{what}"
    );
    let mut written = Vec::new();
    board.write_binary(seed, &mut written).unwrap();
    assert_eq!(written, bytes, "{what}");

    let (read, header) = Board::from_binary(&bytes).unwrap();
    assert_eq!(mine_cells(&read), mine_cells(board), "{what}");
    assert_eq!(&read, board, "{what}");
    assert_eq!(
        (header.rows, header.cols, header.mines, header.seed),
        (board.rows(), board.cols(), board.mine_count(), seed),
        "{what}"
    );
    assert_eq!(read_header(&bytes[..]), Ok(header), "{what}");
    assert_eq!(
        Board::read_binary(&bytes[..]),
        Ok((read.clone(), header)),
        "{what}"
    );
    if bytes.len() < 10_000 {
        assert_eq!(
            Board::read_binary(trickle(&bytes)),
            Ok((read, header)),
            "{what}"
        );
    }
    assert_eq!(
        naive_decode(&bytes),
        Some(Decoded {
            rows: board.rows(),
            cols: board.cols(),
            seed,
            mines: mine_cells(board),
        }),
        "{what}"
    );
}

#[test]
fn random_boards_round_trip_at_word_edges() {
    let mut rng = Rng(1);
    for cols in WIDTHS {
        for rows in [1, 2, 3, 8, 17] {
            for density in [0.0, 0.05, 0.5, 0.95, 1.0] {
                let board = random_board(rows, cols, density, &mut rng);
                check_round_trip(&board, None);
                check_round_trip(&board, Some(rng.next()));
            }
        }
    }
}

#[test]
fn edge_boards_round_trip() {
    for (rows, cols) in [(1, 1), (1, 64), (64, 1), (1, 1000), (1000, 1), (9, 129)] {
        let all: Vec<(usize, usize)> = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .collect();
        let corners = [(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)];
        let mut corners = corners.to_vec();
        corners.sort_unstable();
        corners.dedup();
        for mines in [vec![], all, corners] {
            let board = Board::from_mines(rows, cols, mines).unwrap();
            for seed in [None, Some(0), Some(u64::MAX)] {
                check_round_trip(&board, seed);
            }
        }
    }
}

#[test]
fn boards_larger_than_one_piece_round_trip() {
    // Rows longer than the 64 KiB pieces reads and writes move, and files of many short rows
    // that fill several pieces.
    let mut rng = Rng(2);
    for (rows, cols) in [(2, 600_001), (3, 524_288), (2000, 300)] {
        let board = random_board(rows, cols, 0.3, &mut rng);
        check_round_trip(&board, Some(5));
    }
}

#[test]
fn a_small_board_has_the_bytes_the_spec_prescribes() {
    // Written out by hand, with the CRC from zlib, so the encoder and the naive twin cannot
    // drift from the spec together.
    let board: Board = "*..\n..*\n".parse().unwrap();
    let want = [
        0x89, b'B', b'M', b'B', b'\r', b'\n', 0x1a, b'\n', // magic
        1, 0, 0, 0, // version
        1, 0, 0, 0, // flags: a seed is recorded
        2, 0, 0, 0, 0, 0, 0, 0, // rows
        3, 0, 0, 0, 0, 0, 0, 0, // cols
        2, 0, 0, 0, 0, 0, 0, 0, // mines
        7, 0, 0, 0, 0, 0, 0, 0, // seed
        0b001, 0b100, // one byte per row
        0x99, 0x78, 0x83, 0xf1, // CRC-32
    ];
    assert_eq!(board.to_binary(Some(7)), want);
    assert_eq!(MAGIC, *b"\x89BMB\r\n\x1a\n");
    assert_eq!(VERSION, 1);
    assert_eq!(HEADER_LEN, 48);
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/// Reads `bytes` from memory, from a slice reader and one byte at a time; all three must
/// give `want`.
fn check_error(bytes: &[u8], want: Error) {
    assert_eq!(Board::from_binary(bytes), Err(want.clone()), "from_binary");
    assert_eq!(Board::read_binary(bytes), Err(want.clone()), "read_binary");
    assert_eq!(
        Board::read_binary(trickle(bytes)),
        Err(want),
        "read_binary, one byte at a time"
    );
    assert_eq!(naive_decode(bytes), None, "naive_decode");
}

/// A 3x70 board with mines in both words of a padded row, and its bytes with seed 9.
fn sample() -> (Board, Vec<u8>) {
    let board = Board::from_mines(3, 70, [(0, 0), (0, 63), (1, 64), (2, 69)]).unwrap();
    let bytes = board.to_binary(Some(9));
    (board, bytes)
}

/// `bytes` with `value` written at `at`.
fn patched(bytes: &[u8], at: usize, value: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + value.len()].copy_from_slice(value);
    out
}

/// `bytes` with the CRC recomputed, so the checks after it are reached.
fn fix_crc(mut bytes: Vec<u8>) -> Vec<u8> {
    let end = bytes.len() - 4;
    let crc = crc32fast::hash(&bytes[..end]);
    bytes[end..].copy_from_slice(&crc.to_le_bytes());
    bytes
}

/// The CRC a file stores.
fn stored_crc(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes[bytes.len() - 4..].try_into().unwrap())
}

/// The CRC of a file's bytes before its stored CRC.
fn computed_crc(bytes: &[u8]) -> u32 {
    crc32fast::hash(&bytes[..bytes.len() - 4])
}

/// A checksum mismatch as `bytes` must report it.
fn mismatch(bytes: &[u8]) -> Error {
    Error::ChecksumMismatch {
        stored: stored_crc(bytes),
        computed: computed_crc(bytes),
    }
}

#[test]
fn every_header_field_is_checked() {
    let (_, good) = sample();
    let len = good.len();
    let u32le = |v: u32| v.to_le_bytes().to_vec();
    let u64le = |v: u64| v.to_le_bytes().to_vec();
    let mut bad_magic = MAGIC;
    bad_magic[0] = b'B';
    let cases: Vec<(usize, Vec<u8>, Error)> = vec![
        (
            0,
            bad_magic.to_vec(),
            Error::BadMagic {
                format: FORMAT,
                expected: MAGIC,
                found: bad_magic,
            },
        ),
        (
            4,
            b"\r\n\n\n".to_vec(),
            Error::BadMagic {
                format: FORMAT,
                expected: MAGIC,
                found: *b"\x89BMB\r\n\n\n",
            },
        ),
        (
            8,
            u32le(0),
            Error::UnsupportedVersion {
                format: FORMAT,
                version: 0,
                supported: 1,
            },
        ),
        (
            8,
            u32le(2),
            Error::UnsupportedVersion {
                format: FORMAT,
                version: 2,
                supported: 1,
            },
        ),
        (
            12,
            u32le(4),
            Error::UnknownFlags {
                flags: 4,
                defined: 3,
            },
        ),
        (
            12,
            u32le(0x8000_0001),
            Error::UnknownFlags {
                flags: 0x8000_0001,
                defined: 3,
            },
        ),
        (12, u32le(0), Error::UnflaggedSeed { seed: 9 }),
        (16, u64le(0), Error::EmptyBoard { rows: 0, cols: 70 }),
        (24, u64le(0), Error::EmptyBoard { rows: 3, cols: 0 }),
        (
            16,
            u64le(u64::MAX),
            Error::TooLarge {
                rows: usize::MAX,
                cols: 70,
            },
        ),
        (
            24,
            u64le(1 << 62),
            Error::TooLarge {
                rows: 3,
                cols: 1 << 62,
            },
        ),
        // A size that fits but disagrees with the payload changes the length.
        (
            16,
            u64le(4),
            Error::Truncated {
                needed: len + 9,
                found: len,
            },
        ),
        (16, u64le(2), Error::TrailingBytes { len: len - 9 }),
        (
            24,
            u64le(80),
            Error::Truncated {
                needed: len + 3,
                found: len,
            },
        ),
        (24, u64le(64), Error::TrailingBytes { len: len - 3 }),
    ];
    for (at, value, want) in cases {
        check_error(&patched(&good, at, &value), want);
    }
    // The mine count and the seed are covered by the checksum, and the mine count is checked
    // on its own once the checksum agrees.
    for (at, value) in [
        (32, u64le(5)),
        (32, u64le(0)),
        (40, u64le(10)),
        (40, u64le(0)),
    ] {
        let bad = patched(&good, at, &value);
        check_error(&bad, mismatch(&bad));
    }
    for declared in [0, 3, 5, u64::MAX] {
        let bad = fix_crc(patched(&good, 32, &u64le(declared)));
        let declared = declared as usize;
        check_error(&bad, Error::MineCountMismatch { declared, found: 4 });
    }
    // A zero seed with its flag set is a recorded seed, and reads back as one.
    let zero_seed = fix_crc(patched(&good, 40, &u64le(0)));
    assert_eq!(
        Board::from_binary(&zero_seed).map(|(_, h)| h.seed),
        Ok(Some(0))
    );
}

#[test]
fn the_payload_and_checksum_are_checked() {
    let (_, good) = sample();
    let len = good.len();
    // Mines flipped in the payload, and a bad stored CRC.
    for at in [48, 55, 56, 57, len - 5] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        check_error(&bad, mismatch(&bad));
    }
    let mut bad = good.clone();
    bad[len - 1] ^= 0x80;
    check_error(&bad, mismatch(&bad));
    // One byte more, or many.
    for extra in [&[0][..], &[0; 100][..]] {
        let long = [&good[..], extra].concat();
        check_error(&long, Error::TrailingBytes { len });
    }
}

#[test]
fn padding_bits_are_refused() {
    // Each row of a 3x70 board has 9 bytes, the last holding columns 64 to 69 and two
    // padding bits. The checksum is fixed up, so the padding check itself is reached.
    let (_, good) = sample();
    for (row, bits) in [(0, 0b0100_0000), (1, 0b1000_0000), (2, 0b1100_0000)] {
        let mut bad = good.clone();
        bad[48 + 9 * row + 8] |= bits;
        check_error(
            &fix_crc(bad),
            Error::PaddingBits {
                plane: "mine",
                row,
                cols: 70,
                bits,
            },
        );
    }
    // At other widths: the bit just past the last column, and the last bit of the row.
    for cols in [1, 5, 9, 63, 65, 127] {
        let board = Board::empty(2, cols).unwrap();
        let row_bytes = cols.div_ceil(8);
        for bit in [cols % 8, 7] {
            let mut bad = board.to_binary(None);
            bad[48 + 2 * row_bytes - 1] |= 1 << bit;
            let bits = 1 << bit;
            check_error(
                &fix_crc(bad),
                Error::PaddingBits {
                    plane: "mine",
                    row: 1,
                    cols,
                    bits,
                },
            );
        }
    }
}

#[test]
fn every_truncation_is_an_error() {
    let mut rng = Rng(3);
    let boards = [
        sample().0,
        Board::from_mines(1, 1, [(0, 0)]).unwrap(),
        random_board(4, 129, 0.3, &mut rng),
    ];
    for board in boards {
        let bytes = board.to_binary(Some(1));
        for cut in 0..bytes.len() {
            let needed = if cut < HEADER_LEN {
                HEADER_LEN
            } else {
                bytes.len()
            };
            check_error(&bytes[..cut], Error::Truncated { needed, found: cut });
        }
    }
}

#[test]
fn every_single_bit_flip_is_an_error() {
    let mut rng = Rng(4);
    let boards = [
        sample().0,
        Board::from_mines(1, 1, [(0, 0)]).unwrap(),
        Board::empty(2, 9).unwrap(),
        random_board(3, 64, 0.5, &mut rng),
    ];
    for board in boards {
        for seed in [None, Some(rng.next())] {
            let bytes = board.to_binary(seed);
            for bit in 0..8 * bytes.len() {
                let mut bad = bytes.clone();
                bad[bit / 8] ^= 1 << (bit % 8);
                let from_memory = Board::from_binary(&bad);
                assert!(from_memory.is_err(), "bit {bit} of {board:?}");
                assert_eq!(
                    Board::read_binary(&bad[..]),
                    from_memory,
                    "bit {bit} of {board:?}"
                );
                assert_eq!(naive_decode(&bad), None, "bit {bit} of {board:?}");
            }
        }
    }
}

#[test]
fn a_huge_header_on_a_short_input_is_truncated_before_anything_is_allocated() {
    // The first three planes are beyond any address space, and so is the single row of the
    // second: a reader that reserved the plane (or that row) ahead of the input would fail
    // with `OutOfMemory`, not report the input short. The last is 10^12 cells.
    let (_, good) = sample();
    for (rows, cols) in [
        (1usize << 31, 1usize << 31),
        (1, 1 << 61),
        (1 << 57, 1),
        (1_000_000, 1_000_000),
    ] {
        let mut bad = patched(&good, 16, &(rows as u64).to_le_bytes());
        bad = patched(&bad, 24, &(cols as u64).to_le_bytes());
        bad.resize(100, 0xff);
        let needed = 52 + rows * cols.div_ceil(8);
        check_error(&bad, Error::Truncated { needed, found: 100 });
        assert_eq!(
            read_header(&bad[..]).map(|h| (h.rows, h.cols)),
            Ok((rows, cols))
        );
    }
}

#[test]
fn read_header_checks_the_header_alone() {
    let (_, good) = sample();
    let header = read_header(&good[..HEADER_LEN]).unwrap();
    assert_eq!(
        (header.rows, header.cols, header.mines, header.seed),
        (3, 70, 4, Some(9))
    );
    assert_eq!(
        read_header(&good[..47]),
        Err(Error::Truncated {
            needed: 48,
            found: 47
        })
    );
    assert_eq!(
        read_header(&patched(&good, 8, &[3, 0, 0, 0])[..]),
        Err(Error::UnsupportedVersion {
            format: FORMAT,
            version: 3,
            supported: 1
        })
    );
}

#[test]
fn io_errors_are_reported() {
    let (board, good) = sample();
    // A reader failing partway is an `Io` error; one reporting an early end is `Truncated`.
    let failing = FailAfter {
        bytes: &good[..60],
        kind: ErrorKind::PermissionDenied,
    };
    assert_eq!(
        Board::read_binary(failing),
        Err(Error::Io {
            kind: ErrorKind::PermissionDenied,
            message: "the disk is on fire".to_string(),
        })
    );
    let ending = FailAfter {
        bytes: &good[..60],
        kind: ErrorKind::UnexpectedEof,
    };
    assert_eq!(
        Board::read_binary(ending),
        Err(Error::Truncated {
            needed: good.len(),
            found: 60
        })
    );
    // A writer that runs out of room, by failing or by writing nothing.
    for room in [0, 10, 48, good.len() - 1] {
        let mut disk = FullDisk {
            written: Vec::new(),
            room,
            zero: false,
        };
        let result = board.write_binary(None, &mut disk);
        assert!(
            matches!(
                result,
                Err(Error::Io {
                    kind: ErrorKind::StorageFull,
                    ..
                })
            ),
            "{result:?}"
        );
        let mut disk = FullDisk {
            written: Vec::new(),
            room,
            zero: true,
        };
        let result = board.write_binary(None, &mut disk);
        assert!(
            matches!(
                result,
                Err(Error::Io {
                    kind: ErrorKind::WriteZero,
                    ..
                })
            ),
            "{result:?}"
        );
    }
    let mut disk = FullDisk {
        written: Vec::new(),
        room: good.len(),
        zero: true,
    };
    board.write_binary(Some(9), &mut disk).unwrap();
    assert_eq!(disk.written, good);
}

#[test]
fn messages_name_the_bad_value() {
    let cases = [
        (
            Error::BadMagic {
                format: FORMAT,
                expected: MAGIC,
                found: *b"PK\x03\x04\x14\x00\x00\x00",
            },
            "not a binary bitmines board: it starts [50, 4b, 03, 04, 14, 00, 00, 00] where [89, 42, 4d, 42, 0d, 0a, 1a, 0a] is expected",
        ),
        (
            Error::UnsupportedVersion {
                format: FORMAT,
                version: 2,
                supported: 1,
            },
            "binary bitmines board format version 2 is not supported (this crate reads 1)",
        ),
        (
            Error::UnknownFlags {
                flags: 5,
                defined: 3,
            },
            "flags 0x00000005 set undefined bits 0x00000004",
        ),
        (
            Error::PaddingBits {
                plane: "mine",
                row: 2,
                cols: 70,
                bits: 0b1100_0000,
            },
            "row 2 of the mine plane sets padding bits 0b11000000 in its last byte, past the board's 70 columns",
        ),
        (
            Error::ChecksumMismatch {
                stored: 0xdead_beef,
                computed: 0x1234,
            },
            "CRC-32 mismatch: the input stores 0xdeadbeef but its bytes give 0x00001234",
        ),
        (
            Error::TrailingBytes { len: 61 },
            "the input goes on past its end at byte 61",
        ),
    ];
    for (error, message) in cases {
        assert_eq!(error.to_string(), message);
    }
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

/// Reads `bytes` every way; they must agree with each other and with the naive decoder, and
/// a board read must write back to the same bytes.
fn check_any_bytes(bytes: &[u8]) -> Result<(), TestCaseError> {
    let read = Board::from_binary(bytes);
    prop_assert_eq!(&Board::read_binary(bytes), &read);
    let naive = naive_decode(bytes);
    match read {
        Ok((board, header)) => {
            prop_assert_eq!(board.to_binary(header.seed), bytes);
            let decoded = Decoded {
                rows: board.rows(),
                cols: board.cols(),
                seed: header.seed,
                mines: mine_cells(&board),
            };
            prop_assert_eq!(naive, Some(decoded));
        }
        Err(_) => prop_assert_eq!(naive, None),
    }
    Ok(())
}

/// A valid file for a random board, then up to four random byte edits, with the checksum
/// fixed up afterwards or not.
fn mutated_file() -> impl Strategy<Value = Vec<u8>> {
    (
        1..6usize,
        1..140usize,
        0.0..1.0f64,
        any::<u64>(),
        any::<Option<u64>>(),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
        any::<bool>(),
    )
        .prop_map(|(rows, cols, density, seed, recorded, edits, fix)| {
            let board = random_board(rows, cols, density, &mut Rng(seed));
            let mut bytes = board.to_binary(recorded);
            for (at, value) in edits {
                let at = at.index(bytes.len());
                bytes[at] = value;
            }
            if fix { fix_crc(bytes) } else { bytes }
        })
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        check_any_bytes(&bytes)?;
    }

    #[test]
    fn arbitrary_bytes_behind_a_good_magic_never_panic(
        rest in prop::collection::vec(any::<u8>(), 0..300),
        version in prop_oneof![Just(1u32), any::<u32>()],
    ) {
        let bytes = [&MAGIC[..], &version.to_le_bytes(), &rest].concat();
        check_any_bytes(&bytes)?;
        check_any_bytes(&fix_crc_if_long(bytes))?;
    }

    #[test]
    fn mutated_files_read_as_the_spec_says(bytes in mutated_file()) {
        check_any_bytes(&bytes)?;
    }

    #[test]
    fn random_boards_match_the_naive_encoder(
        rows in 1..12usize,
        cols in 1..300usize,
        density in 0.0..1.0f64,
        seed in any::<u64>(),
        recorded in any::<Option<u64>>(),
    ) {
        let board = random_board(rows, cols, density, &mut Rng(seed));
        let bytes = board.to_binary(recorded);
        prop_assert_eq!(&bytes, &naive_encode(&board, recorded));
        let (read, header) = Board::from_binary(&bytes).unwrap();
        prop_assert_eq!(read, board);
        prop_assert_eq!(header.seed, recorded);
    }
}

/// `bytes` with the last four replaced by the CRC of the rest, if there are enough.
fn fix_crc_if_long(bytes: Vec<u8>) -> Vec<u8> {
    if bytes.len() >= 52 {
        fix_crc(bytes)
    } else {
        bytes
    }
}

/// A no-guess certificate round-trips, is covered by the checksum, and every field out of
/// range is refused by name.
#[test]
fn no_guess_certificates() {
    use bitmines_core::FirstClick;
    use bitmines_core::binary::{CERTIFICATE_LEN, NoGuessRecord};

    let board = Board::from_mines(3, 70, [(0, 0), (2, 69)]).unwrap();
    let record = NoGuessRecord::new(1, 40, FirstClick::Safe, 7, 0b1011).unwrap();
    let mut bytes = Vec::new();
    board
        .write_binary_certified(Some(3), &record, &mut bytes)
        .unwrap();
    assert_eq!(
        bytes.len(),
        board.to_binary(Some(3)).len() + CERTIFICATE_LEN
    );
    assert_eq!(bytes[12..16], [3, 0, 0, 0]); // seed and certificate flags
    let (read, header) = Board::from_binary(&bytes).unwrap();
    assert_eq!(
        (read, header.seed, header.no_guess),
        (board.clone(), Some(3), Some(record))
    );
    let (_, streamed) = Board::read_binary(&bytes[..]).unwrap();
    assert_eq!(streamed.no_guess, Some(record));
    // A board without one has none.
    assert_eq!(
        Board::from_binary(&board.to_binary(None))
            .unwrap()
            .1
            .no_guess,
        None
    );

    let mut flipped = bytes.clone();
    flipped[48 + 16] ^= 3; // rule 1 -> 2: the checksum catches it
    assert!(matches!(
        Board::from_binary(&flipped),
        Err(Error::ChecksumMismatch { .. })
    ));
    assert!(matches!(
        Board::from_binary(&bytes[..60]),
        Err(Error::Truncated { .. })
    ));
    assert!(matches!(
        Board::read_binary(&bytes[..60]),
        Err(Error::Truncated { .. })
    ));

    for (offset, value, field) in [
        (48, 3u64, "row"),
        (56, 70, "column"),
        (64, 0, "first-click rule"),
        (64, 3, "first-click rule"),
        (72, 0b10000, "tiers"),
        (76, 1, "reserved field"),
    ] {
        let mut bad = bytes.clone();
        let width = if offset < 64 { 8 } else { 4 };
        bad[offset..offset + width].copy_from_slice(&value.to_le_bytes()[..width]);
        match Board::read_binary(&bad[..]) {
            Err(Error::BadCertificate { field: f, value: v }) => {
                assert_eq!((f, v), (field, value), "offset {offset}");
            }
            other => panic!("offset {offset}: {other:?}"),
        }
        // The certificate is checked before the length, by every reader: cut short after
        // it, the file is still refused for the field.
        check_error(
            &bad[..HEADER_LEN + CERTIFICATE_LEN],
            Error::BadCertificate { field, value },
        );
    }
    assert!(matches!(
        NoGuessRecord::new(0, 0, FirstClick::Unprotected, 1, 1),
        Err(Error::BadCertificate {
            field: "first-click rule",
            ..
        })
    ));
}
