//! A game played in tiles: bands of rows, each owned by one thread at a time.
//!
//! A [`TiledGame`] cuts one game's view into [`Tile`]s of `band` rows each (the last may be
//! shorter). A tile holds the revealed and flagged planes of its own rows, padded like a
//! board's, plus one halo row above and one below. In the revealed plane the halo rows are
//! all ones, like the sentinel border, so the word cascade run on a tile never leaves it; in
//! the flagged plane (and the exploded one) they are a copy of the neighbour's edge row as it
//! stood when the batch began, which is all a chord on an edge row needs to read.
//!
//! Play goes in batches ([`TiledGame::play`], [`TiledGame::apply`]). Every tile first plays
//! its own moves on its own cells, tiles side by side on as many threads as asked. Then come
//! rounds of exchange: each tile hands each neighbour the cells past its edge that it owes
//! it (the neighbours of the revealed zero cells of its edge row, and the cells of a chord on
//! its edge row that lie past it), and each tile reveals what it was handed, cascades
//! included. The rounds go on until a round opens nothing. A round first collects every
//! tile's hand-over and then lets each tile apply its own, so what a tile does never depends
//! on how the tiles were spread over the threads: the same moves give the same game on any
//! thread count.
//!
//! Within a batch a move sees its own tile as it is and the rest of the board as it stood
//! when the batch began. For moves whose order cannot matter (reveals, flags on mines and
//! their removal, mines set off under [`Rule::Endless`], chords on cells revealed before the
//! batch while no flag changes) the result is that of [`Game`] playing the same moves one
//! after another in any order; `tests/tiled.rs` holds it to that.

#![allow(
    clippy::indexing_slicing,
    reason = "word and bit indices come from the tile's own layout (rows + 2 padded rows of \
              the board's words per row); public entry points check coordinates first"
)]

use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::cascade::{self, Planes};
use crate::geometry::WORD_BITS;
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

/// Rows `top..top + rows` of a game's view, played by one thread at a time; see the
/// [module docs](self).
// Every move writes the tile's counters, and every cascade its scratch's row stack: aligned
// to two cache lines, two tiles played side by side never write to one line.
#[repr(align(128))]
pub struct Tile {
    index: usize,
    top: usize,
    rows: usize,
    board: Arc<Board>,
    rule: Rule,
    /// The tile's rows and its two halo rows, padded like a board's planes; the halo rows are
    /// all ones, so no cascade leaves the tile.
    revealed: Vec<u64>,
    /// Flags of the tile's rows, and in the halo rows the neighbours' flags as of the batch.
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
    /// Cells past the top and bottom edges a chord asked to reveal, one row of words each.
    asks: [Vec<u64>; 2],
    work: TileWork,
}

impl Tile {
    fn new(index: usize, top: usize, rows: usize, game: &Game) -> Result<Tile, Error> {
        let geometry = *game.board.geometry();
        let wpr = geometry.words_per_row();
        let local = Geometry::new(rows, geometry.cols())?;
        let span = top * wpr..(top + rows + 2) * wpr;
        let mut revealed = game.revealed.words()[span.clone()].to_vec();
        revealed[..wpr].fill(!0);
        revealed[(rows + 1) * wpr..].fill(!0);
        let flagged = game.flagged.words()[span].to_vec();
        let own = |bit: usize| (top + 1..=top + rows).contains(&(bit / geometry.stride()));
        let exploded: Vec<usize> = game.exploded.iter().copied().filter(|&b| own(b)).collect();
        let mut exploded_plane = Vec::new();
        if !exploded.is_empty() {
            exploded_plane = vec![0u64; revealed.len()];
            for &bit in &exploded {
                let local = bit - top * wpr * WORD_BITS;
                exploded_plane[local / WORD_BITS] |= 1 << (local % WORD_BITS);
            }
        }
        let cells = |words: &[u64]| {
            words[wpr..(rows + 1) * wpr]
                .iter()
                .map(|w| w.count_ones() as usize)
                .sum::<usize>()
        };
        let mut tile = Tile {
            index,
            top,
            rows,
            board: Arc::clone(&game.board),
            rule: game.rule,
            revealed_count: 0,
            flag_count: cells(&flagged),
            revealed,
            flagged,
            exploded_plane,
            exploded,
            lost: false,
            scratch: cascade::words::Scratch::new(&local)?,
            asks: [vec![0; wpr], vec![0; wpr]],
            work: TileWork::default(),
        };
        tile.revealed_count = (1..=rows)
            .flat_map(|r| (0..wpr).map(move |j| (r, j)))
            .map(|(r, j)| {
                (tile.revealed[r * wpr + j] & geometry.cell_mask(j)).count_ones() as usize
            })
            .sum();
        Ok(tile)
    }

    /// The tile's place in its game, from 0 at the top.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The board rows the tile owns.
    pub fn rows(&self) -> Range<usize> {
        self.top..self.top + self.rows
    }

    /// Columns of the board.
    pub fn cols(&self) -> usize {
        self.board.cols()
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

    fn wpr(&self) -> usize {
        self.board.geometry().words_per_row()
    }

    /// Words of the board's planes before the tile's first halo row.
    fn offset(&self) -> usize {
        self.top * self.wpr()
    }

    /// The tile-local bit of `(row, col)`, which must be one of the tile's cells.
    fn bit(&self, row: usize, col: usize) -> Result<usize, Error> {
        let geometry = self.board.geometry();
        geometry.bit(row, col)?;
        if !self.rows().contains(&row) {
            return Err(Error::OffTile {
                row,
                col,
                top: self.top,
                bottom: self.top + self.rows,
            });
        }
        Ok((row - self.top + 1) * geometry.stride() + col + 1)
    }

    fn get(words: &[u64], bit: usize) -> bool {
        words
            .get(bit / WORD_BITS)
            .is_some_and(|w| w >> (bit % WORD_BITS) & 1 != 0)
    }

    fn is_mine(&self, bit: usize) -> bool {
        Tile::get(self.board.mines().words(), bit + self.offset() * WORD_BITS)
    }

    fn is_exploded(&self, bit: usize) -> bool {
        Tile::get(&self.exploded_plane, bit)
    }

    fn is_closed(&self, bit: usize) -> bool {
        Tile::get(&self.revealed, bit) || Tile::get(&self.flagged, bit) || self.is_exploded(bit)
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

    fn explode(&mut self, bit: usize) {
        if self.exploded_plane.is_empty() {
            self.exploded_plane = vec![0; self.revealed.len()];
        }
        self.exploded_plane[bit / WORD_BITS] |= 1 << (bit % WORD_BITS);
        self.exploded.push(bit + self.offset() * WORD_BITS);
        self.work.exploded += 1;
        if self.rule == Rule::Classic {
            self.lost = true;
        }
    }

    /// Opens the hidden, unflagged safe cell `bit` (tile-local) with the word fill.
    fn open(&mut self, bit: usize) -> usize {
        let (start, len) = (self.offset(), self.revealed.len());
        let mut planes = Planes {
            zero: &self.board.zero().words()[start..start + len],
            revealed: &mut self.revealed,
            flagged: &self.flagged,
            unflagged: false,
            words_per_row: self.board.geometry().words_per_row(),
        };
        let opened = cascade::words::fill(&mut planes, &mut self.scratch, bit);
        self.revealed_count += opened;
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
        let bit = self.bit(row, col)?;
        self.work.moves += 1;
        if self.is_closed(bit) {
            return Ok(self.result(0, 0));
        }
        if self.is_mine(bit) {
            self.explode(bit);
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
    /// row the flags and exploded mines of the neighbour's row count as they stood when the
    /// batch began, and the hidden cells past the edge are revealed in the rounds of
    /// exchange, so the [`Reveal`] counts only what opened on this tile.
    ///
    /// # Errors
    /// As for [`Tile::reveal`].
    pub fn chord(&mut self, row: usize, col: usize) -> Result<Reveal, Error> {
        self.check_playing()?;
        let bit = self.bit(row, col)?;
        self.work.moves += 1;
        if !Tile::get(&self.revealed, bit) {
            return Ok(self.result(0, 0));
        }
        let stride = self.board.geometry().stride();
        let around = super::neighbours(bit, stride);
        let flags = [bit - stride - 1, bit - 1, bit + stride - 1]
            .map(|b| three(&self.flagged, b).count_ones())
            .iter()
            .sum::<u32>() as usize;
        let exploded = around.iter().filter(|&&n| self.is_exploded(n)).count();
        let number = self.board.number_at(bit + self.offset() * WORD_BITS);
        if flags + exploded != usize::from(number) {
            return Ok(self.result(0, 0));
        }
        let (mut opened, mut blown) = (0, 0);
        let last = self.rows * stride;
        for n in around {
            // A cell past an edge is the neighbour's: ask for it, unless the edge is the
            // board's own.
            let (past, side) = (n < stride || n >= last + stride, usize::from(n >= stride));
            if past {
                let board_row = (n / stride + self.top).wrapping_sub(1);
                let col = (n % stride).wrapping_sub(1);
                if board_row < self.board.rows() && col < self.board.cols() {
                    let j = n % stride / WORD_BITS;
                    self.asks[side][j] |= 1 << (n % WORD_BITS);
                }
                continue;
            }
            if self.is_closed(n) {
                continue;
            }
            if self.is_mine(n) {
                self.explode(n);
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
        let bit = self.bit(row, col)?;
        Ok(if Tile::get(&self.revealed, bit) {
            Cell::Open(self.board.number_at(bit + self.offset() * WORD_BITS))
        } else if Tile::get(&self.flagged, bit) {
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

    /// Words of the tile-local padded row `row` in a plane.
    fn row_words(&self, row: usize) -> Range<usize> {
        let wpr = self.wpr();
        row * wpr..(row + 1) * wpr
    }

    /// What the tile owes its neighbour on `side` (0 above, 1 below): the cells of the
    /// neighbour's edge row next to a revealed zero cell of this tile's edge row, and those
    /// a chord asked for. Taking the chord's asks leaves them empty.
    fn hand_over(&mut self, side: usize, out: &mut [u64]) {
        spill(self, side, out);
        for (o, ask) in out.iter_mut().zip(self.asks[side].iter_mut()) {
            *o |= std::mem::take(ask);
        }
    }

    /// Reveals the cells `cells` of the tile's edge row on `side` (0 top, 1 bottom) that a
    /// neighbour handed over, in increasing order, as reveals would. Returns the safe cells
    /// opened and the mines set off.
    fn take(&mut self, side: usize, cells: &[u64]) -> (usize, usize) {
        let row = if side == 0 { 1 } else { self.rows };
        let base = row * self.wpr();
        let (mut opened, mut blown) = (0, 0);
        for (j, &set) in cells.iter().enumerate() {
            let w = base + j;
            let mut done = 0u64;
            loop {
                let todo = set & !done & !(self.revealed[w] | self.flagged[w]);
                if todo == 0 {
                    break;
                }
                let at = todo.trailing_zeros();
                done |= 1 << at;
                let bit = w * WORD_BITS + at as usize;
                if self.is_exploded(bit) {
                    continue;
                }
                if self.is_mine(bit) {
                    self.explode(bit);
                    blown += 1;
                } else {
                    opened += self.open(bit);
                }
            }
        }
        self.work.handed_in += opened as u64;
        (opened, blown)
    }

    /// The flags and exploded mines of the tile's edge row on `side` (0 top, 1 bottom).
    fn edge(&self, side: usize) -> (Vec<u64>, Option<Vec<u64>>) {
        let row = if side == 0 { 1 } else { self.rows };
        let words = self.row_words(row);
        let exploded =
            (!self.exploded_plane.is_empty()).then(|| self.exploded_plane[words.clone()].to_vec());
        (self.flagged[words].to_vec(), exploded)
    }

    /// Copies a neighbour's edge row into the halo row on `side` (0 above, 1 below).
    fn set_halo(&mut self, side: usize, (flags, exploded): (Vec<u64>, Option<Vec<u64>>)) {
        let row = if side == 0 { 0 } else { self.rows + 1 };
        let words = self.row_words(row);
        self.flagged[words.clone()].copy_from_slice(&flags);
        match exploded {
            Some(exploded) => {
                if self.exploded_plane.is_empty() {
                    self.exploded_plane = vec![0; self.revealed.len()];
                }
                self.exploded_plane[words].copy_from_slice(&exploded);
            }
            None if !self.exploded_plane.is_empty() => self.exploded_plane[words].fill(0),
            None => {}
        }
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
            .field("revealed", &self.revealed_count)
            .field("flagged", &self.flag_count)
            .field("exploded", &self.exploded.len())
            .finish()
    }
}

/// One game's view cut into bands of rows, played a batch at a time on any number of
/// threads with the same result on every count; see the [module docs](self).
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
/// let mut tiled = TiledGame::new(Game::new(board), 1)?;
/// let batch = tiled.apply(2, &[Move::Reveal(0, 0)])?;
/// assert_eq!((batch.opened, batch.handed_over), (4, 11));
/// assert_eq!(tiled.status(), Status::Won);
/// assert_eq!(tiled.cell(2, 2)?, Cell::Open(1));
/// let game = tiled.into_game()?;
/// assert_eq!(game.revealed_count(), 15);
/// # Ok::<(), bitmines_core::Error>(())
/// ```
pub struct TiledGame {
    board: Arc<Board>,
    rule: Rule,
    band: usize,
    tiles: Vec<Tile>,
    status: Status,
    seed: Option<u64>,
}

impl TiledGame {
    /// Cuts `game` into tiles of `band` rows (the last may have fewer).
    ///
    /// # Errors
    /// `EmptyTile` if `band` is 0; `Deferred` if the game's mines are not placed yet;
    /// `GameOver` if it has ended; `OutOfMemory` if the tiles' planes cannot be allocated.
    pub fn new(game: Game, band: usize) -> Result<TiledGame, Error> {
        if band == 0 {
            return Err(Error::EmptyTile { rows: band });
        }
        if game.deferred.is_some() {
            return Err(Error::Deferred);
        }
        game.check_playing()?;
        let rows = game.rows();
        let tiles = (0..rows.div_ceil(band))
            .map(|i| Tile::new(i, i * band, band.min(rows - i * band), &game))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TiledGame {
            board: Arc::clone(&game.board),
            rule: game.rule,
            band,
            tiles,
            status: game.status,
            seed: game.seed,
        })
    }

    /// Rows per tile (the last tile may have fewer).
    pub fn band(&self) -> usize {
        self.band
    }

    /// The tiles, from the top of the board down.
    pub fn tiles(&self) -> &[Tile] {
        &self.tiles
    }

    /// The index of the tile that owns board row `row` (a row past the board gives one past
    /// the last tile).
    pub fn tile_of(&self, row: usize) -> usize {
        (row / self.band).min(self.tiles.len())
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
        let tile = &self.tiles[self.tile_of(row)];
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
        let mut rounds = 0;
        let wpr = self.board.geometry().words_per_row();
        let mut outs = vec![[vec![0u64; wpr], vec![0u64; wpr]]; self.tiles.len()];
        loop {
            rounds += 1;
            for (tile, out) in self.tiles.iter_mut().zip(outs.iter_mut()) {
                let [up, down] = out;
                tile.hand_over(0, up);
                tile.hand_over(1, down);
            }
            // Tile t takes what t - 1 handed down and what t + 1 handed up.
            let outs_ref = &outs;
            let changed = Mutex::new(false);
            on_threads(&mut self.tiles, &mut shares, &|tile: &mut Tile| {
                let t = tile.index;
                let mut moved = (0, 0);
                if let Some(above) = t.checked_sub(1).and_then(|a| outs_ref.get(a)) {
                    let (o, e) = tile.take(0, &above[1]);
                    moved = (moved.0 + o, moved.1 + e);
                }
                if let Some(below) = outs_ref.get(t + 1) {
                    let (o, e) = tile.take(1, &below[0]);
                    moved = (moved.0 + o, moved.1 + e);
                }
                if moved != (0, 0) {
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
            lists[self.tile_of(row)].push(step);
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
        let geometry = *self.board.geometry();
        let wpr = geometry.words_per_row();
        let mut game = Game::blank(Arc::clone(&self.board), None)?;
        for tile in &self.tiles {
            let own = wpr..(tile.rows + 1) * wpr;
            let at = (tile.top + 1) * wpr;
            game.revealed.words_mut()[at..at + own.len()]
                .copy_from_slice(&tile.revealed[own.clone()]);
            game.flagged.words_mut()[at..at + own.len()].copy_from_slice(&tile.flagged[own]);
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
    /// revealed zero cell of an edge row has its neighbours past the edge revealed or
    /// flagged, and no chord's cells wait), the halo rows of the revealed planes are all
    /// set, and the game put together passes [`Game::validate`], its status included.
    pub fn validate(&self) -> Result<(), Error> {
        let invalid = |reason: String| Err(Error::Invalid { reason });
        let wpr = self.board.geometry().words_per_row();
        let mut out = vec![0u64; wpr];
        for (t, tile) in self.tiles.iter().enumerate() {
            for row in [0, tile.rows + 1] {
                if tile.revealed[tile.row_words(row)].iter().any(|&w| w != !0) {
                    return invalid(format!("halo row {row} of tile {t} is not all revealed"));
                }
            }
            if !tile.scratch.is_clean() {
                return invalid(format!("the cascade left cells pending in tile {t}"));
            }
            for side in [0, 1] {
                if tile.asks[side].iter().any(|&w| w != 0) {
                    return invalid(format!("tile {t} has a chord's cells waiting"));
                }
                let neighbour = match side {
                    0 => t.checked_sub(1).and_then(|n| self.tiles.get(n)),
                    _ => self.tiles.get(t + 1),
                };
                let Some(neighbour) = neighbour else { continue };
                spill(tile, side, &mut out);
                let row = if side == 0 { neighbour.rows } else { 1 };
                let words = neighbour.row_words(row);
                let closed = neighbour.revealed[words.clone()]
                    .iter()
                    .zip(&neighbour.flagged[words]);
                if out
                    .iter()
                    .zip(closed)
                    .any(|(&o, (&r, &f))| o & !(r | f) != 0)
                {
                    return invalid(format!("tile {t} owes tile {} a cell", neighbour.index));
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

    /// Copies every tile's edge rows into its neighbours' halo rows.
    fn refresh_halos(&mut self) {
        let edges: Vec<_> = self.tiles.iter().map(|t| [t.edge(0), t.edge(1)]).collect();
        for (t, edge) in edges.into_iter().enumerate() {
            let [top, bottom] = edge;
            if let Some(above) = t.checked_sub(1).and_then(|a| self.tiles.get_mut(a)) {
                above.set_halo(1, top);
            }
            if let Some(below) = self.tiles.get_mut(t + 1) {
                below.set_halo(0, bottom);
            }
        }
    }
}

/// The cells past `side` of `tile` next to a revealed zero cell of its edge row.
fn spill(tile: &Tile, side: usize, out: &mut [u64]) {
    let row = if side == 0 { 1 } else { tile.rows };
    let geometry = tile.board.geometry();
    let wpr = geometry.words_per_row();
    let start = tile.offset() + row * wpr;
    let zero = &tile.board.zero().words()[start..start + wpr];
    let revealed = &tile.revealed[tile.row_words(row)];
    let expanded = |j: usize| zero[j] & revealed[j];
    for (j, o) in out.iter_mut().enumerate() {
        let z = expanded(j);
        let left = if j > 0 { expanded(j - 1) >> 63 } else { 0 };
        let right = if j + 1 < wpr {
            expanded(j + 1) << 63
        } else {
            0
        };
        *o = (z | z << 1 | z >> 1 | left | right) & geometry.cell_mask(j);
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
            .field("band", &self.band)
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
