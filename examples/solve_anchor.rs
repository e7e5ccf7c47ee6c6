//! The solver's probabilities against ms_toollib's, position by position: agreement on
//! every cell, and the median and p99 time per position of each engine.
//!
//! `cargo run --release --example solve_anchor` (not run in CI: it takes tens of seconds).
//!
//! The positions are those of `benches/solve.rs`: 200 expert first stalls and the hard
//! 10x21 position. Each engine computes each position's probabilities in batches of calls
//! long enough for the clock (a few milliseconds); a position's time is the median over
//! its batches of the time per call. The criterion bench gives the mean over the set; this
//! gives the spread. On the hard position each engine is timed over single calls, since
//! ms_toollib's time there changes from call to call by two orders of magnitude.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bitmines_core::Position;

#[path = "../benches/support/solve_positions.rs"]
mod positions;

/// Largest difference between the engines' probabilities that counts as agreement.
const TOLERANCE: f64 = 1e-6;

/// Batches timed per position and engine.
const BATCHES: usize = 7;

/// Single calls timed on the hard position.
const HARD_CALLS: usize = 21;

/// Time one batch aims at.
const BATCH: Duration = Duration::from_millis(3);

/// The median time per call of `f`, over [`BATCHES`] batches of calls.
fn time_per_call(mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    f();
    let once = start.elapsed().max(Duration::from_nanos(1));
    let calls = (BATCH.as_nanos() / once.as_nanos()).clamp(1, 10_000) as u32;
    let mut per_call: Vec<Duration> = (0..BATCHES)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..calls {
                f();
            }
            start.elapsed() / calls
        })
        .collect();
    per_call.sort_unstable();
    per_call[BATCHES / 2]
}

/// The value at quantile `q` of sorted `values` (nearest rank).
fn quantile(values: &[Duration], q: f64) -> Duration {
    let rank = (q * values.len() as f64).ceil() as usize;
    values[rank.clamp(1, values.len()) - 1]
}

/// Every cell's mine probability from bitmines, as rows.
fn bitmines_grid(position: &Position) -> Result<Vec<Vec<f64>>, bitmines_solve::Error> {
    let odds = bitmines_solve::probabilities(position)?;
    let view = position.view();
    (0..view.rows())
        .map(|r| (0..view.cols()).map(|c| odds.mine(r, c)).collect())
        .collect()
}

/// How far the engines' probabilities are apart on one position.
struct Comparison {
    /// The cells where they differ by more than [`TOLERANCE`]: the cell, bitmines' value,
    /// ms_toollib's value.
    differ: Vec<((usize, usize), f64, f64)>,
    /// The largest difference on any cell.
    largest: f64,
}

/// Both engines' probabilities of every cell of `position`, compared.
fn compare(position: &Position) -> Result<Comparison, String> {
    let ours = bitmines_grid(position).map_err(|e| format!("bitmines: {e}"))?;
    let board = positions::toollib_board(position);
    let (theirs, _) =
        ms_toollib::cal_probability_onboard(&board, positions::toollib_mines(position))
            .map_err(|code| format!("ms_toollib: error code {code}"))?;
    let mut comparison = Comparison {
        differ: Vec::new(),
        largest: 0.0,
    };
    for (r, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        for (c, (&x, &y)) in a.iter().zip(b).enumerate() {
            comparison.largest = comparison.largest.max((x - y).abs());
            if (x - y).abs() > TOLERANCE {
                comparison.differ.push(((r, c), x, y));
            }
        }
    }
    Ok(comparison)
}

/// The time per call of each engine on `position`.
fn time_both(position: &Position) -> (Duration, Duration) {
    let board = positions::toollib_board(position);
    let mines = positions::toollib_mines(position);
    let ours = time_per_call(|| {
        black_box(bitmines_solve::probabilities(black_box(position)).ok());
    });
    let theirs = time_per_call(|| {
        black_box(ms_toollib::cal_probability_onboard(black_box(&board), mines).ok());
    });
    (ours, theirs)
}

fn main() {
    let stalls = positions::expert_stalls(positions::STALLS);
    let hard = positions::hard();

    let (mut agree, mut largest) = (0, 0.0_f64);
    for (i, position) in stalls.iter().chain([&hard]).enumerate() {
        match compare(position) {
            Ok(comparison) if comparison.differ.is_empty() => {
                agree += 1;
                largest = largest.max(comparison.largest);
            }
            Ok(comparison) => {
                largest = largest.max(comparison.largest);
                let cells = &comparison.differ;
                println!(
                    "position {i}: {} cells differ by more than {TOLERANCE}",
                    cells.len()
                );
                for ((r, c), ours, theirs) in cells.iter().take(5) {
                    println!("  ({r}, {c}): bitmines {ours:.9}, ms_toollib {theirs:.9}");
                }
                println!("{position}");
            }
            Err(e) => println!("position {i}: {e}\n{position}"),
        }
    }
    println!(
        "agreement within {TOLERANCE}: {agree} of {} positions ({} expert first stalls and the \
         hard one); largest difference on any cell {largest:.1e}",
        stalls.len() + 1,
        stalls.len()
    );

    let (mut ours, mut theirs): (Vec<Duration>, Vec<Duration>) =
        stalls.iter().map(time_both).unzip();
    ours.sort_unstable();
    theirs.sort_unstable();
    println!(
        "\nexpert first stalls, {} positions: time per position",
        stalls.len()
    );
    println!("{:>12} {:>12} {:>12}", "", "median", "p99");
    for (name, times) in [("bitmines", &ours), ("ms_toollib", &theirs)] {
        println!(
            "{name:>12} {:>12.1?} {:>12.1?}",
            quantile(times, 0.5),
            quantile(times, 0.99)
        );
    }
    let ratio = |q| quantile(&theirs, q).as_secs_f64() / quantile(&ours, q).as_secs_f64();
    println!(
        "{:>12} {:>11.1}x {:>11.1}x",
        "ratio",
        ratio(0.5),
        ratio(0.99)
    );

    // ms_toollib collects the frontier through a `HashSet` with a random seed, so the order
    // it works in, and its time on this position, change from call to call: single calls,
    // with their spread.
    let odds = bitmines_solve::probabilities(&hard).expect("the hard position is consistent");
    let board = positions::toollib_board(&hard);
    let mines = positions::toollib_mines(&hard);
    let calls = |f: &dyn Fn()| -> Vec<Duration> {
        let mut times: Vec<Duration> = (0..HARD_CALLS)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect();
        times.sort_unstable();
        times
    };
    let ours = calls(&|| {
        black_box(bitmines_solve::probabilities(black_box(&hard)).ok());
    });
    let theirs = calls(&|| {
        black_box(ms_toollib::cal_probability_onboard(black_box(&board), mines).ok());
    });
    println!(
        "\nhard 10x21 position, {HARD_CALLS} single calls (bitmines exact: {})",
        odds.exact()
    );
    println!("{:>12} {:>12} {:>12} {:>12}", "", "min", "median", "max");
    for (name, times) in [("bitmines", &ours), ("ms_toollib", &theirs)] {
        println!(
            "{name:>12} {:>12.1?} {:>12.1?} {:>12.1?}",
            times[0],
            quantile(times, 0.5),
            times[HARD_CALLS - 1]
        );
    }
    println!(
        "{:>12} {:>12} {:>11.1}x",
        "ratio",
        "",
        quantile(&theirs, 0.5).as_secs_f64() / quantile(&ours, 0.5).as_secs_f64()
    );
}
