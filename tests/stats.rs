//! Board statistics: openings, islands, isolated cells and 3BV.
//!
//! Small boards counted by hand pin the definitions, and random boards of every awkward shape
//! check the engine's word-parallel counts against the naive twin in `tests/naive/stats.rs`,
//! which counts cell by cell with a breadth-first flood.
//!
//! Widths sit around the 64-bit word edges of a padded row (`cols + 2` bits), where a region
//! that runs across a word edge must still be counted once, and tall thin boards put almost
//! every cell next to the sentinel border.

// The bench uses every item of the twin; this crate does not use all of them.
#[allow(dead_code)]
#[path = "naive/stats.rs"]
mod naive_stats;

use bitmines_core::{Board, SeededPlacer, Stats, stats};
use proptest::prelude::*;

use naive_stats::NaiveStats;

/// The four numbers the engine gives for `board`, through `Stats::of`, after checking that
/// the three free functions give the same ones.
fn engine(board: &Board) -> NaiveStats {
    let all = Stats::of(board).expect("stats of a valid board");
    let free = (
        stats::openings(board).expect("openings"),
        stats::islands(board).expect("islands"),
        stats::bbbv(board).expect("bbbv"),
    );
    assert_eq!(
        (all.openings, all.islands, all.bbbv),
        free,
        "Stats::of and the free functions disagree on\n{board}"
    );
    NaiveStats {
        openings: all.openings,
        islands: all.islands,
        isolated: all.isolated,
        bbbv: all.bbbv,
    }
}

/// Checks the engine against the twin on one board, with the board in the message.
fn agree(board: &Board, label: &str) {
    let naive = naive_stats::stats(board).expect("naive stats");
    let got = engine(board);
    let shown = if board.rows() * board.cols() <= 4096 {
        board.to_string()
    } else {
        String::from("(board too large to print)\n")
    };
    assert_eq!(
        got, naive,
        "{label}: engine (left) and twin (right) on\n{shown}"
    );
    // The definition of 3BV ties the numbers together whatever the board.
    assert_eq!(got.bbbv, got.openings + got.isolated, "{label}");
    assert!(got.islands <= got.isolated, "{label}: an island has a cell");
}

/// One hand-counted board: its picture and its openings, islands, isolated cells and 3BV.
struct Hand {
    name: &'static str,
    board: &'static str,
    openings: usize,
    islands: usize,
    isolated: usize,
    bbbv: usize,
}

/// Boards small enough to count on paper. Each comment says how the count goes.
const HAND: &[Hand] = &[
    // Every cell is a zero cell: one opening, one click.
    Hand {
        name: "no mines",
        board: "...\n...\n...\n",
        openings: 1,
        islands: 0,
        isolated: 0,
        bbbv: 1,
    },
    // The three cells around the mine are 1s and each touches the zero region of the other
    // five cells, so one click clears the board.
    Hand {
        name: "mine in a corner of 3x3",
        board: "*..\n...\n...\n",
        openings: 1,
        islands: 0,
        isolated: 0,
        bbbv: 1,
    },
    // No zero cell at all: the eight 1s form one ring, each needs its own click.
    Hand {
        name: "mine in the centre of 3x3",
        board: "...\n.*.\n...\n",
        openings: 0,
        islands: 1,
        isolated: 8,
        bbbv: 8,
    },
    // Nothing safe, nothing to click.
    Hand {
        name: "only mines",
        board: "**\n**\n",
        openings: 0,
        islands: 0,
        isolated: 0,
        bbbv: 0,
    },
    Hand {
        name: "one safe cell",
        board: ".\n",
        openings: 1,
        islands: 0,
        isolated: 0,
        bbbv: 1,
    },
    Hand {
        name: "one mine",
        board: "*\n",
        openings: 0,
        islands: 0,
        isolated: 0,
        bbbv: 0,
    },
    // Columns 0 and 4 are zero cells, columns 1 and 3 are numbers on their borders, so the
    // wall of mines leaves two openings and nothing else to click.
    Hand {
        name: "two openings behind a wall",
        board: "..*..\n..*..\n..*..\n",
        openings: 2,
        islands: 0,
        isolated: 0,
        bbbv: 2,
    },
    // The two 2s are two cells apart, so they are separate islands of one cell each.
    Hand {
        name: "two one-cell islands",
        board: "*.*.*\n",
        openings: 0,
        islands: 2,
        isolated: 2,
        bbbv: 2,
    },
    // The two safe cells touch only diagonally, which 8-connectivity joins into one island.
    Hand {
        name: "diagonal island",
        board: ".*\n*.\n",
        openings: 0,
        islands: 1,
        isolated: 2,
        bbbv: 2,
    },
    // The top-left and bottom-right blocks of zero cells meet only at the corner of (1,1)
    // and (2,2): one opening under 8-connectivity; every 1 borders it.
    Hand {
        name: "openings joined at a corner",
        board: "...*\n....\n....\n*...\n",
        openings: 1,
        islands: 0,
        isolated: 0,
        bbbv: 1,
    },
    // Columns 0-1 are zero cells and column 2 their border: one opening. Column 4 (between
    // two mine walls) and column 6 (on the edge) are numbered and touch no zero cell: two
    // islands of three cells, six clicks.
    Hand {
        name: "an opening and two column islands",
        board: "...*.*.\n...*.*.\n...*.*.\n",
        openings: 1,
        islands: 2,
        isolated: 6,
        bbbv: 7,
    },
    // The zero cell (0,0) opens itself and the 1 beside it; the 2 between the two mines
    // touches no zero cell and needs a click of its own.
    Hand {
        name: "an opening and an island in one row",
        board: "..*.*\n",
        openings: 1,
        islands: 1,
        isolated: 1,
        bbbv: 2,
    },
];

#[test]
fn hand_counted_boards() {
    for hand in HAND {
        let board: Board = hand.board.parse().expect("a valid board");
        let want = NaiveStats {
            openings: hand.openings,
            islands: hand.islands,
            isolated: hand.isolated,
            bbbv: hand.bbbv,
        };
        assert_eq!(engine(&board), want, "engine on {}", hand.name);
        assert_eq!(
            naive_stats::stats(&board).expect("naive stats"),
            want,
            "twin on {}",
            hand.name
        );
    }
}

#[test]
fn naive_free_functions_agree_with_naive_stats() {
    // The bench times the twin's `bbbv` alone, so it must give what `stats` gives.
    for hand in HAND {
        let board: Board = hand.board.parse().expect("a valid board");
        let all = naive_stats::stats(&board).expect("naive stats");
        let free = NaiveStats {
            openings: naive_stats::openings(&board).expect("openings"),
            islands: naive_stats::islands(&board).expect("islands"),
            isolated: naive_stats::isolated(&board).expect("isolated"),
            bbbv: naive_stats::bbbv(&board).expect("bbbv"),
        };
        assert_eq!(free, all, "{}", hand.name);
    }
}

/// Widths around the 64-bit word edges of a padded row, the thinnest boards, and one board
/// four words wide.
const WIDTHS: [usize; 13] = [1, 2, 3, 61, 62, 63, 64, 65, 126, 127, 128, 129, 200];

/// Row counts for the wide boards: a single row, two, three, and enough rows for regions to
/// wind between words.
const ROWS: [usize; 5] = [1, 2, 3, 9, 24];

/// Mine densities from an empty board (one opening spanning every word) to half mines (mostly
/// islands).
const DENSITIES: [f64; 9] = [0.0, 0.01, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5];

/// Boards drawn for each shape and density.
const SEEDS: u64 = 3;

/// Checks `SEEDS` uniformly random boards of each shape and density against the twin;
/// `first_seed` keeps the seeds of different tests apart.
fn agree_on_random_boards(shapes: &[(usize, usize)], first_seed: u64) {
    let mut seed = first_seed;
    for &(rows, cols) in shapes {
        for density in DENSITIES {
            let mines = (rows as f64 * cols as f64 * density).round() as usize;
            for _ in 0..SEEDS {
                seed += 1;
                let board = SeededPlacer::new(seed)
                    .board(rows, cols, mines)
                    .expect("a valid board");
                agree(
                    &board,
                    &format!("{rows}x{cols}, {mines} mines, seed {seed}"),
                );
            }
        }
    }
}

#[test]
fn random_boards_at_word_edges_agree_with_the_twin() {
    let shapes: Vec<(usize, usize)> = WIDTHS
        .iter()
        .flat_map(|&cols| ROWS.iter().map(move |&rows| (rows, cols)))
        .collect();
    agree_on_random_boards(&shapes, 0);
}

#[test]
fn tall_thin_boards_agree_with_the_twin() {
    // One to four columns: every cell touches the sentinel border on one side or both, and
    // regions run down hundreds of rows.
    let shapes: Vec<(usize, usize)> = [1, 2, 3, 4]
        .iter()
        .flat_map(|&cols| [63, 64, 65, 129, 300].map(|rows| (rows, cols)))
        .collect();
    agree_on_random_boards(&shapes, 100_000);
}

#[test]
fn larger_boards_agree_with_the_twin() {
    // Sparse boards of a few hundred rows grow openings that span many words and rows, the
    // case where a word-parallel labelling could count one region twice.
    for (seed, (rows, cols, density)) in [
        (200, 200, 0.02),
        (150, 255, 0.08),
        (97, 300, 0.15),
        (128, 128, 0.2),
    ]
    .into_iter()
    .enumerate()
    {
        let mines = (rows as f64 * cols as f64 * density).round() as usize;
        let board = SeededPlacer::new(200_000 + seed as u64)
            .board(rows, cols, mines)
            .expect("a valid board");
        agree(&board, &format!("{rows}x{cols}, {mines} mines"));
    }
}

#[test]
fn walls_at_word_edges_agree_with_the_twin() {
    // A wall of mines down each column near a word edge splits the board into openings on
    // either side of it; a gap at the top or bottom joins them again. Both must match.
    for cols in [64, 65, 128, 129, 200] {
        for wall in [60, 61, 62, 63, 64, 125, 126, 127] {
            if wall >= cols {
                continue;
            }
            for gap in [None, Some(0), Some(7)] {
                let rows = 8;
                let mines = (0..rows).filter(|&r| Some(r) != gap).map(|r| (r, wall));
                let board = Board::from_mines(rows, cols, mines).expect("a valid board");
                agree(&board, &format!("{cols} wide, wall at {wall}, gap {gap:?}"));
            }
        }
    }
}

#[test]
fn checkerboards_are_one_diagonal_island() {
    // On a checkerboard of mines every safe cell touches its safe neighbours only at the
    // corners, so on a board at least two cells each way all of them form one island joined
    // diagonally, across every word edge; a single row or column leaves each safe cell alone.
    for cols in WIDTHS {
        for rows in [1, 2, 3, 5] {
            let mines = (0..rows)
                .flat_map(|r| (0..cols).map(move |c| (r, c)))
                .filter(|&(r, c)| (r + c) % 2 == 1);
            let board = Board::from_mines(rows, cols, mines).expect("a valid board");
            let safe = board.safe_count();
            let (openings, islands, isolated) = match (rows, cols) {
                // The only cell is safe with no mine around it: an opening.
                (1, 1) => (1, 0, 0),
                _ if rows >= 2 && cols >= 2 => (0, 1, safe),
                _ => (0, safe, safe),
            };
            let want = NaiveStats {
                openings,
                islands,
                isolated,
                bbbv: openings + isolated,
            };
            assert_eq!(engine(&board), want, "{rows}x{cols} checkerboard");
            agree(&board, &format!("{rows}x{cols} checkerboard"));
        }
    }
}

/// A board from a row-major list of mine flags.
fn board_from_flags(rows: usize, cols: usize, flags: &[bool]) -> Board {
    let mines = flags
        .iter()
        .enumerate()
        .filter(|&(_, &mine)| mine)
        .map(|(i, _)| (i / cols, i % cols));
    Board::from_mines(rows, cols, mines).expect("a valid board")
}

/// Small boards of any shape with each cell a mine with probability `p`, `p` from 0 to 0.5.
fn small_board() -> impl Strategy<Value = Board> {
    (1usize..=12, 1usize..=70, 0u32..=50).prop_flat_map(|(rows, cols, percent)| {
        let p = f64::from(percent) / 100.0;
        proptest::collection::vec(proptest::bool::weighted(p), rows * cols)
            .prop_map(move |flags| board_from_flags(rows, cols, &flags))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn small_random_boards_agree_with_the_twin(board in small_board()) {
        let naive = naive_stats::stats(&board).expect("naive stats");
        prop_assert_eq!(engine(&board), naive, "on\n{}", board);
    }
}
