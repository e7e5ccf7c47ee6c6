//! The cascade: what one reveal of a zero cell opens.
//!
//! Both fills open the same cells: the 8-connected region of zero cells around the seed that
//! are neither revealed nor flagged, plus every hidden, unflagged neighbour of that region.
//! They differ only in how they walk it.
//!
//! - [`Fill::Words`] (the default) works on whole 64-bit words: it closes the run of passable
//!   cells around its seed bits with one addition upward and a shift-or fill downward, opens
//!   that run dilated by one cell in the rows above, at and below, and queues the words whose
//!   zero cells were just reached. A run that stays inside its word is walked up or down its
//!   word column a row a step, with no queue between rows, so a region that runs down the
//!   columns costs a few word operations a row. Each revealed zero cell is expanded once, as
//!   part of one run.
//! - [`Fill::Scalar`] is the Windows design: an explicit stack of cell indices, the eight
//!   neighbour offsets of the padded plane, and a sentinel border that is already "revealed",
//!   so no neighbour is ever bounds-checked. It is the reference the word fill is tested
//!   against.

#![allow(
    clippy::indexing_slicing,
    reason = "word and bit indices come from the planes' own Geometry, which sized every plane; public entry points check coordinates (Geometry::bit) before any index is formed"
)]

pub(crate) mod scalar;
pub(crate) mod words;

/// Which fill a [`Game`](crate::Game) uses for its cascades.
///
/// Both open exactly the same cells; `Words` is faster on anything larger than a few cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Fill {
    /// The word-parallel worklist fill.
    #[default]
    Words,
    /// The cell-by-cell stack fill over the sentinel-bordered plane.
    Scalar,
}

/// The planes a fill reads and writes, borrowed from a board and a game.
pub(crate) struct Planes<'a> {
    /// Safe cells with no neighbouring mine (the board's truth).
    pub(crate) zero: &'a [u64],
    /// Revealed cells; sentinel and padding bits are set, so fills never leave the board.
    pub(crate) revealed: &'a mut [u64],
    /// Flagged cells; flags block both the reveal and the cascade.
    pub(crate) flagged: &'a [u64],
    /// No cell is flagged, so a fill may leave the flag plane unread.
    pub(crate) unflagged: bool,
    /// Words in one padded row.
    pub(crate) words_per_row: usize,
}

fn bit_of(words: &[u64], bit: usize) -> bool {
    words[bit / 64] >> (bit % 64) & 1 != 0
}
