//! The solver against its twins: the brute-force enumeration of every layout for the
//! certain cells and the probabilities, and the per-cell trivial rule for the word sweep.

mod twin;

use bitmines_core::{AsView, Position};
use bitmines_solve::{Error, Solver, naive};
use proptest::prelude::*;
use twin::{Rng, arbitrary, brute, brute_given, played, with_layout};

/// Board shapes: square, thin, and across word edges.
const SHAPES: &[(usize, usize)] = &[
    (1, 1),
    (1, 9),
    (9, 1),
    (3, 3),
    (4, 5),
    (5, 5),
    (6, 6),
    (2, 62),
    (2, 63),
    (1, 64),
    (2, 65),
    (5, 8),
    (7, 7),
];

/// Checks the solver's certain cells and probabilities against the brute force, with the
/// pair rule and without it.
fn check(position: &impl AsView) -> Result<(), TestCaseError> {
    let Some(brute) = brute(position, None) else {
        return Ok(());
    };
    check_with(position, &brute, true)?;
    check_with(position, &brute, false)
}

fn check_with(
    position: &impl AsView,
    brute: &twin::Brute,
    pairs: bool,
) -> Result<(), TestCaseError> {
    let solved = Solver::new(position).and_then(|s| s.solve_with(pairs));
    if brute.total == 0 {
        prop_assert!(
            matches!(
                solved,
                Err(Error::Contradiction { .. } | Error::MineCount { .. })
            ),
            "no layout exists, but the solver answered {solved:?}"
        );
        return Ok(());
    }
    let solution = solved.map_err(|e| TestCaseError::fail(format!("{e}")))?;
    let (certain, odds) = (&solution.certain, &solution.probabilities);
    prop_assert!(certain.complete() && odds.exact());
    let cols = brute.cols;
    let mut mines = Vec::new();
    let mut safe = Vec::new();
    for (i, &count) in brute.mines.iter().enumerate() {
        let (r, c) = (i / cols, i % cols);
        if brute.revealed[i] {
            prop_assert_eq!(odds.mine(r, c).unwrap(), 0.0);
            continue;
        }
        if count == brute.total {
            mines.push((r, c));
        } else if count == 0 {
            safe.push((r, c));
        }
        let expected = count as f64 / brute.total as f64;
        let p = odds.mine(r, c).unwrap();
        prop_assert!(
            (p - expected).abs() < 1e-9,
            "({r}, {c}): {p} against {expected}"
        );
    }
    prop_assert_eq!(certain.mines().collect::<Vec<_>>(), mines);
    prop_assert_eq!(certain.safe().collect::<Vec<_>>(), safe);
    for (r, c) in certain.mines().chain(certain.safe()) {
        prop_assert!(certain.reason(r, c).is_some(), "({r}, {c}) has no reason");
    }
    if let Some(log) = odds.log10_layouts() {
        let expected = (brute.total as f64).log10();
        prop_assert!(
            (log - expected).abs() < 1e-9,
            "log10 layouts {log} against {expected}"
        );
    }
    Ok(())
}

/// The word-parallel trivial rule reaches the same fixed point as the per-cell twin.
fn check_trivial(position: &impl AsView) -> Result<(), TestCaseError> {
    let slow = naive::trivial(position);
    let mut solver = Solver::new(position).unwrap();
    let fast = solver.trivial().map(|_| solver.into_certain());
    match (slow, fast) {
        (Ok(slow), Ok(fast)) => {
            prop_assert_eq!(fast.mines().collect::<Vec<_>>(), slow.mines);
            prop_assert_eq!(fast.safe().collect::<Vec<_>>(), slow.safe);
        }
        (Err(_), Err(_)) => {}
        (slow, fast) => {
            return Err(TestCaseError::fail(format!(
                "twin {slow:?}, sweep {:?}",
                fast.map(|c| c.tally())
            )));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn positions_from_play_match_the_brute_force(seed in any::<u64>(), shape in 0..SHAPES.len(), density in 0.05f64..0.45) {
        let mut rng = Rng(seed);
        let (rows, cols) = SHAPES[shape];
        let mines = ((rows * cols) as f64 * density) as usize;
        let (_, game) = played(&mut rng, rows, cols, mines, 22);
        if game.status() == bitmines_core::Status::Playing {
            check(&game)?;
            check_trivial(&game)?;
        }
    }

    #[test]
    fn arbitrary_positions_match_the_brute_force(seed in any::<u64>(), shape in 0..SHAPES.len(), density in 0.0f64..0.6, garbage in any::<bool>()) {
        let mut rng = Rng(seed);
        let (rows, cols) = SHAPES[shape];
        let mines = ((rows * cols) as f64 * density) as usize;
        let position = arbitrary(&mut rng, rows, cols, mines, garbage);
        check(&position)?;
        if !garbage {
            check_trivial(&position)?;
        }
    }

    /// The solver cannot peek: moving the hidden mines to any other layout the view allows
    /// changes no answer.
    #[test]
    fn answers_do_not_depend_on_the_hidden_mines(seed in any::<u64>(), shape in 0..SHAPES.len(), density in 0.1f64..0.4) {
        let mut rng = Rng(seed);
        let (rows, cols) = SHAPES[shape];
        let mines = ((rows * cols) as f64 * density) as usize;
        let (board, game) = played(&mut rng, rows, cols, mines, 20);
        if game.status() != bitmines_core::Status::Playing {
            return Ok(());
        }
        let truth: Vec<bool> = (0..rows * cols).map(|i| board.is_mine(i / cols, i % cols).unwrap()).collect();
        let Some(other) = brute(&game, Some(&truth)).and_then(|b| b.other) else {
            return Ok(());
        };
        let moved = with_layout(&game, &other);
        let (a, b) = (Solver::new(&game).unwrap().solve().unwrap(), Solver::new(&moved).unwrap().solve().unwrap());
        prop_assert_eq!(a.certain.mines().collect::<Vec<_>>(), b.certain.mines().collect::<Vec<_>>());
        prop_assert_eq!(a.certain.safe().collect::<Vec<_>>(), b.certain.safe().collect::<Vec<_>>());
        for r in 0..rows {
            for c in 0..cols {
                prop_assert_eq!(a.probabilities.mine(r, c).unwrap(), b.probabilities.mine(r, c).unwrap());
                prop_assert_eq!(a.certain.reason(r, c), b.certain.reason(r, c));
            }
        }
        prop_assert_eq!(bitmines_solve::hint(&game).unwrap(), bitmines_solve::hint(&moved).unwrap());
    }
}

/// Fixed positions whose answers are known by hand.
#[test]
fn known_positions() {
    let solve = |text: &str| {
        Solver::new(&text.parse::<Position>().unwrap())
            .unwrap()
            .solve()
    };
    // The 1-2-1 pattern against a wall: the mines sit under the 1s.
    let s = solve("bitmines view 2x3 mines 2\n###\n121\n").unwrap();
    assert_eq!(s.certain.mines().collect::<Vec<_>>(), [(0, 0), (0, 2)]);
    assert_eq!(s.certain.safe().collect::<Vec<_>>(), [(0, 1)]);
    // A 50/50: nothing certain, both halves even.
    let s = solve("bitmines view 2x2 mines 1\n##\n11\n").unwrap();
    assert_eq!(s.certain.mines().count() + s.certain.safe().count(), 0);
    assert_eq!(s.probabilities.mine(0, 0).unwrap(), 0.5);
    // The mine count alone: one mine left, and the frontier must take it, so the far cell
    // is safe (a global-count deduction).
    let s = solve("bitmines view 1x4 mines 1\n1#1#\n").unwrap();
    assert_eq!(s.certain.mines().collect::<Vec<_>>(), [(0, 1)]);
    assert_eq!(s.certain.safe().collect::<Vec<_>>(), [(0, 3)]);
    // Nothing revealed: the mine count alone decides, or nothing does.
    let s = solve("bitmines view 2x3 mines 0\n###\n###\n").unwrap();
    assert_eq!(s.certain.safe().count(), 6);
    let s = solve("bitmines view 2x3 mines 6\n###\n###\n").unwrap();
    assert_eq!(s.certain.mines().count(), 6);
    let s = solve("bitmines view 1x1 mines 1\n#\n").unwrap();
    assert_eq!(s.certain.mines().collect::<Vec<_>>(), [(0, 0)]);
    let s = solve("bitmines view 2x3 mines 2\n###\n###\n").unwrap();
    assert_eq!(s.certain.mines().count() + s.certain.safe().count(), 0);
    assert!((s.probabilities.mine(1, 2).unwrap() - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(s.probabilities.off_frontier_cells(), 6);
    // Everything revealed.
    let s = solve("bitmines view 1x3 mines 0\n000\n").unwrap();
    assert_eq!(s.certain.safe().count() + s.certain.mines().count(), 0);
    assert_eq!(s.probabilities.log10_layouts(), Some(0.0));
    // Off the board is an error, not a panic; it has no reason.
    assert!(s.probabilities.mine(1, 0).is_err() && s.certain.reason(0, 3).is_none());
    // Contradictions name the cell.
    assert!(matches!(
        solve("bitmines view 1x3 mines 1\n#3#\n"),
        Err(Error::Contradiction {
            row: 0,
            col: 1,
            number: 3,
            ..
        })
    ));
    assert!(matches!(
        solve("bitmines view 1x3 mines 2\n1#.\n"),
        Err(Error::Contradiction { .. })
    ));
    assert!(matches!(
        solve("bitmines view 1x3 mines 0\n1##\n"),
        Err(Error::MineCount { mines: 0, .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The word sweep and its per-cell twin on boards many words wide and tall, where the
    /// sweep's row pipeline and its revisits of changed rows matter.
    #[test]
    fn trivial_tier_matches_its_twin_on_larger_boards(seed in any::<u64>(), shape in 0..10usize, density in 0.05f64..0.3) {
        // The last three are one word a row, which the sweep runs on a path of its own; the
        // first is wide enough for several strips of words.
        let (rows, cols) = [(12, 700), (30, 130), (64, 64), (17, 200), (100, 1), (1, 300), (45, 129), (16, 30), (40, 62), (200, 7)][shape];
        let mut rng = Rng(seed);
        let mines = ((rows * cols) as f64 * density) as usize;
        let (_, game) = played(&mut rng, rows, cols, mines, rows * cols / 2);
        if game.status() == bitmines_core::Status::Playing {
            check_trivial(&game)?;
        }
    }
}

/// The sweep of a board of one word a row has a path for boards with a revealed 8 and one
/// for boards without: on dense boards, where 8s are common, both match the per-cell twin.
#[test]
fn one_word_boards_with_and_without_eights_match_the_twin() {
    let mut rng = Rng(71);
    let mut eights = 0;
    for round in 0..200 {
        let (rows, cols) = [(16, 30), (12, 62), (40, 9)][round % 3];
        let density = [0.5, 0.7, 0.85][round / 3 % 3];
        let mines = ((rows * cols) as f64 * density) as usize;
        let position = arbitrary(&mut rng, rows, cols, mines, false);
        let text = position.to_string();
        eights += usize::from(text.lines().skip(1).any(|line| line.contains('8')));
        check_trivial(&position).unwrap();
    }
    assert!(eights > 20, "{eights} boards with an 8");
}

/// Past the budget, answers are marked approximate, stay sound, and stay probabilities.
#[test]
fn budgets_mark_answers_approximate_and_stay_sound() {
    use bitmines_solve::{Budget, Mode};
    let mut rng = Rng(11);
    let mut approximate = 0;
    let mut density = 0;
    for seed in 0..200 {
        let (rows, cols) = [(9, 9), (16, 16), (16, 30), (5, 70)][seed % 4];
        let (board, game) = played(&mut rng, rows, cols, rows * cols / 6, rows * cols * 3 / 5);
        if game.status() != bitmines_core::Status::Playing {
            continue;
        }
        let exact = Solver::new(&game).unwrap().solve().unwrap();
        for budget in [
            Budget::default().with_states(2),
            Budget::default().with_global(0),
        ] {
            let cut = Solver::new(&game)
                .unwrap()
                .with_budget(budget)
                .solve()
                .unwrap();
            let odds = &cut.probabilities;
            if !odds.exact() {
                assert!(!cut.certain.complete());
                if odds.mode() == Mode::Density {
                    density += 1;
                } else {
                    approximate += 1;
                    assert!(odds.approximate_components() > 0);
                }
            }
            // Whatever the budget, what is called certain is true on the board.
            for (r, c) in cut.certain.mines() {
                assert!(board.is_mine(r, c).unwrap(), "({r}, {c}) called a mine");
            }
            for (r, c) in cut.certain.safe() {
                assert!(!board.is_mine(r, c).unwrap(), "({r}, {c}) called safe");
            }
            // And a subset of what the exact answer proves.
            let exact_mines: Vec<_> = exact.certain.mines().collect();
            assert!(cut.certain.mines().all(|m| exact_mines.contains(&m)));
            for r in 0..rows {
                for c in 0..cols {
                    let p = odds.mine(r, c).unwrap();
                    assert!((0.0..=1.0).contains(&p), "({r}, {c}) has probability {p}");
                }
            }
        }
    }
    assert!(
        approximate > 0 && density > 0,
        "{approximate} approximate, {density} by density"
    );
}

/// A game of `rows` x `cols` with mines at `density`, from `seed`, played part way (see
/// `played`), if it is still being played.
fn in_play(seed: u64, (rows, cols): (usize, usize), density: f64) -> Option<bitmines_core::Game> {
    let mut rng = Rng(seed);
    let mines = ((rows * cols) as f64 * density) as usize;
    let (_, game) = played(&mut rng, rows, cols, mines, rows * cols * 9 / 10);
    (game.status() == bitmines_core::Status::Playing).then_some(game)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A solver kept across moves with `update` proves exactly what a new solver of each
    /// later view proves: the trivial and pair rules reach the same fixed point whether or
    /// not they start from what earlier views proved.
    #[test]
    fn an_updated_solver_matches_a_new_one(seed in any::<u64>(), shape in 0..9usize, density in 0.05f64..0.3) {
        // The last three are many words wide, across a thousand columns.
        let (rows, cols) = [(9, 9), (16, 30), (1, 70), (70, 1), (20, 65), (12, 128), (6, 1100), (30, 700), (3, 1600)][shape];
        let Some(mut game) = in_play(seed, (rows, cols), density) else {
            return Ok(());
        };
        let mut kept = Solver::new(&game).unwrap();
        loop {
            kept.deduce().unwrap();
            let mut fresh = Solver::new(&game).unwrap();
            fresh.deduce().unwrap();
            prop_assert_eq!(kept.safe_plane(), fresh.safe_plane());
            prop_assert_eq!(kept.mine_plane(), fresh.mine_plane());
            // `proves_safe` keeps a count of the safe plane: it must agree with the plane.
            for solver in [&kept, &fresh] {
                prop_assert_eq!(solver.proves_safe(), solver.safe_plane().iter().any(|&w| w != 0));
            }
            if !kept.proves_safe() || game.status() != bitmines_core::Status::Playing {
                break;
            }
            // A flagged cell is not revealed (the position's flags, right or wrong, stay).
            if game.reveal_cells(kept.safe_plane()).unwrap().opened == 0 {
                break;
            }
            prop_assert!(game.status() != bitmines_core::Status::Lost);
            if game.status() != bitmines_core::Status::Playing {
                break;
            }
            kept.update(&game).unwrap();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A solver kept across moves, the pair rule and the exact tier included, gives no
    /// revealed cell a reason after it reads back the cells its moves opened: the reasons of
    /// the safe cells they proved go once those are revealed, those of proven mines stay.
    #[test]
    fn a_kept_solver_gives_no_revealed_cell_a_reason(seed in any::<u64>(), shape in 0..5usize, density in 0.1f64..0.25) {
        let (rows, cols) = [(9, 9), (16, 30), (1, 70), (70, 1), (20, 65)][shape];
        let Some(mut game) = in_play(seed, (rows, cols), density) else {
            return Ok(());
        };
        let mut kept = Solver::new(&game).unwrap();
        loop {
            kept.deduce().unwrap();
            if !kept.proves_safe() {
                kept.weigh().unwrap();
            }
            if !kept.proves_safe() || game.reveal_words(&kept.safe_words()).unwrap().opened == 0 {
                break;
            }
            if game.status() != bitmines_core::Status::Playing {
                break;
            }
            kept.update_revealed(&game).unwrap();
            let view = game.view();
            for row in 0..rows {
                for col in 0..cols {
                    if view.is_revealed(row, col).unwrap() {
                        prop_assert_eq!(kept.reason(row, col).unwrap(), None, "({}, {})", row, col);
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A solver that hands over its safe cells as words (`safe_words`, `reveal_words`) and
    /// reads back only the words they opened (`update_revealed`) proves exactly what a new
    /// solver of each later view proves, and its words are its safe plane.
    #[test]
    fn a_solver_updated_from_its_reveals_matches_a_new_one(seed in any::<u64>(), shape in 0..9usize, density in 0.05f64..0.3) {
        let (rows, cols) = [(9, 9), (16, 30), (1, 70), (70, 1), (20, 65), (12, 128), (6, 1100), (30, 700), (3, 1600)][shape];
        let Some(mut game) = in_play(seed, (rows, cols), density) else {
            return Ok(());
        };
        let mut kept = Solver::new(&game).unwrap();
        // One buffer from move to move, as a player keeps it: `safe_words_into` is the
        // list `safe_words` makes anew, whatever the buffer held.
        let mut buffer = vec![(usize::MAX, 1)];
        loop {
            kept.deduce().unwrap();
            let mut fresh = Solver::new(&game).unwrap();
            fresh.deduce().unwrap();
            prop_assert_eq!(kept.safe_plane(), fresh.safe_plane());
            prop_assert_eq!(kept.mine_plane(), fresh.mine_plane());
            let words = kept.safe_words();
            let from_plane: Vec<(usize, u64)> = kept
                .safe_plane()
                .iter()
                .copied()
                .enumerate()
                .filter(|&(_, cells)| cells != 0)
                .collect();
            prop_assert_eq!(&words, &from_plane);
            kept.safe_words_into(&mut buffer);
            prop_assert_eq!(&buffer, &words);
            if !kept.proves_safe() || game.status() != bitmines_core::Status::Playing {
                break;
            }
            if game.reveal_words(&words).unwrap().opened == 0 {
                break;
            }
            prop_assert!(game.status() != bitmines_core::Status::Lost);
            if game.status() != bitmines_core::Status::Playing {
                break;
            }
            kept.update_revealed(&game).unwrap();
        }
    }
}

/// A 1x600 view with the given cells revealed as 1s and the rest hidden.
fn ones(revealed: &[usize]) -> Position {
    let row: String = (0..600)
        .map(|c| if revealed.contains(&c) { '1' } else { '#' })
        .collect();
    format!("bitmines view 1x600 mines 2\n{row}\n")
        .parse()
        .unwrap()
}

#[test]
fn a_reveal_at_a_word_edge_reaches_the_numbers_across_it() {
    // Columns 254 and 255 sit either side of a plane word's edge. A 1 with one hidden
    // neighbour on each side decides nothing until the cell across the edge opens as a 1:
    // then both 1s prove a mine, one on each side.
    for (before, after) in [(254, 255), (255, 254)] {
        let mut solver = Solver::new(&ones(&[before])).unwrap();
        assert_eq!(solver.trivial().unwrap(), 0);
        solver.update(&ones(&[before, after])).unwrap();
        solver.trivial().unwrap();
        let certain = solver.into_certain();
        for mine in [253, 256] {
            assert_eq!(
                certain.verdict(0, mine).unwrap(),
                Some(true),
                "{before} then {after}: {mine}"
            );
        }
    }
}

/// `update` takes only later views of the same game.
#[test]
fn update_refuses_a_view_that_is_not_later() {
    let solve = |text: &str| text.parse::<Position>().unwrap();
    let mut solver = Solver::new(&solve("bitmines view 2x3 mines 1\n1##\n###\n")).unwrap();
    let other_size = solve("bitmines view 3x3 mines 1\n1##\n###\n###\n");
    let hidden_again = solve("bitmines view 2x3 mines 1\n###\n###\n");
    let renumbered = solve("bitmines view 2x3 mines 1\n21#\n###\n");
    for (position, says) in [
        (&other_size, "3x3 board with 1 mines, the solver's is 2x3"),
        (&hidden_again, "a revealed cell is hidden again at (0, 0)"),
        (
            &renumbered,
            "a revealed cell shows another number at (0, 0)",
        ),
    ] {
        match solver.update(position) {
            Err(Error::NotLater { reason }) => assert!(reason.contains(says), "{reason}"),
            other => panic!("{other:?}"),
        }
    }
    // A proven mine revealed: the 2 between two hidden cells makes both mines.
    let mut solver = Solver::new(&solve("bitmines view 1x3 mines 2\n#2#\n")).unwrap();
    solver.trivial().unwrap();
    match solver.update(&solve("bitmines view 1x3 mines 2\n12#\n")) {
        Err(Error::NotLater { reason }) => {
            assert!(
                reason.contains("a proven mine is revealed at (0, 0)"),
                "{reason}"
            )
        }
        other => panic!("{other:?}"),
    }
    // A later view is taken.
    let mut solver = Solver::new(&solve("bitmines view 2x3 mines 1\n1##\n###\n")).unwrap();
    solver
        .update(&solve("bitmines view 2x3 mines 1\n1##\n1##\n"))
        .unwrap();
}

/// Checks a solver that ran the exact tier in place against the brute force: every cell
/// it proves, and the probability of every undecided cell, on or off the frontier.
fn check_weighed(
    mut solver: Solver,
    brute: &twin::Brute,
    given: &[(usize, usize)],
) -> Result<(), TestCaseError> {
    let weighed = match solver.weigh() {
        Ok(weighed) => weighed,
        Err(error) => {
            prop_assert_eq!(brute.total, 0, "{}", error);
            return Ok(());
        }
    };
    prop_assert!(brute.total > 0, "no layout exists, but weigh answered");
    prop_assert!(weighed.exact());
    let cols = brute.cols;
    let share = |r: usize, c: usize| brute.mines[r * cols + c] as f64 / brute.total as f64;
    let mut on_frontier = vec![false; brute.mines.len()];
    for ((r, c), p, component) in weighed.frontier() {
        prop_assert!(component < weighed.components());
        prop_assert!(
            (p - share(r, c)).abs() < 1e-9,
            "({r}, {c}): {p} against {}",
            share(r, c)
        );
        prop_assert!(p > 0.0 && p < 1.0, "({r}, {c}) is undecided but has {p}");
        on_frontier[r * cols + c] = true;
    }
    for ((r, c), p) in weighed.safest_each() {
        let component = weighed
            .frontier()
            .find(|&(cell, _, _)| cell == (r, c))
            .map(|(_, _, k)| k);
        let least = weighed
            .frontier()
            .filter(|&(_, _, k)| Some(k) == component)
            .map(|(_, q, _)| q)
            .fold(1.0, f64::min);
        prop_assert_eq!(p, least);
    }
    let certain = solver.into_certain();
    let (mut mines, mut safe) = (Vec::new(), Vec::new());
    for (i, &count) in brute.mines.iter().enumerate() {
        let (r, c) = (i / cols, i % cols);
        if brute.revealed[i] {
            continue;
        }
        if count == brute.total {
            mines.push((r, c));
        } else if count == 0 {
            safe.push((r, c));
        } else if !on_frontier[i] {
            let p = weighed.off_frontier();
            prop_assert!(
                (p - share(r, c)).abs() < 1e-9,
                "off the frontier ({r}, {c}): {p} against {}",
                share(r, c)
            );
        }
    }
    prop_assert_eq!(certain.mines().collect::<Vec<_>>(), mines);
    prop_assert_eq!(certain.safe().collect::<Vec<_>>(), safe);
    for &(r, c) in given {
        prop_assert_eq!(certain.reason(r, c), None);
        prop_assert_eq!(certain.verdict(r, c).unwrap(), Some(true));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// `weigh` runs the exact tier in place: what it proves and the probabilities it gives
    /// are those of every layout, and each component's safest cell is the least of its cells.
    #[test]
    fn weighing_in_place_matches_the_brute_force(seed in any::<u64>(), shape in 0..SHAPES.len(), density in 0.05f64..0.45) {
        let mut rng = Rng(seed);
        let (rows, cols) = SHAPES[shape];
        let mines = ((rows * cols) as f64 * density) as usize;
        let (_, game) = played(&mut rng, rows, cols, mines, 22);
        if game.status() != bitmines_core::Status::Playing {
            return Ok(());
        }
        let Some(brute) = brute(&game, None) else {
            return Ok(());
        };
        let mut solver = Solver::new(&game).unwrap();
        if seed % 2 == 0 {
            // Whatever ran before, the answer is the same.
            let _ = solver.deduce();
        }
        check_weighed(solver, &brute, &[])?;
    }

    /// A mine given from outside the view counts as proven: the solver then proves and
    /// weighs exactly as every layout with a mine there says.
    #[test]
    fn an_assumed_mine_matches_the_brute_force_given_it(seed in any::<u64>(), shape in 0..SHAPES.len(), density in 0.1f64..0.45) {
        let mut rng = Rng(seed);
        let (rows, cols) = SHAPES[shape];
        let mines = ((rows * cols) as f64 * density) as usize;
        let (board, game) = played(&mut rng, rows, cols, mines, 22);
        if game.status() != bitmines_core::Status::Playing {
            return Ok(());
        }
        // A true mine still hidden, as an assistant that knows the board would give it.
        let hidden_mines: Vec<(usize, usize)> = (0..rows * cols)
            .map(|i| (i / cols, i % cols))
            .filter(|&(r, c)| board.is_mine(r, c).unwrap() && game.cell(r, c).unwrap() == bitmines_core::Cell::Hidden)
            .collect();
        if hidden_mines.is_empty() {
            return Ok(());
        }
        let (r, c) = hidden_mines[rng.below(hidden_mines.len())];
        let Some(brute) = brute_given(&game, None, &[r * cols + c]) else {
            return Ok(());
        };
        let mut solver = Solver::new(&game).unwrap();
        let _ = solver.deduce();
        // A mine the view proves already keeps its reason; a new one has none.
        let proven = solver.mine_plane().iter().map(|w| w.count_ones()).sum::<u32>();
        solver.assume_mine(r, c).unwrap();
        let new = solver.mine_plane().iter().map(|w| w.count_ones()).sum::<u32>() > proven;
        // Giving it twice changes nothing.
        solver.assume_mine(r, c).unwrap();
        let given = [(r, c)];
        check_weighed(solver, &brute, if new { &given } else { &[] })?;
    }
}

/// `assume_mine` refuses a revealed cell, a cell the view proves safe and a cell off the
/// board, naming the cell.
#[test]
fn assume_mine_refuses_what_cannot_be_a_mine() {
    // The 1 at (0, 0) with (0, 1) its only hidden neighbour: (0, 1) is a mine, so the 1 at
    // (1, 1) is met and (0, 2) and (1, 2) are safe.
    let position: Position = "bitmines view 2x3 mines 1\n1##\n11#\n".parse().unwrap();
    let mut solver = Solver::new(&position).unwrap();
    solver.trivial().unwrap();
    for ((r, c), says) in [((0, 0), "it is revealed"), ((0, 2), "proves it safe")] {
        match solver.assume_mine(r, c) {
            Err(error @ Error::Assumption { .. }) => {
                let text = error.to_string();
                assert!(
                    text.contains(&format!("({r}, {c})")) && text.contains(says),
                    "{text}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(solver.assume_mine(2, 0), Err(Error::Core(_))));
    // A proven mine may be given again.
    solver.assume_mine(0, 1).unwrap();
}

/// Wrong flags are read from the position given: the flags on cells the answer proves safe.
#[test]
fn wrong_flags_are_the_given_positions_flags_on_safe_cells() {
    let position: Position = "bitmines view 2x3 mines 2\n#F#\n121\n".parse().unwrap();
    let certain = bitmines_solve::certain(&position).unwrap();
    assert_eq!(certain.wrong_flags(&position).unwrap(), [(0, 1)]);
    // The same cells without the flag: nothing is wrong.
    let unflagged: Position = "bitmines view 2x3 mines 2\n###\n121\n".parse().unwrap();
    assert_eq!(certain.wrong_flags(&unflagged).unwrap(), []);
    // A flag on a proven mine is right.
    let right: Position = "bitmines view 2x3 mines 2\nF##\n121\n".parse().unwrap();
    assert_eq!(certain.wrong_flags(&right).unwrap(), []);
    let other: Position = "bitmines view 1x3 mines 1\n#F#\n".parse().unwrap();
    match certain.wrong_flags(&other) {
        Err(Error::NotLater { reason }) => assert!(reason.contains("1x3"), "{reason}"),
        answer => panic!("{answer:?}"),
    }
}

/// Solvers built one after another on a thread reuse the sweep's row buffers of the ones
/// dropped before them, of the same width only (the shapes here take 1 to 4 words a row):
/// whatever those left behind (a contradiction found halfway, another board), every sweep
/// still agrees with the per-cell twin.
#[test]
fn reused_row_buffers_leave_no_trace() {
    let mut rng = Rng(61);
    for round in 0..300 {
        let (rows, cols) = [(6, 63), (3, 200), (4, 7), (5, 130)][round % 4];
        let mines = rows * cols / 5;
        let garbage = arbitrary(&mut rng, rows, cols, mines, true);
        let _ = Solver::new(&garbage).map(|mut s| s.trivial());
        let position = arbitrary(&mut rng, rows, cols, mines, false);
        check_trivial(&position).unwrap();
    }
}

/// Every answer of one position, as numbers to compare exactly: each cell's probability
/// bits, its verdict and reason, and the weighing in place.
fn answers(position: &impl AsView) -> Option<Vec<String>> {
    let view = position.view();
    let solution = Solver::new(position).ok()?.solve().ok()?;
    let odds = bitmines_solve::probabilities(position).ok()?;
    let weighed = Solver::new(position).ok()?.weigh().ok()?;
    let mut out = vec![format!("{weighed:?}")];
    for r in 0..view.rows() {
        for c in 0..view.cols() {
            out.push(format!(
                "{r} {c} {:x} {:x} {:?} {:?}",
                odds.mine(r, c).ok()?.to_bits(),
                solution.probabilities.mine(r, c).ok()?.to_bits(),
                solution.certain.verdict(r, c).ok()?,
                solution.certain.reason(r, c),
            ));
        }
    }
    Some(out)
}

/// The exact tier's buffers and the planes' vectors are kept on the thread from one solve
/// to the next: an answer is the same bit for bit whatever the thread solved before it
/// (positions of other sizes, contradictions, large frontiers), and the same as on a
/// thread that solved nothing yet.
#[test]
fn buffers_kept_on_the_thread_leave_no_trace() {
    let mut rng = Rng(67);
    let shapes = [(16, 30), (6, 63), (3, 200), (4, 7), (5, 130), (9, 9)];
    for round in 0..120 {
        let (rows, cols) = shapes[round % shapes.len()];
        let before = arbitrary(&mut rng, rows, cols, rows * cols / 5, round % 3 == 0);
        // Stopped with between a third and all of the board hidden.
        let hidden = rows * cols / 3 + rng.below(rows * cols * 2 / 3);
        let (_, game) = played(&mut rng, rows, cols, rows * cols / 6, hidden);
        let position = Position::of(&game.view()).unwrap();
        let _ = answers(&before);
        let here = answers(&position);
        let fresh = std::thread::spawn(move || answers(&position))
            .join()
            .unwrap();
        assert_eq!(here, fresh, "round {round}");
    }
}
