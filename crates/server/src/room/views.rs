//! Views and what connections watch of them: the views' games (one a player in a race, one
//! shared in co-op), the chunks each connection watches of the view it looks at (the
//! subscriptions), a racer's watch of another player's view, and the cells that chunk
//! frames carry, masked to the view unless its player lost it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use bitmines_core::{Cell, Game, Rule, Status};
use bytes::Bytes;

use super::outbox::Pending;
use super::{Conn, ConnId, Refusal, Room, ViewSlot, refuse};
use crate::protocol::{CHUNK, ChunkRect, ErrorCode, MineRule, Mode, ServerMsg, cell};

impl Room {
    pub(super) fn view_slot(&self, game: Game, owner: Option<usize>) -> ViewSlot {
        let mut slot = ViewSlot {
            game,
            shadow: vec![0; self.params.rows * self.chunk_cols],
            owner,
            ended_ms: None,
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

    pub(super) fn add_view(&mut self, owner: Option<usize>) -> Result<usize, String> {
        let rule = match self.params.rule {
            MineRule::Classic => Rule::Classic,
            MineRule::Endless => Rule::Endless,
        };
        let mut game = Game::try_new(Arc::clone(&self.board))
            .map_err(|e| e.to_string())?
            .with_rule(rule);
        if let Some((r, c)) = self.params.first {
            game.reveal(r, c).map_err(|e| e.to_string())?;
        }
        let slot = self.view_slot(game, owner);
        self.views.push(slot);
        Ok(self.views.len() - 1)
    }

    /// The clock frame of view `view` at `now`.
    pub(super) fn clock_frame(&self, view: usize, now: Instant) -> Bytes {
        let (elapsed, running) = self.view_clock(view, now);
        ServerMsg::Clock {
            view: view as u32,
            elapsed_ms: super::ms_u32(elapsed),
            running,
        }
        .encode()
    }

    /// Queues each view's clock frame to the connections watching it (the views in
    /// `only`, or every view).
    pub(super) fn send_clocks(&mut self, only: Option<usize>, now: Instant) {
        let frames: Vec<Option<Bytes>> = (0..self.views.len())
            .map(|v| {
                only.is_none_or(|o| o == v)
                    .then(|| self.clock_frame(v, now))
            })
            .collect();
        for (&id, c) in &self.conns {
            if let Some(frame) = c.view.and_then(|v| frames.get(v)).and_then(Option::as_ref) {
                self.pending.push(Pending::Frame(id, frame.clone()));
            }
        }
    }

    pub(super) fn unsubscribe_one(&mut self, view: usize, chunk: u32, conn: ConnId) {
        if let Some(list) = self.subs.get_mut(&(view, chunk)) {
            list.retain(|&c| c != conn);
            if list.is_empty() {
                self.subs.remove(&(view, chunk));
            }
        }
    }

    fn chunks_of(&self, rect: ChunkRect) -> Result<Vec<u32>, Refusal> {
        self.check_rect(rect)?;
        let (r1, c1) = (
            rect.row as usize + usize::from(rect.rows),
            rect.col as usize + usize::from(rect.cols),
        );
        let mut out = Vec::new();
        for r in rect.row as usize..r1 {
            for c in rect.col as usize..c1 {
                out.push((r * self.chunk_cols + c) as u32);
            }
        }
        Ok(out)
    }

    pub(super) fn subscribe(&mut self, conn: ConnId, rect: ChunkRect) -> Result<(), Refusal> {
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

    pub(super) fn unsubscribe(&mut self, conn: ConnId, rect: ChunkRect) -> Result<(), Refusal> {
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

    pub(super) fn watch(&mut self, conn: ConnId, player: u32, now: Instant) -> Result<(), Refusal> {
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
        // The watcher's clock is now the watched view's.
        let clock = self.clock_frame(target_view, now);
        self.pending.push(Pending::Frame(conn, clock));
        Ok(())
    }

    /// Whether `conn` may see the truth of `view`: it plays on it and the game is lost.
    pub(super) fn sees_truth(&self, conn: &Conn, view: usize) -> bool {
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

    pub(super) fn snapshot_frame(&self, view: usize, chunk: u32, truth: bool) -> Bytes {
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
    pub(super) fn revealed_since(&mut self, view: usize, chunk: u32) -> (Vec<(u16, u8)>, Vec<u32>) {
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
