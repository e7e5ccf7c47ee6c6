//! The `serde` property: JSON given to the `Deserialize` impls of `Board`, `Game` and
//! `bitmines_gen::Config` gives a value or an error, never a panic, and a value serializes
//! and deserializes back to an equal one.
//!
//! The first byte of an input chooses how the rest is used: 0 mod 3, as JSON text as it is;
//! 1 mod 3, as the bytes of a binary board or saved game (CRC-32 fixed up, as in the `saved`
//! check), written as a JSON array of numbers, the way JSON carries bytes; 2 mod 3, the same
//! bytes as a JSON object with `rows`, `cols`, `mines`, `seed` and `keep_clear` for a
//! `Config`.
//!
//! Shared by the `serde` fuzz target and `tests/fuzz_regressions.rs`.

use bitmines_core::{Board, Game};
use bitmines_gen::Config;

use crate::bytes::with_crc;

/// Checks the serde impls on `data` (see the module docs for its first byte).
pub(crate) fn check(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => check_json(rest),
        1 => {
            let bytes = with_crc(data);
            let numbers: Vec<String> = bytes.iter().map(u8::to_string).collect();
            check_json(format!("[{}]", numbers.join(",")).as_bytes());
        }
        _ => check_json(config_json(rest).as_bytes()),
    }
}

/// A JSON object with a config's fields, their values taken from `bytes`.
fn config_json(bytes: &[u8]) -> String {
    let mut words = bytes
        .chunks(8)
        .map(|chunk| chunk.iter().fold(0u64, |word, &b| word << 8 | u64::from(b)));
    let mut next = |bits: u32| words.next().unwrap_or(0) >> (64 - bits);
    let (rows, cols, mines, seed) = (next(11), next(11), next(21), next(64));
    let zone = match next(2) {
        0 => String::from(r#"{"rows":{"start":0,"end":0},"cols":{"start":0,"end":0}}"#),
        _ => {
            let (r, c, h, w) = (next(12), next(12), next(3), next(3));
            format!(
                r#"{{"rows":{{"start":{r},"end":{}}},"cols":{{"start":{c},"end":{}}}}}"#,
                r + h,
                c + w
            )
        }
    };
    format!(r#"{{"rows":{rows},"cols":{cols},"mines":{mines},"seed":{seed},"keep_clear":{zone}}}"#)
}

/// Deserializes `json` as each type; every value must round-trip.
fn check_json(json: &[u8]) {
    if let Ok(board) = serde_json::from_slice::<Board>(json) {
        let text = serde_json::to_string(&board).unwrap_or_else(|e| panic!("serialize: {e}"));
        let again: Board = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert!(again == board, "a board changed through JSON: {text}");
    }
    if let Ok(game) = serde_json::from_slice::<Game>(json) {
        assert_eq!(game.validate(), Ok(()));
        let text = serde_json::to_string(&game).unwrap_or_else(|e| panic!("serialize: {e}"));
        let again: Game = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        // Serde keeps the game, not the seed recorded beside it.
        let mut game = game;
        game.set_seed(None);
        assert_eq!(again.to_saved(), game.to_saved(), "{text}");
    }
    if let Ok(config) = serde_json::from_slice::<Config>(json) {
        let text = serde_json::to_string(&config).unwrap_or_else(|e| panic!("serialize: {e}"));
        let again: Config = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(again, config, "{text}");
        // A config from anywhere either generates exactly what it asks or is refused.
        if config.rows.saturating_mul(config.cols) <= 1 << 16
            && let Ok(board) = bitmines_gen::generate(&config)
        {
            assert_eq!(board.mine_count(), config.mines);
            assert!(
                config
                    .keep_clear
                    .cells()
                    .all(|(r, c)| board.is_mine(r, c) != Ok(true))
            );
        }
    }
}
