//! The statistics computed in bands on several threads against their twin, `Stats::of`,
//! which computes them on one thread over the whole board.

#[allow(dead_code)]
mod support;

use bitmines_core::{Board, Error, Stats};
use proptest::prelude::*;
use support::Rng;

/// `Stats::of_bands` gives `Stats::of`'s figures on `board` for every band height and
/// thread count tried.
fn check(board: &Board, bands: &[usize]) {
    let expected = Stats::of(board).unwrap();
    for &band in bands {
        for threads in [1, 2, 7] {
            assert_eq!(
                Stats::of_bands(board, band, threads).unwrap(),
                expected,
                "{}x{} board, band {band}, threads {threads}",
                board.rows(),
                board.cols()
            );
        }
    }
}

fn random_board(rng: &mut Rng, rows: usize, cols: usize, density: f64) -> Board {
    let mines: Vec<_> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .filter(|_| rng.chance(density))
        .collect();
    Board::from_mines(rows, cols, mines).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn bands_agree_with_the_whole_board(
        seed in any::<u64>(),
        rows in 1usize..50,
        cols in prop_oneof![1usize..8, Just(62), Just(63), Just(64), Just(65), Just(127), Just(129), 1usize..200],
        density in prop_oneof![Just(0.0), Just(0.02), 0.0f64..0.4, Just(0.9), Just(1.0)],
        band in 1usize..12,
    ) {
        let board = random_board(&mut Rng(seed), rows, cols, density);
        check(&board, &[band, rows]);
    }
}

/// Shapes at the edges: one row, one column, widths around a word, regions that cross every
/// band edge and come back (a U), and diagonal-only contacts across an edge.
#[test]
fn fixed_shapes() {
    let mut rng = Rng(7);
    for (rows, cols) in [
        (1, 1),
        (1, 200),
        (200, 1),
        (9, 63),
        (9, 64),
        (9, 65),
        (3, 129),
    ] {
        for density in [0.0, 0.1, 0.3] {
            let board = random_board(&mut rng, rows, cols, density);
            check(&board, &[1, 2, 3, 64]);
        }
    }
    // A U of zero cells: two arms that meet only in the bottom band; and islands that touch
    // only diagonally across a band edge.
    let u: Board = "\
.....*.....
.....*.....
.....*.....
.....*.....
...........
"
    .parse()
    .unwrap();
    check(&u, &[1, 2, 4]);
    let diagonal: Board = "\
*.*.*.*
.*.*.*.
*.*.*.*
"
    .parse()
    .unwrap();
    check(&diagonal, &[1, 2]);
}

#[test]
fn a_band_of_no_rows_is_an_error() {
    let board: Board = "..\n..\n".parse().unwrap();
    assert_eq!(
        Stats::of_bands(&board, 0, 2),
        Err(Error::EmptyTile { rows: 0, cols: 2 })
    );
}
