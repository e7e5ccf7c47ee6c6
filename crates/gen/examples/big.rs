//! Generates one large board and reports the time and memory it took.
//!
//! `cargo run --release -p bitmines-gen --example big -- [SIDE] [DENSITY] [SEED]`
//! (defaults: 31623, about 10^9 cells; density 0.2; seed 1).

use std::time::Instant;

use bitmines_core::Game;
use bitmines_gen::{Config, generate};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let side: usize = args.next().map_or(Ok(31_623), |a| a.parse())?;
    let density: f64 = args.next().map_or(Ok(0.2), |a| a.parse())?;
    let seed: u64 = args.next().map_or(Ok(1), |a| a.parse())?;
    let config = Config::with_density(side, side, density, seed)?;
    let cells = (side * side) as f64;
    let threads = rayon::current_num_threads();
    let start = Instant::now();
    let board = generate(&config)?;
    let seconds = start.elapsed().as_secs_f64();
    let board_bytes = board.heap_bytes();
    println!(
        "{side}x{side} ({cells:.3e} cells), {} mines, {threads} threads: generated in {seconds:.3} s, {:.3} ns per cell",
        board.mine_count(),
        seconds * 1e9 / cells,
    );
    let game = Game::try_new(board)?;
    println!(
        "board {:.3} bytes per cell, board and game {:.3}; peak resident memory {}",
        board_bytes as f64 / cells,
        (board_bytes + game.heap_bytes()) as f64 / cells,
        peak_rss().unwrap_or_else(|| "unknown".into()),
    );
    Ok(())
}

/// The process's peak resident set, where the system reports it (Linux).
fn peak_rss() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(format!("{:.0} MiB", kib / 1024.0))
}
