//! Shared test harness: one board played by the two engine fills and the naive twin at once.
//!
//! A [`Trio`] applies every move to `Game` with `Fill::Words`, `Game` with `Fill::Scalar` and
//! [`NaiveGame`], and checks after each move that the three agree on the move's result and on
//! everything a player can observe.

use std::sync::Arc;

use bitmines_core::{Board, Error, Fill, Game};

use crate::naive::{NaiveGame, View};

#[path = "moves.rs"]
mod moves;
pub(crate) use moves::{Act, Outcome, play, play_naive};

/// The same board played by three engines in lockstep.
#[derive(Debug)]
pub(crate) struct Trio {
    /// The engine with its default, word-parallel fill.
    pub(crate) words: Game,
    /// The engine with the scalar reference fill.
    pub(crate) scalar: Game,
    /// The naive twin written from the rules.
    pub(crate) naive: NaiveGame,
}

impl Trio {
    /// Three fresh games on `board`, checked to agree before any move.
    pub(crate) fn new(board: Board) -> Trio {
        let board = Arc::new(board);
        let naive = NaiveGame::from_board(&board);
        let trio = Trio {
            words: Game::new(Arc::clone(&board)),
            scalar: Game::new(board).with_fill(Fill::Scalar),
            naive,
        };
        assert_eq!(trio.words.fill(), Fill::Words, "the default fill");
        assert_eq!(trio.scalar.fill(), Fill::Scalar);
        trio.check_numbers().unwrap_or_else(|e| panic!("{e}"));
        trio.compare().unwrap_or_else(|e| panic!("{e}"));
        trio
    }

    /// Applies `act` to all three games and checks that they agree on its result and on the
    /// state it leaves. Returns the agreed result, or a description of the disagreement.
    pub(crate) fn apply(&mut self, act: Act) -> Result<Result<Outcome, Error>, String> {
        let result = self
            .step(act)
            .map_err(|e| format!("{e}\n{}", self.picture()))?;
        self.compare()
            .map_err(|e| format!("after {act:?}: {e}\n{}", self.picture()))?;
        Ok(result)
    }

    /// Applies `act` to all three games and checks only that they return the same result.
    fn step(&mut self, act: Act) -> Result<Result<Outcome, Error>, String> {
        let words = play(&mut self.words, act);
        let scalar = play(&mut self.scalar, act);
        let naive = play_naive(&mut self.naive, act);
        if words != naive || scalar != naive {
            return Err(format!(
                "{act:?} returned words {words:?}, scalar {scalar:?}, naive {naive:?}"
            ));
        }
        Ok(naive)
    }

    /// Applies every act in turn, checking that the engines agree on each act's result, and
    /// compares the whole state once at the end (cheaper than [`Trio::apply`] for long setups).
    pub(crate) fn apply_all(&mut self, acts: &[Act]) -> Result<(), String> {
        for &act in acts {
            // Only agreement matters here; the agreed outcome itself may be an error.
            let _agreed = self.step(act)?;
        }
        self.compare()
            .map_err(|e| format!("after {} acts: {e}\n{}", acts.len(), self.picture()))
    }

    /// Checks that the three games agree on every observable: status, counters, every cell,
    /// the exploded mines, the row views, off-board `cell` errors and the engines' own
    /// invariants.
    pub(crate) fn compare(&self) -> Result<(), String> {
        let (rows, cols) = (self.naive.rows(), self.naive.cols());
        for (name, game) in [("words", &self.words), ("scalar", &self.scalar)] {
            game.validate()
                .map_err(|e| format!("{name} fails validate: {e}"))?;
            let got = (game.status(), game.revealed_count(), game.flag_count());
            let want = (
                self.naive.status(),
                self.naive.revealed_count(),
                self.naive.flag_count(),
            );
            if got != want {
                return Err(format!(
                    "{name} has (status, revealed, flags) {got:?}, naive {want:?}"
                ));
            }
            for r in 0..rows {
                let revealed_row = game.revealed_row(r).map_err(|e| e.to_string())?;
                let flagged_row = game.flagged_row(r).map_err(|e| e.to_string())?;
                if revealed_row.len() != cols || flagged_row.len() != cols {
                    return Err(format!("{name} row {r} views are not {cols} bits long"));
                }
                for c in 0..cols {
                    let got = game.cell(r, c).map_err(|e| e.to_string())?;
                    let want = self.naive.cell(r, c);
                    if got != want {
                        return Err(format!("{name} cell ({r}, {c}) is {got:?}, naive {want:?}"));
                    }
                    let view = self.naive.view(r, c);
                    let revealed_safe = view == View::Revealed && !self.naive.is_mine(r, c);
                    if revealed_row[c] != revealed_safe || flagged_row[c] != (view == View::Flagged)
                    {
                        return Err(format!("{name} row views disagree at ({r}, {c})"));
                    }
                }
            }
            let mut exploded: Vec<_> = game.exploded().collect();
            exploded.sort_unstable();
            if exploded != self.naive.exploded() {
                return Err(format!(
                    "{name} exploded {exploded:?}, naive {:?}",
                    self.naive.exploded()
                ));
            }
            let off = Err(Error::OffBoard {
                row: rows,
                col: 0,
                rows,
                cols,
            });
            if game.cell(rows, 0) != off {
                return Err(format!("{name} cell({rows}, 0) is not OffBoard"));
            }
        }
        Ok(())
    }

    /// Checks the engine board's numbers and zero cells against counts from the naive grid.
    pub(crate) fn check_numbers(&self) -> Result<(), String> {
        let board = self.words.board().ok_or("the game has no board")?;
        for r in 0..self.naive.rows() {
            for c in 0..self.naive.cols() {
                let want = self.naive.number(r, c);
                let got = board.number(r, c).map_err(|e| e.to_string())?;
                if usize::from(got) != want {
                    return Err(format!("board number ({r}, {c}) is {got}, naive {want}"));
                }
                let zero = !self.naive.is_mine(r, c) && want == 0;
                if board.is_zero(r, c) != Ok(zero) {
                    return Err(format!("board is_zero ({r}, {c}) should be {zero}"));
                }
            }
        }
        Ok(())
    }

    /// The naive twin's view as text, for failure messages.
    pub(crate) fn picture(&self) -> String {
        let mut text = String::new();
        for r in 0..self.naive.rows() {
            for c in 0..self.naive.cols() {
                let mine = self.naive.is_mine(r, c);
                text.push(match (self.naive.view(r, c), mine) {
                    (View::Hidden, true) => 'm',
                    (View::Hidden, false) => '#',
                    (View::Flagged, _) => 'F',
                    (View::Revealed, true) => '*',
                    (View::Revealed, false) => {
                        char::from_digit(self.naive.number(r, c) as u32, 10).unwrap_or('?')
                    }
                });
            }
            text.push('\n');
        }
        text
    }
}
