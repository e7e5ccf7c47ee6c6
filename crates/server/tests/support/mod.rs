//! A server on a free loopback port for the tests, and clients that keep every frame they get;
//! [`BlockingServer`], the same server for tests that block on a `Link` (`link.rs`, and the
//! binary's `play --connect` tests in `src/play/remote_tests.rs`, which include this file).

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use bitmines_core::{Board, Cell, Game, Status};
use bitmines_server::client::{Client, ClientError, Picture};
use bitmines_server::log::{RoomDir, Sync};
use bitmines_server::metrics::Metrics;
use bitmines_server::protocol::{ClientMsg, ServerMsg, cell};
use bitmines_server::room::Room;
use bitmines_server::server::{Config, Server};
use tokio::sync::oneshot;

/// A running server and its data folder.
pub(crate) struct TestServer {
    pub(crate) addr: std::net::SocketAddr,
    pub(crate) data: tempfile::TempDir,
    stop: Option<oneshot::Sender<()>>,
    done: Option<tokio::task::JoinHandle<Result<(), String>>>,
}

/// The test settings: loopback on a free port, no fsync (the tests kill nothing here), and
/// three room workers, so rooms are spread over several whatever the machine.
pub(crate) fn config(data: PathBuf) -> Config {
    Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        data,
        sync: Sync::Os,
        room_threads: 3,
        ..Config::default()
    }
}

pub(crate) async fn start() -> TestServer {
    start_with(|c| c).await
}

pub(crate) async fn start_with(tune: impl FnOnce(Config) -> Config) -> TestServer {
    let data = tempfile::tempdir().unwrap();
    start_in(data, tune).await
}

pub(crate) async fn start_in(
    data: tempfile::TempDir,
    tune: impl FnOnce(Config) -> Config,
) -> TestServer {
    let server = Server::bind(tune(config(data.path().to_path_buf())))
        .await
        .unwrap();
    let addr = server.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let done = tokio::spawn(server.run(async {
        let _ = stopped.await;
    }));
    TestServer {
        addr,
        data,
        stop: Some(stop),
        done: Some(done),
    }
}

impl TestServer {
    pub(crate) fn url(&self, room: &str, query: &str) -> String {
        format!("ws://{}/room/{room}?{query}", self.addr)
    }

    /// Stops the server the graceful way and hands back its data folder.
    pub(crate) async fn stop(mut self) -> tempfile::TempDir {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(done) = self.done.take() {
            done.await.unwrap().unwrap();
        }
        self.data
    }

    /// The server's /metrics text.
    pub(crate) async fn metrics(&self) -> String {
        http_get(self.addr, "/metrics").await
    }
}

/// The longest any one wait of a blocking test lasts before the test gives up.
pub(crate) const PATIENCE: Duration = Duration::from_secs(30);

/// A [`TestServer`] for tests that block, as a program driving a
/// [`Link`](bitmines_server::client::Link) does: the server on a runtime of its own, stopped
/// gracefully when dropped.
pub(crate) struct BlockingServer {
    pub(crate) runtime: tokio::runtime::Runtime,
    server: Option<TestServer>,
}

impl BlockingServer {
    pub(crate) fn start() -> BlockingServer {
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        let server = Some(runtime.block_on(start()));
        BlockingServer { runtime, server }
    }

    pub(crate) fn url(&self, room: &str, query: &str) -> String {
        self.server.as_ref().expect("a server").url(room, query)
    }

    /// A plain protocol client's join of `url`.
    pub(crate) fn client(&self, url: &str) -> Recorder {
        self.runtime.block_on(Recorder::join(url))
    }

    /// Stops the server and starts it again on the same address and data folder.
    pub(crate) fn restart(&mut self) {
        let server = self.server.take().expect("a server");
        let listen = server.addr;
        self.server = Some(self.runtime.block_on(async {
            let data = server.stop().await;
            start_in(data, |config| Config { listen, ..config }).await
        }));
    }
}

impl Drop for BlockingServer {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            let stop = async { tokio::time::timeout(PATIENCE, server.stop()).await };
            let _ = self.runtime.block_on(stop);
        }
    }
}

pub(crate) async fn http_get(addr: std::net::SocketAddr, path: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out
}

/// A room as recovery rebuilds it from the data folder: the replay of every durable move.
pub(crate) fn recover(data: &std::path::Path, room: &str) -> Room {
    let (room, _log) = RoomDir::new(data, room)
        .recover(Sync::Os, 256, Arc::new(Metrics::default()))
        .unwrap();
    room.validate().unwrap();
    room
}

/// A client that records every frame it receives.
pub(crate) struct Recorder {
    pub(crate) client: Client,
    pub(crate) frames: Vec<ServerMsg>,
    pub(crate) picture: Picture,
    pub(crate) closed: Option<ClientError>,
}

impl Recorder {
    pub(crate) async fn join(url: &str) -> Recorder {
        let client = Client::connect(url)
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        let welcome = ServerMsg::Welcome(client.welcome().clone());
        Recorder {
            client,
            frames: vec![welcome],
            picture: Picture::default(),
            closed: None,
        }
    }

    pub(crate) async fn send(&mut self, msg: ClientMsg) {
        self.client.send(&msg).await.unwrap();
    }

    /// The next frame (recorded), or `None` when the connection closed or `wait` passed.
    pub(crate) async fn next(&mut self, wait: Duration) -> Option<ServerMsg> {
        if self.closed.is_some() {
            return None;
        }
        match tokio::time::timeout(wait, self.client.recv()).await {
            Err(_) => None,
            Ok(Err(e)) => {
                self.closed = Some(e);
                None
            }
            Ok(Ok(msg)) => {
                self.picture.apply(&msg);
                self.frames.push(msg.clone());
                Some(msg)
            }
        }
    }

    /// Frames until one matches, within 10 s.
    pub(crate) async fn until(&mut self, mut want: impl FnMut(&ServerMsg) -> bool) -> ServerMsg {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.next(left).await {
                Some(msg) if want(&msg) => return msg,
                Some(_) => {}
                None => panic!(
                    "no matching frame; closed: {:?}; last frames: {:?}",
                    self.closed,
                    self.frames.iter().rev().take(3).collect::<Vec<_>>()
                ),
            }
        }
    }

    /// Reads whatever arrives within `wait`.
    pub(crate) async fn drain(&mut self, wait: Duration) {
        while self.next(wait).await.is_some() {}
    }

    /// Sends a move and waits for its ack or error.
    pub(crate) async fn act(&mut self, msg: ClientMsg) -> ServerMsg {
        let seq = match msg {
            ClientMsg::Move { seq, .. }
            | ClientMsg::Hint { seq, .. }
            | ClientMsg::Odds { seq, .. }
            | ClientMsg::WrongFlags { seq, .. }
            | ClientMsg::Rematch { seq } => seq,
            _ => 0,
        };
        self.send(msg).await;
        self.until(|m| match m {
            ServerMsg::Ack { seq: s, .. }
            | ServerMsg::Error { seq: s, .. }
            | ServerMsg::Hint { seq: s, .. }
            | ServerMsg::Odds { seq: s, .. }
            | ServerMsg::WrongFlags { seq: s, .. } => *s == seq,
            _ => false,
        })
        .await
    }
}

/// The state a client should hold for a cell of `game`, masked unless `truth`.
pub(crate) fn expected_state(game: &Game, row: usize, col: usize, truth: bool) -> u8 {
    match game.cell(row, col).unwrap() {
        Cell::Open(n) => n,
        Cell::Hidden => cell::HIDDEN,
        Cell::Flagged => cell::FLAGGED,
        Cell::Exploded => cell::EXPLODED,
        Cell::Mine if truth => cell::MINE,
        Cell::Mine => cell::HIDDEN,
        Cell::WrongFlag if truth => cell::WRONG_FLAG,
        Cell::WrongFlag => cell::FLAGGED,
    }
}

/// Who received a recording, for the leak check.
pub(crate) struct Receiver<'a> {
    pub(crate) frames: &'a [ServerMsg],
    /// The view this receiver plays on, if it is a player.
    pub(crate) plays: Option<u32>,
}

/// Checks every frame a receiver got against the truth: no frame shows a mine that was not
/// set off on that view, unless the receiver played that view and lost it; every revealed
/// number is the board's; hints name safe cells; the end figures go only to the view's
/// players. Returns how many cell states were checked.
pub(crate) fn check_no_leak(board: &Board, games: &[&Game], r: &Receiver<'_>) -> usize {
    let mut checked = 0;
    let mut check_cell = |view: u32, row: usize, col: usize, state: u8| {
        let mine = board.is_mine(row, col).unwrap();
        let game = games[view as usize];
        let lost_here = r.plays == Some(view) && game.status() == Status::Lost;
        match state {
            0..=8 => {
                assert!(!mine, "a mine at ({row}, {col}) sent as open {state}");
                assert_eq!(
                    board.number(row, col).unwrap(),
                    state,
                    "wrong number at ({row}, {col})"
                );
            }
            cell::HIDDEN | cell::FLAGGED => {}
            cell::EXPLODED => {
                assert!(mine, "({row}, {col}) sent exploded, not a mine");
                assert_eq!(
                    game.cell(row, col).unwrap(),
                    Cell::Exploded,
                    "({row}, {col}) exploded, not on the view"
                );
            }
            cell::MINE => {
                assert!(mine, "({row}, {col}) sent as a mine, not one");
                assert!(
                    lost_here,
                    "a mine at ({row}, {col}) shown to a receiver who did not lose view {view}"
                );
            }
            cell::WRONG_FLAG => {
                assert!(!mine);
                assert!(
                    lost_here,
                    "a wrong flag at ({row}, {col}) shown to a receiver who did not lose view {view}"
                );
            }
            other => panic!("state {other}"),
        }
        checked += 1;
    };
    for frame in r.frames {
        match frame {
            ServerMsg::Chunk {
                view,
                chunk_row,
                chunk_col,
                width,
                cells,
                ..
            } => {
                for (i, &state) in cells.iter().enumerate() {
                    let row = *chunk_row as usize * 64 + i / usize::from(*width);
                    let col = *chunk_col as usize * 64 + i % usize::from(*width);
                    check_cell(*view, row, col, state);
                }
            }
            ServerMsg::Delta {
                view,
                chunk_row,
                chunk_col,
                cells,
            } => {
                for &(offset, state) in cells {
                    let row = *chunk_row as usize * 64 + usize::from(offset) / 64;
                    let col = *chunk_col as usize * 64 + usize::from(offset) % 64;
                    check_cell(*view, row, col, state);
                }
            }
            ServerMsg::Hint {
                found: Some((row, col, _)),
                ..
            } => {
                assert!(
                    !board.is_mine(*row as usize, *col as usize).unwrap(),
                    "a hint on a mine"
                );
            }
            ServerMsg::Over(over) => {
                assert_eq!(
                    r.plays,
                    Some(over.view),
                    "end figures of view {} sent to a receiver who does not play it",
                    over.view
                );
            }
            _ => {}
        }
    }
    checked
}
