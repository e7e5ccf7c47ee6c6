//! Whole screens, drawn on ratatui's test backend: snapshots of the key states, checked
//! against the text kept in `tests/play/*.txt`, and random events that must never panic.
//!
//! After a deliberate change to the screen, `BITMINES_BLESS=1 cargo test --bin bitmines
//! play::screens` rewrites the snapshots; the diff then shows what changed.

use std::fs;
use std::path::PathBuf;

use bitmines_core::{Cell, FirstClick, Status};
use proptest::prelude::*;
use ratatui::style::{Color, Modifier};

use super::script::{
    BOARD, KEYS, app_on, custom, play, screen, screen_text, seeded, wait_for_board,
};

/// Compares the screen with the snapshot `tests/play/NAME.txt`.
pub(super) fn check(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/play")
        .join(format!("{name}.txt"));
    if std::env::var_os("BITMINES_BLESS").is_some() {
        fs::write(&path, actual).expect("writes the snapshot");
        return;
    }
    let shown = path.display();
    let expected = fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {shown}: {e}"));
    let differs = format!("screen {name} differs from {shown}\n--- expected\n{expected}");
    assert!(actual == expected, "{differs}--- actual\n{actual}");
}

/// A snapshot: its name, the board (`expert` or a text board), the terminal's size, whether
/// it is drawn in ASCII, and the script played.
type Snapshot = (&'static str, &'static str, (u16, u16), bool, &'static str);

#[test]
fn snapshots_of_key_states() {
    #[rustfmt::skip]
    let cases: &[Snapshot] = &[
        ("start", "expert", (80, 24), false, ""),
        ("mid-game", "expert", (80, 24), false,
            "space right right right f down down f up left left left left enter"),
        ("mid-game-ascii", "expert", (80, 24), true,
            "space right right right f down down f up left left left left enter"),
        ("won", BOARD, (60, 16), false,
            "wait:1000 G space wait:2000 g down down space wait:1000 down right right space"),
        ("lost", BOARD, (60, 16), false, "wait:500 G space flag:3,2 wait:1500 chord:2,3"),
        ("lost-board", BOARD, (60, 16), false, "G space flag:3,2 flag:0,0 chord:2,3 esc"),
        ("lost-board-ascii", BOARD, (60, 16), true, "G space flag:3,2 flag:0,0 chord:2,3 esc"),
        ("odds-digits", "expert", (80, 24), false, "space p p"),
        ("odds-digits-ascii", BOARD, (60, 16), true, "G space p p"),
        ("hint", "expert", (80, 24), false, "space h"),
        ("wrong-flag", BOARD, (60, 16), false, "G space flag:3,2 w"),
        ("won-with-help", BOARD, (60, 16), false,
            "G space h p w esc g down down space down right right space"),
        ("keys", BOARD, (80, 30), false, "?"),
        ("narrow", "expert", (40, 12), false, "space"),
        ("too-small", BOARD, (20, 5), false, ""),
    ];
    for &(name, board, (width, height), ascii, script) in cases {
        let (app, start) = if board == "expert" {
            let mut expert = custom(16, 30, 99, FirstClick::Opening, 2026);
            expert.name = "expert";
            seeded(expert, width, height)
        } else {
            app_on(board, width, height)
        };
        let mut app = app.with_ascii(ascii);
        play(&mut app, start, script);
        check(name, &screen_text(&app));
    }
}

/// A board far larger than the terminal: the view shows where it is, and only its cells are
/// drawn.
#[test]
fn a_huge_board_shows_its_position() {
    let setup = custom(2000, 3000, 600_000, FirstClick::Opening, 7);
    let (mut app, start) = seeded(setup, 80, 24);
    let (now, _) = play(&mut app, start, "space");
    let now = wait_for_board(&mut app, now);
    play(&mut app, now, "S-down S-right space");
    check("huge", &screen_text(&app));
}

/// The colours and the cursor, which text snapshots do not show.
#[test]
fn numbers_have_their_colours_and_the_cursor_is_reversed() {
    let (mut app, start) = app_on(BOARD, 60, 16);
    play(&mut app, start, "G space left");
    let buffer = screen(&app);
    let screen = app.screen().expect("fits");
    let style_at = |row: usize, col: usize| {
        let (x, y) = screen.glyph_at(row, col).expect("in view");
        buffer.cell((x, y)).expect("on screen").style()
    };
    assert_eq!(app.game().cell(1, 1), Ok(Cell::Open(2)));
    assert_eq!(style_at(1, 1).fg, Some(Color::Green));
    assert_eq!(style_at(0, 1).fg, Some(Color::LightBlue));
    assert_eq!(style_at(0, 0).fg, Some(Color::DarkGray)); // hidden
    assert!(style_at(3, 3).add_modifier.contains(Modifier::REVERSED)); // the cursor
    assert!(!style_at(3, 2).add_modifier.contains(Modifier::REVERSED));
}

/// Script words for random play: every key the game uses, a few it does not, mouse buttons
/// anywhere on a terminal of up to 100x40, the wheel, resizes down to nothing, and time.
fn word() -> impl Strategy<Value = String> {
    // The script's named keys but Tab and Ctrl-C, the letters the game uses and one it does
    // not, and the wheel.
    let named = KEYS
        .iter()
        .map(|key| key.0)
        .filter(|w| !matches!(*w, "tab" | "C-c"));
    let letters = ["f", "h", "p", "w", "s", "n", "c", "g", "G", "?", "x"];
    let wheel = ["wheel:up", "wheel:down", "wheel:S-down"];
    let keys: Vec<String> = (named.chain(letters).chain(wheel))
        .map(str::to_owned)
        .collect();
    prop_oneof![
        8 => proptest::sample::select(keys),
        2 => (0u16..100, 0u16..40).prop_map(|(x, y)| format!("click:{x},{y}")),
        2 => (0u16..100, 0u16..40).prop_map(|(x, y)| format!("rclick:{x},{y}")),
        1 => (0u16..100, 0u16..40).prop_map(|(x, y)| format!("mclick:{x},{y}")),
        1 => (0u16..100, 0u16..40).prop_map(|(w, h)| format!("resize:{w},{h}")),
        1 => (0u64..3000).prop_map(|ms| format!("wait:{ms}")),
    ]
}

/// Plays `words` on the board `board` (text, or `seeded RxC` for a generated one), drawing
/// after every event and checking the game and the view.
fn survive(board: &str, (width, height): (u16, u16), words: &[String]) {
    let (mut app, mut now) = match board.strip_prefix("seeded ") {
        Some(size) => {
            let (rows, cols) = size.split_once('x').expect("RxC");
            let (rows, cols) = (rows.parse().expect("rows"), cols.parse().expect("cols"));
            let setup = custom(rows, cols, (rows * cols) / 5, FirstClick::Safe, 3);
            seeded(setup, width, height)
        }
        None => app_on(board, width, height),
    };
    for word in words {
        now = play(&mut app, now, word).0;
        screen(&app);
        let game = app.game();
        game.validate().expect("a valid game");
        let (cursor, origin) = (app.cursor(), app.origin());
        let on_board = cursor.0 < game.rows() && cursor.1 < game.cols();
        assert!(on_board, "{cursor:?}");
        if let Some(view) = app.screen() {
            assert!(origin.0 + view.span_rows <= game.rows(), "{origin:?}");
            assert!(origin.1 + view.span_cols <= game.cols(), "{origin:?}");
        }
        if game.status() != Status::Playing {
            assert!(app.summary().is_some());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every board shape: a small one given whole, generated ones, and one row or column.
    #[test]
    fn no_event_sequence_panics(
        words in proptest::collection::vec(word(), 0..80),
        size in (0u16..100, 0u16..40),
    ) {
        let small = "*..*.\n.....\n..*..\n.*...\n";
        for board in [small, "seeded 6x7", ".*...*......\n", "seeded 1x40", "seeded 40x1"] {
            survive(board, size, &words);
        }
    }
}
