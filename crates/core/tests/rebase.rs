//! `Game::rebase` against its naive twin: a new game on the edited board, the same flags
//! placed, and every cell the old game had revealed revealed one by one.

#[allow(dead_code)]
mod support;

use bitmines_core::{Board, Cell, Error, Game, Rule, SeededPlacer, Status};
use support::Rng;

/// A game on a random board with some cells revealed and some flagged.
fn played(rng: &mut Rng, rows: usize, cols: usize, mines: usize) -> Game {
    let board = SeededPlacer::new(rng.next())
        .board(rows, cols, mines)
        .unwrap();
    let mut game = Game::new(board.clone());
    for _ in 0..rng.below(4) + 1 {
        let (r, c) = (rng.below(rows), rng.below(cols));
        if game.status() == Status::Playing
            && !board.is_mine(r, c).unwrap()
            && game.cell(r, c).unwrap() == Cell::Hidden
        {
            game.reveal(r, c).unwrap();
        }
    }
    for _ in 0..rng.below(3) {
        let (r, c) = (rng.below(rows), rng.below(cols));
        if game.status() == Status::Playing && game.cell(r, c).unwrap() == Cell::Hidden {
            game.toggle_flag(r, c).unwrap();
        }
    }
    game
}

/// `board` with up to `moves` mines moved from hidden cells to other hidden cells.
fn edited(rng: &mut Rng, game: &Game, moves: usize) -> Board {
    let (rows, cols) = (game.rows(), game.cols());
    let board = game.board().unwrap();
    let mut mines: Vec<(usize, usize)> = (0..rows * cols)
        .map(|i| (i / cols, i % cols))
        .filter(|&(r, c)| board.is_mine(r, c).unwrap())
        .collect();
    for _ in 0..moves {
        let (r, c) = (rng.below(rows), rng.below(cols));
        let hidden = !matches!(game.cell(r, c).unwrap(), Cell::Open(_));
        if hidden && !mines.contains(&(r, c)) && !mines.is_empty() {
            let i = rng.below(mines.len());
            mines[i] = (r, c);
        }
    }
    Board::from_mines(rows, cols, mines).unwrap()
}

/// The twin: a new game on `board` with `game`'s flags, and `game`'s revealed cells
/// revealed one by one.
fn twin(game: &Game, board: &Board) -> Game {
    let mut twin = Game::new(board.clone());
    for r in 0..game.rows() {
        for c in 0..game.cols() {
            if game.cell(r, c).unwrap() == Cell::Flagged {
                twin.toggle_flag(r, c).unwrap();
            }
        }
    }
    for r in 0..game.rows() {
        for c in 0..game.cols() {
            if matches!(game.cell(r, c).unwrap(), Cell::Open(_))
                && twin.status() == Status::Playing
                && twin.cell(r, c).unwrap() == Cell::Hidden
            {
                twin.reveal(r, c).unwrap();
            }
        }
    }
    twin
}

#[test]
fn rebase_matches_a_replay_on_the_edited_board() {
    let mut rng = Rng(23);
    let mut opened_some = 0;
    for i in 0..3000 {
        let (rows, cols) = [(1, 9), (9, 1), (5, 5), (8, 8), (3, 63), (2, 65), (4, 130)][i % 7];
        let mines = rows * cols * (10 + i % 20) / 100;
        let game = played(&mut rng, rows, cols, mines.max(1));
        if game.status() != Status::Playing {
            continue;
        }
        let board = edited(&mut rng, &game, 1 + i % 4);
        let expected = twin(&game, &board);
        let mut fast = game.clone();
        let opened = fast.rebase(board).unwrap();
        assert_eq!(
            fast.view().revealed_words(),
            expected.view().revealed_words(),
            "case {i}"
        );
        assert_eq!(fast.status(), expected.status(), "case {i}");
        assert_eq!(
            fast.revealed_count(),
            game.revealed_count() + opened,
            "case {i}"
        );
        for r in 0..rows {
            for c in 0..cols {
                assert_eq!(
                    fast.cell(r, c).unwrap(),
                    expected.cell(r, c).unwrap(),
                    "case {i}"
                );
            }
        }
        fast.validate().unwrap();
        opened_some += usize::from(opened > 0);
    }
    assert!(opened_some > 50, "{opened_some} rebases opened cells");
}

#[test]
fn rebase_refuses_other_boards_and_leaves_the_game_alone() {
    let mut game = Game::new("*...\n....\n...*\n".parse::<Board>().unwrap());
    game.reveal(0, 3).unwrap();
    let before = game.clone();
    let refuse = |game: &mut Game, text: &str| game.rebase(text.parse::<Board>().unwrap());
    let size = refuse(&mut game, "....\n....\n.*.*\n....\n").unwrap_err();
    assert_eq!(
        size.to_string(),
        "the new board is not an edit of the game's: it is 4x4, the game's is 3x4"
    );
    let count = refuse(&mut game, "....\n....\n**.*\n").unwrap_err();
    assert_eq!(
        count.to_string(),
        "the new board is not an edit of the game's: it has 3 mines, the game's has 2"
    );
    assert!(matches!(
        refuse(&mut game, "..*.\n....\n...*\n"),
        Err(Error::Inconsistent { row: 0, col: 2, .. })
    ));
    assert_eq!(game.view().revealed_words(), before.view().revealed_words());
    let mut lost = Game::new("*.\n..\n".parse::<Board>().unwrap());
    lost.reveal(0, 0).unwrap();
    assert!(matches!(
        lost.rebase(".*\n..\n".parse::<Board>().unwrap()),
        Err(Error::GameOver { .. })
    ));
    let mut deferred = Game::deferred(
        3,
        3,
        1,
        bitmines_core::FirstClick::Safe,
        SeededPlacer::new(1),
    )
    .unwrap();
    assert!(matches!(
        deferred.rebase(".*.\n...\n...\n".parse::<Board>().unwrap()),
        Err(Error::Deferred)
    ));
}

#[test]
fn rebase_keeps_the_endless_rule_and_its_exploded_mines() {
    let mut game =
        Game::new("*...\n....\n...*\n".parse::<Board>().unwrap()).with_rule(Rule::Endless);
    game.reveal(0, 0).unwrap(); // explodes, and play goes on
    game.reveal(0, 3).unwrap(); // opens the top right, up to the 1s
    assert_eq!(game.status(), Status::Playing);

    // The mine at (2, 3) moves to (2, 0): (1, 2) shows 0 now, so its hidden neighbours open.
    let board: Board = "*...\n....\n*...\n".parse().unwrap();
    let mut expected = Game::new(board.clone()).with_rule(Rule::Endless);
    expected.reveal(0, 0).unwrap();
    for (r, c) in [(0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3)] {
        if expected.cell(r, c).unwrap() == Cell::Hidden {
            expected.reveal(r, c).unwrap();
        }
    }
    let mut fast = game.clone();
    assert!(fast.rebase(board).unwrap() > 0);
    assert_eq!(fast.rule(), Rule::Endless);
    assert_eq!(fast.exploded().collect::<Vec<_>>(), [(0, 0)]);
    assert_eq!(fast.status(), expected.status());
    for r in 0..3 {
        for c in 0..4 {
            assert_eq!(fast.cell(r, c), expected.cell(r, c), "({r}, {c})");
        }
    }
    fast.validate().unwrap();

    // A board with no mine under the exploded cell is refused, and the game left alone.
    let before = game.clone();
    assert!(matches!(
        game.rebase("....\n*...\n...*\n".parse::<Board>().unwrap()),
        Err(Error::Inconsistent { row: 0, col: 0, .. })
    ));
    assert_eq!(game.view().revealed_words(), before.view().revealed_words());
    assert_eq!(game.cell(0, 0), Ok(Cell::Exploded));
    game.validate().unwrap();
}
