//! `Config` through serde (the `serde` feature): it round-trips through JSON, a config read
//! back generates the same board, and reading checks the types and the zone's shape while
//! sizes and counts are left to `generate`, as for a config built in code.

#![cfg(feature = "serde")]

use bitmines_core::FirstClick;
use bitmines_gen::{Config, Error, generate};

#[test]
fn configs_round_trip_and_generate_the_same_board() {
    for (rows, cols, mines, seed, click) in [
        (1, 1, 0, 0, None),
        (16, 30, 99, 7, Some((8, 15))),
        (3, 129, 100, u64::MAX, Some((0, 128))),
        (600, 500, 45_000, 42, Some((599, 0))),
    ] {
        let mut config = Config::new(rows, cols, mines, seed);
        if let Some((row, col)) = click {
            config = config.keep_clear(FirstClick::Opening.zone(rows, cols, row, col).unwrap());
        }
        let json = serde_json::to_string(&config).unwrap();
        let read: Config = serde_json::from_str(&json).unwrap();
        assert_eq!(read, config, "{json}");
        assert_eq!(
            generate(&read).unwrap(),
            generate(&config).unwrap(),
            "{json}"
        );
    }
}

#[test]
fn the_json_names_every_field() {
    let config = Config::new(9, 9, 10, 3).keep_clear(FirstClick::Safe.zone(9, 9, 0, 0).unwrap());
    assert_eq!(
        serde_json::to_string(&config).unwrap(),
        r#"{"rows":9,"cols":9,"mines":10,"seed":3,"keep_clear":{"rows":{"start":0,"end":1},"cols":{"start":0,"end":1}}}"#
    );
}

#[test]
fn reading_checks_types_and_zones_and_generate_checks_the_rest() {
    let zone = r#"{"rows":{"start":0,"end":1},"cols":{"start":0,"end":1}}"#;
    let json = |rows: &str, mines: &str, zone: &str| {
        format!(r#"{{"rows":{rows},"cols":9,"mines":{mines},"seed":1,"keep_clear":{zone}}}"#)
    };
    // Wrong types, missing fields and zones no first click makes are refused on reading.
    for bad in [
        json("-1", "10", zone),
        json("9", "\"ten\"", zone),
        json("9", "10", "null"),
        json(
            "9",
            "10",
            r#"{"rows":{"start":0,"end":5},"cols":{"start":0,"end":1}}"#,
        ),
        r#"{"rows":9,"cols":9,"mines":10,"seed":1}"#.to_string(),
    ] {
        assert!(serde_json::from_str::<Config>(&bad).is_err(), "{bad}");
    }
    // Sizes and counts are well-typed, so they read, and generate refuses them.
    let empty: Config = serde_json::from_str(&json("0", "0", zone)).unwrap();
    assert!(matches!(generate(&empty), Err(Error::Core(_))));
    let crowded: Config = serde_json::from_str(&json("9", "81", zone)).unwrap();
    assert!(matches!(
        generate(&crowded),
        Err(Error::TooManyMines { max: 80, .. })
    ));
    // A zone off the board keeps nothing clear there.
    let off = r#"{"rows":{"start":100,"end":103},"cols":{"start":0,"end":3}}"#;
    let config: Config = serde_json::from_str(&json("9", "81", off)).unwrap();
    assert_eq!(generate(&config).unwrap().mine_count(), 81);
}
