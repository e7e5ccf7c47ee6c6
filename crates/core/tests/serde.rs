//! `Serialize` and `Deserialize` for boards, games and zones (the `serde` feature).
//!
//! - Boards and games round-trip through serde_json at every kind of state, cell by cell,
//!   and through serde's own byte deserializers, under either rule.
//! - JSON written by hand as an array of numbers reads; a changed number, a number that is
//!   not a byte, or a cut array is an error carrying the core error's message, never a
//!   different board or game.
//! - A deferred game does not serialize; a zone no first click makes does not deserialize.

#![cfg(feature = "serde")]

use bitmines_core::{Board, Cell, Error, FirstClick, Game, Rule, Status, Zone};
use serde::Deserialize;
use serde::de::value::{BorrowedBytesDeserializer, BytesDeserializer};

#[allow(dead_code)]
mod support;
use support::Rng;

/// The saved form of `game` with `seed` recorded in place of its own.
fn saved_with(game: &Game, seed: Option<u64>) -> Result<Vec<u8>, bitmines_core::Error> {
    let mut game = game.clone();
    game.set_seed(seed);
    game.to_saved()
}

/// Every `(row, col)` of a `rows x cols` grid in row order.
fn cells(rows: usize, cols: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..rows).flat_map(move |r| (0..cols).map(move |c| (r, c)))
}

/// Bytes as JSON writes them: an array of numbers.
fn json_array(bytes: &[u8]) -> String {
    let numbers: Vec<String> = bytes.iter().map(u8::to_string).collect();
    format!("[{}]", numbers.join(","))
}

/// Checks that `read` is `want` in every way the public API shows, and valid.
fn check_same_game(want: &Game, read: &Game) {
    let what = want.to_string();
    assert_eq!(read.board(), want.board(), "{what}");
    assert_eq!(read.revealed_count(), want.revealed_count(), "{what}");
    assert_eq!(read.flag_count(), want.flag_count(), "{what}");
    assert_eq!(read.status(), want.status(), "{what}");
    assert_eq!(read.rule(), want.rule(), "{what}");
    let sorted = |game: &Game| {
        let mut exploded: Vec<_> = game.exploded().collect();
        exploded.sort_unstable();
        exploded
    };
    assert_eq!(sorted(read), sorted(want), "{what}");
    for (r, c) in cells(want.rows(), want.cols()) {
        assert_eq!(read.cell(r, c), want.cell(r, c), "{what}: cell ({r}, {c})");
    }
    assert_eq!(read.validate(), Ok(()), "{what}");
}

/// Round-trips `game` through JSON text, JSON bytes, and serde's byte deserializers.
fn check_game(game: &Game) {
    let bytes = saved_with(game, None).unwrap();
    let json = serde_json::to_string(game).unwrap();
    assert_eq!(json, json_array(&bytes), "bytes as an array of numbers");
    check_same_game(game, &serde_json::from_str::<Game>(&json).unwrap());
    check_same_game(
        game,
        &serde_json::from_slice::<Game>(&serde_json::to_vec(game).unwrap()).unwrap(),
    );
    let value = serde_json::to_value(game).unwrap();
    check_same_game(game, &serde_json::from_value::<Game>(value).unwrap());
    let native = BytesDeserializer::<serde::de::value::Error>::new(&bytes);
    check_same_game(game, &Game::deserialize(native).unwrap());
    let borrowed = BorrowedBytesDeserializer::<serde::de::value::Error>::new(&bytes);
    check_same_game(game, &Game::deserialize(borrowed).unwrap());
}

/// Games at every kind of state: playing with right and wrong flags, won, lost by a reveal,
/// lost by a chord that set off several mines.
fn games() -> Vec<Game> {
    let board: Board = "*..*\n....\n.*..\n".parse().unwrap();
    let mut playing = Game::new(board.clone());
    playing.reveal(1, 2).unwrap();
    playing.toggle_flag(0, 0).unwrap();
    playing.toggle_flag(2, 3).unwrap(); // wrong
    let mut won = Game::new(board.clone());
    won.toggle_flag(0, 3).unwrap();
    for (r, c) in cells(3, 4) {
        if !board.is_mine(r, c).unwrap() && won.status() == Status::Playing {
            won.reveal(r, c).unwrap();
        }
    }
    let mut lost = playing.clone();
    lost.reveal(0, 3).unwrap();
    // The 2 at (1, 0) touches the mines at (0, 0) and (2, 1): two wrong flags on its other
    // hidden neighbours, and the chord sets both off.
    let mut chorded = Game::new(board);
    chorded.reveal(1, 0).unwrap();
    chorded.toggle_flag(0, 1).unwrap();
    chorded.toggle_flag(2, 0).unwrap();
    chorded.chord(1, 0).unwrap();
    // No safe cell: won before any move.
    let full = Game::new(Board::from_mines(1, 1, [(0, 0)]).unwrap());
    vec![full, playing, won, lost, chorded]
}

#[test]
fn games_round_trip_at_every_state() {
    let games = games();
    let statuses: Vec<Status> = games.iter().map(Game::status).collect();
    assert_eq!(
        statuses,
        [
            Status::Won,
            Status::Playing,
            Status::Won,
            Status::Lost,
            Status::Lost
        ]
    );
    let chorded = &games[4];
    assert_eq!(chorded.exploded().count(), 2);
    assert_eq!(chorded.cell(0, 1), Ok(Cell::WrongFlag));
    assert_eq!(games[1].cell(2, 3), Ok(Cell::Flagged));
    for game in &games {
        check_game(game);
    }
}

#[test]
fn endless_games_round_trip() {
    let board: Board = "*..*\n....\n.*..\n".parse().unwrap();
    let mut game = Game::new(board.clone()).with_rule(Rule::Endless);
    check_game(&game);
    for (r, c) in [(0, 0), (1, 2), (2, 1), (0, 0)] {
        game.reveal(r, c).unwrap();
        check_game(&game);
    }
    assert_eq!((game.status(), game.exploded_count()), (Status::Playing, 2));
    for (r, c) in cells(3, 4) {
        if !board.is_mine(r, c).unwrap() {
            game.reveal(r, c).unwrap();
        }
    }
    assert_eq!(game.status(), Status::Won);
    check_game(&game);
    // The rule itself is a small value type with its own serde form.
    let json = serde_json::to_string(&Rule::Endless).unwrap();
    assert_eq!(json, "\"Endless\"");
    assert_eq!(serde_json::from_str::<Rule>(&json).unwrap(), Rule::Endless);
}

#[test]
fn boards_round_trip() {
    let mut rng = Rng(5);
    for (rows, cols) in [(1, 1), (1, 63), (3, 64), (2, 65), (5, 129), (16, 30)] {
        for density in [0.0, 0.2, 1.0] {
            let mines: Vec<_> = cells(rows, cols).filter(|_| rng.chance(density)).collect();
            let board = Board::from_mines(rows, cols, mines).unwrap();
            let json = serde_json::to_string(&board).unwrap();
            assert_eq!(json, json_array(&board.to_binary(None)));
            assert_eq!(serde_json::from_str::<Board>(&json).unwrap(), board);
            let bytes = board.to_binary(None);
            let native = BytesDeserializer::<serde::de::value::Error>::new(&bytes);
            assert_eq!(Board::deserialize(native).unwrap(), board);
        }
    }
}

#[test]
fn json_written_as_numbers_reads() {
    let board: Board = "*.\n.*\n".parse().unwrap();
    let json = json_array(&board.to_binary(Some(3)));
    let spaced = json.replace(',', ", ");
    assert_eq!(serde_json::from_str::<Board>(&spaced).unwrap(), board);
    let mut game = Game::new(board);
    game.reveal(0, 1).unwrap();
    let json = format!("\n  {}\n", json_array(&saved_with(&game, Some(3)).unwrap()));
    let read: Game = serde_json::from_str(&json).unwrap();
    check_same_game(&game, &read);
}

#[test]
fn a_changed_byte_is_an_error_never_another_game() {
    for game in games() {
        let bytes = saved_with(&game, None).unwrap();
        for i in 0..bytes.len() {
            for delta in [1u8, 0x80] {
                let mut changed = bytes.clone();
                changed[i] = changed[i].wrapping_add(delta);
                let result = serde_json::from_str::<Game>(&json_array(&changed));
                assert!(result.is_err(), "byte {i} + {delta} read as {result:?}");
            }
        }
    }
    let board = Board::from_mines(3, 9, [(0, 0), (2, 8)]).unwrap();
    let bytes = board.to_binary(None);
    for i in 0..bytes.len() {
        let mut changed = bytes.clone();
        changed[i] ^= 0x10;
        assert!(serde_json::from_str::<Board>(&json_array(&changed)).is_err());
    }
}

#[test]
fn errors_carry_the_core_message() {
    let game = &games()[4];
    let bytes = saved_with(game, None).unwrap();
    let cut = &bytes[..bytes.len() - 1];
    let error = serde_json::from_str::<Game>(&json_array(cut)).unwrap_err();
    let core = Game::from_saved(cut).unwrap_err();
    assert!(matches!(core, Error::Truncated { .. }));
    assert!(error.to_string().contains(&core.to_string()), "{error}");

    let mut changed = bytes.clone();
    changed[8] = 2; // version 2
    let error = serde_json::from_str::<Game>(&json_array(&changed)).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("bitmines saved game format version 2 is not supported"),
        "{error}"
    );

    // A board's bytes are not a game, and the other way round.
    let board_bytes = Board::empty(40, 8).unwrap().to_binary(None);
    assert!(
        board_bytes.len() > 80,
        "long enough for a saved game's header"
    );
    let error = serde_json::from_str::<Game>(&json_array(&board_bytes)).unwrap_err();
    assert!(
        error.to_string().contains("not a bitmines saved game"),
        "{error}"
    );
    let error = serde_json::from_str::<Board>(&json_array(&bytes)).unwrap_err();
    assert!(
        error.to_string().contains("not a binary bitmines board"),
        "{error}"
    );
}

#[test]
fn values_that_are_not_bytes_are_errors() {
    for json in [
        "[137, 256]",
        "[-1]",
        "[1.5]",
        "[\"a\"]",
        "{}",
        "7",
        "null",
        "[]",
    ] {
        assert!(serde_json::from_str::<Game>(json).is_err(), "{json}");
        assert!(serde_json::from_str::<Board>(json).is_err(), "{json}");
    }
}

#[test]
fn a_deferred_game_does_not_serialize() {
    let game = Game::seeded(9, 9, 10, 1).unwrap();
    let error = serde_json::to_string(&game).unwrap_err();
    assert_eq!(error.to_string(), Error::Deferred.to_string());
}

#[test]
fn zones_round_trip_and_only_first_click_shapes_read() {
    for policy in [
        FirstClick::Unprotected,
        FirstClick::Safe,
        FirstClick::Opening,
    ] {
        for (rows, cols, row, col) in [(1, 1, 0, 0), (9, 9, 4, 4), (9, 9, 0, 8), (1, 70, 0, 69)] {
            let zone = policy.zone(rows, cols, row, col).unwrap();
            let json = serde_json::to_string(&zone).unwrap();
            assert_eq!(serde_json::from_str::<Zone>(&json).unwrap(), zone, "{json}");
        }
    }
    let zone = FirstClick::Opening.zone(9, 9, 4, 0).unwrap();
    assert_eq!(
        serde_json::to_string(&zone).unwrap(),
        r#"{"rows":{"start":3,"end":6},"cols":{"start":0,"end":2}}"#
    );
    let range = |start: usize, end: usize| format!(r#"{{"start":{start},"end":{end}}}"#);
    for (rows, cols) in [
        ((0, 4), (0, 1)),
        ((0, 1), (5, 5)),
        ((3, 3), (0, 0)),
        ((2, 1), (0, 1)),
        ((0, usize::MAX), (0, usize::MAX)),
    ] {
        let json = format!(
            r#"{{"rows":{},"cols":{}}}"#,
            range(rows.0, rows.1),
            range(cols.0, cols.1)
        );
        let error = serde_json::from_str::<Zone>(&json).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("not a zone a first click keeps clear"),
            "{json}: {error}"
        );
    }
}
