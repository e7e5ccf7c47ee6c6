//! Times no-guess expert boards (30x16, 99 mines, first click (3, 3) with its opening) beside
//! plain generation of the same requests, on one thread, for a comparison with other
//! generators (Tatham's `mines --generate N 30x16n99`, say).
//!
//! `cargo run --release -p bitmines-gen --example expert_no_guess -- [BOARDS] [FIRST SEED]`
//! (defaults: 1000 boards from seed 1000). Prints the mean time a board of each, and the
//! no-guess time net of plain generation.

use std::hint::black_box;
use std::time::Instant;

use bitmines_core::FirstClick;
use bitmines_gen::{Config, NoGuess, generate, no_guess};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let boards: u64 = args.next().map_or(Ok(1000), |a| a.parse())?;
    let first: u64 = args.next().map_or(Ok(1000), |a| a.parse())?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let (no_guess_ms, plain_ms) = pool
        .install(
            || -> Result<(f64, f64), Box<dyn std::error::Error + Send + Sync>> {
                let start = Instant::now();
                for seed in first..first + boards {
                    let request =
                        NoGuess::new(16, 30, 99, seed).first_click(FirstClick::Opening, 3, 3);
                    black_box(no_guess(&request)?);
                }
                let no_guess_ms = start.elapsed().as_secs_f64() * 1e3 / boards as f64;
                let zone = FirstClick::Opening.zone(16, 30, 3, 3)?;
                let start = Instant::now();
                for seed in first..first + boards {
                    let config = Config::new(16, 30, 99, seed).keep_clear(zone.clone());
                    black_box(generate(&config)?);
                }
                let plain_ms = start.elapsed().as_secs_f64() * 1e3 / boards as f64;
                Ok((no_guess_ms, plain_ms))
            },
        )
        .map_err(|e| e.to_string())?;
    println!(
        "expert no-guess, seeds {first} to {}, 1 thread: {no_guess_ms:.4} ms a board; plain {plain_ms:.5} ms; net {:.4} ms ({:.2} boards a ms)",
        first + boards - 1,
        no_guess_ms - plain_ms,
        1.0 / (no_guess_ms - plain_ms),
    );
    Ok(())
}
