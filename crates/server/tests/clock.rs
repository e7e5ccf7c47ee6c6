//! The game clock is game state: it stands at 0 until a room's first move, runs from it (one
//! start for every racer), lives in the log and the snapshots, and goes on after a restart
//! from the last acknowledged move's time, not from 0. A version-1 log, which kept no times,
//! still replays. A joiner of a room whose board is still being made hears how far it is.
//!
//! Nothing here asserts a duration: only relative facts (a time after another is not
//! smaller, a time after a pause is not 0), with bounded waits.

mod support;

use std::time::Duration;

use bitmines_server::client::Client;
use bitmines_server::log::{Record, RoomDir};
use bitmines_server::protocol::{Action, ClientMsg, PROGRESS_DONE, ServerMsg, Welcome};
use support::{Recorder, recover, start, start_in};

/// The clock a welcome gives: `(elapsed_ms, running)`.
fn clock_of(welcome: &Welcome) -> (u32, bool) {
    (welcome.elapsed_ms, welcome.clock_running)
}

/// A move on `(row, col)`, numbered `seq`.
fn flag(seq: u32, row: u32, col: u32) -> ClientMsg {
    ClientMsg::Move {
        seq,
        action: Action::Flag,
        row,
        col,
    }
}

/// The clock of room `room`'s first view as a spectator who joins now is told it.
async fn clock_now(server: &support::TestServer, room: &str) -> (u32, bool) {
    let spectator = Recorder::join(&server.url(room, "spectate=1")).await;
    let clock = clock_of(spectator.client.welcome());
    spectator.client.close().await;
    clock
}

/// The first frame `r` got, or gets within the bounded wait, that `want` picks.
async fn got(r: &mut Recorder, want: impl Fn(&ServerMsg) -> bool) -> ServerMsg {
    match r.frames.iter().find(|m| want(m)) {
        Some(m) => m.clone(),
        None => r.until(want).await,
    }
}

/// Whether `m` is an ack of a move (not an error).
fn acked(m: &ServerMsg) -> bool {
    matches!(m, ServerMsg::Ack { .. })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clock_starts_at_the_first_move_and_goes_on_after_a_restart() {
    let server = start().await;
    let url = server.url("clock", "preset=expert&mode=coop&rule=endless");
    let mut a = Recorder::join(&url).await;
    // Joining is not playing: before the first move the clock stands at 0 and is stopped,
    // for a first player and for one who comes a while later.
    assert_eq!(clock_of(a.client.welcome()), (0, false));
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut b = Recorder::join(&url).await;
    assert_eq!(clock_of(b.client.welcome()), (0, false));
    assert_eq!(clock_now(&server, "clock").await, (0, false));

    // The first move starts it, for everyone watching.
    assert!(acked(&a.act(flag(1, 0, 0)).await));
    for r in [&mut a, &mut b] {
        let started = got(r, |m| matches!(m, ServerMsg::Clock { .. })).await;
        assert!(
            matches!(started, ServerMsg::Clock { running: true, .. }),
            "{started:?}"
        );
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(acked(&a.act(flag(2, 0, 1)).await));
    let (first, running) = clock_now(&server, "clock").await;
    assert!(
        running && first > 0,
        "50 ms after the first move: {first} ({running})"
    );
    tokio::time::sleep(Duration::from_millis(20)).await;
    // The last move before the restart comes after that reading, so its time is not less.
    assert!(acked(&b.act(flag(3, 15, 29)).await));
    let (later, _) = clock_now(&server, "clock").await;
    assert!(later >= first, "{later} < {first}");

    // A restart (the shutdown path, a SIGTERM's): the clock goes on from the last move's time.
    let data = server.stop().await;
    let room = recover(data.path(), "clock");
    let last = room.last_move_ms();
    assert!(
        last >= u64::from(first),
        "the last move at {last} < {first}"
    );
    assert!(
        last <= u64::from(later),
        "the last move at {last} > {later}"
    );
    drop(room);
    let server = start_in(data, |c| c).await;
    let url = server.url("clock", "preset=expert&mode=coop&rule=endless");
    let mut c = Recorder::join(&url).await;
    let (resumed, running) = clock_of(c.client.welcome());
    assert!(running, "the clock runs on after a restart");
    assert!(
        u64::from(resumed) >= last,
        "after the restart the clock reads {resumed}, before it the last move was at {last}"
    );
    assert!(acked(&c.act(flag(4, 15, 28)).await));
    let data = server.stop().await;
    let after = recover(data.path(), "clock").last_move_ms();
    assert!(
        after >= last,
        "a move after the restart at {after} < {last}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_frames_time_after_a_restart_is_past_the_time_before_it() {
    let server = start().await;
    let url = server.url("end", "preset=expert&mode=coop&rule=classic");
    let mut a = Recorder::join(&url).await;
    assert!(acked(&a.act(flag(1, 0, 0)).await));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(acked(&a.act(flag(2, 0, 0)).await));
    let (before, _) = clock_now(&server, "end").await;
    assert!(before > 0);
    let data = server.stop().await;
    // The clock goes on from the last acknowledged move's time, as the folder keeps it (the
    // time between that move and the stop is not kept, and a room restored only when joined
    // may be played at once).
    let kept = recover(data.path(), "end");
    let last = kept.last_move_ms();
    assert!(
        last > 0,
        "the second move came 50 ms after the first, at {last} ms"
    );
    let board = std::sync::Arc::clone(kept.board());
    drop(kept);
    let server = start_in(data, |c| c).await;
    let mut a = Recorder::join(&server.url("end", "preset=expert&mode=coop&rule=classic")).await;
    let mine = (0..board.rows())
        .flat_map(|r| (0..board.cols()).map(move |c| (r, c)))
        .find(|&(r, c)| board.is_mine(r, c).unwrap())
        .unwrap();
    let hit = a
        .act(ClientMsg::Move {
            seq: 3,
            action: Action::Reveal,
            row: mine.0 as u32,
            col: mine.1 as u32,
        })
        .await;
    assert!(matches!(hit, ServerMsg::Ack { status: 2, .. }), "{hit:?}");
    let over = match got(&mut a, |m| matches!(m, ServerMsg::Over(_))).await {
        ServerMsg::Over(over) => over,
        _ => unreachable!(),
    };
    assert!(
        u64::from(over.elapsed_ms) >= last,
        "the end screen says {} ms, the last move before the restart was at {last} ms",
        over.elapsed_ms
    );
    assert!(over.bbbv > 0);
    // Stopped at the end: the clock frame says so, and a newcomer sees the same frozen time.
    let stopped = got(&mut a, |m| {
        matches!(m, ServerMsg::Clock { running: false, .. })
    })
    .await;
    assert_eq!(
        stopped,
        ServerMsg::Clock {
            view: 0,
            elapsed_ms: over.elapsed_ms,
            running: false
        }
    );
    let late = Recorder::join(&server.url("end", "spectate=1")).await;
    assert_eq!(clock_of(late.client.welcome()), (over.elapsed_ms, false));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_race_starts_every_racers_clock_at_its_first_move() {
    let server = start().await;
    let url = server.url("race", "preset=expert&mode=race");
    let mut a = Recorder::join(&url).await;
    let mut b = Recorder::join(&url).await;
    assert_eq!(clock_of(b.client.welcome()), (0, false));
    // Ada's first move starts Bob's clock too, though he has not moved.
    assert!(acked(&a.act(flag(1, 0, 0)).await));
    let bobs = b.client.welcome().view;
    let started = got(&mut b, |m| matches!(m, ServerMsg::Clock { .. })).await;
    assert!(
        matches!(started, ServerMsg::Clock { view, running: true, .. } if view == bobs),
        "{started:?}"
    );
    tokio::time::sleep(Duration::from_millis(30)).await;
    // One frame, one moment: a newcomer's list gives both racers the same time.
    let mut spectator = Recorder::join(&server.url("race", "spectate=1")).await;
    let ServerMsg::Players(players) = spectator
        .until(|m| matches!(m, ServerMsg::Players(_)))
        .await
    else {
        unreachable!()
    };
    assert_eq!(players.len(), 2);
    assert_eq!(players[0].elapsed_ms, players[1].elapsed_ms, "{players:?}");
    assert!(players[0].elapsed_ms > 0);
    // A racer who joins later runs on the same clock, already going.
    let mut c = Recorder::join(&url).await;
    let (elapsed, running) = clock_of(c.client.welcome());
    assert!(running && elapsed >= players[0].elapsed_ms);
    assert!(acked(&c.act(flag(1, 1, 1)).await));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_1_log_still_replays_with_its_moves_at_time_0() {
    let server = start().await;
    let url = server.url("old", "preset=expert&mode=coop&rule=endless");
    let mut a = Recorder::join(&url).await;
    for (seq, col) in (1..=4).zip(0..) {
        assert!(acked(&a.act(flag(seq, 0, col)).await));
    }
    let data = server.stop().await;
    let dir = RoomDir::new(data.path(), "old");
    let records = dir.read_log().unwrap().records().to_vec();
    assert_eq!(records.len(), 5, "a join and four moves");
    // The same records as a version-1 server wrote them: moves without times.
    let mut bytes = b"BMLOG01\n".to_vec();
    for record in &records {
        let mut payload = record.encode();
        if matches!(record, Record::Move { .. }) {
            payload.truncate(14);
        }
        bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
    }
    std::fs::write(dir.path().join("log"), bytes).unwrap();
    // Only the snapshot of the new room is kept, so every record is replayed from the log.
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("snapshot-") && name != format!("snapshot-{:020}", 0) {
            std::fs::remove_file(path).unwrap();
        }
    }
    assert_eq!(dir.read_log().unwrap().version(), 1);
    let room = recover(data.path(), "old");
    let flagged = room.games().next().unwrap().flag_count();
    assert_eq!(flagged, 4, "the four flags replayed");
    assert_eq!(room.last_move_ms(), 0, "a version-1 move kept no time");
    // A move was made, so the clock runs, on from 0.
    let (_, running) = room.view_clock(0, std::time::Instant::now());
    assert!(running);
    // The log was rewritten in this version's format, its moves kept.
    let read = dir.read_log().unwrap();
    assert_eq!(read.version(), bitmines_server::log::LOG_VERSION);
    assert_eq!(read.records().len(), 5);
    let server = start_in(data, |c| c).await;
    let mut a = Recorder::join(&server.url("old", "preset=expert&mode=coop&rule=endless")).await;
    assert!(acked(&a.act(flag(5, 0, 9)).await));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_joiner_hears_how_much_of_a_large_board_is_made_before_the_welcome() {
    let server = start().await;
    // A no-guess board large enough that making it takes a while.
    let url = server.url("big", "rows=400&cols=400&density=0.2&noguess=1&mode=coop");
    let mut shares = Vec::new();
    let client = tokio::time::timeout(
        Duration::from_secs(300),
        Client::connect_with_progress(&url, |share| shares.push(share)),
    )
    .await
    .expect("the board is made within 5 minutes")
    .expect("the join is taken");
    assert!(
        !shares.is_empty(),
        "no progress frame came before the welcome"
    );
    assert!(shares.iter().all(|&s| s <= PROGRESS_DONE), "{shares:?}");
    assert!(shares.is_sorted(), "the share went back: {shares:?}");
    // The making of the board is not play: the clock has not started.
    assert_eq!(clock_of(client.welcome()), (0, false));
    // A room already made tells its joiners nothing of the kind.
    let mut again = Vec::new();
    let second = Client::connect_with_progress(&url, |share| again.push(share))
        .await
        .unwrap();
    assert!(again.is_empty(), "{again:?}");
    drop((client, second));
    server.stop().await;
}
