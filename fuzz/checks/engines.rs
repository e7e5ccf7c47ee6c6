//! The `engines` property: random games played on the word fill, the scalar fill and the
//! naive twin at once must agree after every call.
//!
//! An input is a board shape (biased toward the word edges of a padded row), mines (a list
//! or a density and a seed), a start (a plain game on that board, or a deferred game whose
//! first reveal places the mines under each [`FirstClick`] policy) and a list of operations
//! at arbitrary coordinates, off-board ones included, or at cells picked from the current
//! state so that chords and cascades happen often.
//!
//! Shared by the `engines` fuzz target and `tests/fuzz_regressions.rs`; the crate that
//! includes it needs the modules `common`, `naive` and `support` of `tests/`.

use std::collections::BTreeSet;

use arbitrary::{Arbitrary, Unstructured};
use bitmines_core::{
    Board, Cell, Error, Fill, FirstClick, Game, Placement, Placer, SeededPlacer, Status,
};
use bitmines_gen::Generator;

use crate::common::{Act, Outcome, Trio, play, play_naive};
use crate::coord::Coord;
use crate::naive::{NaiveGame, View};
use crate::support::around;

/// Sides at the word edges of a padded row (`cols + 2` bits): the right sentinel lands just
/// before, on or after a word edge, for one, two and three words a row.
const EDGES: [usize; 18] = [
    1, 2, 3, 62, 63, 64, 65, 66, 126, 127, 128, 129, 130, 190, 191, 192, 193, 194,
];

/// The longest side of a board.
const MAX_SIDE: usize = 300;

/// The most cells of a board; taller boards lose rows.
const MAX_CELLS: usize = 40_000;

/// The most calls played on one input.
const MAX_ACTS: usize = 200;

/// Cells compared per input, over all calls: each call costs three games times every cell,
/// so large boards get fewer calls and every input stays fast.
const COMPARE_BUDGET: usize = 1_500_000;

/// Calls played after a game ended: refusals are checked without spending a run on them.
const ACTS_AFTER_THE_END: usize = 2;

/// One side of a board.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub(crate) enum Side {
    /// One of [`EDGES`].
    Edge(u8),
    /// `1..=16`.
    Small(u8),
    /// `1..=MAX_SIDE`.
    Any(u16),
}

impl Side {
    fn get(self) -> usize {
        match self {
            Side::Edge(i) => EDGES[usize::from(i) % EDGES.len()],
            Side::Small(n) => 1 + usize::from(n) % 16,
            Side::Any(n) => 1 + usize::from(n) % MAX_SIDE,
        }
    }
}

/// Where the mines go.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) enum Mines {
    /// These cells, each coordinate modulo its side; repeats are dropped (and first checked
    /// to be refused as `DuplicateMine`).
    List(Vec<(u16, u16)>),
    /// `percent % 101` of the cells, placed by `SeededPlacer::new(seed)`.
    Density {
        /// The share of mines, modulo 101.
        percent: u8,
        /// The placer's seed.
        seed: u64,
    },
}

/// A first-click policy.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub(crate) enum Policy {
    /// [`FirstClick::Unprotected`].
    Unprotected,
    /// [`FirstClick::Safe`].
    Safe,
    /// [`FirstClick::Opening`].
    Opening,
}

impl Policy {
    fn get(self) -> FirstClick {
        match self {
            Policy::Unprotected => FirstClick::Unprotected,
            Policy::Safe => FirstClick::Safe,
            Policy::Opening => FirstClick::Opening,
        }
    }
}

/// The placer of a deferred game.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub(crate) enum PlacerKind {
    /// `bitmines_core::SeededPlacer`.
    Seeded,
    /// `bitmines_gen::Generator`.
    Generator,
}

/// How the games start.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub(crate) enum Start {
    /// `Game::new` on the board `mines` describe.
    Board,
    /// `Game::deferred` with as many mines as `mines` describes.
    Deferred {
        /// The first-click policy.
        policy: Policy,
        /// Which placer.
        placer: PlacerKind,
        /// The placer's seed.
        seed: u64,
    },
    /// `Game::seeded` with as many mines as `mines` describes.
    Seeded {
        /// The seed.
        seed: u64,
    },
}

/// Which call.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub(crate) enum Call {
    /// `reveal`.
    Reveal,
    /// `toggle_flag`.
    Flag,
    /// `chord`.
    Chord,
}

/// A kind of cell, looked up on the naive twin.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub(crate) enum Target {
    /// A cell with no mine.
    Safe,
    /// A mine.
    Mine,
    /// A cell neither revealed nor flagged.
    Hidden,
    /// A revealed safe cell.
    Open,
}

/// One operation, resolved against the current state into one or more calls.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub(crate) enum Op {
    /// A call at these coordinates.
    At(Call, Coord, Coord),
    /// A call on the n-th cell of a kind (modulo their number).
    Pick(Call, Target, u16),
    /// Flags exactly the mines around the n-th open cell, then chords on it.
    FlagRightThenChord(u16),
    /// Sets the flags around the n-th open cell to the bits of a mask, then chords on it, so
    /// wrong flags make mines explode.
    FlagGuessThenChord(u16, u8),
}

/// One input of the `engines` target.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) struct Input {
    rows: Side,
    cols: Side,
    mines: Mines,
    start: Start,
    ops: Vec<Op>,
}

/// Decodes `data` as libFuzzer's `fuzz_target!` does and checks it; undecodable data is
/// skipped, as the target skips it.
pub(crate) fn check_bytes(data: &[u8]) {
    if data.len() < <Input as Arbitrary>::size_hint(0).0 {
        return;
    }
    if let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) {
        check(&input);
    }
}

/// Plays `input` and panics with a description at the first disagreement.
pub(crate) fn check(input: &Input) {
    let cols = input.cols.get();
    let rows = input.rows.get().min((MAX_CELLS / cols).max(1));
    let cells = rows * cols;
    let max_acts = (COMPARE_BUDGET / (3 * cells)).clamp(8, MAX_ACTS);
    let mut ops = input.ops.iter().copied();
    let trio = match input.start {
        Start::Board => Trio::new(board(rows, cols, &input.mines)),
        Start::Deferred {
            policy,
            placer,
            seed,
        } => {
            let count = mine_count(rows, cols, &input.mines);
            let policy = policy.get();
            let games = match placer {
                PlacerKind::Seeded => deferred(rows, cols, count, policy, SeededPlacer::new(seed)),
                PlacerKind::Generator => deferred(rows, cols, count, policy, Generator::new(seed)),
            };
            match first_click(games, &mut ops) {
                Some(trio) => trio,
                None => return,
            }
        }
        Start::Seeded { seed } => {
            let count = mine_count(rows, cols, &input.mines);
            let policy = FirstClick::default();
            let count = count_that_fits(
                rows,
                cols,
                count,
                policy,
                Game::seeded(rows, cols, count, seed),
            );
            let game = Game::seeded(rows, cols, count, seed)
                .unwrap_or_else(|e| panic!("seeded {rows}x{cols}, {count} mines: {e}"));
            let games = Deferred {
                scalar: game.clone().with_fill(Fill::Scalar),
                words: game,
                count,
                policy,
                placer: Box::new(SeededPlacer::new(seed)),
            };
            match first_click(games, &mut ops) {
                Some(trio) => trio,
                None => return,
            }
        }
    };
    play_all(trio, ops, max_acts);
}

/// The board the mines describe.
fn board(rows: usize, cols: usize, mines: &Mines) -> Board {
    match mines {
        Mines::List(list) => {
            let cells: Vec<(usize, usize)> = list
                .iter()
                .map(|&(r, c)| (usize::from(r) % rows, usize::from(c) % cols))
                .collect();
            let mut seen = BTreeSet::new();
            let repeat = cells.iter().find(|&&cell| !seen.insert(cell));
            if let Some(&(row, col)) = repeat {
                assert_eq!(
                    Board::from_mines(rows, cols, cells.iter().copied()),
                    Err(Error::DuplicateMine { row, col }),
                    "a repeated mine"
                );
            }
            let mut seen = BTreeSet::new();
            let distinct = cells.into_iter().filter(|&cell| seen.insert(cell));
            Board::from_mines(rows, cols, distinct)
                .unwrap_or_else(|e| panic!("{rows}x{cols} from a list: {e}"))
        }
        Mines::Density { percent, seed } => {
            let count = rows * cols * usize::from(percent % 101) / 100;
            let board = SeededPlacer::new(*seed)
                .board(rows, cols, count)
                .unwrap_or_else(|e| panic!("{rows}x{cols}, {count} mines: {e}"));
            assert_eq!(board.mine_count(), count);
            board
        }
    }
}

/// How many mines the mines describe, for a deferred game.
fn mine_count(rows: usize, cols: usize, mines: &Mines) -> usize {
    match mines {
        Mines::List(list) => list
            .iter()
            .map(|&(r, c)| (usize::from(r) % rows, usize::from(c) % cols))
            .collect::<BTreeSet<_>>()
            .len(),
        Mines::Density { percent, .. } => rows * cols * usize::from(percent % 101) / 100,
    }
}

/// Two deferred games, one per fill, and what their first reveal must produce.
struct Deferred {
    words: Game,
    scalar: Game,
    count: usize,
    policy: FirstClick,
    placer: Box<dyn Placer>,
}

/// Deferred games for `count` mines; a count the policy cannot fit must be refused as
/// `TooManyMines`, and the games then get the most that fit.
fn deferred<P: Placer + Clone + 'static>(
    rows: usize,
    cols: usize,
    count: usize,
    policy: FirstClick,
    placer: P,
) -> Deferred {
    let first = Game::deferred(rows, cols, count, policy, placer.clone());
    let count = count_that_fits(rows, cols, count, policy, first);
    let words = Game::deferred(rows, cols, count, policy, placer.clone())
        .unwrap_or_else(|e| panic!("{rows}x{cols}, {count} mines: {e}"));
    Deferred {
        scalar: words.clone().with_fill(Fill::Scalar),
        words,
        count,
        policy,
        placer: Box::new(placer),
    }
}

/// Checks what starting a deferred game for `count` mines gave: a game if they fit the
/// policy, `TooManyMines` otherwise. Returns the count to play with: `count`, or the most
/// that fit.
fn count_that_fits(
    rows: usize,
    cols: usize,
    count: usize,
    policy: FirstClick,
    started: Result<Game, Error>,
) -> usize {
    let max = policy.max_mines(rows, cols);
    match started {
        Ok(_) => {
            assert!(count <= max, "{count} mines accepted, at most {max} fit");
            count
        }
        Err(error) => {
            let refusal = Error::TooManyMines {
                mines: count,
                max,
                rows,
                cols,
                policy,
            };
            assert_eq!(error, refusal, "{rows}x{cols} with {count} mines");
            max
        }
    }
}

/// The calls an operation makes on a deferred game before its mines exist: there is no
/// state to pick cells from, so picks count through the cells in row order.
fn resolve_deferred(op: Op, rows: usize, cols: usize) -> Vec<Act> {
    let (call, r, c) = match op {
        Op::At(call, r, c) => (call, r.get(rows), c.get(cols)),
        Op::Pick(call, _, n) => {
            let i = usize::from(n) % (rows * cols);
            (call, i / cols, i % cols)
        }
        Op::FlagRightThenChord(_) | Op::FlagGuessThenChord(..) => return Vec::new(),
    };
    vec![act(call, r, c)]
}

fn act(call: Call, r: usize, c: usize) -> Act {
    match call {
        Call::Reveal => Act::Reveal(r, c),
        Call::Flag => Act::Flag(r, c),
        Call::Chord => Act::Chord(r, c),
    }
}

/// Plays calls on the deferred games until one places the mines, checking each call against
/// what a game without mines must do. Returns the three engines on the placed board, or
/// `None` if the operations ran out first.
fn first_click(mut games: Deferred, ops: &mut impl Iterator<Item = Op>) -> Option<Trio> {
    let (rows, cols) = (games.words.rows(), games.words.cols());
    // A deferred game with no safe cell is won before any move.
    let status = if games.count == rows * cols {
        Status::Won
    } else {
        Status::Playing
    };
    let count = games.count;
    let mut flags = BTreeSet::new();
    let check_unplaced = |game: &Game, flags: &BTreeSet<(usize, usize)>| {
        assert!(game.board().is_none(), "a board before the first reveal");
        game.validate()
            .unwrap_or_else(|e| panic!("a deferred game fails validate: {e}"));
        let got = (
            game.status(),
            game.revealed_count(),
            game.flag_count(),
            game.mine_count(),
        );
        assert_eq!(got, (status, 0, flags.len(), count), "deferred game");
        for &(r, c) in flags {
            assert_eq!(game.cell(r, c), Ok(Cell::Flagged));
        }
    };
    check_unplaced(&games.words, &flags);
    for op in ops {
        for act in resolve_deferred(op, rows, cols) {
            let words = play(&mut games.words, act);
            let scalar = play(&mut games.scalar, act);
            assert_eq!(words, scalar, "{act:?} on the deferred games");
            let (Act::Reveal(r, c) | Act::Flag(r, c) | Act::Chord(r, c)) = act;
            let on_board = r < rows && c < cols;
            let expected = if status != Status::Playing {
                Some(Err(Error::GameOver { status }))
            } else if !on_board {
                Some(Err(Error::OffBoard {
                    row: r,
                    col: c,
                    rows,
                    cols,
                }))
            } else {
                match act {
                    Act::Flag(..) => {
                        let now = if flags.remove(&(r, c)) {
                            false
                        } else {
                            flags.insert((r, c))
                        };
                        Some(Ok(Outcome::Flagged(now)))
                    }
                    Act::Chord(..) => Some(Ok(Outcome::Opened(0, Status::Playing))),
                    Act::Reveal(..) if flags.contains(&(r, c)) => {
                        Some(Ok(Outcome::Opened(0, Status::Playing)))
                    }
                    Act::Reveal(..) => None,
                }
            };
            if let Some(expected) = expected {
                assert_eq!(words, expected, "{act:?} on the deferred game");
                check_unplaced(&games.words, &flags);
                check_unplaced(&games.scalar, &flags);
                continue;
            }
            return Some(placed(games, &flags, act, words));
        }
    }
    None
}

/// Checks the board the first reveal `act` placed, and sets up the three engines on it with
/// the flags set before it.
fn placed(
    games: Deferred,
    flags: &BTreeSet<(usize, usize)>,
    act: Act,
    result: Result<Outcome, Error>,
) -> Trio {
    let (rows, cols) = (games.words.rows(), games.words.cols());
    let Act::Reveal(r, c) = act else {
        unreachable!("only a reveal places mines")
    };
    let board = games
        .words
        .board()
        .unwrap_or_else(|| panic!("no board after the first reveal at ({r}, {c}): {result:?}"));
    let scalar_board = games
        .scalar
        .board()
        .expect("a board after the first reveal");
    assert_eq!(board, scalar_board, "the two fills placed different boards");
    let zone = games
        .policy
        .zone(rows, cols, r, c)
        .unwrap_or_else(|e| panic!("zone of ({r}, {c}): {e}"));
    assert_eq!(board.mine_count(), games.count, "mines placed");
    for (zr, zc) in zone.cells() {
        assert_eq!(
            board.is_mine(zr, zc),
            Ok(false),
            "a mine in the zone at ({zr}, {zc})"
        );
    }
    let request = Placement::new(rows, cols, games.count, zone);
    let again = games
        .placer
        .place(&request)
        .unwrap_or_else(|e| panic!("placing again: {e}"));
    assert_eq!(**board, again, "the placer is not deterministic");

    let mut naive = NaiveGame::from_board(board);
    for &(fr, fc) in flags {
        assert_eq!(naive.toggle_flag(fr, fc), Ok(true));
    }
    assert_eq!(result, play_naive(&mut naive, act), "the first reveal");
    let trio = Trio {
        words: games.words,
        scalar: games.scalar,
        naive,
    };
    trio.check_numbers().unwrap_or_else(|e| panic!("{e}"));
    trio.compare()
        .unwrap_or_else(|e| panic!("after the first reveal {act:?}: {e}"));
    trio
}

/// Plays the remaining operations on the three engines, comparing after every call.
fn play_all(mut trio: Trio, ops: impl Iterator<Item = Op>, max_acts: usize) {
    let mut played = 0;
    let mut after_end = 0;
    for op in ops {
        for act in resolve(&trio, op) {
            if played == max_acts || after_end == ACTS_AFTER_THE_END {
                return;
            }
            if trio.naive.status() != Status::Playing {
                after_end += 1;
            }
            played += 1;
            if let Err(e) = trio.apply(act) {
                panic!("call {played}: {e}");
            }
        }
    }
}

/// The calls an operation makes on the current state.
fn resolve(trio: &Trio, op: Op) -> Vec<Act> {
    let naive = &trio.naive;
    let (rows, cols) = (naive.rows(), naive.cols());
    let nth = |n: u16, wanted: &dyn Fn(usize, usize) -> bool| {
        let cells: Vec<(usize, usize)> = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .filter(|&(r, c)| wanted(r, c))
            .collect();
        (!cells.is_empty()).then(|| cells[usize::from(n) % cells.len()])
    };
    let open = |r: usize, c: usize| naive.view(r, c) == View::Revealed && !naive.is_mine(r, c);
    match op {
        Op::At(call, r, c) => vec![act(call, r.get(rows), c.get(cols))],
        Op::Pick(call, target, n) => {
            let wanted = |r: usize, c: usize| match target {
                Target::Safe => !naive.is_mine(r, c),
                Target::Mine => naive.is_mine(r, c),
                Target::Hidden => naive.view(r, c) == View::Hidden,
                Target::Open => open(r, c),
            };
            nth(n, &wanted)
                .map(|(r, c)| act(call, r, c))
                .into_iter()
                .collect()
        }
        Op::FlagRightThenChord(n) => {
            let Some((r, c)) = nth(n, &|r, c| open(r, c) && naive.number(r, c) > 0) else {
                return Vec::new();
            };
            let mut acts: Vec<Act> = naive
                .wrong_flags_around(r, c)
                .into_iter()
                .map(|(nr, nc)| Act::Flag(nr, nc))
                .collect();
            acts.push(Act::Chord(r, c));
            acts
        }
        Op::FlagGuessThenChord(n, mask) => {
            let Some((r, c)) = nth(n, &|r, c| open(r, c) && naive.number(r, c) > 0) else {
                return Vec::new();
            };
            let mut acts: Vec<Act> = around(rows, cols, r, c)
                .into_iter()
                .enumerate()
                .filter(|&(i, (nr, nc))| {
                    let want = mask >> i & 1 == 1;
                    match naive.view(nr, nc) {
                        View::Hidden => want,
                        View::Flagged => !want,
                        View::Revealed => false,
                    }
                })
                .map(|(_, (nr, nc))| Act::Flag(nr, nc))
                .collect();
            acts.push(Act::Chord(r, c));
            acts
        }
    }
}
