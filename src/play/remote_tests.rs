//! `play --connect` against a real server in this process, on a free loopback port: key
//! presses go through the app state and the network thread to the server, and what the app
//! then shows is checked against a second protocol client's picture of the same room.
//!
//! Every wait is bounded (a test fails with what it was waiting for, never hangs) and no
//! assertion is about time.

use std::time::{Duration, Instant};

use bitmines_server::client::{Link, Picture};
use bitmines_server::protocol::{Action as Move, ChunkRect, ClientMsg, ServerMsg, cell};
use ratatui::layout::Rect;

use super::{LinkState, Remote};
use crate::play::script::{self, says};

#[path = "../../crates/server/tests/support/mod.rs"]
mod support;
use support::{BlockingServer, PATIENCE};

/// The app and its network thread, pumped as the terminal's loop pumps them.
struct Session {
    remote: Remote,
    link: Link,
    now: Instant,
}

impl Session {
    fn join(url: &str, spectate: Option<Option<u32>>) -> Session {
        let link = Link::open(url, spectate.is_some(), None).expect("the network thread starts");
        let now = Instant::now();
        let remote = Remote::new(url, spectate, Rect::new(0, 0, 100, 30), now);
        let mut session = Session { remote, link, now };
        session.until("the welcome and the first chunk", |r| {
            r.link == LinkState::Connected && r.state(r.cursor().0, r.cursor().1).is_some()
        });
        session
    }

    /// One turn of the loop, 10 ms after the last.
    fn pump(&mut self) {
        self.now += Duration::from_millis(10);
        self.remote.pump(&self.link, self.now);
    }

    /// Pumps until `done` holds, or fails naming `what`.
    fn until(&mut self, what: &str, done: impl Fn(&Remote) -> bool) {
        let give_up = Instant::now() + PATIENCE;
        loop {
            self.pump();
            if done(&self.remote) {
                return;
            }
            let (late, message) = (Instant::now() >= give_up, self.remote.message());
            assert!(!late, "waited in vain for {what}: {message:?}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Pumps until the message line starts with `start`.
    fn until_says(&mut self, start: &str) {
        self.until(start, |r| says(r, start));
    }

    /// Pumps until cell `(row, col)` is in `state`.
    fn until_cell(&mut self, what: &str, (row, col): (usize, usize), state: u8) {
        self.until(what, |r| r.state(row, col) == Some(state));
    }

    /// Presses the keys of `script` (words of [`script`]), pumping after each.
    fn keys(&mut self, script: &str) {
        for word in script.split_whitespace() {
            script::play(&mut self.remote, self.now, word);
            self.pump();
        }
    }

    /// Moves the cursor to `(row, col)` with the arrow keys.
    fn go(&mut self, (row, col): (usize, usize)) {
        let (at_row, at_col) = self.remote.cursor();
        let up = if row < at_row { "up " } else { "down " };
        let left = if col < at_col { "left " } else { "right " };
        let script = up.repeat(row.abs_diff(at_row)) + &left.repeat(col.abs_diff(at_col));
        self.keys(&script);
        assert_eq!(self.remote.cursor(), (row, col));
    }

    /// The cells in view, row by row.
    fn in_view(&self) -> impl Iterator<Item = (usize, usize)> {
        let screen = self.remote.screen().expect("a screen");
        let (r0, c0) = self.remote.origin();
        (r0..r0 + screen.span_rows)
            .flat_map(move |r| (c0..c0 + screen.span_cols).map(move |c| (r, c)))
    }

    /// A hidden cell in view, other than `not`.
    fn hidden_in_view(&self, not: Option<(usize, usize)>) -> (usize, usize) {
        let mut cells = self.in_view();
        cells
            .find(|&(r, c)| self.remote.state(r, c) == Some(cell::HIDDEN) && Some((r, c)) != not)
            .expect("a hidden cell in view")
    }
}

/// A second connection's picture of the whole shared view: a fresh join that subscribes to
/// every chunk and waits for them all.
fn observe(server: &BlockingServer, url: &str, (rows, cols): (u16, u16)) -> Picture {
    let mut client = server.client(url);
    server.runtime.block_on(async {
        let all = ChunkRect {
            row: 0,
            col: 0,
            rows,
            cols,
        };
        client.send(ClientMsg::Subscribe(all)).await;
        let chunk = |frame: &ServerMsg| matches!(frame, ServerMsg::Chunk { .. });
        for _ in 0..usize::from(rows) * usize::from(cols) {
            client.until(chunk).await;
        }
        client.client.close().await;
        client.picture
    })
}

/// Every cell the app holds equals the observer's.
fn same_cells(remote: &Remote, observer: &Picture) {
    let mut compared = 0;
    for (view, row, col, state) in remote.picture.cells() {
        let at = format!("cell ({row}, {col}) of view {view}");
        assert_eq!(observer.cell(view, row, col), Some(state), "{at}");
        compared += 1;
    }
    assert!(compared > 0, "the app holds no cell to compare");
}

/// Reveal, flag and hint by key in a co-op room, the view scrolled over chunks it
/// subscribes and unsubscribes, and another player's cursor and flag seen.
#[test]
fn keys_play_on_the_server_and_the_app_shows_its_view() {
    let server = BlockingServer::start();
    let query = "rows=40&cols=100&mines=400&noguess=1";
    let url = server.url("together", query);
    let mut a = Session::join(&url, None);
    let welcome = a.remote.welcome.clone().expect("welcomed");
    assert_eq!((welcome.rows, welcome.cols), (40, 100));
    let first = welcome.first.map(|(r, c)| (r as usize, c as usize));
    let first = first.expect("the room opens in the middle");
    assert_eq!(a.remote.cursor(), first);
    let open = a
        .remote
        .state(first.0, first.1)
        .is_some_and(Picture::is_open);
    assert!(open, "the first click is open");

    // The chunks watched follow the view (the unit tests hold which are asked for).
    a.keys("G");
    assert_eq!(Vec::from_iter(a.remote.subscribed.clone()), [(0, 1)]);
    a.until("the chunk of the board's end", |r| {
        r.state(39, 99).is_some()
    });
    assert_eq!(a.remote.state(0, 0), None, "a chunk out of view is dropped");
    a.keys("g");
    assert_eq!(Vec::from_iter(a.remote.subscribed.clone()), [(0, 0)]);
    a.until("the first chunk again", |r| r.state(0, 0).is_some());
    a.go(first);

    // A hint moves the cursor to a cell proven safe and says why; Space opens it.
    a.keys("h");
    a.until("the hint", |r| r.hint.is_some());
    let (row, col) = a.remote.cursor();
    assert_eq!(a.remote.hint, Some((row, col)));
    let why = format!("({row}, {col}) is safe");
    assert!(says(&a.remote, &why), "{:?}", a.remote.message());
    a.keys("space");
    a.until("the hinted cell open", |r| {
        r.state(row, col).is_some_and(Picture::is_open)
    });

    // A flag on a hidden cell.
    let flagged = a.hidden_in_view(None);
    a.go(flagged);
    a.keys("f");
    a.until_cell("the flag", flagged, cell::FLAGGED);

    // The wrong flags of the window around the cursor.
    a.keys("w");
    a.until("the wrong flags", |r| says(r, "proven wrong"));

    // What the app shows is what a second connection is sent.
    let observer = observe(&server, &format!("{url}&spectate=1"), (1, 2));
    same_cells(&a.remote, &observer);

    // Another player: their cursor and their flag reach the app.
    let other_flag = a.hidden_in_view(Some(flagged));
    let mut b = server.client(&url);
    let b_id = b.client.welcome().player;
    let (row, col) = (other_flag.0 as u32, other_flag.1 as u32);
    let flag = ClientMsg::Move {
        seq: 1,
        action: Move::Flag,
        row,
        col,
    };
    server.runtime.block_on(async {
        b.send(ClientMsg::Cursor { row: 1, col: 2 }).await;
        b.act(flag).await;
    });
    a.until("the other player's cursor", |r| {
        r.cursors.get(&b_id) == Some(&(1, 2))
    });
    a.until_cell("the other player's flag", other_flag, cell::FLAGGED);
    a.until("both players listed", |r| r.players.len() == 2);
    let players = &a.remote.players;
    let me = players.iter().find(|p| p.id == welcome.player);
    let me = me.expect("listed").clone();
    assert!(me.revealed > 0 && me.flags == 1, "{me:?}");
    server.runtime.block_on(b.client.close());
    a.until("the other player's leaving", |r| {
        r.events().iter().any(|e| e.contains("left"))
    });
    assert!(a.remote.name_of(b_id).starts_with("player"));
}

/// A spectator watches a racer's view and cannot move: its keys give the server's refusal
/// in words.
#[test]
fn a_spectator_watches_and_cannot_move() {
    let server = BlockingServer::start();
    let url = server.url("race", "mode=race&preset=intermediate");
    let mut racer = Session::join(&url, None);
    let racer_id = racer.remote.welcome.as_ref().expect("welcomed").player;

    let mut watcher = Session::join(&url, Some(Some(racer_id)));
    assert!(watcher.remote.welcome.as_ref().is_some_and(|w| w.spectator));
    assert_eq!(watcher.remote.token(), None);
    let hidden = watcher.hidden_in_view(None);
    watcher.go(hidden);
    for key in ["space", "f", "h"] {
        watcher.keys("esc");
        watcher.keys(key);
        watcher.until_says("not allowed: spectators cannot move");
    }
    // What it shows is the racer's view.
    let (row, col) = watcher.remote.cursor();
    assert_eq!(watcher.remote.state(row, col), racer.remote.state(row, col));
    assert_eq!(watcher.remote.view, racer.remote.view);

    // Tab goes to the next racer's view; a racer still playing is refused, in words.
    let second = Session::join(&url, None);
    watcher.until("both racers listed", |r| r.players.len() == 2);
    watcher.keys("tab");
    let view = second.remote.view;
    watcher.until("the second racer's view", |r| r.view == view);
    racer.until("both racers listed", |r| r.players.len() == 2);
    let own = racer.remote.view;
    racer.keys("tab");
    racer.until_says("not allowed: a racer may watch others");
    assert_eq!(racer.remote.view, own);
    let followed = racer.remote.followed().map(|p| p.id);
    assert_eq!(followed, Some(racer_id), "its own game");

    // In co-op the player named is ignored, with a word: there is one view.
    let coop = server.url("shared", "preset=beginner");
    let _player = Session::join(&coop, None);
    let mut watcher = Session::join(&coop, Some(Some(7)));
    let hidden = watcher.hidden_in_view(None);
    let message = watcher.remote.message();
    assert!(says(&watcher.remote, "one view"), "{message:?}");
    watcher.go(hidden);
    watcher.keys("space");
    watcher.until_says("not allowed");
}

/// The odds of the window around the cursor come as a window the overlay draws: a chance for
/// each hidden cell, none for an open one. The board fits in one window, so the server's
/// mine count for it is the board's own.
#[test]
fn the_odds_cover_the_window_around_the_cursor() {
    let server = BlockingServer::start();
    let url = server.url("odds", "rows=30&cols=40&mines=150&noguess=1");
    let mut a = Session::join(&url, None);
    a.keys("p");
    a.until("the odds", |r| r.odds.is_some());
    let mut hidden = 0;
    for (row, col) in a.in_view() {
        let chance = a.remote.odds.as_ref().and_then(|odds| odds.mine(row, col));
        match a.remote.state(row, col) {
            Some(cell::HIDDEN) => {
                assert!(chance.is_some_and(|p| (0.0..=1.0).contains(&p)));
                hidden += 1;
            }
            _ => assert_eq!(chance, None, "({row}, {col})"),
        }
    }
    assert!(hidden > 0);
    a.keys("p p");
    assert!(a.remote.odds.is_none());
}
