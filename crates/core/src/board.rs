//! The truth: where the mines are, fixed once a board is built.
//!
//! A `Board` holds two planes: the mines and the zero cells. The zero plane is the complement
//! of the mines dilated by one cell, computed a word at a time when the board is built. A
//! cell's number is counted on demand (three three-bit windows, popcounted), since the
//! cascade never needs it: it walks the zero plane.
//!
//! `Board::from_mine_words_with` takes a mine plane built elsewhere (by `bitmines-gen`) and
//! hands the zero plane out as `ZeroJob`s over disjoint row ranges, which the caller may run
//! on any threads; core itself has no thread pool. Both are `#[doc(hidden)]`: public only
//! because `bitmines-gen` needs them, and free to change in any release.
//!
//! A board has no mutating method, and a game holds it behind an `Arc`, so the view never
//! changes the truth and many games share one board. Memory: the two planes, 0.25 bytes per
//! padded cell.

#![allow(
    clippy::indexing_slicing,
    reason = "word indices come from the board's Geometry; from_mine_words checks a given plane's length (PlaneSize) before indexing it"
)]

use bitvec::prelude::{BitSlice, Lsb0};

use crate::plane::Plane;
use crate::{Error, Geometry};

/// A board's mines and its zero cells, immutable once built.
///
/// A `Board` is the truth of a game and never changes; [`Game`](crate::Game) keeps the view.
/// It is `Send + Sync`, so one board behind an `Arc` can back many games at once.
///
/// Two padded planes are stored: the mines, and the *zero plane* of safe cells with no
/// neighbouring mine (the complement of the mines dilated by one cell), which is what the
/// cascade walks. The number on a cell is counted from the mine plane when asked for.
///
/// ```
/// use bitmines_core::Board;
///
/// let board = Board::from_mines(3, 3, [(0, 0)])?;
/// assert_eq!(board.number(1, 1)?, 1);
/// assert_eq!(board.number(2, 2)?, 0);
/// assert!(board.is_mine(0, 0)?);
/// # Ok::<(), bitmines_core::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    geometry: Geometry,
    mines: Plane,
    zero: Plane,
    mine_count: usize,
}

impl Board {
    /// A board with mines at the given cells. Listing a cell twice is `DuplicateMine`; a
    /// cell off the board is `OffBoard`.
    pub fn from_mines(
        rows: usize,
        cols: usize,
        mines: impl IntoIterator<Item = (usize, usize)>,
    ) -> Result<Board, Error> {
        let geometry = Geometry::new(rows, cols)?;
        let mut plane = Plane::zeroed(&geometry)?;
        let mut mine_count = 0;
        for (row, col) in mines {
            let bit = geometry.bit(row, col)?;
            if plane.get(bit) {
                return Err(Error::DuplicateMine { row, col });
            }
            plane.set(bit);
            mine_count += 1;
        }
        Board::from_plane(geometry, plane, mine_count)
    }

    /// A board from a mine plane laid out by `geometry` (see [`Geometry`]): one bit per padded
    /// cell, sentinel and padding bits clear. The zero plane is built here, one row range at a
    /// time.
    pub fn from_mine_words(geometry: Geometry, mines: Vec<u64>) -> Result<Board, Error> {
        Board::from_mine_words_with(geometry, mines, |jobs| {
            jobs.iter_mut().for_each(ZeroJob::run)
        })
    }

    /// [`Board::from_mine_words`], with the zero plane built by `run`, which receives the work
    /// as independent jobs over disjoint row ranges and may run them in any order, on any
    /// threads (for example with rayon's `par_iter_mut`). A job `run` leaves undone is run
    /// afterwards, so the board is the same whatever `run` does.
    ///
    /// Hidden from the documented API, with [`ZeroJob`]: it is the seam through which
    /// bitmines-gen builds the zero plane on rayon, and core stays free to change how the
    /// work is cut. Other users call [`Board::from_mine_words`].
    #[doc(hidden)]
    pub fn from_mine_words_with(
        geometry: Geometry,
        mines: Vec<u64>,
        run: impl FnOnce(&mut [ZeroJob<'_>]),
    ) -> Result<Board, Error> {
        let (rows, wpr) = (geometry.rows(), geometry.words_per_row());
        if mines.len() != geometry.words() {
            return Err(Error::PlaneSize {
                rows,
                cols: geometry.cols(),
                expected: geometry.words(),
                found: mines.len(),
            });
        }
        let sentinel_rows = mines[..wpr].iter().chain(&mines[(rows + 1) * wpr..]);
        if let Some(i) = sentinel_rows.clone().position(|&w| w != 0) {
            let word = if i < wpr {
                i
            } else {
                (rows + 1) * wpr + i - wpr
            };
            return Err(Error::StrayBits { word });
        }
        let mut zero = Plane::zeroed(&geometry)?;
        let rows_per_job = (ZeroJob::WORDS / wpr).max(1);
        let mut jobs: Vec<ZeroJob<'_>> = zero.words_mut()[wpr..(rows + 1) * wpr]
            .chunks_mut(rows_per_job * wpr)
            .enumerate()
            .map(|(i, out)| ZeroJob {
                geometry,
                mines: &mines,
                first_word: wpr + i * rows_per_job * wpr,
                zero: out,
                mine_count: 0,
                stray: None,
                done: false,
            })
            .collect();
        run(&mut jobs);
        let mut mine_count = 0;
        for job in &mut jobs {
            if !job.done {
                job.run();
            }
            if let Some(word) = job.stray {
                return Err(Error::StrayBits { word });
            }
            mine_count += job.mine_count;
        }
        drop(jobs);
        Ok(Board {
            geometry,
            mines: Plane::from_words(mines),
            zero,
            mine_count,
        })
    }

    /// A board with no mines at all.
    pub fn empty(rows: usize, cols: usize) -> Result<Board, Error> {
        Board::from_mines(rows, cols, [])
    }

    /// Builds the zero plane for a mine plane whose sentinel and padding bits are clear.
    pub(crate) fn from_plane(
        geometry: Geometry,
        mines: Plane,
        mine_count: usize,
    ) -> Result<Board, Error> {
        let mut zero = Plane::zeroed(&geometry)?;
        fill_zero_plane(&geometry, mines.words(), zero.words_mut());
        Ok(Board {
            geometry,
            mines,
            zero,
            mine_count,
        })
    }

    /// Rows of the board.
    pub fn rows(&self) -> usize {
        self.geometry.rows()
    }

    /// Columns of the board.
    pub fn cols(&self) -> usize {
        self.geometry.cols()
    }

    /// The board's shape and plane layout.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// How many mines the board holds.
    pub fn mine_count(&self) -> usize {
        self.mine_count
    }

    /// How many safe cells the board holds: the cells a game must reveal to be won.
    pub fn safe_count(&self) -> usize {
        self.geometry.cells() - self.mine_count
    }

    /// Whether cell `(row, col)` holds a mine.
    pub fn is_mine(&self, row: usize, col: usize) -> Result<bool, Error> {
        Ok(self.mines.get(self.geometry.bit(row, col)?))
    }

    /// How many of the (up to eight) neighbours of `(row, col)` hold a mine. A mine's own
    /// cell also has a number; games show it only for safe cells.
    pub fn number(&self, row: usize, col: usize) -> Result<u8, Error> {
        Ok(self.number_at(self.geometry.bit(row, col)?))
    }

    /// Whether `(row, col)` is a safe cell with no neighbouring mine, the cells a reveal
    /// cascades through.
    pub fn is_zero(&self, row: usize, col: usize) -> Result<bool, Error> {
        Ok(self.zero.get(self.geometry.bit(row, col)?))
    }

    /// Row `row` of the mine plane as bits, one per column.
    pub fn mine_row(&self, row: usize) -> Result<&BitSlice<u64, Lsb0>, Error> {
        row_view(&self.geometry, &self.mines, row)
    }

    /// The mine plane laid out by [`Board::geometry`]: one bit per padded cell, sentinel and
    /// padding bits clear, the form [`Board::from_mine_words`] takes. A copy of it, changed
    /// and given back to `from_mine_words`, is how a board is edited.
    ///
    /// ```
    /// use bitmines_core::Board;
    ///
    /// let board = Board::from_mines(2, 3, [(0, 1)])?;
    /// let mut words = board.mine_words().to_vec();
    /// let bit = board.geometry().bit(1, 2)?;
    /// words[bit / 64] |= 1 << (bit % 64);
    /// let edited = Board::from_mine_words(*board.geometry(), words)?;
    /// assert_eq!((edited.mine_count(), edited.is_mine(1, 2)?), (2, true));
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn mine_words(&self) -> &[u64] {
        self.mines.words()
    }

    /// Heap bytes held by the board's planes.
    pub fn heap_bytes(&self) -> usize {
        2 * self.geometry.plane_bytes()
    }

    /// The neighbour count of a cell given by its bit index: the 3x3 window, less the cell.
    pub(crate) fn number_at(&self, bit: usize) -> u8 {
        let stride = self.geometry.stride();
        let window = [bit - stride - 1, bit - 1, bit + stride - 1]
            .map(|start| self.mines.three(start).count_ones())
            .iter()
            .sum::<u32>();
        (window - u32::from(self.mines.get(bit))) as u8
    }

    pub(crate) fn mines(&self) -> &Plane {
        &self.mines
    }

    pub(crate) fn zero(&self) -> &Plane {
        &self.zero
    }
}

/// One independent piece of building a board's zero plane: a range of whole rows. See
/// [`Board::from_mine_words_with`]. Hidden from the documented API for the same reason.
#[doc(hidden)]
#[derive(Debug)]
pub struct ZeroJob<'a> {
    geometry: Geometry,
    mines: &'a [u64],
    /// The plane index of `zero[0]`.
    first_word: usize,
    zero: &'a mut [u64],
    mine_count: usize,
    stray: Option<usize>,
    done: bool,
}

impl ZeroJob<'_> {
    /// About how many words one job covers: whole rows adding up to some 2^12 words (a
    /// quarter million cells), so even a million-cell board gives every thread work.
    const WORDS: usize = 1 << 12;

    /// Builds this job's rows of the zero plane, counts their mines and checks their padding.
    pub fn run(&mut self) {
        let wpr = self.geometry.words_per_row();
        for (i, out) in self.zero.iter_mut().enumerate() {
            let w = self.first_word + i;
            let cells = self.geometry.cell_mask(w % wpr);
            let mines = self.mines[w];
            if mines & !cells != 0 && self.stray.is_none() {
                self.stray = Some(w);
            }
            self.mine_count += (mines & cells).count_ones() as usize;
            *out = !dilated_word(&self.geometry, self.mines, w) & cells;
        }
        self.done = true;
    }
}

/// Row `row` of a padded plane as one bit per column.
pub(crate) fn row_view<'a>(
    geometry: &Geometry,
    plane: &'a Plane,
    row: usize,
) -> Result<&'a BitSlice<u64, Lsb0>, Error> {
    if row >= geometry.rows() {
        return Err(Error::OffBoard {
            row,
            col: 0,
            rows: geometry.rows(),
            cols: geometry.cols(),
        });
    }
    let words = &plane.words()[geometry.row_words(row)];
    Ok(&BitSlice::from_slice(words)[1..=geometry.cols()])
}

/// 64 cells of row `row` of `plane` from column `col` (bit `i` is column `col + i`, columns
/// past the board read 0), or `OffBoard` if `(row, col)` is not a cell. Two word reads: the
/// naive twin is `row_view(..)[col..]` read a bit at a time.
pub(crate) fn word_at(
    geometry: &Geometry,
    plane: &Plane,
    row: usize,
    col: usize,
) -> Result<u64, Error> {
    let bit = geometry.bit(row, col)?;
    let words = plane.words();
    let (w, shift) = (bit / 64, bit % 64);
    let low = words.get(w).map_or(0, |&x| x >> shift);
    // A shift of 0 takes the whole word from the first read.
    let high = match shift {
        0 => 0,
        _ => words.get(w + 1).map_or(0, |&x| x << (64 - shift)),
    };
    let width = geometry.cols() - col;
    let mask = if width >= 64 { !0 } else { (1u64 << width) - 1 };
    Ok((low | high) & mask)
}

/// One word of a plane dilated by one cell left and right.
fn dilate_horizontally(plane: &[u64], w: usize) -> u64 {
    let m = plane[w];
    m | m << 1 | m >> 1 | plane[w - 1] >> 63 | plane[w + 1] << 63
}

/// Word `w` (in a board row) of `plane` dilated by one cell in every direction. The plane's
/// sentinel and padding bits must be clear; the sentinel rows are skipped, so no word off the
/// plane is ever read.
pub(crate) fn dilated_word(geometry: &Geometry, plane: &[u64], w: usize) -> u64 {
    let wpr = geometry.words_per_row();
    let row = w / wpr;
    let mut out = dilate_horizontally(plane, w);
    if row > 1 {
        out |= dilate_horizontally(plane, w - wpr);
    }
    if row < geometry.rows() {
        out |= dilate_horizontally(plane, w + wpr);
    }
    out
}

/// Calls `f(word index, cell mask)` for every word of every board row.
pub(crate) fn for_each_row_word(geometry: &Geometry, mut f: impl FnMut(usize, u64)) {
    let wpr = geometry.words_per_row();
    for r in 1..=geometry.rows() {
        for j in 0..wpr {
            f(r * wpr + j, geometry.cell_mask(j));
        }
    }
}

/// Writes the zero plane: cells that are on the board and outside the 3x3 dilation of the
/// mines.
pub(crate) fn fill_zero_plane(geometry: &Geometry, mines: &[u64], zero: &mut [u64]) {
    for_each_row_word(geometry, |w, cells| {
        zero[w] = !dilated_word(geometry, mines, w) & cells;
    });
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Board")
            .field("rows", &self.rows())
            .field("cols", &self.cols())
            .field("mines", &self.mine_count)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SeededPlacer;

    /// Counts neighbouring mines one cell at a time.
    fn naive_number(board: &Board, row: usize, col: usize) -> u8 {
        let mut n = 0;
        for r in row.saturating_sub(1)..=(row + 1).min(board.rows() - 1) {
            for c in col.saturating_sub(1)..=(col + 1).min(board.cols() - 1) {
                n += u8::from((r, c) != (row, col) && board.is_mine(r, c).unwrap());
            }
        }
        n
    }

    #[test]
    fn numbers_and_zero_plane_match_a_cell_by_cell_count() {
        for (rows, cols, mines) in [
            (16, 30, 99),
            (5, 62, 100),
            (3, 63, 60),
            (4, 130, 200),
            (1, 1, 1),
            (7, 1, 3),
        ] {
            for seed in 0..5 {
                let board = SeededPlacer::new(seed).board(rows, cols, mines).unwrap();
                for r in 0..rows {
                    for c in 0..cols {
                        let n = naive_number(&board, r, c);
                        assert_eq!(
                            board.number(r, c).unwrap(),
                            n,
                            "{rows}x{cols} seed {seed} ({r}, {c})"
                        );
                        let zero = !board.is_mine(r, c).unwrap() && n == 0;
                        assert_eq!(
                            board.is_zero(r, c).unwrap(),
                            zero,
                            "{rows}x{cols} seed {seed} ({r}, {c})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn boards_from_mine_words_match_boards_from_mine_lists() {
        for (rows, cols, mines) in [
            (16, 30, 99),
            (300, 130, 5000),
            (2, 62, 40),
            (1, 1, 0),
            (700, 3, 600),
        ] {
            let listed = SeededPlacer::new(3).board(rows, cols, mines).unwrap();
            let words = listed.mines().words().to_vec();
            let built = Board::from_mine_words(*listed.geometry(), words.clone()).unwrap();
            assert_eq!(built, listed, "{rows}x{cols}");
            // Jobs left undone by the runner are finished by the constructor.
            let lazy = Board::from_mine_words_with(*listed.geometry(), words, |jobs| {
                jobs.iter_mut().step_by(2).for_each(ZeroJob::run)
            });
            assert_eq!(lazy.unwrap(), listed, "{rows}x{cols}");
        }
    }

    #[test]
    fn mine_words_that_do_not_fit_are_errors() {
        let geometry = Geometry::new(3, 5).unwrap();
        let short = Board::from_mine_words(geometry, vec![0; 4]);
        assert_eq!(
            short,
            Err(Error::PlaneSize {
                rows: 3,
                cols: 5,
                expected: 5,
                found: 4
            })
        );
        for (word, bits) in [(0, 1), (1, 1), (1, 1 << 6), (2, 1 << 63), (4, 8)] {
            let mut words = vec![0; geometry.words()];
            words[word] = bits;
            assert_eq!(
                Board::from_mine_words(geometry, words),
                Err(Error::StrayBits { word }),
                "{word} {bits:b}"
            );
        }
    }

    #[test]
    fn board_and_game_fit_in_one_byte_per_cell() {
        // Five planes of (rows + 2) padded rows and a one-row span buffer: at least 4 rows and
        // 64 columns keep it under a byte; flatter or narrower boards pay for the sentinel
        // rows, the span buffer, and per row a padded word in each plane and a queue range.
        for (rows, cols, at_most) in [
            (1000, 1000, 1.0),
            (4, 1 << 18, 1.0),
            (1500, 700, 1.0),
            (1, 1 << 20, 2.01),
            (1 << 20, 1, 56.01),
        ] {
            let board = Board::empty(rows, cols).unwrap();
            let bytes = board.heap_bytes();
            let game = crate::Game::new(board);
            let per_cell = (bytes + game.heap_bytes()) as f64 / (rows * cols) as f64;
            assert!(
                per_cell <= at_most,
                "{rows}x{cols}: {per_cell} bytes per cell"
            );
            assert!(
                per_cell >= 5.0 / 8.0,
                "{rows}x{cols}: planes missing? {per_cell}"
            );
        }
    }
}
