//! One `Arc<Board>` shared by many games on many threads: each game ends exactly as it does
//! when the games are played one by one.

#[allow(dead_code)]
mod support;

use std::sync::Arc;

use bitmines_core::{Board, Fill, Game, Status};
use bitmines_gen::{Config, generate};
use rayon::prelude::*;
use support::Rng;

/// What a finished game looks like: status, counters, and a hash of every cell.
#[derive(Debug, PartialEq, Eq)]
struct Ending {
    status: Status,
    revealed: usize,
    flags: usize,
    cells: u64,
    calls: usize,
}

/// Plays game `index` on `board` to its end with seeded random reveals, flags and chords.
fn play(board: &Arc<Board>, index: u64) -> Ending {
    let fill = if index.is_multiple_of(2) {
        Fill::Words
    } else {
        Fill::Scalar
    };
    let mut game = Game::new(Arc::clone(board)).with_fill(fill);
    let mut rng = Rng::new(index);
    let (rows, cols) = (board.rows(), board.cols());
    let mut calls = 0;
    while game.status() == Status::Playing {
        let (r, c) = (rng.below(rows), rng.below(cols));
        let mine = board.is_mine(r, c).expect("on the board");
        calls += 1;
        // A third of the games play carelessly (blind reveals, flags anywhere) and may
        // lose; the others only reveal safe cells and flag mines, so their chords are safe.
        let careless = index.is_multiple_of(3);
        match rng.below(10) {
            0..=6 if careless || !mine => drop(game.reveal(r, c).expect("playing")),
            7 | 8 if careless || mine => drop(game.toggle_flag(r, c).expect("playing")),
            9 => drop(game.chord(r, c).expect("playing")),
            _ => {}
        }
    }
    game.validate().expect("a valid game");
    let mut cells = 0xCBF2_9CE4_8422_2325_u64;
    for r in 0..rows {
        for c in 0..cols {
            let cell = format!("{:?}", game.cell(r, c).expect("on the board"));
            for byte in cell.bytes() {
                cells = (cells ^ u64::from(byte)).wrapping_mul(0x100_0000_01B3);
            }
        }
    }
    Ending {
        status: game.status(),
        revealed: game.revealed_count(),
        flags: game.flag_count(),
        cells,
        calls,
    }
}

#[test]
fn games_sharing_one_board_on_many_threads_end_as_they_do_alone() {
    let board = Arc::new(generate(&Config::new(120, 130, 1800, 21)).expect("a board"));
    let games = 48;
    let alone: Vec<Ending> = (0..games).map(|i| play(&board, i)).collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(8)
        .build()
        .expect("a pool");
    let together: Vec<Ending> = pool.install(|| {
        (0..games)
            .into_par_iter()
            .map(|i| play(&board, i))
            .collect()
    });
    assert_eq!(alone, together);
    assert!(alone.iter().any(|e| e.status == Status::Won));
    assert!(alone.iter().any(|e| e.status == Status::Lost));
    assert_eq!(Arc::strong_count(&board), 1, "every game dropped its share");
}

#[test]
fn games_move_between_threads_mid_game() {
    let board = Arc::new(generate(&Config::new(64, 200, 1500, 5)).expect("a board"));
    let mut game = Game::new(Arc::clone(&board));
    for round in 0..8 {
        game = std::thread::spawn(move || {
            let mut rng = Rng::new(round);
            for _ in 0..200 {
                let (r, c) = (rng.below(64), rng.below(200));
                if game.status() == Status::Playing && !board_is_mine(&game, r, c) {
                    game.reveal(r, c).expect("playing");
                }
            }
            game
        })
        .join()
        .expect("the thread finished");
    }
    assert!(game.revealed_count() > 0);
    assert_eq!(game.validate(), Ok(()));
}

fn board_is_mine(game: &Game, r: usize, c: usize) -> bool {
    game.board()
        .is_some_and(|board| board.is_mine(r, c) == Ok(true))
}
