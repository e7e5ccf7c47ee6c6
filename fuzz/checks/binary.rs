//! The `binary` property: `Board::from_binary` and `Board::read_binary` give the same result
//! on the same bytes (read whole, or handed over in small pieces with interruptions), never
//! panic, refuse with one of the format's errors, and what they read writes back
//! (`to_binary`, `write_binary`) as the identical bytes.
//!
//! Random bytes almost never carry a valid CRC-32, which hides every check made after it. So
//! the first byte of an input chooses: even, the rest is read as it is; odd, the last four
//! bytes of the rest are first replaced with the CRC-32 of the bytes before them.
//!
//! Shared by the `binary` fuzz target and `tests/fuzz_regressions.rs`, with `checks/bytes.rs`.

use bitmines_core::binary::{HEADER_LEN, read_header};
use bitmines_core::{Board, Error};

use crate::bytes::{CRC_LEN, Trickle, with_crc};

/// Checks the binary reader and writer on `data` (see the module docs for its first byte).
pub(crate) fn check(data: &[u8]) {
    check_bytes(&with_crc(data));
}

/// The checks on one byte string.
fn check_bytes(bytes: &[u8]) {
    let whole = Board::from_binary(bytes);
    let streamed = Board::read_binary(bytes);
    assert_eq!(streamed, whole, "read_binary and from_binary on {bytes:?}");
    for piece in [1, 3, 8, 61] {
        let trickled = Board::read_binary(Trickle::new(bytes, piece));
        assert_eq!(
            trickled, whole,
            "read_binary in pieces of {piece} on {bytes:?}"
        );
    }
    let (board, header) = match whole {
        Ok(read) => read,
        Err(error) => {
            assert!(
                matches!(
                    error,
                    Error::BadMagic { .. }
                        | Error::UnsupportedVersion { .. }
                        | Error::UnknownFlags { .. }
                        | Error::UnflaggedSeed { .. }
                        | Error::EmptyBoard { .. }
                        | Error::TooLarge { .. }
                        | Error::Truncated { .. }
                        | Error::TrailingBytes { .. }
                        | Error::ChecksumMismatch { .. }
                        | Error::PaddingBits { .. }
                        | Error::MineCountMismatch { .. }
                        | Error::OutOfMemory { .. }
                ),
                "{bytes:?} refused with {error:?}"
            );
            return;
        }
    };
    assert_eq!(
        (header.rows, header.cols, header.mines),
        (board.rows(), board.cols(), board.mine_count()),
        "{bytes:?}"
    );
    assert_eq!(
        bytes.len(),
        HEADER_LEN + board.rows() * board.cols().div_ceil(8) + CRC_LEN,
        "{bytes:?}"
    );
    assert_eq!(read_header(bytes), Ok(header), "read_header on {bytes:?}");
    assert_eq!(
        board.to_binary(header.seed),
        bytes,
        "to_binary(from_binary(bytes))"
    );
    let mut written = Vec::new();
    board
        .write_binary(header.seed, &mut written)
        .unwrap_or_else(|e| panic!("write_binary: {e}"));
    assert_eq!(written, bytes, "write_binary(from_binary(bytes))");
}
