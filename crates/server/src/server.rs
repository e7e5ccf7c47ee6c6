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

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use crossbeam_channel as cb;
use futures_util::{SinkExt, StreamExt};
use tokio::sync::{mpsc, oneshot};

use crate::log::{Log, RoomDir, SnapshotState, Sync, Syncer};
use crate::metrics::Metrics;
use crate::params::{Join, Requested, RoomParams};
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
    /// The most rooms at once.
    pub max_rooms: usize,
    /// The most cells in one room.
    pub max_room_cells: u128,
    /// The most cells over all rooms, each room counted once for its board and once for
    /// each view it may hold (a race: up to 8).
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
/// restored, or failed). It only grows: a no-guess generator's share may step back, and a
/// bar that goes backwards tells the players nothing true.
type Making = Arc<AtomicU32>;

/// A [`Making`] value: the room is not being made.
const MADE: u32 = u32::MAX;

/// How often a connection waiting for a room's board is told how far it is, at most.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

struct RoomHandle {
    params: RoomParams,
    /// How much of its board is made, while it is being made.
    making: Making,
    weight: u128,
    worker: usize,
    ctl: CtlQueue,
    msgs: MsgQueue,
    players: Arc<AtomicUsize>,
}

/// Shared by every connection.
pub struct Shared {
    config: Config,
    rooms: Mutex<HashMap<String, RoomHandle>>,
    metrics: Arc<Metrics>,
    next_conn: AtomicU64,
    next_room: AtomicU64,
    open: AtomicUsize,
    shutting_down: AtomicBool,
    /// The room workers' queues.
    workers: Vec<cb::Sender<WorkerMsg>>,
}

impl Shared {
    /// The server's metrics.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }
}

/// Starts every room found under the data directory. A room that cannot be restored, or
/// anything under `rooms/` that is not a room folder, is moved to the quarantine folder
/// (see [`crate::log::quarantine`]) with a line naming it and the cause, and counted; the
/// other rooms are served. Only a quarantine that fails (the data folder cannot be written)
/// stops the start.
fn restore_rooms(shared: &Arc<Shared>) -> Result<usize, String> {
    let data = &shared.config.data;
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
        let mut rooms = shared.rooms.lock().map_err(|_| "room directory poisoned")?;
        spawn_room(
            shared,
            &mut rooms,
            name,
            params,
            RoomStart::Restored(Box::new((room, log))),
        )?;
        n += 1;
    }
    Ok(n)
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
    let (room, log) = room_dir.recover(
        shared.config.sync,
        shared.config.max_chunks,
        Arc::clone(&shared.metrics),
    )?;
    room.validate()
        .map_err(|e| format!("restored inconsistent: {e}"))?;
    Ok((name, params, room, log))
}

enum RoomStart {
    New(u64),
    Restored(Box<(Room, crate::log::Log)>),
}

fn weight(params: &RoomParams) -> u128 {
    let views = match params.mode {
        Mode::Race => crate::room::MAX_RACE_PLAYERS as u128,
        Mode::Coop => 1,
    };
    params.cells() * (1 + views)
}

/// Registers a room and hands it to the worker with the fewest cells: at once when it was
/// restored, or once a thread of its own has made its board (which a large board takes a
/// while for, and no other room should wait on). Requests that come meanwhile wait in the
/// room's queues.
fn spawn_room(
    shared: &Arc<Shared>,
    rooms: &mut HashMap<String, RoomHandle>,
    name: String,
    params: RoomParams,
    start: RoomStart,
) -> Result<(), String> {
    let mut load = vec![0u128; shared.workers.len()];
    for h in rooms.values() {
        load[h.worker] += h.weight;
    }
    let worker = (0..load.len()).min_by_key(|&w| load[w]).unwrap_or(0);
    let worker_tx = shared
        .workers
        .get(worker)
        .cloned()
        .ok_or_else(|| "no room workers".to_string())?;
    let (ctl_tx, ctl_rx) = cb::unbounded();
    let (msg_tx, msg_rx) = cb::unbounded();
    let queued = Arc::new(AtomicUsize::new(0));
    let players = Arc::new(AtomicUsize::new(0));
    let making: Making = Arc::new(AtomicU32::new(match start {
        RoomStart::New(_) => 0,
        RoomStart::Restored(_) => MADE,
    }));
    let id = shared.next_room.fetch_add(1, Ordering::Relaxed);
    let bell = Bell {
        room: id,
        scheduled: Arc::new(AtomicBool::new(false)),
        worker: worker_tx.clone(),
    };
    let handle = RoomHandle {
        params,
        making: Arc::clone(&making),
        weight: weight(&params),
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
        players: Arc::clone(&players),
    };
    let adoption = Adoption {
        id,
        inbox: Inbox {
            ctl: ctl_rx,
            msgs: msg_rx,
            queued,
            players,
        },
        scheduled: bell.scheduled,
        worker: worker_tx,
    };
    match start {
        RoomStart::Restored(boxed) => {
            let (room, log) = *boxed;
            adoption.adopt(name.clone(), &params, (room, log, None), &shared.config);
        }
        RoomStart::New(seed) => {
            let thread_shared = Arc::clone(shared);
            let thread_name = name.clone();
            std::thread::Builder::new()
                .name(format!("new room {name}"))
                .spawn(move || {
                    let shared = thread_shared;
                    let made = make_room(&shared, &thread_name, &params, seed, &making);
                    making.store(MADE, Ordering::Release);
                    match made {
                        Ok(made) => {
                            adoption.adopt(thread_name, &params, made, &shared.config);
                        }
                        Err(e) => {
                            eprintln!("bitmines serve: room {thread_name}: {e}");
                            let inbox = &adoption.inbox;
                            refuse_all(
                                &inbox.ctl,
                                &inbox.msgs,
                                &format!("the room could not be made: {e}"),
                            );
                            if let Ok(mut rooms) = shared.rooms.lock() {
                                rooms.remove(&thread_name);
                                shared.metrics.set_rooms(rooms.len());
                            }
                        }
                    }
                })
                .map_err(|e| format!("cannot start a thread for room {name}: {e}"))?;
        }
    }
    rooms.insert(name, handle);
    shared.metrics.set_rooms(rooms.len());
    Ok(())
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
    /// Players who joined, for `/rooms`.
    players: Arc<AtomicUsize>,
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
            writer: None,
            spare,
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
fn run_worker(config: &Config, syncer: &Syncer, rx: &cb::Receiver<WorkerMsg>) {
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
        if now.duration_since(last_tick) >= TICK {
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
    }
}

impl Live {
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
        self.room.release(Instant::now());
        // The games that ended at a rematch, now durable: the archive of finished games takes
        // each here (keyed by room and game number); until it does, they are let go, so a
        // room that plays for months holds none of them.
        for _finished in self.room.take_finished() {}
        self.inbox
            .players
            .store(self.room.player_count(), Ordering::Relaxed);
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
        let due = records - self.last_snapshot >= self.every;
        if (due && self.writer.is_none()) || self.shutdown.is_some() {
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
            let (config, syncer) = (config.clone(), syncer.clone());
            std::thread::Builder::new()
                .name(format!("rooms {w}"))
                .spawn(move || run_worker(&config, &syncer, &rx))
                .map_err(|e| format!("cannot start a room worker: {e}"))?;
            workers.push(tx);
        }
        drop(syncer);
        let shared = Arc::new(Shared {
            config,
            rooms: Mutex::new(HashMap::new()),
            metrics,
            next_conn: AtomicU64::new(1),
            next_room: AtomicU64::new(1),
            open: AtomicUsize::new(0),
            shutting_down: AtomicBool::new(false),
            workers,
        });
        let restored = restore_rooms(&shared)?;
        if restored > 0 {
            eprintln!(
                "bitmines serve: restored {restored} rooms from {}",
                shared.config.data.display()
            );
        }
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

async fn shutdown_rooms(shared: &Arc<Shared>) {
    let waits: Vec<oneshot::Receiver<()>> = {
        let Ok(rooms) = shared.rooms.lock() else {
            return;
        };
        rooms
            .values()
            .filter_map(|h| {
                let (tx, rx) = oneshot::channel();
                h.ctl.send(Cmd::Shutdown { reply: tx }).ok().map(|()| rx)
            })
            .collect()
    };
    for w in waits {
        let _ = w.await;
    }
}

async fn metrics(State(shared): State<Arc<Shared>>) -> impl IntoResponse {
    (
        [("content-type", "text/plain; version=0.0.4")],
        shared.metrics.render(),
    )
}

async fn rooms(State(shared): State<Arc<Shared>>) -> impl IntoResponse {
    let mut out = String::from("[");
    if let Ok(rooms) = shared.rooms.lock() {
        let mut names: Vec<&String> = rooms.keys().collect();
        names.sort();
        for (i, name) in names.into_iter().enumerate() {
            let h = &rooms[name];
            let p = &h.params;
            if i > 0 {
                out.push(',');
            }
            out.push_str(&format!(
                "{{\"name\":\"{name}\",\"rows\":{},\"cols\":{},\"mines\":{},\"mode\":\"{}\",\"rule\":\"{}\",\"noguess\":{},\"players\":{}}}",
                p.rows,
                p.cols,
                p.mines,
                crate::params::mode_name(p.mode),
                crate::params::rule_name(p.rule),
                p.no_guess,
                h.players.load(Ordering::Relaxed)
            ));
        }
    }
    out.push(']');
    ([("content-type", "application/json")], out)
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
    let (ctl, msgs, making) = match find_or_create(&shared, &name, &join.room) {
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
}

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

fn find_or_create(
    shared: &Arc<Shared>,
    name: &str,
    requested: &Requested,
) -> Result<(CtlQueue, MsgQueue, Making), Refusal> {
    let config = &shared.config;
    let mut rooms = shared
        .rooms
        .lock()
        .map_err(|_| (ErrorCode::Busy, "the room directory failed".to_string()))?;
    if let Some(h) = rooms.get(name) {
        if let Some(m) = requested.mismatch(&h.params) {
            return Err((ErrorCode::RoomMismatch, format!("room {name} exists: {m}")));
        }
        return Ok((h.ctl.clone(), h.msgs.clone(), Arc::clone(&h.making)));
    }
    if rooms.len() >= config.max_rooms {
        return Err((
            ErrorCode::Limit,
            format!("the server has its {} rooms", config.max_rooms),
        ));
    }
    // Parameters that make no room anywhere (no cells, mines that do not fit, a first click
    // off the board, an endless race) are bad parameters; only a room this server's limit
    // refuses is over a limit. So the parameters are resolved first with no limit.
    requested
        .resolve(u128::MAX)
        .map_err(|e| (ErrorCode::BadParameter, e))?;
    let params = requested
        .resolve(config.max_room_cells)
        .map_err(|e| (ErrorCode::Limit, e))?;
    let total: u128 = rooms.values().map(|h| h.weight).sum();
    if total + weight(&params) > config.max_total_cells {
        return Err((
            ErrorCode::Limit,
            format!(
                "a {}x{} {} room would bring the cells held to {}, over this server's limit of {}",
                params.rows,
                params.cols,
                crate::params::mode_name(params.mode),
                total + weight(&params),
                config.max_total_cells
            ),
        ));
    }
    let mut seed = [0u8; 8];
    getrandom::fill(&mut seed).map_err(|e| (ErrorCode::Busy, format!("no random seed: {e}")))?;
    spawn_room(
        shared,
        &mut rooms,
        name.to_string(),
        params,
        RoomStart::New(u64::from_le_bytes(seed)),
    )
    .map_err(|e| (ErrorCode::Busy, e))?;
    shared.metrics.set_rooms(rooms.len());
    rooms
        .get(name)
        .map(|h| (h.ctl.clone(), h.msgs.clone(), Arc::clone(&h.making)))
        .ok_or((ErrorCode::Busy, "the room closed as it opened".into()))
}
