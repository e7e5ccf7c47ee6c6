//! Exact, uniform, reproducible generation of large Minesweeper boards, in parallel.
//!
//! [`generate`] builds a [`Board`] with exactly the requested number of mines, every layout
//! that keeps the first-click zone clear equally likely, and the same board for the same
//! [`Config`] on any machine and any number of threads. It runs on the current rayon thread
//! pool; run it inside `ThreadPool::install` to choose the threads.
//!
//! ```
//! use bitmines_core::FirstClick;
//! use bitmines_gen::{generate, Config};
//!
//! let zone = FirstClick::Opening.zone(1000, 1000, 500, 500)?;
//! let config = Config::new(1000, 1000, 150_000, 42).keep_clear(zone);
//! let board = generate(&config)?;
//! assert_eq!(board.mine_count(), 150_000);
//! assert!(!board.is_mine(500, 500)?);
//! assert_eq!(board, generate(&config)?); // reproducible
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # How
//!
//! The rows are cut into fixed chunks of about 2^18 cells (the cut depends only on the
//! column count). A master random stream draws, chunk after chunk, how many mines each
//! chunk holds: a hypergeometric draw of the mines left over the free cells left, which is
//! exactly the law of a uniform layout, made in integer arithmetic alone so that it is the
//! same on every platform. Then every chunk places its mines in parallel with its own
//! `Pcg64`, whose state and stream come from a SplitMix hash of the seed and the chunk
//! index (a board with fewer than about 16 mines or holes per chunk is placed in one piece
//! instead); sparse chunks place cells one by one by rejection, dense ones draw independent
//! bits near the chunk's density and then add or remove uniformly chosen cells until the
//! count is exact. Above half the free cells, the holes are placed instead. Finally the zero
//! plane is built in parallel row ranges.
//!
//! The chunks are filled with `par_chunks_mut` over whole rows, so no word is shared between
//! threads, each from its own `Pcg64` whose state and stream are SplitMix64 hashes of the seed
//! and the chunk index. The board is finished by core's hidden `Board::from_mine_words_with`,
//! whose zero-plane jobs run on the same pool. [`Generator`] is the
//! [`Placer`] deferred games use.
//!
//! The same seed gives the same board on any thread count (chunk boundaries and random streams
//! depend on the config alone, and chunk counts are drawn in sequence) and on any platform
//! (nothing is decided in floating point). [`SEED_VERSION`] is bumped whenever the same config
//! may give a different board; fixed-output tests (the golden hashes) pin the boards, not a
//! pinned `rand_pcg`. A seed names a board together with its placer: core's `SeededPlacer` is
//! another placer, and the same seed gives it another board.
//!
//! Memory: the mine plane and the zero plane, 0.25 bytes per padded cell. Planes come from
//! zeroed allocations, so their pages are first touched by the parallel writers.
//!
//! # What is public
//!
//! [`Config`], [`generate`], [`Generator`], [`SEED_VERSION`], the no-guess requests
//! and certificates, and one [`Error`]. Other projects may use all of it.

// No input may make the library panic: outside tests, no unwrap, expect, panic or unchecked
// indexing. Modules whose hot loops index planes by word allow indexing, saying why.
#![cfg_attr(
    not(test),
    warn(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadme;

mod chunk;
mod no_guess;
mod split;

use bitmines_core::{Board, Geometry, Placement, Placer, Zone};
use rand_pcg::Pcg64;
use rayon::prelude::*;

use crate::chunk::Chunk;

pub use no_guess::{
    Certificate, Certified, Method, NoGuess, NoGuessError, NoGuessGenerator, Progress,
    SOLVER_VERSION, no_guess, no_guess_with_progress,
};

/// Cells per chunk, rounded to whole rows. Fixed, so chunk boundaries never depend on the
/// number of threads.
const CHUNK_CELLS: usize = 1 << 18;

/// Below this many mines (or holes) per chunk on average, all of them are placed one by one
/// instead: the hypergeometric draws of nearly empty chunks cost more than the placement.
const SPARSE_PER_CHUNK: usize = 16;

/// Everything that goes wrong in `bitmines-gen`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// More mines than the cells outside the kept-clear zone.
    #[error(
        "{mines} mines do not fit on a {rows}x{cols} board with {kept_clear} cells kept clear: at most {max}"
    )]
    TooManyMines {
        /// Mines asked for.
        mines: usize,
        /// The most that fit.
        max: usize,
        /// Cells of the zone on the board.
        kept_clear: usize,
        /// The board's row count.
        rows: usize,
        /// The board's column count.
        cols: usize,
    },
    /// A density that is not a fraction in `0..=1`.
    #[error("density {density} is not between 0 and 1")]
    BadDensity {
        /// The density given.
        density: f64,
    },
    /// A size or memory problem found by `bitmines-core` (`EmptyBoard`, `TooLarge`,
    /// `OutOfMemory`, ...).
    #[error(transparent)]
    Core(#[from] bitmines_core::Error),
}

/// What to generate. `keep_clear` is the first-click zone (none by default).
///
/// With the `serde` feature a config serializes as its fields. Deserializing checks their
/// types (and that the zone has a shape a first click makes) and nothing more: sizes and
/// counts are checked by [`generate`], as for a config built in code.
///
/// ```
/// # #[cfg(feature = "serde")] {
/// use bitmines_gen::{Config, generate};
///
/// let json = r#"{"rows":9,"cols":9,"mines":10,"seed":1,"keep_clear":{"rows":{"start":0,"end":2},"cols":{"start":0,"end":2}}}"#;
/// let config: Config = serde_json::from_str(json).unwrap();
/// assert_eq!(serde_json::to_string(&config).unwrap(), json);
/// assert!(!generate(&config).unwrap().is_mine(0, 0).unwrap());
///
/// let too_many: Config = serde_json::from_str(&json.replace("10", "81")).unwrap();
/// assert!(generate(&too_many).is_err()); // checked by generate, not on reading
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Config {
    /// Rows of the board.
    pub rows: usize,
    /// Columns of the board.
    pub cols: usize,
    /// Exactly how many mines.
    pub mines: usize,
    /// The seed: the same config gives the same board.
    pub seed: u64,
    /// Cells that must hold no mine.
    pub keep_clear: Zone,
}

impl Config {
    /// A config with no cell kept clear.
    pub fn new(rows: usize, cols: usize, mines: usize, seed: u64) -> Config {
        Config {
            rows,
            cols,
            mines,
            seed,
            keep_clear: Zone::default(),
        }
    }

    /// A config whose mine count is `density` of the cells, rounded to the nearest whole mine.
    pub fn with_density(
        rows: usize,
        cols: usize,
        density: f64,
        seed: u64,
    ) -> Result<Config, Error> {
        if !(0.0..=1.0).contains(&density) {
            return Err(Error::BadDensity { density });
        }
        let cells = Geometry::new(rows, cols)?.cells();
        Ok(Config::new(
            rows,
            cols,
            (cells as f64 * density).round() as usize,
            seed,
        ))
    }

    /// The same config keeping `zone` clear (for example `FirstClick::Opening.zone(...)`).
    pub fn keep_clear(mut self, zone: Zone) -> Config {
        self.keep_clear = zone;
        self
    }
}

/// The version of what a seed means: bumped whenever the same [`Config`] may give a different
/// board. Kept beside a saved seed, it says whether the seed still gives the same board.
pub const SEED_VERSION: u32 = 2;

/// Generates the board `config` describes. Sizes, mine counts and memory are checked before
/// anything large is allocated.
pub fn generate(config: &Config) -> Result<Board, Error> {
    generate_with_progress(config, &|_| {})
}

/// The share of [`generate_with_progress`]'s work that placing the mines is (the rest is
/// counting the neighbours).
const PLACING_SHARE: f64 = 0.9;

/// [`generate`], calling `progress` with the share of the work done (0 to 1) as each chunk
/// of rows gets its mines, from whichever thread placed it, and with 1 when the board is
/// made. The board is the same as [`generate`]'s.
pub fn generate_with_progress(
    config: &Config,
    progress: &(dyn Fn(f64) + Sync),
) -> Result<Board, Error> {
    let geometry = Geometry::new(config.rows, config.cols)?;
    let (rows, cols) = (config.rows, config.cols);
    let zone = &config.keep_clear;
    let kept_clear = zone.cells().filter(|&(r, c)| r < rows && c < cols).count();
    let max = geometry.cells() - kept_clear;
    if config.mines > max {
        return Err(Error::TooManyMines {
            mines: config.mines,
            max,
            kept_clear,
            rows,
            cols,
        });
    }
    // Both planes of the board must fit before the first is taken.
    let oom = || bitmines_core::Error::OutOfMemory {
        bytes: 2 * geometry.plane_bytes(),
        rows,
        cols,
    };
    Vec::<u64>::new()
        .try_reserve_exact(2 * geometry.words())
        .map_err(|_| oom())?;
    let mut words = vec![0u64; geometry.words()];

    let chunk_rows = (CHUNK_CELLS / cols).max(1);
    let free: Vec<usize> = (0..rows.div_ceil(chunk_rows))
        .map(|i| {
            let chunk = i * chunk_rows..((i + 1) * chunk_rows).min(rows);
            let zone_rows = zone.rows().start.max(chunk.start)..zone.rows().end.min(chunk.end);
            let zone_cols = zone.cols().start.min(cols)..zone.cols().end.min(cols);
            chunk.len() * cols - zone_rows.len() * zone_cols.len()
        })
        .collect();
    let wpr = geometry.words_per_row();
    // The plane less its sentinel rows; `words` was allocated for this geometry.
    let Some(plane) = words.get_mut(wpr..(rows + 1) * wpr) else {
        return Err(Error::Core(bitmines_core::Error::PlaneSize {
            rows,
            cols,
            expected: geometry.words(),
            found: words.len(),
        }));
    };
    if config.mines.min(max - config.mines) < SPARSE_PER_CHUNK * free.len() {
        // So few mines (or holes) per chunk that drawing each chunk's count costs more than
        // placing them all, one by one, with the master stream.
        let mut master = stream(config.seed, 0);
        Chunk {
            geometry: &geometry,
            zone,
            first_row: 0,
            words: plane,
            mines: config.mines,
            free: max,
        }
        .place(&mut master);
    } else {
        let counts = chunk_counts(config.seed, config.mines, &free);
        let placed = std::sync::atomic::AtomicUsize::new(0);
        let chunks = free.len().max(1) as f64;
        plane
            .par_chunks_mut(chunk_rows * wpr)
            .zip(counts.par_iter().zip(free.par_iter()))
            .enumerate()
            .for_each(|(i, (chunk_words, (&mines, &free)))| {
                let mut rng = stream(config.seed, i as u64 + 1);
                let first_row = i * chunk_rows;
                Chunk {
                    geometry: &geometry,
                    zone,
                    first_row,
                    words: chunk_words,
                    mines,
                    free,
                }
                .place(&mut rng);
                let done = placed.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                progress(PLACING_SHARE * done as f64 / chunks);
            });
    }
    progress(PLACING_SHARE);
    let board = Board::from_mine_words_with(geometry, words, |jobs| {
        jobs.par_iter_mut().for_each(bitmines_core::ZeroJob::run)
    })?;
    progress(1.0);
    Ok(board)
}

/// How many mines each chunk holds, drawn one chunk after another from the master stream:
/// the law of a uniform layout of `mines` over all the free cells.
fn chunk_counts(seed: u64, mines: usize, free: &[usize]) -> Vec<usize> {
    let mut master = stream(seed, 0);
    let mut cells_left: u64 = free.iter().map(|&f| f as u64).sum();
    let mut mines_left = mines as u64;
    free.iter()
        .map(|&part| {
            let part = part as u64;
            let here = split::mines_in_part(&mut master, cells_left, mines_left, part);
            cells_left -= part;
            mines_left -= here;
            here as usize
        })
        .collect()
}

/// The random stream number `index` of `seed`: its state and its stream selector are two
/// independent SplitMix64 hashes, so neighbouring indices give unrelated generators.
fn stream(seed: u64, index: u64) -> Pcg64 {
    let lane = |k: u64| {
        let hi = splitmix64(seed ^ splitmix64(index.wrapping_mul(4).wrapping_add(k)));
        let lo = splitmix64(hi ^ 0x6A09_E667_F3BC_C909);
        u128::from(hi) << 64 | u128::from(lo)
    };
    Pcg64::new(lane(1), lane(2))
}

/// The SplitMix64 finaliser: a bijective mix of 64 bits.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A [`Placer`] for deferred games: the first click's zone is kept clear, and the same seed
/// and first click give the same game.
///
/// This is the placer of the command line: `bitmines gen --seed S --first-click R,C`,
/// `bitmines play --seed S` and `bitmines stress --seed S` make the board that a deferred
/// game with `Generator::new(S)` makes on a first click at `(R, C)`, which is
/// [`generate`] with the click's zone kept clear. Core's `Game::seeded` and `SeededPlacer`
/// draw the same seed differently (one serial stream, no rayon), so their boards differ;
/// see `Game::seeded`.
///
/// ```
/// use bitmines_core::{FirstClick, Game};
/// use bitmines_gen::{Config, Generator, generate};
///
/// let mut game = Game::deferred(9, 9, 10, FirstClick::Opening, Generator::new(42))?;
/// game.reveal(4, 4)?;
/// let zone = FirstClick::Opening.zone(9, 9, 4, 4)?;
/// let board = generate(&Config::new(9, 9, 10, 42).keep_clear(zone)).unwrap();
/// assert_eq!(**game.board().unwrap(), board); // the board of `gen --seed 42 --first-click 4,4`
/// let mut other = Game::seeded(9, 9, 10, 42)?; // core's placer
/// other.reveal(4, 4)?;
/// assert_ne!(**other.board().unwrap(), board);
/// # Ok::<(), bitmines_core::Error>(())
/// ```
///
/// ```
/// use bitmines_core::{FirstClick, Game};
/// use bitmines_gen::Generator;
///
/// let mut game = Game::deferred(1000, 1000, 100_000, FirstClick::Opening, Generator::new(7))?;
/// assert!(game.reveal(500, 500)?.opened >= 9);
/// # Ok::<(), bitmines_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Generator {
    seed: u64,
}

impl Generator {
    /// A placer generating from `seed`.
    pub fn new(seed: u64) -> Generator {
        Generator { seed }
    }
}

impl Placer for Generator {
    fn seed(&self) -> Option<u64> {
        Some(self.seed)
    }

    fn place(&self, request: &Placement) -> Result<Board, bitmines_core::Error> {
        let config = Config::new(request.rows, request.cols, request.mines, self.seed)
            .keep_clear(request.zone.clone());
        generate(&config).map_err(|error| match error {
            Error::Core(error) => error,
            other => bitmines_core::Error::BadPlacement {
                reason: other.to_string(),
            },
        })
    }
}

#[cfg(test)]
mod progress {
    use std::sync::Mutex;

    use bitmines_core::FirstClick;

    use super::*;

    #[test]
    fn progress_runs_from_placing_to_one_and_leaves_the_board_as_it_was() {
        // Mines enough for every chunk to be placed on its own, and rows for many chunks.
        let zone = FirstClick::Opening.zone(2000, 1000, 10, 10).unwrap();
        let config = Config::new(2000, 1000, 300_000, 5).keep_clear(zone);
        let shares = Mutex::new(Vec::new());
        let board =
            generate_with_progress(&config, &|share| shares.lock().unwrap().push(share)).unwrap();
        assert_eq!(board, generate(&config).unwrap());
        let shares = shares.into_inner().unwrap();
        // A report for each chunk placed, one when placing is done and one at the end.
        let chunks = 2000usize.div_ceil(CHUNK_CELLS / 1000);
        assert_eq!(shares.len(), chunks + 2, "{shares:?}");
        assert!(shares.iter().all(|s| (0.0..=1.0).contains(s)), "{shares:?}");
        assert!(
            shares[..chunks]
                .iter()
                .all(|&s| s > 0.0 && s <= PLACING_SHARE)
        );
        assert_eq!(shares.last(), Some(&1.0));
    }

    #[test]
    fn a_no_guess_boards_share_done_grows_to_one_through_its_certifying_replay() {
        // Too large for rejection: repaired, then certified by a replay from the first click.
        let request = NoGuess::new(60, 60, 600, 3).first_click(FirstClick::Opening, 30, 30);
        let seen = Mutex::new(Vec::new());
        no_guess_with_progress(&request, &|p| seen.lock().unwrap().push(p)).unwrap();
        let seen = seen.into_inner().unwrap();
        assert!(seen.iter().all(|p| (0.0..=1.0).contains(&p.share())));
        assert!(seen.iter().any(|p| !p.certifying && p.share() <= 0.5));
        let last = seen.last().unwrap();
        assert!(last.certifying, "{last:?}");
        assert_eq!(last.share(), 1.0, "{last:?}");
    }
}
