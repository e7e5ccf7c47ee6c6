//! Boards and games as text and bytes.
//!
//! - **Text boards**: one line per row, `*` for a mine and `.` for a safe cell, every line the
//!   same length, the final newline optional. `Board: FromStr + Display`.
//! - **Text games**: a header line `bitmines game ROWSxCOLS STATUS`, followed by ` endless`
//!   for a game under [`Rule::Endless`], then one line per row with one character per cell,
//!   giving both the truth and the view:
//!
//!   | char | cell |
//!   | --- | --- |
//!   | `.` | hidden safe cell |
//!   | `*` | hidden mine |
//!   | `f` | flag on a safe cell |
//!   | `F` | flag on a mine |
//!   | `0`-`8` | revealed safe cell, showing its number |
//!   | `X` | exploded mine |
//!
//!   `Game: FromStr + Display` round-trip exactly; reading checks that every number agrees
//!   with the mines, that the state is one play can reach under the game's rule (the rules
//!   of the [saved-game format](crate::saved): for example, under the classic rule, two `X`
//!   need a revealed cell next to both with as many flags around it as its number, as the
//!   chord that set them off left it), and that the status in the header is the one the
//!   cells imply. A deferred game has no board yet and is written as its header alone
//!   (`... deferred`), which does not read back.
//! - **MBF**, the board format of Minesweeper X and Arbiter: a `u8` width, a `u8` height, a
//!   big-endian `u16` mine count, then an `(x, y)` byte pair per mine, `4 + 2n` bytes in all.
//!   [`Board::from_mbf`] and [`Board::to_mbf`].
//!
//! ```
//! use bitmines_core::{Board, Game, Rule};
//!
//! let mut game = Game::new("*..\n...\n..*\n".parse::<Board>()?);
//! game.toggle_flag(0, 0)?;
//! game.reveal(2, 0)?;
//! let text = game.to_string();
//! assert_eq!(text, "bitmines game 3x3 playing\nF..\n12.\n01*\n");
//! assert_eq!(text.parse::<Game>()?.to_string(), text);
//!
//! let mut endless = Game::new("*..\n...\n..*\n".parse::<Board>()?).with_rule(Rule::Endless);
//! endless.reveal(0, 0)?;
//! endless.reveal(2, 2)?;
//! let text = endless.to_string();
//! assert_eq!(text, "bitmines game 3x3 playing endless\nX..\n...\n..X\n");
//! assert_eq!(text.parse::<Game>()?.rule(), Rule::Endless);
//!
//! let board = Board::from_mbf(&[3, 2, 0, 1, 2, 1])?; // 3 wide, 2 high, one mine at x=2, y=1
//! assert!(board.is_mine(1, 2)?);
//! assert_eq!(board.to_mbf()?, [3, 2, 0, 1, 2, 1]);
//! # Ok::<(), bitmines_core::Error>(())
//! ```
//!
//! The readers build through `Board::from_mines` and the private `Game::restore`, so every
//! imported state is checked by the same `Game::from_view` as the binary formats
//! (`Inconsistent` names the cell).

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::game::Shown;
use crate::{Board, Cell, Error, Game, Rule, Status};

impl FromStr for Board {
    type Err = Error;

    fn from_str(text: &str) -> Result<Board, Error> {
        let lines: Vec<&str> = text.lines().collect();
        let cols = lines.first().map_or(0, |l| l.chars().count());
        let mut mines = Vec::new();
        for (r, line) in lines.iter().enumerate() {
            let mut width = 0;
            for (c, ch) in line.chars().enumerate() {
                match ch {
                    '*' => mines.push((r, c)),
                    '.' => {}
                    found => {
                        return Err(Error::BadChar {
                            line: r + 1,
                            col: c + 1,
                            found,
                            expected: "'*' or '.'",
                        });
                    }
                }
                width += 1;
            }
            if width != cols {
                return Err(Error::Ragged {
                    line: r + 1,
                    expected: cols,
                    found: width,
                });
            }
        }
        Board::from_mines(lines.len(), cols, mines)
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut line = String::with_capacity(self.cols() + 1);
        for r in 0..self.rows() {
            line.clear();
            let row = self.mine_row(r).map_err(|_| fmt::Error)?;
            line.extend(row.iter().map(|m| if *m { '*' } else { '.' }));
            line.push('\n');
            f.write_str(&line)?;
        }
        Ok(())
    }
}

const HEADER: &str = "bitmines game ROWSxCOLS playing|won|lost [endless]";

/// The header's last word for a game under the endless rule, after the status.
const ENDLESS: &str = " endless";
const GAME_CHARS: &str = "one of . * f F X 0-8";

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule = match self.rule() {
            Rule::Endless => ENDLESS,
            Rule::Classic => "",
        };
        let Some(board) = self.board() else {
            return writeln!(
                f,
                "bitmines game {}x{} deferred{rule}",
                self.rows(),
                self.cols()
            );
        };
        writeln!(
            f,
            "bitmines game {}x{} {}{rule}",
            self.rows(),
            self.cols(),
            self.status()
        )?;
        let mut line = String::with_capacity(self.cols() + 1);
        for r in 0..self.rows() {
            line.clear();
            for c in 0..self.cols() {
                let mine = board.is_mine(r, c).map_err(|_| fmt::Error)?;
                line.push(match (self.cell(r, c).map_err(|_| fmt::Error)?, mine) {
                    (Cell::Open(n), _) => char::from(b'0' + n),
                    (Cell::Exploded, _) => 'X',
                    (Cell::Flagged | Cell::WrongFlag, true) => 'F',
                    (Cell::Flagged | Cell::WrongFlag, false) => 'f',
                    (_, true) => '*',
                    (_, false) => '.',
                });
            }
            line.push('\n');
            f.write_str(&line)?;
        }
        Ok(())
    }
}

impl FromStr for Game {
    type Err = Error;

    fn from_str(text: &str) -> Result<Game, Error> {
        let mut lines = text.lines();
        let header = lines.next().unwrap_or("");
        let bad_header = || Error::BadHeader {
            expected: HEADER,
            found: header.to_string(),
        };
        let fields: Vec<&str> = header.split_whitespace().collect();
        let (rule, fields) = match fields[..] {
            [ref head @ .., last] if last == ENDLESS.trim_start() => (Rule::Endless, head),
            ref all => (Rule::Classic, all),
        };
        let [magic, kind, size, status] = fields[..] else {
            return Err(bad_header());
        };
        let declared = match status {
            "playing" => Status::Playing,
            "won" => Status::Won,
            "lost" => Status::Lost,
            _ => return Err(bad_header()),
        };
        let (rows, cols) = size.split_once('x').ok_or_else(bad_header)?;
        // Digits only: the number parser would also take a sign, which never prints back.
        let number = |n: &str| {
            n.bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| n.parse::<usize>().ok())
                .flatten()
        };
        let (Some(rows), Some(cols)) = (number(rows), number(cols)) else {
            return Err(bad_header());
        };
        if (magic, kind) != ("bitmines", "game") {
            return Err(bad_header());
        }
        let grid = char_grid(lines, rows, cols, 2)?;
        let board = Board::from_mines(
            rows,
            cols,
            grid_cells(&grid)
                .filter(|&(_, _, ch)| matches!(ch, '*' | 'F' | 'X'))
                .map(|(r, c, _)| (r, c)),
        )?;
        for (r, c, ch) in grid_cells(&grid) {
            if !matches!(ch, '.' | '*' | 'f' | 'F' | 'X' | '0'..='8') {
                return Err(Error::BadChar {
                    line: r + 2,
                    col: c + 1,
                    found: ch,
                    expected: GAME_CHARS,
                });
            }
            check_number(&board, r, c, ch)?;
        }
        // The grid is rectangular and the board's size, so every cell is found.
        let shown = |r: usize, c: usize| grid.get(r).and_then(|line| line.get(c)).copied();
        let game = Game::restore(Arc::new(board), rule, |r, c| {
            match shown(r, c).unwrap_or('.') {
                'f' | 'F' => Shown::Flagged,
                'X' => Shown::Exploded,
                '0'..='8' => Shown::Revealed,
                _ => Shown::Hidden,
            }
        })?;
        if game.status() != declared {
            return Err(Error::StatusMismatch {
                declared,
                actual: game.status(),
            });
        }
        Ok(game)
    }
}

/// `Inconsistent` if the digit `ch` at `(row, col)` is not the cell's number.
pub(crate) fn check_number(board: &Board, row: usize, col: usize, ch: char) -> Result<(), Error> {
    if let Some(shown) = ch.to_digit(10) {
        let number = board.number(row, col)?;
        if shown != u32::from(number) {
            return Err(Error::Inconsistent {
                row,
                col,
                reason: format!("shows {shown} but {number} mines are next to it"),
            });
        }
    }
    Ok(())
}

/// Reads `rows` lines of exactly `cols` characters each; `first_line` numbers them in errors.
fn char_grid<'a>(
    lines: impl Iterator<Item = &'a str>,
    rows: usize,
    cols: usize,
    first_line: usize,
) -> Result<Vec<Vec<char>>, Error> {
    crate::Geometry::new(rows, cols)?;
    let grid: Vec<Vec<char>> = lines.map(|l| l.chars().collect()).collect();
    if grid.len() != rows {
        return Err(Error::RowCountMismatch {
            declared: rows,
            found: grid.len(),
        });
    }
    for (r, line) in grid.iter().enumerate() {
        if line.len() != cols {
            return Err(Error::Ragged {
                line: first_line + r,
                expected: cols,
                found: line.len(),
            });
        }
    }
    Ok(grid)
}

/// Every `(row, col, char)` of a grid, row by row.
pub(crate) fn grid_cells(grid: &[Vec<char>]) -> impl Iterator<Item = (usize, usize, char)> + '_ {
    grid.iter()
        .enumerate()
        .flat_map(|(r, line)| line.iter().enumerate().map(move |(c, &ch)| (r, c, ch)))
}

impl Board {
    /// Reads an MBF board: `u8` width, `u8` height, big-endian `u16` mine count, then an
    /// `(x, y)` byte pair per mine. A short file is `Truncated`, extra bytes are
    /// `MineCountMismatch`, and a pair off the board or repeated is `OffBoard` or
    /// `DuplicateMine`.
    pub fn from_mbf(bytes: &[u8]) -> Result<Board, Error> {
        let [width, height, hi, lo, pairs @ ..] = bytes else {
            return Err(Error::Truncated {
                needed: 4,
                found: bytes.len(),
            });
        };
        let declared = usize::from(u16::from_be_bytes([*hi, *lo]));
        let needed = 4 + 2 * declared;
        if bytes.len() < needed {
            return Err(Error::Truncated {
                needed,
                found: bytes.len(),
            });
        }
        if bytes.len() > needed {
            return Err(Error::MineCountMismatch {
                declared,
                found: pairs.len().div_ceil(2),
            });
        }
        let mines = pairs
            .as_chunks::<2>()
            .0
            .iter()
            .map(|&[x, y]| (usize::from(y), usize::from(x)));
        Board::from_mines(usize::from(*height), usize::from(*width), mines)
    }

    /// Writes the board as MBF, mines in row order. Boards wider or taller than 255 cells do
    /// not fit the format (`TooLargeForFormat`); no board that does fit has more mines than
    /// the count field holds.
    pub fn to_mbf(&self) -> Result<Vec<u8>, Error> {
        let too_large = || Error::TooLargeForFormat {
            rows: self.rows(),
            cols: self.cols(),
            format: "MBF",
            limit: "255 rows and 255 columns",
        };
        let (Ok(width), Ok(height)) = (u8::try_from(self.cols()), u8::try_from(self.rows())) else {
            return Err(too_large());
        };
        let count = u16::try_from(self.mine_count()).map_err(|_| too_large())?;
        let mut out = Vec::with_capacity(4 + 2 * self.mine_count());
        out.extend([width, height]);
        out.extend(count.to_be_bytes());
        for y in 0..height {
            for (x, mine) in (0..width).zip(self.mine_row(usize::from(y))?.iter()) {
                if *mine {
                    out.extend([x, y]);
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_states_a_game_can_reach_are_read() {
        for text in [
            "bitmines game +1x+1 playing\n.\n",
            "bitmines game 1x-1 playing\n.\n",
        ] {
            assert!(
                matches!(text.parse::<Game>(), Err(Error::BadHeader { .. })),
                "{text}"
            );
        }
        // With no safe cell the game is won before any move, so nothing can have exploded.
        assert!(matches!(
            "bitmines game 1x2 lost\nX*\n".parse::<Game>(),
            Err(Error::Inconsistent { row: 0, col: 0, .. })
        ));
        assert_eq!(
            "bitmines game 1x2 won\n**\n"
                .parse::<Game>()
                .map(|g| g.status()),
            Ok(Status::Won)
        );
    }

    #[test]
    fn text_round_trips() {
        for text in ["*\n", ".\n", "*..\n...\n..*\n", "..*.*\n"] {
            let board: Board = text.parse().unwrap();
            assert_eq!(board.to_string(), text);
        }
        let board: Board = "*.\r\n.*".parse().unwrap();
        assert_eq!(board.mine_count(), 2);
    }
}
