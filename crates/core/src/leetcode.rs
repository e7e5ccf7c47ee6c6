//! LeetCode 529 "Minesweeper": its character boards, and its `updateBoard` run on the engine.
//!
//! | char | cell |
//! | --- | --- |
//! | `M` | hidden mine |
//! | `E` | hidden empty (safe) cell |
//! | `B` | revealed safe cell with no neighbouring mine |
//! | `1`-`8` | revealed safe cell with that many neighbouring mines |
//! | `X` | revealed (exploded) mine |
//!
//! The format has no flags: [`to_chars`] writes a flagged cell as the hidden cell under it
//! (`M` or `E`), so the flags of a game are lost on export. It has no rule either: a board
//! reads as a [`Rule::Classic`] game, and an endless game's exploded mines export as `X`
//! (which reads back only where a classic game could show them).
//!
//! ```
//! use bitmines_core::leetcode::update_board;
//!
//! let mut board: Vec<Vec<char>> =
//!     ["EEEEE", "EEMEE", "EEEEE", "EEEEE"].iter().map(|r| r.chars().collect()).collect();
//! update_board(&mut board, [3, 0]);
//! let rows: Vec<String> = board.iter().map(|r| r.iter().collect()).collect();
//! assert_eq!(rows, ["B1E1B", "B1M1B", "B111B", "BBBBB"]);
//! ```
//!
//! `update_board` runs on a `Game` imported through the private `Game::restore` (so checked
//! like any other reader's), rather than on a second implementation of the rules.

use std::sync::Arc;

use crate::formats::{check_number, grid_cells};
use crate::game::Shown;
use crate::{Board, Cell, Error, Game, Rule, Status};

const CHARS: &str = "one of M E B X 1-8";

/// Applies a click to a LeetCode board in place, with exactly that problem's rules: a click
/// on `M` turns it into `X`; a click on `E` opens it and cascades through `E` cells from every
/// `B` it opens; a click on a revealed cell changes nothing.
///
/// # Panics
/// On input the problem rules out: an empty or ragged board, a character other than
/// `M E B X 1-8`, a revealed digit that disagrees with the mines, or a click off the board.
/// [`try_update_board`] reports each as an [`Error`] instead.
#[allow(
    clippy::panic,
    reason = "LeetCode's signature returns nothing; the panic is documented and try_update_board is the checked form"
)]
pub fn update_board(board: &mut Vec<Vec<char>>, click: [usize; 2]) {
    if let Err(error) = try_update_board(board, click) {
        panic!("update_board: {error}");
    }
}

/// [`update_board`], with every problem in the input reported as an error and the board left
/// unchanged.
///
/// The click runs on a [`Game`] imported from the board. Two cases follow LeetCode rather
/// than the game's status: an `X` already on the board does not stop the click (the game
/// treats it as a mine still to show), and a mine clicked when no `E` is left becomes `X`
/// although the game counts as won.
pub fn try_update_board(board: &mut Vec<Vec<char>>, click: [usize; 2]) -> Result<(), Error> {
    let exploded: Vec<(usize, usize)> = grid_cells(board)
        .filter(|&(_, _, ch)| ch == 'X')
        .map(|(r, c, _)| (r, c))
        .collect();
    let mut game = import(board, false)?;
    let [row, col] = click;
    if game.status() == Status::Won {
        // Nothing safe is hidden, so the click is on a mine or a revealed cell.
        let bit = game.cell(row, col)?;
        if bit == Cell::Hidden
            && let Some(cell) = board.get_mut(row).and_then(|line| line.get_mut(col))
        {
            *cell = 'X';
        }
        return Ok(());
    }
    game.reveal(row, col)?;
    let mut updated = to_chars(&game)?;
    for (r, c) in exploded {
        if let Some(cell) = updated.get_mut(r).and_then(|line| line.get_mut(c)) {
            *cell = 'X';
        }
    }
    *board = updated;
    Ok(())
}

/// Reads a LeetCode board into a game: mines at `M` and `X`, revealed cells at `B` and the
/// digits (each checked against the mines), exploded mines at `X`. An `X` makes the game
/// lost. A board no game reaches is `Inconsistent`: two `X` (only a chord sets off several
/// mines, and a chord needs flags, which the format does not have), or an `X` with no `E`
/// left (no move explodes a mine once every safe cell is open).
pub fn from_chars(board: &[Vec<char>]) -> Result<Game, Error> {
    import(board, true)
}

/// Writes a game as a LeetCode board. Flags are not part of the format: a flagged cell is
/// written as the hidden cell under it. A deferred game has no board yet and is `Deferred`.
pub fn to_chars(game: &Game) -> Result<Vec<Vec<char>>, Error> {
    let board = game.board().ok_or(Error::Deferred)?;
    (0..game.rows())
        .map(|r| {
            (0..game.cols())
                .map(|c| {
                    Ok(match game.cell(r, c)? {
                        Cell::Open(0) => 'B',
                        Cell::Open(n) => char::from(b'0' + n),
                        Cell::Exploded => 'X',
                        _ if board.is_mine(r, c)? => 'M',
                        _ => 'E',
                    })
                })
                .collect()
        })
        .collect()
}

/// The game a board shows; `X` cells are exploded mines when `explode` is set, hidden mines
/// otherwise.
fn import(board: &[Vec<char>], explode: bool) -> Result<Game, Error> {
    let (rows, cols) = (board.len(), board.first().map_or(0, Vec::len));
    for (r, line) in board.iter().enumerate() {
        if line.len() != cols {
            return Err(Error::Ragged {
                line: r + 1,
                expected: cols,
                found: line.len(),
            });
        }
    }
    for (r, c, ch) in grid_cells(board) {
        if !matches!(ch, 'M' | 'E' | 'B' | 'X' | '1'..='8') {
            return Err(Error::BadChar {
                line: r + 1,
                col: c + 1,
                found: ch,
                expected: CHARS,
            });
        }
    }
    let mines = grid_cells(board).filter(|&(_, _, ch)| matches!(ch, 'M' | 'X'));
    let truth = Board::from_mines(rows, cols, mines.map(|(r, c, _)| (r, c)))?;
    for (r, c, ch) in grid_cells(board) {
        check_number(&truth, r, c, if ch == 'B' { '0' } else { ch })?;
    }
    // The board is rectangular and the truth's size, so every cell is found.
    let shown = |r: usize, c: usize| board.get(r).and_then(|line| line.get(c)).copied();
    Game::restore(Arc::new(truth), Rule::Classic, |r, c| {
        match shown(r, c).unwrap_or('E') {
            'B' | '1'..='8' => Shown::Revealed,
            'X' if explode => Shown::Exploded,
            _ => Shown::Hidden,
        }
    })
}
