//! Generation cost per cell: `bitmines_gen::generate` on one thread and on all threads, and
//! a naive shuffle-and-take twin, side by side on the same sizes and densities.
//!
//! Every group times one whole generation and reports throughput in board cells, so
//! criterion's report reads as time per generated cell. `generate` returns a full `Board`,
//! so its time includes the zero plane; the naive twin builds its `Board` through
//! `Board::from_mines`, which builds the same zero plane, so both pay for the same output.
//! The thread pools are built once, outside the timed loop.
//!
//! The naive twin runs on every 1000x1000 board, and on 10000x10000 at density 0.2 only:
//! there it shuffles a list of 10^8 cell indices (400 MB) per iteration and takes seconds
//! per sample.
//!
//! The `split` groups time one hypergeometric draw of a chunk's mine count, the sequential
//! step before the chunks are filled in parallel: the crate's rejection sampler beside the
//! direct simulation it is checked against, on the first chunk (2^18 cells) of a 10^10-cell
//! board. The throughput is one draw.

use std::hint::black_box;

use bitmines_core::{Board, Zone};
use bitmines_gen::{Config, generate};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand_pcg::Pcg64;
use rayon::{ThreadPool, ThreadPoolBuilder};

/// The naive twin, the one the gen tests check against the generator.
#[path = "../crates/gen/tests/naive/mod.rs"]
mod naive;

/// The hypergeometric draw, the crate's private module taken in whole.
#[allow(dead_code, reason = "only the draws are timed")]
#[path = "../crates/gen/src/split.rs"]
mod split;

/// The naive twin on a whole board (no zone).
fn naive(rows: usize, cols: usize, mines: usize, seed: u64) -> Board {
    naive::naive_board(rows, cols, mines, &Zone::default(), seed)
}

/// A pool of `threads` threads, built once per run.
fn pool(threads: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
}

fn bench(c: &mut Criterion) {
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut pools = vec![(1, pool(1))];
    if all > 1 {
        pools.push((all, pool(all)));
    }
    for side in [1000, 10_000] {
        for density in [0.01, 0.2, 0.5] {
            let cells = side * side;
            let mines = (cells as f64 * density).round() as usize;
            // Never time boards that are wrong.
            for (threads, pool) in &pools {
                let board = pool.install(|| generate(&Config::new(side, side, mines, 0)));
                assert_eq!(
                    board.map(|b| b.mine_count()),
                    Ok(mines),
                    "{threads} threads"
                );
            }
            let mut group = c.benchmark_group(format!("generate/{side}x{side}/density-{density}"));
            group.throughput(Throughput::Elements(cells as u64));
            if cells >= 10_000_000 {
                group.sample_size(10);
            }
            for (threads, pool) in &pools {
                // A new seed every iteration, so the time is an average over boards.
                let mut seed = 0;
                group.bench_function(BenchmarkId::new("threads", threads), |b| {
                    b.iter(|| {
                        seed += 1;
                        let config = Config::new(side, side, mines, seed);
                        black_box(pool.install(|| generate(black_box(&config))))
                    });
                });
            }
            // At 10^8 cells the twin takes seconds an iteration, so it runs at one density.
            if side <= 1000 || density == 0.2 {
                assert_eq!(naive(side, side, mines, 0).mine_count(), mines);
                let mut seed = 0;
                group.bench_function(BenchmarkId::new("naive", 1), |b| {
                    b.iter(|| {
                        seed += 1;
                        black_box(naive(side, side, mines, seed))
                    });
                });
            }
            group.finish();
        }
    }
}

/// One draw of the first chunk's mine count on a 10^10-cell board, by rejection and by
/// simulation, at three densities.
fn bench_split(c: &mut Criterion) {
    let (cells, part) = (10_000_000_000u64, 1u64 << 18);
    for density in [0.01, 0.15, 0.5] {
        let mines = (cells as f64 * density) as u64;
        let mut group = c.benchmark_group(format!("split/1e10-cells/density-{density}"));
        group.throughput(Throughput::Elements(1));
        let mut rng = Pcg64::new(1, 2);
        group.bench_function(BenchmarkId::new("rejection", part), |b| {
            b.iter(|| split::mines_in_part(&mut rng, black_box(cells), mines, part));
        });
        // One random number per cell of the part: about a millisecond a draw.
        group.sample_size(10);
        group.bench_function(BenchmarkId::new("simulation", part), |b| {
            b.iter(|| split::simulate(&mut rng, black_box(cells), mines, part));
        });
        group.finish();
    }
}

criterion_group!(benches, bench, bench_split);
criterion_main!(benches);
