//! `bitmines serve`: the multiplayer server.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, anyhow};
use bitmines_server::life::ArchiveMode;
use bitmines_server::log::Sync;
use bitmines_server::server::{Config, Server};

use crate::cli::{at_least_one, check_threads, positive, threads};

/// How each batch of moves is made durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum SyncArg {
    /// fdatasync each batch before its acknowledgements: moves survive a power cut.
    Data,
    /// Write to the operating system only: moves survive the server being killed.
    Os,
}

/// What becomes of a finished game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ArchiveArg {
    /// Keep a small record of the result under the data folder's archive/, listed at /games.
    Archive,
    /// Delete the game's folder and keep nothing.
    None,
}

/// Options of `bitmines serve`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Address to listen on. Loopback by default; give 0.0.0.0:PORT to open it wider.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Folder for the rooms' logs and snapshots; rooms found there are restored at start.
    #[arg(long, default_value = "bitmines-data")]
    data: PathBuf,
    /// How each batch of moves is made durable before it is acknowledged.
    #[arg(long, value_enum, default_value = "data")]
    sync: SyncArg,
    /// The most rooms that can be joined at once (a finished game is not counted).
    #[arg(long, default_value_t = 1000, value_parser = at_least_one::<usize>, allow_negative_numbers = true)]
    max_rooms: usize,
    /// The most cells in one room.
    #[arg(long, default_value_t = 1_000_000_000, value_parser = at_least_one::<u128>, allow_negative_numbers = true)]
    max_room_cells: u128,
    /// The most cells over all rooms in memory (a race counts its board once per possible
    /// player).
    #[arg(long, default_value_t = 4_000_000_000, value_parser = at_least_one::<u128>, allow_negative_numbers = true)]
    max_total_cells: u128,
    /// The most 64x64-cell chunks one connection may watch.
    #[arg(long, default_value_t = 256, value_parser = at_least_one::<usize>, allow_negative_numbers = true)]
    max_chunks: usize,
    /// The most connections at once.
    #[arg(long, default_value_t = 10_000, value_parser = at_least_one::<usize>, allow_negative_numbers = true)]
    max_connections: usize,
    /// Frames a second one connection may send (bursts of twice that).
    #[arg(long, default_value_t = 100.0, value_parser = positive, allow_negative_numbers = true)]
    rate: f64,
    /// Seconds a silent connection stays open.
    #[arg(long, default_value_t = 120, value_parser = at_least_one::<u64>, allow_negative_numbers = true)]
    idle: u64,
    /// Seconds a socket has to become a WebSocket before it is closed (a request sent
    /// half, an idle HTTP connection).
    #[arg(long, default_value_t = 10, value_parser = at_least_one::<u64>, allow_negative_numbers = true)]
    upgrade_timeout: u64,
    /// Moves between a room's snapshots (a snapshot is also written at shutdown) [default:
    /// 200000, or one for each 128 cells of a larger board].
    #[arg(long, value_parser = at_least_one::<u64>, allow_negative_numbers = true)]
    snapshot_every: Option<u64>,
    /// Worker threads for the connections, and as many for the rooms (0: one per core for
    /// the connections and half as many for the rooms, at least 1; at most 8 per core).
    #[arg(long, default_value_t = 0, value_parser = threads, allow_negative_numbers = true)]
    threads: usize,
    /// Seconds a room with nobody connected stays in memory; then it is saved and dropped
    /// (it comes back on the next join), or deleted if no move was ever made.
    #[arg(long, default_value_t = 600, value_parser = at_least_one::<u64>, allow_negative_numbers = true)]
    room_idle: u64,
    /// Seconds a finished game with nobody connected is kept before it is archived.
    #[arg(long, default_value_t = 86_400, value_parser = at_least_one::<u64>, allow_negative_numbers = true)]
    keep_finished: u64,
    /// What becomes of a finished game: a small record under archive/, or nothing.
    #[arg(long, value_enum, default_value = "archive")]
    archive: ArchiveArg,
}

/// Runs the server until Ctrl-C or SIGTERM.
pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    check_threads(args.threads)?;
    let threads = (args.threads > 0).then_some(args.threads);
    let room_threads = threads.unwrap_or_else(bitmines_server::server::default_threads);
    let io_threads = threads.unwrap_or_else(bitmines_server::server::default_io_threads);
    let config = Config {
        listen: args.listen,
        data: args.data.clone(),
        sync: match args.sync {
            SyncArg::Data => Sync::Data,
            SyncArg::Os => Sync::Os,
        },
        max_rooms: args.max_rooms,
        max_room_cells: args.max_room_cells,
        max_total_cells: args.max_total_cells,
        max_chunks: args.max_chunks,
        max_connections: args.max_connections,
        rate: args.rate,
        burst: args.rate * 2.0,
        idle: Duration::from_secs(args.idle),
        upgrade_timeout: Duration::from_secs(args.upgrade_timeout),
        snapshot_every: args.snapshot_every,
        room_threads,
        room_idle: Duration::from_secs(args.room_idle),
        keep_finished: Duration::from_secs(args.keep_finished),
        archive: match args.archive {
            ArchiveArg::Archive => ArchiveMode::Archive,
            ArchiveArg::None => ArchiveMode::None,
        },
        ..Config::default()
    };
    // Every connection is an open file: the soft limit is often 1,024, far below the
    // connections allowed, so it is raised to the hard limit, and limits that need more
    // files than that are refused now rather than failing joins later.
    if let Some(limit) = bitmines_server::listen::raise_open_file_limit() {
        bitmines_server::listen::check_open_files(&config, limit).map_err(|e| {
            anyhow!(
                "--max-connections {}: {e}; lower it or --max-rooms, or raise the hard limit \
                 (ulimit -Hn)",
                args.max_connections
            )
        })?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(io_threads)
        .enable_all()
        .build()
        .context("cannot start the runtime")?;
    runtime.block_on(async {
        let stop = stop_signal();
        let server = Server::bind(config).await.map_err(|e| anyhow!(e))?;
        let addr = server.local_addr().map_err(|e| anyhow!(e))?;
        // A closed standard output (a pipe whose reader went away) must not stop the server.
        let mut out = std::io::stdout();
        let _ = writeln!(
            out,
            "bitmines serve: listening on http://{addr} (join at ws://{addr}/room/NAME; data in {}; Ctrl-C stops)",
            args.data.display()
        );
        let _ = out.flush();
        server.run(stop).await.map_err(|e| anyhow!(e))?;
        let _ = writeln!(std::io::stdout(), "bitmines serve: stopped; every room saved");
        Ok(())
    })
}

/// Listens for Ctrl-C and SIGTERM from now on, and gives a future that completes on either.
/// The handlers are installed before the future is first polled, so a signal sent as soon as
/// the server says it is listening (as a supervisor or a test may) stops it through its
/// shutdown path rather than killing the process outright.
fn stop_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let (interrupt, terminate) = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let wait = |stream: Option<tokio::signal::unix::Signal>| async move {
                match stream {
                    Some(mut stream) => {
                        stream.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(interrupt) => {},
                () = wait(terminate) => {},
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
        eprintln!("bitmines serve: stopping: closing connections and saving rooms");
    }
}
