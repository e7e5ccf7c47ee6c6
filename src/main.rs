//! `bitmines`: runs games and large-board stress runs on the bitmines engine.

mod demo;
mod render;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Minesweeper at scale on bitset planes.
#[derive(Parser, Debug)]
#[command(name = "bitmines", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Plays one seeded game with a simple deducing player and prints the final board.
    Demo(demo::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo(args) => demo::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bitmines: {error:#}");
            ExitCode::from(2)
        }
    }
}
