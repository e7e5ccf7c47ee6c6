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

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bitmines_core::{Board, Cell, Game, Position, Rule, Status};
use bitmines_solve::{Reason, Solver};
use bytes::Bytes;
use tokio::sync::mpsc;

use crate::log::Record;
use crate::metrics::Metrics;
use crate::params::RoomParams;
use crate::protocol::{
    Action, CHUNK, ChunkRect, ErrorCode, EventKind, MineRule, Mode, NOBODY, Over, PlayerInfo,
    ServerMsg, VERSION, Welcome, cell,
};

/// A connection's number, unique in the server.
pub type ConnId = u64;

/// Cells a side of the window a hint or odds request looks at.
pub const WINDOW: usize = 48;

/// The most players a race room takes.
pub const MAX_RACE_PLAYERS: usize = 8;

/// The most players a co-op room takes.
pub const MAX_COOP_PLAYERS: usize = 20_000;

/// The most players a players frame lists: the leaders of a larger co-op room.
pub const MAX_LISTED: usize = 32;

/// A refused request: its error code and message.
pub type Refusal = (ErrorCode, String);

/// How often the players' list and the cursors go out, at most.
const PLAYERS_EVERY: Duration = Duration::from_millis(200);
const CURSORS_EVERY: Duration = Duration::from_millis(100);

/// The most connections given the players' list at once: a crowded room's connections take
/// turns in groups of about this many, so the list goes out evenly over its period rather
/// than as one burst of a frame for everyone, which would hold up the moves behind it.
const PLAYERS_GROUP: usize = 100;

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
    started: Instant,
    ended: Option<Instant>,
    clicks: u32,
    /// Co-op: who placed each standing flag, by cell index.
    flag_owner: HashMap<usize, usize>,
}

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

impl PlayerSlot {
    fn new(token: [u8; 16], name: String, view: usize) -> PlayerSlot {
        PlayerSlot {
            token,
            name,
            view,
            opened: 0,
            mines_hit: 0,
            flags: 0,
            online: 0,
            cursor: None,
            cursor_chunk: None,
        }
    }
}

/// A frame waiting for the log to be durable.
enum Pending {
    Frame(ConnId, Bytes),
    /// A full chunk, encoded when released, so it shows the state after the batch.
    Snapshot(ConnId, usize, u32),
    /// A frame for the connections watching a chunk of a view.
    Chunk(usize, u32, Bytes),
    /// A frame for one group of the connections that had joined when it was queued: those
    /// whose order is below the first number (so nobody gets a frame before their welcome)
    /// and is the third modulo the second. One group of one is every connection.
    Group(Bytes, u64, u64, u64),
}

/// What a move did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Safe cells opened.
    pub opened: usize,
    /// Mines set off.
    pub exploded: usize,
    /// The view's status after the move.
    pub status: Status,
    /// For a flag: whether the cell is flagged now.
    pub flagged: bool,
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
    won_race: bool,
    /// Joins so far, which orders connections.
    joins: u64,
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

fn random_token() -> [u8; 16] {
    let mut token = [0; 16];
    // A machine whose random source fails cannot hand out secrets; the zero token is never
    // accepted for a resume (see `join`).
    if getrandom::fill(&mut token).is_err() {
        token = [0; 16];
    }
    token
}

impl Room {
    /// A room over `board`, which must have the size and mine count of `params` and keep
    /// the first click's region clear; the co-op view starts with the first click made.
    pub fn new(
        params: RoomParams,
        board: Arc<Board>,
        max_chunks: usize,
        metrics: Arc<Metrics>,
        now: Instant,
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
            won_race: false,
            joins: 0,
        };
        if params.mode == Mode::Coop {
            room.add_view(None, now)?;
        }
        Ok(room)
    }

    /// A room made from saved views, as a snapshot restores it: `games[i]` becomes view `i`.
    pub fn restore(
        params: RoomParams,
        board: Arc<Board>,
        games: Vec<Game>,
        (players, flag_owners): (Vec<crate::log::SavedPlayer>, Vec<(usize, usize, usize)>),
        max_chunks: usize,
        metrics: Arc<Metrics>,
        now: Instant,
    ) -> Result<Room, String> {
        let mut room = Room::new(params, board, max_chunks, metrics, now)?;
        room.views.clear();
        for game in games {
            let mut slot = room.view_slot(game, None, now);
            if slot.game.status() != Status::Playing {
                slot.ended = Some(now);
            }
            room.views.push(slot);
        }
        for saved in players {
            let view = saved.view;
            if view >= room.views.len() {
                return Err(format!("a player's view {view} is not in the snapshot"));
            }
            let index = room.players.len();
            if params.mode == Mode::Race
                && let Some(slot) = room.views.get_mut(view)
            {
                slot.owner = Some(index);
            }
            let mut slot = PlayerSlot::new(saved.token, saved.name, view);
            slot.opened = saved.opened;
            slot.mines_hit = saved.mines_hit;
            room.players.push(slot);
        }
        for (view, cell, player) in flag_owners {
            let (Some(slot), Some(owner)) =
                (room.views.get_mut(view), room.players.get_mut(player))
            else {
                return Err(format!(
                    "a flag of player {player} on view {view} is not in the snapshot"
                ));
            };
            slot.flag_owner.insert(cell, player);
            owner.flags += 1;
        }
        Ok(room)
    }

    fn view_slot(&self, game: Game, owner: Option<usize>, now: Instant) -> ViewSlot {
        let mut slot = ViewSlot {
            game,
            shadow: vec![0; self.params.rows * self.chunk_cols],
            owner,
            started: now,
            ended: None,
            clicks: 0,
            flag_owner: HashMap::new(),
        };
        for r in 0..self.params.rows {
            for k in 0..self.chunk_cols {
                slot.shadow[r * self.chunk_cols + k] = revealed_word(&slot.game, r, k);
            }
        }
        slot
    }

    fn add_view(&mut self, owner: Option<usize>, now: Instant) -> Result<usize, String> {
        let rule = match self.params.rule {
            MineRule::Classic => Rule::Classic,
            MineRule::Endless => Rule::Endless,
        };
        let mut game = Game::try_new(Arc::clone(&self.board))
            .map_err(|e| e.to_string())?
            .with_rule(rule);
        let (r, c) = self.params.first;
        game.reveal(r, c).map_err(|e| e.to_string())?;
        let slot = self.view_slot(game, owner, now);
        self.views.push(slot);
        Ok(self.views.len() - 1)
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

    /// A copy of the room's state after its first `records` records, for a snapshot: made
    /// in the buffers of `reuse` (an earlier copy) where there is one, so that a large
    /// board's copy allocates nothing.
    pub fn snapshot_state(
        &self,
        records: u64,
        reuse: Option<crate::log::SnapshotState>,
    ) -> crate::log::SnapshotState {
        let mut state = reuse.unwrap_or_else(|| crate::log::SnapshotState {
            records,
            board: Arc::clone(&self.board),
            games: Vec::new(),
            players: Vec::new(),
            flag_owners: Vec::new(),
        });
        state.records = records;
        state.board = Arc::clone(&self.board);
        state.games.truncate(self.views.len());
        for (i, view) in self.views.iter().enumerate() {
            match state.games.get_mut(i) {
                Some(game) => game.clone_from(&view.game),
                None => state.games.push(view.game.clone()),
            }
        }
        state.players.clear();
        state
            .players
            .extend(self.players.iter().map(|p| crate::log::SavedPlayer {
                token: p.token,
                name: p.name.clone(),
                view: p.view,
                opened: p.opened,
                mines_hit: p.mines_hit,
            }));
        state.flag_owners.clear();
        state.flag_owners.extend(
            self.views
                .iter()
                .enumerate()
                .flat_map(|(v, slot)| slot.flag_owner.iter().map(move |(&cell, &p)| (v, cell, p))),
        );
        state
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

    /// Records produced since the last call, to be made durable before [`Room::release`].
    pub fn take_records(&mut self) -> Vec<Record> {
        std::mem::take(&mut self.records)
    }

    /// Connections to close, with their reasons (their queues overflowed).
    pub fn take_closed(&mut self) -> Vec<(ConnId, String)> {
        std::mem::take(&mut self.to_close)
    }

    /// Adds a connection: a new player, a player resumed by `token`, or a spectator. The
    /// welcome is queued like every other frame.
    pub fn join(
        &mut self,
        conn: ConnId,
        token: Option<[u8; 16]>,
        spectate: bool,
        name: Option<String>,
        tx: mpsc::Sender<Bytes>,
        now: Instant,
    ) -> Result<(), Refusal> {
        let player = if spectate {
            None
        } else if let Some(token) = token {
            let found = self
                .players
                .iter()
                .position(|p| token != [0; 16] && p.token == token);
            match found {
                Some(index) => Some(index),
                None => {
                    return refuse(
                        ErrorCode::BadToken,
                        "the token names no player of this room",
                    );
                }
            }
        } else {
            let limit = match self.params.mode {
                Mode::Race => MAX_RACE_PLAYERS,
                Mode::Coop => MAX_COOP_PLAYERS,
            };
            if self.players.len() >= limit {
                return refuse(
                    ErrorCode::Limit,
                    format!("the room has its {limit} players; join as a spectator"),
                );
            }
            let index = self.players.len();
            let name = name
                .clone()
                .unwrap_or_else(|| format!("player {}", index + 1));
            let record = Record::Join {
                player: index as u32,
                token: random_token(),
                name: crate::protocol::truncate_utf8(&name, crate::protocol::MAX_NAME).to_string(),
            };
            self.apply_record(&record, now)
                .map_err(|e| (ErrorCode::Storage, e))?;
            self.records.push(record);
            Some(index)
        };
        let view = match player {
            Some(p) => Some(self.players[p].view),
            None => match self.params.mode {
                Mode::Coop => Some(0),
                Mode::Race => self.players.first().map(|p| p.view),
            },
        };
        let welcome = Welcome {
            version: VERSION,
            spectator: player.is_none(),
            player: player.map_or(NOBODY, |p| p as u32 + 1),
            token: player.map_or([0; 16], |p| self.players[p].token),
            rows: self.params.rows as u32,
            cols: self.params.cols as u32,
            mines: self.params.mines as u64,
            mode: self.params.mode,
            rule: self.params.rule,
            no_guess: self.params.no_guess,
            first: (self.params.first.0 as u32, self.params.first.1 as u32),
            max_chunks: self.max_chunks as u32,
            view: view.map_or(NOBODY, |v| v as u32),
        };
        self.conns.insert(
            conn,
            Conn {
                player,
                view,
                chunks: HashSet::new(),
                tx,
                order: self.joins,
            },
        );
        self.joins += 1;
        self.pending
            .push(Pending::Frame(conn, ServerMsg::Welcome(welcome).encode()));
        // The newcomer learns who is here at once.
        self.pending
            .push(Pending::Frame(conn, self.players_frame(now)));
        if let Some(p) = player {
            self.players[p].online += 1;
            self.players_dirty = true;
            // Comings and goings are news in a small room; a large one has its players list.
            if self.players.len() <= MAX_LISTED {
                self.push_all(
                    ServerMsg::Event {
                        kind: EventKind::Joined,
                        player: p as u32 + 1,
                        row: 0,
                        col: 0,
                    }
                    .encode(),
                );
            }
        }
        Ok(())
    }

    /// Removes a connection (closed by its client or by the server).
    pub fn leave(&mut self, conn: ConnId) {
        let Some(c) = self.conns.remove(&conn) else {
            return;
        };
        if let Some(view) = c.view {
            for chunk in &c.chunks {
                self.unsubscribe_one(view, *chunk, conn);
            }
        }
        if let Some(p) = c.player {
            self.players[p].online = self.players[p].online.saturating_sub(1);
            self.players_dirty = true;
            if self.players[p].online == 0 && self.players.len() <= MAX_LISTED {
                self.push_all(
                    ServerMsg::Event {
                        kind: EventKind::Left,
                        player: p as u32 + 1,
                        row: 0,
                        col: 0,
                    }
                    .encode(),
                );
            }
        }
    }

    fn unsubscribe_one(&mut self, view: usize, chunk: u32, conn: ConnId) {
        if let Some(list) = self.subs.get_mut(&(view, chunk)) {
            list.retain(|&c| c != conn);
            if list.is_empty() {
                self.subs.remove(&(view, chunk));
            }
        }
    }

    fn reply(&mut self, conn: ConnId, msg: ServerMsg) {
        self.pending.push(Pending::Frame(conn, msg.encode()));
    }

    fn error(&mut self, conn: ConnId, seq: u32, (code, message): Refusal) {
        self.metrics.error();
        self.reply(
            conn,
            ServerMsg::Error {
                seq,
                code: code as u16,
                message,
            },
        );
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
            | M::WrongFlags { seq, .. } => seq,
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
            M::Watch { player } => self.watch(conn, player),
            M::Ping { nonce } => {
                self.reply(conn, ServerMsg::Pong { nonce });
                Ok(())
            }
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

    fn chunks_of(&self, rect: ChunkRect) -> Result<Vec<u32>, Refusal> {
        let (r1, c1) = (
            rect.row as u64 + u64::from(rect.rows),
            rect.col as u64 + u64::from(rect.cols),
        );
        if r1 > self.chunk_rows as u64 || c1 > self.chunk_cols as u64 {
            return refuse(
                ErrorCode::OffBoard,
                format!(
                    "chunks ({}, {}) to ({}, {}) are off a board of {}x{} chunks",
                    rect.row,
                    rect.col,
                    r1 - 1,
                    c1 - 1,
                    self.chunk_rows,
                    self.chunk_cols
                ),
            );
        }
        let mut out = Vec::new();
        for r in rect.row as usize..r1 as usize {
            for c in rect.col as usize..c1 as usize {
                out.push((r * self.chunk_cols + c) as u32);
            }
        }
        Ok(out)
    }

    fn subscribe(&mut self, conn: ConnId, rect: ChunkRect) -> Result<(), Refusal> {
        let c = self.conn(conn)?;
        let Some(view) = c.view else {
            return refuse(ErrorCode::NoSuchPlayer, "nobody plays in this race yet");
        };
        let chunks = self.chunks_of(rect)?;
        let new: Vec<u32> = chunks
            .into_iter()
            .filter(|ch| !c.chunks.contains(ch))
            .collect();
        if c.chunks.len() + new.len() > self.max_chunks {
            return refuse(
                ErrorCode::TooManyChunks,
                format!(
                    "watching {} more chunks would make {}, over the limit of {}",
                    new.len(),
                    c.chunks.len() + new.len(),
                    self.max_chunks
                ),
            );
        }
        for &chunk in &new {
            self.subs.entry((view, chunk)).or_default().push(conn);
            self.pending.push(Pending::Snapshot(conn, view, chunk));
        }
        if let Some(c) = self.conns.get_mut(&conn) {
            c.chunks.extend(new);
        }
        Ok(())
    }

    fn unsubscribe(&mut self, conn: ConnId, rect: ChunkRect) -> Result<(), Refusal> {
        let c = self.conn(conn)?;
        let view = c.view;
        let chunks = self.chunks_of(rect)?;
        for chunk in chunks {
            let removed = self
                .conns
                .get_mut(&conn)
                .is_some_and(|c| c.chunks.remove(&chunk));
            if let (true, Some(view)) = (removed, view) {
                self.unsubscribe_one(view, chunk, conn);
            }
        }
        Ok(())
    }

    fn watch(&mut self, conn: ConnId, player: u32) -> Result<(), Refusal> {
        let c = self.conn(conn)?;
        if self.params.mode == Mode::Coop {
            return refuse(
                ErrorCode::NotAllowed,
                "a co-op room has one view, watched by all",
            );
        }
        let Some(target) = (player as usize)
            .checked_sub(1)
            .and_then(|i| self.players.get(i))
        else {
            return refuse(
                ErrorCode::NoSuchPlayer,
                format!("player {player} is not in this room"),
            );
        };
        let target_view = target.view;
        if let Some(me) = c.player {
            let own = self.players[me].view;
            if target_view != own && self.views[own].game.status() == Status::Playing {
                return refuse(
                    ErrorCode::NotAllowed,
                    "a racer may watch others only once their own game is over",
                );
            }
        }
        let old = c.view;
        let chunks: Vec<u32> = c.chunks.iter().copied().collect();
        for &chunk in &chunks {
            if let Some(old) = old {
                self.unsubscribe_one(old, chunk, conn);
            }
            self.subs
                .entry((target_view, chunk))
                .or_default()
                .push(conn);
            self.pending
                .push(Pending::Snapshot(conn, target_view, chunk));
        }
        if let Some(c) = self.conns.get_mut(&conn) {
            c.view = Some(target_view);
        }
        Ok(())
    }

    fn cursor(&mut self, conn: ConnId, row: u32, col: u32) -> Result<(), Refusal> {
        let Some(p) = self.conn(conn)?.player else {
            return refuse(ErrorCode::NotAllowed, "spectators have no cursor");
        };
        self.check_cell(row, col)?;
        self.players[p].cursor = Some((row, col));
        if self.params.mode == Mode::Coop && !self.cursors_dirty.contains(&p) {
            self.cursors_dirty.push(p);
        }
        Ok(())
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

    #[allow(clippy::too_many_arguments)]
    fn act(
        &mut self,
        conn: ConnId,
        seq: u32,
        action: Action,
        row: u32,
        col: u32,
        received: Instant,
        now: Instant,
    ) -> Result<(), Refusal> {
        let player = self.player_of(conn)?;
        self.check_cell(row, col)?;
        let view = self.players[player].view;
        if self.views[view].game.status() != Status::Playing {
            return refuse(ErrorCode::GameOver, "this game is over");
        }
        let record = Record::Move {
            player: player as u32,
            action,
            row,
            col,
        };
        let outcome = self
            .apply_move(player, action, row as usize, col as usize, now)
            .map_err(|e| (ErrorCode::Storage, e))?;
        self.records.push(record);
        self.metrics.action();
        let ack = ServerMsg::Ack {
            seq,
            opened: outcome.opened as u32,
            exploded: outcome.exploded as u32,
            status: status_byte(outcome.status),
            flagged: outcome.flagged,
        };
        self.acks.push((conn, ack.encode(), received));
        Ok(())
    }

    /// Applies a record, as a live request made it or as recovery replays it.
    pub fn apply_record(&mut self, record: &Record, now: Instant) -> Result<(), String> {
        match record {
            Record::Join {
                player,
                token,
                name,
            } => {
                if *player as usize != self.players.len() {
                    return Err(format!(
                        "a join of player {} where player {} comes next",
                        player,
                        self.players.len()
                    ));
                }
                let index = self.players.len();
                let view = match self.params.mode {
                    Mode::Coop => 0,
                    Mode::Race => self.add_view(Some(index), now)?,
                };
                self.players
                    .push(PlayerSlot::new(*token, name.clone(), view));
                self.players_dirty = true;
                Ok(())
            }
            Record::Move {
                player,
                action,
                row,
                col,
            } => {
                if *player as usize >= self.players.len() {
                    return Err(format!("a move of player {player}, who never joined"));
                }
                self.apply_move(*player as usize, *action, *row as usize, *col as usize, now)
                    .map(|_| ())
            }
        }
    }

    fn chunk_of(&self, row: usize, col: usize) -> u32 {
        ((row / CHUNK) * self.chunk_cols + col / CHUNK) as u32
    }

    fn offset(row: usize, col: usize) -> u16 {
        ((row % CHUNK) * CHUNK + col % CHUNK) as u16
    }

    fn apply_move(
        &mut self,
        player: usize,
        action: Action,
        row: usize,
        col: usize,
        now: Instant,
    ) -> Result<Outcome, String> {
        let view = self.players[player].view;
        let before_exploded = self.views[view].game.exploded_count();
        let slot = &mut self.views[view];
        if slot.game.status() != Status::Playing {
            // A replayed move on a finished game changes nothing, as it did live.
            return Ok(Outcome {
                opened: 0,
                exploded: 0,
                status: slot.game.status(),
                flagged: false,
            });
        }
        slot.clicks += 1;
        let mut outcome = Outcome {
            opened: 0,
            exploded: 0,
            status: Status::Playing,
            flagged: false,
        };
        match action {
            Action::Flag => {
                let cell = row * self.params.cols + col;
                let was = slot.game.cell(row, col).map_err(|e| e.to_string())?;
                let flagged = slot.game.toggle_flag(row, col).map_err(|e| e.to_string())?;
                outcome.flagged = flagged;
                let changed = was == Cell::Hidden || was == Cell::Flagged;
                if changed {
                    if flagged {
                        slot.flag_owner.insert(cell, player);
                        self.players[player].flags += 1;
                    } else if let Some(owner) = slot.flag_owner.remove(&cell) {
                        self.players[owner].flags = self.players[owner].flags.saturating_sub(1);
                    }
                    let state = if flagged { cell::FLAGGED } else { cell::HIDDEN };
                    let chunk = self.chunk_of(row, col);
                    self.dirty
                        .entry((view, chunk))
                        .or_default()
                        .push((Self::offset(row, col), state));
                }
            }
            Action::Reveal | Action::Chord => {
                let step = if action == Action::Reveal {
                    slot.game.reveal(row, col)
                } else {
                    slot.game.chord(row, col)
                }
                .map_err(|e| e.to_string())?;
                outcome.opened = step.opened;
                outcome.exploded = step.exploded;
                if step.opened > 0 {
                    // A reveal's cascade holds the cell itself; a chord's cascades each hold
                    // one of its neighbours. The spread in `release` finds the rest.
                    let span = if action == Action::Reveal { 0 } else { 1 };
                    for r in row.saturating_sub(span)..=(row + span).min(self.params.rows - 1) {
                        for c in col.saturating_sub(span)..=(col + span).min(self.params.cols - 1) {
                            let chunk = self.chunk_of(r, c);
                            self.seeds.insert((view, chunk));
                        }
                    }
                    self.players[player].opened += step.opened as u64;
                }
                if step.exploded > 0 {
                    let new: Vec<(usize, usize)> = self.views[view]
                        .game
                        .exploded()
                        .skip(before_exploded)
                        .collect();
                    self.players[player].mines_hit += new.len() as u32;
                    for (r, c) in new {
                        let chunk = self.chunk_of(r, c);
                        self.dirty
                            .entry((view, chunk))
                            .or_default()
                            .push((Self::offset(r, c), cell::EXPLODED));
                        // Who set off a mine is news to those who can see it.
                        let event = ServerMsg::Event {
                            kind: EventKind::MineHit,
                            player: player as u32 + 1,
                            row: r as u32,
                            col: c as u32,
                        };
                        self.pending
                            .push(Pending::Chunk(view, chunk, event.encode()));
                    }
                }
            }
        }
        self.players_dirty = true;
        let status = self.views[view].game.status();
        outcome.status = status;
        if status != Status::Playing {
            self.end(view, player, now);
        }
        Ok(outcome)
    }

    /// A view's game ended: its players get the figures and, after a loss, the truth of the
    /// chunks they watch; everyone gets the event.
    fn end(&mut self, view: usize, player: usize, now: Instant) {
        let slot = &mut self.views[view];
        slot.ended = Some(now);
        let status = slot.game.status();
        let elapsed = now.duration_since(slot.started).as_millis() as u32;
        let clicks = slot.clicks;
        let bbbv = *self
            .bbbv
            .get_or_insert_with(|| bitmines_core::stats::bbbv(&self.board).map_or(0, |b| b as u32));
        let correct_flags = self.correct_flags(view);
        let over = ServerMsg::Over(Over {
            view: view as u32,
            status: status_byte(status),
            elapsed_ms: elapsed,
            bbbv,
            clicks,
            correct_flags,
        })
        .encode();
        let kind = if status == Status::Won {
            EventKind::Won
        } else {
            EventKind::Lost
        };
        let who = match self.params.mode {
            Mode::Race => player as u32 + 1,
            Mode::Coop => NOBODY,
        };
        if self.params.mode == Mode::Race && status == Status::Won {
            self.won_race = true;
        }
        self.push_all(
            ServerMsg::Event {
                kind,
                player: who,
                row: 0,
                col: 0,
            }
            .encode(),
        );
        let owners: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|(_, c)| c.player.is_some_and(|p| self.players[p].view == view))
            .map(|(&id, _)| id)
            .collect();
        for conn in owners {
            self.pending.push(Pending::Frame(conn, over.clone()));
            if status == Status::Lost {
                let watched: Vec<(usize, u32)> = self.conns[&conn]
                    .view
                    .filter(|&v| v == view)
                    .map(|v| self.conns[&conn].chunks.iter().map(|&ch| (v, ch)).collect())
                    .unwrap_or_default();
                for (v, chunk) in watched {
                    self.pending.push(Pending::Snapshot(conn, v, chunk));
                }
            }
        }
    }

    fn correct_flags(&self, view: usize) -> Vec<(u32, u32)> {
        let slot = &self.views[view];
        let mut counts: HashMap<usize, u32> = HashMap::new();
        match self.params.mode {
            Mode::Coop => {
                for (&cell, &owner) in &slot.flag_owner {
                    let (r, c) = (cell / self.params.cols, cell % self.params.cols);
                    if self.board.is_mine(r, c).unwrap_or(false) {
                        *counts.entry(owner).or_default() += 1;
                    }
                }
            }
            Mode::Race => {
                if let Some(owner) = slot.owner {
                    let mut n = 0u32;
                    for r in 0..self.params.rows {
                        if let (Ok(flags), Ok(mines)) =
                            (slot.game.flagged_row(r), self.board.mine_row(r))
                        {
                            n += flags
                                .iter_ones()
                                .filter(|&c| mines.get(c).is_some_and(|m| *m))
                                .count() as u32;
                        }
                    }
                    counts.insert(owner, n);
                }
            }
        }
        let mut out: Vec<(u32, u32)> = counts.into_iter().map(|(p, n)| (p as u32 + 1, n)).collect();
        out.sort_unstable();
        out
    }

    /// Runs `ask` on the asking player's own view around `(row, col)`, for the help
    /// requests: only a player may ask, only on the board, only while the game is played.
    fn help<T>(
        &self,
        conn: ConnId,
        (row, col): (u32, u32),
        ask: impl FnOnce(&ViewCells<'_>, usize, usize) -> Result<T, String>,
        code: ErrorCode,
    ) -> Result<T, Refusal> {
        let player = self.player_of(conn)?;
        let (r, c) = self.check_cell(row, col)?;
        let game = &self.views[self.players[player].view].game;
        if game.status() != Status::Playing {
            return refuse(ErrorCode::GameOver, "this game is over");
        }
        let cell = |r: usize, c: usize| game.cell(r, c).unwrap_or(Cell::Hidden);
        let view = ViewCells {
            params: &self.params,
            cell: &cell,
            revealed: game.revealed_count(),
            exploded: game.exploded_count(),
        };
        ask(&view, r, c).map_err(|e| (code, e))
    }

    /// A hint from the player's own view (see [`window_hint`]).
    fn hint(&mut self, conn: ConnId, seq: u32, row: u32, col: u32) -> Result<(), Refusal> {
        let found = self.help(conn, (row, col), window_hint, ErrorCode::BadFrame)?;
        self.reply(conn, ServerMsg::Hint { seq, found });
        Ok(())
    }

    /// The odds of the window around the cell, from the player's own view (see
    /// [`window_odds`]).
    fn odds(&mut self, conn: ConnId, seq: u32, row: u32, col: u32) -> Result<(), Refusal> {
        let (row, col, height, width, cells) =
            self.help(conn, (row, col), window_odds, ErrorCode::NoAnswer)?;
        self.reply(
            conn,
            ServerMsg::Odds {
                seq,
                row,
                col,
                height,
                width,
                cells,
            },
        );
        Ok(())
    }

    /// The flags proven wrong in the window around the cell, from the player's own view (see
    /// [`window_wrong_flags`]).
    fn wrong_flags(&mut self, conn: ConnId, seq: u32, row: u32, col: u32) -> Result<(), Refusal> {
        let cells = self.help(conn, (row, col), window_wrong_flags, ErrorCode::BadFrame)?;
        self.reply(conn, ServerMsg::WrongFlags { seq, cells });
        Ok(())
    }

    /// Queues the players' list and the cursors if they changed and their time has come.
    pub fn tick(&mut self, now: Instant) {
        let due =
            |last: Option<Instant>, every| last.is_none_or(|t| now.duration_since(t) >= every);
        // The players' list goes to every connection: a crowded room sends it less often, so
        // that it costs at most about 2,000 frames a second (once a second for 2,000), and in
        // turns, a group of connections at a time (20 groups of 100, one every 50 ms, for
        // 2,000), so that those frames do not come as one burst.
        let conns = self.conns.len();
        let groups = conns.div_ceil(PLAYERS_GROUP).max(1) as u64;
        if self.players_dirty || groups != self.players_groups {
            // Every group is owed the list made after this change.
            self.players_dirty = false;
            self.players_groups = groups;
            self.players_owed = groups;
        }
        let players_every = PLAYERS_EVERY.max(Duration::from_micros(500) * conns as u32);
        if self.players_owed > 0 && due(self.last_players, players_every / groups as u32) {
            self.players_owed -= 1;
            self.last_players = Some(now);
            let turn = self.players_turn % groups;
            self.players_turn = turn + 1;
            let frame = self.players_frame(now);
            self.pending
                .push(Pending::Group(frame, self.joins, groups, turn));
        }
        if !self.cursors_dirty.is_empty() && due(self.last_cursors, CURSORS_EVERY) {
            self.last_cursors = Some(now);
            // A cursor goes to those watching the chunk it is in, and the one it left.
            let mut by_chunk: HashMap<u32, Vec<(u32, u32, u32)>> = HashMap::new();
            for p in std::mem::take(&mut self.cursors_dirty) {
                let Some((r, c)) = self.players[p].cursor else {
                    continue;
                };
                let chunk = self.chunk_of(r as usize, c as usize);
                by_chunk
                    .entry(chunk)
                    .or_default()
                    .push((p as u32 + 1, r, c));
                if let Some(left) = self.players[p].cursor_chunk.replace(chunk)
                    && left != chunk
                {
                    by_chunk.entry(left).or_default().push((p as u32 + 1, r, c));
                }
            }
            for (chunk, cursors) in by_chunk {
                let frame = ServerMsg::Cursors(cursors).encode();
                self.pending.push(Pending::Chunk(0, chunk, frame));
            }
        }
    }

    fn players_frame(&self, now: Instant) -> Bytes {
        // A large co-op room lists its leaders only: every player to every player would grow
        // with the square of the players.
        let mut order: Vec<usize> = (0..self.players.len()).collect();
        if order.len() > MAX_LISTED {
            order.select_nth_unstable_by_key(MAX_LISTED - 1, |&i| {
                (std::cmp::Reverse(self.players[i].opened), i)
            });
            order.truncate(MAX_LISTED);
            order.sort_unstable();
        }
        let players = order
            .into_iter()
            .map(|i| (i, &self.players[i]))
            .map(|(i, p)| {
                let slot = &self.views[p.view];
                let elapsed = slot.ended.unwrap_or(now).duration_since(slot.started);
                PlayerInfo {
                    id: i as u32 + 1,
                    name: p.name.clone(),
                    online: p.online > 0,
                    status: status_byte(slot.game.status()),
                    revealed: match self.params.mode {
                        Mode::Race => slot.game.revealed_count() as u64,
                        Mode::Coop => p.opened,
                    },
                    mines_hit: p.mines_hit,
                    flags: p.flags,
                    elapsed_ms: elapsed.as_millis().min(u32::MAX as u128) as u32,
                }
            })
            .collect();
        ServerMsg::Players(players).encode()
    }

    /// Whether `conn` may see the truth of `view`: it plays on it and the game is lost.
    fn sees_truth(&self, conn: &Conn, view: usize) -> bool {
        conn.player.is_some_and(|p| self.players[p].view == view)
            && self.views[view].game.status() == Status::Lost
    }

    /// Every cell of a chunk as its state, masked to the view unless `truth`.
    fn chunk_cells(&self, view: usize, chunk: u32, truth: bool) -> (u8, u8, Vec<u8>) {
        let game = &self.views[view].game;
        let (cr, cc) = (
            chunk as usize / self.chunk_cols,
            chunk as usize % self.chunk_cols,
        );
        let (r0, c0) = (cr * CHUNK, cc * CHUNK);
        let height = CHUNK.min(self.params.rows - r0);
        let width = CHUNK.min(self.params.cols - c0);
        let mut cells = Vec::with_capacity(height * width);
        for r in r0..r0 + height {
            for c in c0..c0 + width {
                cells.push(state_of(game.cell(r, c).unwrap_or(Cell::Hidden), truth));
            }
        }
        (height as u8, width as u8, cells)
    }

    fn snapshot_frame(&self, view: usize, chunk: u32, truth: bool) -> Bytes {
        let (height, width, cells) = self.chunk_cells(view, chunk, truth);
        ServerMsg::Chunk {
            view: view as u32,
            chunk_row: (chunk as usize / self.chunk_cols) as u32,
            chunk_col: (chunk as usize % self.chunk_cols) as u32,
            height,
            width,
            cells,
        }
        .encode()
    }

    /// The cells of a chunk revealed since the shadow was last brought up to date, as
    /// `(offset, number)`, and the chunks beside it that the new cells touch (where a
    /// cascade may have gone on); brings the shadow up to date.
    fn revealed_since(&mut self, view: usize, chunk: u32) -> (Vec<(u16, u8)>, Vec<u32>) {
        let (cr, cc) = (
            chunk as usize / self.chunk_cols,
            chunk as usize % self.chunk_cols,
        );
        let r0 = cr * CHUNK;
        let height = CHUNK.min(self.params.rows - r0);
        let width = CHUNK.min(self.params.cols - cc * CHUNK);
        let mut out = Vec::new();
        // Which of the eight chunks around this one a new cell touches, as (dr, dc) + 1.
        let mut touched = [[false; 3]; 3];
        for r in r0..r0 + height {
            let now = revealed_word(&self.views[view].game, r, cc);
            let shadow = &mut self.views[view].shadow[r * self.chunk_cols + cc];
            let mut new = now & !*shadow;
            *shadow = now;
            while new != 0 {
                let bit = new.trailing_zeros() as usize;
                new &= new - 1;
                let c = cc * CHUNK + bit;
                let number = self.board.number(r, c).unwrap_or(0);
                out.push((((r - r0) * CHUNK + bit) as u16, number));
                // A cell on an edge (or two) of the chunk touches the chunks past it.
                let on_row = [r == r0, true, r + 1 == r0 + height];
                let on_col = [bit == 0, true, bit + 1 == width];
                for (dr, &a) in on_row.iter().enumerate() {
                    for (dc, &b) in on_col.iter().enumerate() {
                        touched[dr][dc] |= a && b;
                    }
                }
            }
        }
        let mut beside = Vec::new();
        for (dr, row) in touched.iter().enumerate() {
            for (dc, &t) in row.iter().enumerate() {
                let (r, c) = ((cr + dr).wrapping_sub(1), (cc + dc).wrapping_sub(1));
                if t && (dr, dc) != (1, 1) && r < self.chunk_rows && c < self.chunk_cols {
                    beside.push((r * self.chunk_cols + c) as u32);
                }
            }
        }
        (out, beside)
    }

    /// Sends everything the batch produced: call once its records are durable. Deltas go
    /// first, encoded once per chunk, then the queued frames in order, then the acks.
    pub fn release(&mut self, now: Instant) {
        // The cascades: every chunk whose revealed cells changed, found by spreading from the
        // chunks around each move (the cells a cascade opens are 8-connected).
        let mut seen: HashSet<(usize, u32)> = HashSet::new();
        let mut stack: Vec<(usize, u32)> = self.seeds.drain().collect();
        while let Some((view, chunk)) = stack.pop() {
            if !seen.insert((view, chunk)) {
                continue;
            }
            let (opened, beside) = self.revealed_since(view, chunk);
            if opened.is_empty() {
                continue;
            }
            self.dirty.entry((view, chunk)).or_default().extend(opened);
            stack.extend(beside.into_iter().map(|c| (view, c)));
        }
        let dirty = std::mem::take(&mut self.dirty);
        for ((view, chunk), mut cells) in dirty {
            let Some(subscribers) = self.subs.get(&(view, chunk)) else {
                continue;
            };
            if subscribers.is_empty() {
                continue;
            }
            // A cell changed twice in one batch (flagged, then unflagged) keeps its last state.
            cells.reverse();
            let mut seen_cells = HashSet::new();
            cells.retain(|&(offset, _)| seen_cells.insert(offset));
            cells.reverse();
            let frame = if cells.len() * 3 > CHUNK * CHUNK / 2 {
                self.snapshot_frame(view, chunk, false)
            } else {
                ServerMsg::Delta {
                    view: view as u32,
                    chunk_row: (chunk as usize / self.chunk_cols) as u32,
                    chunk_col: (chunk as usize % self.chunk_cols) as u32,
                    cells,
                }
                .encode()
            };
            let subscribers = subscribers.clone();
            for conn in subscribers {
                self.send(conn, frame.clone());
            }
        }
        let pending = std::mem::take(&mut self.pending);
        for item in pending {
            match item {
                Pending::Frame(conn, frame) => self.send(conn, frame),
                Pending::Snapshot(conn, view, chunk) => {
                    let Some(c) = self.conns.get(&conn) else {
                        continue;
                    };
                    // Skip a snapshot of a chunk the connection stopped watching since.
                    if c.view != Some(view) || !c.chunks.contains(&chunk) {
                        continue;
                    }
                    let truth = self.sees_truth(c, view);
                    let frame = self.snapshot_frame(view, chunk, truth);
                    self.send(conn, frame);
                }
                Pending::Chunk(view, chunk, frame) => {
                    let watchers = self.subs.get(&(view, chunk)).cloned().unwrap_or_default();
                    for conn in watchers {
                        self.send(conn, frame.clone());
                    }
                }
                Pending::Group(frame, upto, groups, turn) => {
                    let conns: Vec<ConnId> = self
                        .conns
                        .iter()
                        .filter(|(_, c)| c.order < upto && c.order % groups == turn)
                        .map(|(&id, _)| id)
                        .collect();
                    for conn in conns {
                        self.send(conn, frame.clone());
                    }
                }
            }
        }
        for (conn, frame, received) in std::mem::take(&mut self.acks) {
            self.metrics
                .ack_latency(now.saturating_duration_since(received));
            self.send(conn, frame);
        }
    }

    /// Queues a frame on a connection; a full queue closes the connection, so a client that
    /// falls behind never holds more than its queue and never slows anyone else.
    fn send(&mut self, conn: ConnId, frame: Bytes) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        let len = frame.len();
        match c.tx.try_send(frame) {
            Ok(()) => self.metrics.frame_out(len),
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.metrics.drop_slow();
                self.to_close.push((
                    conn,
                    "too slow: the send queue is full; reconnect with the token to resume".into(),
                ));
                self.leave(conn);
            }
            Err(mpsc::error::TrySendError::Closed(_)) => self.leave(conn),
        }
    }

    /// Queues a frame for every connection in the room now.
    pub fn broadcast(&mut self, frame: Bytes) {
        self.push_all(frame);
    }

    fn push_all(&mut self, frame: Bytes) {
        self.pending.push(Pending::Group(frame, self.joins, 1, 0));
    }

    /// Checks every view's game (`Game::validate`).
    pub fn validate(&self) -> Result<(), String> {
        for (i, v) in self.views.iter().enumerate() {
            v.game.validate().map_err(|e| format!("view {i}: {e}"))?;
        }
        Ok(())
    }
}

/// A cell as it travels, masked unless `truth`: a mine or a wrong flag, which `Game::cell`
/// shows after a loss, is sent as hidden or flagged.
fn state_of(cell: Cell, truth: bool) -> u8 {
    match cell {
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

/// The revealed bits of row `row` in chunk column `k`, bit `i` for column `64 k + i`.
fn revealed_word(game: &Game, row: usize, k: usize) -> u64 {
    game.revealed_word(row, k * CHUNK).unwrap_or(0)
}

fn shift_reason(reason: Reason, r0: usize, c0: usize) -> Reason {
    let s = |(r, c): (usize, usize)| (r + r0, c + c0);
    match reason {
        Reason::Satisfied { by, number } => Reason::Satisfied { by: s(by), number },
        Reason::Full { by, number } => Reason::Full { by: s(by), number },
        Reason::Pair { first, second } => Reason::Pair {
            first: s(first),
            second: s(second),
        },
        Reason::Component { numbers, global } => Reason::Component {
            numbers: numbers.into_iter().map(s).collect(),
            global,
        },
        other => other,
    }
}

/// What a window of a view is computed from: the view's cells (as `Game::cell` shows them to
/// its player during play), and the counts a player knows.
pub struct ViewCells<'a> {
    /// The room's parameters (size and mine count).
    pub params: &'a RoomParams,
    /// The cell at `(row, col)`.
    pub cell: &'a dyn Fn(usize, usize) -> Cell,
    /// Safe cells revealed on the view.
    pub revealed: usize,
    /// Mines set off on the view.
    pub exploded: usize,
}

/// The part of a view a hint or odds request looks at: [`WINDOW`] cells a side around the
/// asked cell, cut at the board's edges.
struct Window {
    r0: usize,
    c0: usize,
    height: usize,
    width: usize,
}

impl Window {
    fn around(params: &RoomParams, r: usize, c: usize) -> Window {
        let span = |at: usize, len: usize| {
            let size = WINDOW.min(len);
            let start = at.saturating_sub(size / 2).min(len - size);
            (start, size)
        };
        let (r0, height) = span(r, params.rows);
        let (c0, width) = span(c, params.cols);
        Window {
            r0,
            c0,
            height,
            width,
        }
    }

    /// A solver over the window. A revealed number is kept only if all its neighbours on the
    /// board lie inside the window, so every constraint the solver sees is whole; the
    /// cells past the window's edge are simply not there. What it proves with the trivial
    /// and pair rules is therefore true of the whole board. The mine count it is given (for
    /// the odds) is the window's hidden cells times the board's density of mines left.
    fn solver(&self, view: &ViewCells<'_>) -> Result<Solver, String> {
        self.solver_with(view, None)
    }

    /// The same, with the window's mine count given instead of estimated.
    fn solver_with(&self, view: &ViewCells<'_>, count: Option<usize>) -> Result<Solver, String> {
        let (rows, cols) = (view.params.rows, view.params.cols);
        let mut hidden = 0usize;
        let mut numbers = Vec::new();
        let mut exploded = Vec::new();
        for wr in 0..self.height {
            for wc in 0..self.width {
                let (r, c) = (wr + self.r0, wc + self.c0);
                match (view.cell)(r, c) {
                    Cell::Open(n) => {
                        let whole = (r > self.r0 || r == 0)
                            && (r + 1 < self.r0 + self.height || r + 1 == rows)
                            && (c > self.c0 || c == 0)
                            && (c + 1 < self.c0 + self.width || c + 1 == cols);
                        if whole {
                            numbers.push((wr, wc, n));
                        } else {
                            hidden += 1;
                        }
                    }
                    Cell::Exploded => exploded.push((wr, wc)),
                    _ => hidden += 1,
                }
            }
        }
        let left_mines = view.params.mines.saturating_sub(view.exploded);
        let left_cells = (rows * cols)
            .saturating_sub(view.revealed + view.exploded)
            .max(1);
        let estimate = (hidden as f64 * left_mines as f64 / left_cells as f64).round() as usize;
        let mines = count
            .unwrap_or(estimate + exploded.len())
            .min(hidden + exploded.len());
        let mut position =
            Position::new(self.height, self.width, mines).map_err(|e| e.to_string())?;
        for (wr, wc, n) in numbers {
            position.reveal(wr, wc, n).map_err(|e| e.to_string())?;
        }
        let mut solver = Solver::new(&position).map_err(|e| e.to_string())?;
        for (wr, wc) in exploded {
            solver.assume_mine(wr, wc).map_err(|e| e.to_string())?;
        }
        Ok(solver)
    }
}

/// The hint for `(row, col)`: the hidden cell nearest it that the trivial and pair rules
/// prove safe in its window, with the reason in words, or `None`.
pub fn window_hint(
    view: &ViewCells<'_>,
    row: usize,
    col: usize,
) -> Result<Option<(u32, u32, String)>, String> {
    let window = Window::around(view.params, row, col);
    let mut solver = window.solver(view)?;
    solver.deduce().map_err(|e| e.to_string())?;
    let certain = solver.into_certain();
    let best = certain
        .safe()
        .map(|(wr, wc)| (wr + window.r0, wc + window.c0))
        .filter(|&(sr, sc)| (view.cell)(sr, sc) == Cell::Hidden)
        .min_by_key(|&(sr, sc)| (sr.abs_diff(row).max(sc.abs_diff(col)), sr, sc));
    Ok(best.map(|(sr, sc)| {
        let reason = certain.reason(sr - window.r0, sc - window.c0).map_or_else(
            || "proven safe".to_string(),
            |reason| shift_reason(reason, window.r0, window.c0).to_string(),
        );
        (sr as u32, sc as u32, reason)
    }))
}

/// The flags in the window around `(row, col)` that stand on cells the trivial and pair
/// rules prove safe, row by row. Like [`window_hint`], it reads only the view's cells, and a
/// flag is a hidden cell to the solver, so an answer is as sound on the whole board as a
/// hint; a wrong flag that only the truth could tell is never named.
pub fn window_wrong_flags(
    view: &ViewCells<'_>,
    row: usize,
    col: usize,
) -> Result<Vec<(u32, u32)>, String> {
    let window = Window::around(view.params, row, col);
    let mut solver = window.solver(view)?;
    solver.deduce().map_err(|e| e.to_string())?;
    let certain = solver.into_certain();
    Ok(certain
        .safe()
        .map(|(wr, wc)| (wr + window.r0, wc + window.c0))
        .filter(|&(r, c)| (view.cell)(r, c) == Cell::Flagged)
        .map(|(r, c)| (r as u32, c as u32))
        .collect())
}

/// The odds over the window around `(row, col)`: `(first row, first col, height, width,
/// cells)`, each cell `0..=200` the chance of a mine in half percents or 255 not hidden.
pub fn window_odds(
    view: &ViewCells<'_>,
    row: usize,
    col: usize,
) -> Result<(u32, u32, u16, u16, Vec<u8>), String> {
    let window = Window::around(view.params, row, col);
    // The window's mine count is only an estimate, and its numbers may need more mines (or
    // fewer) than it says: then the nearest count they allow is taken.
    let solution = match window.solver_with(view, None)?.solve_with(false) {
        Err(bitmines_solve::Error::MineCount { mines, min, max }) => window
            .solver_with(view, Some(mines.clamp(min, max)))?
            .solve_with(false),
        other => other,
    }
    .map_err(|e| e.to_string())?;
    let mut cells = Vec::with_capacity(window.height * window.width);
    for wr in 0..window.height {
        for wc in 0..window.width {
            let hidden = matches!(
                (view.cell)(wr + window.r0, wc + window.c0),
                Cell::Hidden | Cell::Flagged
            );
            let p = solution.probabilities.mine(wr, wc).ok().filter(|_| hidden);
            cells.push(p.map_or(255, |p| (p.clamp(0.0, 1.0) * 200.0).round() as u8));
        }
    }
    Ok((
        window.r0 as u32,
        window.c0 as u32,
        window.height as u16,
        window.width as u16,
        cells,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_hint_finds_what_the_whole_board_proves() {
        let board: Board = "\
....
....
**..
....
"
        .parse()
        .unwrap();
        let mut game = Game::new(board);
        game.reveal(0, 0).unwrap();
        let params = RoomParams {
            rows: 4,
            cols: 4,
            mines: 2,
            mode: Mode::Coop,
            rule: MineRule::Classic,
            no_guess: false,
            first: (0, 0),
        };
        let cell = |r: usize, c: usize| game.cell(r, c).unwrap();
        let view = ViewCells {
            params: &params,
            cell: &cell,
            revealed: game.revealed_count(),
            exploded: 0,
        };
        let found = window_hint(&view, 1, 1).unwrap();
        let (r, c, reason) = found.unwrap();
        assert_eq!((r, c), (3, 1), "{reason}");
        assert!(reason.contains("(2, 2)"), "{reason}");
    }

    #[test]
    fn odds_come_back_when_the_window_needs_more_mines_than_the_density_says() {
        // A 200x200 board whose mines all lie in a 12x12 block, opened beside the block:
        // the window's numbers need far more mines than the board's density gives it.
        let mut text = String::new();
        for r in 0..200 {
            for c in 0..200 {
                let mine = (60..72).contains(&r) && (60..72).contains(&c) && (r + c) % 3 != 0;
                text.push(if mine { '*' } else { '.' });
            }
            text.push('\n');
        }
        let board: Board = text.parse().unwrap();
        let mines = board.mine_count();
        let mut game = Game::new(board);
        game.reveal(0, 0).unwrap();
        let params = RoomParams {
            rows: 200,
            cols: 200,
            mines,
            mode: Mode::Coop,
            rule: MineRule::Classic,
            no_guess: false,
            first: (0, 0),
        };
        let cell = |r: usize, c: usize| game.cell(r, c).unwrap();
        let view = ViewCells {
            params: &params,
            cell: &cell,
            revealed: game.revealed_count(),
            exploded: 0,
        };
        let (r0, c0, h, w, cells) = window_odds(&view, 66, 66).unwrap();
        assert_eq!(cells.len(), usize::from(h) * usize::from(w));
        // Every hidden cell of the window has a chance, every open one none.
        for (i, &odds) in cells.iter().enumerate() {
            let (r, c) = (
                r0 as usize + i / usize::from(w),
                c0 as usize + i % usize::from(w),
            );
            let hidden = game.cell(r, c).unwrap() == Cell::Hidden;
            assert_eq!(odds <= 200, hidden, "({r}, {c}): {odds}");
        }
    }
}

#[cfg(test)]
mod turns {
    use super::*;
    use crate::protocol::{Action, ClientMsg, MineRule, Mode, ServerMsg};

    /// A co-op room with `conns` connections joined at `start`, and their queues, drained.
    fn crowded(conns: u64, start: Instant) -> (Room, Vec<mpsc::Receiver<Bytes>>) {
        let mut text = String::new();
        for r in 0..16 {
            for c in 0..16 {
                text.push(if r >= 12 && c >= 12 && (r + c) % 2 == 0 {
                    '*'
                } else {
                    '.'
                });
            }
            text.push('\n');
        }
        let board: Board = text.parse().expect("a board");
        let params = RoomParams {
            rows: 16,
            cols: 16,
            mines: board.mine_count(),
            mode: Mode::Coop,
            rule: MineRule::Endless,
            no_guess: false,
            first: (0, 0),
        };
        let metrics = Arc::new(Metrics::default());
        let mut room = Room::new(params, Arc::new(board), 256, metrics, start).expect("a room");
        let mut queues = Vec::new();
        for conn in 0..conns {
            let (tx, rx) = mpsc::channel(1 << 12);
            room.join(conn, None, false, Some(format!("p{conn}")), tx, start)
                .expect("joins");
            queues.push(rx);
        }
        room.release(start);
        for q in &mut queues {
            while q.try_recv().is_ok() {}
        }
        (room, queues)
    }

    /// Runs the room's timer a millisecond at a time from `from` for `ms` milliseconds; gives
    /// the players' lists each connection got, and the most sent in one round.
    fn run(
        room: &mut Room,
        queues: &mut [mpsc::Receiver<Bytes>],
        from: Instant,
        ms: u64,
    ) -> (Vec<usize>, usize) {
        let mut got = vec![0; queues.len()];
        let mut most = 0;
        for t in 1..=ms {
            let now = from + Duration::from_millis(t);
            room.tick(now);
            room.release(now);
            let mut round = 0;
            for (i, q) in queues.iter_mut().enumerate() {
                while let Ok(frame) = q.try_recv() {
                    if matches!(ServerMsg::decode(&frame), Ok(ServerMsg::Players(_))) {
                        got[i] += 1;
                        round += 1;
                    }
                }
            }
            most = most.max(round);
        }
        (got, most)
    }

    #[test]
    fn a_crowded_room_sends_the_players_list_in_turns() {
        let start = Instant::now();
        // 250 connections: three groups, a turn every 200 ms / 3.
        let (mut room, mut queues) = crowded(250, start);
        let (got, most) = run(&mut room, &mut queues, start, 1000);
        assert!(got.iter().all(|&n| n == 1), "each connection once: {got:?}");
        assert!(most <= 84, "a round sent {most} lists, more than a group");
        assert!(
            most >= 80,
            "a round sent {most} lists: the groups are uneven"
        );
        // Nothing changed since: no more lists.
        let later = start + Duration::from_millis(1000);
        let (got, _) = run(&mut room, &mut queues, later, 1000);
        assert!(got.iter().all(|&n| n == 0), "nothing new, yet {got:?}");
        // A move changes the scores: every connection hears of it once more, in turns,
        // within one period of the change.
        let moved = later + Duration::from_millis(1000);
        room.handle(
            7,
            ClientMsg::Move {
                seq: 1,
                action: Action::Flag,
                row: 15,
                col: 15,
            },
            moved,
            moved,
        );
        let (got, most) = run(&mut room, &mut queues, moved, 200);
        assert!(got.iter().all(|&n| n == 1), "each connection once: {got:?}");
        assert!(most <= 84, "a round sent {most} lists, more than a group");
    }

    #[test]
    fn a_small_room_sends_the_players_list_to_all_at_once() {
        let start = Instant::now();
        let (mut room, mut queues) = crowded(5, start);
        let (got, most) = run(&mut room, &mut queues, start, 1000);
        assert_eq!(got, vec![1; 5]);
        assert_eq!(most, 5);
    }
}
