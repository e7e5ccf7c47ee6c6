//! No-guess boards: every certified board is cleared by an independent brute-force player,
//! rejection is exactly uniform over the boards the solver clears, the board does not depend
//! on the thread count, and impossible requests fail fast with their numbers.
//!
//! These tests live in the binary package because they need both bitmines-gen and the
//! brute-force twin of bitmines-solve's tests: a published crate's tests build from that
//! crate alone.

use std::collections::HashMap;

use bitmines_core::{Board, Cell, FirstClick, Game, Status};
use bitmines_gen::{Certified, Error, Method, NoGuess, NoGuessError, no_guess};

#[allow(
    dead_code,
    reason = "the twin serves several test crates, each using part of it"
)]
#[path = "../crates/solve/tests/twin/mod.rs"]
mod twin;

/// Plays `board` from `click` revealing, at each step, every hidden cell that no layout
/// consistent with the view puts a mine on (brute force over every layout); returns whether
/// that wins. This knows nothing of the solver.
fn brute_clears(board: &Board, click: (usize, usize)) -> bool {
    let mut game = Game::new(board.clone());
    game.reveal(click.0, click.1).unwrap();
    while game.status() == Status::Playing {
        let brute = twin::brute(&game, None).expect("a small board");
        let mut moved = false;
        for r in 0..board.rows() {
            for c in 0..board.cols() {
                let i = r * board.cols() + c;
                if !brute.revealed[i]
                    && brute.mines[i] == 0
                    && game.cell(r, c).unwrap() == Cell::Hidden
                {
                    game.reveal(r, c).unwrap();
                    moved = true;
                }
            }
        }
        if !moved {
            return false;
        }
    }
    game.status() == Status::Won
}

/// The checks every certified board must pass: size, mine count, clear zone, and a win by
/// brute force from its click.
fn check(request: &NoGuess, certified: &Certified) {
    let board = certified.board();
    assert_eq!((board.rows(), board.cols()), (request.rows, request.cols));
    assert_eq!(board.mine_count(), request.mines);
    assert_eq!(certified.click(), request.click);
    let (r, c) = request.click;
    let zone = request.rule.zone(request.rows, request.cols, r, c).unwrap();
    for (zr, zc) in zone.cells() {
        assert!(
            !board.is_mine(zr, zc).unwrap(),
            "({zr}, {zc}) is in the zone"
        );
    }
    assert!(
        brute_clears(board, request.click),
        "{request:?} gave a board that needs a guess"
    );
}

#[test]
fn certified_boards_are_cleared_by_brute_force() {
    // Small enough for brute force after a safe first click: C(hidden, mines) <= 3 * 10^6.
    let shapes = [
        (5, 6, 6, (2, 2)),
        (5, 7, 6, (0, 0)),
        (1, 12, 3, (0, 5)),
        (12, 1, 3, (6, 0)),
        (4, 9, 5, (3, 8)),
    ];
    for method in [Method::Reject, Method::Repair] {
        for &(rows, cols, mines, (r, c)) in &shapes {
            for rule in [FirstClick::Opening, FirstClick::Safe] {
                for seed in 0..24 {
                    let request = NoGuess::new(rows, cols, mines, seed)
                        .first_click(rule, r, c)
                        .method(method);
                    match no_guess(&request) {
                        Ok(certified) => {
                            check(&request, &certified);
                            let certificate = certified.certificate();
                            assert_eq!(certificate.method, method);
                            assert_eq!(certificate.solver, bitmines_gen::SOLVER_VERSION);
                        }
                        // Rejection may find none in its budget on a hard shape; repair must.
                        Err(NoGuessError::NoBoardFound { .. }) if method == Method::Reject => {}
                        Err(e) => panic!("{request:?}: {e}"),
                    }
                }
            }
        }
    }
}

#[test]
fn repair_certifies_dense_and_odd_boards() {
    for &(rows, cols, mines) in &[
        (16, 30, 170),
        (16, 30, 240),
        (9, 63, 120),
        (9, 64, 120),
        (9, 65, 120),
        (30, 30, 200),
    ] {
        for seed in 0..4 {
            let request = NoGuess::new(rows, cols, mines, seed)
                .first_click(FirstClick::Opening, 3, 3)
                .method(Method::Repair);
            let certified = no_guess(&request).unwrap_or_else(|e| panic!("{request:?}: {e}"));
            let board = certified.board();
            assert_eq!(board.mine_count(), mines);
            // Too large for brute force: replay with the solver, which must win.
            let certificate = certified.certificate();
            assert!(certificate.moves > 0);
            let mut game = Game::new(board.clone());
            game.reveal(3, 3).unwrap();
            let player = bitmines_solve::Player::new(bitmines_solve::Policy::Safest);
            let outcome = player.play(&mut game).unwrap();
            assert!(
                outcome.won && outcome.guesses.is_empty(),
                "{request:?}: {outcome:?}"
            );
        }
    }
}

/// Every board of a tiny shape, as its mine cells.
fn all_boards(
    rows: usize,
    cols: usize,
    mines: usize,
    clear: &[(usize, usize)],
) -> Vec<Vec<(usize, usize)>> {
    let free: Vec<(usize, usize)> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .filter(|cell| !clear.contains(cell))
        .collect();
    let mut out = Vec::new();
    let n = free.len();
    let mut pick: Vec<usize> = (0..mines).collect();
    loop {
        out.push(pick.iter().map(|&i| free[i]).collect());
        let Some(i) = (0..mines).rev().find(|&i| pick[i] < n - mines + i) else {
            return out;
        };
        pick[i] += 1;
        for j in i + 1..mines {
            pick[j] = pick[j - 1] + 1;
        }
    }
}

fn mines_of(board: &Board) -> Vec<(usize, usize)> {
    (0..board.rows())
        .flat_map(|r| (0..board.cols()).map(move |c| (r, c)))
        .filter(|&(r, c)| board.is_mine(r, c).unwrap())
        .collect()
}

/// Pearson's statistic of `counts` against equal expected counts over `cells` outcomes,
/// in standard deviations above its mean (`cells - 1` degrees of freedom).
fn chi_square_sigma(counts: &HashMap<Vec<(usize, usize)>, u64>, cells: usize, draws: u64) -> f64 {
    let expected = draws as f64 / cells as f64;
    let observed: f64 = counts
        .values()
        .map(|&n| (n as f64 - expected).powi(2) / expected)
        .sum();
    let missing = (cells - counts.len()) as f64 * expected;
    let chi = observed + missing;
    let dof = (cells - 1) as f64;
    (chi - dof) / (2.0 * dof).sqrt()
}

const TINY: (usize, usize, usize, (usize, usize)) = (4, 4, 3, (0, 0));

/// The boards of the tiny shape that brute force clears from the click.
fn clearable() -> Vec<Vec<(usize, usize)>> {
    let (rows, cols, mines, (r, c)) = TINY;
    let zone: Vec<(usize, usize)> = FirstClick::Opening
        .zone(rows, cols, r, c)
        .unwrap()
        .cells()
        .collect();
    all_boards(rows, cols, mines, &zone)
        .into_iter()
        .filter(|cells| {
            brute_clears(
                &Board::from_mines(rows, cols, cells.iter().copied()).unwrap(),
                (r, c),
            )
        })
        .collect()
}

fn tiny(seed: u64) -> NoGuess {
    let (rows, cols, mines, (r, c)) = TINY;
    NoGuess::new(rows, cols, mines, seed)
        .first_click(FirstClick::Opening, r, c)
        .method(Method::Reject)
}

#[test]
fn rejection_is_uniform_over_the_clearable_boards() {
    let clearable = clearable();
    // Some boards of the shape need a guess, so rejection does reject.
    assert!(
        clearable.len() > 20 && clearable.len() < 220,
        "{}",
        clearable.len()
    );
    let draws = 30 * clearable.len() as u64;
    let mut counts: HashMap<Vec<(usize, usize)>, u64> = HashMap::new();
    for seed in 0..draws {
        let board = no_guess(&tiny(seed)).unwrap().into_board();
        *counts.entry(mines_of(&board)).or_default() += 1;
    }
    for board in counts.keys() {
        assert!(
            clearable.contains(board),
            "{board:?} is not clearable by brute force"
        );
    }
    // Every clearable board can come out, and they come out equally often.
    assert_eq!(counts.len(), clearable.len());
    let sigma = chi_square_sigma(&counts, clearable.len(), draws);
    assert!(
        sigma.abs() < 6.0,
        "chi-square {sigma:.2} sigma from uniform"
    );
}

#[test]
fn the_uniformity_test_catches_a_planted_bias() {
    // The same draws, but a board with a mine in the first row is kept only half the
    // time (the seed moves on otherwise): the statistic must fail.
    let clearable = clearable();
    let draws = 30 * clearable.len() as u64;
    let mut counts: HashMap<Vec<(usize, usize)>, u64> = HashMap::new();
    let mut seed = 0;
    for _ in 0..draws {
        let board = loop {
            let board = no_guess(&tiny(seed)).unwrap().into_board();
            seed += 1;
            let first_row = mines_of(&board).iter().any(|&(r, _)| r == 0);
            if !first_row || seed % 2 == 0 {
                break board;
            }
        };
        *counts.entry(mines_of(&board)).or_default() += 1;
    }
    let sigma = chi_square_sigma(&counts, clearable.len(), draws);
    assert!(sigma > 6.0, "a planted bias went unseen: {sigma:.2} sigma");
}

/// The board `request` makes on a pool of each number of threads.
fn on_threads(request: &NoGuess, threads: &[usize]) -> Vec<Certified> {
    threads
        .iter()
        .map(|&threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| no_guess(request)).unwrap()
        })
        .collect()
}

#[test]
fn the_board_does_not_depend_on_the_thread_count() {
    for method in [Method::Reject, Method::Repair] {
        let request = NoGuess::new(16, 30, 99, 7)
            .first_click(FirstClick::Opening, 3, 3)
            .method(method);
        let boards = on_threads(&request, &[1, 2, 5]);
        assert!(boards.windows(2).all(|w| w[0] == w[1]), "{method:?}");
        // And another seed gives another board.
        let mut next = request.clone();
        next.seed = 8;
        let other = no_guess(&next).unwrap();
        assert_ne!(other.board(), boards[0].board());
    }
}

/// A board large enough that the solver sweeps it in bands of rows on the pool's threads
/// (2^19 cells, 512 rows) is repaired into the same board on any number of threads, with the
/// same certificate but for its count of moves: on two threads or more the plays from the
/// first click drive the halves of the board at once, and the other half's reveals are one
/// move.
#[test]
fn a_board_solved_in_bands_does_not_depend_on_the_thread_count() {
    let request = NoGuess::new(512, 1024, 512 * 1024 * 3 / 20, 11)
        .first_click(FirstClick::Opening, 256, 512)
        .method(Method::Repair);
    let boards = on_threads(&request, &[1, 2, 3]);
    let seen = |certified: &Certified| {
        let mut certificate = *certified.certificate();
        certificate.moves = 0;
        (
            certified.board().clone(),
            certified.click(),
            certified.rule(),
            certificate,
        )
    };
    assert!(boards.windows(2).all(|w| seen(&w[0]) == seen(&w[1])));
    assert!(
        boards[0].certificate().repairs > 0,
        "the board needed no repair"
    );
}

#[test]
fn impossible_requests_fail_with_their_numbers() {
    let unprotected = NoGuess::new(9, 9, 10, 1).first_click(FirstClick::Unprotected, 4, 4);
    assert_eq!(no_guess(&unprotected), Err(NoGuessError::Unprotected));

    let off = NoGuess::new(9, 9, 10, 1).first_click(FirstClick::Opening, 9, 0);
    let error = no_guess(&off).unwrap_err();
    assert!(
        matches!(
            error,
            NoGuessError::Gen(Error::Core(bitmines_core::Error::OffBoard {
                row: 9,
                col: 0,
                ..
            }))
        ),
        "{error}"
    );

    let full = NoGuess::new(9, 9, 73, 1).first_click(FirstClick::Opening, 4, 4);
    let error = no_guess(&full).unwrap_err();
    assert!(
        matches!(
            error,
            NoGuessError::Gen(Error::TooManyMines {
                mines: 73,
                max: 72,
                ..
            })
        ),
        "{error}"
    );
    assert!(
        error.to_string().contains("73") && error.to_string().contains("72"),
        "{error}"
    );

    let dense = NoGuess::new(16, 30, 300, 1)
        .first_click(FirstClick::Opening, 3, 3)
        .method(Method::Reject)
        .attempts(50);
    let error = no_guess(&dense).unwrap_err();
    assert_eq!(
        error,
        NoGuessError::NoBoardFound {
            attempts: 50,
            rows: 16,
            cols: 30,
            mines: 300
        }
    );
    assert!(
        error
            .to_string()
            .contains("50 random 16x30 boards with 300 mines"),
        "{error}"
    );

    let starved = NoGuess::new(16, 30, 200, 1)
        .first_click(FirstClick::Opening, 3, 3)
        .method(Method::Repair)
        .repairs(2);
    match no_guess(&starved) {
        Err(NoGuessError::RepairsExhausted {
            repairs,
            hidden,
            rows: 16,
            cols: 30,
            mines: 200,
        }) => {
            assert!(repairs <= 2 && hidden > 0, "{repairs} {hidden}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_board_with_every_free_cell_mined_needs_no_guess() {
    // The first click opens the zone and every other cell is a mine: won at once.
    let request = NoGuess::new(5, 5, 16, 3).first_click(FirstClick::Opening, 2, 2);
    let certified = no_guess(&request).unwrap();
    check(&request, &certified);
    assert_eq!(certified.certificate().deepest, None);
    assert_eq!(certified.certificate().moves, 0);
}

#[test]
fn deferred_games_get_a_board_certified_from_their_first_click() {
    use bitmines_gen::NoGuessGenerator;
    for rule in [FirstClick::Opening, FirstClick::Safe] {
        for click in [(0, 0), (0, 29), (15, 0), (15, 29), (0, 7), (8, 12)] {
            let mut game =
                Game::deferred(16, 30, 60, rule, NoGuessGenerator::new(11, rule)).unwrap();
            game.reveal(click.0, click.1).unwrap();
            let player = bitmines_solve::Player::new(bitmines_solve::Policy::Safest);
            let outcome = player.play(&mut game).unwrap();
            assert!(
                outcome.won && outcome.guesses.is_empty(),
                "{rule:?} {click:?}: {outcome:?}"
            );
        }
    }
    let mut game = Game::deferred(
        9,
        9,
        10,
        FirstClick::Unprotected,
        NoGuessGenerator::new(1, FirstClick::Unprotected),
    )
    .unwrap();
    assert!(matches!(
        game.reveal(4, 4),
        Err(bitmines_core::Error::BadPlacement { .. })
    ));
}

#[test]
fn progress_reports_every_move_and_ends_with_the_whole_board_certified() {
    use std::sync::Mutex;
    let seen = Mutex::new(Vec::new());
    let request = NoGuess::new(40, 40, 300, 2).method(Method::Repair);
    let certified =
        bitmines_gen::no_guess_with_progress(&request, &|p| seen.lock().unwrap().push(p)).unwrap();
    let seen = seen.into_inner().unwrap();
    assert_eq!(
        certified,
        no_guess(&request).unwrap(),
        "the callback changes nothing"
    );
    let last = seen.last().expect("some moves");
    assert!(last.certifying);
    assert_eq!((last.revealed, last.safe), (1600 - 300, 1600 - 300));
    assert_eq!(last.repairs, certified.certificate().repairs);
    let certifying = seen.iter().filter(|p| p.certifying).count();
    assert!(certifying >= certified.certificate().moves);
}

/// The share done a progress bar shows never steps back, moves in small steps and ends at
/// 1: on a board repaired in one go, and on one whose first board is given up for a fresh
/// one (where the estimate itself starts over).
#[test]
fn the_share_done_moves_in_small_steps_from_zero_to_one() {
    for (seed, attempts) in [(3, 1), (1193, 2)] {
        let request = NoGuess::new(200, 200, 8000, seed)
            .first_click(FirstClick::Opening, 100, 100)
            .method(Method::Repair);
        let shares = std::sync::Mutex::new(vec![0.0]);
        let certified = bitmines_gen::no_guess_with_progress(&request, &|p| {
            shares.lock().unwrap().push(p.share());
        })
        .unwrap();
        assert_eq!(certified.certificate().attempts, attempts, "seed {seed}");
        let shares = shares.into_inner().unwrap();
        assert_eq!(shares.last(), Some(&1.0), "seed {seed}");
        let steps: Vec<f64> = shares.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(
            steps.iter().all(|&step| step >= 0.0),
            "seed {seed}: the share stepped back: {shares:?}"
        );
        let largest = steps.iter().copied().fold(0.0, f64::max);
        assert!(largest < STEP, "seed {seed}: a step of {largest}");
    }
}

/// The largest step of the share done allowed on a 200x200 board.
const STEP: f64 = 0.05;

/// A board that goes round after round of repairs without reaching a new cell is given up
/// for a fresh one, rather than eating the whole budget: on this seed the first board
/// shuffles mines about its last safe cell (the first attempt once spent its 40,000
/// repairs and seconds there), and the second certifies.
#[test]
fn a_board_that_resists_repair_is_given_up_for_a_fresh_one() {
    let request = NoGuess::new(200, 200, 8000, 1193)
        .first_click(FirstClick::Opening, 100, 100)
        .method(Method::Repair);
    // The most repairs any attempt reported: the first one gives up long before its
    // share of the budget (40,000 of the default 160,000, four repairs a cell).
    let most = std::sync::atomic::AtomicUsize::new(0);
    let certified = bitmines_gen::no_guess_with_progress(&request, &|p| {
        most.fetch_max(p.repairs, std::sync::atomic::Ordering::Relaxed);
    })
    .unwrap();
    let most = most.into_inner();
    assert!(most < 1000, "an attempt made {most} repairs");
    assert_eq!(certified.board().mine_count(), 8000);
    let mut game = Game::new(certified.board().clone());
    game.reveal(100, 100).unwrap();
    let player = bitmines_solve::Player::new(bitmines_solve::Policy::Safest);
    let outcome = player.play(&mut game).unwrap();
    assert!(outcome.won && outcome.guesses.is_empty(), "{outcome:?}");
    assert_eq!(certified.certificate().attempts, 2);
}
