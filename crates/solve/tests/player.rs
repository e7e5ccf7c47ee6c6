//! The player in play: every proven move is safe on the truth, games are lost only on
//! guesses, each guess's probability is the brute force's, and play is deterministic.

#[allow(dead_code)]
mod twin;

use std::collections::HashMap;

use bitmines_core::{FirstClick, Game, SeededPlacer, Status};
use bitmines_solve::{Move, Player, Policy};
use twin::{Brute, Rng, arbitrary, brute, played, with_layout};

/// Board shapes: small, thin, and across word edges.
const SHAPES: &[(usize, usize, usize)] = &[
    (1, 12, 3),
    (12, 1, 3),
    (5, 5, 5),
    (6, 9, 10),
    (8, 8, 10),
    (9, 9, 10),
    (3, 63, 30),
    (2, 65, 20),
    (4, 64, 40),
];

/// Plays one seeded game move by move, checking each move against the truth and each
/// guess's probability against the brute force where it can enumerate.
fn check_game(seed: u64, (rows, cols, mines): (usize, usize, usize), policy: Policy) -> bool {
    let rule = [
        FirstClick::Opening,
        FirstClick::Safe,
        FirstClick::Unprotected,
    ][(seed % 3) as usize];
    let Ok(mut game) = Game::deferred(rows, cols, mines, rule, SeededPlacer::new(seed)) else {
        return false;
    };
    game.reveal(rows / 2, cols / 2).unwrap();
    let player = Player::new(policy);
    while game.status() == Status::Playing {
        let before = game.clone();
        let board = before.board().unwrap().clone();
        let step = player.step(&mut game).unwrap();
        match step {
            Move::Proven(n) => {
                assert!(n > 0, "seed {seed}: a proven move that revealed nothing");
                assert_ne!(
                    game.status(),
                    Status::Lost,
                    "seed {seed}: lost on a proven move"
                );
            }
            Move::Guess(guess) => {
                if let Some(b) = brute(&before, None) {
                    let (r, c) = guess.cell;
                    let expected = b.mines[r * cols + c] as f64 / b.total as f64;
                    assert!(
                        (guess.mine - expected).abs() < 1e-9,
                        "seed {seed}: guess ({r}, {c}) taken at {} but the layouts say {expected}",
                        guess.mine
                    );
                }
                let lost = game.status() == Status::Lost;
                assert_eq!(lost, board.is_mine(guess.cell.0, guess.cell.1).unwrap());
            }
            _ => unreachable!("only two kinds of move"),
        }
    }
    game.status() == Status::Won
}

#[test]
fn proven_moves_never_lose_and_guesses_are_taken_at_the_true_odds() {
    let mut rng = Rng(17);
    let mut wins = 0;
    let mut games = 0;
    for i in 0..1200u64 {
        let shape = SHAPES[(i as usize) % SHAPES.len()];
        let policy = [
            Policy::Safest,
            Policy::Tiebreak,
            Policy::Unavoidable,
            Policy::Full,
        ][i as usize % 4];
        wins += usize::from(check_game(rng.next(), shape, policy));
        games += 1;
    }
    // Not an assertion on strength: only that some games are won and some lost, so both
    // paths ran.
    assert!(wins > 0 && wins < games, "{wins} of {games}");
}

#[test]
fn play_is_deterministic() {
    for seed in 0..20 {
        let policy = [Policy::Safest, Policy::Lookahead, Policy::Full][(seed % 3) as usize];
        let play = || {
            let mut game =
                Game::deferred(16, 30, 99, FirstClick::Opening, SeededPlacer::new(seed)).unwrap();
            game.reveal(3, 3).unwrap();
            Player::new(policy).play(&mut game).unwrap()
        };
        assert_eq!(play(), play(), "seed {seed}");
    }
}

#[test]
fn a_finished_game_is_refused() {
    let mut game = Game::new("*.\n..\n".parse::<bitmines_core::Board>().unwrap());
    game.reveal(0, 0).unwrap();
    assert!(matches!(
        Player::default().step(&mut game),
        Err(bitmines_solve::Error::Finished { .. })
    ));
}

/// `play` keeps one solver across proven moves; a loop of `step`, which solves every move
/// afresh with every tier, is its twin. They must play the same games: the same guesses,
/// at the same odds, and the same end.
#[test]
fn play_matches_a_loop_of_steps() {
    for policy in [
        Policy::Safest,
        Policy::Tiebreak,
        Policy::Lookahead,
        Policy::Unavoidable,
        Policy::Full,
    ] {
        for (i, &(rows, cols, mines)) in [
            (9, 9, 10),
            (16, 16, 40),
            (16, 30, 99),
            (3, 63, 30),
            (1, 40, 6),
        ]
        .iter()
        .enumerate()
        {
            for seed in 0..12 {
                let new = || {
                    let mut game = Game::deferred(
                        rows,
                        cols,
                        mines,
                        FirstClick::Opening,
                        SeededPlacer::new(seed * 7 + i as u64),
                    )
                    .unwrap();
                    game.reveal(rows / 2, cols / 2).unwrap();
                    game
                };
                let player = Player::new(policy);
                let mut fast = new();
                let outcome = player.play(&mut fast).unwrap();
                let mut slow = new();
                let mut guesses = Vec::new();
                while slow.status() == Status::Playing {
                    if let Move::Guess(guess) = player.step(&mut slow).unwrap() {
                        guesses.push(guess);
                    }
                }
                assert_eq!(
                    outcome.guesses, guesses,
                    "{policy:?} {rows}x{cols} seed {seed}"
                );
                assert_eq!(fast.status(), slow.status());
                assert_eq!(fast.view().revealed_words(), slow.view().revealed_words());
            }
        }
    }
}

/// A small game played to a dozen hidden cells (its shape and density picked by `seed`),
/// with its flags taken off, and its layouts; `None` if it is over or too large to list.
fn small_end_game(rng: &mut Rng, seed: u64) -> Option<(Game, Brute)> {
    let (rows, cols) = [(4, 4), (3, 5), (5, 5), (2, 8), (1, 12), (4, 6)][seed as usize % 6];
    let mines = rows * cols * (15 + (seed as usize % 4) * 6) / 100;
    let (_, mut game) = played(rng, rows, cols, mines, 12);
    // No flags: they are notes, and a flagged guess would not be revealed.
    for r in 0..rows {
        for c in 0..cols {
            if game.cell(r, c).unwrap() == bitmines_core::Cell::Flagged {
                game.toggle_flag(r, c).unwrap();
            }
        }
    }
    if game.status() != Status::Playing {
        return None;
    }
    let brute = brute(&game, None)?;
    Some((game, brute))
}

/// The end-game search against the brute force: it counts every layout the view allows,
/// its chance of winning is at most the chance its cell is safe, and playing the full
/// policy on every one of those layouts (each equally likely) wins exactly that often: the
/// search sees what each reveal shows, cascades included, as play does, and play after the
/// first guess searches again.
#[test]
fn end_game_play_wins_at_least_the_chance_it_computes() {
    let mut rng = Rng(29);
    let mut checked = 0;
    let mut uncertain = 0;
    for seed in 0..200u64 {
        let Some((game, brute)) = small_end_game(&mut rng, seed) else {
            continue;
        };
        let cols = game.cols();
        // Up to 64 layouts, each played to its end: enough to meet every kind of set.
        if brute.total == 0 || brute.total > 64 {
            continue;
        }
        let Some(best) = bitmines_solve::end_game(&game).unwrap() else {
            continue;
        };
        checked += 1;
        assert_eq!(best.layouts() as u64, brute.total, "seed {seed}");
        assert!(
            best.win() <= 1.0 - best.mine() + 1e-12,
            "seed {seed}: {best:?}"
        );
        let (r, c) = best.cell();
        let expected = brute.mines[r * cols + c] as f64 / brute.total as f64;
        assert!(
            (best.mine() - expected).abs() < 1e-12,
            "seed {seed}: {best:?}"
        );
        uncertain += usize::from(best.win() < 1.0);
        let mut wins = 0;
        for layout in &brute.all {
            let mut truth = with_layout(&game, layout);
            if Player::new(Policy::Full).play(&mut truth).unwrap().won {
                wins += 1;
            }
        }
        let won = wins as f64 / brute.total as f64;
        assert!(
            (won - best.win()).abs() <= 1e-9,
            "seed {seed}: won {won} of the layouts, the search promised {}",
            best.win()
        );
    }
    assert!(
        checked > 50 && uncertain > 20,
        "{checked} positions, {uncertain} uncertain"
    );
}

/// The best chance of winning from the layouts in `set` (a bit per layout of `games`, one
/// game per layout, all showing the same view), by exhaustive search: every hidden cell is
/// revealed on each layout's own game, a mine loses, and the layouts go on in groups by the
/// view the reveal leaves (cascades included). Memoised on the set, which alone decides
/// what is known.
fn optimal(games: &[Game], set: u64, memo: &mut HashMap<u64, f64>) -> f64 {
    if set.count_ones() <= 1 {
        return f64::from(set.count_ones());
    }
    if let Some(&known) = memo.get(&set) {
        return known;
    }
    let total = f64::from(set.count_ones());
    let first = &games[set.trailing_zeros() as usize];
    let mut best: f64 = 0.0;
    for r in 0..first.rows() {
        for c in 0..first.cols() {
            if first.cell(r, c).unwrap() != bitmines_core::Cell::Hidden {
                continue;
            }
            let mut groups: HashMap<String, u64> = HashMap::new();
            for l in (0..games.len()).filter(|&l| set >> l & 1 == 1) {
                let mut game = games[l].clone();
                game.reveal(r, c).unwrap();
                if game.status() != Status::Lost {
                    let sight = bitmines_core::Position::of(&game.view())
                        .unwrap()
                        .to_string();
                    *groups.entry(sight).or_default() |= 1 << l;
                }
            }
            // A cell safe everywhere that shows the same everywhere teaches nothing.
            if groups.len() == 1 && groups.values().next() == Some(&set) {
                continue;
            }
            let value: f64 = groups
                .values()
                .map(|&part| f64::from(part.count_ones()) / total * optimal(games, part, memo))
                .sum();
            best = best.max(value);
        }
    }
    memo.insert(set, best);
    best
}

/// The end-game search, pruned and memoised, against the exhaustive search above: the same
/// chance of winning on every position with up to 40 layouts.
#[test]
fn end_game_finds_the_exhaustive_best() {
    let mut rng = Rng(41);
    let mut checked = 0;
    for seed in 0..300u64 {
        let Some((game, brute)) = small_end_game(&mut rng, seed) else {
            continue;
        };
        if brute.total < 2 || brute.total > 40 {
            continue;
        }
        let Some(best) = bitmines_solve::end_game(&game).unwrap() else {
            continue;
        };
        let games: Vec<Game> = brute.all.iter().map(|l| with_layout(&game, l)).collect();
        let all = (1u64 << games.len()) - 1;
        let exhaustive = optimal(&games, all, &mut HashMap::new());
        assert!(
            (best.win() - exhaustive).abs() <= 1e-9,
            "seed {seed}: the search says {} but the best is {exhaustive}",
            best.win()
        );
        checked += 1;
    }
    assert!(checked > 60, "{checked} positions");
}

/// The end game declines, quickly and without allocating for the board, a large position
/// with many hidden cells, and refuses a lost game.
#[test]
fn end_game_declines_large_positions_and_lost_games() {
    let game = Game::seeded(3000, 3000, 1_000_000, 3).unwrap();
    assert_eq!(bitmines_solve::end_game(&game).unwrap(), None);
    let mut lost = Game::new("*.\n..\n".parse::<bitmines_core::Board>().unwrap());
    lost.reveal(0, 0).unwrap();
    assert!(matches!(
        bitmines_solve::end_game(&lost),
        Err(bitmines_solve::Error::Finished { .. })
    ));
}

/// The end game lists only the hidden cells that are not proven mines. On a strip of two
/// rows whose 129 proven mines leave 141 hidden cells (more than the 128 it takes on), with
/// a 2x5 block at the right end holding one mine in column 131 and one in columns 132 to
/// 135, it still finds the block's 16 layouts, and the player, playing each of them
/// through, wins exactly as often as the search says.
#[test]
fn end_game_leaves_proven_mines_out() {
    let cols = 136;
    let game_on = |extra: [(usize, usize); 2]| -> Game {
        let mines = (0..129).map(|c| (0, c)).chain(extra);
        let board = bitmines_core::Board::from_mines(2, cols, mines).unwrap();
        let mut text = format!("bitmines game 2x{cols} playing\n");
        for r in 0..2 {
            for c in 0..cols {
                text.push(match (r == 1 && c <= 130, board.is_mine(r, c).unwrap()) {
                    (true, _) => char::from(b'0' + board.number(r, c).unwrap()),
                    (false, true) => '*',
                    (false, false) => '.',
                });
            }
            text.push('\n');
        }
        text.parse().unwrap()
    };
    let layouts: Vec<[(usize, usize); 2]> = [(0, 131), (1, 131)]
        .into_iter()
        .flat_map(|a| (132..cols).flat_map(move |c| [[a, (0, c)], [a, (1, c)]]))
        .collect();
    let game = game_on(layouts[0]);
    assert_eq!(cols * 2 - game.revealed_count(), 141);
    let best = bitmines_solve::end_game(&game)
        .unwrap()
        .expect("the proven mines are left out");
    assert_eq!(best.layouts(), layouts.len());
    assert!(best.win() > 0.0 && best.win() < 0.5, "{best:?}");
    let mut wins = 0;
    for &layout in &layouts {
        let mut game = game_on(layout);
        if Player::new(Policy::Full).play(&mut game).unwrap().won {
            wins += 1;
        }
    }
    let won = f64::from(wins) / layouts.len() as f64;
    assert!(
        (won - best.win()).abs() <= 1e-9,
        "won {won} of the layouts, the search promised {}",
        best.win()
    );
}

/// The neighbours of cell `i` (`row * cols + col`) on a `rows` x `cols` board.
fn neighbours(i: usize, rows: usize, cols: usize) -> Vec<usize> {
    let (r, c) = (i / cols, i % cols);
    let mut out = Vec::new();
    for nr in r.saturating_sub(1)..=(r + 1).min(rows - 1) {
        for nc in c.saturating_sub(1)..=(c + 1).min(cols - 1) {
            if (nr, nc) != (r, c) {
                out.push(nr * cols + nc);
            }
        }
    }
    out
}

/// The first unavoidable 50/50 by the definition, over every listed layout: two undecided
/// cells with exactly one mine between them in every layout, whose other neighbours differ
/// only by cells that are mines in every layout.
fn brute_fifty_fifty(b: &Brute, rows: usize, cols: usize) -> Option<[(usize, usize); 2]> {
    let undecided = |i: usize| !b.revealed[i] && b.mines[i] > 0 && b.mines[i] < b.total;
    let mine = |i: usize| !b.revealed[i] && b.mines[i] == b.total;
    for a in (0..rows * cols).filter(|&a| undecided(a)) {
        for x in (a + 1..rows * cols).filter(|&x| undecided(x)) {
            let one = b.all.iter().all(|layout| layout[a] != layout[x]);
            let (na, nx) = (neighbours(a, rows, cols), neighbours(x, rows, cols));
            let apart = na
                .iter()
                .filter(|&&n| n != x && !nx.contains(&n))
                .chain(nx.iter().filter(|&&n| n != a && !na.contains(&n)))
                .all(|&n| mine(n));
            if one && apart {
                return Some([(a / cols, a % cols), (x / cols, x % cols)]);
            }
        }
    }
    None
}

/// Whether undecided cell `i` shows the same number in every layout where it is safe.
fn brute_dead(b: &Brute, i: usize, rows: usize, cols: usize) -> bool {
    let around = neighbours(i, rows, cols);
    let mut shown = b
        .all
        .iter()
        .filter(|layout| !layout[i])
        .map(|layout| around.iter().filter(|&&n| layout[n]).count());
    let first = shown.next();
    shown.all(|n| Some(n) == first)
}

/// `fifty_fifty` against the definition over every layout, on played and arbitrary
/// positions; and the [`Policy::Unavoidable`] player guesses the pair's first cell at
/// once, and guesses a dead cell only when every undecided cell is dead (on positions
/// with few enough undecided cells that it looks at all of them).
#[test]
fn fifty_fifties_and_dead_cells_match_the_brute_force() {
    let mut rng = Rng(41);
    let (mut pairs, mut checked, mut dead_passed_over) = (0, 0, 0);
    for seed in 0..3000u64 {
        let (rows, cols) = [(3, 3), (4, 4), (3, 5), (2, 6), (1, 9), (5, 4)][seed as usize % 6];
        let mines = rows * cols * (20 + (seed as usize % 3) * 8) / 100;
        // Arbitrary positions (numbers in shapes play rarely makes) check the pair only;
        // played games check the player's guess too.
        let (position, mut game) = if seed % 2 == 0 {
            let mut game = played(&mut rng, rows, cols, mines, 4 + (seed as usize / 2) % 5).1;
            for r in 0..rows {
                for c in 0..cols {
                    if game.cell(r, c).unwrap() == bitmines_core::Cell::Flagged {
                        game.toggle_flag(r, c).unwrap();
                    }
                }
            }
            (
                bitmines_core::Position::of(&game.view()).unwrap(),
                Some(game),
            )
        } else {
            (arbitrary(&mut rng, rows, cols, mines, false), None)
        };
        if game.as_ref().is_some_and(|g| g.status() != Status::Playing) {
            continue;
        }
        let Some(b) = brute(&position, None) else {
            continue;
        };
        if b.total == 0 || b.total as usize > twin::LISTED {
            continue;
        }
        checked += 1;
        let expected = brute_fifty_fifty(&b, rows, cols);
        assert_eq!(
            bitmines_solve::fifty_fifty(&position).unwrap(),
            expected,
            "seed {seed}:\n{position}"
        );
        pairs += usize::from(expected.is_some());
        let Some(game) = game.as_mut() else {
            continue;
        };
        // The player's guess, where nothing is proven safe.
        let hidden = |i: usize| !b.revealed[i];
        if (0..rows * cols).any(|i| hidden(i) && b.mines[i] == 0) {
            continue;
        }
        let undecided: Vec<usize> = (0..rows * cols)
            .filter(|&i| hidden(i) && b.mines[i] < b.total)
            .collect();
        let Move::Guess(guess) = Player::new(Policy::Unavoidable).step(game).unwrap() else {
            panic!("seed {seed}: nothing is proven safe, so the move is a guess");
        };
        if let Some([first, _]) = expected {
            assert_eq!(guess.cell, first, "seed {seed}");
            continue;
        }
        let dead: Vec<bool> = undecided
            .iter()
            .map(|&i| brute_dead(&b, i, rows, cols))
            .collect();
        if undecided.len() <= 2 * bitmines_solve::LOOKAHEAD && dead.contains(&false) {
            let i = guess.cell.0 * cols + guess.cell.1;
            assert!(
                !brute_dead(&b, i, rows, cols),
                "seed {seed}: guessed dead cell {:?} beside a live one",
                guess.cell
            );
            dead_passed_over += usize::from(dead.contains(&true));
        }
    }
    assert!(
        checked > 1000 && pairs > 20 && dead_passed_over > 20,
        "{checked} positions, {pairs} with a 50/50, {dead_passed_over} with dead cells passed over"
    );
}

/// Two cells far apart, each walled in by proven mines, with one mine left between them:
/// nothing can ever tell them apart (pairs that are not forced come from the brute force
/// in `fifty_fifties_and_dead_cells_match_the_brute_force`).
#[test]
fn walled_in_cells_far_apart_are_a_fifty_fifty() {
    let walled: bitmines_core::Position = "bitmines view 1x7 mines 4\n##2#2##\n".parse().unwrap();
    assert_eq!(
        bitmines_solve::fifty_fifty(&walled).unwrap(),
        Some([(0, 0), (0, 6)])
    );
}

/// [`bitmines_solve::fifty_fifty_influence`] by its definition, over every listed layout:
/// for each pattern holding the cell (two pairs along the row, two down the column, four
/// 2x2 blocks), the share of layouts with its mines, its safe cells and every outer cell on
/// the board a mine; the largest along, plus the largest down, plus the largest block.
fn brute_influence(b: &Brute, rows: usize, cols: usize, cell: (usize, usize)) -> f64 {
    type At = (isize, isize);
    let on = |(r, c): At| r >= 0 && c >= 0 && (r as usize) < rows && (c as usize) < cols;
    let index = |(r, c): At| r as usize * cols + c as usize;
    let proven_mine = |i: usize| b.mines[i] == b.total;
    let left = b.all[0].iter().filter(|&&m| m).count()
        - (0..rows * cols).filter(|&i| proven_mine(i)).count();
    let share = |mines: &[At], safe: &[At], outer: &[At]| {
        let open = |x: At| on(x) && !b.revealed[index(x)] && !proven_mine(index(x));
        if !mines.iter().chain(safe).all(|&x| open(x)) {
            return 0.0;
        }
        let outer: Vec<usize> = outer
            .iter()
            .filter(|&&x| on(x))
            .map(|&x| index(x))
            .collect();
        if outer.iter().any(|&i| b.revealed[i]) {
            return 0.0;
        }
        let missing = outer.iter().filter(|&&i| !proven_mine(i)).count();
        if missing > 3 || missing + mines.len() > left {
            return 0.0;
        }
        let holds = b
            .all
            .iter()
            .filter(|layout| {
                mines.iter().all(|&x| layout[index(x)])
                    && safe.iter().all(|&x| !layout[index(x)])
                    && outer.iter().all(|&i| layout[i])
            })
            .count();
        holds as f64 / b.total as f64
    };
    let (r, c) = (cell.0 as isize, cell.1 as isize);
    let mut along: f64 = 0.0;
    for (ar, ac) in [(r, c), (r, c - 1)] {
        let outer = [
            (ar - 1, ac - 1),
            (ar, ac - 1),
            (ar + 1, ac - 1),
            (ar - 1, ac + 2),
            (ar, ac + 2),
            (ar + 1, ac + 2),
        ];
        along = along.max(share(&[(ar, ac)], &[(ar, ac + 1)], &outer));
    }
    let mut down: f64 = 0.0;
    for (ar, ac) in [(r, c), (r - 1, c)] {
        let outer = [
            (ar - 1, ac - 1),
            (ar - 1, ac),
            (ar - 1, ac + 1),
            (ar + 2, ac - 1),
            (ar + 2, ac),
            (ar + 2, ac + 1),
        ];
        down = down.max(share(&[(ar, ac)], &[(ar + 1, ac)], &outer));
    }
    let mut block: f64 = 0.0;
    for (ar, ac) in [(r, c), (r, c - 1), (r - 1, c), (r - 1, c - 1)] {
        let outer = [
            (ar - 1, ac - 1),
            (ar - 1, ac + 2),
            (ar + 2, ac - 1),
            (ar + 2, ac + 2),
        ];
        let mines = [(ar, ac), (ar + 1, ac + 1)];
        block = block.max(share(&mines, &[(ar, ac + 1), (ar + 1, ac)], &outer));
    }
    along + down + block
}

/// The 50/50 share the full policy weighs, against its brute-force twin on every cell of
/// small positions from play and arbitrary ones: the same share of layouts (the exact
/// tier's counts with the pattern's cells supposed, patterns off the frontier counted once
/// by their shape, against a count of listed layouts), and 0 on cells the view decides.
/// Enough cells must lie in a pattern, on and off the frontier, for the check to mean
/// something.
#[test]
fn fifty_fifty_influence_matches_the_brute_force() {
    let mut rng = Rng(47);
    let (mut checked, mut patterned, mut off_frontier) = (0, 0, 0);
    for seed in 0..400u64 {
        let (rows, cols) =
            [(4, 4), (3, 5), (5, 5), (2, 8), (1, 12), (4, 6), (6, 3)][seed as usize % 7];
        let mines = rows * cols * (15 + (seed as usize % 4) * 8) / 100;
        let position = if seed % 3 == 0 {
            arbitrary(&mut rng, rows, cols, mines, false)
        } else {
            let (_, game) = played(&mut rng, rows, cols, mines, 12);
            if game.status() != Status::Playing {
                continue;
            }
            bitmines_core::Position::of(&game.view()).unwrap()
        };
        let Some(b) = brute(&position, None) else {
            continue;
        };
        if b.total == 0 || b.all.len() as u64 != b.total {
            continue;
        }
        let revealed_near = |r: usize, c: usize| {
            (r.saturating_sub(2)..(r + 3).min(rows)).any(|nr| {
                (c.saturating_sub(2)..(c + 3).min(cols)).any(|nc| b.revealed[nr * cols + nc])
            })
        };
        for r in 0..rows {
            for c in 0..cols {
                let Some(fast) = bitmines_solve::fifty_fifty_influence(&position, r, c).unwrap()
                else {
                    continue;
                };
                let i = r * cols + c;
                let slow = if b.revealed[i] || b.mines[i] == 0 || b.mines[i] == b.total {
                    0.0
                } else {
                    brute_influence(&b, rows, cols, (r, c))
                };
                assert!(
                    (fast - slow).abs() <= 1e-9,
                    "seed {seed} cell ({r}, {c}): {fast} against {slow}\n{position}"
                );
                checked += 1;
                patterned += usize::from(slow > 0.0);
                off_frontier += usize::from(slow > 0.0 && !revealed_near(r, c));
            }
        }
    }
    assert!(
        checked > 3000 && patterned > 300 && off_frontier > 100,
        "{checked} cells, {patterned} in a pattern, {off_frontier} of them far from any number"
    );
}
