//! Hostile input: every public entry point of `bitmines-core` and `bitmines-gen` answers with
//! a value or a typed error, never a panic or an allocation it cannot make.

#[allow(dead_code)]
mod support;

use std::sync::Arc;

use bitmines_core::{
    Board, Cell, Error, FirstClick, Game, Geometry, SeededPlacer, Stats, Status, leetcode,
};
use bitmines_gen::{Config, Generator, generate};
use support::Rng;

const HUGE: usize = usize::MAX;

#[test]
fn empty_boards_are_refused_everywhere() {
    for (rows, cols) in [(0, 0), (0, 5), (5, 0), (0, HUGE), (HUGE, 0)] {
        let empty = Err(Error::EmptyBoard { rows, cols });
        assert_eq!(Geometry::new(rows, cols).map(|_| ()), empty.clone());
        assert_eq!(Board::empty(rows, cols).map(|_| ()), empty.clone());
        assert_eq!(Board::from_mines(rows, cols, []).map(|_| ()), empty.clone());
        assert_eq!(Game::seeded(rows, cols, 0, 1).map(|_| ()), empty.clone());
        assert!(generate(&Config::new(rows, cols, 0, 1)).is_err());
        assert!(Config::with_density(rows, cols, 0.1, 1).is_err());
    }
}

#[test]
fn sizes_that_overflow_are_too_large_and_nothing_is_allocated() {
    for (rows, cols) in [
        (HUGE, 1),
        (1, HUGE),
        (HUGE, HUGE),
        (HUGE - 1, 2),
        (1 << 32, 1 << 32),
        (3, HUGE - 2),
    ] {
        let too_large = Err(Error::TooLarge { rows, cols });
        assert_eq!(Geometry::new(rows, cols).map(|_| ()), too_large.clone());
        assert_eq!(Board::empty(rows, cols).map(|_| ()), too_large.clone());
        assert_eq!(
            Board::from_mines(rows, cols, [(0, 0)]).map(|_| ()),
            too_large
        );
        assert!(Game::seeded(rows, cols, 1, 1).is_err());
        assert!(generate(&Config::new(rows, cols, 1, 1)).is_err());
        assert!(FirstClick::Opening.check_mines(rows, cols, HUGE).is_err());
    }
    // Addressable but far beyond memory: refused before anything is touched.
    let side = 1 << 28;
    assert!(matches!(
        Board::empty(side, side),
        Err(Error::OutOfMemory { .. })
    ));
    assert!(matches!(
        Game::seeded(side, side, 10, 1),
        Err(Error::OutOfMemory { .. })
    ));
}

#[test]
fn coordinates_at_the_end_of_usize_are_off_the_board() {
    let board = Arc::new(Board::from_mines(4, 70, [(1, 1), (3, 69)]).expect("a board"));
    let mut game = Game::new(Arc::clone(&board));
    for (row, col) in [
        (HUGE, 0),
        (0, HUGE),
        (HUGE, HUGE),
        (4, 0),
        (0, 70),
        (HUGE - 1, 69),
    ] {
        let off = Error::OffBoard {
            row,
            col,
            rows: 4,
            cols: 70,
        };
        assert_eq!(game.reveal(row, col), Err(off.clone()));
        assert_eq!(game.toggle_flag(row, col), Err(off.clone()));
        assert_eq!(game.chord(row, col), Err(off.clone()));
        assert_eq!(game.cell(row, col), Err(off.clone()));
        assert_eq!(board.is_mine(row, col), Err(off.clone()));
        assert_eq!(board.number(row, col), Err(off.clone()));
        assert_eq!(board.is_zero(row, col), Err(off.clone()));
        assert_eq!(FirstClick::Safe.zone(4, 70, row, col), Err(off));
    }
    for row in [4, HUGE] {
        assert!(matches!(board.mine_row(row), Err(Error::OffBoard { .. })));
        assert!(matches!(
            game.revealed_row(row),
            Err(Error::OffBoard { .. })
        ));
        assert!(matches!(game.flagged_row(row), Err(Error::OffBoard { .. })));
    }
    assert!(matches!(
        Board::from_mines(4, 70, [(0, 0), (HUGE, HUGE)]),
        Err(Error::OffBoard { .. })
    ));
    assert_eq!(game.revealed_count(), 0, "nothing changed");
    assert_eq!(game.validate(), Ok(()));
    let mut deferred = Game::seeded(9, 9, 10, 3).expect("a deferred game");
    assert!(matches!(
        deferred.reveal(9, HUGE),
        Err(Error::OffBoard { .. })
    ));
    assert!(deferred.board().is_none() || deferred.revealed_count() == 0);
    assert!(deferred.reveal(4, 4).is_ok(), "the game is still playable");
}

#[test]
fn one_by_one_boards() {
    let mut safe = Game::new(Board::empty(1, 1).expect("a board"));
    assert_eq!(safe.status(), Status::Playing);
    let step = safe.reveal(0, 0).expect("reveals");
    assert_eq!((step.opened, step.status), (1, Status::Won));
    assert!(matches!(safe.reveal(0, 0), Err(Error::GameOver { .. })));

    let mined = Game::new(Board::from_mines(1, 1, [(0, 0)]).expect("a board"));
    assert_eq!(
        mined.status(),
        Status::Won,
        "no safe cell: won before any move"
    );
    assert_eq!(mined.validate(), Ok(()));

    for policy in [FirstClick::Safe, FirstClick::Opening] {
        assert!(matches!(
            Game::deferred(1, 1, 1, policy, SeededPlacer::new(1)),
            Err(Error::TooManyMines { .. })
        ));
    }
    let mut unprotected =
        Game::deferred(1, 1, 1, FirstClick::Unprotected, SeededPlacer::new(1)).expect("fits");
    assert!(matches!(
        unprotected.reveal(0, 0),
        Err(Error::GameOver { .. }) | Ok(_)
    ));
    assert_eq!(unprotected.validate(), Ok(()));
}

/// Reveals every safe cell of `game` in row order, as a player who knows the mines.
fn clear(game: &mut Game) {
    let board = Arc::clone(game.board().expect("mines are placed"));
    for r in 0..game.rows() {
        for c in 0..game.cols() {
            if game.status() != Status::Playing {
                return;
            }
            if !board.is_mine(r, c).expect("on the board") {
                game.reveal(r, c).expect("a legal reveal");
            }
        }
    }
}

#[test]
fn thin_boards_play_to_the_end() {
    let mut rng = Rng::new(6);
    for (rows, cols) in [(1, 1000), (1000, 1), (1, 64), (64, 1), (2, 129), (129, 2)] {
        for density in [0.0, 0.1, 0.5] {
            let mines = (0..rows * cols)
                .filter(|_| rng.chance(density))
                .map(|i| (i / cols, i % cols));
            let mut game = Game::new(Board::from_mines(rows, cols, mines).expect("a board"));
            clear(&mut game);
            assert_eq!(game.status(), Status::Won, "{rows}x{cols} at {density}");
            assert_eq!(game.validate(), Ok(()));
        }
    }
}

#[test]
fn all_mines_and_no_mines() {
    for (rows, cols) in [(1, 1), (3, 70), (65, 2)] {
        let cells: Vec<_> = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .collect();
        let full = Board::from_mines(rows, cols, cells.iter().copied()).expect("a board");
        assert_eq!(full.safe_count(), 0);
        let stats = Stats::of(&full).expect("stats");
        assert_eq!((stats.openings, stats.islands, stats.bbbv), (0, 0, 0));
        let game = Game::new(full);
        assert_eq!(game.status(), Status::Won);
        assert_eq!(game.cell(0, 0), Ok(Cell::Hidden));

        let mut empty = Game::new(Board::empty(rows, cols).expect("a board"));
        let step = empty.reveal(rows - 1, cols - 1).expect("reveals");
        assert_eq!((step.opened, step.status), (rows * cols, Status::Won));
        assert!(matches!(
            Board::from_mines(rows, cols, [(0, 0), (0, 0)]),
            Err(Error::DuplicateMine { row: 0, col: 0 })
        ));
    }
    assert!(matches!(
        generate(&Config::new(4, 4, 17, 1)),
        Err(bitmines_gen::Error::TooManyMines { .. })
    ));
    let full = generate(&Config::new(4, 70, 280, 1)).expect("every cell a mine");
    assert_eq!(full.mine_count(), 280);
}

/// The densest deferred game the opening policy allows, first click in every corner: the
/// corner's zone is only four cells, so five more cells stay safe somewhere else.
#[test]
fn the_densest_opening_game_in_a_corner() {
    for (rows, cols) in [(3, 3), (4, 4), (9, 9), (16, 30), (5, 70)] {
        let mines = rows * cols - 9;
        for (row, col) in [(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)] {
            for seed in 0..4 {
                let placers: [Box<dyn Fn() -> Game>; 2] = [
                    Box::new(|| {
                        Game::deferred(
                            rows,
                            cols,
                            mines,
                            FirstClick::Opening,
                            SeededPlacer::new(seed),
                        )
                        .expect("fits")
                    }),
                    Box::new(|| {
                        Game::deferred(rows, cols, mines, FirstClick::Opening, Generator::new(seed))
                            .expect("fits")
                    }),
                ];
                for new_game in placers {
                    let mut game = new_game();
                    let step = game.reveal(row, col).expect("the first click");
                    assert!(step.opened >= 4, "{rows}x{cols} ({row}, {col}): {step:?}");
                    let board = game.board().expect("placed");
                    assert_eq!(board.mine_count(), mines);
                    let zone = FirstClick::Opening
                        .zone(rows, cols, row, col)
                        .expect("zone");
                    assert!(zone.cells().all(|(r, c)| board.is_mine(r, c) == Ok(false)));
                    assert_eq!(game.validate(), Ok(()));
                    clear(&mut game);
                    assert_eq!(game.status(), Status::Won);
                }
            }
        }
        assert!(matches!(
            Game::deferred(
                rows,
                cols,
                mines + 1,
                FirstClick::Opening,
                SeededPlacer::new(0)
            ),
            Err(Error::TooManyMines { .. })
        ));
    }
}

#[test]
fn empty_ragged_and_odd_text() {
    for text in [
        "",
        "\n",
        "\n\n",
        "..\n.\n",
        ".\n..\n",
        "*.\n.*\n\n.",
        "ab\n",
        "..\r.\n",
        "🙂\n",
    ] {
        assert!(text.parse::<Board>().is_err(), "{text:?} parsed as a board");
    }
    for text in [
        "",
        "bitmines game",
        "bitmines game 2x2 playing\n",
        "bitmines game 2x2 playing\n..\n.\n",
        "bitmines game 1x1 playing\n..\n",
        "bitmines game 18446744073709551615x18446744073709551615 playing\n.\n",
        "bitmines game -1x2 playing\n..\n",
        "bitmines game 1x1 won\n.\n",
        "bitmines game 1x2 playing\nX.\n",
    ] {
        assert!(text.parse::<Game>().is_err(), "{text:?} parsed as a game");
    }
    let empty: Vec<Vec<char>> = Vec::new();
    assert!(leetcode::from_chars(&empty).is_err());
    assert!(leetcode::from_chars(&[vec![], vec![]]).is_err());
    assert!(leetcode::from_chars(&[vec!['E', 'E'], vec!['E']]).is_err());
    let mut board = vec![vec!['E', 'M'], vec!['E', 'E']];
    let before = board.clone();
    assert!(leetcode::try_update_board(&mut board, [HUGE, HUGE]).is_err());
    assert!(leetcode::try_update_board(&mut board, [0, 2]).is_err());
    assert_eq!(board, before, "a refused click changes nothing");
}

#[test]
fn mbf_with_wrong_counts_and_sizes() {
    let cases: [&[u8]; 8] = [
        &[],
        &[2],
        &[2, 2, 0],
        &[2, 2, 0, 1],             // one mine promised, none given
        &[2, 2, 0, 1, 0],          // half a mine
        &[2, 2, 0, 1, 0, 0, 1],    // a stray byte after the mine
        &[0, 2, 0, 0],             // no columns
        &[2, 2, 0, 2, 0, 0, 0, 0], // the same mine twice
    ];
    for bytes in cases {
        assert!(Board::from_mbf(bytes).is_err(), "{bytes:?} read as MBF");
    }
    assert!(matches!(
        Board::from_mbf(&[2, 2, 0, 1, 5, 0]),
        Err(Error::OffBoard { .. })
    ));
    let board = Board::from_mbf(&[3, 2, 0, 1, 2, 1]).expect("a 2x3 board, mine at (1, 2)");
    assert_eq!(board.is_mine(1, 2), Ok(true));
}

/// Random bytes, and random bytes behind a valid start, through every reader.
#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng::new(0xBAD);
    let valid_board = Board::from_mines(5, 70, [(1, 2), (4, 69)]).expect("a board");
    let binary = valid_board.to_binary(Some(1));
    let mbf = valid_board.to_mbf().expect("fits MBF");
    let text = valid_board.to_string();
    let mut game = Game::new(valid_board);
    game.reveal(4, 0).expect("reveals");
    let game_text = game.to_string();
    for round in 0..20_000 {
        let len = rng.below(120);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let prefix: &[u8] = match round % 5 {
            0 => &[],
            1 => &binary,
            2 => &mbf,
            3 => text.as_bytes(),
            _ => game_text.as_bytes(),
        };
        // Keep a random-length start of a valid file, then noise.
        let keep = rng.below(prefix.len() + 1);
        bytes.splice(0..0, prefix[..keep].iter().copied());
        let _ = Board::from_binary(&bytes);
        let _ = Board::read_binary(&bytes[..]);
        let _ = Board::from_mbf(&bytes);
        let as_text = String::from_utf8_lossy(&bytes);
        let _ = as_text.parse::<Board>();
        if let Ok(game) = as_text.parse::<Game>() {
            assert_eq!(game.validate(), Ok(()), "{as_text:?}");
        }
        let chars: Vec<Vec<char>> = as_text.lines().map(|line| line.chars().collect()).collect();
        let _ = leetcode::from_chars(&chars);
    }
}
