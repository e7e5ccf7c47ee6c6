//! The rules of the game, one table-driven test per rule.
//!
//! Most tests are a call to [`check`]: a board as text (`*` a mine, `.` a safe cell), a list
//! of moves with the result each must give, and the picture the player must see at the end.
//! Every move runs on the word-parallel engine, the scalar engine and the naive twin at once,
//! so each picture checks all three.
//!
//! Pictures use one character per cell:
//!
//! | char    | cell                                         |
//! |---------|----------------------------------------------|
//! | `#`     | hidden                                       |
//! | `F`     | flagged (after a loss: a flag on a mine)     |
//! | `.`     | open, no neighbouring mine                   |
//! | `1`-`8` | open, with that many neighbouring mines      |
//! | `*`     | an exploded mine                             |
//! | `M`     | after a loss: a mine neither flagged nor hit |
//! | `X`     | after a loss: a flag on a safe cell          |

// Each test crate uses only part of the shared harness and of the twin.
#[allow(dead_code)]
mod common;
#[allow(dead_code)]
mod naive;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bitmines_core::{
    Board, Cell, Error, Fill, FirstClick, Game, Placement, Placer, Rule, SeededPlacer, Status,
};

use Status::{Lost, Playing, Won};
use common::Act::{Chord, Flag, Reveal};
use common::Outcome::{Flagged, Opened};
use common::{Act, Outcome, Trio};
use naive::NaiveGame;

/// One scripted move and the result it must give.
type Step = (Act, Result<Outcome, Error>);

/// Strips the indentation and blank lines of a board or picture written inline.
fn normalize(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The picture character of one cell (see the table above).
fn symbol(cell: Cell) -> char {
    match cell {
        Cell::Hidden => '#',
        Cell::Flagged => 'F',
        Cell::Open(0) => '.',
        Cell::Open(n) => char::from(b'0' + n),
        Cell::Exploded => '*',
        Cell::Mine => 'M',
        Cell::WrongFlag => 'X',
    }
}

/// What the player sees on an engine game, one character per cell, one line per row.
fn picture(game: &Game) -> String {
    let line = |r: usize| -> String {
        (0..game.cols())
            .map(|c| symbol(game.cell(r, c).expect("the cell is on the board")))
            .collect()
    };
    (0..game.rows()).map(line).collect::<Vec<_>>().join("\n")
}

/// Plays `steps` on `board` with all three engines, checking each step's result and, at the
/// end, the picture. Returns the games for any further checks.
fn check(board: &str, steps: &[Step], expected: &str) -> Trio {
    check_under(Rule::Classic, board, steps, expected)
}

/// [`check`] under `rule`.
fn check_under(rule: Rule, board: &str, steps: &[Step], expected: &str) -> Trio {
    let board: Board = normalize(board).parse().expect("a valid board");
    let mut trio = Trio::with_rule(board, rule);
    for (i, (act, want)) in steps.iter().enumerate() {
        let got = trio.apply(*act).unwrap_or_else(|e| panic!("step {i}: {e}"));
        assert_eq!(&got, want, "step {i}: {act:?}\n{}", picture(&trio.words));
    }
    assert_eq!(picture(&trio.words), normalize(expected), "final picture");
    trio
}

/// The error every mutating call gives once the game is over.
fn over(status: Status) -> Error {
    Error::GameOver { status }
}

/// The error a call gives for a cell off a `rows x cols` board.
fn off(row: usize, col: usize, rows: usize, cols: usize) -> Error {
    Error::OffBoard {
        row,
        col,
        rows,
        cols,
    }
}

// Revealing cells.

/// The worked example of LeetCode 529: a click on a zero cell opens its region and border.
#[test]
fn a_zero_cell_opens_its_region_and_its_numbered_border() {
    check(
        ".....
         ..*..
         .....
         .....",
        &[(Reveal(3, 0), Ok(Opened(18, Playing)))],
        ".1#1.
         .1#1.
         .111.
         .....",
    );
}

#[test]
fn a_numbered_cell_opens_alone() {
    check(
        "*..
         ...
         ...",
        &[(Reveal(1, 1), Ok(Opened(1, Playing)))],
        "###
         #1#
         ###",
    );
}

/// The second half of the LeetCode 529 example: clicking the mine loses.
#[test]
fn revealing_a_mine_loses_and_explodes_it() {
    check(
        ".....
         ..*..
         .....
         .....",
        &[
            (Reveal(3, 0), Ok(Opened(18, Playing))),
            (Reveal(1, 2), Ok(Opened(0, Lost))),
        ],
        ".1#1.
         .1*1.
         .111.
         .....",
    );
}

/// Before a loss, flags and hidden mines look like any other flag or hidden cell.
#[test]
fn before_a_loss_mines_and_wrong_flags_are_not_shown() {
    check(
        "*.*
         ...
         *..",
        &[
            (Flag(0, 2), Ok(Flagged(true))),
            (Flag(2, 2), Ok(Flagged(true))),
        ],
        "##F
         ###
         ##F",
    );
}

/// After a loss the picture shows the exploded mine, the other mines and the wrong flags.
#[test]
fn after_a_loss_every_mine_and_wrong_flag_is_shown() {
    check(
        "*.*
         ...
         *..",
        &[
            (Flag(0, 2), Ok(Flagged(true))),
            (Flag(2, 2), Ok(Flagged(true))),
            (Reveal(0, 0), Ok(Opened(0, Lost))),
        ],
        "*#F
         ###
         M#X",
    );
}

#[test]
fn flags_block_the_cascade() {
    check(
        ".....
         .....
         .....",
        &[
            (Flag(0, 2), Ok(Flagged(true))),
            (Flag(1, 2), Ok(Flagged(true))),
            (Flag(2, 2), Ok(Flagged(true))),
            (Reveal(1, 0), Ok(Opened(6, Playing))),
        ],
        "..F##
         ..F##
         ..F##",
    );
}

/// The cascade is 8-connected, so a diagonal line of flags does not stop it.
#[test]
fn the_cascade_passes_diagonally_between_flags() {
    check(
        "...
         ...
         ...",
        &[
            (Flag(0, 2), Ok(Flagged(true))),
            (Flag(1, 1), Ok(Flagged(true))),
            (Flag(2, 0), Ok(Flagged(true))),
            (Reveal(0, 0), Ok(Opened(6, Playing))),
        ],
        "..F
         .F.
         F..",
    );
}

/// A zero cell next to a wrong flag still expands: the cascade reads mines, not flags.
#[test]
fn the_cascade_passes_zero_cells_next_to_wrong_flags() {
    check(
        "...
         ...
         ..*",
        &[
            (Flag(0, 0), Ok(Flagged(true))),
            (Reveal(0, 2), Ok(Opened(7, Playing))),
        ],
        "F..
         .11
         .1#",
    );
}

/// A numbered cell whose mines are all flagged still does not expand in a cascade.
#[test]
fn the_cascade_stops_at_numbered_cells_even_when_their_mines_are_flagged() {
    check(
        "..*..
         ..*..
         ..*..",
        &[
            (Flag(0, 2), Ok(Flagged(true))),
            (Flag(1, 2), Ok(Flagged(true))),
            (Flag(2, 2), Ok(Flagged(true))),
            (Reveal(0, 0), Ok(Opened(6, Playing))),
        ],
        ".2F##
         .3F##
         .2F##",
    );
}

#[test]
fn revealing_an_open_or_flagged_cell_does_nothing() {
    check(
        "*..
         ...
         ...",
        &[
            (Reveal(1, 1), Ok(Opened(1, Playing))),
            (Reveal(1, 1), Ok(Opened(0, Playing))),
            (Flag(2, 2), Ok(Flagged(true))),
            (Reveal(2, 2), Ok(Opened(0, Playing))),
            (Flag(0, 0), Ok(Flagged(true))),
            (Reveal(0, 0), Ok(Opened(0, Playing))),
        ],
        "F##
         #1#
         ##F",
    );
}

#[test]
fn flags_toggle_and_open_cells_cannot_be_flagged() {
    let trio = check(
        "*..
         ...
         ...",
        &[
            (Flag(0, 0), Ok(Flagged(true))),
            (Flag(0, 0), Ok(Flagged(false))),
            (Reveal(1, 1), Ok(Opened(1, Playing))),
            (Flag(1, 1), Ok(Flagged(false))),
            (Flag(2, 0), Ok(Flagged(true))),
        ],
        "###
         #1#
         F##",
    );
    assert_eq!(trio.words.flag_count(), 1);
}

// Chords.

#[test]
fn a_chord_with_matching_flags_opens_the_other_neighbours() {
    check(
        "*..
         ...
         ...",
        &[
            (Reveal(1, 1), Ok(Opened(1, Playing))),
            (Flag(0, 0), Ok(Flagged(true))),
            (Chord(1, 1), Ok(Opened(7, Won))),
        ],
        "F1.
         11.
         ...",
    );
}

/// A zero cell needs zero flags, so a chord on it opens a neighbour a flag had held back.
#[test]
fn a_chord_on_a_zero_cell_with_no_flags_opens_its_hidden_neighbours() {
    check(
        "...",
        &[
            (Flag(0, 2), Ok(Flagged(true))),
            (Reveal(0, 0), Ok(Opened(2, Playing))),
            (Chord(0, 1), Ok(Opened(0, Playing))),
            (Flag(0, 2), Ok(Flagged(false))),
            (Chord(0, 1), Ok(Opened(1, Won))),
        ],
        "...",
    );
}

#[test]
fn a_chord_does_nothing_unless_the_flags_match_the_number() {
    check(
        "*..
         ...
         ...",
        &[
            (Reveal(1, 1), Ok(Opened(1, Playing))),
            (Chord(1, 1), Ok(Opened(0, Playing))),
            (Flag(0, 0), Ok(Flagged(true))),
            (Flag(0, 1), Ok(Flagged(true))),
            (Chord(1, 1), Ok(Opened(0, Playing))),
            (Chord(2, 2), Ok(Opened(0, Playing))),
            (Chord(0, 0), Ok(Opened(0, Playing))),
        ],
        "FF#
         #1#
         ###",
    );
}

/// Wrong flags make the count match while mines stay unflagged: every one of them explodes,
/// and the safe neighbours still open.
#[test]
fn a_chord_with_wrong_flags_explodes_every_unflagged_mine() {
    let trio = check(
        "*.*
         ...
         ...",
        &[
            (Reveal(1, 1), Ok(Opened(1, Playing))),
            (Flag(0, 1), Ok(Flagged(true))),
            (Flag(2, 1), Ok(Flagged(true))),
            (Chord(1, 1), Ok(Opened(4, Lost))),
        ],
        "*X*
         121
         .X.",
    );
    let mut exploded: Vec<_> = trio.words.exploded().collect();
    exploded.sort_unstable();
    assert_eq!(exploded, [(0, 0), (0, 2)]);
}

// Winning.

#[test]
fn revealing_every_safe_cell_wins_without_any_flag() {
    let trio = check(
        "*.
         ..",
        &[
            (Reveal(0, 1), Ok(Opened(1, Playing))),
            (Reveal(1, 0), Ok(Opened(1, Playing))),
            (Reveal(1, 1), Ok(Opened(1, Won))),
        ],
        "#1
         11",
    );
    assert_eq!(trio.words.flag_count(), 0);
}

/// Flagging every mine does not win; only revealing every safe cell does.
#[test]
fn flagging_every_mine_does_not_win() {
    check(
        "*.
         ..",
        &[
            (Flag(0, 0), Ok(Flagged(true))),
            (Reveal(0, 1), Ok(Opened(1, Playing))),
            (Reveal(1, 0), Ok(Opened(1, Playing))),
        ],
        "F1
         1#",
    );
}

#[test]
fn a_board_of_only_mines_is_won_from_the_start() {
    check(
        "**
         **",
        &[
            (Reveal(0, 0), Err(over(Won))),
            (Flag(0, 0), Err(over(Won))),
            (Chord(0, 0), Err(over(Won))),
        ],
        "##
         ##",
    );
}

// Games that are over.

/// After a win every mutating call is refused, and GameOver is checked before OffBoard.
#[test]
fn every_move_after_a_win_is_refused() {
    check(
        "*.",
        &[
            (Reveal(0, 1), Ok(Opened(1, Won))),
            (Reveal(0, 0), Err(over(Won))),
            (Flag(0, 0), Err(over(Won))),
            (Chord(0, 1), Err(over(Won))),
            (Reveal(5, 5), Err(over(Won))),
            (Flag(5, 5), Err(over(Won))),
            (Chord(5, 5), Err(over(Won))),
        ],
        "#1",
    );
}

/// After a loss every mutating call is refused, and GameOver is checked before OffBoard.
#[test]
fn every_move_after_a_loss_is_refused() {
    check(
        "*.",
        &[
            (Reveal(0, 0), Ok(Opened(0, Lost))),
            (Reveal(0, 1), Err(over(Lost))),
            (Flag(0, 1), Err(over(Lost))),
            (Chord(0, 1), Err(over(Lost))),
            (Reveal(5, 5), Err(over(Lost))),
            (Flag(5, 5), Err(over(Lost))),
            (Chord(5, 5), Err(over(Lost))),
        ],
        "*#",
    );
    assert_eq!(over(Lost).to_string(), "the game is over (lost)");
}

// Coordinates off the board.

#[test]
fn moves_off_the_board_name_the_cell_and_the_board() {
    let board = vec![".".repeat(30); 10].join("\n");
    let trio = check(
        &board,
        &[
            (Reveal(12, 40), Err(off(12, 40, 10, 30))),
            (Flag(12, 40), Err(off(12, 40, 10, 30))),
            (Chord(12, 40), Err(off(12, 40, 10, 30))),
            (Reveal(10, 0), Err(off(10, 0, 10, 30))),
            (Flag(0, 30), Err(off(0, 30, 10, 30))),
            (Chord(usize::MAX, 3), Err(off(usize::MAX, 3, 10, 30))),
        ],
        &vec!["#".repeat(30); 10].join("\n"),
    );
    let mut game = trio.words;
    let error = game.reveal(12, 40).unwrap_err();
    assert_eq!(error.to_string(), "cell (12, 40) is off a 10x30 board");
    assert_eq!(game.cell(12, 40), Err(off(12, 40, 10, 30)));
    let board = game.board().expect("a game made from a board has one");
    assert_eq!(board.is_mine(12, 40), Err(off(12, 40, 10, 30)));
    assert_eq!(board.number(0, 30), Err(off(0, 30, 10, 30)));
}

// One-cell boards.

#[test]
fn a_safe_one_by_one_board_is_won_by_one_reveal() {
    check(".", &[(Reveal(0, 0), Ok(Opened(1, Won)))], ".");
}

/// A 1x1 board holding a mine has no safe cell, so it is already won and the reveal is refused.
#[test]
fn a_mined_one_by_one_board_is_won_before_any_reveal() {
    check("*", &[(Reveal(0, 0), Err(over(Won)))], "#");
}

/// The smallest board a reveal can lose.
#[test]
fn revealing_the_mine_of_a_one_by_two_board_loses() {
    check("*.", &[(Reveal(0, 0), Ok(Opened(0, Lost)))], "*#");
}

// The endless rule: a mine revealed explodes, and play goes on.

/// [`check`] under the endless rule, checking also which mines exploded, in order.
fn check_endless(board: &str, steps: &[Step], expected: &str, exploded: &[(usize, usize)]) {
    let trio = check_under(Rule::Endless, board, steps, expected);
    let got: Vec<_> = trio.words.exploded().collect();
    assert_eq!(got, exploded, "the exploded mines, in order");
    assert_eq!(trio.words.exploded_count(), exploded.len());
}

/// A mine explodes and stays shown; the game goes on, and is won once every safe cell is
/// open, the hidden mine staying hidden. The exploded cell is closed: revealing, flagging or
/// chording on it does nothing.
#[test]
fn endless_a_mine_explodes_and_play_goes_on_to_a_win() {
    check_endless(
        "*..
         ...
         ..*",
        &[
            (Reveal(0, 0), Ok(Opened(0, Playing))),
            (Reveal(0, 0), Ok(Opened(0, Playing))),
            (Flag(0, 0), Ok(Flagged(false))),
            (Chord(0, 0), Ok(Opened(0, Playing))),
            (Reveal(2, 0), Ok(Opened(4, Playing))),
            (Reveal(0, 2), Ok(Opened(3, Won))),
            (Reveal(2, 2), Err(over(Won))),
            (Flag(2, 2), Err(over(Won))),
        ],
        "*1.
         121
         .1#",
        &[(0, 0)],
    );
}

/// A chord counts an exploded neighbour as a known mine, with no flag needed.
#[test]
fn endless_a_chord_counts_exploded_mines_as_known() {
    check_endless(
        "*..
         ...",
        &[
            (Reveal(1, 1), Ok(Opened(1, Playing))),
            (Reveal(0, 0), Ok(Opened(0, Playing))),
            (Chord(1, 1), Ok(Opened(4, Won))),
        ],
        "*1.
         11.",
        &[(0, 0)],
    );
}

/// Flags and exploded mines together make up the number; a chord past a wrong flag sets off
/// the mine the flag should have marked, and play goes on.
#[test]
fn endless_a_chord_past_a_wrong_flag_explodes_and_play_goes_on() {
    check_endless(
        "*.*
         ...
         *..",
        &[
            (Reveal(1, 1), Ok(Opened(1, Playing))),
            (Reveal(0, 0), Ok(Opened(0, Playing))),
            (Flag(0, 2), Ok(Flagged(true))),
            // One flag and one exploded mine, but the number is 3.
            (Chord(1, 1), Ok(Opened(0, Playing))),
            (Flag(2, 2), Ok(Flagged(true))), // wrong
            (Chord(1, 1), Ok(Opened(4, Playing))),
            (Flag(2, 2), Ok(Flagged(false))),
            (Reveal(2, 2), Ok(Opened(1, Won))),
        ],
        "*2F
         231
         *1.",
        &[(0, 0), (2, 0)],
    );
}

/// A board with no safe cell is won before any move under either rule, so nothing explodes.
#[test]
fn endless_a_mined_one_by_one_board_is_won_before_any_reveal() {
    check_endless("*", &[(Reveal(0, 0), Err(over(Won)))], "#", &[]);
}

/// Every mine of a board explodes in turn and the game is still in play until the safe cell
/// opens.
#[test]
fn endless_every_mine_may_explode() {
    check_endless(
        "**
         *.",
        &[
            (Reveal(0, 1), Ok(Opened(0, Playing))),
            (Reveal(1, 0), Ok(Opened(0, Playing))),
            (Reveal(0, 0), Ok(Opened(0, Playing))),
            (Chord(0, 0), Ok(Opened(0, Playing))),
            (Reveal(1, 1), Ok(Opened(1, Won))),
        ],
        "**
         *3",
        &[(0, 1), (1, 0), (0, 0)],
    );
}

/// A game is classic unless told otherwise; `with_rule` on a game already played gives it
/// the status its cells imply under the new rule.
#[test]
fn with_rule_gives_the_status_the_cells_imply() {
    let board: Board = "*..\n...\n".parse().expect("a valid board");
    let mut classic = Game::new(board.clone());
    assert_eq!(classic.rule(), Rule::Classic);
    assert_eq!(Rule::default(), Rule::Classic);
    let step = classic.reveal(0, 0).expect("a move");
    assert_eq!((step.exploded, step.status), (1, Lost));
    // The same cells under the endless rule: the game goes on, and back again it is lost.
    let endless = classic.clone().with_rule(Rule::Endless);
    assert_eq!((endless.rule(), endless.status()), (Rule::Endless, Playing));
    endless.validate().expect("valid");
    let back = endless.clone().with_rule(Rule::Classic);
    assert_eq!((back.rule(), back.status()), (Rule::Classic, Lost));
    back.validate().expect("valid");
    // An endless game won with a mine exploded is a lost classic one.
    let mut won = endless;
    assert_eq!(won.reveal(1, 2).expect("a move").status, Playing);
    assert_eq!(won.reveal(1, 0).expect("a move").status, Won);
    assert_eq!(won.clone().with_rule(Rule::Classic).status(), Lost);
    // A rule chosen before the first click of a deferred game holds after it.
    let mut deferred = Game::seeded(9, 9, 10, 1)
        .expect("a game")
        .with_rule(Rule::Endless);
    deferred.reveal(4, 4).expect("the first click");
    assert_eq!(deferred.rule(), Rule::Endless);
    assert_eq!(Rule::Endless.to_string(), "endless");
    assert_eq!(Rule::Classic.to_string(), "classic");
}

/// A batch reveal under the endless rule goes on past each mine, as the cell-by-cell loop
/// would; it still stops at a win, before a mine it has not reached; and an exploded mine
/// in the set is left alone. Each case: board, cells revealed one at a time first, the
/// batch's cells, its result (opened, mines set off, status), the picture.
#[test]
fn endless_batch_reveals_go_on_past_mines() {
    type Case = (
        &'static str,
        &'static [(usize, usize)],
        &'static [(usize, usize)],
        (usize, usize, Status),
        &'static str,
    );
    let all: &[(usize, usize)] = &[
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 1),
        (1, 2),
        (2, 0),
        (2, 1),
        (2, 2),
    ];
    let cases: &[Case] = &[
        ("..*\n...\n*..", &[], all, (7, 2, Won), ".1*\n121\n*1."),
        ("..*\n...\n...", &[], all, (8, 0, Won), ".1#\n.11\n..."),
        (
            "..*\n...\n*..",
            &[(0, 2)],
            &[(0, 2), (2, 2)],
            (4, 0, Playing),
            "##*\n#21\n#1.",
        ),
        (
            "*.*\n...\n*.*",
            &[],
            &[(0, 0), (0, 2), (2, 0)],
            (0, 3, Playing),
            "*#*\n###\n*##",
        ),
    ];
    for (i, &(board, before, cells, result, expected)) in cases.iter().enumerate() {
        let board: Board = board.parse().expect("a valid board");
        let mut trio = Trio::with_rule(board, Rule::Endless);
        for &(r, c) in before {
            let _agreed = trio
                .apply(Reveal(r, c))
                .unwrap_or_else(|e| panic!("case {i}: {e}"));
        }
        let got = trio
            .reveal_cells(cells)
            .unwrap_or_else(|e| panic!("case {i}: {e}"));
        assert_eq!(got, Ok(result), "case {i}");
        assert_eq!(picture(&trio.words), expected, "case {i}");
    }
}

// Deferred games: the mines are placed on the first reveal.

/// Counts the mines of a board cell by cell, independently of `mine_count`.
fn count_mines(board: &Board) -> usize {
    (0..board.rows())
        .flat_map(|r| (0..board.cols()).map(move |c| (r, c)))
        .filter(|&(r, c)| board.is_mine(r, c).unwrap())
        .count()
}

/// After the first reveal of a deferred game, replays it on the naive twin of the board that
/// was placed and checks that the two pictures agree.
fn check_against_twin(game: &Game, row: usize, col: usize) {
    let board = game.board().expect("the first reveal placed the mines");
    let mut twin = NaiveGame::from_board(board);
    twin.reveal(row, col).unwrap();
    for r in 0..game.rows() {
        for c in 0..game.cols() {
            assert_eq!(game.cell(r, c).unwrap(), twin.cell(r, c), "({r}, {c})");
        }
    }
    assert_eq!(game.revealed_count(), twin.revealed_count());
    assert_eq!(game.status(), twin.status());
}

#[test]
fn an_opening_first_click_is_a_zero_cell_with_a_clear_zone() {
    for (rows, cols, mines) in [
        (9, 9, 10),
        (16, 30, 99),
        (8, 8, 55),
        (1, 20, 15),
        (20, 2, 30),
    ] {
        let clicks = [
            (0, 0),
            (rows - 1, cols - 1),
            (0, cols - 1),
            (rows / 2, cols / 2),
            (rows - 1, 0),
        ];
        for seed in 0..12 {
            for (row, col) in clicks {
                let mut game = Game::deferred(
                    rows,
                    cols,
                    mines,
                    FirstClick::Opening,
                    SeededPlacer::new(seed),
                )
                .unwrap();
                assert!(game.board().is_none(), "no board before the first reveal");
                assert_eq!(game.mine_count(), mines);
                let step = game.reveal(row, col).unwrap();
                assert_ne!(
                    step.status, Lost,
                    "{rows}x{cols} seed {seed} ({row}, {col})"
                );
                assert_eq!(game.cell(row, col), Ok(Cell::Open(0)));
                let board = game.board().unwrap();
                for r in row.saturating_sub(1)..=(row + 1).min(rows - 1) {
                    for c in col.saturating_sub(1)..=(col + 1).min(cols - 1) {
                        assert_eq!(board.is_mine(r, c), Ok(false), "({r}, {c}) in the zone");
                    }
                }
                let zone = (row.min(1) + 1 + usize::from(row + 1 < rows))
                    * (col.min(1) + 1 + usize::from(col + 1 < cols));
                assert!(step.opened >= zone, "opened {} < zone {zone}", step.opened);
                assert_eq!((board.mine_count(), count_mines(board)), (mines, mines));
                game.validate().unwrap();
                check_against_twin(&game, row, col);
            }
        }
    }
}

#[test]
fn a_safe_first_click_is_never_a_mine() {
    for seed in 0..20 {
        for (row, col) in [(0, 0), (2, 2), (4, 1)] {
            // 24 mines on 25 cells: the clicked cell is the only safe one.
            let mut game =
                Game::deferred(5, 5, 24, FirstClick::Safe, SeededPlacer::new(seed)).unwrap();
            assert_eq!(game.reveal(row, col).unwrap().status, Won);
            let board = game.board().unwrap();
            assert_eq!(board.is_mine(row, col), Ok(false));
            assert_eq!((board.mine_count(), count_mines(board)), (24, 24));
            check_against_twin(&game, row, col);

            let mut game =
                Game::deferred(9, 9, 40, FirstClick::Safe, SeededPlacer::new(seed)).unwrap();
            assert_ne!(game.reveal(row, col).unwrap().status, Lost);
            assert_eq!(count_mines(game.board().unwrap()), 40);
            check_against_twin(&game, row, col);
        }
    }
}

/// Unprotected first clicks may hit a mine, and a board may then be full of mines.
#[test]
fn an_unprotected_first_click_may_lose() {
    let mut losses = 0;
    for seed in 0..32 {
        let mut game =
            Game::deferred(2, 3, 5, FirstClick::Unprotected, SeededPlacer::new(seed)).unwrap();
        let step = game.reveal(0, 0).unwrap();
        let board = game.board().unwrap();
        assert_eq!(count_mines(board), 5);
        if board.is_mine(0, 0).unwrap() {
            assert_eq!((step.opened, step.status), (0, Lost));
            losses += 1;
        } else {
            assert_eq!((step.opened, step.status), (1, Won));
        }
        check_against_twin(&game, 0, 0);
    }
    assert!(losses > 0, "no seed put a mine under the first click");
}

/// With no safe cell at all there is nothing to reveal, so the game starts won.
#[test]
fn an_unprotected_board_may_be_full_of_mines() {
    let mut game = Game::deferred(2, 3, 6, FirstClick::Unprotected, SeededPlacer::new(1)).unwrap();
    assert_eq!(game.status(), Won);
    assert_eq!(game.mine_count(), 6);
    assert_eq!(game.reveal(0, 0), Err(over(Won)));
}

#[test]
fn too_many_mines_are_refused_when_the_game_is_made() {
    let refused = |rows, cols, mines, max, policy| Error::TooManyMines {
        mines,
        max,
        rows,
        cols,
        policy,
    };
    let deferred = |rows, cols, mines, policy| {
        Game::deferred(rows, cols, mines, policy, SeededPlacer::new(0)).map(|_| ())
    };
    use FirstClick::{Opening, Safe, Unprotected};
    assert_eq!(
        deferred(3, 3, 1, Opening),
        Err(refused(3, 3, 1, 0, Opening))
    );
    assert_eq!(deferred(3, 3, 0, Opening), Ok(()));
    assert_eq!(
        deferred(2, 5, 5, Opening),
        Err(refused(2, 5, 5, 4, Opening))
    );
    assert_eq!(deferred(2, 5, 4, Opening), Ok(()));
    assert_eq!(deferred(3, 3, 9, Safe), Err(refused(3, 3, 9, 8, Safe)));
    assert_eq!(deferred(3, 3, 8, Safe), Ok(()));
    assert_eq!(
        deferred(3, 3, 10, Unprotected),
        Err(refused(3, 3, 10, 9, Unprotected))
    );
    assert_eq!(deferred(3, 3, 9, Unprotected), Ok(()));
    assert_eq!(
        Game::seeded(9, 9, 73, 0).map(|_| ()),
        Err(refused(9, 9, 73, 72, Opening))
    );
    assert_eq!(
        Game::deferred(0, 3, 0, Opening, SeededPlacer::new(0)).map(|_| ()),
        Err(Error::EmptyBoard { rows: 0, cols: 3 })
    );
}

#[test]
fn the_same_seed_and_click_give_the_same_board() {
    let mut boards = Vec::new();
    for seed in 0..8 {
        let mut first = Game::seeded(16, 30, 99, seed).unwrap();
        let mut second = Game::seeded(16, 30, 99, seed).unwrap();
        assert_eq!(first.reveal(7, 11), second.reveal(7, 11));
        let board = first.board().unwrap();
        assert_eq!(board, second.board().unwrap(), "seed {seed}");
        assert_eq!(picture(&first), picture(&second));
        assert_eq!((board.mine_count(), count_mines(board)), (99, 99));
        boards.push(board.to_string());
    }
    boards.sort();
    boards.dedup();
    assert!(boards.len() > 1, "eight seeds gave one board");
}

/// A placer that breaks its request gets `BadPlacement`, and the game stays deferred.
#[test]
fn a_bad_placement_is_refused_and_leaves_the_game_deferred() {
    let wrong_size = |req: &Placement| Board::empty(req.rows + 1, req.cols);
    let wrong_count = |req: &Placement| Board::empty(req.rows, req.cols);
    let mine_in_zone = |req: &Placement| {
        let (row, col) = req.zone.cells().next().expect("a zone");
        Board::from_mines(req.rows, req.cols, [(row, col)])
    };
    let placers: [Box<dyn Fn() -> Result<Game, Error>>; 3] = [
        Box::new(move || Game::deferred(4, 4, 1, FirstClick::Opening, wrong_size)),
        Box::new(move || Game::deferred(4, 4, 1, FirstClick::Safe, wrong_count)),
        Box::new(move || Game::deferred(4, 4, 1, FirstClick::Opening, mine_in_zone)),
    ];
    for (i, make) in placers.iter().enumerate() {
        let mut game = make().unwrap();
        assert_eq!(game.toggle_flag(3, 3), Ok(true));
        let error = game.reveal(1, 1).unwrap_err();
        assert!(
            matches!(error, Error::BadPlacement { .. }),
            "placer {i}: {error:?}"
        );
        assert!(
            game.board().is_none(),
            "placer {i}: the game is no longer deferred"
        );
        assert_eq!(game.status(), Playing);
        assert_eq!((game.revealed_count(), game.flag_count()), (0, 1));
        assert_eq!(game.cell(1, 1), Ok(Cell::Hidden));
        assert_eq!(game.cell(3, 3), Ok(Cell::Flagged));
        game.validate().unwrap();
    }
}

/// A placer's own error reaches the caller, and a later reveal can still place the mines.
#[test]
fn a_failed_placement_can_be_retried() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    let flaky = move |req: &Placement| {
        if counter.fetch_add(1, Ordering::SeqCst) == 0 {
            Err(Error::EmptyBoard { rows: 0, cols: 0 })
        } else {
            SeededPlacer::new(3).place(req)
        }
    };
    let mut game = Game::deferred(6, 6, 8, FirstClick::Opening, flaky).unwrap();
    assert_eq!(
        game.reveal(2, 3),
        Err(Error::EmptyBoard { rows: 0, cols: 0 })
    );
    assert!(game.board().is_none());
    let step = game.reveal(2, 3).unwrap();
    assert!(step.opened >= 9);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(count_mines(game.board().unwrap()), 8);
    check_against_twin(&game, 2, 3);
}

/// Moves that open nothing do not place the mines.
#[test]
fn only_a_real_first_reveal_places_the_mines() {
    let mut game = Game::seeded(9, 9, 10, 5).unwrap();
    assert_eq!(game.toggle_flag(4, 4), Ok(true));
    assert_eq!(
        game.reveal(4, 4).map(|s| (s.opened, s.status)),
        Ok((0, Playing))
    );
    assert_eq!(
        game.chord(0, 0).map(|s| (s.opened, s.status)),
        Ok((0, Playing))
    );
    assert_eq!(game.reveal(9, 0), Err(off(9, 0, 9, 9)));
    assert!(game.board().is_none());
    game.validate().unwrap();
    assert!(game.reveal(0, 0).unwrap().opened >= 4);
    assert!(game.board().is_some());
    assert_eq!(game.cell(4, 4), Ok(Cell::Flagged));
}

// Text boards.

#[test]
fn text_boards_parse_and_print_back() {
    let board: Board = "*..\n...".parse().unwrap();
    assert_eq!((board.rows(), board.cols(), board.mine_count()), (2, 3, 1));
    assert_eq!(board.is_mine(0, 0), Ok(true));
    assert_eq!(board.is_mine(1, 2), Ok(false));
    assert_eq!(board.number(1, 1), Ok(1));
    assert_eq!(board.to_string(), "*..\n...\n");
    for text in ["*\n", ".\n", "*..\n...\n..*\n", "..*.*\n", "*\n.\n*\n"] {
        let board: Board = text.parse().unwrap();
        assert_eq!(board.to_string(), text);
        assert_eq!(board.to_string().parse::<Board>(), Ok(board));
    }
    let wide: Board = format!("{}*\n{}", ".".repeat(128), "*".repeat(129))
        .parse()
        .unwrap();
    assert_eq!(wide.mine_count(), 130);
    assert_eq!(wide.to_string().parse::<Board>(), Ok(wide));
}

#[test]
fn text_board_errors_name_the_problem() {
    assert_eq!(
        "..\n.x".parse::<Board>(),
        Err(Error::BadChar {
            line: 2,
            col: 2,
            found: 'x',
            expected: "'*' or '.'"
        })
    );
    assert_eq!(
        "..\n.".parse::<Board>(),
        Err(Error::Ragged {
            line: 2,
            expected: 2,
            found: 1
        })
    );
    assert_eq!(
        "".parse::<Board>(),
        Err(Error::EmptyBoard { rows: 0, cols: 0 })
    );
}

#[test]
fn boards_from_mine_lists_refuse_duplicates_and_cells_off_the_board() {
    assert_eq!(
        Board::from_mines(2, 2, [(0, 1), (1, 0), (0, 1)]),
        Err(Error::DuplicateMine { row: 0, col: 1 })
    );
    assert_eq!(Board::from_mines(2, 2, [(2, 0)]), Err(off(2, 0, 2, 2)));
    assert_eq!(Board::from_mines(2, 2, [(0, 2)]), Err(off(0, 2, 2, 2)));
    assert_eq!(
        Board::empty(3, 0),
        Err(Error::EmptyBoard { rows: 3, cols: 0 })
    );
    let board = Board::from_mines(2, 2, [(1, 1)]).unwrap();
    assert_eq!(board.to_string(), "..\n.*\n");
}

// Sharing one board between games.

const SHARED: &str = "\
*.......
........
...*....
........
.......*
*.......
";

#[test]
fn games_sharing_a_board_are_independent() {
    let board: Arc<Board> = Arc::new(SHARED.parse().unwrap());
    let before = Board::clone(&board);
    let mut lost = Game::new(Arc::clone(&board));
    let mut won = Game::new(Arc::clone(&board)).with_fill(Fill::Scalar);
    let mut flagged = Game::new(Arc::clone(&board));
    assert_eq!(Arc::strong_count(&board), 4);

    assert_eq!(lost.reveal(0, 0).unwrap().status, Lost);
    // The cascade from (2, 6) opens every safe cell but (5, 7), which no zero cell touches.
    assert_eq!(
        won.reveal(2, 6).map(|s| (s.opened, s.status)),
        Ok((43, Playing))
    );
    assert_eq!(won.reveal(5, 7).map(|s| (s.opened, s.status)), Ok((1, Won)));
    assert_eq!(flagged.toggle_flag(0, 0), Ok(true));

    assert_eq!(*board, before, "playing changed the board");
    assert!(Arc::ptr_eq(lost.board().unwrap(), &board));
    assert_eq!(lost.cell(0, 0), Ok(Cell::Exploded));
    assert_eq!(won.cell(0, 0), Ok(Cell::Hidden));
    assert_eq!(flagged.cell(0, 0), Ok(Cell::Flagged));
    assert_eq!(flagged.cell(2, 6), Ok(Cell::Hidden));
    assert_eq!(lost.cell(2, 6), Ok(Cell::Hidden));
    assert_eq!(
        (
            lost.revealed_count(),
            won.revealed_count(),
            flagged.revealed_count()
        ),
        (0, 44, 0)
    );
    for game in [&lost, &won, &flagged] {
        game.validate().unwrap();
    }
}

#[test]
fn games_on_one_shared_board_play_in_parallel_threads() {
    let board: Arc<Board> = Arc::new(SHARED.parse().unwrap());
    let before = Board::clone(&board);
    let scripts: [&[Act]; 4] = [
        &[Reveal(2, 6), Reveal(5, 7)],
        &[Flag(4, 7), Reveal(0, 7), Reveal(0, 0)],
        &[
            Reveal(1, 1),
            Flag(0, 0),
            Chord(1, 1),
            Flag(2, 3),
            Chord(1, 2),
        ],
        &[
            Flag(0, 0),
            Flag(2, 3),
            Flag(4, 7),
            Flag(5, 0),
            Flag(3, 3),
            Flag(3, 3),
        ],
    ];
    let results: Vec<(Status, usize, usize)> = std::thread::scope(|scope| {
        let handles: Vec<_> = scripts
            .iter()
            .enumerate()
            .map(|(t, script)| {
                let board = Arc::clone(&board);
                scope.spawn(move || {
                    let fill = if t % 2 == 0 {
                        Fill::Words
                    } else {
                        Fill::Scalar
                    };
                    let mut game = Game::new(Arc::clone(&board)).with_fill(fill);
                    let mut twin = NaiveGame::from_board(&board);
                    for &act in script.iter() {
                        let got = common::play(&mut game, act);
                        let want = match act {
                            Reveal(r, c) => twin.reveal(r, c).map(|(n, s)| Opened(n, s)),
                            Flag(r, c) => twin.toggle_flag(r, c).map(Flagged),
                            Chord(r, c) => twin.chord(r, c).map(|(n, s)| Opened(n, s)),
                        }
                        .map_err(Error::from);
                        assert_eq!(got, want, "thread {t}: {act:?}");
                    }
                    for r in 0..board.rows() {
                        for c in 0..board.cols() {
                            assert_eq!(game.cell(r, c), Ok(twin.cell(r, c)), "thread {t}");
                        }
                    }
                    game.validate().unwrap();
                    (game.status(), game.revealed_count(), game.flag_count())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(results[0], (Won, 44, 0));
    assert_eq!(results[1].0, Lost);
    assert_eq!(
        results[2],
        (Playing, 43, 2),
        "the chords opened all but (5, 7)"
    );
    assert_eq!(results[3], (Playing, 0, 4));
    assert_eq!(*board, before, "playing changed the board");
    assert_eq!(Arc::strong_count(&board), 1);
}
