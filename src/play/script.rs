//! Games played from a script of key and mouse events, for the tests: the same script gives
//! the same state and the same screen every time, with no terminal.
//!
//! A script is words separated by spaces:
//!
//! - keys: `up`, `down`, `left`, `right` (`S-right` with Shift), `pgup`, `pgdn`, `home`,
//!   `end`, `space`, `enter`, `esc`, `C-c`, or any single character (`f`, `?`, `G`);
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

/// The setup of a game on a board given as text.
pub(super) fn setup_of(board: &Board) -> Setup {
    Setup {
        name: "custom".into(),
        rows: board.rows(),
        cols: board.cols(),
        mines: board.mine_count(),
        first_click: FirstClick::Opening,
        seed: Some(1),
    }
}

/// An app on the board `text` (`*` mine, `.` safe) in a terminal of `width x height`.
pub(super) fn app_on(text: &str, width: u16, height: u16) -> (App, Instant) {
    let board: Board = text.parse().expect("a board");
    let setup = setup_of(&board);
    let start = Instant::now();
    let app = App::local(
        Game::new(board),
        setup,
        Rect::new(0, 0, width, height),
        start,
        false,
    );
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
pub(super) fn play(app: &mut App, mut now: Instant, script: &str) -> (Instant, Vec<Action>) {
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

/// Waits (for real) until the board of a first click made off the input thread is there,
/// moving the app's clock on by the time waited; returns the clock then.
pub(super) fn wait_for_board(app: &mut App, mut now: Instant) -> Instant {
    let give_up = now + Duration::from_secs(120);
    while app.generating() {
        assert!(now < give_up, "the board never came");
        std::thread::sleep(Duration::from_millis(10));
        now += Duration::from_millis(10);
        app.tick(now);
    }
    now
}

/// The event a script word stands for.
fn event(app: &App, word: &str) -> Event {
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
    let on_cell = |text: &str| -> (usize, usize) {
        let (row, col) = pair(text);
        let (origin_row, origin_col) = app.origin();
        let screen = app.screen().expect("a terminal large enough");
        let (x, y) = screen
            .glyph_at(row - origin_row, col - origin_col)
            .expect("the cell is in view");
        (usize::from(x), usize::from(y))
    };
    let none = KeyModifiers::NONE;
    if let Some((verb, rest)) = word.split_once(':') {
        return match verb {
            "open" => mouse(MouseEventKind::Down(MouseButton::Left), on_cell(rest), none),
            "flag" => mouse(
                MouseEventKind::Down(MouseButton::Right),
                on_cell(rest),
                none,
            ),
            "chord" => mouse(
                MouseEventKind::Down(MouseButton::Middle),
                on_cell(rest),
                none,
            ),
            "click" => mouse(MouseEventKind::Down(MouseButton::Left), pair(rest), none),
            "rclick" => mouse(MouseEventKind::Down(MouseButton::Right), pair(rest), none),
            "mclick" => mouse(MouseEventKind::Down(MouseButton::Middle), pair(rest), none),
            "wheel" => match rest {
                "up" => mouse(MouseEventKind::ScrollUp, (0, 0), none),
                "down" => mouse(MouseEventKind::ScrollDown, (0, 0), none),
                "S-down" => mouse(MouseEventKind::ScrollDown, (0, 0), KeyModifiers::SHIFT),
                other => panic!("no wheel {other:?}"),
            },
            "resize" => {
                let (w, h) = pair(rest);
                Event::Resize(w as u16, h as u16)
            }
            other => panic!("no script verb {other:?}"),
        };
    }
    let (code, modifiers) = match word {
        "up" => (KeyCode::Up, none),
        "down" => (KeyCode::Down, none),
        "left" => (KeyCode::Left, none),
        "right" => (KeyCode::Right, none),
        "S-up" => (KeyCode::Up, KeyModifiers::SHIFT),
        "S-down" => (KeyCode::Down, KeyModifiers::SHIFT),
        "S-left" => (KeyCode::Left, KeyModifiers::SHIFT),
        "S-right" => (KeyCode::Right, KeyModifiers::SHIFT),
        "pgup" => (KeyCode::PageUp, none),
        "pgdn" => (KeyCode::PageDown, none),
        "home" => (KeyCode::Home, none),
        "end" => (KeyCode::End, none),
        "space" => (KeyCode::Char(' '), none),
        "enter" => (KeyCode::Enter, none),
        "esc" => (KeyCode::Esc, none),
        "C-c" => (KeyCode::Char('c'), KeyModifiers::CONTROL),
        single => {
            let mut chars = single.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => (KeyCode::Char(c), none),
                _ => panic!("no script key {single:?}"),
            }
        }
    };
    Event::Key(KeyEvent::new(code, modifiers))
}

/// The screen `app` draws in a terminal of its size.
pub(super) fn screen<S: Play>(app: &App<S>) -> Buffer {
    let area = app.area();
    let mut terminal =
        Terminal::new(TestBackend::new(area.width, area.height)).expect("a test terminal");
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
