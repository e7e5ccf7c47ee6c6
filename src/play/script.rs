//! Games played from a script of key and mouse events, for the tests: the same script gives
//! the same state and the same screen every time, with no terminal.
//!
//! A script is words separated by spaces:
//!
//! - keys: `up`, `down`, `left`, `right` (`S-right` with Shift), `pgup`, `pgdn`, `home`,
//!   `end`, `space`, `enter`, `esc`, `tab`, `C-c`, or any single character (`f`, `?`, `G`);
//! - mouse buttons on a board cell, found through the screen's layout as a player's pointer
//!   would be: `open:R,C` (left), `flag:R,C` (right), `chord:R,C` (middle);
//! - the mouse at a terminal position: `click:X,Y`, `rclick:X,Y`, `mclick:X,Y`; the wheel:
//!   `wheel:up`, `wheel:down`, `wheel:S-down` (sideways);
//! - `resize:W,H`, and `wait:MS`, which moves the clock on without an event.

use std::time::{Duration, Instant};

use bitmines_core::{Board, FirstClick, Game};
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::app::Play;
use super::{Action, App, Setup, draw};

/// A 4x5 board: two openings and one isolated number, so its 3BV is 3.
pub(super) const BOARD: &str = "*....\n.....\n..*..\n.....\n";

/// A setup named `custom`, the first click's cell kept `first_click`.
pub(super) fn custom(
    rows: usize,
    cols: usize,
    mines: usize,
    first_click: FirstClick,
    seed: u64,
) -> Setup {
    Setup {
        name: "custom",
        rows,
        cols,
        mines,
        first_click,
        seed: Some(seed),
        no_guess: false,
    }
}

/// An app on the board `text` (`*` mine, `.` safe) in a terminal of `width x height`.
pub(super) fn app_on(text: &str, width: u16, height: u16) -> (App, Instant) {
    let board: Board = text.parse().expect("a board");
    let (rows, cols, mines) = (board.rows(), board.cols(), board.mine_count());
    let setup = custom(rows, cols, mines, FirstClick::Opening, 1);
    let (start, area) = (Instant::now(), Rect::new(0, 0, width, height));
    let app = App::local(Game::new(board), setup, area, start, false);
    (app, start)
}

/// An app on a seeded game whose board is generated on the first click.
pub(super) fn seeded(setup: Setup, width: u16, height: u16) -> (App, Instant) {
    let start = Instant::now();
    let game = setup.game().expect("a game");
    let app = App::local(game, setup, Rect::new(0, 0, width, height), start, false);
    (app, start)
}

/// Plays `script` on `app`, the clock starting at `now`; returns the clock after it and the
/// action each event asked for.
pub(super) fn play<S: Play>(
    app: &mut App<S>,
    mut now: Instant,
    script: &str,
) -> (Instant, Vec<Action>) {
    let mut actions = Vec::new();
    for word in script.split_whitespace() {
        if let Some(ms) = word.strip_prefix("wait:") {
            now += Duration::from_millis(ms.parse().expect("milliseconds"));
            app.tick(now);
            continue;
        }
        let event = event(app, word);
        actions.push(app.handle(&event, now));
    }
    (now, actions)
}

/// Whether the message line holds `part` (any line holds "", none too).
pub(super) fn says<S: Play>(app: &App<S>, part: &str) -> bool {
    app.message().unwrap_or_default().contains(part)
}

/// Waits (for real) until the board of a first click made off the input thread is there,
/// moving the app's clock on by the time waited; returns the clock then.
pub(super) fn wait_for_board(app: &mut App, mut now: Instant) -> Instant {
    let give_up = now + Duration::from_secs(120);
    while app.busy() {
        assert!(now < give_up, "the board never came");
        std::thread::sleep(Duration::from_millis(10));
        now += Duration::from_millis(10);
        app.tick(now);
    }
    now
}

/// The named keys of a script, with their modifiers.
pub(super) const KEYS: [(&str, KeyCode, KeyModifiers); 17] = [
    ("up", KeyCode::Up, NONE),
    ("down", KeyCode::Down, NONE),
    ("left", KeyCode::Left, NONE),
    ("right", KeyCode::Right, NONE),
    ("S-up", KeyCode::Up, SHIFT),
    ("S-down", KeyCode::Down, SHIFT),
    ("S-left", KeyCode::Left, SHIFT),
    ("S-right", KeyCode::Right, SHIFT),
    ("pgup", KeyCode::PageUp, NONE),
    ("pgdn", KeyCode::PageDown, NONE),
    ("home", KeyCode::Home, NONE),
    ("end", KeyCode::End, NONE),
    ("space", KeyCode::Char(' '), NONE),
    ("enter", KeyCode::Enter, NONE),
    ("esc", KeyCode::Esc, NONE),
    ("tab", KeyCode::Tab, NONE),
    ("C-c", KeyCode::Char('c'), KeyModifiers::CONTROL),
];

const NONE: KeyModifiers = KeyModifiers::NONE;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;

/// The event a script word stands for.
pub(super) fn event<S: Play>(app: &App<S>, word: &str) -> Event {
    let pair = |text: &str| -> (usize, usize) {
        let (a, b) = text.split_once(',').expect("A,B");
        (a.parse().expect("a number"), b.parse().expect("a number"))
    };
    let mouse = |kind, (x, y): (usize, usize), modifiers| {
        Event::Mouse(MouseEvent {
            kind,
            column: x as u16,
            row: y as u16,
            modifiers,
        })
    };
    if let Some((verb, rest)) = word.split_once(':') {
        let kind = match verb {
            "open" | "click" => MouseEventKind::Down(MouseButton::Left),
            "flag" | "rclick" => MouseEventKind::Down(MouseButton::Right),
            "chord" | "mclick" => MouseEventKind::Down(MouseButton::Middle),
            "wheel" => {
                return match rest {
                    "up" => mouse(MouseEventKind::ScrollUp, (0, 0), NONE),
                    "down" => mouse(MouseEventKind::ScrollDown, (0, 0), NONE),
                    "S-down" => mouse(MouseEventKind::ScrollDown, (0, 0), SHIFT),
                    other => panic!("no wheel {other:?}"),
                };
            }
            "resize" => {
                let (w, h) = pair(rest);
                return Event::Resize(w as u16, h as u16);
            }
            other => panic!("no script verb {other:?}"),
        };
        if matches!(verb, "click" | "rclick" | "mclick") {
            return mouse(kind, pair(rest), NONE);
        }
        // A board cell, found through the screen's layout as a player's pointer would be.
        let (row, col) = pair(rest);
        let (origin_row, origin_col) = app.origin();
        let screen = app.screen().expect("a terminal large enough");
        let (x, y) = screen
            .glyph_at(row - origin_row, col - origin_col)
            .expect("the cell is in view");
        return mouse(kind, (usize::from(x), usize::from(y)), NONE);
    }
    let (named, mut chars) = (KEYS.iter().find(|key| key.0 == word), word.chars());
    let (code, modifiers) = match (named, chars.next(), chars.next()) {
        (Some(&(_, code, modifiers)), ..) => (code, modifiers),
        (None, Some(c), None) => (KeyCode::Char(c), NONE),
        _ => panic!("no script key {word:?}"),
    };
    Event::Key(KeyEvent::new(code, modifiers))
}

/// The screen `app` draws in a terminal of its size.
pub(super) fn screen<S: Play>(app: &App<S>) -> Buffer {
    let area = app.area();
    let backend = TestBackend::new(area.width, area.height);
    let mut terminal = Terminal::new(backend).expect("a test terminal");
    terminal
        .draw(|frame| draw::draw(frame, app))
        .expect("draws");
    terminal.backend().buffer().clone()
}

/// The screen `app` draws, as text: one line per terminal row, trailing spaces dropped.
pub(super) fn screen_text<S: Play>(app: &App<S>) -> String {
    let buffer = screen(app);
    let area = buffer.area;
    let mut text = String::new();
    for y in 0..area.height {
        let line: String = (0..area.width)
            .map(|x| buffer.cell((x, y)).map_or(" ", |cell| cell.symbol()))
            .collect();
        text += line.trim_end();
        text.push('\n');
    }
    text
}
