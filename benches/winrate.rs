//! One expert game (30x16/99, the first click at (3,3) opening) played through by the
//! solver's player, per guess policy. Each iteration plays the next of 64 fixed seeds from
//! a fresh deferred game, so the figure is the mean time of a game, won or lost.

use std::hint::black_box;

use bitmines_core::{FirstClick, Game, SeededPlacer};
use bitmines_solve::{Player, Policy};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("winrate/expert-3,3-opening");
    group.throughput(Throughput::Elements(1));
    for (name, policy) in [
        ("safest", Policy::Safest),
        ("tiebreak", Policy::Tiebreak),
        ("lookahead", Policy::Lookahead),
        ("unavoidable", Policy::Unavoidable),
        ("full", Policy::Full),
    ] {
        let player = Player::new(policy);
        let mut seed = 0u64;
        group.bench_function(BenchmarkId::new(name, "one game"), |b| {
            b.iter(|| {
                seed = (seed + 1) % 64;
                let mut game =
                    Game::deferred(16, 30, 99, FirstClick::Opening, SeededPlacer::new(seed))
                        .expect("expert fits");
                game.reveal(3, 3).expect("the first click");
                black_box(player.play(&mut game).expect("a game plays to its end"))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
