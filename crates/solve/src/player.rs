//! A player that sees only the view: it makes every move the solver proves, and guesses
//! by exact probability when nothing is proven.
//!
//! A step reveals every cell the solver proves safe, or the guess its `Policy` picks from the
//! exact probabilities. `Player::play` keeps one solver across the moves the trivial and pair
//! rules prove (`update`, then batch reveals of `safe_plane`), and steps with a fresh solver
//! only when they stall, so its games are those of a loop of steps (tested).
//!
//! `fifty_fifty` finds an unavoidable 50/50 among the cells at one half: a pair within two
//! cells of each other (or both walled in by proven mines) whose other neighbours differ only
//! by proven mines, confirmed by one more solve that assumes the first a mine and must prove
//! the second safe; the look-ahead passes over dead cells (one number possible) by the
//! numbers it already solves for. Both are checked against the brute force's definition over
//! every layout.
//!
//! The look-ahead takes candidates safest first (up to [`LOOKAHEAD`] = 20; among equally safe
//! cells, the fewest undecided neighbours first, so corners and then edges) and stops at the
//! first whose chance of being safe is no better than the best score so far, since a score is
//! that chance times a safety. Under `Policy::Full` (with an exact count) it takes a wider set
//! with no limit (the safest cell, frontier cells within 90% of its chance of being safe, and,
//! when the cells touching no number come within 95%, those two cells straight across from a
//! number and those with two or three hidden neighbours) and multiplies each score by the
//! cell's 50/50 factor from `risk`; the stop then allows for the largest factor a cell so safe
//! could have (`1 - p + 0.9 min(p, 1 - p)`, which falls as `p` rises). `Policy::Full` plays
//! the end game exactly (`endgame`) once few layouts remain.

use bitmines_core::{AsView, Cell, Game, Position, Status, View};

use crate::endgame::{self, ENDGAME, Layouts, around};
use crate::risk::Shares;
use crate::{Error, Solver};

/// How the player picks a guess when the solver proves no cell safe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Policy {
    /// The hidden cell least likely to be a mine; ties go to the first, row by row.
    Safest,
    /// Among the cells within [`NEAR`] of the safest, the one most likely to show a zero
    /// and open a region (estimated as the product, over its undecided neighbours, of the
    /// chance each is safe, which treats them as independent); ties go to the cell with the
    /// fewest neighbours (corners, then edges), then the first, row by row. So far it wins
    /// less often than [`Policy::Safest`] on expert (see the README's table).
    Tiebreak,
    /// Look one move ahead. Cells are taken safest first (among equally safe ones, those
    /// with the fewest undecided neighbours first, so corners then edges, then row by row),
    /// up to [`LOOKAHEAD`] of them; for each, every number it may show is put on a copy of
    /// the view and solved again. The cell's score is the chance it is safe times the
    /// expected safety of the move after it, each number weighted by the layouts that show
    /// it. That safety blends the chances of the two safest moves there, four parts the
    /// best to one part the next, where a cell then proven safe beside an undecided one
    /// (so revealing it may teach something) is a move safe for sure: two such cells make
    /// it 1, one makes it four fifths plus a fifth of the best guess's chance. The highest
    /// score wins, ties to the cell taken first. The rest are skipped once a cell's chance
    /// of being safe is no better than the best score found (its score could not beat it).
    Lookahead,
    /// [`Policy::Lookahead`] with forced guesses first and dead cells last. A forced guess
    /// is an unavoidable 50/50: two undecided cells holding exactly one mine in every
    /// layout, whose neighbours differ only by proven mines, so that no reveal can ever
    /// tell them apart; it must be taken some time, and taken now it may teach something.
    /// A dead cell is one that can show only one number, so revealing it teaches nothing;
    /// it is looked ahead from only when every candidate is dead.
    Unavoidable,
    /// [`Policy::Unavoidable`], and when the view allows at most [`ENDGAME`] layouts of the
    /// mines, exact end-game play instead: every layout is enumerated and the guess is the
    /// cell with the best chance of winning the game with best play after it (what each
    /// reveal shows, cascades included); ties go to the safer cell, then the first. Past its
    /// budget of sets of layouts, the look-ahead guess.
    ///
    /// Its look-ahead also weighs long-term risk. Each candidate's score is multiplied by
    /// `1 + 0.9 * s / (1 - p)`, where `s` is the cell's share of layouts in which it lies
    /// in a 50/50 no reveal could settle
    /// ([`fifty_fifty_influence`](crate::fifty_fifty_influence), at most `p` and `1 - p`):
    /// a guess there must be taken some time anyway. And it looks ahead from a wider set
    /// of cells, with no [`LOOKAHEAD`] limit: the safest cell, every frontier cell at least
    /// 90% as likely to be safe as the safest cell, and, when the cells touching no number
    /// are more than 95% as likely, those of them two cells straight across from a number
    /// (whose reveal may settle part of the frontier) and those with two or three hidden
    /// neighbours (corners and tight spots, likeliest to open), or all of them when they
    /// are fewer than 30. Without an exact count of the layouts, the plain look-ahead. The
    /// strongest policy, and the default.
    #[default]
    Full,
}

/// The most of the safest cells [`Policy::Lookahead`] looks ahead from.
pub const LOOKAHEAD: usize = 20;

/// How much riskier than the safest cell a [`Policy::Tiebreak`] candidate may be.
pub const NEAR: f64 = 1e-9;

/// A guess: the cell revealed and the probability it was a mine when it was taken.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Guess {
    /// The cell, `(row, col)`.
    pub cell: (usize, usize),
    /// The exact probability that it held a mine (given the view and the mine count).
    pub mine: f64,
}

/// One move of the player.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Move {
    /// Every cell the solver proved safe was revealed (this many).
    Proven(usize),
    /// Nothing was proven safe: this guess was revealed.
    Guess(Guess),
}

/// A game played to its end.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Whether the game was won.
    pub won: bool,
    /// The guesses, in order; a lost game was lost on the last one.
    pub guesses: Vec<Guess>,
    /// Cells the solver proved safe before they were revealed (cells opened only by a
    /// cascade are not counted).
    pub proven: usize,
}

/// A player on the solver, with a guess [`Policy`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Player {
    policy: Policy,
}

impl Player {
    /// A player guessing by `policy`.
    pub fn new(policy: Policy) -> Player {
        Player { policy }
    }

    /// Its guess policy.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Plays `game` to its end, one [`Player::step`] at a time.
    pub fn play(&self, game: &mut Game) -> Result<Outcome, Error> {
        let mut outcome = Outcome {
            won: false,
            guesses: Vec::new(),
            proven: 0,
        };
        // The trivial and pair rules run on one solver kept across moves, which sweeps only
        // what each move changed; only when they stall does the move run the exact tier
        // ([`Player::step`]). The cells revealed before each guess are the same either way
        // (every cell that can be proven), so the games are the same, only faster.
        let mut kept: Option<Solver> = None;
        while game.status() == Status::Playing {
            if game.revealed_count() > 0 {
                let mut solver = match kept.take() {
                    Some(mut solver) => {
                        solver.update(game)?;
                        solver
                    }
                    None => Solver::new(game)?,
                };
                // Sweep until a sweep proves a safe cell (revealed at once) or proves
                // nothing; only then the pair rule, which most moves do not need.
                while solver.sweep()? > 0 && !solver.proves_safe() {}
                if !solver.proves_safe() {
                    solver.deduce()?;
                }
                if solver.proves_safe() {
                    let safe: usize = solver
                        .safe_plane()
                        .iter()
                        .map(|w| w.count_ones() as usize)
                        .sum();
                    // Flagged cells stay hidden: if only they are left, solve afresh below.
                    if game.reveal_cells(solver.safe_plane())?.opened > 0 {
                        outcome.proven += safe;
                        kept = Some(solver);
                        continue;
                    }
                }
            }
            // A fresh solver for the exact tier: one that kept the cheaper tiers' proofs
            // reaches the same cells but may round the probabilities differently, and so
            // break ties between equally safe guesses differently.
            kept = None;
            match self.step(game)? {
                Move::Proven(n) => outcome.proven += n,
                Move::Guess(guess) => outcome.guesses.push(guess),
            }
        }
        outcome.won = game.status() == Status::Won;
        Ok(outcome)
    }

    /// One move: reveal every cell the solver proves safe, or, when it proves none, the
    /// guess the policy picks. The first click of a game with nothing revealed is a guess
    /// like any other. A game that is over is `Error::Finished`.
    pub fn step(&self, game: &mut Game) -> Result<Move, Error> {
        if game.status() != Status::Playing {
            return Err(Error::Finished {
                status: game.status(),
            });
        }
        let solution = Solver::new(game)?.solve_with(false)?;
        let safe: Vec<(usize, usize)> = solution.certain.safe().collect();
        if !safe.is_empty() {
            let mut revealed = 0;
            for (r, c) in safe {
                if game.status() != Status::Playing {
                    break;
                }
                if game.cell(r, c)? == Cell::Hidden {
                    game.reveal(r, c)?;
                    revealed += 1;
                }
            }
            return Ok(Move::Proven(revealed));
        }
        let odds = &solution.probabilities;
        // Every undecided hidden cell with its probability, row by row.
        let cells = undecided(&solution);
        let Some(safest) = cells.iter().map(|&(_, p)| p).reduce(f64::min) else {
            return Err(Error::Finished {
                status: game.status(),
            });
        };
        let pick = match self.policy {
            Policy::Safest => cells.iter().find(|&&(_, p)| p == safest).copied(),
            Policy::Tiebreak => {
                let score = |&((r, c), _): &Candidate| -> Result<(f64, usize), Error> {
                    let mut zero = 1.0;
                    let mut neighbours = 0;
                    for (nr, nc) in around(game.rows(), game.cols(), r, c) {
                        neighbours += 1;
                        if solution.certain.verdict(nr, nc)?.is_none() {
                            zero *= 1.0 - odds.mine(nr, nc)?;
                        } else if solution.certain.verdict(nr, nc)? == Some(true) {
                            zero = 0.0;
                        }
                    }
                    Ok((zero, neighbours))
                };
                let mut best: Option<(&Candidate, (f64, usize))> = None;
                for cell in cells.iter().filter(|&&(_, p)| p <= safest + NEAR) {
                    let s = score(cell)?;
                    let better = match best {
                        None => true,
                        Some((_, b)) => s.0 > b.0 || (s.0 == b.0 && s.1 < b.1),
                    };
                    if better {
                        best = Some((cell, s));
                    }
                }
                best.map(|(&cell, _)| cell)
            }
            Policy::Lookahead => look_ahead(game, &solution, &cells, false, false)?,
            Policy::Unavoidable | Policy::Full => {
                let mut pick =
                    forced(&game.view(), &solution, &cells)?.map(|([cell, _], p)| (cell, p));
                if pick.is_none() && self.policy == Policy::Full {
                    pick = end_game(game, &solution)?;
                }
                match pick {
                    Some(pick) => Some(pick),
                    None => {
                        let long_term = self.policy == Policy::Full;
                        look_ahead(game, &solution, &cells, true, long_term)?
                    }
                }
            }
        };
        let Some((cell, mine)) = pick else {
            return Err(Error::Finished {
                status: game.status(),
            });
        };
        game.reveal(cell.0, cell.1)?;
        Ok(Move::Guess(Guess { cell, mine }))
    }
}

/// The [`Policy::Full`] pick when the view allows at most [`ENDGAME`] layouts, with its
/// mine probability; `None` when it allows more, or the search runs past its budget.
fn end_game(game: &Game, solution: &crate::Solution) -> Result<Option<Candidate>, Error> {
    let odds = &solution.probabilities;
    let few = odds.exact()
        && odds
            .log10_layouts()
            .is_some_and(|log| log <= (ENDGAME as f64).log10() + 1e-9);
    if !few {
        return Ok(None);
    }
    let Some(layouts) = Layouts::of(&game.view(), &solution.certain)? else {
        return Ok(None);
    };
    match endgame::best(&layouts) {
        Some((cell, _, _)) => Ok(Some((cell, odds.mine(cell.0, cell.1)?))),
        None => Ok(None),
    }
}

/// The [`Policy::Lookahead`] pick among `cells` (undecided cells with their probability).
/// With `skip_dead`, cells that can show only one number are passed over (they do not
/// count towards the [`LOOKAHEAD`] looked at), unless every cell looked at is dead. With
/// `long_term` (and an exact count), [`Policy::Full`]'s wider candidates and 50/50 factor.
fn look_ahead(
    game: &Game,
    solution: &crate::Solution,
    cells: &[Candidate],
    skip_dead: bool,
    long_term: bool,
) -> Result<Option<Candidate>, Error> {
    let certain = &solution.certain;
    let view = game.view();
    let base = Position::of(&view)?;
    let mut shares = if long_term {
        Shares::new(&view, &base, solution)?
    } else {
        None
    };
    // Safest first; among equally safe cells (off the frontier, most often), those with the
    // fewest undecided neighbours (corners, then edges), which most often show a zero.
    let mut keyed: Vec<(Candidate, usize)> = Vec::with_capacity(cells.len());
    for &(cell, p) in cells {
        keyed.push(((cell, p), undecided_around(game, certain, cell)?));
    }
    keyed.sort_by(|a, b| a.0.1.total_cmp(&b.0.1).then(a.1.cmp(&b.1)));
    let mut candidates: Vec<Candidate> = keyed.into_iter().map(|(cell, _)| cell).collect();
    let limit = if shares.is_some() {
        candidates = wide(&view, &candidates)?;
        usize::MAX
    } else {
        // Dead cells looked at beyond the live ones: a bound on the solves they cost.
        let spare = if skip_dead { LOOKAHEAD } else { 0 };
        candidates.truncate(LOOKAHEAD + spare);
        LOOKAHEAD
    };
    let mut best: Option<(Candidate, f64)> = None;
    let mut best_dead: Option<(Candidate, f64)> = None;
    let mut live = 0;
    for &(cell, p) in &candidates {
        // A score is at most the chance of being safe times the 50/50 factor, which is at
        // most 1 - p + 0.9 * min(p, 1 - p): that falls as p rises, so the later cells,
        // no safer, cannot beat a best score that reaches it.
        let bound = if shares.is_some() {
            1.0 - p + INFLUENCE * p.min(1.0 - p)
        } else {
            1.0 - p
        };
        if live == limit || best.is_some_and(|(_, score)| bound <= score) {
            break;
        }
        let factor = match shares.as_mut() {
            Some(shares) if p < 1.0 => match shares.influence(cell)? {
                Some(share) => 1.0 + INFLUENCE * share.min(p).min(1.0 - p) / (1.0 - p),
                None => 1.0,
            },
            _ => 1.0,
        };
        if best.is_some_and(|(_, score)| (1.0 - p) * factor <= score) {
            continue;
        }
        // (ln of the layouts showing n, safety of the best next move) for each number n.
        let mut outcomes: Vec<(f64, f64)> = Vec::new();
        // Only numbers between the proven mines around the cell and those plus its
        // undecided neighbours can show; the others have no layout, so are not solved.
        let (mut mines, mut open) = (0u8, 0u8);
        for (nr, nc) in around(game.rows(), game.cols(), cell.0, cell.1) {
            match certain.verdict(nr, nc)? {
                Some(true) => mines += 1,
                None => open += 1,
                Some(false) => {}
            }
        }
        for n in mines..=mines + open {
            let mut position = base.clone();
            position.reveal(cell.0, cell.1, n)?;
            let Ok(solution) = Solver::new(&position).and_then(|s| s.solve_with(false)) else {
                continue; // no layout shows n there
            };
            let Some(log10) = solution.probabilities.log10_layouts() else {
                continue;
            };
            // The two best chances of a safe move next, blended four to one; a cell
            // proven safe beside an undecided one is a sure move that may teach something.
            let sure = teaching_safe(game, &solution.certain, 2)?;
            let (mut first, mut second) = match sure {
                0 => (0.0f64, 0.0f64),
                1 => (1.0, 0.0),
                _ => (1.0, 1.0),
            };
            if sure < 2 {
                for (_, p) in undecided(&solution) {
                    let safe = 1.0 - p;
                    if safe > first {
                        (first, second) = (safe, first);
                    } else if safe > second {
                        second = safe;
                    }
                }
            }
            let next = (4.0 * first + second) / 5.0;
            outcomes.push((log10 * std::f64::consts::LN_10, next));
        }
        let shown = outcomes.len();
        let top = outcomes
            .iter()
            .map(|o| o.0)
            .fold(f64::NEG_INFINITY, f64::max);
        let (mut weight, mut value) = (0.0, 0.0);
        for (ln, next) in outcomes {
            let w = (ln - top).exp();
            weight += w;
            value += w * next;
        }
        let score = factor
            * if weight > 0.0 {
                (1.0 - p) * value / weight
            } else {
                1.0 - p
            };
        let slot = if skip_dead && shown < 2 {
            &mut best_dead
        } else {
            live += 1;
            &mut best
        };
        if slot.is_none_or(|(_, s)| score > s) {
            *slot = Some(((cell, p), score));
        }
    }
    Ok(best.or(best_dead).map(|(cell, _)| cell))
}

/// The weight of a cell's share of layouts in a 50/50
/// ([`fifty_fifty_influence`](crate::fifty_fifty_influence)) in [`Policy::Full`]'s
/// look-ahead score.
const INFLUENCE: f64 = 0.9;

/// How likely to be safe, as a share of the safest cell's chance, a frontier cell must be
/// to be a candidate of [`Policy::Full`]'s look-ahead.
const FRONTIER_SHARE: f64 = 0.9;

/// How likely to be safe, as a share of the safest cell's chance, the cells touching no
/// number must be (strictly) for some of them to be candidates.
const OFF_SHARE: f64 = 0.95;

/// Below this many cells touching no number, all of them are candidates.
const FEW_OFF: usize = 30;

/// [`Policy::Full`]'s look-ahead candidates among `sorted` (every undecided cell, safest
/// first), in the same order: the first cell, the frontier cells at least
/// [`FRONTIER_SHARE`] as likely to be safe as it; and, when the cells touching no number
/// are more than [`OFF_SHARE`] as likely, those of them two cells straight across from a revealed cell
/// next to an undecided one, and those with two or three hidden neighbours (all of them
/// when they are fewer than [`FEW_OFF`]).
fn wide(view: &View<'_>, sorted: &[Candidate]) -> Result<Vec<Candidate>, Error> {
    let (rows, cols) = (view.rows(), view.cols());
    let Some(&(_, safest)) = sorted.first() else {
        return Ok(Vec::new());
    };
    let best = 1.0 - safest;
    // Which candidates touch a revealed cell, and which revealed cells touch a candidate.
    let mut frontier = Vec::with_capacity(sorted.len());
    let mut witnesses: Vec<(usize, usize)> = Vec::new();
    for &(cell, _) in sorted {
        let mut touches = false;
        for (r, c) in around(rows, cols, cell.0, cell.1) {
            if view.is_revealed(r, c)? {
                touches = true;
                witnesses.push((r, c));
            }
        }
        frontier.push(touches);
    }
    // The cells touching no number: how many, and the safest one's chance of being safe.
    let mut off = sorted
        .iter()
        .zip(&frontier)
        .filter(|&(_, &touches)| !touches);
    let take_off = off
        .next()
        .is_some_and(|(&(_, p), _)| 1.0 - p > best * OFF_SHARE);
    let few = off.count() + 1 < FEW_OFF;
    // Off-frontier cells two straight steps from a witness.
    let mut across: Vec<(usize, usize)> = Vec::new();
    if take_off && !few {
        witnesses.sort_unstable();
        witnesses.dedup();
        for &(r, c) in &witnesses {
            for (dr, dc) in [(2isize, 0isize), (-2, 0), (0, 2), (0, -2)] {
                let (Some(nr), Some(nc)) = (r.checked_add_signed(dr), c.checked_add_signed(dc))
                else {
                    continue;
                };
                if nr < rows && nc < cols {
                    across.push((nr, nc));
                }
            }
        }
        across.sort_unstable();
        across.dedup();
    }
    let mut wide = Vec::new();
    for (k, (&(cell, p), &touches)) in sorted.iter().zip(&frontier).enumerate() {
        let keep = if k == 0 || touches {
            1.0 - p >= best * FRONTIER_SHARE
        } else if !take_off {
            false
        } else if few || across.binary_search(&cell).is_ok() {
            true
        } else {
            let mut hidden = 0;
            for (r, c) in around(rows, cols, cell.0, cell.1) {
                hidden += usize::from(!view.is_revealed(r, c)?);
            }
            (2..=3).contains(&hidden)
        };
        if keep {
            wide.push((cell, p));
        }
    }
    Ok(wide)
}

/// How many hidden cells next to an undecided one `certain` proves safe, counting to
/// `most` at most: revealing one may tell something new (a proven cell whose neighbours
/// are all decided shows a number known already).
fn teaching_safe(game: &Game, certain: &crate::Certain, most: usize) -> Result<usize, Error> {
    let mut found = 0;
    for cell in certain.safe() {
        if found == most {
            break;
        }
        if undecided_around(game, certain, cell)? > 0 {
            found += 1;
        }
    }
    Ok(found)
}

/// How many of `cell`'s neighbours `certain` leaves undecided.
fn undecided_around(
    game: &Game,
    certain: &crate::Certain,
    (r, c): (usize, usize),
) -> Result<usize, Error> {
    let mut open = 0;
    for (nr, nc) in around(game.rows(), game.cols(), r, c) {
        open += usize::from(certain.verdict(nr, nc)?.is_none());
    }
    Ok(open)
}

/// The first unavoidable 50/50 of a position, row by row, if it has one: two undecided
/// cells that hold exactly one mine between them in every layout the view allows, and
/// whose neighbours, other than each other, differ only by proven mines. Every number
/// revealed later counts both or neither, so no play can ever tell them apart: one of them
/// must be guessed, at even odds, some time. [`Policy::Unavoidable`] guesses the first
/// cell at once, since the number it shows may help elsewhere.
///
/// Found among the cells the exact tier puts at one half; past the exact tier's budget, or
/// past [`FORCED_CHECKS`] candidate pairs, a pair may be missed (never wrongly named). A
/// lost game is `Error::Finished`.
///
/// ```
/// use bitmines_core::Position;
/// // The 1s put one mine in (0, 0) or (0, 1), and nothing else can ever tell them apart.
/// let position: Position = "bitmines view 3x2 mines 1\n##\n11\n00\n".parse()?;
/// assert_eq!(bitmines_solve::fifty_fifty(&position)?, Some([(0, 0), (0, 1)]));
///
/// // Here (0, 3) may one day tell (0, 0) from (0, 2): a 50/50 now, but not forever.
/// let position: Position = "bitmines view 1x8 mines 2\n#1####1#\n".parse()?;
/// assert_eq!(bitmines_solve::fifty_fifty(&position)?, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn fifty_fifty(
    position: &(impl AsView + ?Sized),
) -> Result<Option<[(usize, usize); 2]>, Error> {
    let view = position.view();
    let solution = Solver::new(&view)?.solve_with(false)?;
    let cells = undecided(&solution);
    Ok(forced(&view, &solution, &cells)?.map(|(pair, _)| pair))
}

/// The most pairs [`fifty_fifty`] confirms with a solve of their own, so that a position
/// with many cells at one half costs a bounded number of solves.
pub const FORCED_CHECKS: usize = 16;

/// [`fifty_fifty`] given the position's solution and its undecided `cells` with their
/// probabilities: the pair, and the first cell's probability.
fn forced(
    view: &View<'_>,
    solution: &crate::Solution,
    cells: &[Candidate],
) -> Result<Option<(Pair, f64)>, Error> {
    let halves: Vec<(usize, usize)> = cells
        .iter()
        .filter(|&&(_, p)| (p - 0.5).abs() <= NEAR)
        .map(|&(cell, _)| cell)
        .collect();
    let (rows, cols) = (view.rows(), view.cols());
    let certain = &solution.certain;
    let mut checks = 0;
    for (i, &a) in halves.iter().enumerate() {
        // Cells more than two apart share no neighbour, so they pair only when both are
        // walled in by proven mines (and the edges).
        let mut walled = true;
        for (r, c) in around(rows, cols, a.0, a.1) {
            walled &= certain.verdict(r, c)? == Some(true);
        }
        for &b in halves.get(i + 1..).unwrap_or_default() {
            let near = b.0 <= a.0 + 2 && b.1.abs_diff(a.1) <= 2;
            if !near && !walled && b.0 > a.0 + 2 {
                break; // row by row: every later cell is farther still
            }
            if (!near && !walled) || !told_apart_by_mines_only(rows, cols, certain, a, b)? {
                continue;
            }
            if checks == FORCED_CHECKS {
                return Ok(None);
            }
            checks += 1;
            let mut solver = Solver::new(view)?;
            solver.assume_mine(a.0, a.1)?;
            let Ok(assumed) = solver.solve_with(false) else {
                continue;
            };
            if assumed.certain.verdict(b.0, b.1)? == Some(false) {
                return Ok(Some(([a, b], solution.probabilities.mine(a.0, a.1)?)));
            }
        }
    }
    Ok(None)
}

/// Whether every cell next to exactly one of `a` and `b`, other than `a` and `b`
/// themselves, is a proven mine.
fn told_apart_by_mines_only(
    rows: usize,
    cols: usize,
    certain: &crate::Certain,
    a: (usize, usize),
    b: (usize, usize),
) -> Result<bool, Error> {
    let near =
        |x: (usize, usize), y: (usize, usize)| x.0.abs_diff(y.0) <= 1 && x.1.abs_diff(y.1) <= 1;
    for (x, y) in [(a, b), (b, a)] {
        for cell in around(rows, cols, x.0, x.1) {
            if near(cell, y) {
                continue;
            }
            if certain.verdict(cell.0, cell.1)? != Some(true) {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Two cells, `(row, col)` each.
type Pair = [(usize, usize); 2];

/// A hidden cell and its mine probability.
type Candidate = ((usize, usize), f64);

/// Every undecided hidden cell of `solution` with its probability, row by row (read from
/// the planes a word at a time): the frontier's cells with their own, merged in order with
/// the others at the off-frontier probability (the same values as
/// [`crate::Probabilities::mine`], without a search per cell).
fn undecided(solution: &crate::Solution) -> Vec<Candidate> {
    let odds = &solution.probabilities;
    let mut frontier = odds.frontier().peekable();
    solution
        .certain
        .undecided()
        .map(|cell| match frontier.peek() {
            Some(&(at, p)) if at == cell => {
                frontier.next();
                (cell, p)
            }
            _ => (cell, odds.off_frontier()),
        })
        .collect()
}
