//! Placing an exact number of mines uniformly inside one chunk of whole rows.
//!
//! Sparse chunks place their mines by rejection; otherwise independent bits are drawn near the
//! density and a uniform fix-up adds or removes cells to the exact count (uniform for any
//! density used); above half the free cells, the holes are placed instead.

#![allow(
    clippy::indexing_slicing,
    reason = "word indices range over the chunk's own rows of a plane sized by Geometry"
)]

use bitmines_core::{Geometry, Zone};
use rand_core::Rng;
use rand_pcg::Pcg64;

use crate::split::below;

/// Below one in this many of the free cells (5%), mines (or holes) are placed one by one by
/// rejection; from there on, as Bernoulli words followed by an exact fix-up. The choices
/// here are made in integers, so that no rounding of floating point, which some targets do
/// in extended precision, can choose differently on another machine.
const SPARSE_ONE_IN: usize = 20;

/// One chunk's rows of the mine plane and what to place in them.
pub(crate) struct Chunk<'a> {
    pub(crate) geometry: &'a Geometry,
    pub(crate) zone: &'a Zone,
    /// The chunk's first board row.
    pub(crate) first_row: usize,
    /// The chunk's words, whole padded rows, all zero on entry.
    pub(crate) words: &'a mut [u64],
    /// Mines to place.
    pub(crate) mines: usize,
    /// Cells of the chunk outside the zone.
    pub(crate) free: usize,
}

impl Chunk<'_> {
    /// Places exactly `mines` mines, uniformly over the free cells.
    pub(crate) fn place(&mut self, rng: &mut Pcg64) {
        let invert = self.mines > self.free / 2;
        let count = if invert {
            self.free - self.mines
        } else {
            self.mines
        };
        if count == 0 {
            // Nothing to draw: the chunk is empty, or (inverted) every free cell is a mine.
        } else if count >= self.free.div_ceil(SPARSE_ONE_IN) {
            self.bernoulli(rng, count);
        } else {
            for _ in 0..count {
                self.add_one(rng);
            }
        }
        if invert {
            // What was placed are the holes: every other free cell is a mine.
            for w in 0..self.words.len() {
                self.words[w] ^= self.free_mask(w);
            }
        }
    }

    /// Free cells of word `w` of the chunk: board cells outside the zone.
    fn free_mask(&self, w: usize) -> u64 {
        let wpr = self.geometry.words_per_row();
        let (row, j) = (self.first_row + w / wpr, w % wpr);
        let mut mask = self.geometry.cell_mask(j);
        let (zone_rows, zone_cols) = (self.zone.rows(), self.zone.cols());
        if zone_rows.contains(&row) {
            for col in zone_cols.start..zone_cols.end.min(self.geometry.cols()) {
                let bit = col + 1; // padded column
                if bit / 64 == j {
                    mask &= !(1 << (bit % 64));
                }
            }
        }
        mask
    }

    /// Independent bits with a density near `count / free`, then exactly `count` by adding or
    /// removing uniformly chosen cells. Every layout with the same count is equally likely
    /// under independent bits, and a uniform fix-up keeps it so: the result is uniform over
    /// the layouts of exactly `count` cells, whatever the density used.
    fn bernoulli(&mut self, rng: &mut Pcg64, count: usize) {
        // The density in 256ths, rounded to the nearest (halves up), in u128 where nothing
        // overflows: 8 random words per word. As `count <= free / 2`, it is at most 128.
        let (wide_count, free) = (count as u128, self.free as u128);
        let eighths = ((wide_count * 512 + free) / (2 * free)).clamp(1, 255) as u32;
        let mut placed = 0;
        for w in 0..self.words.len() {
            let mut bits = 0u64;
            for b in 0..8 {
                let r = rng.next_u64();
                bits = if eighths >> b & 1 == 1 {
                    bits | r
                } else {
                    bits & r
                };
            }
            bits &= self.free_mask(w);
            self.words[w] = bits;
            placed += bits.count_ones() as usize;
        }
        while placed > count {
            self.remove_one(rng);
            placed -= 1;
        }
        while placed < count {
            self.add_one(rng);
            placed += 1;
        }
    }

    /// A uniformly chosen cell of the chunk, as (word, bit).
    fn random_cell(&self, rng: &mut Pcg64) -> (usize, u64) {
        let cols = self.geometry.cols();
        let rows = self.words.len() / self.geometry.words_per_row();
        let i = below(rng, (rows * cols) as u64) as usize;
        let (row, col) = (i / cols, i % cols);
        let bit = col + 1;
        (
            row * self.geometry.words_per_row() + bit / 64,
            1 << (bit % 64),
        )
    }

    /// Sets one uniformly chosen free cell that is not set yet.
    fn add_one(&mut self, rng: &mut Pcg64) {
        loop {
            let (w, b) = self.random_cell(rng);
            if self.words[w] & b == 0 && self.free_mask(w) & b != 0 {
                self.words[w] |= b;
                return;
            }
        }
    }

    /// Clears one uniformly chosen set cell.
    fn remove_one(&mut self, rng: &mut Pcg64) {
        loop {
            let (w, b) = self.random_cell(rng);
            if self.words[w] & b != 0 {
                self.words[w] &= !b;
                return;
            }
        }
    }
}
