//! The server's cost per move: a reveal frame decoded, applied to a co-op room, its log
//! record framed, its delta encoded once and queued for 1, 10 or 100 subscribers of the
//! chunk, and its ack queued; beside it, the same reveals by plain `Game::reveal` in the same
//! run. Throughput is one move, so the report reads as time per move.
//!
//! And a room's eviction and restore, at expert size and at 10^8 cells: `evict` is what a
//! room leaving memory costs (a copy of its state, its snapshot written and synced, the room
//! dropped), `restore` what bringing it back for a join costs (the room recovered from its
//! folder, as a start does, and checked). Throughput is the board's cells.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bitmines_core::{Cell, FirstClick, Game, Rule};
use bitmines_server::log::{Record, RoomDir, Sync, frame};
use bitmines_server::metrics::Metrics;
use bitmines_server::params::RoomParams;
use bitmines_server::protocol::{Action, ChunkRect, ClientMsg, MineRule, Mode};
use bitmines_server::room::{Room, fresh_room};
use bytes::Bytes;
use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
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
        first: Some((SIDE / 2, SIDE / 2)),
        countdown: false,
    }
}

fn board() -> Arc<bitmines_core::Board> {
    let p = params();
    let zone = FirstClick::Opening
        .zone(p.rows, p.cols, SIDE / 2, SIDE / 2)
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

/// A co-op endless room of `rows x cols` with 15% of mines (99 for expert), first click in
/// the middle.
fn room_params(rows: usize, cols: usize) -> RoomParams {
    RoomParams {
        rows,
        cols,
        mines: if rows == 16 {
            99
        } else {
            rows * cols * 15 / 100
        },
        mode: Mode::Coop,
        rule: MineRule::Endless,
        no_guess: false,
        first: Some((rows / 2, cols / 2)),
        countdown: false,
    }
}

/// A room in a folder under `data`, with one player who joined and flagged 20 cells, in its
/// log as a live room keeps them; gives the room's folder and the room.
fn logged_room(data: &std::path::Path, params: &RoomParams) -> (RoomDir, Room) {
    let dir = RoomDir::new(data, "bench");
    dir.create(params, 7).expect("a room folder");
    let now = Instant::now();
    let mut room = fresh_room(params, 7, 256, Arc::new(Metrics::default()), now).expect("a room");
    let (mut log, _) = dir.open_log(Sync::Os).expect("a log");
    let mut records = vec![Record::Join {
        player: 0,
        token: [7; 16],
        name: "bench".into(),
    }];
    let game = room.games().next().expect("the co-op view");
    records.extend(
        (0..params.rows)
            .flat_map(|r| (0..params.cols).map(move |c| (r, c)))
            .filter(|&(r, c)| matches!(game.cell(r, c), Ok(Cell::Hidden)))
            .take(20)
            .zip(0u64..)
            .map(|((r, c), i)| Record::Move {
                player: 0,
                action: Action::Flag,
                row: r as u32,
                col: c as u32,
                at_ms: i * 100,
            }),
    );
    for record in &records {
        room.apply_record(record, now).expect("applies");
    }
    log.append(&records).expect("appended");
    (dir, room)
}

/// The room of `dir` recovered and checked, as a join brings an evicted room back.
fn restore(dir: &RoomDir) -> Room {
    let (room, _log) = dir
        .recover(Sync::Os, 256, Arc::new(Metrics::default()))
        .expect("recovers");
    room.validate().expect("consistent");
    room
}

fn evict_and_restore(c: &mut Criterion) {
    for (label, rows, cols, samples) in [("expert", 16, 30, 50), ("10^8 cells", 10_000, 10_000, 10)]
    {
        let params = room_params(rows, cols);
        let data = tempfile::tempdir().expect("a temporary folder");
        let (dir, room) = logged_room(data.path(), &params);
        // Every record is in the snapshot: the eviction writes one, and the restore reads it.
        let records = 21;
        let mut group = c.benchmark_group(format!("evict and restore {label}"));
        group.sample_size(samples);
        if samples == 10 {
            // About a second an iteration (the untimed half included): ten, flat.
            group
                .sampling_mode(SamplingMode::Flat)
                .measurement_time(Duration::from_secs(30));
        }
        group.throughput(Throughput::Elements(params.cells() as u64));
        let mut held = Some(room);
        group.bench_function("evict", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let room = held.take().unwrap_or_else(|| restore(&dir));
                    let start = Instant::now();
                    let state = room.snapshot_state(records, None);
                    dir.write_snapshot(&state, None).expect("a snapshot");
                    drop(state);
                    drop(room);
                    total += start.elapsed();
                    held = Some(restore(&dir));
                }
                total
            });
        });
        group.bench_function("restore", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    drop(held.take());
                    let start = Instant::now();
                    let room = black_box(restore(&dir));
                    total += start.elapsed();
                    held = Some(room);
                }
                total
            });
        });
        group.finish();
    }
}

criterion_group!(benches, bench, evict_and_restore);
criterion_main!(benches);
