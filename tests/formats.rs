//! Boards and games in and out of their three outside forms: LeetCode 529's character
//! boards, the text game format, and MBF.
//!
//! - LeetCode: the engine's `update_board` is checked against a plain depth-first solution of
//!   the problem written here from its statement, on the official examples and on random
//!   boards in random partly revealed states.
//! - Text games: random games (won, lost, lost with several mines at once, flagged right and
//!   wrong) must read back exactly as they were written.
//! - MBF: random boards up to the format's 255x255 limit round-trip, a small board has the
//!   exact bytes the format prescribes, and random bytes never panic.
//!
//! Every error path is a row of a table: the input, and the error it must give.

use bitmines_core::leetcode::{from_chars, to_chars, try_update_board, update_board};
use bitmines_core::{Board, Cell, Error, Game, Rule, SeededPlacer, Status};
use proptest::prelude::*;

#[allow(dead_code)]
mod support;
use support::{Rng, around, naive_update_board};

/// Every `(row, col)` of a `rows x cols` grid in row order.
fn cells(rows: usize, cols: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..rows).flat_map(move |r| (0..cols).map(move |c| (r, c)))
}

// ---------------------------------------------------------------------------------------
// LeetCode 529
// ---------------------------------------------------------------------------------------

/// A character board from one string per row.
fn chars(rows: &[&str]) -> Vec<Vec<char>> {
    rows.iter().map(|row| row.chars().collect()).collect()
}

/// The rows of a character board as strings, for readable failure messages.
fn strings(board: &[Vec<char>]) -> Vec<String> {
    board.iter().map(|row| row.iter().collect()).collect()
}

/// Checks the engine against the naive solution for one click, through both entry points.
fn check_click(board: &[Vec<char>], click: [usize; 2]) {
    let mut want = board.to_vec();
    naive_update_board(&mut want, click);

    let mut got = board.to_vec();
    update_board(&mut got, click);
    assert_eq!(
        strings(&got),
        strings(&want),
        "update_board (left) and the naive solution (right) on {:?}, click {click:?}",
        strings(board)
    );

    let mut tried = board.to_vec();
    assert_eq!(
        try_update_board(&mut tried, click),
        Ok(()),
        "try_update_board on {:?}, click {click:?}",
        strings(board)
    );
    assert_eq!(strings(&tried), strings(&want), "try_update_board");
}

#[test]
fn leetcode_official_examples() {
    // The two examples of the problem statement, each with its expected output.
    let examples = [
        (
            chars(&["EEEEE", "EEMEE", "EEEEE", "EEEEE"]),
            [3, 0],
            chars(&["B1E1B", "B1M1B", "B111B", "BBBBB"]),
        ),
        (
            chars(&["B1E1B", "B1M1B", "B111B", "BBBBB"]),
            [1, 2],
            chars(&["B1E1B", "B1X1B", "B111B", "BBBBB"]),
        ),
    ];
    for (board, click, expected) in examples {
        let mut naive = board.clone();
        naive_update_board(&mut naive, click);
        assert_eq!(strings(&naive), strings(&expected), "the naive solution");
        let mut engine = board.clone();
        update_board(&mut engine, click);
        assert_eq!(strings(&engine), strings(&expected), "update_board");
    }
}

/// A random LeetCode board: mines at a random density, then `0..=4` earlier clicks replayed
/// with the naive solution (mostly on `E`, sometimes on `M`, so some boards carry an `X`).
fn random_leetcode_board(rng: &mut Rng, rows: usize, cols: usize) -> Vec<Vec<char>> {
    let percent = rng.below(51);
    let mut board: Vec<Vec<char>> = (0..rows)
        .map(|_| {
            (0..cols)
                .map(|_| {
                    if rng.chance(percent as f64 / 100.0) {
                        'M'
                    } else {
                        'E'
                    }
                })
                .collect()
        })
        .collect();
    for _ in 0..rng.below(5) {
        let wanted = if rng.chance(0.85) { 'E' } else { 'M' };
        let targets: Vec<(usize, usize)> = cells(rows, cols)
            .filter(|&(r, c)| board[r][c] == wanted)
            .collect();
        if !targets.is_empty() {
            let (r, c) = rng.pick(&targets);
            naive_update_board(&mut board, [r, c]);
        }
    }
    board
}

#[test]
fn leetcode_random_boards_agree_with_the_naive_solution() {
    let mut rng = Rng::new(529);
    let mut clicked = [0usize; 2];
    for case in 0..3000 {
        // Mostly LeetCode's own sizes (up to 50x50 there), some wider to cross a word edge.
        let (rows, cols) = if case % 10 == 0 {
            (1 + rng.below(6), 60 + rng.below(72))
        } else {
            (1 + rng.below(10), 1 + rng.below(10))
        };
        let board = random_leetcode_board(&mut rng, rows, cols);
        let targets: Vec<(usize, usize)> = cells(rows, cols)
            .filter(|&(r, c)| matches!(board[r][c], 'M' | 'E'))
            .collect();
        if targets.is_empty() {
            continue;
        }
        let (r, c) = rng.pick(&targets);
        clicked[usize::from(board[r][c] == 'E')] += 1;
        check_click(&board, [r, c]);
    }
    // Both kinds of click must have been exercised many times for the agreement to mean much.
    assert!(
        clicked.iter().all(|&n| n > 300),
        "clicks on M and E: {clicked:?}"
    );
}

#[test]
fn leetcode_click_on_a_revealed_cell_changes_nothing() {
    // Clicks on `B`, on a digit and on an `X`, each on a board that still has `E` cells.
    let board = chars(&["B1E1B", "B1X1B", "B111B", "BBBBB"]);
    for click in [[0, 0], [0, 1], [1, 2], [2, 2], [3, 4]] {
        let mut got = board.clone();
        update_board(&mut got, click);
        assert_eq!(strings(&got), strings(&board), "click {click:?}");
        check_click(&board, click);
    }
}

#[test]
fn leetcode_mine_clicked_when_no_e_is_left() {
    // With every safe cell revealed the game counts as won, yet LeetCode still turns the
    // clicked mine into an `X`.
    let cases = [
        (
            chars(&["111", "1M1", "111"]),
            [1, 1],
            chars(&["111", "1X1", "111"]),
        ),
        (chars(&["2M", "2M"]), [1, 1], chars(&["2M", "2X"])),
        // A board of mines only has no safe cell, so it too has no `E`.
        (chars(&["MM"]), [0, 0], chars(&["XM"])),
        (chars(&["X2X"]), [0, 2], chars(&["X2X"])),
        (chars(&["M2M"]), [0, 2], chars(&["M2X"])),
    ];
    for (board, click, expected) in cases {
        let mut got = board.clone();
        update_board(&mut got, click);
        assert_eq!(strings(&got), strings(&expected), "{:?}", strings(&board));
        check_click(&board, click);
    }
}

/// A check on an error: whether it is the expected one.
type Expect = fn(&Error) -> bool;

/// A LeetCode error case: its name, the board, the click, and the error it must give.
type LeetCodeCase = (&'static str, Vec<Vec<char>>, [usize; 2], Expect);

#[test]
fn leetcode_errors_leave_the_board_unchanged() {
    let cases: Vec<LeetCodeCase> = vec![
        ("no rows", vec![], [0, 0], |e| {
            matches!(e, Error::EmptyBoard { .. })
        }),
        ("one empty row", vec![vec![]], [0, 0], |e| {
            matches!(e, Error::EmptyBoard { .. })
        }),
        ("ragged rows", chars(&["EE", "E"]), [0, 0], |e| {
            *e == Error::Ragged {
                line: 2,
                expected: 2,
                found: 1,
            }
        }),
        ("a longer second row", chars(&["E", "EE"]), [0, 0], |e| {
            matches!(e, Error::Ragged { line: 2, .. })
        }),
        ("unknown character", chars(&["EQ"]), [0, 0], |e| {
            matches!(
                e,
                Error::BadChar {
                    line: 1,
                    col: 2,
                    found: 'Q',
                    ..
                }
            )
        }),
        ("a zero digit", chars(&["E0"]), [0, 0], |e| {
            matches!(e, Error::BadChar { found: '0', .. })
        }),
        ("a nine", chars(&["E9"]), [0, 0], |e| {
            matches!(e, Error::BadChar { found: '9', .. })
        }),
        ("a lower-case e", chars(&["Ee"]), [0, 0], |e| {
            matches!(e, Error::BadChar { found: 'e', .. })
        }),
        (
            "a digit with no mine around it",
            chars(&["E1", "EE"]),
            [1, 0],
            |e| matches!(e, Error::Inconsistent { row: 0, col: 1, .. }),
        ),
        ("a digit one short", chars(&["M1M"]), [0, 0], |e| {
            matches!(e, Error::Inconsistent { row: 0, col: 1, .. })
        }),
        ("a B next to a mine", chars(&["MB"]), [0, 0], |e| {
            matches!(e, Error::Inconsistent { row: 0, col: 1, .. })
        }),
        ("click below the board", chars(&["EE", "EM"]), [2, 0], |e| {
            *e == Error::OffBoard {
                row: 2,
                col: 0,
                rows: 2,
                cols: 2,
            }
        }),
        (
            "click right of the board",
            chars(&["EE", "EM"]),
            [0, 7],
            |e| {
                *e == Error::OffBoard {
                    row: 0,
                    col: 7,
                    rows: 2,
                    cols: 2,
                }
            },
        ),
        ("click off a won board", chars(&["1M"]), [0, 2], |e| {
            matches!(e, Error::OffBoard { row: 0, col: 2, .. })
        }),
    ];
    for (name, board, click, expected) in cases {
        let mut tried = board.clone();
        let result = try_update_board(&mut tried, click);
        match result {
            Err(error) => assert!(expected(&error), "{name}: unexpected {error:?}"),
            Ok(()) => panic!("{name}: accepted, giving {:?}", strings(&tried)),
        }
        assert_eq!(tried, board, "{name}: the board changed");
    }
}

#[test]
fn leetcode_from_chars_to_chars_round_trip() {
    let mut rng = Rng::new(1529);
    // Boards seen playing, won and lost.
    let mut statuses = [0usize; 3];
    for case in 0..1500 {
        let (rows, cols) = if case % 10 == 0 {
            (1 + rng.below(4), 60 + rng.below(72))
        } else {
            (1 + rng.below(9), 1 + rng.below(9))
        };
        let board = random_leetcode_board(&mut rng, rows, cols);
        let count = |set: &[char]| board.iter().flatten().filter(|c| set.contains(c)).count();
        // As a game, an `X` with no `E` left is a state no play reaches (a reveal needs a
        // hidden safe cell, and a chord that explodes leaves a wrong flag on one), and so are
        // two `X`: only a chord explodes several mines, and it needs flags, which the format
        // does not have. Importing them must say so.
        if count(&['X']) > 1 || (count(&['X']) > 0 && count(&['E']) == 0) {
            let refused = from_chars(&board);
            assert!(
                matches!(refused, Err(Error::Inconsistent { .. })),
                "{:?}: {refused:?}",
                strings(&board)
            );
            continue;
        }
        let game = from_chars(&board).unwrap_or_else(|e| panic!("{:?}: {e}", strings(&board)));
        game.validate().expect("an imported game is valid");
        // The status follows from the characters: an `X` loses, no `E` left wins.
        let status = if count(&['X']) > 0 {
            Status::Lost
        } else if count(&['E']) == 0 {
            Status::Won
        } else {
            Status::Playing
        };
        assert_eq!(game.status(), status, "{:?}", strings(&board));
        statuses[match status {
            Status::Playing => 0,
            Status::Won => 1,
            Status::Lost => 2,
        }] += 1;
        let revealed = count(&['B', '1', '2', '3', '4', '5', '6', '7', '8']);
        assert_eq!(game.revealed_count(), revealed, "{:?}", strings(&board));
        assert_eq!(game.mine_count(), count(&['M', 'X']));
        let back = to_chars(&game).expect("an imported game exports");
        assert_eq!(strings(&back), strings(&board));
    }
    assert!(
        statuses.iter().all(|&n| n > 50),
        "statuses seen: {statuses:?}"
    );
}

#[test]
fn leetcode_x_imports_as_a_lost_game() {
    let game = from_chars(&chars(&["X1E", "11E"])).expect("a valid board");
    assert_eq!(game.status(), Status::Lost);
    assert_eq!(game.cell(0, 0), Ok(Cell::Exploded));
    assert_eq!(game.exploded().collect::<Vec<_>>(), [(0, 0)]);
    assert_eq!(game.cell(0, 1), Ok(Cell::Open(1)));
    assert_eq!(game.cell(0, 2), Ok(Cell::Hidden));
}

#[test]
fn leetcode_to_chars_drops_flags() {
    // A flagged mine exports as `M` and a flagged safe cell as `E`: the format has no flags.
    let mut game = Game::new("*..\n...\n".parse::<Board>().expect("a valid board"));
    assert_eq!(game.toggle_flag(0, 0), Ok(true));
    assert_eq!(game.toggle_flag(0, 2), Ok(true));
    assert_eq!(to_chars(&game), Ok(chars(&["MEE", "EEE"])));
    // The cascade from (1, 2) opens its numbered neighbours but passes over the flag, so the
    // flagged safe cell, a zero cell itself, still exports as `E`.
    game.reveal(1, 2).expect("a safe cell");
    assert_eq!(to_chars(&game), Ok(chars(&["M1E", "E1B"])));
}

#[test]
fn leetcode_deferred_game_has_no_board() {
    let game = Game::seeded(9, 9, 10, 1).expect("a valid deferred game");
    assert_eq!(to_chars(&game), Err(Error::Deferred));
}

// ---------------------------------------------------------------------------------------
// Text games
// ---------------------------------------------------------------------------------------

/// Checks that `game` writes to text and reads back as the same game: the same text, the
/// same cell everywhere, the same counters and status, and a valid state.
fn check_text_round_trip(game: &Game) {
    let text = game.to_string();
    let back: Game = text
        .parse()
        .unwrap_or_else(|e| panic!("{e:?} reading back\n{text}"));
    assert_eq!(back.to_string(), text);
    assert_eq!(back.status(), game.status(), "{text}");
    assert_eq!(back.rule(), game.rule(), "{text}");
    assert_eq!(back.revealed_count(), game.revealed_count(), "{text}");
    assert_eq!(back.flag_count(), game.flag_count(), "{text}");
    assert_eq!(back.mine_count(), game.mine_count(), "{text}");
    assert_eq!((back.rows(), back.cols()), (game.rows(), game.cols()));
    assert_eq!(back.board(), game.board(), "{text}");
    for (r, c) in cells(game.rows(), game.cols()) {
        assert_eq!(
            back.cell(r, c),
            game.cell(r, c),
            "cell ({r}, {c}) of\n{text}"
        );
    }
    // The text has no order of explosions, only where they are.
    let mut exploded: Vec<_> = game.exploded().collect();
    let mut back_exploded: Vec<_> = back.exploded().collect();
    exploded.sort_unstable();
    back_exploded.sort_unstable();
    assert_eq!(back_exploded, exploded, "{text}");
    back.validate()
        .unwrap_or_else(|e| panic!("{e:?}: read back\n{text}"));
}

/// One random move on a game whose board is placed, through the public API only. Results
/// are ignored on purpose: a move may be refused (the game is over) or change nothing, and
/// only the state it leaves is checked.
fn random_move(rng: &mut Rng, game: &mut Game) {
    let (rows, cols) = (game.rows(), game.cols());
    let board = game.board().expect("the board is placed").clone();
    let all: Vec<(usize, usize)> = cells(rows, cols).collect();
    let (r, c) = rng.pick(&all);
    let choice = rng.below(100);
    if choice < 25 {
        let _ = game.reveal(r, c);
    } else if choice < 50 {
        // A hidden safe cell, so that games also get won.
        let safe: Vec<_> = all
            .iter()
            .copied()
            .filter(|&(r, c)| {
                !board.is_mine(r, c).unwrap_or(true) && game.cell(r, c) == Ok(Cell::Hidden)
            })
            .collect();
        if !safe.is_empty() {
            let (r, c) = rng.pick(&safe);
            let _ = game.reveal(r, c);
        }
    } else if choice < 65 {
        let _ = game.toggle_flag(r, c);
    } else if choice < 75 {
        let _ = game.chord(r, c);
    } else {
        // Flags as many hidden neighbours as the cell's number, right or (often) wrong, then
        // chords: a wrong guess explodes every unflagged mine around the cell at once.
        let open: Vec<_> = all
            .iter()
            .copied()
            .filter(|&(r, c)| matches!(game.cell(r, c), Ok(Cell::Open(n)) if n > 0))
            .collect();
        if open.is_empty() {
            return;
        }
        let (r, c) = rng.pick(&open);
        let number = board.number(r, c).expect("on the board");
        for (nr, nc) in around(rows, cols, r, c) {
            if game.cell(nr, nc) == Ok(Cell::Flagged) {
                let _ = game.toggle_flag(nr, nc);
            }
        }
        let mut hidden: Vec<_> = around(rows, cols, r, c)
            .into_iter()
            .filter(|&(nr, nc)| game.cell(nr, nc) == Ok(Cell::Hidden))
            .collect();
        let flag_right = rng.chance(0.30);
        if flag_right {
            hidden.retain(|&(nr, nc)| board.is_mine(nr, nc).unwrap_or(false));
        } else if !hidden.is_empty() {
            let len = hidden.len();
            hidden.rotate_left(rng.below(len));
        }
        for &(nr, nc) in hidden.iter().take(usize::from(number)) {
            let _ = game.toggle_flag(nr, nc);
        }
        let _ = game.chord(r, c);
    }
}

#[test]
fn text_games_round_trip_through_play() {
    let mut rng = Rng::new(7);
    let mut won = 0;
    let mut lost = 0;
    let mut lost_many = 0;
    let mut wrong_flags = 0;
    for case in 0..600 {
        let (rows, cols) = if case % 8 == 0 {
            (1 + rng.below(5), rng.pick(&[62, 63, 64, 65, 127, 128, 129]))
        } else {
            (1 + rng.below(9), 1 + rng.below(12))
        };
        let mines = rng.below(rows * cols * 3 / 10 + 2).min(rows * cols);
        let mut game = if case % 5 == 0 && mines + 9 <= rows * cols {
            // A deferred game places its mines on the first reveal, then plays on like any
            // other.
            let mut game =
                Game::seeded(rows, cols, mines, case as u64).expect("a valid deferred game");
            game.reveal(rng.below(rows), rng.below(cols))
                .expect("a first reveal");
            game
        } else {
            Game::new(
                SeededPlacer::new(case as u64)
                    .board(rows, cols, mines)
                    .expect("a valid board"),
            )
        };
        check_text_round_trip(&game);
        for _ in 0..40 {
            if game.status() != Status::Playing {
                break;
            }
            random_move(&mut rng, &mut game);
            check_text_round_trip(&game);
        }
        match game.status() {
            Status::Won => won += 1,
            Status::Lost => lost += 1,
            Status::Playing => {}
        }
        lost_many += usize::from(game.exploded().count() > 1);
        wrong_flags +=
            usize::from(cells(rows, cols).any(|(r, c)| game.cell(r, c) == Ok(Cell::WrongFlag)));
    }
    // The round trips above only mean something if the games reached every kind of end.
    assert!(won > 50, "won games: {won}");
    assert!(lost > 50, "lost games: {lost}");
    assert!(lost_many > 10, "games lost on several mines: {lost_many}");
    assert!(
        wrong_flags > 10,
        "lost games with a wrong flag: {wrong_flags}"
    );
}

#[test]
fn endless_text_games_round_trip_through_play() {
    let mut rng = Rng::new(17);
    let (mut won, mut many) = (0, 0);
    for case in 0..300 {
        let (rows, cols) = if case % 8 == 0 {
            (1 + rng.below(5), rng.pick(&[62, 63, 64, 65, 127, 128, 129]))
        } else {
            (1 + rng.below(9), 1 + rng.below(12))
        };
        let mines = rng.below(rows * cols * 3 / 10 + 2).min(rows * cols);
        let board = SeededPlacer::new(case as u64)
            .board(rows, cols, mines)
            .expect("a valid board");
        let mut game = Game::new(board).with_rule(Rule::Endless);
        check_text_round_trip(&game);
        for _ in 0..40 {
            if game.status() != Status::Playing {
                break;
            }
            random_move(&mut rng, &mut game);
            check_text_round_trip(&game);
        }
        won += usize::from(game.status() == Status::Won);
        many += usize::from(game.exploded_count() > 1);
    }
    assert!(won > 30, "won games: {won}");
    assert!(many > 50, "games with several mines exploded: {many}");
}

#[test]
fn endless_text_games_read_by_their_own_rules() {
    // States the classic rule refuses, and their endless headers.
    for text in [
        "bitmines game 1x5 playing endless\nX1.1X\n",
        "bitmines game 1x2 won endless\nX1\n",
        "bitmines game 1x1 won endless\n*\n",
        "bitmines game 2x3 playing endless\nX*X\n...\n",
    ] {
        let game: Game = text.parse().unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(game.rule(), Rule::Endless, "{text}");
        assert_eq!(game.to_string(), text);
        game.validate().unwrap_or_else(|e| panic!("{e}: {text}"));
    }
    let cases: Vec<(&str, &str, Expect)> = vec![
        (
            "an endless game is never lost",
            "bitmines game 1x3 lost endless\nX1.\n",
            |e| {
                *e == Error::StatusMismatch {
                    declared: Status::Lost,
                    actual: Status::Playing,
                }
            },
        ),
        (
            "won with every safe cell open, declared playing",
            "bitmines game 1x2 playing endless\nX1\n",
            |e| {
                *e == Error::StatusMismatch {
                    declared: Status::Playing,
                    actual: Status::Won,
                }
            },
        ),
        (
            "nothing explodes on a board with no safe cell",
            "bitmines game 1x2 won endless\n*X\n",
            |e| matches!(e, Error::Inconsistent { row: 0, col: 1, .. }),
        ),
        (
            "the rule twice",
            "bitmines game 1x1 playing endless endless\n.\n",
            bad_header,
        ),
        (
            "the rule with no status",
            "bitmines game 1x1 endless\n.\n",
            bad_header,
        ),
        (
            "the rule before the status",
            "bitmines game 1x1 endless playing\n.\n",
            bad_header,
        ),
        (
            "another rule",
            "bitmines game 1x1 playing classic\n.\n",
            bad_header,
        ),
    ];
    for (name, text, expected) in cases {
        match text.parse::<Game>() {
            Err(error) => assert!(expected(&error), "{name}: unexpected {error:?}"),
            Ok(game) => panic!("{name}: accepted as\n{game}"),
        }
    }
}

#[test]
fn text_game_lost_on_the_last_safe_cells_stays_lost() {
    // A wrong flag on the 1's safe neighbour makes the chord open the last safe cell and hit
    // the mine at once: every safe cell is revealed, yet the game is lost, and it must read
    // back lost.
    let mut game = Game::new("*..\n".parse::<Board>().expect("a valid board"));
    game.reveal(0, 1).expect("a safe cell");
    assert_eq!(game.toggle_flag(0, 2), Ok(true));
    let step = game.chord(0, 1).expect("a chord");
    assert_eq!(step.status, Status::Lost);
    assert_eq!(game.to_string(), "bitmines game 1x3 lost\nX1f\n");
    check_text_round_trip(&game);
}

#[test]
fn text_game_exact_text() {
    // Each character of the format once: hidden safe, hidden mine, flags right and wrong,
    // numbers, and (after a loss) an exploded mine.
    let mut game = Game::new("*..*\n....\n".parse::<Board>().expect("a valid board"));
    assert_eq!(game.to_string(), "bitmines game 2x4 playing\n*..*\n....\n");
    game.toggle_flag(0, 0).expect("a hidden cell");
    game.toggle_flag(1, 0).expect("a hidden cell");
    game.reveal(0, 1).expect("a safe cell");
    assert_eq!(game.to_string(), "bitmines game 2x4 playing\nF1.*\nf...\n");
    game.reveal(0, 3).expect("a mine");
    assert_eq!(game.to_string(), "bitmines game 2x4 lost\nF1.X\nf...\n");
    check_text_round_trip(&game);
}

#[test]
fn text_x_makes_the_game_lost() {
    // A revealed mine has no character; the only mine a player can see is an exploded one,
    // and it makes the game lost.
    let game: Game = "bitmines game 2x2 lost\nX1\n1.\n"
        .parse()
        .expect("a lost game");
    assert_eq!(game.status(), Status::Lost);
    assert_eq!(game.cell(0, 0), Ok(Cell::Exploded));
    assert_eq!(game.cell(1, 1), Ok(Cell::Hidden));
    assert_eq!(game.revealed_count(), 2);
    game.validate().expect("a valid game");
}

#[test]
fn text_deferred_game_does_not_read_back() {
    let game = Game::seeded(4, 5, 3, 1).expect("a valid deferred game");
    let text = game.to_string();
    assert_eq!(text, "bitmines game 4x5 deferred\n");
    assert!(text.trim_end().ends_with("deferred"));
    assert!(text.parse::<Game>().is_err(), "a deferred game read back");
}

/// Whether an error is a `BadHeader`, whatever the header.
fn bad_header(error: &Error) -> bool {
    matches!(error, Error::BadHeader { .. })
}

#[test]
fn text_game_errors() {
    let cases: Vec<(&str, &str, Expect)> = vec![
        ("empty text", "", bad_header),
        ("no header", "..\n..\n", bad_header),
        ("wrong magic", "bitmine game 1x1 playing\n.\n", bad_header),
        ("wrong kind", "bitmines board 1x1 playing\n.\n", bad_header),
        ("no size", "bitmines game playing\n.\n", bad_header),
        (
            "size without x",
            "bitmines game 1by1 playing\n.\n",
            bad_header,
        ),
        (
            "size without rows",
            "bitmines game x1 playing\n.\n",
            bad_header,
        ),
        (
            "negative size",
            "bitmines game 1x-1 playing\n.\n",
            bad_header,
        ),
        (
            "unknown status",
            "bitmines game 1x1 paused\n.\n",
            bad_header,
        ),
        (
            "deferred status",
            "bitmines game 1x1 deferred\n",
            bad_header,
        ),
        ("no status", "bitmines game 1x1\n.\n", bad_header),
        (
            "extra field",
            "bitmines game 1x1 playing now\n.\n",
            bad_header,
        ),
        ("zero rows", "bitmines game 0x3 playing\n", |e| {
            matches!(e, Error::EmptyBoard { .. })
        }),
        ("zero columns", "bitmines game 2x0 playing\n\n\n", |e| {
            matches!(e, Error::EmptyBoard { .. })
        }),
        ("a row missing", "bitmines game 2x2 playing\n..\n", |e| {
            *e == Error::RowCountMismatch {
                declared: 2,
                found: 1,
            }
        }),
        (
            "a row too many",
            "bitmines game 2x2 playing\n..\n..\n..\n",
            |e| {
                *e == Error::RowCountMismatch {
                    declared: 2,
                    found: 3,
                }
            },
        ),
        ("a short row", "bitmines game 2x2 playing\n..\n.\n", |e| {
            *e == Error::Ragged {
                line: 3,
                expected: 2,
                found: 1,
            }
        }),
        ("a long row", "bitmines game 2x2 playing\n...\n..\n", |e| {
            matches!(e, Error::Ragged { line: 2, .. })
        }),
        (
            "a LeetCode character",
            "bitmines game 1x2 playing\n.E\n",
            |e| {
                matches!(
                    e,
                    Error::BadChar {
                        line: 2,
                        col: 2,
                        found: 'E',
                        ..
                    }
                )
            },
        ),
        ("a nine", "bitmines game 1x2 playing\n9.\n", |e| {
            matches!(e, Error::BadChar { found: '9', .. })
        }),
        (
            "a zero next to a mine",
            "bitmines game 1x2 playing\n*0\n",
            |e| matches!(e, Error::Inconsistent { row: 0, col: 1, .. }),
        ),
        (
            "a one with no mine around",
            "bitmines game 2x2 playing\n..\n.1\n",
            |e| matches!(e, Error::Inconsistent { row: 1, col: 1, .. }),
        ),
        (
            "won with a safe cell hidden",
            "bitmines game 1x2 won\n*.\n",
            |e| {
                *e == Error::StatusMismatch {
                    declared: Status::Won,
                    actual: Status::Playing,
                }
            },
        ),
        (
            "playing with every safe cell open",
            "bitmines game 1x2 playing\n*1\n",
            |e| {
                *e == Error::StatusMismatch {
                    declared: Status::Playing,
                    actual: Status::Won,
                }
            },
        ),
        (
            "playing with an exploded mine",
            "bitmines game 1x3 playing\nX1.\n",
            |e| {
                *e == Error::StatusMismatch {
                    declared: Status::Playing,
                    actual: Status::Lost,
                }
            },
        ),
        (
            "won with an exploded mine",
            "bitmines game 1x3 won\nX1.\n",
            |e| {
                *e == Error::StatusMismatch {
                    declared: Status::Won,
                    actual: Status::Lost,
                }
            },
        ),
        (
            "an exploded mine with every safe cell revealed",
            "bitmines game 1x2 lost\nX1\n",
            |e| matches!(e, Error::Inconsistent { row: 0, col: 0, .. }),
        ),
        (
            "a flag on a board with no safe cell",
            "bitmines game 1x2 won\n*F\n",
            |e| matches!(e, Error::Inconsistent { row: 0, col: 1, .. }),
        ),
        (
            "two exploded mines no cell touches both",
            "bitmines game 1x5 lost\nX1.1X\n",
            |e| matches!(e, Error::Inconsistent { row: 0, col: 0, .. }),
        ),
        (
            "two exploded mines around a cell without its flags",
            "bitmines game 2x3 lost\nX2X\nf2.\n",
            |e| matches!(e, Error::Inconsistent { row: 0, col: 0, .. }),
        ),
        (
            "two exploded mines a chord explains, declared playing",
            "bitmines game 2x3 playing\nX2X\nf2f\n",
            |e| {
                *e == Error::StatusMismatch {
                    declared: Status::Playing,
                    actual: Status::Lost,
                }
            },
        ),
        (
            "two exploded mines around a cell with a hidden neighbour",
            "bitmines game 3x3 lost\nX.X\n.2.\nf.f\n",
            |e| matches!(e, Error::Inconsistent { row: 0, col: 0, .. }),
        ),
        (
            "lost with no exploded mine",
            "bitmines game 1x3 lost\n*1.\n",
            |e| {
                *e == Error::StatusMismatch {
                    declared: Status::Lost,
                    actual: Status::Playing,
                }
            },
        ),
    ];
    for (name, text, expected) in cases {
        match text.parse::<Game>() {
            Err(error) => assert!(expected(&error), "{name}: unexpected {error:?}"),
            Ok(game) => panic!("{name}: accepted as\n{game}"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// MBF
// ---------------------------------------------------------------------------------------

/// Checks one board through MBF: the bytes have the size the format prescribes, the header
/// its width, height and count, and they read back as the same board.
fn check_mbf_round_trip(board: &Board) {
    let bytes = board.to_mbf().expect("a board within 255x255");
    assert_eq!(bytes.len(), 4 + 2 * board.mine_count());
    assert_eq!(usize::from(bytes[0]), board.cols(), "width first");
    assert_eq!(usize::from(bytes[1]), board.rows(), "then height");
    assert_eq!(
        usize::from(u16::from_be_bytes([bytes[2], bytes[3]])),
        board.mine_count(),
        "then a big-endian count"
    );
    let back = Board::from_mbf(&bytes).expect("MBF written by to_mbf reads back");
    assert_eq!(back, *board);
}

#[test]
fn mbf_random_boards_round_trip() {
    let mut rng = Rng::new(255);
    let mut shapes = vec![(1, 1), (1, 255), (255, 1), (255, 255), (16, 30), (64, 65)];
    for _ in 0..40 {
        shapes.push((1 + rng.below(255), 1 + rng.below(255)));
    }
    for (i, &(rows, cols)) in shapes.iter().enumerate() {
        for percent in [0, 3, 20, 50, 100] {
            let mines = rows * cols * percent / 100;
            let board = SeededPlacer::new(i as u64)
                .board(rows, cols, mines)
                .expect("a valid board");
            check_mbf_round_trip(&board);
        }
    }
}

#[test]
fn mbf_exact_bytes() {
    // 3 wide, 2 high, two mines: (x 0, y 0) and (x 2, y 1), in row order.
    let board: Board = "*..\n..*\n".parse().expect("a valid board");
    assert_eq!(board.to_mbf(), Ok(vec![3, 2, 0, 2, 0, 0, 2, 1]));
    assert_eq!(
        Board::from_mbf(&[3, 2, 0, 2, 0, 0, 2, 1]),
        Ok(board.clone())
    );
    // The pairs may come in any order.
    assert_eq!(Board::from_mbf(&[3, 2, 0, 2, 2, 1, 0, 0]), Ok(board));
    // 400 mines need both bytes of the count: 400 = 0x0190.
    let full = Board::from_mines(20, 20, cells(20, 20)).expect("a valid board");
    let bytes = full.to_mbf().expect("a 20x20 board");
    assert_eq!(bytes[..4], [20, 20, 0x01, 0x90]);
    assert_eq!(bytes[4..8], [0, 0, 1, 0], "(x 0, y 0) then (x 1, y 0)");
    check_mbf_round_trip(&full);
}

#[test]
fn mbf_read_errors() {
    let cases: Vec<(&str, Vec<u8>, Expect)> = vec![
        ("no bytes", vec![], |e| {
            *e == Error::Truncated {
                needed: 4,
                found: 0,
            }
        }),
        ("three bytes", vec![3, 2, 0], |e| {
            *e == Error::Truncated {
                needed: 4,
                found: 3,
            }
        }),
        ("a missing pair", vec![3, 2, 0, 1], |e| {
            *e == Error::Truncated {
                needed: 6,
                found: 4,
            }
        }),
        ("half a pair", vec![3, 2, 0, 2, 0, 0, 1], |e| {
            *e == Error::Truncated {
                needed: 8,
                found: 7,
            }
        }),
        ("a count using the high byte", vec![3, 2, 1, 0, 0, 0], |e| {
            *e == Error::Truncated {
                needed: 4 + 2 * 256,
                found: 6,
            }
        }),
        ("one extra byte", vec![3, 2, 0, 0, 1], |e| {
            matches!(e, Error::MineCountMismatch { declared: 0, .. })
        }),
        ("an extra pair", vec![3, 2, 0, 1, 0, 0, 1, 1], |e| {
            *e == Error::MineCountMismatch {
                declared: 1,
                found: 2,
            }
        }),
        ("x off the board", vec![3, 2, 0, 1, 3, 0], |e| {
            *e == Error::OffBoard {
                row: 0,
                col: 3,
                rows: 2,
                cols: 3,
            }
        }),
        ("y off the board", vec![3, 2, 0, 1, 0, 2], |e| {
            *e == Error::OffBoard {
                row: 2,
                col: 0,
                rows: 2,
                cols: 3,
            }
        }),
        ("a repeated pair", vec![3, 2, 0, 2, 1, 1, 1, 1], |e| {
            *e == Error::DuplicateMine { row: 1, col: 1 }
        }),
        ("width 0", vec![0, 2, 0, 0], |e| {
            matches!(e, Error::EmptyBoard { .. })
        }),
        ("height 0", vec![3, 0, 0, 0], |e| {
            matches!(e, Error::EmptyBoard { .. })
        }),
        ("both 0", vec![0, 0, 0, 0], |e| {
            matches!(e, Error::EmptyBoard { .. })
        }),
    ];
    for (name, bytes, expected) in cases {
        match Board::from_mbf(&bytes) {
            Err(error) => assert!(expected(&error), "{name}: unexpected {error:?}"),
            Ok(board) => panic!("{name}: accepted as\n{board}"),
        }
    }
}

#[test]
fn mbf_write_errors() {
    // The format's width and height are single bytes: 255 fits, 256 does not.
    for (rows, cols) in [(1, 256), (256, 1), (256, 256), (255, 300)] {
        let board = Board::empty(rows, cols).expect("a valid board");
        assert!(
            matches!(
                board.to_mbf(),
                Err(Error::TooLargeForFormat { rows: r, cols: c, .. }) if (r, c) == (rows, cols)
            ),
            "{rows}x{cols}: {:?}",
            board.to_mbf().map(|b| b.len())
        );
    }
    check_mbf_round_trip(&Board::empty(255, 255).expect("a valid board"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn mbf_random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        // Reaching the end without a panic is most of the check; a board that is read must
        // also agree with its own header.
        if let Ok(board) = Board::from_mbf(&bytes) {
            prop_assert_eq!(bytes.len(), 4 + 2 * board.mine_count());
            prop_assert_eq!((usize::from(bytes[0]), usize::from(bytes[1])), (board.cols(), board.rows()));
            prop_assert_eq!(Board::from_mbf(&board.to_mbf().expect("fits")).ok(), Some(board));
        }
    }

    #[test]
    fn mbf_well_formed_headers_never_panic(
        width in 0u8..6,
        height in 0u8..6,
        pairs in proptest::collection::vec((0u8..8, 0u8..8), 0..12),
        extra in 0usize..3,
    ) {
        // Random bytes rarely get past the header, so these have a matching count and small
        // coordinates that are sometimes off the board or repeated.
        let count = u16::try_from(pairs.len()).expect("few pairs");
        let mut bytes = vec![width, height];
        bytes.extend(count.to_be_bytes());
        bytes.extend(pairs.iter().flat_map(|&(x, y)| [x, y]));
        bytes.extend(std::iter::repeat_n(0, extra));
        let result = Board::from_mbf(&bytes);
        let off = pairs.iter().any(|&(x, y)| x >= width || y >= height);
        let mut sorted = pairs.clone();
        sorted.sort_unstable();
        sorted.dedup();
        let repeated = sorted.len() != pairs.len();
        if width == 0 || height == 0 || off || repeated || extra > 0 {
            prop_assert!(result.is_err(), "accepted {:?}", bytes);
        } else {
            let board = result.expect("a well-formed board");
            prop_assert_eq!(board.mine_count(), pairs.len());
            for &(x, y) in &pairs {
                prop_assert!(board.is_mine(usize::from(y), usize::from(x)).expect("on the board"));
            }
        }
    }
}

/// A text game of random characters under a well-formed header: most such texts are
/// refused, and the few that read must be games the engine could have written.
fn random_game_text() -> impl Strategy<Value = String> {
    let cell = proptest::sample::select(vec![
        '.', '.', '.', '*', '*', 'f', 'F', 'X', '0', '0', '1', '1', '2', '3',
    ]);
    let status = proptest::sample::select(vec![
        "playing",
        "won",
        "lost",
        "playing endless",
        "won endless",
        "lost endless",
    ]);
    (1usize..=4, 1usize..=5, status).prop_flat_map(move |(rows, cols, status)| {
        proptest::collection::vec(cell.clone(), rows * cols).prop_map(move |cells| {
            let mut text = format!("bitmines game {rows}x{cols} {status}\n");
            for row in cells.chunks(cols) {
                text.extend(row);
                text.push('\n');
            }
            text
        })
    })
}

/// A LeetCode board of random characters, most of them refused as inconsistent.
fn random_leetcode_chars() -> impl Strategy<Value = Vec<Vec<char>>> {
    let cell = proptest::sample::select(vec!['E', 'E', 'E', 'M', 'M', 'B', 'B', 'X', '1', '2']);
    (1usize..=4, 1usize..=5).prop_flat_map(move |(rows, cols)| {
        proptest::collection::vec(proptest::collection::vec(cell.clone(), cols), rows)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn text_games_that_read_are_valid_and_write_back_the_same(text in random_game_text()) {
        if let Ok(game) = text.parse::<Game>() {
            prop_assert_eq!(game.to_string(), text.clone());
            prop_assert!(game.validate().is_ok(), "{:?} on\n{}", game.validate(), text);
        }
    }

    #[test]
    fn leetcode_boards_that_read_are_valid_and_write_back_the_same(
        board in random_leetcode_chars(),
    ) {
        if let Ok(game) = from_chars(&board) {
            prop_assert!(game.validate().is_ok(), "{:?} on {:?}", game.validate(), strings(&board));
            prop_assert_eq!(strings(&to_chars(&game).expect("exports")), strings(&board));
        }
    }
}
