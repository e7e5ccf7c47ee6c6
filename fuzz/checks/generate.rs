//! The `generate` property: `bitmines_gen::generate` either refuses a config with the error
//! its numbers call for, or returns a board of the requested shape with exactly the requested
//! mines, none in the kept-clear zone, correct numbers and zero cells (on boards small
//! enough to count them cell by cell), and the same board again on a second run and on a
//! one-thread pool.
//!
//! Shared by the `generate` fuzz target and `tests/fuzz_regressions.rs`; the crate that
//! includes it needs the `support` module of `tests/`.

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use bitmines_core::{Error as CoreError, FirstClick, Zone};
use bitmines_gen::{Config, Error, generate};
use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::support::around;

/// Sides at the word edges of a padded row (`cols + 2` bits) and of the generator's chunks.
const EDGES: [usize; 20] = [
    1, 2, 3, 62, 63, 64, 65, 66, 126, 127, 128, 129, 130, 190, 191, 192, 193, 194, 512, 2000,
];

/// The longest side.
const MAX_SIDE: usize = 2000;

/// The most cells of a board; taller boards lose rows.
const MAX_CELLS: usize = 1_000_000;

/// Boards up to this many cells have their numbers and zero cells checked one by one.
const COUNTED_CELLS: usize = 1 << 16;

/// One side of a board.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub(crate) enum Side {
    /// Zero, which must be refused.
    Zero,
    /// One of [`EDGES`].
    Edge(u8),
    /// `1..=16`.
    Small(u8),
    /// `1..=MAX_SIDE`.
    Any(u16),
}

impl Side {
    fn get(self) -> usize {
        match self {
            Side::Zero => 0,
            Side::Edge(i) => EDGES[usize::from(i) % EDGES.len()],
            Side::Small(n) => 1 + usize::from(n) % 16,
            Side::Any(n) => 1 + usize::from(n) % MAX_SIDE,
        }
    }
}

/// How many mines to ask for.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub(crate) enum Mines {
    /// This many (often far too many).
    Exact(u64),
    /// `n / 65535` of the cells.
    Share(u16),
    /// The most that fit, plus `k` (so `k > 0` is one too many or more).
    MaxPlus(u8),
    /// A few.
    Few(u8),
}

/// A first-click policy.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub(crate) enum Policy {
    /// [`FirstClick::Unprotected`].
    Unprotected,
    /// [`FirstClick::Safe`].
    Safe,
    /// [`FirstClick::Opening`].
    Opening,
}

/// The kept-clear zone: none, or a policy's zone for a first click on the board, or on a
/// board a little larger or smaller (a zone may come from anywhere and reach past the board).
#[derive(Debug, Clone, Copy, Arbitrary)]
pub(crate) enum KeepClear {
    /// `Zone::default()`.
    Nothing,
    /// `policy.zone(rows + dr - 2, cols + dc - 2, row, col)`, with `dr, dc` in `0..=4` taken
    /// from `resize`; a click off that board must be refused as `OffBoard`, and is then taken
    /// modulo its sides.
    Click {
        /// The policy.
        policy: Policy,
        /// The click's row.
        row: u16,
        /// The click's column.
        col: u16,
        /// Resizes the zone's board.
        resize: u8,
    },
}

/// One input of the `generate` target.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) struct Input {
    rows: Side,
    cols: Side,
    mines: Mines,
    seed: u64,
    keep_clear: KeepClear,
}

/// Decodes `data` as libFuzzer's `fuzz_target!` does and checks it; undecodable data is
/// skipped, as the target skips it.
pub(crate) fn check_bytes(data: &[u8]) {
    if data.len() < <Input as Arbitrary>::size_hint(0).0 {
        return;
    }
    if let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) {
        check(&input);
    }
}

/// A pool of one thread, built once: the board must not depend on the thread count.
fn one_thread() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a one-thread pool")
    })
}

/// Generates the board `input` describes and checks it.
pub(crate) fn check(input: &Input) {
    let cols = input.cols.get();
    let rows = match cols {
        0 => input.rows.get(),
        _ => input.rows.get().min((MAX_CELLS / cols).max(1)),
    };
    let cells = rows * cols;
    let zone = match input.keep_clear {
        KeepClear::Nothing => Zone::default(),
        KeepClear::Click {
            policy,
            row,
            col,
            resize,
        } => {
            let policy = match policy {
                Policy::Unprotected => FirstClick::Unprotected,
                Policy::Safe => FirstClick::Safe,
                Policy::Opening => FirstClick::Opening,
            };
            let zone_rows = (rows + usize::from(resize % 5)).saturating_sub(2);
            let zone_cols = (cols + usize::from(resize / 5 % 5)).saturating_sub(2);
            let (row, col) = (usize::from(row), usize::from(col));
            match policy.zone(zone_rows, zone_cols, row, col) {
                Ok(zone) => {
                    assert!(row < zone_rows && col < zone_cols, "zone of ({row}, {col})");
                    zone
                }
                Err(error) => {
                    let off = CoreError::OffBoard {
                        row,
                        col,
                        rows: zone_rows,
                        cols: zone_cols,
                    };
                    assert_eq!(error, off, "zone of ({row}, {col})");
                    let (row, col) = (row % zone_rows.max(1), col % zone_cols.max(1));
                    policy
                        .zone(zone_rows.max(1), zone_cols.max(1), row, col)
                        .unwrap_or_else(|e| panic!("zone of ({row}, {col}): {e}"))
                }
            }
        }
    };
    let kept_clear = zone.cells().filter(|&(r, c)| r < rows && c < cols).count();
    let max = cells.saturating_sub(kept_clear);
    let mines = match input.mines {
        Mines::Exact(n) => usize::try_from(n).unwrap_or(usize::MAX),
        Mines::Share(n) => cells * usize::from(n) / usize::from(u16::MAX),
        Mines::MaxPlus(k) => max + usize::from(k),
        Mines::Few(n) => usize::from(n),
    };
    let config = Config::new(rows, cols, mines, input.seed).keep_clear(zone.clone());
    let generated = generate(&config);

    if rows == 0 || cols == 0 {
        let empty = Error::Core(CoreError::EmptyBoard { rows, cols });
        assert_eq!(generated, Err(empty), "{config:?}");
        return;
    }
    if mines > max {
        let too_many = Error::TooManyMines {
            mines,
            max,
            kept_clear,
            rows,
            cols,
        };
        assert_eq!(generated, Err(too_many), "{config:?}");
        return;
    }
    let board = generated.unwrap_or_else(|e| panic!("{config:?}: {e}"));
    assert_eq!((board.rows(), board.cols()), (rows, cols), "{config:?}");
    assert_eq!(board.mine_count(), mines, "{config:?}");
    let mut counted = 0;
    for r in 0..rows {
        let row = board
            .mine_row(r)
            .unwrap_or_else(|e| panic!("row {r} of {config:?}: {e}"));
        assert_eq!(row.len(), cols, "row {r} of {config:?}");
        counted += row.count_ones();
    }
    assert_eq!(counted, mines, "mines counted row by row, {config:?}");
    for (r, c) in zone.cells().filter(|&(r, c)| r < rows && c < cols) {
        assert_eq!(
            board.is_mine(r, c),
            Ok(false),
            "({r}, {c}) kept clear, {config:?}"
        );
    }
    if cells <= COUNTED_CELLS {
        for r in 0..rows {
            for c in 0..cols {
                let n = around(rows, cols, r, c)
                    .into_iter()
                    .filter(|&(nr, nc)| board.is_mine(nr, nc) == Ok(true))
                    .count();
                assert_eq!(board.number(r, c), Ok(n as u8), "({r}, {c}) of {config:?}");
                let zero = n == 0 && board.is_mine(r, c) == Ok(false);
                assert_eq!(board.is_zero(r, c), Ok(zero), "({r}, {c}) of {config:?}");
            }
        }
    }
    let again = generate(&config).unwrap_or_else(|e| panic!("again, {config:?}: {e}"));
    assert!(again == board, "a second run differs, {config:?}");
    let alone = one_thread()
        .install(|| generate(&config))
        .unwrap_or_else(|e| panic!("on one thread, {config:?}: {e}"));
    assert!(alone == board, "one thread differs, {config:?}");
}
