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
pub(super) struct Glyphs {
    pub(super) hidden: &'static str,
    pub(super) flag: &'static str,
    pub(super) mine: &'static str,
    pub(super) exploded: &'static str,
    pub(super) wrong_flag: &'static str,
    pub(super) zero: &'static str,
    /// The probability overlay's digits, set apart from the numbers of open cells.
    pub(super) tenths: [&'static str; 10],
    /// What else sets those digits apart.
    pub(super) tenths_mark: Modifier,
    /// The arrow keys, on the key page.
    pub(super) arrows: &'static str,
    pub(super) border: border::Set<'static>,
    /// Between a range's two ends.
    pub(super) to: &'static str,
    /// Between the parts of a line.
    pub(super) dot: &'static str,
}

/// Unicode glyphs, each one column wide.
pub(super) const UNICODE: Glyphs = Glyphs {
    hidden: "■",
    flag: "⚑",
    mine: "●",
    exploded: "✸",
    wrong_flag: "✗",
    zero: " ",
    tenths: ["⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"],
    tenths_mark: Modifier::empty(),
    arrows: "← ↑ → ↓",
    border: border::ROUNDED,
    to: "–",
    dot: " · ",
};

/// ASCII glyphs: those of `bitmines show` (see `render::glyph`), so the two read alike.
pub(super) const ASCII: Glyphs = Glyphs {
    hidden: "#",
    flag: "F",
    mine: "*",
    exploded: "X",
    wrong_flag: "!",
    zero: ".",
    tenths: ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
    // Plain digits look like open numbers; the line sets them apart.
    tenths_mark: Modifier::UNDERLINED,
    arrows: "Arrows",
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
fn odds_tenths(mine: f64) -> usize {
    (mine * 10.0).ceil().clamp(0.0, 9.0) as usize
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
    frame.render_widget(key_line(app, glyphs, screen.keys.width), screen.keys);
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
        // The position readout: which rows and columns are in view, of how many; in short
        // where the full text does not fit on the border.
        let last = |origin: usize, span: usize, len: usize| (origin + span).min(len) - 1;
        let rows = (
            origin_row,
            last(origin_row, screen.span_rows, game.rows()),
            game.rows(),
        );
        let cols = (
            origin_col,
            last(origin_col, screen.span_cols, game.cols()),
            game.cols(),
        );
        let to = glyphs.to;
        let full = format!(
            " rows {}{to}{} of {}{}cols {}{to}{} of {} ",
            rows.0, rows.1, rows.2, glyphs.dot, cols.0, cols.1, cols.2,
        );
        let short = format!(
            " {}{to}{}/{}, {}{to}{}/{} ",
            rows.0, rows.1, rows.2, cols.0, cols.1, cols.2,
        );
        let room = usize::from(screen.frame.width.saturating_sub(2));
        block = block.title_top(if full.chars().count() <= room {
            full
        } else {
            short
        });
    }
    block = block.title_bottom(cursor_readout(app, glyphs));
    frame.render_widget(block, screen.frame);

    let buffer = frame.buffer_mut();
    let overlay = app.overlay();
    let knowledge = app.knowledge();
    let odds = knowledge.filter(|_| overlay != Overlay::Off);
    let proven = knowledge.filter(|_| app.shows_wrong_flags());
    for dr in 0..screen.span_rows {
        let row = origin_row + dr;
        for dc in 0..screen.span_cols {
            let col = origin_col + dc;
            let (Ok(cell), Some((x, y))) = (game.cell(row, col), screen.glyph_at(dr, dc)) else {
                continue;
            };
            let (mut symbol, mut style) = look(cell, game.status(), glyphs);
            if cell == Cell::Hidden {
                let mine = odds.and_then(|odds| odds.mine(row, col));
                let hinted = app.hint() == Some((row, col));
                (symbol, style) = on_hidden(symbol, style, mine, hinted, overlay, glyphs);
            }
            if cell == Cell::Flagged && proven.is_some_and(|known| known.proven_safe(row, col)) {
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
pub(super) enum Symbol {
    Static(&'static str),
    Digit(char),
}

/// The glyph and style of a cell. On a won board every hidden cell is a mine, drawn flagged.
pub(super) fn look(cell: Cell, status: Status, glyphs: &Glyphs) -> (Symbol, Style) {
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
    let chance = app
        .knowledge()
        .filter(|_| app.overlay() != Overlay::Off)
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

/// The main keys, as many as fit in `width` columns: the essential ones (marked `true`)
/// always, the others in their place when there is room for them.
fn key_line(app: &App, glyphs: &Glyphs, width: u16) -> Line<'static> {
    let keys: &[(&str, &str, bool)] = if app.game().status() == Status::Playing {
        &[
            ("Space", "open", true),
            ("f", "flag", true),
            ("h", "hint", false),
            ("p", "odds", false),
            ("w", "wrong flags", false),
            ("s", "save", false),
            ("?", "keys", true),
            ("q", "quit", true),
        ]
    } else {
        &[
            ("n", "new game", true),
            ("s", "save", false),
            ("?", "keys", true),
            ("q", "quit", true),
        ]
    };
    let cost = |(name, what, _): &(&str, &str, bool)| {
        name.chars().count() + 1 + what.chars().count() + glyphs.dot.chars().count()
    };
    let mut room = usize::from(width) + glyphs.dot.chars().count();
    room = room.saturating_sub(keys.iter().filter(|k| k.2).map(cost).sum());
    let mut shown = Vec::new();
    for item in keys {
        if item.2 {
            shown.push(item);
        } else if cost(item) <= room {
            room -= cost(item);
            shown.push(item);
        }
    }
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut spans = Vec::new();
    for (i, (name, what, _)) in shown.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw(glyphs.dot));
        }
        spans.push(Span::styled(*name, bold));
        spans.push(Span::raw(format!(" {what}")));
    }
    Line::from(spans)
}

/// The `?` page: every key, the mouse, and what the glyphs and colours mean.
fn keys_page(glyphs: &Glyphs) -> Paragraph<'static> {
    let rows: Vec<(String, &str)> = vec![
        (
            glyphs.arrows.into(),
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
        (
            "q".into(),
            "quit (twice on an unsaved game; --save saves on quitting)",
        ),
        ("Ctrl-C".into(), "quit at once"),
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
    let keys = vec![
        Span::styled("n", key),
        Span::raw(" new game"),
        Span::raw(glyphs.dot),
        Span::styled("Esc", key),
        Span::raw(" board"),
        Span::raw(glyphs.dot),
        Span::styled("q", key),
        Span::raw(" quit"),
    ];
    let popup = EndPopup {
        title,
        colour,
        name_width: 11,
        keys,
    };
    popup.draw(frame, area, glyphs, rows.into_iter().collect());
}

/// The end screen's frame, shared by the local and the remote game: a titled box centred
/// on the board with a table of `name value` rows and a line of keys under it.
pub(super) struct EndPopup {
    /// The title on the top border.
    pub(super) title: &'static str,
    /// The border's and the title's colour.
    pub(super) colour: Color,
    /// The width of the names' column.
    pub(super) name_width: usize,
    /// The keys' line.
    pub(super) keys: Vec<Span<'static>>,
}

impl EndPopup {
    pub(super) fn draw(
        self,
        frame: &mut Frame<'_>,
        area: Rect,
        glyphs: &Glyphs,
        rows: Vec<(&str, String)>,
    ) {
        let key = Style::new().add_modifier(Modifier::BOLD);
        let width = self.name_width;
        let mut lines: Vec<Line<'static>> = rows
            .into_iter()
            .map(|(name, value)| {
                Line::from(vec![
                    Span::styled(format!("{name:<width$}"), key),
                    Span::raw(value),
                ])
            })
            .collect();
        lines.push(Line::raw(""));
        lines.push(Line::from(self.keys));
        // As wide as the longest line, with the border and the padding.
        let widest = lines.iter().map(Line::width).max().unwrap_or(0);
        let width = (widest as u16).saturating_add(4).min(area.width);
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
            .border_style(Style::new().fg(self.colour))
            .title_top(Span::styled(self.title, key.fg(self.colour)));
        frame.render_widget(Clear, popup);
        frame.render_widget(Paragraph::new(lines).block(block), popup);
    }
}

/// How a hidden cell shows the help: its odds (coloured, or as a digit of tenths with the
/// digits overlay) and the hinted cell, green and underlined.
pub(super) fn on_hidden(
    mut symbol: Symbol,
    mut style: Style,
    mine: Option<f64>,
    hinted: bool,
    overlay: Overlay,
    glyphs: &Glyphs,
) -> (Symbol, Style) {
    if let Some(mine) = mine {
        style = Style::new()
            .fg(odds_colour(mine))
            .add_modifier(Modifier::BOLD);
        if overlay == Overlay::Digits {
            let tenths = glyphs.tenths.get(odds_tenths(mine)).copied();
            symbol = Symbol::Static(match tenths {
                Some(digit) if mine < 1.0 => digit,
                _ => glyphs.mine,
            });
            style = style.add_modifier(glyphs.tenths_mark);
        }
    }
    if hinted {
        style = Style::new()
            .fg(Color::Green)
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
    }
    (symbol, style)
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
    line += &format!(", {}", crate::text::count(summary.clicks.total(), "click"));
    if summary.help != Default::default() {
        line += &format!(", help: {}", summary.help);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render;

    /// `--ascii` draws cells as `bitmines show` prints them.
    #[test]
    fn ascii_glyphs_are_those_of_show() {
        let cells = [
            (Cell::Hidden, ASCII.hidden),
            (Cell::Flagged, ASCII.flag),
            (Cell::Mine, ASCII.mine),
            (Cell::Exploded, ASCII.exploded),
            (Cell::WrongFlag, ASCII.wrong_flag),
            (Cell::Open(0), ASCII.zero),
        ];
        for (cell, glyph) in cells {
            assert_eq!(render::glyph(cell).to_string(), glyph, "{cell:?}");
        }
    }

    #[test]
    fn probabilities_as_colours_and_tenths() {
        #[rustfmt::skip]
        let cases: &[(f64, Color, usize)] = &[
            // chance of a mine, colour, digit
            (0.0, Color::Green, 0),
            (1e-9, Color::Cyan, 1),
            (0.1, Color::Cyan, 1),
            (0.19, Color::Cyan, 2),
            (0.2, Color::Yellow, 2),
            (0.4999, Color::Yellow, 5),
            (0.5, Color::LightRed, 5),
            (0.95, Color::LightRed, 9),
            (1.0 - 1e-9, Color::LightRed, 9),
            (1.0, Color::Red, 9), // drawn with the mine glyph instead
        ];
        for &(mine, colour, tenths) in cases {
            assert_eq!(
                (odds_colour(mine), odds_tenths(mine)),
                (colour, tenths),
                "{mine}"
            );
        }
    }
}
