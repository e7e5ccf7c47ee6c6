//! The stress players and the table that applies their moves to one or more engines.
//!
//! The walking players are `truth` (it knows the mines and always wins) and `blind` (it
//! reveals every hidden cell in walk order, mines included); the solver player is in
//! `deduce.rs`. The call counters count each kind of move and the cells it touched. `Table`
//! applies each move to the game under test and, for `--check`, to a scalar-fill game and
//! the naive twin, comparing results and counters after every move and every cell at the
//! end.

use bitmines_core::{Board, Cell, Fill, Game};
use serde::Serialize;

use super::walk::mix;
use crate::moves::{Act, Outcome, play, play_naive};
use crate::naive::NaiveGame;

/// Which player plays a stress run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PlayerKind {
    /// Knows the mines: reveals every safe cell, flags some mines, chords satisfied numbers,
    /// and so always wins.
    Truth,
    /// Reveals every hidden cell in walk order, mines included, until the game ends.
    Blind,
    /// Sees only the view: reveals whole planes of cells the solver proves safe and, at a
    /// stall, guesses each frontier component's safest cell; a guess that hits a mine is
    /// flagged by an assistant that knows the board and counted as assisted.
    Solver,
}

/// Calls made, by kind, and what they did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Calls {
    /// `reveal` calls.
    pub(crate) reveal: u64,
    /// `toggle_flag` calls that placed a flag.
    pub(crate) flag: u64,
    /// `toggle_flag` calls that removed a flag.
    pub(crate) unflag: u64,
    /// `chord` calls.
    pub(crate) chord: u64,
    /// Safe cells opened by all reveals and chords together.
    pub(crate) opened: u64,
    /// The most cells one call opened.
    pub(crate) largest_opening: u64,
}

impl Calls {
    /// Counts `act` and its outcome.
    fn record(&mut self, act: Act, outcome: Outcome) {
        match (act, outcome) {
            (Act::Reveal(..), _) => self.reveal += 1,
            (Act::Chord(..), _) => self.chord += 1,
            (Act::Flag(..), Outcome::Flagged(true)) => self.flag += 1,
            (Act::Flag(..), _) => self.unflag += 1,
        }
        if let Outcome::Opened(opened, _) = outcome {
            self.opened += opened as u64;
            self.largest_opening = self.largest_opening.max(opened as u64);
        }
    }

    /// Every call made.
    pub(crate) fn total(&self) -> u64 {
        self.reveal + self.flag + self.unflag + self.chord
    }

    /// Cells the calls changed: cells opened plus flags placed or removed.
    pub(crate) fn touched(&self) -> u64 {
        self.opened + self.flag + self.unflag
    }
}

/// The engine under test and, for `--check`, its twins, all fed the same acts.
pub(crate) struct Table {
    /// The engine with its default, word-parallel fill; the players look at this one.
    pub(crate) game: Game,
    /// The same board with the scalar fill.
    scalar: Option<Game>,
    /// The naive two-grid twin, on small boards.
    naive: Option<NaiveGame>,
    /// What has been done so far.
    pub(crate) calls: Calls,
    /// Cells already revealed when the table was set (a resumed game).
    pub(crate) revealed_at_start: u64,
}

impl Table {
    /// A table playing `game`, with the scalar twin if `scalar` and the naive twin if
    /// `naive`. The naive twin starts from a board, so it is left out of a game that has
    /// moves behind it.
    pub(crate) fn new(game: Game, scalar: bool, naive: bool) -> Table {
        let fresh = game.revealed_count() == 0 && game.flag_count() == 0;
        let board = game.board().filter(|_| naive && fresh);
        let naive = board.map(|board| NaiveGame::from_board(board));
        let scalar = scalar.then(|| game.clone().with_fill(Fill::Scalar));
        Table {
            revealed_at_start: game.revealed_count() as u64,
            game: game.with_fill(Fill::Words),
            scalar,
            naive,
            calls: Calls::default(),
        }
    }

    /// Whether any twin is checked.
    pub(crate) fn twins(&self) -> (bool, bool) {
        (self.scalar.is_some(), self.naive.is_some())
    }

    /// Applies `act` to every engine; fails on the first disagreement between them.
    pub(crate) fn apply(&mut self, act: Act) -> Result<Outcome, String> {
        let outcome = play(&mut self.game, act).map_err(|e| format!("{act:?} failed: {e}"))?;
        if self.scalar.is_none() && self.naive.is_none() {
            // A run without twins compares nothing: this runs once per call of a stress run,
            // and building the comparison cost a tenth of the truth player's instructions.
            self.calls.record(act, outcome);
            return Ok(outcome);
        }
        let ours = (self.game.revealed_count(), self.game.flag_count());
        // No allocation: this runs once per call of a stress run.
        let scalar = self.scalar.as_mut().map(|scalar| {
            let result = play(scalar, act);
            let counts = (scalar.revealed_count(), scalar.flag_count());
            ("the scalar fill", result, counts)
        });
        let naive = self.naive.as_mut().map(|naive| {
            let result = play_naive(naive, act);
            let counts = (naive.revealed_count(), naive.flag_count());
            ("the naive twin", result, counts)
        });
        for (name, twin, theirs) in scalar.into_iter().chain(naive) {
            if twin != Ok(outcome) {
                return Err(format!(
                    "{act:?}: the word fill gave {outcome:?}, {name} {twin:?}"
                ));
            }
            if ours != theirs {
                return Err(format!(
                    "after {act:?}: (revealed, flags) {ours:?} with the word fill, {theirs:?} with {name}"
                ));
            }
        }
        self.calls.record(act, outcome);
        Ok(outcome)
    }

    /// Reveals the cells of a plane (one batch call), on the engine alone: the solver
    /// player runs without twins. Returns the cells opened.
    pub(crate) fn reveal_cells(&mut self, cells: &[u64]) -> Result<usize, String> {
        let reveal = self
            .game
            .reveal_cells(cells)
            .map_err(|e| format!("a batch reveal failed: {e}"))?;
        self.calls.reveal += 1;
        self.calls.opened += reveal.opened as u64;
        self.calls.largest_opening = self.calls.largest_opening.max(reveal.opened as u64);
        Ok(reveal.opened)
    }

    /// Reveals the cells of `(word, cells)` pairs (one batch call), on the engine alone, as
    /// [`Table::reveal_cells`] does a plane. Returns the cells opened.
    pub(crate) fn reveal_words(&mut self, words: &[(usize, u64)]) -> Result<usize, String> {
        let reveal = self
            .game
            .reveal_words(words)
            .map_err(|e| format!("a batch reveal failed: {e}"))?;
        self.calls.reveal += 1;
        self.calls.opened += reveal.opened as u64;
        self.calls.largest_opening = self.calls.largest_opening.max(reveal.opened as u64);
        Ok(reveal.opened)
    }

    /// Flags the hidden unflagged cells of a plane (one batch call), on the engine alone.
    /// Returns the flags placed.
    pub(crate) fn flag_cells(&mut self, cells: &[u64]) -> Result<usize, String> {
        let flagged = self
            .game
            .flag_cells(cells)
            .map_err(|e| format!("a batch flag failed: {e}"))?;
        self.calls.flag += flagged as u64;
        Ok(flagged)
    }

    /// Compares every cell of every engine; the first difference is the error.
    pub(crate) fn compare_all(&self) -> Result<(), String> {
        let game = &self.game;
        if let Some(scalar) = &self.scalar {
            if scalar.status() != game.status() {
                return Err(format!(
                    "status {} with the word fill, {} with the scalar fill",
                    game.status(),
                    scalar.status()
                ));
            }
            for r in 0..game.rows() {
                let revealed = game.revealed_row(r).ok() == scalar.revealed_row(r).ok();
                let flagged = game.flagged_row(r).ok() == scalar.flagged_row(r).ok();
                if !revealed || !flagged {
                    return Err(format!(
                        "row {r} differs between the word fill and the scalar fill"
                    ));
                }
            }
        }
        if let Some(naive) = &self.naive {
            if naive.status() != game.status() {
                return Err(format!(
                    "status {} with the word fill, {} in the naive twin",
                    game.status(),
                    naive.status()
                ));
            }
            for r in 0..game.rows() {
                for c in 0..game.cols() {
                    let ours = game.cell(r, c).map_err(|e| e.to_string())?;
                    let theirs = naive.cell(r, c);
                    if ours != theirs {
                        return Err(format!(
                            "cell ({r}, {c}) is {ours:?} with the word fill, {theirs:?} in the naive twin"
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// A player: what to do when the walk reaches a cell.
pub(crate) struct Player {
    kind: PlayerKind,
    seed: u64,
}

/// The eight neighbours, in the order the truth player looks at them.
const AROUND: [(isize, isize); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

/// The neighbours of `(row, col)` on a board of `rows` x `cols`, in the order the truth
/// player looks at them.
pub(crate) fn around(
    (rows, cols): (usize, usize),
    (row, col): (usize, usize),
) -> impl Iterator<Item = (usize, usize)> {
    AROUND.into_iter().filter_map(move |(dr, dc)| {
        let (r, c) = (row.checked_add_signed(dr)?, col.checked_add_signed(dc)?);
        (r < rows && c < cols).then_some((r, c))
    })
}

impl Player {
    /// A player of `kind` whose choices follow `seed`.
    pub(crate) fn new(kind: PlayerKind, seed: u64) -> Player {
        Player {
            kind,
            seed: mix(seed ^ 0x9A4E_5EED),
        }
    }

    /// Pushes onto `acts` what the player does at `(row, col)`, looking at `game` (and, for
    /// the truth player, at its board). The player's choices follow its seed and the cell.
    pub(crate) fn plan(
        &self,
        game: &Game,
        board: &Board,
        (row, col): (usize, usize),
        acts: &mut Vec<Act>,
    ) -> anyhow::Result<()> {
        if game.cell(row, col)? != Cell::Hidden {
            return Ok(());
        }
        if self.kind == PlayerKind::Blind {
            acts.push(Act::Reveal(row, col));
            return Ok(());
        }
        let index = row as u64 * game.cols() as u64 + col as u64;
        let choice = mix(self.seed ^ index) & 7;
        if board.is_mine(row, col)? {
            // Half the mines get a flag; one in eight is flagged and unflagged again.
            match choice {
                0..4 => acts.push(Act::Flag(row, col)),
                4 => acts.extend([Act::Flag(row, col), Act::Flag(row, col)]),
                _ => {}
            }
            return Ok(());
        }
        if choice < 2 {
            // A quarter of the safe cells are opened by a chord on a revealed numbered
            // neighbour, after flagging that neighbour's mines.
            if let Some((r, c)) = self.chord_site(game, (row, col))? {
                for (mr, mc) in around((game.rows(), game.cols()), (r, c)) {
                    if board.is_mine(mr, mc).unwrap_or(false) && game.cell(mr, mc)? == Cell::Hidden
                    {
                        acts.push(Act::Flag(mr, mc));
                    }
                }
                acts.push(Act::Chord(r, c));
                return Ok(());
            }
        }
        acts.push(Act::Reveal(row, col));
        Ok(())
    }

    /// The first revealed numbered neighbour of `(row, col)`, if any.
    fn chord_site(
        &self,
        game: &Game,
        (row, col): (usize, usize),
    ) -> anyhow::Result<Option<(usize, usize)>> {
        for (r, c) in around((game.rows(), game.cols()), (row, col)) {
            if matches!(game.cell(r, c)?, Cell::Open(1..)) {
                return Ok(Some((r, c)));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn table() -> Table {
        let board: Board = "\
..*...
......
...*..
......
"
        .parse()
        .expect("a board");
        Table::new(Game::new(board), true, true)
    }

    #[test]
    fn agreeing_engines_pass() {
        let mut table = table();
        assert_eq!(table.apply(Act::Flag(0, 2)), Ok(Outcome::Flagged(true)));
        assert!(matches!(
            table.apply(Act::Reveal(3, 0)),
            Ok(Outcome::Opened(..))
        ));
        assert_eq!(table.compare_all(), Ok(()));
        assert_eq!(table.calls.flag, 1);
        assert_eq!(table.calls.reveal, 1);
    }

    /// A twin that drifted from the engine is caught by the next act that shows it.
    #[test]
    fn a_scalar_twin_that_drifted_is_caught() {
        let mut table = table();
        let scalar = table.scalar.as_mut().expect("a scalar twin");
        scalar.toggle_flag(3, 5).expect("flags");
        let error = table
            .apply(Act::Flag(0, 0))
            .expect_err("the flag counts differ");
        assert!(error.contains("scalar fill"), "{error}");
    }

    #[test]
    fn a_naive_twin_that_drifted_is_caught() {
        let mut table = table();
        let naive = table.naive.as_mut().expect("a naive twin");
        naive.toggle_flag(1, 1).expect("flags");
        // The flag blocks the naive cascade at (1, 1), so the opened counts differ.
        let error = table
            .apply(Act::Reveal(3, 0))
            .expect_err("the cascades differ");
        assert!(error.contains("naive twin"), "{error}");
    }

    /// Same counters, different cells: only the full comparison can see it.
    #[test]
    fn the_full_comparison_finds_a_different_cell() {
        let mut table = table();
        table.apply(Act::Flag(0, 2)).expect("agrees");
        let scalar = table.scalar.as_mut().expect("a scalar twin");
        scalar.toggle_flag(0, 2).expect("unflags");
        scalar.toggle_flag(2, 3).expect("flags");
        let error = table.compare_all().expect_err("row 0 and row 2 differ");
        assert!(error.contains("row 0"), "{error}");
        let mut table = self::table();
        let naive = table.naive.as_mut().expect("a naive twin");
        naive.toggle_flag(2, 3).expect("flags");
        table.game.toggle_flag(0, 2).expect("flags");
        let scalar = table.scalar.as_mut().expect("a scalar twin");
        scalar.toggle_flag(0, 2).expect("flags");
        let error = table.compare_all().expect_err("(0, 2) differs");
        assert!(error.contains("cell (0, 2)"), "{error}");
    }

    /// The truth player never reveals a mine and wins every board it plays.
    #[test]
    fn the_truth_player_wins_with_every_call_kind() {
        let board =
            bitmines_gen::generate(&bitmines_gen::Config::new(80, 90, 1200, 3)).expect("a board");
        let board = Arc::new(board);
        let mut table = Table::new(Game::new(Arc::clone(&board)), true, true);
        let player = Player::new(PlayerKind::Truth, 3);
        let mut acts = Vec::new();
        for r in 0..80 {
            for c in 0..90 {
                acts.clear();
                player
                    .plan(&table.game, &board, (r, c), &mut acts)
                    .expect("plans");
                for &act in &acts {
                    table.apply(act).expect("the engines agree");
                }
            }
        }
        assert_eq!(table.game.status(), bitmines_core::Status::Won);
        assert_eq!(table.compare_all(), Ok(()));
        let calls = table.calls;
        assert!(calls.reveal > 0 && calls.flag > 0 && calls.unflag > 0 && calls.chord > 0);
        assert_eq!(calls.opened, board.safe_count() as u64);
    }
}
