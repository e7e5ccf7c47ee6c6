//! A fuzzed coordinate: on the board, just past its edge, or near `usize::MAX`. Shared by the
//! `engines` and `leetcode` checks; a crate that includes either includes this file as
//! `coord`.

use arbitrary::Arbitrary;

/// A coordinate along one side of a board.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub(crate) enum Coord {
    /// `n % side` (`n` on an empty side).
    On(u16),
    /// `side + k`.
    Past(u8),
    /// `usize::MAX - k`.
    Far(u8),
}

impl Coord {
    /// The coordinate on a side of `side` cells.
    pub(crate) fn get(self, side: usize) -> usize {
        match self {
            Coord::On(n) => usize::from(n) % side.max(1),
            Coord::Past(k) => side + usize::from(k),
            Coord::Far(k) => usize::MAX - usize::from(k),
        }
    }
}
