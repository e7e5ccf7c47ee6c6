//! Bad input: every kind gets its error frame naming the bad value, and the server keeps
//! serving everyone else. A client that never reads is closed without slowing the others.

mod support;

use std::time::Duration;

use bitmines_server::client::{Client, ClientError};
use bitmines_server::protocol::{Action, ChunkRect, ClientMsg, ErrorCode, ServerMsg};
use support::{Recorder, start, start_with};

async fn refused(url: &str) -> (u16, String) {
    match Client::connect(url).await {
        Err(ClientError::Refused { code, message }) => (code, message),
        Err(other) => panic!("{url}: {other}"),
        Ok(_) => panic!("{url}: joined"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_joins_are_refused_with_the_numbers() {
    let server = start().await;
    let cases: Vec<(String, ErrorCode, &str)> = vec![
        (
            server.url("huge", "rows=1000000&cols=1000000"),
            ErrorCode::Limit,
            "1000000000000 cells, over this server's limit of 1000000000",
        ),
        (
            server.url("neg", "rows=-5"),
            ErrorCode::BadParameter,
            "rows=\"-5\" is not a whole number",
        ),
        (
            server.url("bad.name", ""),
            ErrorCode::BadParameter,
            "is not 1 to 64 letters",
        ),
        (
            server.url("v2", "v=2"),
            ErrorCode::BadParameter,
            "v=2 is not spoken here",
        ),
        (
            server.url("tok", "token=zz"),
            ErrorCode::BadToken,
            "is not 32 hexadecimal digits",
        ),
        (
            server.url("tok", &format!("token={}", "ab".repeat(16))),
            ErrorCode::BadToken,
            "names no player",
        ),
        (
            server.url("race", "mode=race&rule=endless"),
            ErrorCode::BadParameter,
            "a race is classic",
        ),
        (
            server.url("empty", "rows=0&cols=5"),
            ErrorCode::BadParameter,
            "a 0x5 board has no cells",
        ),
        (
            server.url("full", "rows=9&cols=9&mines=80"),
            ErrorCode::BadParameter,
            "80 mines do not fit a 9x9 board",
        ),
        (
            server.url("first", "rows=9&cols=9&first=9,0"),
            ErrorCode::BadParameter,
            "first=(9, 0) is off a 9x9 board",
        ),
        // Too many mines on a board over the limit: the parameters are wrong wherever the
        // room is made, so that comes first.
        (
            server.url(
                "hugefull",
                "rows=1000000&cols=1000000&density=0.5&first=0,2000000",
            ),
            ErrorCode::BadParameter,
            "is off a 1000000x1000000 board",
        ),
    ];
    for (url, code, text) in cases {
        let (got, message) = refused(&url).await;
        assert_eq!(got, code as u16, "{url}: {message}");
        assert!(message.contains(text), "{url}: {message}");
    }
    // A room made with one size refuses a join asking another, naming the parameter.
    let _a = Client::connect(&server.url("sized", "preset=beginner"))
        .await
        .unwrap();
    let (code, message) = refused(&server.url("sized", "preset=expert")).await;
    assert_eq!(code, ErrorCode::RoomMismatch as u16);
    assert_eq!(
        message,
        "room sized exists: the room has rows=9, the join asked 16"
    );
    // The same parameters again join.
    Client::connect(&server.url("sized", "preset=beginner&mode=coop"))
        .await
        .unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_frames_get_errors_and_the_room_plays_on() {
    let server = start().await;
    let url = server.url("bad", "preset=expert");
    let mut good = Recorder::join(&url).await;
    let mut bad = Recorder::join(&url).await;
    let mut spectator = Recorder::join(&server.url("bad", "spectate=1")).await;
    let cases: Vec<(Vec<u8>, u16, &str)> = vec![
        (vec![], ErrorCode::BadFrame as u16, "empty frame"),
        (
            vec![0x7f],
            ErrorCode::BadFrame as u16,
            "unknown message type 0x7f",
        ),
        (
            vec![0x03, 1, 2],
            ErrorCode::BadFrame as u16,
            "message 0x03 has 3 bytes, expected 13",
        ),
        (
            vec![0u8; 65],
            ErrorCode::BadFrame as u16,
            "a frame of 65 bytes, over the limit of 64",
        ),
        (
            ClientMsg::Move {
                seq: 5,
                action: Action::Reveal,
                row: 16,
                col: 0,
            }
            .encode()
            .to_vec(),
            ErrorCode::OffBoard as u16,
            "cell (16, 0) is off a 16x30 board",
        ),
        (
            ClientMsg::Move {
                seq: 6,
                action: Action::Flag,
                row: 0,
                col: u32::MAX,
            }
            .encode()
            .to_vec(),
            ErrorCode::OffBoard as u16,
            "cell (0, 4294967295) is off a 16x30 board",
        ),
        (
            ClientMsg::Subscribe(ChunkRect {
                row: 0,
                col: 0,
                rows: 2,
                cols: 1,
            })
            .encode()
            .to_vec(),
            ErrorCode::OffBoard as u16,
            "off a board of 1x1 chunks",
        ),
        (
            vec![0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0],
            ErrorCode::BadFrame as u16,
            "a rectangle of 0x1 chunks is empty",
        ),
        (
            ClientMsg::Watch { player: 1 }.encode().to_vec(),
            ErrorCode::NotAllowed as u16,
            "a co-op room has one view",
        ),
    ];
    for (bytes, code, text) in cases {
        bad.client.send_raw(bytes.clone()).await.unwrap();
        let got = bad.until(|m| matches!(m, ServerMsg::Error { .. })).await;
        let ServerMsg::Error {
            code: c, message, ..
        } = got
        else {
            unreachable!()
        };
        assert_eq!(c, code, "{bytes:?}: {message}");
        assert!(message.contains(text), "{bytes:?}: {message}");
    }
    bad.client.send_text("hello").await.unwrap();
    let got = bad.until(|m| matches!(m, ServerMsg::Error { .. })).await;
    assert!(
        matches!(got, ServerMsg::Error { code: 1, ref message, .. } if message.contains("text frames"))
    );
    // A spectator cannot move, flag or ask for a hint.
    for msg in [
        ClientMsg::Move {
            seq: 1,
            action: Action::Reveal,
            row: 0,
            col: 0,
        },
        ClientMsg::Move {
            seq: 2,
            action: Action::Flag,
            row: 0,
            col: 0,
        },
        ClientMsg::Hint {
            seq: 3,
            row: 0,
            col: 0,
        },
    ] {
        let got = spectator.act(msg).await;
        assert!(
            matches!(got, ServerMsg::Error { code: 3, ref message, .. } if message.contains("spectators")),
            "{got:?}"
        );
    }
    // Past the most chunks a connection may watch.
    let wide = server.url("wide", "rows=2000&cols=2000");
    let mut watcher = Recorder::join(&wide).await;
    watcher
        .send(ClientMsg::Subscribe(ChunkRect {
            row: 0,
            col: 0,
            rows: 16,
            cols: 17,
        }))
        .await;
    let got = watcher
        .until(|m| matches!(m, ServerMsg::Error { .. }))
        .await;
    assert!(
        matches!(got, ServerMsg::Error { code: 6, ref message, .. } if message.contains("over the limit of 256")),
        "{got:?}"
    );
    // The good player still plays.
    let ack = good
        .act(ClientMsg::Move {
            seq: 1,
            action: Action::Flag,
            row: 0,
            col: 0,
        })
        .await;
    assert!(
        matches!(ack, ServerMsg::Ack { flagged: true, .. }),
        "{ack:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_is_rate_limited_then_closed_and_others_are_unaffected() {
    let server = start_with(|c| bitmines_server::server::Config {
        rate: 5.0,
        burst: 5.0,
        ..c
    })
    .await;
    let url = server.url("flood", "rows=100&cols=100");
    let mut good = Recorder::join(&url).await;
    let mut flood = Recorder::join(&url).await;
    for i in 0..400u32 {
        if flood
            .client
            .send(&ClientMsg::Ping {
                nonce: u64::from(i),
            })
            .await
            .is_err()
        {
            break;
        }
    }
    let mut limited = 0;
    while flood.next(Duration::from_secs(2)).await.is_some() {
        if let Some(ServerMsg::Error { code, .. }) = flood.frames.last() {
            limited += u32::from(*code == ErrorCode::RateLimited as u16);
        }
    }
    let kinds: Vec<String> = flood
        .frames
        .iter()
        .map(|f| format!("{:?}", f).chars().take(30).collect())
        .collect();
    assert!(
        limited > 100,
        "{limited} rate-limit errors; {:?}; {:?}",
        &kinds[..kinds.len().min(8)],
        flood.closed
    );
    match &flood.closed {
        Some(ClientError::Closed(Some((1008, reason)))) => {
            assert!(reason.contains("bad or refused frames"), "{reason}")
        }
        other => panic!("the flood was not closed: {other:?}"),
    }
    let ack = good
        .act(ClientMsg::Move {
            seq: 1,
            action: Action::Flag,
            row: 0,
            col: 0,
        })
        .await;
    assert!(matches!(ack, ServerMsg::Ack { .. }), "{ack:?}");
    assert!(
        server
            .metrics()
            .await
            .contains("bitmines_abuse_closes_total 1")
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_is_closed_and_holds_no_more_than_its_queue() {
    let server = start_with(|c| bitmines_server::server::Config {
        queue: 64,
        rate: 10_000.0,
        burst: 10_000.0,
        ..c
    })
    .await;
    // At density 0.05 the first click opens most of the board, so chunks are kilobytes.
    let url = server.url("slow", "rows=512&cols=512&density=0.05");
    let mut good = Recorder::join(&url).await;
    good.send(ClientMsg::Subscribe(ChunkRect::one(0, 0))).await;
    let mut slow = Client::connect(&url).await.unwrap();
    let all = ChunkRect {
        row: 0,
        col: 0,
        rows: 8,
        cols: 8,
    };
    // It asks for all 64 chunks again and again and never reads: its socket's buffers fill,
    // then its queue, and the server closes it.
    let mut seq = 0;
    for round in 0..2000 {
        if slow.send(&ClientMsg::Unsubscribe(all)).await.is_err()
            || slow.send(&ClientMsg::Subscribe(all)).await.is_err()
        {
            break;
        }
        if round % 50 == 0 {
            seq += 1;
            let ack = good
                .act(ClientMsg::Move {
                    seq,
                    action: Action::Flag,
                    row: 0,
                    col: 0,
                })
                .await;
            assert!(matches!(ack, ServerMsg::Ack { .. }), "{ack:?}");
            if server.metrics().await.contains("bitmines_drops_total 1") {
                break;
            }
        }
    }
    let metrics = server.metrics().await;
    assert!(
        metrics.contains("bitmines_drops_total 1"),
        "the slow client was not dropped"
    );
    // The others are served as before.
    let ack = good
        .act(ClientMsg::Move {
            seq: seq + 1,
            action: Action::Flag,
            row: 0,
            col: 1,
        })
        .await;
    assert!(matches!(ack, ServerMsg::Ack { .. }), "{ack:?}");
    drop(slow);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_resumes_the_same_player_view_and_score() {
    let server = start().await;
    let url = server.url("resume", "preset=expert&mode=race");
    let mut first = Recorder::join(&url).await;
    let _other = Recorder::join(&url).await;
    let welcome = first.client.welcome().clone();
    let ack = first
        .act(ClientMsg::Move {
            seq: 1,
            action: Action::Flag,
            row: 0,
            col: 0,
        })
        .await;
    assert!(
        matches!(ack, ServerMsg::Ack { flagged: true, .. }),
        "{ack:?}"
    );
    let token = first.client.token_hex();
    first.client.close().await;
    let mut again = Recorder::join(&format!("{url}&token={token}")).await;
    let back = again.client.welcome().clone();
    assert_eq!(
        (back.player, back.view, back.token),
        (welcome.player, welcome.view, welcome.token)
    );
    again.send(ClientMsg::Subscribe(ChunkRect::one(0, 0))).await;
    again.until(|m| matches!(m, ServerMsg::Chunk { .. })).await;
    assert_eq!(
        again.picture.cell(back.view, 0, 0),
        Some(bitmines_server::protocol::cell::FLAGGED)
    );
    let players = again
        .frames
        .iter()
        .find_map(|f| match f {
            ServerMsg::Players(list) => Some(list.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        players
            .iter()
            .find(|p| p.id == back.player)
            .map(|p| p.flags),
        Some(1)
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scores_survive_a_restart_from_the_snapshot() {
    let server = start().await;
    let url = server.url("kept", "rows=30&cols=30&mines=150&mode=coop");
    let mut first = Recorder::join(&url).await;
    first.send(ClientMsg::Subscribe(ChunkRect::one(0, 0))).await;
    first.until(|m| matches!(m, ServerMsg::Chunk { .. })).await;
    // A flag on a hidden cell, then reveals until one opens something or hits a mine.
    let hidden: Vec<(u32, u32)> = (0..30u32)
        .flat_map(|r| (0..30u32).map(move |c| (r, c)))
        .filter(|&(r, c)| {
            first.picture.cell(0, r as usize, c as usize)
                == Some(bitmines_server::protocol::cell::HIDDEN)
        })
        .collect();
    let (fr, fc) = hidden[0];
    let ack = first
        .act(ClientMsg::Move {
            seq: 1,
            action: Action::Flag,
            row: fr,
            col: fc,
        })
        .await;
    assert!(
        matches!(ack, ServerMsg::Ack { flagged: true, .. }),
        "{ack:?}"
    );
    let mut opened = 0;
    for (i, &(r, c)) in hidden[1..].iter().enumerate() {
        match first
            .act(ClientMsg::Move {
                seq: 2 + i as u32,
                action: Action::Reveal,
                row: r,
                col: c,
            })
            .await
        {
            ServerMsg::Ack {
                opened: o, status, ..
            } => {
                opened += o;
                if o > 0 || status != 0 {
                    break;
                }
            }
            other => panic!("{other:?}"),
        }
    }
    let token = first.client.token_hex();
    let player = first.client.welcome().player;
    first.client.close().await;
    let data = server.stop().await;
    let server = support::start_in(data, |c| c).await;
    let mut again = Recorder::join(&format!("{}&token={token}", server.url("kept", ""))).await;
    let players = match again.until(|m| matches!(m, ServerMsg::Players(_))).await {
        ServerMsg::Players(list) => list,
        _ => unreachable!(),
    };
    let me = players.iter().find(|p| p.id == player).expect("listed");
    assert_eq!((me.revealed, me.flags), (u64::from(opened), 1), "{me:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_connection_is_closed_after_the_idle_time_and_a_talking_one_is_not() {
    let server = start_with(|c| bitmines_server::server::Config {
        idle: Duration::from_secs(1),
        ..c
    })
    .await;
    let url = server.url("idle", "rows=50&cols=50");
    let mut silent = Recorder::join(&url).await;
    let mut talking = Recorder::join(&url).await;
    // The talker pings every 300 ms for 2.4 s, twice the idle time; the other says nothing.
    for i in 0..8u64 {
        talking
            .client
            .send(&ClientMsg::Ping { nonce: i })
            .await
            .unwrap();
        talking.drain(Duration::from_millis(300)).await;
    }
    silent.drain(Duration::from_secs(2)).await;
    match &silent.closed {
        Some(ClientError::Closed(Some((1000, reason)))) => {
            assert_eq!(reason, "idle for 1 s")
        }
        other => panic!("the silent connection was not closed as idle: {other:?}"),
    }
    assert!(talking.closed.is_none(), "{:?}", talking.closed);
    let ack = talking
        .act(ClientMsg::Move {
            seq: 1,
            action: Action::Reveal,
            row: 0,
            col: 0,
        })
        .await;
    assert!(matches!(ack, ServerMsg::Ack { .. }), "{ack:?}");
    server.stop().await;
}
