//! The naive twin of the generator: shuffle-and-take on a plain list of cells.
//!
//! The gen tests check that it and `generate` agree on distributional properties, and
//! `benches/generate.rs` times it beside `generate`, so both use this one file.

use bitmines_core::{Board, Zone};

/// SplitMix64: a tiny, well-mixed generator with nothing in common with the generator's
/// `Pcg64` streams.
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n`, rejecting the short last stretch so nothing is biased.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next();
            if x < zone {
                return x % n;
            }
        }
    }
}

/// Lists the cells outside `keep` by index (row-major, as `u32`, so a 10^8-cell board's list
/// is 400 MB), shuffles the first `mines` places (Fisher-Yates), takes them, and builds the
/// board from that mine list on one thread.
pub(crate) fn naive_board(rows: usize, cols: usize, mines: usize, keep: &Zone, seed: u64) -> Board {
    let cells = u32::try_from(rows * cols).expect("the twin handles boards of up to 2^32 cells");
    let mut rng = SplitMix64(seed);
    // With nothing kept clear the list is every index, built as cheaply as a list can be, so
    // the bench does not charge the twin for a filter it does not need.
    let mut free: Vec<u32> = if keep.is_empty() {
        (0..cells).collect()
    } else {
        (0..rows)
            .flat_map(|r| {
                (0..cols)
                    .filter(move |&c| !keep.contains(r, c))
                    .map(move |c| (r * cols + c) as u32)
            })
            .collect()
    };
    for i in 0..mines {
        let j = i + rng.below((free.len() - i) as u64) as usize;
        free.swap(i, j);
    }
    let mines = free[..mines]
        .iter()
        .map(|&i| (i as usize / cols, i as usize % cols));
    Board::from_mines(rows, cols, mines).expect("a valid board")
}
