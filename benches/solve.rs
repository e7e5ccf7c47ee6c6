//! Solver cost: the word-parallel trivial sweep per cell next to its per-cell twin, and the
//! exact probabilities next to ms_toollib's (`cal_probability_onboard`, its port of
//! JSMinesweeper's probability engine) on the same positions.
//!
//! - `trivial/{side}x{side}/density-0.15`: a mid-game view of a large board (the first click
//!   opens, then a walk over a quarter of the cells reveals every safe one it meets, so about
//!   two thirds of the board is open). `sweep` is one pass of the trivial rule on a fresh
//!   solver, which visits every row; `fixed-point` runs the rule until it finds nothing.
//!   Both start from a solver built and cloned outside the timed window. On 1000x1000 the
//!   per-cell twin `naive::trivial` runs too, and `new+fixed-point` times the fast path
//!   from the same input as the twin (the view, planes built inside the window). Throughput
//!   is in board cells, so the report reads as time per cell.
//! - `probabilities/expert/first-stall`: 200 expert positions (16x30, 99 mines, first click
//!   at (3, 3) with an opening, then every proven safe cell revealed until none is proven),
//!   all of them per iteration; throughput in positions, so the report reads as time per
//!   position (the mean; `examples/solve_anchor.rs` gives the median and p99).
//! - `probabilities/hard-10x21`: the 10x21, 75-mine position with one 62-cell frontier
//!   component that ms_toollib keeps as its probability speed test.
//!
//! With `--test` (the CI smoke run: every case once) the large board is 2000x2000 instead
//! of 10000x10000: generating and playing 10^8 cells takes longer than the whole smoke run
//! may.

use std::hint::black_box;
use std::time::Duration;

use bitmines_core::{Cell, FirstClick, Game, Position};
use bitmines_gen::{Config, generate};
use bitmines_solve::{Solver, naive};
use criterion::{
    BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};

#[path = "support/solve_positions.rs"]
mod positions;

/// Mine density of the large boards.
const DENSITY: f64 = 0.15;

/// SplitMix64's output function, for a walk step that is cheap and seeded.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A mid-game on a `side x side` board at [`DENSITY`]: the first click in the centre opens
/// a cascade, then a walk in row order that steps 1 to 7 cells at a time (a quarter of the
/// cells on average) reveals each safe hidden cell it lands on, looking at the truth as the
/// stress player does. Openings it lands on cascade, so most of the board ends up open,
/// with hidden cells and their frontiers everywhere.
fn mid_game(side: usize, seed: u64) -> Game {
    let cells = side * side;
    let mines = (cells as f64 * DENSITY).round() as usize;
    let click = (side / 2, side / 2);
    let zone = FirstClick::Opening
        .zone(side, side, click.0, click.1)
        .expect("on board");
    let board = generate(&Config::new(side, side, mines, seed).keep_clear(zone)).expect("board");
    let mut game = Game::new(board);
    game.reveal(click.0, click.1).expect("safe first click");
    let board = game.board().expect("mines are placed").clone();
    let mut i = 0;
    while i < cells {
        let (r, c) = (i / side, i % side);
        if game.cell(r, c).expect("on board") == Cell::Hidden
            && !board.is_mine(r, c).expect("on board")
        {
            game.reveal(r, c).expect("safe cell");
        }
        i += 1 + (mix(seed ^ i as u64) % 7) as usize;
    }
    game
}

/// The proven cells of the trivial rule's fixed point, from the fast path and the twin.
fn trivial_agrees(game: &Game) {
    let mut solver = Solver::new(game).expect("a playing game");
    solver.trivial().expect("a real game is consistent");
    let certain = solver.into_certain();
    let known = naive::trivial(game).expect("a real game is consistent");
    assert_eq!(certain.safe().collect::<Vec<_>>(), known.safe, "safe cells");
    assert_eq!(certain.mines().collect::<Vec<_>>(), known.mines, "mines");
}

fn trivial(c: &mut Criterion, side: usize, twin: bool) {
    let cells = side * side;
    let game = mid_game(side, 1);
    let solver = Solver::new(&game).expect("a playing game");
    let mut fixed = solver.clone();
    let sweeps = std::iter::repeat_with(|| fixed.sweep().expect("a real game is consistent"))
        .position(|found| found == 0)
        .expect("the fixed point is reached")
        + 1;
    eprintln!(
        "trivial/{side}x{side}: {:.1}% revealed; the solver adds {:.3} bytes per cell \
         ({} bytes); the fixed point takes {sweeps} sweeps and proves {} cells",
        100.0 * game.revealed_count() as f64 / cells as f64,
        solver.heap_bytes() as f64 / cells as f64,
        solver.heap_bytes(),
        fixed.tally().trivial,
    );
    let mut group = c.benchmark_group(format!("trivial/{side}x{side}/density-{DENSITY}"));
    group.throughput(Throughput::Elements(cells as u64));
    if cells >= 1 << 20 {
        group.sample_size(10);
    }
    group.bench_function(BenchmarkId::new("sweep", cells), |b| {
        b.iter_batched_ref(
            || solver.clone(),
            |solver| black_box(solver.sweep()),
            BatchSize::LargeInput,
        );
    });
    group.bench_function(BenchmarkId::new("fixed-point", cells), |b| {
        b.iter_batched_ref(
            || solver.clone(),
            |solver| black_box(solver.trivial()),
            BatchSize::LargeInput,
        );
    });
    if twin {
        // Never time engines that disagree.
        trivial_agrees(&game);
        group.bench_function(BenchmarkId::new("new+fixed-point", cells), |b| {
            b.iter(|| {
                let mut solver = Solver::new(black_box(&game)).expect("a playing game");
                black_box(solver.trivial())
            });
        });
        group.bench_function(BenchmarkId::new("naive", cells), |b| {
            b.iter(|| black_box(naive::trivial(black_box(&game))));
        });
    }
    group.finish();
}

/// Both engines on `positions`, every position once per iteration.
fn probabilities(c: &mut Criterion, name: &str, positions: &[Position], slow: bool) {
    let boards: Vec<(Vec<Vec<i32>>, f64)> = positions
        .iter()
        .map(|p| (positions::toollib_board(p), positions::toollib_mines(p)))
        .collect();
    let mut group = c.benchmark_group(format!("probabilities/{name}"));
    group.throughput(Throughput::Elements(positions.len() as u64));
    if slow {
        // Seconds an iteration: a fixed number of iterations per sample, not a ramp.
        group.sampling_mode(SamplingMode::Flat);
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(10));
    }
    group.bench_function(BenchmarkId::new("bitmines", positions.len()), |b| {
        b.iter(|| {
            for position in positions {
                black_box(bitmines_solve::probabilities(black_box(position)).ok());
            }
        });
    });
    group.bench_function(BenchmarkId::new("ms_toollib", positions.len()), |b| {
        b.iter(|| {
            for (board, mines) in &boards {
                black_box(ms_toollib::cal_probability_onboard(black_box(board), *mines).ok());
            }
        });
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    let smoke = std::env::args().any(|a| a == "--test");
    trivial(c, 1000, true);
    trivial(c, if smoke { 2000 } else { 10_000 }, false);

    let stalls = positions::expert_stalls(positions::STALLS);
    probabilities(c, "expert/first-stall", &stalls, false);

    let hard = positions::hard();
    let odds = bitmines_solve::probabilities(&hard).expect("the hard position is consistent");
    eprintln!(
        "probabilities/hard-10x21: bitmines is exact: {} ({} components past the budget, mode {:?})",
        odds.exact(),
        odds.approximate_components(),
        odds.mode()
    );
    probabilities(c, "hard-10x21", &[hard], true);
}

criterion_group!(benches, bench);
criterion_main!(benches);
