//! Positions the solver benchmark and the anchor comparison share, and the conversion of a
//! position into ms_toollib's board encoding.
//!
//! Included with `#[path]` by `benches/solve.rs` and `examples/solve_anchor.rs`.

use bitmines_core::{FirstClick, Game, Position, SeededPlacer, Status};

/// Expert: 16 rows, 30 columns, 99 mines.
pub(crate) const EXPERT: (usize, usize, usize) = (16, 30, 99);

/// The first click of every expert game.
pub(crate) const FIRST_CLICK: (usize, usize) = (3, 3);

/// How many first-stall positions the comparison uses.
pub(crate) const STALLS: usize = 200;

/// The 10x21 board with 75 mines of xienaoban/minesweeper issue #3, which ms_toollib keeps
/// as its probability speed test (`tests/test_probability_speed.rs`), transcribed. Rows 0
/// and 2 show numbers on every other cell, row 4 four numbers, the rest is hidden: 74
/// undecided cells touch a number, all linked into one component, and 110 touch none, so
/// the mine count ties the component's layouts to the binomials of the cells off it.
pub(crate) const HARD: &str = "\
bitmines view 10x21 mines 75
2#3#3#3#3#3#3#3#3#3#1
#####################
3#4#4#4#4#4#4#4#4#4#1
#####################
3#4#4#4##############
#####################
#####################
#####################
#####################
#####################
";

/// The hard position, parsed.
pub(crate) fn hard() -> Position {
    HARD.parse().expect("the hard position is well formed")
}

/// The first stall of the expert game `seed`: first click at [`FIRST_CLICK`] with an
/// opening, then every cell the solver proves safe is revealed, round after round, until
/// the solver proves no hidden cell safe. `None` if the game is won before it stalls.
///
/// # Panics
/// If the solver errs on a game's view or proves safe a cell that holds a mine: both are
/// solver bugs, and the comparison must not run on them.
pub(crate) fn first_stall(seed: u64) -> Option<Position> {
    let (rows, cols, mines) = EXPERT;
    let mut game = Game::deferred(
        rows,
        cols,
        mines,
        FirstClick::Opening,
        SeededPlacer::new(seed),
    )
    .expect("expert is a valid game");
    game.reveal(FIRST_CLICK.0, FIRST_CLICK.1)
        .expect("the first click is on the board");
    loop {
        if game.status() == Status::Won {
            return None;
        }
        let certain = bitmines_solve::certain(&game)
            .unwrap_or_else(|e| panic!("seed {seed}: the solver erred on a real game: {e}"));
        let safe: Vec<(usize, usize)> = certain.safe().collect();
        if safe.is_empty() {
            return Some(Position::of(&game.view()).expect("a game's view is a position"));
        }
        for (r, c) in safe {
            // A cell an earlier reveal of this round cascaded over opens nothing.
            let step = game.reveal(r, c).expect("a cell of a game in play");
            assert_ne!(
                step.status,
                Status::Lost,
                "seed {seed}: the solver proved the mine at ({r}, {c}) safe"
            );
            if step.status == Status::Won {
                return None;
            }
        }
    }
}

/// The first `count` first-stall positions over seeds 0, 1, 2, ... (won games skipped).
pub(crate) fn expert_stalls(count: usize) -> Vec<Position> {
    (0..).filter_map(first_stall).take(count).collect()
}

/// The position in ms_toollib's encoding: rows of cells, 0-8 a revealed number, 10 hidden.
/// Flags are left hidden (10): ms_toollib takes 11 as a known mine, while bitmines never
/// trusts a flag, and the positions compared here have none.
pub(crate) fn toollib_board(position: &Position) -> Vec<Vec<i32>> {
    let view = position.view();
    (0..view.rows())
        .map(|r| {
            (0..view.cols())
                .map(|c| match view.number(r, c).expect("on board") {
                    Some(n) => i32::from(n),
                    None => 10,
                })
                .collect()
        })
        .collect()
}

/// The mine count of a position, as ms_toollib takes it.
pub(crate) fn toollib_mines(position: &Position) -> f64 {
    position.view().mine_count() as f64
}
