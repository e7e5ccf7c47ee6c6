//! What a connection may hold and what it is told: a socket that does not become a
//! WebSocket in time is closed, sockets past the budget are closed at once, a player's newer
//! connection takes the player over, a refused frame is answered with its own seq, a flood's
//! close comes after the answers to the frames before it, and a join's query is read whole.

mod support;

use std::time::Duration;

use bitmines_server::client::{Client, ClientError};
use bitmines_server::protocol::{
    Action, CLOSE_TAKEN_OVER, ChunkRect, ClientMsg, ErrorCode, ServerMsg, TAKEN_OVER, cell,
};
use bitmines_server::server::Config;
use support::{Recorder, start, start_with};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Reads from a raw socket until the server closes it, within 10 s: true when it closed
/// (an end of stream or a reset), false when it stayed open that long.
async fn closed_by_server(socket: &mut TcpStream) -> bool {
    let mut buf = [0u8; 4096];
    let read_all = async {
        loop {
            match socket.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read_all)
        .await
        .is_ok()
}

/// A request for a WebSocket cut off before its blank line: the server waits for the rest.
fn half_request(room: &str) -> String {
    format!(
        "GET /room/{room}?preset=beginner HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n\
         Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
    )
}

/// The value of a metric in the server's /metrics text, 0 when it is not there.
fn metric(text: &str, name: &str) -> u64 {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0)
}

fn flag(seq: u32, row: u32, col: u32) -> ClientMsg {
    ClientMsg::Move {
        seq,
        action: Action::Flag,
        row,
        col,
    }
}

/// The seq of an answer to a move or help request, if the frame is one.
fn answer_seq(msg: &ServerMsg) -> Option<u32> {
    match msg {
        ServerMsg::Ack { seq, .. }
        | ServerMsg::Error { seq, .. }
        | ServerMsg::Hint { seq, .. }
        | ServerMsg::Odds { seq, .. }
        | ServerMsg::WrongFlags { seq, .. } => Some(*seq),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_that_does_not_upgrade_in_time_is_closed_and_joins_go_on() {
    let timeout = Duration::from_millis(500);
    let server = start_with(|c| Config {
        upgrade_timeout: timeout,
        ..c
    })
    .await;
    // Twenty requests sent half, five sockets that send nothing, and one keep-alive
    // connection that asked for /healthz and then says nothing more.
    let mut held = Vec::new();
    for i in 0..25 {
        let mut socket = TcpStream::connect(server.addr).await.unwrap();
        if i < 20 {
            socket
                .write_all(half_request("half").as_bytes())
                .await
                .unwrap();
        }
        held.push(socket);
    }
    let mut keep_alive = TcpStream::connect(server.addr).await.unwrap();
    keep_alive
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut answer = [0u8; 512];
    let n = tokio::time::timeout(Duration::from_secs(10), keep_alive.read(&mut answer))
        .await
        .expect("no answer to /healthz")
        .unwrap();
    assert!(
        answer[..n].starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&answer[..n])
    );
    // A join meanwhile works, and its WebSocket outlives the deadline.
    let mut player = Recorder::join(&server.url("half", "preset=beginner")).await;
    for (i, socket) in held.iter_mut().enumerate() {
        assert!(
            closed_by_server(socket).await,
            "socket {i} was still open 10 s after a deadline of {timeout:?}"
        );
    }
    assert!(
        closed_by_server(&mut keep_alive).await,
        "the idle keep-alive connection was still open"
    );
    tokio::time::sleep(timeout * 2).await;
    let ack = player.act(flag(1, 0, 0)).await;
    assert!(
        matches!(ack, ServerMsg::Ack { seq: 1, .. }),
        "{ack:?}; closed: {:?}",
        player.closed
    );
    let metrics = server.metrics().await;
    assert_eq!(
        metric(&metrics, "bitmines_upgrade_timeouts_total"),
        26,
        "{metrics}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_head_over_the_limit_is_refused_and_closed() {
    let server = start().await;
    let mut socket = TcpStream::connect(server.addr).await.unwrap();
    // Twice the limit: a head a little over it may be taken when it comes in one read.
    let big = "a".repeat(2 * bitmines_server::listen::MAX_REQUEST_HEAD);
    // The server may close before it has read all of it: a failed write is fine.
    let _ = socket
        .write_all(
            format!("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: {big}\r\n\r\n").as_bytes(),
        )
        .await;
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), socket.read_to_end(&mut answer)).await;
    assert!(
        answer.starts_with(b"HTTP/1.1 431"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
    // A head under the limit is served.
    let ok = support::http_get(server.addr, "/healthz").await;
    assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_past_the_budget_are_closed_at_once_and_joins_resume_when_they_go() {
    let server = start_with(|c| Config {
        max_connections: 1,
        upgrade_timeout: Duration::from_secs(60),
        ..c
    })
    .await;
    let most = 1 + bitmines_server::listen::TURN_AWAY;
    // The budget's sockets, each holding a request sent half (the deadline is far off).
    let mut held = Vec::new();
    for _ in 0..most {
        let mut socket = TcpStream::connect(server.addr).await.unwrap();
        socket
            .write_all(half_request("full").as_bytes())
            .await
            .unwrap();
        held.push(socket);
    }
    // One more is closed as soon as it is accepted, long before any deadline.
    let mut extra = TcpStream::connect(server.addr).await.unwrap();
    assert!(
        closed_by_server(&mut extra).await,
        "a socket past the budget of {most} was kept open"
    );

    // Once the held sockets close, a join gets in (tried for at most 10 s, as their
    // closing reaches the server).
    drop(held);
    let url = server.url("full", "preset=beginner");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let joined = loop {
        match Client::connect(&url).await {
            Ok(client) => break client,
            Err(e) if tokio::time::Instant::now() < deadline => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("no join within 10 s of the held sockets closing: {e}"),
        }
    };
    assert!(!joined.welcome().spectator);
    // The extra socket was counted as refused (and so was any join tried while the held
    // sockets were still closing).
    let metrics = server.metrics().await;
    assert!(
        metric(&metrics, "bitmines_sockets_refused_total") >= 1,
        "{metrics}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_connection_with_the_token_takes_the_player_over() {
    let server = start().await;
    let url = server.url("over", "preset=beginner&mode=race");
    let mut first = Recorder::join(&url).await;
    let mut other = Recorder::join(&url).await;
    let welcome = first.client.welcome().clone();
    // A cell still hidden on the player's view (the first click opened a region).
    first.send(ClientMsg::Subscribe(ChunkRect::one(0, 0))).await;
    first.until(|m| matches!(m, ServerMsg::Chunk { .. })).await;
    let (row, col) = (0..9u32)
        .flat_map(|r| (0..9u32).map(move |c| (r, c)))
        .find(|&(r, c)| {
            first.picture.cell(welcome.view, r as usize, c as usize) == Some(cell::HIDDEN)
        })
        .expect("a hidden cell");
    let ack = first.act(flag(1, row, col)).await;
    assert!(
        matches!(ack, ServerMsg::Ack { flagged: true, .. }),
        "{ack:?}"
    );
    // A spectator naming the token watches and takes nothing over.
    let token = first.client.token_hex();
    let _watcher = Recorder::join(&server.url("over", &format!("spectate=1&token={token}"))).await;
    first.send(ClientMsg::Ping { nonce: 2 }).await;
    first
        .until(|m| matches!(m, ServerMsg::Pong { nonce: 2 }))
        .await;
    // A player's join with it takes the player, view and flags over ...
    let mut second = Recorder::join(&format!("{url}&token={token}")).await;
    let back = second.client.welcome().clone();
    assert_eq!(
        (back.player, back.view, back.token),
        (welcome.player, welcome.view, welcome.token)
    );
    let ack = second.act(flag(3, row, col)).await;
    assert!(
        matches!(ack, ServerMsg::Ack { flagged: false, .. }),
        "the flag the first connection set is not the player's: {ack:?}"
    );
    // ... and the first connection is closed, saying why.
    first.drain(Duration::from_secs(10)).await;
    match &first.closed {
        Some(ClientError::Closed(Some((code, reason)))) => {
            assert_eq!((*code, reason.as_str()), (CLOSE_TAKEN_OVER, TAKEN_OVER));
        }
        other => panic!("the first connection was not closed as taken over: {other:?}"),
    }
    // The room's other player saw no one leave.
    other.drain(Duration::from_millis(300)).await;
    let left = other.frames.iter().any(|f| {
        matches!(f, ServerMsg::Event { kind, player, .. }
            if *kind == bitmines_server::protocol::EventKind::Left && *player == welcome.player)
    });
    assert!(!left, "the player was reported gone: {:?}", other.frames);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_refused_for_the_rate_is_answered_with_its_own_seq() {
    // A burst of two and one frame a second: of eight moves sent at once, most are refused.
    let server = start_with(|c| Config {
        rate: 1.0,
        burst: 2.0,
        ..c
    })
    .await;
    let mut player = Recorder::join(&server.url("rate", "rows=20&cols=20&first=10,10")).await;
    for seq in 1..=8 {
        player.send(flag(seq, 0, seq)).await;
    }
    let mut answers: Vec<(u32, String)> = Vec::new();
    while answers.len() < 8 {
        let msg = player.until(|m| answer_seq(m).is_some()).await;
        let kind = match &msg {
            ServerMsg::Ack { .. } => "ack".to_string(),
            ServerMsg::Error { code, message, .. } => format!("error {code}: {message}"),
            other => format!("{other:?}"),
        };
        answers.push((answer_seq(&msg).unwrap_or(0), kind));
    }
    let mut seqs: Vec<u32> = answers.iter().map(|a| a.0).collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=8).collect::<Vec<_>>(), "{answers:?}");
    let limited = answers
        .iter()
        .filter(|a| {
            a.1 == format!(
                "error {}: more than 1 frames a second",
                ErrorCode::RateLimited as u16
            )
        })
        .count();
    let acked = answers.iter().filter(|a| a.1 == "ack").count();
    assert!(limited >= 1 && acked >= 1, "{answers:?}");
    assert_eq!(limited + acked, 8, "{answers:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_is_closed_only_after_the_answers_to_the_frames_before_it() {
    let server = start().await;
    let mut flood = Recorder::join(&server.url("burst", "rows=100&cols=100")).await;
    // Twenty good moves, then bad frames enough to close the connection, all sent before
    // anything is read.
    for seq in 1..=20 {
        flood.send(flag(seq, 99, seq)).await;
    }
    for _ in 0..120 {
        if flood.client.send_raw(vec![0x7f]).await.is_err() {
            break;
        }
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while flood.closed.is_none() && tokio::time::Instant::now() < deadline {
        flood.next(Duration::from_secs(10)).await;
    }
    match &flood.closed {
        Some(ClientError::Closed(Some((1008, reason)))) => {
            assert_eq!(reason, "more than 100 bad or refused frames");
        }
        other => panic!("the flood was not closed: {other:?}"),
    }
    for seq in 1..=20 {
        let answer = flood
            .frames
            .iter()
            .find(|f| matches!(f, ServerMsg::Ack { seq: s, .. } if *s == seq));
        assert!(
            answer.is_some(),
            "move {seq} got no ack before the close; the moves answered: {:?}",
            flood
                .frames
                .iter()
                .filter_map(answer_seq)
                .filter(|&s| s != 0)
                .collect::<Vec<_>>()
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_with_an_unknown_key_or_a_bad_value_is_refused_naming_it() {
    let server = start().await;
    for (query, text) in [
        ("preset=beginner&colz=5", "\"colz\" is not a query key"),
        ("spectate=2", "spectate=\"2\" is not 0 or 1"),
    ] {
        match Client::connect(&server.url("keys", query)).await {
            Err(ClientError::Refused { code, message }) => {
                assert_eq!(code, ErrorCode::BadParameter as u16, "{query}: {message}");
                assert!(message.contains(text), "{query}: {message}");
            }
            Err(other) => panic!("{query}: {other}"),
            Ok(_) => panic!("{query}: joined"),
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_counts_until_it_closes_so_joins_never_use_up_the_budget() {
    let server = start_with(|c| Config {
        max_connections: 16,
        ..c
    })
    .await;
    let url = server.url("many", "preset=beginner");
    // Over twice the budget of 16 + 64 sockets, one after the other: a WebSocket's socket
    // leaves the count when it closes, or the later joins would be closed at once.
    for i in 0..200 {
        let client = Client::connect(&url)
            .await
            .unwrap_or_else(|e| panic!("join {i}: {e}"));
        client.close().await;
    }
    // Once the last closes reach the server, only the socket asking for the metrics is open.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let metrics = server.metrics().await;
        if metric(&metrics, "bitmines_sockets") == 1 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "sockets still counted 10 s after the last close: {metrics}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.stop().await;
}
