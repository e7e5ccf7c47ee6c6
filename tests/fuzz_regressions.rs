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
#[path = "../fuzz/checks/engines.rs"]
mod engines;
#[path = "../fuzz/checks/generate.rs"]
mod generate;
#[path = "../fuzz/checks/leetcode.rs"]
mod leetcode;
#[path = "../fuzz/checks/mbf.rs"]
mod mbf;
#[allow(dead_code)]
#[path = "../fuzz/checks/text.rs"]
mod text;

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
