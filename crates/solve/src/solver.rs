//! The solver: the tiers run in order over one view, and what they find.
//!
//! `Solver` runs the tiers and builds `Certain` (the proven planes, with the reasons of the pair
//! and exact tiers in a map; a trivial-rule reason is found again on asking, since the rule
//! still holds at some revealed neighbour) and `Probabilities`. The exact tier is one private
//! pass (`count`) that proves into the planes and returns the frontier's probabilities with
//! their components; `Solver::solve` moves the planes into the answer, `Solver::weigh` keeps
//! them, so a long game (the stress player) never builds them twice.
//!
//! `Solver::assume_mine` proves a cell from outside the view (with no reason; kept in a list so
//! that `Certain::reason` says none): the only input besides the view, a fact its caller
//! states (the stress player gives it only where a guess hit a mine). `Solver::renumber` takes
//! a view whose board was edited under it: it forgets the changed cells and those within two
//! of them, and every proof with a stored reason (pair and exact tier), re-reads the numbers
//! in the rows around the changes, and marks the rows of everything forgotten for the next
//! sweep; what stays is true of the new board. `Weighed::state_bytes` is the exact tier's heap
//! at one weighing (the frontier's numbers and variables, every component's counting layers,
//! the probabilities). The solver reads no flags: `Certain::wrong_flags` takes the position.
//!
//! The exact tier works in a `Scratch` of vectors kept on each thread from one solve to the
//! next (dropped after a solve that grew them past 1 MiB), as the planes keep their vectors
//! and the sweep its row buffers: a solve of a small board, once they have grown, allocates
//! little beyond its answer. A test holds every answer, bit for bit, to the one a fresh
//! thread gives, whatever the thread solved before.

#![allow(
    clippy::indexing_slicing,
    reason = "plane and word indices come from the solver's own Geometry; ids index vectors built alongside them"
)]

use std::cell::RefCell;
use std::sync::Arc;

use bitmines_core::{AsView, Status, View};

use crate::exact::{self, Counted, Share};
use crate::frontier::{Constraint, FastMap, Frontier, neighbours};
use crate::global::{Layouts, Weighing, Weights};
use crate::pairs;
use crate::planes::{Bad, Planes};
use crate::{Error, Reason, Tier};

/// Limits on the exact tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Budget {
    /// The most states one layer of a component's count may hold; a component past it is
    /// not counted (its cells get the density estimate, and the answer says it is
    /// approximate).
    pub states: usize,
    /// The most work (mine totals of the frontier times the components) for which the
    /// components are weighed exactly through the mine count; past it they are weighed
    /// by density (see [`Mode::Density`]).
    pub global: usize,
}

impl Budget {
    /// The same budget with at most `states` states in a layer of a component's count.
    pub fn with_states(mut self, states: usize) -> Budget {
        self.states = states;
        self
    }

    /// The same budget with at most `work` for exact weighing through the mine count.
    pub fn with_global(mut self, work: usize) -> Budget {
        self.global = work;
        self
    }
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            states: 1 << 18,
            global: 1 << 24,
        }
    }
}

/// How the probabilities were computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Mode {
    /// Every component counted exactly, tied together by the board's mine count.
    Exact,
    /// Every component counted exactly, but weighed on its own by the density of the mines
    /// left rather than through the exact mine count: accurate to about `k^2 / U` for a
    /// component holding `k` mines among `U` undecided cells, and blind to deductions that
    /// need the mine count. Used on huge frontiers.
    Density,
}

/// Counts of cells proven by each tier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// By one number alone.
    pub trivial: usize,
    /// By a pair of numbers.
    pub pair: usize,
    /// By counting the layouts of a component.
    pub component: usize,
    /// Only with the board's mine count.
    pub global: usize,
}

impl Tally {
    fn add(&mut self, tier: Tier, n: usize) {
        match tier {
            Tier::Trivial => self.trivial += n,
            Tier::Pair => self.pair += n,
            Tier::Component => self.component += n,
            Tier::Global => self.global += n,
        }
    }

    /// The deepest tier that proved anything, if any did.
    pub fn deepest(&self) -> Option<Tier> {
        [
            (self.global, Tier::Global),
            (self.component, Tier::Component),
            (self.pair, Tier::Pair),
            (self.trivial, Tier::Trivial),
        ]
        .into_iter()
        .find(|&(n, _)| n > 0)
        .map(|(_, t)| t)
    }
}

/// A solver over one view, holding its knowledge as planes. The free functions
/// [`certain`](crate::certain), [`probabilities`](crate::probabilities) and
/// [`hint`](crate::hint) make one and run it; use it directly to run the tiers one at a
/// time or to set a [`Budget`].
#[derive(Clone)]
pub struct Solver {
    planes: Planes,
    mines: usize,
    reasons: FastMap<usize, Reason>,
    /// Whether some reason may be of a cell that is not a proven mine, so that a later view
    /// may reveal it: the updates drop the reasons of revealed cells only then, since a
    /// proven mine is never revealed (the pair rule and the exact tier prove mostly mines
    /// that stay, and a move reveals every safe cell they proved).
    revealable_reasons: bool,
    /// On a board of one word a row, the constraints of the last round of
    /// [`Solver::pairs`], so that the next round looks only at pairs with a number that
    /// changed since (`pairs::pairs_since`); emptied when a proof is forgotten.
    pairs_before: Vec<Constraint>,
    /// Cells given as mines by [`Solver::assume_mine`], or supposed safe (plane index), in
    /// the order given.
    given: Vec<usize>,
    tally: Tally,
    budget: Budget,
}

impl std::fmt::Debug for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solver")
            .field("rows", &self.planes.geometry.rows())
            .field("cols", &self.planes.geometry.cols())
            .field("mines", &self.mines)
            .field("tally", &self.tally)
            .finish_non_exhaustive()
    }
}

impl Solver {
    /// A solver for what `position` shows. A lost game is `Error::Finished`.
    pub fn new(position: &(impl AsView + ?Sized)) -> Result<Solver, Error> {
        let view = position.view();
        if view.status() == Status::Lost {
            return Err(Error::Finished {
                status: view.status(),
            });
        }
        let planes = Planes::new(&view)?;
        Ok(Solver {
            planes,
            mines: view.mine_count(),
            reasons: FastMap::default(),
            revealable_reasons: false,
            pairs_before: Vec::new(),
            given: Vec::new(),
            tally: Tally::default(),
            budget: Budget::default(),
        })
    }

    /// Takes in a later view of the same game (more cells revealed, say after revealing
    /// the cells this solver proved safe), keeping everything proven so far, so that the
    /// next [`Solver::trivial`] or [`Solver::deduce`] looks only at the words that changed.
    /// Much cheaper than a new solver on a large board: only words whose revealed cells
    /// changed are copied ([`Solver::update_revealed`] goes further and reads only the words
    /// a reveal of the proven cells can have opened). A view of another size or mine count, or one that hides a
    /// revealed cell, changes a number or reveals a proven mine in those rows, is
    /// `Error::NotLater`; a lost game is `Error::Finished`. Flagged cells stay hidden when
    /// [`Game::reveal_cells`](bitmines_core::Game::reveal_cells) is given the safe plane, so
    /// a loop like the one below stops when only flagged safe cells are left.
    ///
    /// ```
    /// use bitmines_core::{Board, Game};
    /// use bitmines_solve::Solver;
    ///
    /// let board: Board = "..*.\n....\n.*..\n....\n".parse()?;
    /// let mut game = Game::new(board);
    /// game.reveal(0, 0)?;
    /// let mut solver = Solver::new(&game)?;
    /// while game.status() == bitmines_core::Status::Playing {
    ///     solver.deduce()?;
    ///     if !solver.proves_safe() {
    ///         break;
    ///     }
    ///     if game.reveal_cells(solver.safe_plane())?.opened == 0 {
    ///         break;
    ///     }
    ///     if game.status() == bitmines_core::Status::Playing {
    ///         solver.update(&game)?;
    ///     }
    /// }
    /// assert!(game.revealed_count() > 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn update(&mut self, position: &(impl AsView + ?Sized)) -> Result<(), Error> {
        let view = position.view();
        self.same_game(&view)?;
        self.planes.update(&view).map_err(|(index, what)| {
            let (row, col) = self.planes.cell(index);
            Error::NotLater {
                reason: format!("{what} at ({row}, {col})"),
            }
        })?;
        self.drop_revealed_reasons();
        Ok(())
    }

    /// Takes in the view after the cells this solver proved safe were revealed, cascades
    /// included (as [`Game::reveal_words`](bitmines_core::Game::reveal_words) of
    /// [`Solver::safe_words`] or [`Game::reveal_cells`](bitmines_core::Game::reveal_cells)
    /// of [`Solver::safe_plane`] do): as [`Solver::update`], but reading only the words of
    /// the cells proven safe and, from each word that changed, the words around it, so that
    /// its cost grows with what the reveal opened rather than with the board. A cell
    /// revealed elsewhere is not seen: the solver then knows less than the view shows,
    /// never anything false, and a later [`Solver::update`] takes it in. Errors as
    /// [`Solver::update`], for the words it reads.
    ///
    /// ```
    /// use bitmines_core::{Board, Game, Status};
    /// use bitmines_solve::Solver;
    ///
    /// let mut game = Game::new("..*.\n....\n.*..\n....\n".parse::<Board>()?);
    /// game.reveal(0, 0)?;
    /// let mut solver = Solver::new(&game)?;
    /// while game.status() == Status::Playing {
    ///     solver.deduce()?;
    ///     if !solver.proves_safe() {
    ///         break;
    ///     }
    ///     game.reveal_words(&solver.safe_words())?;
    ///     if game.status() == Status::Playing {
    ///         solver.update_revealed(&game)?;
    ///     }
    /// }
    /// assert!(game.revealed_count() > 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn update_revealed(&mut self, position: &(impl AsView + ?Sized)) -> Result<(), Error> {
        let view = position.view();
        self.same_game(&view)?;
        self.planes.update_near(&view).map_err(|(index, what)| {
            let (row, col) = self.planes.cell(index);
            Error::NotLater {
                reason: format!("{what} at ({row}, {col})"),
            }
        })?;
        self.drop_revealed_reasons();
        Ok(())
    }

    /// Forgets the reasons of cells now revealed, if some reason may be of one (see
    /// `revealable_reasons`).
    fn drop_revealed_reasons(&mut self) {
        if !self.revealable_reasons {
            return;
        }
        let planes = &self.planes;
        let mut revealable = false;
        self.reasons.retain(|&index, _| {
            let keep = !Planes::get(&planes.revealed, index);
            revealable |= keep && !Planes::get(&planes.mines, index);
            keep
        });
        self.revealable_reasons = revealable;
    }

    /// Refuses a lost view, or one of another size or mine count.
    fn same_game(&self, view: &View<'_>) -> Result<(), Error> {
        if view.status() == Status::Lost {
            return Err(Error::Finished {
                status: view.status(),
            });
        }
        let geometry = self.planes.geometry;
        if *view.geometry() != geometry || view.mine_count() != self.mines {
            return Err(Error::NotLater {
                reason: format!(
                    "it is a {}x{} board with {} mines, the solver's is {}x{} with {}",
                    view.rows(),
                    view.cols(),
                    view.mine_count(),
                    geometry.rows(),
                    geometry.cols(),
                    self.mines
                ),
            });
        }
        Ok(())
    }

    /// Takes the view of the same game after its board was edited under it
    /// ([`Game::rebase`](bitmines_core::Game::rebase)): the mines of `cells`, each hidden
    /// before the edit, changed, so the numbers around them may read otherwise, and the
    /// view may have opened more cells since. Whatever was proven of `cells`, and of the
    /// cells within two of them, is forgotten, as is everything the pair rule and the exact
    /// tier proved; the numbers around `cells` are read again, and the rest is as
    /// [`Solver::update`].
    ///
    /// What stays proven stays true of the edited board (no other cell's mine changed), but
    /// it may no longer follow from the view, so, like [`Solver::assume_mine`], it is
    /// knowledge from outside the view: a proof that the view alone clears the board needs a
    /// fresh solver. `bitmines-gen`'s no-guess repair edits and goes on this way, and
    /// certifies each board with a fresh replay.
    ///
    /// A cell off the board, or one revealed before the edit, is an error, and the solver
    /// is left as it was; after that, errors as [`Solver::update`].
    ///
    /// ```
    /// use bitmines_core::{Board, Game, Status};
    /// use bitmines_solve::Solver;
    ///
    /// let mut game = Game::new("*...\n....\n...*\n".parse::<Board>()?);
    /// game.reveal(0, 3)?;
    /// let mut solver = Solver::new(&game)?;
    /// solver.deduce()?;
    /// // The mine at (0, 0) moves to (2, 0); (0, 0) and (1, 0) open as (0, 1) turns 0.
    /// game.rebase("....\n....\n*..*\n".parse::<Board>()?)?;
    /// assert!(solver.update(&game).is_err()); // numbers changed: not a later view
    /// solver.renumber(&game, &[(0, 0), (2, 0)])?;
    /// solver.deduce()?;
    /// game.reveal_cells(solver.safe_plane())?;
    /// assert_eq!(game.status(), Status::Won);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn renumber(
        &mut self,
        position: &(impl AsView + ?Sized),
        cells: &[(usize, usize)],
    ) -> Result<(), Error> {
        let view = position.view();
        self.same_game(&view)?;
        // Proofs are forgotten below: a pair unchanged since the last round may prove
        // something again.
        self.pairs_before.clear();
        let mut indices = Vec::with_capacity(cells.len());
        for &(row, col) in cells {
            self.planes.geometry.bit(row, col)?;
            let index = self.planes.index(row, col);
            if Planes::get(&self.planes.revealed, index) {
                return Err(Error::NotLater {
                    reason: format!("the mine of ({row}, {col}) changed, but it was revealed"),
                });
            }
            indices.push(index);
        }
        // Also forgotten, so that what stays proven mostly still follows from the view
        // (none of it is false): what the pair rule and the exact tier proved, whose proofs
        // reach across many numbers, and what is proven within two cells of a changed
        // cell, where the numbers read again may have been what proved it.
        for (&index, _) in self.reasons.iter() {
            self.planes.unprove(index);
        }
        self.reasons.clear();
        let stride = self.planes.geometry.words_per_row() * 64;
        for &index in &indices {
            self.planes.renumber(&view, index);
            for dr in 0..5 {
                for dc in 0..5 {
                    let near = index + dr * stride + dc;
                    let Some(near) = near.checked_sub(2 * stride + 2) else {
                        continue;
                    };
                    if self.planes.is_cell(near) {
                        self.planes.unprove(near);
                        self.given.retain(|&g| g != near);
                    }
                }
            }
        }
        self.update(position)
    }

    /// The hidden cells proven safe so far, as a plane laid out by the view's
    /// [`Geometry`](bitmines_core::Geometry): the form
    /// [`Game::reveal_cells`](bitmines_core::Game::reveal_cells) takes.
    pub fn safe_plane(&self) -> &[u64] {
        let safe = &self.planes.safe;
        safe.get(1..safe.len() - 1).unwrap_or_default()
    }

    /// The hidden cells proven safe so far, as `(word, cells)` pairs in increasing word
    /// order, laid out like [`Solver::safe_plane`]: the form
    /// [`Game::reveal_words`](bitmines_core::Game::reveal_words) takes. The solver keeps a
    /// list of the words where it proved a cell safe, so this costs what was proven, not a
    /// pass over the board.
    ///
    /// ```
    /// use bitmines_core::Position;
    /// use bitmines_solve::Solver;
    ///
    /// let position: Position = "bitmines view 1x3 mines 0\n0##\n".parse()?;
    /// let mut solver = Solver::new(&position)?;
    /// solver.sweep()?;
    /// let words = solver.safe_words();
    /// assert_eq!(words.len(), 1);
    /// let plane = solver.safe_plane();
    /// assert_eq!(plane[words[0].0], words[0].1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn safe_words(&self) -> Vec<(usize, u64)> {
        self.planes.safe_words()
    }

    /// [`Solver::safe_words`] written into `words`, which is cleared first: a caller that
    /// hands over safe cells move after move keeps one buffer instead of a new list each
    /// move.
    ///
    /// ```
    /// use bitmines_core::Position;
    /// use bitmines_solve::Solver;
    ///
    /// let position: Position = "bitmines view 1x3 mines 0\n0##\n".parse()?;
    /// let mut solver = Solver::new(&position)?;
    /// solver.sweep()?;
    /// let mut words = vec![(7, 7)];
    /// solver.safe_words_into(&mut words);
    /// assert_eq!(words, solver.safe_words());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn safe_words_into(&self, words: &mut Vec<(usize, u64)>) {
        self.planes.safe_words_into(words);
    }

    /// The cells proven to be mines so far, as a plane laid out like
    /// [`Solver::safe_plane`], the form
    /// [`Game::flag_cells`](bitmines_core::Game::flag_cells) takes.
    pub fn mine_plane(&self) -> &[u64] {
        let mines = &self.planes.mines;
        mines.get(1..mines.len() - 1).unwrap_or_default()
    }

    /// Takes a fact from outside the view: the hidden cell `(row, col)` is a mine. The
    /// solver trusts it as it trusts the view, and the next sweep uses it; a wrong one
    /// shows up later as a contradiction. This is how an assistant that knows the board
    /// tells the solver where a guess hit a mine (as `bitmines stress --player solver`
    /// does). The cell gets no [`Reason`]: [`Certain::reason`] says `None` for it.
    /// A revealed cell, or one proven safe, is `Error::Assumption`; a cell already
    /// proven a mine is left as it is.
    pub fn assume_mine(&mut self, row: usize, col: usize) -> Result<(), Error> {
        self.planes.geometry.bit(row, col)?;
        let i = self.planes.index(row, col);
        let refuse = |what: &str| Error::Assumption {
            row,
            col,
            reason: what.to_owned(),
        };
        if Planes::get(&self.planes.revealed, i) {
            return Err(refuse("it is revealed"));
        }
        if Planes::get(&self.planes.safe, i) {
            return Err(refuse("the view proves it safe"));
        }
        if !Planes::get(&self.planes.mines, i) {
            self.planes.prove(i, true);
            self.given.push(i);
        }
        Ok(())
    }

    /// Supposes the hidden cell `(row, col)` safe, as [`Solver::assume_mine`] supposes a
    /// mine: to count the layouts that have it so (the 50/50 shares of the full policy).
    /// A revealed cell is already safe; a proven mine is `Error::Assumption`.
    pub(crate) fn suppose_safe(&mut self, row: usize, col: usize) -> Result<(), Error> {
        self.planes.geometry.bit(row, col)?;
        let i = self.planes.index(row, col);
        if Planes::get(&self.planes.mines, i) {
            return Err(Error::Assumption {
                row,
                col,
                reason: "the view proves it a mine".to_owned(),
            });
        }
        if !Planes::get(&self.planes.safe, i) && !Planes::get(&self.planes.revealed, i) {
            self.planes.prove(i, false);
            self.given.push(i);
        }
        Ok(())
    }

    /// Why `(row, col)` is proven so far, as [`Certain::reason`] says it.
    ///
    /// ```
    /// use bitmines_core::Position;
    /// use bitmines_solve::{Reason, Solver};
    ///
    /// let position: Position = "bitmines view 1x3 mines 1\n01#\n".parse()?;
    /// let mut solver = Solver::new(&position)?;
    /// solver.sweep()?;
    /// assert_eq!(solver.reason(0, 2)?, Some(Reason::Full { by: (0, 1), number: 1 }));
    /// assert_eq!(solver.reason(0, 0)?, None); // revealed, not proven
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reason(&self, row: usize, col: usize) -> Result<Option<Reason>, Error> {
        reason_of(&self.planes, &self.reasons, &self.given, row, col)
    }

    /// The same solver with `budget` for the exact tier.
    pub fn with_budget(mut self, budget: Budget) -> Solver {
        self.budget = budget;
        self
    }

    /// Heap bytes of the solver's planes (seven bits per padded cell, plus small scratch).
    pub fn heap_bytes(&self) -> usize {
        self.planes.heap_bytes() + self.pairs_before.capacity() * std::mem::size_of::<Constraint>()
    }

    /// What the tiers have proven so far.
    pub fn tally(&self) -> Tally {
        self.tally
    }

    /// One word-parallel pass of the trivial rule over the words where something may have
    /// changed (kept by strips of two words across the board: every strip of every row,
    /// the first time); returns the cells it proved. On a board of 2^19
    /// cells or more (and 512 rows or more) the pass runs in bands of 128 rows on the
    /// current rayon pool, the even bands at once and then the odd ones; what it proves
    /// depends on the board alone, never on the number of threads.
    pub fn sweep(&mut self) -> Result<usize, Error> {
        let found = self.planes.sweep().map_err(|bad| self.contradiction(bad))?;
        self.tally.trivial += found;
        Ok(found)
    }

    /// The bands of rows [`Solver::sweep_band`] takes: 16 rows each on a board that
    /// [`Solver::sweep`] works on in bands (with more than one word a row), else one, the
    /// whole board.
    pub fn bands(&self) -> usize {
        self.planes.band_count()
    }

    /// One pass of the trivial rule over the rows of band `band` (of [`Solver::bands`])
    /// where something may have changed, leaving the other bands' marks for later; returns
    /// the cells it proved (none for a band past the last). On a board of one band it is
    /// [`Solver::sweep`].
    ///
    /// The trivial rule, with every cell it proves safe revealed, reaches one fixed point
    /// whatever order it runs in, so a play may drive one band after another to its own
    /// fixed point, revealing what each sweep proves, and pass over the bands until none
    /// has marks left ([`Solver::marked`]): it stops where a play by whole sweeps stops,
    /// with each band's words in cache while it works on them.
    ///
    /// ```
    /// use bitmines_core::{Game, SeededPlacer, Status};
    /// use bitmines_solve::Solver;
    ///
    /// let board = SeededPlacer::new(3).board(600, 1024, 600 * 1024 / 8)?;
    /// let col = (0..1024).find(|&c| board.is_mine(300, c) == Ok(false)).unwrap_or(0);
    /// let mut game = Game::new(board);
    /// game.reveal(300, col)?;
    /// let mut solver = Solver::new(&game)?;
    /// assert_eq!(solver.bands(), 600 / 16);
    /// while solver.marked() && game.status() == Status::Playing {
    ///     for band in 0..solver.bands() {
    ///         while solver.sweep_band(band)? > 0 || solver.proves_safe() {
    ///             if solver.proves_safe() {
    ///                 game.reveal_words(&solver.safe_words())?;
    ///                 if game.status() != Status::Playing {
    ///                     break;
    ///                 }
    ///                 solver.update_revealed(&game)?;
    ///             }
    ///         }
    ///     }
    /// }
    /// assert_eq!(solver.sweep()?, 0); // the trivial rule's fixed point
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sweep_band(&mut self, band: usize) -> Result<usize, Error> {
        let found = self
            .planes
            .sweep_band(band)
            .map_err(|bad| self.contradiction(bad))?;
        self.tally.trivial += found;
        Ok(found)
    }

    /// Whether some rows are marked for the trivial rule, as changed since the last sweep
    /// of their band: if none is, [`Solver::sweep`] proves nothing.
    pub fn marked(&self) -> bool {
        self.planes.marked()
    }

    /// Takes what `other`, a solver of the same game, knows of the rows of bands `band..`
    /// (of [`Solver::bands`]), where it drove the trivial rule to its fixed point while this
    /// one drove the bands above: its revealed cells, numbers and marks there, and the mines
    /// both proved. The marks then cover every number of either side that may rule anew (at
    /// the seam, or beside a mine the other did not know), so a play that reveals in its game
    /// what `other`'s revealed, reads the view back with [`Solver::update`] and sweeps the
    /// marked rows reaches the fixed point it would have reached alone, without sweeping
    /// `other`'s rows again. Refused (`false`, nothing changed) when either solver holds
    /// proven safe cells still hidden, when `other` is of another game, or for band 0 or a
    /// band past the last.
    pub fn adopt_bands(&mut self, other: &Solver, band: usize) -> bool {
        other.mines == self.mines && self.planes.adopt_bands(&other.planes, band)
    }

    /// Whether some rows of the bands `bands` (of [`Solver::bands`]) are marked for the
    /// trivial rule: if none is, [`Solver::sweep_band`] of those bands proves nothing. A play
    /// that drives only some bands (one part of the board, while another solver of the same
    /// game drives the rest) stops when these are clear.
    ///
    /// ```
    /// use bitmines_core::{Game, SeededPlacer};
    /// use bitmines_solve::Solver;
    ///
    /// let board = SeededPlacer::new(3).board(600, 1024, 600 * 1024 / 8)?;
    /// let col = (0..1024).find(|&c| board.is_mine(300, c) == Ok(false)).unwrap_or(0);
    /// let mut game = Game::new(board);
    /// game.reveal(300, col)?;
    /// let mut solver = Solver::new(&game)?;
    /// let half = solver.bands() / 2;
    /// // The top half's bands to their fixed point (without reveals): the rest keep their
    /// // marks.
    /// while solver.marked_bands(0..half) {
    ///     for band in 0..half {
    ///         solver.sweep_band(band)?;
    ///     }
    /// }
    /// assert!(solver.marked_bands(half..solver.bands()));
    /// assert_eq!(solver.marked(), solver.marked_bands(0..solver.bands()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn marked_bands(&self, bands: std::ops::Range<usize>) -> bool {
        self.planes.marked_bands(bands.start, bands.end)
    }

    /// The trivial rule to its fixed point; returns the cells it proved.
    pub fn trivial(&mut self) -> Result<usize, Error> {
        let mut total = 0;
        loop {
            let found = self.sweep()?;
            if found == 0 {
                return Ok(total);
            }
            total += found;
        }
    }

    /// One round of the pair rule over every pair of frontier numbers within two cells of
    /// each other; returns the cells it proved.
    pub fn pairs(&mut self) -> Result<usize, Error> {
        // The constraints go into the thread's kept scratch (in bands on a large board, as
        // the exact tier scans them), so that a game that applies the rule at every move
        // allocates no list for it.
        let narrow = self.planes.geometry.words_per_row() == 1;
        let found = with_scratch(|scratch| {
            scratch.frontier.scan(&self.planes);
            let constraints = &scratch.frontier.constraints;
            if !narrow {
                return pairs::pairs(&mut self.planes, constraints, &mut self.reasons);
            }
            // A small board keeps each round's constraints, and the next round looks only
            // at the pairs of numbers that changed since.
            let found = pairs::pairs_since(
                &mut self.planes,
                constraints,
                &self.pairs_before,
                &mut self.reasons,
            );
            self.pairs_before.clone_from(constraints);
            found
        });
        self.revealable_reasons |= found > 0;
        self.tally.pair += found;
        Ok(found)
    }

    /// The trivial and pair rules, alternated until neither finds anything.
    pub fn deduce(&mut self) -> Result<usize, Error> {
        let mut total = self.trivial()?;
        loop {
            let found = self.pairs()?;
            if found == 0 {
                return Ok(total);
            }
            total += found + self.trivial()?;
        }
    }

    /// Runs every tier: the trivial and pair rules, then exact counting over each frontier
    /// component with the board's mine count. Finds every certain cell (unless a component
    /// exceeds the budget) and the mine probability of every hidden cell.
    pub fn solve(self) -> Result<Solution, Error> {
        self.solve_with(true)
    }

    /// [`Solver::solve`], with the pair rule or without it. Without it the exact tier
    /// proves the same cells, and the probabilities are the same, but those cells get the
    /// longer [`Reason::Component`] where a pair of numbers would do; that saves work when
    /// only the probabilities are wanted.
    pub fn solve_with(self, pairs: bool) -> Result<Solution, Error> {
        self.solve_keeping(pairs, true)
    }

    /// Only the probabilities of [`Solver::solve_with`] without the pair rule: the same
    /// numbers, with no reasons kept for the cells the exact tier proves (see
    /// [`Solver::count`]).
    pub(crate) fn probabilities(self) -> Result<Probabilities, Error> {
        Ok(self.solve_keeping(false, false)?.probabilities)
    }

    /// [`Solver::solve_with`], keeping the exact tier's reasons or not.
    fn solve_keeping(mut self, pairs: bool, reasons: bool) -> Result<Solution, Error> {
        let counting = self.count(pairs, reasons)?;
        let exact = counting.exact();
        let Solver {
            planes,
            reasons,
            tally,
            given,
            ..
        } = self;
        let planes = Arc::new(planes);
        Ok(Solution {
            certain: Certain {
                planes: Arc::clone(&planes),
                reasons,
                given,
                tally,
                complete: exact,
            },
            probabilities: Probabilities {
                planes,
                frontier: counting.frontier,
                off: counting.off,
                mode: counting.mode,
                approximate: counting.approximate,
                off_cells: counting.off_cells,
                layouts: counting.layouts.filter(|_| exact),
            },
        })
    }

    /// Runs the exact tier in place and keeps the solver: what counting proves joins the
    /// safe and mine planes (as with [`Solver::solve`], without the pair rule, which proves
    /// nothing counting would not), and the answer gives the mine probability of every
    /// undecided frontier cell with the component it belongs to. After the moves it
    /// suggests, [`Solver::update`] takes the next view, so a long game never builds the
    /// planes twice.
    ///
    /// ```
    /// use bitmines_core::Position;
    /// use bitmines_solve::Solver;
    ///
    /// // Two separate 1s, each with two hidden cells: two components, each a 50/50, and
    /// // the third mine in one of the two cells between them.
    /// let position: Position = "bitmines view 1x8 mines 3\n#1####1#\n".parse()?;
    /// let mut solver = Solver::new(&position)?;
    /// let weighed = solver.weigh()?;
    /// assert_eq!(weighed.components(), 2);
    /// assert!(weighed.frontier().all(|(_, p, _)| (p - 0.5).abs() < 1e-12));
    /// assert_eq!(weighed.safest_each(), [((0, 0), 0.5), ((0, 5), 0.5)]);
    /// assert_eq!(weighed.off_frontier_cells(), 2);
    /// assert_eq!(weighed.frontier_cells(), 4);
    /// assert!(weighed.state_bytes() > 0);
    /// assert!(!solver.proves_safe());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn weigh(&mut self) -> Result<Weighed, Error> {
        let counting = self.count(false, true)?;
        let planes = &self.planes;
        let cells = counting
            .frontier
            .iter()
            .filter(|&&(i, _, _)| planes.is_unknown(i))
            .map(|&(i, p, c)| (planes.cell(i), p, c))
            .collect();
        Ok(Weighed {
            state_bytes: counting.state_bytes,
            frontier_cells: counting.frontier.len(),
            exact: counting.exact(),
            cells,
            components: counting.components,
            off: counting.off,
            off_cells: counting.off_cells,
            mode: counting.mode,
            approximate: counting.approximate,
        })
    }

    /// The trivial rule (and the pair rule, if `pairs`) to its fixed point, then exact
    /// counting over each frontier component with the mine count: proves what it finds
    /// into the planes and returns the probabilities. With `reasons`, each cell it proves
    /// gets its reason and the tally says which tier proved it; without, the cells are
    /// proven all the same, but the second count that tells whether the mine count was
    /// needed is skipped (for [`crate::probabilities`], which returns neither).
    fn count(&mut self, pairs: bool, reasons: bool) -> Result<Counting, Error> {
        with_scratch(|scratch| self.count_in(pairs, reasons, scratch))
    }

    /// [`Solver::count`] in `scratch`'s buffers.
    fn count_in(
        &mut self,
        pairs: bool,
        reasons: bool,
        scratch: &mut Scratch,
    ) -> Result<Counting, Error> {
        // The pair rule and the exact tier below may give reasons to safe cells.
        self.revealable_reasons = true;
        // The trivial and pair rules to their fixed point, keeping the last list of
        // constraints, which the pair rule left unchanged, for the exact tier.
        self.trivial()?;
        loop {
            scratch.frontier.scan(&self.planes);
            if !pairs {
                break;
            }
            let found = pairs::pairs(
                &mut self.planes,
                &scratch.frontier.constraints,
                &mut self.reasons,
            );
            self.tally.pair += found;
            if found == 0 {
                break;
            }
            self.trivial()?;
        }
        let proven = self.planes.mine_count();
        let Some(left) = self.mines.checked_sub(proven) else {
            return Err(Error::MineCount {
                mines: self.mines,
                min: proven,
                max: proven,
            });
        };
        let undecided = self.planes.undecided_count();
        let stride = self.planes.geometry.words_per_row() * 64;
        scratch.frontier.build(undecided, stride);
        let Scratch {
            frontier,
            counted,
            which,
            work,
            weights,
            shares,
            local,
            support,
            approximate_vars,
            of_var,
        } = scratch;
        let mut off = frontier.off;
        which.clear();
        approximate_vars.clear();
        let mut approximate = 0;
        for c in 0..frontier.components.len() {
            let component = &{ frontier.components[c] };
            if counted.len() == which.len() {
                counted.push(Counted::default());
            }
            let slot = &mut counted[which.len()];
            // A small component by walking its layouts; the rest, or one with too many
            // layouts, by the forward pass, whose plan needs each constraint's variables.
            let walked = exact::enumerate(
                frontier.part(component),
                left,
                self.budget.states,
                slot,
                work,
            );
            let counting = if walked {
                Ok(())
            } else {
                frontier.link_vars_by_constraint();
                exact::count(
                    frontier.part(component),
                    left,
                    self.budget.states,
                    slot,
                    work,
                )
            };
            match counting {
                Ok(()) => {
                    if slot.distribution().is_empty() {
                        let first =
                            &frontier.constraints[frontier.constraints_of(component)[0] as usize];
                        let (row, col) = self.planes.cell(first.index);
                        return Err(Error::Contradiction {
                            row,
                            col,
                            number: first.number,
                            reason: "no layout of the hidden cells around it meets it together with the numbers linked to it".into(),
                        });
                    }
                    which.push(c);
                }
                Err(_) => {
                    approximate += 1;
                    for &v in frontier.vars_of(component) {
                        off += frontier.vars[v as usize].cells.len();
                        approximate_vars.push((v, c as u32));
                    }
                }
            }
        }
        let counted = &counted[..which.len()];
        let work_total: usize = counted
            .iter()
            .map(|c| c.distribution().len())
            .sum::<usize>()
            .saturating_mul(counted.len());
        let weighing = if work_total <= self.budget.global {
            Weighing::Exact
        } else {
            Weighing::Density
        };
        weights
            .weigh(
                counted.iter().map(Counted::distribution),
                left,
                off,
                weighing,
            )
            .map_err(|none| Error::MineCount {
                mines: self.mines,
                min: proven + none.min,
                max: proven + none.max + off,
            })?;

        // Each variable's probability and component, read out in the frontier's plane order
        // at the end: the answer's cells in order with no sort.
        of_var.clear();
        of_var.resize(frontier.vars.len(), (0.0, 0));
        for (k, (&c, count)) in which.iter().zip(counted).enumerate() {
            exact::shares(count, weights.component(k), shares, work);
            for share in shares.iter() {
                let m = share.m as f64;
                let total: f64 = share.z.iter().sum();
                let mines: f64 = share.z.iter().enumerate().map(|(x, n)| x as f64 * n).sum();
                let p = if total > 0.0 {
                    mines / (m * total)
                } else {
                    0.0
                };
                of_var[share.var as usize] = (p, c as u32);
            }
            if !shares.iter().any(|s| verdict(&s.z, s.m).is_some()) {
                continue;
            }
            // Which verdicts needed the mine count: those the component alone leaves open.
            // The same count with every possible total weighed alike gives them, in the
            // same step order.
            local.clear();
            if reasons && weighing == Weighing::Exact {
                support.clear();
                support.extend(
                    count
                        .distribution()
                        .iter()
                        .map(|&n| if n > 0.0 { 1.0 } else { 0.0 }),
                );
                exact::shares(count, support, local, work);
            }
            let numbers: Vec<(usize, usize)> = if reasons {
                frontier
                    .constraints_of(&frontier.components[c])
                    .iter()
                    .map(|&k| self.planes.cell(frontier.constraints[k as usize].index))
                    .collect()
            } else {
                Vec::new()
            };
            for (i, share) in shares.iter().enumerate() {
                let Some(mine) = verdict(&share.z, share.m) else {
                    continue;
                };
                let cells = &frontier.vars[share.var as usize].cells;
                if reasons {
                    let global = weighing == Weighing::Exact
                        && local.get(i).and_then(|l| verdict(&l.z, l.m)) != Some(mine);
                    let reason = Reason::Component {
                        numbers: numbers.clone(),
                        global,
                    };
                    self.tally.add(reason.tier(), cells.len());
                    for &cell in cells {
                        self.planes.prove(cell, mine);
                        self.reasons.insert(cell, reason.clone());
                    }
                } else {
                    for &cell in cells {
                        self.planes.prove(cell, mine);
                    }
                }
            }
        }
        for &(v, c) in approximate_vars.iter() {
            of_var[v as usize] = (weights.off_probability, c);
        }
        let mut frontier_p: Vec<(usize, f64, u32)> = Vec::with_capacity(frontier.cells);
        frontier_p.extend(frontier.in_plane_order.iter().map(|&(cell, v)| {
            let (p, c) = of_var[v as usize];
            (cell, p, c)
        }));
        if weights.off_safe || weights.off_mine {
            let reason = Reason::MineCount {
                mines_left: weights.off_mines.unwrap_or(0),
                cells: off,
            };
            let mut proven_off = 0;
            for index in self.planes.undecided_cells() {
                if frontier_p
                    .binary_search_by_key(&index, |&(c, _, _)| c)
                    .is_err()
                {
                    self.planes.prove(index, weights.off_mine);
                    if reasons {
                        self.reasons.insert(index, reason.clone());
                    }
                    proven_off += 1;
                }
            }
            self.tally.global += proven_off;
        }
        let state_bytes = frontier.heap_bytes(false)
            + counted.iter().map(|c| c.heap_bytes(false)).sum::<usize>()
            + frontier_p.capacity() * std::mem::size_of::<(usize, f64, u32)>();
        Ok(Counting {
            state_bytes,
            frontier: frontier_p,
            components: frontier.components.len(),
            off: weights.off_probability,
            off_cells: if weights.off_safe || weights.off_mine {
                0
            } else {
                frontier.off
            },
            mode: match weighing {
                Weighing::Exact => Mode::Exact,
                Weighing::Density => Mode::Density,
            },
            approximate,
            layouts: weights.layouts,
        })
    }

    /// Whether some hidden cell is proven safe so far.
    pub fn proves_safe(&self) -> bool {
        self.planes.safe_count > 0
    }

    /// What the tiers run so far have proven, without running the exact tier; the answer
    /// is marked incomplete.
    pub fn into_certain(self) -> Certain {
        Certain {
            planes: Arc::new(self.planes),
            reasons: self.reasons,
            given: self.given,
            tally: self.tally,
            complete: false,
        }
    }

    fn contradiction(&self, bad: Bad) -> Error {
        let (row, col) = self.planes.cell(bad.0);
        let number = self.planes.number(bad.0);
        let stride = self.planes.geometry.words_per_row() * 64;
        let around = neighbours(bad.0, stride);
        let mines = around
            .iter()
            .filter(|&&n| Planes::get(&self.planes.mines, n))
            .count();
        let open = around
            .iter()
            .filter(|&&n| self.planes.is_unknown(n))
            .count();
        Error::Contradiction {
            row,
            col,
            number,
            reason: format!("{mines} proven mines and {open} undecided cells around it"),
        }
    }
}

/// The exact tier's buffers: the frontier, each component's count, the weighing and the
/// shares. Kept on each thread from one solve to the next ([`with_scratch`]), so that a
/// solve of a small board, once the buffers have grown, allocates little beyond its answer.
#[derive(Debug, Default)]
struct Scratch {
    frontier: Frontier,
    /// The counts of the components counted exactly (the first `which.len()`; more are
    /// kept from earlier solves for their vectors).
    counted: Vec<Counted>,
    /// The component of each count.
    which: Vec<usize>,
    work: exact::Work,
    weights: Weights,
    shares: Vec<Share>,
    /// The shares with every possible mine total weighed alike.
    local: Vec<Share>,
    /// Those weights.
    support: Vec<f64>,
    /// Variables of the components past the budget, with their component.
    approximate_vars: Vec<(u32, u32)>,
    /// Each frontier variable's probability and component.
    of_var: Vec<(f64, u32)>,
}

impl Scratch {
    /// Heap bytes of its vectors, roughly: what it would keep on the thread.
    fn heap_bytes(&self) -> usize {
        self.frontier.heap_bytes(true)
            + self
                .counted
                .iter()
                .map(|c| c.heap_bytes(true))
                .sum::<usize>()
    }
}

/// The most heap a thread's kept [`Scratch`] may hold: the buffers of a huge frontier are
/// freed after its solve rather than held for the life of the thread.
const SCRATCH_KEPT_BYTES: usize = 1 << 20;

thread_local! {
    /// The exact tier's buffers of the last solve on this thread.
    static SCRATCH: RefCell<Option<Box<Scratch>>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's kept [`Scratch`] (a fresh one if there is none, or if a
/// solve on this thread already holds it), and keeps it for the next solve unless it grew
/// past [`SCRATCH_KEPT_BYTES`].
fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    let mut scratch = SCRATCH
        .try_with(|kept| kept.try_borrow_mut().ok().and_then(|mut kept| kept.take()))
        .ok()
        .flatten()
        .unwrap_or_default();
    let answer = f(&mut scratch);
    if scratch.heap_bytes() <= SCRATCH_KEPT_BYTES {
        // A thread being torn down has no slot: the buffers are then simply freed.
        let _ = SCRATCH.try_with(|kept| {
            if let Ok(mut kept) = kept.try_borrow_mut() {
                *kept = Some(scratch);
            }
        });
    }
    answer
}

/// `Some(true)` if every weighted layout puts a mine on all `m` cells of the variable,
/// `Some(false)` if none does, from its weighted counts by mines held.
fn verdict(z: &[f64; 9], m: usize) -> Option<bool> {
    if z[1..=m].iter().all(|&n| n == 0.0) {
        Some(false)
    } else if z[..m].iter().all(|&n| n == 0.0) {
        Some(true)
    } else {
        None
    }
}

/// Everything the solver found: the certain cells and the probabilities.
#[derive(Debug, Clone)]
pub struct Solution {
    /// The proven cells with their reasons.
    pub certain: Certain,
    /// The mine probability of every cell.
    pub probabilities: Probabilities,
}

/// The cells the solver proved, with the reason for each.
#[derive(Clone)]
pub struct Certain {
    planes: Arc<Planes>,
    reasons: FastMap<usize, Reason>,
    given: Vec<usize>,
    tally: Tally,
    complete: bool,
}

impl std::fmt::Debug for Certain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Certain")
            .field("tally", &self.tally)
            .field("complete", &self.complete)
            .finish_non_exhaustive()
    }
}

impl Certain {
    /// Hidden cells proven neither safe nor a mine, row by row.
    pub(crate) fn undecided(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.planes
            .undecided_cells()
            .into_iter()
            .map(|i| self.planes.cell(i))
    }

    /// Proven safe cells that are still hidden, row by row.
    pub fn safe(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.planes.cells_of(&self.planes.safe)
    }

    /// Proven mines, row by row.
    pub fn mines(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.planes.cells_of(&self.planes.mines)
    }

    /// The flags of `position` on cells proven safe, row by row: give it the position this
    /// answer came from (the solver never reads flags, so it keeps none). A position of
    /// another size is `Error::NotLater`.
    pub fn wrong_flags(
        &self,
        position: &(impl AsView + ?Sized),
    ) -> Result<Vec<(usize, usize)>, Error> {
        let view = position.view();
        let geometry = self.planes.geometry;
        if *view.geometry() != geometry {
            return Err(Error::NotLater {
                reason: format!(
                    "it is a {}x{} board, the solver's is {}x{}",
                    view.rows(),
                    view.cols(),
                    geometry.rows(),
                    geometry.cols()
                ),
            });
        }
        let flagged = view.flagged_words();
        Ok(self
            .safe()
            .filter(|&(r, c)| {
                let i = self.planes.index(r, c) - 64;
                flagged.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0)
            })
            .collect())
    }

    /// Whether `(row, col)` is proven: `Some(true)` a mine, `Some(false)` safe (or
    /// revealed), `None` undecided.
    pub fn verdict(&self, row: usize, col: usize) -> Result<Option<bool>, Error> {
        self.planes.geometry.bit(row, col)?;
        let i = self.planes.index(row, col);
        Ok(if Planes::get(&self.planes.mines, i) {
            Some(true)
        } else if Planes::get(&self.planes.safe, i) || Planes::get(&self.planes.revealed, i) {
            Some(false)
        } else {
            None
        })
    }

    /// Why `(row, col)` is proven, or `None` if it is not: undecided, revealed, given by
    /// [`Solver::assume_mine`], or off the board (a cell off the board is proven nothing).
    ///
    /// ```
    /// use bitmines_core::Position;
    /// use bitmines_solve::Reason;
    ///
    /// let position: Position = "bitmines view 1x3 mines 1\n01#\n".parse()?;
    /// let certain = bitmines_solve::certain(&position)?;
    /// assert_eq!(certain.reason(0, 2), Some(Reason::Full { by: (0, 1), number: 1 }));
    /// assert_eq!(certain.reason(0, 0), None); // revealed
    /// assert_eq!(certain.reason(5, 5), None); // off the board
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reason(&self, row: usize, col: usize) -> Option<Reason> {
        reason_of(&self.planes, &self.reasons, &self.given, row, col)
            .ok()
            .flatten()
    }

    /// Cells proven by each tier.
    pub fn tally(&self) -> Tally {
        self.tally
    }

    /// Whether every certain cell was found: false when a component exceeded the budget
    /// or the components were weighed by density, which misses what only the mine count
    /// proves.
    pub fn complete(&self) -> bool {
        self.complete
    }
}

/// The probability that each hidden cell is a mine, given the view and the mine count.
#[derive(Clone)]
pub struct Probabilities {
    planes: Arc<Planes>,
    /// Frontier cells (plane index) with their probability, in increasing index order.
    /// (Their component too, as the exact tier listed them: kept rather than copied out.)
    frontier: Vec<(usize, f64, u32)>,
    off: f64,
    off_cells: usize,
    mode: Mode,
    approximate: usize,
    layouts: Option<Layouts>,
}

impl std::fmt::Debug for Probabilities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probabilities")
            .field("mode", &self.mode)
            .field("frontier", &self.frontier.len())
            .field("off_frontier", &self.off)
            .finish_non_exhaustive()
    }
}

impl Probabilities {
    /// The probability that `(row, col)` is a mine: 0.0 for a revealed or proven safe cell,
    /// 1.0 for a proven mine.
    pub fn mine(&self, row: usize, col: usize) -> Result<f64, Error> {
        self.planes.geometry.bit(row, col)?;
        let p = &self.planes;
        let i = p.index(row, col);
        Ok(if Planes::get(&p.revealed, i) || Planes::get(&p.safe, i) {
            0.0
        } else if Planes::get(&p.mines, i) {
            1.0
        } else {
            match self.frontier.binary_search_by_key(&i, |&(c, _, _)| c) {
                Ok(at) => self.frontier[at].1,
                Err(_) => self.off,
            }
        })
    }

    /// Whether every probability is exact: every component counted within the budget and
    /// all tied together by the mine count ([`Mode::Exact`]).
    pub fn exact(&self) -> bool {
        self.approximate == 0 && self.mode == Mode::Exact
    }

    /// How the components were weighed.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Components past the budget, whose cells got the density estimate.
    pub fn approximate_components(&self) -> usize {
        self.approximate
    }

    /// The probability shared by every undecided hidden cell that touches no number.
    pub fn off_frontier(&self) -> f64 {
        self.off
    }

    /// Undecided hidden cells touching no number.
    pub fn off_frontier_cells(&self) -> usize {
        self.off_cells
    }

    /// Undecided cells next to a revealed number, with their probability, row by row.
    pub fn frontier(&self) -> impl Iterator<Item = ((usize, usize), f64)> + '_ {
        self.frontier
            .iter()
            .filter(|&&(i, _, _)| self.planes.is_unknown(i))
            .map(|&(i, p, _)| (self.planes.cell(i), p))
    }

    /// The base-10 logarithm of the number of layouts of the mines consistent with the view
    /// and the mine count (exact mode only).
    pub fn log10_layouts(&self) -> Option<f64> {
        self.layouts.map(|l| l.ln() / std::f64::consts::LN_10)
    }
}

/// What the exact tier found: the probabilities, before they are shaped into an answer.
struct Counting {
    /// Heap bytes the exact tier used at once: the frontier, every component's counting
    /// layers and the probabilities.
    state_bytes: usize,
    /// Frontier cells (plane index) with their probability and component, by index.
    frontier: Vec<(usize, f64, u32)>,
    /// Components of the frontier.
    components: usize,
    /// The probability of an undecided cell off the frontier.
    off: f64,
    /// Undecided cells off the frontier, unless the mine count proved them.
    off_cells: usize,
    mode: Mode,
    approximate: usize,
    layouts: Option<Layouts>,
}

impl Counting {
    /// Whether every component was counted and they were weighed together exactly.
    fn exact(&self) -> bool {
        self.approximate == 0 && self.mode == Mode::Exact
    }
}

/// The probabilities from [`Solver::weigh`]: every undecided frontier cell with its mine
/// probability and its component (the frontier cells linked through shared numbers, whose
/// layouts depend on the rest of the board only through the mine count).
#[derive(Debug, Clone)]
pub struct Weighed {
    state_bytes: usize,
    frontier_cells: usize,
    /// Undecided frontier cells, row by row, with probability and component.
    cells: Vec<((usize, usize), f64, u32)>,
    components: usize,
    off: f64,
    off_cells: usize,
    mode: Mode,
    approximate: usize,
    exact: bool,
}

impl Weighed {
    /// Heap bytes the exact tier used at once for this weighing: the frontier's numbers,
    /// variables and components, every component's counting layers (all are kept until
    /// the mine count weighs them together) and the probabilities. Over
    /// [`Weighed::frontier_cells`], the exact tier's state per frontier cell. The vectors
    /// that hold them are kept on the thread for the next weighing (up to 1 MiB), so what
    /// the heap holds may be more, from an earlier, larger one; this counts what this
    /// weighing filled.
    pub fn state_bytes(&self) -> usize {
        self.state_bytes
    }

    /// Undecided cells next to a revealed number when the exact tier ran (those it then
    /// proved included).
    pub fn frontier_cells(&self) -> usize {
        self.frontier_cells
    }

    /// Undecided cells next to a revealed number, row by row: each with its mine
    /// probability and the index of its component (below [`Weighed::components`]).
    pub fn frontier(&self) -> impl Iterator<Item = ((usize, usize), f64, usize)> + '_ {
        self.cells.iter().map(|&(cell, p, c)| (cell, p, c as usize))
    }

    /// Components of the frontier, counting those whose cells were all proven.
    pub fn components(&self) -> usize {
        self.components
    }

    /// The safest undecided cell of each component that has one, with its probability,
    /// in component order; among equally safe cells, the first row by row.
    pub fn safest_each(&self) -> Vec<((usize, usize), f64)> {
        let mut best: Vec<Option<((usize, usize), f64)>> = vec![None; self.components];
        for &(cell, p, c) in &self.cells {
            let slot = &mut best[c as usize];
            if slot.is_none_or(|(_, q)| p < q) {
                *slot = Some((cell, p));
            }
        }
        best.into_iter().flatten().collect()
    }

    /// The probability shared by every undecided hidden cell that touches no number.
    pub fn off_frontier(&self) -> f64 {
        self.off
    }

    /// Undecided hidden cells touching no number.
    pub fn off_frontier_cells(&self) -> usize {
        self.off_cells
    }

    /// How the components were weighed.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Components past the budget, whose cells got the density estimate.
    pub fn approximate_components(&self) -> usize {
        self.approximate
    }

    /// Whether every probability is exact (see [`Probabilities::exact`]).
    pub fn exact(&self) -> bool {
        self.exact
    }
}

/// Why plane cell `(row, col)` is proven (see [`Certain::reason`]).
fn reason_of(
    planes: &Planes,
    reasons: &FastMap<usize, Reason>,
    given: &[usize],
    row: usize,
    col: usize,
) -> Result<Option<Reason>, Error> {
    planes.geometry.bit(row, col)?;
    let i = planes.index(row, col);
    if let Some(reason) = reasons.get(&i) {
        return Ok(Some(reason.clone()));
    }
    if given.contains(&i) {
        return Ok(None);
    }
    let p = planes;
    let stride = p.geometry.words_per_row() * 64;
    let mine = Planes::get(&p.mines, i);
    if !mine && !Planes::get(&p.safe, i) {
        return Ok(None);
    }
    // A cell proven by the trivial rule: some revealed neighbour still shows the rule,
    // since proven facts only add to what held when it fired.
    for n in neighbours(i, stride) {
        if !Planes::get(&p.revealed, n) || !p.is_cell(n) {
            continue;
        }
        let around = neighbours(n, stride);
        let number = p.number(n);
        let mines = around.iter().filter(|&&x| Planes::get(&p.mines, x)).count();
        let open = around.iter().filter(|&&x| p.is_unknown(x)).count();
        let by = p.cell(n);
        if !mine && usize::from(number) == mines {
            return Ok(Some(Reason::Satisfied { by, number }));
        }
        if mine && usize::from(number) == mines + open {
            return Ok(Some(Reason::Full { by, number }));
        }
    }
    Ok(None)
}
