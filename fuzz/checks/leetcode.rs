//! The `leetcode` property: `leetcode::from_chars`, `try_update_board` and `update_board`
//! never panic on bad input, refuse exactly the boards the problem rules out (with the error
//! for the first problem found), and on every board they accept give what a plain
//! depth-first solution of LeetCode 529 gives.
//!
//! Shared by the `leetcode` fuzz target and `tests/fuzz_regressions.rs`; the crate that
//! includes it needs the `support` module of `tests/`.

use arbitrary::{Arbitrary, Unstructured};
use bitmines_core::leetcode::{from_chars, to_chars, try_update_board, update_board};
use bitmines_core::{Error, Status};

use crate::coord::Coord;
use crate::support::{Rng, around, naive_update_board};

/// The characters a raw grid is drawn from: the format's own (twice as likely), and some
/// near misses.
const ALPHABET: [char; 24] = [
    'E',
    'E',
    'E',
    'M',
    'M',
    'B',
    'B',
    'X',
    '1',
    '1',
    '2',
    '3',
    '4',
    '5',
    '6',
    '7',
    '8',
    '0',
    '9',
    'e',
    'm',
    ' ',
    '\u{e9}',
    '\u{1f4a3}',
];

/// Widths at the word edges of the engine's padded rows, for played boards.
const WIDTHS: [usize; 10] = [1, 2, 3, 62, 63, 64, 65, 66, 127, 130];

/// A character of a raw grid.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub(crate) struct Sym(u8);

impl Sym {
    fn get(self) -> char {
        ALPHABET[usize::from(self.0) % ALPHABET.len()]
    }
}

/// One input of the `leetcode` target.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) enum Input {
    /// A grid of characters, rows of any length (none, empty or ragged too).
    Raw {
        /// The rows.
        grid: Vec<Vec<Sym>>,
        /// The click, row then column.
        click: (Coord, Coord),
    },
    /// A board the problem allows: mines at `percent % 61` percent, drawn from `seed`, then
    /// earlier clicks replayed with the plain solution (a click on a mine leaves an `X`),
    /// then perhaps one cell changed, which usually makes it one the problem rules out.
    Played {
        /// `1 + rows % 12` rows.
        rows: u8,
        /// Columns: one of [`WIDTHS`] or `1 + n % 12`.
        cols: u8,
        /// The share of mines.
        percent: u8,
        /// Where the mines are.
        seed: u64,
        /// Earlier clicks, each coordinate modulo its side (the first eight).
        clicks: Vec<(u16, u16)>,
        /// One cell set to a character, each coordinate modulo its side.
        change: Option<(u16, u16, Sym)>,
        /// The click, row then column.
        click: (Coord, Coord),
    },
}

/// Decodes `data` as libFuzzer's `fuzz_target!` does and checks it; undecodable data is
/// skipped, as the target skips it.
pub(crate) fn check_bytes(data: &[u8]) {
    if data.len() < <Input as Arbitrary>::size_hint(0).0 {
        return;
    }
    if let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) {
        check(&input);
    }
}

/// Builds the board and the click of `input` and checks every entry point on them.
pub(crate) fn check(input: &Input) {
    let (board, click) = match input {
        Input::Raw { grid, click } => {
            let board: Vec<Vec<char>> = grid
                .iter()
                .map(|row| row.iter().map(|s| s.get()).collect())
                .collect();
            let (rows, cols) = (board.len(), board.first().map_or(0, Vec::len));
            (board, [click.0.get(rows), click.1.get(cols)])
        }
        Input::Played {
            rows,
            cols,
            percent,
            seed,
            clicks,
            change,
            click,
        } => {
            let rows = 1 + usize::from(*rows) % 12;
            let cols = if cols & 1 == 0 {
                WIDTHS[usize::from(cols >> 1) % WIDTHS.len()]
            } else {
                1 + usize::from(cols >> 1) % 12
            };
            let mut rng = Rng::new(*seed);
            let density = f64::from(percent % 61) / 100.0;
            let mut board: Vec<Vec<char>> = (0..rows)
                .map(|_| {
                    (0..cols)
                        .map(|_| if rng.chance(density) { 'M' } else { 'E' })
                        .collect()
                })
                .collect();
            for &(r, c) in clicks.iter().take(8) {
                naive_update_board(&mut board, [usize::from(r) % rows, usize::from(c) % cols]);
            }
            if let Some((r, c, sym)) = change {
                board[usize::from(*r) % rows][usize::from(*c) % cols] = sym.get();
            }
            (board, [click.0.get(rows), click.1.get(cols)])
        }
    };
    check_board(&board, click);
}

/// The checks on one board and one click.
fn check_board(board: &[Vec<char>], click: [usize; 2]) {
    let refusal = refusal(board);
    let count = |set: &[char]| board.iter().flatten().filter(|c| set.contains(c)).count();

    // Importing: an `X` with no `E` left, or two `X`, is a state no game reaches (a reveal
    // needs a hidden safe cell, and only a chord sets off several mines, which needs flags
    // the format does not have), refused as `Inconsistent` at the first `X`.
    let first_x = board
        .iter()
        .enumerate()
        .find_map(|(r, line)| line.iter().position(|&ch| ch == 'X').map(|c| (r, c)));
    let unreachable = first_x
        .filter(|_| refusal.is_none() && (count(&['X']) > 1 || count(&['E']) == 0))
        .map(|(r, c)| Refusal::Inconsistent(r, c));
    match from_chars(board) {
        Ok(game) => {
            assert!(
                refusal.is_none() && unreachable.is_none(),
                "{:?} imported, expected {:?}",
                strings(board),
                refusal.or(unreachable)
            );
            game.validate()
                .unwrap_or_else(|e| panic!("{:?} imports invalid: {e}", strings(board)));
            let status = if count(&['X']) > 0 {
                Status::Lost
            } else if count(&['E']) == 0 {
                Status::Won
            } else {
                Status::Playing
            };
            assert_eq!(game.status(), status, "{:?}", strings(board));
            let revealed = count(&['B', '1', '2', '3', '4', '5', '6', '7', '8']);
            assert_eq!(game.revealed_count(), revealed, "{:?}", strings(board));
            assert_eq!(
                game.mine_count(),
                count(&['M', 'X']),
                "{:?}",
                strings(board)
            );
            let back = to_chars(&game)
                .unwrap_or_else(|e| panic!("{:?} does not export: {e}", strings(board)));
            assert_eq!(
                strings(&back),
                strings(board),
                "to_chars(from_chars(board))"
            );
        }
        Err(error) => {
            let expected = refusal.or(unreachable);
            assert!(
                expected.is_some_and(|refusal| refusal.matches(&error)),
                "{:?} refused with {error:?}, expected {expected:?}",
                strings(board)
            );
        }
    }

    // Clicking.
    let (rows, cols) = (board.len(), board.first().map_or(0, Vec::len));
    let refusal = refusal
        .or_else(|| (click[0] >= rows || click[1] >= cols).then_some(Refusal::OffBoard(click)));
    let mut tried = board.to_vec();
    match (try_update_board(&mut tried, click), refusal) {
        (Ok(()), None) => {
            let mut want = board.to_vec();
            naive_update_board(&mut want, click);
            assert_eq!(
                strings(&tried),
                strings(&want),
                "try_update_board (left) and the plain solution (right) on {:?}, click {click:?}",
                strings(board)
            );
            let mut got = board.to_vec();
            update_board(&mut got, click);
            assert_eq!(strings(&got), strings(&want), "update_board");
        }
        (Ok(()), Some(refusal)) => panic!(
            "{:?}, click {click:?}: accepted, expected {refusal:?}",
            strings(board)
        ),
        (Err(error), None) => panic!("{:?}, click {click:?}: {error}", strings(board)),
        (Err(error), Some(refusal)) => {
            assert!(
                refusal.matches(&error),
                "{:?}, click {click:?}: refused with {error:?}, expected {refusal:?}",
                strings(board)
            );
            assert_eq!(tried, board, "a refused click changed the board");
        }
    }
}

/// Why a LeetCode board or click must be refused: the first problem, in the order the
/// checks run (the shape, the characters, an empty board, the numbers, the click).
#[derive(Debug, Clone, Copy)]
enum Refusal {
    /// Row `line` (1-based) has `found` characters, not `expected`.
    Ragged {
        line: usize,
        expected: usize,
        found: usize,
    },
    /// A character not in the format, at a 1-based line and column.
    BadChar(usize, usize, char),
    /// No rows, or rows with no cells.
    Empty(usize, usize),
    /// A `B` or digit at a cell that disagrees with the mines around it.
    Inconsistent(usize, usize),
    /// A click off the board.
    OffBoard([usize; 2]),
}

impl Refusal {
    fn matches(&self, error: &Error) -> bool {
        match (*self, error) {
            (
                Refusal::Ragged {
                    line,
                    expected,
                    found,
                },
                &Error::Ragged {
                    line: l,
                    expected: e,
                    found: f,
                },
            ) => (line, expected, found) == (l, e, f),
            (
                Refusal::BadChar(l, c, f),
                Error::BadChar {
                    line, col, found, ..
                },
            ) => (l, c, f) == (*line, *col, *found),
            (Refusal::Empty(r, c), Error::EmptyBoard { rows, cols }) => (r, c) == (*rows, *cols),
            (Refusal::Inconsistent(r, c), Error::Inconsistent { row, col, .. }) => {
                (r, c) == (*row, *col)
            }
            (Refusal::OffBoard([r, c]), Error::OffBoard { row, col, .. }) => (r, c) == (*row, *col),
            _ => false,
        }
    }
}

/// The first problem with a board, or `None` for a board the problem allows.
fn refusal(board: &[Vec<char>]) -> Option<Refusal> {
    let (rows, cols) = (board.len(), board.first().map_or(0, Vec::len));
    for (r, line) in board.iter().enumerate() {
        if line.len() != cols {
            return Some(Refusal::Ragged {
                line: r + 1,
                expected: cols,
                found: line.len(),
            });
        }
    }
    for (r, line) in board.iter().enumerate() {
        for (c, &ch) in line.iter().enumerate() {
            if !matches!(ch, 'M' | 'E' | 'B' | 'X' | '1'..='8') {
                return Some(Refusal::BadChar(r + 1, c + 1, ch));
            }
        }
    }
    if rows == 0 || cols == 0 {
        return Some(Refusal::Empty(rows, cols));
    }
    for (r, line) in board.iter().enumerate() {
        for (c, &ch) in line.iter().enumerate() {
            let shown = match ch {
                'B' => 0,
                '1'..='8' => ch as usize - '0' as usize,
                _ => continue,
            };
            let mines = around(rows, cols, r, c)
                .into_iter()
                .filter(|&(nr, nc)| matches!(board[nr][nc], 'M' | 'X'))
                .count();
            if mines != shown {
                return Some(Refusal::Inconsistent(r, c));
            }
        }
    }
    None
}

/// The rows of a character board as strings, for readable failure messages.
fn strings(board: &[Vec<char>]) -> Vec<String> {
    board.iter().map(|row| row.iter().collect()).collect()
}
