//! The server's cost per move: a reveal frame decoded, applied to a co-op room, its log
//! record framed, its delta encoded once and queued for 1, 10 or 100 subscribers of the
//! chunk, and its ack queued; beside it, the same reveals by plain `Game::reveal` in the same
//! run. Throughput is one move, so the report reads as time per move.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bitmines_core::{FirstClick, Game, Rule};
use bitmines_server::log::frame;
use bitmines_server::metrics::Metrics;
use bitmines_server::params::RoomParams;
use bitmines_server::protocol::{Action, ChunkRect, ClientMsg, MineRule, Mode};
use bitmines_server::room::Room;
use bytes::Bytes;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use tokio::sync::mpsc;

const SIDE: usize = 1000;

fn params() -> RoomParams {
    RoomParams {
        rows: SIDE,
        cols: SIDE,
        mines: SIDE * SIDE / 5,
        mode: Mode::Coop,
        rule: MineRule::Endless,
        no_guess: false,
        first: (SIDE / 2, SIDE / 2),
    }
}

fn board() -> Arc<bitmines_core::Board> {
    let p = params();
    let zone = FirstClick::Opening
        .zone(p.rows, p.cols, p.first.0, p.first.1)
        .expect("on board");
    let config = bitmines_gen::Config::new(p.rows, p.cols, p.mines, 7).keep_clear(zone);
    Arc::new(bitmines_gen::generate(&config).expect("a board"))
}

/// Cells to reveal, spread over one chunk's neighbourhood so every move lands where the
/// subscribers watch: the 64x64 chunk at the top left, row by row.
fn cells() -> Vec<(u32, u32)> {
    (0..64u32)
        .flat_map(|r| (0..64u32).map(move |c| (r, c)))
        .collect()
}

fn bench(c: &mut Criterion) {
    let board = board();
    let cells = cells();
    let mut group = c.benchmark_group("server move");
    group.throughput(Throughput::Elements(1));
    group.bench_function("Game::reveal", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut done = 0;
            while done < iters {
                let mut game = Game::new(Arc::clone(&board)).with_rule(Rule::Endless);
                for &(r, c) in cells.iter().take((iters - done) as usize) {
                    let start = Instant::now();
                    black_box(game.reveal(r as usize, c as usize).expect("on board"));
                    total += start.elapsed();
                    done += 1;
                }
            }
            total
        });
    });
    for subscribers in [1usize, 10, 100] {
        group.bench_with_input(
            BenchmarkId::new("room", subscribers),
            &subscribers,
            |b, &subscribers| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    let mut done = 0;
                    while done < iters {
                        let metrics = Arc::new(Metrics::default());
                        let now = Instant::now();
                        let mut room = Room::new(params(), Arc::clone(&board), 256, metrics, now)
                            .expect("a room");
                        let mut queues: Vec<mpsc::Receiver<Bytes>> = Vec::new();
                        for conn in 0..subscribers as u64 {
                            let (tx, rx) = mpsc::channel(1 << 16);
                            room.join(conn, None, false, None, tx, now).expect("joins");
                            room.handle(
                                conn,
                                ClientMsg::Subscribe(ChunkRect {
                                    row: 0,
                                    col: 0,
                                    rows: 1,
                                    cols: 1,
                                }),
                                now,
                                now,
                            );
                            queues.push(rx);
                        }
                        room.take_records();
                        room.release(now);
                        let mut log = Vec::new();
                        for (seq, &(r, c)) in cells.iter().take((iters - done) as usize).enumerate()
                        {
                            let wire = ClientMsg::Move {
                                seq: seq as u32,
                                action: Action::Reveal,
                                row: r,
                                col: c,
                            }
                            .encode();
                            let start = Instant::now();
                            let msg = ClientMsg::decode(&wire).expect("decodes");
                            room.handle(0, msg, start, start);
                            log.clear();
                            for record in room.take_records() {
                                frame(&record, &mut log);
                            }
                            room.release(start);
                            total += start.elapsed();
                            done += 1;
                            // Emptying the queues is the writers' work, not the room's.
                            for q in &mut queues {
                                while q.try_recv().is_ok() {}
                            }
                        }
                    }
                    total
                });
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
