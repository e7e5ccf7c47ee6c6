//! The `saved` property: `Game::from_saved` and `Game::read_saved` give the same result on
//! the same bytes (whole, or handed over in small pieces), never panic, and what they read is
//! a valid game (`validate()`) whose header tells its counts and which writes back
//! (`to_saved`, `write_saved`) as the identical bytes.
//!
//! Random bytes almost never carry a valid CRC-32, which hides every check made after it. So
//! the first byte of an input chooses: even, the rest is read as it is; odd, the last four
//! bytes of the rest are first replaced with the CRC-32 of the bytes before them.
//!
//! Shared by the `saved` fuzz target and `tests/fuzz_regressions.rs`, with `checks/bytes.rs`.

use bitmines_core::saved::read_header;
use bitmines_core::{Error, Game};

use crate::bytes::{Trickle, with_crc};

/// Checks the saved-game reader and writer on `data` (see the module docs for its first
/// byte).
pub(crate) fn check(data: &[u8]) {
    check_bytes(&with_crc(data));
}

/// What a read gave, in a form that compares: the game's bytes written back, or the error.
fn outcome(read: Result<(Game, bitmines_core::saved::Header), Error>) -> Result<Vec<u8>, Error> {
    read.map(|(game, _)| {
        game.to_saved()
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
    game.write_saved(&mut written)
        .unwrap_or_else(|e| panic!("write_saved: {e}"));
    assert_eq!(written, bytes, "write_saved(from_saved(bytes))");
    // The text form of the same game reads back as the same game.
    let text = game.to_string();
    let mut again: Game = text
        .parse()
        .unwrap_or_else(|e| panic!("the text of a saved game does not read back: {e}\n{text}"));
    // The text form records no seed.
    again.set_seed(header.seed);
    assert_eq!(again.to_saved().as_deref(), Ok(bytes), "{text}");
}
