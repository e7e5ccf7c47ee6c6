//! Fixed outputs of the built-in seeded placer. A seed names a board only together with the
//! algorithm and the random generator behind it; these boards pin both, so that a new release
//! of `rand_pcg` (which bitmines-core accepts by a caret requirement) that changed the boards
//! fails here instead of silently changing every saved seed.

use bitmines_core::{Game, SeededPlacer};

/// `SeededPlacer::board` for a few seeds, sizes and densities, drawn mine by mine and (above
/// half the cells) hole by hole.
#[test]
fn seeded_boards_are_fixed() {
    for (seed, rows, cols, mines, expected) in [
        (42, 4, 9, 5, "........*\n....*....\n.*.......\n*......*.\n"),
        (7, 5, 6, 20, ".*.**.\n.**.**\n**.**.\n.*****\n*.*.**\n"),
    ] {
        let board = SeededPlacer::new(seed).board(rows, cols, mines).unwrap();
        assert_eq!(board.to_string(), expected, "seed {seed}");
    }
}

/// `Game::seeded`: the first click's opening is kept clear and the rest drawn from the seed.
#[test]
fn seeded_games_are_fixed() {
    let mut game = Game::seeded(6, 8, 9, 42).unwrap();
    game.reveal(2, 3).unwrap();
    assert_eq!(
        game.to_string(),
        "bitmines game 6x8 playing\n..100000\n.*201221\n.*301**.\n.*212...\n....*.*.\n....*.*.\n"
    );
}
