//! `Solver::adopt_bands`: two solvers of one game drive the trivial rule on the bands above
//! and below a seam, each in its own game; the upper game reveals what the lower one
//! revealed, its solver takes the lower one's rows and reads the view back, and the play
//! driven on from there stops where one solver driving every band alone stops (the twin):
//! the same cells revealed, the same mines proven.

use bitmines_core::{Game, SeededPlacer, Status};
use bitmines_solve::Solver;

/// Drives bands `bands` of `solver` to their fixed point, revealing what each sweep proves
/// in `game`; passes down then up. Returns whether the game is still in play.
fn drive(game: &mut Game, solver: &mut Solver, bands: std::ops::Range<usize>) -> bool {
    let mut down = true;
    while solver.marked_bands(bands.clone()) {
        for i in 0..bands.len() {
            let band = if down {
                bands.start + i
            } else {
                bands.end - 1 - i
            };
            while solver.sweep_band(band).unwrap() > 0 || solver.proves_safe() {
                if solver.proves_safe() {
                    game.reveal_words(&solver.safe_words()).unwrap();
                    if game.status() != Status::Playing {
                        return false;
                    }
                    solver.update_revealed(&*game).unwrap();
                }
            }
        }
        down = !down;
    }
    true
}

/// The cells `game` reveals that `theirs` shows and it does not, as `(word, cells)`.
fn revealed_beyond(game: &Game, theirs: &Game) -> Vec<(usize, u64)> {
    let geometry = *game.view().geometry();
    let wpr = geometry.words_per_row();
    let (mine, other) = (game.view().revealed_words(), theirs.view().revealed_words());
    (wpr..(geometry.rows() + 1) * wpr)
        .map(|w| (w, other[w] & !mine[w] & geometry.cell_mask(w % wpr)))
        .filter(|&(_, bits)| bits != 0)
        .collect()
}

#[test]
fn halves_joined_by_adopting_bands_stop_where_one_solver_stops() {
    let mut adopted = 0;
    for (rows, cols, per_mille, seed, seam) in [
        (600, 1024, 120, 1, 19),
        (600, 1024, 150, 2, 10),
        (640, 900, 140, 3, 25),
        (2800, 130, 130, 4, 90),
        (600, 1024, 170, 5, 1),
    ] {
        let board = SeededPlacer::new(seed)
            .board(rows, cols, rows * cols * per_mille / 1000)
            .unwrap();
        let (r, c) = (rows / 2, cols / 2);
        let start = (0..cols)
            .map(|dc| (r, (c + dc) % cols))
            .find(|&(r, c)| board.is_mine(r, c) == Ok(false) && board.number(r, c) == Ok(0))
            .unwrap();
        let mut twin_game = Game::new(board);
        twin_game.reveal(start.0, start.1).unwrap();
        let (mut upper, mut lower) = (twin_game.clone(), twin_game.clone());
        // The twin: one solver, every band.
        let mut twin = Solver::new(&twin_game).unwrap();
        let bands = twin.bands();
        drive(&mut twin_game, &mut twin, 0..bands);
        // The halves: each its own game and solver, overlapping by a band at the seam.
        let seam = seam.min(bands - 1);
        let mut above = Solver::new(&upper).unwrap();
        let mut below = Solver::new(&lower).unwrap();
        let upper_playing = drive(&mut upper, &mut above, 0..seam + 1);
        drive(&mut lower, &mut below, seam.saturating_sub(1)..bands);
        if upper_playing {
            let words = revealed_beyond(&upper, &lower);
            if !words.is_empty() {
                upper.reveal_words(&words).unwrap();
            }
            if upper.status() == Status::Playing {
                // Band 0 and bands past the last are refused, changing nothing.
                assert!(!above.adopt_bands(&below, 0) && !above.adopt_bands(&below, bands));
                adopted += usize::from(above.adopt_bands(&below, seam + 1));
                above.update(&upper).unwrap();
                drive(&mut upper, &mut above, 0..bands);
            }
        }
        assert_eq!(
            upper.status(),
            twin_game.status(),
            "{rows}x{cols} seed {seed}"
        );
        assert!(
            upper.view().revealed_words() == twin_game.view().revealed_words(),
            "{rows}x{cols} seed {seed}: revealed cells differ"
        );
        if upper.status() == Status::Playing {
            assert!(
                above.mine_plane() == twin.mine_plane(),
                "{rows}x{cols} seed {seed}: proven mines differ"
            );
        }
    }
    assert!(
        adopted >= 3,
        "only {adopted} boards joined by adopting bands"
    );
}
