//! The `bitmines` command line, run as a user runs it: exit codes, reports, files, errors.
//!
//! Reports as text and JSON, pictures, files, every error path and its exit code, Ctrl-C's
//! partial report, and one vocabulary: the same help for the shared options in every
//! subcommand, and the old option names still taken.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

/// Runs `bitmines` with `args`.
fn bitmines(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bitmines"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("bitmines runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A fresh, empty folder for one test's files.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bitmines-cli-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("a temp folder");
    dir
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_string_lossy().into_owned()
}

/// Exit code 2 and one line on standard error that names the problem, and no panic.
fn assert_fails(args: &[&str], mentions: &str) {
    let output = bitmines(args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    assert!(!err.contains("RUST_BACKTRACE"), "{args:?}: {err}");
    assert!(
        err.to_lowercase().contains(&mentions.to_lowercase()),
        "{args:?}: {err:?} does not mention {mentions:?}"
    );
    if !err.starts_with("error:") {
        // Our own errors (not clap's usage errors) are exactly one line.
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err:?}");
        assert!(err.starts_with("bitmines: "), "{args:?}: {err:?}");
    }
}

/// The JSON report of a stress run that must pass.
fn stress_json(args: &[&str]) -> Value {
    let mut all = vec!["stress", "--json"];
    all.extend_from_slice(args);
    let output = bitmines(&all);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{all:?}: {}",
        stderr(&output)
    );
    serde_json::from_str(&stdout(&output)).expect("one JSON object")
}

fn u(value: &Value) -> u64 {
    value
        .as_u64()
        .unwrap_or_else(|| panic!("{value} is not a whole number"))
}

#[test]
fn stress_wins_and_passes_every_check() {
    let output = bitmines(&[
        "stress",
        "--rows",
        "120",
        "--cols",
        "130",
        "--density",
        "0.15",
        "--seed",
        "5",
        "--check",
    ]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}{}", stderr(&output));
    assert!(text.starts_with("bitmines stress: won\n"), "{text}");
    assert!(text.contains("validate: ok"), "{text}");
    assert!(
        text.contains("scalar fill: agrees; naive twin: agrees"),
        "{text}"
    );
    assert!(text.contains("3BV"), "{text}");
    // Not a terminal: no progress bar on standard error.
    assert_eq!(stderr(&output), "");
}

#[test]
fn stress_json_has_every_field_and_every_call_kind() {
    let report = stress_json(&[
        "--rows", "100", "--cols", "150", "--mines", "2500", "--seed", "11", "--check",
    ]);
    assert_eq!(report["schema"], "bitmines-stress/2");
    assert_eq!(report["end"], "won");
    let board = &report["board"];
    assert_eq!((u(&board["rows"]), u(&board["cols"])), (100, 150));
    assert_eq!((u(&board["cells"]), u(&board["mines"])), (15_000, 2500));
    assert_eq!(u(&board["seed"]), 11);
    assert_eq!(board["first_click"], serde_json::json!([50, 75]));
    assert_eq!(board["first_click_rule"], "opening");
    assert_eq!(report["player"], "truth");
    assert!(u(&report["threads"]) >= 1);
    let calls = &report["calls"];
    for kind in ["reveal", "flag", "unflag", "chord"] {
        assert!(u(&calls[kind]) > 0, "no {kind} call: {calls}");
    }
    let play = &report["play"];
    let safe = 15_000 - 2500;
    assert_eq!(u(&play["safe_cells"]), safe);
    assert_eq!(u(&play["revealed"]), safe);
    assert_eq!(u(&calls["opened"]), safe);
    assert_eq!(
        u(&play["touched_cells"]),
        safe + u(&calls["flag"]) + u(&calls["unflag"])
    );
    assert!(
        play["ns_per_touched_cell"]
            .as_f64()
            .is_some_and(|ns| ns > 0.0)
    );
    assert!(report["generation"]["seconds"].as_f64().is_some());
    let stats = &report["stats"];
    assert!(u(&stats["bbbv"]) >= u(&stats["openings"]) + u(&stats["islands"]));
    assert!(u(&report["memory"]["engine_bytes"]) > 0);
    let checks = &report["checks"];
    assert_eq!(checks["validate"], "ok");
    assert_eq!(checks["status"], "won");
    assert_eq!(checks["revealed_once"], true);
    assert_eq!(checks["scalar"], "agrees");
    assert_eq!(checks["naive"], "agrees");
    assert_eq!(report["png"], Value::Null);
}

#[test]
fn stress_is_deterministic_across_thread_counts() {
    let run = |threads: &str| {
        let report = stress_json(&[
            "--rows",
            "90",
            "--cols",
            "200",
            "--seed",
            "77",
            "--threads",
            threads,
        ]);
        (report["calls"].clone(), report["stats"]["bbbv"].clone())
    };
    assert_eq!(run("1"), run("3"));
}

/// The solver player wins a random board, guessing only at stalls with the assistant's
/// help, and reports what each tier proved; on a no-guess board it needs no guess.
#[test]
fn the_solver_player_wins_and_needs_no_guess_on_a_no_guess_board() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--rows",
            "150",
            "--cols",
            "170",
            "--density",
            "0.2",
            "--seed",
            "4",
            "--player",
            "solver",
        ];
        args.extend_from_slice(extra);
        stress_json(&args)
    };
    let report = run(&[]);
    assert_eq!(report["end"], "won");
    assert_eq!(report["player"], "solver");
    assert_eq!(report["board"]["no_guess"], false);
    assert_eq!(report["checks"]["no_guess"], "skipped");
    let solver = &report["solver"];
    let guesses = u(&solver["guesses"]);
    assert!(
        guesses > 0,
        "a random board at density 0.2 needs guesses: {solver}"
    );
    assert_eq!(guesses, u(&solver["assisted"]) + u(&solver["lucky"]));
    assert!(u(&solver["stalls"]) > 0 && u(&solver["moves"]) > 0);
    // The exact tier's state at its largest stall is reported with the frontier it weighed.
    assert!(u(&solver["exact_bytes"]) > 0 && u(&solver["exact_cells"]) > 0);
    assert!(u(&solver["proven"]["trivial"]) > 0);
    let safe = u(&report["play"]["safe_cells"]);
    assert_eq!(u(&report["play"]["revealed"]), safe);
    // Cells opened by proven moves and by lucky guesses' openings make up every safe cell.
    assert!(u(&solver["deduced"]) + u(&solver["lucky"]) <= safe);
    assert!(u(&solver["deduced"]) > safe / 2);
    // The same seed on other thread counts plays the same game.
    let again = run(&["--threads", "1"]);
    assert_eq!(again["solver"]["guesses"], solver["guesses"]);
    assert_eq!(again["calls"], report["calls"]);

    let certified = run(&["--no-guess"]);
    assert_eq!(certified["end"], "won");
    assert_eq!(certified["board"]["no_guess"], true);
    assert_eq!(u(&certified["solver"]["guesses"]), 0);
    assert_eq!(certified["checks"]["no_guess"], "no guess needed");
    let text = stdout(&bitmines(&[
        "stress",
        "--rows",
        "40",
        "--cols",
        "50",
        "--density",
        "0.2",
        "--player",
        "solver",
        "--no-guess",
    ]));
    assert!(text.contains("no-guess board: no guess needed"), "{text}");
    assert!(text.contains("0 guesses"), "{text}");
    // Moving by planes, the solver player has no twin engines to replay.
    assert_fails(
        &[
            "stress", "--rows", "20", "--cols", "20", "--player", "solver", "--check",
        ],
        "run it without --check",
    );
}

#[test]
fn the_blind_player_loses_and_the_checks_still_pass() {
    let report = stress_json(&[
        "--rows",
        "64",
        "--cols",
        "64",
        "--density",
        "0.3",
        "--player",
        "blind",
        "--check",
    ]);
    assert_eq!(report["end"], "lost");
    assert_eq!(report["checks"]["validate"], "ok");
    assert_eq!(report["checks"]["naive"], "agrees");
    assert_eq!(u(&report["calls"]["flag"]), 0);
}

#[test]
fn stress_accepts_every_first_click_policy() {
    for (keep, click) in [("opening", "0,0"), ("safe", "5,7"), ("none", "9,9")] {
        let report = stress_json(&[
            "--rows",
            "10",
            "--cols",
            "10",
            "--mines",
            "30",
            "--first-click",
            click,
            "--keep-clear",
            keep,
            "--check",
        ]);
        assert_eq!(report["board"]["first_click_rule"], keep);
        assert_eq!(report["checks"]["naive"], "agrees");
    }
}

/// Reads a PNG and returns its width, height and pixels.
fn decode(path: &str) -> (u32, u32, Vec<u8>) {
    let file = fs::File::open(path).expect("the picture exists");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a PNG header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("a frame");
    (info.width, info.height, pixels)
}

#[test]
fn stress_writes_pictures_scaled_to_fit() {
    let dir = folder("png");
    let end = path(&dir, "end.png");
    let report = stress_json(&[
        "--rows",
        "300",
        "--cols",
        "500",
        "--png",
        &end,
        "--png-size",
        "100",
    ]);
    assert_eq!(report["png"], end.as_str());
    let (width, height, pixels) = decode(&end);
    // The board's 100x60 pixels, with the legend in a strip below.
    assert_eq!(width, 100);
    assert!(height > 60, "no legend below the board");
    assert!(pixels.iter().any(|&p| p != pixels[0]), "a flat picture");
    // Early in the game most of the board is still hidden grey.
    let early = path(&dir, "early.png");
    stress_json(&[
        "--rows",
        "30",
        "--cols",
        "40",
        "--png",
        &early,
        "--png-after",
        "3",
    ]);
    let (width, height, pixels) = decode(&early);
    assert_eq!(width, 40 * 16, "16 pixels a cell at most");
    assert!(height > 30 * 16, "no legend below the board");
    let grey = pixels.chunks(3).filter(|p| p == &[160, 160, 160]).count();
    assert!(grey * 2 > pixels.len() / 3, "only {grey} grey pixels");
    assert_eq!(
        fs::read_dir(&dir).expect("list").count(),
        2,
        "no temp files left"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn gen_writes_every_format_and_show_reads_it_back() {
    let dir = folder("gen");
    let mut texts = Vec::new();
    for format in ["bin", "mbf", "txt"] {
        let file = path(&dir, &format!("board.{format}"));
        let output = bitmines(&[
            "gen",
            "--rows",
            "20",
            "--cols",
            "30",
            "--mines",
            "99",
            "--seed",
            "4",
            "--first-click",
            "10,15",
            "--format",
            format,
            "-o",
            &file,
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let shown = bitmines(&["show", &file]);
        assert_eq!(shown.status.code(), Some(0), "{}", stderr(&shown));
        let text = stdout(&shown);
        let mut lines = text.lines();
        let summary = lines.next().expect("a summary line");
        assert!(summary.starts_with("20x30 board, 99 mines"), "{summary}");
        let grid: Vec<&str> = lines.collect();
        assert_eq!(grid.len(), 20);
        assert!(grid.iter().all(|line| line.len() == 30));
        assert_eq!(text.matches('*').count(), 99);
        // The opening around the first click is clear.
        for row in &grid[9..=11] {
            assert!(!row[14..=16].contains('*'), "{row}");
        }
        texts.push(grid.join("\n"));
    }
    assert!(texts.windows(2).all(|w| w[0] == w[1]), "formats disagree");
    let png = path(&dir, "board.png");
    let output = bitmines(&["show", &path(&dir, "board.bin"), "--png", &png]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(decode(&png).0, 30 * 16);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn gen_gives_the_same_bytes_on_any_thread_count() {
    let dir = folder("threads");
    let files: Vec<Vec<u8>> = ["1", "2", "4"]
        .iter()
        .map(|threads| {
            let file = path(&dir, &format!("t{threads}.bin"));
            let output = bitmines(&[
                "gen",
                "--rows",
                "700",
                "--cols",
                "900",
                "--density",
                "0.2",
                "--seed",
                "8",
                "--threads",
                threads,
                "-o",
                &file,
            ]);
            assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
            fs::read(&file).expect("the board file")
        })
        .collect();
    assert!(files.windows(2).all(|w| w[0] == w[1]));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn show_prints_a_saved_game() {
    let dir = folder("game");
    let file = path(&dir, "game.txt");
    fs::write(&file, "bitmines game 2x3 playing\n*1.\n11.\n").expect("write");
    let output = bitmines(&["show", &file]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "bitmines game 2x3 playing\n*1.\n11.\n");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_fail_with_one_line_and_exit_code_2() {
    let small = ["stress", "--rows", "10", "--cols", "10"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        small.iter().chain(extra).copied().collect()
    };
    assert_fails(&with(&["--density", "1.5"]), "density 1.5");
    assert_fails(&with(&["--density", "NaN"]), "density");
    assert_fails(&with(&["--mines", "100"]), "100 mines");
    assert_fails(&with(&["--first-click", "10,0"]), "(10, 0)");
    assert_fails(&with(&["--first-click", "3"]), "ROW,COL");
    assert_fails(
        &with(&["--mines", "5", "--density", "0.1"]),
        "cannot be used with",
    );
    assert_fails(&with(&["--png-size", "0", "--png", "x.png"]), "png-size");
    assert_fails(&with(&["--player", "psychic"]), "psychic");
    assert_fails(&with(&["--threads", "many"]), "many");
    assert_fails(&["stress", "--rows", "0"], "0x10000");
    assert_fails(&["stress", "--rows", "18446744073709551615"], "too large");
    assert_fails(
        &["stress", "--rows", "3000000", "--cols", "3000000"],
        "memory",
    );
    assert_fails(&["frobnicate"], "frobnicate");
}

#[test]
fn bad_files_fail_with_one_line_and_exit_code_2() {
    let dir = folder("bad");
    assert_fails(&["show", &path(&dir, "missing.bin")], "missing.bin");
    let board = path(&dir, "board.bin");
    let output = bitmines(&[
        "gen", "--rows", "40", "--cols", "70", "--mines", "300", "--seed", "2", "-o", &board,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let bytes = fs::read(&board).expect("the board");
    let broken = path(&dir, "broken.bin");
    fs::write(&broken, &bytes[..bytes.len() - 9]).expect("write");
    assert_fails(&["show", &broken], "broken.bin");
    let mut flipped = bytes.clone();
    flipped[100] ^= 4;
    fs::write(&broken, &flipped).expect("write");
    assert_fails(&["show", &broken], "broken.bin");
    fs::write(&broken, "..*\n..\n").expect("write");
    assert_fails(&["show", &broken], "broken.bin");
    fs::write(&broken, [0xFF, 0x00, 0x12]).expect("write");
    assert_fails(&["show", &broken], "broken.bin");
    // Writing over a folder fails and leaves no temp file behind.
    let inside = dir.join("folder");
    fs::create_dir(&inside).expect("mkdir");
    assert_fails(
        &[
            "gen",
            "--rows",
            "5",
            "--cols",
            "5",
            "--mines",
            "3",
            "--seed",
            "1",
            "-o",
            &inside.to_string_lossy(),
        ],
        "folder",
    );
    let big = path(&dir, "big.bin");
    let output = bitmines(&[
        "gen", "--rows", "2000", "--cols", "1000", "--mines", "3", "--seed", "1", "-o", &big,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_fails(&["show", &big], "--png");
    let names: Vec<_> = fs::read_dir(&dir)
        .expect("list")
        .map(|entry| entry.expect("an entry").file_name())
        .collect();
    assert_eq!(names.len(), 4, "{names:?}");
    let _ = fs::remove_dir_all(&dir);
}

/// Runs `bitmines` with `args`, sends it SIGINT (as Ctrl-C does) after a second, and waits.
#[cfg(unix)]
fn interrupted(args: &[&str]) -> Output {
    let started = std::time::Instant::now();
    interrupted_when(args, || started.elapsed() >= Duration::from_millis(1000))
}

/// Runs bitmines and interrupts it once `ready` says so, or after ten seconds.
#[cfg(unix)]
fn interrupted_when(args: &[&str], ready: impl Fn() -> bool) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_bitmines"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bitmines starts");
    let started = std::time::Instant::now();
    while !ready() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    // The shell's own `kill`: a fresh machine may have no `kill` program (Debian's is in
    // procps), but it always has `sh`.
    let kill = Command::new("sh")
        .args(["-c", "kill -INT \"$0\""])
        .arg(child.id().to_string())
        .status()
        .expect("sh runs");
    assert!(kill.success());
    child.wait_with_output().expect("bitmines ends")
}

#[cfg(unix)]
#[test]
fn ctrl_c_prints_the_partial_report() {
    // On a busy machine a second may pass before the handler is installed, and the signal
    // then ends the process the default way (no exit code): wait longer and try again.
    let args = ["stress", "--json", "--rows", "8000", "--cols", "8000"];
    let mut output = interrupted(&args);
    for wait in [2_000, 4_000] {
        if output.status.code().is_some() {
            break;
        }
        let started = std::time::Instant::now();
        output = interrupted_when(&args, || started.elapsed() >= Duration::from_millis(wait));
    }
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).expect("a JSON report");
    assert_eq!(report["end"], "interrupted");
    assert_eq!(report["checks"]["validate"], "ok");
    assert_eq!(report["checks"]["revealed_once"], true);
    assert_eq!(report["stats"], Value::Null);
    assert!(u(&report["play"]["revealed"]) < u(&report["play"]["safe_cells"]));
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bitmines"))
        .args(["stress", "--rows", "200", "--cols", "200"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bitmines starts");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("bitmines ends");
    let err = stderr(&output);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(output.status.code(), Some(0), "{err}");
}

#[cfg(unix)]
#[test]
fn an_interrupted_run_saves_and_resumes_to_a_win() {
    let dir = folder("resume");
    let save = path(&dir, "game.bmg");
    // Checkpoints keep the run long; the first one shows it is playing: interrupt then.
    let output = interrupted_when(
        &[
            "stress",
            "--json",
            "--rows",
            "3000",
            "--cols",
            "3000",
            "--save",
            &save,
            "--save-every",
            "20000",
            "--seed",
            "2026",
        ],
        || fs::metadata(&save).is_ok(),
    );
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    let first: Value = serde_json::from_str(&stdout(&output)).expect("a JSON report");
    assert_eq!(first["end"], "interrupted");
    assert_eq!(first["saved"], save.as_str());
    let (game, header) = bitmines_core::Game::from_saved(&fs::read(&save).expect("saved"))
        .expect("a valid saved game");
    assert_eq!(game.revealed_count() as u64, u(&first["play"]["revealed"]));
    assert_eq!(header.seed, Some(2026));

    let second = stress_json(&["--resume", &save, "--save", &save]);
    assert_eq!(second["end"], "won");
    assert_eq!(second["resumed_from"], save.as_str());
    assert_eq!(second["board"]["first_click"], Value::Null);
    assert_eq!(second["checks"]["revealed_once"], true);
    assert_eq!(
        u(&second["calls"]["opened"]),
        u(&second["play"]["safe_cells"]) - u(&first["play"]["revealed"])
    );
    let (game, _) = bitmines_core::Game::from_saved(&fs::read(&save).expect("saved"))
        .expect("a valid saved game");
    assert_eq!(game.status(), bitmines_core::Status::Won);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_small_resumed_game_is_checked_against_the_scalar_fill() {
    let dir = folder("resume-check");
    let save = path(&dir, "game.bmg");
    // The blind player loses, and a lost game resumes as lost at once.
    let lost = stress_json(&[
        "--rows", "50", "--cols", "60", "--player", "blind", "--save", &save,
    ]);
    assert_eq!(lost["end"], "lost");
    let again = stress_json(&["--resume", &save, "--check"]);
    assert_eq!(again["end"], "lost");
    assert_eq!(u(&again["calls"]["reveal"]), 0);
    assert_eq!(again["checks"]["scalar"], "agrees");
    assert_eq!(
        again["checks"]["naive"], "skipped",
        "the naive twin starts from a board"
    );
    let shown = bitmines(&["show", &save]);
    assert_eq!(shown.status.code(), Some(0), "{}", stderr(&shown));
    assert!(stdout(&shown).starts_with("bitmines game 50x60 lost\n"));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn resume_refuses_bad_files_and_board_options() {
    let dir = folder("resume-bad");
    let save = path(&dir, "game.bmg");
    stress_json(&["--rows", "20", "--cols", "30", "--save", &save]);
    assert_fails(
        &["stress", "--resume", &save, "--rows", "5"],
        "cannot be used with",
    );
    assert_fails(
        &["stress", "--resume", &save, "--seed", "5"],
        "cannot be used with",
    );
    assert_fails(&["stress", "--save-every", "10"], "--save");
    assert_fails(&["stress", "--save", &save, "--save-every", "0"], "0");
    assert_fails(
        &["stress", "--resume", &path(&dir, "missing.bmg")],
        "missing.bmg",
    );
    let mut bytes = fs::read(&save).expect("saved");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let broken = path(&dir, "broken.bmg");
    fs::write(&broken, &bytes).expect("write");
    assert_fails(&["stress", "--resume", &broken], "CRC-32 mismatch");
    let board = path(&dir, "board.bin");
    let output = bitmines(&[
        "gen", "--rows", "5", "--cols", "5", "--mines", "3", "--seed", "1", "-o", &board,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_fails(
        &["stress", "--resume", &board],
        "is a board file, not a saved game",
    );
    let _ = fs::remove_dir_all(&dir);
}

/// A run killed outright (no chance to clean up) while it saves checkpoints leaves the save
/// file either as it was before or as one whole checkpoint, never a part of one.
#[cfg(unix)]
#[test]
fn killing_a_run_mid_save_leaves_the_previous_file_whole() {
    let dir = folder("kill");
    let save = path(&dir, "game.bmg");
    stress_json(&[
        "--rows", "300", "--cols", "300", "--seed", "4", "--save", &save,
    ]);
    let mut previous = fs::read(&save).expect("the first save");
    for delay in [400, 900, 1400] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_bitmines"))
            .args([
                "stress",
                "--rows",
                "4000",
                "--cols",
                "4000",
                "--save",
                &save,
                "--save-every",
                "500",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("bitmines starts");
        std::thread::sleep(Duration::from_millis(delay));
        child.kill().expect("killed");
        child.wait().expect("reaped");
        let now = fs::read(&save).expect("the save file is still there");
        let (game, header) =
            bitmines_core::Game::from_saved(&now).expect("a whole, valid saved game");
        assert_eq!(game.validate(), Ok(()));
        assert!(
            now == previous || (header.rows, header.cols) == (4000, 4000),
            "after {delay} ms the file is neither the previous save nor a checkpoint"
        );
        previous = now;
    }
    // The next save removes what the killed writers left behind.
    stress_json(&["--rows", "30", "--cols", "30", "--save", &save]);
    let names: Vec<_> = fs::read_dir(&dir)
        .expect("list")
        .map(|entry| entry.expect("an entry").file_name())
        .collect();
    assert_eq!(names, ["game.bmg"], "stale temporary files remain");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn hint_explains_a_typed_position() {
    let dir = folder("hint");
    let view = path(&dir, "view.txt");
    // Mines at (0, 2), (1, 4), (3, 4); the flag at (0, 3) is wrong.
    fs::write(
        &view,
        "bitmines view 4x5 mines 3\n01#F#\n0112#\n0002#\n0001#\n",
    )
    .unwrap();
    let output = bitmines(&["hint", &view]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("certain: 3 safe, 3 mines"), "{text}");
    assert!(text.contains("(0, 3) is flagged but proven safe"), "{text}");

    let output = bitmines(&["hint", &view, "--json"]);
    let report: Value = serde_json::from_str(&stdout(&output)).expect("one JSON object");
    assert_eq!(report["schema"], "bitmines-hint/1");
    let cells = |key: &str| -> Vec<(u64, u64)> {
        report[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (u(&p["row"]), u(&p["col"])))
            .collect()
    };
    assert_eq!(cells("safe"), [(0, 3), (0, 4), (2, 4)]);
    assert_eq!(cells("proven_mines"), [(0, 2), (1, 4), (3, 4)]);
    assert_eq!(report["wrong_flags"], serde_json::json!([[0, 3]]));
    assert_eq!(report["exact"], true);
    assert!(
        report["safe"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("(1, 2)")
    );

    // A 50/50: probabilities of the frontier, and nothing certain.
    fs::write(&view, "bitmines view 2x2 mines 1\n##\n11\n").unwrap();
    let report: Value =
        serde_json::from_str(&stdout(&bitmines(&["hint", &view, "--json"]))).unwrap();
    assert_eq!(u(&report["safe_count"]), 0, "{report}");
    let odds: Vec<f64> = report["frontier"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["mine"].as_f64().unwrap())
        .collect();
    assert_eq!(odds, [0.5, 0.5]);
    // ... and one no number can ever settle: named as unavoidable.
    assert_eq!(report["fifty_fifty"], serde_json::json!([[0, 0], [0, 1]]));
    assert!(stdout(&bitmines(&["hint", &view])).contains("unavoidable 50/50: (0, 0) and (0, 1)"));
    // 50/50s that hidden cells beside them may one day settle: not named.
    fs::write(&view, "bitmines view 1x8 mines 3\n#1####1#\n").unwrap();
    let report: Value =
        serde_json::from_str(&stdout(&bitmines(&["hint", &view, "--json"]))).unwrap();
    assert_eq!(u(&report["safe_count"]), 0, "{report}");
    assert_eq!(report["fifty_fifty"], Value::Null, "{report}");
}

#[test]
fn hint_reads_games_and_boards_and_names_bad_input() {
    let dir = folder("hint-errors");
    let game = path(&dir, "game.txt");
    fs::write(&game, "bitmines game 2x3 playing\n*..\n1..\n").unwrap();
    let output = bitmines(&["hint", &game]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let view = path(&dir, "view.txt");
    fs::write(&view, "bitmines view 2x2 mines 1\n#9\n##\n").unwrap();
    assert_fails(&["hint", &view], "line 2, column 2");
    fs::write(&view, "bitmines view 1x3 mines 1\n#3#\n").unwrap();
    assert_fails(&["hint", &view], "the 3 at (0, 1) cannot be met");
    fs::write(&view, "bitmines view 1x3 mines 0\n1##\n").unwrap();
    assert_fails(&["hint", &view], "no layout puts exactly 0 mines");
    assert_fails(&["hint", &path(&dir, "missing.txt")], "cannot read");
}

#[test]
fn demo_plays_with_the_solver() {
    let output = bitmines(&["demo", "--seed", "4"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("proven reveals"), "{text}");
}

/// `play` takes over a terminal; everything it checks before that fails as the other
/// subcommands fail, and without a terminal it says so instead of drawing into a pipe.
#[test]
fn play_refuses_bad_options_and_a_missing_terminal() {
    let dir = folder("play");
    assert_fails(
        &["play", "--no-guess", "--first-click-rule", "none"],
        "needs a first click that keeps its cell clear",
    );
    assert_fails(&["play", "--no-guess", "--seed", "1"], "needs a terminal");
    assert_fails(&["play", "--seed", "1"], "needs a terminal");
    assert_fails(
        &["play", "--preset", "beginner", "--first-click-rule", "none"],
        "needs a terminal",
    );
    assert_fails(&["play", "--rows", "0"], "at least one row");
    assert_fails(&["play", "--density", "1.5"], "density 1.5");
    assert_fails(
        &["play", "--rows", "3", "--cols", "3", "--mines", "9"],
        "9 mines do not fit on a 3x3 board",
    );
    assert_fails(
        &["play", "--rows", "100000000", "--cols", "100000000"],
        "memory",
    );
    assert_fails(&["play", "--preset", "huge"], "huge");
    assert_fails(
        &["play", "--mines", "3", "--density", "0.1"],
        "cannot be used with",
    );
    let missing = path(&dir, "missing.bmg");
    assert_fails(&["play", "--resume", &missing], "missing.bmg");
    assert_fails(
        &["play", "--resume", &missing, "--seed", "2"],
        "cannot be used with",
    );
    let board = path(&dir, "board.bin");
    let output = bitmines(&[
        "gen", "--rows", "5", "--cols", "5", "--mines", "3", "--seed", "1", "-o", &board,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_fails(
        &["play", "--resume", &board],
        "is a board file, not a saved game",
    );
    // A game saved by `stress` resumes as far as the terminal check.
    let save = path(&dir, "game.bmg");
    stress_json(&["--rows", "20", "--cols", "30", "--save", &save]);
    assert_fails(&["play", "--resume", &save], "needs a terminal");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn winrate_reports_games_wins_and_an_interval() {
    let run = |threads: &str| {
        let output = bitmines(&[
            "winrate",
            "--preset",
            "beginner",
            "--games",
            "60",
            "--seed",
            "5",
            "--threads",
            threads,
            "--json",
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let report: Value = serde_json::from_str(&stdout(&output)).expect("one JSON object");
        report
    };
    let one = run("1");
    assert_eq!(one["schema"], "bitmines-winrate/2");
    assert_eq!(u(&one["games"]), 60);
    let wins = u(&one["wins"]);
    assert!(wins <= 60);
    let (lo, hi) = (
        one["interval"][0].as_f64().unwrap(),
        one["interval"][1].as_f64().unwrap(),
    );
    let rate = wins as f64 / 60.0;
    assert!(lo <= rate && rate <= hi && 0.0 <= lo && hi <= 1.0, "{one}");
    // The same games on any number of threads.
    assert_eq!(u(&run("2")["wins"]), wins);

    let text = stdout(&bitmines(&[
        "winrate",
        "--rows",
        "5",
        "--cols",
        "7",
        "--mines",
        "6",
        "--games",
        "10",
        "--rule",
        "safe",
        "--first-click",
        "0,0",
    ]));
    assert!(text.contains("in 10 games"), "{text}");
}

#[test]
fn winrate_names_bad_arguments() {
    assert_fails(&["winrate", "--games", "0"], "--games");
    assert_fails(&["winrate", "--first-click", "16,0"], "--first-click 16,0");
    assert_fails(
        &["winrate", "--rows", "3", "--cols", "3", "--mines", "9"],
        "9 mines",
    );
}

#[test]
fn gen_no_guess_writes_a_certified_board_that_show_describes() {
    let dir = folder("no_guess");
    for (method, threads) in [("reject", "1"), ("repair", "2"), ("auto", "3")] {
        let file = path(&dir, &format!("{method}.bin"));
        let output = bitmines(&[
            "gen",
            "--rows",
            "16",
            "--cols",
            "30",
            "--mines",
            "99",
            "--seed",
            "5",
            "--first-click",
            "3,3",
            "--no-guess",
            "--method",
            method,
            "--threads",
            threads,
            "-o",
            &file,
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("no guess needed from a first click at (3, 3)"),
            "{}",
            stderr(&output)
        );
        let (board, header) =
            bitmines_core::Board::read_binary(std::fs::File::open(&file).unwrap()).unwrap();
        let record = header.no_guess.expect("a certificate");
        assert_eq!(
            (record.row, record.col, record.rule),
            (3, 3, bitmines_core::FirstClick::Opening)
        );
        assert_eq!(record.solver, bitmines_gen::SOLVER_VERSION);
        assert_eq!(board.mine_count(), 99);
        // The solver's player clears it from (3, 3) with no guess.
        let mut game = bitmines_core::Game::new(board);
        game.reveal(3, 3).unwrap();
        let outcome = bitmines_solve::Player::new(bitmines_solve::Policy::Safest)
            .play(&mut game)
            .unwrap();
        assert!(
            outcome.won && outcome.guesses.is_empty(),
            "{method}: {outcome:?}"
        );
        let shown = bitmines(&["show", &file]);
        assert!(
            stdout(&shown).contains("no guess needed from a first click at (3, 3) (opening rule)"),
            "{}",
            stdout(&shown)
        );
    }
    // A plain board says nothing of the kind.
    let plain = path(&dir, "plain.bin");
    let output = bitmines(&[
        "gen", "--rows", "9", "--cols", "9", "--mines", "10", "--seed", "1", "-o", &plain,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!stdout(&bitmines(&["show", &plain])).contains("no guess"));
    // A no-guess board too large for the memory is refused before anything is allocated.
    assert_fails(
        &[
            "gen",
            "--rows",
            "2000000",
            "--cols",
            "2000000",
            "--density",
            "0.15",
            "--seed",
            "1",
            "--no-guess",
            "-o",
            &plain,
        ],
        "2000000x2000000 no-guess board needs about",
    );
    // A first click that may hit a mine cannot start a no-guess board; a hopeless request
    // says how many boards it drew.
    assert_fails(
        &[
            "gen",
            "--rows",
            "9",
            "--cols",
            "9",
            "--mines",
            "10",
            "--seed",
            "1",
            "--first-click",
            "4,4",
            "--keep-clear",
            "none",
            "--no-guess",
            "-o",
            &plain,
        ],
        "needs a first click that keeps its cell clear",
    );
    assert_fails(
        &[
            "gen",
            "--rows",
            "16",
            "--cols",
            "30",
            "--mines",
            "300",
            "--seed",
            "1",
            "--first-click",
            "3,3",
            "--no-guess",
            "--method",
            "reject",
            "-o",
            &plain,
        ],
        "none of 10000 random 16x30 boards with 300 mines",
    );
}

/// The help of one option in `COMMAND --help`, as words: its line and the lines under it, up
/// to the next option.
fn option_help(command: &str, option: &str) -> String {
    let help = stdout(&bitmines(&[command, "--help"]));
    let mut lines = help.lines().skip_while(|line| {
        let line = line.trim();
        line != option && !line.starts_with(&format!("{option} "))
    });
    let Some(first) = lines.next() else {
        panic!("`{command} --help` has no {option}:\n{help}");
    };
    // Options start at most six spaces in; their possible values, further in, belong to them.
    let option_line = |line: &&str| {
        let text = line.trim_start();
        text.starts_with('-') && line.len() - text.len() <= 6
    };
    let rest = lines.take_while(|line| !option_line(line));
    // Words only: clap puts the help beside the option or under it depending on the rest
    // of the command's options.
    std::iter::once(first)
        .chain(rest)
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ")
}

/// One idea, one name: every subcommand that makes a board names its size, seed and
/// first-click rule with the same options and the same help, and so for threads and JSON.
#[test]
fn every_subcommand_shows_the_same_options_in_its_help() {
    let makers = ["gen", "stress", "winrate", "play", "demo"];
    for (commands, options) in [
        (
            &makers[..],
            &[
                "--preset",
                "--rows",
                "--cols",
                "--mines",
                "--density",
                "--seed",
                "--first-click-rule",
            ][..],
        ),
        (&["gen", "stress", "winrate"][..], &["--threads"][..]),
    ] {
        for option in options {
            let first = option_help(commands[0], option);
            for command in &commands[1..] {
                assert_eq!(option_help(command, option), first, "{command} {option}");
            }
        }
    }
    // Every --json help is the same but for the schema it names, its subcommand's own.
    let reporters = [
        "stress", "gen", "show", "demo", "hint", "winrate", "loadtest",
    ];
    let generic = |command: &str| {
        let help = option_help(command, "--json");
        let schema = help
            .split('"')
            .find(|part| part.starts_with("bitmines-"))
            .unwrap_or_else(|| panic!("{command}: {help} names no schema"))
            .to_owned();
        assert!(
            schema.starts_with(&format!("bitmines-{command}/")),
            "{help}"
        );
        help.replace(&schema, "SCHEMA")
    };
    for command in reporters {
        assert_eq!(generic(command), generic("stress"), "{command}");
    }
    // The old names are hidden aliases.
    for command in makers {
        let help = stdout(&bitmines(&[command, "--help"]));
        assert!(!help.contains("--keep-clear"), "{command}: {help}");
        assert!(!help.contains("--rule "), "{command}: {help}");
    }
}

/// `--keep-clear` (gen, stress) and `--rule` (winrate) still work, as aliases of
/// `--first-click-rule`, and give what it gives.
#[test]
fn old_option_names_still_work() {
    let dir = folder("aliases");
    let board = |name: &str, option: &str| {
        let file = path(&dir, name);
        let output = bitmines(&[
            "gen",
            "--rows",
            "6",
            "--cols",
            "7",
            "--mines",
            "20",
            "--seed",
            "3",
            "--first-click",
            "2,2",
            option,
            "safe",
            "-o",
            &file,
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        fs::read(file).expect("the board")
    };
    assert_eq!(
        board("old.bin", "--keep-clear"),
        board("new.bin", "--first-click-rule")
    );
    let winrate = |option: &str| {
        let output = bitmines(&[
            "winrate", "--preset", "beginner", "--games", "20", "--seed", "4", option, "safe",
            "--json",
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let report: Value = serde_json::from_str(&stdout(&output)).expect("one JSON object");
        (report["first_click_rule"].clone(), report["wins"].clone())
    };
    assert_eq!(winrate("--rule"), winrate("--first-click-rule"));
    assert_eq!(winrate("--rule").0, "safe");
    let stress = |option: &str| {
        stress_json(&[
            "--rows", "12", "--cols", "12", "--mines", "20", "--seed", "2", option, "none",
        ])["calls"]
            .clone()
    };
    assert_eq!(stress("--keep-clear"), stress("--first-click-rule"));
    let _ = fs::remove_dir_all(&dir);
}

/// A preset with `--mines` alone keeps the preset's size, in every subcommand.
#[test]
fn a_preset_with_mines_alone_keeps_its_size() {
    let report = stress_json(&["--preset", "beginner", "--mines", "12", "--seed", "1"]);
    let board = &report["board"];
    assert_eq!(
        (u(&board["rows"]), u(&board["cols"]), u(&board["mines"])),
        (9, 9, 12)
    );
    let output = bitmines(&[
        "winrate",
        "--preset",
        "intermediate",
        "--mines",
        "30",
        "--games",
        "5",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).expect("one JSON object");
    assert_eq!(
        (u(&report["rows"]), u(&report["cols"]), u(&report["mines"])),
        (16, 16, 30)
    );
    let dir = folder("preset");
    let file = path(&dir, "board.txt");
    let output = bitmines(&[
        "gen", "--preset", "expert", "--mines", "50", "--format", "txt", "-o", &file,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = fs::read_to_string(&file).expect("the board");
    assert_eq!(text.lines().count(), 16);
    assert!(
        text.lines().all(|line| line.chars().count() == 30),
        "{text}"
    );
    assert_eq!(text.matches('*').count(), 50);
    let _ = fs::remove_dir_all(&dir);
}

/// Without `--seed` every subcommand draws one from the clock and prints it, and that seed
/// given back makes the same run.
#[test]
fn a_run_without_a_seed_prints_the_one_it_drew() {
    let dir = folder("seed");
    let first = path(&dir, "first.bin");
    let output = bitmines(&["gen", "--preset", "beginner", "-o", &first]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let seed = err
        .split("seed ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .unwrap_or_else(|| panic!("no seed in {err:?}"))
        .to_string();
    let again = path(&dir, "again.bin");
    let output = bitmines(&["gen", "--preset", "beginner", "--seed", &seed, "-o", &again]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(fs::read(&first).unwrap(), fs::read(&again).unwrap());

    let report = stress_json(&["--rows", "20", "--cols", "20"]);
    let seed = u(&report["board"]["seed"]).to_string();
    let again = stress_json(&["--rows", "20", "--cols", "20", "--seed", &seed]);
    assert_eq!(report["calls"], again["calls"]);

    let output = bitmines(&["winrate", "--preset", "beginner", "--games", "5", "--json"]);
    let report: Value = serde_json::from_str(&stdout(&output)).expect("one JSON object");
    assert!(report["seed"].is_u64(), "{report}");

    let text = stdout(&bitmines(&["demo", "--preset", "beginner"]));
    assert!(text.contains("(seed "), "{text}");
    let _ = fs::remove_dir_all(&dir);
}

/// Every `--json` report names its schema as `bitmines-COMMAND/1`.
#[test]
fn every_json_report_names_its_schema() {
    let dir = folder("schema");
    let view = path(&dir, "view.txt");
    fs::write(&view, "bitmines view 2x3 mines 1\n01#\n01#\n").unwrap();
    let hint: Value =
        serde_json::from_str(&stdout(&bitmines(&["hint", &view, "--json"]))).expect("JSON");
    let winrate: Value = serde_json::from_str(&stdout(&bitmines(&[
        "winrate", "--preset", "beginner", "--games", "3", "--json",
    ])))
    .expect("JSON");
    let stress = stress_json(&["--rows", "10", "--cols", "10"]);
    for (schema, report) in [
        ("bitmines-hint/1", hint),
        ("bitmines-winrate/2", winrate),
        ("bitmines-stress/2", stress),
    ] {
        assert_eq!(report["schema"], schema);
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Thousands of threads take seconds to start and buy nothing: every subcommand that takes
/// `--threads` refuses more than eight a core at once, with one line saying so.
#[test]
fn too_many_threads_are_refused_at_once_everywhere() {
    let dir = folder("threads");
    let file = path(&dir, "board.bin");
    for args in [
        &["winrate", "--games", "10", "--threads", "100000"][..],
        &[
            "stress",
            "--rows",
            "10",
            "--cols",
            "10",
            "--threads",
            "100000",
        ][..],
        &["gen", "--threads", "100000", "-o", &file][..],
    ] {
        let started = std::time::Instant::now();
        assert_fails(args, "--threads 100000: must be at most");
        assert!(started.elapsed() < Duration::from_secs(5), "{args:?}");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// A negative number is one line naming the option, the value and the least it may be, in
/// every subcommand, instead of clap's "unexpected argument" with its usage.
#[test]
fn negative_numbers_name_the_option_and_the_bound() {
    for args in [
        &["gen", "--rows", "-5", "-o", "x"][..],
        &["gen", "--mines", "-1", "-o", "x"][..],
        &["stress", "--cols", "-3"][..],
        &["stress", "--seed", "-2"][..],
        &["stress", "--png-size", "-2", "--png", "x.png"][..],
        &["winrate", "--games", "-10"][..],
        &["winrate", "--threads", "-1"][..],
        &["play", "--rows", "-5"][..],
        &["demo", "--mines", "-4"][..],
        &["hint", "x", "--limit", "-1"][..],
        &["serve", "--max-rooms", "-1"][..],
        &["loadtest", "ws://127.0.0.1:1/room/a", "--clients", "-1"][..],
    ] {
        assert_fails(args, ": must be ");
        let option = args
            .iter()
            .find(|a| a.starts_with("--") && *a != &"--png")
            .unwrap();
        let err = stderr(&bitmines(args));
        assert!(err.starts_with(&format!("bitmines: {option} -")), "{err}");
    }
}

/// A file that matches no format says so with its name and the formats tried, and a folder
/// is named as a folder, in every subcommand that reads a file.
#[test]
fn files_that_match_no_format_and_folders_are_named() {
    let dir = folder("no-format");
    let empty = path(&dir, "empty.dat");
    fs::write(&empty, b"").expect("write");
    let random = path(&dir, "random.dat");
    fs::write(&random, [0xFF, 0x00, 0x12, 0x99, 0x07, 0xC3, 0x01]).expect("write");
    for command in ["show", "hint"] {
        assert_fails(
            &[command, &empty],
            &format!("{empty} is empty, not a board or game file"),
        );
        assert_fails(
            &[command, &random],
            &format!("{random} is not a bitmines board or game file (tried binary, MBF, text)"),
        );
    }
    let folder_name = dir.to_string_lossy().into_owned();
    for command in ["show", "hint"] {
        assert_fails(
            &[command, &folder_name],
            &format!("{folder_name} is a directory, not a board or game file"),
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Reports read as English: singular counts, plain numbers of layouts, no names from the
/// code, and thousands separators in big numbers.
#[test]
fn reports_read_as_english() {
    let dir = folder("english");
    // winrate: the rule and policy as the options name them, and "1 game".
    let text = stdout(&bitmines(&[
        "winrate",
        "--preset",
        "beginner",
        "--games",
        "1",
        "--seed",
        "3",
        "--first-click-rule",
        "safe",
        "--policy",
        "lookahead",
    ]));
    assert!(
        text.contains("safe first-click rule, lookahead policy"),
        "{text}"
    );
    assert!(text.contains("in 1 game:"), "{text}");
    for internal in ["Safe", "Lookahead", "keeping clear", " 1 games"] {
        assert!(!text.contains(internal), "{internal:?} in {text}");
    }
    // demo and gen on one mine.
    let text = stdout(&bitmines(&[
        "demo", "--rows", "3", "--cols", "4", "--mines", "1", "--seed", "1",
    ]));
    assert!(text.contains("with 1 mine (seed 1)"), "{text}");
    let board = path(&dir, "one.txt");
    let output = bitmines(&[
        "gen", "--rows", "3", "--cols", "4", "--mines", "1", "--seed", "1", "--format", "txt",
        "-o", &board,
    ]);
    let err = stderr(&output);
    assert!(err.contains("3x4, 1 mine,"), "{err}");
    let text = stdout(&bitmines(&["show", &board]));
    assert!(
        text.contains("1 mine;") || text.contains("1 mine,"),
        "{text}"
    );
    assert!(!text.contains("1 mines"), "{text}");
    // hint: one mine, one cell revealed, and a small count of layouts as a number.
    let view = path(&dir, "view.txt");
    fs::write(&view, "bitmines view 1x3 mines 1\n#1#\n").unwrap();
    let text = stdout(&bitmines(&["hint", &view]));
    assert!(
        text.contains("1x3 board, 1 mine, 1 cell revealed"),
        "{text}"
    );
    assert!(text.contains("2 layouts"), "{text}");
    assert!(!text.contains("10^"), "{text}");
    // stress: thousands separators.
    let text = stdout(&bitmines(&[
        "stress", "--rows", "1000", "--cols", "1000", "--mines", "150000", "--seed", "1",
    ]));
    assert!(
        text.contains("1000 x 1000 = 1,000,000 cells, 150,000 mines"),
        "{text}"
    );
    assert!(
        text.contains("850,000 of 850,000 safe cells revealed"),
        "{text}"
    );
    let _ = fs::remove_dir_all(&dir);
}

/// One seed, one board: `gen --seed S --first-click R,C` writes the board a deferred game
/// with bitmines-gen's `Generator::new(S)` makes on a first click at (R, C), which is also
/// what `play --seed S` plays. Core's `Game::seeded` draws the same seed with another placer
/// and gives another board, as both docs say.
#[test]
fn one_seed_gives_one_board_on_the_command_line_and_in_the_library() {
    use bitmines_core::{FirstClick, Game};
    let dir = folder("one-seed");
    let file = path(&dir, "board.txt");
    let output = bitmines(&[
        "gen",
        "--preset",
        "beginner",
        "--seed",
        "42",
        "--first-click",
        "4,4",
        "--format",
        "txt",
        "-o",
        &file,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let written = fs::read_to_string(&file).expect("the board");
    let mut game = Game::deferred(
        9,
        9,
        10,
        FirstClick::Opening,
        bitmines_gen::Generator::new(42),
    )
    .unwrap();
    game.reveal(4, 4).unwrap();
    assert_eq!(game.board().unwrap().to_string(), written);
    let mut core = Game::seeded(9, 9, 10, 42).unwrap();
    core.reveal(4, 4).unwrap();
    assert_ne!(core.board().unwrap().to_string(), written);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn show_prints_a_rooms_snapshot_view_by_view() {
    use std::sync::Arc;
    use std::time::Instant;

    use bitmines_server::log::{Record, RoomDir};
    use bitmines_server::metrics::Metrics;
    use bitmines_server::params::RoomParams;
    use bitmines_server::protocol::{Action, MineRule, Mode};
    use bitmines_server::room::fresh_room;

    // A race of two players, as a server's room plays it: each joins, one flags a cell of
    // its own view, the other reveals one. The snapshot is the one the server writes.
    let params = RoomParams {
        rows: 9,
        cols: 12,
        mines: 15,
        mode: Mode::Race,
        rule: MineRule::Classic,
        no_guess: false,
        first: Some((4, 6)),
        countdown: false,
    };
    let now = Instant::now();
    let mut room = fresh_room(&params, 5, 64, Arc::new(Metrics::default()), now).unwrap();
    let joined = |player: u32, name: &str| Record::Join {
        player,
        token: [player as u8 + 1; 16],
        name: name.into(),
    };
    let moved = |player, action, row, col| Record::Move {
        player,
        action,
        row,
        col,
        at_ms: 0,
    };
    let records = [
        joined(0, "ada"),
        joined(1, "bob"),
        moved(0, Action::Flag, 0, 0),
        moved(1, Action::Reveal, 8, 11),
    ];
    for record in &records {
        room.apply_record(record, now).unwrap();
    }
    let state = room.snapshot_state(records.len() as u64, None);
    let dir = folder("snapshot");
    let room_dir = RoomDir::new(&dir, "race");
    fs::create_dir_all(room_dir.path()).unwrap();
    room_dir.write_snapshot(&state, None).unwrap();
    let file = path(room_dir.path(), &format!("snapshot-{:020}", records.len()));

    let output = bitmines(&["show", &file]);
    let text = stdout(&output);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        text.starts_with(
            "room snapshot after 4 records: 9x12 board, 15 mines; 2 players, 2 views\n\
             player 1 \"ada\": view 0, opened 0 cells, 0 mines hit\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("\nview 0 (player 1 \"ada\"): playing, "),
        "{text}"
    );
    assert!(text.contains("\nview 1 (player 2 \"bob\"): "), "{text}");
    // Each view is printed as `show` prints a saved game, and no token is shown.
    assert_eq!(state.games.len(), 2);
    for game in &state.games {
        assert!(text.contains(&game.to_string()), "{text}");
    }
    assert_eq!(state.games[0].flag_count(), 1);
    assert!(!text.contains("0101010101"), "{text}");

    let output = bitmines(&["show", "--json", &file]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["kind"], "snapshot");
    assert_eq!(
        (&report["records"], &report["players"], &report["views"]),
        (&Value::from(4), &Value::from(2), &Value::from(2))
    );
    assert_eq!((u(&report["rows"]), u(&report["mines"])), (9, 15));

    // A damaged snapshot is named for what it is, and why it does not read.
    let mut bytes = fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    let damaged = path(&dir, "damaged");
    fs::write(&damaged, &bytes).unwrap();
    assert_fails(
        &["show", &damaged],
        "is not a valid room snapshot: its CRC does not match",
    );
    let cut = path(&dir, "cut");
    fs::write(&cut, &bytes[..40]).unwrap();
    assert_fails(&["show", &cut], "is not a valid room snapshot");
    assert_fails(&["show", "--png", "out.png", &file], "has no picture");
    fs::remove_dir_all(&dir).unwrap();
}

/// A newcomer's first look: `--help` says what bitmines is (the game and the server, not
/// only stress runs), the README says it in a sentence before any command and then gives
/// the main job's command and the test command, and what `serve` and `play` leave in a
/// clone is ignored by git.
#[test]
fn a_newcomer_is_told_what_bitmines_is_and_the_clone_stays_clean() {
    let help = stdout(&bitmines(&["--help"]));
    let first = help.lines().next().unwrap_or_default().to_lowercase();
    for word in ["minesweeper", "stress", "terminal game", "server"] {
        assert!(first.contains(word), "{word} in {first:?}");
    }

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let body: Vec<&str> = readme
        .lines()
        .skip_while(|l| l.starts_with('#') || l.trim().is_empty())
        .collect();
    assert!(
        body[0].starts_with("bitmines is "),
        "the README opens with {:?}",
        body[0]
    );
    let fence = body.iter().position(|l| l.starts_with("```")).unwrap();
    let sentence = body[..fence].join(" ");
    assert!(sentence.contains('.'), "{sentence:?}");
    let commands: Vec<&str> = body[fence + 1..]
        .iter()
        .take_while(|l| !l.starts_with("```"))
        .copied()
        .collect();
    assert!(
        commands[0].starts_with("cargo run --release -- stress "),
        "{commands:?}"
    );
    assert!(
        commands
            .iter()
            .any(|l| l.starts_with("cargo test --workspace --all-features")),
        "{commands:?}"
    );

    let ignored = std::fs::read_to_string(root.join(".gitignore")).unwrap();
    let ignored: Vec<&str> = ignored.lines().map(str::trim).collect();
    for pattern in ["/bitmines-data/", "/bitmines-*.bmg"] {
        assert!(ignored.contains(&pattern), "{pattern} in .gitignore");
    }
}
