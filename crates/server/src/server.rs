//! The network side: HTTP routes, WebSocket connections, the room directory, and the
//! workers that run the rooms.
//!
//! A connection is two thin tasks: the reader checks, rate-limits and decodes frames and
//! forwards them to its room; the writer drains the connection's bounded queue into the
//! socket. A room belongs to one of a few worker threads (`--threads`), which owns its
//! [`Room`] and its [`Log`]: each round, the worker takes the requests of every room that
//! has some, applies them, appends their records to the rooms' logs, makes them all durable
//! with one sync (the group commit spans the rooms), and only then releases the frames
//! they produced.
//!
//! The room directory knows every room, in memory or not. A worker takes an empty room out
//! of memory when its time comes (see [`crate::life`]), under the directory's lock and only
//! with no join on its way in; a sweep thread archives or removes the rooms already out of
//! memory; a join to an evicted room recovers it on a thread of its own.
//!
//! # Workers
//!
//! Rooms run on a few worker threads (by default half the processors; the connections' async
//! threads, one for each processor; `--threads` sets both). A new room goes to the worker
//! holding the fewest cells, once a thread of its own has made its board. A room's requests
//! wait in two channels (joins and leaves; frames, bounded by a count), and the first request
//! since the worker last looked rings the worker once. So game logic stays synchronous and
//! lock-free, a large board's cascade or a hint never blocks the async workers, and hundreds of
//! small rooms cost a few threads and a sync a round (a thread and an `fdatasync` per room gave
//! 500 races an ack p99 of 303 ms; the workers, 15 to 32 ms).
//!
//! # Connections
//!
//! The reader checks size and rate (a token bucket; a refusal carries the frame's own seq).
//! More than 100 refused or bad frames close a connection, but only once a flush queued behind
//! its last frames comes back from the room, so the answers to those frames go first. The
//! writer sends the close frame with its reason. A room's worker keeps each connected player's
//! connection: a join with the token of a player already connected takes the player over, and
//! the older connection leaves at once and is closed with code 4000
//! ([`CLOSE_TAKEN_OVER`]).
//!
//! # Start and shutdown
//!
//! At start the data folder must be writable (or the start fails with one line). Each entry of
//! `rooms/` is recovered, or quarantined with one line and counted
//! (`bitmines_rooms_quarantined_total`), so one damaged room never keeps the others from being
//! served; a recovered room is then dropped from memory until someone joins it. A room that
//! fails to recover later, on a join to it once evicted, is quarantined the same way.
//! Shutdown (Ctrl-C, SIGTERM) stops accepting, snapshots every room, and closes every socket
//! with code 1001 and a reason.
//!
//! # The directory and the routes
//!
//! The room directory (a map from name to handle under one lock) knows every room, in memory
//! or evicted, with its phase as the room's worker last reported it. While a new room's board
//! is made, the joins waiting for it are sent progress frames; the joins waiting for an
//! evicted room to be recovered just wait. Routes: `/room/{name}` (the WebSocket), `/rooms`
//! (the rooms that can be joined), `/games` (the archive, paged), `/healthz`, `/metrics`
//! (Prometheus text: connections, sockets, rooms by state, evictions, restores, archives,
//! moves, the acknowledgement latency histogram, drops, bytes out, the data folder's bytes,
//! resident memory, open files), and the web game.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use axum::Router;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use crossbeam_channel as cb;
use futures_util::{SinkExt, StreamExt};
use tokio::sync::{mpsc, oneshot};

use crate::life::{ArchiveMode, Fate, Phase};
use crate::log::{Log, RoomDir, SnapshotState, Sync, Syncer};
use crate::metrics::Metrics;
use crate::params::{Join, Requested, RoomParams, parse_query};
use crate::protocol::{
    CLOSE_TAKEN_OVER, ClientMsg, ErrorCode, MAX_CLIENT_FRAME, Mode, PROGRESS_DONE, ServerMsg,
    TAKEN_OVER,
};
use crate::room::{ConnId, Refusal, Room};

/// The server's settings and limits.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen; loopback by default.
    pub listen: SocketAddr,
    /// Where rooms keep their logs and snapshots.
    pub data: PathBuf,
    /// Whether each group commit is synced to the disk.
    pub sync: Sync,
    /// The most rooms that can be joined (waiting or playing, in memory or not) at once.
    pub max_rooms: usize,
    /// The most cells in one room.
    pub max_room_cells: u128,
    /// The most cells over all rooms in memory, each room counted once for its board and
    /// once for each view it may hold (a race: up to 8).
    pub max_total_cells: u128,
    /// The most chunks one connection may watch.
    pub max_chunks: usize,
    /// The most connections at once. Each is an open file, and so is each socket still
    /// speaking HTTP: see [`crate::listen`] for what the limits cost in open files.
    pub max_connections: usize,
    /// Frames a connection's queue holds before the connection is closed as too slow.
    pub queue: usize,
    /// Frames a second a connection may send, sustained.
    pub rate: f64,
    /// Frames a connection may send in a burst.
    pub burst: f64,
    /// Hint and odds requests a second.
    pub help_rate: f64,
    /// A connection silent this long is closed.
    pub idle: Duration,
    /// A socket that has not become a WebSocket this long after it was accepted is closed:
    /// a half-sent request, or a plain HTTP connection kept open, holds an open file only
    /// this long.
    pub upgrade_timeout: Duration,
    /// Records between a room's snapshots; `None` chooses by the board's size (see
    /// [`snapshot_every`]).
    pub snapshot_every: Option<u64>,
    /// Threads that run the rooms (see [`default_threads`]).
    pub room_threads: usize,
    /// A room with nobody connected this long leaves memory: evicted with a snapshot (it
    /// comes back on the next join), or removed if its game never started.
    pub room_idle: Duration,
    /// A room whose game is over and that has had nobody connected this long is archived
    /// (see [`crate::life`]).
    pub keep_finished: Duration,
    /// Whether a finished game leaves a record under `archive/` or nothing.
    pub archive: ArchiveMode,
}

/// Threads for the rooms, unless told: half the processors, at least one. A room worker
/// runs many rooms, one round of moves and one sync after another.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).clamp(1, 64))
}

/// Threads for the connections (the async runtime's workers), unless told: one for each
/// processor. On this project's 2-core test machine, with the load tester beside the
/// server, two measured better than one: in eight pairs of 20 s co-op runs taken in
/// turns, two gave the lower acknowledgement p99 in six, one in one (medians about 21 ms
/// and 41 ms), since a lone thread reading and writing every socket waits whenever the
/// processor it needs is busy.
pub fn default_io_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().clamp(1, 256))
}

impl Default for Config {
    fn default() -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            data: PathBuf::from("bitmines-data"),
            sync: Sync::Data,
            max_rooms: 1000,
            max_room_cells: 1_000_000_000,
            max_total_cells: 4_000_000_000,
            max_chunks: 256,
            max_connections: 10_000,
            queue: 1024,
            rate: 100.0,
            burst: 200.0,
            help_rate: 5.0,
            idle: Duration::from_secs(120),
            upgrade_timeout: Duration::from_secs(10),
            snapshot_every: None,
            room_threads: default_threads(),
            room_idle: Duration::from_secs(600),
            keep_finished: Duration::from_secs(86_400),
            archive: ArchiveMode::Archive,
        }
    }
}

/// A request to a room (its worker takes it).
enum Cmd {
    Join {
        conn: ConnId,
        token: Option<[u8; 16]>,
        spectate: bool,
        name: Option<String>,
        tx: mpsc::Sender<Bytes>,
        closer: Closer,
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    Msg {
        conn: ConnId,
        msg: ClientMsg,
        received: Instant,
    },
    Leave {
        conn: ConnId,
    },
    /// Answered once every request queued before it has been applied and the frames it
    /// produced are in their connections' queues: sent behind a connection's last frames,
    /// it tells the connection when their answers have all been queued.
    Flush {
        done: oneshot::Sender<()>,
    },
    Shutdown {
        reply: oneshot::Sender<()>,
    },
}

/// Where a connection's close reason is left for its writer, and how the writer is told.
#[derive(Default)]
struct CloseSlot {
    reason: Mutex<Option<(u16, String)>>,
    now: tokio::sync::Notify,
}

type Closer = Arc<CloseSlot>;

/// The most requests waiting for one room; past it a move is refused as busy.
const ROOM_QUEUE: usize = 65_536;

/// How a room's worker learns that the room has requests: the first request since the
/// worker last looked rings once (the flag keeps a busy room from ringing for every move).
#[derive(Clone)]
struct Bell {
    room: u64,
    scheduled: Arc<AtomicBool>,
    worker: cb::Sender<WorkerMsg>,
}

impl Bell {
    fn ring(&self) {
        if !self.scheduled.swap(true, Ordering::AcqRel) {
            let _ = self.worker.send(WorkerMsg::Ring(self.room));
        }
    }
}

/// A room's queue of joins, leaves and shutdowns (never refused for being full).
#[derive(Clone)]
struct CtlQueue {
    tx: cb::Sender<Cmd>,
    bell: Bell,
}

impl CtlQueue {
    fn send(&self, cmd: Cmd) -> Result<(), cb::SendError<Cmd>> {
        self.tx.send(cmd)?;
        self.bell.ring();
        Ok(())
    }
}

/// A room's queue of requests from connections: unbounded underneath (so an idle room holds
/// no slots), bounded by a count.
#[derive(Clone)]
struct MsgQueue {
    tx: cb::Sender<Cmd>,
    queued: Arc<AtomicUsize>,
    bell: Bell,
}

impl MsgQueue {
    fn try_send(&self, cmd: Cmd) -> Result<(), cb::TrySendError<Cmd>> {
        if self.queued.fetch_add(1, Ordering::Relaxed) >= ROOM_QUEUE {
            self.queued.fetch_sub(1, Ordering::Relaxed);
            return Err(cb::TrySendError::Full(cmd));
        }
        self.tx.try_send(cmd).inspect_err(|_| {
            self.queued.fetch_sub(1, Ordering::Relaxed);
        })?;
        self.bell.ring();
        Ok(())
    }

    /// Queues a [`Cmd::Flush`] behind the requests already queued; it is not counted
    /// against the queue's bound, so it is never refused for a full queue. False when the
    /// room has gone.
    fn flush(&self, done: oneshot::Sender<()>) -> bool {
        let sent = self.tx.send(Cmd::Flush { done }).is_ok();
        self.bell.ring();
        sent
    }
}

/// How much of a new room's board is made, in ten-thousandths ([`PROGRESS_DONE`] the
/// whole), for the connections waiting to join it; [`MADE`] once the room runs (or was
/// restored, or failed). It only grows: the generators' shares never step back, and this
/// keeps it so whatever a future generator reports, since a bar that goes backwards tells
/// the players nothing true.
type Making = Arc<AtomicU32>;

/// A [`Making`] value: the room is not being made.
const MADE: u32 = u32::MAX;

/// How often a connection waiting for a room's board is told how far it is, at most.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// What a room's worker reports of it, for the directory, `/rooms` and `/metrics`.
struct RoomLife {
    /// The room's [`Phase`], as [`Phase::code`].
    phase: AtomicU8,
    /// Players connected now.
    players: AtomicUsize,
    /// Connections now, players and spectators.
    connections: AtomicUsize,
}

impl RoomLife {
    fn new(phase: Phase) -> Arc<RoomLife> {
        Arc::new(RoomLife {
            phase: AtomicU8::new(phase.code()),
            players: AtomicUsize::new(0),
            connections: AtomicUsize::new(0),
        })
    }

    fn phase(&self) -> Phase {
        Phase::from_code(self.phase.load(Ordering::Relaxed))
    }
}

/// A room in the directory: in memory, run by a worker, or evicted (its folder only).
struct RoomHandle {
    params: RoomParams,
    weight: u128,
    /// When the room was made, for its age at `/rooms`.
    made: SystemTime,
    life: Arc<RoomLife>,
    /// Joins handed this room's queues that its worker has not taken yet. Counted up under
    /// the directory's lock, and a room is only unloaded under that lock with none, so no
    /// join is ever sent to a room that is leaving memory.
    joining: Arc<AtomicUsize>,
    at: Where,
}

/// Where a room is.
enum Where {
    /// In a worker's hands.
    Loaded(Loaded),
    /// Out of memory, its folder kept.
    Evicted(Evicted),
}

/// A room in memory: its worker and its queues.
struct Loaded {
    worker: usize,
    ctl: CtlQueue,
    msgs: MsgQueue,
    /// How much of its board is made while a new room is being made; [`MADE`] for a room
    /// recovered from its folder, whose joiners just wait for it.
    making: Making,
}

/// A room out of memory.
struct Evicted {
    /// Since when nobody has been connected.
    empty_since: Instant,
    /// Closed (its sender dropped) once the eviction's snapshot is written; a restore waits
    /// for it.
    saving: Option<cb::Receiver<()>>,
    /// The archive record of a room whose game is over, made while it was in memory.
    record: Option<(String, u64)>,
}

impl RoomHandle {
    fn loaded(&self) -> Option<&Loaded> {
        match &self.at {
            Where::Loaded(l) => Some(l),
            Where::Evicted(_) => None,
        }
    }
}

/// The room directory: every room by name, in memory or not.
type Rooms = Arc<Mutex<HashMap<String, RoomHandle>>>;

/// Shared by every connection.
pub struct Shared {
    config: Config,
    rooms: Rooms,
    metrics: Arc<Metrics>,
    next_conn: AtomicU64,
    next_room: AtomicU64,
    open: AtomicUsize,
    shutting_down: AtomicBool,
    /// The room workers' queues.
    workers: Vec<cb::Sender<WorkerMsg>>,
    /// Set while the rooms in memory are at their most ([`check_in_memory`]): the workers
    /// then take finished rooms that nobody is connected to out of memory at once, rather
    /// than after `--room-idle`.
    crowded: Arc<AtomicBool>,
}

impl Shared {
    /// The server's metrics.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }
}

/// Finds every room under the data directory. Each is recovered (so that a damaged one is
/// found now), its phase and, for a finished game, its archive record are kept, and it is
/// left out of memory until someone joins it. A room that cannot be restored, or anything
/// under `rooms/` that is not a room folder, is moved to the quarantine folder (see
/// [`crate::log::quarantine`]) with a line naming it and the cause, and counted; the other
/// rooms are served. Only a quarantine that fails (the data folder cannot be written) stops
/// the start.
fn restore_rooms(shared: &Arc<Shared>) -> Result<usize, String> {
    let data = &shared.config.data;
    crate::life::empty_trash(data);
    let dir = data.join("rooms");
    let entries = std::fs::read_dir(&dir).map_err(|e| {
        format!(
            "cannot read {}: {e}; give the server a data folder it can read and write (--data)",
            dir.display()
        )
    })?;
    let mut n = 0;
    for entry in entries.flatten() {
        let (name, params, room, log) = match restore_room(shared, &entry) {
            Ok(restored) => restored,
            Err(cause) => {
                let name = entry.file_name();
                let shown = name.to_string_lossy();
                let to = crate::log::quarantine(data, &name, &cause, std::time::SystemTime::now())
                    .map_err(|e| {
                        format!(
                            "room {shown} cannot be restored ({cause}) nor moved to quarantine ({e}); move {} out of {} and start again",
                            entry.path().display(),
                            dir.display()
                        )
                    })?;
                eprintln!(
                    "bitmines serve: room {shown} cannot be restored: {cause}; moved to {} and serving the others",
                    to.display()
                );
                shared.metrics.room_quarantined();
                continue;
            }
        };
        let folder = RoomDir::new(data, &name);
        let phase = Phase::of(&room);
        let record = finished_record(&name, &params, &room, phase, folder.path());
        let made = std::fs::metadata(folder.path().join("meta"))
            .and_then(|m| m.modified())
            .unwrap_or_else(|_| SystemTime::now());
        drop((room, log));
        let mut rooms = shared.rooms.lock().map_err(|_| "room directory poisoned")?;
        rooms.insert(
            name,
            RoomHandle {
                weight: weight(&params),
                params,
                made,
                life: RoomLife::new(phase),
                joining: Arc::new(AtomicUsize::new(0)),
                at: Where::Evicted(Evicted {
                    empty_since: Instant::now(),
                    saving: None,
                    record,
                }),
            },
        );
        n += 1;
    }
    Ok(n)
}

/// The archive record of a room whose game is over, with the end time it was made at.
fn finished_record(
    name: &str,
    params: &RoomParams,
    room: &Room,
    phase: Phase,
    folder: &std::path::Path,
) -> Option<(String, u64)> {
    (phase == Phase::Over).then(|| {
        let times = crate::life::game_times(folder);
        (crate::life::record(name, params, room, times), times.1)
    })
}

/// Restores the room in `entry`, an entry of the data folder's `rooms/`, or says why it
/// cannot be.
fn restore_room(
    shared: &Shared,
    entry: &std::fs::DirEntry,
) -> Result<(String, RoomParams, Room, Log), String> {
    // The entry's own type: a link to a folder is not a room folder either.
    let kind = entry.file_type().map_err(|e| e.to_string())?;
    if !kind.is_dir() {
        return Err("not a room folder (only room folders belong in rooms/)".into());
    }
    let name = entry
        .file_name()
        .into_string()
        .ok()
        .filter(|name| valid_name(name))
        .ok_or("not a room name (1 to 64 letters, digits, '-' or '_')")?;
    let room_dir = RoomDir::new(&shared.config.data, &name);
    let mut inside = std::fs::read_dir(room_dir.path()).map_err(|e| e.to_string())?;
    if inside.next().is_none() {
        return Err("an empty room folder".into());
    }
    let (params, _) = room_dir.meta()?;
    let (room, log) = recover_room(shared, &name)?;
    Ok((name, params, room, log))
}

/// Rebuilds room `name` from its folder and checks it.
fn recover_room(shared: &Shared, name: &str) -> Result<(Room, Log), String> {
    let (room, log) = RoomDir::new(&shared.config.data, name).recover(
        shared.config.sync,
        shared.config.max_chunks,
        Arc::clone(&shared.metrics),
    )?;
    room.validate()
        .map_err(|e| format!("restored inconsistent: {e}"))?;
    // The games a replay went through again ended before the server stopped, and were
    // archived then: only the rematches of this run are archived.
    let mut room = room;
    drop(room.take_finished());
    Ok((room, log))
}

/// How a room comes into memory.
enum RoomStart {
    /// A new room, made from this seed.
    New(u64),
    /// An evicted room, recovered from its folder once its eviction's snapshot is written.
    Recover(Option<cb::Receiver<()>>),
}

fn weight(params: &RoomParams) -> u128 {
    let views = match params.mode {
        Mode::Race => crate::room::MAX_RACE_PLAYERS as u128,
        Mode::Coop => 1,
    };
    params.cells() * (1 + views)
}

/// The worker with the fewest cells in memory.
fn least_loaded(shared: &Shared, rooms: &HashMap<String, RoomHandle>) -> usize {
    let mut load = vec![0u128; shared.workers.len()];
    for h in rooms.values() {
        if let Some(l) = h.loaded() {
            load[l.worker] += h.weight;
        }
    }
    (0..load.len()).min_by_key(|&w| load[w]).unwrap_or(0)
}

/// Cells held in memory by every room.
fn cells_held(rooms: &HashMap<String, RoomHandle>) -> u128 {
    rooms
        .values()
        .filter(|h| h.loaded().is_some())
        .map(|h| h.weight)
        .sum()
}

/// Brings a room into memory: makes its queues and hands it to `worker` once a thread of its
/// own has made its board or recovered it from its folder (which a large board takes a while
/// for, and no other room should wait on). Requests that come meanwhile wait in the room's
/// queues; the joins waiting for a new room are told how much of its board is made (its
/// [`Loaded::making`]), those waiting for a recovered one just wait. If the room cannot be
/// made or recovered, the requests waiting are refused and the
/// room leaves the directory (a room that cannot be recovered is quarantined).
fn start_room(
    shared: &Arc<Shared>,
    worker: usize,
    name: &str,
    params: RoomParams,
    (life, joining): (Arc<RoomLife>, Arc<AtomicUsize>),
    start: RoomStart,
) -> Result<Loaded, String> {
    let worker_tx = shared
        .workers
        .get(worker)
        .cloned()
        .ok_or_else(|| "no room workers".to_string())?;
    let (ctl_tx, ctl_rx) = cb::unbounded();
    let (msg_tx, msg_rx) = cb::unbounded();
    let queued = Arc::new(AtomicUsize::new(0));
    let making: Making = Arc::new(AtomicU32::new(match start {
        RoomStart::New(_) => 0,
        RoomStart::Recover(_) => MADE,
    }));
    let id = shared.next_room.fetch_add(1, Ordering::Relaxed);
    let bell = Bell {
        room: id,
        scheduled: Arc::new(AtomicBool::new(false)),
        worker: worker_tx.clone(),
    };
    let loaded = Loaded {
        worker,
        ctl: CtlQueue {
            tx: ctl_tx,
            bell: bell.clone(),
        },
        msgs: MsgQueue {
            tx: msg_tx,
            queued: Arc::clone(&queued),
            bell: bell.clone(),
        },
        making: Arc::clone(&making),
    };
    let adoption = Adoption {
        id,
        inbox: Inbox {
            ctl: ctl_rx,
            msgs: msg_rx,
            queued,
            life,
            joining,
        },
        scheduled: bell.scheduled,
        worker: worker_tx,
    };
    let thread_shared = Arc::clone(shared);
    let thread_name = name.to_string();
    let restoring = matches!(start, RoomStart::Recover(_));
    let what = if restoring {
        "restore room"
    } else {
        "new room"
    };
    std::thread::Builder::new()
        .name(format!("{what} {name}"))
        .spawn(move || {
            let shared = thread_shared;
            let made = match start {
                RoomStart::New(seed) => {
                    let made = make_room(&shared, &thread_name, &params, seed, &making);
                    making.store(MADE, Ordering::Release);
                    made.map_err(|e| format!("the room could not be made: {e}"))
                }
                RoomStart::Recover(saving) => {
                    // The eviction's snapshot first: recovery reads the folder it writes.
                    if let Some(saving) = saving {
                        let _ = saving.recv();
                    }
                    recover_room(&shared, &thread_name).map(|(mut room, log)| {
                        // A finished game's record needs the board's 3BV when the room
                        // leaves memory: counted here, not on the worker that runs others.
                        if room.is_over() {
                            room.count_bbbv();
                        }
                        (room, log, None)
                    })
                }
            };
            match made {
                Ok(made) => {
                    if restoring {
                        shared.metrics.room_restored();
                    }
                    adoption.adopt(thread_name, &params, made, &shared.config);
                }
                Err(e) => {
                    eprintln!("bitmines serve: room {thread_name}: {e}");
                    if let Ok(mut rooms) = shared.rooms.lock() {
                        rooms.remove(&thread_name);
                        if restoring {
                            quarantine_now(&shared, &thread_name, &e);
                        }
                    }
                    let inbox = &adoption.inbox;
                    refuse_all(&inbox.ctl, &inbox.msgs, &e);
                }
            }
        })
        .map_err(|e| format!("cannot start a thread for room {name}: {e}"))?;
    Ok(loaded)
}

/// Moves the folder of room `name`, which could not be recovered, to the quarantine folder,
/// with a line; called under the directory's lock, so that no new room of that name is made
/// over it meanwhile.
fn quarantine_now(shared: &Shared, name: &str, cause: &str) {
    let data = &shared.config.data;
    match crate::log::quarantine(data, std::ffi::OsStr::new(name), cause, SystemTime::now()) {
        Ok(to) => {
            eprintln!(
                "bitmines serve: room {name} cannot be restored: {cause}; moved to {}",
                to.display()
            );
            shared.metrics.room_quarantined();
        }
        Err(e) => eprintln!(
            "bitmines serve: room {name} cannot be restored ({cause}) nor moved to quarantine ({e})"
        ),
    }
}

/// A room, its log, and a copy of its state to write the next snapshot from, if there is one.
type Made = (Room, Log, Option<SnapshotState>);

/// Makes a new room: its folder and secret, its board (reporting the share made in
/// `making`), its log and first snapshot (whose copy of the state the room keeps, to copy
/// the next one into).
fn make_room(
    shared: &Arc<Shared>,
    name: &str,
    params: &RoomParams,
    seed: u64,
    making: &AtomicU32,
) -> Result<Made, String> {
    let config = &shared.config;
    let dir = RoomDir::new(&config.data, name);
    dir.create(params, seed)
        .map_err(|e| format!("{}: {e}", dir.path().display()))?;
    let board = crate::log::make_board_with_progress(params, seed, &|share| {
        let share = (share.clamp(0.0, 1.0) * f64::from(PROGRESS_DONE)) as u32;
        making.fetch_max(share, Ordering::Relaxed);
    })?;
    let room = Room::new(
        *params,
        Arc::new(board),
        config.max_chunks,
        Arc::clone(&shared.metrics),
        Instant::now(),
    )?;
    let (log, _) = dir.open_log(config.sync)?;
    let state = room.snapshot_state(0, None);
    dir.write_snapshot(&state, None)?;
    Ok((room, log, Some(state)))
}

/// What a room's worker reads from, and the counts it keeps for others.
struct Inbox {
    ctl: cb::Receiver<Cmd>,
    msgs: cb::Receiver<Cmd>,
    /// Requests waiting in `msgs`.
    queued: Arc<AtomicUsize>,
    /// What the worker reports of the room.
    life: Arc<RoomLife>,
    /// Joins on their way (see [`RoomHandle::joining`]).
    joining: Arc<AtomicUsize>,
}

/// A room on its way to its worker.
struct Adoption {
    id: u64,
    inbox: Inbox,
    scheduled: Arc<AtomicBool>,
    worker: cb::Sender<WorkerMsg>,
}

impl Adoption {
    fn adopt(self, name: String, params: &RoomParams, made: Made, config: &Config) {
        let (room, log, spare) = made;
        let live = Live {
            name,
            every: config
                .snapshot_every
                .unwrap_or_else(|| snapshot_every(params)),
            last_snapshot: log.records(),
            room,
            log,
            inbox: self.inbox,
            scheduled: self.scheduled,
            closers: HashMap::new(),
            seats: HashMap::new(),
            flushes: Vec::new(),
            replies: Vec::new(),
            shutdown: None,
            members: None,
            writer: None,
            spare,
            empty_since: None,
            next_board: None,
            snapshot_owed: false,
        };
        let _ = self.worker.send(WorkerMsg::Adopt(self.id, Box::new(live)));
    }
}

/// What a room worker is told.
enum WorkerMsg {
    /// The room has requests waiting.
    Ring(u64),
    /// A room to run from now on.
    Adopt(u64, Box<Live>),
}

/// Where a join's answer goes.
type JoinReply = oneshot::Sender<Result<(), Refusal>>;

/// A room in its worker's hands.
struct Live {
    name: String,
    room: Room,
    log: Log,
    inbox: Inbox,
    scheduled: Arc<AtomicBool>,
    closers: HashMap<ConnId, Closer>,
    /// Each connected player's connection: a newer one with the player's token takes the
    /// player over, and the older is closed. A leave removes its entry; one the room closed
    /// itself (too slow) may stay until the player's next join replaces it, so there is
    /// never more than one entry a player.
    seats: HashMap<usize, ConnId>,
    /// Flushes taken this round, answered once its frames are released.
    flushes: Vec<oneshot::Sender<()>>,
    /// Records between snapshots, and the count at the last one.
    every: u64,
    last_snapshot: u64,
    replies: Vec<(JoinReply, Result<(), Refusal>)>,
    shutdown: Option<oneshot::Sender<()>>,
    /// The thread writing the room's last snapshot, if it has not finished; it gives back
    /// the copy of the state it wrote.
    writer: Option<std::thread::JoinHandle<SnapshotState>>,
    /// The copy of the state the last snapshot was written from: the next is copied into
    /// its buffers, so that taking it allocates nothing and touches no fresh memory (a
    /// fresh copy of a 10^8-cell room held its moves up for 30 ms).
    spare: Option<SnapshotState>,
    /// Since when nobody has been connected.
    empty_since: Option<Instant>,
    /// The room's joins and connections when its players connected were last counted.
    members: Option<(u64, usize)>,
    /// The next game's board, being made on a thread of its own for a large room's rematch.
    next_board: Option<NextBoard>,
    /// Whether a snapshot is owed at once: after a rematch's board was made off the worker,
    /// so that a restart restores the new game from it rather than making its board again.
    snapshot_owed: bool,
}

/// A large room's next board on its way: the game it is for, the share made (in
/// ten-thousandths) and the share the room was last told, and the thread making it.
struct NextBoard {
    game: u32,
    share: Arc<AtomicU32>,
    told: u32,
    thread: std::thread::JoinHandle<Result<bitmines_core::Board, String>>,
}

/// How long a worker waits for a request before it looks at its rooms' timers.
const TICK: Duration = Duration::from_millis(50);

/// The most requests a room takes in one round.
const BATCH: usize = 4096;

/// A room worker's loop. Each round it takes the requests of every room that rang, applies
/// them, appends every room's records to its log, makes all those logs durable with one
/// request to the [`Syncer`], and only then releases the frames and acknowledgements: the
/// group commit spans the worker's rooms, so hundreds of small rooms cost a sync a round,
/// not a sync each, and a handful of threads serve them all.
fn run_worker(
    config: &Config,
    syncer: &Syncer,
    rx: &cb::Receiver<WorkerMsg>,
    directory: &Directory,
) {
    let mut rooms: HashMap<u64, Live> = HashMap::new();
    let mut ready: Vec<u64> = Vec::new();
    let mut batch = Vec::with_capacity(BATCH);
    let mut last_tick = Instant::now();
    loop {
        let first = if ready.is_empty() {
            match rx.recv_timeout(TICK) {
                Ok(m) => Some(m),
                Err(cb::RecvTimeoutError::Timeout) => None,
                Err(cb::RecvTimeoutError::Disconnected) => break,
            }
        } else {
            rx.try_recv().ok()
        };
        for m in first
            .into_iter()
            .chain(std::iter::from_fn(|| rx.try_recv().ok()))
        {
            match m {
                WorkerMsg::Ring(id) => ready.push(id),
                WorkerMsg::Adopt(id, live) => {
                    rooms.insert(id, *live);
                    ready.push(id);
                }
            }
        }
        let now = Instant::now();
        let ticked = now.duration_since(last_tick) >= TICK;
        if ticked {
            // Every room's throttled frames (players, cursors) and snapshot timer.
            last_tick = now;
            ready.extend(rooms.keys());
        }
        ready.sort_unstable();
        ready.dedup();
        let round: Vec<u64> = std::mem::take(&mut ready);
        let mut files = Vec::new();
        let mut failed = Vec::new();
        for &id in &round {
            let Some(live) = rooms.get_mut(&id) else {
                // Rung before its adoption: the adoption itself puts it in a round.
                continue;
            };
            // Cleared before the queues are read: a request after this rings again.
            live.scheduled.store(false, Ordering::Release);
            live.take(&mut batch, now);
            if !live.inbox.ctl.is_empty() || !live.inbox.msgs.is_empty() {
                ready.push(id);
            }
            live.next_board(now);
            live.room.tick(now);
            let records = live.room.take_records();
            match live.log.append(&records) {
                Ok(()) if !records.is_empty() && live.log.sync_mode() == Sync::Data => {
                    files.push(Arc::clone(live.log.file()));
                }
                Ok(()) => {}
                Err(e) => failed.push((id, e)),
            }
        }
        if let Err(e) = syncer.sync_files(files) {
            // Every room of the round wrote moves that may not be durable.
            failed.extend(
                round
                    .iter()
                    .map(|&id| (id, io::Error::new(e.kind(), e.to_string()))),
            );
        }
        for (id, e) in failed {
            // The moves are applied in memory but not durable: nobody may see them, so
            // every connection is closed and the room stops; a restart replays the log as
            // it is on disk.
            if let Some(live) = rooms.remove(&id) {
                eprintln!(
                    "bitmines serve: room {}: the log cannot be written: {e}",
                    live.name
                );
                close_all(
                    &live.closers,
                    1011,
                    "the server cannot store moves; reconnect later",
                );
            }
        }
        for id in round {
            let done = rooms
                .get_mut(&id)
                .is_some_and(|live| live.after_commit(config));
            if done {
                rooms.remove(&id);
            }
        }
        if ticked {
            // Rooms nobody has been connected to for long enough leave memory; while the
            // rooms in memory are at their most, finished ones leave as soon as they are empty.
            let crowded = directory.crowded.load(Ordering::Relaxed);
            let due: Vec<(u64, Fate)> = rooms
                .iter()
                .filter_map(|(&id, live)| live.fate(config, now, crowded).map(|fate| (id, fate)))
                .collect();
            for (id, fate) in due {
                if let Some(live) = rooms.remove(&id)
                    && let Some(kept) = unload(config, directory, live, fate)
                {
                    rooms.insert(id, kept);
                }
            }
        }
    }
}

/// What a worker needs of the server to take its rooms out of memory.
#[derive(Clone)]
struct Directory {
    rooms: Rooms,
    metrics: Arc<Metrics>,
    /// See [`Shared::crowded`].
    crowded: Arc<AtomicBool>,
}

/// Takes a room out of its worker (evicted, archived or removed, as `fate` says), unless
/// someone is connected or on the way in; then the room is given back.
fn unload(config: &Config, directory: &Directory, mut live: Live, fate: Fate) -> Option<Live> {
    // The folder is written by nobody once the room is out of the worker's hands.
    if let Some(w) = live.writer.take() {
        live.spare = w.join().ok();
    }
    let records = live.log.records();
    let phase = Phase::of(&live.room);
    let folder = RoomDir::new(&config.data, &live.name);
    let record = finished_record(
        &live.name,
        live.room.params(),
        &live.room,
        phase,
        folder.path(),
    );
    let Ok(mut rooms) = directory.rooms.lock() else {
        return Some(live);
    };
    let busy = live.room.connections() > 0
        || live.inbox.joining.load(Ordering::SeqCst) > 0
        || !live.inbox.ctl.is_empty()
        || !live.inbox.msgs.is_empty();
    if busy {
        return Some(live);
    }
    let Some(handle) = rooms.get_mut(&live.name) else {
        // Not in the directory (it never leaves it while in memory): nothing to keep.
        return None;
    };
    live.inbox.life.phase.store(phase.code(), Ordering::Relaxed);
    let empty_since = live.empty_since.unwrap_or_else(Instant::now);
    if fate == Fate::Evict {
        let (saved, saving) = cb::bounded::<()>(0);
        handle.at = Where::Evicted(Evicted {
            empty_since,
            saving: Some(saving),
            record,
        });
        // Counted under the lock, so that whoever sees the room out of memory sees it counted.
        directory.metrics.room_evicted();
        drop(rooms);
        // A large room's snapshot takes a second: it is written on a thread of its own, and a
        // join meanwhile waits for it (`saving`) before recovering the room.
        let data = config.data.clone();
        let spawned = std::thread::Builder::new()
            .name("evict".into())
            .spawn(move || {
                if records > live.last_snapshot {
                    let state = live.room.snapshot_state(records, live.spare.take());
                    if let Err(e) = RoomDir::new(&data, &live.name).write_snapshot(&state, None) {
                        // The log holds every move: the room recovers from it all the same.
                        eprintln!("bitmines serve: room {}: snapshot: {e}", live.name);
                    }
                }
                drop(live);
                drop(saved);
            });
        if let Err(e) = spawned {
            eprintln!(
                "bitmines serve: no thread to write an evicted room's snapshot: {e}; its log keeps its moves"
            );
        }
        return None;
    }
    let handle = rooms.remove(&live.name);
    let trash = end_room(config, &directory.metrics, &live.name, fate, record);
    if trash.is_none()
        && let Some(mut handle) = handle
    {
        // Neither archived nor removed: kept out of memory, to be tried again later.
        handle.at = Where::Evicted(Evicted {
            empty_since: Instant::now(),
            saving: None,
            record: None,
        });
        rooms.insert(live.name.clone(), handle);
    }
    drop(rooms);
    if let Some(path) = trash {
        let _ = std::fs::remove_dir_all(path);
    }
    None
}

/// Archives or removes room `name`'s folder, under the directory's lock: its record is
/// written (when archived), and the folder is renamed into `trash/` at once so that a new
/// room of the name starts afresh; gives the folder's new path, for the caller to delete
/// after the lock, or `None` if nothing was done (said in a line).
fn end_room(
    config: &Config,
    metrics: &Metrics,
    name: &str,
    fate: Fate,
    record: Option<(String, u64)>,
) -> Option<std::path::PathBuf> {
    let data = &config.data;
    if fate == Fate::Archive
        && let Some((record, ended)) = &record
        && let Err(e) = crate::life::archive(data, name, record, *ended)
    {
        eprintln!("bitmines serve: room {name}: cannot archive: {e}; its folder is kept");
        return None;
    }
    match crate::life::trash_room_folder(data, name) {
        Ok(path) => {
            match (fate, &record) {
                (Fate::Archive, Some(_)) => metrics.room_archived(),
                _ => metrics.room_removed(),
            }
            Some(path)
        }
        Err(e) => {
            eprintln!("bitmines serve: room {name}: cannot remove its folder: {e}");
            None
        }
    }
}

impl Live {
    /// What becomes of the room now, if it has been empty long enough; or, when the rooms
    /// in memory are `crowded`, if it is finished and empty at all (it is evicted, and
    /// archived later as ever).
    fn fate(&self, config: &Config, now: Instant, crowded: bool) -> Option<Fate> {
        let since = self.empty_since?;
        if self.room.connections() > 0 || self.shutdown.is_some() {
            return None;
        }
        let phase = Phase::of(&self.room);
        crate::life::fate(
            phase,
            now.duration_since(since),
            config.room_idle,
            config.keep_finished,
            config.archive,
        )
        .or((crowded && phase == Phase::Over).then_some(Fate::Evict))
    }

    /// Takes up to a batch of the room's requests and applies them.
    fn take(&mut self, batch: &mut Vec<Cmd>, now: Instant) {
        let Inbox { ctl, msgs, .. } = &self.inbox;
        batch.extend(
            std::iter::from_fn(|| ctl.try_recv().or_else(|_| msgs.try_recv()).ok()).take(BATCH),
        );
        let queued = Arc::clone(&self.inbox.queued);
        for cmd in batch.drain(..) {
            match cmd {
                Cmd::Join {
                    conn,
                    token,
                    spectate,
                    name,
                    tx,
                    closer,
                    reply,
                } => {
                    self.inbox.joining.fetch_sub(1, Ordering::SeqCst);
                    let result = self.room.join(conn, token, spectate, name, tx, now);
                    if result.is_ok() {
                        self.closers.insert(conn, closer);
                        self.take_over(conn);
                    }
                    self.replies.push((reply, result));
                }
                Cmd::Msg {
                    conn,
                    msg,
                    received,
                } => {
                    queued.fetch_sub(1, Ordering::Relaxed);
                    self.room.handle(conn, msg, received, now);
                }
                Cmd::Leave { conn } => {
                    if let Some(player) = self.room.plays_as(conn)
                        && self.seats.get(&player) == Some(&conn)
                    {
                        self.seats.remove(&player);
                    }
                    self.room.leave(conn);
                    self.closers.remove(&conn);
                }
                Cmd::Flush { done } => self.flushes.push(done),
                Cmd::Shutdown { reply } => self.shutdown = Some(reply),
            }
        }
    }

    /// Looks after a large room's next board: starts making it on a thread of its own when a
    /// rematch asks for it, tells the room's connections how far it is (at most once a
    /// round: every [`TICK`] while nothing else happens), and hands it to the room when
    /// made. A thread that cannot be started refuses the rematch.
    fn next_board(&mut self, now: Instant) {
        if self.next_board.is_none()
            && let Some((params, game, seed)) = self.room.board_wanted()
        {
            let share = Arc::new(AtomicU32::new(0));
            let made = Arc::clone(&share);
            let spawned = std::thread::Builder::new()
                .name(format!("next board {}", self.name))
                .spawn(move || {
                    crate::log::make_board_with_progress(&params, seed, &|done| {
                        let done = (done.clamp(0.0, 1.0) * f64::from(PROGRESS_DONE)) as u32;
                        made.fetch_max(done, Ordering::Relaxed);
                    })
                });
            match spawned {
                Ok(thread) => {
                    self.room.tell_progress(0);
                    self.next_board = Some(NextBoard {
                        game,
                        share,
                        told: 0,
                        thread,
                    });
                }
                Err(e) => {
                    let why = format!("no thread to make the board on: {e}");
                    self.room.board_made(game, Err(why), now);
                }
            }
        }
        let Some(next) = &mut self.next_board else {
            return;
        };
        if next.thread.is_finished() {
            let Some(next) = self.next_board.take() else {
                return;
            };
            let made = next
                .thread
                .join()
                .unwrap_or_else(|_| Err("the thread making it failed".to_string()));
            if self.room.board_made(next.game, made, now) {
                self.snapshot_owed = true;
            }
            return;
        }
        let share = next.share.load(Ordering::Relaxed);
        if share != next.told {
            next.told = share;
            let share = u16::try_from(share.min(u32::from(PROGRESS_DONE))).unwrap_or(PROGRESS_DONE);
            self.room.tell_progress(share);
        }
    }

    /// Makes `conn`, just joined, its player's one connection: one the player had before
    /// leaves the room at once (so that it gets no frame and moves nobody from now on) and
    /// is closed with [`CLOSE_TAKEN_OVER`]. Leaving after the join keeps the player online
    /// throughout, so the others see no "left" and "joined" for it.
    fn take_over(&mut self, conn: ConnId) {
        let Some(player) = self.room.plays_as(conn) else {
            return;
        };
        if let Some(old) = self.seats.insert(player, conn)
            && old != conn
        {
            self.room.leave(old);
            if let Some(closer) = self.closers.remove(&old) {
                set_close(&closer, CLOSE_TAKEN_OVER, TAKEN_OVER);
            }
        }
    }

    /// After the round's records are durable: sends the frames and answers, closes the
    /// connections that fell behind, and writes a snapshot when one is due. True when the
    /// room has shut down.
    fn after_commit(&mut self, config: &Config) -> bool {
        let now = Instant::now();
        // The phase first: a player told that the game is over (by the frames released next)
        // may make a new room at once, and the directory must already count this one as over.
        let life = &self.inbox.life;
        let phase = Phase::of(&self.room);
        life.phase.store(phase.code(), Ordering::Relaxed);
        self.room.release(now);
        // The games that ended at a rematch, now durable, go to the archive (or are let go
        // with `--archive none`), so a room that plays for months holds none of them.
        for finished in self.room.take_finished() {
            if config.archive != ArchiveMode::Archive {
                continue;
            }
            let ended = crate::life::unix(std::time::SystemTime::now());
            let record = crate::life::rematch_record(&self.name, &finished, ended);
            if let Err(e) = crate::life::archive(&config.data, &self.name, &record, ended) {
                eprintln!(
                    "bitmines serve: room {}: cannot archive game {}: {e}",
                    self.name, finished.game
                );
            }
        }
        let connections = self.room.connections();
        // Counting the players connected walks every connection: only when a join or a
        // leave may have changed them, not on every round of a busy room.
        let members = (self.room.joins(), connections);
        if self.members != Some(members) {
            self.members = Some(members);
            life.players
                .store(self.room.players_connected(), Ordering::Relaxed);
        }
        life.connections.store(connections, Ordering::Relaxed);
        if connections > 0 {
            self.empty_since = None;
        } else {
            self.empty_since.get_or_insert(now);
        }
        for (reply, result) in self.replies.drain(..) {
            let _ = reply.send(result);
        }
        for done in self.flushes.drain(..) {
            let _ = done.send(());
        }
        for (conn, reason) in self.room.take_closed() {
            if let Some(closer) = self.closers.remove(&conn) {
                set_close(&closer, 1013, &reason);
            }
        }
        // Snapshots are written on a thread of their own from a copy of the state, so a
        // large board's write never holds up the moves; one at a time.
        if self.writer.as_ref().is_some_and(|w| w.is_finished())
            && let Some(Ok(state)) = self.writer.take().map(std::thread::JoinHandle::join)
        {
            self.spare = Some(state);
        }
        let records = self.log.records();
        let due = records - self.last_snapshot >= self.every || self.snapshot_owed;
        if (due && self.writer.is_none()) || self.shutdown.is_some() {
            self.snapshot_owed = false;
            if let Some(w) = self.writer.take() {
                self.spare = w.join().ok();
            }
            let state = self.room.snapshot_state(records, self.spare.take());
            self.last_snapshot = records;
            let (data, name) = (config.data.clone(), self.name.clone());
            let write = move |pause| {
                if let Err(e) = RoomDir::new(&data, &name).write_snapshot(&state, pause) {
                    eprintln!("bitmines serve: room {name}: snapshot: {e}");
                }
                state
            };
            if self.shutdown.is_some() {
                self.spare = Some(write(None));
            } else {
                self.writer = std::thread::Builder::new()
                    .name("snapshot".into())
                    .spawn(move || {
                        background();
                        write(Some(SNAPSHOT_PAUSE))
                    })
                    .ok();
            }
        }
        if let Some(reply) = self.shutdown.take() {
            close_all(&self.closers, 1001, "the server is shutting down");
            let _ = reply.send(());
            return true;
        }
        false
    }
}

/// The pause between the pieces of a snapshot written while the room plays (see
/// [`RoomDir::write_snapshot`]): a 50 MB snapshot takes about a second, never holding the
/// disk from the logs' syncs for more than one piece.
const SNAPSHOT_PAUSE: Duration = Duration::from_millis(10);

/// Records between a room's snapshots when the server is not told: 200,000, or one for each
/// 128 cells of a larger board (781,250 for 10^8 cells). A snapshot costs time in proportion
/// to the board (a 10^8-cell room writes about 40 MB) and a record a few bytes, so this
/// keeps the snapshots' share of the disk and the processors bounded however large the
/// board; replaying a record at start takes microseconds, so the longer log costs a restart
/// little.
pub fn snapshot_every(params: &RoomParams) -> u64 {
    let by_size = u64::try_from(params.cells() / 128).unwrap_or(u64::MAX);
    by_size.max(200_000)
}

/// Lowers the calling thread's priority (a snapshot's writer), so that the rooms' moves come
/// first when the processors are busy; best effort.
fn background() {
    #[cfg(target_os = "linux")]
    {
        let _ = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 10);
    }
}

/// Leaves a close reason (the first one given wins) and tells the writer to send what is
/// queued and close.
fn set_close(closer: &Closer, code: u16, reason: &str) {
    if let Ok(mut slot) = closer.reason.lock() {
        slot.get_or_insert_with(|| (code, reason.to_string()));
    }
    closer.now.notify_one();
}

fn close_all(closers: &HashMap<ConnId, Closer>, code: u16, reason: &str) {
    for closer in closers.values() {
        set_close(closer, code, reason);
    }
}

fn refuse_all(ctl: &cb::Receiver<Cmd>, msgs: &cb::Receiver<Cmd>, reason: &str) {
    for cmd in ctl.try_iter().chain(msgs.try_iter()) {
        if let Cmd::Join { reply, .. } = cmd {
            let _ = reply.send(Err((ErrorCode::Limit, reason.to_string())));
        }
    }
}

/// Whether `name` may name a room: 1 to 64 letters, digits, `-` or `_`.
pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A bound, running server.
pub struct Server {
    shared: Arc<Shared>,
    listener: tokio::net::TcpListener,
}

impl Server {
    /// Binds the listening socket and restores every room under the data directory; a room
    /// that cannot be restored is quarantined and the others are served. Fails, with one
    /// line, only when the data folder cannot be written or the socket cannot be bound.
    pub async fn bind(config: Config) -> Result<Server, String> {
        crate::log::check_data_folder(&config.data)?;
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
        let metrics = Arc::new(Metrics::default());
        let rooms: Rooms = Arc::new(Mutex::new(HashMap::new()));
        let crowded = Arc::new(AtomicBool::new(false));
        let directory = Directory {
            rooms: Arc::clone(&rooms),
            metrics: Arc::clone(&metrics),
            crowded: Arc::clone(&crowded),
        };
        // Each worker runs many rooms; they end when the server is dropped.
        let count = config.room_threads.max(1);
        // Workers share their rounds of syncing through a thread of its own; a lone worker
        // syncs its rounds itself.
        let syncer = if count == 1 {
            Syncer::inline(Arc::clone(&metrics))
        } else {
            Syncer::start(Arc::clone(&metrics))
                .map_err(|e| format!("cannot start the log sync thread: {e}"))?
        };
        let mut workers = Vec::with_capacity(count);
        for w in 0..count {
            let (tx, rx) = cb::unbounded();
            let (config, syncer, directory) = (config.clone(), syncer.clone(), directory.clone());
            std::thread::Builder::new()
                .name(format!("rooms {w}"))
                .spawn(move || run_worker(&config, &syncer, &rx, &directory))
                .map_err(|e| format!("cannot start a room worker: {e}"))?;
            workers.push(tx);
        }
        drop(syncer);
        let shared = Arc::new(Shared {
            config,
            rooms,
            metrics,
            next_conn: AtomicU64::new(1),
            next_room: AtomicU64::new(1),
            open: AtomicUsize::new(0),
            shutting_down: AtomicBool::new(false),
            workers,
            crowded,
        });
        let restored = restore_rooms(&shared)?;
        if restored > 0 {
            eprintln!(
                "bitmines serve: found {restored} rooms in {}; each comes back into memory when joined",
                shared.config.data.display()
            );
        }
        start_sweep(&shared)?;
        Ok(Server { shared, listener })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> Result<SocketAddr, String> {
        self.listener.local_addr().map_err(|e| e.to_string())
    }

    /// The server's shared state (for its metrics).
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Serves until `shutdown` completes, then stops accepting, closes every connection with
    /// a reason, writes a snapshot of every room, and returns.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), String> {
        let shared = Arc::clone(&self.shared);
        let app = Router::new()
            .route("/healthz", get(|| async { "ok\n" }))
            .route("/metrics", get(metrics))
            .route("/rooms", get(rooms))
            .route("/games", get(games))
            .route("/room/{name}", get(ws))
            .merge(crate::web::routes())
            .with_state(Arc::clone(&shared));
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let closing = Arc::clone(&shared);
        let watcher = tokio::spawn(async move {
            shutdown.await;
            closing.shutting_down.store(true, Ordering::SeqCst);
            shutdown_rooms(&closing).await;
            let _ = stop_tx.send(());
        });
        crate::listen::serve(self.listener, app, &shared.config, &shared.metrics, async {
            let _ = stop_rx.await;
        })
        .await;
        let _ = watcher.await;
        // Give the writers a moment to send their close frames.
        let deadline = Instant::now() + Duration::from_secs(3);
        while shared.open.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(())
    }
}

/// How often the sweep looks at the rooms out of memory: a quarter of the shortest of the
/// room timers, between 10 ms and 1 s.
fn sweep_every(config: &Config) -> Duration {
    (config.room_idle.min(config.keep_finished) / 4)
        .clamp(Duration::from_millis(10), Duration::from_secs(1))
}

/// How often the data folder's size is measured for `/metrics`.
const MEASURE_EVERY: Duration = Duration::from_secs(10);

/// Starts the thread that archives or removes the rooms out of memory whose time has come
/// (the workers do it for the rooms in memory) and measures the data folder. It ends when
/// the server is dropped.
fn start_sweep(shared: &Arc<Shared>) -> Result<(), String> {
    let weak = Arc::downgrade(shared);
    let every = sweep_every(&shared.config);
    shared
        .metrics
        .set_data_bytes(crate::life::folder_bytes(&shared.config.data));
    std::thread::Builder::new()
        .name("sweep".into())
        .spawn(move || {
            let mut measured = Instant::now();
            loop {
                std::thread::sleep(every);
                let Some(shared) = weak.upgrade() else {
                    return;
                };
                if shared.shutting_down.load(Ordering::SeqCst) {
                    return;
                }
                sweep(&shared, Instant::now());
                if measured.elapsed() >= MEASURE_EVERY {
                    measured = Instant::now();
                    shared
                        .metrics
                        .set_data_bytes(crate::life::folder_bytes(&shared.config.data));
                }
            }
        })
        .map(|_| ())
        .map_err(|e| format!("cannot start the room sweep thread: {e}"))
}

/// Archives or removes each room out of memory whose time has come.
fn sweep(shared: &Shared, now: Instant) {
    let config = &shared.config;
    let mut trash = Vec::new();
    {
        let Ok(mut rooms) = shared.rooms.lock() else {
            return;
        };
        let due: Vec<(String, Fate)> = rooms
            .iter()
            .filter_map(|(name, h)| {
                let Where::Evicted(e) = &h.at else {
                    return None;
                };
                // An eviction's snapshot still being written: its folder is not done with.
                let saving = e.saving.as_ref().is_some_and(|rx| {
                    !matches!(rx.try_recv(), Err(cb::TryRecvError::Disconnected))
                });
                if saving {
                    return None;
                }
                crate::life::fate(
                    h.life.phase(),
                    now.saturating_duration_since(e.empty_since),
                    config.room_idle,
                    config.keep_finished,
                    config.archive,
                )
                .filter(|&fate| fate != Fate::Evict)
                .map(|fate| (name.clone(), fate))
            })
            .collect();
        for (name, fate) in due {
            let Some(mut handle) = rooms.remove(&name) else {
                continue;
            };
            let record = match &mut handle.at {
                Where::Evicted(e) => e.record.take(),
                Where::Loaded(_) => None,
            };
            match end_room(config, &shared.metrics, &name, fate, record) {
                Some(path) => trash.push(path),
                None => {
                    // Kept, to be tried again after another wait.
                    handle.at = Where::Evicted(Evicted {
                        empty_since: now,
                        saving: None,
                        record: None,
                    });
                    rooms.insert(name, handle);
                }
            }
        }
    }
    for path in trash {
        let _ = std::fs::remove_dir_all(path);
    }
}

async fn shutdown_rooms(shared: &Arc<Shared>) {
    let (waits, saving): (Vec<oneshot::Receiver<()>>, Vec<cb::Receiver<()>>) = {
        let Ok(rooms) = shared.rooms.lock() else {
            return;
        };
        let waits = rooms
            .values()
            .filter_map(|h| {
                let (tx, rx) = oneshot::channel();
                let loaded = h.loaded()?;
                loaded
                    .ctl
                    .send(Cmd::Shutdown { reply: tx })
                    .ok()
                    .map(|()| rx)
            })
            .collect();
        let saving = rooms
            .values()
            .filter_map(|h| match &h.at {
                Where::Evicted(e) => e.saving.clone(),
                Where::Loaded(_) => None,
            })
            .collect();
        (waits, saving)
    };
    for w in waits {
        let _ = w.await;
    }
    // The snapshots of rooms evicted a moment ago are finished too.
    let _ = tokio::task::spawn_blocking(move || {
        for rx in saving {
            let _ = rx.recv();
        }
    })
    .await;
}

async fn metrics(State(shared): State<Arc<Shared>>) -> impl IntoResponse {
    if let Ok(rooms) = shared.rooms.lock() {
        let mut by_phase = [0u64; 3];
        let (mut in_memory, mut empty) = (0, 0);
        for h in rooms.values() {
            by_phase[usize::from(h.life.phase().code())] += 1;
            in_memory += u64::from(h.loaded().is_some());
            empty += u64::from(h.life.connections.load(Ordering::Relaxed) == 0);
        }
        shared.metrics.set_rooms(by_phase, in_memory, empty);
    }
    (
        [("content-type", "text/plain; version=0.0.4")],
        shared.metrics.render(),
    )
}

/// The rooms that can be joined (waiting or playing; in memory or not), by name, as JSON:
/// each with its parameters, `state`, `players` connected, `connections` (players and
/// spectators), `empty` (no connection), `in_memory`, and `age` in seconds.
async fn rooms(State(shared): State<Arc<Shared>>) -> impl IntoResponse {
    let mut out = String::from("[");
    let now = SystemTime::now();
    if let Ok(rooms) = shared.rooms.lock() {
        let mut names: Vec<&String> = rooms
            .iter()
            .filter(|(_, h)| h.life.phase() != Phase::Over)
            .map(|(name, _)| name)
            .collect();
        names.sort();
        for (i, name) in names.into_iter().enumerate() {
            let h = &rooms[name];
            let p = &h.params;
            if i > 0 {
                out.push(',');
            }
            out.push_str(&format!(
                "{{\"name\":\"{name}\",\"rows\":{},\"cols\":{},\"mines\":{},\"mode\":\"{}\",\"rule\":\"{}\",\"noguess\":{},\"state\":\"{}\",\"players\":{},\"connections\":{},\"empty\":{},\"in_memory\":{},\"age\":{}}}",
                p.rows,
                p.cols,
                p.mines,
                crate::params::mode_name(p.mode),
                crate::params::rule_name(p.rule),
                p.no_guess,
                h.life.phase().name(),
                h.life.players.load(Ordering::Relaxed),
                h.life.connections.load(Ordering::Relaxed),
                h.life.connections.load(Ordering::Relaxed) == 0,
                h.loaded().is_some(),
                now.duration_since(h.made).map_or(0, |d| d.as_secs()),
            ));
        }
    }
    out.push(']');
    ([("content-type", "application/json")], out)
}

/// `/games?page=N`: a page of the archived games, newest first (see
/// [`crate::life::games_page`]).
async fn games(RawQuery(query): RawQuery, State(shared): State<Arc<Shared>>) -> Response {
    let query = parse_query(query.as_deref().unwrap_or(""));
    let page = match query.get("page") {
        None => 0,
        Some(v) => match v.parse::<usize>() {
            Ok(page) => page,
            Err(_) => {
                return (
                    axum::http::StatusCode::BAD_REQUEST,
                    format!("page={v:?} is not a whole number of 0 or more\n"),
                )
                    .into_response();
            }
        },
    };
    let data = shared.config.data.clone();
    match tokio::task::spawn_blocking(move || crate::life::games_page(&data, page)).await {
        Ok(json) => ([("content-type", "application/json")], json).into_response(),
        Err(_) => (
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            "the archive could not be read\n",
        )
            .into_response(),
    }
}

async fn ws(
    ws: WebSocketUpgrade,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
    State(shared): State<Arc<Shared>>,
) -> Response {
    // Client frames are tiny: a small read buffer saves zeroing a large one on every read.
    ws.read_buffer_size(4096)
        .max_message_size(MAX_MESSAGE)
        .max_frame_size(MAX_MESSAGE)
        .on_upgrade(move |socket| connection(socket, name, query.unwrap_or_default(), shared))
}

/// Sends an error and a close frame on a socket that never joined.
async fn turn_away(mut socket: WebSocket, code: ErrorCode, message: String) {
    let frame = ServerMsg::Error {
        seq: 0,
        code: code as u16,
        message: message.clone(),
    }
    .encode();
    let _ = socket.send(Message::Binary(frame)).await;
    let _ = socket
        .send(Message::Close(Some(CloseFrame {
            code: 1008,
            reason: Utf8Bytes::from(crate::protocol::truncate_utf8(&message, 120).to_string()),
        })))
        .await;
}

/// Counts a connection as open for as long as it lives.
struct OpenGuard(Arc<Shared>);

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::SeqCst);
        self.0.metrics.disconnected();
    }
}

/// The longest a connection closed for flooding waits for the answers to its last good
/// frames before it closes anyway: a round of the room, its sync included, takes far less
/// unless the disk has stalled.
const FLUSH_WAIT: Duration = Duration::from_secs(5);

async fn connection(socket: WebSocket, name: String, query: String, shared: Arc<Shared>) {
    shared.open.fetch_add(1, Ordering::SeqCst);
    shared.metrics.connected();
    let _guard = OpenGuard(Arc::clone(&shared));
    if shared.shutting_down.load(Ordering::SeqCst) {
        return turn_away(
            socket,
            ErrorCode::ShuttingDown,
            "the server is shutting down".into(),
        )
        .await;
    }
    if shared.open.load(Ordering::SeqCst) > shared.config.max_connections {
        return turn_away(
            socket,
            ErrorCode::Limit,
            format!(
                "the server has its {} connections",
                shared.config.max_connections
            ),
        )
        .await;
    }
    if !valid_name(&name) {
        return turn_away(
            socket,
            ErrorCode::BadParameter,
            format!("room name {name:?} is not 1 to 64 letters, digits, '-' or '_'"),
        )
        .await;
    }
    let join = match Join::parse(&query) {
        Ok(join) => join,
        Err((code, e)) => return turn_away(socket, code, e).await,
    };
    let (ctl, msgs, making) = match joined_room(&shared, &name, &join.room).await {
        Ok(channels) => channels,
        Err((code, e)) => return turn_away(socket, code, e).await,
    };
    let mut socket = socket;
    let conn = shared.next_conn.fetch_add(1, Ordering::Relaxed);
    let (tx, mut rx) = mpsc::channel::<Bytes>(shared.config.queue);
    let closer: Closer = Arc::new(CloseSlot::default());
    let (reply_tx, reply_rx) = oneshot::channel();
    let join = Cmd::Join {
        conn,
        token: join.token,
        spectate: join.spectate,
        name: join.name,
        tx: tx.clone(),
        closer: Arc::clone(&closer),
        reply: reply_tx,
    };
    if ctl.send(join).is_err() {
        return turn_away(socket, ErrorCode::Busy, "the room is closing".into()).await;
    }
    match wait_for_join(&mut socket, reply_rx, &making).await {
        Ok(Ok(())) => {}
        Ok(Err((code, e))) => return turn_away(socket, code, e).await,
        Err(_) => return turn_away(socket, ErrorCode::Busy, "the room closed".into()).await,
    }
    let (mut sink, mut stream) = socket.split();
    let writer_closer = Arc::clone(&closer);
    let writer = tokio::spawn(async move {
        let send = |frame| Message::Binary(frame);
        loop {
            tokio::select! {
                biased;
                frame = rx.recv() => match frame {
                    Some(frame) => {
                        // Whatever else is queued goes in the same write: one flush (and
                        // one system call) for a move's delta and ack together.
                        if sink.feed(send(frame)).await.is_err() {
                            return;
                        }
                        while let Ok(frame) = rx.try_recv() {
                            if sink.feed(send(frame)).await.is_err() {
                                return;
                            }
                        }
                        if sink.flush().await.is_err() {
                            return;
                        }
                    }
                    None => break,
                },
                () = writer_closer.now.notified() => {
                    while let Ok(frame) = rx.try_recv() {
                        if sink.send(send(frame)).await.is_err() {
                            return;
                        }
                    }
                    break;
                }
            }
        }
        let (code, reason) = writer_closer
            .reason
            .lock()
            .ok()
            .and_then(|slot| slot.clone())
            .unwrap_or((1000, "closed".into()));
        let _ = sink
            .send(Message::Close(Some(CloseFrame {
                code,
                reason: Utf8Bytes::from(crate::protocol::truncate_utf8(&reason, 120).to_string()),
            })))
            .await;
        let _ = sink.close().await;
    });
    let ended = read_loop(&shared, conn, &mut stream, &tx, &closer, &msgs).await;
    if ended == Ended::Flood {
        // The good frames read before the flood may still wait in the room's queue, and
        // their answers come only after the room's next commit: a flush queued behind them
        // is answered once those answers are in this connection's queue, and only then is
        // the close left for the writer (which sends what is queued first) and the room
        // told of the leave (which drops what the room still holds for the connection).
        let (done_tx, done_rx) = oneshot::channel();
        if msgs.flush(done_tx) {
            let _ = tokio::time::timeout(FLUSH_WAIT, done_rx).await;
        }
        shared.metrics.close_abuse();
        set_close(
            &closer,
            1008,
            &format!("more than {STRIKES} bad or refused frames"),
        );
    }
    let _ = ctl.send(Cmd::Leave { conn });
    drop(tx);
    // The writer ends when the room drops its sender (after the leave) or the socket fails.
    // Meanwhile the frames still arriving are read and dropped until the client answers the
    // close, so the socket is not shut on unread data (which would reset it, and lose the
    // close frame and the errors before it on the client's side).
    let drain = async {
        while let Ok(Some(Ok(message))) =
            tokio::time::timeout(Duration::from_secs(2), stream.next()).await
        {
            if matches!(message, Message::Close(_)) {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        let _ = tokio::join!(writer, drain);
    })
    .await;
}

/// Waits for the room's answer to a join; meanwhile, while the room's board is being made,
/// tells the client how far it is (a progress frame at once, then at most every
/// [`PROGRESS_EVERY`] when the share changed), so a large board is not a silence. These
/// frames are the only ones that come before the welcome.
async fn wait_for_join(
    socket: &mut WebSocket,
    mut reply: oneshot::Receiver<Result<(), Refusal>>,
    making: &AtomicU32,
) -> Result<Result<(), Refusal>, oneshot::error::RecvError> {
    let mut told = None;
    loop {
        let share = making.load(Ordering::Acquire);
        if share != MADE && told != Some(share) {
            told = Some(share);
            let share = u16::try_from(share.min(u32::from(PROGRESS_DONE))).unwrap_or(PROGRESS_DONE);
            // A client gone meanwhile is found by the read loop once the join is answered.
            let _ = socket
                .send(Message::Binary(ServerMsg::Progress { share }.encode()))
                .await;
        }
        tokio::select! {
            answer = &mut reply => return answer,
            () = tokio::time::sleep(PROGRESS_EVERY) => {}
        }
    }
}

/// A token bucket.
struct Bucket {
    tokens: f64,
    rate: f64,
    burst: f64,
    at: Instant,
}

impl Bucket {
    fn new(rate: f64, burst: f64) -> Bucket {
        Bucket {
            tokens: burst,
            rate,
            burst,
            at: Instant::now(),
        }
    }

    fn take(&mut self, now: Instant) -> bool {
        self.tokens =
            (self.tokens + now.duration_since(self.at).as_secs_f64() * self.rate).min(self.burst);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Strikes (bad frames, refused floods) after which a connection is closed.
const STRIKES: u32 = 100;

/// Why a connection's reader stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// The client closed, the socket failed, or the room went away.
    Gone,
    /// The connection was silent for the idle time (its close reason is left).
    Idle,
    /// More than [`STRIKES`] bad or refused frames.
    Flood,
    /// A message over the WebSocket's limit of [`MAX_MESSAGE`] bytes (its close reason is
    /// left).
    TooBig,
}

/// The largest WebSocket message (and frame) a connection reads. Client frames are at most
/// [`MAX_CLIENT_FRAME`] bytes; one up to this size is read and answered with `BadFrame`, and
/// a larger one closes the connection with code 1009.
const MAX_MESSAGE: usize = 1024;

/// The close reason for a read error that is a message over the limit, if it is one.
fn too_big(error: axum::Error) -> Option<String> {
    use tokio_tungstenite::tungstenite::error::{CapacityError, Error};
    match error.into_inner().downcast_ref::<Error>()? {
        Error::Capacity(CapacityError::MessageTooLong { size, max_size }) => Some(format!(
            "a message of {size} bytes, over the limit of {max_size}"
        )),
        _ => None,
    }
}

/// A frame the reader refuses itself: the seq to answer with, the code, the message.
type Refused = (u32, ErrorCode, String);

/// The connection's rates, kept by its reader.
struct Rates {
    frames: Bucket,
    help: Bucket,
    summaries: Bucket,
}

/// Summaries requests a connection may make a second (bursts of twice as many): a whole
/// 10^8-cell board's summaries are some 1.6 million popcounts and a 100 kB frame, and a
/// page asks for them about once a second.
pub const SUMMARIES_RATE: f64 = 4.0;

impl Rates {
    /// Checks a binary frame against the connection's rates and decodes it. Every frame,
    /// good or bad, is charged to the frame rate; a refusal carries the frame's own seq
    /// when the frame decodes, so a client that sends many moves at once learns which were
    /// refused.
    fn admit(&mut self, bytes: &[u8], now: Instant, config: &Config) -> Result<ClientMsg, Refused> {
        let within_rate = self.frames.take(now);
        if bytes.len() > MAX_CLIENT_FRAME {
            return Err((
                0,
                ErrorCode::BadFrame,
                format!(
                    "a frame of {} bytes, over the limit of {MAX_CLIENT_FRAME}",
                    bytes.len()
                ),
            ));
        }
        let msg = ClientMsg::decode(bytes).map_err(|e| (0, ErrorCode::BadFrame, e.to_string()))?;
        if !within_rate {
            return Err((
                msg.seq(),
                ErrorCode::RateLimited,
                format!("more than {} frames a second", config.rate),
            ));
        }
        if matches!(
            msg,
            ClientMsg::Hint { .. } | ClientMsg::Odds { .. } | ClientMsg::WrongFlags { .. }
        ) && !self.help.take(now)
        {
            return Err((
                msg.seq(),
                ErrorCode::RateLimited,
                format!("more than {} hints a second", config.help_rate),
            ));
        }
        if matches!(msg, ClientMsg::Summaries(_)) && !self.summaries.take(now) {
            return Err((
                0,
                ErrorCode::RateLimited,
                format!("more than {SUMMARIES_RATE} summaries requests a second"),
            ));
        }
        Ok(msg)
    }
}

async fn read_loop(
    shared: &Arc<Shared>,
    conn: ConnId,
    stream: &mut futures_util::stream::SplitStream<WebSocket>,
    tx: &mpsc::Sender<Bytes>,
    closer: &Closer,
    msgs: &MsgQueue,
) -> Ended {
    let config = &shared.config;
    let mut rates = Rates {
        frames: Bucket::new(config.rate, config.burst),
        help: Bucket::new(config.help_rate, config.help_rate * 2.0),
        summaries: Bucket::new(SUMMARIES_RATE, SUMMARIES_RATE * 2.0),
    };
    let mut strikes = 0u32;
    let refuse = |(seq, code, message): Refused| {
        shared.metrics.error();
        let _ = tx.try_send(
            ServerMsg::Error {
                seq,
                code: code as u16,
                message,
            }
            .encode(),
        );
    };
    loop {
        let next = match tokio::time::timeout(config.idle, stream.next()).await {
            Err(_) => {
                set_close(
                    closer,
                    1000,
                    &format!("idle for {} s", config.idle.as_secs()),
                );
                return Ended::Idle;
            }
            Ok(Some(Err(e))) => {
                // A message past the WebSocket's limit is refused before its payload is read,
                // so the bytes after it cannot be read as frames: the connection is closed
                // with the code for a message too big (RFC 6455, 7.4.1), naming its size.
                return match too_big(e) {
                    Some(reason) => {
                        set_close(closer, 1009, &reason);
                        Ended::TooBig
                    }
                    None => Ended::Gone,
                };
            }
            Ok(None) => return Ended::Gone,
            Ok(Some(Ok(message))) => message,
        };
        let now = Instant::now();
        shared.metrics.frame_in();
        let refused = match next {
            Message::Binary(bytes) => match rates.admit(&bytes, now, config) {
                Ok(msg) => {
                    let seq = msg.seq();
                    match msgs.try_send(Cmd::Msg {
                        conn,
                        msg,
                        received: now,
                    }) {
                        Ok(()) => {}
                        // A full room is nobody's fault: no strike.
                        Err(cb::TrySendError::Full(_)) => refuse((
                            seq,
                            ErrorCode::Busy,
                            "the room is busy; try the move again".into(),
                        )),
                        Err(cb::TrySendError::Disconnected(_)) => return Ended::Gone,
                    }
                    continue;
                }
                Err(refused) => refused,
            },
            Message::Close(_) => return Ended::Gone,
            Message::Ping(_) | Message::Pong(_) => continue,
            Message::Text(_) => (
                0,
                ErrorCode::BadFrame,
                "text frames are not part of the protocol; send binary frames".into(),
            ),
        };
        refuse(refused);
        strikes += 1;
        if strikes > STRIKES {
            return Ended::Flood;
        }
    }
}

/// How long a join waits, at most, for finished rooms to leave memory when the rooms in
/// memory are at their most, before it is refused.
const CROWDED_WAIT: Duration = Duration::from_secs(2);

/// [`find_or_create`]; while the rooms in memory are at their most, and finished rooms that
/// nobody is connected to are leaving memory (see [`Shared::crowded`]), tried again every
/// [`TICK`] for up to [`CROWDED_WAIT`].
async fn joined_room(
    shared: &Arc<Shared>,
    name: &str,
    requested: &Requested,
) -> Result<(CtlQueue, MsgQueue, Making), Refusal> {
    let started = Instant::now();
    loop {
        let found = find_or_create(shared, name, requested);
        let crowded = matches!(&found, Err((ErrorCode::Limit, why)) if why.starts_with(CROWDED));
        let waiting = crowded && started.elapsed() < CROWDED_WAIT;
        if !waiting {
            return found;
        }
        tokio::time::sleep(TICK).await;
    }
}

fn find_or_create(
    shared: &Arc<Shared>,
    name: &str,
    requested: &Requested,
) -> Result<(CtlQueue, MsgQueue, Making), Refusal> {
    let mut rooms = shared
        .rooms
        .lock()
        .map_err(|_| (ErrorCode::Busy, "the room directory failed".to_string()))?;
    if let Some(h) = rooms.get(name) {
        if let Some(m) = requested.mismatch(&h.params) {
            return Err((ErrorCode::RoomMismatch, format!("room {name} exists: {m}")));
        }
        if h.loaded().is_none() {
            reload(shared, &mut rooms, name)?;
        }
    } else {
        create(shared, &mut rooms, name, requested)?;
    }
    let h = rooms
        .get(name)
        .ok_or((ErrorCode::Busy, "the room closed as it opened".into()))?;
    let loaded = h
        .loaded()
        .ok_or((ErrorCode::Busy, "the room closed as it opened".into()))?;
    // Counted under the lock: the room stays in memory until its worker takes this join.
    h.joining.fetch_add(1, Ordering::SeqCst);
    Ok((
        loaded.ctl.clone(),
        loaded.msgs.clone(),
        Arc::clone(&loaded.making),
    ))
}

/// Refuses a room of `weight` cells that would bring the cells in memory over the limit.
fn check_cells(
    config: &Config,
    rooms: &HashMap<String, RoomHandle>,
    params: &RoomParams,
) -> Result<(), Refusal> {
    let total = cells_held(rooms);
    if total + weight(params) > config.max_total_cells {
        return Err((
            ErrorCode::Limit,
            format!(
                "a {}x{} {} room would bring the cells held to {}, over this server's limit of {}",
                params.rows,
                params.cols,
                crate::params::mode_name(params.mode),
                total + weight(params),
                config.max_total_cells
            ),
        ));
    }
    Ok(())
}

/// The start of [`check_in_memory`]'s refusal.
const CROWDED: &str = "the server holds";

/// Refuses to bring one more room into memory when [`crate::listen::ROOMS_IN_MEMORY`] times
/// `--max-rooms` are there (the open files the server counted on at start hold no more).
fn check_in_memory(shared: &Shared, rooms: &HashMap<String, RoomHandle>) -> Result<(), Refusal> {
    let config = &shared.config;
    let held = rooms.values().filter(|h| h.loaded().is_some()).count();
    let most = config
        .max_rooms
        .saturating_mul(crate::listen::ROOMS_IN_MEMORY);
    shared.crowded.store(held >= most, Ordering::Relaxed);
    if held >= most {
        return Err((
            ErrorCode::Limit,
            format!(
                "{CROWDED} {held} rooms in memory, its most with --max-rooms {}, and none of them is a finished room that nobody is connected to",
                config.max_rooms
            ),
        ));
    }
    Ok(())
}

/// Makes room `name`: counted against `--max-rooms` with the other rooms that can be joined
/// (waiting or playing, in memory or not; a finished game is not counted), and against the
/// rooms in memory ([`check_in_memory`]).
fn create(
    shared: &Arc<Shared>,
    rooms: &mut HashMap<String, RoomHandle>,
    name: &str,
    requested: &Requested,
) -> Result<(), Refusal> {
    let config = &shared.config;
    let live = rooms
        .values()
        .filter(|h| h.life.phase() != Phase::Over)
        .count();
    if live >= config.max_rooms {
        return Err((
            ErrorCode::Limit,
            format!("the server has its {} rooms", config.max_rooms),
        ));
    }
    check_in_memory(shared, rooms)?;
    // Parameters that make no room anywhere (no cells, mines that do not fit, a first click
    // off the board, an endless race) are bad parameters; only a room this server's limit
    // refuses is over a limit. So the parameters are resolved first with no limit.
    requested
        .resolve(u128::MAX)
        .map_err(|e| (ErrorCode::BadParameter, e))?;
    let params = requested
        .resolve(config.max_room_cells)
        .map_err(|e| (ErrorCode::Limit, e))?;
    check_cells(config, rooms, &params)?;
    let mut seed = [0u8; 8];
    getrandom::fill(&mut seed).map_err(|e| (ErrorCode::Busy, format!("no random seed: {e}")))?;
    let life = RoomLife::new(Phase::Waiting);
    let joining = Arc::new(AtomicUsize::new(0));
    let worker = least_loaded(shared, rooms);
    let loaded = start_room(
        shared,
        worker,
        name,
        params,
        (Arc::clone(&life), Arc::clone(&joining)),
        RoomStart::New(u64::from_le_bytes(seed)),
    )
    .map_err(|e| (ErrorCode::Busy, e))?;
    rooms.insert(
        name.to_string(),
        RoomHandle {
            weight: weight(&params),
            params,
            made: SystemTime::now(),
            life,
            joining,
            at: Where::Loaded(loaded),
        },
    );
    Ok(())
}

/// Brings the evicted room `name` back into memory, recovered from its folder.
fn reload(
    shared: &Arc<Shared>,
    rooms: &mut HashMap<String, RoomHandle>,
    name: &str,
) -> Result<(), Refusal> {
    let worker = least_loaded(shared, rooms);
    let (params, life, joining, saving) = {
        let h = rooms
            .get(name)
            .ok_or((ErrorCode::Busy, "the room closed as it opened".into()))?;
        check_cells(&shared.config, rooms, &h.params)?;
        check_in_memory(shared, rooms)?;
        let saving = match &h.at {
            Where::Evicted(e) => e.saving.clone(),
            Where::Loaded(_) => None,
        };
        (
            h.params,
            Arc::clone(&h.life),
            Arc::clone(&h.joining),
            saving,
        )
    };
    let loaded = start_room(
        shared,
        worker,
        name,
        params,
        (life, joining),
        RoomStart::Recover(saving),
    )
    .map_err(|e| (ErrorCode::Busy, e))?;
    if let Some(h) = rooms.get_mut(name) {
        h.at = Where::Loaded(loaded);
    }
    Ok(())
}
