//! A rematch: once a room's game is over, a player starts the next game in the same room, on
//! a new board, with everyone still connected and every token still good. The new game is
//! in the log, so a restart restores it with its moves; a race room keeps its series
//! scoreboard across games and restarts.
//!
//! Which mines the new board has is not something a client can see, so a client checks that
//! its view is fresh: the new game's number, nothing but the first click's opening shown, the
//! clock stopped at 0. The tests read the boards themselves from the data folder (the seeds
//! in `meta` and in the log's new-game records), never from a frame.

mod support;

use std::path::Path;
use std::time::Duration;

use bitmines_core::Board;
use bitmines_server::log::{Record, RoomDir, make_board};
use bitmines_server::protocol::{
    Action, ChunkRect, ClientMsg, ErrorCode, NO_TIME, SeriesEntry, ServerMsg, cell,
};
use support::{Recorder, expected_state, recover, start, start_in, start_with};

/// The archive records under `data`, waited for (at most 10 s) until there are `n`: a game
/// ended at a rematch is archived once the rematch is durable, just after its ack.
async fn archived(data: &Path, n: usize) -> Vec<String> {
    let games = data.join("archive").join("games");
    for _ in 0..1000 {
        let records: Vec<String> = std::fs::read_dir(&games)
            .into_iter()
            .flatten()
            .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
            .collect();
        if records.len() >= n {
            return records;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no {n} archive records under {}", games.display());
}

/// The board of the room's game now, as the server made it: from the seed in `meta`, or from
/// the last new game's seed in the log (which is read, never written).
fn board_now(data: &Path, room: &str) -> Board {
    let dir = RoomDir::new(data, room);
    let (params, mut seed) = dir.meta().unwrap();
    for record in dir.read_log().unwrap().records() {
        if let Record::NewGame { seed: s, .. } = record {
            seed = *s;
        }
    }
    make_board(&params, seed).unwrap()
}

/// Every chunk of a board of `rows x cols`.
fn whole_board(rows: u32, cols: u32) -> ChunkRect {
    ChunkRect {
        row: 0,
        col: 0,
        rows: rows.div_ceil(64) as u16,
        cols: cols.div_ceil(64) as u16,
    }
}

/// Cells of `board` that are mines (`true`) or safe (`false`).
fn cells_of(board: &Board, mines: bool) -> Vec<(u32, u32)> {
    (0..board.rows())
        .flat_map(|r| (0..board.cols()).map(move |c| (r, c)))
        .filter(|&(r, c)| board.is_mine(r, c).unwrap() == mines)
        .map(|(r, c)| (r as u32, c as u32))
        .collect()
}

fn reveal(seq: u32, (row, col): (u32, u32)) -> ClientMsg {
    ClientMsg::Move {
        seq,
        action: Action::Reveal,
        row,
        col,
    }
}

/// Sets off a mine of `board`: the player's game is lost.
async fn lose(player: &mut Recorder, board: &Board, seq: u32) {
    let mine = cells_of(board, true)[0];
    let hit = player.act(reveal(seq, mine)).await;
    assert!(matches!(hit, ServerMsg::Ack { status: 2, .. }), "{hit:?}");
}

/// Reveals every safe cell of `board` that the player's picture of its view does not show
/// open (a chunk not received yet shows nothing), until the game is won; returns the moves
/// it took.
async fn win(player: &mut Recorder, board: &Board, seq: &mut u32) -> u32 {
    let view = player.client.welcome().view;
    let mut moves = 0;
    for safe in cells_of(board, false) {
        let shown = player.picture.cell(view, safe.0 as usize, safe.1 as usize);
        if shown.is_some_and(|s| s != cell::HIDDEN) {
            continue;
        }
        *seq += 1;
        moves += 1;
        match player.act(reveal(*seq, safe)).await {
            ServerMsg::Ack { status: 1, .. } => return moves,
            ServerMsg::Ack { status: 0, .. } => {}
            other => panic!("revealing safe cell {safe:?}: {other:?}"),
        }
    }
    panic!("every safe cell was revealed and the game was not won");
}

/// A refusal's code and message, from an error frame.
fn refusal(m: &ServerMsg) -> (u16, String) {
    match m {
        ServerMsg::Error { code, message, .. } => (*code, message.clone()),
        other => panic!("not an error: {other:?}"),
    }
}

/// The first frame from the `from`th on that `want` picks, among those `r` recorded or, within
/// the bounded wait, gets; with its place in the recording.
async fn got(
    r: &mut Recorder,
    from: usize,
    want: impl Fn(&ServerMsg) -> bool,
) -> (usize, ServerMsg) {
    if let Some(i) = r.frames.iter().skip(from).position(&want) {
        return (from + i, r.frames[from + i].clone());
    }
    let m = r.until(|m| want(m)).await;
    (r.frames.len() - 1, m)
}

/// Checks what `r` got from its `from`th frame on: the new game's number, then its view's
/// clock stopped at 0 (after the chunks it watches, resent).
async fn sees_new_game(r: &mut Recorder, game: u32, from: usize) {
    let view = r.client.welcome().view;
    let (at, announced) = got(r, from, |m| matches!(m, ServerMsg::NewGame { .. })).await;
    assert_eq!(announced, ServerMsg::NewGame { game });
    let (_, clock) = got(
        r,
        at,
        |m| matches!(m, ServerMsg::Clock { view: v, .. } if *v == view),
    )
    .await;
    assert_eq!(
        clock,
        ServerMsg::Clock {
            view,
            elapsed_ms: 0,
            running: false
        }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_coop_rematch_after_a_loss_gives_a_fresh_board_to_everyone_still_here() {
    let server = start().await;
    let url = server.url("coop", "preset=expert&mode=coop&rule=classic");
    let mut a = Recorder::join(&url).await;
    let mut b = Recorder::join(&url).await;
    let mut s = Recorder::join(&server.url("coop", "spectate=1")).await;
    assert_eq!(a.client.welcome().game, 1);
    for r in [&mut a, &mut b, &mut s] {
        r.send(ClientMsg::Subscribe(whole_board(16, 30))).await;
    }

    // Before the end: refused, with the request's seq and why.
    let early = a.act(ClientMsg::Rematch { seq: 7 }).await;
    let (code, why) = refusal(&early);
    assert_eq!(code, ErrorCode::NotOver as u16, "{why}");
    assert!(why.contains("game 1 is still being played"), "{why}");
    assert!(matches!(early, ServerMsg::Error { seq: 7, .. }));

    let first = board_now(server.data.path(), "coop");
    let mark = a.frames.len();
    lose(&mut a, &first, 1).await;
    got(&mut a, mark, |m| matches!(m, ServerMsg::Over(_))).await;

    // A spectator may not ask, the game over or not.
    let (code, why) = refusal(&s.act(ClientMsg::Rematch { seq: 8 }).await);
    assert_eq!(code, ErrorCode::NotAllowed as u16, "{why}");

    // Bob asks: his ack, and everyone (Ada, who lost; the spectator) gets the new game.
    let marks = [a.frames.len(), b.frames.len(), s.frames.len()];
    let ack = b.act(ClientMsg::Rematch { seq: 9 }).await;
    assert!(matches!(ack, ServerMsg::Ack { seq: 9, .. }), "{ack:?}");
    for (r, mark) in [&mut a, &mut b, &mut s].into_iter().zip(marks) {
        sees_new_game(r, 2, mark).await;
        // Everything the new game sent came in (the chunks with their first click's opening).
        r.drain(Duration::from_millis(100)).await;
        assert!(r.closed.is_none(), "{:?}", r.closed);
    }
    // A second ask at the same time finds the new game being played.
    let (code, why) = refusal(&a.act(ClientMsg::Rematch { seq: 10 }).await);
    assert_eq!(code, ErrorCode::NotOver as u16, "{why}");
    assert!(why.contains("game 2"), "{why}");

    // The new board is another one, and every picture shows its fresh view: the first click's
    // opening and nothing else (no exploded mine, no flag, no mine shown after Ada's loss).
    let second = board_now(server.data.path(), "coop");
    assert_ne!(cells_of(&first, true), cells_of(&second, true));
    let data_now = {
        let dir = RoomDir::new(server.data.path(), "coop");
        dir.meta().unwrap().0
    };
    let mut fresh = bitmines_core::Game::try_new(std::sync::Arc::new(second.clone())).unwrap();
    let (first_row, first_col) = data_now.first.expect("the room opens in the middle");
    fresh.reveal(first_row, first_col).unwrap();
    for r in [&a, &b, &s] {
        for row in 0..16 {
            for col in 0..30 {
                assert_eq!(
                    r.picture.cell(0, row, col),
                    Some(expected_state(&fresh, row, col, false)),
                    "cell ({row}, {col})"
                );
            }
        }
    }

    // Tokens still rejoin, into game 2.
    let token = a.client.token_hex();
    let again = Recorder::join(&format!("{url}&token={token}")).await;
    assert_eq!(again.client.welcome().player, a.client.welcome().player);
    assert_eq!(again.client.welcome().game, 2);
    assert_eq!(
        (
            again.client.welcome().elapsed_ms,
            again.client.welcome().clock_running
        ),
        (0, false)
    );

    // Game 1 went to the archive when game 2 began: one record, of its loss.
    let records = archived(server.data.path(), 1).await;
    assert_eq!(records.len(), 1, "{records:?}");
    for field in [
        "\"name\":\"coop\"",
        "\"game\":1,",
        "\"mode\":\"coop\"",
        "\"result\":\"lost\"",
        "\"players_total\":2",
    ] {
        assert!(records[0].contains(field), "{field} in {}", records[0]);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_restores_the_new_game_with_its_moves() {
    // A snapshot every few records, so one is written after the new game began and the
    // restart reads the game's number from it as well as from the log.
    let server = start_with(|c| bitmines_server::server::Config {
        snapshot_every: Some(3),
        ..c
    })
    .await;
    let url = server.url("kept", "preset=expert&mode=coop&rule=classic");
    let mut a = Recorder::join(&url).await;
    a.send(ClientMsg::Subscribe(whole_board(16, 30))).await;
    let first = board_now(server.data.path(), "kept");
    lose(&mut a, &first, 1).await;
    let mark = a.frames.len();
    let ack = a.act(ClientMsg::Rematch { seq: 2 }).await;
    assert!(matches!(ack, ServerMsg::Ack { seq: 2, .. }), "{ack:?}");
    sees_new_game(&mut a, 2, mark).await;
    let second = board_now(server.data.path(), "kept");
    // Game 2's moves: a flag on a mine, and a safe cell opened.
    let mine = cells_of(&second, true)[0];
    let flagged = a
        .act(ClientMsg::Move {
            seq: 3,
            action: Action::Flag,
            row: mine.0,
            col: mine.1,
        })
        .await;
    assert!(
        matches!(flagged, ServerMsg::Ack { flagged: true, .. }),
        "{flagged:?}"
    );
    let view = a.client.welcome().view;
    let safe = cells_of(&second, false)
        .into_iter()
        .find(|&(r, c)| a.picture.cell(view, r as usize, c as usize) == Some(cell::HIDDEN))
        .unwrap();
    let opened = a.act(reveal(4, safe)).await;
    assert!(
        matches!(opened, ServerMsg::Ack { status: 0, .. }),
        "{opened:?}"
    );
    let token = a.client.token_hex();

    assert_eq!(archived(server.data.path(), 1).await.len(), 1);
    let data = server.stop().await;
    // From the newest snapshot (the shutdown wrote one), and from the log alone, as after a
    // kill before any snapshot of game 2: the same game 2, with its moves.
    let folder = RoomDir::new(data.path(), "kept").path().to_path_buf();
    for from_log in [false, true] {
        if from_log {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if name.starts_with("snapshot-") {
                    std::fs::remove_file(&path).unwrap();
                }
            }
        }
        let room = recover(data.path(), "kept");
        assert_eq!(room.game(), 2, "from the log alone: {from_log}");
        assert_eq!(cells_of(room.board(), true), cells_of(&second, true));
        let game = room.games().next().unwrap();
        assert_eq!(
            game.cell(mine.0 as usize, mine.1 as usize).unwrap(),
            bitmines_core::Cell::Flagged
        );
        assert!(matches!(
            game.cell(safe.0 as usize, safe.1 as usize).unwrap(),
            bitmines_core::Cell::Open(_)
        ));
        assert_eq!(game.status(), bitmines_core::Status::Playing);
    }

    // Served again: the player comes back by token to game 2 and sees its moves.
    let server = start_in(data, |c| c).await;
    let mut back = Recorder::join(&format!(
        "{}&token={token}",
        server.url("kept", "preset=expert&mode=coop&rule=classic")
    ))
    .await;
    assert_eq!(back.client.welcome().game, 2);
    back.send(ClientMsg::Subscribe(whole_board(16, 30))).await;
    back.until(|m| matches!(m, ServerMsg::Chunk { .. })).await;
    back.drain(Duration::from_millis(100)).await;
    assert_eq!(
        back.picture.cell(view, mine.0 as usize, mine.1 as usize),
        Some(cell::FLAGGED)
    );
    assert!(
        back.picture
            .cell(view, safe.0 as usize, safe.1 as usize)
            .is_some_and(|s| s <= cell::OPEN_MAX)
    );
    // The replays went through game 1's end again (at the start, and when the join brought
    // the room back), but game 1 was archived once, before: the rounds since wrote nothing.
    assert_eq!(archived(server.data.path(), 1).await.len(), 1);
    server.stop().await;
}

/// The last series frame `r` recorded.
fn last_series(r: &Recorder) -> Vec<SeriesEntry> {
    r.frames
        .iter()
        .rev()
        .find_map(|m| match m {
            ServerMsg::Series(entries) => Some(entries.clone()),
            _ => None,
        })
        .expect("no series frame")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_race_series_counts_wins_across_games_and_restarts() {
    let server = start().await;
    let url = server.url("series", "preset=beginner&mode=race");
    let mut a = Recorder::join(&url).await;
    let mut b = Recorder::join(&url).await;
    for r in [&mut a, &mut b] {
        r.send(ClientMsg::Subscribe(whole_board(9, 9))).await;
    }
    let mut seq = 0;
    let mut best = Vec::new();
    for game in 1..=2u32 {
        let board = board_now(server.data.path(), "series");
        let mark = a.frames.len();
        win(&mut a, &board, &mut seq).await;
        let (_, ServerMsg::Over(over)) =
            got(&mut a, mark, |m| matches!(m, ServerMsg::Over(_))).await
        else {
            unreachable!()
        };
        best.push(over.elapsed_ms);
        // Ada won; Bob is still racing, so she may not start the next game yet.
        seq += 1;
        let (code, why) = refusal(&a.act(ClientMsg::Rematch { seq }).await);
        assert_eq!(code, ErrorCode::NotOver as u16, "{why}");
        assert!(why.contains("player 2 still racing"), "{why}");
        seq += 1;
        // Bob's loss is acknowledged after the frames of Ada's win, the series among them.
        lose(&mut b, &board, seq).await;
        let scores = last_series(&b);
        assert_eq!(
            scores,
            vec![
                SeriesEntry {
                    player: 1,
                    wins: game,
                    best_ms: *best.iter().min().unwrap()
                },
                SeriesEntry {
                    player: 2,
                    wins: 0,
                    best_ms: NO_TIME
                }
            ]
        );
        seq += 1;
        let marks = [a.frames.len(), b.frames.len()];
        let ack = b.act(ClientMsg::Rematch { seq }).await;
        assert!(matches!(ack, ServerMsg::Ack { .. }), "{ack:?}");
        for (r, mark) in [&mut a, &mut b].into_iter().zip(marks) {
            sees_new_game(r, game + 1, mark).await;
            r.drain(Duration::from_millis(100)).await;
        }
    }
    // The series lives in the log: a restart keeps it, and a newcomer is told it.
    let data = server.stop().await;
    let room = recover(data.path(), "series");
    assert_eq!(room.game(), 3);
    let min = u64::from(*best.iter().min().unwrap());
    assert_eq!(room.series(), vec![(2, Some(min)), (0, None)]);
    drop(room);
    let server = start_in(data, |c| c).await;
    let mut s = Recorder::join(&server.url("series", "spectate=1")).await;
    assert_eq!(s.client.welcome().game, 3);
    s.until(|m| matches!(m, ServerMsg::Series(_))).await;
    let scores = last_series(&s);
    assert_eq!(scores[0].wins, 2);
    assert_eq!(scores[1].wins, 0);
    server.stop().await;
}

/// A room over [`bitmines_server::room::INLINE_BOARD_CELLS`] makes its next board aside: its
/// players hear how far it is (progress frames) before the rematch is acknowledged, and the
/// new game follows as in any room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_rooms_rematch_is_made_aside_and_told_in_progress_frames() {
    let server = start().await;
    let url = server.url(
        "big",
        "rows=1001&cols=1000&mines=1000&mode=coop&rule=classic",
    );
    const { assert!(1001 * 1000 > bitmines_server::room::INLINE_BOARD_CELLS) };
    let mut a = Recorder::join(&url).await;
    let board = board_now(server.data.path(), "big");
    lose(&mut a, &board, 1).await;
    let mark = a.frames.len();
    let ack = a.act(ClientMsg::Rematch { seq: 2 }).await;
    assert!(matches!(ack, ServerMsg::Ack { seq: 2, .. }), "{ack:?}");
    let told = a.frames[mark..]
        .iter()
        .take_while(|m| !matches!(m, ServerMsg::Ack { seq: 2, .. }))
        .filter(|m| matches!(m, ServerMsg::Progress { .. }))
        .count();
    assert!(told >= 1, "no progress frame before the acknowledgement");
    sees_new_game(&mut a, 2, mark).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_racer_who_left_mid_game_does_not_hold_the_room() {
    let server = start().await;
    let url = server.url("left", "preset=beginner&mode=race");
    let mut a = Recorder::join(&url).await;
    let b = Recorder::join(&url).await;
    let board = board_now(server.data.path(), "left");
    lose(&mut a, &board, 1).await;
    // Bob, still racing, is here: Ada waits.
    let (code, why) = refusal(&a.act(ClientMsg::Rematch { seq: 2 }).await);
    assert_eq!(code, ErrorCode::NotOver as u16, "{why}");
    // Bob leaves in the middle of his game; once the room has seen him go, Ada may start.
    let token = b.client.token_hex();
    b.client.close().await;
    a.until(|m| match m {
        ServerMsg::Players(players) => players.iter().any(|p| p.id == 2 && !p.online),
        _ => false,
    })
    .await;
    let mark = a.frames.len();
    let ack = a.act(ClientMsg::Rematch { seq: 3 }).await;
    assert!(matches!(ack, ServerMsg::Ack { seq: 3, .. }), "{ack:?}");
    sees_new_game(&mut a, 2, mark).await;
    // Bob's token brings him back, into game 2.
    let back = Recorder::join(&format!("{url}&token={token}")).await;
    assert_eq!(back.client.welcome().player, 2);
    assert_eq!(back.client.welcome().game, 2);
    server.stop().await;
}
