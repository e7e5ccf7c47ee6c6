//! A frame from the app's state. The board part reads only the cells in view (through
//! `Game::cell`), so a frame costs the same on a 10000x10000 board as on expert.

use bitmines_core::{Cell, Game, Status};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::border;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Padding, Paragraph, Wrap};

use super::app::{App, Overlay, Page, Summary};
use super::viewport::{MIN_HEIGHT, MIN_WIDTH, Screen};

/// The characters a game is drawn with.
struct Glyphs {
    hidden: &'static str,
    flag: &'static str,
    mine: &'static str,
    exploded: &'static str,
    wrong_flag: &'static str,
    zero: &'static str,
    border: border::Set<'static>,
    /// Between a range's two ends.
    to: &'static str,
    /// Between the parts of a line.
    dot: &'static str,
}

/// Unicode glyphs, each one column wide.
const UNICODE: Glyphs = Glyphs {
    hidden: "■",
    flag: "⚑",
    mine: "●",
    exploded: "✸",
    wrong_flag: "✗",
    zero: " ",
    border: border::ROUNDED,
    to: "–",
    dot: " · ",
};

/// ASCII glyphs: those of `bitmines show` (see `render::glyph`), so the two read alike.
const ASCII: Glyphs = Glyphs {
    hidden: "#",
    flag: "F",
    mine: "*",
    exploded: "X",
    wrong_flag: "!",
    zero: ".",
    border: border::Set {
        top_left: "+",
        top_right: "+",
        bottom_left: "+",
        bottom_right: "+",
        vertical_left: "|",
        vertical_right: "|",
        horizontal_top: "-",
        horizontal_bottom: "-",
    },
    to: "-",
    dot: " | ",
};

/// The classic colours of the numbers 1 to 8, as the 16 named terminal colours, which every
/// terminal theme adapts to its background. Seven, black in the original, takes the
/// terminal's own foreground so it shows on dark and light backgrounds alike.
const NUMBER_COLOURS: [Color; 8] = [
    Color::LightBlue,
    Color::Green,
    Color::LightRed,
    Color::Blue,
    Color::Red,
    Color::Cyan,
    Color::Reset,
    Color::DarkGray,
];

/// The colour of a hidden cell's glyph under the probability overlay.
fn odds_colour(mine: f64) -> Color {
    if mine <= 0.0 {
        Color::Green
    } else if mine >= 1.0 {
        Color::Red
    } else if mine < 0.2 {
        Color::Cyan
    } else if mine < 0.5 {
        Color::Yellow
    } else {
        Color::LightRed
    }
}

/// The digit a hidden cell shows under the probability overlay: the chance of a mine is at
/// most that many tenths; 0 only when the cell is proven safe. A proven mine shows the mine
/// glyph instead.
fn odds_digit(mine: f64) -> char {
    let tenths = (mine * 10.0).ceil().clamp(0.0, 9.0) as u32;
    char::from_digit(tenths, 10).unwrap_or('9')
}

/// Draws the whole screen for `app`.
pub(crate) fn draw(frame: &mut Frame<'_>, app: &App) {
    let area = frame.area();
    let game = app.game();
    let glyphs = if app.ascii() { &ASCII } else { &UNICODE };
    let Some(screen) = Screen::new(area, game.rows(), game.cols()) else {
        let text = format!(
            "The terminal is too small ({}x{}): bitmines needs at least {MIN_WIDTH}x{MIN_HEIGHT}.",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    };
    if app.page() == Page::Keys {
        frame.render_widget(keys_page(glyphs), area);
        return;
    }
    frame.render_widget(status_line(app, glyphs), screen.status);
    board(frame, &screen, app, glyphs);
    frame.render_widget(message_line(app), screen.message);
    frame.render_widget(key_line(app, glyphs), screen.keys);
    if let Some(summary) = app.end_screen() {
        end_screen(frame, area, app, &summary, glyphs);
    }
}

/// Mines left, time, progress and the game's setup.
fn status_line(app: &App, glyphs: &Glyphs) -> Line<'static> {
    let game = app.game();
    let setup = app.setup();
    // A won board draws its hidden cells flagged, so no mine is left to find.
    let left = match game.status() {
        Status::Won => 0,
        _ => game.mine_count() as i128 - game.flag_count() as i128,
    };
    let safe = game.rows() * game.cols() - game.mine_count();
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let seed = setup
        .seed
        .map_or(String::new(), |seed| format!(", seed {seed}"));
    Line::from(vec![
        Span::styled(format!("{left}"), bold),
        Span::raw(if left == 1 {
            " mine left"
        } else {
            " mines left"
        }),
        Span::raw(glyphs.dot),
        Span::styled(format!("{}", app.elapsed().as_secs()), bold),
        Span::raw(" s"),
        Span::raw(glyphs.dot),
        Span::styled(format!("{}", game.revealed_count()), bold),
        Span::raw(format!(" of {safe} revealed")),
        Span::raw(glyphs.dot),
        Span::raw(format!(
            "{} {}x{}{seed}",
            setup.name,
            game.rows(),
            game.cols()
        )),
    ])
}

/// The bordered board: the cells in view, the cursor, and where the view is.
fn board(frame: &mut Frame<'_>, screen: &Screen, app: &App, glyphs: &Glyphs) {
    let game = app.game();
    let (origin_row, origin_col) = app.origin();
    let (cursor_row, cursor_col) = app.cursor();
    let mut block = Block::bordered().border_set(glyphs.border);
    if screen.span_rows < game.rows() || screen.span_cols < game.cols() {
        // The position readout: which rows and columns are in view, of how many.
        let last = |origin: usize, span: usize, len: usize| (origin + span).min(len) - 1;
        block = block.title_top(format!(
            " rows {}{}{} of {}{}cols {}{}{} of {} ",
            origin_row,
            glyphs.to,
            last(origin_row, screen.span_rows, game.rows()),
            game.rows(),
            glyphs.dot,
            origin_col,
            glyphs.to,
            last(origin_col, screen.span_cols, game.cols()),
            game.cols(),
        ));
    }
    block = block.title_bottom(cursor_readout(app, glyphs));
    frame.render_widget(block, screen.frame);

    let buffer = frame.buffer_mut();
    let (overlay, odds) = app.overlay();
    let odds = odds.filter(|_| overlay != Overlay::Off);
    for dr in 0..screen.span_rows {
        let row = origin_row + dr;
        for dc in 0..screen.span_cols {
            let col = origin_col + dc;
            let (Ok(cell), Some((x, y))) = (game.cell(row, col), screen.glyph_at(dr, dc)) else {
                continue;
            };
            let (mut symbol, mut style) = look(cell, game.status(), glyphs);
            if cell == Cell::Hidden {
                if let Some(mine) = odds.and_then(|odds| odds.mine(row, col)) {
                    style = Style::new()
                        .fg(odds_colour(mine))
                        .add_modifier(Modifier::BOLD);
                    if overlay == Overlay::Digits {
                        symbol = if mine >= 1.0 {
                            Symbol::Static(glyphs.mine)
                        } else {
                            Symbol::Digit(odds_digit(mine))
                        };
                    }
                }
                if app.hint() == Some((row, col)) {
                    style = Style::new()
                        .fg(Color::Green)
                        .add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
                }
            }
            if cell == Cell::Flagged
                && app
                    .wrong_flags()
                    .is_some_and(|flags| flags.contains(row, col))
            {
                (symbol, style) = look(Cell::WrongFlag, Status::Lost, glyphs);
            }
            if (row, col) == (cursor_row, cursor_col) {
                style = style.add_modifier(Modifier::REVERSED);
                let bracket = Style::new().add_modifier(Modifier::BOLD);
                for (bx, text) in [(x - 1, "["), (x + 1, "]")] {
                    if let Some(spot) = buffer.cell_mut((bx, y)) {
                        spot.set_symbol(text).set_style(bracket);
                    }
                }
            }
            if let Some(spot) = buffer.cell_mut((x, y)) {
                match symbol {
                    Symbol::Static(text) => spot.set_symbol(text),
                    Symbol::Digit(digit) => spot.set_char(digit),
                }
                .set_style(style);
            }
        }
    }
}

/// A cell's text: a fixed glyph or a digit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Symbol {
    Static(&'static str),
    Digit(char),
}

/// The glyph and style of a cell. On a won board every hidden cell is a mine, drawn flagged.
fn look(cell: Cell, status: Status, glyphs: &Glyphs) -> (Symbol, Style) {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    match cell {
        Cell::Hidden if status == Status::Won => (Symbol::Static(glyphs.flag), bold.fg(Color::Red)),
        Cell::Hidden => (
            Symbol::Static(glyphs.hidden),
            Style::new().fg(Color::DarkGray),
        ),
        Cell::Flagged => (Symbol::Static(glyphs.flag), bold.fg(Color::Red)),
        Cell::Open(0) => (
            Symbol::Static(glyphs.zero),
            Style::new().fg(Color::DarkGray),
        ),
        Cell::Open(n) => {
            let colour = NUMBER_COLOURS
                .get(usize::from(n) - 1)
                .copied()
                .unwrap_or(Color::Reset);
            let digit = char::from_digit(u32::from(n), 10).unwrap_or('?');
            (Symbol::Digit(digit), bold.fg(colour))
        }
        Cell::Mine => (Symbol::Static(glyphs.mine), bold),
        Cell::Exploded => (
            Symbol::Static(glyphs.exploded),
            bold.fg(Color::White).bg(Color::Red),
        ),
        Cell::WrongFlag => (Symbol::Static(glyphs.wrong_flag), bold.fg(Color::Magenta)),
    }
}

/// The cursor's cell and, under the overlay, its chance of holding a mine.
fn cursor_readout(app: &App, glyphs: &Glyphs) -> String {
    let (row, col) = app.cursor();
    let (overlay, odds) = app.overlay();
    let chance = odds
        .filter(|_| overlay != Overlay::Off)
        .filter(|_| app.game().cell(row, col) == Ok(Cell::Hidden))
        .and_then(|odds| odds.mine(row, col).map(|mine| (mine, odds.exact())));
    match chance {
        Some((mine, exact)) => format!(
            " ({row}, {col}){}mine {}{:.1}% ",
            glyphs.dot,
            if exact { "" } else { "~" },
            mine * 100.0
        ),
        None => format!(" ({row}, {col}) "),
    }
}

/// The last message, or what to do next.
fn message_line(app: &App) -> Line<'static> {
    if let Some(message) = app.message() {
        return Line::raw(message.to_owned());
    }
    let game = app.game();
    match game.status() {
        Status::Playing if game.board().is_none() => {
            Line::raw(app.setup().first_click_note().to_owned())
        }
        Status::Playing => Line::raw(""),
        _ => Line::raw(
            app.summary()
                .map_or(String::new(), |summary| summary_line(app, &summary)),
        ),
    }
}

/// The main keys.
fn key_line(app: &App, glyphs: &Glyphs) -> Line<'static> {
    let key = Style::new().add_modifier(Modifier::BOLD);
    let mut spans = Vec::new();
    let keys: &[(&str, &str)] = if app.game().status() == Status::Playing {
        &[
            ("Space", "open"),
            ("f", "flag"),
            ("h", "hint"),
            ("p", "odds"),
            ("w", "wrong flags"),
            ("s", "save"),
            ("?", "keys"),
            ("q", "quit"),
        ]
    } else {
        &[
            ("n", "new game"),
            ("s", "save"),
            ("?", "keys"),
            ("q", "quit"),
        ]
    };
    for (i, (name, what)) in keys.iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw(glyphs.dot));
        }
        spans.push(Span::styled(*name, key));
        spans.push(Span::raw(format!(" {what}")));
    }
    Line::from(spans)
}

/// The `?` page: every key, the mouse, and what the glyphs and colours mean.
fn keys_page(glyphs: &Glyphs) -> Paragraph<'static> {
    let arrows = if std::ptr::eq(glyphs, &ASCII) {
        "Arrows"
    } else {
        "← ↑ → ↓"
    };
    let rows: Vec<(String, &str)> = vec![
        (
            arrows.into(),
            "move the cursor (with Shift: a screen at a time)",
        ),
        ("PgUp PgDn".into(), "a screen up or down"),
        ("Home End".into(), "the first or last column"),
        ("g G".into(), "the first or the last cell of the board"),
        ("c".into(), "centre the view on the cursor"),
        (
            "Space Enter".into(),
            "reveal the cell, or chord an open number",
        ),
        ("f".into(), "flag or unflag the cell"),
        ("h".into(), "hint: a cell proven safe, and why"),
        (
            "p".into(),
            "mine probabilities: as colours, then digits, then off",
        ),
        ("w".into(), "show the flags proven wrong"),
        ("s".into(), "save the game"),
        (
            "n".into(),
            "a new game with the next seed, once this one is over",
        ),
        ("Esc".into(), "clear the message and the hint"),
        ("q Ctrl-C".into(), "quit at once (saving first with --save)"),
    ];
    let key = Style::new().add_modifier(Modifier::BOLD);
    let mut lines = vec![Line::styled("bitmines play: keys", key), Line::raw("")];
    for (name, what) in rows {
        lines.push(Line::from(vec![
            Span::styled(format!("{name:<13}"), key),
            Span::raw(what),
        ]));
    }
    lines.extend([
        Line::raw(""),
        Line::raw(
            "Mouse: left reveals or chords, right flags, middle chords, the wheel scrolls \
             (with Shift: sideways).",
        ),
        Line::raw(format!(
            "Cells: {} hidden, {} flag, {} mine, {} exploded, {} wrong flag, 1-8 open numbers.",
            glyphs.hidden, glyphs.flag, glyphs.mine, glyphs.exploded, glyphs.wrong_flag
        )),
        Line::raw(
            "Probabilities: green safe, cyan under 20%, yellow under 50%, light red 50% or \
             more, red a mine; as digits, at most that many tenths (0: proven safe).",
        ),
        Line::raw("Help asked for (hints, probabilities, wrong flags) shows at the end."),
        Line::raw(""),
        Line::raw("Any key goes back to the game."),
    ]);
    Paragraph::new(lines).wrap(Wrap { trim: false })
}

/// The end screen over the board: the result and the measures players compare.
fn end_screen(frame: &mut Frame<'_>, area: Rect, app: &App, summary: &Summary, glyphs: &Glyphs) {
    let key = Style::new().add_modifier(Modifier::BOLD);
    let (title, colour) = match summary.status {
        Status::Won => (" You won ", Color::Green),
        _ => (" You lost ", Color::Red),
    };
    let clicks = summary.clicks;
    let time = format!(
        "{:.2} s{}",
        summary.time.as_secs_f64(),
        if app.resumed() { " since resuming" } else { "" }
    );
    let or_dash = |value: Option<String>| value.unwrap_or_else(|| "-".into());
    let rows = [
        ("time", time),
        ("3BV", or_dash(summary.bbbv.map(|bbbv| bbbv.to_string()))),
        (
            "3BV/s",
            or_dash(summary.bbbv_per_second().map(|rate| format!("{rate:.3}"))),
        ),
        (
            "clicks",
            format!(
                "{} ({} left, {} right, {} chord)",
                clicks.total(),
                clicks.left,
                clicks.right,
                clicks.chord
            ),
        ),
        (
            "efficiency",
            or_dash(
                summary
                    .efficiency()
                    .map(|ioe| format!("{:.0}%", ioe * 100.0)),
            ),
        ),
        ("help used", summary.help.to_string()),
    ];
    let mut lines: Vec<Line<'static>> = rows
        .into_iter()
        .map(|(name, value)| {
            Line::from(vec![
                Span::styled(format!("{name:<11}"), key),
                Span::raw(value),
            ])
        })
        .collect();
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("n", key),
        Span::raw(" new game"),
        Span::raw(glyphs.dot),
        Span::styled("Esc", key),
        Span::raw(" board"),
        Span::raw(glyphs.dot),
        Span::styled("q", key),
        Span::raw(" quit"),
    ]));
    let width = 48.min(area.width);
    let height = (lines.len() as u16 + 2).min(area.height);
    let popup = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    let block = Block::bordered()
        .border_set(glyphs.border)
        .padding(Padding::horizontal(1))
        .border_style(Style::new().fg(colour))
        .title_top(Span::styled(title, key.fg(colour)));
    frame.render_widget(Clear, popup);
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}

/// One line on a finished game, for the message line and for the terminal after quitting.
pub(crate) fn summary_line(app: &App, summary: &Summary) -> String {
    let game: &Game = app.game();
    let mut line = format!(
        "{} {} {}x{} in {:.2} s",
        match summary.status {
            Status::Won => "won",
            _ => "lost",
        },
        app.setup().name,
        game.rows(),
        game.cols(),
        summary.time.as_secs_f64()
    );
    if let Some(bbbv) = summary.bbbv {
        line += &format!(", 3BV {bbbv}");
    }
    if let Some(rate) = summary.bbbv_per_second() {
        line += &format!(", {rate:.3} 3BV/s");
    }
    line += &format!(", {} clicks", summary.clicks.total());
    if summary.help != Default::default() {
        line += &format!(", help: {}", summary.help);
    }
    line
}
