//! `bitmines_gen::generate`, checked from the outside through the public API of
//! `bitmines-gen` and `bitmines-core` only.
//!
//! - Every board has exactly the mines asked for and none in the kept-clear zone, over the
//!   awkward shapes (one cell, one row, one column, widths around the 64-bit word edges of a
//!   padded row, boards of several chunks) and the extreme counts (none, one, all, all but
//!   one).
//! - The same config gives the same board on any number of threads, pinned by golden hashes.
//! - The boards are uniform: per-cell frequencies, whole-layout frequencies on tiny boards,
//!   pairs of cells, the mines per chunk of a board of several chunks, and a naive
//!   shuffle-and-take twin, all compared with the exact laws of a uniform layout.
//! - Errors come back before anything large is allocated, and `Generator` plugs into
//!   deferred games.
//!
//! The statistical tests use fixed seeds, so they are deterministic; their thresholds sit
//! about six standard deviations out (an upper tail near 1e-9) so that a correct generator
//! passes with any seeds, while the biased generators tried when writing them (one cell
//! made rarer, a fixed split of the mines between chunks, mines spread evenly over rows)
//! all fail by a wide margin.

use std::collections::HashMap;

use bitmines_core::{Board, FirstClick, Game, Geometry, Placement, Placer, Zone};
use bitmines_gen::{Config, Error, Generator, generate};

mod naive;
use naive::naive_board;

/// About how many cells the generator puts in one chunk of whole rows, as its documentation
/// says. The tests use it only to pick sizes and zones that straddle chunk boundaries; every
/// law they check holds for any fixed set of cells, so none of them breaks if the chunk size
/// changes, they only get less pointed.
const CHUNK_CELLS: usize = 1 << 18;

/// Rows per chunk for a board `cols` wide.
fn chunk_rows(cols: usize) -> usize {
    (CHUNK_CELLS / cols).max(1)
}

/// Generates `config`, failing the test with the config on an error.
fn board_of(config: &Config) -> Board {
    generate(config).unwrap_or_else(|error| panic!("{config:?}: {error}"))
}

/// Runs `f` on a fresh rayon pool of `threads` threads, so `generate` inside it uses them.
fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
        .install(f)
}

/// The zone `policy` keeps clear around a first click on `(row, col)`.
fn zone(policy: FirstClick, rows: usize, cols: usize, row: usize, col: usize) -> Zone {
    policy
        .zone(rows, cols, row, col)
        .expect("click on the board")
}

/// Cells of `zone` that lie on a `rows x cols` board.
fn zone_on_board(zone: &Zone, rows: usize, cols: usize) -> usize {
    zone.cells().filter(|&(r, c)| r < rows && c < cols).count()
}

/// Mines in rows `rows` of `board`.
fn mines_in_rows(board: &Board, rows: std::ops::Range<usize>) -> usize {
    rows.map(|r| board.mine_row(r).expect("row on the board").count_ones())
        .sum()
}

/// Mines in the rectangle `rows x cols` of `board`.
fn mines_in_rect(
    board: &Board,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
) -> usize {
    rows.map(|r| board.mine_row(r).expect("row on the board")[cols.clone()].count_ones())
        .sum()
}

/// Checks what `generate` promises about one board: its shape, exactly `config.mines` mines,
/// and no mine in the zone. `mine_count` is counted by `bitmines-core` from the mine plane
/// itself; on boards small enough to be quick, the rows are counted again through
/// `mine_row` as a second opinion.
fn assert_valid(config: &Config, board: &Board) {
    let (rows, cols) = (config.rows, config.cols);
    assert_eq!((board.rows(), board.cols()), (rows, cols), "{config:?}");
    assert_eq!(board.mine_count(), config.mines, "{config:?}");
    if rows * cols <= 100_000 {
        assert_eq!(mines_in_rows(board, 0..rows), config.mines, "{config:?}");
    }
    for (r, c) in config.keep_clear.cells() {
        if r < rows && c < cols {
            assert!(
                !board.is_mine(r, c).expect("on the board"),
                "{config:?}: mine at ({r}, {c}) inside the zone"
            );
        }
    }
}

/// FNV-1a (64 bits) of the board's shape and of its mines' coordinates in row-major order,
/// each fed as 8 little-endian bytes. It is defined from the public API alone and does not
/// depend on the word size or on how the planes are laid out, so the golden values below
/// hold on every platform.
fn layout_hash(board: &Board) -> u64 {
    struct Fnv(u64);
    impl Fnv {
        fn eat(&mut self, x: usize) {
            for byte in (x as u64).to_le_bytes() {
                self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3);
            }
        }
    }
    let mut fnv = Fnv(0xCBF2_9CE4_8422_2325);
    fnv.eat(board.rows());
    fnv.eat(board.cols());
    for r in 0..board.rows() {
        let row = board.mine_row(r).expect("row on the board");
        // Skipping empty rows word by word keeps the billion-cell board quick in debug builds.
        if row.any() {
            for c in row.iter_ones() {
                fnv.eat(r);
                fnv.eat(c);
            }
        }
    }
    fnv.0
}

/// Where first clicks land in the table tests: the four corners, the middle of each edge,
/// the centre, and the first row of the second chunk, where a zone straddles two chunks.
fn clicks(rows: usize, cols: usize) -> Vec<(usize, usize)> {
    let (last_row, last_col) = (rows - 1, cols - 1);
    let mut clicks = vec![
        (0, 0),
        (0, last_col),
        (last_row, 0),
        (last_row, last_col),
        (0, cols / 2),
        (last_row, cols / 2),
        (rows / 2, 0),
        (rows / 2, last_col),
        (rows / 2, cols / 2),
    ];
    if chunk_rows(cols) < rows {
        clicks.push((chunk_rows(cols), cols / 2));
    }
    clicks.sort_unstable();
    clicks.dedup();
    clicks
}

/// The mine counts tried for `free` cells outside the zone: none, one, all, all but one, and
/// the densities 0.001, 0.05, 0.2, 0.5, 0.95 and 0.999 of the free cells.
fn mine_counts(free: usize) -> Vec<usize> {
    let mut counts = vec![0, 1, free, free.saturating_sub(1)];
    for density in [0.001, 0.05, 0.2, 0.5, 0.95, 0.999] {
        counts.push((free as f64 * density).round() as usize);
    }
    counts.retain(|&m| m <= free);
    counts.sort_unstable();
    counts.dedup();
    counts
}

#[test]
fn every_shape_count_and_zone_gives_exactly_the_mines_outside_the_zone() {
    // Widths sit around the word edges of a padded row (`cols + 2` bits), where a cell's bit
    // changes words.
    let small = [
        (1, 1),
        (1, 2),
        (1, 3),
        (1, 7),
        (1, 130),
        (2, 1),
        (7, 1),
        (130, 1),
        (2, 2),
        (3, 3),
        (4, 61),
        (4, 62),
        (4, 63),
        (4, 64),
        (4, 65),
        (3, 127),
        (3, 128),
        (3, 129),
        (3, 1000),
        (16, 30),
    ];
    let mut checked = 0;
    for (i, &(rows, cols)) in small.iter().enumerate() {
        // `Unprotected` keeps nothing clear wherever the click lands: one zone stands for all.
        let mut zones = vec![zone(
            FirstClick::Unprotected,
            rows,
            cols,
            rows / 2,
            cols / 2,
        )];
        for (r, c) in clicks(rows, cols) {
            zones.push(zone(FirstClick::Safe, rows, cols, r, c));
            zones.push(zone(FirstClick::Opening, rows, cols, r, c));
        }
        for (j, keep) in zones.iter().enumerate() {
            let free = rows * cols - zone_on_board(keep, rows, cols);
            for mines in mine_counts(free) {
                let seed = (i * 1000 + j * 37 + mines) as u64;
                let config = Config::new(rows, cols, mines, seed).keep_clear(keep.clone());
                assert_valid(&config, &board_of(&config));
                checked += 1;
            }
        }
    }
    // Boards of several chunks: 600x1000 has 262-row chunks, 3x200000 and 5x131072 have
    // chunks of one and two rows, 300000x1 has two chunks of 2^18 rows, and 1x300000 is a
    // single row longer than a chunk.
    let large = [
        (600, 1000),
        (3, 200_000),
        (5, 131_072),
        (300_000, 1),
        (1, 300_000),
    ];
    for (i, &(rows, cols)) in large.iter().enumerate() {
        let boundary = chunk_rows(cols).min(rows - 1);
        let zones = [
            Zone::default(),
            zone(FirstClick::Opening, rows, cols, rows / 2, cols / 2),
            zone(FirstClick::Opening, rows, cols, boundary, cols - 1),
            zone(FirstClick::Safe, rows, cols, rows - 1, 0),
        ];
        for (j, keep) in zones.iter().enumerate() {
            let free = rows * cols - zone_on_board(keep, rows, cols);
            let mut counts = mine_counts(free);
            if rows > 100_000 {
                // A third of a million one-cell rows is slow in debug builds: fewer counts,
                // still covering both ends and the dense middle.
                counts = vec![0, 1, free / 5, free / 2 + 1, free - 1, free];
            }
            for mines in counts {
                let seed = (i * 1000 + j * 37 + mines) as u64;
                let config = Config::new(rows, cols, mines, seed).keep_clear(keep.clone());
                assert_valid(&config, &board_of(&config));
                checked += 1;
            }
        }
    }
    // Guards against a table that silently shrank.
    assert!(checked > 2000, "only {checked} boards checked");
}

#[test]
fn with_density_rounds_to_the_nearest_whole_mine() {
    for (rows, cols, density, mines) in [
        (10, 10, 0.125, 13), // 12.5 rounds away from zero
        (10, 10, 0.0, 0),
        (10, 10, 1.0, 100),
        (1, 1, 0.5, 1),
        (1000, 1000, 0.2, 200_000),
        (7, 9, 0.999, 63),
    ] {
        let config = Config::with_density(rows, cols, density, 5).expect("valid density");
        assert_eq!(config, Config::new(rows, cols, mines, 5), "{density}");
        assert_valid(&config, &board_of(&config));
    }
}

/// Configs whose boards are pinned by golden hashes: small, several chunks, sparse, dense, a
/// zone, one row, one column of two chunks, and narrow chunks with a zone on a chunk edge.
fn golden_configs() -> Vec<(&'static str, Config, u64)> {
    vec![
        (
            "expert 16x30, 99 mines",
            Config::new(16, 30, 99, 1),
            0x3031_0410_5888_6AD3,
        ),
        (
            "600x1000 at 0.2, three chunks",
            Config::new(600, 1000, 120_000, 2),
            0x35DC_5033_9145_E6CE,
        ),
        (
            "1000x1000, 100 mines",
            Config::new(1000, 1000, 100, 3),
            0x4D31_E76B_22FB_AF44,
        ),
        (
            "300x300 at 0.9",
            Config::new(300, 300, 81_000, 4),
            0x8662_F585_71B6_695B,
        ),
        (
            "64x65, opening on the top right corner",
            Config::new(64, 65, 1000, 5).keep_clear(zone(FirstClick::Opening, 64, 65, 0, 64)),
            0x8045_40FD_3FB2_174C,
        ),
        (
            "1x100000, 5000 mines",
            Config::new(1, 100_000, 5000, 6),
            0x5E63_AEE7_E3AD_94A2,
        ),
        (
            "300000x1, 30000 mines",
            Config::new(300_000, 1, 30_000, 7),
            0x8C8E_257E_B453_4E7D,
        ),
        (
            "6x131072 at half, opening across the first chunk edge",
            Config::new(6, 131_072, 393_211, 8).keep_clear(zone(
                FirstClick::Opening,
                6,
                131_072,
                2,
                131_071,
            )),
            0xBCD3_9E83_9338_5D1D,
        ),
    ]
}

/// The golden hashes pin every generated board. If one changes, every board that config
/// (and in all likelihood every other) generates has changed: saved seeds no longer give the
/// boards players know. That happens when the chunking, the streams, the sampling inside a
/// chunk or the hypergeometric split change, and also when a dependency's generator does,
/// which is why `rand_pcg` is pinned to an exact version in the workspace `Cargo.toml` (the
/// split is the crate's own integer arithmetic, the same on every platform). Change the
/// constants only on purpose, bump `SEED_VERSION`, and say so in the changelog.
#[test]
fn golden_boards_are_the_same_on_one_two_and_three_threads() {
    // The boards below are those of this version of what a seed means.
    assert_eq!(bitmines_gen::SEED_VERSION, 2);
    for (name, config, golden) in golden_configs() {
        let board = board_of(&config);
        assert_valid(&config, &board);
        let hash = layout_hash(&board);
        assert_eq!(hash, golden, "{name}: got {hash:#018x}");
        for threads in [1, 2, 3] {
            let again = on_threads(threads, || board_of(&config));
            assert_eq!(layout_hash(&again), golden, "{name} on {threads} threads");
            assert!(
                again == board,
                "{name}: {threads} threads give another board"
            );
        }
    }
}

#[test]
fn different_seeds_give_different_boards() {
    for config in [
        Config::new(16, 30, 99, 0),
        Config::new(600, 1000, 120_000, 0),
        Config::new(1000, 1000, 100, 0),
        Config::new(300, 300, 81_000, 0),
        Config::new(1, 100_000, 5000, 0),
        Config::new(9, 9, 10, 0).keep_clear(zone(FirstClick::Opening, 9, 9, 4, 4)),
    ] {
        let mut seen = HashMap::new();
        for seed in [0, 1, 2, 3, 1 << 32, 1 << 63, u64::MAX, u64::MAX - 1] {
            let mut config = config.clone();
            config.seed = seed;
            let hash = layout_hash(&board_of(&config));
            if let Some(other) = seen.insert(hash, seed) {
                panic!("{config:?}: seeds {other} and {seed} give the same board");
            }
        }
    }
}

#[test]
fn chunks_of_one_board_and_of_nearby_seeds_are_unrelated() {
    // Every row of a 4x262144 board is a chunk of its own with its own stream; at density
    // one half, two equal rows would mean two chunks drew the same bits.
    let mut rows_seen = HashMap::new();
    for seed in 0..4 {
        let board = board_of(&Config::new(4, 262_144, 524_288, seed));
        for r in 0..4 {
            let row = board.mine_row(r).expect("row on the board");
            if let Some(other) = rows_seen.insert(row.to_bitvec(), (seed, r)) {
                panic!(
                    "seed {seed} row {r} repeats seed {} row {}",
                    other.0, other.1
                );
            }
        }
    }
    assert_eq!(rows_seen.len(), 16);
}

/// An upper quantile of the chi-square law with `df` degrees of freedom, `z` standard normal
/// deviations out, by the Wilson-Hilferty cube-root approximation (accurate to a few percent
/// this far out for `df` of ten or more). `z = 6` is an upper tail of about 1e-9, so a test
/// that uses it cannot flake, and `z = -6` is the matching lower quantile.
fn chi2_quantile(df: f64, z: f64) -> f64 {
    let a = 2.0 / (9.0 * df);
    df * (1.0 - a + z * a.sqrt()).powi(3)
}

/// How far out, in standard deviations, every statistical bound in this file sits.
const SIGMAS: f64 = 6.0;

/// Per-cell mine frequencies over many seeds against a uniform layout.
///
/// Over `seeds` boards, each a uniform choice of `m` of the `n` free cells, cell `c` holds a
/// mine `O_c` times with mean `E = seeds * m / n`. The counts are negatively correlated
/// (every board has exactly `m` mines), and `sum (O_c - E)^2 / E` is distributed as
/// `(1 - m / n) * n / (n - 1)` times a chi-square with `n - 1` degrees of freedom: dividing
/// by that factor gives a plain chi-square to compare with its quantile. Zone cells must
/// never hold a mine.
#[test]
fn per_cell_frequencies_are_uniform() {
    let cases = [
        // rows, cols, mines, zone around (row, col) with policy, seeds
        (8, 8, 10, None, 20_000),
        (8, 8, 10, Some((FirstClick::Opening, 3, 3)), 10_000),
        (8, 8, 10, Some((FirstClick::Opening, 0, 7)), 10_000),
        // More than half the free cells: the holes are placed instead.
        (8, 8, 50, None, 10_000),
        // Under 5% of the free cells: one by one by rejection.
        (10, 10, 3, Some((FirstClick::Safe, 9, 0)), 10_000),
        // 70 + 2 bits per padded row: every row spans two words.
        (3, 70, 40, None, 10_000),
    ];
    for (k, &(rows, cols, mines, click, seeds)) in cases.iter().enumerate() {
        let keep = click.map_or(Zone::default(), |(policy, r, c)| {
            zone(policy, rows, cols, r, c)
        });
        let mut hits = vec![0u64; rows * cols];
        for seed in 0..seeds {
            let config = Config::new(rows, cols, mines, seed).keep_clear(keep.clone());
            let board = board_of(&config);
            for (r, row_hits) in hits.chunks_mut(cols).enumerate() {
                for c in board.mine_row(r).expect("row on the board").iter_ones() {
                    row_hits[c] += 1;
                }
            }
        }
        let free = rows * cols - keep.len();
        let expected = (seeds * mines as u64) as f64 / free as f64;
        let (n, p) = (free as f64, mines as f64 / free as f64);
        let sd = (expected * (1.0 - p)).sqrt();
        let mut stat = 0.0;
        for (i, &h) in hits.iter().enumerate() {
            if keep.contains(i / cols, i % cols) {
                assert_eq!(h, 0, "case {k}: zone cell {i} got mines");
            } else {
                stat += (h as f64 - expected).powi(2) / expected;
                // One biased cell among many barely moves the sum: check each cell too.
                assert!(
                    (h as f64 - expected).abs() < SIGMAS * sd,
                    "case {k} ({rows}x{cols}, {mines} mines): cell ({}, {}) is a mine {h} \
                     times, expected {expected:.1} ± {sd:.1}",
                    i / cols,
                    i % cols
                );
            }
        }
        let chi2 = stat / ((1.0 - p) * n / (n - 1.0));
        let df = n - 1.0;
        let limit = chi2_quantile(df, SIGMAS);
        assert!(
            chi2 < limit,
            "case {k} ({rows}x{cols}, {mines} mines): chi-square {chi2:.1} over {df} degrees \
             of freedom, limit {limit:.1}"
        );
    }
}

/// Whole-layout frequencies on tiny boards: every one of the `C(free, mines)` layouts must
/// come up equally often, a multinomial with `layouts - 1` degrees of freedom. This sees
/// correlations between cells that per-cell counts cannot.
#[test]
fn every_layout_of_a_tiny_board_is_equally_likely() {
    let cases = [
        // rows, cols, mines, zone, draws per layout
        (3, 3, 3, Zone::default(), 60), // 84 layouts
        (2, 4, 4, Zone::default(), 60), // 70 layouts
        (4, 4, 2, zone(FirstClick::Safe, 4, 4, 1, 2), 60), // 105 layouts
        (3, 4, 7, zone(FirstClick::Opening, 3, 4, 0, 0), 100), // holes placed: 8 layouts
        (1, 40, 1, Zone::default(), 100), // rejection: 40 layouts
    ];
    for (k, (rows, cols, mines, keep, per_layout)) in cases.into_iter().enumerate() {
        let free = rows * cols - keep.len();
        let layouts = binomial(free, mines);
        let seeds = layouts * per_layout;
        let mut seen: HashMap<u64, u64> = HashMap::new();
        for seed in 0..seeds {
            let config = Config::new(rows, cols, mines, seed).keep_clear(keep.clone());
            let board = board_of(&config);
            assert_valid(&config, &board);
            let mut key = 0u64;
            for r in 0..rows {
                for c in board.mine_row(r).expect("row on the board").iter_ones() {
                    key |= 1u64 << (r * cols + c);
                }
            }
            *seen.entry(key).or_default() += 1;
        }
        assert_eq!(
            seen.len() as u64,
            layouts,
            "case {k}: some layout never came up"
        );
        let expected = per_layout as f64;
        let chi2: f64 = seen
            .values()
            .map(|&o| (o as f64 - expected).powi(2) / expected)
            .sum();
        let df = (layouts - 1) as f64;
        let limit = chi2_quantile(df, SIGMAS);
        assert!(
            chi2 < limit,
            "case {k}: chi-square {chi2:.1} over {df} degrees of freedom, limit {limit:.1}"
        );
    }
}

/// `C(n, k)`, exactly, for the small values used here.
fn binomial(n: usize, k: usize) -> u64 {
    (0..k).fold(1u64, |acc, i| acc * (n - i) as u64 / (i as u64 + 1))
}

/// Pairs of cells: under a uniform layout two given free cells are both mines with
/// probability `m (m - 1) / (n (n - 1))`, below `p^2`. Over `seeds` boards the number of
/// times both are mines is binomial; it must lie within six of its standard deviations.
/// Pairs sit side by side in one word, across a row edge, far apart, and on either side of
/// a chunk edge (the 2x262144 board has one row per chunk; two chunks drawing the same bits
/// would make `(0, c)` and `(1, c)` both mines half the time instead of a quarter).
/// One board of the pairs test and the pairs of cells watched on it.
struct PairCase {
    rows: usize,
    cols: usize,
    mines: usize,
    keep: Zone,
    seeds: u64,
    pairs: Vec<((usize, usize), (usize, usize))>,
}

#[test]
fn pairs_of_cells_are_both_mines_as_often_as_a_uniform_layout_says() {
    let cases = [
        PairCase {
            rows: 8,
            cols: 8,
            mines: 32,
            keep: Zone::default(),
            seeds: 4000,
            pairs: vec![
                ((0, 0), (0, 1)),
                ((0, 7), (1, 0)),
                ((0, 0), (7, 7)),
                ((3, 3), (4, 4)),
            ],
        },
        PairCase {
            rows: 9,
            cols: 9,
            mines: 20,
            keep: zone(FirstClick::Opening, 9, 9, 4, 4),
            seeds: 4000,
            pairs: vec![((2, 2), (2, 3)), ((0, 0), (8, 8)), ((2, 4), (6, 4))],
        },
        PairCase {
            rows: 3,
            cols: 70,
            mines: 100,
            keep: Zone::default(),
            seeds: 3000,
            pairs: vec![((0, 61), (0, 62)), ((1, 62), (1, 63)), ((2, 69), (0, 0))],
        },
        PairCase {
            rows: 2,
            cols: 262_144,
            mines: 262_144,
            keep: Zone::default(),
            seeds: 150,
            pairs: vec![
                ((0, 0), (1, 0)),
                ((0, 262_143), (1, 0)),
                ((0, 5000), (1, 5000)),
            ],
        },
    ];
    for (k, case) in cases.iter().enumerate() {
        let mut both = vec![0u64; case.pairs.len()];
        for seed in 0..case.seeds {
            let config =
                Config::new(case.rows, case.cols, case.mines, seed).keep_clear(case.keep.clone());
            let board = board_of(&config);
            let mine = |(r, c): (usize, usize)| board.is_mine(r, c).expect("on the board");
            for (count, &(a, b)) in both.iter_mut().zip(&case.pairs) {
                *count += u64::from(mine(a) && mine(b));
            }
        }
        let n = (case.rows * case.cols - case.keep.len()) as f64;
        let m = case.mines as f64;
        let q = m * (m - 1.0) / (n * (n - 1.0));
        let mean = case.seeds as f64 * q;
        let sd = (case.seeds as f64 * q * (1.0 - q)).sqrt();
        for (&count, pair) in both.iter().zip(&case.pairs) {
            assert!(
                (count as f64 - mean).abs() < SIGMAS * sd,
                "case {k}, pair {pair:?}: both mines {count} times, expected {mean:.1} ± {sd:.1}"
            );
        }
    }
}

/// The mean and variance of `m` mines over `n` cells in a part of `part` cells: the
/// hypergeometric law of a uniform layout.
fn hypergeometric(n: usize, m: usize, part: usize) -> (f64, f64) {
    let (n, m, part) = (n as f64, m as f64, part as f64);
    let p = m / n;
    (part * p, part * p * (1.0 - p) * (n - part) / (n - 1.0))
}

/// A board of three chunks (6x131072, two rows per chunk), over many seeds:
///
/// - the mines of each chunk have the hypergeometric mean and variance: the mean within six
///   standard errors, and the sum of squared standardised deviations between the chi-square
///   quantiles six deviations either side (so an even split, with no variance, fails too);
/// - the mines in 96 equal bins of the board (16 per row) are uniform, by the same scaled
///   chi-square as per-cell frequencies;
/// - on the dense board, per-cell frequencies of a sample of cells (around the word edges,
///   the chunk edges and spread over the board) are uniform: each cell is a mine with
///   probability `p` independently of the others up to `O(1/n)`, so `sum (O - E)^2 /
///   (E (1 - p))` is a chi-square with one degree of freedom per sampled cell.
///
/// The three counts draw the chunk split by rejection with standard deviations of about 167,
/// 26 and 7 mines (the split's simulation of small cases is checked against the exact law in
/// the crate's unit tests), and the chunks place their mines as Bernoulli words and one by one.
#[test]
fn a_board_of_several_chunks_is_uniform_across_and_within_chunks() {
    let (rows, cols) = (6, 131_072);
    let n = rows * cols;
    let chunk = chunk_rows(cols);
    assert_eq!(chunk, 2, "the test expects two-row chunks");
    for (mines, seeds) in [(157_286, 300), (3000, 400), (200, 400)] {
        let bins_per_row = 16;
        let bin = cols / bins_per_row;
        let sample: Vec<(usize, usize)> = (0..rows)
            .flat_map(|r| {
                [
                    0,
                    1,
                    62,
                    63,
                    64,
                    65,
                    66,
                    127,
                    128,
                    65_535,
                    65_536,
                    cols - 2,
                    cols - 1,
                ]
                .into_iter()
                .chain((0..cols).step_by(4099))
                .map(move |c| (r, c))
            })
            .collect();
        let mut chunk_totals = vec![Vec::new(); rows / chunk];
        let mut bins = vec![0u64; rows * bins_per_row];
        let mut cell_hits = vec![0u64; sample.len()];
        for seed in 0..seeds {
            let board = board_of(&Config::new(rows, cols, mines, seed));
            for (i, totals) in chunk_totals.iter_mut().enumerate() {
                totals.push(mines_in_rows(&board, i * chunk..(i + 1) * chunk) as f64);
            }
            for r in 0..rows {
                for b in 0..bins_per_row {
                    bins[r * bins_per_row + b] +=
                        mines_in_rect(&board, r..r + 1, b * bin..(b + 1) * bin) as u64;
                }
            }
            for (hits, &(r, c)) in cell_hits.iter_mut().zip(&sample) {
                *hits += u64::from(board.is_mine(r, c).expect("on the board"));
            }
        }
        let s = seeds as f64;
        let (mean, var) = hypergeometric(n, mines, chunk * cols);
        for (i, totals) in chunk_totals.iter().enumerate() {
            let got = totals.iter().sum::<f64>() / s;
            assert!(
                (got - mean).abs() < SIGMAS * (var / s).sqrt(),
                "{mines} mines, chunk {i}: mean {got:.2}, expected {mean:.2}"
            );
            let squares: f64 = totals.iter().map(|t| (t - mean).powi(2) / var).sum();
            let (low, high) = (chi2_quantile(s, -SIGMAS), chi2_quantile(s, SIGMAS));
            assert!(
                (low..high).contains(&squares),
                "{mines} mines, chunk {i}: variance {:.1} times the hypergeometric one, \
                 allowed {:.2}..{:.2}",
                squares / s,
                low / s,
                high / s
            );
        }
        let expected = s * mines as f64 / bins.len() as f64;
        let stat: f64 = bins
            .iter()
            .map(|&o| (o as f64 - expected).powi(2) / expected)
            .sum();
        let chi2 = stat / ((n - mines) as f64 / (n - 1) as f64);
        let df = (bins.len() - 1) as f64;
        assert!(
            chi2 < chi2_quantile(df, SIGMAS),
            "{mines} mines: bins chi-square {chi2:.1} over {df} degrees of freedom"
        );
        if mines * 10 > n {
            let p = mines as f64 / n as f64;
            let chi2: f64 = cell_hits
                .iter()
                .map(|&o| (o as f64 - s * p).powi(2) / (s * p * (1.0 - p)))
                .sum();
            let df = cell_hits.len() as f64;
            assert!(
                chi2 < chi2_quantile(df, SIGMAS),
                "{mines} mines: sampled cells chi-square {chi2:.1} over {df} degrees of freedom"
            );
        }
    }
}

/// Sparse boards: chunk splits that expect a few dozen mines each (100 mines on 1000x1000,
/// and on 1049x1000, whose four 262-row chunks are followed by one of a single row, 1000
/// cells), and boards with so few mines that they are placed in one piece (one mine, and ten
/// on the 31623x31623 board, a billion cells in two planes of 125 MB): exact counts, and the
/// same board on one and two threads.
#[test]
fn sparse_boards_are_exact_and_reproducible() {
    for config in [
        Config::new(1000, 1000, 100, 11),
        Config::new(1049, 1000, 100, 12),
        Config::new(1049, 1000, 1, 13),
        Config::new(31_623, 31_623, 10, 14),
    ] {
        let one = on_threads(1, || board_of(&config));
        assert_valid(&config, &one);
        let hash = layout_hash(&one);
        drop(one);
        let two = on_threads(2, || board_of(&config));
        assert_valid(&config, &two);
        assert_eq!(layout_hash(&two), hash, "{config:?}");
    }
}

#[test]
fn bad_configs_are_errors_named_precisely() {
    let huge = 1 << 28;
    let huge_bytes = 2 * Geometry::new(huge, huge)
        .expect("addressable")
        .plane_bytes();
    let opening_centre = zone(FirstClick::Opening, 3, 3, 1, 1);
    let core = Error::Core;
    let cases = [
        (
            Config::new(0, 5, 0, 1),
            core(bitmines_core::Error::EmptyBoard { rows: 0, cols: 5 }),
        ),
        (
            Config::new(5, 0, 0, 1),
            core(bitmines_core::Error::EmptyBoard { rows: 5, cols: 0 }),
        ),
        (
            Config::new(0, 0, 0, 1),
            core(bitmines_core::Error::EmptyBoard { rows: 0, cols: 0 }),
        ),
        (
            Config::new(usize::MAX, 2, 0, 1),
            core(bitmines_core::Error::TooLarge {
                rows: usize::MAX,
                cols: 2,
            }),
        ),
        (
            Config::new(2, usize::MAX, 0, 1),
            core(bitmines_core::Error::TooLarge {
                rows: 2,
                cols: usize::MAX,
            }),
        ),
        (
            Config::new(1 << 40, 1 << 40, 0, 1),
            core(bitmines_core::Error::TooLarge {
                rows: 1 << 40,
                cols: 1 << 40,
            }),
        ),
        // Two planes of 2^53 bytes each: refused before anything is allocated.
        (
            Config::new(huge, huge, 10, 1),
            core(bitmines_core::Error::OutOfMemory {
                bytes: huge_bytes,
                rows: huge,
                cols: huge,
            }),
        ),
        (
            Config::new(3, 3, 10, 1),
            Error::TooManyMines {
                mines: 10,
                max: 9,
                kept_clear: 0,
                rows: 3,
                cols: 3,
            },
        ),
        (
            Config::new(3, 3, usize::MAX, 1),
            Error::TooManyMines {
                mines: usize::MAX,
                max: 9,
                kept_clear: 0,
                rows: 3,
                cols: 3,
            },
        ),
        (
            Config::new(3, 3, 1, 1).keep_clear(opening_centre),
            Error::TooManyMines {
                mines: 1,
                max: 0,
                kept_clear: 9,
                rows: 3,
                cols: 3,
            },
        ),
        (
            Config::new(10, 10, 97, 1).keep_clear(zone(FirstClick::Opening, 10, 10, 0, 0)),
            Error::TooManyMines {
                mines: 97,
                max: 96,
                kept_clear: 4,
                rows: 10,
                cols: 10,
            },
        ),
        (
            Config::new(1, 1, 1, 1).keep_clear(zone(FirstClick::Safe, 1, 1, 0, 0)),
            Error::TooManyMines {
                mines: 1,
                max: 0,
                kept_clear: 1,
                rows: 1,
                cols: 1,
            },
        ),
        // A zone made for a larger board counts only its cells on this one.
        (
            Config::new(2, 2, 4, 1).keep_clear(zone(FirstClick::Opening, 5, 5, 2, 2)),
            Error::TooManyMines {
                mines: 4,
                max: 3,
                kept_clear: 1,
                rows: 2,
                cols: 2,
            },
        ),
    ];
    for (config, expected) in cases {
        assert_eq!(generate(&config), Err(expected), "{config:?}");
    }
    let message = generate(&Config::new(3, 3, 10, 1)).unwrap_err().to_string();
    assert!(
        message.contains("10 mines") && message.contains("at most 9"),
        "{message}"
    );

    for density in [
        -0.1,
        1.5,
        -f64::MIN_POSITIVE,
        1.0 + f64::EPSILON,
        f64::INFINITY,
    ] {
        assert_eq!(
            Config::with_density(10, 10, density, 1),
            Err(Error::BadDensity { density }),
            "{density}"
        );
    }
    // NaN is not equal to itself, so it is matched rather than compared.
    let nan = Config::with_density(10, 10, f64::NAN, 1);
    assert!(
        matches!(nan, Err(Error::BadDensity { density }) if density.is_nan()),
        "{nan:?}"
    );
    assert_eq!(
        Config::with_density(0, 10, 0.5, 1),
        Err(Error::Core(bitmines_core::Error::EmptyBoard {
            rows: 0,
            cols: 10
        }))
    );
}

#[test]
fn generator_places_deferred_games_around_an_opening() {
    for (rows, cols, mines, click) in [
        (16, 30, 99, (8, 15)),
        (16, 30, 99, (0, 0)),
        (16, 30, 470, (15, 29)), // every cell but the 3x3 zone is a mine
        (9, 9, 72, (4, 4)),      // likewise, zone in the middle
        (1, 5, 2, (0, 0)),
        (7, 1, 4, (3, 0)),
        (600, 1000, 120_000, (262, 500)), // the zone straddles a chunk edge
    ] {
        for seed in [0, 1, 2] {
            let start = || {
                let mut game =
                    Game::deferred(rows, cols, mines, FirstClick::Opening, Generator::new(seed))
                        .expect("mines fit");
                let step = game.reveal(click.0, click.1).expect("first reveal");
                (game, step)
            };
            let (game, step) = start();
            let board = game.board().expect("placed on the first reveal");
            let keep = zone(FirstClick::Opening, rows, cols, click.0, click.1);
            let config = Config::new(rows, cols, mines, seed).keep_clear(keep.clone());
            assert_valid(&config, board);
            // The click is a zero cell, so the cascade opens at least the whole zone.
            assert!(board.is_zero(click.0, click.1).expect("on the board"));
            assert!(step.opened >= keep.len(), "{step:?}");
            // The same seed and first click give the same game, and the very board
            // `generate` gives for that zone.
            let (again, _) = start();
            assert_eq!(again.board(), game.board());
            assert!(**board == board_of(&config));
        }
    }
}

#[test]
fn generator_reports_what_no_game_would_ask_for_as_errors() {
    let placer = Generator::new(3);
    let too_many = placer.place(&Placement::new(3, 3, 10, Zone::default()));
    match too_many {
        Err(bitmines_core::Error::BadPlacement { reason }) => {
            assert!(reason.contains("at most 9"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        placer.place(&Placement::new(0, 3, 0, Zone::default())),
        Err(bitmines_core::Error::EmptyBoard { rows: 0, cols: 3 })
    );
    let board = placer
        .place(&Placement::new(3, 3, 8, zone(FirstClick::Safe, 3, 3, 2, 2)))
        .expect("eight mines fit around one safe cell");
    assert_eq!(board.mine_count(), 8);
    assert!(!board.is_mine(2, 2).expect("on the board"));
}

/// Sample mean, sample variance, and the standard error of that variance estimated from
/// the sample's fourth central moment.
fn mean_var(xs: &[f64]) -> (f64, f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let m4 = xs.iter().map(|x| (x - mean).powi(4)).sum::<f64>() / n;
    (mean, var, ((m4 - var * var).max(0.0) / n).sqrt())
}

/// The generator and the naive twin agree with each other and with the exact hypergeometric
/// law on the number of mines in a fixed sub-rectangle: its mean within six standard errors,
/// its variance within six standard errors of the variance estimate. A generator that spread
/// its mines evenly over rows, or drew cells with replacement, would get the variance wrong.
#[test]
fn generator_and_naive_twin_agree_on_mines_in_a_sub_rectangle() {
    let cases = [
        // rows, cols, mines, zone, sub-rectangle rows and columns, seeds
        (20, 20, 60, Zone::default(), 3..9, 5..15, 3000),
        // Sparse: placed one by one; the sub-rectangle overlaps the zone.
        (
            40,
            50,
            40,
            zone(FirstClick::Opening, 40, 50, 10, 10),
            8..20,
            0..25,
            2000,
        ),
        // Dense: the holes are placed; columns 60..70 cross the word edge of the padded row.
        (8, 100, 600, Zone::default(), 0..8, 60..70, 3000),
    ];
    for (k, (rows, cols, mines, keep, sub_rows, sub_cols, seeds)) in cases.into_iter().enumerate() {
        let count = |board: &Board| mines_in_rect(board, sub_rows.clone(), sub_cols.clone()) as f64;
        let ours: Vec<f64> = (0..seeds)
            .map(|seed| {
                count(&board_of(
                    &Config::new(rows, cols, mines, seed).keep_clear(keep.clone()),
                ))
            })
            .collect();
        let naive: Vec<f64> = (0..seeds)
            .map(|seed| count(&naive_board(rows, cols, mines, &keep, seed)))
            .collect();
        let free = rows * cols - keep.len();
        let part = sub_rows.len() * sub_cols.len()
            - sub_rows
                .clone()
                .flat_map(|r| sub_cols.clone().map(move |c| (r, c)))
                .filter(|&(r, c)| keep.contains(r, c))
                .count();
        let (mean, var) = hypergeometric(free, mines, part);
        let s = seeds as f64;
        let [(m1, v1, e1), (m2, v2, e2)] = [mean_var(&ours), mean_var(&naive)];
        for (who, m, v, e) in [("generator", m1, v1, e1), ("naive twin", m2, v2, e2)] {
            assert!(
                (m - mean).abs() < SIGMAS * (var / s).sqrt(),
                "case {k}, {who}: mean {m:.3}, hypergeometric {mean:.3}"
            );
            assert!(
                (v - var).abs() < SIGMAS * e,
                "case {k}, {who}: variance {v:.3} ± {e:.3}, hypergeometric {var:.3}"
            );
        }
        assert!(
            (m1 - m2).abs() < SIGMAS * (2.0 * var / s).sqrt(),
            "case {k}: means {m1:.3} and {m2:.3}"
        );
        assert!(
            (v1 - v2).abs() < SIGMAS * (e1 * e1 + e2 * e2).sqrt(),
            "case {k}: variances {v1:.3} and {v2:.3}"
        );
    }
}
