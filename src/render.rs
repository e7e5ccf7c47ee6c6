//! A text picture of a game, one character per cell.

use bitmines_core::{Cell, Error, Game};

/// The character shown for a cell, as text; `bitmines play --ascii` draws cells with these.
pub(crate) const fn glyph(cell: Cell) -> &'static str {
    const NUMBERS: [&str; 9] = [".", "1", "2", "3", "4", "5", "6", "7", "8"];
    match cell {
        Cell::Hidden => "#",
        Cell::Flagged => "F",
        Cell::Open(n) if (n as usize) < NUMBERS.len() => NUMBERS[n as usize],
        Cell::Open(_) => "?",
        Cell::Exploded => "X",
        Cell::Mine => "*",
        Cell::WrongFlag => "!",
    }
}

/// The whole game as text, one line per row.
pub(crate) fn picture(game: &Game) -> Result<String, Error> {
    let mut out = String::with_capacity((game.cols() + 1) * game.rows());
    for r in 0..game.rows() {
        for c in 0..game.cols() {
            out.push_str(glyph(game.cell(r, c)?));
        }
        out.push('\n');
    }
    Ok(out)
}
