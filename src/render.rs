//! A text picture of a game, one character per cell.

use bitmines_core::{Cell, Error, Game};

/// The character shown for a cell.
pub(crate) fn glyph(cell: Cell) -> char {
    match cell {
        Cell::Hidden => '#',
        Cell::Flagged => 'F',
        Cell::Open(0) => '.',
        Cell::Open(n) => char::from(b'0' + n),
        Cell::Exploded => 'X',
        Cell::Mine => '*',
        Cell::WrongFlag => '!',
    }
}

/// The whole game as text, one line per row.
pub(crate) fn picture(game: &Game) -> Result<String, Error> {
    let mut out = String::with_capacity((game.cols() + 1) * game.rows());
    for r in 0..game.rows() {
        for c in 0..game.cols() {
            out.push(glyph(game.cell(r, c)?));
        }
        out.push('\n');
    }
    Ok(out)
}
