//! The end of a game and the start of the next in the same room: a rematch.
//!
//! Any player (not a spectator) may ask for the next game once the room's game is over. In
//! co-op that is when the shared game is won or lost. In a race it is when every racer who
//! is online now has finished their game (won or lost), so a racer who left in the middle
//! of a game does not hold the room for ever, and nobody still playing is cut off. A second
//! rematch asked for at the same time finds the new game being played and is refused with
//! [`ErrorCode::NotOver`], like any rematch before the end.
//!
//! The new board is made from a new secret seed, with the room's parameters, and certified
//! again when the room is no-guess. A room of up to [`INLINE_BOARD_CELLS`] cells makes it
//! on its worker at once (milliseconds). A larger room's board would hold the worker, and
//! every other room on it, for up to a minute: the rematch waits ([`Room::board_wanted`])
//! while the server makes the board on a thread of its own, the room's connections are
//! sent progress frames meanwhile ([`Room::tell_progress`]), and the game starts when the
//! board is handed back ([`Room::board_made`]). The rematch is acknowledged only then, and
//! a second one asked for meanwhile is refused with [`ErrorCode::NotOver`].
//!
//! A rematch is the record [`Record::NewGame`], with the seed, in the room's log: it is
//! durable before anyone hears of it, and recovery replays it like any other record
//! (making the same board from the same seed), so a restart restores the newest game with
//! its moves. A rematch that was waiting for its board when the server stopped left no
//! record: the game is still over, and a player asks again.
//!
//! The game that ended is described by a [`FinishedGame`], plain data with no secret in it,
//! which the room keeps until [`Room::take_finished`] takes it: the archive of finished
//! games takes them there, after the round's records are durable.

use std::sync::Arc;
use std::time::Instant;

use bitmines_core::Status;
use bytes::Bytes;

use super::outbox::Pending;
use super::{Clock, ConnId, Refusal, Room, ms_u32, refuse};
use crate::log::{Record, SavedSeries, make_board};
use crate::params::RoomParams;
use crate::protocol::{ErrorCode, Mode, NO_TIME, SeriesEntry, ServerMsg};

/// The most cells of a room whose next board is made on the room's worker at the rematch;
/// a larger room's is made on a thread of its own (see [`Room::board_wanted`]).
pub const INLINE_BOARD_CELLS: usize = 1_000_000;

/// A board a large room waits for: the next game's at a rematch, or this game's around its
/// first click.
#[derive(Debug, Clone, Copy)]
pub(super) struct Asked {
    /// The game the board is for and the seed of its board.
    pub(super) game: u32,
    pub(super) seed: u64,
    /// For a first click: the player who made it and the cell, with the parameters its
    /// board is made with; `None` for a rematch.
    pub(super) first: Option<(usize, (usize, usize), RoomParams)>,
    /// Who asked: the connection, the request's seq and when it arrived.
    pub(super) conn: ConnId,
    pub(super) seq: u32,
    pub(super) received: Instant,
    /// Whether the board has been asked of the server ([`Room::board_wanted`]).
    pub(super) handed_out: bool,
}

/// A game of a room that ended, as the archive keeps it: nothing in it is secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishedGame {
    /// The game's number in its room: 1 for the first.
    pub game: u32,
    /// The room's parameters.
    pub params: RoomParams,
    /// The room's players when the game ended: `(player id, name)`.
    pub players: Vec<(u32, String)>,
    /// The play time the game started at, in milliseconds: the game's clock starts at its
    /// first move, so 0 for a game that was played, and `None` for one where nobody moved.
    pub started_ms: Option<u64>,
    /// The play time the game ended at: the latest end of its views, in milliseconds since
    /// its first move (counted only while the server ran).
    pub ended_ms: u64,
    /// The board's 3BV.
    pub bbbv: u32,
    /// Who won.
    pub result: GameResult,
}

/// How a finished game came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameResult {
    /// A co-op game: won or lost by the room together.
    Coop {
        /// Whether the room cleared the board.
        won: bool,
    },
    /// A race: every racer's own result, by player id.
    Race(Vec<RacerResult>),
}

/// One racer's result in a finished race.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RacerResult {
    /// The player's id.
    pub player: u32,
    /// Won, lost, or still playing (a racer who was offline when the rematch began).
    pub status: Status,
    /// The play time the racer's game ended at, if it ended.
    pub ended_ms: Option<u64>,
}

impl Room {
    /// The room's game: 1 for the first, one more at each rematch.
    pub fn game(&self) -> u32 {
        self.game
    }

    /// The games that ended at a rematch since the last call, oldest first. A room rebuilt
    /// by recovery holds those its replay went through again: the archive keys a game by
    /// its room and number, so taking one twice writes the same record twice.
    pub fn take_finished(&mut self) -> Vec<FinishedGame> {
        std::mem::take(&mut self.finished)
    }

    /// Why the room's game is not over, if it is not.
    fn not_over(&self) -> Option<String> {
        match self.params.mode {
            Mode::Coop => (self.views.first()?.game.status() == Status::Playing)
                .then(|| format!("game {} is still being played", self.game)),
            Mode::Race => {
                let playing: Vec<String> = self
                    .views
                    .iter()
                    .filter(|v| v.game.status() == Status::Playing)
                    .filter_map(|v| v.owner)
                    .filter(|&p| self.players[p].online > 0)
                    .map(|p| (p + 1).to_string())
                    .collect();
                (!playing.is_empty()).then(|| {
                    format!(
                        "game {} is not over: player {} still racing",
                        self.game,
                        playing.join(", ")
                    )
                })
            }
        }
    }

    /// A player asks for the next game.
    pub(super) fn rematch(
        &mut self,
        conn: ConnId,
        seq: u32,
        received: Instant,
        now: Instant,
    ) -> Result<(), Refusal> {
        self.player_of(conn)?;
        if let Some(why) = self.not_over() {
            return refuse(ErrorCode::NotOver, why);
        }
        if let Some(asked) = &self.asked {
            return refuse(
                ErrorCode::NotOver,
                format!("the board of game {} is being made", asked.game),
            );
        }
        let mut seed = [0u8; 8];
        getrandom::fill(&mut seed).map_err(|e| {
            (
                ErrorCode::Busy,
                format!("no random seed for a new board: {e}"),
            )
        })?;
        let (game, seed) = (self.game.saturating_add(1), u64::from_le_bytes(seed));
        if self.params.rows.saturating_mul(self.params.cols) > INLINE_BOARD_CELLS {
            self.asked = Some(Asked {
                game,
                seed,
                first: None,
                conn,
                seq,
                received,
                handed_out: false,
            });
            return Ok(());
        }
        let record = Record::NewGame { game, seed };
        self.apply_record(&record, now)
            .map_err(|e| (ErrorCode::Storage, e))?;
        self.records.push(record);
        let ack = ServerMsg::Ack {
            seq,
            opened: 0,
            exploded: 0,
            status: 0,
            flagged: false,
        };
        self.acks.push((conn, ack.encode(), received));
        Ok(())
    }

    /// The board a rematch waits for, once: the room's parameters, the new game's number and
    /// the seed to make its board from ([`crate::log::make_board`]), to be handed back to
    /// [`Room::board_made`]. `None` when no rematch waits, or its board was already asked
    /// for.
    pub fn board_wanted(&mut self) -> Option<(RoomParams, u32, u64)> {
        let asked = self.asked.as_mut().filter(|a| !a.handed_out)?;
        asked.handed_out = true;
        let params = asked.first.map_or(self.params, |(_, _, around)| around);
        Some((params, asked.game, asked.seed))
    }

    /// Tells every connection how much of the next game's board is made (`share` in
    /// ten-thousandths, as [`ServerMsg::Progress`] carries it).
    pub fn tell_progress(&mut self, share: u16) {
        if self.asked.is_some() {
            self.push_all(ServerMsg::Progress { share }.encode());
        }
    }

    /// The board of game `game`, made from the seed [`Room::board_wanted`] gave, or why it
    /// could not be made: the game starts on it (the record [`Record::NewGame`], so replay
    /// makes the same board from the same seed) and the rematch is acknowledged; or the
    /// rematch is refused with the reason, and the room's game stays over. True when the
    /// new game started. A board for a game no rematch waits for is dropped.
    pub fn board_made(
        &mut self,
        game: u32,
        made: Result<bitmines_core::Board, String>,
        now: Instant,
    ) -> bool {
        let Some(asked) = self.asked.filter(|a| a.game == game && a.handed_out) else {
            return false;
        };
        self.asked = None;
        if let Some((player, (row, col), _)) = asked.first {
            return self.first_board_made(player, (row, col), &asked, made, now);
        }
        let started = made.and_then(|board| self.start_game(game, Arc::new(board), now));
        match started {
            Ok(()) => {
                self.records.push(Record::NewGame {
                    game,
                    seed: asked.seed,
                });
                let ack = ServerMsg::Ack {
                    seq: asked.seq,
                    opened: 0,
                    exploded: 0,
                    status: 0,
                    flagged: false,
                };
                self.acks.push((asked.conn, ack.encode(), asked.received));
                true
            }
            Err(e) => {
                let why = format!("the board of game {game} could not be made: {e}");
                self.error(asked.conn, asked.seq, (ErrorCode::Storage, why));
                false
            }
        }
    }

    /// Starts game `game` on the board of `seed`, live or replayed: the game that ended is
    /// kept for [`Room::take_finished`], every view starts again with the first click made,
    /// scores go back to 0, the clock stops at 0, and every connection is sent the new game,
    /// the chunks it watches and its clock. The room is unchanged if the board cannot be
    /// made.
    pub(super) fn new_game(&mut self, game: u32, seed: u64, now: Instant) -> Result<(), String> {
        if Some(game) != self.game.checked_add(1) {
            return Err(format!(
                "a new game {game} where game {} comes next",
                u64::from(self.game) + 1
            ));
        }
        let board = make_board(&self.params, seed)?;
        self.start_game(game, Arc::new(board), now)
    }

    /// Starts game `game` on `board` (see [`Room::new_game`]); the room is unchanged if
    /// the board's views cannot be made.
    fn start_game(
        &mut self,
        game: u32,
        board: Arc<bitmines_core::Board>,
        now: Instant,
    ) -> Result<(), String> {
        let finished = self.finished_game();
        let owners: Vec<Option<usize>> = self.views.iter().map(|v| v.owner).collect();
        let old_board = std::mem::replace(&mut self.board, board);
        let old_views = std::mem::take(&mut self.views);
        for owner in owners {
            if let Err(e) = self.add_view(owner) {
                self.board = old_board;
                self.views = old_views;
                return Err(e);
            }
        }
        self.finished.push(finished);
        self.game = game;
        self.bbbv = None;
        self.stand_in = self.params.first.is_none();
        self.ready.clear();
        self.countdown_until = None;
        self.start_dirty = true;
        self.clock = Clock::default();
        self.won_race = false;
        self.dirty.clear();
        self.seeds.clear();
        for p in &mut self.players {
            p.opened = 0;
            p.mines_hit = 0;
            p.flags = 0;
        }
        self.players_dirty = true;
        self.push_all(ServerMsg::NewGame { game }.encode());
        let fresh: Vec<Pending> = self
            .conns
            .iter()
            .filter_map(|(&id, c)| Some((id, c.view?, &c.chunks)))
            .flat_map(|(id, view, chunks)| {
                chunks
                    .iter()
                    .map(move |&chunk| Pending::Snapshot(id, view, chunk))
            })
            .collect();
        self.pending.extend(fresh);
        self.send_clocks(None, now);
        if self.params.mode == Mode::Race {
            let series = self.series_frame();
            self.push_all(series);
        }
        Ok(())
    }

    /// The room's game as it stands, described for the archive.
    fn finished_game(&self) -> FinishedGame {
        let bbbv = self
            .bbbv
            .unwrap_or_else(|| bitmines_core::stats::bbbv(&self.board).map_or(0, |b| b as u32));
        let result = match self.params.mode {
            Mode::Coop => GameResult::Coop {
                won: self
                    .views
                    .first()
                    .is_some_and(|v| v.game.status() == Status::Won),
            },
            Mode::Race => GameResult::Race(
                self.views
                    .iter()
                    .filter_map(|v| {
                        Some(RacerResult {
                            player: v.owner? as u32 + 1,
                            status: v.game.status(),
                            ended_ms: v.ended_ms,
                        })
                    })
                    .collect(),
            ),
        };
        let ended_ms = self
            .views
            .iter()
            .filter_map(|v| v.ended_ms)
            .max()
            .unwrap_or(self.clock.last_ms);
        FinishedGame {
            game: self.game,
            params: self.params,
            players: self
                .players
                .iter()
                .enumerate()
                .map(|(i, p)| (i as u32 + 1, p.name.clone()))
                .collect(),
            started_ms: self.clock.running().then_some(0),
            ended_ms,
            bbbv,
            result,
        }
    }

    /// A racer won a game at `at_ms`: one more win in the series, and maybe a best time;
    /// everyone is sent the series.
    pub(super) fn count_win(&mut self, player: usize, at_ms: u64) {
        if let Some(score) = self.series.get_mut(player) {
            score.wins = score.wins.saturating_add(1);
            score.best_ms = Some(score.best_ms.map_or(at_ms, |best| best.min(at_ms)));
        }
        let series = self.series_frame();
        self.push_all(series);
    }

    /// The series scoreboard frame.
    pub(super) fn series_frame(&self) -> Bytes {
        let entries = self
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| SeriesEntry {
                player: i as u32 + 1,
                wins: s.wins,
                best_ms: s.best_ms.map_or(NO_TIME, ms_u32),
            })
            .collect();
        ServerMsg::Series(entries).encode()
    }

    /// Sets the game number and the series as a snapshot kept them (a snapshot from before
    /// rematches keeps neither: game 1, no wins).
    pub fn restore_series(&mut self, game: u32, series: Vec<SavedSeries>) -> Result<(), String> {
        if !series.is_empty() && series.len() != self.players.len() {
            return Err(format!(
                "the snapshot's series names {} players where the room has {}",
                series.len(),
                self.players.len()
            ));
        }
        self.game = game.max(1);
        self.series = series;
        self.series
            .resize(self.players.len(), SavedSeries::default());
        Ok(())
    }

    /// The series scoreboard: `(wins, best winning time in milliseconds)` by player index.
    pub fn series(&self) -> Vec<(u32, Option<u64>)> {
        self.series.iter().map(|s| (s.wins, s.best_ms)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Metrics;
    use crate::protocol::Action;

    fn room(mode: Mode, no_guess: bool) -> Room {
        super::super::testing::expert(mode, no_guess, false, 5)
    }

    fn join(room: &mut Room, player: u32) {
        let record = Record::Join {
            player,
            token: [player as u8 + 1; 16],
            name: format!("p{player}"),
        };
        room.apply_record(&record, Instant::now()).unwrap();
    }

    /// Plays view 0 with the solver's hints alone, from its first click: whether that wins
    /// it, as a certified no-guess board must.
    fn solver_wins(room: &mut Room) -> bool {
        let now = Instant::now();
        loop {
            match room.views[0].game.status() {
                Status::Won => return true,
                Status::Lost => return false,
                Status::Playing => {}
            }
            let Ok(Some(hint)) = bitmines_solve::hint(&room.views[0].game) else {
                return false;
            };
            let (row, col) = hint.cell();
            let record = Record::Move {
                player: 0,
                action: Action::Reveal,
                row: row as u32,
                col: col as u32,
                at_ms: 0,
            };
            room.apply_record(&record, now).unwrap();
        }
    }

    #[test]
    fn a_no_guess_rematch_board_is_certified_again() {
        let mut room = room(Mode::Coop, true);
        join(&mut room, 0);
        assert!(solver_wins(&mut room), "game 1 needs a guess");
        let first = Arc::clone(room.board());
        room.apply_record(&Record::NewGame { game: 2, seed: 77 }, Instant::now())
            .unwrap();
        assert_eq!(room.game(), 2);
        assert!(!Arc::ptr_eq(&first, room.board()));
        assert_eq!(room.views[0].game.status(), Status::Playing);
        assert!(solver_wins(&mut room), "game 2 needs a guess");
        let finished = room.take_finished();
        assert_eq!(finished.len(), 1);
        assert_eq!(finished[0].game, 1);
        assert_eq!(finished[0].result, GameResult::Coop { won: true });
        assert_eq!(finished[0].players, vec![(1, "p0".to_string())]);
    }

    #[test]
    fn a_snapshot_keeps_the_game_and_the_series_and_an_older_one_reads_as_game_1() {
        use crate::log::{RoomDir, read_snapshot};
        let data = std::env::temp_dir().join(format!("bitmines-series-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&data);
        let mut room = room(Mode::Race, false);
        join(&mut room, 0);
        join(&mut room, 1);
        let now = Instant::now();
        room.apply_record(&Record::NewGame { game: 2, seed: 9 }, now)
            .unwrap();
        room.count_win(1, 41_000);
        room.count_win(1, 37_500);
        let state = room.snapshot_state(3, None);
        assert_eq!(state.game, 2);
        let dir = RoomDir::new(&data, "series");
        std::fs::create_dir_all(dir.path()).unwrap();
        dir.write_snapshot(&state, None).unwrap();
        let path = dir.path().join(format!("snapshot-{:020}", 3));
        let params = *room.params();
        let read = read_snapshot(&path, &params).unwrap();
        assert_eq!(read.game, 2);
        let want = vec![
            SavedSeries::default(),
            SavedSeries {
                wins: 2,
                best_ms: Some(37_500),
            },
        ];
        assert_eq!(read.series, want);
        let mut back = Room::restore(
            params,
            read.board,
            read.games,
            (read.players, read.flag_owners),
            256,
            Arc::new(Metrics::default()),
            now,
        )
        .unwrap();
        back.restore_series(read.game, read.series).unwrap();
        assert_eq!(back.game(), 2);
        assert_eq!(back.series(), vec![(0, None), (2, Some(37_500))]);
        // The same snapshot as version 3 wrote it, with neither: game 1, no wins.
        let bytes = std::fs::read(&path).unwrap();
        let tail = 4 + 4 + 2 * (4 + 8);
        let mut old = bytes[..bytes.len() - 4 - tail].to_vec();
        old[..8].copy_from_slice(b"BMSNAP3\n");
        old.extend_from_slice(&crc32fast::hash(&old).to_le_bytes());
        std::fs::write(&path, &old).unwrap();
        let read = read_snapshot(&path, &params).unwrap();
        assert_eq!((read.game, read.series.len()), (1, 0));
        back.restore_series(read.game, read.series).unwrap();
        assert_eq!((back.game(), back.series()), (1, vec![(0, None); 2]));
        std::fs::remove_dir_all(&data).unwrap();
    }

    /// A room's phase follows its game: waiting until the first move, playing, over; and
    /// after a rematch, playing even before the new game's first move, since a waiting room
    /// is removed once empty and this one has players whose tokens must still rejoin.
    #[test]
    fn a_room_waits_for_its_first_move_and_never_again() {
        use crate::life::Phase;
        let mut room = room(Mode::Coop, true);
        join(&mut room, 0);
        assert_eq!(Phase::of(&room), Phase::Waiting);
        let flag = Record::Move {
            player: 0,
            action: Action::Flag,
            row: 0,
            col: 0,
            at_ms: 0,
        };
        room.apply_record(&flag, Instant::now()).unwrap();
        assert_eq!(Phase::of(&room), Phase::Playing);
        room.apply_record(&flag, Instant::now()).unwrap();
        assert!(solver_wins(&mut room), "a certified board");
        assert_eq!(Phase::of(&room), Phase::Over);
        room.apply_record(&Record::NewGame { game: 2, seed: 8 }, Instant::now())
            .unwrap();
        assert_eq!(Phase::of(&room), Phase::Playing);
        room.apply_record(&flag, Instant::now()).unwrap();
        assert_eq!(Phase::of(&room), Phase::Playing);
    }

    #[test]
    fn a_new_game_out_of_turn_is_refused_and_changes_nothing() {
        let mut room = room(Mode::Race, false);
        join(&mut room, 0);
        let board = Arc::clone(room.board());
        let err = room
            .apply_record(&Record::NewGame { game: 3, seed: 1 }, Instant::now())
            .unwrap_err();
        assert!(err.contains("new game 3 where game 2"), "{err}");
        assert_eq!(room.game(), 1);
        assert!(Arc::ptr_eq(&board, room.board()));
        assert!(room.take_finished().is_empty());
    }
}
