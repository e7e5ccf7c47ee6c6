//! The tiled game against its naive twin, the single-threaded `Game`: moves whose order
//! cannot matter give the same view, counts and status on tiles of any shape (bands of rows,
//! squares, rectangles down to one cell) played on any number of threads; and any moves at
//! all, right or wrong, give the same tiled game on every thread count.

/// Tiles as wide as any board here: bands of rows.
const BANDS: usize = usize::MAX;

#[allow(dead_code)]
mod support;

use bitmines_core::tiled::Batch;
use bitmines_core::{Board, Cell, Error, Game, Move, Rule, Status, TiledGame};
use proptest::prelude::*;
use support::Rng;

/// A random board: sizes across word edges, densities from sparse (long cascades over many
/// tiles) to dense.
fn random_board(rng: &mut Rng) -> Board {
    let rows = 1 + rng.below(40);
    let cols = rng.pick(&[1, 2, 5, 30, 62, 63, 64, 65, 100, 130]);
    let density = rng.pick(&[0.0, 0.03, 0.08, 0.15, 0.3]);
    let mines: Vec<_> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .filter(|_| rng.chance(density))
        .collect();
    Board::from_mines(rows, cols, mines).unwrap()
}

fn random_cell(rng: &mut Rng, board: &Board) -> (usize, usize) {
    (rng.below(board.rows()), rng.below(board.cols()))
}

/// A batch of moves whose order cannot matter: reveals (of safe cells, and under the endless
/// rule of mines too) and flags toggled on mines; or, every other batch, chords on cells the
/// twin shows revealed, with no flag changing.
fn order_free_batch(rng: &mut Rng, twin: &Game, rule: Rule, chords: bool) -> Vec<Move> {
    let board = twin.board().unwrap().clone();
    let mut moves = Vec::new();
    for _ in 0..1 + rng.below(30) {
        let (r, c) = random_cell(rng, &board);
        let mine = board.is_mine(r, c).unwrap();
        if chords {
            // Chords on revealed cells, at tile corners and edges as often as anywhere.
            if matches!(twin.cell(r, c), Ok(Cell::Open(_))) {
                moves.push(Move::Chord(r, c));
            }
        } else if mine {
            match (rule, rng.below(3)) {
                (Rule::Endless, 0) => moves.push(Move::Reveal(r, c)),
                _ => moves.push(Move::Flag(r, c)),
            }
        } else {
            moves.push(Move::Reveal(r, c));
        }
    }
    moves
}

/// Plays `moves` on the twin one after another; `None` once the twin refuses one because
/// the game ended (won), when the tiled game, which cannot know mid-batch that it won, may
/// rightly differ.
fn twin_plays(twin: &mut Game, moves: &[Move]) -> Option<(usize, usize)> {
    let (mut opened, mut exploded) = (0, 0);
    for &step in moves {
        let result = match step {
            Move::Reveal(r, c) => twin.reveal(r, c).map(|s| (s.opened, s.exploded)),
            Move::Chord(r, c) => twin.chord(r, c).map(|s| (s.opened, s.exploded)),
            Move::Flag(r, c) => twin.toggle_flag(r, c).map(|_| (0, 0)),
        };
        match result {
            Ok((o, e)) => {
                opened += o;
                exploded += e;
            }
            Err(Error::GameOver { .. }) => return None,
            Err(other) => panic!("the twin refused {step:?}: {other}"),
        }
    }
    Some((opened, exploded))
}

/// The tiled game and the twin agree on every cell and every counter, and both are valid.
fn assert_same(tiled: &TiledGame, twin: &Game, context: &str) {
    assert_eq!(tiled.validate(), Ok(()), "{context}");
    assert_eq!(twin.validate(), Ok(()), "{context}");
    assert_eq!(tiled.status(), twin.status(), "{context}");
    assert_eq!(tiled.revealed_count(), twin.revealed_count(), "{context}");
    assert_eq!(tiled.flag_count(), twin.flag_count(), "{context}");
    assert_eq!(tiled.exploded_count(), twin.exploded_count(), "{context}");
    for row in 0..twin.rows() {
        for col in 0..twin.cols() {
            assert_eq!(
                tiled.cell(row, col),
                twin.cell(row, col),
                "{context}: cell ({row}, {col})"
            );
        }
    }
    let game = tiled.to_game().unwrap();
    assert_eq!(game.validate(), Ok(()), "{context}");
    assert_eq!(game.revealed_count(), twin.revealed_count(), "{context}");
}

/// Everything about two tiled games that the moves decide (the threads' shares aside).
fn fingerprint(tiled: &TiledGame, batches: &[Batch]) -> Vec<String> {
    let mut out: Vec<String> = batches
        .iter()
        .map(|b| format!("{} {} {} {}", b.opened, b.handed_over, b.exploded, b.rounds))
        .collect();
    out.push(format!(
        "{} {} {} {}",
        tiled.status(),
        tiled.revealed_count(),
        tiled.flag_count(),
        tiled.exploded_count()
    ));
    for tile in tiled.tiles() {
        out.push(format!("{:?}", tile.work()));
    }
    let game = tiled.to_game().unwrap();
    out.push(format!("{:?}", game.exploded().collect::<Vec<_>>()));
    for row in 0..tiled.rows() {
        let bits = |row: &bitvec::slice::BitSlice<u64, bitvec::order::Lsb0>| {
            row.iter()
                .map(|b| if *b { '1' } else { '0' })
                .collect::<String>()
        };
        out.push(format!(
            "{} {}",
            bits(game.revealed_row(row).unwrap()),
            bits(game.flagged_row(row).unwrap())
        ));
    }
    out
}

/// Order-free moves: the tiled game on tiles of `size` (rows, columns) and `threads` threads
/// ends where the twin does, batch after batch.
fn check_order_free(seed: u64, size: (usize, usize), threads: usize) -> Coverage {
    let mut seen = Coverage::default();
    let mut rng = Rng(seed);
    let board = random_board(&mut rng);
    let rule = rng.pick(&[Rule::Classic, Rule::Endless]);
    let mut twin = Game::new(board.clone()).with_rule(rule);
    if twin.status() != Status::Playing {
        return seen;
    }
    // Half the time the game is cut into tiles after a first batch played on the whole game,
    // with cells revealed, flags placed and mines set off already.
    if rng.chance(0.5) {
        let moves = order_free_batch(&mut rng, &twin, rule, false);
        if twin_plays(&mut twin, &moves).is_none() || twin.status() != Status::Playing {
            return seen;
        }
    }
    let mut tiled = TiledGame::with_tiles(twin.clone(), size.0, size.1).unwrap();
    assert_same(
        &tiled,
        &twin,
        &format!("seed {seed}, tiles {size:?}: cut into tiles"),
    );
    for round in 0..6 {
        let moves = order_free_batch(&mut rng, &twin, rule, round % 2 == 1);
        let context = format!("seed {seed}, tiles {size:?}, threads {threads}, batch {round}");
        let Some((opened, exploded)) = twin_plays(&mut twin, &moves) else {
            return seen;
        };
        let batch = tiled.apply(threads, &moves).unwrap();
        let chords = round % 2 == 1;
        seen.handed_over += batch.handed_over;
        seen.chord_opened += if chords { opened } else { 0 };
        seen.chord_handed_over += if chords { batch.handed_over } else { 0 };
        seen.exploded += batch.exploded;
        assert_eq!(batch.opened + batch.handed_over, opened, "{context}");
        assert_eq!(batch.exploded, exploded, "{context}");
        assert_same(&tiled, &twin, &context);
        if twin.status() != Status::Playing {
            seen.ended += 1;
            return seen;
        }
    }
    seen
}

/// What the order-free runs went through, to show the property test reaches the cases it
/// is about.
#[derive(Debug, Default)]
struct Coverage {
    handed_over: usize,
    chord_opened: usize,
    chord_handed_over: usize,
    exploded: usize,
    ended: usize,
}

/// The order-free runs hand cells over tile edges, open cells by chords (past edges too),
/// set off mines and end games.
#[test]
fn the_order_free_runs_reach_every_case() {
    let mut total = Coverage::default();
    for seed in 0..200 {
        let cols = [BANDS, 1, 3, 7][seed as usize / 4 % 4];
        let seen = check_order_free(seed, (1 + seed as usize % 4, cols), 2);
        total.handed_over += seen.handed_over;
        total.chord_opened += seen.chord_opened;
        total.chord_handed_over += seen.chord_handed_over;
        total.exploded += seen.exploded;
        total.ended += seen.ended;
    }
    let Coverage {
        handed_over,
        chord_opened,
        chord_handed_over,
        exploded,
        ended,
    } = total;
    assert!(
        handed_over > 0 && chord_opened > 0 && chord_handed_over > 0 && exploded > 0 && ended > 0,
        "{total:?}"
    );
}

/// Any moves, wrong flags and mines under the classic rule included: the same tiled game on
/// every thread count.
fn check_threads_agree(seed: u64, size: (usize, usize)) {
    let mut rng = Rng(seed);
    let board = random_board(&mut rng);
    let rule = rng.pick(&[Rule::Classic, Rule::Endless]);
    let game = Game::new(board.clone()).with_rule(rule);
    if game.status() != Status::Playing {
        return;
    }
    let batches: Vec<Vec<Move>> = (0..5)
        .map(|_| {
            (0..1 + rng.below(40))
                .map(|_| {
                    let (r, c) = random_cell(&mut rng, &board);
                    match rng.below(4) {
                        0 => Move::Flag(r, c),
                        1 => Move::Chord(r, c),
                        _ => Move::Reveal(r, c),
                    }
                })
                .collect()
        })
        .collect();
    let run = |threads: usize| {
        let mut tiled = TiledGame::with_tiles(game.clone(), size.0, size.1).unwrap();
        let mut done = Vec::new();
        for moves in &batches {
            match tiled.apply(threads, moves) {
                Ok(batch) => done.push(batch),
                Err(Error::GameOver { .. }) => break,
                Err(other) => panic!("seed {seed}: {other}"),
            }
            assert_eq!(tiled.validate(), Ok(()), "seed {seed}, threads {threads}");
        }
        fingerprint(&tiled, &done)
    };
    let one = run(1);
    for threads in [2, 3, 7] {
        let other = run(threads);
        let first = one.iter().zip(&other).position(|(a, b)| a != b);
        assert_eq!(
            first,
            None,
            "seed {seed}, tiles {size:?}, threads {threads}: {:?}",
            first.map(|i| (&one[i], &other[i]))
        );
        assert_eq!(other.len(), one.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn order_free_moves_agree_with_the_game(
        seed in any::<u64>(),
        rows in prop_oneof![Just(1usize), Just(2), 1usize..12, Just(64)],
        cols in prop_oneof![Just(BANDS), Just(1usize), Just(2), 1usize..12, Just(63), Just(64)],
        threads in prop_oneof![Just(1usize), Just(2), Just(7)],
    ) {
        check_order_free(seed, (rows, cols), threads);
    }

    #[test]
    fn any_moves_give_the_same_game_on_every_thread_count(
        seed in any::<u64>(),
        rows in prop_oneof![Just(1usize), 1usize..9],
        cols in prop_oneof![Just(BANDS), Just(1usize), 1usize..9, Just(64)],
    ) {
        check_threads_agree(seed, (rows, cols));
    }
}

fn board(text: &str) -> Board {
    text.parse().unwrap()
}

/// A zero region that winds through one-row tiles between walls of mines, each with a gap
/// at alternate ends: the cascade goes from tile to tile over one round of exchange each,
/// and on squares along the walls too.
#[test]
fn a_winding_cascade_crosses_every_tile() {
    let (rows, cols) = (40, 70);
    let mines = (0..rows).filter(|r| r % 4 == 3).flat_map(|r| {
        let gap = if r / 4 % 2 == 0 { cols - 3..cols } else { 0..3 };
        (0..cols)
            .filter(move |c| !gap.contains(c))
            .map(move |c| (r, c))
    });
    let game = Game::new(Board::from_mines(rows, cols, mines).unwrap());
    for (band, cols) in [
        (1, BANDS),
        (2, BANDS),
        (3, BANDS),
        (64, BANDS),
        (1, 1),
        (3, 5),
    ] {
        let mut twin = game.clone();
        let mut tiled = TiledGame::with_tiles(game.clone(), band, cols).unwrap();
        let batch = tiled.apply(3, &[Move::Reveal(1, 1)]).unwrap();
        let step = twin.reveal(1, 1).unwrap();
        assert_eq!(batch.opened + batch.handed_over, step.opened);
        assert_eq!(step.status, Status::Won);
        assert!(batch.rounds >= (rows - 1) / band, "{} rounds", batch.rounds);
        assert_same(&tiled, &twin, &format!("winding, tiles {band}x{cols}"));
    }
}

/// Chords on the edge cells of tiles: the flags past the edge count, and the cells past it
/// open in the exchange, at a corner of the board and in the middle; on squares of two by
/// two the flags lie on tile borders and the chord on (2, 1) reaches (1, 2) across a tile
/// corner.
#[test]
fn chords_across_tile_edges_and_corners() {
    let text = "*..*\n....\n....\n*...\n";
    // Rows: 0 "*..*", 1 "....", 2 "....", 3 "*...". Tiles of two rows: edge between 1 and 2.
    for (rows, cols) in [(2, BANDS), (2, 2), (1, 1), (3, 2), (2, 3)] {
        let game = Game::new(board(text));
        let mut twin = game.clone();
        let mut tiled = TiledGame::with_tiles(game, rows, cols).unwrap();
        let opening = [Move::Reveal(1, 1), Move::Reveal(2, 1), Move::Reveal(1, 0)];
        let flags = [Move::Flag(0, 0), Move::Flag(3, 0)];
        let chords = [Move::Chord(1, 0), Move::Chord(2, 0), Move::Chord(2, 1)];
        for moves in [&opening[..], &flags[..], &chords[..]] {
            let expected = twin_plays(&mut twin, moves).unwrap();
            let batch = tiled.apply(2, moves).unwrap();
            assert_eq!((batch.opened + batch.handed_over, batch.exploded), expected);
            assert_same(&tiled, &twin, &format!("tiles {rows}x{cols}: {moves:?}"));
        }
    }
}

/// A zero region that crosses from one square to another only at their common corner: the
/// diagonal neighbour is handed over, and its tile opens the rest.
#[test]
fn a_cascade_crosses_a_tile_corner() {
    // Zero cells (1, 1) and (2, 2) touch only diagonally, across the corner of 2x2 tiles.
    let game = Game::new(board("...*\n....\n....\n*...\n"));
    let mut twin = game.clone();
    let mut tiled = TiledGame::with_tiles(game, 2, 2).unwrap();
    let batch = tiled.apply(2, &[Move::Reveal(0, 0)]).unwrap();
    let step = twin.reveal(0, 0).unwrap();
    assert_eq!(
        (batch.opened, batch.opened + batch.handed_over),
        (4, step.opened)
    );
    assert_eq!(tiled.tiles()[3].work().handed_in, 4);
    assert_eq!(tiled.tiles()[3].cols(), 2..4);
    assert_same(&tiled, &twin, "corner");
}

/// A wrong flag and a chord past a tile edge set off a mine of the neighbour tile: the game
/// is lost after the batch, and the lost view shows it.
#[test]
fn a_chord_past_an_edge_sets_off_a_mine_there() {
    let game = Game::new(board("..\n.*\n..\n"));
    let mut twin = game.clone();
    let mut tiled = TiledGame::new(game, 1).unwrap();
    for moves in [
        &[Move::Reveal(0, 0)][..],
        &[Move::Flag(0, 1)][..],
        &[Move::Chord(0, 0)][..],
    ] {
        let expected = twin_plays(&mut twin, moves).unwrap();
        let batch = tiled.apply(2, moves).unwrap();
        assert_eq!((batch.opened + batch.handed_over, batch.exploded), expected);
    }
    assert_eq!(tiled.status(), Status::Lost);
    assert_same(&tiled, &twin, "lost");
    assert_eq!(tiled.cell(0, 1), Ok(Cell::WrongFlag));
    assert!(matches!(
        tiled.apply(1, &[Move::Reveal(2, 0)]),
        Err(Error::GameOver {
            status: Status::Lost
        })
    ));
}

/// Bad input is a typed error naming the value.
#[test]
fn bad_input_is_an_error() {
    let game = Game::new(board("...\n...\n"));
    assert_eq!(
        TiledGame::new(game.clone(), 0).err(),
        Some(Error::EmptyTile { rows: 0, cols: 3 })
    );
    let mut tiled = TiledGame::new(game, 1).unwrap();
    assert!(matches!(
        tiled.apply(1, &[Move::Reveal(2, 0)]),
        Err(Error::OffBoard { row: 2, .. })
    ));
    let refused = std::sync::Mutex::new(None);
    tiled
        .play(1, |tile| {
            if tile.index() == 0 {
                *refused.lock().unwrap() = Some(tile.reveal(1, 0));
            }
        })
        .unwrap();
    assert_eq!(
        refused.into_inner().unwrap(),
        Some(Err(Error::OffTile {
            row: 1,
            col: 0,
            top: 0,
            bottom: 1,
            left: 0,
            right: 3
        }))
    );
    let deferred = Game::seeded(5, 5, 3, 1).unwrap();
    assert_eq!(TiledGame::new(deferred, 2).err(), Some(Error::Deferred));
    let game = Game::new(board("...\n...\n"));
    assert_eq!(
        TiledGame::with_tiles(game.clone(), 1, 0).err(),
        Some(Error::EmptyTile { rows: 1, cols: 0 })
    );
    let squares = TiledGame::with_tiles(game, 1, 2).unwrap();
    assert_eq!((squares.grid(), squares.tiles().len()), ((2, 2), 4));
    assert_eq!(squares.tile_of(1, 2), 3);
    assert_eq!(squares.tile_of(2, 0), 4);
    assert_eq!(
        squares.tiles()[1].cell(0, 1),
        Err(Error::OffTile {
            row: 0,
            col: 1,
            top: 0,
            bottom: 1,
            left: 2,
            right: 3
        })
    );
}
