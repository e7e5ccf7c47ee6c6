//! `Solver::renumber` after an edit under the game (`Game::rebase`): what it keeps proven
//! is true of the edited board, and after deduction it knows at least what a fresh solver
//! on the edited view proves (it knows the same numbers, and some true facts besides).

#[allow(dead_code)]
mod twin;

use bitmines_core::{Board, Cell, Game, Status};
use bitmines_solve::Solver;
use twin::{Rng, played};

/// Cells, `(row, col)` each.
type Cells = Vec<(usize, usize)>;

/// Proven mines and proven safe cells.
fn proven(solver: &Solver, game: &Game) -> (Cells, Cells) {
    let geometry = *game.view().geometry();
    let set = |plane: &[u64]| -> Cells {
        (0..game.rows())
            .flat_map(|r| (0..game.cols()).map(move |c| (r, c)))
            .filter(|&(r, c)| {
                let bit = geometry.bit(r, c).unwrap();
                plane[bit / 64] >> (bit % 64) & 1 != 0
            })
            .collect()
    };
    (set(solver.mine_plane()), set(solver.safe_plane()))
}

#[test]
fn renumbered_solvers_stay_true_and_know_what_a_fresh_one_proves() {
    let mut rng = Rng(53);
    let (mut checked, mut forgot) = (0, 0);
    for i in 0..1500usize {
        let (rows, cols) = [(5, 5), (8, 8), (3, 63), (2, 65), (9, 9), (6, 20)][i % 6];
        let mines = rows * cols * (12 + i % 10) / 100;
        let (board, mut game) = played(&mut rng, rows, cols, mines.max(1), rows * cols / 2);
        if game.status() != Status::Playing {
            continue;
        }
        let mut solver = Solver::new(&game).unwrap();
        solver.deduce().unwrap();
        // Move a few mines between hidden cells, proven ones included.
        let mut layout: Vec<(usize, usize)> = (0..rows * cols)
            .map(|k| (k / cols, k % cols))
            .filter(|&(r, c)| board.is_mine(r, c).unwrap())
            .collect();
        let before = layout.clone();
        for _ in 0..1 + i % 3 {
            let (r, c) = (rng.below(rows), rng.below(cols));
            if !matches!(game.cell(r, c).unwrap(), Cell::Open(_)) && !layout.contains(&(r, c)) {
                let k = rng.below(layout.len());
                layout[k] = (r, c);
            }
        }
        let changed: Vec<(usize, usize)> = (0..rows * cols)
            .map(|k| (k / cols, k % cols))
            .filter(|cell| before.contains(cell) != layout.contains(cell))
            .collect();
        let (mines_before, safe_before) = proven(&solver, &game);
        forgot += changed
            .iter()
            .filter(|c| mines_before.contains(c) || safe_before.contains(c))
            .count();
        let edited = Board::from_mines(rows, cols, layout).unwrap();
        game.rebase(edited.clone()).unwrap();
        if game.status() != Status::Playing {
            continue;
        }
        solver.renumber(&game, &changed).unwrap();
        solver.deduce().unwrap();
        let (mines_kept, safe_kept) = proven(&solver, &game);
        for &(r, c) in &mines_kept {
            assert!(
                edited.is_mine(r, c).unwrap(),
                "case {i}: ({r}, {c}) is no mine"
            );
        }
        for &(r, c) in &safe_kept {
            assert!(
                !edited.is_mine(r, c).unwrap(),
                "case {i}: ({r}, {c}) is a mine"
            );
        }
        let mut fresh = Solver::new(&game).unwrap();
        fresh.deduce().unwrap();
        let (mines_fresh, safe_fresh) = proven(&fresh, &game);
        for cell in &mines_fresh {
            assert!(
                mines_kept.contains(cell),
                "case {i}: {cell:?} not proven a mine"
            );
        }
        for cell in &safe_fresh {
            assert!(
                safe_kept.contains(cell),
                "case {i}: {cell:?} not proven safe"
            );
        }
        checked += 1;
    }
    assert!(
        checked > 800 && forgot > 20,
        "{checked} edits, {forgot} proven cells changed"
    );
}

#[test]
fn renumber_refuses_revealed_and_off_board_cells() {
    let mut game = Game::new("*...\n....\n...*\n".parse::<Board>().unwrap());
    game.reveal(0, 3).unwrap();
    let mut solver = Solver::new(&game).unwrap();
    assert!(matches!(
        solver.renumber(&game, &[(0, 3)]),
        Err(bitmines_solve::Error::NotLater { .. })
    ));
    assert!(solver.renumber(&game, &[(3, 0)]).is_err());
    assert!(solver.renumber(&game, &[(0, 0)]).is_ok());
}
