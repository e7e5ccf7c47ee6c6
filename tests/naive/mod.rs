//! A naive twin of the engine, written from the rules alone, used as a test oracle.
//!
//! The twin keeps two plain grids, one of mines and one of what the player sees, and opens
//! cells with a breadth-first flood fill over a `VecDeque`. Every neighbour is bounds-checked
//! by hand and every number is counted from the mine grid when it is needed. Nothing here is
//! shared with the engine's bit planes, sentinel border or word-parallel fill, so when the two
//! agree it is because both follow the rules, not because they share a mistake.
//!
//! The rules it implements:
//!
//! - `reveal` on a hidden cell: a mine explodes (opening nothing); a safe cell opens, and a
//!   safe cell with no neighbouring mine opens its whole 8-connected region of such cells
//!   plus their numbered border. Flags block both the reveal and the cascade, and the
//!   cascade follows the true mine counts, never the flags. A revealed, flagged or exploded
//!   cell is left alone.
//! - Under the classic rule an explosion loses the game. Under the endless rule the exploded
//!   mine stays shown and play goes on; it counts as a known mine for chords.
//! - `toggle_flag` flags a hidden cell or unflags a flagged one; a revealed or exploded cell
//!   is left alone.
//! - `chord` on a revealed safe cell with exactly as many known mines around it as its
//!   number (flagged neighbours, plus exploded ones under the endless rule) reveals every
//!   hidden, unflagged neighbour (a mine among them explodes); anything else is left alone.
//! - `reveal_all` reveals a set of cells one at a time in row-major order, stopping once the
//!   game is over, which is what the engine's batch reveal must match.
//! - The game is won once every safe cell is revealed, and a board with no safe cell is won
//!   from the start. After a win or a loss every mutating call fails with `GameOver`, and
//!   that check comes before the check for coordinates off the board.
//!
//! The module only uses `std` and the small value types of `bitmines_core`, so a bench can
//! include it with `#[path = "../tests/naive/mod.rs"] mod naive;`. A crate that does not use
//! every item puts `#[allow(dead_code)]` on that `mod` line.

use std::collections::VecDeque;

use bitmines_core::{Board, Cell, Error, Rule, Status};

/// What the player has done to one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum View {
    /// Neither revealed nor flagged.
    Hidden,
    /// Flagged by the player.
    Flagged,
    /// Revealed: an open safe cell, or, on a mine, a mine that exploded.
    Revealed,
}

/// Why a call on the twin was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NaiveError {
    /// The game has already been won or lost.
    GameOver(Status),
    /// The coordinates are not on the board.
    OffBoard {
        /// The row asked for.
        row: usize,
        /// The column asked for.
        col: usize,
        /// The board's row count.
        rows: usize,
        /// The board's column count.
        cols: usize,
    },
}

impl From<NaiveError> for Error {
    /// The engine's error with the same meaning, so results can be compared directly.
    fn from(error: NaiveError) -> Error {
        match error {
            NaiveError::GameOver(status) => Error::GameOver { status },
            NaiveError::OffBoard {
                row,
                col,
                rows,
                cols,
            } => Error::OffBoard {
                row,
                col,
                rows,
                cols,
            },
        }
    }
}

/// A Minesweeper game on two plain grids, the naive twin of `bitmines_core::Game`.
#[derive(Debug, Clone)]
pub(crate) struct NaiveGame {
    rows: usize,
    cols: usize,
    /// `mines[r][c]` is true when cell `(r, c)` holds a mine.
    mines: Vec<Vec<bool>>,
    /// `view[r][c]` is what the player has done to cell `(r, c)`.
    view: Vec<Vec<View>>,
    mine_count: usize,
    revealed: usize,
    flags: usize,
    status: Status,
    /// Whether an explosion ends the game (`Rule::Classic`) or not (`Rule::Endless`).
    endless: bool,
    /// The mines that exploded, in the order they did.
    explosions: Vec<(usize, usize)>,
    /// The flood fill's queue, kept between calls so large cascades do not reallocate.
    queue: VecDeque<(usize, usize)>,
}

impl NaiveGame {
    /// A game on a `rows x cols` board with mines at the listed cells.
    ///
    /// # Panics
    /// If the board has no cells, a mine is off the board, or a mine is listed twice. The
    /// twin is a test oracle, so bad input is a bug in the test.
    pub(crate) fn new(rows: usize, cols: usize, mines: &[(usize, usize)]) -> NaiveGame {
        assert!(rows > 0 && cols > 0, "a {rows}x{cols} board has no cells");
        let mut grid = vec![vec![false; cols]; rows];
        for &(r, c) in mines {
            assert!(r < rows && c < cols, "mine ({r}, {c}) is off the board");
            assert!(!grid[r][c], "mine ({r}, {c}) is listed twice");
            grid[r][c] = true;
        }
        NaiveGame::from_grid(grid)
    }

    /// A game on the same mines as an engine board, read cell by cell with `is_mine`.
    pub(crate) fn from_board(board: &Board) -> NaiveGame {
        let grid = (0..board.rows())
            .map(|r| {
                (0..board.cols())
                    .map(|c| board.is_mine(r, c).expect("the cell is on the board"))
                    .collect()
            })
            .collect();
        NaiveGame::from_grid(grid)
    }

    /// A game on a mine grid whose rows all have the same, non-zero length.
    fn from_grid(mines: Vec<Vec<bool>>) -> NaiveGame {
        let rows = mines.len();
        let cols = mines[0].len();
        let mine_count = mines.iter().flatten().filter(|&&m| m).count();
        let mut game = NaiveGame {
            rows,
            cols,
            view: vec![vec![View::Hidden; cols]; rows],
            mines,
            mine_count,
            revealed: 0,
            flags: 0,
            status: Status::Playing,
            endless: false,
            explosions: Vec::new(),
            queue: VecDeque::new(),
        };
        game.check_won();
        game
    }

    /// The same new game under `rule`.
    ///
    /// # Panics
    /// If a move has been made: the twin takes its rule before play starts.
    pub(crate) fn with_rule(mut self, rule: Rule) -> NaiveGame {
        assert!(
            self.revealed == 0 && self.flags == 0 && self.explosions.is_empty(),
            "the rule is chosen before the first move"
        );
        self.endless = match rule {
            Rule::Classic => false,
            Rule::Endless => true,
            other => panic!("the twin does not know the rule {other:?}"),
        };
        self
    }

    /// The rule the game is played under.
    pub(crate) fn rule(&self) -> Rule {
        if self.endless {
            Rule::Endless
        } else {
            Rule::Classic
        }
    }

    /// Rows of the board.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// Columns of the board.
    pub(crate) fn cols(&self) -> usize {
        self.cols
    }

    /// Mines on the board.
    pub(crate) fn mine_count(&self) -> usize {
        self.mine_count
    }

    /// Whether `(row, col)` holds a mine (panics off the board).
    pub(crate) fn is_mine(&self, row: usize, col: usize) -> bool {
        self.mines[row][col]
    }

    /// What the player has done to `(row, col)` (panics off the board).
    pub(crate) fn view(&self, row: usize, col: usize) -> View {
        self.view[row][col]
    }

    /// The game's status.
    pub(crate) fn status(&self) -> Status {
        self.status
    }

    /// Safe cells revealed so far.
    pub(crate) fn revealed_count(&self) -> usize {
        self.revealed
    }

    /// Cells flagged now.
    pub(crate) fn flag_count(&self) -> usize {
        self.flags
    }

    /// How many mines have exploded.
    pub(crate) fn exploded_count(&self) -> usize {
        self.explosions.len()
    }

    /// The mines that exploded, in the order they did.
    pub(crate) fn explosions(&self) -> &[(usize, usize)] {
        &self.explosions
    }

    /// Reveals `(row, col)` and returns how many safe cells opened and the status after.
    pub(crate) fn reveal(&mut self, row: usize, col: usize) -> Result<(usize, Status), NaiveError> {
        self.check_move(row, col)?;
        if self.view[row][col] != View::Hidden {
            return Ok((0, self.status));
        }
        if self.mines[row][col] {
            self.explode(row, col);
            return Ok((0, self.status));
        }
        let opened = self.open(row, col);
        self.check_won();
        Ok((opened, self.status))
    }

    /// Flags a hidden cell or unflags a flagged one; returns whether the cell is now flagged.
    pub(crate) fn toggle_flag(&mut self, row: usize, col: usize) -> Result<bool, NaiveError> {
        self.check_move(row, col)?;
        match self.view[row][col] {
            View::Hidden => {
                self.view[row][col] = View::Flagged;
                self.flags += 1;
                Ok(true)
            }
            View::Flagged => {
                self.view[row][col] = View::Hidden;
                self.flags -= 1;
                Ok(false)
            }
            View::Revealed => Ok(false),
        }
    }

    /// Reveals the cells of `cells` one at a time in row-major order, whatever order they are
    /// listed in, until the game is over; returns how many safe cells opened, how many mines
    /// exploded, and the status after. A finished game is refused; cells must be on the
    /// board (it panics otherwise, as the engine's plane cannot name such a cell).
    pub(crate) fn reveal_all(
        &mut self,
        cells: &[(usize, usize)],
    ) -> Result<(usize, usize, Status), NaiveError> {
        if self.status != Status::Playing {
            return Err(NaiveError::GameOver(self.status));
        }
        let mut cells = cells.to_vec();
        cells.sort_unstable();
        cells.dedup();
        let (mut opened, before) = (0, self.explosions.len());
        for (r, c) in cells {
            if self.status != Status::Playing {
                break;
            }
            opened += self.reveal(r, c).expect("the cell is on the board").0;
        }
        Ok((opened, self.explosions.len() - before, self.status))
    }

    /// Chords on `(row, col)` and returns how many safe cells opened and the status after.
    pub(crate) fn chord(&mut self, row: usize, col: usize) -> Result<(usize, Status), NaiveError> {
        self.check_move(row, col)?;
        // Only a revealed safe cell chords; an exploded mine is revealed but shows no number.
        if self.view[row][col] != View::Revealed || self.mines[row][col] {
            return Ok((0, self.status));
        }
        let neighbours: Vec<(usize, usize)> = self.neighbours(row, col).collect();
        let flagged = neighbours
            .iter()
            .filter(|&&(r, c)| self.view[r][c] == View::Flagged)
            .count();
        let exploded = neighbours
            .iter()
            .filter(|&&(r, c)| self.view[r][c] == View::Revealed && self.mines[r][c])
            .count();
        let known = if self.endless {
            flagged + exploded
        } else {
            flagged
        };
        if known != self.number(row, col) {
            return Ok((0, self.status));
        }
        let mut opened = 0;
        for (r, c) in neighbours {
            // An earlier neighbour's cascade may already have opened this one.
            if self.view[r][c] != View::Hidden {
                continue;
            }
            if self.mines[r][c] {
                self.explode(r, c);
            } else {
                opened += self.open(r, c);
            }
        }
        self.check_won();
        Ok((opened, self.status))
    }

    /// What the player sees at `(row, col)`, with the meanings of `bitmines_core::Cell`.
    ///
    /// # Panics
    /// If `(row, col)` is off the board.
    pub(crate) fn cell(&self, row: usize, col: usize) -> Cell {
        assert!(
            row < self.rows && col < self.cols,
            "cell ({row}, {col}) is off the board"
        );
        let lost = self.status == Status::Lost;
        let mine = self.mines[row][col];
        match self.view[row][col] {
            View::Revealed if mine => Cell::Exploded,
            View::Revealed => Cell::Open(self.number(row, col) as u8),
            View::Flagged if lost && !mine => Cell::WrongFlag,
            View::Flagged => Cell::Flagged,
            View::Hidden if lost && mine => Cell::Mine,
            View::Hidden => Cell::Hidden,
        }
    }

    /// How many of the neighbours of `(row, col)` hold a mine.
    pub(crate) fn number(&self, row: usize, col: usize) -> usize {
        self.neighbours(row, col)
            .filter(|&(r, c)| self.mines[r][c])
            .count()
    }

    /// The neighbours of `(row, col)` whose flag is wrong, in row order: hidden mines and
    /// flagged safe cells. Toggling each makes the flags around the cell exactly its mines,
    /// so a chord on it then opens without exploding.
    pub(crate) fn wrong_flags_around(&self, row: usize, col: usize) -> Vec<(usize, usize)> {
        self.neighbours(row, col)
            .filter(|&(r, c)| match self.view[r][c] {
                View::Hidden => self.mines[r][c],
                View::Flagged => !self.mines[r][c],
                View::Revealed => false,
            })
            .collect()
    }

    /// The cells of the mines that exploded, row by row, read from the grids.
    pub(crate) fn exploded(&self) -> Vec<(usize, usize)> {
        let mut cells = Vec::new();
        for r in 0..self.rows {
            for c in 0..self.cols {
                if self.mines[r][c] && self.view[r][c] == View::Revealed {
                    cells.push((r, c));
                }
            }
        }
        cells
    }

    /// The refusals every mutating call shares: a finished game first, then off-board cells.
    fn check_move(&self, row: usize, col: usize) -> Result<(), NaiveError> {
        if self.status != Status::Playing {
            return Err(NaiveError::GameOver(self.status));
        }
        if row >= self.rows || col >= self.cols {
            return Err(NaiveError::OffBoard {
                row,
                col,
                rows: self.rows,
                cols: self.cols,
            });
        }
        Ok(())
    }

    /// The up to eight cells around `(row, col)` that lie on the board.
    fn neighbours(&self, row: usize, col: usize) -> impl Iterator<Item = (usize, usize)> + use<> {
        let (rows, cols) = (self.rows, self.cols);
        const OFFSETS: [(isize, isize); 8] = [
            (-1, -1),
            (-1, 0),
            (-1, 1),
            (0, -1),
            (0, 1),
            (1, -1),
            (1, 0),
            (1, 1),
        ];
        OFFSETS.into_iter().filter_map(move |(dr, dc)| {
            let r = row.checked_add_signed(dr)?;
            let c = col.checked_add_signed(dc)?;
            (r < rows && c < cols).then_some((r, c))
        })
    }

    /// Opens the hidden safe cell `(row, col)` and, if it has no neighbouring mine, the
    /// cascade around it: a breadth-first fill in which every opened zero cell enqueues all
    /// its hidden (unrevealed, unflagged) neighbours. Returns how many cells opened.
    fn open(&mut self, row: usize, col: usize) -> usize {
        debug_assert!(!self.mines[row][col] && self.view[row][col] == View::Hidden);
        self.view[row][col] = View::Revealed;
        let mut opened = 1;
        self.queue.clear();
        if self.number(row, col) == 0 {
            self.queue.push_back((row, col));
        }
        while let Some((r, c)) = self.queue.pop_front() {
            for (nr, nc) in self.neighbours(r, c) {
                if self.view[nr][nc] != View::Hidden {
                    continue;
                }
                // A zero cell has no mine around it, so every neighbour it opens is safe.
                debug_assert!(!self.mines[nr][nc]);
                self.view[nr][nc] = View::Revealed;
                opened += 1;
                if self.number(nr, nc) == 0 {
                    self.queue.push_back((nr, nc));
                }
            }
        }
        self.revealed += opened;
        opened
    }

    /// Marks the mine at `(row, col)` as exploded, which loses a classic game.
    fn explode(&mut self, row: usize, col: usize) {
        self.view[row][col] = View::Revealed;
        self.explosions.push((row, col));
        if !self.endless {
            self.status = Status::Lost;
        }
    }

    /// Wins a game still in play once every safe cell is revealed.
    fn check_won(&mut self) {
        if self.status == Status::Playing
            && self.revealed == self.rows * self.cols - self.mine_count
        {
            self.status = Status::Won;
        }
    }
}
