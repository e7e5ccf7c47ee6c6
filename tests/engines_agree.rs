//! Differential tests: the word-parallel fill, the scalar fill and the naive twin must agree
//! on every move of every game, under both rules (`Rule::Classic` and `Rule::Endless`).
//!
//! Boards come in shapes chosen to stress the padded layout: each padded row holds
//! `cols + 2` bits, so widths 62 and 63 put the right sentinel on either side of a 64-bit word
//! edge, and widths 126 to 129 do the same for the second word. Thin `1 x N` and `N x 1`
//! boards have cells whose neighbours are almost all sentinels.

// Each test crate uses only part of the shared harness and of the twin.
#[allow(dead_code)]
mod common;
#[allow(dead_code)]
mod naive;

use bitmines_core::{Board, Rule, Status};
use proptest::prelude::*;

use common::{Act, Trio};
use naive::View;

/// Widths around the 64-bit word edges of a padded row, plus the thinnest boards.
const WIDTHS: [usize; 12] = [1, 2, 3, 61, 62, 63, 64, 65, 126, 127, 128, 129];

/// Widths of three to five words a row, where one run of zero cells can cross several words.
const WIDER: [usize; 6] = [190, 191, 192, 254, 255, 300];

/// How a move chooses its cell. Picks other than `At` are resolved against the current game,
/// so random moves keep finding safe cells to reveal and revealed cells to chord on.
#[derive(Debug, Clone, Copy)]
enum Pick {
    /// These coordinates, which may be off the board.
    At(usize, usize),
    /// The n-th safe cell (modulo their number).
    Safe(usize),
    /// The n-th mine (modulo their number).
    Mine(usize),
    /// The n-th revealed safe cell (modulo their number), or failing that the n-th safe cell.
    Open(usize),
}

/// Which call a move makes.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// One reveal.
    Reveal,
    /// One flag toggle.
    Flag,
    /// One chord, on the flags as they are.
    Chord,
    /// Flags exactly the mines around the cell (unflagging anything else), then chords, so the
    /// chord opens cells.
    FlagRightThenChord,
    /// Clears the flags around the cell and flags as many of its hidden neighbours as its
    /// number, chosen by `n` and often wrongly, then chords, so mines may explode.
    FlagGuessThenChord(usize),
    /// Reveals at once, with the batch move, the cells of a rectangle around the cell, `n`
    /// choosing its size; its mines explode too unless `n` is even, which leaves them out.
    Batch(usize),
}

/// One random move: a call and how it picks its cell.
#[derive(Debug, Clone, Copy)]
struct Move {
    kind: Kind,
    pick: Pick,
}

/// One concrete step on the trio.
#[derive(Debug, Clone)]
enum Step {
    /// A single call, on all three engines.
    Act(Act),
    /// A batch reveal of these cells, all on the board.
    Batch(Vec<(usize, usize)>),
}

/// Turns a move into concrete steps on the trio's current state.
fn resolve(trio: &Trio, mv: Move) -> Vec<Step> {
    let naive = &trio.naive;
    let (rows, cols) = (naive.rows(), naive.cols());
    if let Kind::Batch(n) = mv.kind {
        let (r, c) = match resolve_acts(
            trio,
            Move {
                kind: Kind::Reveal,
                pick: mv.pick,
            },
        )[..]
        {
            [Act::Reveal(r, c)] => (r.min(rows - 1), c.min(cols - 1)),
            _ => (0, 0),
        };
        let (tall, wide) = ((n >> 1) % 4, (n >> 3) % 6);
        let cells = (r.saturating_sub(tall)..(r + tall + 1).min(rows))
            .flat_map(|r| (c.saturating_sub(wide)..(c + wide + 1).min(cols)).map(move |c| (r, c)))
            .filter(|&(r, c)| n % 2 == 1 || !naive.is_mine(r, c))
            .collect();
        return vec![Step::Batch(cells)];
    }
    resolve_acts(trio, mv).into_iter().map(Step::Act).collect()
}

/// Turns a move other than a batch into concrete actions on the trio's current state.
fn resolve_acts(trio: &Trio, mv: Move) -> Vec<Act> {
    let naive = &trio.naive;
    let (rows, cols) = (naive.rows(), naive.cols());
    let cells = (0..rows).flat_map(|r| (0..cols).map(move |c| (r, c)));
    let nth = |filter: &dyn Fn(&(usize, usize)) -> bool, n: usize| {
        let matching: Vec<_> = cells.clone().filter(|cell| filter(cell)).collect();
        (!matching.is_empty()).then(|| matching[n % matching.len()])
    };
    let safe = |&(r, c): &(usize, usize)| !naive.is_mine(r, c);
    let (r, c) = match mv.pick {
        Pick::At(r, c) => (r, c),
        Pick::Safe(n) => nth(&safe, n).unwrap_or((0, 0)),
        Pick::Mine(n) => nth(&|&(r, c)| naive.is_mine(r, c), n).unwrap_or((0, 0)),
        Pick::Open(n) => nth(
            &|&(r, c)| safe(&(r, c)) && naive.view(r, c) == View::Revealed,
            n,
        )
        .or_else(|| nth(&safe, n))
        .unwrap_or((0, 0)),
    };
    let on_board = r < rows && c < cols;
    match mv.kind {
        Kind::Reveal => vec![Act::Reveal(r, c)],
        Kind::Flag => vec![Act::Flag(r, c)],
        Kind::Chord => vec![Act::Chord(r, c)],
        Kind::FlagRightThenChord if on_board => {
            let mut acts: Vec<Act> = naive
                .wrong_flags_around(r, c)
                .into_iter()
                .map(|(nr, nc)| Act::Flag(nr, nc))
                .collect();
            acts.push(Act::Chord(r, c));
            acts
        }
        Kind::FlagGuessThenChord(n) if on_board => {
            let neighbours = around(rows, cols, r, c);
            let flagged = |&(nr, nc): &(usize, usize)| naive.view(nr, nc) == View::Flagged;
            let mut acts: Vec<Act> = neighbours
                .iter()
                .filter(|cell| flagged(cell))
                .map(|&(nr, nc)| Act::Flag(nr, nc))
                .collect();
            let mut candidates: Vec<_> = neighbours
                .into_iter()
                .filter(|&(nr, nc)| naive.view(nr, nc) != View::Revealed)
                .collect();
            if !candidates.is_empty() {
                let len = candidates.len();
                candidates.rotate_left(n % len);
            }
            let number = if naive.is_mine(r, c) {
                0
            } else {
                naive.number(r, c)
            };
            acts.extend(
                candidates
                    .into_iter()
                    .take(number)
                    .map(|(nr, nc)| Act::Flag(nr, nc)),
            );
            acts.push(Act::Chord(r, c));
            acts
        }
        Kind::FlagRightThenChord | Kind::FlagGuessThenChord(_) | Kind::Batch(_) => {
            vec![Act::Chord(r, c)]
        }
    }
}

/// Moves played after a game has ended: enough to check that every call is refused, without
/// spending most of a run on refusals.
const MOVES_AFTER_THE_END: usize = 4;

/// Plays `moves` on `board` with all three engines under the classic rule, comparing after
/// every action.
fn play_all(board: Board, moves: &[Move]) -> Result<(), String> {
    play_all_under(board, Rule::Classic, moves)
}

/// Plays `moves` on `board` with all three engines under `rule`, comparing after every
/// action.
fn play_all_under(board: Board, rule: Rule, moves: &[Move]) -> Result<(), String> {
    let mut trio = Trio::with_rule(board, rule);
    let mut after_end = 0;
    for (i, &mv) in moves.iter().enumerate() {
        if trio.naive.status() != Status::Playing {
            after_end += 1;
            if after_end > MOVES_AFTER_THE_END {
                break;
            }
        }
        for step in resolve(&trio, mv) {
            // The three engines agreeing is the whole check; the agreed result is not needed.
            let agreed = match step {
                Step::Act(act) => trio.apply(act).map(drop),
                Step::Batch(cells) => trio.reveal_cells(&cells).map(drop),
            };
            agreed.map_err(|e| format!("move {i}: {e}"))?;
        }
    }
    if rule == Rule::Endless && trio.naive.status() == Status::Lost {
        return Err("an endless game was lost".into());
    }
    Ok(())
}

/// A board from a row-major list of mine flags.
fn board_from_flags(rows: usize, cols: usize, flags: &[bool]) -> Board {
    let mines = flags
        .iter()
        .enumerate()
        .filter(|&(_, &m)| m)
        .map(|(i, _)| (i / cols, i % cols));
    Board::from_mines(rows, cols, mines).expect("a valid board")
}

#[allow(dead_code)]
mod support;
use support::{Rng, around};

/// A random move, mixed like the proptest strategy below but with batch reveals, and more
/// mines revealed (under the endless rule play goes on past them).
fn next_endless_move(rng: &mut Rng, rows: usize, cols: usize) -> Move {
    match rng.below(8) {
        0 => Move {
            kind: Kind::Reveal,
            pick: Pick::Mine(rng.below(1 << 16)),
        },
        1 => Move {
            kind: Kind::Batch(rng.below(1 << 16)),
            pick: Pick::Safe(rng.below(1 << 16)),
        },
        _ => next_move(rng, rows, cols),
    }
}

/// A random move, mixed like the proptest strategy below.
fn next_move(rng: &mut Rng, rows: usize, cols: usize) -> Move {
    let n = rng.below(1 << 16);
    let at = Pick::At(rng.below(rows + 2), rng.below(cols + 2));
    let (kind, pick) = match rng.below(24) {
        0..=5 => (Kind::Reveal, Pick::Safe(n)),
        6..=7 => (Kind::Reveal, at),
        8 => (Kind::Reveal, Pick::Mine(n)),
        9..=11 => (Kind::Flag, Pick::Mine(n)),
        12..=13 => (Kind::Flag, at),
        14 => (Kind::Flag, Pick::Safe(n)),
        15..=16 => (Kind::Chord, Pick::Open(n)),
        17 => (Kind::Chord, at),
        18..=21 => (Kind::FlagRightThenChord, Pick::Open(n)),
        _ => (Kind::FlagGuessThenChord(n >> 4), Pick::Open(n)),
    };
    Move { kind, pick }
}

/// A `rows x cols` board with each cell a mine with probability `density`.
fn random_board(rows: usize, cols: usize, density: f64, rng: &mut Rng) -> Board {
    let flags: Vec<bool> = (0..rows * cols).map(|_| rng.chance(density)).collect();
    board_from_flags(rows, cols, &flags)
}

/// Board shapes: small squares and rectangles, short boards at the word-edge widths, short
/// boards several words wide, and tall thin boards.
fn shape() -> impl Strategy<Value = (usize, usize)> {
    prop_oneof![
        4 => (
            prop::sample::select(vec![1usize, 2, 3, 4, 5, 8]),
            prop::sample::select(vec![1usize, 2, 3, 4, 5, 8, 13]),
        ),
        3 => (
            prop::sample::select(vec![1usize, 2, 3, 4]),
            prop::sample::select(WIDTHS.to_vec()),
        ),
        1 => (
            prop::sample::select(vec![1usize, 2, 3]),
            prop::sample::select(WIDER.to_vec()),
        ),
        1 => (
            prop::sample::select(vec![61usize, 63, 64, 65, 129]),
            prop::sample::select(vec![1usize, 2, 3]),
        ),
    ]
}

/// Mine densities from empty boards up to about 0.4.
fn density() -> impl Strategy<Value = f64> {
    prop_oneof![1 => Just(0.0), 1 => Just(0.02), 6 => 0.0..0.4f64]
}

/// A random move on a `rows x cols` board; `At` reaches one or two cells past each edge,
/// and sometimes far off the board.
fn a_move(rows: usize, cols: usize) -> impl Strategy<Value = Move> {
    let coordinate = |n: usize| prop_oneof![8 => 0..n, 1 => n..n + 2, 1 => Just(usize::MAX)];
    let at = (coordinate(rows), coordinate(cols)).prop_map(|(r, c)| Pick::At(r, c));
    let n = any::<u16>().prop_map(usize::from);
    prop_oneof![
        6 => n.clone().prop_map(|n| (Kind::Reveal, Pick::Safe(n))),
        2 => at.clone().prop_map(|p| (Kind::Reveal, p)),
        1 => n.clone().prop_map(|n| (Kind::Reveal, Pick::Mine(n))),
        3 => n.clone().prop_map(|n| (Kind::Flag, Pick::Mine(n))),
        2 => at.clone().prop_map(|p| (Kind::Flag, p)),
        1 => n.clone().prop_map(|n| (Kind::Flag, Pick::Safe(n))),
        2 => n.clone().prop_map(|n| (Kind::Chord, Pick::Open(n))),
        1 => at.prop_map(|p| (Kind::Chord, p)),
        4 => n.clone().prop_map(|n| (Kind::FlagRightThenChord, Pick::Open(n))),
        2 => (n.clone(), n).prop_map(|(k, n)| (Kind::FlagGuessThenChord(k), Pick::Open(n))),
    ]
    .prop_map(|(kind, pick)| Move { kind, pick })
}

/// A random move as [`a_move`] makes, or a batch reveal, or a mine revealed.
fn a_move_or_batch(rows: usize, cols: usize) -> impl Strategy<Value = Move> {
    let n = any::<u16>().prop_map(usize::from);
    prop_oneof![
        6 => a_move(rows, cols),
        2 => (n.clone(), n.clone()).prop_map(|(k, n)| Move { kind: Kind::Batch(k), pick: Pick::Safe(n) }),
        1 => (n.clone(), n.clone()).prop_map(|(k, n)| Move { kind: Kind::Batch(k), pick: Pick::Mine(n) }),
        1 => n.prop_map(|n| Move { kind: Kind::Reveal, pick: Pick::Mine(n) }),
    ]
}

/// A random board, a rule, and a random game on it with batch reveals among its moves.
fn a_case_under_a_rule() -> impl Strategy<Value = (usize, usize, Vec<bool>, Rule, Vec<Move>)> {
    (shape(), density()).prop_flat_map(|((rows, cols), density)| {
        (
            Just(rows),
            Just(cols),
            prop::collection::vec(prop::bool::weighted(density), rows * cols),
            prop::sample::select(vec![Rule::Classic, Rule::Endless]),
            prop::collection::vec(a_move_or_batch(rows, cols), 0..40),
        )
    })
}

/// A random board and a random game on it.
fn a_case() -> impl Strategy<Value = (usize, usize, Vec<bool>, Vec<Move>)> {
    (shape(), density()).prop_flat_map(|((rows, cols), density)| {
        (
            Just(rows),
            Just(cols),
            prop::collection::vec(prop::bool::weighted(density), rows * cols),
            prop::collection::vec(a_move(rows, cols), 0..40),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Random boards and random games: after every move the three engines agree.
    #[test]
    fn engines_agree_on_random_games((rows, cols, flags, moves) in a_case()) {
        let board = board_from_flags(rows, cols, &flags);
        if let Err(e) = play_all(board, &moves) {
            return Err(TestCaseError::fail(format!("{rows}x{cols}: {e}")));
        }
    }

    /// Random boards and random games with batch reveals, under either rule: after every
    /// move, single or batch, the three engines agree, an endless game goes on past every
    /// mine, and the mines exploded are the same, in the same order.
    #[test]
    fn engines_agree_under_either_rule((rows, cols, flags, rule, moves) in a_case_under_a_rule()) {
        let board = board_from_flags(rows, cols, &flags);
        if let Err(e) = play_all_under(board, rule, &moves) {
            return Err(TestCaseError::fail(format!("{rows}x{cols}, {rule}: {e}")));
        }
    }
}

/// Every word-edge width and the thinnest boards, under the endless rule, with fixed seeds:
/// mines revealed one at a time, by chords past wrong flags and by batches, and the game
/// played on past each.
#[test]
fn endless_engines_agree_at_every_word_edge() {
    let shapes = WIDTHS
        .into_iter()
        .chain(WIDER)
        .flat_map(|cols| [1, 2, 5].map(|rows| (rows, cols)))
        .chain(
            WIDTHS
                .into_iter()
                .flat_map(|rows| [1, 2].map(|cols| (rows, cols))),
        );
    for (rows, cols) in shapes {
        for (seed, density) in [(21, 0.05), (22, 0.15), (23, 0.4)] {
            let mut rng = Rng::new(seed * 1000 + (rows * 200 + cols) as u64);
            let board = random_board(rows, cols, density, &mut rng);
            let moves: Vec<Move> = (0..60)
                .map(|_| next_endless_move(&mut rng, rows, cols))
                .collect();
            if let Err(e) = play_all_under(board, Rule::Endless, &moves) {
                panic!("{rows}x{cols}, seed {seed}, density {density}: {e}");
            }
        }
    }
}

/// Every word-edge width, with fixed seeds, so these shapes run on every test run rather than
/// whenever proptest happens to draw them.
#[test]
fn engines_agree_at_every_word_edge() {
    for cols in WIDTHS.into_iter().chain(WIDER) {
        for rows in [1, 2, 3, 5] {
            for (seed, density) in [(1, 0.0), (2, 0.01), (3, 0.05), (4, 0.12), (5, 0.3)] {
                let mut rng = Rng::new(seed * 1000 + (rows * 200 + cols) as u64);
                let board = random_board(rows, cols, density, &mut rng);
                let moves: Vec<Move> = (0..40).map(|_| next_move(&mut rng, rows, cols)).collect();
                if let Err(e) = play_all(board, &moves) {
                    panic!("{rows}x{cols}, seed {seed}, density {density}: {e}");
                }
            }
        }
    }
}

/// Tall one- to three-column boards, where every row is a single word with both sentinels.
#[test]
fn engines_agree_on_tall_thin_boards() {
    for rows in WIDTHS {
        for cols in [1, 2, 3] {
            for (seed, density) in [(6, 0.0), (7, 0.05), (8, 0.2)] {
                let mut rng = Rng::new(seed * 1000 + (rows * 7 + cols) as u64);
                let board = random_board(rows, cols, density, &mut rng);
                let moves: Vec<Move> = (0..30).map(|_| next_move(&mut rng, rows, cols)).collect();
                if let Err(e) = play_all(board, &moves) {
                    panic!("{rows}x{cols}, seed {seed}, density {density}: {e}");
                }
            }
        }
    }
}

/// A single mine placed at each column of a word-edge-width board: the cascade from the far
/// corner must run around it across every word boundary, and wins in one or two reveals.
#[test]
fn one_mine_anywhere_in_a_row_of_words() {
    for cols in WIDTHS {
        for rows in [1, 2, 3] {
            for mine_col in 0..cols {
                if rows * cols == 1 {
                    continue; // A 1x1 board with its mine has no safe cell to reveal.
                }
                let mine_row = mine_col % rows;
                let board = Board::from_mines(rows, cols, [(mine_row, mine_col)]).unwrap();
                let mut trio = Trio::new(board);
                let far = if mine_col < cols / 2 { cols - 1 } else { 0 };
                let far_row = if mine_row == 0 { rows - 1 } else { 0 };
                let first = trio
                    .apply(Act::Reveal(far_row, far))
                    .unwrap_or_else(|e| panic!("{rows}x{cols}, mine col {mine_col}: {e}"));
                assert!(first.is_ok(), "{rows}x{cols}: {first:?}");
                // Whatever the cascade left hidden is revealed one cell at a time.
                for r in 0..rows {
                    for c in 0..cols {
                        let hidden = trio.naive.view(r, c) == View::Hidden;
                        if hidden && (r, c) != (mine_row, mine_col) {
                            let _agreed = trio
                                .apply(Act::Reveal(r, c))
                                .unwrap_or_else(|e| panic!("{rows}x{cols}: {e}"));
                        }
                    }
                }
                assert_eq!(trio.words.status(), Status::Won, "{rows}x{cols}");
            }
        }
    }
}

/// A gap of `width` cells in a wall along row `row`, starting at column `gap`.
fn wall(row: usize, cols: usize, gap: usize, width: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..cols)
        .filter(move |c| !(gap..gap + width).contains(c))
        .map(move |c| (row, c))
}

/// Gap positions worth trying on a board `cols` wide: both ends and around each word edge.
fn gaps(cols: usize, width: usize) -> Vec<usize> {
    let mut gaps: Vec<usize> = [0, 60, 61, 62, 63, 125, 126, 127, 189, 190, 253, 254]
        .into_iter()
        .chain([cols.saturating_sub(width)])
        .filter(|&g| g + width <= cols)
        .collect();
    gaps.dedup();
    gaps
}

/// Serpentine boards: walls of mines with gaps three cells wide (so the middle of a gap is a
/// zero cell) at alternate ends, so one cascade must run right along one band and back left
/// along the next, crossing every word edge of the row both ways.
#[test]
fn cascades_snake_through_walls_of_mines() {
    for cols in WIDTHS.into_iter().chain(WIDER).filter(|&c| c >= 3) {
        let gaps = gaps(cols, 3);
        for (i, &first) in gaps.iter().enumerate() {
            let second = gaps[(i * 5 + 3) % gaps.len()];
            let mines: Vec<_> = wall(2, cols, first, 3)
                .chain(wall(5, cols, second, 3))
                .collect();
            let board = Board::from_mines(8, cols, mines).unwrap();
            let mut trio = Trio::new(board);
            for start in [(0, 0), (7, cols - 1), (0, cols / 2)] {
                let _agreed = trio
                    .apply(Act::Reveal(start.0, start.1))
                    .unwrap_or_else(|e| panic!("{cols} wide, gaps {first} and {second}: {e}"));
            }
        }
    }
}

/// The same serpentines built from flags on an empty board: a one-cell gap in a flag wall is
/// a zero cell, so the cascade squeezes through it.
#[test]
fn cascades_snake_through_walls_of_flags() {
    for cols in WIDTHS.into_iter().chain(WIDER) {
        let gaps = gaps(cols, 1);
        for (i, &first) in gaps.iter().enumerate() {
            let second = gaps[(i * 7 + 2) % gaps.len()];
            let mut trio = Trio::new(Board::empty(7, cols).unwrap());
            let mut acts: Vec<Act> = wall(2, cols, first, 1)
                .chain(wall(4, cols, second, 1))
                .map(|(r, c)| Act::Flag(r, c))
                .collect();
            acts.push(Act::Reveal(0, cols / 3));
            acts.push(Act::Reveal(6, 0));
            trio.apply_all(&acts)
                .unwrap_or_else(|e| panic!("{cols} wide, gaps {first} and {second}: {e}"));
            // Unflagging one wall cell and revealing it lets the cascade through there too.
            let side = (first + cols / 2) % cols;
            if side != first {
                trio.apply_all(&[Act::Flag(2, side), Act::Reveal(2, side)])
                    .unwrap_or_else(|e| panic!("{cols} wide, reopened at {side}: {e}"));
            }
        }
    }
}

/// Corridors whose zero cells run down a word's last or first column, so every row's run
/// spills one cell of its dilation into the word beside: with and without a side passage at
/// one row that takes the run across the edge (to the right or the left), with and without
/// flags on the corridor's cells, revealed from the middle and then from both ends.
#[test]
fn corridors_down_a_word_edge() {
    let rows = 40;
    for cols in [67, 131] {
        // Zero cells in bit 63 (columns 62, 126) or bit 0 (columns 63, 127) of their word.
        for z in [62, 63, 126, 127].into_iter().filter(|&z| z + 5 <= cols) {
            for side in [
                None,
                Some((3, false)),
                Some((rows / 2, true)),
                Some((rows - 4, false)),
            ] {
                let open = |r: usize, c: usize| {
                    c.abs_diff(z) <= 1
                        || side.is_some_and(|(g, left)| {
                            r.abs_diff(g) <= 1
                                && if left {
                                    c < z && c + 4 >= z
                                } else {
                                    c > z && c <= z + 4
                                }
                        })
                };
                let mines = (0..rows)
                    .flat_map(|r| (0..cols).map(move |c| (r, c)))
                    .filter(|&(r, c)| !open(r, c));
                let board = Board::from_mines(rows, cols, mines).unwrap();
                for flags in [false, true] {
                    let mut acts = Vec::new();
                    if flags {
                        acts.extend((3..rows).step_by(7).map(|r| Act::Flag(r, z + 1)));
                        acts.extend((1..rows).step_by(5).map(|r| Act::Flag(r, z - 1)));
                        acts.push(Act::Flag(rows - 8, z));
                    }
                    acts.extend([
                        Act::Reveal(rows / 2, z),
                        Act::Reveal(0, z),
                        Act::Reveal(rows - 1, z),
                    ]);
                    let mut trio = Trio::new(board.clone());
                    trio.apply_all(&acts).unwrap_or_else(|e| {
                        panic!("{cols} wide, column {z}, side {side:?}, flags {flags}: {e}")
                    });
                }
            }
        }
    }
}

/// Large, nearly empty boards: one reveal cascades over most of the board, and all three
/// engines open exactly the same cells.
#[test]
fn engines_agree_on_one_big_cascade() {
    for (seed, density) in [(11, 0.0), (12, 0.001), (13, 0.01), (14, 0.01)] {
        let (rows, cols) = (300, 300);
        let mut rng = Rng::new(seed);
        let board = random_board(rows, cols, density, &mut rng);
        let mut trio = Trio::new(board);
        // Start from the zero cell nearest the centre along the middle row, or the centre.
        let start = (0..cols)
            .map(|c| (rows / 2, c))
            .filter(|&(r, c)| !trio.naive.is_mine(r, c) && trio.naive.number(r, c) == 0)
            .min_by_key(|&(_, c)| c.abs_diff(cols / 2))
            .unwrap_or((rows / 2, cols / 2));
        let outcome = trio
            .apply(Act::Reveal(start.0, start.1))
            .unwrap_or_else(|e| panic!("density {density}: {e}"));
        match outcome {
            Ok(common::Outcome::Opened(opened, _)) => {
                assert!(
                    opened > rows * cols / 2,
                    "density {density}: only {opened} cells opened"
                );
                if density == 0.0 {
                    assert_eq!(opened, rows * cols);
                    assert_eq!(trio.words.status(), Status::Won);
                }
            }
            other => panic!("density {density}: unexpected {other:?}"),
        }
    }
}

#[path = "../benches/support/shapes.rs"]
#[allow(dead_code)]
mod shapes;

/// The benchmark's twisting shapes at the word-edge sizes: the one cascade from the shape's
/// cell, then flags on safe cells (which must stop later cascades) and more reveals.
#[test]
fn engines_agree_on_the_bench_shapes() {
    for size in [5, 9, 61, 63, 64, 65, 129] {
        let mut boards = vec![
            shapes::serpentine(size, 4, false),
            shapes::serpentine(size, 4, true),
            shapes::serpentine(size, 6, true),
            shapes::serpentine(size, 6, false),
            shapes::spiral(size),
        ];
        for seed in 1..=3 {
            boards.push(shapes::maze(size, seed));
        }
        if size >= 9 {
            for density in [0.001, 0.05, 0.1, 0.15, 0.2] {
                boards.push(shapes::random_from_centre(size, density, 7));
            }
        }
        for (k, shape) in boards.into_iter().enumerate() {
            let mut rng = Rng::new(size as u64 * 100 + k as u64);
            let (r, c) = shape.cell;
            let mut moves = vec![Move {
                kind: Kind::Reveal,
                pick: Pick::At(r, c),
            }];
            for _ in 0..6 {
                moves.push(Move {
                    kind: Kind::Flag,
                    pick: Pick::Safe(rng.below(1 << 16)),
                });
            }
            moves.extend((0..12).map(|_| Move {
                kind: Kind::Reveal,
                pick: Pick::Safe(rng.below(1 << 16)),
            }));
            if let Err(e) = play_all(shape.board, &moves) {
                panic!("{size}x{size} {}: {e}", shape.name);
            }
        }
    }
}

/// A board of walls and streaks that keep zero regions narrow and winding: walls of mines
/// down random columns or across random rows with random gaps, and mines that mostly copy the
/// cell above (or to the left), so runs are short across the walls' direction and long
/// along it.
fn twisty_board(rows: usize, cols: usize, style: u8, rng: &mut Rng) -> Board {
    let mut mine = vec![false; rows * cols];
    let density = [0.0, 0.03, 0.1, 0.2][rng.below(4)];
    let down = style.is_multiple_of(2);
    let (long, across) = if down { (rows, cols) } else { (cols, rows) };
    let at = |l: usize, a: usize| if down { l * cols + a } else { a * cols + l };
    match style / 2 {
        0 => {
            // Walls every few lines, each with one or two gaps.
            let mut a = rng.below(4);
            while a < across {
                let gaps = [rng.below(long.max(1)), rng.below(long.max(1))];
                let width = 1 + rng.below(3);
                for l in 0..long {
                    if !gaps.iter().any(|&g| (g..g + width).contains(&l)) {
                        mine[at(l, a)] = true;
                    }
                }
                a += 2 + rng.below(5);
            }
            for m in mine.iter_mut() {
                *m |= rng.chance(density);
            }
        }
        _ => {
            // Streaks: each cell copies its predecessor along the line nine times in ten.
            for a in 0..across {
                for l in 0..long {
                    mine[at(l, a)] = if l > 0 && rng.below(10) != 0 {
                        mine[at(l - 1, a)]
                    } else {
                        rng.chance(0.15 + density)
                    };
                }
            }
        }
    }
    board_from_flags(rows, cols, &mine)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Random twisting boards at the word-edge widths: after every move of a game of
    /// reveals and flags the three engines agree.
    #[test]
    fn engines_agree_on_twisty_boards(
        rows in prop::sample::select(vec![1usize, 2, 3, 7, 20, 64, 65]),
        cols in prop::sample::select(WIDTHS.into_iter().chain(WIDER).collect::<Vec<_>>()),
        style in 0u8..4,
        seed in any::<u64>(),
    ) {
        let mut rng = Rng::new(seed);
        let board = twisty_board(rows, cols, style, &mut rng);
        let moves: Vec<Move> = (0..24)
            .map(|i| Move {
                kind: if i % 4 == 3 { Kind::Flag } else { Kind::Reveal },
                pick: Pick::Safe(rng.below(1 << 16)),
            })
            .collect();
        if let Err(e) = play_all(board, &moves) {
            return Err(TestCaseError::fail(format!("{rows}x{cols} style {style}: {e}")));
        }
    }
}
