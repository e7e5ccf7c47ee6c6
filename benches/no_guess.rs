//! No-guess generation beside plain generation of the same board, per board and per cell
//! (criterion's throughput is the board's cells). Each iteration makes the board of the
//! next of 64 seeds, so the figure is a mean over boards. One thread: the generators' own
//! cost, not their parallel speed-up.

use std::hint::black_box;

use bitmines_core::FirstClick;
use bitmines_gen::{Config, Method, NoGuess, generate, no_guess};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// A board to make: name, rows, cols, mines, first click, method.
type Case = (&'static str, usize, usize, usize, (usize, usize), Method);

const CASES: &[Case] = &[
    ("expert 30x16/99", 16, 30, 99, (3, 3), Method::Auto),
    ("30x16/170", 16, 30, 170, (3, 3), Method::Repair),
    ("30x16/240", 16, 30, 240, (3, 3), Method::Repair),
    ("200x200/8000", 200, 200, 8000, (100, 100), Method::Repair),
    (
        "1000x1000/0.15",
        1000,
        1000,
        150_000,
        (500, 500),
        Method::Repair,
    ),
];

fn bench(c: &mut Criterion) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("one thread starts");
    let mut group = c.benchmark_group("no_guess");
    for &(name, rows, cols, mines, (r, cl), method) in CASES {
        group.throughput(Throughput::Elements((rows * cols) as u64));
        if rows * cols >= 40_000 {
            group.sample_size(10);
        }
        let mut seed = 0u64;
        // Each measurement runs on the pool's one thread, so no iteration waits for a
        // sleeping worker to wake.
        group.bench_function(BenchmarkId::new("no-guess", name), |b| {
            pool.install(|| {
                b.iter(|| {
                    seed = (seed + 1) % 64;
                    let request = NoGuess::new(rows, cols, mines, seed)
                        .first_click(FirstClick::Opening, r, cl)
                        .method(method);
                    black_box(no_guess(&request).expect("certified"))
                })
            })
        });
        let mut seed = 0u64;
        group.bench_function(BenchmarkId::new("plain", name), |b| {
            pool.install(|| {
                b.iter(|| {
                    seed = (seed + 1) % 64;
                    let zone = FirstClick::Opening
                        .zone(rows, cols, r, cl)
                        .expect("on the board");
                    let config = Config::new(rows, cols, mines, seed).keep_clear(zone);
                    black_box(generate(&config).expect("fits"))
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
