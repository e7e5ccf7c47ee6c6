//! `bitmines loadtest --soak GAMES`: many short games through one server that the soak starts,
//! restarts half-way and watches, so that a leak shows as a curve that climbs with the games.
//!
//! Rooms of two players each play a game to its end (co-op and race in turn); some rooms play
//! a rematch, some players drop their connection and resume by token, some pairs leave and
//! come back after their room was evicted, and every player compares what it is shown on its
//! return with what its acknowledgements said. Once a second the server's resident memory,
//! open files, live rooms and data-folder bytes are sampled.
//!
//! The server is a child process, stopped by SIGTERM to its own PID half-way and restarted on
//! the same data folder; one task per room drives its two players in turn, and a thread takes
//! the samples.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use bitmines_core::Position;
use bitmines_server::client::{Client, ClientError, Picture};
use bitmines_server::protocol::{Action, CHUNK, ChunkRect, ClientMsg, ErrorCode, ServerMsg, cell};
use bitmines_solve::Solver;
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::Serialize;

use super::{Job, metric, server_metrics};
use crate::cli::{Preset, at_least_one, refused};

/// The name and version of the soak's `--json` report.
pub(crate) const SOAK_SCHEMA: &str = "bitmines-soak/1";

/// A level of the last tenth of the games may exceed the first tenth's by this share...
const SHARE: f64 = 0.10;

/// The most archive bytes a game may add (its record and its index line).
const ARCHIVE_PER_GAME: f64 = 1024.0;

/// Seconds to wait for an acknowledgement, a welcome or a view before the run fails.
const ANSWER_S: u64 = 30;

/// The server's counters the report sums over both of its processes.
const COUNTERS: [&str; 3] = [
    "bitmines_rooms_evicted_total",
    "bitmines_rooms_restored_total",
    "bitmines_rooms_archived_total",
];

/// The soak's own options of `bitmines loadtest`.
#[derive(clap::Args, Debug)]
pub(crate) struct SoakArgs {
    /// Games to play through a server of its own: the soak starts `bitmines serve` on a
    /// loopback port, restarts it half-way and samples it every second (report schema
    /// "bitmines-soak/1").
    #[arg(long, value_parser = at_least_one::<u64>, allow_negative_numbers = true, conflicts_with_all = ["clients", "duration", "warmup", "viewport", "reconnects", "moves_per_second", "rooms"])]
    pub(crate) soak: Option<u64>,
    /// Rooms played at once in a soak, two players each.
    #[arg(long, default_value_t = 8, value_parser = at_least_one::<usize>, allow_negative_numbers = true, requires = "soak")]
    concurrency: usize,
    /// The board of a soak's games: the board: beginner (9x9, 10 mines), intermediate
    /// (16x16, 40) or expert (16x30, 99).
    #[arg(long, value_enum, default_value = "expert", requires = "soak")]
    preset: Preset,
    /// The folder for the rooms of the soak's server (default: a new temporary folder, removed
    /// at the end; a folder given is kept).
    #[arg(long, requires = "soak")]
    data: Option<PathBuf>,
    /// Seconds a room with nobody connected stays in memory, for the soak's server.
    #[arg(long, default_value_t = 1, value_parser = at_least_one::<u64>, allow_negative_numbers = true, requires = "soak")]
    room_idle: u64,
    /// Seconds a finished game with nobody connected is kept before it is archived, for the
    /// soak's server.
    #[arg(long, default_value_t = 1, value_parser = at_least_one::<u64>, allow_negative_numbers = true, requires = "soak")]
    keep_finished: u64,
    /// Seconds the soak may take in all; a soak not done by then fails.
    #[arg(long, default_value_t = 7200, value_parser = at_least_one::<u64>, allow_negative_numbers = true, requires = "soak")]
    time_limit: u64,
    /// Write the soak's samples, one a second, to this CSV file (for `scripts/soak-plot`).
    #[arg(long, requires = "soak")]
    samples: Option<PathBuf>,
}

/// The soak's server: a child process, stopped by its own PID.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(
        data: &Path,
        args: &SoakArgs,
        log: &Arc<Mutex<Vec<String>>>,
    ) -> anyhow::Result<Server> {
        let exe = std::env::current_exe().context("cannot find this program to start a server")?;
        let mut child = Command::new(exe)
            .args(["serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(data)
            .args(["--room-idle", &args.room_idle.to_string()])
            .args(["--keep-finished", &args.keep_finished.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot start `bitmines serve`")?;
        let stdout = child.stdout.take().context("no server stdout")?;
        let mut stdout = BufReader::new(stdout);
        let mut line = String::new();
        let _ = stdout.read_line(&mut line);
        let Some(addr) = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .map(str::to_string)
        else {
            let _ = child.kill();
            let _ = child.wait();
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            bail!("the server did not start: {}{}", line.trim(), err.trim());
        };
        // The server's output is read to its end, so that it never blocks on a full pipe;
        // the last lines of its standard error are kept for a failure's report.
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        if let Some(stderr) = child.stderr.take() {
            let log = Arc::clone(log);
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if let Ok(mut log) = log.lock() {
                        if log.len() >= 20 {
                            log.remove(0);
                        }
                        log.push(line);
                    }
                }
            });
        }
        Ok(Server { child, addr })
    }

    /// SIGTERM by this server's own PID (the shell's `kill`), and its exit awaited: a clean
    /// stop saves every room.
    fn stop(mut self) -> anyhow::Result<()> {
        let pid = self.child.id();
        let status = Command::new("sh")
            .args(["-c", "kill -TERM \"$0\""])
            .arg(pid.to_string())
            .status()
            .context("cannot run sh to stop the server")?;
        if !status.success() {
            bail!("kill -TERM {pid}: {status}");
        }
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait()? {
                if !status.success() {
                    bail!("the server (PID {pid}) stopped with {status}");
                }
                return Ok(());
            }
            if Instant::now() > until {
                let _ = self.child.kill();
                let _ = self.child.wait();
                bail!("the server (PID {pid}) did not stop within 60 s of SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A soak that failed half way leaves no server behind; after `stop` this finds the
        // process already reaped and does nothing.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// What the rooms share: the server's address (new at the restart), the counts, the failures.
#[derive(Default)]
struct Shared {
    addr: RwLock<String>,
    /// Games started so far: a room takes a number before each game, up to the total.
    claimed: AtomicU64,
    finished: AtomicU64,
    coop: AtomicU64,
    race: AtomicU64,
    rematches: AtomicU64,
    reconnects: AtomicU64,
    returns: AtomicU64,
    /// Leaves until eviction owed, to be taken by the next co-op game.
    leaves_owed: AtomicU64,
    lost: AtomicU64,
    failures: Mutex<Vec<String>>,
    stop: AtomicBool,
}

impl Shared {
    fn fail(&self, line: String) {
        if let Ok(mut failures) = self.failures.lock()
            && failures.len() < 50
        {
            failures.push(line);
        }
        self.stop.store(true, Relaxed);
    }
}

/// One second's sample of the server.
#[derive(Clone, Copy, Serialize)]
struct Sample {
    seconds: f64,
    games: u64,
    rss_bytes: u64,
    open_files: u64,
    live_rooms: u64,
    data_bytes: u64,
    archive_bytes: u64,
}

/// What the acknowledgements of one view said: cells opened, and flags as the last toggle
/// left them. Cells whose move was in flight when a connection broke are unknown.
#[derive(Default)]
struct Ledger {
    open: HashSet<(u32, u32)>,
    flags: HashMap<(u32, u32), bool>,
}

/// One player of a room.
struct Seat {
    client: Option<Client>,
    token: String,
    picture: Picture,
    view: u32,
    /// This player's game is over (in co-op, everyone's is).
    done: bool,
}

/// The room's board: rows, columns, mines.
type Board = (usize, usize, usize);

/// A room that plays one or more games, as one task driving its two players in turn.
struct Room {
    name: String,
    query: String,
    race: bool,
    board: Board,
    seats: Vec<Seat>,
    ledgers: HashMap<u32, Ledger>,
    game: u32,
    seq: u32,
    rng: Pcg64,
}

/// Why a room stopped: the run is over, or it failed (already reported).
struct Stop;

impl Room {
    fn url(&self, shared: &Shared, token: Option<&str>) -> String {
        let addr = shared.addr.read().map(|a| a.clone()).unwrap_or_default();
        let token = token.map(|t| format!("&token={t}")).unwrap_or_default();
        format!("ws://{addr}/room/{}?{}{token}", self.name, self.query)
    }

    fn rect(&self) -> ChunkRect {
        ChunkRect {
            row: 0,
            col: 0,
            rows: self.board.0.div_ceil(CHUNK) as u16,
            cols: self.board.1.div_ceil(CHUNK) as u16,
        }
    }

    /// Connects seat `i` (by its token once it has one), watches the whole board and reads
    /// until every chunk came; then checks the view against the ledger.
    async fn join(&mut self, i: usize, shared: &Shared, check: &str) -> Result<(), Stop> {
        let token = (!self.seats[i].token.is_empty()).then(|| self.seats[i].token.clone());
        let until = Instant::now() + Duration::from_secs(ANSWER_S * 2);
        let mut client = loop {
            // During the restart there is no server for a moment, and then one on a new
            // port: the join is tried again until the limit.
            // A server that is stopping may take the connection and never answer it: each
            // try has a limit of its own.
            let url = self.url(shared, token.as_deref());
            let tried = tokio::time::timeout(Duration::from_secs(5), Client::connect(&url)).await;
            match tried {
                Ok(Ok(c)) => break c,
                Ok(Err(e)) if Instant::now() > until => {
                    shared.fail(format!("room {}: cannot join: {e}", self.name));
                    return Err(Stop);
                }
                Err(_) if Instant::now() > until => {
                    shared.fail(format!("room {}: no welcome to a join", self.name));
                    return Err(Stop);
                }
                _ => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        };
        if shared.stop.load(Relaxed) {
            return Err(Stop);
        }
        let welcome = client.welcome().clone();
        if token.is_some() && welcome.game != self.game {
            shared.lost.fetch_add(1, Relaxed);
            shared.fail(format!(
                "lost: room {} shows game {} after {check}, but game {} was acknowledged",
                self.name, welcome.game, self.game
            ));
            return Err(Stop);
        }
        self.game = welcome.game;
        let seat = &mut self.seats[i];
        seat.token = client.token_hex();
        seat.view = welcome.view;
        seat.picture = Picture::default();
        let rect = self.rect();
        if client.send(&ClientMsg::Subscribe(rect)).await.is_err() {
            return self.broken(i, shared).await;
        }
        let chunks = usize::from(rect.rows) * usize::from(rect.cols);
        let mut got = 0;
        let until = Instant::now() + Duration::from_secs(ANSWER_S);
        while got < chunks {
            let left = until.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, client.recv()).await {
                Err(_) => {
                    shared.fail(format!("room {}: no view within {ANSWER_S} s", self.name));
                    return Err(Stop);
                }
                Ok(Err(_)) => {
                    self.seats[i].client = None;
                    return Box::pin(self.join(i, shared, check)).await;
                }
                Ok(Ok(msg)) => {
                    if matches!(msg, ServerMsg::Chunk { .. }) {
                        got += 1;
                    }
                    self.seats[i].picture.apply(&msg);
                }
            }
        }
        self.seats[i].client = Some(client);
        if token.is_some() {
            self.check(i, shared, check)?;
        }
        Ok(())
    }

    /// Compares seat `i`'s view with what the acknowledgements of that view said.
    fn check(&self, i: usize, shared: &Shared, after: &str) -> Result<(), Stop> {
        let seat = &self.seats[i];
        let Some(ledger) = self.ledgers.get(&seat.view) else {
            return Ok(());
        };
        let shown = |r: u32, c: u32| seat.picture.cell(seat.view, r as usize, c as usize);
        let mut lost = Vec::new();
        for &(r, c) in &ledger.open {
            let state = shown(r, c);
            if !state.is_some_and(Picture::is_open) {
                lost.push(format!(
                    "cell ({r}, {c}) was acknowledged open, the view shows {state:?}"
                ));
            }
        }
        for (&(r, c), &flagged) in &ledger.flags {
            let state = shown(r, c);
            let shows_flag = matches!(state, Some(cell::FLAGGED | cell::WRONG_FLAG));
            // A lost game shows its mines; a flag on a mine stays a flag.
            if flagged != shows_flag {
                lost.push(format!(
                    "cell ({r}, {c}) was acknowledged {}, the view shows {state:?}",
                    if flagged { "flagged" } else { "unflagged" }
                ));
            }
        }
        if lost.is_empty() {
            return Ok(());
        }
        shared.lost.fetch_add(lost.len() as u64, Relaxed);
        for line in lost.iter().take(5) {
            shared.fail(format!(
                "lost: room {} game {} view {} after {after}: {line}",
                self.name, self.game, seat.view
            ));
        }
        Err(Stop)
    }

    /// Seat `i`'s connection broke (the restart, most often): it joins again by token, and
    /// the view it is shown is checked.
    async fn broken(&mut self, i: usize, shared: &Shared) -> Result<(), Stop> {
        self.seats[i].client = None;
        shared.reconnects.fetch_add(1, Relaxed);
        Box::pin(self.join(i, shared, "a broken connection")).await
    }

    /// Reads what seat `i` was sent until the ack or error of `seq` (none: until nothing is
    /// waiting). Returns the answer, if one came.
    async fn read(
        &mut self,
        i: usize,
        seq: Option<u32>,
        shared: &Shared,
    ) -> Result<Option<ServerMsg>, Stop> {
        let until = Instant::now() + Duration::from_secs(ANSWER_S);
        loop {
            let Some(client) = self.seats[i].client.as_mut() else {
                return Ok(None);
            };
            let wait = match seq {
                Some(_) => until.saturating_duration_since(Instant::now()),
                None => Duration::ZERO,
            };
            let got = tokio::time::timeout(wait, client.recv()).await;
            let msg = match got {
                Err(_) if seq.is_none() => return Ok(None),
                Err(_) => {
                    shared.fail(format!(
                        "room {}: no answer to move {seq:?} within {ANSWER_S} s",
                        self.name
                    ));
                    return Err(Stop);
                }
                Ok(Err(ClientError::Decode(e))) => {
                    shared.fail(format!("room {}: a frame did not decode: {e}", self.name));
                    return Err(Stop);
                }
                Ok(Err(_)) => {
                    // The answer, if any, is lost with the connection: the move is unknown.
                    self.broken(i, shared).await?;
                    return Ok(None);
                }
                Ok(Ok(msg)) => msg,
            };
            self.seats[i].picture.apply(&msg);
            match &msg {
                ServerMsg::NewGame { game } => {
                    self.game = *game;
                    self.ledgers.clear();
                    for seat in &mut self.seats {
                        seat.done = false;
                    }
                }
                ServerMsg::Over(_) if !self.race => {
                    for seat in &mut self.seats {
                        seat.done = true;
                    }
                }
                ServerMsg::Ack { seq: s, .. } | ServerMsg::Error { seq: s, .. }
                    if Some(*s) == seq =>
                {
                    return Ok(Some(msg));
                }
                _ => {}
            }
        }
    }

    /// Seat `i`'s next move: a proven mine to flag now and then, else a cell to open.
    fn think(&mut self, i: usize) -> Option<(Action, u32, u32)> {
        let (rows, cols, mines) = self.board;
        let seat = &self.seats[i];
        let states = seat.picture.rect(seat.view, (0, 0), (rows, cols))?;
        if self.rng.next_u64().is_multiple_of(4)
            && let Some((r, c)) = proven_mine(&states, self.board)
        {
            return Some((Action::Flag, r as u32, c as u32));
        }
        let job = Job {
            states,
            view: (0, 0, rows, cols),
            board: (rows, cols, mines),
            pick: self.rng.next_u64(),
        };
        let (r, c) = *job.think().first()?;
        Some((Action::Reveal, r as u32, c as u32))
    }

    /// Plays the game to its end: the players move in turn, each waiting for its ack.
    /// `drop_at` and `leave_at` are the move counts at which one player drops and resumes,
    /// and at which both leave until the room is evicted and then come back.
    async fn play(
        &mut self,
        shared: &Shared,
        mut drop_at: Option<u32>,
        mut leave_at: Option<u32>,
        idle: Duration,
    ) -> Result<(), Stop> {
        let mut moves = 0u32;
        let mut turn = 0usize;
        let mut idle_turns = 0;
        loop {
            if shared.stop.load(Relaxed) {
                return Err(Stop);
            }
            for i in 0..self.seats.len() {
                self.read(i, None, shared).await?;
            }
            if self.seats.iter().all(|s| s.done) {
                // A game that ended before its leave is given back, for the next co-op game
                // to take (a beginner game can end on its first few moves).
                if leave_at.is_some() {
                    shared.leaves_owed.fetch_add(1, Relaxed);
                }
                return Ok(());
            }
            turn = (turn + 1) % self.seats.len();
            if self.seats[turn].done {
                continue;
            }
            if Some(moves) == drop_at {
                drop_at = None;
                if let Some(client) = self.seats[turn].client.take() {
                    close(client).await;
                }
                shared.reconnects.fetch_add(1, Relaxed);
                self.join(turn, shared, "a reconnection").await?;
            }
            // Both leave only while every seat still plays: a race with a finished racer may
            // already be over, and an over room that is empty is archived after
            // --keep-finished, where no token rejoins it (as it should).
            if Some(moves) == leave_at && self.seats.iter().any(|s| s.done) {
                leave_at = None;
                shared.leaves_owed.fetch_add(1, Relaxed);
            }
            if Some(moves) == leave_at {
                leave_at = None;
                for seat in &mut self.seats {
                    if let Some(client) = seat.client.take() {
                        close(client).await;
                    }
                }
                // Past the idle time, and a second more for the server's sweep to find it.
                tokio::time::sleep(idle + Duration::from_millis(2500)).await;
                shared.returns.fetch_add(1, Relaxed);
                for i in 0..self.seats.len() {
                    self.join(i, shared, "the room's eviction").await?;
                }
                continue;
            }
            let Some((action, row, col)) = self.think(turn) else {
                // Nothing hidden is left in this view, yet its game is not over: its end is
                // on its way.
                idle_turns += 1;
                if idle_turns > 1000 {
                    shared.fail(format!(
                        "room {}: game {} has no hidden cell and no end",
                        self.name, self.game
                    ));
                    return Err(Stop);
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            };
            idle_turns = 0;
            self.seq = self.seq.wrapping_add(1);
            let seq = self.seq;
            let view = self.seats[turn].view;
            let Some(client) = self.seats[turn].client.as_mut() else {
                self.broken(turn, shared).await?;
                continue;
            };
            if client
                .send(&ClientMsg::Move {
                    seq,
                    action,
                    row,
                    col,
                })
                .await
                .is_err()
            {
                self.broken(turn, shared).await?;
                continue;
            }
            moves += 1;
            match self.read(turn, Some(seq), shared).await? {
                Some(ServerMsg::Ack {
                    opened,
                    exploded,
                    status,
                    flagged,
                    ..
                }) => {
                    let ledger = self.ledgers.entry(view).or_default();
                    match action {
                        Action::Flag => {
                            ledger.flags.insert((row, col), flagged);
                        }
                        _ if opened > 0 && exploded == 0 => {
                            ledger.open.insert((row, col));
                        }
                        _ => {}
                    }
                    if status != 0 {
                        if self.race {
                            self.seats[turn].done = true;
                        } else {
                            for seat in &mut self.seats {
                                seat.done = true;
                            }
                        }
                    }
                }
                Some(ServerMsg::Error { code, message, .. }) => {
                    if code == ErrorCode::GameOver as u16 {
                        if self.race {
                            self.seats[turn].done = true;
                        } else {
                            for seat in &mut self.seats {
                                seat.done = true;
                            }
                        }
                    } else if code != ErrorCode::Busy as u16 {
                        shared.fail(format!(
                            "room {}: move ({row}, {col}) refused: {message}",
                            self.name
                        ));
                        return Err(Stop);
                    }
                }
                // The connection broke before the answer: the move's fate is unknown, and
                // a flag toggled then is left out of the check.
                _ => {
                    if let Some(ledger) = self.ledgers.get_mut(&view) {
                        ledger.flags.remove(&(row, col));
                    }
                }
            }
        }
    }

    /// Starts the room's next game (seat 0 asks), and waits until every seat has its view.
    async fn rematch(&mut self, shared: &Shared) -> Result<(), Stop> {
        let until = Instant::now() + Duration::from_secs(ANSWER_S);
        let before = self.game;
        while self.game == before {
            if Instant::now() > until {
                shared.fail(format!("room {}: the rematch did not start", self.name));
                return Err(Stop);
            }
            self.seq = self.seq.wrapping_add(1);
            let seq = self.seq;
            let Some(client) = self.seats[0].client.as_mut() else {
                self.broken(0, shared).await?;
                continue;
            };
            if client.send(&ClientMsg::Rematch { seq }).await.is_err() {
                self.broken(0, shared).await?;
                continue;
            }
            match self.read(0, Some(seq), shared).await? {
                Some(ServerMsg::Error { code, message, .. })
                    if code != ErrorCode::NotOver as u16 =>
                {
                    shared.fail(format!("room {}: rematch refused: {message}", self.name));
                    return Err(Stop);
                }
                // Not over yet for the server (a racer's end is still on its way), or the
                // ack: the new game frame follows either way once it starts.
                _ => tokio::time::sleep(Duration::from_millis(20)).await,
            }
            for i in 0..self.seats.len() {
                self.read(i, None, shared).await?;
            }
        }
        shared.rematches.fetch_add(1, Relaxed);
        // The other seat takes the new game from its own frames; it reads them on its turn.
        Ok(())
    }
}

/// Closes a connection, giving up on the close handshake after a while.
async fn close(client: Client) {
    let _ = tokio::time::timeout(Duration::from_secs(2), client.close()).await;
}

/// A mine the view proves, still hidden, if the quick deduction finds one.
fn proven_mine(states: &[u8], (rows, cols, mines): Board) -> Option<(usize, usize)> {
    let mut position = Position::new(rows, cols, mines).ok()?;
    for r in 0..rows {
        for c in 0..cols {
            let state = *states.get(r * cols + c)?;
            if state <= cell::OPEN_MAX {
                let _ = position.reveal(r, c, state);
            }
        }
    }
    let mut solver = Solver::new(&position).ok()?;
    solver.deduce().ok()?;
    let certain = solver.into_certain();
    certain
        .mines()
        .find(|&(r, c)| states.get(r * cols + c) == Some(&cell::HIDDEN))
}

/// One room's life: claims games until the run has enough, plays each to its end, sometimes
/// with a rematch in the same room, then leaves it to be archived.
async fn room_task(shared: Arc<Shared>, total: u64, worker: usize, args: Arc<SoakArgs>) {
    let mut rng = Pcg64::seed_from_u64(worker as u64);
    let board = args.preset.size();
    let idle = Duration::from_secs(args.room_idle);
    let mut n = 0u64;
    while !shared.stop.load(Relaxed) {
        let race = (worker as u64 + n) % 2 == 1;
        n += 1;
        let mut room = Room {
            name: format!("soak-{worker}-{n}"),
            query: format!(
                "preset={}&mode={}",
                args.preset.name(),
                if race { "race" } else { "coop" }
            ),
            race,
            board,
            seats: Vec::new(),
            ledgers: HashMap::new(),
            game: 0,
            seq: 0,
            rng: Pcg64::seed_from_u64(rng.next_u64()),
        };
        // One room in three plays a rematch: two games in the same room.
        let games = if rng.next_u64().is_multiple_of(3) {
            2
        } else {
            1
        };
        let mut joined = false;
        for _ in 0..games {
            let k = shared.claimed.fetch_add(1, Relaxed);
            if k >= total {
                shared.claimed.fetch_sub(1, Relaxed);
                break;
            }
            if !joined {
                for i in 0..2 {
                    room.seats.push(Seat {
                        client: None,
                        token: String::new(),
                        picture: Picture::default(),
                        view: 0,
                        done: false,
                    });
                    if room.join(i, &shared, "a join").await.is_err() {
                        return;
                    }
                }
                joined = true;
            } else if room.rematch(&shared).await.is_err() {
                return;
            }
            // One game in seven has a player drop and resume; one in forty has both leave
            // until the room is evicted. The leave is owed from the fortieth game and taken
            // by the next co-op game: a race can be over while a racer still plays (one
            // won), and an over room that is empty is archived, where no token rejoins it.
            let drop_at = (k % 7 == 3).then(|| 2 + (rng.next_u64() % 10) as u32);
            if k % 40 == 2 {
                shared.leaves_owed.fetch_add(1, Relaxed);
            }
            let leave_at = (!race
                && shared
                    .leaves_owed
                    .fetch_update(Relaxed, Relaxed, |n| n.checked_sub(1))
                    .is_ok())
            .then(|| 3 + (rng.next_u64() % 10) as u32);
            if room.play(&shared, drop_at, leave_at, idle).await.is_err() {
                return;
            }
            shared.finished.fetch_add(1, Relaxed);
            if race {
                shared.race.fetch_add(1, Relaxed);
            } else {
                shared.coop.fetch_add(1, Relaxed);
            }
        }
        for seat in room.seats.drain(..) {
            if let Some(client) = seat.client {
                close(client).await;
            }
        }
        if !joined {
            break;
        }
    }
}

/// Bytes of the files under `dir`: outside `archive/`, and inside it.
fn folder_bytes(dir: &Path) -> (u64, u64) {
    fn walk(dir: &Path, total: &mut u64) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            match entry.metadata() {
                Ok(m) if m.is_dir() => walk(&entry.path(), total),
                Ok(m) => *total += m.len(),
                Err(_) => {}
            }
        }
    }
    let mut all = 0;
    walk(dir, &mut all);
    let mut archive = 0;
    walk(&dir.join("archive"), &mut archive);
    (all.saturating_sub(archive), archive)
}

/// Resident bytes and open files of process `pid`, from /proc.
fn process(pid: u32) -> (u64, u64) {
    let rss = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024);
    let files = std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count() as u64);
    (rss, files)
}

/// One series' first and last tenth, and whether it stayed flat.
#[derive(Serialize)]
struct Level {
    first: f64,
    last: f64,
    /// The absolute growth always allowed, for levels too small for a share to mean much.
    floor: f64,
    flat: bool,
}

fn level(samples: &[Sample], total: u64, floor: f64, pick: fn(&Sample) -> u64) -> Level {
    let tenth = (total / 10).max(1);
    // Samples taken while games were played: the first tenth of the games starts at the
    // first finished game, so the empty server before it does not set the bar, and the last
    // tenth ends before the last game did, so the rooms drained at the end do not lower it.
    let played: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.games >= 1 && s.games < total)
        .collect();
    let mean = |window: Vec<&&Sample>, fallback: Option<&&Sample>| {
        let window = if window.is_empty() {
            fallback.into_iter().collect()
        } else {
            window
        };
        if window.is_empty() {
            0.0
        } else {
            window.iter().map(|s| pick(s) as f64).sum::<f64>() / window.len() as f64
        }
    };
    // With few games a tenth may hold no sample; then the nearest one stands for it.
    let first = mean(
        played.iter().filter(|s| s.games <= tenth).collect(),
        played.first(),
    );
    let last = mean(
        played
            .iter()
            .filter(|s| s.games >= total.saturating_sub(tenth))
            .collect(),
        played.last(),
    );
    Level {
        first,
        last,
        floor,
        flat: last <= first * (1.0 + SHARE) + floor,
    }
}

#[derive(Serialize)]
struct Levels {
    rss_bytes: Level,
    open_files: Level,
    live_rooms: Level,
    data_bytes: Level,
}

#[derive(Serialize)]
struct SoakReport {
    schema: &'static str,
    preset: &'static str,
    concurrency: usize,
    room_idle_s: u64,
    keep_finished_s: u64,
    games: u64,
    coop: u64,
    race: u64,
    rematches: u64,
    reconnects: u64,
    returns_after_eviction: u64,
    restarts: u64,
    lost: u64,
    evictions: u64,
    restores: u64,
    archived: u64,
    wall_s: f64,
    samples: usize,
    levels: Levels,
    archive_bytes: u64,
    archive_bytes_per_game: f64,
    flat: bool,
    archive_ok: bool,
    pass: bool,
    failures: Vec<String>,
}

/// Runs the soak and prints its report; an error when it failed.
pub(crate) fn run(args: &SoakArgs, games: u64, json: bool) -> anyhow::Result<()> {
    if games > 1_000_000 {
        return Err(refused("soak", games, "must be at most 1000000"));
    }
    if args.concurrency > 1000 {
        return Err(refused(
            "concurrency",
            args.concurrency,
            "must be at most 1000",
        ));
    }
    let (data, temporary) = match &args.data {
        Some(dir) => (dir.clone(), false),
        None => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let dir =
                std::env::temp_dir().join(format!("bitmines-soak-{}-{nanos}", std::process::id()));
            (dir, true)
        }
    };
    std::fs::create_dir_all(&data)
        .with_context(|| format!("cannot make the data folder {}", data.display()))?;
    let result = soak(args, games, json, &data);
    if temporary {
        let _ = std::fs::remove_dir_all(&data);
    }
    result
}

fn soak(args: &SoakArgs, games: u64, json: bool, data: &Path) -> anyhow::Result<()> {
    let log = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    let limit = Duration::from_secs(args.time_limit);
    let server = Server::start(data, args, &log)?;
    let shared = Arc::new(Shared::default());
    if let Ok(mut addr) = shared.addr.write() {
        *addr = server.addr.clone();
    }
    let pid = Arc::new(AtomicU64::new(u64::from(server.child.id())));
    let samples = Arc::new(Mutex::new(Vec::<Sample>::new()));
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = {
        let (shared, pid, samples, sampling) = (
            Arc::clone(&shared),
            Arc::clone(&pid),
            Arc::clone(&samples),
            Arc::clone(&sampling),
        );
        let data = data.to_path_buf();
        std::thread::spawn(move || {
            let mut next = Instant::now();
            while sampling.load(Relaxed) {
                let (rss_bytes, open_files) = process(pid.load(Relaxed) as u32);
                let addr = shared.addr.read().map(|a| a.clone()).unwrap_or_default();
                let live_rooms = server_metrics(&addr)
                    .and_then(|m| metric(&m, "bitmines_rooms"))
                    .unwrap_or(0);
                let (data_bytes, archive_bytes) = folder_bytes(&data);
                // A sample of a server between its stop and its restart is left out.
                if rss_bytes > 0
                    && let Ok(mut samples) = samples.lock()
                {
                    samples.push(Sample {
                        seconds: started.elapsed().as_secs_f64(),
                        games: shared.finished.load(Relaxed),
                        rss_bytes,
                        open_files,
                        live_rooms,
                        data_bytes,
                        archive_bytes,
                    });
                }
                next += Duration::from_secs(1);
                std::thread::sleep(next.saturating_duration_since(Instant::now()));
            }
        })
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the runtime")?;
    let sargs = Arc::new(SoakArgs {
        soak: args.soak,
        concurrency: args.concurrency,
        preset: args.preset,
        data: None,
        room_idle: args.room_idle,
        keep_finished: args.keep_finished,
        time_limit: args.time_limit,
        samples: None,
    });
    let tasks: Vec<_> = (0..args.concurrency)
        .map(|w| runtime.spawn(room_task(Arc::clone(&shared), games, w, Arc::clone(&sargs))))
        .collect();
    // Half-way, the server is stopped by its PID and started again on the same folder,
    // while the rooms play on: their connections break, and they join again by token.
    let mut server = Some(server);
    let mut restarts = 0;
    let mut before = [0u64; 3];
    let mut restart_error = None;
    while tasks.iter().any(|t| !t.is_finished()) {
        if started.elapsed() > limit {
            shared.fail(format!(
                "the soak took over --time-limit {} s ({} of {games} games done)",
                args.time_limit,
                shared.finished.load(Relaxed)
            ));
            break;
        }
        if restarts == 0 && shared.finished.load(Relaxed) >= games / 2 {
            restarts = 1;
            // The counters start again with the new process: the first one's are kept.
            if let Some(m) = server.as_ref().and_then(|s| server_metrics(&s.addr)) {
                for (i, name) in COUNTERS.iter().enumerate() {
                    before[i] = metric(&m, name).unwrap_or(0);
                }
            }
            if let Some(old) = server.take()
                && let Err(e) = old.stop()
            {
                restart_error = Some(e);
                shared.fail("the server did not stop cleanly at the restart".into());
                break;
            }
            match Server::start(data, args, &log) {
                Ok(new) => {
                    pid.store(u64::from(new.child.id()), Relaxed);
                    if let Ok(mut addr) = shared.addr.write() {
                        *addr = new.addr.clone();
                    }
                    server = Some(new);
                }
                Err(e) => {
                    restart_error = Some(e);
                    shared.fail("the server did not start again".into());
                    break;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    shared.stop.store(true, Relaxed);
    runtime.block_on(async {
        for task in tasks {
            let _ = tokio::time::timeout(Duration::from_secs(ANSWER_S), task).await;
        }
    });
    drop(runtime);
    // The last rooms are left empty; they are archived after --keep-finished and the
    // server's sweep, which the last samples wait for.
    let settle = Duration::from_secs(args.keep_finished.max(args.room_idle) + 3);
    if server.is_some() && started.elapsed() + settle < limit {
        std::thread::sleep(settle);
    }
    let metrics = shared
        .addr
        .read()
        .ok()
        .and_then(|a| server_metrics(&a))
        .unwrap_or_default();
    let counter = |i: usize| before[i] + metric(&metrics, COUNTERS[i]).unwrap_or(0);
    let (evictions, restores, archived) = (counter(0), counter(1), counter(2));
    sampling.store(false, Relaxed);
    let _ = sampler.join();
    let (_, archive_bytes) = folder_bytes(data);
    if let Some(server) = server.take()
        && let Err(e) = server.stop()
    {
        shared.fail(format!("the server did not stop cleanly at the end: {e}"));
    }
    let wall_s = started.elapsed().as_secs_f64();
    let samples = samples.lock().map(|s| s.clone()).unwrap_or_default();
    if let Some(path) = &args.samples {
        let mut csv = String::from(
            "seconds,games,rss_bytes,open_files,live_rooms,data_bytes,archive_bytes\n",
        );
        for s in &samples {
            csv.push_str(&format!(
                "{:.1},{},{},{},{},{},{}\n",
                s.seconds,
                s.games,
                s.rss_bytes,
                s.open_files,
                s.live_rooms,
                s.data_bytes,
                s.archive_bytes
            ));
        }
        std::fs::write(path, csv).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let finished = shared.finished.load(Relaxed);
    // Each room in play holds two connections and its log; rooms waiting for their eviction
    // or archive add a few more, so the floors grow with the rooms played at once.
    let rooms_floor = (2 * args.concurrency) as f64;
    let files_floor = (4 * args.concurrency + 8) as f64;
    let levels = Levels {
        rss_bytes: level(&samples, finished, 8.0 * 1024.0 * 1024.0, |s| s.rss_bytes),
        open_files: level(&samples, finished, files_floor, |s| s.open_files),
        live_rooms: level(&samples, finished, rooms_floor, |s| s.live_rooms),
        data_bytes: level(&samples, finished, 256.0 * 1024.0, |s| s.data_bytes),
    };
    let flat = [
        &levels.rss_bytes,
        &levels.open_files,
        &levels.live_rooms,
        &levels.data_bytes,
    ]
    .iter()
    .all(|l| l.flat);
    let per_game = archive_bytes as f64 / finished.max(1) as f64;
    let archive_ok = per_game <= ARCHIVE_PER_GAME;
    let mut failures = shared
        .failures
        .lock()
        .map(|f| f.clone())
        .unwrap_or_default();
    if let Some(e) = restart_error {
        failures.push(format!("{e:#}"));
    }
    if finished < games && failures.is_empty() {
        failures.push(format!("only {finished} of {games} games were played"));
    }
    if !failures.is_empty()
        && let Ok(log) = log.lock()
    {
        failures.extend(log.iter().map(|l| format!("server: {l}")));
    }
    let lost = shared.lost.load(Relaxed);
    let pass = failures.is_empty() && lost == 0 && flat && archive_ok && restarts == 1;
    let report = SoakReport {
        schema: SOAK_SCHEMA,
        preset: args.preset.name(),
        concurrency: args.concurrency,
        room_idle_s: args.room_idle,
        keep_finished_s: args.keep_finished,
        games: finished,
        coop: shared.coop.load(Relaxed),
        race: shared.race.load(Relaxed),
        rematches: shared.rematches.load(Relaxed),
        reconnects: shared.reconnects.load(Relaxed),
        returns_after_eviction: shared.returns.load(Relaxed),
        restarts,
        lost,
        evictions,
        restores,
        archived,
        wall_s,
        samples: samples.len(),
        levels,
        archive_bytes,
        archive_bytes_per_game: per_game,
        flat,
        archive_ok,
        pass,
        failures,
    };
    if json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print_report(&report);
    }
    if !report.pass {
        let why = report.failures.first().cloned().unwrap_or_else(|| {
            if !report.flat {
                "a level of the last tenth of the games is over the first tenth's by more than 10% and its floor".into()
            } else if !report.archive_ok {
                format!(
                    "the archive grew by {:.0} bytes a game, over {ARCHIVE_PER_GAME}",
                    report.archive_bytes_per_game
                )
            } else {
                "the server was not restarted".into()
            }
        });
        return Err(anyhow!("soak failed: {why}"));
    }
    Ok(())
}

fn print_report(r: &SoakReport) {
    println!(
        "soak: {} {} games ({} co-op, {} race) in {:.1} s, {} at once; {} rematches, {} reconnections, {} returns after an eviction, {} restart",
        r.games,
        r.preset,
        r.coop,
        r.race,
        r.wall_s,
        r.concurrency,
        r.rematches,
        r.reconnects,
        r.returns_after_eviction,
        r.restarts
    );
    println!(
        "server: {} rooms evicted, {} restored, {} archived; {} samples",
        r.evictions, r.restores, r.archived, r.samples
    );
    let row = |name: &str, l: &Level, unit: f64, suffix: &str| {
        println!(
            "{name:<12} first tenth {:>10.1}{suffix}  last tenth {:>10.1}{suffix}  {}",
            l.first / unit,
            l.last / unit,
            if l.flat { "flat" } else { "GREW" }
        );
    };
    let mib = 1024.0 * 1024.0;
    row("memory", &r.levels.rss_bytes, mib, " MiB");
    row("open files", &r.levels.open_files, 1.0, "");
    row("live rooms", &r.levels.live_rooms, 1.0, "");
    row("data", &r.levels.data_bytes, 1024.0, " KiB");
    println!(
        "archive: {} bytes, {:.0} a game (at most {ARCHIVE_PER_GAME})",
        r.archive_bytes, r.archive_bytes_per_game
    );
    println!("acknowledged and lost: {}", r.lost);
    for line in &r.failures {
        println!("failure: {line}");
    }
    println!("{}", if r.pass { "PASS" } else { "FAIL" });
}
