//! Files given to `bitmines` that are not what they should be: endless devices, FIFOs,
//! folders, huge sparse files, empty and random files, boards where a saved game belongs, and
//! output paths that cannot be written. Each is refused with exit code 2 and one line that
//! names the path, before any work is done; none hangs or eats memory.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How long a refusal may take before the test calls it a hang. Far above what any of these
/// takes; it is there so a regression fails instead of never ending.
const HANG: Duration = Duration::from_secs(20);

/// Runs `bitmines` with `args`, killing it (by its own handle) and failing the test if it has
/// not ended within [`HANG`].
fn bitmines(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bitmines"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bitmines starts");
    let started = Instant::now();
    loop {
        if child.try_wait().expect("the child's status").is_some() {
            return child.wait_with_output().expect("the child's output");
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} was still running after {HANG:?}");
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Exit code 2 and exactly one line on standard error that contains `mentions`.
fn assert_refused(args: &[&str], mentions: &str) {
    let output = bitmines(args);
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.starts_with("bitmines: "), "{args:?}: {err:?}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err:?}");
    assert!(
        err.contains(mentions),
        "{args:?}: {err:?} does not mention {mentions:?}"
    );
}

/// A fresh, empty folder for one test's files.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bitmines-inputs-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("a temp folder");
    dir
}

fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Writes a 5x5 board with 3 mines to `path` in the binary format.
fn board(path: &str) {
    let output = bitmines(&[
        "gen", "--rows", "5", "--cols", "5", "--mines", "3", "--seed", "1", "-o", path,
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Every command that reads a file, with the file last.
const READERS: [&[&str]; 4] = [
    &["show"],
    &["hint"],
    &["play", "--resume"],
    &["stress", "--resume"],
];

/// Devices that never end, a FIFO with no writer and a folder are refused from what they
/// are, before they are opened, by every command that reads a file.
#[cfg(unix)]
#[test]
fn endless_devices_fifos_and_folders_are_refused_at_once() {
    let dir = folder("special");
    let fifo = text(&dir.join("fifo"));
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {fifo}");
    let folder = text(&dir);
    let cases = [
        (
            "/dev/zero",
            "/dev/zero is a character device, not a board or game file",
        ),
        (
            "/dev/urandom",
            "/dev/urandom is a character device, not a board or game file",
        ),
        (
            &fifo,
            &format!("{fifo} is a FIFO, not a board or game file"),
        ),
        (
            &folder,
            &format!("{folder} is a directory, not a board or game file"),
        ),
    ];
    for (path, message) in cases {
        for reader in READERS {
            let args: Vec<&str> = reader.iter().copied().chain([path]).collect();
            assert_refused(&args, message);
        }
        for format in ["bin", "mbf", "txt"] {
            assert_refused(&["show", "--format", format, path], message);
        }
    }
    let _ = fs::remove_dir_all(&dir);
}

/// A 10 GiB sparse file (it takes no disk) is refused from its first bytes or its length,
/// whether it is all zeros or starts with a header of garbage, in every format.
#[test]
fn a_huge_sparse_file_is_refused_from_its_header_or_length() {
    let dir = folder("sparse");
    let zeros = text(&dir.join("zeros.bin"));
    File::create(&zeros)
        .and_then(|file| file.set_len(10 << 30))
        .expect("a sparse file");
    let garbage = text(&dir.join("garbage.bin"));
    fs::write(&garbage, [0xA5; 64]).expect("write");
    File::options()
        .write(true)
        .open(&garbage)
        .and_then(|file| file.set_len(10 << 30))
        .expect("a sparse file");
    for path in [&zeros, &garbage] {
        let no_format = format!("{path} is not a bitmines board or game file");
        for reader in [&["show"][..], &["hint"]] {
            let args: Vec<&str> = reader.iter().copied().chain([path.as_str()]).collect();
            assert_refused(&args, &no_format);
        }
        for reader in [&["play", "--resume"][..], &["stress", "--resume"]] {
            let args: Vec<&str> = reader.iter().copied().chain([path.as_str()]).collect();
            assert_refused(&args, &format!("{path} is not a bitmines saved game"));
        }
        assert_refused(
            &["show", "--format", "mbf", path],
            &format!("{path} is 10.0 GiB, more than a mbf board or game file can be"),
        );
        assert_refused(
            &["show", "--format", "txt", path],
            &format!("{path} is 10.0 GiB, more than a txt board or game file can be"),
        );
        assert_refused(
            &["show", "--format", "bin", path],
            &format!("{path} is not a valid bin file"),
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

/// An empty file says it is empty, random bytes say they match no format (without the MBF
/// parser's count of bytes it wanted), and a board where a saved game belongs says so.
#[test]
fn files_of_the_wrong_kind_say_what_they_are() {
    let dir = folder("kinds");
    let empty = text(&dir.join("empty.dat"));
    fs::write(&empty, b"").expect("write");
    let random = text(&dir.join("random.dat"));
    // Bytes whose first four, read as MBF, promise a board the length does not agree with.
    let bytes: Vec<u8> = (0u32..300).map(|i| (i * 167 + 13) as u8).collect();
    fs::write(&random, &bytes).expect("write");
    for command in ["show", "hint"] {
        assert_refused(
            &[command, &empty],
            &format!("{empty} is empty, not a board or game file"),
        );
        let output = bitmines(&[command, &random]);
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{err}");
        assert_eq!(
            err.trim_end(),
            format!(
                "bitmines: {random} is not a bitmines board or game file (tried binary, MBF, text)"
            )
        );
    }
    let board_file = text(&dir.join("board.bin"));
    board(&board_file);
    for command in ["play", "stress"] {
        assert_refused(
            &[command, "--resume", &empty],
            &format!("{empty} is empty, not a saved game"),
        );
        assert_refused(
            &[command, "--resume", &random],
            &format!("{random} is not a bitmines saved game"),
        );
        assert_refused(
            &[command, "--resume", &board_file],
            &format!(
                "{board_file} is a board file, not a saved game: --resume takes a game saved by play"
            ),
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

/// A text board or game that starts with a UTF-8 byte order mark reads as the same board
/// without it, and a real MBF file is still recognised without `--format`.
#[test]
fn a_byte_order_mark_is_skipped_and_mbf_is_still_recognised() {
    let dir = folder("bom");
    let plain = text(&dir.join("plain.txt"));
    fs::write(&plain, "*..\n...\n..*\n").expect("write");
    let marked = text(&dir.join("marked.txt"));
    fs::write(&marked, "\u{FEFF}*..\n...\n..*\n").expect("write");
    let shown = |path: &str| {
        let output = bitmines(&["show", path]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{path}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let expected = shown(&plain);
    assert!(expected.starts_with("3x3 board, 2 mines"), "{expected}");
    assert_eq!(shown(&marked), expected);
    let game = text(&dir.join("game.txt"));
    fs::write(&game, "\u{FEFF}bitmines game 2x3 playing\n*..\n1..\n").expect("write");
    let output = bitmines(&["hint", &game]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Width 3, height 3, two mines at (x 0, y 0) and (x 2, y 2): the plain board again.
    let mbf = text(&dir.join("board.mbf"));
    fs::write(&mbf, [3, 3, 0, 2, 0, 0, 2, 2]).expect("write");
    assert_eq!(shown(&mbf), expected);
    let _ = fs::remove_dir_all(&dir);
}

/// Every output option checks its path before the work starts: a folder, a device, a
/// missing folder, a folder that is a file, and one where no file can be made are each
/// refused in one line naming the option and the path, with nothing printed on standard
/// output (no report: the run never started), and `play --save` says so before it asks for
/// a terminal.
#[test]
fn unwritable_outputs_are_refused_before_the_work() {
    let dir = folder("outputs");
    let file = dir.join("file.txt");
    fs::write(&file, "a file").expect("write");
    let board_file = text(&dir.join("board.bin"));
    board(&board_file);
    let mut bad: Vec<(String, &str)> = vec![
        (text(&dir), "is a directory; name a file"),
        (text(&dir.join("missing/out")), "cannot use the folder"),
        (text(&file.join("out")), "is not a folder"),
    ];
    if cfg!(unix) {
        bad.push(("/dev/null".into(), "is a character device, not a file"));
    }
    if Path::new("/proc/self").exists() {
        // Not even root can make a file at the top of /proc.
        bad.push(("/proc/out".into(), "cannot create a file in /proc"));
    }
    for (path, problem) in &bad {
        let commands: [(&[&str], &str); 5] = [
            (&["gen", "--rows", "5", "--cols", "5", "-o"], "-o"),
            (&["show", &board_file, "--png"], "--png"),
            (
                &["stress", "--rows", "20", "--cols", "20", "--save"],
                "--save",
            ),
            (
                &["stress", "--rows", "20", "--cols", "20", "--png"],
                "--png",
            ),
            (&["play", "--seed", "1", "--save"], "--save"),
        ];
        for (command, option) in commands {
            let args: Vec<&str> = command.iter().copied().chain([path.as_str()]).collect();
            let output = bitmines(&args);
            let err = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err:?}");
            assert!(
                err.starts_with(&format!("bitmines: {option} {path}")) && err.contains(problem),
                "{args:?}: {err:?} does not name {option} {path} and say {problem:?}"
            );
            assert!(output.stdout.is_empty(), "{args:?} printed a report");
        }
    }
    let names: Vec<_> = fs::read_dir(&dir)
        .expect("list")
        .map(|entry| entry.expect("an entry").file_name())
        .collect();
    assert_eq!(names.len(), 2, "no file was left behind: {names:?}");
    let _ = fs::remove_dir_all(&dir);
}

/// `-` is standard output for `gen -o` and `show --png`, byte for byte what the same command
/// writes to a file; where standard output carries something else or a file is the point
/// (`--save`, `stress --png`), `-` is refused rather than taken for a file name.
#[test]
fn a_dash_writes_to_standard_output_or_is_refused() {
    let dir = folder("dash");
    let run = |args: &[&str]| {
        let output = bitmines(args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    };
    for format in ["bin", "mbf", "txt"] {
        let file = text(&dir.join(format!("board.{format}")));
        let generate = [
            "gen", "--rows", "9", "--cols", "11", "--mines", "20", "--seed", "3",
        ];
        let with = |output: &str| {
            let mut args = generate.to_vec();
            args.extend(["--format", format, "-o", output]);
            run(&args)
        };
        with(&file);
        let streamed = with("-");
        assert_eq!(
            streamed.stdout,
            fs::read(&file).expect("the file"),
            "{format}"
        );
        assert!(
            String::from_utf8_lossy(&streamed.stderr).contains("wrote standard output"),
            "{format}"
        );
    }
    let board_file = text(&dir.join("board.bin"));
    let png = text(&dir.join("board.png"));
    run(&["show", &board_file, "--png", &png]);
    let streamed = run(&["show", &board_file, "--png", "-"]);
    assert_eq!(streamed.stdout, fs::read(&png).expect("the picture"));
    for args in [
        &["play", "--seed", "1", "--save", "-"][..],
        &["stress", "--rows", "20", "--cols", "20", "--save", "-"],
        &["stress", "--rows", "20", "--cols", "20", "--png", "-"],
    ] {
        let option = args[args.len() - 2];
        assert_refused(
            args,
            &format!("{option} -: this option writes a file, not standard output"),
        );
    }
    // A JSON report and the file's bytes cannot share standard output.
    assert_refused(
        &["gen", "--json", "-o", "-"],
        "--json and -o - would both write to standard output",
    );
    assert_refused(
        &["show", &board_file, "--json", "--png", "-"],
        "--json and --png - would both write to standard output",
    );
    assert!(!dir.join("-").exists());
    assert!(
        !Path::new("-").exists(),
        "no file named - in the current folder"
    );
    let _ = fs::remove_dir_all(&dir);
}
