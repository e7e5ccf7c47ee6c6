//! The fuzz targets' properties, replayed on stable over saved inputs.
//!
//! Each target of `fuzz/` checks one property, written once in `fuzz/checks/` and included
//! both there and here. These tests feed each property every file of the target's committed
//! seed corpus (`fuzz/seeds/<target>/`) and of its regression inputs
//! (`tests/fuzz_regressions/<target>/`: inputs that once failed, kept so they never fail
//! again). Structured inputs are decoded by `arbitrary` exactly as `fuzz_target!` decodes
//! them, so a file replays here as it ran under the fuzzer.

use std::path::{Path, PathBuf};

// Each test crate uses only part of the shared harness, the twin and the support module.
#[allow(dead_code)]
mod common;
#[allow(dead_code)]
mod naive;
#[allow(dead_code)]
mod support;

#[path = "../fuzz/checks/binary.rs"]
mod binary;
#[path = "../fuzz/checks/bytes.rs"]
mod bytes;
#[path = "../fuzz/checks/coord.rs"]
mod coord;
#[path = "../fuzz/checks/engines.rs"]
mod engines;
#[path = "../fuzz/checks/generate.rs"]
mod generate;
#[path = "../fuzz/checks/leetcode.rs"]
mod leetcode;
#[path = "../fuzz/checks/mbf.rs"]
mod mbf;
#[path = "../fuzz/checks/protocol.rs"]
mod protocol;
#[path = "../fuzz/checks/saved.rs"]
mod saved;
#[cfg(feature = "serde")]
#[path = "../fuzz/checks/serde.rs"]
mod serde;
#[allow(dead_code)]
#[path = "../fuzz/checks/text.rs"]
mod text;
#[path = "../fuzz/checks/view.rs"]
mod view;

/// Every saved input of `target`, seeds first, each with its path.
fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["fuzz/seeds", "tests/fuzz_regressions"] {
        let dir = root.join(dir).join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|path| path.is_file())
            .collect();
        paths.sort();
        files.extend(paths.into_iter().map(|path| {
            let bytes = std::fs::read(&path).expect("a readable input");
            (path, bytes)
        }));
    }
    files
}

/// Runs `check` on every saved input of `target`, and fails naming each input it panics on.
fn replay(target: &str, check: fn(&[u8])) {
    let inputs = inputs(target);
    assert!(!inputs.is_empty(), "no saved inputs for {target}");
    let failed: Vec<String> = inputs
        .iter()
        .filter(|(_, bytes)| std::panic::catch_unwind(|| check(bytes)).is_err())
        .map(|(path, _)| path.display().to_string())
        .collect();
    assert!(failed.is_empty(), "{target} fails on {failed:#?}");
}

#[test]
fn engines() {
    replay("engines", engines::check_bytes);
}

#[test]
fn text_board() {
    replay("text_board", text::check_board);
}

#[test]
fn text_game() {
    replay("text_game", text::check_game);
}

#[test]
fn view() {
    replay("view", view::check);
}

#[test]
fn leetcode() {
    replay("leetcode", leetcode::check_bytes);
}

#[test]
fn mbf() {
    replay("mbf", mbf::check);
}

#[test]
fn binary() {
    replay("binary", binary::check);
}

#[test]
fn generate() {
    replay("generate", generate::check_bytes);
}

#[test]
fn protocol() {
    replay("protocol", protocol::check);
}

#[test]
fn saved() {
    replay("saved", saved::check);
}

#[cfg(feature = "serde")]
#[test]
fn serde() {
    replay("serde", serde::check);
}

/// The hand-written seeds of `saved` and `serde` are real games and boards, so a reader that
/// refused everything would fail here rather than pass the round-trip checks vacuously.
#[test]
fn saved_seeds_read_as_games() {
    let games: Vec<_> = inputs("saved")
        .into_iter()
        .filter(|(path, _)| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("game"))
        })
        .collect();
    assert!(games.len() >= 5);
    for (path, bytes) in games {
        let read = bitmines_core::Game::from_saved(&bytes::with_crc(&bytes));
        assert!(read.is_ok(), "{}: {read:?}", path.display());
    }
}

#[cfg(feature = "serde")]
#[test]
fn serde_seeds_read_as_games_boards_and_configs() {
    let read = |name: &str| {
        let (_, bytes) = inputs("serde")
            .into_iter()
            .find(|(path, _)| path.ends_with(name))
            .unwrap_or_else(|| panic!("no seed {name}"));
        bytes[1..].to_vec()
    };
    let array = |bytes: Vec<u8>| {
        let numbers: Vec<String> = bytes.iter().map(u8::to_string).collect();
        format!("[{}]", numbers.join(","))
    };
    for name in ["array0", "array1", "array2", "array3", "array4"] {
        let json = array(read(name));
        assert!(
            serde_json::from_str::<bitmines_core::Game>(&json).is_ok(),
            "{name}"
        );
    }
    let board = array(read("board-array"));
    assert!(serde_json::from_str::<bitmines_core::Board>(&board).is_ok());
    assert!(serde_json::from_slice::<bitmines_core::Game>(&read("game-json")).is_ok());
    assert!(serde_json::from_slice::<bitmines_gen::Config>(&read("config")).is_ok());
}
