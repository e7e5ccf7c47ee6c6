//! Help: hints, odds and wrong flags. Each is computed from the asking player's own view,
//! never from the board, over a window of [`WINDOW`] cells a side around the asked cell.

use bitmines_core::{Cell, Position, Status};
use bitmines_solve::{Reason, Solver};

use super::{ConnId, Refusal, Room, refuse};
use crate::params::RoomParams;
use crate::protocol::{ErrorCode, ServerMsg};

/// Cells a side of the window a hint or odds request looks at.
pub const WINDOW: usize = 48;

impl Room {
    /// Runs `ask` on the asking player's own view around `(row, col)`, for the help
    /// requests: only a player may ask, only on the board, only while the game is played.
    fn help<T>(
        &self,
        conn: ConnId,
        (row, col): (u32, u32),
        ask: impl FnOnce(&ViewCells<'_>, usize, usize) -> Result<T, String>,
        code: ErrorCode,
    ) -> Result<T, Refusal> {
        let player = self.player_of(conn)?;
        let (r, c) = self.check_cell(row, col)?;
        let game = &self.views[self.players[player].view].game;
        if game.status() != Status::Playing {
            return refuse(ErrorCode::GameOver, "this game is over");
        }
        let cell = |r: usize, c: usize| game.cell(r, c).unwrap_or(Cell::Hidden);
        let view = ViewCells {
            params: &self.params,
            cell: &cell,
            revealed: game.revealed_count(),
            exploded: game.exploded_count(),
        };
        ask(&view, r, c).map_err(|e| (code, e))
    }

    /// A hint from the player's own view (see [`window_hint`]).
    pub(super) fn hint(
        &mut self,
        conn: ConnId,
        seq: u32,
        row: u32,
        col: u32,
    ) -> Result<(), Refusal> {
        let found = self.help(conn, (row, col), window_hint, ErrorCode::BadFrame)?;
        self.reply(conn, ServerMsg::Hint { seq, found });
        Ok(())
    }

    /// The odds of the window around the cell, from the player's own view (see
    /// [`window_odds`]).
    pub(super) fn odds(
        &mut self,
        conn: ConnId,
        seq: u32,
        row: u32,
        col: u32,
    ) -> Result<(), Refusal> {
        let (row, col, height, width, cells) =
            self.help(conn, (row, col), window_odds, ErrorCode::NoAnswer)?;
        self.reply(
            conn,
            ServerMsg::Odds {
                seq,
                row,
                col,
                height,
                width,
                cells,
            },
        );
        Ok(())
    }

    /// The flags proven wrong in the window around the cell, from the player's own view (see
    /// [`window_wrong_flags`]).
    pub(super) fn wrong_flags(
        &mut self,
        conn: ConnId,
        seq: u32,
        row: u32,
        col: u32,
    ) -> Result<(), Refusal> {
        let cells = self.help(conn, (row, col), window_wrong_flags, ErrorCode::BadFrame)?;
        self.reply(conn, ServerMsg::WrongFlags { seq, cells });
        Ok(())
    }
}

fn shift_reason(reason: Reason, r0: usize, c0: usize) -> Reason {
    let s = |(r, c): (usize, usize)| (r + r0, c + c0);
    match reason {
        Reason::Satisfied { by, number } => Reason::Satisfied { by: s(by), number },
        Reason::Full { by, number } => Reason::Full { by: s(by), number },
        Reason::Pair { first, second } => Reason::Pair {
            first: s(first),
            second: s(second),
        },
        Reason::Component { numbers, global } => Reason::Component {
            numbers: numbers.into_iter().map(s).collect(),
            global,
        },
        other => other,
    }
}

/// What a window of a view is computed from: the view's cells (as `Game::cell` shows them to
/// its player during play), and the counts a player knows.
pub struct ViewCells<'a> {
    /// The room's parameters (size and mine count).
    pub params: &'a RoomParams,
    /// The cell at `(row, col)`.
    pub cell: &'a dyn Fn(usize, usize) -> Cell,
    /// Safe cells revealed on the view.
    pub revealed: usize,
    /// Mines set off on the view.
    pub exploded: usize,
}

/// The part of a view a hint or odds request looks at: [`WINDOW`] cells a side around the
/// asked cell, cut at the board's edges.
struct Window {
    r0: usize,
    c0: usize,
    height: usize,
    width: usize,
}

impl Window {
    fn around(params: &RoomParams, r: usize, c: usize) -> Window {
        let span = |at: usize, len: usize| {
            let size = WINDOW.min(len);
            let start = at.saturating_sub(size / 2).min(len - size);
            (start, size)
        };
        let (r0, height) = span(r, params.rows);
        let (c0, width) = span(c, params.cols);
        Window {
            r0,
            c0,
            height,
            width,
        }
    }

    /// A solver over the window. A revealed number is kept only if all its neighbours on the
    /// board lie inside the window, so every constraint the solver sees is whole; the
    /// cells past the window's edge are simply not there. What it proves with the trivial
    /// and pair rules is therefore true of the whole board. The mine count it is given (for
    /// the odds) is the window's hidden cells times the board's density of mines left.
    fn solver(&self, view: &ViewCells<'_>) -> Result<Solver, String> {
        self.solver_with(view, None)
    }

    /// The same, with the window's mine count given instead of estimated.
    fn solver_with(&self, view: &ViewCells<'_>, count: Option<usize>) -> Result<Solver, String> {
        let (rows, cols) = (view.params.rows, view.params.cols);
        let mut hidden = 0usize;
        let mut numbers = Vec::new();
        let mut exploded = Vec::new();
        for wr in 0..self.height {
            for wc in 0..self.width {
                let (r, c) = (wr + self.r0, wc + self.c0);
                match (view.cell)(r, c) {
                    Cell::Open(n) => {
                        let whole = (r > self.r0 || r == 0)
                            && (r + 1 < self.r0 + self.height || r + 1 == rows)
                            && (c > self.c0 || c == 0)
                            && (c + 1 < self.c0 + self.width || c + 1 == cols);
                        if whole {
                            numbers.push((wr, wc, n));
                        } else {
                            hidden += 1;
                        }
                    }
                    Cell::Exploded => exploded.push((wr, wc)),
                    _ => hidden += 1,
                }
            }
        }
        let left_mines = view.params.mines.saturating_sub(view.exploded);
        let left_cells = (rows * cols)
            .saturating_sub(view.revealed + view.exploded)
            .max(1);
        let estimate = (hidden as f64 * left_mines as f64 / left_cells as f64).round() as usize;
        let mines = count
            .unwrap_or(estimate + exploded.len())
            .min(hidden + exploded.len());
        let mut position =
            Position::new(self.height, self.width, mines).map_err(|e| e.to_string())?;
        for (wr, wc, n) in numbers {
            position.reveal(wr, wc, n).map_err(|e| e.to_string())?;
        }
        let mut solver = Solver::new(&position).map_err(|e| e.to_string())?;
        for (wr, wc) in exploded {
            solver.assume_mine(wr, wc).map_err(|e| e.to_string())?;
        }
        Ok(solver)
    }
}

/// The hint for `(row, col)`: the hidden cell nearest it that the trivial and pair rules
/// prove safe in its window, with the reason in words, or `None`.
pub fn window_hint(
    view: &ViewCells<'_>,
    row: usize,
    col: usize,
) -> Result<Option<(u32, u32, String)>, String> {
    let window = Window::around(view.params, row, col);
    let mut solver = window.solver(view)?;
    solver.deduce().map_err(|e| e.to_string())?;
    let certain = solver.into_certain();
    let best = certain
        .safe()
        .map(|(wr, wc)| (wr + window.r0, wc + window.c0))
        .filter(|&(sr, sc)| (view.cell)(sr, sc) == Cell::Hidden)
        .min_by_key(|&(sr, sc)| (sr.abs_diff(row).max(sc.abs_diff(col)), sr, sc));
    Ok(best.map(|(sr, sc)| {
        let reason = certain.reason(sr - window.r0, sc - window.c0).map_or_else(
            || "proven safe".to_string(),
            |reason| shift_reason(reason, window.r0, window.c0).to_string(),
        );
        (sr as u32, sc as u32, reason)
    }))
}

/// The flags in the window around `(row, col)` that stand on cells the trivial and pair
/// rules prove safe, row by row. Like [`window_hint`], it reads only the view's cells, and a
/// flag is a hidden cell to the solver, so an answer is as sound on the whole board as a
/// hint; a wrong flag that only the truth could tell is never named.
pub fn window_wrong_flags(
    view: &ViewCells<'_>,
    row: usize,
    col: usize,
) -> Result<Vec<(u32, u32)>, String> {
    let window = Window::around(view.params, row, col);
    let mut solver = window.solver(view)?;
    solver.deduce().map_err(|e| e.to_string())?;
    let certain = solver.into_certain();
    Ok(certain
        .safe()
        .map(|(wr, wc)| (wr + window.r0, wc + window.c0))
        .filter(|&(r, c)| (view.cell)(r, c) == Cell::Flagged)
        .map(|(r, c)| (r as u32, c as u32))
        .collect())
}

/// The odds over the window around `(row, col)`: `(first row, first col, height, width,
/// cells)`, each cell `0..=200` the chance of a mine in half percents or 255 not hidden.
pub fn window_odds(
    view: &ViewCells<'_>,
    row: usize,
    col: usize,
) -> Result<(u32, u32, u16, u16, Vec<u8>), String> {
    let window = Window::around(view.params, row, col);
    // The window's mine count is only an estimate, and its numbers may need more mines (or
    // fewer) than it says: then the nearest count they allow is taken.
    let solution = match window.solver_with(view, None)?.solve_with(false) {
        Err(bitmines_solve::Error::MineCount { mines, min, max }) => window
            .solver_with(view, Some(mines.clamp(min, max)))?
            .solve_with(false),
        other => other,
    }
    .map_err(|e| e.to_string())?;
    let mut cells = Vec::with_capacity(window.height * window.width);
    for wr in 0..window.height {
        for wc in 0..window.width {
            let hidden = matches!(
                (view.cell)(wr + window.r0, wc + window.c0),
                Cell::Hidden | Cell::Flagged
            );
            let p = solution.probabilities.mine(wr, wc).ok().filter(|_| hidden);
            cells.push(p.map_or(255, |p| (p.clamp(0.0, 1.0) * 200.0).round() as u8));
        }
    }
    Ok((
        window.r0 as u32,
        window.c0 as u32,
        window.height as u16,
        window.width as u16,
        cells,
    ))
}

#[cfg(test)]
mod tests {
    use bitmines_core::{Board, Game};

    use super::*;
    use crate::protocol::{MineRule, Mode};

    #[test]
    fn a_window_hint_finds_what_the_whole_board_proves() {
        let board: Board = "\
....
....
**..
....
"
        .parse()
        .unwrap();
        let mut game = Game::new(board);
        game.reveal(0, 0).unwrap();
        let params = RoomParams {
            rows: 4,
            cols: 4,
            mines: 2,
            mode: Mode::Coop,
            rule: MineRule::Classic,
            no_guess: false,
            first: (0, 0),
        };
        let cell = |r: usize, c: usize| game.cell(r, c).unwrap();
        let view = ViewCells {
            params: &params,
            cell: &cell,
            revealed: game.revealed_count(),
            exploded: 0,
        };
        let found = window_hint(&view, 1, 1).unwrap();
        let (r, c, reason) = found.unwrap();
        assert_eq!((r, c), (3, 1), "{reason}");
        assert!(reason.contains("(2, 2)"), "{reason}");
    }

    #[test]
    fn odds_come_back_when_the_window_needs_more_mines_than_the_density_says() {
        // A 200x200 board whose mines all lie in a 12x12 block, opened beside the block:
        // the window's numbers need far more mines than the board's density gives it.
        let mut text = String::new();
        for r in 0..200 {
            for c in 0..200 {
                let mine = (60..72).contains(&r) && (60..72).contains(&c) && (r + c) % 3 != 0;
                text.push(if mine { '*' } else { '.' });
            }
            text.push('\n');
        }
        let board: Board = text.parse().unwrap();
        let mines = board.mine_count();
        let mut game = Game::new(board);
        game.reveal(0, 0).unwrap();
        let params = RoomParams {
            rows: 200,
            cols: 200,
            mines,
            mode: Mode::Coop,
            rule: MineRule::Classic,
            no_guess: false,
            first: (0, 0),
        };
        let cell = |r: usize, c: usize| game.cell(r, c).unwrap();
        let view = ViewCells {
            params: &params,
            cell: &cell,
            revealed: game.revealed_count(),
            exploded: 0,
        };
        let (r0, c0, h, w, cells) = window_odds(&view, 66, 66).unwrap();
        assert_eq!(cells.len(), usize::from(h) * usize::from(w));
        // Every hidden cell of the window has a chance, every open one none.
        for (i, &odds) in cells.iter().enumerate() {
            let (r, c) = (
                r0 as usize + i / usize::from(w),
                c0 as usize + i % usize::from(w),
            );
            let hidden = game.cell(r, c).unwrap() == Cell::Hidden;
            assert_eq!(odds <= 200, hidden, "({r}, {c}): {odds}");
        }
    }
}
