//! Board statistics the Minesweeper community uses: openings, islands and 3BV.
//!
//! - An *opening* is an 8-connected region of zero cells; one click on any of its cells opens
//!   it and its numbered border.
//! - An *island* is an 8-connected region of numbered cells that touch no zero cell; no
//!   cascade ever reaches them.
//! - *3BV* (Bechtel's Board Benchmark Value) is the fewest clicks that clear the board
//!   without chording: one per opening, plus one per numbered cell that touches no zero cell.
//!
//! Everything is computed on the bit planes: the cells touching a zero cell are the zero plane
//! dilated a word at a time, and each region is labelled with one run of the word-parallel
//! cascade fill (a region that is a single run inside one word is counted without one). The
//! cost is a few passes over the planes plus one fill per region: about 1.5 cascades over a
//! board of density 0.05, more per cell on dense boards, whose regions are many and small.
//!
//! ```
//! use bitmines_core::{stats, Board};
//!
//! let board: Board = "...\n.*.\n...\n".parse()?;
//! assert_eq!(stats::openings(&board)?, 0);
//! assert_eq!(stats::islands(&board)?, 1);
//! assert_eq!(stats::bbbv(&board)?, 8);
//! # Ok::<(), bitmines_core::Error>(())
//! ```
//!
//! Regions are counted by running the word fill with the region as its "zero plane" and
//! everything outside it "flagged", so the fill opens exactly one 8-connected region per call.

#![allow(
    clippy::indexing_slicing,
    reason = "word indices range over planes built from the board's own Geometry"
)]

mod bands;

use crate::board::{dilated_word, for_each_row_word};
use crate::cascade::{Planes, words};
use crate::game::sentinel_plane;
use crate::plane::Plane;
use crate::{Board, Error, Geometry};

/// The statistics of one board, computed together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Stats {
    /// 8-connected regions of zero cells.
    pub openings: usize,
    /// 8-connected regions of numbered cells that touch no zero cell.
    pub islands: usize,
    /// Numbered cells that touch no zero cell (the cells of the islands).
    pub isolated: usize,
    /// Bechtel's Board Benchmark Value: `openings + isolated`.
    pub bbbv: usize,
}

impl Stats {
    /// Computes every statistic of `board`. Fails only if the scratch planes (about four
    /// bits per cell) cannot be allocated.
    pub fn of(board: &Board) -> Result<Stats, Error> {
        let openings = openings(board)?;
        let isolated_cells = isolated_plane(board)?;
        let isolated = isolated_cells.count_ones();
        let islands = count_regions(board.geometry(), &isolated_cells)?;
        Ok(Stats {
            openings,
            islands,
            isolated,
            bbbv: openings + isolated,
        })
    }
}

/// The number of openings: 8-connected regions of zero cells.
pub fn openings(board: &Board) -> Result<usize, Error> {
    count_regions(board.geometry(), board.zero())
}

/// The number of islands: 8-connected regions of numbered cells that touch no zero cell.
pub fn islands(board: &Board) -> Result<usize, Error> {
    count_regions(board.geometry(), &isolated_plane(board)?)
}

/// 3BV: the openings plus the numbered cells that touch no zero cell.
pub fn bbbv(board: &Board) -> Result<usize, Error> {
    let mut isolated = 0;
    for_each_isolated_word(board, |_, word| isolated += word.count_ones() as usize);
    Ok(openings(board)? + isolated)
}

/// Calls `f(word index, isolated cells)` for every word of every board row, the isolated
/// cells being the safe cells that are neither zero cells nor next to one.
fn for_each_isolated_word(board: &Board, mut f: impl FnMut(usize, u64)) {
    let geometry = board.geometry();
    let (zero, mines) = (board.zero().words(), board.mines().words());
    for_each_row_word(geometry, |w, cells| {
        f(w, cells & !mines[w] & !dilated_word(geometry, zero, w));
    });
}

/// The isolated cells as a plane.
fn isolated_plane(board: &Board) -> Result<Plane, Error> {
    let mut isolated = Plane::zeroed(board.geometry())?;
    let out = isolated.words_mut();
    for_each_isolated_word(board, |w, word| out[w] = word);
    Ok(isolated)
}

/// Counts the 8-connected regions of `region` (sentinel and padding bits clear) by running
/// the cascade fill from an unvisited cell until none is left. With the region as the zero
/// plane and everything outside it flagged, a fill opens exactly the region around its seed.
fn count_regions(geometry: &Geometry, region: &Plane) -> Result<usize, Error> {
    let mut visited = sentinel_plane(geometry)?;
    let mut outside = Plane::zeroed(geometry)?;
    for (o, &r) in outside.words_mut().iter_mut().zip(region.words()) {
        *o = !r;
    }
    let mut scratch = words::Scratch::new(geometry)?;
    let mut planes = Planes {
        zero: region.words(),
        revealed: visited.words_mut(),
        flagged: outside.words(),
        unflagged: false,
        words_per_row: geometry.words_per_row(),
    };
    let wpr = geometry.words_per_row();
    let mut regions = 0;
    for w in wpr..geometry.words() - wpr {
        loop {
            let unvisited = planes.zero[w] & !planes.revealed[w];
            if unvisited == 0 {
                break;
            }
            regions += 1;
            // Most regions of a dense board are one run inside one word with nothing of the
            // region above or below it: such a run is a whole region, no fill needed.
            let lowest = unvisited & unvisited.wrapping_neg();
            let run = unvisited & !unvisited.wrapping_add(lowest);
            let wide = run | run << 1 | run >> 1;
            let alone = run & (1 | 1 << 63) == 0
                && (planes.zero[w - wpr] | planes.zero[w + wpr]) & wide == 0;
            if alone {
                planes.revealed[w] |= run;
            } else {
                words::fill(
                    &mut planes,
                    &mut scratch,
                    w * 64 + lowest.trailing_zeros() as usize,
                );
            }
        }
    }
    Ok(regions)
}
