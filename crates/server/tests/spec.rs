//! Cases `PROTOCOL.md` states, checked against a server on loopback: which answers carry
//! seq 0, what an ack's `flagged` says, what an event's cell is, and what a message over
//! the size limit does.

mod support;

use std::time::Duration;

use bitmines_server::client::ClientError;
use bitmines_server::protocol::{
    Action, ChunkRect, ClientMsg, ErrorCode, EventKind, ServerMsg, cell,
};
use support::{Recorder, start};

/// The error answering the last request, as the recorder saw it.
fn error(msg: &ServerMsg) -> (u32, u16, &str) {
    match msg {
        ServerMsg::Error { seq, code, message } => (*seq, *code, message),
        other => panic!("not an error: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_up_to_1024_bytes_is_a_bad_frame_and_a_larger_one_closes_with_1009() {
    let server = start().await;
    let mut client = Recorder::join(&server.url("big", "rows=20&cols=20")).await;
    client.client.send_raw(vec![0x03; 100]).await.unwrap();
    let answer = client.until(|m| matches!(m, ServerMsg::Error { .. })).await;
    let (seq, code, message) = error(&answer);
    assert_eq!((seq, code), (0, ErrorCode::BadFrame as u16), "{message}");
    assert!(message.contains("100 bytes"), "{message}");
    // The connection plays on after it.
    client.send(ClientMsg::Ping { nonce: 7 }).await;
    client
        .until(|m| matches!(m, ServerMsg::Pong { nonce: 7 }))
        .await;
    client.client.send_raw(vec![0x03; 2000]).await.unwrap();
    client.drain(Duration::from_secs(5)).await;
    match &client.closed {
        Some(ClientError::Closed(Some((1009, reason)))) => {
            assert!(reason.contains("over the limit of 1024"), "{reason}")
        }
        other => panic!("not closed with 1009: {other:?}"),
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_carry_seq_0_only_for_frames_without_one() {
    let server = start().await;
    let mut client = Recorder::join(&server.url("seq", "rows=20&cols=20")).await;
    // Refusals of messages that have no seq carry 0: a subscription off the board, a
    // watch in co-op.
    let off = ChunkRect::one(5, 0);
    client.send(ClientMsg::Subscribe(off)).await;
    let answer = client.until(|m| matches!(m, ServerMsg::Error { .. })).await;
    assert_eq!(error(&answer).0, 0);
    assert_eq!(error(&answer).1, ErrorCode::OffBoard as u16);
    client.send(ClientMsg::Watch { player: 1 }).await;
    let answer = client.until(|m| matches!(m, ServerMsg::Error { .. })).await;
    assert_eq!(
        (error(&answer).0, error(&answer).1),
        (0, ErrorCode::NotAllowed as u16)
    );
    // A move or a help request refused carries its own.
    for (seq, msg) in [
        (
            41,
            ClientMsg::Move {
                seq: 41,
                action: Action::Reveal,
                row: 20,
                col: 0,
            },
        ),
        (
            42,
            ClientMsg::Odds {
                seq: 42,
                row: 0,
                col: 99,
            },
        ),
    ] {
        let answer = client.act(msg).await;
        assert_eq!(
            (error(&answer).0, error(&answer).1),
            (seq, ErrorCode::OffBoard as u16)
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ack_says_whether_a_flag_stands_and_events_name_a_cell_only_for_a_mine() {
    let server = start().await;
    let url = server.url("acks", "rows=20&cols=20");
    let mut client = Recorder::join(&url).await;
    client
        .send(ClientMsg::Subscribe(ChunkRect::one(0, 0)))
        .await;
    client.until(|m| matches!(m, ServerMsg::Chunk { .. })).await;
    let hidden = (0..20usize)
        .flat_map(|r| (0..20usize).map(move |c| (r, c)))
        .find(|&(r, c)| client.picture.cell(0, r, c) == Some(cell::HIDDEN))
        .expect("a hidden cell");
    let (row, col) = (hidden.0 as u32, hidden.1 as u32);
    let flagged = |answer: &ServerMsg| match answer {
        ServerMsg::Ack { flagged, .. } => *flagged,
        other => panic!("not an ack: {other:?}"),
    };
    let flag = |seq| ClientMsg::Move {
        seq,
        action: Action::Flag,
        row,
        col,
    };
    assert!(flagged(&client.act(flag(1)).await), "the flag stands");
    assert!(
        !flagged(&client.act(flag(2)).await),
        "the flag was taken off"
    );
    // A reveal's ack never says flagged; the first click is open, so it changes nothing.
    let first = ClientMsg::Move {
        seq: 3,
        action: Action::Reveal,
        row: 10,
        col: 10,
    };
    assert!(!flagged(&client.act(first).await));
    // A joined event names the player and no cell.
    let _other = Recorder::join(&url).await;
    let joined = client
        .until(|m| {
            matches!(
                m,
                ServerMsg::Event {
                    kind: EventKind::Joined,
                    ..
                }
            )
        })
        .await;
    assert_eq!(
        joined,
        ServerMsg::Event {
            kind: EventKind::Joined,
            player: 2,
            row: 0,
            col: 0,
        }
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn summaries_come_when_asked_and_a_burst_past_the_rate_is_refused_with_seq_0() {
    let server = start().await;
    let mut client = Recorder::join(&server.url("sums", "rows=200&cols=130")).await;
    let whole = ChunkRect {
        row: 0,
        col: 0,
        rows: 4,
        cols: 3,
    };
    for _ in 0..20 {
        client.send(ClientMsg::Summaries(whole)).await;
    }
    client.send(ClientMsg::Ping { nonce: 9 }).await;
    client
        .until(|m| matches!(m, ServerMsg::Pong { nonce: 9 }))
        .await;
    let mut answered = 0;
    let mut refused = 0;
    for frame in &client.frames {
        match frame {
            ServerMsg::Summaries { rect, chunks, .. } => {
                assert_eq!((*rect, chunks.len()), (whole, 12));
                // The first click's opening, in the middle of the board, shows.
                assert!(chunks.iter().any(|c| c.opened > 0), "{chunks:?}");
                answered += 1;
            }
            ServerMsg::Error { .. } => {
                let (seq, code, message) = error(frame);
                assert_eq!((seq, code), (0, ErrorCode::RateLimited as u16), "{message}");
                assert!(message.contains("summaries"), "{message}");
                refused += 1;
            }
            _ => {}
        }
    }
    assert_eq!(answered + refused, 20);
    assert!(
        answered >= 1 && refused >= 1,
        "{answered} answered, {refused} refused"
    );
    server.stop().await;
}
