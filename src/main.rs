//! `bitmines`: a Minesweeper engine's command line: stress runs, board files, a terminal game,
//! and a multiplayer server.
//!
//! Subcommands: `stress`, `gen`, `show`, `demo`, `hint`, `winrate`, `play`, `serve` and
//! `loadtest`, each in a module of its own, and the hidden `help-tree`, the options of every
//! subcommand as JSON, which `tests/vocabulary.rs` reads to keep each option name to one
//! meaning. Every error reaches `main` as an `anyhow::Error` and leaves as one line on
//! standard error with exit code 2 (a value clap's parsers refuse, such as a negative number,
//! is turned into one line too); standard output goes through `system::emit`, which ends
//! quietly on a closed pipe. Long work (`stress`, `winrate`, `gen` and `show --png` on boards
//! of 10^7 cells or more) shows progress through `system::progress_bar`, drawn only when
//! standard error is a terminal.
//!
//! The binary includes the naive twin (`tests/naive`) and the shared moves
//! (`tests/common/moves.rs`) with `#[path]`, so `stress --check` uses the same oracle as the
//! tests.

mod cli;
mod demo;
mod files;
mod generate;
mod hint;
mod loadtest;
/// Moves on the engine and on the naive twin, shared with the tests.
#[path = "../tests/common/moves.rs"]
mod moves;
/// The naive two-grid twin, shared with the tests, for `stress --check`.
#[allow(dead_code, unreachable_pub)]
#[path = "../tests/naive/mod.rs"]
mod naive;
mod picture;
mod play;
mod render;
mod serve;
mod show;
mod stress;
mod system;
mod text;
mod winrate;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use serde_json::{Value, json};

/// A Minesweeper engine on bitset planes: stress runs, board files, a terminal game and a
/// multiplayer server.
#[derive(Parser, Debug)]
#[command(name = "bitmines", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Generates a large board, plays it to the end, checks every invariant and reports
    /// times and memory. With no options: a 10000x10000 board at density 0.15. The seed
    /// also orders the player's moves.
    Stress(stress::Args),
    /// Generates a board and writes it to a file (binary, MBF or text). With no options: an
    /// expert board. The same seed, size, mines and first click give the board `play` and
    /// `stress` play.
    Gen(generate::Args),
    /// Prints a board or game file as text, or writes it as a PNG picture.
    Show(show::Args),
    /// Plays one seeded game with the solver and prints the final board. With no options:
    /// expert. Its board comes from the library's `Game::seeded`, not from gen's generator.
    Demo(demo::Args),
    /// Prints what a player can know about a position: the certain cells with their
    /// reasons, and the mine probability of every hidden cell.
    Hint(hint::Args),
    /// Plays many seeded games with the solver's player and reports the win rate with its
    /// 95% confidence interval. With no options: expert. Game i is seeded from --seed and i
    /// (the library's `SeededPlacer`), so the result is the same on any number of threads.
    Winrate(winrate::Args),
    /// Plays Minesweeper in the terminal, on boards of any size. With no options: expert.
    /// With --connect: in a room of `bitmines serve`, with others.
    Play(play::Args),
    /// Serves multiplayer rooms over WebSocket (loopback by default), keeping every
    /// acknowledged move in a log under --data.
    Serve(serve::Args),
    /// Plays simulated players against a server on this machine and reports moves a second,
    /// latencies and memory.
    Loadtest(loadtest::Args),
    /// Prints every subcommand's options as JSON, for the test that keeps their names to one
    /// meaning each.
    #[command(hide = true)]
    HelpTree,
}

/// The shape of each subcommand's `--json` report, by the name its "schema" field gives.
const SCHEMAS: [(&str, &str); 7] = [
    ("stress", stress::SCHEMA),
    ("gen", generate::SCHEMA),
    ("show", show::SCHEMA),
    ("demo", demo::SCHEMA),
    ("hint", hint::SCHEMA),
    ("winrate", winrate::SCHEMA),
    ("loadtest", loadtest::SCHEMA),
];

/// The command tree, each `--json` help naming its subcommand's own schema.
fn command() -> clap::Command {
    SCHEMAS
        .iter()
        .fold(Cli::command(), |command, &(name, schema)| {
            command.mut_subcommand(name, |sub| {
                sub.mut_arg("json", |arg| {
                    arg.help(format!(
                        "Print the report as one JSON object on standard output, its \"schema\" field \"{schema}\""
                    ))
                })
            })
        })
}

/// Every visible subcommand's options: long name, hidden aliases, whether it takes a number,
/// and the first sentence of its help.
fn help_tree() -> Value {
    use std::any::TypeId;
    let numbers = [
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<u128>(),
        TypeId::of::<usize>(),
        TypeId::of::<f64>(),
    ];
    let subcommands: Vec<Value> = command()
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set())
        .map(|sub| {
            let options: Vec<Value> = sub
                .get_arguments()
                .filter_map(|arg| {
                    let long = arg.get_long()?;
                    let takes_value = arg.get_action().takes_values();
                    let type_id = arg.get_value_parser().type_id();
                    let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
                    let first = help.split(". ").next().unwrap_or("").trim_end_matches('.');
                    Some(json!({
                        "long": long,
                        "aliases": arg.get_all_aliases().unwrap_or_default(),
                        "number": takes_value && numbers.iter().any(|id| type_id == *id),
                        "takes_value": takes_value,
                        "help": first,
                    }))
                })
                .collect();
            let positionals: Vec<String> = sub
                .get_positionals()
                .map(|arg| arg.get_id().to_string())
                .collect();
            json!({"name": sub.get_name(), "options": options, "positionals": positionals})
        })
        .collect();
    json!({ "subcommands": subcommands })
}

fn main() -> ExitCode {
    let cli = match command()
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches))
    {
        Ok(cli) => cli,
        Err(error) => return parse_error(&error),
    };
    let result = match cli.command {
        Command::Stress(args) => stress::run(&args),
        Command::Gen(args) => generate::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Show(args) => show::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Demo(args) => demo::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Hint(args) => hint::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Winrate(args) => winrate::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Play(args) => play::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Serve(args) => serve::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Loadtest(args) => loadtest::run(&args).map(|()| ExitCode::SUCCESS),
        Command::HelpTree => {
            system::emit(format!("{:#}\n", help_tree())).map(|()| ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("bitmines: {}", one_line(&error));
            ExitCode::from(2)
        }
    }
}

/// Reports a command line clap refused. A value our own parsers refused (a negative number,
/// a word where a number goes) is one line naming the option, the value and what is wrong;
/// everything else (help, version, unknown options) is clap's own text.
fn parse_error(error: &clap::Error) -> ExitCode {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = |kind| match error.get(kind) {
        Some(ContextValue::String(text)) => Some(text.clone()),
        _ => None,
    };
    let reason = std::error::Error::source(error).map(ToString::to_string);
    match (
        error.kind(),
        text(ContextKind::InvalidArg),
        text(ContextKind::InvalidValue),
        reason,
    ) {
        (ErrorKind::ValueValidation, Some(arg), Some(value), Some(reason)) => {
            let option = arg.split_whitespace().next().unwrap_or(&arg);
            eprintln!("bitmines: {option} {value}: {reason}");
            ExitCode::from(2)
        }
        _ => {
            let _ = error.print();
            ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
        }
    }
}

/// The error and its causes on one line.
fn one_line(error: &anyhow::Error) -> String {
    format!("{error:#}").replace('\n', " ")
}
