//! The listening socket and what the sockets cost: every accepted socket is counted, served
//! HTTP/1 until it becomes a WebSocket, and closed if it has not within
//! [`Config::upgrade_timeout`]; and the open files the server's limits need, against the
//! process's limit. A socket still sending its request holds at most [`MAX_REQUEST_HEAD`]
//! bytes of it.
//!
//! # The open-file budget
//!
//! Every socket is one open file, from its accept to its close, whether it is still an HTTP
//! request or a WebSocket. At most `max_connections` WebSockets are served, and at most
//! [`TURN_AWAY`] sockets more are accepted, so that a join past the limit is told why (a
//! `Limit` error) rather than cut off; past that, a new socket is closed as soon as it is
//! accepted. A room in memory holds at most [`FILES_PER_ROOM`] files at once (its log,
//! always; while a snapshot is written, the snapshot and, for the sync of its rename, the
//! room's folder), and at most [`ROOMS_IN_MEMORY`] times `max_rooms` rooms are in memory
//! (`max_rooms` counts the rooms that can be joined; a finished room with a player still
//! connected is in memory too, until it is empty for `--room-idle`), and the process holds
//! [`RESERVED_FILES`] more. [`open_files_needed`] adds these up;
//! `bitmines serve` raises its soft limit to the hard one ([`raise_open_file_limit`]) and
//! refuses to start when the sum is over it ([`check_open_files`]), so no socket can take
//! the file a room needs for its log or its snapshot.
//!
//! The accept loop is the server's own so that every socket has an end: each is served HTTP/1
//! by hyper on a task of its own until it becomes a WebSocket, and dropped (closed) if it has
//! not within the upgrade timeout (10 s by default); every socket is counted from accept to
//! close, through the upgrade. Every socket has `TCP_NODELAY`: a small frame must not wait on
//! a delayed acknowledgement.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};

use crate::metrics::Metrics;
use crate::server::Config;

/// Sockets accepted past `max_connections`, so that a join past the limit gets its `Limit`
/// error and close frame rather than a socket closed without a word.
pub const TURN_AWAY: usize = 64;

/// The most files a room holds open at once: its log, always; while a snapshot is written,
/// the snapshot's file and, to sync its rename, the room's folder.
pub const FILES_PER_ROOM: u64 = 3;

/// The most rooms in memory, as a multiple of `max_rooms`: the rooms that can be joined, and
/// as many finished ones again, whose players are still there or which wait for
/// `--room-idle` to leave memory. A room past it is refused with a `Limit` error.
pub const ROOMS_IN_MEMORY: usize = 2;

/// Files the process holds besides sockets and rooms, with room to spare: the standard
/// streams, the listening socket, the runtime's polling and waking, the data folder a
/// group commit syncs, and what libraries open.
pub const RESERVED_FILES: u64 = 64;

/// The most bytes of a request's head (its request line and headers) a socket may hold
/// before it is answered 431 and closed (a head that comes whole in one read may be a little
/// longer), as nginx's default: a join's head is under 1 KiB and a browser's, with its
/// cookies, a few, and the sockets still sending theirs hold at most this much memory each
/// (hyper's default is about 400 KiB).
pub const MAX_REQUEST_HEAD: usize = 32 * 1024;

/// How long the accept loop waits after the listener fails for want of open files (or
/// memory), rather than spin: sockets close meanwhile.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// The open files the limits of `config` need (see the module's docs): one for each of
/// `max_connections` and [`TURN_AWAY`] sockets, [`FILES_PER_ROOM`] for each of the
/// [`ROOMS_IN_MEMORY`] times `max_rooms` rooms in memory, and [`RESERVED_FILES`].
pub fn open_files_needed(config: &Config) -> u64 {
    let sockets =
        u64::try_from(config.max_connections.saturating_add(TURN_AWAY)).unwrap_or(u64::MAX);
    let rooms = u64::try_from(config.max_rooms.saturating_mul(ROOMS_IN_MEMORY))
        .unwrap_or(u64::MAX)
        .saturating_mul(FILES_PER_ROOM);
    sockets.saturating_add(rooms).saturating_add(RESERVED_FILES)
}

/// Checks that `limit` open files hold what `config`'s limits need ([`open_files_needed`]);
/// the error gives the numbers and the most connections that would fit.
pub fn check_open_files(config: &Config, limit: u64) -> Result<(), String> {
    let needed = open_files_needed(config);
    if needed <= limit {
        return Ok(());
    }
    let others = needed.saturating_sub(u64::try_from(config.max_connections).unwrap_or(u64::MAX));
    let fit = limit.saturating_sub(others);
    Err(format!(
        "{} connections need {needed} open files (one a connection and {TURN_AWAY} more to \
         turn joins away, {FILES_PER_ROOM} a room for {} rooms in memory, {RESERVED_FILES} for \
         the server), over this process's limit of {limit}: at most {fit} connections fit",
        config.max_connections,
        config.max_rooms.saturating_mul(ROOMS_IN_MEMORY)
    ))
}

/// Raises the process's soft limit on open files to its hard limit (which needs no
/// privilege) and returns the soft limit now in force, `u64::MAX` for none; `None` where
/// the limit cannot be read (systems other than Linux). When the raise fails, the limit
/// returned is the one the process had.
pub fn raise_open_file_limit() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let now = getrlimit(Resource::Nofile);
        let raised = Rlimit {
            current: now.maximum,
            maximum: now.maximum,
        };
        let current = if now.current != now.maximum && setrlimit(Resource::Nofile, raised).is_ok() {
            raised.current
        } else {
            now.current
        };
        Some(current.unwrap_or(u64::MAX))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// A socket counted among the server's sockets ([`Metrics::sockets`]) from its accept to
/// its close. The count goes with it through the upgrade: a WebSocket's socket is this one,
/// inside.
struct Counted {
    tcp: TcpStream,
    metrics: Arc<Metrics>,
}

impl Counted {
    fn new(tcp: TcpStream, metrics: &Arc<Metrics>) -> Counted {
        metrics.socket_opened();
        Counted {
            tcp,
            metrics: Arc::clone(metrics),
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.metrics.socket_closed();
    }
}

impl AsyncRead for Counted {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().tcp).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_shutdown(cx)
    }
}

/// Whether an accept failed for the peer (which reset or gave up before the accept), not
/// for the listener; such a failure needs no pause.
fn peer_failed(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Serves `app` on `listener` until `stop` completes, then stops accepting, asks each
/// socket still speaking HTTP to close once its request is answered, and returns when they
/// all have (each within `config.upgrade_timeout` of its accept). WebSockets are not waited
/// for: they belong to their rooms, which close them on shutdown.
///
/// Each socket is served HTTP/1 on a task of its own, which ends when the socket becomes a
/// WebSocket (the socket then lives on in its connection's tasks) or closes, or, at the
/// latest, when `config.upgrade_timeout` has passed since the accept: then the task drops
/// the socket, which closes it. So a request sent half, or an idle keep-alive, holds its
/// open file that long and no longer.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    config: &Config,
    metrics: &Arc<Metrics>,
    stop: impl Future<Output = ()>,
) {
    let most = u64::try_from(config.max_connections.saturating_add(TURN_AWAY)).unwrap_or(u64::MAX);
    let timeout = config.upgrade_timeout;
    let (stopping, stopping_rx) = watch::channel(false);
    // Each socket's task holds a sender; the receiver hears `None` once they all ended.
    let (alive, mut all_ended) = mpsc::channel::<()>(1);
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => break,
        };
        let tcp = match accepted {
            Ok((tcp, _)) => tcp,
            Err(e) if peer_failed(&e) => continue,
            Err(_) => {
                tokio::time::sleep(ACCEPT_PAUSE).await;
                continue;
            }
        };
        if metrics.sockets() >= most {
            // Over the budget: closed at once (dropping it closes it), so that its file is
            // free again for the rooms.
            metrics.socket_refused();
            continue;
        }
        // Frames are small and latency matters: no Nagle delay (which, with the peer's
        // delayed acknowledgement, holds a small write up to 40 ms).
        let _ = tcp.set_nodelay(true);
        let io = TokioIo::new(Counted::new(tcp, metrics));
        let metrics = Arc::clone(metrics);
        let service = TowerToHyperService::new(app.clone());
        let mut stopping = stopping_rx.clone();
        let alive = alive.clone();
        tokio::spawn(async move {
            let _alive = alive;
            let conn = http1::Builder::new()
                .max_buf_size(MAX_REQUEST_HEAD)
                .serve_connection(io, service)
                .with_upgrades();
            tokio::pin!(conn);
            let deadline = tokio::time::sleep(timeout);
            tokio::pin!(deadline);
            let mut asked = false;
            loop {
                tokio::select! {
                    _ = conn.as_mut() => break,
                    () = &mut deadline => {
                        metrics.upgrade_timed_out();
                        break;
                    }
                    _ = stopping.changed(), if !asked => {
                        asked = true;
                        conn.as_mut().graceful_shutdown();
                    }
                }
            }
        });
    }
    drop(listener);
    let _ = stopping.send(true);
    drop(alive);
    let _ = all_ended.recv().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_counts_sockets_rooms_and_the_process() {
        let config = Config {
            max_connections: 100,
            max_rooms: 10,
            ..Config::default()
        };
        // 100 connections and 64 to turn away, 3 files for each of 2 x 10 rooms in memory,
        // 64 reserved.
        assert_eq!(open_files_needed(&config), 288);
        assert_eq!(check_open_files(&config, 288), Ok(()));
        assert_eq!(check_open_files(&config, u64::MAX), Ok(()));
        let error = check_open_files(&config, 200).unwrap_err();
        assert!(
            error.starts_with("100 connections need 288 open files")
                && error.ends_with("over this process's limit of 200: at most 12 connections fit"),
            "{error}"
        );
        // Limits too large to add up do not wrap round.
        let huge = Config {
            max_connections: usize::MAX,
            max_rooms: usize::MAX,
            ..Config::default()
        };
        assert_eq!(open_files_needed(&huge), u64::MAX);
        assert!(check_open_files(&huge, 1 << 20).is_err());
    }
}
