//! Moves and the rules: a move is checked, applied to the mover's view, recorded, and
//! acknowledged once durable; a record (a join or a move) is applied the same way live and
//! in recovery; a game that ends sends its figures and, after a loss, the truth.

use std::collections::HashMap;
use std::time::Instant;

use bitmines_core::{Cell, Status};

use super::outbox::Pending;
use super::{ConnId, PlayerSlot, Refusal, Room, refuse, status_byte};
use crate::log::{Record, around_first, make_board};
use crate::protocol::{Action, ErrorCode, EventKind, Mode, NOBODY, Over, ServerMsg, cell};

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

impl Room {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn act(
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
        if let Some(why) = self.making_first_board() {
            return refuse(ErrorCode::Busy, why);
        }
        if let Some(why) = self.not_started(now) {
            return refuse(ErrorCode::NotStarted, why);
        }
        if action == Action::Reveal
            && self.first_reveal(player, row as usize, col as usize)
            && self.params.cells() > super::INLINE_BOARD_CELLS as u128
        {
            // The board is made around this cell off the worker; the move is made and
            // acknowledged when it is handed back (`Room::board_made`).
            self.ask_first_board(player, (row as usize, col as usize), conn, seq, received);
            return Ok(());
        }
        self.commit_move(player, conn, seq, action, (row, col), received, now)
    }

    /// Makes a checked move of `player`'s, records it and queues its acknowledgement.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn commit_move(
        &mut self,
        player: usize,
        conn: ConnId,
        seq: u32,
        action: Action,
        (row, col): (u32, u32),
        received: Instant,
        now: Instant,
    ) -> Result<(), Refusal> {
        // The move's play time: 0 for the room's first move, which starts the clock.
        let first = !self.clock.running();
        let at_ms = self.clock.at(now).max(self.clock.last_ms);
        let record = Record::Move {
            player: player as u32,
            action,
            row,
            col,
            at_ms,
        };
        let outcome = self
            .apply_move(player, action, row as usize, col as usize, at_ms, now)
            .map_err(|e| (ErrorCode::Storage, e))?;
        self.clock.set(at_ms, now);
        if first {
            // Every view's clock starts: everyone is told (once the move is durable, as
            // every frame is).
            self.send_clocks(None, now);
        }
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
                    Mode::Race => self.add_view(Some(index))?,
                };
                self.players
                    .push(PlayerSlot::new(*token, name.clone(), view));
                self.series.push(Default::default());
                self.players_dirty = true;
                Ok(())
            }
            Record::Move {
                player,
                action,
                row,
                col,
                at_ms,
            } => {
                if *player as usize >= self.players.len() {
                    return Err(format!("a move of player {player}, who never joined"));
                }
                // The clock goes on from the move's time (a version-1 record, which kept
                // none, leaves it where it was).
                let at_ms = (*at_ms).max(self.clock.last_ms);
                self.clock.set(at_ms, now);
                let (row, col) = (*row as usize, *col as usize);
                self.apply_move(*player as usize, *action, row, col, at_ms, now)
                    .map(|_| ())
            }
            &Record::NewGame { game, seed } => self.new_game(game, seed, now),
            &Record::Start { game } => {
                if game != self.game {
                    return Err(format!("a start of game {game} in game {}", self.game));
                }
                self.start_race(now);
                Ok(())
            }
        }
    }

    fn apply_move(
        &mut self,
        player: usize,
        action: Action,
        row: usize,
        col: usize,
        at_ms: u64,
        now: Instant,
    ) -> Result<Outcome, String> {
        if action == Action::Reveal && self.first_reveal(player, row, col) {
            // The room's first reveal of this game: the board it is played on is made
            // around it, the same live and replayed (the record is this move itself).
            let (around, seed) = around_first(&self.params, &self.board, (row, col));
            let board = make_board(&around, seed)?;
            self.set_first_board(std::sync::Arc::new(board))?;
        }
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
            self.end(view, player, at_ms, now);
        }
        Ok(outcome)
    }

    /// A view's game ended: its players get the figures and, after a loss, the truth of the
    /// chunks they watch; everyone gets the event.
    fn end(&mut self, view: usize, player: usize, at_ms: u64, now: Instant) {
        let slot = &mut self.views[view];
        slot.ended_ms = Some(at_ms);
        let status = slot.game.status();
        let elapsed = super::ms_u32(at_ms);
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
            self.count_win(player, at_ms);
        }
        // The view's clock stops for everyone watching it.
        self.send_clocks(Some(view), now);
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
}
