//! No-guess boards: boards that `bitmines-solve` clears from the first click by deduction
//! alone, certified by a replay of that solver.
//!
//! Two methods. **Rejection** draws uniform boards (with [`generate`]) until
//! one is cleared, so the result is exactly uniform over the boards the solver clears; it
//! pays where such boards are common (small and medium boards at usual densities). A draw
//! that provably no solver clears (two cells, or a block of four, that no view tells apart,
//! see `doomed`) is skipped
//! before it is played, which changes no result. **Repair**
//! plays the solver from the first click and, wherever it stalls, moves mines near the stall:
//! it picks stalled numbers (at least five cells apart) and empties each one's undecided
//! cells, sending their mines to hidden cells away from every revealed cell (or, where none
//! is free, fills them with mines taken from such cells). The number then settles by the
//! trivial rule, and no revealed cell ever gets a mine, so play goes on from where it
//! stopped. Behind a wall of proven mines, a wall mine beside a number is emptied instead. The mine count stays exact and the first-click
//! zone stays clear. When play is won, the board is replayed from the first click; if that
//! replay stalls, repair goes on from its stall. Only a board whose clean replay wins is
//! returned. Repaired boards are not uniform: mines move away from numbers that would have
//! forced a guess, so their frontiers are tidier than a uniform board's (see the crate
//! README for the measured difference).
//!
//! # How the repair plays
//!
//! Rejection draws in parallel batches, one board a thread, and the lowest accepted draw
//! number wins, so the result does not depend on the thread count. `advance` plays the
//! solver, each move revealing every safe cell of the cheapest tier that proves one, keeping
//! one `Solver` across all its moves (the exact tier runs in place, `weigh`): the proven cells
//! go to the game as words (`Solver::safe_words`, `Game::reveal_words`) and the solver reads
//! back only the words they opened (`Solver::update_revealed`), so a move costs what it
//! reveals, not a pass over the board. After a round of repairs the game moves onto the
//! mended board (`Game::rebase`) and the kept solver `renumber`s, forgetting the moved cells,
//! what lies within two of them and every pair or exact-tier proof. A board that goes 64
//! rounds (`STUCK`) without reaching a new cell is given up for a fresh one. Partners for
//! moved mines are drawn by random tries, then from a list made once a stall. Only a clean
//! replay from the first click, with a fresh solver, certifies a board.
//!
//! On a board the solver sweeps in bands, `advance` first drives the trivial rule to its
//! fixed point one band of rows at a time (`drive_bands`, `Solver::sweep_band`), revealing
//! what each band's sweep proves, so that a band's words stay in cache while it is worked
//! on. A play from the first click, on a pool of more than one thread, drives this way on
//! one thread until it has revealed a 256th of the board, and then drives the bands above
//! the click's and those below it at once (`drive_halves`): a second game and solver,
//! cloned from the play, take the lower half on another thread; what they reveal is handed
//! to the play, whose solver takes the other's rows (`Solver::adopt_bands`), and the play
//! drives the bands on from the seam to the fixed point. The trivial rule with its reveals
//! has one fixed point whatever the order, so the board and the certificate's tallies are
//! those of one thread (the count of moves is not). The rest of the play and the replay use
//! every thread through the solver, whose whole sweeps, update and frontier scan run in
//! bands of rows; the mender's whole-plane passes run on the pool too (collected in order,
//! so the same on any thread count), while its picks, which draw from one random stream,
//! stay on one thread. [`NoGuessGenerator`] is the placer for deferred games: it finds the
//! click from the zone.
//!
//! Memory: a repair adds to the board a copy of the mine plane, a game (5 bits a cell), the
//! solver's planes (7 bits a cell) and the mender's planes while it works: 36 MiB at its peak
//! for 3000x3000, about 4 bytes a cell; while a play drives its halves at once, the second
//! game and solver add 9 bits a cell (332 MB at its peak for 10000x10000 on one thread, 428
//! MB on two; `bitmines gen --no-guess` checks that 36 planes of the board's size are
//! available first).

#![allow(
    clippy::indexing_slicing,
    reason = "every index is a word of a plane laid out by the board's own Geometry, from Geometry::bit of an on-board cell"
)]

use std::sync::Arc;

use bitmines_core::binary::NoGuessRecord;
use bitmines_core::{Board, FirstClick, Game, Geometry, Status};
use bitmines_solve::{Solver, Tally, Tier};
use rand_core::Rng;
use rand_pcg::Pcg64;
use rayon::prelude::*;

use crate::split::below;
use crate::{Config, Error, generate, stream};

mod doomed;

/// The version of the solver's rules a certificate vouches for: bumped when
/// `bitmines-solve` proves more, or differently, so that a recorded certificate says which
/// rules it was checked against.
pub const SOLVER_VERSION: u32 = 1;

/// Boards at most this large try rejection first under [`Method::Auto`].
const AUTO_REJECT_CELLS: usize = 1024;

/// Attempts of rejection under [`Method::Auto`] before it turns to repair.
const AUTO_REJECT_ATTEMPTS: usize = 64;

/// The stream index of the repair's own random choices (less the restart number).
const REPAIR_STREAM: u64 = u64::MAX;

/// Fresh boards a repair may start from before it gives up.
const RESTARTS: usize = 4;

/// How a no-guess board is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Method {
    /// Rejection for boards of at most 1024 cells (64 attempts), then repair.
    #[default]
    Auto,
    /// Uniform boards until one is cleared: exactly uniform over the boards the solver
    /// clears.
    Reject,
    /// Mines moved wherever the solver stalls: fast at any size and density, not uniform.
    Repair,
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Method::Auto => "auto",
            Method::Reject => "reject",
            Method::Repair => "repair",
        })
    }
}

/// What no-guess board to make: the board's size, mines and seed, and the first click it is
/// certified from.
///
/// ```
/// use bitmines_core::FirstClick;
/// use bitmines_gen::NoGuess;
///
/// let request = NoGuess::new(16, 30, 99, 1).first_click(FirstClick::Opening, 3, 3);
/// let certified = bitmines_gen::no_guess(&request)?;
/// assert_eq!(certified.board().mine_count(), 99);
/// assert!(!certified.board().is_mine(3, 3)?);
/// assert_eq!(certified.click(), (3, 3));
/// # Ok::<(), bitmines_gen::NoGuessError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct NoGuess {
    /// Rows of the board.
    pub rows: usize,
    /// Columns of the board.
    pub cols: usize,
    /// Exactly how many mines.
    pub mines: usize,
    /// The seed: the same request gives the same board on any number of threads.
    pub seed: u64,
    /// What the first click keeps clear: [`FirstClick::Opening`] (the default) or
    /// [`FirstClick::Safe`]. [`FirstClick::Unprotected`] is refused, since a first click
    /// that may hit a mine is a guess.
    pub rule: FirstClick,
    /// The first click, `(row, col)`; the centre of the board by default.
    pub click: (usize, usize),
    /// How to make the board.
    pub method: Method,
    /// Most boards drawn by [`Method::Reject`] (10,000 by default).
    pub attempts: usize,
    /// Most repairs (one stalled number each) before giving up, shared by up to four
    /// fresh starting boards; by default four per cell.
    pub repairs: usize,
}

impl NoGuess {
    /// A request with an opening first click at the centre, [`Method::Auto`] and the default
    /// budgets.
    pub fn new(rows: usize, cols: usize, mines: usize, seed: u64) -> NoGuess {
        NoGuess {
            rows,
            cols,
            mines,
            seed,
            rule: FirstClick::Opening,
            click: (rows / 2, cols / 2),
            method: Method::Auto,
            attempts: 10_000,
            repairs: rows.saturating_mul(cols).saturating_mul(4).max(64),
        }
    }

    /// The same request certified from a first click at `(row, col)` under `rule`.
    pub fn first_click(mut self, rule: FirstClick, row: usize, col: usize) -> NoGuess {
        self.rule = rule;
        self.click = (row, col);
        self
    }

    /// The same request made by `method`.
    pub fn method(mut self, method: Method) -> NoGuess {
        self.method = method;
        self
    }

    /// The same request with at most `attempts` boards drawn by rejection.
    pub fn attempts(mut self, attempts: usize) -> NoGuess {
        self.attempts = attempts;
        self
    }

    /// The same request with at most `repairs` repairs.
    pub fn repairs(mut self, repairs: usize) -> NoGuess {
        self.repairs = repairs;
        self
    }
}

/// A board with its certificate: the solver clears it from [`Certified::click`] without a
/// guess.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Certified {
    board: Board,
    rule: FirstClick,
    click: (usize, usize),
    certificate: Certificate,
}

impl Certified {
    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The board, taken out.
    pub fn into_board(self) -> Board {
        self.board
    }

    /// The first click it is certified from, `(row, col)`.
    pub fn click(&self) -> (usize, usize) {
        self.click
    }

    /// What the first click keeps clear.
    pub fn rule(&self) -> FirstClick {
        self.rule
    }

    /// How it was made and which rules clear it.
    pub fn certificate(&self) -> &Certificate {
        &self.certificate
    }

    /// The certificate as a binary board file records it (see
    /// [`Board::write_binary_certified`]): the click, the rule, [`SOLVER_VERSION`] and the
    /// tiers the replay needed.
    pub fn record(&self) -> Result<NoGuessRecord, bitmines_core::Error> {
        let tiers = [Tier::Trivial, Tier::Pair, Tier::Component, Tier::Global]
            .iter()
            .enumerate()
            .filter(|&(_, &tier)| self.certificate.needed(tier))
            .fold(0, |bits, (i, _)| bits | 1 << i);
        NoGuessRecord::new(
            self.click.0,
            self.click.1,
            self.rule,
            self.certificate.solver,
            tiers,
        )
    }
}

/// What the certifying replay found, and how the board was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Certificate {
    /// The method that made the board: [`Method::Reject`] or [`Method::Repair`].
    pub method: Method,
    /// Boards drawn: by rejection, or as starting points of repair (a repair that
    /// exhausts its share of the budget starts again from a fresh board, up to four).
    pub attempts: usize,
    /// Stalled numbers repaired.
    pub repairs: usize,
    /// Moves of the replay: each reveals every cell the cheapest tier that proves any proves.
    pub moves: usize,
    /// Cells revealed by moves of each tier (the first click's cascade is not counted).
    pub tally: Tally,
    /// The deepest tier some move needed (`None` when the first click clears the board).
    pub deepest: Option<Tier>,
    /// [`SOLVER_VERSION`] of the solver that replayed it.
    pub solver: u32,
}

impl Certificate {
    /// Whether some move needed `tier` (the tiers a move needs are the cheapest that prove a
    /// safe cell there).
    pub fn needed(&self, tier: Tier) -> bool {
        match tier {
            Tier::Trivial => self.tally.trivial > 0,
            Tier::Pair => self.tally.pair > 0,
            Tier::Component => self.tally.component > 0,
            Tier::Global => self.tally.global > 0,
        }
    }
}

/// Why no certified board came back.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum NoGuessError {
    /// The request itself: a size, a mine count that does not fit beside the first-click
    /// zone (`TooManyMines`), a click off the board (`Core(OffBoard)`), memory.
    #[error(transparent)]
    Gen(#[from] Error),
    /// A first click that may hit a mine.
    #[error(
        "a no-guess board needs a first click that keeps its cell clear: use the safe or the opening rule"
    )]
    Unprotected,
    /// Rejection drew its whole budget of boards and the solver cleared none of them.
    #[error(
        "none of {attempts} random {rows}x{cols} boards with {mines} mines can be cleared without a guess; try the repair method or fewer mines"
    )]
    NoBoardFound {
        /// Boards drawn.
        attempts: usize,
        /// Rows of the board.
        rows: usize,
        /// Columns of the board.
        cols: usize,
        /// Mines asked for.
        mines: usize,
    },
    /// Repair used its whole budget and the solver still stalls.
    #[error(
        "{repairs} repairs left a {rows}x{cols} board with {mines} mines still needing a guess ({hidden} safe cells unreached); try fewer mines"
    )]
    RepairsExhausted {
        /// Repairs made.
        repairs: usize,
        /// Safe cells the last replay did not reach.
        hidden: usize,
        /// Rows of the board.
        rows: usize,
        /// Columns of the board.
        cols: usize,
        /// Mines asked for.
        mines: usize,
    },
    /// The solver failed on a position (out of memory on a huge board).
    #[error(transparent)]
    Solver(#[from] bitmines_solve::Error),
}

impl From<bitmines_core::Error> for NoGuessError {
    fn from(error: bitmines_core::Error) -> NoGuessError {
        NoGuessError::Gen(Error::Core(error))
    }
}

/// Makes the no-guess board `request` describes, certified by a replay of
/// `bitmines-solve` from its first click, or says why there is none. Rejection runs its
/// draws in parallel batches on the current rayon pool; the board is the same on any
/// number of threads.
pub fn no_guess(request: &NoGuess) -> Result<Certified, NoGuessError> {
    no_guess_with_progress(request, &|_| {})
}

/// Where a long no-guess generation stands, given to the callback of
/// [`no_guess_with_progress`] after every move of the solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress {
    /// Whether this is the certifying replay (`true`) or play with repairs (`false`).
    pub certifying: bool,
    /// Safe cells revealed so far in this play.
    pub revealed: usize,
    /// Safe cells of the board.
    pub safe: usize,
    /// Repairs made so far.
    pub repairs: usize,
    /// [`Progress::share`], as the bits of an `f64`.
    share: u64,
}

impl Progress {
    /// The share of the work done, from 0 to 1, for a progress bar. It never steps back
    /// from one report to the next and reaches 1 with the certifying replay's last move.
    ///
    /// It is made from an estimate of the work done: the play with repairs is
    /// counted by the safe cells it revealed, up to 0.45; each round of repairs after it
    /// takes half of what is left of the next 0.05; the certifying replay, counted by
    /// the safe cells it revealed, is the second half. When the work steps back (a fresh
    /// board after a repair gave up, or play going on after a certifying replay stalled),
    /// the share stays where it was and what the estimate says is left is spread over what
    /// is left of the bar.
    pub fn share(&self) -> f64 {
        f64::from_bits(self.share)
    }
}

/// The share of the bar the play with repairs fills, by the cells it reveals.
const PLAY_SHARE: f64 = 0.45;

/// The share of the bar the rounds of repairs after the first stall fill, half of what is
/// left of it a round.
const ROUNDS_SHARE: f64 = 0.05;

/// What the estimate of the work done says, before [`Share`] keeps it from stepping back:
/// from 0 to 1, the play with `rounds` rounds of repairs behind it or the certifying
/// replay, having revealed `revealed` of `safe` safe cells.
fn estimate(certifying: bool, revealed: usize, safe: usize, rounds: u32) -> f64 {
    let played = if safe == 0 {
        1.0
    } else {
        (revealed as f64 / safe as f64).clamp(0.0, 1.0)
    };
    if certifying {
        0.5 + played / 2.0
    } else {
        PLAY_SHARE * played + ROUNDS_SHARE * (1.0 - 0.5f64.powi(rounds.min(64) as i32))
    }
}

/// The share of a generation done, as reported: the estimates, kept from stepping back.
/// While the estimate grows, the share grows with it; when it steps back (the work started
/// over in part), the share stays, and from then on moves over what is left of the bar as
/// the estimate moves over what is left of its own, so both reach 1 together.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Share {
    /// The last estimate seen.
    last: f64,
    /// The share last reported.
    shown: f64,
    /// The estimate and the share when the estimate last stepped back.
    from: (f64, f64),
}

impl Share {
    /// Takes in the estimate `estimate` (0 to 1) and returns the share to report.
    fn see(&mut self, estimate: f64) -> f64 {
        let estimate = estimate.clamp(0.0, 1.0);
        if estimate < self.last {
            self.from = (estimate, self.shown);
        }
        self.last = estimate;
        let (from, base) = self.from;
        let share = if from >= 1.0 {
            1.0
        } else {
            base + (1.0 - base) * (estimate - from) / (1.0 - from)
        };
        self.shown = share.clamp(self.shown, 1.0);
        self.shown
    }
}

/// [`no_guess`], calling `progress` after every move of the repairing and certifying plays
/// and after every round of repairs (rejection, which is quick, reports nothing).
pub fn no_guess_with_progress(
    request: &NoGuess,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Certified, NoGuessError> {
    if request.rule == FirstClick::Unprotected {
        return Err(NoGuessError::Unprotected);
    }
    let (row, col) = request.click;
    let zone = request.rule.zone(request.rows, request.cols, row, col)?;
    let config =
        Config::new(request.rows, request.cols, request.mines, request.seed).keep_clear(zone);
    let reject = match request.method {
        Method::Reject => Some(request.attempts),
        Method::Repair => None,
        Method::Auto => (request.rows.saturating_mul(request.cols) <= AUTO_REJECT_CELLS)
            .then_some(AUTO_REJECT_ATTEMPTS.min(request.attempts)),
    };
    if let Some(attempts) = reject {
        if let Some(certified) = reject_sample(request, &config, attempts)? {
            return Ok(certified);
        }
        if request.method == Method::Reject {
            return Err(NoGuessError::NoBoardFound {
                attempts,
                rows: request.rows,
                cols: request.cols,
                mines: request.mines,
            });
        }
    }
    // Repair starts from a fresh board up to RESTARTS times, splitting the budget, since a
    // board that resists repair usually resists it for good.
    let share = (request.repairs / RESTARTS).max(1);
    let bar = std::cell::RefCell::new(Share::default());
    let mut spent = 0;
    for restart in 0..RESTARTS {
        let budget = if restart + 1 == RESTARTS {
            request.repairs - spent
        } else {
            share.min(request.repairs - spent)
        };
        let first = generate(&attempt_config(&config, reject.unwrap_or(0) + restart))?;
        match repair(request, first, restart, budget, &bar, progress) {
            Err(NoGuessError::RepairsExhausted { repairs, .. }) if restart + 1 < RESTARTS => {
                spent += repairs;
            }
            Err(NoGuessError::RepairsExhausted {
                repairs, hidden, ..
            }) => {
                return Err(NoGuessError::RepairsExhausted {
                    repairs: spent + repairs,
                    hidden,
                    rows: request.rows,
                    cols: request.cols,
                    mines: request.mines,
                });
            }
            other => return other,
        }
    }
    Err(NoGuessError::RepairsExhausted {
        repairs: spent,
        hidden: 0,
        rows: request.rows,
        cols: request.cols,
        mines: request.mines,
    })
}

/// The config of draw number `attempt`: the request's, with the seed hashed with the index.
fn attempt_config(config: &Config, attempt: usize) -> Config {
    let mut config = config.clone();
    config.seed = stream(config.seed, attempt as u64).next_u64();
    config
}

/// Draws up to `attempts` boards, in batches of one per thread, and returns the first (by
/// draw number) that the solver clears.
fn reject_sample(
    request: &NoGuess,
    config: &Config,
    attempts: usize,
) -> Result<Option<Certified>, NoGuessError> {
    let batch = rayon::current_num_threads().max(1);
    let mut start = 0;
    while start < attempts {
        let end = (start + batch).min(attempts);
        let found = (start..end)
            .into_par_iter()
            .map(|attempt| -> Result<Option<Certified>, NoGuessError> {
                let board = Arc::new(generate(&attempt_config(config, attempt))?);
                if doomed::doomed(&board, request.click) {
                    return Ok(None);
                }
                let replay = replay(&board, request, &|_| {})?;
                if !replay.won {
                    return Ok(None);
                }
                let certificate = replay.certificate(Method::Reject, attempt + 1, 0);
                drop(replay);
                Ok(Some(Certified {
                    board: unshared(board),
                    rule: request.rule,
                    click: request.click,
                    certificate,
                }))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(certified) = found.into_iter().flatten().next() {
            return Ok(Some(certified));
        }
        start = end;
    }
    Ok(None)
}

/// The board out of its `Arc`, copied only if a game still shares it.
fn unshared(board: Arc<Board>) -> Board {
    Arc::try_unwrap(board).unwrap_or_else(|shared| (*shared).clone())
}

/// A play of the solver: the game where it stopped and what each move needed.
struct Replay {
    game: Game,
    won: bool,
    moves: usize,
    tally: Tally,
    /// The solver where the play stalled, proving no hidden cell safe (`None` once won),
    /// for the repair to go on with; `advance` takes it up again.
    solver: Option<Solver>,
}

impl Replay {
    fn certificate(&self, method: Method, attempts: usize, repairs: usize) -> Certificate {
        let tally = self.tally;
        let deepest = [
            (tally.global, Tier::Global),
            (tally.component, Tier::Component),
            (tally.pair, Tier::Pair),
            (tally.trivial, Tier::Trivial),
        ]
        .into_iter()
        .find(|&(n, _)| n > 0)
        .map(|(_, tier)| tier);
        Certificate {
            method,
            attempts,
            repairs,
            moves: self.moves,
            tally,
            deepest,
            solver: SOLVER_VERSION,
        }
    }
}

/// Plays `board` from the request's first click with the solver alone.
fn replay(
    board: &Arc<Board>,
    request: &NoGuess,
    moved: &dyn Fn(usize),
) -> Result<Replay, NoGuessError> {
    let mut game = Game::new(Arc::clone(board));
    game.reveal(request.click.0, request.click.1)?;
    let mut replay = Replay {
        game,
        won: false,
        moves: 0,
        tally: Tally::default(),
        solver: None,
    };
    advance(&mut replay, Some(request.click.0), moved)?;
    Ok(replay)
}

/// Plays on with the solver until the game is won or the solver stalls. Each move reveals
/// every safe cell of the cheapest tier that proves one: the trivial rule, then the pair
/// rule, then the exact tier with the mine count. A play from the first click on a large
/// board, on a pool of more than one thread, first drives the trivial rule on the rows above
/// and below `split` (the click's row) at once ([`drive_halves`]).
fn advance(
    replay: &mut Replay,
    split: Option<usize>,
    moved: &dyn Fn(usize),
) -> Result<(), NoGuessError> {
    let (mut solver, mut split) = match replay.solver.take() {
        Some(mut solver) => {
            solver.update(&replay.game)?;
            (solver, None)
        }
        None => (Solver::new(&replay.game)?, split),
    };
    // The list of proven safe words, one buffer from move to move.
    let mut safe = Vec::new();
    loop {
        match replay.game.status() {
            Status::Won => {
                replay.won = true;
                return Ok(());
            }
            // A move reveals only proven cells, so this is unreachable unless the solver
            // were unsound; it is reported as a stall all the same, never as a win.
            Status::Lost => return Ok(()),
            Status::Playing => {}
        }
        // The trivial rule to its fixed point band by band on a large board, each band's
        // words in cache while it works on them.
        if let Some(row) = split.filter(|_| halves(&solver)) {
            // Band by band alone until the play has reached enough cells to show it is
            // spreading over the board, then the two halves at once.
            let board = replay.game.view().geometry().cells();
            let limit = board / HALVES_SHARE;
            match drive_until(replay, &mut solver, &mut safe, limit, moved)? {
                Driven::Over => continue,
                Driven::Fixed => {}
                Driven::Grown => {
                    split = None;
                    if !drive_halves(replay, &mut solver, &mut safe, row, moved)? {
                        continue;
                    }
                }
            }
        }
        if solver.bands() > 1 && !drive_bands(replay, &mut solver, &mut safe, moved)? {
            continue;
        }
        // Sweep until a sweep proves a safe cell (reveal it at once: its number feeds the
        // next sweep) or proves nothing.
        while solver.sweep()? > 0 && !solver.proves_safe() {}
        let mut tier = Tier::Trivial;
        if !solver.proves_safe() {
            solver.deduce()?;
            tier = Tier::Pair;
        }
        if solver.proves_safe() {
            solver.safe_words_into(&mut safe);
        } else {
            // The exact tier, in place. The pair rule is at its fixed point already: the
            // exact tier without it proves the same cells with the same reasons.
            solver.weigh()?;
            if !solver.proves_safe() {
                replay.solver = Some(solver);
                return Ok(());
            }
            tier = Tier::Global;
            solver.safe_words_into(&mut safe);
            let geometry = *replay.game.view().geometry();
            let stride = geometry.words_per_row() * 64;
            for &(w, cells) in &safe {
                let mut bits = cells;
                while bits != 0 {
                    let bit = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if let Some(reason) = solver.reason(bit / stride - 1, bit % stride - 1)? {
                        tier = tier.min(reason.tier());
                    }
                }
            }
        }
        // Only the words of the proven cells are handed over, and only the words they
        // opened are read back: a move costs what it reveals, not a pass over the board.
        let opened = replay.game.reveal_words(&safe)?.opened;
        if replay.game.status() == Status::Playing {
            solver.update_revealed(&replay.game)?;
        }
        replay.moves += 1;
        moved(replay.game.revealed_count());
        match tier {
            Tier::Trivial => replay.tally.trivial += opened,
            Tier::Pair => replay.tally.pair += opened,
            Tier::Component => replay.tally.component += opened,
            Tier::Global => replay.tally.global += opened,
        }
    }
}

/// Drives the trivial rule to its fixed point one band of rows after another, each band
/// until a sweep of it proves nothing, revealing at once every safe cell a sweep proves (a
/// move of the trivial tier), and passes over the bands, down and then up, until no band
/// has marks left. The trivial rule with its reveals reaches one fixed point whatever the
/// order, so play stops where a play by whole sweeps stops, and the pair rule and the exact
/// tier, which run only there, see the same position: the board is the same, though the
/// count of moves is not. The proven safe words pass through `safe`, the play's buffer.
/// Returns whether the game is still in play.
fn drive_bands(
    replay: &mut Replay,
    solver: &mut Solver,
    safe: &mut Vec<(usize, u64)>,
    moved: &dyn Fn(usize),
) -> Result<bool, NoGuessError> {
    Ok(drive_until(replay, solver, safe, usize::MAX, moved)? != Driven::Over)
}

/// [`drive_bands`], stopping early (`Driven::Grown`) once the game shows `limit` revealed
/// cells or more.
fn drive_until(
    replay: &mut Replay,
    solver: &mut Solver,
    safe: &mut Vec<(usize, u64)>,
    limit: usize,
    moved: &dyn Fn(usize),
) -> Result<Driven, NoGuessError> {
    let bands = solver.bands();
    Drive::of(replay, solver, safe, moved, limit).run(0..bands, true)
}

/// Where a [`Drive`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Driven {
    /// Its bands have no marks left (or a proven safe cell is flagged): the game is still in
    /// play.
    Fixed,
    /// The game is over.
    Over,
    /// The game shows as many revealed cells as the drive's limit, or more.
    Grown,
}

/// A play driving the trivial rule band by band ([`drive_bands`]): the game and solver it
/// plays, the buffer of safe words, and where it counts its moves and the cells they open.
struct Drive<'a> {
    game: &'a mut Game,
    solver: &'a mut Solver,
    safe: &'a mut Vec<(usize, u64)>,
    moves: &'a mut usize,
    opened: &'a mut usize,
    moved: &'a dyn Fn(usize),
    /// Revealed cells at which the drive stops (`Driven::Grown`).
    limit: usize,
}

impl<'a> Drive<'a> {
    /// A drive of `replay`'s game with `solver`, counting its moves and the cells they open
    /// in the replay's tally of the trivial rule.
    fn of(
        replay: &'a mut Replay,
        solver: &'a mut Solver,
        safe: &'a mut Vec<(usize, u64)>,
        moved: &'a dyn Fn(usize),
        limit: usize,
    ) -> Drive<'a> {
        Drive {
            game: &mut replay.game,
            solver,
            safe,
            moves: &mut replay.moves,
            opened: &mut replay.tally.trivial,
            moved,
            limit,
        }
    }

    /// Drives the bands `bands` to their fixed point, passing over them down (first to
    /// last) and up in turn, starting down if `down`, until none of them has marks left
    /// (the marks its proofs set in other bands stay for later), or until the game shows
    /// [`Drive::limit`] revealed cells.
    fn run(
        &mut self,
        bands: std::ops::Range<usize>,
        mut down: bool,
    ) -> Result<Driven, NoGuessError> {
        while self.solver.marked_bands(bands.clone()) {
            for i in 0..bands.len() {
                let band = if down {
                    bands.start + i
                } else {
                    bands.end - 1 - i
                };
                let mut revealed = false;
                while self.solver.sweep_band(band)? > 0 || self.solver.proves_safe() {
                    if !self.solver.proves_safe() {
                        continue;
                    }
                    self.solver.safe_words_into(self.safe);
                    let opened = self.game.reveal_words(self.safe)?.opened;
                    if opened == 0 {
                        // Proven safe but flagged: left to the play by whole sweeps.
                        return Ok(Driven::Fixed);
                    }
                    *self.moves += 1;
                    *self.opened += opened;
                    revealed = true;
                    if self.game.status() != Status::Playing {
                        (self.moved)(self.game.revealed_count());
                        return Ok(Driven::Over);
                    }
                    self.solver.update_revealed(&*self.game)?;
                    if self.game.revealed_count() >= self.limit {
                        (self.moved)(self.game.revealed_count());
                        return Ok(Driven::Grown);
                    }
                }
                if revealed {
                    (self.moved)(self.game.revealed_count());
                }
            }
            down = !down;
        }
        Ok(Driven::Fixed)
    }
}

/// Bands a board needs for a play from the first click to drive its halves at once.
const HALVES_BANDS: usize = 8;

/// A play from the first click drives its halves at once once it has revealed this
/// fraction of the board's cells (one in `HALVES_SHARE`): by then the trivial rule is
/// spreading from the click, and the halves each have their share of the work.
const HALVES_SHARE: usize = 256;

/// Whether a play from the first click drives its halves at once ([`drive_halves`]): on a
/// board of at least [`HALVES_BANDS`] bands, on a pool of more than one thread. Either way
/// the play reaches the same fixed point, so the board does not depend on it.
fn halves(solver: &Solver) -> bool {
    solver.bands() >= HALVES_BANDS && rayon::current_num_threads() > 1
}

/// Drives the trivial rule on the bands above and below the band of row `row` at once, on
/// two threads: this play the bands down to `row`'s (moving up first, away from it), and a
/// second game and solver of the same board, cloned from this one, the bands below (moving
/// down), each leaving the marks of the other's bands. Then this game reveals every cell
/// the second one revealed (a move of the trivial tier: each was proven safe by the trivial
/// rule from true numbers, or opened by a cascade), the solver takes the other's rows below
/// the bands it drove ([`Solver::adopt_bands`], which marks where the two sides know
/// otherwise, so those rows are not swept again) and reads the whole view back
/// ([`Solver::update`]); [`drive_bands`] takes the play on from there to the fixed point.
/// The trivial rule with its reveals reaches one fixed point whatever the order, and any
/// cell one of the two halves revealed lies inside it, so the play stops where
/// [`drive_bands`] alone stops, with the same cells revealed and proven and the same tally
/// of cells opened by the trivial rule (the count of moves differs). Returns whether the
/// game is still in play.
fn drive_halves(
    replay: &mut Replay,
    solver: &mut Solver,
    safe: &mut Vec<(usize, u64)>,
    row: usize,
    moved: &dyn Fn(usize),
) -> Result<bool, NoGuessError> {
    let bands = solver.bands();
    let rows = replay.game.view().geometry().rows().max(1);
    // Both take the band of the click and those beside it, where the first cascade lies,
    // so that each half's play starts from it: this play the bands above and the other the
    // bands below.
    let click = (row / (rows / bands).max(1)).min(bands - 1);
    let (ours_end, theirs_start) = ((click + 2).min(bands), click.saturating_sub(1));
    let mut other = replay.game.clone();
    let mut their_solver: Option<Solver> = None;
    let mut theirs: Result<bool, NoGuessError> = Ok(true);
    let mut ours: Result<bool, NoGuessError> = Ok(true);
    rayon::in_place_scope(|scope| {
        let (other, theirs, their_solver) = (&mut other, &mut theirs, &mut their_solver);
        scope.spawn(move |_| {
            *theirs = Solver::new(&*other)
                .map_err(NoGuessError::from)
                .and_then(|solver| {
                    let (mut moves, mut opened) = (0, 0);
                    Drive {
                        game: other,
                        solver: their_solver.insert(solver),
                        safe: &mut Vec::new(),
                        moves: &mut moves,
                        opened: &mut opened,
                        moved: &|_| {},
                        limit: usize::MAX,
                    }
                    .run(theirs_start..bands, true)
                    .map(|driven| driven != Driven::Over)
                });
        });
        ours = Drive::of(replay, solver, safe, moved, usize::MAX)
            .run(0..ours_end, false)
            .map(|driven| driven != Driven::Over);
    });
    theirs?;
    if !ours? {
        return Ok(false);
    }
    if other.status() == Status::Lost {
        // Unreachable with a sound solver; this play goes on alone.
        return Ok(true);
    }
    // The cells the other half revealed and this one did not, board cells only.
    let geometry = *replay.game.view().geometry();
    let wpr = geometry.words_per_row();
    let (mine, theirs) = (
        replay.game.view().revealed_words(),
        other.view().revealed_words(),
    );
    safe.clear();
    for row in 1..=geometry.rows() {
        for j in 0..wpr {
            let w = row * wpr + j;
            let new = theirs[w] & !mine[w] & geometry.cell_mask(j);
            if new != 0 {
                safe.push((w, new));
            }
        }
    }
    drop(other);
    if safe.is_empty() {
        return Ok(true);
    }
    let opened = replay.game.reveal_words(safe)?.opened;
    replay.moves += 1;
    replay.tally.trivial += opened;
    moved(replay.game.revealed_count());
    if replay.game.status() != Status::Playing {
        return Ok(false);
    }
    // The other solver's rows below the bands this play drove, so that they need not be
    // swept again; if it refuses, the update marks them all and the sweeps read them anew.
    if let Some(theirs) = their_solver {
        solver.adopt_bands(&theirs, ours_end);
    }
    solver.update(&replay.game)?;
    Ok(true)
}

/// Repairs `board` until a clean replay from the first click wins.
fn repair(
    request: &NoGuess,
    board: Board,
    restart: usize,
    budget: usize,
    bar: &std::cell::RefCell<Share>,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Certified, NoGuessError> {
    let geometry = *board.geometry();
    let mut mines = board.mine_words().to_vec();
    let mut rng = stream(request.seed, REPAIR_STREAM - restart as u64);
    let safe = board.safe_count();
    let mut board = Arc::new(board);
    let made_so_far = std::cell::Cell::new(0);
    let rounds = std::cell::Cell::new(0u32);
    let report = |certifying: bool, revealed: usize| {
        let estimate = estimate(certifying, revealed, safe, rounds.get());
        progress(Progress {
            certifying,
            revealed,
            safe,
            repairs: made_so_far.get(),
            share: bar.borrow_mut().see(estimate).to_bits(),
        });
    };
    let playing = |revealed| report(false, revealed);
    let certifying = |revealed| report(true, revealed);
    let mut play = replay(&board, request, &playing)?;
    let mut repairs = 0;
    // The most cells the play has reached, and the rounds since it last grew.
    let (mut reached, mut idle) = (play.game.revealed_count(), 0);
    loop {
        if play.won {
            // Won from a position that earlier repairs left behind: replay from scratch. The
            // play is done with either way (a stalled replay takes its place), so its game
            // and solver go before the replay's are made.
            drop(play);
            let clean = replay(&board, request, &certifying)?;
            if clean.won {
                let certificate = clean.certificate(Method::Repair, restart + 1, repairs);
                drop(clean);
                return Ok(Certified {
                    board: unshared(board),
                    rule: request.rule,
                    click: request.click,
                    certificate,
                });
            }
            (reached, idle) = (clean.game.revealed_count(), 0);
            play = clean;
        }
        let Some(mut solver) = play.solver.take() else {
            // Lost: impossible for a sound solver; start the play again from the click.
            play = replay(&board, request, &playing)?;
            continue;
        };
        let before = par_plane(mines.len(), |w| mines[w]);
        let made = mend(
            &geometry,
            &mut mines,
            &play.game,
            &solver,
            &mut rng,
            budget - repairs.min(budget),
            true,
        )?;
        repairs += made;
        made_so_far.set(repairs);
        rounds.set(rounds.get() + 1);
        playing(play.game.revealed_count());
        if made == 0 || repairs >= budget {
            let view = play.game.view();
            return Err(NoGuessError::RepairsExhausted {
                repairs,
                hidden: board.safe_count() - view.revealed_count(),
                rows: request.rows,
                cols: request.cols,
                mines: request.mines,
            });
        }
        // The revealed cells are still safe: the game moves onto the mended board, and the
        // solver forgets the cells whose mine moved and reads the numbers around them
        // again. What it keeps is true of the mended board, though perhaps no longer
        // provable from the view: the clean replay above certifies.
        let moved = par_plane(mines.len(), |w| before[w] ^ mines[w]);
        drop(before);
        let changed = cells_of(&geometry, &moved);
        drop(moved);
        let words = par_plane(mines.len(), |w| mines[w]);
        board = Arc::new(Board::from_mine_words_with(geometry, words, |jobs| {
            jobs.par_iter_mut().for_each(bitmines_core::ZeroJob::run)
        })?);
        play.game.rebase(Arc::clone(&board))?;
        if play.game.status() == Status::Playing {
            solver.renumber(&play.game, &changed)?;
            play.solver = Some(solver);
        }
        advance(&mut play, None, &playing)?;
        // A board that goes round after round without reaching a new cell resists repair
        // for good (mines shuffled back and forth about one spot): give it up, for a fresh
        // board, rather than spend the whole budget on it.
        if play.game.revealed_count() > reached {
            reached = play.game.revealed_count();
            idle = 0;
        } else {
            idle += 1;
            if idle >= STUCK {
                return Err(NoGuessError::RepairsExhausted {
                    repairs,
                    hidden: board.safe_count() - play.game.revealed_count(),
                    rows: request.rows,
                    cols: request.cols,
                    mines: request.mines,
                });
            }
        }
    }
}

/// Repair rounds in a row that reach no new cell before a board is given up.
const STUCK: usize = 64;

/// Words of a plane the mender's whole-plane passes give one rayon task at the least: a
/// small board's passes stay on the calling thread, a huge board's share out its rows.
const PAR_WORDS: usize = 1 << 14;

/// Clears the sentinel and padding bits of a padded plane, leaving its board cells.
fn mask_cells(geometry: &Geometry, plane: &mut [u64]) {
    let wpr = geometry.words_per_row();
    let masks: Vec<u64> = (0..wpr).map(|j| geometry.cell_mask(j)).collect();
    plane
        .par_chunks_mut(wpr)
        .with_min_len(PAR_WORDS.div_ceil(wpr))
        .enumerate()
        .for_each(|(row, words)| {
            if row == 0 || row > geometry.rows() {
                words.fill(0);
            } else {
                for (word, mask) in words.iter_mut().zip(&masks) {
                    *word &= mask;
                }
            }
        });
}

/// `f` of each word index of a plane of `len` words, computed on the rayon pool in
/// pieces of at least [`PAR_WORDS`] words; the same plane on any number of threads.
fn par_plane(len: usize, f: impl Fn(usize) -> u64 + Sync + Send) -> Vec<u64> {
    (0..len)
        .into_par_iter()
        .with_min_len(PAR_WORDS)
        .map(f)
        .collect()
}

/// A list of cells, `(row, col)` each.
type Cells = Vec<(usize, usize)>;

/// What the mender knows at a stall, as planes laid out by the board's geometry.
struct Stall<'a> {
    geometry: &'a Geometry,
    /// Revealed board cells (no sentinel or padding bits).
    revealed: Vec<u64>,
    /// Hidden cells the solver has not decided.
    undecided: Vec<u64>,
    /// Hidden cells with no revealed neighbour: a mine moved to or from one changes no
    /// number.
    far: Vec<u64>,
    /// Sparse candidate sets of [`pick`], listed once a stall when random tries miss them:
    /// by `far as usize * 2 + wanted as usize`. Entries go stale as mines move, and are
    /// dropped when found so.
    sparse: std::cell::RefCell<[Option<Sparse>; 4]>,
    /// Whether [`pick`]'s random tries ask a sparse set's blocks first (always, but for the
    /// naive twin in the tests, which reads the planes at every try).
    blocks: bool,
}

/// A sparse candidate set of [`pick`]: its cells, and which blocks of [`BLOCK`] plane words
/// may hold one, a bit each, so that a random try in an empty block (almost every try, on
/// a huge board) is answered from a summary that stays in cache rather than from three
/// planes that do not. A block's bit is set again whenever a mine in it moves, so the
/// blocks only ever say too much.
struct Sparse {
    cells: Cells,
    blocks: Vec<u64>,
}

/// Plane words a bit of [`Sparse::blocks`] stands for.
const BLOCK: usize = 64;

impl<'a> Stall<'a> {
    fn new(geometry: &'a Geometry, game: &Game, solver: &Solver) -> Stall<'a> {
        let shown = game.view().revealed_words();
        let mut revealed = par_plane(shown.len(), |w| shown[w]);
        mask_cells(geometry, &mut revealed);
        let (mine, safe) = (solver.mine_plane(), solver.safe_plane());
        let mut undecided = par_plane(revealed.len(), |w| !(revealed[w] | mine[w] | safe[w]));
        mask_cells(geometry, &mut undecided);
        let near = dilate(geometry, &revealed);
        let mut far = par_plane(near.len(), |w| !near[w]);
        drop(near);
        mask_cells(geometry, &mut far);
        Stall {
            geometry,
            revealed,
            undecided,
            far,
            sparse: std::cell::RefCell::new([None, None, None, None]),
            blocks: true,
        }
    }

    fn bit(&self, r: usize, c: usize) -> usize {
        (r + 1) * self.geometry.words_per_row() * 64 + c + 1
    }

    fn revealed(&self, r: usize, c: usize) -> bool {
        test(&self.revealed, self.bit(r, c))
    }

    /// Notes that the mine of `(r, c)` moved: its block may now hold a candidate of any set.
    fn touch(&self, r: usize, c: usize) {
        let block = self.bit(r, c) / 64 / BLOCK;
        for set in self.sparse.borrow_mut().iter_mut().flatten() {
            set.blocks[block / 64] |= 1 << (block % 64);
        }
    }
}

fn test(plane: &[u64], bit: usize) -> bool {
    plane[bit / 64] >> (bit % 64) & 1 != 0
}

/// The cells of a plane grown by one cell in every direction (sentinel bits may be set).
fn dilate(geometry: &Geometry, plane: &[u64]) -> Vec<u64> {
    let wpr = geometry.words_per_row();
    let at = |w: usize| plane.get(w).copied().unwrap_or(0);
    let row = par_plane(plane.len(), |w| {
        let x = plane[w];
        let before = if w % wpr == 0 { 0 } else { at(w - 1) };
        let after = if (w + 1) % wpr == 0 { 0 } else { at(w + 1) };
        x | x << 1 | x >> 1 | before >> 63 | after << 63
    });
    par_plane(plane.len(), |w| {
        let up = if w >= wpr { row[w - wpr] } else { 0 };
        up | row[w] | row.get(w + wpr).copied().unwrap_or(0)
    })
}

/// The set bits of a plane, as cells, in board order (found in pieces on the rayon pool).
fn cells_of(geometry: &Geometry, plane: &[u64]) -> Vec<(usize, usize)> {
    let stride = geometry.words_per_row() * 64;
    let pieces: Vec<Cells> = plane
        .par_chunks(PAR_WORDS)
        .enumerate()
        .map(|(piece, words)| {
            let mut out = Vec::new();
            for (i, &word) in words.iter().enumerate() {
                let w = piece * PAR_WORDS + i;
                let mut bits = word;
                while bits != 0 {
                    let bit = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    out.push((bit / stride - 1, bit % stride - 1));
                }
            }
            out
        })
        .collect();
    pieces.concat()
}

/// The cells of the 3x3 block around `(r, c)` on the board, itself included.
fn around(geometry: &Geometry, r: usize, c: usize) -> impl Iterator<Item = (usize, usize)> {
    let (rows, cols) = (geometry.rows(), geometry.cols());
    (r.saturating_sub(1)..=(r + 1).min(rows - 1))
        .flat_map(move |nr| (c.saturating_sub(1)..=(c + 1).min(cols - 1)).map(move |nc| (nr, nc)))
}

fn get(geometry: &Geometry, plane: &[u64], r: usize, c: usize) -> bool {
    geometry
        .bit(r, c)
        .is_ok_and(|bit| plane[bit / 64] >> (bit % 64) & 1 != 0)
}

fn put(geometry: &Geometry, plane: &mut [u64], r: usize, c: usize, mine: bool) {
    if let Ok(bit) = geometry.bit(r, c) {
        if mine {
            plane[bit / 64] |= 1 << (bit % 64);
        } else {
            plane[bit / 64] &= !(1 << (bit % 64));
        }
    }
}

/// Repairs stalled numbers of the position `game` shows, at most `budget`, no two within
/// four cells of each other (so no number sees the changes of two repairs); returns how
/// many it made. `blocks` is [`Stall::blocks`]: false only for the naive twin in the tests.
fn mend(
    geometry: &Geometry,
    mines: &mut [u64],
    game: &Game,
    solver: &Solver,
    rng: &mut Pcg64,
    budget: usize,
    blocks: bool,
) -> Result<usize, NoGuessError> {
    let mut stall = Stall::new(geometry, game, solver);
    stall.blocks = blocks;
    // Stalled numbers: revealed cells with an undecided neighbour, each with those
    // neighbours, to be emptied or filled.
    let near_undecided = dilate(geometry, &stall.undecided);
    let numbers = par_plane(near_undecided.len(), |w| {
        stall.revealed[w] & near_undecided[w]
    });
    let mut stalled: Vec<Target> = cells_of(geometry, &numbers)
        .into_iter()
        .map(|(r, c)| Target {
            by: (r, c),
            cells: around(geometry, r, c)
                .filter(|&(nr, nc)| test(&stall.undecided, stall.bit(nr, nc)))
                .collect(),
            empty: None,
        })
        .collect();
    if stalled.is_empty() {
        // Every number is settled, and the undecided cells lie behind a wall of proven
        // mines: empty a wall mine beside a number, one as close to an undecided cell as
        // any, so that the number proves it safe and, once revealed, it shows what lies
        // behind (or the next layer of the wall).
        let near_revealed = dilate(geometry, &stall.revealed);
        let walls: Vec<u64> = mines
            .iter()
            .zip(&near_revealed)
            .zip(&stall.revealed)
            .map(|((m, n), r)| m & n & !r)
            .collect();
        if walls.iter().all(|&w| w == 0) || stall.undecided.iter().all(|&u| u == 0) {
            return Ok(0);
        }
        let mut reach = stall.undecided.clone();
        let closest = loop {
            let hit: Vec<u64> = walls.iter().zip(&reach).map(|(w, r)| w & r).collect();
            if hit.iter().any(|&h| h != 0) {
                break hit;
            }
            reach = dilate(geometry, &reach);
            mask_cells(geometry, &mut reach);
        };
        for (r, c) in cells_of(geometry, &closest) {
            if let Some(by) = around(geometry, r, c).find(|&(nr, nc)| stall.revealed(nr, nc)) {
                stalled.push(Target {
                    by,
                    cells: vec![(r, c)],
                    empty: Some(true),
                });
            }
        }
    }
    if stalled.is_empty() {
        return Ok(0);
    }
    // Start at a random stalled number, then take the others in board order, skipping any
    // within four cells of one already repaired.
    let first = below(rng, stalled.len() as u64) as usize;
    stalled.rotate_left(first);
    let mut made: Vec<(usize, usize)> = Vec::new();
    for Target {
        by: n,
        cells: targets,
        empty,
    } in &stalled
    {
        if made.len() >= budget {
            break;
        }
        if made
            .iter()
            .any(|&(mr, mc)| mr.abs_diff(n.0) <= 4 && mc.abs_diff(n.1) <= 4)
        {
            continue;
        }
        if mend_one(&stall, mines, rng, *n, targets, *empty) {
            made.push(*n);
        }
    }
    Ok(made.len())
}

/// Cells to empty or fill so that the number at `by` settles; `empty` says which, if it
/// must be one.
struct Target {
    by: (usize, usize),
    cells: Vec<(usize, usize)>,
    empty: Option<bool>,
}

/// Empties or fills `targets` (hidden cells around the number at `n`): as `empty` says, or
/// else empties them if partners can be found, and fills them if not. The mines move to or
/// from other hidden cells: far from every revealed cell if any will do, else any hidden
/// cell out of the number's reach. Returns whether it changed anything.
fn mend_one(
    stall: &Stall<'_>,
    mines: &mut [u64],
    rng: &mut Pcg64,
    n: (usize, usize),
    targets: &[(usize, usize)],
    empty: Option<bool>,
) -> bool {
    match empty {
        Some(empty) => shift(stall, mines, rng, n, targets, empty),
        None => {
            shift(stall, mines, rng, n, targets, true)
                || shift(stall, mines, rng, n, targets, false)
        }
    }
}

/// Empties (`empty`) or fills `targets`, each change paired with a partner cell that takes
/// the opposite change so the mine count stays; returns whether it changed anything, and
/// changes nothing unless every change found a partner.
fn shift(
    stall: &Stall<'_>,
    mines: &mut [u64],
    rng: &mut Pcg64,
    n: (usize, usize),
    targets: &[(usize, usize)],
    empty: bool,
) -> bool {
    let geometry = stall.geometry;
    let change: Vec<(usize, usize)> = targets
        .iter()
        .copied()
        .filter(|&(r, c)| get(geometry, mines, r, c) == empty)
        .collect();
    let wanted = !empty; // a partner must hold a mine when filling
    let mut partners: Vec<(usize, usize)> = Vec::with_capacity(change.len());
    for _ in &change {
        // Out of the number's reach, and not a partner already.
        let ok = |r: usize, c: usize| {
            let reach = r.abs_diff(n.0) <= 1 && c.abs_diff(n.1) <= 1;
            !reach && !partners.contains(&(r, c))
        };
        let Some(p) = pick(stall, mines, rng, true, wanted, ok)
            .or_else(|| pick(stall, mines, rng, false, wanted, ok))
        else {
            return false;
        };
        partners.push(p);
    }
    for (&(r, c), &(pr, pc)) in change.iter().zip(&partners) {
        put(geometry, mines, r, c, !empty);
        put(geometry, mines, pr, pc, empty);
        stall.touch(r, c);
        stall.touch(pr, pc);
    }
    !change.is_empty()
}

/// A uniformly random hidden cell holding a mine or not (`wanted`), far from every
/// revealed cell if `far`, that `ok` accepts: by random tries for a while; then, the set
/// being sparse, from a list of it made once a stall.
fn pick(
    stall: &Stall<'_>,
    mines: &[u64],
    rng: &mut Pcg64,
    far: bool,
    wanted: bool,
    ok: impl Fn(usize, usize) -> bool,
) -> Option<(usize, usize)> {
    let geometry = stall.geometry;
    let (far_plane, revealed) = (stall.far.as_slice(), stall.revealed.as_slice());
    let candidate = |w: usize| {
        let base = if far { far_plane[w] } else { !revealed[w] };
        let held = if wanted { mines[w] } else { !mines[w] };
        base & held
    };
    let is = |r: usize, c: usize| {
        let bit = stall.bit(r, c);
        candidate(bit / 64) >> (bit % 64) & 1 != 0
    };
    let (rows, cols) = (geometry.rows(), geometry.cols());
    let mut sparse = stall.sparse.borrow_mut();
    let set = sparse.get_mut(usize::from(far) * 2 + usize::from(wanted))?;
    // Once the set is listed, a try in a block its summary says is empty misses without a
    // look at the planes: the same tries, the same draws, the same cell found.
    let blocks = set.as_ref().filter(|_| stall.blocks).map(|s| &s.blocks);
    let maybe = |r: usize, c: usize| {
        blocks.is_none_or(|blocks| {
            let block = stall.bit(r, c) / 64 / BLOCK;
            blocks[block / 64] >> (block % 64) & 1 != 0
        })
    };
    for _ in 0..TRIES {
        let (r, c) = (
            below(rng, rows as u64) as usize,
            below(rng, cols as u64) as usize,
        );
        if maybe(r, c) && is(r, c) && ok(r, c) {
            return Some((r, c));
        }
    }
    let list = &mut set
        .get_or_insert_with(|| {
            let mut plane = par_plane(mines.len(), candidate);
            mask_cells(geometry, &mut plane);
            let blocks = plane
                .chunks(BLOCK * 64)
                .map(|words| {
                    words
                        .chunks(BLOCK)
                        .enumerate()
                        .fold(0u64, |bits, (i, block)| {
                            bits | u64::from(block.iter().any(|&w| w != 0)) << i
                        })
                })
                .collect();
            Sparse {
                cells: cells_of(geometry, &plane),
                blocks,
            }
        })
        .cells;
    // Random entries, dropping stale ones, a few times; then every entry `ok` accepts.
    for _ in 0..TRIES {
        if list.is_empty() {
            return None;
        }
        let i = below(rng, list.len() as u64) as usize;
        let (r, c) = list[i];
        if !is(r, c) {
            list.swap_remove(i);
        } else if ok(r, c) {
            return Some((r, c));
        }
    }
    list.retain(|&(r, c)| is(r, c));
    let all: Vec<(usize, usize)> = list.iter().copied().filter(|&(r, c)| ok(r, c)).collect();
    if all.is_empty() {
        None
    } else {
        Some(all[below(rng, all.len() as u64) as usize])
    }
}

/// Random tries [`pick`] makes before it lists its candidates.
const TRIES: usize = 1024;

/// A [`Placer`](bitmines_core::Placer) of no-guess boards for deferred games: the first
/// click's zone tells where the click was, and the board is certified from it.
///
/// ```
/// use bitmines_core::{FirstClick, Game};
/// use bitmines_gen::NoGuessGenerator;
///
/// let placer = NoGuessGenerator::new(3, FirstClick::Opening);
/// let mut game = Game::deferred(16, 30, 99, FirstClick::Opening, placer)?;
/// game.reveal(3, 3)?;
/// let player = bitmines_solve::Player::new(bitmines_solve::Policy::Safest);
/// let outcome = player.play(&mut game).unwrap();
/// assert!(outcome.won && outcome.guesses.is_empty());
/// # Ok::<(), bitmines_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NoGuessGenerator {
    seed: u64,
    rule: FirstClick,
}

impl NoGuessGenerator {
    /// A placer making no-guess boards from `seed` for games whose first click keeps clear
    /// what `rule` says (the game's own rule; `Unprotected` fails on the first click).
    pub fn new(seed: u64, rule: FirstClick) -> NoGuessGenerator {
        NoGuessGenerator { seed, rule }
    }
}

impl bitmines_core::Placer for NoGuessGenerator {
    fn seed(&self) -> Option<u64> {
        Some(self.seed)
    }

    fn place(&self, request: &bitmines_core::Placement) -> Result<Board, bitmines_core::Error> {
        let (rows, cols) = (request.rows, request.cols);
        // The click is the cell of the zone whose own zone is the requested one.
        let click = request.zone.cells().find(|&(r, c)| {
            self.rule
                .zone(rows, cols, r, c)
                .is_ok_and(|zone| zone == request.zone)
        });
        let Some((row, col)) = click else {
            return Err(bitmines_core::Error::BadPlacement {
                reason: format!(
                    "no first click on a {rows}x{cols} board keeps exactly the requested zone clear under the {:?} rule",
                    self.rule
                ),
            });
        };
        let request =
            NoGuess::new(rows, cols, request.mines, self.seed).first_click(self.rule, row, col);
        no_guess(&request)
            .map(Certified::into_board)
            .map_err(|error| match error {
                NoGuessError::Gen(Error::Core(error)) => error,
                other => bitmines_core::Error::BadPlacement {
                    reason: other.to_string(),
                },
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shares a fresh [`Share`] reports for `estimates`.
    fn shares(estimates: &[f64]) -> Vec<f64> {
        let mut share = Share::default();
        estimates.iter().map(|&e| share.see(e)).collect()
    }

    #[test]
    fn a_share_follows_an_estimate_that_only_grows() {
        let estimates = [0.0, 0.1, 0.1, 0.25, 0.5, 0.9, 1.0];
        assert_eq!(shares(&estimates), estimates);
    }

    #[test]
    fn a_share_stays_when_the_estimate_steps_back_and_ends_at_one_with_it() {
        // Half done, then started over: the rest of the bar is spread over the estimate's
        // way from where it restarted.
        assert_eq!(
            shares(&[0.25, 0.5, 0.0, 0.5, 1.0]),
            [0.25, 0.5, 0.5, 0.75, 1.0]
        );
        // A step back to 0.5 from 0.75: the share moves over its last quarter as the
        // estimate moves over its last half.
        assert_eq!(shares(&[0.75, 0.5, 0.75, 1.0]), [0.75, 0.75, 0.875, 1.0]);
        // Out-of-range estimates are clamped, and an estimate at 1 after a step back to 1
        // keeps the share at 1.
        assert_eq!(shares(&[-1.0, 2.0, 1.0]), [0.0, 1.0, 1.0]);
    }

    /// The mender, asking the sparse sets' blocks before the planes, makes the same repairs
    /// with the same draws as its naive twin reading the planes at every try, at the first
    /// stall of boards where nearly every cell is revealed (so the partners are sparse and
    /// listed) and of a denser one.
    #[test]
    fn mending_with_blocks_matches_its_naive_twin() {
        // Boards at density 0.15 but the last (0.25), with seeds 1 on.
        let shapes = [(300, 300), (300, 300), (200, 257), (120, 120)];
        for (seed, (rows, cols)) in (1u64..).zip(shapes) {
            let mines = rows * cols * if seed == 4 { 25 } else { 15 } / 100;
            let request = NoGuess::new(rows, cols, mines, seed).method(Method::Repair);
            let zone = request
                .rule
                .zone(rows, cols, request.click.0, request.click.1);
            let config = Config::new(rows, cols, mines, seed).keep_clear(zone.unwrap());
            let board = Arc::new(generate(&config).unwrap());
            let play = replay(&board, &request, &|_| {}).unwrap();
            let solver = play.solver.as_ref().expect("a stall");
            let geometry = *board.geometry();
            let mend_as = |blocks: bool| {
                let mut mines = board.mine_words().to_vec();
                let mut rng = stream(seed, 9);
                let made = mend(
                    &geometry,
                    &mut mines,
                    &play.game,
                    solver,
                    &mut rng,
                    1 << 20,
                    blocks,
                )
                .unwrap();
                (made, mines, rng.next_u64())
            };
            let fast = mend_as(true);
            assert!(fast.0 > 0, "{rows}x{cols} seed {seed}: no repair");
            assert!(fast == mend_as(false), "{rows}x{cols} seed {seed}");
        }
    }

    /// A board of `rows` x `cols` at `density` with seed `seed`, its first-click zone (at
    /// `click`) kept clear, and the game after the click.
    fn clicked(
        rows: usize,
        cols: usize,
        density: f64,
        seed: u64,
        click: (usize, usize),
    ) -> (Arc<Board>, NoGuess, Game) {
        let mines = (rows as f64 * cols as f64 * density) as usize;
        let request = NoGuess::new(rows, cols, mines, seed)
            .method(Method::Repair)
            .first_click(FirstClick::Opening, click.0, click.1);
        let zone = request.rule.zone(rows, cols, click.0, click.1).unwrap();
        let config = Config::new(rows, cols, mines, seed).keep_clear(zone);
        let board = Arc::new(generate(&config).unwrap());
        let mut game = Game::new(Arc::clone(&board));
        game.reveal(click.0, click.1).unwrap();
        (board, request, game)
    }

    /// What a play's drive of the trivial rule left: the game's revealed plane and status,
    /// the cells its trivial moves opened, and the solver's proven mines and safe cells.
    type Drove = (Vec<u64>, Status, usize, Vec<u64>, Vec<u64>);

    /// Drives the trivial rule from the click of `game` to its fixed point: by bands alone
    /// (the twin), or (`halves`) band by band until `limit` cells are revealed, then the two
    /// halves at once about row `split`, then by bands to the end.
    fn drive_from(game: &Game, halves: bool, limit: usize, split: usize) -> Drove {
        let mut replay = Replay {
            game: game.clone(),
            won: false,
            moves: 0,
            tally: Tally::default(),
            solver: None,
        };
        let mut solver = Solver::new(&replay.game).unwrap();
        let mut safe = Vec::new();
        let mut playing = true;
        if halves {
            let driven = drive_until(&mut replay, &mut solver, &mut safe, limit, &|_| {}).unwrap();
            playing = driven != Driven::Over;
            if driven == Driven::Grown {
                playing =
                    drive_halves(&mut replay, &mut solver, &mut safe, split, &|_| {}).unwrap();
            }
        }
        if playing {
            drive_bands(&mut replay, &mut solver, &mut safe, &|_| {}).unwrap();
        }
        (
            replay.game.view().revealed_words().to_vec(),
            replay.game.status(),
            replay.tally.trivial,
            solver.mine_plane().to_vec(),
            solver.safe_plane().to_vec(),
        )
    }

    /// The two halves driven at once, then the seam by bands, stop where the bands driven
    /// alone stop (the twin): the same cells revealed, the same cells opened by the trivial
    /// rule, the same mines and safe cells proven. On boards of several shapes and densities,
    /// clicked in the middle, near the top and near the bottom, split at the click's row or
    /// elsewhere, with the halves taking over early or late, on pools of one and two threads.
    #[test]
    fn halves_driven_at_once_stop_where_the_bands_stop() {
        let cases = [
            // rows, cols, density, seed, click, split, limit (a share of the cells)
            (520, 1000, 0.12, 1, (260, 500), 260, 256),
            (520, 1000, 0.15, 2, (260, 500), 260, 64),
            (600, 1024, 0.17, 3, (20, 900), 20, 256),
            (600, 1024, 0.14, 4, (580, 10), 580, 1024),
            (2800, 130, 0.13, 5, (1400, 64), 700, 128),
            (530, 999, 0.16, 6, (300, 3), 300, 4096),
        ];
        for (rows, cols, density, seed, click, split, share) in cases {
            let (_, _, game) = clicked(rows, cols, density, seed, click);
            let twin = drive_from(&game, false, 0, 0);
            let opened = twin.2;
            assert!(
                opened > rows * cols / share,
                "{rows}x{cols} seed {seed}: the play opened only {opened} cells"
            );
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let fast = pool.install(|| drive_from(&game, true, rows * cols / share, split));
                assert!(
                    fast == twin,
                    "{rows}x{cols} seed {seed}, {threads} threads: the halves stop elsewhere"
                );
            }
        }
    }

    /// A replay from the first click, which drives the halves at once on a pool of two
    /// threads, ends as it does on one thread, where the bands are driven alone: won or
    /// stalled at the same position, with the same tallies of cells opened by each tier; and
    /// the certified boards of a repair are the same.
    #[test]
    fn replays_on_one_and_two_threads_agree() {
        for (rows, cols, density, seed) in [(520, 1000, 0.15, 7), (600, 1024, 0.13, 8)] {
            let (board, request, _) = clicked(rows, cols, density, seed, (rows / 2, cols / 2));
            let run = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| {
                    let play = replay(&board, &request, &|_| {}).unwrap();
                    let planes = play
                        .solver
                        .as_ref()
                        .map(|s| (s.mine_plane().to_vec(), s.safe_plane().to_vec()));
                    (
                        play.game.view().revealed_words().to_vec(),
                        play.won,
                        play.tally,
                        planes,
                    )
                })
            };
            let one = run(1);
            assert!(
                one.2.trivial > rows * cols / HALVES_SHARE,
                "{rows}x{cols} seed {seed}: too short a play to drive the halves"
            );
            assert!(one == run(2), "{rows}x{cols} seed {seed}");
        }
    }

    #[test]
    fn the_estimate_runs_from_zero_through_the_rounds_to_one() {
        assert_eq!(estimate(false, 0, 100, 0), 0.0);
        assert!((estimate(false, 100, 100, 0) - PLAY_SHARE).abs() < 1e-12);
        let rounds: Vec<f64> = (0..70).map(|r| estimate(false, 100, 100, r)).collect();
        assert!(rounds.windows(2).all(|w| w[0] <= w[1]), "{rounds:?}");
        assert!(rounds.iter().all(|&e| e <= 0.5));
        assert_eq!(estimate(true, 0, 100, 9), 0.5);
        assert_eq!(estimate(true, 100, 100, 9), 1.0);
        assert_eq!(estimate(true, 0, 0, 0), 1.0);
    }
}
