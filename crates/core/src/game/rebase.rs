//! Moving a game onto an edited copy of its board, keeping what was revealed.
//!
//! `Game::rebase` swaps in an edited copy of the board (same size and mine count, no mine
//! under a revealed cell) and opens, with their cascades, the hidden neighbours of revealed
//! cells that are zeros on it. An endless game keeps its exploded mines, so the edited board
//! must keep a mine under each. The no-guess generator's repair moves its game onto each
//! mended board this way. `tests/rebase.rs` checks it against a new game on the edited board
//! with every old revealed cell revealed again
//! (`rebase_matches_a_replay_on_the_edited_board`).

#![allow(
    clippy::indexing_slicing,
    reason = "every word index is below geometry.words(), the length of the game's and both \
              boards' planes, checked equal first"
)]

use std::sync::Arc;

use super::Game;
use crate::board::{dilated_word, for_each_row_word};
use crate::{Board, Error, Status};

impl Game {
    /// Moves the game onto `board`, an edited copy of its board (the same size and mine
    /// count) with no mine on any revealed cell and a mine on every exploded one (an endless
    /// game in play may have some): the revealed, flagged and exploded cells and the rule
    /// stay, and from now on the numbers are `board`'s. A revealed cell that is a zero on
    /// `board` opens its hidden neighbours with their cascades, as if it had just been
    /// revealed, so every revealed zero has every neighbour revealed (flagged neighbours stay
    /// flagged). Returns how many cells that opened. This is how a generator that moves mines
    /// under a game in progress (no-guess repair) goes on without replaying it.
    ///
    /// # Errors
    /// - `GameOver` if the game has ended;
    /// - `Deferred` if its mines are not placed yet;
    /// - `NotAnEdit` if `board` is another size or has another number of mines;
    /// - `Inconsistent` naming the first revealed cell that is a mine on `board`, or else the
    ///   first exploded mine that is not.
    ///
    /// The game is left as it was on every error.
    ///
    /// ```
    /// use bitmines_core::{Board, Cell, Game};
    ///
    /// let mut game = Game::new("*...\n....\n...*\n".parse::<Board>()?);
    /// game.reveal(0, 3)?; // the cascade stops at the 1s of (0, 1) and (1, 1)
    /// assert_eq!(game.cell(0, 0)?, Cell::Hidden);
    /// // The mine at (0, 0) moves to (2, 0): (0, 1) now shows 0, so its hidden neighbours
    /// // (0, 0) and (1, 0) open.
    /// assert_eq!(game.rebase("....\n....\n*..*\n".parse::<Board>()?)?, 2);
    /// assert_eq!(game.cell(0, 0)?, Cell::Open(0));
    /// assert_eq!(game.cell(1, 1)?, Cell::Open(1));
    ///
    /// // A board with a mine on a revealed cell is refused, and the game left as it was.
    /// assert!(game.rebase("*...\n....\n...*\n".parse::<Board>()?).is_err());
    /// assert_eq!(game.cell(0, 0)?, Cell::Open(0));
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn rebase(&mut self, board: impl Into<Arc<Board>>) -> Result<usize, Error> {
        self.check_playing()?;
        if self.deferred.is_some() {
            return Err(Error::Deferred);
        }
        let board = board.into();
        let geometry = *self.geometry();
        if *board.geometry() != geometry {
            return Err(Error::NotAnEdit {
                reason: format!(
                    "it is {}x{}, the game's is {}x{}",
                    board.rows(),
                    board.cols(),
                    geometry.rows(),
                    geometry.cols()
                ),
            });
        }
        if board.mine_count() != self.mine_count() {
            return Err(Error::NotAnEdit {
                reason: format!(
                    "it has {} mines, the game's has {}",
                    board.mine_count(),
                    self.mine_count()
                ),
            });
        }
        let revealed = self.revealed.words();
        let mines = board.mine_words();
        if let Some(w) = (0..revealed.len()).find(|&w| revealed[w] & mines[w] != 0) {
            let bit =
                w * crate::geometry::WORD_BITS + (revealed[w] & mines[w]).trailing_zeros() as usize;
            let (row, col) = geometry.cell_of(bit);
            return Err(Error::Inconsistent {
                row,
                col,
                reason: "the new board has a mine on this revealed cell".into(),
            });
        }
        if let Some(&bit) = self.exploded.iter().find(|&&bit| !board.mines().get(bit)) {
            let (row, col) = geometry.cell_of(bit);
            return Err(Error::Inconsistent {
                row,
                col,
                reason: "the new board has no mine under this exploded cell".into(),
            });
        }
        // Hidden neighbours of the revealed zeros: safe, since a zero has no mine around.
        let zero = board.zero().words();
        let mut seeds = vec![0u64; revealed.len()];
        for_each_row_word(&geometry, |w, cells| {
            seeds[w] = revealed[w] & zero[w] & cells
        });
        let mut open = vec![0u64; revealed.len()];
        for_each_row_word(&geometry, |w, cells| {
            open[w] = dilated_word(&geometry, &seeds, w) & !revealed[w] & cells;
        });
        self.board = board;
        if open.iter().all(|&w| w == 0) {
            return Ok(0);
        }
        let step = self.reveal_cells(&open)?;
        debug_assert_ne!(step.status, Status::Lost, "a zero's neighbour is a mine");
        debug_assert_eq!(step.exploded, 0, "a zero's neighbour is a mine");
        Ok(step.opened)
    }
}
