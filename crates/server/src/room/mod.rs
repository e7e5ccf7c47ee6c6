//! A room: one board, its views and its players, as plain synchronous state.
//!
//! A room takes requests one at a time and answers into an outbox; nothing here touches a
//! socket, a file or a clock it was not handed, so the whole game logic is tested without
//! either. The runner (`server.rs`) hands a room to one of its workers, which drives it: it
//! passes requests in, makes the records the room produced durable in the log, and only then
//! calls [`Room::release`], which encodes the changes and hands every frame to its
//! connection's queue. So no client sees a move before it is durable.
//!
//! Frames are encoded once per chunk and shared (a `Bytes` clone is a reference count) by
//! every connection watching that chunk of that view.
//!
//! The room's state is the [`Room`] struct and the records it keeps of a connection, a view
//! and a player, all in this file, with the dispatch of a request to its job; each job's
//! methods live in a file of their own:
//!
//! - `members`: joining (a new player, one resumed by token, a spectator), leaving, cursors,
//!   and the players' list sent in turns.
//! - `views`: the views' games and the chunks each connection watches; the cells a chunk
//!   frame carries and the cells revealed since the last one.
//! - `moves`: a move checked, applied by the rules and recorded; the end of a game.
//! - `first`: a co-op room's board made around the first cell a player reveals.
//! - `help`: hints, odds and wrong flags, computed from the asking player's own view.
//! - `summaries`: what a view shows of each chunk of a rectangle, four bytes a chunk, for
//!   a picture of a board too large to draw cell by cell.
//! - `outbox`: the frames a batch queued, released once its records are durable.
//! - `rematch`: the end of a game and the start of the next in the same room: when a
//!   rematch may be asked for, the new board, the finished game described for the archive,
//!   and a race room's series scoreboard.
//! - `start`: a race with a countdown: its racers get ready, and it starts for all at once.
//! - `recover`: the room's restorable state: the copy a snapshot is written from, and the
//!   room rebuilt from a snapshot and the log.
//!
//! Recovery is driven from this side. [`crate::log`] knows records, files and snapshots
//! (a snapshot reads back as a [`SnapshotState`](crate::log::SnapshotState), plain
//! data) and never names a room;
//! `recover` turns a snapshot into a room and replays each record after it through
//! [`Room::apply_record`], the call a live move makes. So the room depends on the log and
//! the log on nothing of the room's.
//!
//! # What a room holds
//!
//! The board (`Arc<Board>` from `bitmines-gen`, no-guess boards from its `no_guess`), one
//! `bitmines-core` `Game` per racer or one shared `Game` under `Rule::Classic` or
//! `Rule::Endless` (the endless rule is core's), the players (token, name, scores), the
//! connections and which chunks of which view each watches.
//!
//! Changes go out as deltas: flags and explosions are known cells; a cascade is found by
//! comparing a chunk's revealed words with a shadow of what was last sent, spreading only into
//! the chunks its new cells touch (the cells a cascade opens are 8-connected). A changed chunk
//! is encoded once and the same `Bytes` queued for every watcher. Frames are masked to the
//! view: a mine or a wrong flag goes only to the players of a view whose game was lost. A
//! connection's queue that is full closes it (the client rejoins with its token and gets fresh
//! chunks), so a slow client holds at most its queue and slows nobody.
//!
//! The game clock is the room's: it starts at the room's first move (one start for every
//! racer), each move's record carries its play time, and a rebuilt room runs it on from the
//! last move's time; a view keeps the time its game ended at. Frames carry it (the welcome,
//! `Clock`, players, over), so every client shows the server's time, and a restart neither
//! resets it nor counts the time the server was down.
//!
//! Memory: a room holds its board (0.25 bytes a cell), each view's game (0.375 bytes a cell)
//! and a shadow of what was sent (0.125 bytes a cell).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use bitmines_core::{Board, Game, Status};
use bytes::Bytes;
use tokio::sync::mpsc;

use crate::log::Record;
use crate::metrics::Metrics;
use crate::params::RoomParams;
use crate::protocol::{CHUNK, ErrorCode, Mode, ServerMsg};

mod first;
mod help;
mod members;
mod moves;
mod outbox;
mod recover;
mod rematch;
mod start;
mod summaries;
mod views;

pub use help::{ViewCells, WINDOW, window_hint, window_odds, window_wrong_flags};
pub use moves::Outcome;
pub use recover::fresh_room;
pub use rematch::{FinishedGame, GameResult, INLINE_BOARD_CELLS, RacerResult};

use outbox::Pending;

/// What the room's tests share: a 16x30 room of 99 mines, and its players' joins.
#[cfg(test)]
mod testing {
    use std::sync::Arc;
    use std::time::Instant;

    use super::Room;
    use crate::log::Record;
    use crate::metrics::Metrics;
    use crate::params::RoomParams;
    use crate::protocol::{MineRule, Mode};

    /// An expert room (16x30, 99 mines, classic) of `mode`, opened at the middle, made
    /// from `seed`; `countdown` for a race that starts together.
    pub(super) fn expert(mode: Mode, no_guess: bool, countdown: bool, seed: u64) -> Room {
        let params = RoomParams {
            rows: 16,
            cols: 30,
            mines: 99,
            mode,
            rule: MineRule::Classic,
            no_guess,
            first: Some((8, 15)),
            countdown,
        };
        super::fresh_room(
            &params,
            seed,
            256,
            Arc::new(Metrics::default()),
            Instant::now(),
        )
        .unwrap()
    }

    /// Players `0..n` join `room`, as their records replay.
    pub(super) fn join_all(room: &mut Room, n: u32, now: Instant) {
        for player in 0..n {
            let join = Record::Join {
                player,
                token: [player as u8 + 1; 16],
                name: format!("p{player}"),
            };
            room.apply_record(&join, now).unwrap();
        }
    }
}

/// A connection's number, unique in the server.
pub type ConnId = u64;

/// The most players a race room takes.
pub const MAX_RACE_PLAYERS: usize = 8;

/// The most players a co-op room takes.
pub const MAX_COOP_PLAYERS: usize = 20_000;

/// The most players a players frame lists: the leaders of a larger co-op room.
pub const MAX_LISTED: usize = 32;

/// A player's result, for the room's archive record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerResult {
    /// The player's name.
    pub name: String,
    /// Their game's status.
    pub status: Status,
    /// The room's play time their game ended at, in milliseconds (the time their clock
    /// stopped at); `None` while it goes on (a racer still playing when another won).
    pub ms: Option<u64>,
    /// Safe cells their moves opened.
    pub opened: u64,
    /// Mines they set off.
    pub mines_hit: u32,
}

/// A refused request: its error code and message.
pub type Refusal = (ErrorCode, String);

/// A connection as the room knows it: whom it plays as, what it watches, where its frames
/// go.
struct Conn {
    /// The player's index, or `None` for a spectator.
    player: Option<usize>,
    /// The view it watches, or `None` (a spectator of a race with no player yet).
    view: Option<usize>,
    /// The chunks it watches, by index.
    chunks: HashSet<u32>,
    /// Its bounded queue of frames.
    tx: mpsc::Sender<Bytes>,
    /// When it joined, counted in joins.
    order: u64,
}

/// One player's game (race) or the room's shared game (co-op).
struct ViewSlot {
    game: Game,
    /// The revealed cells last sent, one word per row and chunk column.
    shadow: Vec<u64>,
    /// The player whose view this is, in a race.
    owner: Option<usize>,
    /// The room's play time this view's game ended at, in milliseconds.
    ended_ms: Option<u64>,
    clicks: u32,
    /// Co-op: who placed each standing flag, by cell index.
    flag_owner: HashMap<usize, usize>,
}

/// The room's game clock: play time, in milliseconds, counted from the room's first move
/// (so one start for every racer of a race) and only while the server runs.
///
/// What is durable is the time of each move, kept in its record: a room rebuilt after a
/// restart sets its clock to the last move's time and runs it from the moment it is
/// rebuilt, so the time the server was down is not counted, and nothing kept only in a
/// process's memory is lost with it but the time since the last move.
#[derive(Debug, Clone, Copy, Default)]
struct Clock {
    /// The play time of the last move.
    last_ms: u64,
    /// Once the clock runs: a moment of this process and the play time at it.
    anchor: Option<(Instant, u64)>,
}

impl Clock {
    /// The play time at `now`: 0 before the first move.
    fn at(&self, now: Instant) -> u64 {
        match self.anchor {
            Some((then, ms)) => {
                let since = now.saturating_duration_since(then).as_millis();
                ms.saturating_add(u64::try_from(since).unwrap_or(u64::MAX))
            }
            None => 0,
        }
    }

    /// Whether the first move has been made.
    fn running(&self) -> bool {
        self.anchor.is_some()
    }

    /// Sets the clock to `ms` at `now`, as a replayed move or a restored snapshot leaves it.
    fn set(&mut self, ms: u64, now: Instant) {
        self.last_ms = ms;
        self.anchor = Some((now, ms));
    }
}

/// Play time in milliseconds as a `u32` frame field (about 49 days), held at its largest.
fn ms_u32(ms: u64) -> u32 {
    u32::try_from(ms).unwrap_or(u32::MAX)
}

/// A player who joined: who they are, their score, whether they are here.
struct PlayerSlot {
    token: [u8; 16],
    name: String,
    view: usize,
    /// Safe cells this player's moves opened.
    opened: u64,
    mines_hit: u32,
    flags: u32,
    online: u32,
    cursor: Option<(u32, u32)>,
    /// The chunk of the cursor last sent.
    cursor_chunk: Option<u32>,
}

/// A room's board, views, players and connections.
pub struct Room {
    params: RoomParams,
    board: Arc<Board>,
    views: Vec<ViewSlot>,
    players: Vec<PlayerSlot>,
    conns: HashMap<ConnId, Conn>,
    subs: HashMap<(usize, u32), Vec<ConnId>>,
    chunk_rows: usize,
    chunk_cols: usize,
    max_chunks: usize,
    /// Explicit cell changes (flags, explosions) by view and chunk.
    dirty: HashMap<(usize, u32), Vec<(u16, u8)>>,
    /// Chunks where a cascade may have revealed cells.
    seeds: HashSet<(usize, u32)>,
    pending: Vec<Pending>,
    /// Acks waiting for the log, with when their move arrived.
    acks: Vec<(ConnId, Bytes, Instant)>,
    records: Vec<Record>,
    to_close: Vec<(ConnId, String)>,
    players_dirty: bool,
    /// The players' list's turns: groups the connections are split into, groups still to
    /// be sent the list since it last changed, and the next group's number.
    players_groups: u64,
    players_owed: u64,
    players_turn: u64,
    cursors_dirty: Vec<usize>,
    last_players: Option<Instant>,
    last_cursors: Option<Instant>,
    bbbv: Option<u32>,
    metrics: Arc<Metrics>,
    /// The game clock, shared by every view: it starts at the room's first move.
    clock: Clock,
    won_race: bool,
    /// Joins so far, which orders connections.
    joins: u64,
    /// The room's game: 1 for the first, one more at each rematch.
    game: u32,
    /// A race room's series scoreboard, by player index (kept for co-op players too, and
    /// never changed there).
    series: Vec<crate::log::SavedSeries>,
    /// The games that ended at a rematch, described for the archive, until taken.
    finished: Vec<FinishedGame>,
    /// A board the room waits for: a large room's next game's, or this game's around its
    /// first click.
    asked: Option<rematch::Asked>,
    /// Whether the board is a stand-in, to be made again around the first cell a player
    /// reveals (see `first`).
    stand_in: bool,
    /// A race with a countdown: the racers who said they are ready, when the countdown
    /// ends once it runs, and whether the start frame is owed (see `start`).
    ready: HashSet<usize>,
    countdown_until: Option<Instant>,
    start_dirty: bool,
}

fn refuse<T>(code: ErrorCode, message: impl Into<String>) -> Result<T, Refusal> {
    Err((code, message.into()))
}

fn status_byte(status: Status) -> u8 {
    match status {
        Status::Playing => 0,
        Status::Won => 1,
        Status::Lost => 2,
    }
}

impl Room {
    /// A room over `board`, which must have the size and mine count of `params` and keep
    /// the first click's region clear; the co-op view starts with the first click made.
    /// The game clock does not start here, whatever `_now` is: it starts at the room's first
    /// move.
    pub fn new(
        params: RoomParams,
        board: Arc<Board>,
        max_chunks: usize,
        metrics: Arc<Metrics>,
        _now: Instant,
    ) -> Result<Room, String> {
        let chunk_rows = params.rows.div_ceil(CHUNK);
        let chunk_cols = params.cols.div_ceil(CHUNK);
        let mut room = Room {
            params,
            board,
            views: Vec::new(),
            players: Vec::new(),
            conns: HashMap::new(),
            subs: HashMap::new(),
            chunk_rows,
            chunk_cols,
            max_chunks,
            dirty: HashMap::new(),
            seeds: HashSet::new(),
            pending: Vec::new(),
            acks: Vec::new(),
            records: Vec::new(),
            to_close: Vec::new(),
            players_dirty: false,
            players_groups: 1,
            players_owed: 0,
            players_turn: 0,
            cursors_dirty: Vec::new(),
            last_players: None,
            last_cursors: None,
            bbbv: None,
            metrics,
            clock: Clock::default(),
            won_race: false,
            joins: 0,
            game: 1,
            series: Vec::new(),
            finished: Vec::new(),
            asked: None,
            stand_in: params.first.is_none(),
            ready: HashSet::new(),
            countdown_until: None,
            start_dirty: false,
        };
        if params.mode == Mode::Coop {
            room.add_view(None)?;
        }
        Ok(room)
    }

    /// The room's parameters.
    pub fn params(&self) -> &RoomParams {
        &self.params
    }

    /// The board (the truth: never to be sent).
    pub fn board(&self) -> &Arc<Board> {
        &self.board
    }

    /// The views' games, by view id.
    pub fn games(&self) -> impl Iterator<Item = &Game> {
        self.views.iter().map(|v| &v.game)
    }

    /// Connections in the room now.
    pub fn connections(&self) -> usize {
        self.conns.len()
    }

    /// The player a connection plays as; `None` for a spectator's or one not in the room.
    pub fn plays_as(&self, conn: ConnId) -> Option<usize> {
        self.conns.get(&conn)?.player
    }

    /// Players who joined the room.
    pub fn player_count(&self) -> usize {
        self.players.len()
    }

    /// Players connected now (spectators are not counted).
    pub fn players_connected(&self) -> usize {
        self.conns.values().filter(|c| c.player.is_some()).count()
    }

    /// Whether the room's game is over: co-op's one game ended, or in a race a racer won or
    /// every racer's game ended.
    pub fn is_over(&self) -> bool {
        match self.params.mode {
            Mode::Coop => self
                .views
                .first()
                .is_some_and(|v| v.game.status() != Status::Playing),
            Mode::Race => {
                !self.views.is_empty()
                    && (self.views.iter().any(|v| v.game.status() == Status::Won)
                        || self
                            .views
                            .iter()
                            .all(|v| v.game.status() != Status::Playing))
            }
        }
    }

    /// The board's 3BV: the fewest clicks that clear it.
    pub fn bbbv(&self) -> u32 {
        self.bbbv.unwrap_or_else(|| {
            bitmines_core::stats::bbbv(&self.board)
                .map_or(0, |b| u32::try_from(b).unwrap_or(u32::MAX))
        })
    }

    /// Counts the board's 3BV now if it was not yet, so that [`Room::bbbv`] costs nothing
    /// later (a 10^8-cell board takes a while).
    pub fn count_bbbv(&mut self) {
        if self.bbbv.is_none() {
            self.bbbv = Some(self.bbbv());
        }
    }

    /// Each player's result, in the order they joined: their name, their game's status, the
    /// play time it ended at, safe cells opened and mines set off.
    pub fn results(&self) -> Vec<PlayerResult> {
        self.players
            .iter()
            .map(|p| {
                let view = &self.views[p.view];
                PlayerResult {
                    name: p.name.clone(),
                    status: view.game.status(),
                    ms: view.ended_ms,
                    opened: p.opened,
                    mines_hit: p.mines_hit,
                }
            })
            .collect()
    }

    /// The room's play time its game ended at, in milliseconds, once it is over (see
    /// [`Room::is_over`]): co-op's one game's end; a race's first win, or, when nobody won,
    /// the last racer's end. `None` while the game goes on.
    pub fn ended_ms(&self) -> Option<u64> {
        if !self.is_over() {
            return None;
        }
        let first_win = self
            .views
            .iter()
            .filter(|v| v.game.status() == Status::Won)
            .filter_map(|v| v.ended_ms)
            .min();
        first_win.or_else(|| self.views.iter().filter_map(|v| v.ended_ms).max())
    }

    /// Takes one decoded message from a connection, received at `received`.
    pub fn handle(
        &mut self,
        conn: ConnId,
        msg: crate::protocol::ClientMsg,
        received: Instant,
        now: Instant,
    ) {
        use crate::protocol::ClientMsg as M;
        let seq = match msg {
            M::Move { seq, .. }
            | M::Hint { seq, .. }
            | M::Odds { seq, .. }
            | M::WrongFlags { seq, .. }
            | M::Rematch { seq }
            | M::Ready { seq } => seq,
            _ => 0,
        };
        let result = match msg {
            M::Subscribe(rect) => self.subscribe(conn, rect),
            M::Unsubscribe(rect) => self.unsubscribe(conn, rect),
            M::Move {
                seq,
                action,
                row,
                col,
            } => self.act(conn, seq, action, row, col, received, now),
            M::Hint { seq, row, col } => self.hint(conn, seq, row, col),
            M::Odds { seq, row, col } => self.odds(conn, seq, row, col),
            M::WrongFlags { seq, row, col } => self.wrong_flags(conn, seq, row, col),
            M::Cursor { row, col } => self.cursor(conn, row, col),
            M::Watch { player } => self.watch(conn, player, now),
            M::Ping { nonce } => {
                self.reply(conn, ServerMsg::Pong { nonce });
                Ok(())
            }
            M::Rematch { seq } => self.rematch(conn, seq, received, now),
            M::Ready { seq } => self.ready(conn, seq),
            M::Summaries(rect) => self.summaries(conn, rect),
        };
        if let Err(refusal) = result {
            self.error(conn, seq, refusal);
        }
    }

    fn conn(&self, conn: ConnId) -> Result<&Conn, Refusal> {
        match self.conns.get(&conn) {
            Some(c) => Ok(c),
            None => refuse(ErrorCode::NotAllowed, "this connection has not joined"),
        }
    }

    fn check_cell(&self, row: u32, col: u32) -> Result<(usize, usize), Refusal> {
        let (r, c) = (row as usize, col as usize);
        if r >= self.params.rows || c >= self.params.cols {
            return refuse(
                ErrorCode::OffBoard,
                format!(
                    "cell ({row}, {col}) is off a {}x{} board",
                    self.params.rows, self.params.cols
                ),
            );
        }
        Ok((r, c))
    }

    fn player_of(&self, conn: ConnId) -> Result<usize, Refusal> {
        match self.conn(conn)?.player {
            Some(p) => Ok(p),
            None => refuse(
                ErrorCode::NotAllowed,
                "spectators cannot move or ask for help",
            ),
        }
    }

    fn chunk_of(&self, row: usize, col: usize) -> u32 {
        ((row / CHUNK) * self.chunk_cols + col / CHUNK) as u32
    }

    fn offset(row: usize, col: usize) -> u16 {
        ((row % CHUNK) * CHUNK + col % CHUNK) as u16
    }

    /// The play time of view `view` at `now`, in milliseconds, and whether its clock runs:
    /// 0 and stopped before the room's first move, frozen once the view's game ended.
    pub fn view_clock(&self, view: usize, now: Instant) -> (u64, bool) {
        match self.views.get(view).and_then(|v| v.ended_ms) {
            Some(ended) => (ended, false),
            None => (self.clock.at(now), self.clock.running()),
        }
    }

    /// Joins the room has taken, counted from its start in memory: with the number of
    /// connections, it tells whether who is connected may have changed.
    pub fn joins(&self) -> u64 {
        self.joins
    }

    /// Whether the game's clock runs: the game has had its first move.
    pub fn clock_started(&self) -> bool {
        self.clock.running()
    }

    /// The play time of the room's last move, in milliseconds (0 before the first).
    pub fn last_move_ms(&self) -> u64 {
        self.clock.last_ms
    }

    /// Checks every view's game (`Game::validate`).
    pub fn validate(&self) -> Result<(), String> {
        for (i, v) in self.views.iter().enumerate() {
            v.game.validate().map_err(|e| format!("view {i}: {e}"))?;
        }
        Ok(())
    }
}
