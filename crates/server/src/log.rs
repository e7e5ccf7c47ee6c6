//! Durability: each room's append-only log of moves, its snapshots, and its recovery.
//!
//! A room lives in a folder of its own under the data directory:
//!
//! - `meta`: the room's parameters and the secret seed of its board, written once,
//!   atomically, before the room takes its first join.
//! - `log`: the records, each `len u32 | crc32 u32 | payload` (little-endian; the CRC is of
//!   the payload). A batch of records is written (and, unless sync is off, synced) before
//!   any of its moves is acknowledged: one write a room a batch, and one sync for all the
//!   rooms that wrote (the [`Syncer`]), is the group commit.
//! - `snapshot-NNNNNNNNNNNNNNNNNNNN`: the state after the first N records: the board in the
//!   binary board format, every view in the saved-game format, the players with their
//!   scores and who placed each standing flag; a CRC-32 at the end. Written to a temporary file, synced and renamed, so a snapshot is whole or absent.
//!
//! Recovery is the same code the live room runs: the newest snapshot that reads back (one
//! that does not is named in a log line, and the one before it is tried), then every record
//! after it through the room's `apply_record`. A record cut short or failing its CRC ends
//! the log: the file is cut back to the last whole record, with a log line saying how many
//! bytes were dropped. Nothing that was acknowledged is in those bytes, since
//! acknowledgements wait for the flush.
//!
//! This module knows records, files and snapshots, and never names a room: a snapshot reads
//! back as a [`SnapshotState`], plain data, and the recovery driver
//! ([`RoomDir::recover`]) is written on the room's side (`room/recover.rs`), which turns
//! that state into a room and replays the records into it. So the room depends on the log,
//! and the log on nothing of the room's.
//!
//! # Group commit
//!
//! The [`Syncer`] makes the logs durable unless `--sync os`. With several room workers it is
//! one thread that answers every request waiting with one round of syncing: `fdatasync` a file
//! for up to eight files, one `syncfs` of the data directory's file system for more, so 500
//! race rooms cost a sync a round rather than 500. With a lone worker the same round runs on
//! the worker's own thread ([`Syncer::inline`]), which saves two thread switches a round.
//!
//! # Snapshots
//!
//! A snapshot is written from a copy of the room's state on a thread of its own at a lower
//! priority, to a temporary file, synced and renamed; the two newest are kept. The copy is made
//! into the last snapshot's copy (`Game::clone_from`: no allocation, no fresh pages, 5 ms for
//! 10^8 cells where a fresh one held the room up for 30), and the file is encoded as it is
//! written, a 1 MiB piece at a time, each synced and followed by a 10 ms pause while the room
//! plays, so the logs' syncs never queue behind a 50 MB write and no buffer of its size is
//! made. The server takes one snapshot every 200,000 records, or one per 128 cells of a larger
//! board, since a snapshot costs in proportion to the board and a record a few bytes.
//!
//! # Versions
//!
//! A log starts with a header naming its format version (`BMLOG04`, whose moves carry their
//! play time, which has a new-game record holding a rematch's seed and a start record for a
//! race with a countdown). A version-1 log, or one from before the header, is read with its
//! moves at time 0, and a version-2 or -3 log as it is; each is rewritten in version 4 when
//! opened. A log of a version this server does not
//! read is refused whole rather than cut back as a damaged tail. Snapshots (`BMSNAP4`) keep the
//! clock, the game's number and a race room's series (`BMSNAP3` and `BMSNAP2` still read); a
//! room's log runs on across its games, and its replay remakes each new game's board from its
//! record's seed.
//!
//! Recovery writes nothing to a room's folder until the room is rebuilt, and [`quarantine`]
//! moves a room that cannot be to `quarantine/NAME-UNIXTIME/` with its cause, as found.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bitmines_core::{Board, FirstClick, Game};

use crate::metrics::Metrics;
use crate::params::{RoomParams, mode_name, rule_name};
use crate::protocol::{Action, MineRule, Mode};

/// One durable change to a room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// A new player joined.
    Join {
        /// The player's index (their id minus one).
        player: u32,
        /// The player's secret token.
        token: [u8; 16],
        /// The player's name.
        name: String,
    },
    /// A player's move.
    Move {
        /// The player's index.
        player: u32,
        /// What they did.
        action: Action,
        /// The cell's row.
        row: u32,
        /// The cell's column.
        col: u32,
        /// The game's play time when the move was acknowledged, in milliseconds since the
        /// room's first move (so 0 for the first move itself). A move read from a version-1
        /// log, which kept no times, reads as 0.
        at_ms: u64,
    },
    /// The room's next game began, after a rematch: every view starts again on the board
    /// made from `seed` with the room's parameters, and the clock stops at 0. The seed is
    /// the new board's secret, like the one in `meta`: it never leaves the server.
    NewGame {
        /// The new game's number: 2 for the first rematch, and so on.
        game: u32,
        /// The secret seed of the new game's board.
        seed: u64,
    },
    /// A race made with `countdown=1` started: its countdown ended, and the clock runs
    /// from 0 for every racer.
    Start {
        /// The room's game that started.
        game: u32,
    },
}

/// The bytes of a start record's payload.
const START_LEN: usize = 5;

/// The bytes of a new-game record's payload.
const NEW_GAME_LEN: usize = 13;

/// The bytes of a move record's payload in a version-1 log, which kept no times.
const MOVE_V1_LEN: usize = 14;

/// The bytes of a move record's payload, its time included.
const MOVE_LEN: usize = 22;

impl Record {
    /// The record's payload.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(24);
        match self {
            Record::Join {
                player,
                token,
                name,
            } => {
                out.push(1);
                out.extend_from_slice(&player.to_le_bytes());
                out.extend_from_slice(token);
                let name = crate::protocol::truncate_utf8(name, 255);
                out.push(name.len() as u8);
                out.extend_from_slice(name.as_bytes());
            }
            Record::Move {
                player,
                action,
                row,
                col,
                at_ms,
            } => {
                out.push(2);
                out.extend_from_slice(&player.to_le_bytes());
                out.push(action.code());
                out.extend_from_slice(&row.to_le_bytes());
                out.extend_from_slice(&col.to_le_bytes());
                out.extend_from_slice(&at_ms.to_le_bytes());
            }
            Record::NewGame { game, seed } => {
                out.push(3);
                out.extend_from_slice(&game.to_le_bytes());
                out.extend_from_slice(&seed.to_le_bytes());
            }
            Record::Start { game } => {
                out.push(4);
                out.extend_from_slice(&game.to_le_bytes());
            }
        }
        out
    }

    /// Reads a payload back: a move of either length, with its time (this version's) or
    /// without (version 1's, read as time 0).
    pub fn decode(payload: &[u8]) -> Result<Record, String> {
        let u32_at = |at: usize| {
            payload
                .get(at..at + 4)
                .and_then(|b| b.try_into().ok())
                .map(u32::from_le_bytes)
                .ok_or_else(|| format!("a record of {} bytes is cut short", payload.len()))
        };
        match payload.first() {
            Some(1) => {
                let player = u32_at(1)?;
                let token: [u8; 16] = payload
                    .get(5..21)
                    .and_then(|b| b.try_into().ok())
                    .ok_or("a join record is cut short")?;
                let len = usize::from(*payload.get(21).ok_or("a join record is cut short")?);
                let name = payload
                    .get(22..22 + len)
                    .filter(|_| payload.len() == 22 + len)
                    .ok_or("a join record's name does not fit")?;
                Ok(Record::Join {
                    player,
                    token,
                    name: String::from_utf8_lossy(name).into_owned(),
                })
            }
            Some(2) if payload.len() == MOVE_V1_LEN || payload.len() == MOVE_LEN => {
                let at_ms = match payload.get(MOVE_V1_LEN..MOVE_LEN) {
                    Some(time) => time.try_into().map(u64::from_le_bytes).unwrap_or(0),
                    None => 0,
                };
                Ok(Record::Move {
                    player: u32_at(1)?,
                    action: Action::from_code(payload[5])
                        .ok_or_else(|| format!("action 0x{:02x} is not a move", payload[5]))?,
                    row: u32_at(6)?,
                    col: u32_at(10)?,
                    at_ms,
                })
            }
            Some(3) if payload.len() == NEW_GAME_LEN => Ok(Record::NewGame {
                game: u32_at(1)?,
                seed: payload
                    .get(5..13)
                    .and_then(|b| b.try_into().ok())
                    .map(u64::from_le_bytes)
                    .ok_or("a new-game record is cut short")?,
            }),
            Some(4) if payload.len() == START_LEN => Ok(Record::Start { game: u32_at(1)? }),
            Some(kind) => Err(format!(
                "record kind {kind} with {} bytes is not a join, a move, a new game or a start",
                payload.len()
            )),
            None => Err("an empty record".into()),
        }
    }
}

/// Appends one framed record to `out`.
pub fn frame(record: &Record, out: &mut Vec<u8>) {
    let payload = record.encode();
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
}

/// The records of a log's bytes up to the first damaged one, and the length of the good
/// prefix.
pub fn scan(bytes: &[u8]) -> (Vec<Record>, usize, Option<String>) {
    let mut records = Vec::new();
    let mut at = 0;
    loop {
        let Some(head) = bytes.get(at..at + 8) else {
            let problem = (at < bytes.len())
                .then(|| format!("a record header cut short after {} bytes", bytes.len() - at));
            return (records, at, problem);
        };
        let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let crc = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
        let Some(payload) = bytes.get(at + 8..at + 8 + len) else {
            return (
                records,
                at,
                Some(format!(
                    "a record of {len} bytes with only {} there",
                    bytes.len() - at - 8
                )),
            );
        };
        if crc32fast::hash(payload) != crc {
            return (records, at, Some("a record failing its CRC".into()));
        }
        match Record::decode(payload) {
            Ok(record) => records.push(record),
            Err(e) => return (records, at, Some(e)),
        }
        at += 8 + len;
    }
}

/// Whether writes are synced to the disk before acknowledgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sync {
    /// `fdatasync` each batch: acknowledged moves survive a power cut.
    Data,
    /// Write to the operating system only: acknowledged moves survive the process being
    /// killed, not the machine failing.
    Os,
}

/// A room's open log.
pub struct Log {
    file: Arc<File>,
    sync: Sync,
    records: u64,
    buffer: Vec<u8>,
}

impl Log {
    /// Appends records without syncing them: the caller makes [`Log::file`] durable (with the
    /// other rooms' logs, through a [`Syncer`]) before it acknowledges any of them.
    pub fn append(&mut self, records: &[Record]) -> io::Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        self.buffer.clear();
        for r in records {
            frame(r, &mut self.buffer);
        }
        (&*self.file).write_all(&self.buffer)?;
        self.records += records.len() as u64;
        Ok(())
    }

    /// The log's file, for a [`Syncer`].
    pub fn file(&self) -> &Arc<File> {
        &self.file
    }

    /// Whether commits are synced to the disk.
    pub fn sync_mode(&self) -> Sync {
        self.sync
    }

    /// Records in the log.
    pub fn records(&self) -> u64 {
        self.records
    }
}

/// A room's log as [`RoomDir::read_log`] read it, before anything was written to it.
pub struct LogRead {
    path: PathBuf,
    records: Vec<Record>,
    /// The file's length, and how much of it to keep.
    len: usize,
    keep: usize,
    /// Whether the header is to be written: a new log, or a header cut short.
    header: bool,
    /// The format version the file was written in.
    version: u32,
    /// What is wrong with the bytes past `keep`, if any.
    problem: Option<String>,
}

impl LogRead {
    /// The log's whole records.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// The format version the log was written in: an older one is rewritten in this
    /// version's format when the log is opened.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Opens the log for appending: cuts a damaged tail off, with a line saying how many
    /// bytes went, and starts a new log with its header. A log of an older format version is
    /// first rewritten whole in this version's (its moves with time 0, the time they did not
    /// keep), to a temporary file renamed over it, so a file never mixes two formats. Gives
    /// the log and its records.
    pub fn open(self, sync: Sync) -> Result<(Log, Vec<Record>), String> {
        let failed = |e: &dyn std::fmt::Display| format!("{}: {e}", self.path.display());
        if let Some(problem) = &self.problem {
            eprintln!(
                "bitmines serve: {}: dropped the last {} bytes ({problem}); the {} records before them are kept",
                self.path.display(),
                self.len - self.keep,
                self.records.len()
            );
        }
        let upgrade = self.version < LOG_VERSION && !self.header;
        if upgrade {
            let mut bytes = LOG_HEADER.to_vec();
            for record in &self.records {
                frame(record, &mut bytes);
            }
            write_atomic(&self.path, &bytes).map_err(|e| failed(&e))?;
            let note = if self.version == 1 {
                " (its moves kept no times: they read as time 0)"
            } else {
                ""
            };
            eprintln!(
                "bitmines serve: {}: rewrote a version-{} log of {} records in version {LOG_VERSION}{note}",
                self.path.display(),
                self.version,
                self.records.len()
            );
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| failed(&e))?;
        if self.keep < self.len && !upgrade {
            file.set_len(self.keep as u64).map_err(|e| failed(&e))?;
        }
        if self.header {
            // The header is made durable with the first records, by the same sync.
            (&file).write_all(LOG_HEADER).map_err(|e| failed(&e))?;
        }
        Ok((
            Log {
                file: Arc::new(file),
                sync,
                records: self.records.len() as u64,
                buffer: Vec::new(),
            },
            self.records,
        ))
    }
}

/// Group commit across rooms: one thread that takes the requests to make logs durable (a
/// room worker's request names every log it wrote in a round) and answers all the requests
/// that came in while it worked with one round of syncing. With a few files waiting, a
/// round `fdatasync`s each; with more (hundreds of race rooms), it is one `syncfs` of the
/// data directory's file system, whose cost does not grow with the rooms. The worker waits
/// for the answer before it acknowledges anything. A server with one room worker has no one
/// to share a round with: its syncer, [`Syncer::inline`], runs each round on the worker's
/// own thread.
#[derive(Clone)]
pub struct Syncer {
    how: Syncing,
}

/// Where a [`Syncer`]'s rounds run.
#[derive(Clone)]
enum Syncing {
    /// On a thread of its own, which gathers the requests of many workers into each round.
    Thread(crossbeam_channel::Sender<SyncRequest>),
    /// On the thread that asks, for a server with one room worker: there is nobody to
    /// share a round with, and handing each round to another thread and back costs two
    /// thread switches a round.
    Inline(Arc<Metrics>),
}

struct SyncRequest {
    files: Vec<Arc<File>>,
    done: crossbeam_channel::Sender<Result<(), (io::ErrorKind, String)>>,
}

impl Syncer {
    /// Requests waiting above which a round is one `syncfs` rather than a sync a file.
    pub const FEW: usize = 8;

    /// Starts the syncing thread, which counts its rounds in `metrics`; it ends when the
    /// last handle is dropped.
    pub fn start(metrics: Arc<Metrics>) -> io::Result<Syncer> {
        let (tx, rx) = crossbeam_channel::unbounded::<SyncRequest>();
        std::thread::Builder::new()
            .name("log sync".into())
            .spawn(move || {
                let mut round = Vec::new();
                while let Ok(first) = rx.recv() {
                    round.push(first);
                    round.extend(rx.try_iter());
                    let files: Vec<&Arc<File>> = round.iter().flat_map(|r| &r.files).collect();
                    let outcome = timed_round(&metrics, &files);
                    let outcome = outcome.map_err(|e| (e.kind(), e.to_string()));
                    for request in round.drain(..) {
                        let _ = request.done.send(outcome.clone());
                    }
                }
            })?;
        Ok(Syncer {
            how: Syncing::Thread(tx),
        })
    }

    /// A syncer that syncs on the thread that asks, for a single room worker; it counts its
    /// rounds in `metrics` as the thread does.
    pub fn inline(metrics: Arc<Metrics>) -> Syncer {
        Syncer {
            how: Syncing::Inline(metrics),
        }
    }

    /// Makes everything written to `file` so far durable; returns when it is.
    pub fn sync(&self, file: &Arc<File>) -> io::Result<()> {
        self.sync_files(vec![Arc::clone(file)])
    }

    /// Makes everything written to `files` so far durable; returns when it is.
    pub fn sync_files(&self, files: Vec<Arc<File>>) -> io::Result<()> {
        if files.is_empty() {
            return Ok(());
        }
        let tx = match &self.how {
            Syncing::Thread(tx) => tx,
            Syncing::Inline(metrics) => {
                let files: Vec<&Arc<File>> = files.iter().collect();
                return timed_round(metrics, &files).map_err(|e| {
                    io::Error::new(e.kind(), format!("the group sync of the logs failed: {e}"))
                });
            }
        };
        let (done, answer) = crossbeam_channel::bounded(1);
        let request = SyncRequest { files, done };
        tx.send(request)
            .map_err(|_| io::Error::other("the log sync thread has stopped"))?;
        match answer.recv() {
            Ok(Ok(())) => Ok(()),
            Ok(Err((kind, why))) => Err(io::Error::new(
                kind,
                format!("the group sync of the logs failed: {why}"),
            )),
            Err(_) => Err(io::Error::other("the log sync thread has stopped")),
        }
    }
}

/// One round of the [`Syncer`], timed in `metrics`: the first error, if any, fails every
/// request of the round.
fn timed_round(metrics: &Metrics, files: &[&Arc<File>]) -> Result<(), io::Error> {
    let started = Instant::now();
    let outcome = sync_round(files);
    metrics.sync_round(files.len(), started.elapsed());
    outcome
}

fn sync_round(files: &[&Arc<File>]) -> Result<(), io::Error> {
    #[cfg(target_os = "linux")]
    if files.len() > Syncer::FEW
        && let Some(any) = files.first()
    {
        // Every file of a round is on the data directory's file system.
        return rustix::fs::syncfs(&***any).map_err(io::Error::from);
    }
    files.iter().try_for_each(|file| file.sync_data())
}

/// What a snapshot holds: a copy of a room's state after its first `records` records.
pub struct SnapshotState {
    /// Records the state includes.
    pub records: u64,
    /// The board.
    pub board: Arc<Board>,
    /// The views, by view id.
    pub games: Vec<Game>,
    /// The players, by index.
    pub players: Vec<SavedPlayer>,
    /// Who placed each standing flag of a co-op view: `(view, cell index, player index)`.
    pub flag_owners: Vec<(usize, usize, usize)>,
    /// The room's game clock as the last of those records left it.
    pub clock: SavedClock,
    /// The room's game number: 1 for the first, one more at each rematch.
    pub game: u32,
    /// A race room's series scoreboard, by player index.
    pub series: Vec<SavedSeries>,
}

/// One racer's series score as a snapshot keeps it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SavedSeries {
    /// Games won.
    pub wins: u32,
    /// The best winning time, in milliseconds of play.
    pub best_ms: Option<u64>,
}

/// A room's game clock as a snapshot keeps it: play time is counted from the room's first
/// move, and only while the server runs, so what is kept is the time of the last move and
/// the time each ended game stopped at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SavedClock {
    /// Whether the room's first move has been made (the clock runs from it).
    pub started: bool,
    /// The play time of the last move, in milliseconds since the first.
    pub last_ms: u64,
    /// Per view, the play time its game ended at, if it has ended.
    pub ended_ms: Vec<Option<u64>>,
}

/// A player as a snapshot keeps them: who they are and their score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedPlayer {
    /// The secret token that resumes them.
    pub token: [u8; 16],
    /// Their name.
    pub name: String,
    /// The view they play on.
    pub view: usize,
    /// Safe cells their moves opened.
    pub opened: u64,
    /// Mines they set off.
    pub mines_hit: u32,
}

/// A room's folder.
pub struct RoomDir {
    dir: PathBuf,
}

/// Writes `bytes` to a temporary file beside `path`, syncs it, and renames it to `path`.
fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    publish(&tmp, path)
}

/// A file written a piece at a time: each [`SNAPSHOT_PIECE`] bytes are written and synced
/// (then, with a pause, it waits that long), so a large snapshot (50 MB for 10^8 cells)
/// never leaves a backlog of dirty pages that the logs' syncs would wait behind. It keeps a
/// CRC-32 of everything written, which [`Paced::finish`] appends.
struct Paced {
    file: File,
    piece: Vec<u8>,
    crc: crc32fast::Hasher,
    pause: Option<Duration>,
}

impl Paced {
    fn create(path: &Path, pause: Option<Duration>) -> io::Result<Paced> {
        Ok(Paced {
            file: File::create(path)?,
            piece: Vec::with_capacity(SNAPSHOT_PIECE),
            crc: crc32fast::Hasher::new(),
            pause,
        })
    }

    /// Writes and syncs the piece in hand, then pauses.
    fn put_piece(&mut self) -> io::Result<()> {
        self.file.write_all(&self.piece)?;
        self.file.sync_data()?;
        self.piece.clear();
        if let Some(pause) = self.pause {
            std::thread::sleep(pause);
        }
        Ok(())
    }

    /// Appends the CRC-32 of what was written, and writes and syncs the rest.
    fn finish(mut self) -> io::Result<()> {
        let crc = self.crc.clone().finalize();
        self.piece.extend_from_slice(&crc.to_le_bytes());
        self.file.write_all(&self.piece)?;
        self.file.sync_all()
    }
}

impl Write for Paced {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let take = bytes.len().min(SNAPSHOT_PIECE - self.piece.len());
        self.crc.update(&bytes[..take]);
        self.piece.extend_from_slice(&bytes[..take]);
        if self.piece.len() == SNAPSHOT_PIECE {
            self.put_piece()?;
        }
        Ok(take)
    }

    /// Pieces are written when full and at [`Paced::finish`]; there is nothing to flush.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Renames the synced temporary file `tmp` to `path` and syncs the folder.
fn publish(tmp: &Path, path: &Path) -> io::Result<()> {
    fs::rename(tmp, path)?;
    if let Some(parent) = path.parent()
        && let Ok(d) = File::open(parent)
    {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The log format this server writes. Version 2 added the game's time to each move;
/// version 1, whose moves kept no time, is still read (its moves read as time 0). Version 3
/// added the new-game record of a rematch: its records are read as version 2's were, and a
/// server that reads only version 2 refuses a version-3 log rather than cut a record it
/// does not know off as a damaged tail. Version 4 added the start record of a race with a
/// countdown, read and refused by older servers the same way.
pub const LOG_VERSION: u32 = 4;

/// The oldest log format this server reads.
pub const OLDEST_LOG_VERSION: u32 = 1;

/// The first bytes of a log: `BMLOG`, the format's version in two decimal digits, a newline.
const LOG_HEADER: &[u8; 8] = b"BMLOG04\n";

/// Where the records of a log's bytes start and the format version they are in, or `None`
/// for a log with no header yet (an empty file, or a header cut short by a crash), which is
/// written afresh. A log written before logs had a header starts with its first record,
/// whose length (a few hundred bytes at most) never reads as `BMLO`, and is read as the
/// first version. A header naming a version this server does not read is an error, not a
/// damaged tail: cutting a newer log back would lose its moves.
fn records_start(bytes: &[u8]) -> Result<Option<(usize, u32)>, String> {
    if bytes.len() < LOG_HEADER.len() && LOG_HEADER[..5].starts_with(&bytes[..bytes.len().min(5)]) {
        // A header cut short: the version digits may be this version's or an older one's.
        let digits_fit = bytes
            .get(5..)
            .is_none_or(|digits| digits.iter().all(|d| d.is_ascii_digit() || *d == b'\n'));
        if digits_fit {
            return Ok(None);
        }
    }
    if !bytes.starts_with(&LOG_HEADER[..5]) {
        return Ok(Some((0, 1)));
    }
    let version = bytes
        .get(5..7)
        .filter(|_| bytes.get(7) == Some(&b'\n'))
        .and_then(|digits| std::str::from_utf8(digits).ok())
        .and_then(|digits| digits.parse::<u32>().ok());
    match version {
        Some(v @ OLDEST_LOG_VERSION..=LOG_VERSION) => Ok(Some((LOG_HEADER.len(), v))),
        Some(other) => Err(format!(
            "log format version {other}, which this server does not read (it reads versions {OLDEST_LOG_VERSION} to {LOG_VERSION})"
        )),
        None => Err(format!(
            "a log header {:?} that names no version",
            String::from_utf8_lossy(&bytes[..bytes.len().min(8)])
        )),
    }
}

/// Checks that the server can write its data folder: makes `rooms/` in it, and writes and
/// removes a small file. The error is one line that names the folder and says what to do.
pub fn check_data_folder(data: &Path) -> Result<(), String> {
    let failed = |e: io::Error| {
        format!(
            "cannot write the data folder {}: {e}; give the server a folder it can write (--data)",
            data.display()
        )
    };
    fs::create_dir_all(data.join("rooms")).map_err(failed)?;
    let probe = data.join(".write-check");
    fs::write(&probe, b"bitmines\n")
        .and_then(|()| fs::remove_file(&probe))
        .map_err(failed)
}

/// Moves `name`, an entry of the data folder's `rooms/` that cannot be restored (a damaged
/// room folder, or anything else found there), to `quarantine/NAME-UNIXTIME/` in the data
/// folder, and writes `cause` to a file `cause` in it; returns where it went. A folder is
/// moved as it is; anything else (a file, a link) is moved into a new folder of that name.
/// Nothing in it is changed or removed, so it can be looked at, mended and moved back.
pub fn quarantine(
    data: &Path,
    name: &std::ffi::OsStr,
    cause: &str,
    now: std::time::SystemTime,
) -> Result<PathBuf, String> {
    let from = data.join("rooms").join(name);
    let folder = data.join("quarantine");
    let failed = |path: &Path, e: io::Error| format!("{}: {e}", path.display());
    fs::create_dir_all(&folder).map_err(|e| failed(&folder, e))?;
    let unix = now
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let base = format!("{}-{unix}", name.to_string_lossy());
    // The same name may be quarantined twice in a second (a room made again, damaged again).
    let to = (1..)
        .map(|k| match k {
            1 => folder.join(&base),
            k => folder.join(format!("{base}-{k}")),
        })
        .find(|path| fs::symlink_metadata(path).is_err())
        .unwrap_or_else(|| folder.join(&base));
    let is_folder = fs::symlink_metadata(&from)
        .map_err(|e| failed(&from, e))?
        .is_dir();
    if is_folder {
        fs::rename(&from, &to).map_err(|e| failed(&from, e))?;
    } else {
        fs::create_dir(&to).map_err(|e| failed(&to, e))?;
        fs::rename(&from, to.join(name)).map_err(|e| failed(&from, e))?;
    }
    // The cause is also in the server's log line; a folder that takes no new file (a room
    // folder made read-only) keeps the room all the same.
    let _ = fs::write(to.join("cause"), format!("{cause}\n"));
    Ok(to)
}

/// The first bytes of a snapshot, by which a reader (`bitmines show`) tells one. Version 3
/// added the game clock; a version-2 snapshot, which kept none, reads with the clock not
/// started. Version 4 added the game number and the race series after the clock; a
/// version-3 snapshot reads as game 1 with no series.
pub const SNAPSHOT_MAGIC: &[u8; 8] = b"BMSNAP4\n";

/// The first bytes of a version-3 snapshot, which is still read.
pub const SNAPSHOT_MAGIC_V3: &[u8; 8] = b"BMSNAP3\n";

/// The first bytes of a version-2 snapshot, which is still read.
pub const SNAPSHOT_MAGIC_V2: &[u8; 8] = b"BMSNAP2\n";

/// Written for a view whose game has not ended, in place of its end time.
const NOT_ENDED: u64 = u64::MAX;

/// Bytes a snapshot is written and synced in at a time.
pub(crate) const SNAPSHOT_PIECE: usize = 1 << 20;

impl RoomDir {
    /// The folder of room `name` under `data`.
    pub fn new(data: &Path, name: &str) -> RoomDir {
        RoomDir {
            dir: data.join("rooms").join(name),
        }
    }

    /// The folder's path.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Writes a new room's parameters and seed, once.
    pub fn create(&self, params: &RoomParams, seed: u64) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let text = format!(
            "bitmines-room 1\nrows={}\ncols={}\nmines={}\nmode={}\nrule={}\nnoguess={}\nfirst={}\ncountdown={}\nseed={}\n",
            params.rows,
            params.cols,
            params.mines,
            mode_name(params.mode),
            rule_name(params.rule),
            u8::from(params.no_guess),
            crate::params::first_name(params.first),
            u8::from(params.countdown),
            seed
        );
        write_atomic(&self.dir.join("meta"), text.as_bytes())
    }

    /// Reads the parameters and the seed back.
    pub fn meta(&self) -> Result<(RoomParams, u64), String> {
        let path = self.dir.join("meta");
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let bad = |what: &str| format!("{}: {what}", path.display());
        let mut lines = text.lines();
        if lines.next() != Some("bitmines-room 1") {
            return Err(bad("not a bitmines room file (version 1)"));
        }
        let mut get = std::collections::HashMap::new();
        for line in lines {
            let (k, v) = line
                .split_once('=')
                .ok_or_else(|| bad("a line with no '='"))?;
            get.insert(k, v);
        }
        let num = |k: &str| -> Result<usize, String> {
            get.get(k)
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| bad(&format!("no whole number {k}")))
        };
        let first = match get.get("first").copied() {
            Some("player") => None,
            v => Some(
                v.and_then(|v| v.split_once(','))
                    .and_then(|(r, c)| Some((r.parse().ok()?, c.parse().ok()?)))
                    .ok_or_else(|| bad("no first=ROW,COL or first=player"))?,
            ),
        };
        let params = RoomParams {
            rows: num("rows")?,
            cols: num("cols")?,
            mines: num("mines")?,
            mode: match get.get("mode").copied() {
                Some("race") => Mode::Race,
                Some("coop") => Mode::Coop,
                _ => return Err(bad("no mode")),
            },
            rule: match get.get("rule").copied() {
                Some("classic") => MineRule::Classic,
                Some("endless") => MineRule::Endless,
                _ => return Err(bad("no rule")),
            },
            no_guess: num("noguess")? != 0,
            first,
            // A room from before the countdown has none.
            countdown: get.get("countdown").is_some_and(|v| *v == "1"),
        };
        let seed = get
            .get("seed")
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| bad("no seed"))?;
        Ok((params, seed))
    }

    /// Opens the log for appending, after cutting off a damaged tail; returns the log and the
    /// whole records it holds.
    pub fn open_log(&self, sync: Sync) -> Result<(Log, Vec<Record>), String> {
        self.read_log()?.open(sync)
    }

    /// Reads the log without writing to it: its whole records, and what [`LogRead::open`]
    /// will cut off or write. A log that cannot be read, or whose header names another
    /// format version, is an error, and the folder is left as it was.
    pub fn read_log(&self) -> Result<LogRead, String> {
        let path = self.dir.join("log");
        let failed = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let mut bytes = Vec::new();
        if path.exists() {
            File::open(&path)
                .and_then(|mut f| f.read_to_end(&mut bytes))
                .map_err(|e| failed(&e))?;
        }
        let start = records_start(&bytes).map_err(|e| failed(&e))?;
        let (records, good, problem) = scan(start.map_or(&[][..], |(at, _)| &bytes[at..]));
        Ok(LogRead {
            records,
            len: bytes.len(),
            // The header and the whole records, or nothing of a log whose header was cut
            // short (it held no record, so nothing acknowledged is lost).
            keep: start.map_or(0, |(at, _)| at + good),
            header: start.is_none(),
            version: start.map_or(LOG_VERSION, |(_, v)| v),
            problem,
            path,
        })
    }

    /// Writes a snapshot, and keeps only the two newest. The snapshot is encoded as it is
    /// written, a piece at a time, each piece synced: with a `pause`, each piece is followed by
    /// that pause, so that a large snapshot written beside a busy room never holds the disk
    /// (and the logs' syncs) or a processor for long, and needs no buffer of its size.
    pub fn write_snapshot(
        &self,
        state: &SnapshotState,
        pause: Option<Duration>,
    ) -> Result<(), String> {
        let records = state.records;
        let path = self.dir.join(format!("snapshot-{records:020}"));
        let tmp = path.with_extension("tmp");
        let failed = |e: &dyn std::fmt::Display| format!("{}: {e}", tmp.display());
        let mut out = Paced::create(&tmp, pause).map_err(|e| failed(&e))?;
        let mut put = |bytes: &[u8]| out.write_all(bytes).map_err(|e| failed(&e));
        put(SNAPSHOT_MAGIC)?;
        put(&records.to_le_bytes())?;
        put(&(state.board.binary_len() as u64).to_le_bytes())?;
        state
            .board
            .write_binary(None, &mut out)
            .map_err(|e| failed(&e))?;
        let mut head = Vec::new();
        head.extend_from_slice(&(state.players.len() as u32).to_le_bytes());
        for p in &state.players {
            head.extend_from_slice(&p.token);
            head.extend_from_slice(&(p.view as u32).to_le_bytes());
            let name = crate::protocol::truncate_utf8(&p.name, 255);
            head.push(name.len() as u8);
            head.extend_from_slice(name.as_bytes());
            head.extend_from_slice(&p.opened.to_le_bytes());
            head.extend_from_slice(&p.mines_hit.to_le_bytes());
        }
        head.extend_from_slice(&(state.flag_owners.len() as u64).to_le_bytes());
        for &(view, cell, player) in &state.flag_owners {
            head.extend_from_slice(&(view as u32).to_le_bytes());
            head.extend_from_slice(&(cell as u64).to_le_bytes());
            head.extend_from_slice(&(player as u32).to_le_bytes());
        }
        head.extend_from_slice(&(state.games.len() as u32).to_le_bytes());
        out.write_all(&head).map_err(|e| failed(&e))?;
        for game in &state.games {
            let len = game.saved_len().map_err(|e| failed(&e))?;
            out.write_all(&(len as u64).to_le_bytes())
                .map_err(|e| failed(&e))?;
            game.write_saved(&mut out).map_err(|e| failed(&e))?;
        }
        let mut clock = vec![u8::from(state.clock.started)];
        clock.extend_from_slice(&state.clock.last_ms.to_le_bytes());
        clock.extend_from_slice(&(state.games.len() as u32).to_le_bytes());
        for view in 0..state.games.len() {
            let ended = state.clock.ended_ms.get(view).copied().flatten();
            clock.extend_from_slice(&ended.unwrap_or(NOT_ENDED).to_le_bytes());
        }
        clock.extend_from_slice(&state.game.to_le_bytes());
        clock.extend_from_slice(&(state.series.len() as u32).to_le_bytes());
        for s in &state.series {
            clock.extend_from_slice(&s.wins.to_le_bytes());
            clock.extend_from_slice(&s.best_ms.unwrap_or(NOT_ENDED).to_le_bytes());
        }
        out.write_all(&clock).map_err(|e| failed(&e))?;
        out.finish().map_err(|e| failed(&e))?;
        publish(&tmp, &path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut old = self.snapshots();
        old.reverse();
        for (_, path) in old.into_iter().skip(2) {
            let _ = fs::remove_file(path);
        }
        Ok(())
    }

    /// The snapshots, oldest first.
    pub(crate) fn snapshots(&self) -> Vec<(u64, PathBuf)> {
        let mut out: Vec<(u64, PathBuf)> = fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let n = name.strip_prefix("snapshot-")?.parse().ok()?;
                Some((n, e.path()))
            })
            .collect();
        out.sort();
        out
    }
}

/// The board of a new room, from its parameters and seed.
pub fn make_board(params: &RoomParams, seed: u64) -> Result<Board, String> {
    make_board_with_progress(params, seed, &|_| {})
}

/// [`make_board`], calling `progress` with the share of the work done (0 to 1) as the
/// generator reports it, from the generator's threads. The share of a no-guess board never
/// steps back (see [`bitmines_gen::Progress::share`]).
///
/// A room whose first click is a player's (`params.first` is `None`) gets a stand-in: a
/// plain board with the room's mine count, which no view ever opens a cell of. The board
/// played is made at the first reveal ([`around_first`]), from a seed this one decides.
pub fn make_board_with_progress(
    params: &RoomParams,
    seed: u64,
    progress: &(dyn Fn(f64) + std::marker::Sync),
) -> Result<Board, String> {
    let Some((r, c)) = params.first else {
        let config = bitmines_gen::Config::new(params.rows, params.cols, params.mines, seed);
        return bitmines_gen::generate_with_progress(&config, progress).map_err(|e| e.to_string());
    };
    if params.no_guess {
        let request = bitmines_gen::NoGuess::new(params.rows, params.cols, params.mines, seed)
            .first_click(FirstClick::Opening, r, c);
        bitmines_gen::no_guess_with_progress(&request, &|p| progress(p.share()))
            .map(|certified| certified.into_board())
            .map_err(|e| e.to_string())
    } else {
        let zone = FirstClick::Opening
            .zone(params.rows, params.cols, r, c)
            .map_err(|e| e.to_string())?;
        let config = bitmines_gen::Config::new(params.rows, params.cols, params.mines, seed)
            .keep_clear(zone);
        bitmines_gen::generate_with_progress(&config, progress).map_err(|e| e.to_string())
    }
}

/// How the board of a room whose first click is a player's is made around that click at
/// (`row`, `col`): the room's parameters with the click as the first (so the region it
/// opens is kept clear, and certified from it when the room is no-guess), and a seed that
/// the stand-in board `stand_in` and the cell decide. The same stand-in and click make the
/// same board, live and when recovery replays the click, and the stand-in's secret seed
/// stays the only secret. Make the board with [`make_board_with_progress`].
pub fn around_first(
    params: &RoomParams,
    stand_in: &Board,
    (row, col): (usize, usize),
) -> (RoomParams, u64) {
    // FNV-1a over the stand-in's mine words and the cell, then a SplitMix64 finish.
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    for word in stand_in
        .mine_words()
        .iter()
        .chain(&[row as u64, col as u64])
    {
        hash = (hash ^ word).wrapping_mul(0x0000_0100_0000_01b3);
    }
    let mut seed = hash ^ (hash >> 30);
    seed = seed.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    seed = (seed ^ (seed >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    seed ^= seed >> 31;
    let around = RoomParams {
        first: Some((row, col)),
        ..*params
    };
    (around, seed)
}

/// Reads the snapshot at `path` back, and checks that its board has the size and mine count
/// of `params`.
pub(crate) fn read_snapshot(path: &Path, params: &RoomParams) -> Result<SnapshotState, String> {
    let bytes = fs::read(path).map_err(|e| e.to_string())?;
    let state = decode_snapshot(&bytes)?;
    let board = &state.board;
    if board.rows() != params.rows
        || board.cols() != params.cols
        || board.mine_count() != params.mines
    {
        return Err("its board does not match the room's parameters".into());
    }
    Ok(state)
}

/// Decodes the bytes of a whole snapshot file, checking its CRC first. Every length it
/// declares is checked against the bytes there are, so no bytes make it read past them or
/// panic; what is wrong is named with the byte where it was found.
pub fn decode_snapshot(bytes: &[u8]) -> Result<SnapshotState, String> {
    let (body, crc) = bytes
        .split_last_chunk::<4>()
        .ok_or("shorter than a snapshot")?;
    if crc32fast::hash(body) != u32::from_le_bytes(*crc) {
        return Err("its CRC does not match".into());
    }
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], String> {
        // A length read from the file may be anything: the end is checked, not assumed.
        let s = at
            .checked_add(n)
            .and_then(|end| body.get(at..end))
            .ok_or_else(|| format!("cut short at byte {at}: {n} bytes declared there"))?;
        at += n;
        Ok(s)
    };
    let version = match take(8)? {
        magic if magic == SNAPSHOT_MAGIC => 4,
        magic if magic == SNAPSHOT_MAGIC_V3 => 3,
        magic if magic == SNAPSHOT_MAGIC_V2 => 2,
        _ => return Err("not a bitmines snapshot (version 2, 3 or 4)".into()),
    };
    let has_clock = version >= 3;
    let u64_of = |b: &[u8]| b.try_into().map(u64::from_le_bytes).unwrap_or(0);
    let u32_of = |b: &[u8]| b.try_into().map(u32::from_le_bytes).unwrap_or(0);
    let records = u64_of(take(8)?);
    let board_len = u64_of(take(8)?) as usize;
    let board_bytes = take(board_len)?;
    let players = u32_of(take(4)?);
    let mut table = Vec::new();
    for _ in 0..players {
        let token: [u8; 16] = take(16)?.try_into().map_err(|_| "bad token")?;
        let view = u32_of(take(4)?) as usize;
        let len = usize::from(take(1)?[0]);
        let name = String::from_utf8_lossy(take(len)?).into_owned();
        let opened = u64_of(take(8)?);
        let mines_hit = u32_of(take(4)?);
        table.push(SavedPlayer {
            token,
            name,
            view,
            opened,
            mines_hit,
        });
    }
    let owners = u64_of(take(8)?);
    let mut flag_owners = Vec::new();
    for _ in 0..owners {
        let view = u32_of(take(4)?) as usize;
        let cell = u64_of(take(8)?) as usize;
        let player = u32_of(take(4)?) as usize;
        flag_owners.push((view, cell, player));
    }
    let views = u32_of(take(4)?);
    let mut games = Vec::new();
    for _ in 0..views {
        let len = u64_of(take(8)?) as usize;
        let (game, _) = Game::from_saved(take(len)?).map_err(|e| e.to_string())?;
        games.push(game);
    }
    let mut clock = SavedClock::default();
    if has_clock {
        clock.started = take(1)?[0] != 0;
        clock.last_ms = u64_of(take(8)?);
        let ends = u32_of(take(4)?);
        if ends as usize != games.len() {
            return Err(format!(
                "its clock names {ends} views where it holds {}",
                games.len()
            ));
        }
        for _ in 0..ends {
            let ended = u64_of(take(8)?);
            clock.ended_ms.push((ended != NOT_ENDED).then_some(ended));
        }
    }
    let mut game = 1;
    let mut series = Vec::new();
    if version >= 4 {
        game = u32_of(take(4)?);
        let count = u32_of(take(4)?);
        if count != players {
            return Err(format!(
                "its series names {count} players where it holds {players}"
            ));
        }
        for _ in 0..count {
            let wins = u32_of(take(4)?);
            let best = u64_of(take(8)?);
            series.push(SavedSeries {
                wins,
                best_ms: (best != NOT_ENDED).then_some(best),
            });
        }
    }
    let board = match games.first().and_then(|g| g.board()) {
        Some(board) => Arc::clone(board),
        None => Arc::new(
            Board::from_binary(board_bytes)
                .map_err(|e| e.to_string())?
                .0,
        ),
    };
    Ok(SnapshotState {
        records,
        board,
        games,
        players: table,
        flag_owners,
        clock,
        game,
        series,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records() -> Vec<Record> {
        vec![
            Record::Join {
                player: 0,
                token: [7; 16],
                name: "ada".into(),
            },
            Record::Move {
                player: 0,
                action: Action::Reveal,
                row: 3,
                col: 4,
                at_ms: 0,
            },
            Record::Move {
                player: 0,
                action: Action::Flag,
                row: 5,
                col: 6,
                at_ms: 1_500,
            },
        ]
    }

    #[test]
    fn a_damaged_tail_ends_the_log_at_the_last_whole_record() {
        let mut bytes = Vec::new();
        let mut ends = vec![0];
        for r in records() {
            frame(&r, &mut bytes);
            ends.push(bytes.len());
        }
        assert_eq!(scan(&bytes), (records(), bytes.len(), None));
        // Cut anywhere: the records wholly before the cut survive, and nothing else.
        for cut in 0..bytes.len() {
            let (got, good, problem) = scan(&bytes[..cut]);
            let whole = ends.iter().filter(|&&e| e > 0 && e <= cut).count();
            assert_eq!(got, records()[..whole].to_vec(), "cut at {cut}");
            assert_eq!(good, ends[whole]);
            assert_eq!(problem.is_some(), cut != ends[whole]);
        }
        // Flip any byte: the record holding it and everything after it are dropped.
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x40;
            let (got, good, problem) = scan(&bad);
            let holder = ends.iter().rposition(|&e| e <= at).unwrap();
            assert_eq!(got, records()[..holder].to_vec(), "flip at {at}");
            assert_eq!(good, ends[holder]);
            assert!(problem.is_some());
        }
    }

    #[test]
    fn a_log_is_read_by_its_header_and_a_log_from_before_headers_as_version_1() {
        let mut body = Vec::new();
        for r in records() {
            frame(&r, &mut body);
        }
        let mut headed = LOG_HEADER.to_vec();
        headed.extend_from_slice(&body);
        assert_eq!(
            records_start(&headed),
            Ok(Some((LOG_HEADER.len(), LOG_VERSION)))
        );
        let mut old_body = Vec::new();
        for r in records() {
            frame_v1(&r, &mut old_body);
        }
        let mut old_headed = b"BMLOG01\n".to_vec();
        old_headed.extend_from_slice(&old_body);
        assert_eq!(records_start(&old_headed), Ok(Some((LOG_HEADER.len(), 1))));
        assert_eq!(records_start(&old_body), Ok(Some((0, 1))));
        // A header cut short held no record: the log is written afresh.
        for cut in 0..LOG_HEADER.len() {
            assert_eq!(records_start(&headed[..cut]), Ok(None), "cut at {cut}");
            assert_eq!(records_start(&old_headed[..cut]), Ok(None), "cut at {cut}");
        }
        let mut newer = headed.clone();
        newer[5..7].copy_from_slice(b"05");
        let refused = records_start(&newer).unwrap_err();
        assert!(refused.contains("version 5"), "{refused}");
        newer[5..7].copy_from_slice(b"x1");
        let refused = records_start(&newer).unwrap_err();
        assert!(refused.contains("names no version"), "{refused}");
        // A version-1 move kept no time: it reads as time 0.
        let (read, good, problem) = scan(&old_body);
        assert_eq!((good, problem), (old_body.len(), None));
        assert_eq!(read, untimed(&records()));
        // Through the files: a version-1 log, with its header or from before headers, keeps
        // its records, is rewritten in version 2, and takes more; a new log starts with the
        // header.
        let data = std::env::temp_dir().join(format!("bitmines-header-{}", std::process::id()));
        let _ = fs::remove_dir_all(&data);
        for (name, bytes) in [("headless", &old_body), ("v1", &old_headed)] {
            let old = RoomDir::new(&data, name);
            fs::create_dir_all(old.path()).unwrap();
            fs::write(old.path().join("log"), bytes).unwrap();
            assert_eq!(old.read_log().unwrap().version(), 1);
            let (mut log, got) = old.open_log(Sync::Os).unwrap();
            assert_eq!(got, untimed(&records()), "{name}");
            log.append(&records()[1..2]).unwrap();
            drop(log);
            let read = old.read_log().unwrap();
            assert_eq!(read.version(), LOG_VERSION, "{name}");
            let mut want = untimed(&records());
            want.push(records()[1].clone());
            assert_eq!(read.records(), &want[..], "{name}");
        }
        // A version-2 log (records as now, no new game yet) is rewritten under this version's
        // header, its records as they were, and then takes a new game.
        let mut v2 = b"BMLOG02\n".to_vec();
        v2.extend_from_slice(&body);
        let old = RoomDir::new(&data, "v2");
        fs::create_dir_all(old.path()).unwrap();
        fs::write(old.path().join("log"), &v2).unwrap();
        assert_eq!(old.read_log().unwrap().version(), 2);
        let (mut log, got) = old.open_log(Sync::Os).unwrap();
        assert_eq!(got, records());
        let rematch = Record::NewGame {
            game: 2,
            seed: 0x0123_4567_89ab_cdef,
        };
        log.append(std::slice::from_ref(&rematch)).unwrap();
        drop(log);
        let read = old.read_log().unwrap();
        assert_eq!(read.version(), LOG_VERSION);
        let mut want = records();
        want.push(rematch);
        assert_eq!(read.records(), &want[..]);
        let new = RoomDir::new(&data, "new");
        fs::create_dir_all(new.path()).unwrap();
        let (mut log, got) = new.open_log(Sync::Os).unwrap();
        assert!(got.is_empty());
        log.append(&records()).unwrap();
        drop(log);
        assert_eq!(fs::read(new.path().join("log")).unwrap(), headed);
        fs::remove_dir_all(&data).unwrap();
    }

    /// Frames a record as a version-1 log held it: a move without its time.
    fn frame_v1(record: &Record, out: &mut Vec<u8>) {
        let mut payload = record.encode();
        if matches!(record, Record::Move { .. }) {
            payload.truncate(MOVE_V1_LEN);
        }
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
    }

    /// The records with every move's time at 0, as a version-1 log reads.
    fn untimed(records: &[Record]) -> Vec<Record> {
        records
            .iter()
            .cloned()
            .map(|mut r| {
                if let Record::Move { at_ms, .. } = &mut r {
                    *at_ms = 0;
                }
                r
            })
            .collect()
    }

    #[test]
    fn logs_synced_together_read_back_whole() {
        // Rooms enough that rounds of the shared syncer hold more than a few requests (one
        // syncfs), and now and then a few (a sync a file): every record of every log is
        // back, in order, when the logs are opened again.
        let metrics = Arc::new(Metrics::default());
        synced_logs_read_back("thread", &Syncer::start(Arc::clone(&metrics)).unwrap());
        let rounds = metrics.render();
        // The inline syncer (a lone room worker's) syncs each request on its caller's
        // thread, a round each; the logs read back the same.
        let metrics = Arc::new(Metrics::default());
        synced_logs_read_back("inline", &Syncer::inline(Arc::clone(&metrics)));
        let requests = 3 * Syncer::FEW * 40;
        let counted = |text: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix("bitmines_log_sync_rounds_total "))
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap()
        };
        assert_eq!(counted(&metrics.render()), requests);
        // The thread gathers requests that wait into one round.
        assert!((1..=requests).contains(&counted(&rounds)));
    }

    fn synced_logs_read_back(name: &str, syncer: &Syncer) {
        let data =
            std::env::temp_dir().join(format!("bitmines-syncer-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&data);
        let rooms = 3 * Syncer::FEW;
        let threads: Vec<_> = (0..rooms)
            .map(|k| {
                let (data, syncer) = (data.clone(), syncer.clone());
                std::thread::spawn(move || {
                    let dir = RoomDir::new(&data, &format!("room-{k}"));
                    fs::create_dir_all(dir.path()).unwrap();
                    let (mut log, old) = dir.open_log(Sync::Data).unwrap();
                    assert!(old.is_empty());
                    for i in 0..40u32 {
                        let record = Record::Move {
                            player: k as u32,
                            action: Action::Reveal,
                            row: i,
                            col: k as u32,
                            at_ms: u64::from(i) * 100,
                        };
                        log.append(&[record]).unwrap();
                        syncer.sync(log.file()).unwrap();
                    }
                    assert_eq!(log.records(), 40);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        for k in 0..rooms {
            let (_, got) = RoomDir::new(&data, &format!("room-{k}"))
                .open_log(Sync::Data)
                .unwrap();
            let want: Vec<Record> = (0..40u32)
                .map(|i| Record::Move {
                    player: k as u32,
                    action: Action::Reveal,
                    row: i,
                    col: k as u32,
                    at_ms: u64::from(i) * 100,
                })
                .collect();
            assert_eq!(got, want, "room {k}");
        }
        fs::remove_dir_all(&data).unwrap();
    }

    #[test]
    fn a_round_of_many_files_and_a_round_of_few_both_sync() {
        let data = std::env::temp_dir().join(format!("bitmines-round-{}", std::process::id()));
        fs::create_dir_all(&data).unwrap();
        let files: Vec<Arc<File>> = (0..=Syncer::FEW)
            .map(|k| {
                let mut file = File::create(data.join(format!("f{k}"))).unwrap();
                file.write_all(b"record").unwrap();
                Arc::new(file)
            })
            .collect();
        let files: Vec<&Arc<File>> = files.iter().collect();
        sync_round(&files).unwrap();
        sync_round(&files[..Syncer::FEW]).unwrap();
        fs::remove_dir_all(&data).unwrap();
    }
}
