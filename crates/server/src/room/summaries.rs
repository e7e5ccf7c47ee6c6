//! Summaries of chunks: what a connection's view shows of each chunk of a rectangle, in
//! four bytes a chunk, for a picture of a board too large to draw cell by cell.
//!
//! A summary is counted a word at a time (a chunk row is one word): the revealed cells from
//! the view's shadow, the words of what was last sent, so a whole 10^8-cell board is about
//! 1.6 million popcounts of a plain array; the flags from the co-op list of who placed each
//! when it holds them all. It says only what the view
//! shows: its revealed cells, its flags, the mines it set off, and the chunks that hold a
//! co-op player's cursor as the cursors frames told them. A mine not set off is never
//! counted, not even after a loss.

use super::{ConnId, Refusal, Room, refuse};
use crate::protocol::{CHUNK, ChunkRect, ChunkSummary, ErrorCode, MAX_SUMMARY_CHUNKS, ServerMsg};

impl Room {
    /// Answers a summaries request: one summaries frame of the connection's view.
    pub(super) fn summaries(&mut self, conn: ConnId, rect: ChunkRect) -> Result<(), Refusal> {
        let c = self.conn(conn)?;
        let Some(view) = c.view else {
            return refuse(ErrorCode::NoSuchPlayer, "nobody plays in this race yet");
        };
        let count = usize::from(rect.rows) * usize::from(rect.cols);
        if count > MAX_SUMMARY_CHUNKS {
            return refuse(
                ErrorCode::TooManyChunks,
                format!(
                    "a summary of {}x{} chunks is {count} chunks, over the limit of \
                     {MAX_SUMMARY_CHUNKS}",
                    rect.rows, rect.cols
                ),
            );
        }
        self.check_rect(rect)?;
        let chunks = self.summarize(view, rect);
        self.reply(
            conn,
            ServerMsg::Summaries {
                view: view as u32,
                rect,
                chunks,
            },
        );
        Ok(())
    }

    /// The chunks of the shared view that hold a co-op player's cursor, as last sent, with
    /// the players there; none in a race, whose cursors nobody else sees.
    fn cursor_chunks(&self) -> Vec<u32> {
        if self.params.mode != crate::protocol::Mode::Coop {
            return Vec::new();
        }
        self.players
            .iter()
            .filter(|p| p.online > 0)
            .filter_map(|p| p.cursor_chunk)
            .collect()
    }

    /// The summaries of a rectangle of view `view`, which lies on the board's chunks.
    ///
    /// The revealed cells are the view's shadow (what its chunk frames and deltas have
    /// said, one word a row and chunk column): a popcount a word. The flags are the co-op
    /// list of who placed each, when it holds every flag of the view, else a popcount of
    /// the flagged words.
    pub(super) fn summarize(&self, view: usize, rect: ChunkRect) -> Vec<ChunkSummary> {
        let slot = &self.views[view];
        let game = &slot.game;
        let (row0, col0) = (rect.row as usize, rect.col as usize);
        let (rows, cols) = (usize::from(rect.rows), usize::from(rect.cols));
        let mut revealed = vec![0usize; rows * cols];
        let mut flags = vec![0usize; rows * cols];
        let listed = slot.flag_owner.len() == game.flag_count()
            && slot.flag_owner.keys().all(|&cell| {
                let (r, c) = (cell / self.params.cols, cell % self.params.cols);
                game.flagged_word(r, c).is_ok_and(|w| w & 1 == 1)
            });
        for i in 0..rows {
            let r0 = (row0 + i) * CHUNK;
            let r1 = (r0 + CHUNK).min(self.params.rows);
            for r in r0..r1 {
                let words = &slot.shadow[r * self.chunk_cols + col0..][..cols];
                let counts = &mut revealed[i * cols..][..cols];
                for (n, w) in counts.iter_mut().zip(words) {
                    *n += w.count_ones() as usize;
                }
                if listed || game.flag_count() == 0 {
                    continue;
                }
                for (j, n) in flags[i * cols..][..cols].iter_mut().enumerate() {
                    let col = (col0 + j) * CHUNK;
                    *n += game.flagged_word(r, col).map_or(0, u64::count_ones) as usize;
                }
            }
        }
        let index = |r: usize, c: usize| {
            let (i, j) = (
                (r / CHUNK).checked_sub(row0)?,
                (c / CHUNK).checked_sub(col0)?,
            );
            (i < rows && j < cols).then_some(i * cols + j)
        };
        if listed {
            for &cell in slot.flag_owner.keys() {
                if let Some(at) = index(cell / self.params.cols, cell % self.params.cols) {
                    flags[at] += 1;
                }
            }
        }
        let mut exploded = vec![0usize; rows * cols];
        for (r, c) in game.exploded() {
            if let Some(at) = index(r, c) {
                exploded[at] += 1;
            }
        }
        let mut players = vec![0usize; rows * cols];
        for chunk in self.cursor_chunks() {
            let (r, c) = (
                chunk as usize / self.chunk_cols * CHUNK,
                chunk as usize % self.chunk_cols * CHUNK,
            );
            if let Some(at) = index(r, c) {
                players[at] += 1;
            }
        }
        (0..rows * cols)
            .map(|at| {
                let (i, j) = (at / cols, at % cols);
                let cells = chunk_cells(&self.params, row0 + i, col0 + j);
                ChunkSummary::of(cells, revealed[at], exploded[at], flags[at], players[at])
            })
            .collect()
    }

    /// `OffBoard` unless the rectangle lies on the board's chunks.
    pub(super) fn check_rect(&self, rect: ChunkRect) -> Result<(), Refusal> {
        let (r1, c1) = (
            u64::from(rect.row) + u64::from(rect.rows),
            u64::from(rect.col) + u64::from(rect.cols),
        );
        if rect.rows == 0
            || rect.cols == 0
            || r1 > self.chunk_rows as u64
            || c1 > self.chunk_cols as u64
        {
            return refuse(
                ErrorCode::OffBoard,
                format!(
                    "chunks ({}, {}) to ({}, {}) are off a board of {}x{} chunks",
                    rect.row,
                    rect.col,
                    r1.saturating_sub(1),
                    c1.saturating_sub(1),
                    self.chunk_rows,
                    self.chunk_cols
                ),
            );
        }
        Ok(())
    }
}

/// The cells of chunk `(cr, cc)`, cut short by the board's edge.
fn chunk_cells(params: &crate::params::RoomParams, cr: usize, cc: usize) -> usize {
    let height = CHUNK.min(params.rows.saturating_sub(cr * CHUNK));
    let width = CHUNK.min(params.cols.saturating_sub(cc * CHUNK));
    height * width
}

/// The summary of one chunk counted cell by cell from what `game` shows: the naive twin of
/// [`Room::summarize`], for tests.
#[cfg(test)]
fn naive(game: &bitmines_core::Game, cr: usize, cc: usize, players: usize) -> ChunkSummary {
    use bitmines_core::Cell;
    let (mut cells, mut open, mut hit, mut flags) = (0, 0, 0, 0);
    for r in cr * CHUNK..((cr + 1) * CHUNK).min(game.rows()) {
        for c in cc * CHUNK..((cc + 1) * CHUNK).min(game.cols()) {
            cells += 1;
            match game.cell(r, c) {
                Ok(Cell::Open(_)) => open += 1,
                Ok(Cell::Flagged | Cell::WrongFlag) => flags += 1,
                Ok(Cell::Exploded) => hit += 1,
                _ => {}
            }
        }
    }
    ChunkSummary::of(cells, open, hit, flags, players)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use bytes::Bytes;
    use tokio::sync::mpsc;

    use super::*;
    use crate::metrics::Metrics;
    use crate::params::RoomParams;
    use crate::protocol::{Action, ClientMsg, MineRule, Mode};

    fn room(mode: Mode, rule: MineRule, rows: usize, cols: usize) -> Room {
        let params = RoomParams {
            rows,
            cols,
            mines: rows * cols * 15 / 100,
            mode,
            rule,
            no_guess: false,
            first: Some((rows / 2, cols / 2)),
            countdown: false,
        };
        let metrics = Arc::new(Metrics::default());
        super::super::fresh_room(&params, 11, 1 << 16, metrics, Instant::now()).unwrap()
    }

    fn connect(room: &mut Room, conn: ConnId, spectate: bool) -> mpsc::Receiver<Bytes> {
        let (tx, rx) = mpsc::channel(1 << 14);
        room.join(conn, None, spectate, None, tx, Instant::now())
            .unwrap();
        rx
    }

    /// Asks for the summaries of `rect` on `conn` and gives the answer, or the error's
    /// code and message.
    fn ask(
        room: &mut Room,
        rx: &mut mpsc::Receiver<Bytes>,
        conn: ConnId,
        rect: ChunkRect,
    ) -> Result<Vec<ChunkSummary>, (u16, String)> {
        let now = Instant::now();
        while rx.try_recv().is_ok() {}
        room.handle(conn, ClientMsg::Summaries(rect), now, now);
        room.release(now);
        while let Ok(frame) = rx.try_recv() {
            match ServerMsg::decode(&frame).unwrap() {
                ServerMsg::Summaries {
                    rect: got, chunks, ..
                } => {
                    assert_eq!(got, rect);
                    return Ok(chunks);
                }
                ServerMsg::Error { code, message, .. } => return Err((code, message)),
                _ => {}
            }
        }
        panic!("no answer to a summaries request");
    }

    /// The summaries of `rect` counted cell by cell from the game of view `view`, with the
    /// players' cursors the room last sent.
    fn naive_rect(room: &Room, view: usize, rect: ChunkRect) -> Vec<ChunkSummary> {
        let cursors = room.cursor_chunks();
        let mut out = Vec::new();
        for cr in rect.row as usize..rect.row as usize + usize::from(rect.rows) {
            for cc in rect.col as usize..rect.col as usize + usize::from(rect.cols) {
                let chunk = (cr * room.chunk_cols + cc) as u32;
                let players = cursors.iter().filter(|&&c| c == chunk).count();
                out.push(naive(&room.views[view].game, cr, cc, players));
            }
        }
        out
    }

    fn rect(row: u32, col: u32, rows: u16, cols: u16) -> ChunkRect {
        ChunkRect {
            row,
            col,
            rows,
            cols,
        }
    }

    fn whole(room: &Room) -> ChunkRect {
        rect(0, 0, room.chunk_rows as u16, room.chunk_cols as u16)
    }

    /// A small random number generator, so the moves are the same on every run.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn coop_summaries_match_the_cells_counted_one_by_one() {
        // 3x4 chunks, the last row and column of chunks cut short (200 = 3 x 64 + 8).
        let mut room = room(Mode::Coop, MineRule::Endless, 137, 200);
        let mut rxs: Vec<_> = (0..3).map(|c| connect(&mut room, c, false)).collect();
        let mut state = 0x9e37_79b9_7f4a_7c15;
        let mut start = Instant::now();
        for step in 0..300 {
            let conn = (step % 3) as ConnId;
            let (row, col) = (next(&mut state) % 137, next(&mut state) % 200);
            let action = match next(&mut state) % 4 {
                0 => Action::Flag,
                1 => Action::Chord,
                _ => Action::Reveal,
            };
            let now = Instant::now();
            let msg = ClientMsg::Move {
                seq: step,
                action,
                row: row as u32,
                col: col as u32,
            };
            room.handle(conn, msg, now, now);
            room.handle(
                conn,
                ClientMsg::Cursor {
                    row: row as u32,
                    col: col as u32,
                },
                now,
                now,
            );
            start += Duration::from_secs(1);
            room.tick(start);
            room.release(start);
            if step % 30 == 29 {
                let all = whole(&room);
                let rx = &mut rxs[conn as usize];
                assert_eq!(ask(&mut room, rx, conn, all), Ok(naive_rect(&room, 0, all)));
                let part = rect(1, 2, 2, 2);
                assert_eq!(
                    ask(&mut room, rx, conn, part),
                    Ok(naive_rect(&room, 0, part))
                );
            }
        }
        let rect = whole(&room);
        let summaries = ask(&mut room, &mut rxs[0], 0, rect).unwrap();
        let game = &room.views[0].game;
        assert!(
            game.exploded_count() > 0,
            "no mine was hit: the test proves less"
        );
        let sum =
            |f: fn(&ChunkSummary) -> u8| summaries.iter().map(|s| usize::from(f(s))).sum::<usize>();
        assert_eq!(sum(|s| s.exploded), game.exploded_count());
        assert_eq!(sum(|s| s.flags), game.flag_count());
        assert_eq!(
            sum(|s| s.players),
            3,
            "each player's cursor is in one chunk"
        );
        assert!(summaries.iter().any(|s| s.opened == 0), "{summaries:?}");
        assert!(summaries.iter().any(|s| s.opened > 0), "{summaries:?}");
        // Without the list of who placed each flag, the flags are counted from the plane.
        assert!(
            game.flag_count() > 0,
            "no flag stands: the test proves less"
        );
        room.views[0].flag_owner.clear();
        assert_eq!(
            ask(&mut room, &mut rxs[0], 0, rect),
            Ok(naive_rect(&room, 0, rect))
        );
    }

    #[test]
    fn a_racer_and_a_spectator_get_summaries_of_their_view_alone() {
        let mut room = room(Mode::Race, MineRule::Classic, 100, 130);
        let mut a = connect(&mut room, 0, false);
        let mut b = connect(&mut room, 1, false);
        let mut watcher = connect(&mut room, 2, true);
        let now = Instant::now();
        // Racer a plays until the game is lost; racer b does nothing.
        let mut state = 7;
        let (va, vb) = (room.players[0].view, room.players[1].view);
        let mut seq = 0;
        while room.views[va].game.status() == bitmines_core::Status::Playing {
            seq += 1;
            let (row, col) = (next(&mut state) % 100, next(&mut state) % 130);
            let action = if seq % 5 == 0 {
                Action::Flag
            } else {
                Action::Reveal
            };
            let msg = ClientMsg::Move {
                seq,
                action,
                row: row as u32,
                col: col as u32,
            };
            room.handle(0, msg, now, now);
            room.release(now);
        }
        let rect = whole(&room);
        let of_a = ask(&mut room, &mut a, 0, rect).unwrap();
        let of_b = ask(&mut room, &mut b, 1, rect).unwrap();
        assert_eq!(of_a, naive_rect(&room, va, rect));
        assert_eq!(of_b, naive_rect(&room, vb, rect));
        assert_ne!(of_a, of_b, "a's moves show in b's summaries");
        // The lost view shows one mine set off, and none of the mines its loss uncovered.
        assert_eq!(
            of_a.iter().map(|s| usize::from(s.exploded)).sum::<usize>(),
            1
        );
        assert!(
            of_a.iter().all(|s| s.players == 0),
            "a racer's cursor is its own"
        );
        // A spectator watches the first player's view until told otherwise.
        assert_eq!(ask(&mut room, &mut watcher, 2, rect), Ok(of_a.clone()));
        room.handle(2, ClientMsg::Watch { player: 2 }, now, now);
        room.release(now);
        assert_eq!(ask(&mut room, &mut watcher, 2, rect), Ok(of_b));
    }

    #[test]
    fn a_rectangle_off_the_board_or_past_the_limit_is_refused_by_name() {
        let mut room = room(Mode::Coop, MineRule::Classic, 100, 130);
        let mut rx = connect(&mut room, 0, false);
        let off = rect(1, 0, 1, 4);
        let (code, message) = ask(&mut room, &mut rx, 0, off).unwrap_err();
        assert_eq!(code, ErrorCode::OffBoard as u16);
        assert!(message.contains("(1, 0) to (1, 3)"), "{message}");
        let huge = rect(0, 0, 200, 200);
        let (code, message) = ask(&mut room, &mut rx, 0, huge).unwrap_err();
        assert_eq!(code, ErrorCode::TooManyChunks as u16);
        assert!(
            message.contains("40000") && message.contains("32768"),
            "{message}"
        );
    }
}
