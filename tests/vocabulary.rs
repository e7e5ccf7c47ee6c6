//! One vocabulary for the command line: every option name has one meaning in every
//! subcommand, every subcommand that prints a report can print it as JSON, and every numeric
//! option refuses a bad value in one line that names it. The options are read from clap's
//! own command tree, which `bitmines help-tree` prints, so a new option is checked the day it
//! is added.

use std::collections::BTreeMap;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// Runs `bitmines` with `args`.
fn bitmines(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bitmines"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("bitmines runs")
}

/// Each long option name and words its help's first sentence must hold, in every subcommand
/// that takes it: the one meaning of the name. A name missing here fails the test, so a new
/// option is given its meaning (or a name of its own) when it is added.
const MEANINGS: &[(&str, &str)] = &[
    ("preset", "the board: beginner"),
    ("rows", "rows of the board"),
    ("cols", "columns of the board"),
    ("mines", "exactly this many mines"),
    ("density", "mines as a fraction of the cells"),
    ("seed", "seed of"),
    (
        "first-click-rule",
        "what the first click keeps free of mines",
    ),
    ("first-click", "first click"),
    ("threads", "worker threads"),
    ("no-guess", "without a guess"),
    ("ascii", "ascii characters"),
    ("resume", "continue a"),
    ("save", "save the game to file"),
    ("connect", "a room of a `bitmines serve` server"),
    ("spectate", "only watch"),
    ("token", "token"),
    ("listen", "address to listen on"),
    ("data", "folder for the rooms"),
    ("sync", "made durable"),
    ("max-rooms", "the most rooms"),
    ("max-room-cells", "the most cells in one room"),
    ("max-total-cells", "the most cells over all rooms"),
    ("max-chunks", "chunks one connection may watch"),
    ("max-connections", "the most connections"),
    ("rate", "frames a second one connection may send"),
    ("idle", "seconds a silent connection"),
    (
        "upgrade-timeout",
        "seconds a socket has to become a websocket",
    ),
    ("snapshot-every", "moves between a room's snapshots"),
    (
        "room-idle",
        "seconds a room with nobody connected stays in memory",
    ),
    (
        "keep-finished",
        "seconds a finished game with nobody connected is kept",
    ),
    ("archive", "what becomes of a finished game"),
    ("player", "who plays"),
    ("tiles", "the shape of the tiles"),
    ("png", "png"),
    ("png-after", "picture the game after"),
    ("png-size", "longest side of the picture"),
    ("check", "replay every call"),
    ("save-every", "checkpoint"),
    ("method", "no-guess board"),
    ("format", "format"),
    ("output", "the file to write"),
    ("json", "json object on standard output"),
    ("limit", "at most this many cells"),
    ("games", "games to play"),
    ("policy", "how the player guesses"),
    ("clients", "simulated players"),
    ("duration", "seconds of play"),
    ("warmup", "seconds of play before the timed run"),
    ("viewport", "viewport"),
    ("reconnects", "share of the players"),
    ("moves-per-second", "moves a second each player makes"),
    ("rooms", "rooms to spread the players over"),
    ("soak", "games to play through a server of its own"),
    ("concurrency", "rooms played at once"),
    ("time-limit", "seconds the soak may take"),
    ("samples", "samples, one a second"),
];

/// Old spellings kept as hidden aliases, because they were documented: the alias, the
/// subcommands that take it, and the option it stands for there.
const ALIASES: &[(&str, &[&str], &str)] = &[
    (
        "keep-clear",
        &["play", "stress", "gen", "demo", "winrate"],
        "first-click-rule",
    ),
    (
        "rule",
        &["play", "stress", "gen", "demo", "winrate"],
        "first-click-rule",
    ),
    ("rate", &["loadtest"], "moves-per-second"),
];

/// Subcommands that print no report, and why: the rest must take `--json`.
const NO_REPORT: &[(&str, &str)] = &[
    ("play", "a game on the terminal's screen"),
    ("serve", "a server that runs until it is stopped"),
];

/// The arguments a subcommand needs before its options parse, one per positional.
fn positionals(command: &Value) -> Vec<&'static str> {
    command["positionals"]
        .as_array()
        .expect("positionals")
        .iter()
        .map(|name| match name.as_str() {
            Some("url") => "ws://127.0.0.1:1/room/a",
            _ => "no-such-file",
        })
        .collect()
}

/// The tree of subcommands and their options, from the binary's own clap command.
fn tree() -> Vec<Value> {
    let output = bitmines(&["help-tree"]);
    assert_eq!(output.status.code(), Some(0), "help-tree failed");
    let tree: Value = serde_json::from_slice(&output.stdout).expect("help-tree prints JSON");
    let commands = tree["subcommands"].as_array().expect("subcommands").clone();
    assert!(commands.len() >= 9, "{} subcommands", commands.len());
    commands
}

fn options(command: &Value) -> &Vec<Value> {
    command["options"].as_array().expect("options")
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key].as_str().unwrap_or_default()
}

#[test]
fn every_option_name_has_one_meaning() {
    let meanings: BTreeMap<&str, &str> = MEANINGS.iter().copied().collect();
    let mut seen = 0;
    for command in tree() {
        let name = text(&command, "name");
        for option in options(&command) {
            let long = text(option, "long");
            let help = text(option, "help").to_lowercase();
            let meaning = meanings.get(long).unwrap_or_else(|| {
                panic!("{name} --{long} is not in MEANINGS: give it its one meaning there")
            });
            assert!(
                help.contains(meaning),
                "{name} --{long}: {help:?} is not the meaning {meaning:?} of --{long}"
            );
            for alias in option["aliases"].as_array().expect("aliases") {
                let alias = alias.as_str().expect("an alias");
                assert!(
                    ALIASES.iter().any(|&(old, commands, new)| old == alias
                        && new == long
                        && commands.contains(&name)),
                    "{name} --{long} has alias --{alias}, which is not in ALIASES"
                );
            }
            seen += 1;
        }
    }
    assert!(seen > 50, "only {seen} options seen");
}

#[test]
fn every_report_can_be_json() {
    for command in tree() {
        let name = text(&command, "name");
        let has_json = options(&command)
            .iter()
            .any(|option| text(option, "long") == "json");
        let exempt = NO_REPORT.iter().any(|&(quiet, _)| quiet == name);
        assert!(
            has_json != exempt,
            "{name}: --json {}, listed as printing no report: {exempt}",
            if has_json { "taken" } else { "missing" }
        );
        if has_json {
            // The help names the schema the report's "schema" field carries.
            let help = options(&command)
                .iter()
                .find(|option| text(option, "long") == "json")
                .map(|option| text(option, "help"))
                .unwrap_or_default();
            assert!(
                help.contains(&format!("\"bitmines-{name}/")),
                "{name} --json: {help}"
            );
        }
    }
}

/// A negative number and a word, given to each numeric option of each subcommand, are
/// refused in one line on standard error, `bitmines: --OPTION VALUE: what is wrong`, with
/// exit code 2.
#[test]
fn every_numeric_option_refuses_bad_values_in_one_line() {
    let mut checked = 0;
    for command in tree() {
        let name = text(&command, "name");
        let before = positionals(&command);
        for option in options(&command) {
            if option["number"] != true {
                continue;
            }
            let long = format!("--{}", text(option, "long"));
            for bad in ["-1", "abc"] {
                let mut args = vec![name];
                args.extend(&before);
                args.extend([long.as_str(), bad]);
                let output = bitmines(&args);
                let err = String::from_utf8_lossy(&output.stderr);
                assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
                assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
                assert!(
                    err.starts_with(&format!("bitmines: {long} {bad}: ")),
                    "{args:?}: {err}"
                );
                let reason = if bad == "abc" {
                    ["not a whole number", "not a number"].as_slice()
                } else {
                    ["must be"].as_slice()
                };
                assert!(
                    reason.iter().any(|reason| err.contains(reason)),
                    "{args:?}: {err}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 80, "only {checked} values checked");
}

/// `--threads 0` is one per core wherever it is taken, `serve` included.
#[test]
fn zero_threads_is_one_per_core_everywhere() {
    let mut taken = Vec::new();
    for command in tree() {
        let name = text(&command, "name");
        if let Some(option) = options(&command)
            .iter()
            .find(|option| text(option, "long") == "threads")
        {
            let help = text(option, "help");
            assert!(
                help.contains("(0: one per core"),
                "{name} --threads: {help}"
            );
            taken.push(name.to_owned());
        }
    }
    assert_eq!(taken, ["serve", "stress", "gen", "winrate"]);
    let output = bitmines(&[
        "winrate",
        "--preset",
        "beginner",
        "--games",
        "2",
        "--threads",
        "0",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert!(
        report["threads"].as_u64().is_some_and(|n| n >= 1),
        "{report}"
    );
}

/// The first click defaults to the centre in `gen` as in `stress`, `winrate` and `demo`, so
/// one seed gives one board; `--first-click-rule none` keeps nothing clear, which is the
/// board of the seed with no first click at all.
#[test]
fn gen_clears_the_centre_unless_the_rule_is_none() {
    let dir = std::env::temp_dir().join(format!("bitmines-vocabulary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp folder");
    let board = |name: &str, extra: &[&str]| {
        let file = dir.join(name).to_string_lossy().into_owned();
        let mut args = vec!["gen", "--preset", "beginner", "--seed", "3", "-o", &file];
        args.extend(extra);
        let output = bitmines(&args);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        let bytes = std::fs::read(&file).expect("the board");
        bitmines_core::Board::read_binary(&bytes[..])
            .expect("a board")
            .0
    };
    let plain = bitmines_gen::generate(&bitmines_gen::Config::new(9, 9, 10, 3)).expect("a board");
    assert!(board("none.bin", &["--first-click-rule", "none"]) == plain);
    let centre = board("default.bin", &[]);
    assert!(centre == board("given.bin", &["--first-click", "4,4"]));
    for row in 3..6 {
        for col in 3..6 {
            assert!(
                !centre.is_mine(row, col).expect("on the board"),
                "({row}, {col})"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `loadtest` checks its own values before it connects, naming the option at fault, and a
/// server that does not answer is named by its address, not by an internal query.
#[test]
fn loadtest_names_the_value_or_the_address_at_fault() {
    let url = "ws://127.0.0.1:1/room/a";
    for (args, line) in [
        (
            &["--reconnects", "2"][..],
            "bitmines: --reconnects 2: must be 0 to 1",
        ),
        (
            &["--clients", "0"][..],
            "bitmines: --clients 0: must be 1 or more",
        ),
        (
            &["--clients", "3", "--rooms", "4"][..],
            "bitmines: --rooms 4: must be at most --clients (3)",
        ),
        (
            &["--rate", "5000"][..],
            "bitmines: --moves-per-second 5000: must be at most 1000",
        ),
    ] {
        let mut all = vec!["loadtest", url];
        all.extend(args);
        let output = bitmines(&all);
        assert_eq!(output.status.code(), Some(2), "{all:?}");
        assert_eq!(String::from_utf8_lossy(&output.stderr).trim_end(), line);
    }
    let output = bitmines(&["loadtest", url, "--duration", "1"]);
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("bitmines: cannot connect to 127.0.0.1:1 ("),
        "{err}"
    );
    assert!(!err.contains("spectate") && !err.contains("?&"), "{err}");
}

/// A board with no safe cell is won before any click: `demo` and `winrate` say so and exit
/// 0, as `stress` does.
#[test]
fn a_board_of_mines_only_is_a_win_everywhere() {
    let board = [
        "--preset",
        "beginner",
        "--mines",
        "81",
        "--first-click-rule",
        "none",
        "--seed",
        "1",
    ];
    for (command, extra) in [
        ("stress", &["--json"][..]),
        ("demo", &["--json"][..]),
        ("winrate", &["--games", "3", "--json"][..]),
    ] {
        let mut args = vec![command];
        args.extend(board);
        args.extend(extra);
        let output = bitmines(&args);
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {err}");
        let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        let won = match command {
            "stress" => report["end"] == "won",
            "demo" => report["status"] == "won",
            _ => report["wins"] == 3,
        };
        assert!(won, "{command}: {report}");
    }
}

/// Messages spell the first-click rule as the command line does, in lower case, and every
/// "too large" reads the same way: the board, what it needs, what there is.
#[test]
fn limits_read_the_same_in_every_subcommand() {
    let output = bitmines(&["demo", "--preset", "beginner", "--mines", "81"]);
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim_end(),
        "bitmines: 81 mines do not fit on a 9x9 board: at most 72 with first-click rule opening"
    );
    let huge = ["--rows", "3000000", "--cols", "3000000"];
    for command in ["stress", "winrate", "play", "demo", "gen"] {
        let mut args = vec![command];
        args.extend(huge);
        // gen needs a file to write, and demo prints no board with --json, so its limit
        // is memory as in the others.
        match command {
            "gen" => args.extend(["-o", "x.bin"]),
            "demo" => args.push("--json"),
            _ => {}
        }
        let output = bitmines(&args);
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("bitmines: a 3000000x3000000 ")
                && err.contains(" needs about ")
                && err.trim_end().ends_with(" is available"),
            "{args:?}: {err}"
        );
    }
}

/// Every limit of `serve` is refused at 0 before the server starts: a server that can hold no
/// room, no cell, no chunk or no connection, or that closes every connection at once, could
/// not be used.
#[test]
fn serve_refuses_every_limit_at_zero() {
    let serve = tree()
        .into_iter()
        .find(|command| text(command, "name") == "serve")
        .expect("serve is a subcommand");
    let mut checked = 0;
    for option in options(&serve) {
        let long = text(option, "long");
        if option["number"] != true || long == "threads" {
            continue;
        }
        let flag = format!("--{long}");
        // A data folder that cannot be made: were the value taken, the server would stop at
        // its start with another line rather than run.
        let output = bitmines(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--data",
            "/proc/bitmines-none",
            &flag,
            "0",
        ]);
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag} 0: {err}");
        assert_eq!(err.lines().count(), 1, "{flag} 0: {err}");
        assert!(
            err.starts_with(&format!("bitmines: {flag} 0: must be")),
            "{flag} 0: {err}"
        );
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} limits checked");
}
