//! [`Link`] against a server on a free loopback port: a refused join is told in words, a
//! dropped connection is joined again with the token as the same player, and a player taken
//! over elsewhere is told so and not joined again. The terminal game's own tests
//! (`src/play/remote_tests.rs`) play through a link; these hold what the link decides alone.
//!
//! Every wait is bounded (a test fails with what it was waiting for, never hangs).

mod support;

use std::time::Instant;

use bitmines_server::client::{Client, Link, NetEvent};
use bitmines_server::protocol::{Action, ChunkRect, ClientMsg, ServerMsg, TAKEN_OVER, cell};
use support::{BlockingServer, PATIENCE};

/// The link's next event that `want` takes, the others skipped; fails naming `what`.
fn until(link: &Link, what: &str, mut want: impl FnMut(&NetEvent) -> bool) -> NetEvent {
    let give_up = Instant::now() + PATIENCE;
    loop {
        match link.wait(give_up.saturating_duration_since(Instant::now())) {
            Some(event) if want(&event) => return event,
            Some(_) => {}
            None => panic!("waited in vain for {what}"),
        }
    }
}

/// The player and token of the link's next join.
fn joined(link: &Link) -> (u32, Option<String>) {
    match until(link, "a join", |e| matches!(e, NetEvent::Joined { .. })) {
        NetEvent::Joined { welcome, token } => (welcome.player, token),
        _ => unreachable!("until took a join"),
    }
}

/// The cells of chunk (0, 0), subscribed through the link, and its width.
fn first_chunk(link: &Link) -> (Vec<u8>, usize) {
    link.send(ClientMsg::Subscribe(ChunkRect::one(0, 0)));
    let chunk = |e: &NetEvent| matches!(e, NetEvent::Frame(ServerMsg::Chunk { .. }));
    match until(link, "chunk (0, 0)", chunk) {
        NetEvent::Frame(ServerMsg::Chunk { cells, width, .. }) => (cells, usize::from(width)),
        _ => unreachable!("until took a chunk"),
    }
}

#[test]
fn a_refused_join_is_told_in_words() {
    let server = BlockingServer::start();
    let first = Link::open(&server.url("sized", "preset=beginner"), false, None).expect("opens");
    joined(&first);
    let link = Link::open(&server.url("sized", "preset=expert"), false, None).expect("opens");
    let event = until(&link, "the refusal", |_| true);
    let refused = matches!(&event, NetEvent::Closed(why) if why.contains("room mismatch"));
    assert!(refused, "{event:?}");
}

/// A server that stops and comes back on the same address: the link joins again on its own
/// with its token, as the same player, whose flag is still there.
#[test]
fn a_dropped_connection_is_joined_again_with_the_token() {
    let mut server = BlockingServer::start();
    let link = Link::open(&server.url("again", "preset=intermediate"), false, None);
    let link = link.expect("opens");
    let (player, token) = joined(&link);
    assert!(token.is_some());
    let (cells, width) = first_chunk(&link);
    let at = cells
        .iter()
        .position(|&c| c == cell::HIDDEN)
        .expect("a hidden cell");
    let (row, col) = ((at / width) as u32, (at % width) as u32);
    let flag = ClientMsg::Move {
        seq: 1,
        action: Action::Flag,
        row,
        col,
    };
    link.send(flag);
    let acked = |e: &NetEvent| matches!(e, NetEvent::Frame(ServerMsg::Ack { seq: 1, .. }));
    until(&link, "the flag's ack", acked);

    server.restart();
    until(&link, "the drop", |e| {
        matches!(e, NetEvent::Reconnecting { .. })
    });
    assert_eq!(joined(&link), (player, token));
    let (cells, _) = first_chunk(&link);
    assert_eq!(cells[at], cell::FLAGGED, "the flag, still there");
    drop(link);
}

/// A second join with the player's token takes the player over: the link is closed with the
/// server's reason and does not join again, which would take the player back and start the
/// two passing it to and fro.
#[test]
fn a_player_taken_over_elsewhere_is_told_and_not_joined_again() {
    let server = BlockingServer::start();
    let url = server.url("twice", "preset=beginner");
    let link = Link::open(&url, false, None).expect("opens");
    let (player, token) = joined(&link);
    let token = token.expect("a token");
    let elsewhere = server
        .runtime
        .block_on(Client::connect(&format!("{url}&token={token}")));
    assert_eq!(elsewhere.expect("joins").welcome().player, player);
    let event = until(&link, "the close", |e| matches!(e, NetEvent::Closed(_)));
    let told = |why: &str| why.contains(TAKEN_OVER) && why.contains("not joining again");
    assert!(
        matches!(&event, NetEvent::Closed(why) if told(why)),
        "{event:?}"
    );
}
