//! The statistics computed in bands of rows, on several threads, merged along the bands'
//! edges with a union-find.
//!
//! Each band labels the 8-connected regions of its own rows (the zero cells for openings,
//! the isolated cells for islands) one run of set bits at a time: a run of a row joins every
//! run of the row above that it touches, diagonals included, in a union-find over the band's
//! runs, so the band's regions are its runs less the joins that merged two regions. Each
//! band keeps its top and bottom rows' runs with their regions. The merge then joins, in one
//! small union-find over the regions that reach a band's edge, the runs of each band's
//! bottom row with those of the next band's top row that they touch; every join that merges
//! two regions takes one from the sum of the bands' counts. The bands are fixed by their
//! height, not by the threads, and each band's figures depend only on the board, so the
//! result is the same on any thread count; [`Stats::of`] is the twin it is tested against.

#![allow(
    clippy::indexing_slicing,
    reason = "word indices range over planes built from the board's own Geometry, and run ids \
              index the union-find vectors they were pushed onto"
)]

use crate::board::dilated_word;
use crate::game::tiled::{ThreadShare, on_threads};
use crate::{Board, Error, Stats};

/// A run of set bits of one row, first and last padded column, and its region.
#[derive(Debug, Clone, Copy)]
struct Run {
    start: usize,
    end: usize,
    id: usize,
}

/// A union-find over run ids, with path halving; a root is its region's smallest id.
#[derive(Debug, Default)]
struct Regions {
    parent: Vec<usize>,
}

impl Regions {
    fn add(&mut self) -> usize {
        self.parent.push(self.parent.len());
        self.parent.len() - 1
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Joins the regions of `a` and `b`; whether they were two.
    fn join(&mut self, a: usize, b: usize) -> bool {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        let (low, high) = (a.min(b), a.max(b));
        self.parent[high] = low;
        true
    }
}

/// Joins every run of `lower` with the runs of `upper` (the row above) that it touches,
/// diagonals included; returns the joins that merged two regions.
fn join_rows(regions: &mut Regions, upper: &[Run], lower: &[Run]) -> usize {
    let (mut joins, mut first) = (0, 0);
    for run in lower {
        while first < upper.len() && upper[first].end + 1 < run.start {
            first += 1;
        }
        let mut j = first;
        while j < upper.len() && upper[j].start <= run.end + 1 {
            joins += usize::from(regions.join(upper[j].id, run.id));
            j += 1;
        }
    }
    joins
}

/// Appends the runs of set bits of `words` (one padded row) to `out`, each a new region.
fn push_runs(words: &[u64], regions: &mut Regions, out: &mut Vec<Run>) {
    let bits = words.len() * 64;
    let mut at = 0;
    while at < bits {
        let mut w = at / 64;
        let mut set = words[w] & (!0u64 << (at % 64));
        while set == 0 {
            w += 1;
            if w == words.len() {
                return;
            }
            set = words[w];
        }
        let start = w * 64 + set.trailing_zeros() as usize;
        let mut w = start / 64;
        let mut clear = !words[w] & (!0u64 << (start % 64));
        let end = loop {
            if clear != 0 {
                break w * 64 + clear.trailing_zeros() as usize;
            }
            w += 1;
            if w == words.len() {
                break bits;
            }
            clear = !words[w];
        };
        out.push(Run {
            start,
            end: end - 1,
            id: regions.add(),
        });
        at = end;
    }
}

/// What one band found about one kind of region.
#[derive(Debug, Default)]
struct Labelled {
    /// Regions inside the band.
    regions: usize,
    /// Runs of the band's top and bottom rows, ids their regions' roots.
    top: Vec<Run>,
    bottom: Vec<Run>,
}

/// One band of rows and what it found.
#[derive(Debug)]
struct Band {
    top: usize,
    rows: usize,
    zero: Labelled,
    isolated: Labelled,
    isolated_cells: usize,
}

/// Labels the regions of rows `band.top..band.top + band.rows` whose words `row(r, buffer)`
/// writes.
fn label(top: usize, rows: usize, wpr: usize, mut row: impl FnMut(usize, &mut [u64])) -> Labelled {
    let mut regions = Regions::default();
    let (mut upper, mut lower) = (Vec::new(), Vec::new());
    let mut words = vec![0u64; wpr];
    let (mut runs, mut joins) = (0, 0);
    let mut first = Vec::new();
    for r in top..top + rows {
        row(r, &mut words);
        lower.clear();
        push_runs(&words, &mut regions, &mut lower);
        runs += lower.len();
        joins += join_rows(&mut regions, &upper, &lower);
        if r == top {
            first = lower.clone();
        }
        std::mem::swap(&mut upper, &mut lower);
    }
    let mut roots = |runs: Vec<Run>| -> Vec<Run> {
        runs.into_iter()
            .map(|run| Run {
                id: regions.find(run.id),
                ..run
            })
            .collect()
    };
    Labelled {
        regions: runs - joins,
        top: roots(first),
        bottom: roots(upper),
    }
}

/// Merges the bands' counts along their edges: the regions of all the bands less the joins
/// across edges that merged two.
fn merge(bands: &[Band], kind: impl Fn(&Band) -> &Labelled) -> usize {
    // Each band's edge regions get dense ids in one union-find.
    let mut ids: Vec<Vec<usize>> = Vec::with_capacity(bands.len());
    let mut total = 0;
    for band in bands {
        let labelled = kind(band);
        let mut roots: Vec<usize> = labelled
            .top
            .iter()
            .chain(&labelled.bottom)
            .map(|run| run.id)
            .collect();
        roots.sort_unstable();
        roots.dedup();
        total += roots.len();
        ids.push(roots);
    }
    let mut regions = Regions::default();
    let mut offsets = Vec::with_capacity(bands.len());
    for roots in &ids {
        offsets.push(regions.parent.len());
        for _ in roots {
            regions.add();
        }
    }
    debug_assert_eq!(regions.parent.len(), total);
    let global = |t: usize, runs: &[Run]| -> Vec<Run> {
        runs.iter()
            .map(|run| Run {
                id: offsets[t] + ids[t].binary_search(&run.id).unwrap_or(0),
                ..*run
            })
            .collect()
    };
    let mut joins = 0;
    for t in 1..bands.len() {
        let upper = global(t - 1, &kind(&bands[t - 1]).bottom);
        let lower = global(t, &kind(&bands[t]).top);
        joins += join_rows(&mut regions, &upper, &lower);
    }
    bands.iter().map(|band| kind(band).regions).sum::<usize>() - joins
}

impl Stats {
    /// [`Stats::of`], computed in bands of `band` rows on `threads` threads (at least one)
    /// and merged along the bands' edges; the same figures on any band height and thread
    /// count.
    ///
    /// ```
    /// use bitmines_core::{Board, Stats};
    ///
    /// let board: Board = "...\n.*.\n...\n...\n".parse()?;
    /// assert_eq!(Stats::of_bands(&board, 1, 2)?, Stats::of(&board)?);
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// `EmptyTile` if `band` is 0.
    pub fn of_bands(board: &Board, band: usize, threads: usize) -> Result<Stats, Error> {
        if band == 0 {
            return Err(Error::EmptyTile {
                rows: band,
                cols: board.cols(),
            });
        }
        let geometry = *board.geometry();
        let rows = geometry.rows();
        let wpr = geometry.words_per_row();
        let mut bands: Vec<Band> = (0..rows.div_ceil(band))
            .map(|i| Band {
                top: i * band,
                rows: band.min(rows - i * band),
                zero: Labelled::default(),
                isolated: Labelled::default(),
                isolated_cells: 0,
            })
            .collect();
        let mut shares = vec![ThreadShare::default(); threads.max(1)];
        let (zero, mines) = (board.zero().words(), board.mines().words());
        on_threads(&mut bands, &mut shares, &|band: &mut Band| {
            band.zero = label(band.top, band.rows, wpr, |r, out| {
                out.copy_from_slice(&zero[geometry.row_words(r)]);
            });
            let mut cells = 0;
            band.isolated = label(band.top, band.rows, wpr, |r, out| {
                for (j, (o, w)) in out.iter_mut().zip(geometry.row_words(r)).enumerate() {
                    *o = geometry.cell_mask(j) & !mines[w] & !dilated_word(&geometry, zero, w);
                    cells += o.count_ones() as usize;
                }
            });
            band.isolated_cells = cells;
        });
        let openings = merge(&bands, |band| &band.zero);
        let islands = merge(&bands, |band| &band.isolated);
        let isolated = bands.iter().map(|band| band.isolated_cells).sum();
        Ok(Stats {
            openings,
            islands,
            isolated,
            bbbv: openings + isolated,
        })
    }
}
