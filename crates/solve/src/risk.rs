//! Long-term risk: the share of a cell's layouts in which it lies in a 50/50 that may form
//! around it, which [`Policy::Full`](crate::Policy::Full)'s look-ahead weighs.
//!
//! A pair of hidden cells along a row (or down a column) with one mine between them, or a
//! 2x2 block with two mines on a diagonal, whose outer neighbours are all mines, is a 50/50
//! no reveal can ever settle. A guess there must be taken some time, so a cell that lies in
//! such a pattern in many layouts is less risky, over the whole game, than its chance of
//! being a mine says; and revealing it now, if it is safe, breaks the pattern.
//!
//! [`fifty_fifty_influence`] is a cell's share of layouts in a
//! pair or 2x2 block that would be a 50/50 no reveal settles (its outer cells on the board all
//! mines, at most three of them not yet proven). `Shares` counts each pattern by one solve of
//! the position with the pattern's mines assumed and its safe cells supposed
//! (`Solver::suppose_safe`), relative to the position's own count, and remembers it for the
//! other candidates; cells touching no number are interchangeable in the layouts, so a pattern
//! made only of them is counted once per number of mines and safe cells it supposes. Checked
//! against a count over every listed layout.

use bitmines_core::{AsView, Position, View};

use crate::endgame::around;
use crate::frontier::FastMap;
use crate::{Certain, Error, Solution, Solver};

/// The most outer cells of a pattern not yet proven mines for it to count.
const MISSING: usize = 3;

/// The share of the view's layouts in which `(row, col)` lies in a 50/50 pattern no reveal
/// could settle: over the two pairs along its row that hold it, the larger share of
/// layouts with a mine on the pair's left cell, none on its right one, and a mine on every
/// cell around the pair on the board (at most three of them not yet proven mines, and no
/// revealed one); plus the same down its column; plus the largest such share over the four
/// 2x2 blocks that hold it (mines on one diagonal, none on the other, mines on the four
/// corners around the block). 0 for a revealed or proven cell; `None` when the exact tier
/// could not count the view's layouts (or a pattern's) within its budget.
///
/// [`Policy::Full`](crate::Policy::Full) multiplies a look-ahead candidate's score by
/// `1 + 0.9 * s / (1 - p)` for its share `s` (at most its chance `p` of being a mine, or of
/// being safe).
///
/// ```
/// use bitmines_core::Position;
/// // Nothing revealed on a 2x2 board with 2 mines: of its 6 layouts, 2 put a mine on
/// // (0, 0) and none on (0, 1) (the pair along row 0, with no cell around it on the
/// // board), 2 a mine on (0, 0) and none on (1, 0) (down column 0), and 1 the mines on the
/// // diagonal (0, 0), (1, 1) (the block).
/// let position: Position = "bitmines view 2x2 mines 2\n##\n##\n".parse()?;
/// let share = bitmines_solve::fifty_fifty_influence(&position, 0, 0)?.expect("counted");
/// assert!((share - 5.0 / 6.0).abs() < 1e-12);
///
/// // (0, 0) and (0, 2) hold one mine between them, which nothing can ever settle, but
/// // they are no pair: the revealed 1 between them breaks every pattern.
/// let position: Position = "bitmines view 1x3 mines 1\n#1#\n".parse()?;
/// assert_eq!(bitmines_solve::fifty_fifty_influence(&position, 0, 0)?, Some(0.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn fifty_fifty_influence(
    position: &(impl AsView + ?Sized),
    row: usize,
    col: usize,
) -> Result<Option<f64>, Error> {
    let view = position.view();
    view.geometry().bit(row, col)?;
    let solution = Solver::new(&view)?.solve_with(false)?;
    let base = Position::of(&view)?;
    match Shares::new(&view, &base, &solution)? {
        Some(mut shares) => shares.influence((row, col)),
        None => Ok(None),
    }
}

/// The shares of layouts of a view's 50/50 patterns, each counted once by a solve with the
/// pattern's cells supposed. Cells that touch no number are interchangeable in the
/// layouts, so a pattern of only such cells is counted once per number of mines and safe
/// cells it supposes.
pub(crate) struct Shares<'a> {
    view: &'a View<'a>,
    certain: &'a Certain,
    /// The view as a position, which each count solves with a pattern supposed.
    base: &'a Position,
    /// Natural log of the view's layouts.
    ln_layouts: f64,
    /// Mines not yet proven.
    left: usize,
    /// Shares by the pattern's supposed mines and safe cells, as cell indices row by row.
    counted: FastMap<(Vec<usize>, Vec<usize>), Option<f64>>,
    /// Shares of patterns off the frontier, by (mines, safe cells) supposed.
    off: FastMap<(usize, usize), Option<f64>>,
}

/// A cell as `(row, col)`, possibly off the board.
type At = (isize, isize);

impl<'a> Shares<'a> {
    /// The shares for `view` (`base` is the same as a position) with its `solution`; `None`
    /// when the solution's count is not exact.
    pub(crate) fn new(
        view: &'a View<'a>,
        base: &'a Position,
        solution: &'a Solution,
    ) -> Result<Option<Self>, Error> {
        let odds = &solution.probabilities;
        let Some(log10) = odds.log10_layouts().filter(|_| odds.exact()) else {
            return Ok(None);
        };
        let proven = solution.certain.mines().count();
        Ok(Some(Shares {
            view,
            certain: &solution.certain,
            base,
            ln_layouts: log10 * std::f64::consts::LN_10,
            left: view.mine_count().saturating_sub(proven),
            counted: FastMap::default(),
            off: FastMap::default(),
        }))
    }

    /// [`fifty_fifty_influence`] of `cell`.
    pub(crate) fn influence(&mut self, cell: (usize, usize)) -> Result<Option<f64>, Error> {
        if self.certain.verdict(cell.0, cell.1)?.is_some() {
            return Ok(Some(0.0));
        }
        let (r, c) = (cell.0 as isize, cell.1 as isize);
        let mut along: f64 = 0.0;
        for (ar, ac) in [(r, c), (r, c - 1)] {
            let outer = [
                (ar - 1, ac - 1),
                (ar, ac - 1),
                (ar + 1, ac - 1),
                (ar - 1, ac + 2),
                (ar, ac + 2),
                (ar + 1, ac + 2),
            ];
            let Some(share) = self.share(&[(ar, ac)], &[(ar, ac + 1)], &outer)? else {
                return Ok(None);
            };
            along = along.max(share);
        }
        let mut down: f64 = 0.0;
        for (ar, ac) in [(r, c), (r - 1, c)] {
            let outer = [
                (ar - 1, ac - 1),
                (ar - 1, ac),
                (ar - 1, ac + 1),
                (ar + 2, ac - 1),
                (ar + 2, ac),
                (ar + 2, ac + 1),
            ];
            let Some(share) = self.share(&[(ar, ac)], &[(ar + 1, ac)], &outer)? else {
                return Ok(None);
            };
            down = down.max(share);
        }
        let mut block: f64 = 0.0;
        for (ar, ac) in [(r, c), (r, c - 1), (r - 1, c), (r - 1, c - 1)] {
            let outer = [
                (ar - 1, ac - 1),
                (ar - 1, ac + 2),
                (ar + 2, ac - 1),
                (ar + 2, ac + 2),
            ];
            let mines = [(ar, ac), (ar + 1, ac + 1)];
            let Some(share) = self.share(&mines, &[(ar, ac + 1), (ar + 1, ac)], &outer)? else {
                return Ok(None);
            };
            block = block.max(share);
        }
        Ok(Some(along + down + block))
    }

    /// The cell at `at` if it is on the board.
    fn on(&self, (r, c): At) -> Option<(usize, usize)> {
        let (r, c) = (usize::try_from(r).ok()?, usize::try_from(c).ok()?);
        (r < self.view.rows() && c < self.view.cols()).then_some((r, c))
    }

    /// Whether `cell` is undecided and touches no revealed cell.
    fn off_frontier(&self, cell: (usize, usize)) -> Result<bool, Error> {
        if self.certain.verdict(cell.0, cell.1)?.is_some() {
            return Ok(false);
        }
        for (r, c) in around(self.view.rows(), self.view.cols(), cell.0, cell.1) {
            if self.view.is_revealed(r, c)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The share of layouts with a mine on each of `mines`, none on `safe`, and a mine on
    /// each of `outer` on the board; 0 when a cell of the pattern is off the board,
    /// revealed or a proven mine, an outer cell is revealed, or more than [`MISSING`]
    /// outer cells (or more than the mines left) would have to be supposed.
    fn share(&mut self, mines: &[At], safe: &[At], outer: &[At]) -> Result<Option<f64>, Error> {
        let mut supposed = Vec::with_capacity(mines.len() + outer.len());
        let mut kept = Vec::with_capacity(safe.len());
        for (&at, mine) in mines
            .iter()
            .map(|m| (m, true))
            .chain(safe.iter().map(|s| (s, false)))
        {
            let Some(cell) = self.on(at) else {
                return Ok(Some(0.0));
            };
            if self.view.is_revealed(cell.0, cell.1)?
                || self.certain.verdict(cell.0, cell.1)? == Some(true)
            {
                return Ok(Some(0.0));
            }
            if mine {
                supposed.push(cell);
            } else {
                kept.push(cell);
            }
        }
        let mut missing = 0;
        for &at in outer {
            let Some(cell) = self.on(at) else {
                continue;
            };
            if self.view.is_revealed(cell.0, cell.1)? {
                return Ok(Some(0.0));
            }
            if self.certain.verdict(cell.0, cell.1)? != Some(true) {
                missing += 1;
                supposed.push(cell);
            }
        }
        if missing > MISSING || missing + mines.len() > self.left {
            return Ok(Some(0.0));
        }
        let mut off = true;
        for &cell in supposed.iter().chain(&kept) {
            off &= self.off_frontier(cell)?;
        }
        if off {
            let key = (supposed.len(), kept.len());
            if let Some(&known) = self.off.get(&key) {
                return Ok(known);
            }
            let share = self.count(&supposed, &kept)?;
            self.off.insert(key, share);
            return Ok(share);
        }
        let cols = self.view.cols();
        let index = |cells: &[(usize, usize)]| {
            let mut at: Vec<usize> = cells.iter().map(|&(r, c)| r * cols + c).collect();
            at.sort_unstable();
            at
        };
        let key = (index(&supposed), index(&kept));
        if let Some(&known) = self.counted.get(&key) {
            return Ok(known);
        }
        let share = self.count(&supposed, &kept)?;
        self.counted.insert(key, share);
        Ok(share)
    }

    /// The share of layouts with mines on `mines` and none on `safe`, by one solve.
    fn count(
        &self,
        mines: &[(usize, usize)],
        safe: &[(usize, usize)],
    ) -> Result<Option<f64>, Error> {
        let mut solver = Solver::new(self.base)?;
        for &(r, c) in mines {
            if solver.assume_mine(r, c).is_err() {
                return Ok(Some(0.0)); // proven safe, so no layout holds it
            }
        }
        for &(r, c) in safe {
            if solver.suppose_safe(r, c).is_err() {
                return Ok(Some(0.0)); // proven a mine
            }
        }
        let solution = match solver.solve_with(false) {
            Ok(solution) => solution,
            Err(Error::Contradiction { .. } | Error::MineCount { .. }) => return Ok(Some(0.0)),
            Err(other) => return Err(other),
        };
        let odds = &solution.probabilities;
        Ok(odds
            .log10_layouts()
            .filter(|_| odds.exact())
            .map(|log10| (log10 * std::f64::consts::LN_10 - self.ln_layouts).exp()))
    }
}
