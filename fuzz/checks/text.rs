//! The `text_board` and `text_game` properties: any bytes that are UTF-8 either read as a
//! board or game, or are refused with an error of the kind the input calls for; whatever
//! reads writes back in its canonical form and reads back as the same thing.
//!
//! Shared by the `text_board` and `text_game` fuzz targets and `tests/fuzz_regressions.rs`.

use bitmines_core::{Board, Cell, Error, Game, Status};

/// Checks `Board::from_str` on `data` against a reading of the format written here: one line
/// per row (`str::lines`, so `\r\n` too and a final newline optional), `*` a mine and `.` a
/// safe cell, every line as long as the first, at least one cell.
pub(crate) fn check_board(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let lines: Vec<Vec<char>> = text.lines().map(|l| l.chars().collect()).collect();
    let parsed = text.parse::<Board>();
    match (board_refusal(&lines), parsed) {
        (None, Ok(board)) => {
            let (rows, cols) = (lines.len(), lines[0].len());
            assert_eq!((board.rows(), board.cols()), (rows, cols), "{text:?}");
            let mut mines = 0;
            for (r, line) in lines.iter().enumerate() {
                for (c, &ch) in line.iter().enumerate() {
                    mines += usize::from(ch == '*');
                    assert_eq!(board.is_mine(r, c), Ok(ch == '*'), "({r}, {c}) of {text:?}");
                }
            }
            assert_eq!(board.mine_count(), mines, "{text:?}");
            // The canonical form is the same lines, each ending in one `\n`.
            let printed = board.to_string();
            let canonical: String = text.lines().flat_map(|l| [l, "\n"]).collect();
            assert_eq!(printed, canonical, "Display of {text:?}");
            let again: Board = printed
                .parse()
                .unwrap_or_else(|e| panic!("{printed:?} does not read back: {e}"));
            assert_eq!(again, board, "{printed:?} reads back differently");
        }
        (None, Err(error)) => panic!("{text:?} refused: {error}"),
        (Some(refusal), Ok(board)) => panic!("{text:?} read as {board:?}, expected {refusal:?}"),
        (Some(refusal), Err(error)) => assert!(
            refusal.matches(&error),
            "{text:?} refused with {error:?}, expected {refusal:?}"
        ),
    }
}

/// Why a text board must be refused: the first of these in reading order.
#[derive(Debug, Clone, Copy)]
enum Refusal {
    /// A character other than `*` and `.`, at a 1-based line and column.
    BadChar(usize, usize, char),
    /// A 1-based line whose length is not the first line's.
    Ragged(usize, usize, usize),
    /// No cells.
    Empty(usize, usize),
}

impl Refusal {
    fn matches(&self, error: &Error) -> bool {
        match (*self, error) {
            (
                Refusal::BadChar(l, c, f),
                Error::BadChar {
                    line, col, found, ..
                },
            ) => (l, c, f) == (*line, *col, *found),
            (
                Refusal::Ragged(l, e, f),
                Error::Ragged {
                    line,
                    expected,
                    found,
                },
            ) => (l, e, f) == (*line, *expected, *found),
            (Refusal::Empty(r, c), Error::EmptyBoard { rows, cols }) => (r, c) == (*rows, *cols),
            _ => false,
        }
    }
}

fn board_refusal(lines: &[Vec<char>]) -> Option<Refusal> {
    let cols = lines.first().map_or(0, Vec::len);
    for (r, line) in lines.iter().enumerate() {
        if let Some(c) = line.iter().position(|&ch| ch != '*' && ch != '.') {
            return Some(Refusal::BadChar(r + 1, c + 1, line[c]));
        }
        if line.len() != cols {
            return Some(Refusal::Ragged(r + 1, cols, line.len()));
        }
    }
    (lines.is_empty() || cols == 0).then_some(Refusal::Empty(lines.len(), cols))
}

/// Checks `Game::from_str` on `data`: a game that reads is valid, shows on every cell what
/// its character says, writes back as the canonical header and the same cell lines, and
/// reads back as the same game; anything refused is refused with one of the format's errors.
pub(crate) fn check_game(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let game = match text.parse::<Game>() {
        Ok(game) => game,
        Err(error) => {
            assert!(
                matches!(
                    error,
                    Error::BadHeader { .. }
                        | Error::BadChar { .. }
                        | Error::Ragged { .. }
                        | Error::RowCountMismatch { .. }
                        | Error::EmptyBoard { .. }
                        | Error::TooLarge { .. }
                        | Error::Inconsistent { .. }
                        | Error::StatusMismatch { .. }
                ),
                "{text:?} refused with {error:?}"
            );
            return;
        }
    };
    game.validate()
        .unwrap_or_else(|e| panic!("{text:?} reads as an invalid game: {e}"));
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    let body: Vec<Vec<char>> = lines.map(|l| l.chars().collect()).collect();
    let (rows, cols) = (game.rows(), game.cols());
    assert_eq!(body.len(), rows, "{text:?}");
    let status_word = header.split_whitespace().nth(3);
    assert_eq!(
        status_word,
        Some(game.status().to_string().as_str()),
        "{text:?}"
    );

    let lost = game.status() == Status::Lost;
    let board = game.board().expect("a game read from text has a board");
    let (mut mines, mut revealed, mut flags, mut exploded) = (0, 0, 0, 0);
    for (r, line) in body.iter().enumerate() {
        assert_eq!(line.len(), cols, "line {} of {text:?}", r + 2);
        for (c, &ch) in line.iter().enumerate() {
            let mine = matches!(ch, '*' | 'F' | 'X');
            mines += usize::from(mine);
            assert_eq!(board.is_mine(r, c), Ok(mine), "({r}, {c}) of {text:?}");
            let want = match ch {
                '.' => Cell::Hidden,
                '*' if lost => Cell::Mine,
                '*' => Cell::Hidden,
                'f' if lost => Cell::WrongFlag,
                'f' | 'F' => Cell::Flagged,
                'X' => Cell::Exploded,
                digit => {
                    let n = digit
                        .to_digit(10)
                        .unwrap_or_else(|| panic!("{digit:?} read at ({r}, {c}) of {text:?}"));
                    assert!(n <= 8, "{digit:?} read at ({r}, {c}) of {text:?}");
                    Cell::Open(n as u8)
                }
            };
            revealed += usize::from(matches!(want, Cell::Open(_)));
            flags += usize::from(matches!(ch, 'f' | 'F'));
            exploded += usize::from(ch == 'X');
            assert_eq!(game.cell(r, c), Ok(want), "({r}, {c}) of {text:?}");
        }
    }
    assert_eq!(board.mine_count(), mines, "{text:?}");
    assert_eq!(game.revealed_count(), revealed, "{text:?}");
    assert_eq!(game.flag_count(), flags, "{text:?}");
    assert_eq!(game.exploded().count(), exploded, "{text:?}");
    let status = if exploded > 0 {
        Status::Lost
    } else if revealed + mines == rows * cols {
        Status::Won
    } else {
        Status::Playing
    };
    assert_eq!(game.status(), status, "{text:?}");

    let printed = game.to_string();
    let mut canonical = format!("bitmines game {rows}x{cols} {}\n", game.status());
    for line in &body {
        canonical.extend(line);
        canonical.push('\n');
    }
    assert_eq!(printed, canonical, "Display of {text:?}");
    let again: Game = printed
        .parse()
        .unwrap_or_else(|e| panic!("{printed:?} does not read back: {e}"));
    again
        .validate()
        .unwrap_or_else(|e| panic!("{printed:?} reads back invalid: {e}"));
    assert_eq!(
        again.to_string(),
        printed,
        "{printed:?} reads back differently"
    );
    let counts = |g: &Game| {
        (
            g.status(),
            g.revealed_count(),
            g.flag_count(),
            g.mine_count(),
        )
    };
    assert_eq!(counts(&again), counts(&game), "{printed:?}");
}
