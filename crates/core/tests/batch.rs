//! Batch moves against their naive twins: `reveal_cells` against `reveal` called cell by cell
//! in row-major order, `flag_cells` against `toggle_flag` on each hidden, unflagged cell,
//! under both rules (`Rule::Classic` stops at the first mine, `Rule::Endless` goes on).

#[allow(dead_code)]
mod support;

use bitmines_core::{
    Board, Cell, Error, Fill, FirstClick, Game, Geometry, Rule, SeededPlacer, Status,
};
use proptest::prelude::*;
use support::Rng;

/// The naive twin of `reveal_cells`: `reveal` on each cell of the set in row-major order,
/// which is increasing bit order, until the game ends. Returns the cells opened and the
/// status.
fn twin_reveal(game: &mut Game, cells: &[u64]) -> Result<(usize, Status), Error> {
    if game.status() != Status::Playing {
        return Err(Error::GameOver {
            status: game.status(),
        });
    }
    let mut opened = 0;
    for (row, col) in members(game, cells) {
        if game.status() != Status::Playing {
            break;
        }
        opened += game.reveal(row, col)?.opened;
    }
    Ok((opened, game.status()))
}

/// The naive twin of `flag_cells`: `toggle_flag` on each hidden, unflagged cell of the set.
fn twin_flag(game: &mut Game, cells: &[u64]) -> Result<usize, Error> {
    if game.status() != Status::Playing {
        return Err(Error::GameOver {
            status: game.status(),
        });
    }
    let mut flagged = 0;
    for (row, col) in members(game, cells) {
        if game.cell(row, col)? == Cell::Hidden {
            assert!(game.toggle_flag(row, col)?);
            flagged += 1;
        }
    }
    Ok(flagged)
}

/// The cells of a set, in row-major order.
fn members(game: &Game, cells: &[u64]) -> Vec<(usize, usize)> {
    let geometry = geometry(game);
    (0..game.rows())
        .flat_map(|row| (0..game.cols()).map(move |col| (row, col)))
        .filter(|&(row, col)| contains(cells, geometry.bit(row, col).unwrap()))
        .collect()
}

fn geometry(game: &Game) -> Geometry {
    Geometry::new(game.rows(), game.cols()).unwrap()
}

fn contains(cells: &[u64], bit: usize) -> bool {
    cells[bit / 64] >> (bit % 64) & 1 != 0
}

/// A set of cells as a plane.
fn plane(geometry: &Geometry, cells: impl IntoIterator<Item = (usize, usize)>) -> Vec<u64> {
    let mut words = vec![0; geometry.words()];
    for (row, col) in cells {
        let bit = geometry.bit(row, col).unwrap();
        words[bit / 64] |= 1 << (bit % 64);
    }
    words
}

/// The two games agree on every cell and every counter, and both are valid.
fn assert_same(batch: &Game, twin: &Game, context: &str) {
    assert_eq!(batch.validate(), Ok(()), "{context}");
    assert_eq!(twin.validate(), Ok(()), "{context}");
    assert_eq!(batch.status(), twin.status(), "{context}");
    assert_eq!(batch.revealed_count(), twin.revealed_count(), "{context}");
    assert_eq!(batch.flag_count(), twin.flag_count(), "{context}");
    assert_eq!(batch.board().is_some(), twin.board().is_some(), "{context}");
    assert_eq!(batch.rule(), twin.rule(), "{context}");
    assert!(
        batch.exploded().eq(twin.exploded()),
        "{context}: exploded {:?}, twin {:?}",
        batch.exploded().collect::<Vec<_>>(),
        twin.exploded().collect::<Vec<_>>()
    );
    for row in 0..batch.rows() {
        for col in 0..batch.cols() {
            assert_eq!(
                batch.cell(row, col),
                twin.cell(row, col),
                "{context}: cell ({row}, {col})"
            );
        }
    }
}

/// Is `(row, col)` a mine? `None` while a deferred game has no board.
fn is_mine(game: &Game, row: usize, col: usize) -> Option<bool> {
    game.board().map(|board| board.is_mine(row, col).unwrap())
}

/// A random set of cells: empty, a rectangle, or scattered at some density; once the board
/// is known, usually cleared of its mines but for a few, so games last several moves.
fn random_set(rng: &mut Rng, game: &Game) -> Vec<u64> {
    let (rows, cols) = (game.rows(), game.cols());
    let all = (0..rows).flat_map(|r| (0..cols).map(move |c| (r, c)));
    let mut chosen: Vec<(usize, usize)> = match rng.below(5) {
        0 => Vec::new(),
        1 => {
            let (r0, c0) = (rng.below(rows), rng.below(cols));
            let (r1, c1) = (r0 + rng.below(rows - r0), c0 + rng.below(cols - c0));
            all.filter(|&(r, c)| (r0..=r1).contains(&r) && (c0..=c1).contains(&c))
                .collect()
        }
        _ => {
            let density = rng.pick(&[0.01, 0.05, 0.2, 0.6, 1.0]);
            all.filter(|_| rng.chance(density)).collect()
        }
    };
    if game.board().is_some() && rng.chance(0.75) {
        let keep = rng.pick(&[0.0, 0.0, 0.01, 0.1]);
        chosen.retain(|&(r, c)| is_mine(game, r, c) == Some(false) || rng.chance(keep));
    }
    plane(&geometry(game), chosen)
}

/// A random set to flag: a few scattered cells, or once the board is known, often its mines
/// with a few wrong flags among them.
fn random_flags(rng: &mut Rng, game: &Game) -> Vec<u64> {
    let (rows, cols) = (game.rows(), game.cols());
    let all = (0..rows).flat_map(|r| (0..cols).map(move |c| (r, c)));
    let chosen: Vec<(usize, usize)> = if game.board().is_some() && rng.chance(0.5) {
        let (right, wrong) = (rng.pick(&[0.3, 1.0]), rng.pick(&[0.0, 0.02]));
        all.filter(|&(r, c)| {
            rng.chance(if is_mine(game, r, c) == Some(true) {
                right
            } else {
                wrong
            })
        })
        .collect()
    } else if rng.chance(0.1) {
        return random_set(rng, game);
    } else {
        let density = rng.pick(&[0.01, 0.05, 0.2]);
        all.filter(|_| rng.chance(density)).collect()
    };
    plane(&geometry(game), chosen)
}

/// A random cell, usually a safe one when the board is known, so games last a few moves.
fn random_cell(rng: &mut Rng, game: &Game, safe: bool) -> (usize, usize) {
    let mut cell = (rng.below(game.rows()), rng.below(game.cols()));
    for _ in 0..20 {
        if !safe || is_mine(game, cell.0, cell.1) != Some(true) {
            break;
        }
        cell = (rng.below(game.rows()), rng.below(game.cols()));
    }
    cell
}

const ROWS: [usize; 7] = [1, 2, 3, 5, 9, 17, 70];
const COLS: [usize; 12] = [1, 2, 3, 7, 62, 63, 64, 65, 100, 127, 128, 130];

/// Plays `steps` random moves on two copies of a game, each batch move as the batch on one
/// and as its twin on the other, single moves on both, comparing after every move.
fn run_case(
    (rows, cols): (usize, usize),
    density: f64,
    seed: u64,
    fills: (Fill, Fill),
    deferred: Option<FirstClick>,
    rule: Rule,
    steps: usize,
) {
    let cells = rows * cols;
    let mines = (cells as f64 * density) as usize;
    let game = match deferred {
        None => Game::new(SeededPlacer::new(seed).board(rows, cols, mines).unwrap()),
        Some(policy) => {
            let placer = || SeededPlacer::new(seed);
            Game::deferred(rows, cols, mines, policy, placer())
                .or_else(|_| Game::deferred(rows, cols, 0, policy, placer()))
                .unwrap()
        }
    };
    let game = game.with_rule(rule);
    let mut batch = game.clone().with_fill(fills.0);
    let mut twin = game.with_fill(fills.1);
    let mut rng = Rng(seed ^ 0x5EED);
    for step in 0..steps {
        let context = format!(
            "{rows}x{cols}, {mines} mines, seed {seed}, {fills:?}, {deferred:?}, {rule}, \
             step {step}"
        );
        match rng.below(8) {
            0 | 1 => {
                // Single reveals aim at safe cells most of the time, so games last.
                let safe = rng.chance(0.9);
                let (row, col) = random_cell(&mut rng, &batch, safe);
                assert_eq!(
                    batch.reveal(row, col),
                    twin.reveal(row, col),
                    "{context}: reveal"
                );
            }
            2 => {
                // Any cell, so some flags are wrong.
                let (row, col) = random_cell(&mut rng, &batch, false);
                assert_eq!(
                    batch.toggle_flag(row, col),
                    twin.toggle_flag(row, col),
                    "{context}: flag"
                );
            }
            3 | 4 => {
                let set = random_flags(&mut rng, &batch);
                let got = batch.flag_cells(&set);
                assert_eq!(got, twin_flag(&mut twin, &set), "{context}: flag_cells");
            }
            5 => {
                // The same move given as (word, cells) pairs, out of order and with a word
                // split in two.
                let set = random_set(&mut rng, &batch);
                let mut pairs: Vec<(usize, u64)> = set
                    .iter()
                    .enumerate()
                    .filter(|&(_, &cells)| cells != 0)
                    .flat_map(|(w, &cells)| {
                        let low = cells & cells.wrapping_neg();
                        [(w, cells & !low), (w, low)]
                    })
                    .collect();
                pairs.reverse();
                let got = batch.reveal_words(&pairs).map(|r| (r.opened, r.status));
                assert_eq!(got, twin_reveal(&mut twin, &set), "{context}: reveal_words");
            }
            _ => {
                let set = random_set(&mut rng, &batch);
                let before = twin.exploded_count();
                let got = batch.reveal_cells(&set);
                let want = twin_reveal(&mut twin, &set);
                assert_eq!(
                    got.clone().map(|r| (r.opened, r.status)),
                    want,
                    "{context}: reveal_cells"
                );
                if let Ok(step) = got {
                    let set_off = twin.exploded_count() - before;
                    assert_eq!(step.exploded, set_off, "{context}: mines set off");
                }
            }
        }
        assert_same(&batch, &twin, &context);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn batch_moves_match_their_twins(
        rows in proptest::sample::select(&ROWS[..]),
        cols in proptest::sample::select(&COLS[..]),
        density in proptest::sample::select(&[0.0, 0.05, 0.15, 0.3, 0.6, 1.0][..]),
        seed in any::<u64>(),
        fills in proptest::sample::select(&[
            (Fill::Words, Fill::Scalar),
            (Fill::Scalar, Fill::Words),
            (Fill::Words, Fill::Words),
        ][..]),
        deferred in proptest::sample::select(&[
            None,
            None,
            Some(FirstClick::Opening),
            Some(FirstClick::Safe),
            Some(FirstClick::Unprotected),
        ][..]),
        rule in proptest::sample::select(&[Rule::Classic, Rule::Endless][..]),
    ) {
        run_case((rows, cols), density, seed, fills, deferred, rule, 12);
    }
}

#[test]
fn every_edge_shape_plays_out_against_the_twins() {
    let shapes = [
        (1, 1),
        (1, 2),
        (1, 64),
        (1, 130),
        (2, 1),
        (64, 1),
        (130, 1),
        (3, 3),
    ];
    let widths = [62, 63, 64, 65, 127, 128, 130].map(|cols| (4, cols));
    for (rows, cols) in shapes.into_iter().chain(widths) {
        for seed in 0..12 {
            for density in [0.0, 0.15, 0.5] {
                for deferred in [
                    None,
                    Some(FirstClick::Opening),
                    Some(FirstClick::Unprotected),
                ] {
                    let fills = if seed % 2 == 0 {
                        (Fill::Words, Fill::Scalar)
                    } else {
                        (Fill::Scalar, Fill::Words)
                    };
                    let rule = if seed % 3 == 0 {
                        Rule::Endless
                    } else {
                        Rule::Classic
                    };
                    run_case((rows, cols), density, seed, fills, deferred, rule, 8);
                }
            }
        }
    }
}

#[test]
fn a_win_before_the_mine_ends_the_batch_without_exploding_it() {
    let board: Board = "..*\n...\n...\n".parse().unwrap();
    let mut game = Game::new(board);
    let geometry = geometry(&game);
    let all = plane(&geometry, (0..3).flat_map(|r| (0..3).map(move |c| (r, c))));
    let mut twin = game.clone();
    // Reveals (0, 0) first: its cascade opens every safe cell, so (0, 2) is never reached.
    let step = game.reveal_cells(&all).unwrap();
    assert_eq!((step.opened, step.status), (8, Status::Won));
    assert_eq!(twin_reveal(&mut twin, &all), Ok((8, Status::Won)));
    assert_same(&game, &twin, "win first");
    assert_eq!(game.cell(0, 2), Ok(Cell::Hidden));
}

#[test]
fn a_deferred_game_places_its_mines_at_the_first_unflagged_cell_of_the_set() {
    let mut game = Game::seeded(9, 9, 10, 3).unwrap();
    let geometry = geometry(&game);
    game.toggle_flag(0, 0).unwrap();
    let mut twin = game.clone();
    let set = plane(&geometry, [(0, 0), (4, 4), (8, 8)]);
    let got = game.reveal_cells(&set).map(|r| (r.opened, r.status));
    assert_eq!(got, twin_reveal(&mut twin, &set));
    assert_same(&game, &twin, "deferred");
    assert!(game.board().is_some());
    assert!(matches!(game.cell(4, 4), Ok(Cell::Open(0))));

    // A set of flagged cells only places nothing.
    let mut game = Game::seeded(9, 9, 10, 3).unwrap();
    game.toggle_flag(0, 0).unwrap();
    let only_flag = plane(&geometry, [(0, 0)]);
    assert_eq!(game.reveal_cells(&only_flag).map(|r| r.opened), Ok(0));
    assert!(game.board().is_none());
    assert_eq!(game.flag_cells(&plane(&geometry, [(1, 1), (0, 0)])), Ok(1));
    assert_eq!(game.validate(), Ok(()));
}

#[test]
fn bad_planes_are_errors_and_change_nothing() {
    for cols in [1, 62, 63, 64, 65, 130] {
        let board = SeededPlacer::new(5).board(3, cols, 1).unwrap();
        let game = Game::new(board);
        let geometry = geometry(&game);
        let words = geometry.words();
        let wpr = geometry.words_per_row();
        let size = |found| Error::PlaneSize {
            rows: 3,
            cols,
            expected: words,
            found,
        };
        let mut cases = vec![
            (vec![0; words - 1], size(words - 1)),
            (vec![0; words + 1], size(words + 1)),
            (Vec::new(), size(0)),
        ];
        // A bit in each kind of place that is not a cell, next to the set's own cells.
        let stride = wpr * 64;
        let right_sentinel = 2 * stride + cols + 1;
        let mut strays = vec![
            // The top and bottom sentinel rows, above and below the first column.
            (1, 0),
            (4 * stride + 1, 4 * wpr),
            // The left sentinel of row 0, the right sentinel of row 1.
            (stride, stride / 64),
            (right_sentinel, right_sentinel / 64),
        ];
        if right_sentinel % stride + 1 < stride {
            let padding = right_sentinel + 1;
            strays.push((padding, padding / 64));
        }
        for (bit, word) in strays {
            let mut cells = plane(&geometry, [(0, 0), (2, cols - 1)]);
            cells[bit / 64] |= 1 << (bit % 64);
            cases.push((cells, Error::StrayBits { word }));
        }
        for (cells, error) in cases {
            let mut changed = game.clone();
            if let Error::StrayBits { .. } = error {
                let pairs: Vec<(usize, u64)> = cells.iter().copied().enumerate().collect();
                assert_eq!(changed.reveal_words(&pairs).err(), Some(error.clone()));
            }
            assert_eq!(changed.reveal_cells(&cells).err(), Some(error.clone()));
            assert_eq!(changed.flag_cells(&cells).err(), Some(error));
            assert_same(&changed, &game, "bad plane");
        }
        // A word off the plane, for the pairs form.
        let mut changed = game.clone();
        assert_eq!(
            changed.reveal_words(&[(words, 1)]).err(),
            Some(Error::StrayBits { word: words })
        );
        assert_same(&changed, &game, "a word off the plane");
    }
}

#[test]
fn a_finished_game_refuses_batch_moves() {
    let board: Board = "*.\n..\n".parse().unwrap();
    let geometry = Geometry::new(2, 2).unwrap();
    let empty = vec![0; geometry.words()];
    let mut lost = Game::new(board.clone());
    lost.reveal(0, 0).unwrap();
    let mut won = Game::new(board);
    won.reveal_cells(&plane(&geometry, [(0, 1), (1, 0), (1, 1)]))
        .unwrap();
    for (mut game, status) in [(lost, Status::Lost), (won, Status::Won)] {
        assert_eq!(game.status(), status);
        let over = Error::GameOver { status };
        assert_eq!(game.reveal_cells(&empty).err(), Some(over.clone()));
        assert_eq!(game.flag_cells(&empty).err(), Some(over.clone()));
        // A finished game is refused before the plane is looked at.
        assert_eq!(game.reveal_cells(&[]).err(), Some(over));
        assert_eq!(game.validate(), Ok(()));
    }
}
