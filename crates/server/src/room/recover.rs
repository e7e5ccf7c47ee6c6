//! The room's restorable state, and recovery. A snapshot is written from a copy of the
//! state ([`Room::snapshot_state`]) and reads back (in [`crate::log`]) as the same plain
//! [`SnapshotState`], which [`Room::restore`] turns into a room. [`RoomDir::recover`]
//! drives a room's recovery from its folder: the newest snapshot that reads back, then
//! every record after it through [`Room::apply_record`], as a live room applies them.
//! Nothing is written to the folder until the room is whole, so a room that cannot be
//! restored is left as it was found, for the quarantine.

use std::sync::Arc;
use std::time::Instant;

use bitmines_core::{Board, Game, Status};

use super::{PlayerSlot, Room};
use crate::log::{Log, RoomDir, SavedClock, SavedPlayer, SnapshotState, Sync, make_board};
use crate::metrics::Metrics;
use crate::params::RoomParams;
use crate::protocol::Mode;

impl Room {
    /// A room made from saved views, as a snapshot restores it: `games[i]` becomes view `i`.
    pub fn restore(
        params: RoomParams,
        board: Arc<Board>,
        games: Vec<Game>,
        (players, flag_owners): (Vec<SavedPlayer>, Vec<(usize, usize, usize)>),
        max_chunks: usize,
        metrics: Arc<Metrics>,
        now: Instant,
    ) -> Result<Room, String> {
        let mut room = Room::new(params, board, max_chunks, metrics, now)?;
        room.views.clear();
        for game in games {
            let mut slot = room.view_slot(game, None);
            if slot.game.status() != Status::Playing {
                // Until the snapshot's clock is restored: a game over with no time kept.
                slot.ended_ms = Some(0);
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
        // The board is made around the first reveal, which opens a cell at once (live, the
        // board and the reveal are made in one step): a game with none has its stand-in.
        room.stand_in = params.first.is_none()
            && room
                .views
                .iter()
                .all(|v| v.game.revealed_count() == 0 && v.game.exploded_count() == 0);
        Ok(room)
    }

    /// Sets the game clock as a snapshot kept it: stopped before the room's first move, and
    /// otherwise running on from the last move's time from `now`; each ended view keeps the
    /// time it ended at (a snapshot from before the clock was kept gives an ended view the
    /// last move's time).
    pub fn restore_clock(&mut self, clock: &SavedClock, now: Instant) -> Result<(), String> {
        if !clock.ended_ms.is_empty() && clock.ended_ms.len() != self.views.len() {
            return Err(format!(
                "the snapshot's clock names {} views where the room has {}",
                clock.ended_ms.len(),
                self.views.len()
            ));
        }
        self.clock = super::Clock::default();
        if clock.started {
            self.clock.set(clock.last_ms, now);
        }
        for (v, slot) in self.views.iter_mut().enumerate() {
            slot.ended_ms = match clock.ended_ms.get(v) {
                Some(&ended) => ended,
                None => (slot.game.status() != Status::Playing).then_some(clock.last_ms),
            };
        }
        Ok(())
    }

    /// A copy of the room's state after its first `records` records, for a snapshot: made
    /// in the buffers of `reuse` (an earlier copy) where there is one, so that a large
    /// board's copy allocates nothing.
    pub fn snapshot_state(&self, records: u64, reuse: Option<SnapshotState>) -> SnapshotState {
        let mut state = reuse.unwrap_or_else(|| SnapshotState {
            records,
            board: Arc::clone(&self.board),
            games: Vec::new(),
            players: Vec::new(),
            flag_owners: Vec::new(),
            clock: SavedClock::default(),
            game: 1,
            series: Vec::new(),
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
            .extend(self.players.iter().map(|p| SavedPlayer {
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
        // The clock as the last of those records left it: what a replay of them would set.
        state.clock.started = self.clock.running();
        state.clock.last_ms = self.clock.last_ms;
        state.clock.ended_ms.clear();
        state
            .clock
            .ended_ms
            .extend(self.views.iter().map(|v| v.ended_ms));
        state.game = self.game;
        state.series.clone_from(&self.series);
        state
    }
}

/// A new room with no player yet.
pub fn fresh_room(
    params: &RoomParams,
    seed: u64,
    max_chunks: usize,
    metrics: Arc<Metrics>,
    now: Instant,
) -> Result<Room, String> {
    let board = make_board(params, seed)?;
    Room::new(*params, Arc::new(board), max_chunks, metrics, now)
}

impl RoomDir {
    /// Rebuilds the room: the newest good snapshot, then the log after it. Returns the room
    /// and the open log; each thing that was dropped is named in a log line.
    pub fn recover(
        &self,
        sync: Sync,
        max_chunks: usize,
        metrics: Arc<Metrics>,
    ) -> Result<(Room, Log), String> {
        let (params, seed) = self.meta()?;
        let now = Instant::now();
        // Nothing is written to the folder until the room is rebuilt: a room that cannot be
        // is left as it was found, for the quarantine.
        let read = self.read_log()?;
        let records = read.records();
        let snapshots = self.snapshots();
        let restore = |state: SnapshotState| {
            let mut room = Room::restore(
                params,
                state.board,
                state.games,
                (state.players, state.flag_owners),
                max_chunks,
                Arc::clone(&metrics),
                now,
            )?;
            room.restore_clock(&state.clock, now)?;
            room.restore_series(state.game, state.series)?;
            Ok::<Room, String>(room)
        };
        let mut chosen = None;
        let mut refused = Vec::new();
        for (n, path) in snapshots.iter().rev() {
            match crate::log::read_snapshot(path, &params).and_then(restore) {
                Ok(room) if *n <= records.len() as u64 => {
                    chosen = Some((room, *n));
                    break;
                }
                Ok(_) => {
                    let why = format!(
                        "{} covers {n} records but the log holds {}",
                        path.display(),
                        records.len()
                    );
                    eprintln!("bitmines serve: {why}; trying the one before");
                    refused.push(why);
                }
                Err(e) => {
                    eprintln!(
                        "bitmines serve: {}: {e}; trying the snapshot before it",
                        path.display()
                    );
                    refused.push(format!("{}: {e}", path.display()));
                }
            }
        }
        let (mut room, from) = match chosen {
            Some(found) => found,
            None if snapshots.is_empty() => (
                fresh_room(&params, seed, max_chunks, Arc::clone(&metrics), now)?,
                0,
            ),
            None => {
                return Err(format!(
                    "no snapshot of room {} reads back ({})",
                    self.path().display(),
                    refused.join("; ")
                ));
            }
        };
        for (i, record) in records.iter().enumerate().skip(from as usize) {
            room.apply_record(record, now)
                .map_err(|e| format!("{}: record {i}: {e}", self.path().join("log").display()))?;
        }
        let (log, _) = read.open(sync)?;
        // What recovery replayed was sent to nobody; start the outbox clean.
        room.take_records();
        room.release(now);
        Ok((room, log))
    }
}

#[cfg(test)]
mod snapshots {
    use std::fs;
    use std::time::Duration;

    use super::*;
    use crate::log::read_snapshot;
    use crate::protocol::MineRule;

    #[test]
    fn a_snapshot_written_in_paced_pieces_reads_back_as_the_room() {
        // A board whose snapshot spans a few pieces, written with a pause between them and
        // without: the same bytes either way, and they read back as the same room.
        let data = std::env::temp_dir().join(format!("bitmines-paced-{}", std::process::id()));
        let _ = fs::remove_dir_all(&data);
        let params = RoomParams {
            rows: 2500,
            cols: 2500,
            mines: 2500 * 2500 / 8,
            mode: Mode::Coop,
            rule: MineRule::Endless,
            no_guess: false,
            first: Some((1250, 1250)),
            countdown: false,
        };
        let metrics = Arc::new(Metrics::default());
        let now = Instant::now();
        let room = fresh_room(&params, 11, 256, Arc::clone(&metrics), now).unwrap();
        let state = room.snapshot_state(7, None);
        let mut files = Vec::new();
        for (name, pause) in [("paced", Some(Duration::from_millis(1))), ("at-once", None)] {
            let dir = RoomDir::new(&data, name);
            fs::create_dir_all(dir.path()).unwrap();
            dir.write_snapshot(&state, pause).unwrap();
            let path = dir.path().join(format!("snapshot-{:020}", 7));
            let bytes = fs::read(&path).unwrap();
            assert!(
                bytes.len() > 2 * crate::log::SNAPSHOT_PIECE,
                "{} bytes",
                bytes.len()
            );
            let read = read_snapshot(&path, &params).unwrap();
            let back = Room::restore(
                params,
                read.board,
                read.games,
                (read.players, read.flag_owners),
                256,
                Arc::clone(&metrics),
                now,
            )
            .unwrap();
            let again = back.snapshot_state(7, None);
            assert_eq!(again.games.len(), state.games.len());
            for (a, b) in again.games.iter().zip(&state.games) {
                assert_eq!(a.to_saved().unwrap(), b.to_saved().unwrap());
            }
            assert_eq!(again.players, state.players);
            assert_eq!(again.flag_owners, state.flag_owners);
            files.push(bytes);
        }
        assert!(files[0] == files[1], "paced and at-once bytes differ");
        fs::remove_dir_all(&data).unwrap();
    }
}

#[cfg(test)]
mod clock {
    use std::fs;

    use super::*;
    use crate::log::{Record, read_snapshot};
    use crate::protocol::{Action, MineRule};

    #[test]
    fn a_snapshot_keeps_the_clock_a_replay_would_set() {
        let data = std::env::temp_dir().join(format!("bitmines-clock-{}", std::process::id()));
        let _ = fs::remove_dir_all(&data);
        let params = RoomParams {
            rows: 9,
            cols: 9,
            mines: 10,
            mode: Mode::Race,
            rule: MineRule::Classic,
            no_guess: false,
            first: Some((4, 4)),
            countdown: false,
        };
        let metrics = Arc::new(Metrics::default());
        let now = Instant::now();
        let mut room = fresh_room(&params, 3, 256, Arc::clone(&metrics), now).unwrap();
        // Before any move: stopped at 0, and so in the snapshot.
        assert_eq!(room.view_clock(0, now), (0, false));
        assert_eq!(room.snapshot_state(0, None).clock, SavedClock::default());
        for player in 0..2 {
            let join = Record::Join {
                player,
                token: [player as u8 + 1; 16],
                name: format!("p{player}"),
            };
            room.apply_record(&join, now).unwrap();
        }
        assert_eq!(room.view_clock(1, now), (0, false));
        // Player 1 flags at 0, then hits a mine at 4,200 ms: their game ends there; player
        // 2's view runs on, from the same start.
        let board = Arc::clone(room.board());
        let mine = (0..81)
            .map(|k| (k / 9, k % 9))
            .find(|&(r, c)| board.is_mine(r, c).unwrap())
            .unwrap();
        let moves = [(Action::Flag, (0, 0), 0), (Action::Reveal, mine, 4_200)];
        for (action, (row, col), at_ms) in moves {
            let record = Record::Move {
                player: 0,
                action,
                row: row as u32,
                col: col as u32,
                at_ms,
            };
            room.apply_record(&record, now).unwrap();
        }
        assert_eq!(room.view_clock(0, now), (4_200, false));
        assert_eq!(room.view_clock(1, now), (4_200, true));
        assert_eq!(room.last_move_ms(), 4_200);
        let state = room.snapshot_state(4, None);
        let want = SavedClock {
            started: true,
            last_ms: 4_200,
            ended_ms: vec![Some(4_200), None],
        };
        assert_eq!(state.clock, want);
        // Written and read back, restored later: the same clock, running on from the last
        // move's time at the moment of the restore.
        let dir = RoomDir::new(&data, "clock");
        fs::create_dir_all(dir.path()).unwrap();
        dir.write_snapshot(&state, None).unwrap();
        let read = read_snapshot(&dir.path().join(format!("snapshot-{:020}", 4)), &params).unwrap();
        assert_eq!(read.clock, want);
        let later = now + std::time::Duration::from_secs(3600);
        let mut back = Room::restore(
            params,
            read.board,
            read.games,
            (read.players, read.flag_owners),
            256,
            metrics,
            later,
        )
        .unwrap();
        back.restore_clock(&read.clock, later).unwrap();
        assert_eq!(back.view_clock(0, later), (4_200, false));
        assert_eq!(back.view_clock(1, later), (4_200, true));
        let on = later + std::time::Duration::from_millis(800);
        assert_eq!(back.view_clock(1, on), (5_000, true));
        fs::remove_dir_all(&data).unwrap();
    }
}
