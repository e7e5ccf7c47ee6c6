//! A seeded pseudo-random order over the cells of a board, computed on the fly.
//!
//! [`TileWalk`] visits the tiles of a board (64x64 cells) in a seeded random order, and the
//! cells of each tile in a seeded random order of their own. Every cell is visited exactly
//! once, and consecutive visits stay within one tile, whose rows of every plane fit in the
//! first-level cache: a walk over a whole large board in one global random order would
//! measure memory latency (several cache misses a visit) rather than the engine.
//!
//! [`Walk::at`] maps a step `i` in `0..n` to a cell index, visiting every index exactly once
//! without a list of `n` entries in memory: a keyed bijection on `k`-bit integers (the
//! smallest `k` with `2^k >= n`) is applied to `i`, and re-applied while the result is `n` or
//! more ("cycle walking"). Because the bijection is a permutation of `0..2^k`, following its
//! cycle from a value below `n` always comes back below `n`, and distinct steps land on
//! distinct cells. With `2^k < 2n`, a step takes fewer than two applications on average.

/// A seeded permutation of `0..n`.
#[derive(Debug, Clone)]
pub(crate) struct Walk {
    n: u64,
    bits: u32,
    mask: u64,
    /// Odd multipliers and additive keys drawn from the seed.
    mul: [u64; 3],
    add: [u64; 3],
}

/// SplitMix64's output function: a strong 64-bit mixer, used for keys and decisions.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Walk {
    /// The walk over `0..n` chosen by `seed`.
    pub(crate) fn new(n: u64, seed: u64) -> Walk {
        let bits = (64 - n.saturating_sub(1).leading_zeros()).max(1);
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        };
        let key = |i: u64| mix(seed ^ mix(0x57A1_C0DE ^ i));
        Walk {
            n,
            bits,
            mask,
            mul: [key(0) | 1, key(1) | 1, key(2) | 1],
            add: [key(3), key(4), key(5)],
        }
    }

    /// How many steps the walk has.
    pub(crate) fn len(&self) -> u64 {
        self.n
    }

    /// The cell visited at step `i` (`i < len()`).
    pub(crate) fn at(&self, i: u64) -> u64 {
        debug_assert!(i < self.n);
        let mut x = i;
        loop {
            x = self.scramble(x);
            if x < self.n {
                return x;
            }
        }
    }

    /// A bijection of `0..2^bits`: each round adds a key and multiplies by an odd number
    /// (both invertible modulo `2^bits`), then xors the high half into the low half
    /// (invertible on any width).
    fn scramble(&self, mut x: u64) -> u64 {
        let shift = self.bits.div_ceil(2);
        for round in 0..3 {
            x = x
                .wrapping_add(self.add[round])
                .wrapping_mul(self.mul[round])
                & self.mask;
            x ^= x >> shift;
        }
        x
    }
}

/// Side of a [`TileWalk`] tile, in cells.
const TILE: usize = 64;

/// A seeded order over the cells of a `rows x cols` board: tiles in random order, cells of a
/// tile in random order.
#[derive(Debug, Clone)]
pub(crate) struct TileWalk {
    rows: usize,
    cols: usize,
    tile_cols: usize,
    tiles: Walk,
    seed: u64,
}

impl TileWalk {
    /// The walk over a `rows x cols` board chosen by `seed`.
    pub(crate) fn new(rows: usize, cols: usize, seed: u64) -> TileWalk {
        let tile_cols = cols.div_ceil(TILE);
        let tiles = rows.div_ceil(TILE) as u64 * tile_cols as u64;
        TileWalk {
            rows,
            cols,
            tile_cols,
            tiles: Walk::new(tiles, seed),
            seed: mix(seed ^ 0x71_1E5),
        }
    }

    /// Calls `visit(row, col)` on every cell once, in walk order, until it returns `false`.
    /// Returns the number of cells visited.
    pub(crate) fn run(&self, mut visit: impl FnMut(usize, usize) -> bool) -> u64 {
        let mut visited = 0;
        for step in 0..self.tiles.len() {
            let tile = self.tiles.at(step) as usize;
            let (top, left) = (tile / self.tile_cols * TILE, tile % self.tile_cols * TILE);
            let (height, width) = (TILE.min(self.rows - top), TILE.min(self.cols - left));
            let cells = Walk::new((height * width) as u64, self.seed ^ tile as u64);
            for i in 0..cells.len() {
                let at = cells.at(i) as usize;
                visited += 1;
                if !visit(top + at / width, left + at % width) {
                    return visited;
                }
            }
        }
        visited
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Boards around the tile size and a few odd shapes: each cell exactly once.
    #[test]
    fn tile_walk_visits_every_cell_once() {
        for (rows, cols) in [
            (1, 1),
            (1, 200),
            (200, 1),
            (63, 65),
            (64, 64),
            (130, 129),
            (7, 300),
        ] {
            let mut seen = vec![false; rows * cols];
            let walk = TileWalk::new(rows, cols, 42);
            let visited = walk.run(|r, c| {
                assert!(r < rows && c < cols);
                assert!(!seen[r * cols + c], "({r}, {c}) visited twice");
                seen[r * cols + c] = true;
                true
            });
            assert_eq!(visited, (rows * cols) as u64);
            assert!(seen.iter().all(|&s| s));
        }
        let mut count = 0;
        let visited = TileWalk::new(100, 100, 1).run(|_, _| {
            count += 1;
            count < 10
        });
        assert_eq!(visited, 10);
    }

    /// Every size from 1 to 300 and some around powers of two: each index exactly once.
    #[test]
    fn visits_every_index_once() {
        let sizes = (1..=300).chain([511, 512, 513, 4095, 4096, 4097, 100_003]);
        for n in sizes {
            for seed in [0, 1, 0xDEAD_BEEF] {
                let walk = Walk::new(n, seed);
                let mut seen = vec![false; n as usize];
                for i in 0..n {
                    let cell = walk.at(i) as usize;
                    assert!(!seen[cell], "n {n} seed {seed}: {cell} visited twice");
                    seen[cell] = true;
                }
            }
        }
    }

    /// Different seeds give different orders, and the order is not the identity.
    #[test]
    fn seeds_give_different_orders() {
        let order = |seed| {
            (0..1000)
                .map(|i| Walk::new(1000, seed).at(i))
                .collect::<Vec<_>>()
        };
        let (a, b) = (order(1), order(2));
        assert_ne!(a, b);
        assert_ne!(a, (0..1000).collect::<Vec<_>>());
        // Neighbouring steps should not be neighbouring cells most of the time.
        let close = a.windows(2).filter(|w| w[0].abs_diff(w[1]) <= 1).count();
        assert!(close < 50, "{close} of 999 steps move to an adjacent index");
    }
}
