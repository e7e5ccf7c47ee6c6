//! A padded bit plane: one bit per cell of a [`Geometry`], stored as 64-bit words.
//!
//! Planes are plain `Vec<u64>` rather than `fixedbitset::FixedBitSet`: the layout needs 64-bit
//! words on every target (a `FixedBitSet` block is a `usize`), and a huge board must fail with
//! a typed error (`OutOfMemory`), which needs `try_reserve` (`FixedBitSet` aborts). `bitvec`
//! appears only at the edges, as read-only row views (`Board::mine_row`,
//! `Game::revealed_row`, `Game::flagged_row`), never in a loop.

#![allow(
    clippy::indexing_slicing,
    reason = "bit and word indices come from the plane's own Geometry; public entry points check coordinates (Geometry::bit) before forming an index"
)]

use crate::{Error, Geometry};

/// One bit per padded cell, as plain words so hot loops work on them directly.
///
/// Planes are allocated fallibly: a board too large for memory is an `OutOfMemory` error,
/// never an abort.
#[derive(PartialEq, Eq)]
pub(crate) struct Plane {
    words: Vec<u64>,
}

impl Clone for Plane {
    fn clone(&self) -> Plane {
        Plane {
            words: self.words.clone(),
        }
    }

    /// Copies into this plane's own words when they have room: no allocation.
    fn clone_from(&mut self, source: &Plane) {
        self.words.clone_from(&source.words);
    }
}

impl Plane {
    /// An all-zero plane for `geometry`.
    pub(crate) fn zeroed(geometry: &Geometry) -> Result<Plane, Error> {
        let n = geometry.words();
        // Ask first, so a plane too large for memory is an error rather than an abort; then
        // take zeroed memory, whose pages the system provides lazily, so the first touch of
        // each page happens wherever the plane is first written (in parallel, for example).
        Vec::<u64>::new()
            .try_reserve_exact(n)
            .map_err(|_| Error::OutOfMemory {
                bytes: geometry.plane_bytes(),
                rows: geometry.rows(),
                cols: geometry.cols(),
            })?;
        Ok(Plane { words: vec![0; n] })
    }

    pub(crate) fn from_words(words: Vec<u64>) -> Plane {
        Plane { words }
    }

    pub(crate) fn into_words(self) -> Vec<u64> {
        self.words
    }

    /// Bytes the plane holds on the heap (its capacity, which a copy into it may leave above
    /// its length).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.words.capacity() * size_of::<u64>()
    }

    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    pub(crate) fn get(&self, bit: usize) -> bool {
        self.words[bit / 64] >> (bit % 64) & 1 != 0
    }

    pub(crate) fn set(&mut self, bit: usize) {
        self.words[bit / 64] |= 1 << (bit % 64);
    }

    pub(crate) fn clear(&mut self, bit: usize) {
        self.words[bit / 64] &= !(1 << (bit % 64));
    }

    pub(crate) fn count_ones(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The three bits at `bit, bit + 1, bit + 2`, which must lie in one padded row.
    pub(crate) fn three(&self, bit: usize) -> u32 {
        let (w, s) = (bit / 64, bit % 64);
        let lo = self.words[w] >> s;
        let hi = if s > 61 {
            self.words[w + 1] << (64 - s)
        } else {
            0
        };
        ((lo | hi) & 0b111) as u32
    }
}

impl std::fmt::Debug for Plane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Plane({} words, {} ones)",
            self.words.len(),
            self.count_ones()
        )
    }
}
