//! `Game::revealed_word` and `Game::flagged_word`, which read 64 cells of a row with two word
//! reads, against their naive twins: the same cells read a bit at a time from
//! `revealed_row` and `flagged_row`. Boards of every width around the word sizes, every
//! column of every row, games at any point of play.

use bitmines_core::{Board, Error, Game};
use proptest::prelude::*;

#[allow(dead_code)]
mod support;
use support::Rng;

/// 64 cells of a row slice from `col`, a bit at a time; 0 past the end.
fn naive(row: &bitvec::slice::BitSlice<u64, bitvec::order::Lsb0>, col: usize) -> u64 {
    (0..64)
        .filter(|&i| row.get(col + i).is_some_and(|b| *b))
        .fold(0, |word, i| word | 1 << i)
}

fn random_game(rng: &mut Rng, rows: usize, cols: usize, moves: usize) -> Game {
    let density = [0.0, 0.1, 0.2][rng.below(3)];
    let mines: Vec<_> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .filter(|_| rng.chance(density))
        .collect();
    let board = Board::from_mines(rows, cols, mines).expect("mines on the board");
    let mut game = Game::new(board).with_rule(bitmines_core::Rule::Endless);
    for _ in 0..moves {
        let (r, c) = (rng.below(rows), rng.below(cols));
        let _ = match rng.below(3) {
            0 => game.toggle_flag(r, c).map(|_| ()),
            _ => game.reveal(r, c).map(|_| ()),
        };
    }
    game
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn words_match_the_rows_bit_by_bit(
        seed in any::<u64>(),
        rows in 1usize..6,
        cols in prop_oneof![1usize..4, 60usize..70, 120usize..135, 190usize..200],
        moves in 0usize..40,
    ) {
        let mut rng = Rng(seed);
        let game = random_game(&mut rng, rows, cols, moves);
        for r in 0..rows {
            let revealed = game.revealed_row(r).unwrap();
            let flagged = game.flagged_row(r).unwrap();
            for c in 0..cols {
                prop_assert_eq!(game.revealed_word(r, c), Ok(naive(revealed, c)), "({}, {})", r, c);
                prop_assert_eq!(game.flagged_word(r, c), Ok(naive(flagged, c)), "({}, {})", r, c);
            }
        }
    }
}

#[test]
fn words_off_the_board_are_refused_with_the_cell() {
    let game = Game::new(Board::from_mines(3, 70, [(0, 0)]).unwrap());
    for (r, c) in [(3, 0), (0, 70), (usize::MAX, usize::MAX)] {
        let off = Error::OffBoard {
            row: r,
            col: c,
            rows: 3,
            cols: 70,
        };
        assert_eq!(game.revealed_word(r, c), Err(off.clone()));
        assert_eq!(game.flagged_word(r, c), Err(off));
    }
}
