//! A game played in tiles: rectangles of cells, each owned by one thread at a time.
//!
//! A [`TiledGame`] cuts one game's view into a grid of [`Tile`]s of `rows x cols` cells each
//! (those on the bottom and right edges may be smaller). Tiles as wide as the board are bands
//! of rows; narrower ones are square (or any rectangle), with eight neighbours rather than
//! two. A tile holds the revealed and flagged planes of its own cells, padded like a board's
//! with its own rows and columns, plus a halo ring: one row above and one below, one column
//! left and one right, the corners included. In the revealed plane the ring is all ones, like
//! the sentinel border, so the word cascade run on a tile never leaves it; in the flagged
//! plane (and the exploded one) it is a copy of the neighbours' edge cells as they stood when
//! the batch began, which is all a chord on an edge cell needs to read. A tile as wide as the
//! board reads the board's zero plane in place; a narrower one keeps its own copy of the part
//! under it, laid out like its other planes.
//!
//! Play goes in batches ([`TiledGame::play`], [`TiledGame::apply`]). Every tile first plays
//! its own moves on its own cells, tiles side by side on as many threads as asked. Then come
//! rounds of exchange: each tile hands its neighbours the cells past its edges that it owes
//! them (the neighbours of the revealed zero cells of its edge rows and columns, corners
//! included, and the cells of a chord on an edge cell that lie past it), and each tile
//! reveals what it was handed, cascades included. The rounds go on until a round opens
//! nothing. A round first collects every tile's hand-over and then lets each tile apply its
//! own, so what a tile does never depends on how the tiles were spread over the threads: the
//! same moves give the same game on any thread count.
//!
//! Within a batch a move sees its own tile as it is and the rest of the board as it stood
//! when the batch began. For moves whose order cannot matter (reveals, flags on mines and
//! their removal, mines set off under [`Rule::Endless`], chords on cells revealed before the
//! batch while no flag changes) the result is that of [`Game`] playing the same moves one
//! after another in any order; `tests/tiled.rs` holds it to that.

#![allow(
    clippy::indexing_slicing,
    reason = "word and bit indices come from the tile's own layout (its Geometry, rows + 2 \
              padded rows of cols + 2 bits and padding) or the board's; public entry points \
              check coordinates first"
)]

use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::cascade::{self, Planes};
use crate::game::sentinel_plane;
use crate::geometry::WORD_BITS;
use crate::plane::Plane;
use crate::{Board, Cell, Error, Game, Geometry, Reveal, Rule, Status};

/// One move of a player, as [`TiledGame::apply`] takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    /// [`Game::reveal`] at `(row, col)`.
    Reveal(usize, usize),
    /// [`Game::toggle_flag`] at `(row, col)`.
    Flag(usize, usize),
    /// [`Game::chord`] at `(row, col)`.
    Chord(usize, usize),
}

impl Move {
    /// The cell the move is made on.
    pub fn cell(&self) -> (usize, usize) {
        match *self {
            Move::Reveal(row, col) | Move::Flag(row, col) | Move::Chord(row, col) => (row, col),
        }
    }
}

/// What one tile has done so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct TileWork {
    /// Moves made on the tile.
    pub moves: u64,
    /// Safe cells its moves opened, their cascades inside the tile included.
    pub opened: u64,
    /// Safe cells it opened from what its neighbours handed it.
    pub handed_in: u64,
    /// Mines set off on it.
    pub exploded: u64,
}

/// What a thread did in one batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ThreadShare {
    /// Tile turns it took (a tile's moves, or its part of one round of exchange).
    pub turns: u64,
    /// Time it spent on them.
    pub busy: Duration,
}

/// What one batch did, from [`TiledGame::play`] or [`TiledGame::apply`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Batch {
    /// Safe cells opened by the moves themselves.
    pub opened: usize,
    /// Safe cells opened by the rounds of exchange.
    pub handed_over: usize,
    /// Mines set off, by moves and by exchange.
    pub exploded: usize,
    /// Rounds of exchange, the last of which opened nothing.
    pub rounds: usize,
    /// How the batch's work spread over the threads, one entry per thread.
    pub threads: Vec<ThreadShare>,
}

/// The cells of rows `rows()` and columns `cols()` of a game's view, played by one thread at
/// a time; see the [module docs](self).
// Every move writes the tile's counters, and every cascade its scratch's row stack: aligned
// to two cache lines, two tiles played side by side never write to one line.
#[repr(align(128))]
pub struct Tile {
    index: usize,
    /// Row and column of the tile in the grid of tiles.
    place: (usize, usize),
    top: usize,
    left: usize,
    /// The board bit of the tile's padded bit 0 (its halo ring's top left corner).
    base: usize,
    /// The tile's own layout: its rows and columns, padded like a board's.
    local: Geometry,
    board: Arc<Board>,
    rule: Rule,
    /// The board's zero plane under the tile and its halo ring, in the tile's layout; empty
    /// when the tile is as wide as the board, whose zero plane it then reads in place.
    zero: Vec<u64>,
    /// The tile's cells and its halo ring, padded like a board's planes; the ring and the
    /// padding are all ones, so no cascade leaves the tile.
    revealed: Vec<u64>,
    /// Flags of the tile's cells, and in the halo ring the neighbours' flags as of the batch.
    flagged: Vec<u64>,
    /// Exploded mines like `flagged`; empty until one explodes on or next to the tile.
    exploded_plane: Vec<u64>,
    /// The tile's exploded mines as board bit indices, in the order they exploded.
    exploded: Vec<usize>,
    revealed_count: usize,
    flag_count: usize,
    /// Under the classic rule, a mine exploded here: the tile takes no more moves.
    lost: bool,
    scratch: cascade::words::Scratch,
    /// Cells past the edges a chord asked to reveal, in the halo ring's places.
    asks: Ring,
    /// Cells of the tile's edges its neighbours handed over in this round of exchange: in
    /// `top` and `bottom` the words of its first and last rows, in `left` and `right` its
    /// first and last columns.
    inbox: Ring,
    /// The tile opened a cell since it last handed over: what it owes may have grown.
    fresh: bool,
    work: TileWork,
}

/// Cells around a tile, or along its edges: two padded rows of words (`top`, `bottom`, in
/// the tile's padded columns, corners at bits 0 and `cols + 1`) and two columns (`left`,
/// `right`, bit `r - 1` for the tile's row `r`).
#[derive(Debug, Clone, Default)]
struct Ring {
    top: Vec<u64>,
    bottom: Vec<u64>,
    left: Vec<u64>,
    right: Vec<u64>,
}

impl Ring {
    /// An empty ring for a tile laid out as `local`.
    fn new(local: &Geometry) -> Ring {
        let (row, col) = (local.words_per_row(), local.rows().div_ceil(WORD_BITS));
        Ring {
            top: vec![0; row],
            bottom: vec![0; row],
            left: vec![0; col],
            right: vec![0; col],
        }
    }

    fn parts_mut(&mut self) -> [&mut Vec<u64>; 4] {
        [
            &mut self.top,
            &mut self.bottom,
            &mut self.left,
            &mut self.right,
        ]
    }

    fn is_empty(&self) -> bool {
        [&self.top, &self.bottom, &self.left, &self.right]
            .iter()
            .all(|part| part.iter().all(|&w| w == 0))
    }

    fn clear(&mut self) {
        for part in self.parts_mut() {
            part.fill(0);
        }
    }

    /// Marks the ring's place of the tile-local padded cell `(lr, lc)`, which lies past an
    /// edge of a tile of `rows` rows.
    fn mark(&mut self, (lr, lc): (usize, usize), rows: usize) {
        match (lr, lc) {
            (0, _) => set_bit(&mut self.top, lc),
            _ if lr > rows => set_bit(&mut self.bottom, lc),
            (_, 0) => set_bit(&mut self.left, lr - 1),
            _ => set_bit(&mut self.right, lr - 1),
        }
    }

    /// The tile-local padded cells the ring marks, for a tile laid out as `local`.
    fn cells(&self, local: &Geometry) -> Vec<(usize, usize)> {
        let (rows, cols) = (local.rows(), local.cols());
        let mut cells = Vec::new();
        for (lr, part) in [(0, &self.top), (rows + 1, &self.bottom)] {
            cells.extend(set_bits(part).map(|lc| (lr, lc)));
        }
        for (lc, part) in [(0, &self.left), (cols + 1, &self.right)] {
            cells.extend(set_bits(part).map(|r| (r + 1, lc)));
        }
        cells
    }
}

fn get_bit(words: &[u64], bit: usize) -> bool {
    words
        .get(bit / WORD_BITS)
        .is_some_and(|w| w >> (bit % WORD_BITS) & 1 != 0)
}

fn set_bit(words: &mut [u64], bit: usize) {
    words[bit / WORD_BITS] |= 1 << (bit % WORD_BITS);
}

fn put_bit(words: &mut [u64], bit: usize, on: bool) {
    let (w, b) = (bit / WORD_BITS, 1u64 << (bit % WORD_BITS));
    words[w] = if on { words[w] | b } else { words[w] & !b };
}

/// The indices of the set bits of `words`, in increasing order.
fn set_bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(j, &w)| {
        let mut rest = w;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let at = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                j * WORD_BITS + at
            })
        })
    })
}

/// The 64 bits of `words` from bit `bit` on (zeros past the end).
fn read_word(words: &[u64], bit: usize) -> u64 {
    let (w, s) = (bit / WORD_BITS, bit % WORD_BITS);
    let lo = words.get(w).map_or(0, |&x| x >> s);
    let hi = match s {
        0 => 0,
        _ => words.get(w + 1).map_or(0, |&x| x << (WORD_BITS - s)),
    };
    lo | hi
}

/// Copies bits `from..from + len` of `src` to bits `to..to + len` of `dst`, a word at a
/// time, leaving the other bits of `dst` as they were. `copy_bits_naive`, under test, is its twin.
fn copy_bits(dst: &mut [u64], to: usize, src: &[u64], from: usize, len: usize) {
    let mut done = 0;
    while done < len {
        let n = (len - done).min(WORD_BITS);
        let mask = if n == WORD_BITS { !0 } else { (1u64 << n) - 1 };
        let value = read_word(src, from + done) & mask;
        let (w, s) = ((to + done) / WORD_BITS, (to + done) % WORD_BITS);
        dst[w] = dst[w] & !(mask << s) | value << s;
        if s + n > WORD_BITS {
            let back = WORD_BITS - s;
            dst[w + 1] = dst[w + 1] & !(mask >> back) | value >> back;
        }
        done += n;
    }
}

/// [`copy_bits`] a bit at a time.
#[cfg(test)]
fn copy_bits_naive(dst: &mut [u64], to: usize, src: &[u64], from: usize, len: usize) {
    for i in 0..len {
        put_bit(dst, to + i, get_bit(src, from + i));
    }
}

impl Tile {
    fn new(
        index: usize,
        place: (usize, usize),
        (top, left): (usize, usize),
        (rows, cols): (usize, usize),
        game: &Game,
    ) -> Result<Tile, Error> {
        let geometry = *game.board.geometry();
        let local = Geometry::new(rows, cols)?;
        let ls = local.stride();
        // Padded cell (lr, lc) of the tile is padded cell (top + lr, left + lc) of the board.
        let board_bit = |lr: usize, lc: usize| (top + lr) * geometry.stride() + left + lc;
        let mut zero = Vec::new();
        if cols != geometry.cols() {
            zero = Plane::zeroed(&local)?.into_words();
            for lr in 0..rows + 2 {
                let from = board_bit(lr, 0);
                copy_bits(
                    &mut zero,
                    lr * ls,
                    game.board.zero().words(),
                    from,
                    cols + 2,
                );
            }
        }
        let mut revealed = sentinel_plane(&local)?.into_words();
        let mut flagged = Plane::zeroed(&local)?.into_words();
        for lr in 1..=rows {
            let from = board_bit(lr, 1);
            copy_bits(
                &mut revealed,
                lr * ls + 1,
                game.revealed.words(),
                from,
                cols,
            );
            copy_bits(&mut flagged, lr * ls + 1, game.flagged.words(), from, cols);
        }
        let own = |bit: usize| {
            let (row, col) = geometry.cell_of(bit);
            (top..top + rows).contains(&row) && (left..left + cols).contains(&col)
        };
        let exploded: Vec<usize> = game.exploded.iter().copied().filter(|&b| own(b)).collect();
        let mut exploded_plane = Vec::new();
        if !exploded.is_empty() {
            exploded_plane = vec![0u64; revealed.len()];
            for &bit in &exploded {
                let (row, col) = geometry.cell_of(bit);
                set_bit(&mut exploded_plane, (row - top + 1) * ls + col - left + 1);
            }
        }
        let cells = |words: &[u64]| {
            (1..=rows)
                .flat_map(|r| (0..local.words_per_row()).map(move |j| (r, j)))
                .map(|(r, j)| {
                    (words[r * local.words_per_row() + j] & local.cell_mask(j)).count_ones()
                        as usize
                })
                .sum::<usize>()
        };
        Ok(Tile {
            index,
            place,
            top,
            left,
            base: board_bit(0, 0),
            local,
            board: Arc::clone(&game.board),
            rule: game.rule,
            revealed_count: cells(&revealed),
            flag_count: cells(&flagged),
            zero,
            revealed,
            flagged,
            exploded_plane,
            exploded,
            lost: false,
            scratch: cascade::words::Scratch::new(&local)?,
            asks: Ring::new(&local),
            inbox: Ring::new(&local),
            fresh: false,
            work: TileWork::default(),
        })
    }

    /// The tile's place in its game: tiles are numbered row of tiles by row of tiles, from
    /// the top left, from 0.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The board rows the tile owns.
    pub fn rows(&self) -> Range<usize> {
        self.top..self.top + self.local.rows()
    }

    /// The board columns the tile owns (all of them for a band of rows).
    pub fn cols(&self) -> Range<usize> {
        self.left..self.left + self.local.cols()
    }

    /// The board the game is played on.
    pub fn board(&self) -> &Arc<Board> {
        &self.board
    }

    /// Safe cells of the tile revealed so far.
    pub fn revealed_count(&self) -> usize {
        self.revealed_count
    }

    /// Cells of the tile flagged now.
    pub fn flag_count(&self) -> usize {
        self.flag_count
    }

    /// What the tile has done so far.
    pub fn work(&self) -> TileWork {
        self.work
    }

    /// The board bit of the tile-local padded bit `bit`.
    fn board_bit(&self, bit: usize) -> usize {
        let (ls, stride) = (self.local.stride(), self.board.geometry().stride());
        match ls == stride {
            // A band: the tile's rows are the board's, as laid out.
            true => self.base + bit,
            false => self.base + bit / ls * stride + bit % ls,
        }
    }

    /// The board cell at the tile-local padded cell `(lr, lc)`, if it is on the board.
    fn board_cell(&self, (lr, lc): (usize, usize)) -> Option<(usize, usize)> {
        let row = (self.top + lr).checked_sub(1)?;
        let col = (self.left + lc).checked_sub(1)?;
        (row < self.board.rows() && col < self.board.cols()).then_some((row, col))
    }

    /// The tile-local bit of `(row, col)`, which must be one of the tile's cells.
    fn bit(&self, row: usize, col: usize) -> Result<usize, Error> {
        self.bits(row, col).map(|(bit, _)| bit)
    }

    /// The tile-local and the board bit of `(row, col)`, which must be one of the tile's
    /// cells.
    fn bits(&self, row: usize, col: usize) -> Result<(usize, usize), Error> {
        // A cell of the tile is a cell of the board, so one test serves both.
        let (lr, lc) = (row.wrapping_sub(self.top), col.wrapping_sub(self.left));
        if lr < self.local.rows() && lc < self.local.cols() {
            let (lr, lc) = (lr + 1, lc + 1);
            let stride = self.board.geometry().stride();
            return Ok((lr * self.local.stride() + lc, self.base + lr * stride + lc));
        }
        Err(self.off_tile(row, col))
    }

    /// Why `(row, col)` is not a cell of the tile.
    #[cold]
    fn off_tile(&self, row: usize, col: usize) -> Error {
        match self.board.geometry().bit(row, col) {
            Err(off_board) => off_board,
            Ok(_) => Error::OffTile {
                row,
                col,
                top: self.top,
                bottom: self.rows().end,
                left: self.left,
                right: self.cols().end,
            },
        }
    }

    /// Whether the board bit `board` holds a mine.
    fn is_mine(&self, board: usize) -> bool {
        get_bit(self.board.mines().words(), board)
    }

    fn is_exploded(&self, bit: usize) -> bool {
        get_bit(&self.exploded_plane, bit)
    }

    fn is_closed(&self, bit: usize) -> bool {
        get_bit(&self.revealed, bit) || get_bit(&self.flagged, bit) || self.is_exploded(bit)
    }

    /// Word `w` of the zero plane in the tile's layout.
    fn zero_word(&self, w: usize) -> u64 {
        match self.zero.is_empty() {
            true => self.board.zero().words()[self.top * self.local.words_per_row() + w],
            false => self.zero[w],
        }
    }

    fn check_playing(&self) -> Result<(), Error> {
        match self.lost {
            true => Err(Error::GameOver {
                status: Status::Lost,
            }),
            false => Ok(()),
        }
    }

    fn status(&self) -> Status {
        match self.lost {
            true => Status::Lost,
            false => Status::Playing,
        }
    }

    /// Sets off the mine at the tile-local bit `bit`, board bit `board`.
    fn explode(&mut self, bit: usize, board: usize) {
        if self.exploded_plane.is_empty() {
            self.exploded_plane = vec![0; self.revealed.len()];
        }
        set_bit(&mut self.exploded_plane, bit);
        self.exploded.push(board);
        self.work.exploded += 1;
        if self.rule == Rule::Classic {
            self.lost = true;
        }
    }

    /// Opens the hidden, unflagged safe cell `bit` (tile-local) with the word fill.
    fn open(&mut self, bit: usize) -> usize {
        let len = self.revealed.len();
        let zero = match self.zero.is_empty() {
            true => {
                let start = self.top * self.local.words_per_row();
                &self.board.zero().words()[start..start + len]
            }
            false => &self.zero[..],
        };
        let mut planes = Planes {
            zero,
            revealed: &mut self.revealed,
            flagged: &self.flagged,
            unflagged: false,
            words_per_row: self.local.words_per_row(),
        };
        let opened = cascade::words::fill(&mut planes, &mut self.scratch, bit);
        self.revealed_count += opened;
        self.fresh |= opened > 0;
        opened
    }

    /// Reveals `(row, col)`, one of the tile's cells, as [`Game::reveal`] does; a cascade
    /// stops at the tile's edges and goes on past them in the rounds of exchange. The status
    /// returned is the tile's: [`Status::Lost`] once a mine exploded here under the classic
    /// rule, [`Status::Playing`] otherwise (the game's is known after the batch).
    ///
    /// # Errors
    /// `OffBoard` or `OffTile` for a cell that is not the tile's; `GameOver` once the tile
    /// has lost.
    pub fn reveal(&mut self, row: usize, col: usize) -> Result<Reveal, Error> {
        self.check_playing()?;
        let (bit, board) = self.bits(row, col)?;
        self.work.moves += 1;
        if self.is_closed(bit) {
            return Ok(self.result(0, 0));
        }
        if self.is_mine(board) {
            self.explode(bit, board);
            return Ok(self.result(0, 1));
        }
        let opened = self.open(bit);
        self.work.opened += opened as u64;
        Ok(self.result(opened, 0))
    }

    /// Flags a hidden cell of the tile or unflags a flagged one, as [`Game::toggle_flag`]
    /// does; returns whether the cell is now flagged.
    ///
    /// # Errors
    /// As for [`Tile::reveal`].
    pub fn toggle_flag(&mut self, row: usize, col: usize) -> Result<bool, Error> {
        self.check_playing()?;
        let bit = self.bit(row, col)?;
        self.work.moves += 1;
        let (w, b) = (bit / WORD_BITS, 1u64 << (bit % WORD_BITS));
        if self.revealed[w] & b != 0 || self.is_exploded(bit) {
            Ok(false)
        } else if self.flagged[w] & b != 0 {
            self.flagged[w] &= !b;
            self.flag_count -= 1;
            Ok(false)
        } else {
            self.flagged[w] |= b;
            self.flag_count += 1;
            Ok(true)
        }
    }

    /// Chords on `(row, col)`, one of the tile's cells, as [`Game::chord`] does. On an edge
    /// cell the flags and exploded mines of the neighbours' cells count as they stood when
    /// the batch began, and the hidden cells past the edge (a corner's diagonal neighbour
    /// included) are revealed in the rounds of exchange, so the [`Reveal`] counts only what
    /// opened on this tile.
    ///
    /// # Errors
    /// As for [`Tile::reveal`].
    pub fn chord(&mut self, row: usize, col: usize) -> Result<Reveal, Error> {
        self.check_playing()?;
        let (bit, board) = self.bits(row, col)?;
        self.work.moves += 1;
        if !get_bit(&self.revealed, bit) {
            return Ok(self.result(0, 0));
        }
        let stride = self.local.stride();
        let around = super::neighbours(bit, stride);
        let flags = [bit - stride - 1, bit - 1, bit + stride - 1]
            .map(|b| three(&self.flagged, b).count_ones())
            .iter()
            .sum::<u32>() as usize;
        let exploded = around.iter().filter(|&&n| self.is_exploded(n)).count();
        let number = self.board.number_at(board);
        if flags + exploded != usize::from(number) {
            return Ok(self.result(0, 0));
        }
        let (mut opened, mut blown) = (0, 0);
        let (rows, cols) = (self.local.rows(), self.local.cols());
        let around_board = super::neighbours(board, self.board.geometry().stride());
        for (n, on_board) in around.into_iter().zip(around_board) {
            // A cell past an edge is a neighbour's: ask for it, unless the edge is the
            // board's own.
            let (lr, lc) = (n / stride, n % stride);
            if lr == 0 || lr > rows || lc == 0 || lc > cols {
                if self.board_cell((lr, lc)).is_some() {
                    self.asks.mark((lr, lc), rows);
                }
                continue;
            }
            if self.is_closed(n) {
                continue;
            }
            if self.is_mine(on_board) {
                self.explode(n, on_board);
                blown += 1;
            } else {
                opened += self.open(n);
            }
        }
        self.work.opened += opened as u64;
        Ok(self.result(opened, blown))
    }

    /// What the player sees at `(row, col)`, one of the tile's cells, while the game is in
    /// play: hidden, flagged, open or exploded.
    ///
    /// # Errors
    /// `OffBoard` or `OffTile` for a cell that is not the tile's.
    pub fn cell(&self, row: usize, col: usize) -> Result<Cell, Error> {
        let (bit, board) = self.bits(row, col)?;
        Ok(if get_bit(&self.revealed, bit) {
            Cell::Open(self.board.number_at(board))
        } else if get_bit(&self.flagged, bit) {
            Cell::Flagged
        } else if self.is_exploded(bit) {
            Cell::Exploded
        } else {
            Cell::Hidden
        })
    }

    fn result(&self, opened: usize, exploded: usize) -> Reveal {
        Reveal {
            opened,
            status: self.status(),
            exploded,
        }
    }

    /// What the tile owes its neighbours, into `out`: the cells past its edges next to a
    /// revealed zero cell of an edge row or column, and those a chord asked for. Taking the
    /// chord's asks leaves them empty. A tile that opened nothing since its last hand-over
    /// owes nothing new, since its neighbours took the same cells then; it hands over
    /// nothing. Returns whether `out` holds a cell.
    fn hand_over(&mut self, out: &mut Ring) -> bool {
        if !self.fresh && self.asks.is_empty() {
            out.clear();
            return false;
        }
        self.fresh = false;
        spill(self, out);
        for (part, asks) in out.parts_mut().into_iter().zip(self.asks.parts_mut()) {
            for (o, ask) in part.iter_mut().zip(asks.iter_mut()) {
                *o |= std::mem::take(ask);
            }
        }
        !out.is_empty()
    }

    /// Reveals the cell `bit` (tile-local) a neighbour handed over, as a reveal would, if it
    /// is still hidden; returns the safe cells opened and the mines set off.
    fn take_cell(&mut self, bit: usize) -> (usize, usize) {
        let board = self.board_bit(bit);
        if self.is_closed(bit) {
            (0, 0)
        } else if self.is_mine(board) {
            self.explode(bit, board);
            (0, 1)
        } else {
            (self.open(bit), 0)
        }
    }

    /// Reveals the cells of its inbox, in increasing order along its first row, its last
    /// row, its first column and its last column. Returns the safe cells opened and the
    /// mines set off.
    fn take(&mut self) -> (usize, usize) {
        let inbox = std::mem::take(&mut self.inbox);
        let (rows, cols) = (self.local.rows(), self.local.cols());
        let (wpr, ls) = (self.local.words_per_row(), self.local.stride());
        let (mut opened, mut blown) = (0, 0);
        for (row, cells) in [(1, &inbox.top), (rows, &inbox.bottom)] {
            for (j, &set) in cells.iter().enumerate() {
                let w = row * wpr + j;
                let mut done = 0u64;
                loop {
                    let todo = set & !done & !(self.revealed[w] | self.flagged[w]);
                    if todo == 0 {
                        break;
                    }
                    let at = todo.trailing_zeros();
                    done |= 1 << at;
                    let (o, e) = self.take_cell(w * WORD_BITS + at as usize);
                    (opened, blown) = (opened + o, blown + e);
                }
            }
        }
        for (col, cells) in [(1, &inbox.left), (cols, &inbox.right)] {
            for r in set_bits(cells) {
                let (o, e) = self.take_cell((r + 1) * ls + col);
                (opened, blown) = (opened + o, blown + e);
            }
        }
        self.inbox = inbox;
        self.work.handed_in += opened as u64;
        (opened, blown)
    }

    /// Gathers into the inbox what the neighbours handed over in `outs` (one ring a tile, the
    /// tiles numbered as [`Tile::index`] on a grid `across` tiles wide, each `width` columns
    /// but the last).
    fn gather(&mut self, outs: &[Ring], across: usize, width: usize) {
        let (i, j) = self.place;
        let at = |i: Option<usize>, j: Option<usize>| {
            let (i, j) = (i?, j?);
            (j < across).then(|| outs.get(i * across + j)).flatten()
        };
        let (up, down, left, right) =
            (i.checked_sub(1), Some(i + 1), j.checked_sub(1), Some(j + 1));
        let cols = self.local.cols();
        let local = self.local;
        let inbox = &mut self.inbox;
        inbox.clear();
        let rows = [(up, &mut inbox.top, false), (down, &mut inbox.bottom, true)];
        for (neighbour_row, into, below) in rows {
            if let Some(out) = at(neighbour_row, Some(j)) {
                let edge = if below { &out.top } else { &out.bottom };
                for (k, (o, &e)) in into.iter_mut().zip(edge).enumerate() {
                    *o |= e & local.cell_mask(k);
                }
            }
            // The corner cells, from the tiles diagonally beyond them.
            if let Some(out) = at(neighbour_row, left) {
                let edge = if below { &out.top } else { &out.bottom };
                if get_bit(edge, width + 1) {
                    set_bit(into, 1);
                }
            }
            if let Some(out) = at(neighbour_row, right) {
                let edge = if below { &out.top } else { &out.bottom };
                if get_bit(edge, 0) {
                    set_bit(into, cols);
                }
            }
        }
        if let Some(out) = at(Some(i), left) {
            inbox.left.copy_from_slice(&out.right);
        }
        if let Some(out) = at(Some(i), right) {
            inbox.right.copy_from_slice(&out.left);
        }
    }

    /// Whether the tile's padded cell `(lr, lc)` is flagged, and whether it is exploded.
    fn marks_at(&self, (lr, lc): (usize, usize)) -> (bool, bool) {
        let bit = lr * self.local.stride() + lc;
        (get_bit(&self.flagged, bit), self.is_exploded(bit))
    }

    /// Writes `halo`'s flags (and exploded mines, when a neighbour has some) into the halo
    /// ring of the flagged (and exploded) plane.
    fn set_halo(&mut self, (flags, exploded): (Ring, Option<Ring>)) {
        let local = self.local;
        write_ring(&mut self.flagged, &local, &flags);
        match exploded {
            Some(exploded) => {
                if self.exploded_plane.is_empty() {
                    self.exploded_plane = vec![0; self.revealed.len()];
                }
                write_ring(&mut self.exploded_plane, &local, &exploded);
            }
            None if !self.exploded_plane.is_empty() => {
                write_ring(&mut self.exploded_plane, &local, &Ring::new(&local));
            }
            None => {}
        }
    }
}

/// Writes `ring` into the halo ring of `plane`, a plane laid out as `local`.
fn write_ring(plane: &mut [u64], local: &Geometry, ring: &Ring) {
    let (rows, cols, ls) = (local.rows(), local.cols(), local.stride());
    copy_bits(plane, 0, &ring.top, 0, cols + 2);
    copy_bits(plane, (rows + 1) * ls, &ring.bottom, 0, cols + 2);
    for r in 1..=rows {
        put_bit(plane, r * ls, get_bit(&ring.left, r - 1));
        put_bit(plane, r * ls + cols + 1, get_bit(&ring.right, r - 1));
    }
}

/// The three bits of `words` at `bit, bit + 1, bit + 2`, which lie in one padded row.
fn three(words: &[u64], bit: usize) -> u32 {
    let (w, s) = (bit / WORD_BITS, bit % WORD_BITS);
    let lo = words[w] >> s;
    let hi = if s > 61 { words[w + 1] << (64 - s) } else { 0 };
    ((lo | hi) & 0b111) as u32
}

impl std::fmt::Debug for Tile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tile")
            .field("index", &self.index)
            .field("rows", &self.rows())
            .field("cols", &self.cols())
            .field("revealed", &self.revealed_count)
            .field("flagged", &self.flag_count)
            .field("exploded", &self.exploded.len())
            .finish()
    }
}

/// The cells past `tile`'s edges, corners included, next to a revealed zero cell of its edge
/// rows and columns, into `out`. The columns are left empty where the board's edge is.
fn spill(tile: &Tile, out: &mut Ring) {
    let local = tile.local;
    let (rows, cols) = (local.rows(), local.cols());
    let wpr = local.words_per_row();
    let expanded = |lr: usize, j: usize| {
        let w = lr * wpr + j;
        tile.zero_word(w) & tile.revealed[w] & local.cell_mask(j)
    };
    // Padded columns 0 to cols + 1: the tile's cells and the ring's corners.
    let ring = |j: usize| match (cols + 2).saturating_sub(j * WORD_BITS) {
        0 => 0,
        n if n >= WORD_BITS => !0,
        n => (1u64 << n) - 1,
    };
    for (lr, part) in [(1, &mut out.top), (rows, &mut out.bottom)] {
        for (j, o) in part.iter_mut().enumerate() {
            let z = expanded(lr, j);
            let left = if j > 0 { expanded(lr, j - 1) >> 63 } else { 0 };
            let right = if j + 1 < wpr {
                expanded(lr, j + 1) << 63
            } else {
                0
            };
            *o = (z | z << 1 | z >> 1 | left | right) & ring(j);
        }
    }
    let sides = [
        (1, &mut out.left, tile.left > 0),
        (cols, &mut out.right, tile.left + cols < tile.board.cols()),
    ];
    for (lc, part, neighbour) in sides {
        part.fill(0);
        if !neighbour {
            continue;
        }
        for r in 1..=rows {
            if expanded(r, lc / WORD_BITS) >> (lc % WORD_BITS) & 1 == 0 {
                continue;
            }
            for next in [r - 1, r, r + 1] {
                if (1..=rows).contains(&next) {
                    set_bit(part, next - 1);
                }
            }
        }
    }
}

/// One game's view cut into tiles, bands of rows or squares, played a batch at a time on any
/// number of threads with the same result on every count; see the [module docs](self).
///
/// ```
/// use bitmines_core::{Board, Cell, Game, Move, Status, TiledGame};
///
/// let board: Board = "\
/// ....
/// ....
/// ....
/// ...*
/// "
/// .parse()?;
/// // Tiles of one row each: the cascade from (0, 0) crosses three tile edges.
/// let mut tiled = TiledGame::new(Game::new(board.clone()), 1)?;
/// let batch = tiled.apply(2, &[Move::Reveal(0, 0)])?;
/// assert_eq!((batch.opened, batch.handed_over), (4, 11));
/// assert_eq!(tiled.status(), Status::Won);
/// assert_eq!(tiled.cell(2, 2)?, Cell::Open(1));
/// let game = tiled.into_game()?;
/// assert_eq!(game.revealed_count(), 15);
///
/// // Squares of 2x2 cells: the cascade from the top left corner reaches the other three
/// // tiles, the bottom right one across its corner.
/// let mut squares = TiledGame::with_tiles(Game::new(board), 2, 2)?;
/// assert_eq!(squares.tiles().len(), 4);
/// let batch = squares.apply(2, &[Move::Reveal(0, 0)])?;
/// assert_eq!(batch.opened + batch.handed_over, 15);
/// assert_eq!(squares.status(), Status::Won);
/// # Ok::<(), bitmines_core::Error>(())
/// ```
pub struct TiledGame {
    board: Arc<Board>,
    rule: Rule,
    /// Rows and columns per tile, as asked.
    size: (usize, usize),
    /// Rows and columns per tile but those on the bottom and right edges: `size`, at most
    /// the board's.
    step: (usize, usize),
    /// Rows of tiles and tiles per row of tiles.
    grid: (usize, usize),
    tiles: Vec<Tile>,
    status: Status,
    seed: Option<u64>,
}

impl TiledGame {
    /// Cuts `game` into bands of `band` rows (the last may have fewer), each as wide as the
    /// board: [`TiledGame::with_tiles`] with `band` rows and the board's columns.
    ///
    /// # Errors
    /// As for [`TiledGame::with_tiles`].
    pub fn new(game: Game, band: usize) -> Result<TiledGame, Error> {
        let cols = game.cols();
        TiledGame::with_tiles(game, band, cols)
    }

    /// Cuts `game` into tiles of `rows x cols` cells, a grid of them from the top left; the
    /// tiles on the bottom and right edges may be smaller. Tiles `cols` or more wide are
    /// bands of rows.
    ///
    /// # Errors
    /// `EmptyTile` if `rows` or `cols` is 0; `Deferred` if the game's mines are not placed
    /// yet; `GameOver` if it has ended; `OutOfMemory` if the tiles' planes cannot be
    /// allocated.
    pub fn with_tiles(game: Game, rows: usize, cols: usize) -> Result<TiledGame, Error> {
        if rows == 0 || cols == 0 {
            return Err(Error::EmptyTile { rows, cols });
        }
        if game.deferred.is_some() {
            return Err(Error::Deferred);
        }
        game.check_playing()?;
        let (board_rows, board_cols) = (game.rows(), game.cols());
        let (tile_rows, tile_cols) = (rows.min(board_rows), cols.min(board_cols));
        let grid = (
            board_rows.div_ceil(tile_rows),
            board_cols.div_ceil(tile_cols),
        );
        let mut tiles = Vec::new();
        for i in 0..grid.0 {
            for j in 0..grid.1 {
                let (top, left) = (i * tile_rows, j * tile_cols);
                let size = (
                    tile_rows.min(board_rows - top),
                    tile_cols.min(board_cols - left),
                );
                tiles.push(Tile::new(tiles.len(), (i, j), (top, left), size, &game)?);
            }
        }
        Ok(TiledGame {
            board: Arc::clone(&game.board),
            rule: game.rule,
            size: (rows, cols),
            step: (tile_rows, tile_cols),
            grid,
            tiles,
            status: game.status,
            seed: game.seed,
        })
    }

    /// Rows and columns per tile, as asked (the tiles on the bottom and right edges may be
    /// smaller, and none is larger than the board).
    pub fn tile_size(&self) -> (usize, usize) {
        self.size
    }

    /// The grid of tiles: rows of tiles, and tiles in each row of tiles (1 for bands).
    pub fn grid(&self) -> (usize, usize) {
        self.grid
    }

    /// The tiles, row of tiles by row of tiles from the top, each row from the left.
    pub fn tiles(&self) -> &[Tile] {
        &self.tiles
    }

    /// The index of the tile that owns the cell `(row, col)`; a cell off the board gives one
    /// past the last tile.
    pub fn tile_of(&self, row: usize, col: usize) -> usize {
        if row >= self.rows() || col >= self.cols() {
            return self.tiles.len();
        }
        self.tile_index(row, col)
    }

    /// The index of the tile that owns `(row, col)`, a cell of the board.
    fn tile_index(&self, row: usize, col: usize) -> usize {
        match self.grid.1 {
            // Bands: the column has no say, and a division is saved.
            1 => row / self.step.0,
            across => row / self.step.0 * across + col / self.step.1,
        }
    }

    /// The game's status after the last batch.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The rule the game is played under.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The board.
    pub fn board(&self) -> &Arc<Board> {
        &self.board
    }

    /// Rows of the board.
    pub fn rows(&self) -> usize {
        self.board.rows()
    }

    /// Columns of the board.
    pub fn cols(&self) -> usize {
        self.board.cols()
    }

    /// Safe cells revealed, over every tile.
    pub fn revealed_count(&self) -> usize {
        self.tiles.iter().map(|t| t.revealed_count).sum()
    }

    /// Cells flagged, over every tile.
    pub fn flag_count(&self) -> usize {
        self.tiles.iter().map(|t| t.flag_count).sum()
    }

    /// Mines set off, over every tile.
    pub fn exploded_count(&self) -> usize {
        self.tiles.iter().map(|t| t.exploded.len()).sum()
    }

    /// What the player sees at `(row, col)`, as [`Game::cell`] shows it.
    ///
    /// # Errors
    /// `OffBoard` for a cell off the board.
    pub fn cell(&self, row: usize, col: usize) -> Result<Cell, Error> {
        self.board.geometry().bit(row, col)?;
        let tile = &self.tiles[self.tile_of(row, col)];
        let shown = tile.cell(row, col)?;
        let mine = self.board.is_mine(row, col)?;
        Ok(match (self.status, shown) {
            (Status::Lost, Cell::Flagged) if !mine => Cell::WrongFlag,
            (Status::Lost, Cell::Hidden) if mine => Cell::Mine,
            _ => shown,
        })
    }

    /// Plays one batch: `play(tile)` on every tile, spread over `threads` threads (at least
    /// one), then rounds of exchange until none opens anything. `play` makes its moves with
    /// [`Tile::reveal`], [`Tile::toggle_flag`] and [`Tile::chord`]; it may look at the tile
    /// it is given and nothing else of the game, so the batch gives the same game on any
    /// thread count.
    ///
    /// # Errors
    /// `GameOver` if the game has already ended.
    pub fn play(
        &mut self,
        threads: usize,
        play: impl Fn(&mut Tile) + Sync,
    ) -> Result<Batch, Error> {
        if self.status != Status::Playing {
            return Err(Error::GameOver {
                status: self.status,
            });
        }
        self.refresh_halos();
        let before = self.totals();
        let mut shares = vec![ThreadShare::default(); threads.max(1)];
        on_threads(&mut self.tiles, &mut shares, &play);
        let moved = self.totals();
        // A move may have changed what a tile owes even where it opened nothing (a flag
        // taken off a cell next to an edge's zero cell): the first round asks every tile.
        for tile in &mut self.tiles {
            tile.fresh = true;
        }
        let mut rounds = 0;
        let mut outs: Vec<Ring> = self.tiles.iter().map(|t| Ring::new(&t.local)).collect();
        let (across, width) = (self.grid.1, self.step.1);
        loop {
            rounds += 1;
            let mut owed = false;
            for (tile, out) in self.tiles.iter_mut().zip(outs.iter_mut()) {
                owed |= tile.hand_over(out);
            }
            if !owed {
                break;
            }
            let outs_ref = &outs;
            let changed = Mutex::new(false);
            on_threads(&mut self.tiles, &mut shares, &|tile: &mut Tile| {
                tile.gather(outs_ref, across, width);
                if tile.take() != (0, 0) {
                    *changed.lock().unwrap_or_else(PoisonError::into_inner) = true;
                }
            });
            if !changed.into_inner().unwrap_or_else(PoisonError::into_inner) {
                break;
            }
        }
        let after = self.totals();
        self.update_status();
        Ok(Batch {
            opened: moved.0 - before.0,
            handed_over: after.0 - moved.0,
            exploded: after.1 - before.1,
            rounds,
            threads: shares,
        })
    }

    /// Plays `moves` as one batch on `threads` threads: each tile makes the moves on its own
    /// cells, in the order given, and a move the tile refuses because it lost (a mine set
    /// off under the classic rule) is skipped, as is every later move of that tile.
    ///
    /// # Errors
    /// `OffBoard` naming the first move off the board, before any move is made; `GameOver`
    /// if the game has already ended.
    pub fn apply(&mut self, threads: usize, moves: &[Move]) -> Result<Batch, Error> {
        let geometry = *self.board.geometry();
        let mut lists = vec![Vec::new(); self.tiles.len()];
        for &step in moves {
            let (row, col) = step.cell();
            geometry.bit(row, col)?;
            lists[self.tile_index(row, col)].push(step);
        }
        self.play(threads, |tile| {
            for &step in &lists[tile.index] {
                let (row, col) = step.cell();
                let done = match step {
                    Move::Reveal(..) => tile.reveal(row, col).map(drop),
                    Move::Flag(..) => tile.toggle_flag(row, col).map(drop),
                    Move::Chord(..) => tile.chord(row, col).map(drop),
                };
                if done.is_err() {
                    break;
                }
            }
        })
    }

    /// The game as one [`Game`], for saving, pictures and everything else a game does. Its
    /// exploded mines are listed tile by tile, each tile's in the order they exploded.
    ///
    /// # Errors
    /// `OutOfMemory` if the game's planes cannot be allocated.
    pub fn to_game(&self) -> Result<Game, Error> {
        let stride = self.board.geometry().stride();
        let mut game = Game::blank(Arc::clone(&self.board), None)?;
        for tile in &self.tiles {
            let (ls, cols) = (tile.local.stride(), tile.local.cols());
            for lr in 1..=tile.local.rows() {
                let (to, from) = ((tile.top + lr) * stride + tile.left + 1, lr * ls + 1);
                copy_bits(game.revealed.words_mut(), to, &tile.revealed, from, cols);
                copy_bits(game.flagged.words_mut(), to, &tile.flagged, from, cols);
            }
            for &bit in &tile.exploded {
                game.exploded.push(bit);
                game.exploded_set.insert(bit);
            }
        }
        game.revealed_count = self.revealed_count();
        game.flag_count = self.flag_count();
        game.rule = self.rule;
        game.seed = self.seed;
        game.status = self.status;
        Ok(game)
    }

    /// The game as one [`Game`]; see [`TiledGame::to_game`].
    ///
    /// # Errors
    /// As for [`TiledGame::to_game`].
    pub fn into_game(self) -> Result<Game, Error> {
        self.to_game()
    }

    /// Checks the tiles' invariants and the game's: no tile owes a neighbour a cell (every
    /// revealed zero cell of an edge row or column has its neighbours past the edge revealed
    /// or flagged, and no chord's cells wait), the halo rings and padding of the revealed
    /// planes are all set, and the game put together passes [`Game::validate`], its status
    /// included.
    pub fn validate(&self) -> Result<(), Error> {
        let invalid = |reason: String| Err(Error::Invalid { reason });
        for (t, tile) in self.tiles.iter().enumerate() {
            let local = tile.local;
            let wpr = local.words_per_row();
            for (w, &word) in tile.revealed.iter().enumerate() {
                let lr = w / wpr;
                let cells = match (1..=local.rows()).contains(&lr) {
                    true => local.cell_mask(w % wpr),
                    false => 0,
                };
                if word | cells != !0 {
                    return invalid(format!("the halo of tile {t} is not all revealed"));
                }
            }
            if !tile.scratch.is_clean() {
                return invalid(format!("the cascade left cells pending in tile {t}"));
            }
            if !tile.asks.is_empty() {
                return invalid(format!("tile {t} has a chord's cells waiting"));
            }
            let mut out = Ring::new(&local);
            spill(tile, &mut out);
            for place in out.cells(&local) {
                let Some((row, col)) = tile.board_cell(place) else {
                    continue;
                };
                let owner = &self.tiles[self.tile_of(row, col)];
                if !matches!(owner.cell(row, col)?, Cell::Open(_) | Cell::Flagged) {
                    return invalid(format!(
                        "tile {t} owes tile {} the cell ({row}, {col})",
                        owner.index
                    ));
                }
            }
        }
        let game = self.to_game()?;
        game.validate()?;
        if game.status != self.status {
            return invalid(format!("status {} after the batch", self.status));
        }
        Ok(())
    }

    fn totals(&self) -> (usize, usize) {
        (self.revealed_count(), self.exploded_count())
    }

    fn update_status(&mut self) {
        let lost = self.rule == Rule::Classic && self.exploded_count() > 0;
        self.status = if lost {
            Status::Lost
        } else if self.revealed_count() == self.board.safe_count() {
            Status::Won
        } else {
            Status::Playing
        };
    }

    /// The tile at `(i, j)` of the grid, if there is one.
    fn tile_at(&self, i: Option<usize>, j: Option<usize>) -> Option<&Tile> {
        let (i, j) = (i?, j?);
        (i < self.grid.0 && j < self.grid.1).then(|| &self.tiles[i * self.grid.1 + j])
    }

    /// The flags and exploded mines of tile `t`'s halo ring, from its neighbours' edges; the
    /// exploded ones only when a neighbour has an exploded plane.
    fn halo_of(&self, t: usize) -> (Ring, Option<Ring>) {
        let tile = &self.tiles[t];
        let (i, j) = tile.place;
        let local = tile.local;
        let (rows, cols) = (local.rows(), local.cols());
        let (up, down, left, right) =
            (i.checked_sub(1), Some(i + 1), j.checked_sub(1), Some(j + 1));
        let mut flags = Ring::new(&local);
        let mut exploded = Ring::new(&local);
        let mut any_exploded = false;
        // The rows above and below, from the tiles straight above and below, a word at a
        // time.
        for (neighbour_row, above) in [(up, true), (down, false)] {
            if let Some(from) = self.tile_at(neighbour_row, Some(j)) {
                let edge = if above { from.local.rows() } else { 1 };
                let at = edge * from.local.stride() + 1;
                let (f, e) = match above {
                    true => (&mut flags.top, &mut exploded.top),
                    false => (&mut flags.bottom, &mut exploded.bottom),
                };
                copy_bits(f, 1, &from.flagged, at, cols);
                if !from.exploded_plane.is_empty() {
                    any_exploded = true;
                    copy_bits(e, 1, &from.exploded_plane, at, cols);
                }
            }
        }
        // The corners and the columns beside, a cell at a time: the neighbour, the cell of
        // its own, and the place in this tile's ring.
        let mut cells = Vec::new();
        for (neighbour_row, lr, above) in [(up, 0, true), (down, rows + 1, false)] {
            if let Some(from) = self.tile_at(neighbour_row, left) {
                let edge = if above { from.local.rows() } else { 1 };
                cells.push((from, (edge, from.local.cols()), (lr, 0)));
            }
            if let Some(from) = self.tile_at(neighbour_row, right) {
                let edge = if above { from.local.rows() } else { 1 };
                cells.push((from, (edge, 1), (lr, cols + 1)));
            }
        }
        for (neighbour, lc) in [(left, 0), (right, cols + 1)] {
            if let Some(from) = self.tile_at(Some(i), neighbour) {
                let edge = if lc == 0 { from.local.cols() } else { 1 };
                cells.extend((1..=rows).map(|r| (from, (r, edge), (r, lc))));
            }
        }
        for (from, at, place) in cells {
            let (flag, blown) = from.marks_at(at);
            any_exploded |= !from.exploded_plane.is_empty();
            if flag {
                flags.mark(place, rows);
            }
            if blown {
                exploded.mark(place, rows);
            }
        }
        (flags, any_exploded.then_some(exploded))
    }

    /// Copies every tile's edge cells into its neighbours' halo rings.
    fn refresh_halos(&mut self) {
        let halos: Vec<_> = (0..self.tiles.len()).map(|t| self.halo_of(t)).collect();
        for (tile, halo) in self.tiles.iter_mut().zip(halos) {
            tile.set_halo(halo);
        }
    }
}

/// Runs `work` on every item (a tile, a band), each on one of `shares.len()` threads at a
/// time, the threads taking the next item as they come free; adds each thread's turns and
/// time to its share. What an item ends as depends only on the item and `work`, never on
/// which thread took it.
pub(crate) fn on_threads<T: Send>(
    tiles: &mut [T],
    shares: &mut [ThreadShare],
    work: &(impl Fn(&mut T) + Sync),
) {
    let timed = |tile: &mut T, share: &mut ThreadShare| {
        let started = Instant::now();
        work(tile);
        share.turns += 1;
        share.busy += started.elapsed();
    };
    if shares.len() <= 1 || tiles.len() <= 1 {
        if let Some(share) = shares.first_mut() {
            tiles.iter_mut().for_each(|tile| timed(tile, share));
        }
        return;
    }
    let queue = Mutex::new(tiles.iter_mut());
    std::thread::scope(|scope| {
        for share in shares.iter_mut() {
            let (queue, timed) = (&queue, &timed);
            scope.spawn(move || {
                loop {
                    let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
                    match next {
                        Some(tile) => timed(tile, share),
                        None => break,
                    }
                }
            });
        }
    });
}

impl std::fmt::Debug for TiledGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TiledGame")
            .field("rows", &self.rows())
            .field("cols", &self.cols())
            .field("tile_size", &self.size)
            .field("tiles", &self.tiles.len())
            .field("revealed", &self.revealed_count())
            .field("flagged", &self.flag_count())
            .field("status", &self.status)
            .finish()
    }
}

// Tiles move to the threads that play them.
const _: () = {
    const fn send<T: Send>() {}
    send::<Tile>();
    send::<TiledGame>();
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The word copy moves the bits the bit-at-a-time copy moves, at every alignment of
        /// source and destination, and leaves the rest of the destination alone.
        #[test]
        fn copy_bits_agrees_with_its_naive_twin(
            src in proptest::collection::vec(any::<u64>(), 1..6),
            dst in proptest::collection::vec(any::<u64>(), 1..6),
            from in 0usize..384,
            to in 0usize..384,
            len in 0usize..384,
        ) {
            let from = from % (src.len() * WORD_BITS);
            let to = to % (dst.len() * WORD_BITS);
            let len = len.min(dst.len() * WORD_BITS - to);
            let (mut fast, mut naive) = (dst.clone(), dst);
            copy_bits(&mut fast, to, &src, from, len);
            copy_bits_naive(&mut naive, to, &src, from, len);
            prop_assert_eq!(fast, naive);
        }
    }
}
