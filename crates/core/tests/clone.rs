//! `Game::clone_from`, which copies into the destination's own buffers, against its naive
//! twin `Game::clone`: after copying any game over any other (a different board, size, rule,
//! fill or history), the copy is the same game as a clone, reads the same everywhere, saves
//! to the same bytes, and plays on the same, move for move. Along the way, `saved_len` and
//! `binary_len` give the lengths of what `to_saved` and `to_binary` make.

use bitmines_core::{Board, Fill, Game, Rule, Status};
use proptest::prelude::*;

#[allow(dead_code)]
mod support;
use support::Rng;

/// A `rows x cols` board with each cell a mine with probability `density`.
fn random_board(rng: &mut Rng, rows: usize, cols: usize, density: f64) -> Board {
    let mines: Vec<_> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .filter(|_| rng.chance(density))
        .collect();
    Board::from_mines(rows, cols, mines).expect("mines on the board")
}

/// One random move: a reveal, a flag or a chord on a random cell; errors (a move after the
/// end, say) are part of the game too.
fn play(game: &mut Game, rng: &mut Rng) -> String {
    let (r, c) = (rng.below(game.rows()), rng.below(game.cols()));
    match rng.below(4) {
        0 | 1 => format!("{:?}", game.reveal(r, c)),
        2 => format!("{:?}", game.toggle_flag(r, c)),
        _ => format!("{:?}", game.chord(r, c)),
    }
}

/// A game on a random board of up to `max` rows and columns, under a random rule and fill,
/// after up to `moves` random moves.
fn random_game(rng: &mut Rng, max: usize, moves: usize) -> Game {
    let (rows, cols) = (1 + rng.below(max), 1 + rng.below(max));
    let density = [0.0, 0.05, 0.15, 0.3][rng.below(4)];
    let rule = if rng.chance(0.5) {
        Rule::Endless
    } else {
        Rule::Classic
    };
    let fill = if rng.chance(0.5) {
        Fill::Words
    } else {
        Fill::Scalar
    };
    let mut game = Game::new(random_board(rng, rows, cols, density))
        .with_rule(rule)
        .with_fill(fill);
    if rng.chance(0.3) {
        game.set_seed(Some(rng.next()));
    }
    for _ in 0..rng.below(moves + 1) {
        play(&mut game, rng);
    }
    game
}

/// Everything a game shows: its size, counts, status, rule, fill, seed, every cell, the
/// exploded mines, and its saved bytes.
fn reading(game: &Game) -> String {
    let cells: Vec<_> = (0..game.rows())
        .flat_map(|r| (0..game.cols()).map(move |c| (r, c)))
        .map(|(r, c)| game.cell(r, c))
        .collect();
    format!(
        "{}x{} mines {} revealed {} flags {} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        game.rows(),
        game.cols(),
        game.mine_count(),
        game.revealed_count(),
        game.flag_count(),
        game.status(),
        game.rule(),
        game.fill(),
        game.seed(),
        game.exploded().collect::<Vec<_>>(),
        cells,
        game.to_saved(),
    )
}

fn check(seed: u64, max: usize) -> Result<(), TestCaseError> {
    let mut rng = Rng(seed);
    let source = random_game(&mut rng, max, 40);
    let mut copy = random_game(&mut rng, max, 40);
    copy.clone_from(&source);
    let mut twin = source.clone();
    prop_assert_eq!(reading(&copy), reading(&source));
    prop_assert_eq!(reading(&copy), reading(&twin));
    prop_assert!(copy.validate().is_ok(), "{:?}", copy.validate());
    // Played on, the copy and the clone stay the same game; the source is untouched.
    let before = reading(&source);
    let mut moves = Rng(rng.0);
    for _ in 0..40 {
        let a = play(&mut copy, &mut rng);
        let b = play(&mut twin, &mut moves);
        prop_assert_eq!(a, b);
        prop_assert_eq!(reading(&copy), reading(&twin));
        prop_assert_eq!(copy.saved_len(), copy.to_saved().map(|b| b.len()));
        if copy.status() != Status::Playing {
            break;
        }
    }
    prop_assert!(copy.validate().is_ok(), "{:?}", copy.validate());
    prop_assert_eq!(reading(&source), before);
    if let Some(board) = copy.board() {
        prop_assert_eq!(board.binary_len(), board.to_binary(None).len());
        prop_assert_eq!(board.binary_len(), board.to_binary(Some(seed)).len());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_copy_into_a_small_game_is_a_clone(seed in any::<u64>()) {
        check(seed, 12)?;
    }

    #[test]
    fn a_copy_across_word_edges_is_a_clone(seed in any::<u64>()) {
        check(seed, 140)?;
    }
}

#[test]
fn a_copy_into_a_larger_game_keeps_its_memory() {
    let mut rng = Rng(7);
    let mut big = Game::new(random_board(&mut rng, 300, 300, 0.1));
    let small = Game::new(random_board(&mut rng, 30, 30, 0.1));
    big.reveal(150, 150).ok();
    let bytes = big.heap_bytes();
    big.clone_from(&small);
    assert_eq!(reading(&big), reading(&small));
    // The buffers stay as large as they were: copying back allocates nothing new.
    assert!(big.heap_bytes() >= bytes, "{} < {bytes}", big.heap_bytes());
}
