//! 3BV cost per cell: the engine's plane-wide count and the naive twin's cell-by-cell count
//! side by side on the same boards.
//!
//! Every group times one full 3BV count of a 1000x1000 board built outside the timed window,
//! and reports throughput in board cells, so criterion's report reads as time per cell.

use std::hint::black_box;

use bitmines_core::{Board, SeededPlacer, stats};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

#[path = "../tests/naive/stats.rs"]
#[allow(dead_code, unreachable_pub)]
mod naive_stats;

/// The board side: a million cells, large enough that the count dominates any setup.
const SIDE: usize = 1000;

/// A uniformly random `SIDE x SIDE` board with `density` of its cells mines.
fn random_board(density: f64) -> Board {
    let mines = (SIDE as f64 * SIDE as f64 * density).round() as usize;
    SeededPlacer::new(7)
        .board(SIDE, SIDE, mines)
        .expect("valid board")
}

fn bench(c: &mut Criterion) {
    for density in [0.05, 0.2] {
        let board = random_board(density);
        let bbbv = stats::bbbv(&board).expect("engine bbbv");
        // Never time counts that disagree.
        assert_eq!(
            naive_stats::bbbv(&board).expect("naive bbbv"),
            bbbv,
            "density {density}: the engine and the naive twin disagree"
        );
        let mut group = c.benchmark_group(format!("stats/bbbv/{SIDE}x{SIDE}/density-{density}"));
        group.throughput(Throughput::Elements((SIDE * SIDE) as u64));
        group.sample_size(10);
        group.bench_function(BenchmarkId::new("engine", bbbv), |b| {
            b.iter(|| black_box(stats::bbbv(black_box(&board))));
        });
        group.bench_function(BenchmarkId::new("naive", bbbv), |b| {
            b.iter(|| black_box(naive_stats::bbbv(black_box(&board))));
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
