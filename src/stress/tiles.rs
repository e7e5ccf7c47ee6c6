//! The truth player on every thread: the game cut into tiles ([`TiledGame`]), bands of rows
//! or squares (`--tiles`), each tile played by a walk of its own, on whichever thread takes
//! it.
//!
//! The first click is played on the whole game, as in a run on one thread. Then every tile
//! ([`BAND`] rows of the board's width, or [`SQUARE`] cells) is walked in its own seeded
//! order ([`TileWalk`] over the tile, keyed by the seed and the tile's index), and at each
//! hidden cell the player does what the truth player does: flags half the mines (one in
//! eight flagged and unflagged again), opens a quarter of the safe cells by a chord on a
//! revealed numbered neighbour after flagging that neighbour's mines, and reveals the rest.
//! A player on a tile looks at its tile alone, so a chord is made only where the chorded
//! cell's neighbours all lie in the tile; a cascade that reaches a tile's edge goes on in
//! the rounds of exchange after the walks. The tiles are fixed by their shape, not by the
//! threads, so a seed gives the same moves, the same counts and the same final game on any
//! thread count.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use bitmines_core::tiled::Batch;
use bitmines_core::{Board, Cell, Error, Game, Tile, TiledGame};
use indicatif::ProgressBar;
use serde::Serialize;

use super::play::{Calls, Player, PlayerKind, Table, around};
use super::walk::{TileWalk, mix};
use crate::moves::Act;

/// Rows per band of a tiled run: small enough that a 10^8-cell board has dozens of bands for
/// the threads to share, large enough that few cascades cross an edge.
pub(crate) const BAND: usize = 256;

/// Rows and columns of a square tile: as many rows as a band, and 254 columns, so that a
/// padded row of the tile (its cells and the two of its halo) fills four words exactly.
pub(crate) const SQUARE: (usize, usize) = (256, 254);

/// The shape of the tiles a tiled run cuts the board into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Shape {
    /// Bands of 256 whole rows: two neighbours each, edges along the planes' words.
    #[default]
    Bands,
    /// Squares of 256 rows and 254 columns: eight neighbours each, shorter edges.
    Squares,
}

impl Shape {
    /// Rows and columns per tile on a board `cols` wide.
    pub(crate) fn size(self, cols: usize) -> (usize, usize) {
        match self {
            Shape::Bands => (BAND, cols),
            Shape::Squares => SQUARE,
        }
    }
}

/// Cells a band's walk visits between two looks at Ctrl-C.
const LOOK: u64 = 1 << 12;

/// How the play of a tiled run went, for the report.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Tiles {
    /// The shape of the tiles.
    pub(crate) shape: Shape,
    /// Rows per tile.
    pub(crate) band: usize,
    /// Columns per tile (the board's for bands).
    pub(crate) tile_cols: usize,
    /// Tiles of the board.
    pub(crate) tiles: usize,
    /// Rounds of exchange after the walks.
    pub(crate) rounds: usize,
    /// Safe cells opened by the exchange: cascades that crossed a tile's edge.
    pub(crate) handed_over: u64,
    /// What each thread did, in the order the threads were started.
    pub(crate) threads: Vec<ThreadPlay>,
}

/// One thread's part of a tiled run's play.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ThreadPlay {
    /// Tiles walked, and tiles' turns in the rounds of exchange.
    pub(crate) turns: u64,
    /// Seconds spent on them.
    pub(crate) busy_seconds: f64,
}

/// Whether a run of `player` plays in tiles: the truth player does, except when a call count
/// matters (`--check` replays each call on twins, `--png-after` and `--save-every` count
/// calls on the whole game).
pub(crate) fn applies(player: PlayerKind, check: bool, per_call: bool) -> bool {
    player == PlayerKind::Truth && !check && !per_call
}

/// Plays the game of `table` with the truth player on `threads` threads: the first click on
/// the whole game, then every tile of `shape`. Returns the cells visited and the tiled play's
/// figures; the table's game and calls are the game's and calls' after the run.
pub(crate) fn play(
    table: &mut Table,
    board: &Board,
    (seed, first_click): (u64, Option<(usize, usize)>),
    (shape, threads): (Shape, usize),
    progress: &ProgressBar,
    interrupted: &AtomicBool,
) -> anyhow::Result<(u64, Tiles)> {
    if let Some(cell) = first_click
        && table.game.status() == bitmines_core::Status::Playing
    {
        let mut acts = Vec::new();
        Player::new(PlayerKind::Truth, seed).plan(&table.game, board, cell, &mut acts)?;
        for act in acts {
            table.apply(act).map_err(anyhow::Error::msg)?;
        }
    }
    let (rows, cols) = shape.size(board.cols());
    let mut summary = Tiles {
        shape,
        band: rows,
        tile_cols: cols.min(board.cols()),
        tiles: 0,
        rounds: 0,
        handed_over: 0,
        threads: Vec::new(),
    };
    if table.game.status() != bitmines_core::Status::Playing {
        return Ok((0, summary));
    }
    let placeholder = Game::try_new(Board::empty(1, 1)?)?;
    let game = std::mem::replace(&mut table.game, placeholder);
    let mut tiled = TiledGame::with_tiles(game, rows, cols)?;
    summary.tiles = tiled.tiles().len();
    let player = TruthOnTile {
        seed: mix(seed ^ 0x9A4E_5EED),
        walk_seed: mix(seed ^ 0x7113_5EED),
        board,
        interrupted,
        progress,
    };
    let results: Vec<Mutex<Option<BandResult>>> =
        (0..tiled.tiles().len()).map(|_| Mutex::new(None)).collect();
    let batch: Batch = tiled.play(threads, |tile| {
        let result = player.play(tile);
        if let Some(slot) = results.get(tile.index()) {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
        }
    })?;
    let mut visited = 0;
    for slot in results {
        if let Some(result) = slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
            let (calls, walked) = result?;
            add(&mut table.calls, &calls);
            visited += walked;
        }
    }
    table.calls.opened += batch.handed_over as u64;
    summary.rounds = batch.rounds;
    summary.handed_over = batch.handed_over as u64;
    summary.threads = batch
        .threads
        .iter()
        .map(|share| ThreadPlay {
            turns: share.turns,
            busy_seconds: share.busy.as_secs_f64(),
        })
        .collect();
    table.game = tiled.into_game()?;
    Ok((visited, summary))
}

/// What a tile's walk ends with: its calls and the cells it visited, or the error that
/// stopped it.
type BandResult = Result<(Calls, u64), Error>;

/// Adds a tile's calls to the run's.
fn add(total: &mut Calls, calls: &Calls) {
    total.reveal += calls.reveal;
    total.flag += calls.flag;
    total.unflag += calls.unflag;
    total.chord += calls.chord;
    total.opened += calls.opened;
    total.largest_opening = total.largest_opening.max(calls.largest_opening);
}

/// The truth player as it plays one tile.
struct TruthOnTile<'a> {
    /// The seed of the player's choices, as [`Player`] keeps it.
    seed: u64,
    /// The seed the tiles' walks are keyed by.
    walk_seed: u64,
    board: &'a Board,
    interrupted: &'a AtomicBool,
    progress: &'a ProgressBar,
}

impl TruthOnTile<'_> {
    /// Walks `tile` and plays each hidden cell; returns its calls and the cells visited.
    fn play(&self, tile: &mut Tile) -> BandResult {
        let (rows, cols) = (tile.rows(), tile.cols());
        let walk = TileWalk::new(
            rows.len(),
            cols.len(),
            mix(self.walk_seed ^ tile.index() as u64),
        );
        let mut calls = Calls::default();
        let (mut visited, mut failed) = (0, None);
        walk.run(|r, col| {
            if visited % LOOK == 0 && self.interrupted.load(Ordering::Relaxed) {
                return false;
            }
            visited += 1;
            match self.step(tile, (rows.start + r, cols.start + col), &mut calls) {
                Ok(()) => true,
                Err(error) => {
                    failed = Some(error);
                    false
                }
            }
        });
        self.progress.inc(calls.opened);
        match failed {
            Some(error) => Err(error),
            None => Ok((calls, visited)),
        }
    }

    /// What the truth player does at `(row, col)` of `tile`, as [`Player::plan`] decides it,
    /// with chords only on cells whose neighbours are all the tile's.
    fn step(
        &self,
        tile: &mut Tile,
        (row, col): (usize, usize),
        calls: &mut Calls,
    ) -> Result<(), Error> {
        if tile.cell(row, col)? != Cell::Hidden {
            return Ok(());
        }
        let index = row as u64 * self.board.cols() as u64 + col as u64;
        let choice = mix(self.seed ^ index) & 7;
        let mut act = |tile: &mut Tile, act: Act| -> Result<(), Error> {
            match act {
                Act::Reveal(r, c) | Act::Chord(r, c) => {
                    let step = match act {
                        Act::Chord(..) => {
                            calls.chord += 1;
                            tile.chord(r, c)?
                        }
                        _ => {
                            calls.reveal += 1;
                            tile.reveal(r, c)?
                        }
                    };
                    calls.opened += step.opened as u64;
                    calls.largest_opening = calls.largest_opening.max(step.opened as u64);
                }
                Act::Flag(r, c) => match tile.toggle_flag(r, c)? {
                    true => calls.flag += 1,
                    false => calls.unflag += 1,
                },
            }
            Ok(())
        };
        if self.board.is_mine(row, col)? {
            match choice {
                0..4 => act(tile, Act::Flag(row, col))?,
                4 => {
                    act(tile, Act::Flag(row, col))?;
                    act(tile, Act::Flag(row, col))?;
                }
                _ => {}
            }
            return Ok(());
        }
        if choice < 2
            && let Some((r, c)) = self.chord_site(tile, (row, col))?
        {
            for (mr, mc) in around((self.board.rows(), self.board.cols()), (r, c)) {
                if self.board.is_mine(mr, mc)? && tile.cell(mr, mc)? == Cell::Hidden {
                    act(tile, Act::Flag(mr, mc))?;
                }
            }
            return act(tile, Act::Chord(r, c));
        }
        act(tile, Act::Reveal(row, col))
    }

    /// The first revealed numbered neighbour of `(row, col)` whose own neighbours all lie in
    /// `tile`, if any.
    fn chord_site(
        &self,
        tile: &Tile,
        (row, col): (usize, usize),
    ) -> Result<Option<(usize, usize)>, Error> {
        let (rows, cols) = (tile.rows(), tile.cols());
        // Along one axis: `at` is the tile's, and so are its neighbours on the board.
        let inside = |span: &std::ops::Range<usize>, at: usize, end: usize| {
            span.contains(&at)
                && (at == 0 || span.contains(&(at - 1)))
                && (at + 1 == end || span.contains(&(at + 1)))
        };
        for (r, c) in around((self.board.rows(), self.board.cols()), (row, col)) {
            if inside(&rows, r, self.board.rows())
                && inside(&cols, c, self.board.cols())
                && matches!(tile.cell(r, c)?, Cell::Open(1..))
            {
                return Ok(Some((r, c)));
            }
        }
        Ok(None)
    }
}
