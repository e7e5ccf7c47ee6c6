//! Text forms of boards.
//!
//! A board as text is one line per row, `*` for a mine and `.` for a safe cell; every line
//! has the same length, and a final newline is optional. `Display` writes the same form, so
//! `board.to_string().parse::<Board>()` gives the board back.

use std::fmt;
use std::str::FromStr;

use crate::{Board, Error};

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

#[cfg(test)]
mod tests {
    use super::*;

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
