//! The view: one player's revealed and flagged cells over a shared board.
//!
//! A `Game` holds the revealed and flagged planes, the revealed and flag counters, the status,
//! the `Rule`, the exploded mines, the chosen `Fill`, and the cascade's scratch buffers. The
//! rules of reveal, flag and chord live here; `Game::validate` recomputes every cached count
//! from the planes, and the tests call it.
//!
//! The rule is a policy like the first-click one: under `Rule::Classic` a mine revealed loses;
//! under `Rule::Endless` it explodes and play goes on, the exploded cell closed to every move
//! and counted by chords as a known mine. The exploded mines are kept twice: a list in the
//! order they exploded (`Game::exploded`), and a hash set of their bit indices, so that
//! `Game::cell` stays O(1) with thousands of them (a set rather than a plane: memory per
//! exploded mine, not per cell; it is consulted only for hidden mines, and not at all while
//! nothing has exploded).
//!
//! Every reader builds its game through the private `Game::from_view` (text and LeetCode by
//! way of `restore`, which turns per-cell characters into planes), under the rule the input
//! names: a word pass over the planes for revealed mines and flagged revealed cells, the
//! exploded list, and, for a classic game only, the one rule that needs more than one cell,
//! that several exploded mines need a revealed cell a single chord on which explains them all
//! (an endless game may explode any mines, one reveal each).
//!
//! Memory: a game holds three planes (revealed, flagged, and the cascade's pending plane) and a
//! queue entry per row; with its board, 5 bits per padded cell, 0.66 bytes per cell on a
//! 1000x1000 board, padding included. An endless game adds some 18 to 37 bytes per exploded
//! mine (a list entry and a hash set slot, with the spare room both keep), nothing per cell.

mod batch;
mod rebase;
pub mod tiled;

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use bitvec::prelude::{BitSlice, Lsb0};

use crate::board::{row_view, word_at};
use crate::cascade::{self, Fill, Planes};
use crate::geometry::WORD_BITS;
use crate::place::{FirstClick, Placement, Placer, SeededPlacer};
use crate::plane::Plane;
use crate::{Board, Error, Geometry};

/// Where a game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Status {
    /// Moves are still accepted.
    Playing,
    /// Every safe cell is revealed.
    Won,
    /// A mine was revealed under [`Rule::Classic`] (an endless game is never lost).
    Lost,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Playing => "playing",
            Status::Won => "won",
            Status::Lost => "lost",
        })
    }
}

/// What revealing a mine does: the rule a [`Game`] is played under, chosen with
/// [`Game::with_rule`].
///
/// ```
/// use bitmines_core::{Board, Cell, Game, Rule, Status};
///
/// let board: Board = "*..\n...\n..*\n".parse()?;
/// let mut classic = Game::new(board.clone());
/// assert_eq!(classic.reveal(0, 0)?.status, Status::Lost);
///
/// let mut endless = Game::new(board).with_rule(Rule::Endless);
/// let step = endless.reveal(0, 0)?; // explodes, and play goes on
/// assert_eq!((step.exploded, step.status), (1, Status::Playing));
/// assert_eq!(endless.cell(0, 0)?, Cell::Exploded);
/// endless.reveal(2, 0)?;
/// let step = endless.reveal(0, 2)?;
/// assert_eq!(step.status, Status::Won); // every safe cell revealed, a mine exploded or not
/// assert_eq!(endless.exploded_count(), 1);
/// # Ok::<(), bitmines_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Rule {
    /// The first mine revealed explodes and loses the game.
    #[default]
    Classic,
    /// A mine revealed explodes and stays shown as [`Cell::Exploded`], and the game goes on:
    /// it is never lost, and it is won once every safe cell is revealed. An exploded mine is
    /// closed like a revealed cell (revealing, flagging or chording on it does nothing), and
    /// a chord counts it as a known mine together with the flags. Made for huge boards
    /// shared by many players, where a mistake should cost a penalty, not the game.
    Endless,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rule::Classic => "classic",
            Rule::Endless => "endless",
        })
    }
}

/// What a reveal or a chord did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Reveal {
    /// Safe cells opened by this call, cascades included.
    pub opened: usize,
    /// The game's status after the call.
    pub status: Status,
    /// Mines set off by this call. Under [`Rule::Classic`] the first loses the game, so a
    /// reveal sets off at most one and a chord at most eight; under [`Rule::Endless`] a batch
    /// reveal may set off any number.
    pub exploded: usize,
}

/// What a player sees on one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Cell {
    /// Not revealed, not flagged (after a loss: not a mine).
    Hidden,
    /// Flagged (after a loss: a correctly flagged mine).
    Flagged,
    /// Revealed safe cell with its neighbouring mine count.
    Open(u8),
    /// A mine the player revealed: under [`Rule::Classic`] it lost the game, under
    /// [`Rule::Endless`] the game went on.
    Exploded,
    /// After a loss: a mine that was neither flagged nor revealed.
    Mine,
    /// After a loss: a flag on a safe cell.
    WrongFlag,
}

/// What an imported state shows on one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shown {
    Hidden,
    Flagged,
    Revealed,
    Exploded,
}

/// A game's view as read from outside: revealed and flagged planes with their sentinel and
/// padding bits clear, and the exploded mines as bit indices in increasing order.
#[derive(Debug)]
pub(crate) struct View {
    pub(crate) revealed: Plane,
    pub(crate) flagged: Plane,
    pub(crate) exploded: Vec<usize>,
}

/// The mines of a game that has not had its first click yet.
#[derive(Clone)]
struct Deferred {
    mines: usize,
    policy: FirstClick,
    placer: Arc<dyn Placer>,
}

/// One player's view of a [`Board`]: revealed and flagged planes, their counters, the
/// exploded mines, and the status.
///
/// The board sits behind an `Arc`, so many games can share one truth. A game can also start
/// before its mines exist ([`Game::deferred`]): its first reveal asks a [`Placer`] for a board
/// that keeps the first-click zone clear. What a mine revealed does is the game's [`Rule`]
/// ([`Game::with_rule`]): it loses a classic game, and an endless one goes on.
///
/// ```
/// use bitmines_core::{Board, Cell, Game, Status};
///
/// let board: Board = "...\n...\n..*\n".parse()?;
/// let mut game = Game::new(board);
/// let step = game.reveal(0, 0)?;
/// assert_eq!(step.opened, 8);
/// assert_eq!(step.status, Status::Won);
/// assert_eq!(game.cell(1, 1)?, Cell::Open(1));
/// # Ok::<(), bitmines_core::Error>(())
/// ```
pub struct Game {
    board: Arc<Board>,
    revealed: Plane,
    flagged: Plane,
    revealed_count: usize,
    flag_count: usize,
    status: Status,
    rule: Rule,
    /// Bit indices of the mines that exploded, in the order they did.
    exploded: Vec<usize>,
    /// The same bit indices as a set, so that [`Game::cell`] is O(1) however many mines
    /// exploded (an endless game may explode thousands). A set rather than a plane: it costs
    /// memory per exploded mine, not per cell.
    exploded_set: HashSet<usize>,
    fill: Fill,
    deferred: Option<Deferred>,
    /// The seed the board came from, when the game knows it (see [`Game::seed`]).
    seed: Option<u64>,
    word_scratch: cascade::words::Scratch,
    cell_stack: Vec<usize>,
}

impl Clone for Game {
    fn clone(&self) -> Game {
        let mut cell_stack = Vec::with_capacity(self.cell_stack.capacity());
        cell_stack.extend_from_slice(&self.cell_stack);
        Game {
            board: Arc::clone(&self.board),
            revealed: self.revealed.clone(),
            flagged: self.flagged.clone(),
            revealed_count: self.revealed_count,
            flag_count: self.flag_count,
            status: self.status,
            rule: self.rule,
            exploded: self.exploded.clone(),
            exploded_set: self.exploded_set.clone(),
            fill: self.fill,
            deferred: self.deferred.clone(),
            seed: self.seed,
            word_scratch: self.word_scratch.clone(),
            cell_stack,
        }
    }

    /// Copies `source` into this game's own buffers where they are large enough, so that a
    /// game copied again and again (a server's snapshot of a large board) allocates nothing
    /// and touches no fresh memory; the result is the same as `source.clone()`.
    fn clone_from(&mut self, source: &Game) {
        // Every field by name: a field added to `Game` must be added here.
        let Game {
            board,
            revealed,
            flagged,
            revealed_count,
            flag_count,
            status,
            rule,
            exploded,
            exploded_set,
            fill,
            deferred,
            seed,
            word_scratch,
            cell_stack,
        } = source;
        self.board = Arc::clone(board);
        self.revealed.clone_from(revealed);
        self.flagged.clone_from(flagged);
        self.revealed_count = *revealed_count;
        self.flag_count = *flag_count;
        self.status = *status;
        self.rule = *rule;
        self.exploded.clone_from(exploded);
        self.exploded_set.clone_from(exploded_set);
        self.fill = *fill;
        self.deferred.clone_from(deferred);
        self.seed = *seed;
        self.word_scratch.clone_from(word_scratch);
        self.cell_stack.clear();
        self.cell_stack.extend_from_slice(cell_stack);
    }
}

impl Game {
    /// A new game on `board` (a `Board` or an `Arc<Board>`), nothing revealed.
    ///
    /// # Aborts
    /// Like `Vec::with_capacity`, if the allocator cannot provide the game's three planes
    /// (three eighths of a byte per padded cell). [`Game::try_new`] reports that as an error
    /// instead.
    pub fn new(board: impl Into<Arc<Board>>) -> Game {
        let board = board.into();
        match Game::try_new(Arc::clone(&board)) {
            Ok(game) => game,
            Err(_) => std::alloc::handle_alloc_error(
                std::alloc::Layout::array::<u64>(board.geometry().words() * 3)
                    .unwrap_or(std::alloc::Layout::new::<u64>()),
            ),
        }
    }

    /// A new game on `board`, or `OutOfMemory` if the game's planes cannot be allocated.
    pub fn try_new(board: impl Into<Arc<Board>>) -> Result<Game, Error> {
        let mut game = Game::blank(board.into(), None)?;
        game.update_won();
        Ok(game)
    }

    /// A game whose mines are placed by `placer` on the first reveal, keeping clear the
    /// cells `policy` promises. Fails with `TooManyMines` if some first click would leave no
    /// room for `mines`.
    pub fn deferred(
        rows: usize,
        cols: usize,
        mines: usize,
        policy: FirstClick,
        placer: impl Placer + 'static,
    ) -> Result<Game, Error> {
        let geometry = Geometry::new(rows, cols)?;
        policy.check_mines(rows, cols, mines)?;
        let placeholder = Arc::new(Board::empty(geometry.rows(), geometry.cols())?);
        let deferred = Deferred {
            mines,
            policy,
            placer: Arc::new(placer),
        };
        let seed = deferred.placer.seed();
        let mut game = Game::blank(placeholder, Some(deferred))?;
        game.seed = seed;
        game.update_won();
        Ok(game)
    }

    /// A deferred game with the default first-click policy ([`FirstClick::Opening`]) and the
    /// built-in [`SeededPlacer`]: the same seed and first click give the same game.
    ///
    /// # One seed, two placers
    ///
    /// A seed names a board only together with the placer that draws it. This one draws
    /// with core's [`SeededPlacer`] (one random stream, cell by cell), so its board differs
    /// from the one `bitmines gen --seed`, `bitmines play --seed` and `bitmines stress
    /// --seed` make for the same seed: those, and `bitmines_gen::Generator`, draw with
    /// bitmines-gen's parallel algorithm, whose random streams are cut into chunks so that
    /// a board of any size is the same on any number of threads. Core cannot draw that way
    /// itself, since bitmines-gen builds on core and brings rayon, which core keeps out. For
    /// the command line's board, give the game gen's placer:
    /// `Game::deferred(rows, cols, mines, FirstClick::Opening, bitmines_gen::Generator::new(seed))`.
    /// `bitmines winrate` and `bitmines demo` use this placer.
    pub fn seeded(rows: usize, cols: usize, mines: usize, seed: u64) -> Result<Game, Error> {
        Game::deferred(
            rows,
            cols,
            mines,
            FirstClick::default(),
            SeededPlacer::new(seed),
        )
    }

    /// Rebuilds a game on `board` under `rule` from what every cell shows, refusing every
    /// state no game can reach (see [`Game::from_view`]).
    pub(crate) fn restore(
        board: Arc<Board>,
        rule: Rule,
        mut shown: impl FnMut(usize, usize) -> Shown,
    ) -> Result<Game, Error> {
        let geometry = *board.geometry();
        let mut view = View {
            revealed: Plane::zeroed(&geometry)?,
            flagged: Plane::zeroed(&geometry)?,
            exploded: Vec::new(),
        };
        for row in 0..geometry.rows() {
            for col in 0..geometry.cols() {
                let bit = geometry.bit_unchecked(row, col);
                match shown(row, col) {
                    Shown::Hidden => {}
                    Shown::Flagged => view.flagged.set(bit),
                    Shown::Revealed => view.revealed.set(bit),
                    Shown::Exploded => view.exploded.push(bit),
                }
            }
        }
        Game::from_view(board, rule, view)
    }

    /// Rebuilds a game on `board` under `rule` from its view, refusing every state no game
    /// can reach, with `Inconsistent` naming the first cell at fault. Under either rule:
    ///
    /// - an exploded cell that holds no mine, or that is also revealed or flagged;
    /// - a revealed mine, or a revealed cell that is also flagged;
    /// - a flag or an exploded mine on a board with no safe cell, which is won before any
    ///   move.
    ///
    /// Under [`Rule::Classic`] also, since the first mine ends the game:
    ///
    /// - a mine exploded while every safe cell is revealed (a reveal needs a hidden safe cell,
    ///   and a chord explodes a mine only past a flag on a safe cell, which stays hidden);
    /// - two or more exploded mines that no single chord could have set off: only a chord
    ///   explodes more than one, so some revealed cell must touch them all, with as many
    ///   flags around it as its number and every other neighbour revealed or exploded.
    ///
    /// Under [`Rule::Endless`] any number of mines may have exploded, one reveal at a time,
    /// with any safe cells revealed after them, so nothing more is refused.
    ///
    /// Every other view is reached by some sequence of moves, and the status follows from it
    /// (`implied_status`): lost if a mine exploded under the classic rule, won if every safe
    /// cell is revealed, playing otherwise. The exploded cells must be listed in increasing
    /// order (`ExplodedOrder`), and no plane may set a bit outside the board (`StrayBits`).
    pub(crate) fn from_view(board: Arc<Board>, rule: Rule, view: View) -> Result<Game, Error> {
        let geometry = *board.geometry();
        let View {
            revealed,
            flagged,
            exploded,
        } = view;
        let (mut revealed, flagged) = (revealed.into_words(), flagged.into_words());
        for plane in [&revealed, &flagged] {
            if plane.len() != geometry.words() {
                return Err(Error::PlaneSize {
                    rows: geometry.rows(),
                    cols: geometry.cols(),
                    expected: geometry.words(),
                    found: plane.len(),
                });
            }
        }
        let inconsistent = |bit: usize, reason: &str| {
            let (row, col) = geometry.cell_of(bit);
            Error::Inconsistent {
                row,
                col,
                reason: reason.into(),
            }
        };
        let is_set = |plane: &[u64], bit: usize| {
            plane
                .get(bit / WORD_BITS)
                .is_some_and(|word| word >> (bit % WORD_BITS) & 1 != 0)
        };
        for (i, &bit) in exploded.iter().enumerate() {
            if let Some(&previous) = i.checked_sub(1).and_then(|p| exploded.get(p))
                && previous >= bit
            {
                let (row, col) = geometry.cell_of(bit);
                return Err(Error::ExplodedOrder {
                    row,
                    col,
                    previous: geometry.cell_of(previous),
                });
            }
            if !is_set(board.mines().words(), bit) {
                return Err(inconsistent(bit, "an exploded cell holds no mine"));
            }
            if is_set(&revealed, bit) {
                return Err(inconsistent(bit, "an exploded mine is also revealed"));
            }
            if is_set(&flagged, bit) {
                return Err(inconsistent(bit, "an exploded mine is also flagged"));
            }
        }

        let wpr = geometry.words_per_row();
        let (mut revealed_count, mut flag_count) = (0usize, 0usize);
        let mut first_flag = None;
        let words = revealed
            .iter_mut()
            .zip(flagged.iter().zip(board.mines().words()));
        for (w, (r, (&f, &m))) in words.enumerate() {
            let row = w / wpr;
            let cells = if row == 0 || row > geometry.rows() {
                0
            } else {
                geometry.cell_mask(w % wpr)
            };
            if (*r | f) & !cells != 0 {
                return Err(Error::StrayBits { word: w });
            }
            let broken = *r & (m | f);
            if broken != 0 {
                let at = broken.trailing_zeros();
                let reason = if m >> at & 1 != 0 {
                    "a revealed cell holds a mine"
                } else {
                    "a revealed cell is also flagged"
                };
                return Err(inconsistent(w * WORD_BITS + at as usize, reason));
            }
            if f != 0 && first_flag.is_none() {
                first_flag = Some(w * WORD_BITS + f.trailing_zeros() as usize);
            }
            revealed_count += r.count_ones() as usize;
            flag_count += f.count_ones() as usize;
            // The sentinel border and padding read as revealed, so no fill leaves the board.
            *r |= !cells;
        }

        let mut game = Game {
            board,
            revealed: Plane::from_words(revealed),
            flagged: Plane::from_words(flagged),
            revealed_count,
            flag_count,
            status: Status::Playing,
            rule,
            exploded_set: exploded.iter().copied().collect(),
            exploded,
            fill: Fill::default(),
            deferred: None,
            seed: None,
            word_scratch: cascade::words::Scratch::new(&geometry)?,
            cell_stack: Vec::new(),
        };
        if let (0, Some(flag)) = (game.safe_count(), first_flag) {
            let reason = "a board with no safe cell is won before any move, so nothing is flagged";
            return Err(inconsistent(flag, reason));
        }
        if let Some(&first) = game.exploded.first() {
            if game.safe_count() == 0 {
                let reason =
                    "a board with no safe cell is won before any move, so nothing explodes";
                return Err(inconsistent(first, reason));
            }
            if rule == Rule::Classic && revealed_count == game.safe_count() {
                let reason = "a mine exploded with every safe cell revealed, which no move does \
                              under the classic rule: a reveal needs a hidden safe cell, and a \
                              chord explodes a mine only past a flag on a safe cell, which \
                              stays hidden";
                return Err(inconsistent(first, reason));
            }
            if rule == Rule::Classic
                && game.exploded.len() > 1
                && !game.one_chord_explains_the_explosions()
            {
                let reason = format!(
                    "{} mines exploded, but no revealed cell next to them all has as many \
                     flags around it as its number and every other neighbour revealed or \
                     exploded, as the one chord that explodes several mines leaves it",
                    game.exploded.len()
                );
                return Err(inconsistent(first, &reason));
            }
        }
        game.status = game.implied_status();
        Ok(game)
    }

    /// Whether some revealed cell could have been chorded to set off every exploded mine at
    /// once: it touches them all, has as many flagged neighbours as its number, and no other
    /// neighbour is hidden.
    fn one_chord_explains_the_explosions(&self) -> bool {
        let geometry = self.board.geometry();
        let Some(&first) = self.exploded.first() else {
            return false;
        };
        // A chord explodes only neighbours of the chorded cell, at most eight.
        if self.exploded.len() > 8 {
            return false;
        }
        let cells: Vec<(usize, usize)> = self.exploded().collect();
        let touches = |(r, c): (usize, usize), (er, ec): (usize, usize)| {
            r.abs_diff(er) <= 1 && c.abs_diff(ec) <= 1
        };
        let (row, col) = geometry.cell_of(first);
        let rows = row.saturating_sub(1)..=row.saturating_add(1);
        rows.flat_map(|r| (col.saturating_sub(1)..=col.saturating_add(1)).map(move |c| (r, c)))
            .filter_map(|(r, c)| geometry.bit(r, c).ok().map(|bit| (r, c, bit)))
            .any(|(r, c, bit)| {
                let stride = geometry.stride();
                let flags: u32 = [bit - stride - 1, bit - 1, bit + stride - 1]
                    .map(|b| self.flagged.three(b).count_ones())
                    .iter()
                    .sum();
                self.revealed.get(bit)
                    && cells.iter().all(|&e| touches((r, c), e))
                    && flags == u32::from(self.board.number_at(bit))
                    && neighbours(bit, stride).iter().all(|&n| {
                        self.revealed.get(n) || self.flagged.get(n) || self.is_exploded(n)
                    })
            })
    }

    fn blank(board: Arc<Board>, deferred: Option<Deferred>) -> Result<Game, Error> {
        let geometry = *board.geometry();
        Ok(Game {
            board,
            revealed: sentinel_plane(&geometry)?,
            flagged: Plane::zeroed(&geometry)?,
            revealed_count: 0,
            flag_count: 0,
            status: Status::Playing,
            rule: Rule::Classic,
            exploded: Vec::new(),
            exploded_set: HashSet::new(),
            fill: Fill::default(),
            deferred,
            seed: None,
            word_scratch: cascade::words::Scratch::new(&geometry)?,
            cell_stack: Vec::new(),
        })
    }

    /// The seed the board came from, when the game knows it: the seed of [`Game::seeded`],
    /// of a deferred game's placer (when [`Placer::seed`] gives one), or the one recorded in
    /// a saved game read back. [`Game::write_saved`] records it. A game made from a board
    /// knows none until [`Game::set_seed`] tells it.
    ///
    /// A seed names a board only together with the placer that drew it: the same seed
    /// gives different boards with [`SeededPlacer`] and with `bitmines-gen`'s `Generator`.
    pub fn seed(&self) -> Option<u64> {
        self.seed
    }

    /// Records (or, with `None`, forgets) the seed the board came from.
    pub fn set_seed(&mut self, seed: Option<u64>) {
        self.seed = seed;
    }

    /// The same game using `fill` for its cascades.
    pub fn with_fill(mut self, fill: Fill) -> Game {
        self.fill = fill;
        self
    }

    /// Chooses the fill used by later cascades.
    pub fn set_fill(&mut self, fill: Fill) {
        self.fill = fill;
    }

    /// The fill used for cascades.
    pub fn fill(&self) -> Fill {
        self.fill
    }

    /// The same game played under `rule`: what revealing a mine does.
    ///
    /// Meant for a new game, like [`Game::with_fill`], but any game takes it: its status is
    /// then the one its cells imply under `rule`, so a classic game lost to a mine goes on
    /// as an endless one (or is won, if every safe cell is revealed), and an endless game
    /// with a mine exploded is a lost classic one.
    ///
    /// ```
    /// use bitmines_core::{Game, Rule, Status};
    ///
    /// let mut game = Game::seeded(100, 100, 1500, 7)?.with_rule(Rule::Endless);
    /// assert_eq!(game.rule(), Rule::Endless);
    /// game.reveal(50, 50)?; // the first click opens, as in a classic game
    /// assert_eq!(game.status(), Status::Playing);
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn with_rule(mut self, rule: Rule) -> Game {
        self.rule = rule;
        self.status = self.implied_status();
        self
    }

    /// The rule the game is played under: [`Rule::Classic`] unless [`Game::with_rule`] chose
    /// another.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// Reveals `(row, col)`.
    ///
    /// A hidden safe cell opens, and a zero cell cascades through its zero region and the
    /// numbered cells around it; flagged cells are neither opened nor passed through. A mine
    /// explodes: under [`Rule::Classic`] that loses the game, under [`Rule::Endless`] play
    /// goes on. A revealed, flagged or exploded cell is left alone (zero opened). On a
    /// deferred game the first such reveal places the mines first.
    pub fn reveal(&mut self, row: usize, col: usize) -> Result<Reveal, Error> {
        self.check_playing()?;
        let bit = self.board.geometry().bit(row, col)?;
        if self.is_closed(bit) {
            return Ok(self.result(0, 0));
        }
        if self.deferred.is_some() {
            self.place_mines(row, col)?;
        }
        if self.board.mines().get(bit) {
            self.explode(bit);
            return Ok(self.result(0, 1));
        }
        let opened = self.open(bit);
        self.update_won();
        Ok(self.result(opened, 0))
    }

    /// Flags a hidden cell or unflags a flagged one; returns whether the cell is now flagged.
    /// A revealed or exploded cell is left alone (returns `false`).
    pub fn toggle_flag(&mut self, row: usize, col: usize) -> Result<bool, Error> {
        self.check_playing()?;
        let bit = self.board.geometry().bit(row, col)?;
        if self.revealed.get(bit) || self.is_exploded(bit) {
            Ok(false)
        } else if self.flagged.get(bit) {
            self.flagged.clear(bit);
            self.flag_count -= 1;
            Ok(false)
        } else {
            self.flagged.set(bit);
            self.flag_count += 1;
            Ok(true)
        }
    }

    /// Chords on `(row, col)`: if it is a revealed cell with as many known mines around it
    /// as its number (flagged neighbours, and under [`Rule::Endless`] exploded ones too),
    /// reveals every other hidden neighbour, cascades included. A neighbouring mine that was
    /// not flagged (because a flag is wrong) explodes, which under [`Rule::Classic`] loses the
    /// game. Anything else is left alone.
    pub fn chord(&mut self, row: usize, col: usize) -> Result<Reveal, Error> {
        self.check_playing()?;
        let geometry = *self.board.geometry();
        let bit = geometry.bit(row, col)?;
        if !self.revealed.get(bit) {
            return Ok(self.result(0, 0));
        }
        let stride = geometry.stride();
        let flags = [bit - stride - 1, bit - 1, bit + stride - 1]
            .map(|b| self.flagged.three(b).count_ones())
            .iter()
            .sum::<u32>() as usize;
        // Under the classic rule nothing has exploded while the game is in play.
        let exploded = if self.exploded.is_empty() {
            0
        } else {
            neighbours(bit, stride)
                .iter()
                .filter(|&&n| self.is_exploded(n))
                .count()
        };
        if flags + exploded != usize::from(self.board.number_at(bit)) {
            return Ok(self.result(0, 0));
        }
        let (mut opened, mut exploded) = (0, 0);
        for neighbour in neighbours(bit, stride) {
            if self.is_closed(neighbour) {
                continue; // Revealed (the sentinel too), flagged, or exploded.
            }
            if self.board.mines().get(neighbour) {
                self.explode(neighbour);
                exploded += 1;
            } else {
                opened += self.open(neighbour);
            }
        }
        self.update_won();
        Ok(self.result(opened, exploded))
    }

    /// What the player sees at `(row, col)`. O(1), however many mines have exploded.
    pub fn cell(&self, row: usize, col: usize) -> Result<Cell, Error> {
        let bit = self.board.geometry().bit(row, col)?;
        let lost = self.status == Status::Lost;
        let mine = self.board.mines().get(bit);
        // An exploded cell is never revealed or flagged, so only hidden mines are looked up.
        Ok(if self.revealed.get(bit) {
            Cell::Open(self.board.number_at(bit))
        } else if self.flagged.get(bit) {
            if lost && !mine {
                Cell::WrongFlag
            } else {
                Cell::Flagged
            }
        } else if mine && self.is_exploded(bit) {
            Cell::Exploded
        } else if lost && mine {
            Cell::Mine
        } else {
            Cell::Hidden
        })
    }

    /// The game's status.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Rows of the board.
    pub fn rows(&self) -> usize {
        self.board.rows()
    }

    /// Columns of the board.
    pub fn cols(&self) -> usize {
        self.board.cols()
    }

    /// Mines on the board (also before a deferred game has placed them).
    pub fn mine_count(&self) -> usize {
        self.deferred
            .as_ref()
            .map_or(self.board.mine_count(), |d| d.mines)
    }

    /// Safe cells revealed so far.
    pub fn revealed_count(&self) -> usize {
        self.revealed_count
    }

    /// Cells flagged now.
    pub fn flag_count(&self) -> usize {
        self.flag_count
    }

    /// The board behind the game, or `None` while a deferred game awaits its first reveal.
    pub fn board(&self) -> Option<&Arc<Board>> {
        if self.deferred.is_some() {
            None
        } else {
            Some(&self.board)
        }
    }

    /// The cells of the mines that exploded, in the order they did; a game read back from
    /// text or a saved game lists them row by row, since those keep no order.
    pub fn exploded(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.exploded
            .iter()
            .map(|&bit| self.board.geometry().cell_of(bit))
    }

    /// How many mines have exploded: under [`Rule::Classic`] none while the game is in play,
    /// under [`Rule::Endless`] every mine revealed so far.
    pub fn exploded_count(&self) -> usize {
        self.exploded.len()
    }

    /// Row `row` of the revealed plane, one bit per column.
    pub fn revealed_row(&self, row: usize) -> Result<&BitSlice<u64, Lsb0>, Error> {
        row_view(self.board.geometry(), &self.revealed, row)
    }

    /// Row `row` of the flagged plane, one bit per column.
    pub fn flagged_row(&self, row: usize) -> Result<&BitSlice<u64, Lsb0>, Error> {
        row_view(self.board.geometry(), &self.flagged, row)
    }

    /// 64 cells of row `row` of the revealed plane from column `col`, in one word: bit `i`
    /// is column `col + i`, and columns past the board's right edge read 0. Two word reads,
    /// where [`Game::revealed_row`] gives a bit slice at any offset; for code that scans a
    /// view a row at a time (what a move opened, a picture of a window). `OffBoard` if the
    /// cell `(row, col)` is not on the board.
    pub fn revealed_word(&self, row: usize, col: usize) -> Result<u64, Error> {
        word_at(self.board.geometry(), &self.revealed, row, col)
    }

    /// 64 cells of row `row` of the flagged plane from column `col`, as
    /// [`Game::revealed_word`] gives them.
    pub fn flagged_word(&self, row: usize, col: usize) -> Result<u64, Error> {
        word_at(self.board.geometry(), &self.flagged, row, col)
    }

    /// The board's geometry (also before a deferred game has placed its mines).
    pub(crate) fn geometry(&self) -> &Geometry {
        self.board.geometry()
    }

    /// The board, for a [`View`](crate::View), which reads numbers only at revealed cells.
    /// Before the first click of a deferred game this is the empty placeholder, on which
    /// nothing is revealed.
    pub(crate) fn board_for_view(&self) -> &Board {
        &self.board
    }

    /// The words of the revealed and flagged planes, for the saved-game writer and views.
    pub(crate) fn view_words(&self) -> (&[u64], &[u64]) {
        (self.revealed.words(), self.flagged.words())
    }

    /// Heap bytes held by the game's own planes, scratch stacks and list and set of exploded
    /// mines (the board not counted).
    pub fn heap_bytes(&self) -> usize {
        self.revealed.heap_bytes()
            + self.flagged.heap_bytes()
            + self.word_scratch.heap_bytes()
            + self.cell_stack.capacity() * size_of::<usize>()
            + self.exploded.capacity() * size_of::<usize>()
            // The set's table: a slot and a control byte per entry it has room for.
            + self.exploded_set.capacity() * (size_of::<usize>() + 1)
    }

    /// Recomputes every cached count from the planes and checks the game's invariants:
    /// the counters, the sentinel border, no flag on a revealed cell, no revealed mine,
    /// exploded cells are mines, neither revealed nor flagged, listed once each and found by
    /// [`Game::cell`], nothing left pending by a cascade, and the status agrees with the
    /// counts and the rule. Costs a pass over every plane.
    pub fn validate(&self) -> Result<(), Error> {
        let invalid = |reason: String| Err(Error::Invalid { reason });
        let geometry = self.board.geometry();
        let wpr = geometry.words_per_row();
        let (mut revealed, mut flagged) = (0usize, 0usize);
        for (w, (&r, &f)) in self
            .revealed
            .words()
            .iter()
            .zip(self.flagged.words())
            .enumerate()
        {
            let row = w / wpr;
            let cells = if row == 0 || row > geometry.rows() {
                0
            } else {
                geometry.cell_mask(w % wpr)
            };
            if r | cells != !0 {
                return invalid(format!("sentinel bits of word {w} are not revealed"));
            }
            if f & !cells != 0 {
                return invalid(format!("sentinel bits of word {w} are flagged"));
            }
            if r & f & cells != 0 {
                return invalid(format!("word {w} has cells both revealed and flagged"));
            }
            let mine = self.board.mines().words().get(w).copied().unwrap_or(0);
            if r & cells & mine != 0 {
                return invalid(format!("word {w} has a revealed mine"));
            }
            revealed += (r & cells).count_ones() as usize;
            flagged += f.count_ones() as usize;
        }
        if revealed != self.revealed_count {
            return invalid(format!(
                "revealed count {} but {revealed} cells revealed",
                self.revealed_count
            ));
        }
        if flagged != self.flag_count {
            return invalid(format!(
                "flag count {} but {flagged} cells flagged",
                self.flag_count
            ));
        }
        for &bit in &self.exploded {
            let (row, col) = geometry.cell_of(bit);
            if !self.board.mines().get(bit) {
                return invalid(format!("exploded cell ({row}, {col}) holds no mine"));
            }
            if self.revealed.get(bit) || self.flagged.get(bit) {
                return invalid(format!(
                    "exploded cell ({row}, {col}) is also revealed or flagged"
                ));
            }
            if !self.exploded_set.contains(&bit) {
                return invalid(format!(
                    "exploded cell ({row}, {col}) is missing from the set"
                ));
            }
        }
        if self.exploded_set.len() != self.exploded.len() {
            return invalid(format!(
                "{} exploded mines listed but {} in the set",
                self.exploded.len(),
                self.exploded_set.len()
            ));
        }
        if !self.word_scratch.is_clean() {
            return invalid("the cascade left cells pending".into());
        }
        if self.deferred.is_some() && revealed != 0 {
            return invalid("cells revealed before the mines were placed".into());
        }
        let expected = self.status_for(revealed);
        if self.status != expected {
            return invalid(format!(
                "status {} but the planes say {expected}",
                self.status
            ));
        }
        Ok(())
    }

    fn safe_count(&self) -> usize {
        self.board.geometry().cells() - self.mine_count()
    }

    fn check_playing(&self) -> Result<(), Error> {
        match self.status {
            Status::Playing => Ok(()),
            status => Err(Error::GameOver { status }),
        }
    }

    /// The status the cells imply under the game's rule: lost if a mine exploded under the
    /// classic rule, won if every safe cell is revealed, playing otherwise.
    fn implied_status(&self) -> Status {
        self.status_for(self.revealed_count)
    }

    /// The status implied with `revealed` safe cells revealed.
    fn status_for(&self, revealed: usize) -> Status {
        if self.rule == Rule::Classic && !self.exploded.is_empty() {
            Status::Lost
        } else if revealed == self.safe_count() {
            Status::Won
        } else {
            Status::Playing
        }
    }

    /// Whether `bit` is revealed, flagged or exploded: a cell no reveal opens.
    fn is_closed(&self, bit: usize) -> bool {
        self.revealed.get(bit) || self.flagged.get(bit) || self.is_exploded(bit)
    }

    /// Whether the mine at `bit` exploded: O(1), and free while nothing has.
    fn is_exploded(&self, bit: usize) -> bool {
        !self.exploded.is_empty() && self.exploded_set.contains(&bit)
    }

    fn result(&self, opened: usize, exploded: usize) -> Reveal {
        Reveal {
            opened,
            status: self.status,
            exploded,
        }
    }

    /// Sets off the mine at `bit`, which loses the game under the classic rule.
    fn explode(&mut self, bit: usize) {
        self.exploded.push(bit);
        self.exploded_set.insert(bit);
        if self.rule == Rule::Classic {
            self.status = Status::Lost;
        }
    }

    fn update_won(&mut self) {
        if self.status == Status::Playing && self.revealed_count == self.safe_count() {
            self.status = Status::Won;
        }
    }

    /// Opens the hidden, unflagged safe cell `bit` with the chosen fill and counts it.
    fn open(&mut self, bit: usize) -> usize {
        let mut planes = Planes {
            zero: self.board.zero().words(),
            revealed: self.revealed.words_mut(),
            flagged: self.flagged.words(),
            // `flag_count` counts the flag plane's bits (checked by `validate`).
            unflagged: self.flag_count == 0,
            words_per_row: self.board.geometry().words_per_row(),
        };
        let opened = match self.fill {
            Fill::Words => cascade::words::fill(&mut planes, &mut self.word_scratch, bit),
            Fill::Scalar => cascade::scalar::fill(&mut planes, &mut self.cell_stack, bit),
        };
        self.revealed_count += opened;
        opened
    }

    /// Asks the placer for the board; on any error the game is left as it was.
    fn place_mines(&mut self, row: usize, col: usize) -> Result<(), Error> {
        let Some(deferred) = &self.deferred else {
            return Ok(());
        };
        let (rows, cols) = (self.rows(), self.cols());
        let zone = deferred.policy.zone(rows, cols, row, col)?;
        let request = Placement {
            rows,
            cols,
            mines: deferred.mines,
            zone,
        };
        let board = deferred.placer.place(&request)?;
        let broken = |reason: String| Err(Error::BadPlacement { reason });
        if (board.rows(), board.cols()) != (rows, cols) {
            return broken(format!(
                "asked for {rows}x{cols}, got {}x{}",
                board.rows(),
                board.cols()
            ));
        }
        if board.mine_count() != request.mines {
            return broken(format!(
                "asked for {} mines, got {}",
                request.mines,
                board.mine_count()
            ));
        }
        if let Some((r, c)) = request
            .zone
            .cells()
            .find(|&(r, c)| board.is_mine(r, c) == Ok(true))
        {
            return broken(format!("mine at ({r}, {c}) inside the first-click zone"));
        }
        self.board = Arc::new(board);
        self.deferred = None;
        Ok(())
    }
}

/// A plane whose sentinel border and padding are set and whose cells are clear: the initial
/// revealed plane, so no fill ever leaves the board and no neighbour needs a bounds check.
pub(crate) fn sentinel_plane(geometry: &Geometry) -> Result<Plane, Error> {
    let mut plane = Plane::zeroed(geometry)?;
    let (rows, wpr) = (geometry.rows(), geometry.words_per_row());
    for (w, word) in plane.words_mut().iter_mut().enumerate() {
        let row = w / wpr;
        *word = if row == 0 || row > rows {
            !0
        } else {
            !geometry.cell_mask(w % wpr)
        };
    }
    Ok(plane)
}

/// The bit indices of the eight neighbours of `bit` in a plane of `stride` bits per row.
fn neighbours(bit: usize, stride: usize) -> [usize; 8] {
    let (up, down) = (bit - stride, bit + stride);
    [
        up - 1,
        up,
        up + 1,
        bit - 1,
        bit + 1,
        down - 1,
        down,
        down + 1,
    ]
}

impl fmt::Debug for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Game")
            .field("rows", &self.rows())
            .field("cols", &self.cols())
            .field("mines", &self.mine_count())
            .field("revealed", &self.revealed_count)
            .field("flagged", &self.flag_count)
            .field("status", &self.status)
            .field("rule", &self.rule)
            .field("exploded", &self.exploded.len())
            .field("fill", &self.fill)
            .field("deferred", &self.deferred.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validate_catches_every_kind_of_corruption() {
        let board: Board = "*...\n....\n..*.\n".parse().unwrap();
        let mut game = Game::new(board);
        game.reveal(0, 3).unwrap();
        game.toggle_flag(2, 2).unwrap();
        assert_eq!(game.validate(), Ok(()));
        let corrupt = |change: fn(&mut Game)| {
            let mut bad = game.clone();
            change(&mut bad);
            match bad.validate() {
                Err(Error::Invalid { reason }) => reason,
                other => panic!("corruption not caught: {other:?}"),
            }
        };
        assert!(corrupt(|g| g.revealed_count += 1).contains("revealed count"));
        assert!(corrupt(|g| g.flag_count = 0).contains("flag count"));
        assert!(corrupt(|g| g.revealed.clear(0)).contains("sentinel"));
        assert!(corrupt(|g| g.flagged.set(1)).contains("sentinel"));
        assert!(corrupt(|g| g.flagged.set(g_bit(g, 0, 3))).contains("both revealed and flagged"));
        assert!(
            corrupt(|g| {
                g.revealed.set(g_bit(g, 0, 0));
                g.revealed_count += 1;
            })
            .contains("revealed mine")
        );
        assert!(corrupt(|g| g.status = Status::Won).contains("status"));
        assert!(corrupt(|g| g.exploded.push(g_bit(g, 1, 1))).contains("exploded"));
        assert!(corrupt(|g| g.explode(g_bit(g, 1, 1))).contains("holds no mine"));
        assert!(corrupt(|g| g.explode(g_bit(g, 2, 2))).contains("revealed or flagged"));
        assert!(corrupt(|g| g.exploded.push(g_bit(g, 0, 0))).contains("missing from the set"));
        let extra_in_set = |g: &mut Game| {
            let bit = g_bit(g, 0, 0);
            g.exploded_set.insert(bit);
        };
        assert!(corrupt(extra_in_set).contains("in the set"));
        // A mine exploded while a classic game is still in play, and an endless game lost.
        let exploded_in_play = |g: &mut Game| {
            let bit = g_bit(g, 0, 0);
            g.exploded.push(bit);
            g.exploded_set.insert(bit);
        };
        assert!(corrupt(exploded_in_play).contains("status playing but the planes say lost"));
        assert!(
            corrupt(|g| {
                g.rule = Rule::Endless;
                g.status = Status::Lost;
            })
            .contains("status lost but the planes say playing")
        );
        assert!(
            corrupt(|g| g.word_scratch = cascade::words::Scratch::dirty(g.board.geometry()))
                .contains("pending")
        );
    }

    fn g_bit(game: &Game, row: usize, col: usize) -> usize {
        game.board.geometry().bit(row, col).unwrap()
    }

    #[test]
    fn boards_too_large_for_memory_are_errors() {
        match Board::empty(1 << 28, 1 << 28) {
            Err(Error::OutOfMemory { bytes, rows, cols }) => {
                assert_eq!((rows, cols), (1 << 28, 1 << 28));
                assert!(bytes > 1 << 50, "{bytes}");
            }
            other => panic!("expected OutOfMemory, got {other:?}"),
        }
        assert!(matches!(
            Game::seeded(1 << 28, 1 << 28, 10, 1),
            Err(Error::OutOfMemory { .. })
        ));
    }
}
