//! Members: who is in the room and how they are known. A connection joins as a new player
//! (given a secret token, recorded in the log), as a player resumed by that token, or as a
//! spectator, and leaves; players move their cursors; the players' list and the cursors go
//! out on the room's timer, the list to a crowded room in turns.
//!
//! The players' list goes to every connection at most about 2,000 frames a second in all: a
//! crowded room sends it less often, and its connections take turns in groups of about 100
//! (by join order), so that it never comes as one burst that the moves behind it would wait
//! on.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::mpsc;

use super::outbox::Pending;
use super::{
    Conn, ConnId, MAX_COOP_PLAYERS, MAX_LISTED, MAX_RACE_PLAYERS, PlayerSlot, Refusal, Room,
    refuse, status_byte,
};
use crate::log::Record;
use crate::protocol::{
    ErrorCode, EventKind, Mode, NOBODY, PlayerInfo, ServerMsg, VERSION, Welcome,
};

/// How often the players' list and the cursors go out, at most.
const PLAYERS_EVERY: Duration = Duration::from_millis(200);
const CURSORS_EVERY: Duration = Duration::from_millis(100);

/// The most connections given the players' list at once: a crowded room's connections take
/// turns in groups of about this many, so the list goes out evenly over its period rather
/// than as one burst of a frame for everyone, which would hold up the moves behind it.
const PLAYERS_GROUP: usize = 100;

/// A new player's secret token, from the system's random source.
fn random_token() -> [u8; 16] {
    let mut token = [0; 16];
    // A machine whose random source fails cannot hand out secrets; the zero token is never
    // accepted for a resume (see `join`).
    if getrandom::fill(&mut token).is_err() {
        token = [0; 16];
    }
    token
}

impl PlayerSlot {
    pub(super) fn new(token: [u8; 16], name: String, view: usize) -> PlayerSlot {
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

impl Room {
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
        let (elapsed, running) = view.map_or((0, false), |v| self.view_clock(v, now));
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
            first: self.params.first.map(|(r, c)| (r as u32, c as u32)),
            max_chunks: self.max_chunks as u32,
            view: view.map_or(NOBODY, |v| v as u32),
            elapsed_ms: super::ms_u32(elapsed),
            clock_running: running,
            game: self.game,
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
        if let Some(team) = self.team_frame() {
            self.pending.push(Pending::Frame(conn, team));
        }
        if self.params.mode == Mode::Race {
            self.pending.push(Pending::Frame(conn, self.series_frame()));
        }
        if self.params.countdown {
            let start = self.start_frame(now).encode();
            self.pending.push(Pending::Frame(conn, start));
        }
        if let Some(p) = player {
            self.players[p].online += 1;
            self.players_dirty = true;
            self.start_dirty = true;
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
            self.start_dirty = true;
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

    pub(super) fn cursor(&mut self, conn: ConnId, row: u32, col: u32) -> Result<(), Refusal> {
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

    /// Queues the players' list and the cursors if they changed and their time has come.
    pub fn tick(&mut self, now: Instant) {
        self.tick_start(now);
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
            if let Some(team) = self.team_frame() {
                self.pending
                    .push(Pending::Group(team, self.joins, groups, turn));
            }
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

    /// A co-op room's team frame: the cells open in its one view.
    fn team_frame(&self) -> Option<Bytes> {
        let view = self
            .views
            .first()
            .filter(|_| self.params.mode == Mode::Coop)?;
        let opened = view.game.revealed_count() as u64;
        Some(ServerMsg::Team { opened }.encode())
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
                let (elapsed, _) = self.view_clock(p.view, now);
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
                    elapsed_ms: super::ms_u32(elapsed),
                }
            })
            .collect();
        ServerMsg::Players(players).encode()
    }
}

#[cfg(test)]
mod turns {
    use std::sync::Arc;

    use bitmines_core::Board;

    use super::*;
    use crate::metrics::Metrics;
    use crate::params::RoomParams;
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
            first: Some((0, 0)),
            countdown: false,
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
