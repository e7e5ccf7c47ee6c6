//! Help: hints, odds and wrong flags. Each is computed from the asking player's own view,
//! never from the board, over a window of [`WINDOW`] cells a side around the asked cell.
//!
//! `window_hint`, `window_odds` and `window_wrong_flags` run `bitmines-solve` on the window,
//! keeping only numbers whose every neighbour is in the window, so what the trivial and pair
//! rules prove there holds on the whole board. The odds take the window's mine count from the
//! density of mines left, which a window cannot know exactly.

use bitmines_core::{Cell, Position, Status};
use bitmines_solve::{Reason, Solution, Solver};

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

    /// What the window shows the solver. A revealed number is kept only if all its
    /// neighbours on the board lie inside the window, so every constraint the solver sees
    /// is whole; a number on the window's edge is a hidden cell to it, and the cells past
    /// the window's edge are simply not there. What it proves with the trivial and pair
    /// rules is therefore true of the whole board.
    fn scan(&self, view: &ViewCells<'_>) -> Scan {
        let (rows, cols) = (view.params.rows, view.params.cols);
        let mut scan = Scan {
            hidden: 0,
            numbers: Vec::new(),
            exploded: Vec::new(),
            estimate: 0,
        };
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
                            scan.numbers.push((wr, wc, n));
                        } else {
                            scan.hidden += 1;
                        }
                    }
                    Cell::Exploded => scan.exploded.push((wr, wc)),
                    _ => scan.hidden += 1,
                }
            }
        }
        // The window's mine count is not known: its hidden cells times the board's density
        // of mines left, and its exploded mines.
        let left_mines = view.params.mines.saturating_sub(view.exploded);
        let left_cells = (rows * cols)
            .saturating_sub(view.revealed + view.exploded)
            .max(1);
        let estimate =
            (scan.hidden as f64 * left_mines as f64 / left_cells as f64).round() as usize;
        scan.estimate = (estimate + scan.exploded.len()).min(scan.most());
        scan
    }

    /// A solver over the window (see [`Window::scan`]) with the estimated mine count, for
    /// the trivial and pair rules, which need no count.
    fn solver(&self, view: &ViewCells<'_>) -> Result<Solver, String> {
        let scan = self.scan(view);
        self.solver_with(&scan, scan.estimate)
            .map_err(|e| self.board_error(&e))
    }

    /// A solver over what `scan` saw, with `mines` mines in the window.
    fn solver_with(&self, scan: &Scan, mines: usize) -> Result<Solver, bitmines_solve::Error> {
        let mut position = Position::new(self.height, self.width, mines.min(scan.most()))?;
        for &(wr, wc, n) in &scan.numbers {
            position.reveal(wr, wc, n)?;
        }
        let mut solver = Solver::new(&position)?;
        for &(wr, wc) in &scan.exploded {
            solver.assume_mine(wr, wc)?;
        }
        Ok(solver)
    }

    /// The odds of the window with the mine count nearest the estimate that its numbers
    /// allow. The estimate can be too few for the numbers (a dense patch of a board whose
    /// density left is low: the numbers alone prove more mines, or one number then cannot
    /// be met) or too many (the reverse), and the counts the numbers allow can have holes;
    /// the solver's errors say which, and most name the nearest allowed count, so a view
    /// that agrees with the board always gets an answer, in one solve when the estimate
    /// fits and a few more when it does not. Only a count too few to meet a number says
    /// nothing of how many more are needed: then the most the window can hold is tried,
    /// and if that fits, the counts between are halved down to the lowest that fits.
    fn odds(&self, scan: &Scan) -> Result<Solution, bitmines_solve::Error> {
        use bitmines_solve::Error as E;
        let most = scan.most();
        let mut count = scan.estimate;
        // Whether an answer at `count` is taken at once: false only while halving down from
        // a count that fits toward the counts known to be too few.
        let mut take = true;
        // Every count below `fewest` is too few; `fits` is the lowest count found to fit.
        let mut fewest = 0;
        let mut fits: Option<(usize, Solution)> = None;
        let mut last = None;
        for _ in 0..ODDS_TRIES {
            match self.solver_with(scan, count)?.solve_with(false) {
                Ok(solution) if take || count <= fewest => return Ok(solution),
                Ok(solution) => fits = Some((count, solution)),
                Err(E::MineCount { mines, min, max }) => {
                    // A count the numbers allow, or with the proven mines alone too many
                    // for `mines`, at least as many as those: the nearest of them next.
                    count = if mines < min {
                        min
                    } else if mines > max {
                        max
                    } else if scan.estimate.abs_diff(min) <= scan.estimate.abs_diff(max) {
                        min
                    } else {
                        max
                    };
                    take = true;
                    last = Some(E::MineCount { mines, min, max });
                    continue;
                }
                Err(e @ E::Contradiction { .. }) if count < most => {
                    fewest = count + 1;
                    take = false;
                    last = Some(e);
                }
                Err(e) => return Err(e),
            }
            count = match &fits {
                Some((fit, _)) if fewest < *fit => fewest + (fit - fewest) / 2,
                Some(_) => break,
                None => most,
            };
        }
        match (fits, last) {
            (Some((_, solution)), _) => Ok(solution),
            (None, Some(e)) => Err(e),
            (None, None) => Err(E::MineCount {
                mines: count,
                min: fewest,
                max: most,
            }),
        }
    }

    /// A solver's error in words, naming cells by their place on the board, not in the
    /// window.
    fn board_error(&self, error: &bitmines_solve::Error) -> String {
        use bitmines_solve::Error as E;
        let (r0, c0) = (self.r0, self.c0);
        match error.clone() {
            E::Contradiction {
                row,
                col,
                number,
                reason,
            } => E::Contradiction {
                row: row + r0,
                col: col + c0,
                number,
                reason,
            },
            E::Assumption { row, col, reason } => E::Assumption {
                row: row + r0,
                col: col + c0,
                reason,
            },
            other => other,
        }
        .to_string()
    }
}

/// Counts tried at most for the odds of one window (see [`Window::odds`]): enough to halve
/// the counts of a whole window down to one, and to land on an allowed count on the way.
const ODDS_TRIES: usize = 24;

/// What a window of a view shows the solver (see [`Window::scan`]).
struct Scan {
    /// Cells the solver takes as hidden: hidden, flagged, and numbers on the window's edge.
    hidden: usize,
    /// The whole numbers, as `(row, col, number)` in the window.
    numbers: Vec<(usize, usize, u8)>,
    /// Exploded mines, in the window.
    exploded: Vec<(usize, usize)>,
    /// The window's mine count as estimated from the board's density of mines left.
    estimate: usize,
}

impl Scan {
    /// The most mines the window can hold.
    fn most(&self) -> usize {
        self.hidden + self.exploded.len()
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
    solver.deduce().map_err(|e| window.board_error(&e))?;
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
    solver.deduce().map_err(|e| window.board_error(&e))?;
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
///
/// One truth with [`window_hint`]: 0 is given only to a cell the hint's own rules prove safe
/// in the same window, and 200 only to one they prove a mine. The odds are counted with the
/// window's mine count estimated from the board's density, so a cell they put at or near 0
/// that the numbers do not prove safe is given 1 (half a percent, shown as "<1%"), and one
/// at or near certain that is not proven a mine, 199.
pub fn window_odds(
    view: &ViewCells<'_>,
    row: usize,
    col: usize,
) -> Result<(u32, u32, u16, u16, Vec<u8>), String> {
    let window = Window::around(view.params, row, col);
    let solution = window
        .odds(&window.scan(view))
        .map_err(|e| window.board_error(&e))?;
    let mut proof = window.solver(view)?;
    proof.deduce().map_err(|e| window.board_error(&e))?;
    let certain = proof.into_certain();
    let mut proven = vec![None; window.height * window.width];
    for (wr, wc) in certain.safe() {
        proven[wr * window.width + wc] = Some(0);
    }
    for (wr, wc) in certain.mines() {
        proven[wr * window.width + wc] = Some(200);
    }
    let mut cells = Vec::with_capacity(window.height * window.width);
    for wr in 0..window.height {
        for wc in 0..window.width {
            let hidden = matches!(
                (view.cell)(wr + window.r0, wc + window.c0),
                Cell::Hidden | Cell::Flagged
            );
            let p = solution.probabilities.mine(wr, wc).ok().filter(|_| hidden);
            let odds = p.map(|p| match proven[wr * window.width + wc] {
                Some(certain) => certain,
                None => ((p.clamp(0.0, 1.0) * 200.0).round() as u8).clamp(1, 199),
            });
            cells.push(odds.unwrap_or(255));
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
            first: Some((0, 0)),
            countdown: false,
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
            first: Some((0, 0)),
            countdown: false,
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

    /// A view of `cell` on a board of `params`, counting its revealed cells.
    fn check_odds(
        params: &RoomParams,
        cell: &dyn Fn(usize, usize) -> Cell,
        at: (usize, usize),
    ) -> Result<(u32, u32, u16, u16, Vec<u8>), String> {
        let revealed = (0..params.rows)
            .flat_map(|r| (0..params.cols).map(move |c| (r, c)))
            .filter(|&(r, c)| matches!(cell(r, c), Cell::Open(_)))
            .count();
        let view = ViewCells {
            params,
            cell,
            revealed,
            exploded: 0,
        };
        window_odds(&view, at.0, at.1)
    }

    fn big_sparse_board() -> RoomParams {
        RoomParams {
            rows: 1000,
            cols: 1000,
            mines: 10_000,
            mode: Mode::Coop,
            rule: MineRule::Classic,
            no_guess: false,
            first: Some((0, 0)),
            countdown: false,
        }
    }

    #[test]
    fn odds_come_back_when_the_numbers_prove_more_mines_than_the_estimate() {
        // A 1000x1000 board at 1% has two blocks of mines in one window: a 10x10 block with
        // two rings of numbers around it, which prove its 36 outer cells mines, and a 6x6
        // block with one ring, which needs mines of its own. The density left gives the
        // window about 22 mines, fewer than the first block alone proves; a count taken
        // from the proven mines alone leaves none for the second block.
        let outside = |r: usize, c: usize, (top, left, size): (usize, usize, usize)| {
            let dr = (top.saturating_sub(r)).max(r.saturating_sub(top + size - 1));
            let dc = (left.saturating_sub(c)).max(c.saturating_sub(left + size - 1));
            dr.max(dc)
        };
        let (a, b) = ((500, 500, 10), (520, 500, 6));
        let mine = |r: usize, c: usize| outside(r, c, a) == 0 || outside(r, c, b) == 0;
        let cell = |r: usize, c: usize| {
            if mine(r, c) || !((1..=2).contains(&outside(r, c, a)) || outside(r, c, b) == 1) {
                return Cell::Hidden;
            }
            let around = (r - 1..=r + 1)
                .flat_map(|rr| (c - 1..=c + 1).map(move |cc| (rr, cc)))
                .filter(|&(rr, cc)| mine(rr, cc))
                .count();
            Cell::Open(around as u8)
        };
        let params = big_sparse_board();
        let (r0, c0, h, w, odds) = check_odds(&params, &cell, (510, 505)).unwrap();
        let at = |r: usize, c: usize| odds[(r - r0 as usize) * usize::from(w) + c - c0 as usize];
        assert_eq!((h, w), (48, 48));
        // The first block's outer cells are proven mines; the second block's edge cells may
        // each be one.
        for (r, c) in [(500, 500), (500, 509), (509, 500), (509, 509), (504, 500)] {
            assert_eq!(at(r, c), 200, "({r}, {c})");
        }
        for (r, c) in [(520, 500), (525, 505), (522, 500)] {
            assert!(at(r, c) > 0 && at(r, c) <= 200, "({r}, {c}): {}", at(r, c));
        }
        // The numbers' own cells are open.
        assert_eq!(at(499, 499), 255);
    }

    #[test]
    fn odds_errors_name_cells_on_the_board() {
        // A view no board gives: a 2 with one hidden neighbour, the rest of its neighbours
        // open 1s. The error names the 2 where it is on the board, not in the window.
        let cell = |r: usize, c: usize| match (r.abs_diff(500), c.abs_diff(500)) {
            (0, 0) => Cell::Open(2),
            (1, 1) if r > 500 && c > 500 => Cell::Hidden,
            (0..=1, 0..=1) => Cell::Open(1),
            _ => Cell::Hidden,
        };
        let params = big_sparse_board();
        let error = check_odds(&params, &cell, (510, 520)).unwrap_err();
        assert!(error.contains("(500, 500)"), "{error}");
    }

    /// A small random stream for the tests' moves (xorshift).
    struct Moves(u64);

    impl Moves {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    #[test]
    fn odds_answer_every_window_of_views_of_real_games() {
        // Seeded games of several sizes and densities, co-op endless ones among them, played
        // by random moves: mostly reveals of safe cells, some flags (right and wrong), and
        // in endless games some mines set off. Odds asked of windows at random places after
        // every few moves always come back: the view agrees with the board.
        use bitmines_core::{Game, Rule};
        let sizes = [
            (9, 9, 10),
            (16, 16, 40),
            (16, 30, 99),
            (60, 70, 700),
            (100, 100, 2000),
            (50, 130, 600),
        ];
        let mut asked = 0;
        let mut hinted = 0;
        for seed in 1..=36u64 {
            let mut moves = Moves(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
            let (rows, cols, mines) = sizes[seed as usize % sizes.len()];
            let endless = seed % 3 == 0;
            let rule = if endless {
                Rule::Endless
            } else {
                Rule::Classic
            };
            let mut game = Game::seeded(rows, cols, mines, seed)
                .unwrap()
                .with_rule(rule);
            game.reveal(rows / 2, cols / 2).unwrap();
            let params = RoomParams {
                rows,
                cols,
                mines,
                mode: Mode::Coop,
                rule: if endless {
                    MineRule::Endless
                } else {
                    MineRule::Classic
                },
                no_guess: false,
                first: Some((rows / 2, cols / 2)),
                countdown: false,
            };
            for step in 0..150 {
                if game.status() != Status::Playing {
                    break;
                }
                let (r, c) = (moves.below(rows), moves.below(cols));
                let mine = game.board().unwrap().is_mine(r, c).unwrap();
                match moves.below(10) {
                    0 => drop(game.toggle_flag(r, c)),
                    1 if endless => drop(game.reveal(r, c)),
                    _ if !mine => drop(game.reveal(r, c)),
                    _ => {}
                }
                if step % 5 != 0 {
                    continue;
                }
                let cell = |r: usize, c: usize| game.cell(r, c).unwrap_or(Cell::Hidden);
                let view = ViewCells {
                    params: &params,
                    cell: &cell,
                    revealed: game.revealed_count(),
                    exploded: game.exploded_count(),
                };
                let at = (moves.below(rows), moves.below(cols));
                let (r0, c0, h, w, odds) = window_odds(&view, at.0, at.1)
                    .unwrap_or_else(|e| panic!("seed {seed}, move {step}, at {at:?}: {e}"));
                asked += 1;
                // Every cell of the window the view shows has no odds; every other has.
                for (i, &p) in odds.iter().enumerate() {
                    let (r, c) = (
                        r0 as usize + i / usize::from(w),
                        c0 as usize + i % usize::from(w),
                    );
                    let closed = matches!(cell(r, c), Cell::Hidden | Cell::Flagged);
                    assert_eq!(p <= 200, closed, "seed {seed}: ({r}, {c}) {p}");
                }
                assert_eq!(odds.len(), usize::from(h) * usize::from(w));
                // One truth: the hint for the same place names a hidden cell exactly when
                // the odds put one at 0, and the cell it names is one of them; and no cell
                // the odds put at 0 or 200 is wrong.
                let at_zero: Vec<(usize, usize)> = (0..odds.len())
                    .filter(|&i| odds[i] == 0)
                    .map(|i| {
                        (
                            r0 as usize + i / usize::from(w),
                            c0 as usize + i % usize::from(w),
                        )
                    })
                    .filter(|&(r, c)| cell(r, c) == Cell::Hidden)
                    .collect();
                let hint = window_hint(&view, at.0, at.1).unwrap();
                assert_eq!(
                    hint.is_some(),
                    !at_zero.is_empty(),
                    "seed {seed}, at {at:?}"
                );
                if let Some((hr, hc, _)) = hint {
                    assert!(at_zero.contains(&(hr as usize, hc as usize)), "seed {seed}");
                    hinted += 1;
                }
                let board = game.board().unwrap();
                for (i, &p) in odds.iter().enumerate() {
                    let (r, c) = (
                        r0 as usize + i / usize::from(w),
                        c0 as usize + i % usize::from(w),
                    );
                    if p == 0 || p == 200 {
                        assert_eq!(
                            board.is_mine(r, c).unwrap(),
                            p == 200,
                            "seed {seed}: ({r}, {c})"
                        );
                    }
                }
            }
        }
        assert!(asked > 300, "{asked} windows asked");
        assert!(hinted > 50, "{hinted} hints among {asked} windows");
    }
}
