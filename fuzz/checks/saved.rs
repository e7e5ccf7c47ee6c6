//! The `saved` property: `Game::from_saved` and `Game::read_saved` give the same result on
//! the same bytes (whole, or handed over in small pieces), never panic, and what they read is
//! a valid game (`validate()`) whose header tells its counts and which writes back
//! (`to_saved`, `write_saved`) as the identical bytes.
//!
//! Random bytes almost never carry a valid CRC-32, which hides every check made after it. So
//! the first byte of an input chooses: even, the rest is read as it is; odd, the last four
//! bytes of the rest are first replaced with the CRC-32 of the bytes before them.
//!
//! Shared by the `saved` fuzz target and `tests/fuzz_regressions.rs`.

use std::io::{self, ErrorKind, Read};

use bitmines_core::saved::read_header;
use bitmines_core::{Error, Game};

/// Bytes of the CRC-32 at the end of a saved game.
const CRC_LEN: usize = 4;

/// Checks the saved-game reader and writer on `data` (see the module docs for its first
/// byte).
pub(crate) fn check(data: &[u8]) {
    check_bytes(&with_crc(data));
}

/// The input's bytes after its first one, with the CRC-32 fixed up when that byte is odd.
pub(crate) fn with_crc(data: &[u8]) -> Vec<u8> {
    let Some((&mode, rest)) = data.split_first() else {
        return Vec::new();
    };
    let mut bytes = rest.to_vec();
    if mode & 1 == 1 && bytes.len() >= CRC_LEN {
        let end = bytes.len() - CRC_LEN;
        let crc = crc32(&bytes[..end]);
        bytes[end..].copy_from_slice(&crc.to_le_bytes());
    }
    bytes
}

/// What a read gave, in a form that compares: the game's bytes written back, or the error.
fn outcome(read: Result<(Game, bitmines_core::saved::Header), Error>) -> Result<Vec<u8>, Error> {
    read.map(|(game, header)| {
        game.to_saved(header.seed)
            .unwrap_or_else(|e| panic!("a game that read back cannot be written: {e}"))
    })
}

/// The checks on one byte string.
fn check_bytes(bytes: &[u8]) {
    let whole = Game::from_saved(bytes);
    let expected = outcome(whole.clone());
    assert_eq!(
        outcome(Game::read_saved(bytes)),
        expected,
        "read_saved on {bytes:?}"
    );
    for piece in [1, 7, 64] {
        let trickled = outcome(Game::read_saved(Trickle::new(bytes, piece)));
        assert_eq!(
            trickled, expected,
            "read_saved in pieces of {piece} on {bytes:?}"
        );
    }
    let Ok((game, header)) = whole else {
        return;
    };
    assert_eq!(game.validate(), Ok(()), "{bytes:?}");
    assert_eq!(
        (header.rows, header.cols, header.mines),
        (game.rows(), game.cols(), game.mine_count()),
        "{bytes:?}"
    );
    assert_eq!(
        (
            header.status,
            header.revealed,
            header.flags,
            header.exploded
        ),
        (
            game.status(),
            game.revealed_count(),
            game.flag_count(),
            game.exploded().count()
        ),
        "{bytes:?}"
    );
    assert_eq!(read_header(bytes), Ok(header), "read_header on {bytes:?}");
    assert_eq!(
        expected.as_deref(),
        Ok(bytes),
        "to_saved(from_saved(bytes))"
    );
    let mut written = Vec::new();
    game.write_saved(header.seed, &mut written)
        .unwrap_or_else(|e| panic!("write_saved: {e}"));
    assert_eq!(written, bytes, "write_saved(from_saved(bytes))");
    // The text form of the same game reads back as the same game.
    let text = game.to_string();
    let again: Game = text
        .parse()
        .unwrap_or_else(|e| panic!("the text of a saved game does not read back: {e}\n{text}"));
    assert_eq!(again.to_saved(header.seed).as_deref(), Ok(bytes), "{text}");
}

/// A reader that hands over at most `piece` bytes a call and is interrupted before every
/// other piece, as a pipe or a slow device may be.
struct Trickle<'a> {
    bytes: &'a [u8],
    piece: usize,
    interrupt: bool,
}

impl<'a> Trickle<'a> {
    fn new(bytes: &'a [u8], piece: usize) -> Trickle<'a> {
        Trickle {
            bytes,
            piece,
            interrupt: false,
        }
    }
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.interrupt = !self.interrupt;
        if self.interrupt {
            return Err(ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(self.piece).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// CRC-32 (IEEE, reflected, as zlib computes it), one bit at a time, from the definition.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                crc >> 1 ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
