//! The player's view: what it shows of games, and the text form of positions.

#[allow(dead_code)]
mod support;

use bitmines_core::{Board, Error, Game, Position, SeededPlacer};
use support::Rng;

/// Reads a position, or names the line and column of the first error.
fn read(text: &str) -> Result<Position, (usize, usize)> {
    text.parse::<Position>().map_err(|e| match e {
        Error::ViewSyntax { line, col, .. } => (line, col),
        other => panic!("{other:?} is not a syntax error"),
    })
}

#[test]
fn positions_read_and_print_back() {
    let text = "bitmines view 3x4 mines 2\n#F1.\n1221\n0000\n";
    let position: Position = text.parse().unwrap();
    assert_eq!(
        position.to_string(),
        "bitmines view 3x4 mines 2\n#F10\n1221\n0000\n"
    );
    let view = position.view();
    assert_eq!(view.number(0, 2), Ok(Some(1)));
    assert_eq!(view.number(0, 3), Ok(Some(0)));
    assert_eq!(view.number(0, 0), Ok(None));
    assert_eq!(view.is_flagged(0, 1), Ok(true));
    assert_eq!(view.mine_count(), 2);
    assert_eq!(view.revealed_count(), 10);
    assert!(matches!(view.number(3, 0), Err(Error::OffBoard { .. })));
}

#[test]
fn every_syntax_error_names_its_line_and_column() {
    for (text, at) in [
        ("", (1, 1)),
        ("bitmines view 2x2\n##\n##\n", (1, 1)),
        ("bitmines game 2x2 mines 1\n##\n##\n", (1, 1)),
        ("bitmines view 2x-2 mines 1\n##\n##\n", (1, 1)),
        ("bitmines view 2x2 mines 1\n#9\n##\n", (2, 2)),
        ("bitmines view 2x2 mines 1\n##\n#*\n", (3, 2)),
        ("bitmines view 2x2 mines 1\n###\n##\n", (2, 3)),
        ("bitmines view 2x2 mines 1\n#\n##\n", (2, 2)),
        ("bitmines view 2x2 mines 1\n##\n", (3, 1)),
        ("bitmines view 2x2 mines 1\n##\n##\n##\n", (4, 1)),
    ] {
        assert_eq!(read(text).err(), Some(at), "{text:?}");
    }
    // Sizes and counts the header cannot have are named at line 1 too.
    for (text, says) in [
        ("bitmines view 2x2 mines 5\n##\n##\n", "cannot hold 5 mines"),
        ("bitmines view 0x2 mines 0\n", "at least one row"),
    ] {
        match text.parse::<Position>() {
            Err(Error::ViewSyntax {
                line: 1,
                col: 1,
                reason,
            }) => {
                assert!(reason.contains(says), "{reason}")
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }
    // A header claiming a huge board over a short text is refused before anything is
    // allocated for it.
    assert_eq!(
        read("bitmines view 1000000x1000000 mines 1\n##\n"),
        Err((2, 3))
    );
    assert_eq!(read("bitmines view 1000000x2 mines 1\n##\n"), Err((3, 1)));
}

/// A game's view shows exactly the numbers of its revealed cells and nothing of the rest,
/// and a position copied from it shows the same.
#[test]
fn game_views_show_revealed_numbers_only() {
    let mut rng = Rng(7);
    for (rows, cols, mines) in [
        (9, 9, 10),
        (1, 70, 20),
        (70, 1, 20),
        (5, 64, 60),
        (3, 130, 90),
    ] {
        let board = SeededPlacer::new(rng.next())
            .board(rows, cols, mines)
            .unwrap();
        let mut game = Game::new(board.clone());
        for _ in 0..rows * cols / 4 {
            let (r, c) = (rng.below(rows), rng.below(cols));
            if !board.is_mine(r, c).unwrap() {
                game.reveal(r, c).unwrap();
            } else if rng.chance(0.5) {
                game.toggle_flag(r, c).unwrap();
            }
        }
        let view = game.view();
        let copy = Position::of(&view).unwrap();
        for r in 0..rows {
            for c in 0..cols {
                let revealed = game.revealed_row(r).unwrap()[c];
                let expected = revealed.then(|| board.number(r, c).unwrap());
                assert_eq!(view.number(r, c), Ok(expected), "({r}, {c})");
                assert_eq!(copy.view().number(r, c), Ok(expected));
                assert_eq!(view.is_flagged(r, c), Ok(game.flagged_row(r).unwrap()[c]));
                assert_eq!(copy.view().is_flagged(r, c), view.is_flagged(r, c));
            }
        }
        assert_eq!(view.revealed_count(), game.revealed_count());
        assert_eq!(copy.to_string().parse::<Position>().unwrap(), copy);
    }
}

/// Two boards that differ only under hidden cells give the same view, word for word.
#[test]
fn hidden_cells_leave_no_trace_in_the_view() {
    let a: Board = "*....\n.....\n....*\n".parse().unwrap();
    let b: Board = ".*...\n.....\n...*.\n".parse().unwrap();
    let (mut ga, mut gb) = (Game::new(a), Game::new(b));
    // (1, 1) shows 1 on both boards; nothing else is revealed.
    assert_eq!(ga.reveal(1, 1).unwrap().opened, 1);
    assert_eq!(gb.reveal(1, 1).unwrap().opened, 1);
    let (va, vb) = (ga.view(), gb.view());
    assert_eq!(va.revealed_words(), vb.revealed_words());
    for w in 0..va.geometry().words() {
        assert_eq!(va.number_words(w), vb.number_words(w), "word {w}");
    }
}

/// A view prints as the text form of its position, so a game's view can be shown, saved or
/// handed to `bitmines hint` without going through `Position`.
#[test]
fn a_view_prints_as_its_position() {
    let board: Board = "..*.\n....\n*...\n".parse().unwrap();
    let mut game = Game::new(board);
    game.reveal(0, 0).unwrap();
    game.toggle_flag(0, 2).unwrap();
    let view = game.view();
    assert_eq!(
        view.to_string(),
        "bitmines view 3x4 mines 2\n01F#\n12##\n####\n"
    );
    assert_eq!(view.to_string(), Position::of(&view).unwrap().to_string());
}
