//! Shared test harness: one board played by the two engine fills and the naive twin at once.
//!
//! A [`Trio`] applies every move to `Game` with `Fill::Words`, `Game` with `Fill::Scalar` and
//! [`NaiveGame`], and checks after each move that the three agree on the move's result and on
//! everything a player can observe.

use std::sync::Arc;

use bitmines_core::{Board, Error, Fill, Game, Geometry, Reveal, Rule, Status};

use crate::naive::{NaiveGame, View};

#[path = "moves.rs"]
mod moves;
pub(crate) use moves::{Act, Outcome, play, play_naive};

/// [`play`], with the number of mines the call set off (the engine's `Reveal::exploded`; 0
/// for a flag).
pub(crate) fn play_counted(game: &mut Game, act: Act) -> Result<(Outcome, usize), Error> {
    let counted = |step: Reveal| (Outcome::Opened(step.opened, step.status), step.exploded);
    match act {
        Act::Reveal(r, c) => game.reveal(r, c).map(counted),
        Act::Chord(r, c) => game.chord(r, c).map(counted),
        Act::Flag(..) => play(game, act).map(|outcome| (outcome, 0)),
    }
}

/// [`play_naive`], with the number of mines the call set off, counted from the twin's own
/// list of explosions.
pub(crate) fn play_naive_counted(
    naive: &mut NaiveGame,
    act: Act,
) -> Result<(Outcome, usize), Error> {
    let before = naive.exploded_count();
    let outcome = play_naive(naive, act)?;
    Ok((outcome, naive.exploded_count() - before))
}

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
    /// Three fresh games on `board` under the classic rule, checked to agree before any move.
    pub(crate) fn new(board: Board) -> Trio {
        Trio::with_rule(board, Rule::Classic)
    }

    /// Three fresh games on `board` under `rule`, checked to agree before any move.
    pub(crate) fn with_rule(board: Board, rule: Rule) -> Trio {
        let board = Arc::new(board);
        let naive = NaiveGame::from_board(&board).with_rule(rule);
        let trio = Trio {
            words: Game::new(Arc::clone(&board)).with_rule(rule),
            scalar: Game::new(board).with_fill(Fill::Scalar).with_rule(rule),
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
        let words = play_counted(&mut self.words, act);
        let scalar = play_counted(&mut self.scalar, act);
        let naive = play_naive_counted(&mut self.naive, act);
        if words != naive || scalar != naive {
            return Err(format!(
                "{act:?} returned words {words:?}, scalar {scalar:?}, naive {naive:?} \
                 (outcome, mines set off)"
            ));
        }
        Ok(naive.map(|(outcome, _)| outcome))
    }

    /// Reveals `cells` at once with the engines' batch move (`Game::reveal_cells`) and one at
    /// a time in row-major order on the twin (`NaiveGame::reveal_all`), then checks that they
    /// agree on the result (cells opened, mines set off, status) and on the state it leaves.
    /// Every cell must be on the board.
    pub(crate) fn reveal_cells(
        &mut self,
        cells: &[(usize, usize)],
    ) -> Result<Result<(usize, usize, Status), Error>, String> {
        let geometry =
            Geometry::new(self.naive.rows(), self.naive.cols()).map_err(|e| e.to_string())?;
        let mut plane = vec![0u64; geometry.words()];
        for &(r, c) in cells {
            let bit = geometry.bit(r, c).map_err(|e| e.to_string())?;
            plane[bit / 64] |= 1 << (bit % 64);
        }
        let batch = |game: &mut Game| {
            game.reveal_cells(&plane)
                .map(|s| (s.opened, s.exploded, s.status))
        };
        let words = batch(&mut self.words);
        let scalar = batch(&mut self.scalar);
        let naive = self.naive.reveal_all(cells).map_err(Error::from);
        if words != naive || scalar != naive {
            return Err(format!(
                "reveal_cells({cells:?}) returned words {words:?}, scalar {scalar:?}, naive \
                 {naive:?} (opened, mines set off, status)\n{}",
                self.picture()
            ));
        }
        self.compare()
            .map_err(|e| format!("after reveal_cells({cells:?}): {e}\n{}", self.picture()))?;
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

    /// Checks that the three games agree on every observable: rule, status, counters, every
    /// cell, the exploded mines in the order they exploded, the row views, off-board `cell`
    /// errors and the engines' own invariants.
    pub(crate) fn compare(&self) -> Result<(), String> {
        let (rows, cols) = (self.naive.rows(), self.naive.cols());
        for (name, game) in [("words", &self.words), ("scalar", &self.scalar)] {
            game.validate()
                .map_err(|e| format!("{name} fails validate: {e}"))?;
            let got = (
                game.rule(),
                game.status(),
                game.revealed_count(),
                game.flag_count(),
                game.exploded_count(),
            );
            let want = (
                self.naive.rule(),
                self.naive.status(),
                self.naive.revealed_count(),
                self.naive.flag_count(),
                self.naive.exploded_count(),
            );
            if got != want {
                return Err(format!(
                    "{name} has (rule, status, revealed, flags, exploded) {got:?}, naive {want:?}"
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
            let exploded: Vec<_> = game.exploded().collect();
            if exploded != self.naive.explosions() {
                return Err(format!(
                    "{name} exploded {exploded:?}, naive {:?}",
                    self.naive.explosions()
                ));
            }
            let mut sorted = exploded;
            sorted.sort_unstable();
            if sorted != self.naive.exploded() {
                return Err(format!(
                    "naive explosions {:?} are not its exploded cells {:?}",
                    self.naive.explosions(),
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
