//! The solver player of `bitmines stress`: it sees only the view, moves by whole planes of
//! proven cells, and asks the board only when it must guess.
//!
//! A move reveals every cell proven safe so far (core's batch reveal), after the trivial
//! rule's sweep, the pair rule, or, at a stall, the exact tier. When nothing is proven, the
//! player guesses: in every frontier component at once, the component's safest cell, when
//! it is no riskier than a cell off the frontier; if none is, one cell off the frontier
//! (a corner first). Components are independent but for the mine count, so these are the
//! guesses a one-at-a-time player would make, in a batch. Only then does the board speak:
//! a guess that hits a mine is an assisted guess, flagged and given to the solver as a
//! mine, and the game goes on.
//!
//! It keeps one `Solver` across the game: a loop of sweeps, pairs and `weigh`, batch reveals of
//! its safe plane, and at a stall one guess per frontier component (`Weighed::safest_each`) no
//! riskier than a cell off the frontier, else a quiet cell off it found word-parallel. The
//! board is read only to settle a guess (flag and `assume_mine` on a mine) and to check the
//! proven mines.

use bitmines_core::{Board, Cell, Game, Status};
use bitmines_solve::{Solver, Tally};
use serde::Serialize;

use super::Stop;
use super::play::Table;
use crate::moves::Act;

/// What the solver player did.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Deduction {
    /// Batch reveals of proven safe cells.
    pub(crate) moves: u64,
    /// Safe cells those reveals opened, cascades included.
    pub(crate) deduced: u64,
    /// Safe cells deduced per second of play.
    pub(crate) deduced_per_second: f64,
    /// Times the trivial and pair rules proved nothing safe and the exact tier ran.
    pub(crate) stalls: u64,
    /// Guesses made.
    pub(crate) guesses: u64,
    /// Guesses that hit a mine: the assistant flagged it and told the solver.
    pub(crate) assisted: u64,
    /// Guesses that were safe.
    pub(crate) lucky: u64,
    /// Guesses on a cell touching no number.
    pub(crate) off_frontier: u64,
    /// Mines the guesses were expected to hit: the sum of their probabilities.
    pub(crate) expected_assisted: f64,
    /// Cells each tier proved, safe cells and mines.
    pub(crate) proven: Proven,
    /// The most undecided frontier cells at one stall.
    pub(crate) largest_frontier: u64,
    /// The most heap bytes the exact tier held at one stall, and the frontier cells it
    /// weighed then.
    pub(crate) exact_bytes: u64,
    /// Frontier cells of the stall with the most exact-tier bytes.
    pub(crate) exact_cells: u64,
    /// Heap bytes of the solver's planes.
    pub(crate) solver_bytes: u64,
    /// Solver plane bytes per board cell.
    pub(crate) solver_bytes_per_cell: f64,
}

/// Cells proven by each tier of the solver.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(crate) struct Proven {
    /// By one number alone.
    pub(crate) trivial: u64,
    /// By a pair of numbers.
    pub(crate) pair: u64,
    /// By counting the layouts of a frontier component.
    pub(crate) component: u64,
    /// Only with the board's mine count.
    pub(crate) global: u64,
}

impl From<Tally> for Proven {
    fn from(tally: Tally) -> Proven {
        Proven {
            trivial: tally.trivial as u64,
            pair: tally.pair as u64,
            component: tally.component as u64,
            global: tally.global as u64,
        }
    }
}

impl Proven {
    /// Every cell proven.
    pub(crate) fn total(&self) -> u64 {
        self.trivial + self.pair + self.component + self.global
    }
}

/// Plays the game on `table` to its end with the solver: the first click of a fresh game,
/// then proven moves and, at stalls, guesses. `tick` runs after every call; it returns
/// false to stop early (Ctrl-C). The board is read only to settle guesses.
pub(crate) fn play(
    table: &mut Table,
    board: &Board,
    first_click: Option<(usize, usize)>,
    tick: &mut dyn FnMut(&Table) -> Result<bool, Stop>,
) -> Result<Deduction, Stop> {
    let mut done = Deduction::default();
    let failed = |what: &str, error: &dyn std::fmt::Display| {
        Stop::Disagreement(format!("the solver player failed {what}: {error}"))
    };
    if let Some((row, col)) = first_click
        && table.game.status() == Status::Playing
        && table.game.revealed_count() == 0
    {
        table
            .apply(Act::Reveal(row, col))
            .map_err(Stop::Disagreement)?;
        if !tick(table)? {
            return Ok(done);
        }
    }
    if table.game.status() != Status::Playing {
        return Ok(done);
    }
    let mut solver = Solver::new(&table.game).map_err(|e| failed("to start", &e))?;
    while table.game.status() == Status::Playing {
        // Sweep until a sweep proves a safe cell (revealed at once: its number feeds the
        // next sweep) or proves nothing; then the pair rule; then the exact tier.
        let mut proven = || -> Result<bool, bitmines_solve::Error> {
            while solver.sweep()? > 0 && !solver.proves_safe() {}
            if !solver.proves_safe() {
                solver.deduce()?;
            }
            Ok(solver.proves_safe())
        };
        let mut safe = proven().map_err(|e| failed("to deduce", &e))?;
        let mut guesses = Vec::new();
        if !safe {
            done.stalls += 1;
            let weighed = solver.weigh().map_err(|e| failed("to weigh", &e))?;
            done.largest_frontier = done.largest_frontier.max(weighed.frontier().count() as u64);
            if weighed.state_bytes() as u64 > done.exact_bytes {
                done.exact_bytes = weighed.state_bytes() as u64;
                done.exact_cells = weighed.frontier_cells() as u64;
            }
            safe = solver.proves_safe();
            if !safe {
                guesses = weighed.safest_each();
                let off = weighed.off_frontier();
                if weighed.off_frontier_cells() > 0 {
                    guesses.retain(|&(_, p)| p <= off);
                    if guesses.is_empty() {
                        let cell = off_frontier_cell(&table.game, &solver).ok_or_else(|| {
                            failed("to find a cell off the frontier", &"none is undecided")
                        })?;
                        guesses.push((cell, off));
                        done.off_frontier += 1;
                    }
                }
                if guesses.is_empty() {
                    return Err(failed(
                        "to move",
                        &"nothing is proven safe and nothing is left to guess",
                    ));
                }
            }
        }
        let mut guessed_from = None;
        if safe {
            // Only the words of the proven cells go to the game, so a move costs what it
            // reveals rather than a pass over the board.
            let mut opened = table
                .reveal_words(&solver.safe_words())
                .map_err(Stop::Disagreement)?;
            if opened == 0 {
                // Only flagged cells are proven safe (a resumed game's wrong flags): the
                // flags are notes, so they come off and the cells are revealed.
                for (row, col) in wrong_flags(&table.game, &solver) {
                    table
                        .apply(Act::Flag(row, col))
                        .map_err(Stop::Disagreement)?;
                }
                opened = table
                    .reveal_cells(solver.safe_plane())
                    .map_err(Stop::Disagreement)?;
                if opened == 0 {
                    return Err(failed("to move", &"its proven safe cells would not open"));
                }
            }
            done.moves += 1;
            done.deduced += opened as u64;
        } else {
            // The proven mines get their flags before the guesses, once checked.
            sound(&solver, board)?;
            table
                .flag_cells(solver.mine_plane())
                .map_err(Stop::Disagreement)?;
            // Every guess teaches something: a cell opens, or the solver learns a mine.
            guessed_from = Some((table.game.revealed_count(), done.assisted));
            for ((row, col), p) in guesses {
                if table.game.status() != Status::Playing {
                    break;
                }
                // An earlier guess's opening may have reached this cell.
                let cell = table.game.cell(row, col).map_err(|e| failed("", &e))?;
                if !matches!(cell, Cell::Hidden | Cell::Flagged) {
                    continue;
                }
                done.guesses += 1;
                done.expected_assisted += p;
                let mine = board.is_mine(row, col).map_err(|e| failed("", &e))?;
                if mine {
                    done.assisted += 1;
                    if cell == Cell::Hidden {
                        table
                            .apply(Act::Flag(row, col))
                            .map_err(Stop::Disagreement)?;
                    }
                    solver
                        .assume_mine(row, col)
                        .map_err(|e| failed("to take an assisted mine", &e))?;
                } else {
                    done.lucky += 1;
                    // A flag the player did not prove (a resumed game's) is only a note.
                    if cell == Cell::Flagged {
                        table
                            .apply(Act::Flag(row, col))
                            .map_err(Stop::Disagreement)?;
                    }
                    table
                        .apply(Act::Reveal(row, col))
                        .map_err(Stop::Disagreement)?;
                }
            }
        }
        if guessed_from == Some((table.game.revealed_count(), done.assisted)) {
            return Err(failed("to move", &"a round of guesses changed nothing"));
        }
        if !tick(table)? {
            break;
        }
        if table.game.status() == Status::Playing {
            // After a move of proven cells only, the words they opened are all that changed;
            // guesses open cells the solver did not prove, so the whole view is read.
            let read = if safe {
                solver.update_revealed(&table.game)
            } else {
                solver.update(&table.game)
            };
            read.map_err(|e| failed("to read the view", &e))?;
        }
    }
    sound(&solver, board)?;
    done.proven = solver.tally().into();
    done.solver_bytes = solver.heap_bytes() as u64;
    done.solver_bytes_per_cell = done.solver_bytes as f64 / board.geometry().cells() as f64;
    Ok(done)
}

/// The flagged cells the solver proves safe, row by row.
fn wrong_flags(game: &Game, solver: &Solver) -> Vec<(usize, usize)> {
    let view = bitmines_core::AsView::view(game);
    let stride = view.geometry().words_per_row() * 64;
    let mut cells = Vec::new();
    for (w, (&safe, &flagged)) in solver
        .safe_plane()
        .iter()
        .zip(view.flagged_words())
        .enumerate()
    {
        let mut bits = safe & flagged;
        while bits != 0 {
            let bit = w * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            cells.push((bit / stride - 1, bit % stride - 1));
        }
    }
    cells
}

/// Checks the solver's proven mines against the board, after the fact: a proven mine that
/// is safe is a failure. (A proven safe cell that is a mine loses the game when revealed.)
fn sound(solver: &Solver, board: &Board) -> Result<(), Stop> {
    let wrong = solver
        .mine_plane()
        .iter()
        .zip(board.mine_words())
        .enumerate()
        .find(|&(_, (&proven, &mine))| proven & !mine != 0);
    match wrong {
        None => Ok(()),
        Some((w, (&proven, &mine))) => {
            let bit = w * 64 + (proven & !mine).trailing_zeros() as usize;
            let stride = board.geometry().words_per_row() * 64;
            Err(Stop::Disagreement(format!(
                "the solver proved ({}, {}) a mine, but it is safe",
                bit / stride - 1,
                bit % stride - 1
            )))
        }
    }
}

/// An undecided hidden cell touching no revealed cell: a corner if one is, else the first
/// row by row. Corners have the fewest neighbours, so they open a region most often.
fn off_frontier_cell(game: &Game, solver: &Solver) -> Option<(usize, usize)> {
    let view = bitmines_core::AsView::view(game);
    let geometry = *view.geometry();
    let (rows, cols) = (geometry.rows(), geometry.cols());
    let wpr = geometry.words_per_row();
    let revealed = view.revealed_words();
    let mines = solver.mine_plane();
    let word = |plane: &[u64], w: usize| plane.get(w).copied().unwrap_or(0);
    // Revealed board cells of padded row `pr`, word `j` (sentinels and padding left out).
    let shown = |pr: usize, j: usize| -> u64 {
        if pr == 0 || pr > rows || j >= wpr {
            return 0;
        }
        word(revealed, pr * wpr + j) & geometry.cell_mask(j)
    };
    // The undecided cells of row `pr`, word `j`, with no revealed neighbour.
    let quiet = |pr: usize, j: usize| -> u64 {
        let w = pr * wpr + j;
        let hidden = !word(revealed, w) & !word(mines, w) & geometry.cell_mask(j);
        if hidden == 0 {
            return 0;
        }
        let mut near = 0;
        for r in pr - 1..=pr + 1 {
            let here = shown(r, j);
            let left = if j > 0 { shown(r, j - 1) >> 63 } else { 0 };
            near |= here | here << 1 | here >> 1 | left | shown(r, j + 1) << 63;
        }
        hidden & !near
    };
    let cell_of =
        |pr: usize, j: usize, bits: u64| (pr - 1, j * 64 + bits.trailing_zeros() as usize - 1);
    for (row, col) in [(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)] {
        let bit = geometry.bit(row, col).ok()?;
        let (pr, j) = (bit / 64 / wpr, bit / 64 % wpr);
        if quiet(pr, j) >> (bit % 64) & 1 != 0 {
            return Some((row, col));
        }
    }
    (1..=rows)
        .flat_map(|pr| (0..wpr).map(move |j| (pr, j)))
        .find_map(|(pr, j)| {
            let bits = quiet(pr, j);
            (bits != 0).then(|| cell_of(pr, j, bits))
        })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use bitmines_core::FirstClick;

    use super::*;

    /// Plays one seeded game with the solver player to its end.
    fn game(rows: usize, cols: usize, mines: usize, seed: u64) -> (Table, Deduction, Arc<Board>) {
        let (row, col) = (rows / 2, cols / 2);
        let zone = FirstClick::Safe.zone(rows, cols, row, col).expect("a zone");
        let config = bitmines_gen::Config::new(rows, cols, mines, seed).keep_clear(zone);
        let board = Arc::new(bitmines_gen::generate(&config).expect("a board"));
        let game = Game::new(Arc::clone(&board));
        let what = format!("{rows}x{cols}/{mines} seed {seed}");
        let (table, done) = played(game, &board, Some((row, col)), &what);
        (table, done, board)
    }

    /// Plays `game` on `board` with the solver player to its end, from `click` if given.
    fn played(
        game: Game,
        board: &Arc<Board>,
        click: Option<(usize, usize)>,
        what: &str,
    ) -> (Table, Deduction) {
        let mut table = Table::new(game, false, false);
        let mut tick = |_: &Table| Ok(true);
        let done = match play(&mut table, board, click, &mut tick) {
            Ok(done) => done,
            Err(Stop::Disagreement(why)) => panic!("{what}: {why}"),
            Err(Stop::Io(error)) => panic!("{error}"),
        };
        (table, done)
    }

    /// Over many games on small and odd boards (one row, one column, widths at word
    /// edges), the player always wins: no proven-safe reveal hit a mine (that would lose),
    /// no proven mine is safe (checked at every stall and at the end), and every flag it
    /// placed is on a mine. Its guesses add up.
    #[test]
    fn the_solver_player_wins_every_game_soundly() {
        let shapes = [
            (1, 200),
            (200, 1),
            (9, 9),
            (16, 30),
            (30, 63),
            (20, 64),
            (20, 65),
            (40, 129),
        ];
        let mut guesses = 0;
        for (k, &(rows, cols)) in shapes.iter().enumerate() {
            for seed in 0..120 {
                let density = [0.1, 0.15, 0.2, 0.25][seed as usize % 4];
                let mines = ((rows * cols) as f64 * density) as usize;
                let (table, done, board) = game(rows, cols, mines, seed * 31 + k as u64);
                assert_eq!(
                    table.game.status(),
                    Status::Won,
                    "{rows}x{cols} seed {seed}"
                );
                assert_eq!(done.guesses, done.assisted + done.lucky);
                assert!(done.off_frontier <= done.guesses);
                guesses += done.guesses;
                for r in 0..rows {
                    for c in 0..cols {
                        if table.game.cell(r, c).expect("on the board") == Cell::Flagged {
                            assert!(board.is_mine(r, c).expect("on the board"), "({r}, {c})");
                        }
                    }
                }
            }
        }
        // Random boards need guesses; a player that never guessed would not be tested.
        assert!(guesses > 100, "{guesses} guesses");
    }

    /// Wrong flags (a resumed game's) do not stop the player: a flag on a cell it proves
    /// safe comes off, and the game is won.
    #[test]
    fn wrong_flags_come_off() {
        let board: Board = "\
.....
.....
..*..
.....
"
        .parse()
        .expect("a board");
        let board = Arc::new(board);
        let mut game = Game::new(Arc::clone(&board));
        game.reveal(0, 0).expect("an opening");
        // Every hidden safe cell flagged: only flagged cells are left to prove safe.
        for r in 0..4 {
            for c in 0..5 {
                if game.cell(r, c).expect("on the board") == Cell::Hidden
                    && !board.is_mine(r, c).expect("on the board")
                {
                    game.toggle_flag(r, c).expect("flags");
                }
            }
        }
        let (table, done) = played(game, &board, None, "a resumed game");
        assert_eq!(table.game.status(), Status::Won);
        assert!(table.calls.unflag > 0);
        assert_eq!(done.guesses, 0);
    }

    /// A flag on an undecided safe cell (a resumed game's) does not stall the guesses: the
    /// guess takes the flag off and reveals the cell.
    #[test]
    fn a_flagged_guess_is_revealed() {
        // A 50/50 between (0, 0) and (0, 1), both flagged; the mine is at (0, 1), so the
        // guess, (0, 0), is safe.
        let board: Board = ".*\n..\n..\n".parse().expect("a board");
        let board = Arc::new(board);
        let mut game = Game::new(Arc::clone(&board));
        game.reveal(2, 0).expect("an opening");
        for (r, c) in [(0, 0), (0, 1)] {
            if game.cell(r, c).expect("on the board") == Cell::Hidden {
                game.toggle_flag(r, c).expect("flags");
            }
        }
        let (table, done) = played(game, &board, None, "a resumed game");
        assert_eq!(table.game.status(), Status::Won);
        assert_eq!((done.guesses, done.lucky), (1, 1));
    }

    /// The player is a function of the board: the same game twice is the same play.
    #[test]
    fn the_solver_player_is_deterministic() {
        let (a, first, _) = game(60, 90, 1000, 7);
        let (b, second, _) = game(60, 90, 1000, 7);
        assert_eq!(a.calls, b.calls);
        assert_eq!(
            (first.guesses, first.assisted, first.moves, first.stalls),
            (second.guesses, second.assisted, second.moves, second.stalls)
        );
    }

    /// The cell off the frontier is undecided and touches no revealed cell: a corner when
    /// one qualifies, else the first such cell row by row.
    #[test]
    fn off_frontier_cells_touch_nothing_revealed() {
        let board: Board = "\
......
.*..*.
......
......
.*..*.
......
"
        .parse()
        .expect("a board");
        let board = Arc::new(board);
        let mut game = Game::new(Arc::clone(&board));
        let solver = Solver::new(&game).expect("a solver");
        assert_eq!(off_frontier_cell(&game, &solver), Some((0, 0)));
        game.reveal(0, 0).expect("a 1");
        let solver = Solver::new(&game).expect("a solver");
        assert_eq!(off_frontier_cell(&game, &solver), Some((0, 5)));
        // Every corner shows a 1: the first cell two steps from all of them is (0, 2).
        for (r, c) in [(0, 5), (5, 0), (5, 5)] {
            game.reveal(r, c).expect("a 1");
        }
        let solver = Solver::new(&game).expect("a solver");
        assert_eq!(off_frontier_cell(&game, &solver), Some((0, 2)));
        // A proven mine is not undecided: on one row, "1" then a hidden cell proves it.
        let strip: Board = "\
.*..
"
        .parse()
        .expect("a board");
        let mut game = Game::new(strip);
        game.reveal(0, 0).expect("a 1");
        let mut solver = Solver::new(&game).expect("a solver");
        solver.trivial().expect("proves (0, 1)");
        assert_eq!(off_frontier_cell(&game, &solver), Some((0, 3)));
        game.reveal(0, 3).expect("a 0 opening (0, 2)");
        let mut solver = Solver::new(&game).expect("a solver");
        solver.trivial().expect("proves (0, 1)");
        assert_eq!(off_frontier_cell(&game, &solver), None);
    }
}
