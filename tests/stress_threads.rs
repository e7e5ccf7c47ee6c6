//! `bitmines stress` plays and counts on every thread, and a seed gives the same run on any
//! thread count, on bands and on square tiles alike: the same saved game, byte for byte, the
//! same calls and the same statistics.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// Runs `bitmines stress` on `threads` threads, saving the final game; returns the report and
/// the saved bytes.
fn run(threads: &str, extra: &[&str]) -> (Value, Vec<u8>) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("stress_threads");
    std::fs::create_dir_all(&dir).unwrap();
    let save = dir.join(format!("game-{threads}-{}.bmg", extra.join("_")));
    let mut args = vec![
        "stress",
        "--json",
        "--rows",
        "700",
        "--cols",
        "300",
        "--seed",
        "2027",
        "--threads",
        threads,
        "--save",
    ];
    let save_text = save.display().to_string();
    args.push(&save_text);
    args.extend_from_slice(extra);
    let output = Command::new(env!("CARGO_BIN_EXE_bitmines"))
        .args(&args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    (report, std::fs::read(&save).unwrap())
}

/// What a run's seed decides: everything but times, memory and the threads' shares.
fn decided(report: &Value) -> Value {
    let play = &report["play"];
    let tiles = &play["tiles"];
    serde_json::json!({
        "end": report["end"],
        "calls": report["calls"],
        "revealed": play["revealed"],
        "visited": play["visited"],
        "touched": play["touched_cells"],
        "tiles": [
            tiles["shape"], tiles["band"], tiles["tile_cols"], tiles["tiles"], tiles["rounds"],
            tiles["handed_over"],
        ],
        "stats": [report["stats"]["openings"], report["stats"]["islands"], report["stats"]["bbbv"]],
        "checks": report["checks"],
    })
}

#[test]
fn one_two_and_seven_threads_give_the_same_run() {
    let squares = ["--tiles", "squares"];
    let squares_sparse = ["--tiles", "squares", "--density", "0.05"];
    for (extra, tiles) in [
        (&[][..], 3),
        (&["--density", "0.05"][..], 3),
        (&squares[..], 6),
        (&squares_sparse[..], 6),
    ] {
        let (one, saved) = run("1", extra);
        assert_eq!(one["end"], "won", "{one}");
        assert_eq!(one["checks"]["validate"], "ok");
        assert_eq!(one["checks"]["revealed_once"], true);
        let tiles_seen = &one["play"]["tiles"];
        assert_eq!(tiles_seen["tiles"].as_u64(), Some(tiles), "{tiles_seen}");
        assert_eq!(tiles_seen["threads"].as_array().map(Vec::len), Some(1));
        for kind in ["reveal", "flag", "unflag", "chord"] {
            assert!(
                one["calls"][kind].as_u64() > Some(0),
                "no {kind}: {}",
                one["calls"]
            );
        }
        for threads in ["2", "7"] {
            let (other, other_saved) = run(threads, extra);
            assert_eq!(decided(&other), decided(&one), "{threads} threads");
            assert!(other_saved == saved, "{threads} threads save another game");
            let shares = other["play"]["tiles"]["threads"].as_array().map(Vec::len);
            assert_eq!(shares, threads.parse().ok(), "{other}");
        }
    }
}
