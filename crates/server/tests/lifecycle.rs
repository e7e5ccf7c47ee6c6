//! A room's life: a room nobody is connected to leaves memory after `room_idle` and comes
//! back on the next join as it was; a finished one is archived after `keep_finished` (or
//! deleted with `--archive none`) and listed at `/games`; one where no move was ever made is
//! removed; only the rooms that can be joined count against `max_rooms` and show at
//! `/rooms`, before and after a restart; an archived game's times are its room's clock.
//! Every wait is bounded, and no test asserts how fast anything is.

mod support;

use std::time::Duration;

use bitmines_server::life::ArchiveMode;
use bitmines_server::protocol::{Action, ChunkRect, ClientMsg, ServerMsg, cell};
use bitmines_server::server::Config;
use support::{Recorder, TestServer, http_get, recover, start_in, start_with};

/// A small co-op room where the first mine ends the game.
const QUERY: &str = "preset=beginner&mode=coop&rule=classic";

/// Short timers for a test: a second empty and a room leaves memory or is archived.
fn quick(config: Config) -> Config {
    Config {
        room_idle: Duration::from_secs(1),
        keep_finished: Duration::from_secs(1),
        ..config
    }
}

/// A second empty and a room leaves memory; a finished game is kept for an hour (so that a
/// move that happens to win the game leaves the room to be evicted, not archived).
fn evicting(config: Config) -> Config {
    Config {
        room_idle: Duration::from_secs(1),
        keep_finished: Duration::from_secs(3600),
        ..config
    }
}

/// Joins room `name` and watches its one chunk.
async fn watch(server: &TestServer, name: &str) -> Recorder {
    let mut player = Recorder::join(&server.url(name, QUERY)).await;
    player
        .send(ClientMsg::Subscribe(ChunkRect::one(0, 0)))
        .await;
    player.until(|m| matches!(m, ServerMsg::Chunk { .. })).await;
    player
}

/// Makes a move and checks it was acknowledged; gives the ack.
async fn play(player: &mut Recorder, seq: u32, action: Action, (row, col): (usize, usize)) {
    let answer = player
        .act(ClientMsg::Move {
            seq,
            action,
            row: row as u32,
            col: col as u32,
        })
        .await;
    assert!(matches!(answer, ServerMsg::Ack { .. }), "{answer:?}");
}

/// A hidden cell of room `name` on the player's picture that is a mine (`mine`) or not, by
/// the board recovered from the data folder.
fn hidden_cell(server: &TestServer, player: &Recorder, name: &str, mine: bool) -> (usize, usize) {
    let room = recover(server.data.path(), name);
    (0..9)
        .flat_map(|r| (0..9).map(move |c| (r, c)))
        .find(|&(r, c)| {
            player.picture.cell(0, r, c) == Some(cell::HIDDEN)
                && room.board().is_mine(r, c).unwrap() == mine
        })
        .expect("a hidden cell of that kind after the first click")
}

/// Ends room `name`'s game: its one player reveals a mine.
async fn lose(server: &TestServer, name: &str) {
    let mut player = watch(server, name).await;
    let mine = hidden_cell(server, &player, name, true);
    play(&mut player, 1, Action::Reveal, mine).await;
    player.client.close().await;
}

/// The play time the player's own game ended at, as its `over` frame says.
async fn over_ms(player: &mut Recorder) -> u64 {
    let seen = player.frames.iter().find_map(|m| match m {
        ServerMsg::Over(over) => Some(over.elapsed_ms),
        _ => None,
    });
    let ms = match seen {
        Some(ms) => ms,
        None => match player.until(|m| matches!(m, ServerMsg::Over(_))).await {
            ServerMsg::Over(over) => over.elapsed_ms,
            other => panic!("{other:?}"),
        },
    };
    u64::from(ms)
}

/// The value of the line `name value` in a metrics text.
fn metric(text: &str, name: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

/// Waits, at most 20 s, until metric `name` reads `want`; fails naming the last value.
async fn wait_metric(server: &TestServer, name: &str, want: u64) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let text = server.metrics().await;
        let got = metric(&text, name);
        if got == Some(want) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{name} is {got:?} after 20 s, not {want}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The body of an HTTP answer, as JSON.
async fn get_json(server: &TestServer, path: &str) -> serde_json::Value {
    let answer = http_get(server.addr, path).await;
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{path}: {e}: {answer}"))
}

/// `/rooms`' entry for room `name`, if listed.
async fn listed(server: &TestServer, name: &str) -> Option<serde_json::Value> {
    let rooms = get_json(server, "/rooms").await;
    rooms
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .cloned()
}

/// Why a join to room `name` was refused.
async fn refused(server: &TestServer, name: &str) -> String {
    match bitmines_server::client::Client::connect(&server.url(name, QUERY)).await {
        Ok(_) => panic!("room {name} was made"),
        Err(e) => e.to_string(),
    }
}

#[tokio::test]
async fn an_empty_room_is_evicted_and_comes_back_on_a_join_as_it_was() {
    let server = start_with(evicting).await;
    let mut player = watch(&server, "kept").await;
    let listing = listed(&server, "kept").await.expect("listed");
    assert_eq!(listing["state"], "waiting", "{listing}");
    assert_eq!(listing["players"], 1, "{listing}");
    assert_eq!(listing["empty"], false, "{listing}");
    let flag = hidden_cell(&server, &player, "kept", true);
    play(&mut player, 1, Action::Flag, flag).await;
    let safe = hidden_cell(&server, &player, "kept", false);
    play(&mut player, 2, Action::Reveal, safe).await;
    player.drain(Duration::from_millis(100)).await;
    let before: Vec<_> = {
        let mut cells: Vec<_> = player.picture.cells().collect();
        cells.sort_unstable();
        cells
    };
    assert_eq!(before.len(), 81);
    let listing = listed(&server, "kept").await.expect("listed");
    assert_eq!(listing["state"], "playing", "{listing}");
    assert_eq!(listing["in_memory"], true, "{listing}");
    assert!(listing["age"].as_u64().is_some(), "{listing}");
    player.client.close().await;

    wait_metric(&server, "bitmines_rooms_evicted_total", 1).await;
    wait_metric(&server, "bitmines_rooms_in_memory", 0).await;
    let listing = listed(&server, "kept")
        .await
        .expect("still listed once evicted");
    assert_eq!(listing["in_memory"], false, "{listing}");
    assert_eq!(listing["state"], "playing", "{listing}");
    assert_eq!(listing["players"], 0, "{listing}");
    assert_eq!(listing["empty"], true, "{listing}");
    assert_eq!(
        metric(&server.metrics().await, "bitmines_rooms_empty"),
        Some(1)
    );
    assert!(
        server.data.path().join("rooms/kept/meta").exists(),
        "the folder is kept"
    );

    let back = watch(&server, "kept").await;
    let after: Vec<_> = {
        let mut cells: Vec<_> = back.picture.cells().collect();
        cells.sort_unstable();
        cells
    };
    assert_eq!(after, before, "the room came back with other cells");
    assert_eq!(back.picture.cell(0, flag.0, flag.1), Some(cell::FLAGGED));
    assert!(matches!(back.picture.cell(0, safe.0, safe.1), Some(0..=8)));
    let text = server.metrics().await;
    assert_eq!(metric(&text, "bitmines_rooms_restored_total"), Some(1));
    assert_eq!(metric(&text, "bitmines_rooms_in_memory"), Some(1));
    assert_eq!(
        metric(&text, "bitmines_rooms_by_state{state=\"playing\"}"),
        Some(1)
    );
    back.client.close().await;
    server.stop().await;
}

#[tokio::test]
async fn a_join_to_an_evicted_room_waits_for_it_with_no_progress_frames() {
    let server = start_with(evicting).await;
    let mut player = watch(&server, "back").await;
    let safe = hidden_cell(&server, &player, "back", false);
    play(&mut player, 1, Action::Reveal, safe).await;
    player.client.close().await;
    wait_metric(&server, "bitmines_rooms_evicted_total", 1).await;
    // Its board is not made again but recovered: nothing to tell of a board's making.
    let mut shares = Vec::new();
    let client = bitmines_server::client::Client::connect_with_progress(
        &server.url("back", QUERY),
        |share| shares.push(share),
    )
    .await
    .expect("joined");
    assert_eq!(
        shares,
        Vec::<u16>::new(),
        "progress frames before the welcome"
    );
    assert_eq!(
        metric(&server.metrics().await, "bitmines_rooms_restored_total"),
        Some(1)
    );
    client.close().await;
    server.stop().await;
}

#[tokio::test]
async fn a_spectator_brings_an_evicted_room_back_too() {
    let server = start_with(evicting).await;
    let mut player = watch(&server, "seen").await;
    let safe = hidden_cell(&server, &player, "seen", false);
    play(&mut player, 1, Action::Reveal, safe).await;
    player.client.close().await;
    wait_metric(&server, "bitmines_rooms_evicted_total", 1).await;
    let mut spectator = Recorder::join(&server.url("seen", "spectate=1")).await;
    spectator
        .send(ClientMsg::Subscribe(ChunkRect::one(0, 0)))
        .await;
    spectator
        .until(|m| matches!(m, ServerMsg::Chunk { .. }))
        .await;
    assert!(matches!(
        spectator.picture.cell(0, safe.0, safe.1),
        Some(0..=8)
    ));
    assert_eq!(
        metric(&server.metrics().await, "bitmines_rooms_restored_total"),
        Some(1)
    );
    spectator.client.close().await;
    server.stop().await;
}

#[tokio::test]
async fn a_finished_empty_room_is_archived_and_listed_at_games() {
    let server = start_with(quick).await;
    lose(&server, "done").await;
    wait_metric(&server, "bitmines_rooms_archived_total", 1).await;
    assert!(
        !server.data.path().join("rooms/done").exists(),
        "the folder is gone from rooms/"
    );
    assert_eq!(listed(&server, "done").await, None);
    let games = get_json(&server, "/games").await;
    assert_eq!(games["total"], 1, "{games}");
    let game = &games["games"][0];
    assert_eq!(game["name"], "done", "{game}");
    assert_eq!(game["result"], "lost", "{game}");
    assert_eq!(game["rows"], 9, "{game}");
    assert_eq!(game["mode"], "coop", "{game}");
    assert!(game["bbbv"].as_u64().is_some_and(|b| b > 0), "{game}");
    assert_eq!(game["players"][0]["result"], "lost", "{game}");
    assert!(game["made"].as_u64().is_some_and(|t| t > 0), "{game}");
    // One move, the room's first: the game ended as its clock started.
    assert_eq!(game["ms"], 0, "{game}");
    assert_eq!(game["players"][0]["ms"], 0, "{game}");
    let records: Vec<_> = std::fs::read_dir(server.data.path().join("archive/games"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(records.len(), 1);
    assert!(records[0].metadata().unwrap().len() <= 1024);
    let past = get_json(&server, "/games?page=1").await;
    assert_eq!(past["games"].as_array().map(Vec::len), Some(0), "{past}");
    let bad = http_get(server.addr, "/games?page=x").await;
    assert!(
        bad.starts_with("HTTP/1.1 400") && bad.contains("page=\"x\""),
        "{bad}"
    );
    // The name is free again: a join makes a new room.
    let fresh = watch(&server, "done").await;
    assert_eq!(
        listed(&server, "done").await.expect("listed")["state"],
        "waiting"
    );
    fresh.client.close().await;
    server.stop().await;
}

#[tokio::test]
async fn a_game_archived_after_a_restart_keeps_its_play_time() {
    let server = start_with(evicting).await;
    let mut player = watch(&server, "timed").await;
    let safe = hidden_cell(&server, &player, "timed", false);
    play(&mut player, 1, Action::Reveal, safe).await;
    // The clock runs from that first move: the losing move comes some time after it.
    tokio::time::sleep(Duration::from_millis(30)).await;
    let mine = hidden_cell(&server, &player, "timed", true);
    play(&mut player, 2, Action::Reveal, mine).await;
    let ms = over_ms(&mut player).await;
    assert!(ms > 0, "the game ended at {ms} ms");
    player.client.close().await;
    // Kept for an hour, so still a room when the server stops; archived after the restart.
    let data = server.stop().await;
    let server = start_in(data, quick).await;
    wait_metric(&server, "bitmines_rooms_archived_total", 1).await;
    let games = get_json(&server, "/games").await;
    let game = &games["games"][0];
    assert_eq!(game["name"], "timed", "{game}");
    assert_eq!(game["ms"], ms, "{game}");
    assert_eq!(game["players"][0]["ms"], ms, "{game}");
    assert!(game["ended"].as_u64() >= game["made"].as_u64(), "{game}");
    server.stop().await;
}

#[tokio::test]
async fn with_archive_none_a_finished_room_is_deleted() {
    let server = start_with(|c| Config {
        archive: ArchiveMode::None,
        ..quick(c)
    })
    .await;
    lose(&server, "gone").await;
    wait_metric(&server, "bitmines_rooms_removed_total", 1).await;
    assert!(!server.data.path().join("rooms/gone").exists());
    assert_eq!(
        metric(&server.metrics().await, "bitmines_rooms_archived_total"),
        Some(0)
    );
    assert_eq!(get_json(&server, "/games").await["total"], 0);
    server.stop().await;
}

#[tokio::test]
async fn a_room_where_nobody_moved_is_removed_once_empty() {
    let server = start_with(quick).await;
    let player = watch(&server, "idle").await;
    assert!(server.data.path().join("rooms/idle").exists());
    player.client.close().await;
    wait_metric(&server, "bitmines_rooms_removed_total", 1).await;
    assert!(!server.data.path().join("rooms/idle").exists());
    assert_eq!(listed(&server, "idle").await, None);
    let text = server.metrics().await;
    assert_eq!(metric(&text, "bitmines_rooms_evicted_total"), Some(0));
    assert_eq!(metric(&text, "bitmines_rooms"), Some(0));
    server.stop().await;
}

#[tokio::test]
async fn max_rooms_counts_the_rooms_that_can_be_joined() {
    let two = |c: Config| Config {
        max_rooms: 2,
        ..quick(c)
    };
    let server = start_with(two).await;
    let a = watch(&server, "a").await;
    let b = watch(&server, "b").await;
    let message = refused(&server, "c").await;
    assert!(message.contains("the server has its 2 rooms"), "{message}");
    // Nobody moved in `a`: once empty it is removed, and a third room can be made.
    a.client.close().await;
    wait_metric(&server, "bitmines_rooms_removed_total", 1).await;
    let c = watch(&server, "c").await;
    c.client.close().await;
    b.client.close().await;
    wait_metric(&server, "bitmines_rooms_removed_total", 3).await;
    let data = server.stop().await;

    // After a restart, a finished game is not counted either.
    let server = start_in(data, |c| Config {
        max_rooms: 2,
        keep_finished: Duration::from_secs(3600),
        ..c
    })
    .await;
    lose(&server, "over").await;
    let mut d = watch(&server, "playing").await;
    let safe = hidden_cell(&server, &d, "playing", false);
    play(&mut d, 1, Action::Reveal, safe).await;
    d.client.close().await;
    let data = server.stop().await;
    let server = start_in(data, |c| Config {
        max_rooms: 2,
        keep_finished: Duration::from_secs(3600),
        ..c
    })
    .await;
    let listing = listed(&server, "playing").await.expect("listed");
    assert_eq!(listing["state"], "playing", "{listing}");
    assert_eq!(listing["in_memory"], false, "{listing}");
    assert_eq!(listed(&server, "over").await, None);
    let text = server.metrics().await;
    assert_eq!(
        metric(&text, "bitmines_rooms_by_state{state=\"over\"}"),
        Some(1)
    );
    assert_eq!(metric(&text, "bitmines_rooms"), Some(1));
    let e = watch(&server, "e").await;
    let message = refused(&server, "f").await;
    assert!(message.contains("the server has its 2 rooms"), "{message}");
    e.client.close().await;
    server.stop().await;
}

#[tokio::test]
async fn a_won_race_is_archived_with_its_winner_and_each_racers_result() {
    let server = start_with(quick).await;
    let race = "preset=beginner&mode=race";
    let mut alice = Recorder::join(&server.url("race", &format!("{race}&name=alice"))).await;
    let mut bob = Recorder::join(&server.url("race", &format!("{race}&name=bob"))).await;
    let room = recover(server.data.path(), "race");
    let board = room.board();
    let safe: Vec<(usize, usize)> = (0..9)
        .flat_map(|r| (0..9).map(move |c| (r, c)))
        .filter(|&(r, c)| !board.is_mine(r, c).unwrap())
        .collect();
    play(&mut bob, 1, Action::Reveal, safe[0]).await;
    // Alice reveals every safe cell until her game is won.
    let mut won = false;
    for (seq, &(row, col)) in (1..).zip(&safe) {
        match alice
            .act(ClientMsg::Move {
                seq,
                action: Action::Reveal,
                row: row as u32,
                col: col as u32,
            })
            .await
        {
            ServerMsg::Ack { status, .. } => {
                won = status == 1;
                if won {
                    break;
                }
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(won, "every safe cell revealed and the game not won");
    let alice_ms = over_ms(&mut alice).await;
    alice.client.close().await;
    bob.client.close().await;
    wait_metric(&server, "bitmines_rooms_archived_total", 1).await;
    let games = get_json(&server, "/games").await;
    let game = &games["games"][0];
    assert_eq!(game["mode"], "race", "{game}");
    assert_eq!(game["result"], "won", "{game}");
    assert_eq!(game["winner"], "alice", "{game}");
    assert_eq!(game["players_total"], 2, "{game}");
    let players = game["players"].as_array().expect("players");
    assert_eq!(players[0]["name"], "alice", "{game}");
    assert_eq!(players[0]["result"], "won", "{game}");
    // The times are the room's clock: the race's play time is the win's, as the winner's
    // end screen said.
    assert_eq!(players[0]["ms"], alice_ms, "{game}");
    assert_eq!(game["ms"], alice_ms, "{game}");
    assert_eq!(players[1]["name"], "bob", "{game}");
    assert_eq!(players[1]["result"], "playing", "{game}");
    assert!(players[1]["ms"].is_null(), "{game}");
    server.stop().await;
}

#[tokio::test]
async fn joins_racing_evictions_lose_no_move() {
    // Evicted 10 ms after each leave: the joins that follow meet the room being evicted,
    // being saved, out of memory or in it, and every one must find every move before it.
    let server = start_with(|c| Config {
        room_idle: Duration::from_millis(10),
        ..c
    })
    .await;
    let mut first = watch(&server, "busy").await;
    let room = recover(server.data.path(), "busy");
    let safe: Vec<(usize, usize)> = (0..9)
        .flat_map(|r| (0..9).map(move |c| (r, c)))
        .filter(|&(r, c)| {
            !room.board().is_mine(r, c).unwrap()
                && first.picture.cell(0, r, c) == Some(cell::HIDDEN)
        })
        .take(12)
        .collect();
    // A board with a large opening may have fewer hidden safe cells; the rounds are as many.
    assert!(safe.len() >= 3, "{} hidden safe cells", safe.len());
    play(&mut first, 1, Action::Reveal, safe[0]).await;
    first.client.close().await;
    let mut waited = 0;
    for (round, &cell) in safe.iter().enumerate().skip(1) {
        let mut player = watch(&server, "busy").await;
        for &(r, c) in &safe[..round] {
            assert!(
                matches!(player.picture.cell(0, r, c), Some(0..=8)),
                "round {round}: ({r}, {c}) revealed before, hidden now"
            );
        }
        play(&mut player, 1, Action::Reveal, cell).await;
        player.client.close().await;
        // Every other round, give the room time to leave memory.
        if round % 2 == 0 {
            wait_metric(&server, "bitmines_rooms_in_memory", 0).await;
            waited += 1;
        }
    }
    let text = server.metrics().await;
    let evicted = metric(&text, "bitmines_rooms_evicted_total").unwrap_or(0);
    assert!(
        evicted >= waited,
        "evicted {evicted} times, waited for {waited}"
    );
    server.stop().await;
}

#[tokio::test]
async fn many_games_leave_nothing_behind_but_their_records() {
    // More games than --max-rooms, one after another: each is refused nothing, and once
    // they are archived no room is in memory, rooms/ is empty, and the archive lists them.
    let server = start_with(|c| Config {
        max_rooms: 2,
        ..quick(c)
    })
    .await;
    let games = 8;
    for k in 0..games {
        lose(&server, &format!("game-{k}")).await;
    }
    wait_metric(&server, "bitmines_rooms_archived_total", games).await;
    let text = server.metrics().await;
    assert_eq!(metric(&text, "bitmines_rooms_in_memory"), Some(0));
    assert_eq!(metric(&text, "bitmines_rooms"), Some(0));
    let left = std::fs::read_dir(server.data.path().join("rooms"))
        .unwrap()
        .count();
    assert_eq!(left, 0, "room folders left behind");
    let listed = get_json(&server, "/games").await;
    assert_eq!(listed["total"], games, "{listed}");
    let index = std::fs::metadata(server.data.path().join("archive/index"))
        .unwrap()
        .len();
    assert_eq!(index, games * 128);
    server.stop().await;
}
