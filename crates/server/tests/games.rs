//! Whole games over real sockets: a race to the end, a co-op loss, an endless co-op game on a
//! large board. After each, every client's picture is checked against the room that recovery
//! rebuilds from the log (the replay of the acknowledged moves), and every frame any client
//! received is checked against the truth (the leak test).

mod support;

use std::time::Duration;

use bitmines_core::{Game, Position, Status};
use bitmines_server::protocol::{Action, ChunkRect, ClientMsg, EventKind, ServerMsg, cell};
use bitmines_server::room::{ViewCells, window_hint, window_odds};
use support::{Receiver, Recorder, check_no_leak, expected_state, recover, start};

const SHORT: Duration = Duration::from_millis(300);

fn whole_board(rows: u32, cols: u32) -> ChunkRect {
    ChunkRect {
        row: 0,
        col: 0,
        rows: rows.div_ceil(64) as u16,
        cols: cols.div_ceil(64) as u16,
    }
}

/// The next move of a player who sees the whole board in `picture`: a cell the solver proves
/// safe, or its safest guess.
fn solver_move(
    picture: &bitmines_server::client::Picture,
    view: u32,
    rows: usize,
    cols: usize,
    mines: usize,
) -> Option<(usize, usize)> {
    let mut position = Position::new(rows, cols, mines).unwrap();
    let mut hidden = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            match picture.cell(view, r, c)? {
                s if s <= cell::OPEN_MAX => position.reveal(r, c, s).unwrap(),
                cell::HIDDEN | cell::FLAGGED => hidden.push((r, c)),
                _ => {}
            }
        }
    }
    if hidden.is_empty() {
        return None;
    }
    if let Ok(Some(hint)) = bitmines_solve::hint(&position) {
        return Some(hint.cell());
    }
    let odds = bitmines_solve::probabilities(&position).unwrap();
    hidden.into_iter().min_by(|a, b| {
        odds.mine(a.0, a.1)
            .unwrap()
            .total_cmp(&odds.mine(b.0, b.1).unwrap())
    })
}

/// The picture holds exactly the view of `game` for every cell of the board.
fn assert_picture_is(
    picture: &bitmines_server::client::Picture,
    view: u32,
    game: &Game,
    truth: bool,
) {
    for r in 0..game.rows() {
        for c in 0..game.cols() {
            assert_eq!(
                picture.cell(view, r, c),
                Some(expected_state(game, r, c, truth)),
                "view {view} cell ({r}, {c})"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_race_to_the_end_with_a_spectator_and_help() {
    let server = support::start_with(|c| bitmines_server::server::Config {
        help_rate: 1000.0,
        ..c
    })
    .await;
    let url = server.url("race", "preset=intermediate&mode=race&noguess=1");
    let mut a = Recorder::join(&format!("{url}&name=ada")).await;
    let mut b = Recorder::join(&format!("{url}&name=bob")).await;
    let mut spectator = Recorder::join(&server.url("race", "spectate=1")).await;
    let (rows, cols) = (16usize, 16usize);
    for r in [&mut a, &mut b, &mut spectator] {
        r.send(ClientMsg::Subscribe(whole_board(16, 16))).await;
    }
    spectator.send(ClientMsg::Watch { player: 2 }).await;
    let views = [a.client.welcome().view, b.client.welcome().view];
    assert_ne!(views[0], views[1], "racers have views of their own");
    let mut seq = 0;
    let mut done = [false, false];
    let mut hints = 0;
    while !(done[0] && done[1]) {
        for (i, player) in [&mut a, &mut b].into_iter().enumerate() {
            if done[i] {
                continue;
            }
            player.drain(Duration::from_millis(5)).await;
            seq += 1;
            // Every third move asks the server for a hint first, and checks that it is what
            // the player's own picture proves (nothing but the view went into it).
            if seq % 3 == 0 {
                let hint = player
                    .act(ClientMsg::Hint {
                        seq,
                        row: 8,
                        col: 8,
                    })
                    .await;
                let picture = player.picture.clone();
                let view = views[i];
                let cell_of = |r: usize, c: usize| support_cell(&picture, view, r, c);
                let params = bitmines_server::params::Requested::from_query(
                    &bitmines_server::params::parse_query("preset=intermediate&mode=race"),
                )
                .unwrap()
                .resolve(1 << 40)
                .unwrap();
                let revealed = (0..rows * cols)
                    .filter(|&k| {
                        picture
                            .cell(view, k / cols, k % cols)
                            .is_some_and(|s| s <= 8)
                    })
                    .count();
                let cells = ViewCells {
                    params: &params,
                    cell: &cell_of,
                    revealed,
                    exploded: 0,
                };
                let ServerMsg::Hint { found, .. } = hint else {
                    panic!("{hint:?}")
                };
                assert_eq!(
                    found,
                    window_hint(&cells, 8, 8).unwrap(),
                    "the hint is the picture's"
                );
                let odds = player
                    .act(ClientMsg::Odds {
                        seq: seq + 1000,
                        row: 8,
                        col: 8,
                    })
                    .await;
                let ServerMsg::Odds {
                    row,
                    col,
                    height,
                    width,
                    cells: got,
                    ..
                } = odds
                else {
                    panic!("{odds:?}")
                };
                assert_eq!(
                    (row, col, height, width, got),
                    window_odds(&cells, 8, 8).unwrap(),
                    "the odds are the picture's"
                );
                if let Some((r, c, _)) = found {
                    hints += 1;
                    let ack = player
                        .act(ClientMsg::Move {
                            seq,
                            action: Action::Reveal,
                            row: r,
                            col: c,
                        })
                        .await;
                    let ServerMsg::Ack { status, .. } = ack else {
                        panic!("{ack:?}")
                    };
                    done[i] = status != 0;
                    continue;
                }
            }
            let Some((r, c)) = solver_move(&player.picture, views[i], rows, cols, 40) else {
                done[i] = true;
                continue;
            };
            match player
                .act(ClientMsg::Move {
                    seq,
                    action: Action::Reveal,
                    row: r as u32,
                    col: c as u32,
                })
                .await
            {
                ServerMsg::Ack { status, .. } => done[i] = status != 0,
                ServerMsg::Error { message, .. } => panic!("{message}"),
                other => panic!("{other:?}"),
            }
        }
    }
    assert!(hints > 0, "some hints were found");
    // Every racer gets its end figures (`until` fails after 10 s without them); the first to
    // win is announced to all.
    let over = |f: &ServerMsg| matches!(f, ServerMsg::Over(_));
    let ended = |f: &ServerMsg| {
        matches!(
            f,
            ServerMsg::Event {
                kind: EventKind::Won | EventKind::Lost,
                ..
            }
        )
    };
    for player in [&mut a, &mut b] {
        if !player.frames.iter().any(over) {
            player.until(over).await;
        }
    }
    if !spectator.frames.iter().any(ended) {
        spectator.until(ended).await;
    }
    for r in [&mut a, &mut b, &mut spectator] {
        r.drain(SHORT).await;
    }
    let data = server.stop().await;
    let room = recover(data.path(), "race");
    let games: Vec<&Game> = room.games().collect();
    for (i, player) in [&a, &b].into_iter().enumerate() {
        let game = games[views[i] as usize];
        assert_ne!(game.status(), Status::Playing);
        assert_picture_is(&player.picture, views[i], game, true);
    }
    assert_picture_is(
        &spectator.picture,
        views[1],
        games[views[1] as usize],
        false,
    );
    let mut checked = 0;
    for (frames, plays) in [
        (&a.frames, Some(views[0])),
        (&b.frames, Some(views[1])),
        (&spectator.frames, None),
    ] {
        checked += check_no_leak(room.board(), &games, &Receiver { frames, plays });
    }
    assert!(checked > 500, "{checked} cells checked");
}

fn support_cell(
    picture: &bitmines_server::client::Picture,
    view: u32,
    r: usize,
    c: usize,
) -> bitmines_core::Cell {
    use bitmines_core::Cell;
    match picture.cell(view, r, c) {
        Some(s) if s <= 8 => Cell::Open(s),
        Some(cell::FLAGGED) => Cell::Flagged,
        Some(cell::EXPLODED) => Cell::Exploded,
        _ => Cell::Hidden,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_classic_coop_game_lost_by_one_is_lost_for_all() {
    let server = start().await;
    let url = server.url("coop", "preset=expert&mode=coop&rule=classic");
    let mut a = Recorder::join(&url).await;
    let mut b = Recorder::join(&url).await;
    let mut spectator = Recorder::join(&server.url("coop", "spectate=1")).await;
    for r in [&mut a, &mut b, &mut spectator] {
        r.send(ClientMsg::Subscribe(whole_board(16, 30))).await;
        r.until(|m| matches!(m, ServerMsg::Chunk { .. })).await;
    }
    // Both flag and reveal blindly, row by row from opposite corners, until a mine ends it.
    let mut seq = 0;
    let mut lost = false;
    let mut k = 0usize;
    while !lost {
        for (i, player) in [&mut a, &mut b].into_iter().enumerate() {
            player.drain(Duration::from_millis(2)).await;
            let order: Vec<(usize, usize)> = (0..480)
                .map(|n| {
                    if i == 0 {
                        (n / 30, n % 30)
                    } else {
                        (15 - n / 30, 29 - n % 30)
                    }
                })
                .collect();
            let Some(&(r, c)) = order
                .iter()
                .skip(k)
                .find(|&&(r, c)| player.picture.cell(0, r, c) == Some(cell::HIDDEN))
            else {
                continue;
            };
            seq += 1;
            let action = if seq % 7 == 0 {
                Action::Flag
            } else {
                Action::Reveal
            };
            match player
                .act(ClientMsg::Move {
                    seq,
                    action,
                    row: r as u32,
                    col: c as u32,
                })
                .await
            {
                ServerMsg::Ack { status, .. } => lost |= status == 2,
                ServerMsg::Error { message, .. } => assert!(message.contains("over"), "{message}"),
                other => panic!("{other:?}"),
            }
            if lost {
                break;
            }
        }
        k += 1;
    }
    let loss = |f: &ServerMsg| matches!(f, ServerMsg::Over(o) if o.status == 2);
    for player in [&mut a, &mut b] {
        if !player.frames.iter().any(loss) {
            player.until(loss).await;
        }
    }
    for r in [&mut a, &mut b, &mut spectator] {
        r.drain(SHORT).await;
    }
    // Both players see the loss with the mines; the spectator sees the event and no mine.
    for player in [&a, &b] {
        assert!(
            player
                .frames
                .iter()
                .any(|f| matches!(f, ServerMsg::Over(o) if o.status == 2))
        );
        assert!(player.picture.cells().any(|(_, _, _, s)| s == cell::MINE));
    }
    assert!(
        !spectator
            .frames
            .iter()
            .any(|f| matches!(f, ServerMsg::Over(_)))
    );
    assert!(spectator.frames.iter().any(|f| matches!(
        f,
        ServerMsg::Event {
            kind: EventKind::Lost,
            ..
        }
    )));
    // A move after the end is refused.
    let refused = a
        .act(ClientMsg::Move {
            seq: 9999,
            action: Action::Reveal,
            row: 0,
            col: 0,
        })
        .await;
    assert!(
        matches!(refused, ServerMsg::Error { code: 5, .. }),
        "{refused:?}"
    );
    let data = server.stop().await;
    let room = recover(data.path(), "coop");
    let games: Vec<&Game> = room.games().collect();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].status(), Status::Lost);
    assert_picture_is(&a.picture, 0, games[0], true);
    assert_picture_is(&b.picture, 0, games[0], true);
    assert_picture_is(&spectator.picture, 0, games[0], false);
    for (frames, plays) in [
        (&a.frames, Some(0)),
        (&b.frames, Some(0)),
        (&spectator.frames, None),
    ] {
        check_no_leak(room.board(), &games, &Receiver { frames, plays });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_coop_game_on_a_large_board_goes_on_past_mines() {
    let server = start().await;
    let url = server.url(
        "endless",
        "rows=1000&cols=1000&density=0.2&rule=endless&first=500,500",
    );
    let mut players = Vec::new();
    for i in 0..4u32 {
        let mut p = Recorder::join(&format!("{url}&name=p{i}")).await;
        // Each watches a 3x3 block of chunks around the middle.
        p.send(ClientMsg::Subscribe(ChunkRect {
            row: 6,
            col: 6,
            rows: 3,
            cols: 3,
        }))
        .await;
        players.push(p);
    }
    let mut seq = 0;
    let mut hits = 0;
    for round in 0..60usize {
        for (i, p) in players.iter_mut().enumerate() {
            p.drain(Duration::from_millis(1)).await;
            let (r, c) = (
                384 + (round * 7 + i * 41) % 192,
                384 + (round * 13 + i * 29) % 192,
            );
            seq += 1;
            match p
                .act(ClientMsg::Move {
                    seq,
                    action: Action::Reveal,
                    row: r as u32,
                    col: c as u32,
                })
                .await
            {
                ServerMsg::Ack {
                    status, exploded, ..
                } => {
                    assert_eq!(status, 0, "an endless game goes on");
                    hits += exploded;
                }
                other => panic!("{other:?}"),
            }
        }
    }
    assert!(hits > 0, "blind reveals at density 0.2 set off mines");
    for p in &mut players {
        p.drain(SHORT).await;
    }
    let last_players = players[0]
        .frames
        .iter()
        .rev()
        .find_map(|f| match f {
            ServerMsg::Players(list) => Some(list.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(last_players.iter().map(|p| p.mines_hit).sum::<u32>(), hits);
    let data = server.stop().await;
    let room = recover(data.path(), "endless");
    let games: Vec<&Game> = room.games().collect();
    assert_eq!(games[0].status(), Status::Playing);
    assert_eq!(games[0].exploded_count() as u32, hits);
    for p in &players {
        for (view, r, c, state) in p.picture.cells() {
            assert_eq!(
                state,
                expected_state(games[view as usize], r, c, false),
                "({r}, {c})"
            );
        }
        check_no_leak(
            room.board(),
            &games,
            &Receiver {
                frames: &p.frames,
                plays: Some(0),
            },
        );
    }
}

/// A co-op room's team frame counts every cell open in the shared view, the first click's
/// opening included (which no player's count holds), and follows the players' moves.
#[tokio::test]
async fn the_team_frame_counts_every_open_cell_of_a_coop_view() {
    let server = start().await;
    let url = server.url("team", "preset=expert&mode=coop&rule=endless");
    let mut a = Recorder::join(&url).await;
    a.send(ClientMsg::Subscribe(whole_board(16, 30))).await;
    a.until(|m| matches!(m, ServerMsg::Chunk { .. })).await;
    let open = |a: &Recorder| {
        (0..16)
            .flat_map(|r| (0..30).map(move |c| (r, c)))
            .filter(|&(r, c)| a.picture.cell(0, r, c).is_some_and(|s| s <= cell::OPEN_MAX))
            .count() as u64
    };
    let team = |f: &ServerMsg| match f {
        ServerMsg::Team { opened } => Some(*opened),
        _ => None,
    };
    let first = a
        .frames
        .iter()
        .find_map(team)
        .expect("a team frame on joining");
    assert!(first > 0, "the first click's opening");
    assert_eq!(first, open(&a));
    let players_sum = |a: &Recorder| {
        a.frames.iter().rev().find_map(|f| match f {
            ServerMsg::Players(p) => Some(p.iter().map(|p| p.revealed).sum::<u64>()),
            _ => None,
        })
    };
    assert_eq!(players_sum(&a), Some(0), "no player has opened a cell yet");
    // Reveal hidden cells until one opens something; the next team frame counts it.
    let mut seq = 0;
    while open(&a) == first {
        let (r, c) = (0..480)
            .map(|k| (k / 30, k % 30))
            .find(|&(r, c)| a.picture.cell(0, r, c) == Some(cell::HIDDEN))
            .expect("a hidden cell");
        seq += 1;
        let msg = ClientMsg::Move {
            seq,
            action: Action::Reveal,
            row: r as u32,
            col: c as u32,
        };
        a.act(msg).await;
    }
    let now = open(&a);
    let last = a
        .until(|f| matches!(f, ServerMsg::Team { opened } if *opened == now))
        .await;
    assert_eq!(team(&last), Some(now));
    server.stop().await;
}
