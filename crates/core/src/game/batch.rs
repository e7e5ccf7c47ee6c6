//! Batch moves: reveal or flag a whole set of cells, given as a plane, a word at a time.
//!
//! Both moves do exactly what the single-cell moves would do cell by cell in increasing bit
//! order (row-major order of the board), and the tests in `tests/batch.rs` hold them to that.
//! What makes the reveal cheap is that the mines it reaches are known before any cell opens:
//! a cascade never opens a mine (no mine neighbours a zero cell) and a reveal never flags, so
//! the mines the cell-by-cell loop reaches are simply the bits of `cells & mines & !flagged`
//! that have not exploded yet, in increasing order, whatever the cascades between them do.
//! The safe cells between two of them open a word at a time; the loop stops at a mine under
//! the classic rule, or at the win, which is checked before each mine.
//!
//! Numbered cells are OR-ed in whole words, zero cells go through the fill, and the cells
//! between two mines of the set open together, each mine exploding in turn. `Game::reveal_words`
//! is the same reveal for a set given as `(word, cells)` pairs, whose work grows with the
//! pairs rather than with the board; the no-guess generator reveals a solver's proven cells
//! through it.

#![allow(
    clippy::indexing_slicing,
    reason = "every word index is below geometry.words(), the length of each of the game's and \
              the board's planes, and check_cells has just checked that `cells` has that length"
)]

use super::{Game, Reveal};
use crate::geometry::WORD_BITS;
use crate::view::prefetch;
use crate::{Error, Rule};

/// Words of a plane of cells checked together for emptiness by the batch moves.
const SKIP: usize = 16;

/// How many pairs ahead of the one it reveals a batch asks for the words it will read.
const REVEAL_AHEAD: usize = 8;

/// The fewest words of a plane for which a batch asks for words ahead (2^21 cells).
const AHEAD_WORDS: usize = 1 << 15;

impl Game {
    /// Reveals every cell of `cells`, a set of cells given as a plane in the board's padded
    /// layout ([`Geometry`](crate::Geometry): [`words`](crate::Geometry::words) words, cell
    /// `(row, col)` at bit [`bit(row, col)`](crate::Geometry::bit)).
    ///
    /// The result is exactly that of calling [`reveal`](Game::reveal) on each cell of the set
    /// in increasing bit order (row by row, left to right) until the game ends: revealed,
    /// flagged and exploded cells are left alone, safe cells open with their cascades, and
    /// every unflagged mine reached explodes. Under [`Rule::Classic`] the first one loses the
    /// game, so the cells after it stay as they were; under [`Rule::Endless`] each explodes
    /// and the batch goes on. If the cells before a mine already win the game, that mine and
    /// the cells after it are not reached. On a deferred game the first unflagged cell of the
    /// set is the first click and places the mines. The returned [`Reveal`] counts every safe
    /// cell opened, cascades included, and every mine set off.
    ///
    /// The work is done a word at a time: numbered cells of a word open together, and only
    /// zero cells run the cascade.
    ///
    /// # Errors
    /// - `GameOver` if the game has already ended;
    /// - `PlaneSize` if `cells` does not have `geometry.words()` words;
    /// - `StrayBits` naming the first word of `cells` with a bit outside the board (sentinel
    ///   column, padding, or the sentinel rows above and below);
    /// - on a deferred game, whatever placing the mines fails with, the game left as it was.
    ///
    /// ```
    /// use bitmines_core::{Board, Cell, Game, Geometry, Rule, Status};
    ///
    /// let board: Board = "..*\n...\n*..\n".parse()?;
    /// let geometry = Geometry::new(3, 3)?;
    /// let mut game = Game::new(board);
    /// let mut cells = vec![0u64; geometry.words()];
    /// for (row, col) in [(0, 1), (1, 1), (1, 2)] {
    ///     let bit = geometry.bit(row, col)?;
    ///     cells[bit / 64] |= 1 << (bit % 64);
    /// }
    /// let step = game.reveal_cells(&cells)?;
    /// assert_eq!(step.opened, 3);
    /// assert_eq!(step.status, Status::Playing);
    /// assert_eq!(game.cell(1, 1)?, Cell::Open(2));
    ///
    /// // A mine ends the batch: (0, 0) opens with its cascade, the mine at (0, 2) explodes,
    /// // and (2, 2), after it, is never reached.
    /// cells.fill(0);
    /// for (row, col) in [(0, 0), (0, 2), (2, 2)] {
    ///     let bit = geometry.bit(row, col)?;
    ///     cells[bit / 64] |= 1 << (bit % 64);
    /// }
    /// let step = game.reveal_cells(&cells)?;
    /// assert_eq!((step.opened, step.exploded, step.status), (2, 1, Status::Lost));
    /// assert_eq!(game.cell(0, 0)?, Cell::Open(0));
    /// assert_eq!(game.cell(0, 2)?, Cell::Exploded);
    /// assert_eq!(game.cell(2, 2)?, Cell::Hidden);
    ///
    /// // Under the endless rule the batch goes on past the mine: on a new game the same set
    /// // opens (0, 0) with its cascade, sets off (0, 2), and opens (2, 2) with its own, which
    /// // wins.
    /// let mut game = Game::new("..*\n...\n*..\n".parse::<Board>()?).with_rule(Rule::Endless);
    /// let step = game.reveal_cells(&cells)?;
    /// assert_eq!((step.opened, step.exploded, step.status), (7, 1, Status::Won));
    /// assert_eq!(game.cell(0, 2)?, Cell::Exploded);
    /// assert_eq!(game.cell(2, 2)?, Cell::Open(0));
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn reveal_cells(&mut self, cells: &[u64]) -> Result<Reveal, Error> {
        self.check_playing()?;
        self.check_cells(cells)?;
        // Most words of a set are empty: a run of them is skipped with one vector OR.
        let words = cells
            .chunks(SKIP)
            .enumerate()
            .filter(|(_, chunk)| chunk.iter().fold(0, |any, &set| any | set) != 0)
            .flat_map(|(c, chunk)| {
                chunk
                    .iter()
                    .enumerate()
                    .map(move |(i, &set)| (c * SKIP + i, set))
            });
        self.reveal_set(words)
    }

    /// Reveals every cell of `words`, a set of cells given as `(word, cells)` pairs: bits
    /// `cells` of word `word` of the board's padded layout, as in a plane for
    /// [`reveal_cells`](Game::reveal_cells). The pairs may come in any order, and a word
    /// may come twice; the result is exactly that of `reveal_cells` on the plane holding
    /// them all, but the work grows with the pairs given rather than with the board, so a
    /// player that proves a few cells at a time on a huge board reveals them cheaply.
    ///
    /// # Errors
    /// As for [`reveal_cells`](Game::reveal_cells), with `StrayBits` naming a word off the
    /// plane, or one whose cells lie outside the board.
    ///
    /// ```
    /// use bitmines_core::{Board, Cell, Game, Geometry};
    ///
    /// let board: Board = "..*\n...\n*..\n".parse()?;
    /// let geometry = Geometry::new(3, 3)?;
    /// let mut game = Game::new(board);
    /// let bit = geometry.bit(1, 1)?;
    /// let step = game.reveal_words(&[(bit / 64, 1 << (bit % 64))])?;
    /// assert_eq!(step.opened, 1);
    /// assert_eq!(game.cell(1, 1)?, Cell::Open(2));
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn reveal_words(&mut self, words: &[(usize, u64)]) -> Result<Reveal, Error> {
        self.check_playing()?;
        let geometry = *self.geometry();
        let wpr = geometry.words_per_row();
        // Pairs in increasing word order, each word once (as a solver hands them over), are
        // taken as they are; others are sorted first, each word's cells joined.
        let in_order = words.windows(2).all(|pair| pair[0].0 < pair[1].0);
        let sorted: std::borrow::Cow<'_, [(usize, u64)]> = if in_order {
            words.into()
        } else {
            let mut sorted = words.to_vec();
            sorted.sort_unstable_by_key(|&(w, _)| w);
            sorted.dedup_by(|next, kept| {
                let same = next.0 == kept.0;
                if same {
                    kept.1 |= next.1;
                }
                same
            });
            sorted.into()
        };
        for &(w, set) in sorted.iter() {
            let row = w / wpr;
            let board = if w >= geometry.words() || row == 0 || row > geometry.rows() {
                0
            } else {
                geometry.cell_mask(w % wpr)
            };
            if set & !board != 0 {
                return Err(Error::StrayBits { word: w });
            }
        }
        self.reveal_set(sorted.iter().copied())
    }

    /// Reveals the cells of `words`, `(word, cells)` pairs in increasing word order, each
    /// word once, every bit on the board (checked by the caller).
    fn reveal_set(
        &mut self,
        words: impl Iterator<Item = (usize, u64)> + Clone,
    ) -> Result<Reveal, Error> {
        if self.deferred.is_some() {
            // Nothing is revealed before the first click, so the first unflagged cell of the
            // set is the first one a reveal would not leave alone.
            let first = words.clone().find_map(|(w, set)| {
                let open = set & !self.flagged.words()[w];
                (open != 0).then(|| w * WORD_BITS + open.trailing_zeros() as usize)
            });
            let Some(first) = first else {
                return Ok(self.result(0, 0));
            };
            let (row, col) = self.geometry().cell_of(first);
            self.place_mines(row, col)?;
        }
        let (revealed_before, exploded_before) = (self.revealed_count, self.exploded.len());
        // The words of a later pair, asked for now: the pairs of a huge board's frontier lie
        // rows apart, so each word read is a cache miss unless it was asked for ahead. A
        // smaller board's planes stay in cache, and the hints would only cost instructions.
        let mut ahead =
            (self.geometry().words() >= AHEAD_WORDS).then(|| words.clone().skip(REVEAL_AHEAD));
        'words: for (w, set) in words {
            if let Some((a, _)) = ahead.as_mut().and_then(Iterator::next) {
                prefetch(self.flagged.words(), a);
                prefetch(self.revealed.words(), a);
                prefetch(self.board.mines().words(), a);
                prefetch(self.board.zero().words(), a);
            }
            if set == 0 {
                continue;
            }
            let mut todo = set & !self.flagged.words()[w];
            if todo & !self.revealed.words()[w] == 0 {
                continue;
            }
            let mut mines = todo & self.board.mines().words()[w];
            loop {
                // The safe cells before the next mine reached (all of them if none is).
                let before = match mines {
                    0 => !0,
                    _ => (1u64 << mines.trailing_zeros()) - 1,
                };
                self.open_in_word(w, todo & before);
                if mines == 0 {
                    break;
                }
                let at = mines.trailing_zeros();
                mines &= mines - 1;
                todo &= !before & !(1u64 << at);
                // Winning ends the loop: if the cells before this mine opened the last safe
                // cell, the mine is never reached.
                if self.revealed_count == self.safe_count() {
                    break 'words;
                }
                let bit = w * WORD_BITS + at as usize;
                if !self.is_exploded(bit) {
                    self.explode(bit);
                    if self.rule == Rule::Classic {
                        break 'words;
                    }
                }
            }
        }
        self.update_won();
        Ok(self.result(
            self.revealed_count - revealed_before,
            self.exploded.len() - exploded_before,
        ))
    }

    /// Opens the hidden cells of `todo` in word `w`, safe cells all: numbered cells never
    /// cascade, so they open together, and each zero cell still hidden seeds a cascade.
    fn open_in_word(&mut self, w: usize, todo: u64) {
        let zero = self.board.zero().words()[w];
        let numbered = todo & !zero & !self.revealed.words()[w];
        self.revealed.words_mut()[w] |= numbered;
        self.revealed_count += numbered.count_ones() as usize;
        // A cascade may open later cells of the set, in this word or beyond, so the revealed
        // word is read again every time.
        loop {
            let seeds = todo & zero & !self.revealed.words()[w];
            if seeds == 0 {
                break;
            }
            self.open(w * WORD_BITS + seeds.trailing_zeros() as usize);
        }
    }

    /// Flags every hidden, unflagged cell of `cells`; returns how many were newly flagged.
    ///
    /// `cells` is a set of cells given as a plane in the board's padded layout, as for
    /// [`reveal_cells`](Game::reveal_cells). The result is that of calling
    /// [`toggle_flag`](Game::toggle_flag) on each hidden, unflagged cell of the set:
    /// revealed, exploded and already flagged cells are left alone, so no flag is ever
    /// removed. Like `toggle_flag`, it may be used before the first click of a deferred game.
    ///
    /// # Errors
    /// `GameOver` if the game has already ended; `PlaneSize` and `StrayBits` as for
    /// [`reveal_cells`](Game::reveal_cells).
    ///
    /// ```
    /// use bitmines_core::{Board, Cell, Game, Geometry};
    ///
    /// let board: Board = "..*\n...\n*..\n".parse()?;
    /// let geometry = Geometry::new(3, 3)?;
    /// let mut game = Game::new(board);
    /// game.reveal(0, 0)?; // a zero cell: opens it and its neighbours, (1, 1) included
    /// let mut cells = vec![0u64; geometry.words()];
    /// for (row, col) in [(0, 2), (1, 1), (2, 0)] {
    ///     let bit = geometry.bit(row, col)?;
    ///     cells[bit / 64] |= 1 << (bit % 64);
    /// }
    /// assert_eq!(game.flag_cells(&cells)?, 2); // (1, 1) is revealed, so left alone
    /// assert_eq!(game.cell(2, 0)?, Cell::Flagged);
    /// assert_eq!(game.flag_count(), 2);
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn flag_cells(&mut self, cells: &[u64]) -> Result<usize, Error> {
        self.check_playing()?;
        self.check_cells(cells)?;
        let mut flagged = 0;
        let words = self
            .flagged
            .words_mut()
            .iter_mut()
            .zip(self.revealed.words());
        let mines = self.board.mines().words();
        let exploded = &self.exploded_set;
        for (w, ((f, &r), &set)) in words.zip(cells).enumerate() {
            let mut new = set & !r & !*f;
            // Exploded mines are closed like revealed cells; none exist under the classic rule
            // while the game is in play, and only mines can have exploded.
            if !exploded.is_empty() {
                let mut candidates = new & mines.get(w).copied().unwrap_or(0);
                while candidates != 0 {
                    let at = candidates.trailing_zeros();
                    candidates &= candidates - 1;
                    if exploded.contains(&(w * WORD_BITS + at as usize)) {
                        new &= !(1u64 << at);
                    }
                }
            }
            *f |= new;
            flagged += new.count_ones() as usize;
        }
        self.flag_count += flagged;
        Ok(flagged)
    }

    /// Checks that `cells` is a plane of this game's geometry with no bit outside the board.
    fn check_cells(&self, cells: &[u64]) -> Result<(), Error> {
        let geometry = self.geometry();
        if cells.len() != geometry.words() {
            return Err(Error::PlaneSize {
                rows: geometry.rows(),
                cols: geometry.cols(),
                expected: geometry.words(),
                found: cells.len(),
            });
        }
        let wpr = geometry.words_per_row();
        let (first, last) = (geometry.cell_mask(0), geometry.cell_mask(wpr - 1));
        // Row by row; most rows of a set are empty, and an OR over a row is a vector loop.
        for (row, words) in cells.chunks_exact(wpr).enumerate() {
            if words.iter().fold(0, |any, &set| any | set) == 0 {
                continue;
            }
            let sentinel = row == 0 || row > geometry.rows();
            let stray = words.iter().enumerate().position(|(j, &set)| {
                // Only a row's first and last words hold padding; the words between are
                // all board cells.
                let board = match j {
                    _ if sentinel => 0,
                    0 => first,
                    _ if j + 1 == wpr => last,
                    _ => !0,
                };
                set & !board != 0
            });
            if let Some(j) = stray {
                return Err(Error::StrayBits {
                    word: row * wpr + j,
                });
            }
        }
        Ok(())
    }
}
