//! What a player sees, and nothing more: the revealed cells with their numbers, the flags,
//! the board's size and its mine count.
//!
//! A [`View`] is the one thing a solver is given. It borrows a game's revealed and flagged
//! planes and can give the number of any *revealed* cell, but it has no path to the mine
//! plane: every number it hands out is masked to revealed cells, so a hidden cell reads the
//! same whatever lies under it. A [`Position`] owns a view with no board behind it (a
//! position typed by hand or captured from another program); its text form is in
//! [`Position`]'s docs.
//!
//! ```
//! use bitmines_core::{Board, Game, Position};
//!
//! let mut game = Game::new("*...\n....\n....\n".parse::<Board>()?);
//! game.reveal(2, 3)?;
//! let view = game.view();
//! assert_eq!(view.number(1, 1)?, Some(1));
//! assert_eq!(view.number(0, 0)?, None); // hidden: no number, mine or not
//!
//! let typed: Position = "bitmines view 3x4 mines 1\n#100\n1100\n0000\n".parse()?;
//! assert_eq!(typed.view().number(0, 1)?, Some(1));
//! assert_eq!(Position::of(&game.view())?.to_string(), typed.to_string());
//! # Ok::<(), bitmines_core::Error>(())
//! ```
//!
//! A game's view counts numbers from the mine plane a word at a time (the private
//! `neighbour_count`, the bit-sliced adder of eight shifted words) and masks them to revealed
//! cells, so the mine plane never leaves it; a [`Position`] holds four bit-sliced number
//! planes instead, and its text form names a line and a column in every error. [`AsView`] is
//! what the solver takes. `View::number_words` (the bit-sliced numbers of one word, read by
//! the solver's planes) is `#[doc(hidden)]`: public only because `bitmines-solve` needs it.

#![allow(
    clippy::indexing_slicing,
    reason = "word indices are formed from the view's own Geometry, and planes have geometry.words() words"
)]

use std::fmt;
use std::str::FromStr;

use crate::game::sentinel_plane;
use crate::plane::Plane;
use crate::{Board, Error, Game, Geometry, Status};

/// A player's view of a board: revealed cells and their numbers, flags, size and mine count.
///
/// It is `Copy` and borrows its planes. No method reaches a hidden cell's content; see the
/// [module docs](self).
#[derive(Clone, Copy)]
pub struct View<'a> {
    geometry: Geometry,
    revealed: &'a [u64],
    flagged: &'a [u64],
    numbers: Numbers<'a>,
    mines: usize,
    status: Status,
}

/// Where a view's numbers come from. Either way they are read only at revealed cells.
#[derive(Clone, Copy)]
enum Numbers<'a> {
    /// Counted from the board's mines, one word at a time, then masked to revealed cells.
    Board(&'a Board),
    /// Four bit-sliced planes (bit `i` of a cell's number in plane `i`), zero off revealed cells.
    Planes(&'a [Plane; 4]),
}

/// Anything a player's view can be taken of: a [`Game`], a [`Position`], or a [`View`].
pub trait AsView {
    /// The view.
    fn view(&self) -> View<'_>;
}

impl AsView for Game {
    fn view(&self) -> View<'_> {
        Game::view(self)
    }
}

impl AsView for Position {
    fn view(&self) -> View<'_> {
        Position::view(self)
    }
}

impl AsView for View<'_> {
    fn view(&self) -> View<'_> {
        *self
    }
}

impl Game {
    /// What the player sees: revealed cells and their numbers, flags, size and mine count,
    /// with no access to the hidden cells' contents.
    pub fn view(&self) -> View<'_> {
        let (revealed, flagged) = self.view_words();
        View {
            geometry: *self.geometry(),
            revealed,
            flagged,
            numbers: Numbers::Board(self.board_for_view()),
            mines: self.mine_count(),
            status: self.status(),
        }
    }
}

impl<'a> View<'a> {
    /// The board's shape and plane layout.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// Rows of the board.
    pub fn rows(&self) -> usize {
        self.geometry.rows()
    }

    /// Columns of the board.
    pub fn cols(&self) -> usize {
        self.geometry.cols()
    }

    /// Mines on the board, hidden or not.
    pub fn mine_count(&self) -> usize {
        self.mines
    }

    /// The game's status (a [`Position`] is always `Playing`).
    pub fn status(&self) -> Status {
        self.status
    }

    /// Whether `(row, col)` is revealed.
    pub fn is_revealed(&self, row: usize, col: usize) -> Result<bool, Error> {
        let bit = self.geometry.bit(row, col)?;
        Ok(self.revealed[bit / 64] >> (bit % 64) & 1 != 0)
    }

    /// Whether `(row, col)` carries the player's flag (a note, which may be wrong).
    pub fn is_flagged(&self, row: usize, col: usize) -> Result<bool, Error> {
        let bit = self.geometry.bit(row, col)?;
        Ok(self.flagged[bit / 64] >> (bit % 64) & 1 != 0)
    }

    /// The number on `(row, col)` if it is revealed, `None` if it is hidden.
    pub fn number(&self, row: usize, col: usize) -> Result<Option<u8>, Error> {
        let bit = self.geometry.bit(row, col)?;
        if self.revealed[bit / 64] >> (bit % 64) & 1 == 0 {
            return Ok(None);
        }
        let slices = self.number_words(bit / 64);
        let n = (0..4)
            .map(|i| ((slices[i] >> (bit % 64) & 1) << i) as u8)
            .sum();
        Ok(Some(n))
    }

    /// The revealed plane: `geometry().words()` words in the padded layout, with the
    /// sentinel border and padding bits set (they read as revealed).
    pub fn revealed_words(&self) -> &'a [u64] {
        self.revealed
    }

    /// The flagged plane, in the same layout, with no bit outside the board.
    pub fn flagged_words(&self) -> &'a [u64] {
        self.flagged
    }

    /// Asks the processor to start bringing into its cache what [`View::number_words`] of
    /// word `w` reads, and the revealed word itself, so that a caller about to read many
    /// words far apart can ask for a later one while it works on the current one. A hint
    /// only: it reads nothing, changes nothing, and does nothing off the plane or on a
    /// processor without a prefetch instruction.
    #[inline]
    pub fn prefetch_number_words(&self, w: usize) {
        let wpr = self.geometry.words_per_row();
        prefetch(self.revealed, w);
        match self.numbers {
            Numbers::Board(board) => {
                let mines = board.mines().words();
                // The words of the rows above and below and of its own, each with the words
                // beside it: the two ends of each run cover the cache lines it spans.
                for centre in [w.wrapping_sub(wpr), w, w.wrapping_add(wpr)] {
                    prefetch(mines, centre.wrapping_sub(1));
                    prefetch(mines, centre.wrapping_add(1));
                }
            }
            Numbers::Planes(planes) => {
                for plane in planes {
                    prefetch(plane.words(), w);
                }
            }
        }
    }

    /// The numbers of the revealed board cells in word `w` of the padded layout, bit-sliced:
    /// bit `b` of element `i` is bit `i` of the number on the cell at bit `b`. Hidden cells,
    /// sentinels, padding and words off the plane read as zero.
    ///
    /// Hidden from the documented API: this is the word-at-a-time seam bitmines-solve's
    /// planes read numbers through, and its bit-sliced layout is free to change with the
    /// solver. Other users read numbers with [`View::number`].
    #[doc(hidden)]
    pub fn number_words(&self, w: usize) -> [u64; 4] {
        let wpr = self.geometry.words_per_row();
        let row = w / wpr;
        if row == 0 || row > self.geometry.rows() {
            return [0; 4];
        }
        let shown = self.revealed[w] & self.geometry.cell_mask(w % wpr);
        let counts = match self.numbers {
            Numbers::Planes(planes) => planes.each_ref().map(|p| p.words()[w]),
            Numbers::Board(board) => neighbour_count(board.mines().words(), wpr, w),
        };
        counts.map(|slice| slice & shown)
    }

    /// The four bit-sliced planes of the numbers, in the padded layout, where the view
    /// holds them whole (a [`Position`]'s, zero off revealed cells): bit `b` of word `w` of
    /// plane `i` is bit `i` of the number on that cell. `None` for a game's view, whose
    /// numbers are counted a word at a time by [`View::number_words`]. On a board cell,
    /// masked to the revealed cells, they read as `number_words` does.
    ///
    /// Hidden from the documented API, as [`View::number_words`]: the seam bitmines-solve's
    /// planes copy a position's numbers through, a row at a time.
    #[doc(hidden)]
    pub fn number_planes(&self) -> Option<[&'a [u64]; 4]> {
        match self.numbers {
            Numbers::Planes(planes) => Some(planes.each_ref().map(Plane::words)),
            Numbers::Board(_) => None,
        }
    }

    /// Revealed board cells, counted from the plane.
    pub fn revealed_count(&self) -> usize {
        let wpr = self.geometry.words_per_row();
        (0..self.geometry.rows())
            .flat_map(|r| self.geometry.row_words(r))
            .map(|w| (self.revealed[w] & self.geometry.cell_mask(w % wpr)).count_ones() as usize)
            .sum()
    }
}

impl fmt::Debug for View<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("View")
            .field("rows", &self.rows())
            .field("cols", &self.cols())
            .field("mines", &self.mines)
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

/// Asks the processor to bring word `i` of `plane` into its cache, if `plane` has it.
#[inline(always)]
pub(crate) fn prefetch(plane: &[u64], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(word) = plane.get(i) {
        // SAFETY: a prefetch only hints at an address, and this one is of a live word.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                std::ptr::from_ref(word).cast(),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (plane, i);
}

/// How many of the eight neighbours of each cell of word `w` are set in `plane` (padded
/// layout, `wpr` words a row), bit-sliced into four words. Words off the plane read as zero,
/// so this never panics; the counts of sentinel and padding bits are meaningless.
///
/// This is the Game of Life adder: the eight shifted neighbour words go through a tree of
/// full adders, some thirty word operations for 64 cells. Private: only the view uses it.
fn neighbour_count(plane: &[u64], wpr: usize, w: usize) -> [u64; 4] {
    let at = |i: Option<usize>| i.and_then(|i| plane.get(i)).copied().unwrap_or(0);
    let row = |centre: Option<usize>| {
        let c = at(centre);
        let before = at(centre.and_then(|i| i.checked_sub(1)));
        let after = at(centre.and_then(|i| i.checked_add(1)));
        (c << 1 | before >> 63, c, c >> 1 | after << 63)
    };
    let (ul, u, ur) = row(w.checked_sub(wpr));
    let (l, _, r) = row(Some(w));
    let (dl, d, dr) = row(w.checked_add(wpr));
    count8([ul, u, ur, l, r, dl, d, dr])
}

/// The bit-sliced sum of eight one-bit words.
#[inline(always)]
pub(crate) fn count8([a, b, c, d, e, f, g, h]: [u64; 8]) -> [u64; 4] {
    let full = |x: u64, y: u64, z: u64| (x ^ y ^ z, (x & y) | (z & (x ^ y)));
    let (s1, c1) = full(a, b, c);
    let (s2, c2) = full(d, e, f);
    let (s3, c3) = (g ^ h, g & h);
    let (ones, c4) = full(s1, s2, s3);
    let (t, c5) = full(c1, c2, c3);
    let (twos, c6) = (t ^ c4, t & c4);
    [ones, twos, c5 ^ c6, c5 & c6]
}

/// A player's view owned outright, with no board behind it: a position typed by hand,
/// captured from another program, or copied out of a game.
///
/// Its text form is a header line `bitmines view ROWSxCOLS mines MINES`, then one line per
/// row with one character per cell:
///
/// | char | cell |
/// | --- | --- |
/// | `#` | hidden |
/// | `F` | hidden, with the player's flag |
/// | `0`-`8` (or `.` for `0`) | revealed, showing its number |
///
/// Reading checks the syntax only (every error names its line and column); whether some
/// layout of the mines agrees with every number is the solver's question.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    geometry: Geometry,
    revealed: Plane,
    flagged: Plane,
    numbers: [Plane; 4],
    mines: usize,
}

/// What a position's text allows in a cell.
const POSITION_CHARS: &str = "'#' (hidden), 'F' (flag), or a number '0'-'8' ('.' for 0)";

impl Position {
    /// A position with every cell hidden.
    pub fn new(rows: usize, cols: usize, mines: usize) -> Result<Position, Error> {
        let geometry = Geometry::new(rows, cols)?;
        if mines > geometry.cells() {
            return Err(Error::TooManyMinesForView {
                mines,
                cells: geometry.cells(),
            });
        }
        Ok(Position {
            geometry,
            revealed: sentinel_plane(&geometry)?,
            flagged: Plane::zeroed(&geometry)?,
            numbers: [
                Plane::zeroed(&geometry)?,
                Plane::zeroed(&geometry)?,
                Plane::zeroed(&geometry)?,
                Plane::zeroed(&geometry)?,
            ],
            mines,
        })
    }

    /// A copy of what `view` shows.
    pub fn of(view: &View<'_>) -> Result<Position, Error> {
        let mut position = Position::new(view.rows(), view.cols(), view.mines)?;
        for (w, (r, f)) in position
            .revealed
            .words_mut()
            .iter_mut()
            .zip(position.flagged.words_mut())
            .enumerate()
        {
            *r = view.revealed[w];
            *f = view.flagged[w];
        }
        for w in 0..view.geometry.words() {
            for (plane, slice) in position.numbers.iter_mut().zip(view.number_words(w)) {
                plane.words_mut()[w] = slice;
            }
        }
        Ok(position)
    }

    /// The view of this position (status `Playing`).
    pub fn view(&self) -> View<'_> {
        View {
            geometry: self.geometry,
            revealed: self.revealed.words(),
            flagged: self.flagged.words(),
            numbers: Numbers::Planes(&self.numbers),
            mines: self.mines,
            status: Status::Playing,
        }
    }

    /// Reveals `(row, col)` showing `number` (at most 8); a flag there is removed.
    pub fn reveal(&mut self, row: usize, col: usize, number: u8) -> Result<(), Error> {
        let bit = self.geometry.bit(row, col)?;
        if number > 8 {
            return Err(Error::BadNumber { row, col, number });
        }
        self.revealed.set(bit);
        self.flagged.clear(bit);
        for (i, plane) in self.numbers.iter_mut().enumerate() {
            if number >> i & 1 != 0 {
                plane.set(bit);
            } else {
                plane.clear(bit);
            }
        }
        Ok(())
    }

    /// Flags or unflags the hidden cell `(row, col)`; a revealed cell is left alone.
    pub fn set_flag(&mut self, row: usize, col: usize, flag: bool) -> Result<(), Error> {
        let bit = self.geometry.bit(row, col)?;
        if !self.revealed.get(bit) {
            if flag {
                self.flagged.set(bit);
            } else {
                self.flagged.clear(bit);
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Position({}x{}, {} mines)",
            self.geometry.rows(),
            self.geometry.cols(),
            self.mines
        )
    }
}

impl fmt::Display for Position {
    /// The text form (see [`Position`]), the same as its view's.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.view().fmt(f)
    }
}

impl fmt::Display for View<'_> {
    /// The text form of the position a player sees, as [`Position`] reads it: a header
    /// `bitmines view ROWSxCOLS mines N`, then one line a row with `#` for a hidden cell, `F`
    /// for a flag and `0`-`8` for a revealed number.
    ///
    /// ```
    /// use bitmines_core::{Board, Game};
    ///
    /// let mut game = Game::new("..*\n...\n".parse::<Board>()?);
    /// game.reveal(0, 0)?;
    /// assert_eq!(game.view().to_string(), "bitmines view 2x3 mines 1\n01#\n01#\n");
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "bitmines view {}x{} mines {}",
            self.geometry.rows(),
            self.geometry.cols(),
            self.mines
        )?;
        let mut line = String::with_capacity(self.geometry.cols() + 1);
        for r in 0..self.geometry.rows() {
            line.clear();
            for c in 0..self.geometry.cols() {
                line.push(match (self.number(r, c), self.is_flagged(r, c)) {
                    (Ok(Some(n)), _) => char::from(b'0' + n),
                    (_, Ok(true)) => 'F',
                    _ => '#',
                });
            }
            line.push('\n');
            f.write_str(&line)?;
        }
        Ok(())
    }
}

impl FromStr for Position {
    type Err = Error;

    fn from_str(text: &str) -> Result<Position, Error> {
        let syntax =
            |line: usize, col: usize, reason: String| Error::ViewSyntax { line, col, reason };
        let mut lines = text.lines();
        let header = lines.next().unwrap_or("");
        let words: Vec<&str> = header.split(' ').collect();
        // Digits only: the number parser would also take a sign, which never prints back.
        let number = |n: &str| {
            n.bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| n.parse::<usize>().ok())
                .flatten()
        };
        let expected = "a header like \"bitmines view 16x30 mines 99\"";
        let parsed = match words.as_slice() {
            ["bitmines", "view", size, "mines", mines] => size
                .split_once('x')
                .and_then(|(r, c)| Some((number(r)?, number(c)?, number(mines)?))),
            _ => None,
        };
        let Some((rows, cols, mines)) = parsed else {
            return Err(syntax(
                1,
                1,
                format!("expected {expected}, found {header:?}"),
            ));
        };
        // Check the shape against the header before allocating, so a header claiming a
        // huge board costs nothing when the text is short.
        let grid: Vec<&str> = lines.collect();
        for (r, line) in grid.iter().enumerate() {
            if r >= rows {
                return Err(syntax(
                    r + 2,
                    1,
                    format!("the header declares {rows} rows, but more follow"),
                ));
            }
            let width = line.chars().count();
            if width != cols {
                let (col, reason) = if width > cols {
                    (
                        cols + 1,
                        format!("the header declares {cols} columns, but the line goes on"),
                    )
                } else {
                    (
                        width + 1,
                        format!("the line ends after {width} cells, where {cols} are expected"),
                    )
                };
                return Err(syntax(r + 2, col, reason));
            }
        }
        if grid.len() < rows {
            return Err(syntax(
                grid.len() + 2,
                1,
                format!(
                    "the header declares {rows} rows, but only {} follow",
                    grid.len()
                ),
            ));
        }
        let mut position =
            Position::new(rows, cols, mines).map_err(|e| syntax(1, 1, e.to_string()))?;
        for (r, line) in grid.iter().enumerate() {
            for (c, ch) in line.chars().enumerate() {
                match ch {
                    '#' => {}
                    'F' => position.set_flag(r, c, true)?,
                    '.' => position.reveal(r, c, 0)?,
                    '0'..='8' => position.reveal(r, c, ch as u8 - b'0')?,
                    _ => {
                        return Err(syntax(
                            r + 2,
                            c + 1,
                            format!("unexpected character {ch:?}, expected {POSITION_CHARS}"),
                        ));
                    }
                }
            }
        }
        Ok(position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SeededPlacer;

    #[test]
    fn neighbour_count_matches_the_board_numbers() {
        for (rows, cols, mines) in [
            (16, 30, 99),
            (3, 63, 60),
            (4, 130, 200),
            (1, 1, 1),
            (7, 1, 3),
            (2, 64, 40),
        ] {
            for seed in 0..4 {
                let board = SeededPlacer::new(seed).board(rows, cols, mines).unwrap();
                let g = *board.geometry();
                for r in 0..rows {
                    for c in 0..cols {
                        let bit = g.bit(r, c).unwrap();
                        let s = neighbour_count(board.mines().words(), g.words_per_row(), bit / 64);
                        let n: u8 = (0..4).map(|i| ((s[i] >> (bit % 64) & 1) << i) as u8).sum();
                        assert_eq!(
                            n,
                            board.number(r, c).unwrap(),
                            "{rows}x{cols} seed {seed} ({r}, {c})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn off_plane_words_read_as_zero() {
        let board = SeededPlacer::new(1).board(2, 3, 3).unwrap();
        let mut game = Game::new(board);
        game.reveal(0, 0).unwrap();
        let view = game.view();
        assert_eq!(view.number_words(usize::MAX), [0; 4]);
        // A prefetch off the plane, or beside its ends, is a hint that does nothing.
        for w in [0, 1, usize::MAX, usize::MAX - 1, 1 << 40] {
            view.prefetch_number_words(w);
        }
        assert_eq!(view.number_words(0), [0; 4]);
        assert_eq!(neighbour_count(&[], 1, 5), [0; 4]);
    }
}
