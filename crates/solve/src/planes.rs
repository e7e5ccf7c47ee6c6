//! The solver's knowledge as planes, and the trivial rule run over them a word at a time.
//!
//! Every plane has the view's padded layout shifted by one guard word at each end, so the
//! neighbour words of any board word, and of the sentinel rows' words next to them, exist:
//! plane index `w + 1` holds layout word `w`. The guard words of `revealed` are all ones
//! (they read as revealed, like the sentinel border), and every other plane is zero there.

#![allow(
    clippy::indexing_slicing,
    reason = "every index is a layout word of the solver's own Geometry plus the guard offset, and each plane has words() + 2 words"
)]

use bitmines_core::{Geometry, View};

use crate::Error;

/// What the solver knows: the view's revealed cells and numbers, and its own proven mines
/// and proven safe cells.
#[derive(Clone)]
pub(crate) struct Planes {
    pub(crate) geometry: Geometry,
    /// Revealed cells, with the sentinel border, padding and guard words set.
    pub(crate) revealed: Vec<u64>,
    /// The numbers of revealed cells, bit-sliced (bit `i` of a number in plane `i`).
    pub(crate) numbers: [Vec<u64>; 4],
    /// Proven mines.
    pub(crate) mines: Vec<u64>,
    /// Proven safe cells that are still hidden.
    pub(crate) safe: Vec<u64>,
    /// The board-cell mask of each word of a padded row.
    pub(crate) cell_masks: Vec<u64>,
    /// Rows (padded index) where the trivial rule may find something new.
    dirty: Vec<bool>,
    /// Three rows of `satisfied` and `full` results, each `words_per_row + 2` words with a
    /// zero word at each end.
    ring: [Vec<u64>; 6],
}

/// A revealed cell whose number the proven cells around it contradict, as a plane index.
pub(crate) struct Bad(pub(crate) usize);

impl Planes {
    /// The planes of `view`, knowing nothing yet.
    pub(crate) fn new(view: &View<'_>) -> Result<Planes, Error> {
        let geometry = *view.geometry();
        let words = geometry.words() + 2;
        let wpr = geometry.words_per_row();
        let oom = || Error::OutOfMemory {
            bytes: words.saturating_mul(8 * 7),
            rows: geometry.rows(),
            cols: geometry.cols(),
        };
        let zeroed = || -> Result<Vec<u64>, Error> {
            let mut v = Vec::new();
            v.try_reserve_exact(words).map_err(|_| oom())?;
            v.resize(words, 0);
            Ok(v)
        };
        let mut revealed = zeroed()?;
        revealed[0] = !0;
        revealed[words - 1] = !0;
        revealed[1..words - 1].copy_from_slice(view.revealed_words());
        let mut numbers = [zeroed()?, zeroed()?, zeroed()?, zeroed()?];
        for w in 0..geometry.words() {
            let slices = view.number_words(w);
            for (plane, slice) in numbers.iter_mut().zip(slices) {
                plane[w + 1] = slice;
            }
        }
        let ring = std::array::from_fn(|_| vec![0; wpr + 2]);
        let mut dirty = vec![false; geometry.rows() + 2];
        dirty[1..=geometry.rows()].fill(true);
        Ok(Planes {
            geometry,
            revealed,
            numbers,
            mines: zeroed()?,
            safe: zeroed()?,
            cell_masks: (0..wpr).map(|j| geometry.cell_mask(j)).collect(),
            dirty,
            ring,
        })
    }

    /// Heap bytes of the planes (seven planes, plus the ring and row marks).
    pub(crate) fn heap_bytes(&self) -> usize {
        8 * (self.revealed.len() * 7 + self.ring.iter().map(Vec::len).sum::<usize>())
            + self.dirty.len()
    }

    /// Plane index of a cell.
    pub(crate) fn index(&self, row: usize, col: usize) -> usize {
        (row + 1) * self.geometry.words_per_row() * 64 + col + 1 + 64
    }

    /// The cell of a plane index that addresses a board cell.
    pub(crate) fn cell(&self, index: usize) -> (usize, usize) {
        let stride = self.geometry.words_per_row() * 64;
        let bit = index - 64;
        (bit / stride - 1, bit % stride - 1)
    }

    pub(crate) fn get(plane: &[u64], index: usize) -> bool {
        plane[index / 64] >> (index % 64) & 1 != 0
    }

    /// The number shown at a plane index (zero if hidden).
    pub(crate) fn number(&self, index: usize) -> u8 {
        (0..4)
            .map(|i| ((self.numbers[i][index / 64] >> (index % 64) & 1) << i) as u8)
            .sum()
    }

    /// Whether a plane index is a hidden cell not yet proven either way.
    pub(crate) fn is_unknown(&self, index: usize) -> bool {
        !(Self::get(&self.revealed, index)
            || Self::get(&self.mines, index)
            || Self::get(&self.safe, index))
    }

    /// Word `w` of a plane.
    pub(crate) fn word(plane: &[u64], w: usize) -> u64 {
        plane[w]
    }

    /// The cells of plane word `w` (a board row's word) with an undecided neighbour.
    pub(crate) fn unknown_near(&self, w: usize) -> u64 {
        let wpr = self.geometry.words_per_row();
        let undecided = |i: usize| !(self.revealed[i] | self.safe[i] | self.mines[i]);
        let row = |c: usize| {
            let m = undecided(c);
            m | m << 1 | undecided(c - 1) >> 63 | m >> 1 | undecided(c + 1) << 63
        };
        row(w - wpr) | row(w) | row(w + wpr)
    }

    /// Hidden cells proven neither way.
    pub(crate) fn undecided_count(&self) -> usize {
        self.revealed
            .iter()
            .zip(&self.safe)
            .zip(&self.mines)
            .map(|((r, s), m)| (!(r | s | m)).count_ones() as usize)
            .sum()
    }

    /// Whether a plane index addresses a board cell (not a sentinel, padding or guard).
    pub(crate) fn is_cell(&self, index: usize) -> bool {
        let wpr = self.geometry.words_per_row();
        let Some(word) = (index / 64).checked_sub(1) else {
            return false;
        };
        let row = word / wpr;
        row >= 1
            && row <= self.geometry.rows()
            && self.cell_masks[word % wpr] >> (index % 64) & 1 != 0
    }

    /// The board cells set in `plane`, row by row.
    pub(crate) fn cells_of<'a>(
        &'a self,
        plane: &'a [u64],
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        set_bits(plane).map(|i| self.cell(i))
    }

    /// Plane indices of the undecided cells, in increasing order.
    pub(crate) fn undecided_cells(&self) -> Vec<usize> {
        let undecided: Vec<u64> = self
            .revealed
            .iter()
            .zip(&self.safe)
            .zip(&self.mines)
            .map(|((r, s), m)| !(r | s | m))
            .collect();
        set_bits(&undecided).collect()
    }

    /// Proven mines.
    pub(crate) fn mine_count(&self) -> usize {
        self.mines.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Marks a cell proven, and its neighbourhood for the trivial rule to look at again.
    pub(crate) fn prove(&mut self, index: usize, mine: bool) {
        let plane = if mine {
            &mut self.mines
        } else {
            &mut self.safe
        };
        plane[index / 64] |= 1 << (index % 64);
        let row = (index - 64) / (self.geometry.words_per_row() * 64);
        self.mark_dirty(row);
    }

    fn mark_dirty(&mut self, row: usize) {
        let rows = self.geometry.rows();
        for r in row.saturating_sub(2).max(1)..=(row + 2).min(rows) {
            self.dirty[r] = true;
        }
    }

    /// One pass of the trivial rule over the rows marked dirty (all rows the first time):
    /// every revealed number whose proven mines meet it clears its other unknown
    /// neighbours, and every number that needs all its unknown neighbours makes them mines.
    /// Returns the cells newly proven, or the first revealed cell the proven cells around it
    /// contradict.
    pub(crate) fn sweep(&mut self) -> Result<usize, Bad> {
        let rows = self.geometry.rows();
        let dirty = std::mem::replace(&mut self.dirty, vec![false; rows + 2]);
        let mut found = 0;
        let mut r = 1;
        while r <= rows {
            if !dirty[r] {
                r += 1;
                continue;
            }
            let start = r;
            while r <= rows && dirty[r] {
                r += 1;
            }
            found += self.sweep_rows(start, r - 1)?;
        }
        Ok(found)
    }

    /// The trivial rule over padded rows `first..=last`, all board rows.
    fn sweep_rows(&mut self, first: usize, last: usize) -> Result<usize, Bad> {
        let rows = self.geometry.rows();
        // Ring slots: row r's results live in slot r % 3.
        let mut ring = std::mem::take(&mut self.ring);
        let mut found = 0;
        let mut result = Ok(());
        let rule = |planes: &Planes, ring: &mut [Vec<u64>; 6], row: usize| {
            let (sat, full) = pair_mut(ring, row % 3);
            if row == 0 || row > rows {
                sat.fill(0);
                full.fill(0);
                Ok(())
            } else {
                planes.rule_row(row, sat, full)
            }
        };
        for row in [first - 1, first] {
            if let Err(bad) = rule(self, &mut ring, row) {
                result = Err(bad);
            }
        }
        for row in first..=last {
            if result.is_err() {
                break;
            }
            if let Err(bad) = rule(self, &mut ring, row + 1) {
                result = Err(bad);
                break;
            }
            let new = self.apply_row(row, &ring);
            if new != 0 {
                self.mark_dirty(row);
                found += new;
            }
        }
        self.ring = ring;
        result.map(|()| found)
    }

    /// The rule at each revealed cell of padded row `row`: `sat` marks numbers met by
    /// their proven mines, `full` numbers that need every unknown neighbour.
    fn rule_row(&self, row: usize, sat: &mut [u64], full: &mut [u64]) -> Result<(), Bad> {
        let wpr = self.geometry.words_per_row();
        let base = row * wpr + 1; // plane index of the row's first word
        let (revealed, safe, mines) = (&self.revealed, &self.safe, &self.mines);
        let [n0, n1, n2, n3] = &self.numbers;
        // Cells that may still hold a mine: neither revealed nor proven safe.
        let open = |i: usize| !(revealed[i] | safe[i]);
        for j in 0..wpr {
            let w = base + j;
            let k = around(|i| mines[i], w, wpr);
            let x = around(open, w, wpr);
            let n = [n0[w], n1[w], n2[w], n3[w]];
            let shown = revealed[w] & self.cell_masks[j];
            let bad = shown & (less(n, k) | less(x, n));
            if bad != 0 {
                return Err(Bad(w * 64 + bad.trailing_zeros() as usize));
            }
            sat[j + 1] = shown & equal(n, k);
            full[j + 1] = shown & equal(n, x);
        }
        Ok(())
    }

    /// Proves the unknown neighbours of the rows' `sat` (safe) and `full` (mines) cells in
    /// padded row `row`; returns how many.
    fn apply_row(&mut self, row: usize, ring: &[Vec<u64>; 6]) -> usize {
        let wpr = self.geometry.words_per_row();
        let base = row * wpr + 1;
        let slots = [(row + 2) % 3, row % 3, (row + 1) % 3];
        let mut found = 0;
        for j in 0..wpr {
            let w = base + j;
            let (mut to_safe, mut to_mine) = (0, 0);
            for s in slots {
                to_safe |= spread(&ring[2 * s], j + 1);
                to_mine |= spread(&ring[2 * s + 1], j + 1);
            }
            let unknown = !(self.revealed[w] | self.safe[w] | self.mines[w]);
            let (to_safe, to_mine) = (to_safe & unknown, to_mine & unknown);
            // A cell forced both ways is left unknown; the consistency check of the next
            // sweep, or the exact tier, reports the number that cannot be met.
            let both = to_safe & to_mine;
            self.safe[w] |= to_safe & !both;
            self.mines[w] |= to_mine & !both;
            found += ((to_safe | to_mine) & !both).count_ones() as usize;
        }
        found
    }
}

/// The indices of the set bits of a plane, in increasing order.
fn set_bits(plane: &[u64]) -> impl Iterator<Item = usize> + '_ {
    plane.iter().enumerate().flat_map(|(w, &word)| {
        let mut bits = word;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                w * 64 + b
            })
        })
    })
}

/// The `sat` and `full` rows of ring slot `slot`.
fn pair_mut(ring: &mut [Vec<u64>; 6], slot: usize) -> (&mut [u64], &mut [u64]) {
    let (left, right) = ring.split_at_mut(2 * slot + 1);
    (&mut left[2 * slot], &mut right[0])
}

/// Word `j` of a ring row dilated by one cell left and right.
#[inline(always)]
fn spread(row: &[u64], j: usize) -> u64 {
    let m = row[j];
    m | m << 1 | m >> 1 | row[j - 1] >> 63 | row[j + 1] << 63
}

/// The bit-sliced count of the eight neighbours of each cell of plane word `w`, for the
/// plane read through `p`.
#[inline(always)]
fn around(p: impl Fn(usize) -> u64, w: usize, wpr: usize) -> [u64; 4] {
    let row = |c: usize| {
        let m = p(c);
        (m << 1 | p(c - 1) >> 63, m, m >> 1 | p(c + 1) << 63)
    };
    let (ul, u, ur) = row(w - wpr);
    let (l, _, r) = row(w);
    let (dl, d, dr) = row(w + wpr);
    count8([ul, u, ur, l, r, dl, d, dr])
}

/// The bit-sliced sum of eight one-bit words (a full-adder tree).
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

/// Lanes where the bit-sliced number `a` equals `b`.
#[inline(always)]
fn equal(a: [u64; 4], b: [u64; 4]) -> u64 {
    !((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]))
}

/// Lanes where the bit-sliced number `a` is less than `b` (the borrow out of `a - b`).
#[inline(always)]
fn less(a: [u64; 4], b: [u64; 4]) -> u64 {
    let mut borrow = 0;
    for i in 0..4 {
        borrow = (!a[i] & b[i]) | (!(a[i] ^ b[i]) & borrow);
    }
    borrow
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(n: u8) -> [u64; 4] {
        std::array::from_fn(|i| if n >> i & 1 != 0 { !0 } else { 0 })
    }

    #[test]
    fn bit_sliced_comparisons_match_integers() {
        for a in 0..16u8 {
            for b in 0..16u8 {
                assert_eq!(equal(slice(a), slice(b)) == !0, a == b, "{a} == {b}");
                assert_eq!(less(slice(a), slice(b)) == !0, a < b, "{a} < {b}");
            }
        }
        for bits in 0..256u32 {
            let inputs: [u64; 8] = std::array::from_fn(|i| if bits >> i & 1 != 0 { !0 } else { 0 });
            let sum = count8(inputs);
            let n: u32 = (0..4).map(|i| (sum[i] & 1) as u32 * (1 << i)).sum();
            assert_eq!(n, bits.count_ones());
        }
    }
}
