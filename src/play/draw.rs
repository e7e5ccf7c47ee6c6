//! A frame from the app's state, the same for a local game and a room. The board part reads
//! only the cells in view (through [`Play::cell`]), so a frame costs the same on any board.

use bitmines_core::{Cell, Status};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::border;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Padding, Paragraph, Wrap};

use super::app::PANEL_WIDTH;
use super::app::{App, Overlay, Play, Summary};
use super::viewport::{MIN_HEIGHT, MIN_WIDTH, Screen};
use crate::render::glyph;

/// The characters a game is drawn with.
pub(crate) struct Glyphs {
    pub(crate) hidden: &'static str,
    pub(crate) flag: &'static str,
    pub(crate) mine: &'static str,
    pub(crate) exploded: &'static str,
    pub(crate) wrong_flag: &'static str,
    pub(crate) zero: &'static str,
    /// The probability overlay's digits, set apart from the numbers of open cells.
    pub(crate) tenths: [&'static str; 10],
    /// What else sets those digits apart.
    pub(crate) tenths_mark: Modifier,
    /// The arrow keys, on the key page.
    pub(crate) arrows: &'static str,
    pub(crate) border: border::Set<'static>,
    /// Between a range's two ends.
    pub(crate) to: &'static str,
    /// Between the parts of a line.
    pub(crate) dot: &'static str,
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

/// ASCII glyphs: the cells are those of `bitmines show`, so the two read alike.
pub(super) const ASCII: Glyphs = Glyphs {
    hidden: glyph(Cell::Hidden),
    flag: glyph(Cell::Flagged),
    mine: glyph(Cell::Mine),
    exploded: glyph(Cell::Exploded),
    wrong_flag: glyph(Cell::WrongFlag),
    zero: glyph(Cell::Open(0)),
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
    match mine {
        _ if mine <= 0.0 => Color::Green,
        _ if mine >= 1.0 => Color::Red,
        _ if mine < 0.2 => Color::Cyan,
        _ if mine < 0.5 => Color::Yellow,
        _ => Color::LightRed,
    }
}

/// The digit a hidden cell shows under the probability overlay: the chance of a mine is at
/// most that many tenths; 0 only when the cell is proven safe. A proven mine shows the mine
/// glyph instead.
fn odds_tenths(mine: f64) -> usize {
    (mine * 10.0).ceil().clamp(0.0, 9.0) as usize
}

/// The key page: its title, the keys only this source has (after those of the cursor and
/// the moves), and its note (after the mouse's and the cells').
pub(crate) struct KeyPage {
    /// The page's first line.
    pub(crate) title: &'static str,
    /// `(key, what it does)`.
    pub(crate) rows: &'static [(&'static str, &'static str)],
    /// The last line before the way back to the game.
    pub(crate) note: &'static str,
}

/// The end screen: a titled box centred on the board with a table of `name value` rows and
/// a line of keys under it.
pub(crate) struct Ending {
    /// The game's measures.
    pub(crate) summary: Summary,
    /// Who won or lost, for the title on the top border: `You`, `The room`.
    pub(crate) who: &'static str,
    /// What `n` does, after the key.
    pub(crate) next: &'static str,
    /// The table.
    pub(crate) rows: Vec<(&'static str, String)>,
}

/// Draws the whole screen for `app`.
pub(crate) fn draw<S: Play>(frame: &mut Frame<'_>, app: &App<S>) {
    let area = frame.area();
    let glyphs = if app.ascii { &ASCII } else { &UNICODE };
    let Some(screen) = app.screen() else {
        let text = match app.size() {
            None => format!(
                "{}\n{}",
                app.idle_line(),
                app.message().unwrap_or("connecting…")
            ),
            Some(_) => format!(
                "The terminal is too small ({}x{}): bitmines needs at least {MIN_WIDTH}x{MIN_HEIGHT}.",
                area.width, area.height
            ),
        };
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    };
    if app.keys_shown {
        frame.render_widget(keys_page(S::KEY_PAGE, glyphs), area);
        return;
    }
    // The status, message and key lines take the terminal's whole width, above and under
    // the panel.
    let [status, message, keys] = screen
        .line_rows()
        .map(|y| Rect::new(area.x, y, area.width, 1));
    frame.render_widget(status_line(app, glyphs), status);
    board(frame, &screen, app, glyphs);
    let text = app.message().map_or_else(|| app.idle_line(), str::to_owned);
    frame.render_widget(Line::raw(text), message);
    frame.render_widget(key_line(key_items(app, glyphs), glyphs, area.width), keys);
    if app.shows_panel() {
        let board = app.board_area();
        let height = message.y.saturating_sub(area.y + 1);
        let panel = Rect::new(board.x + board.width, area.y + 1, PANEL_WIDTH, height);
        let lines = app.panel(glyphs, app.ascii);
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), panel);
    }
    if let Some(ending) = app.end_screen() {
        end_screen(frame, area, ending, glyphs);
    }
}

/// Mines left, time, then the source's own figures.
fn status_line<S: Play>(app: &App<S>, glyphs: &Glyphs) -> Line<'static> {
    // A won board draws its hidden cells flagged, so no mine is left to find.
    let won = app.status() == Status::Won;
    let left = if won { 0 } else { app.mines_left() };
    let bold = Style::new().bold();
    let plural = if left == 1 { "" } else { "s" };
    let mut spans = vec![
        Span::styled(format!("{left}"), bold),
        Span::raw(format!(" mine{plural} left")),
        Span::raw(glyphs.dot),
        Span::styled(format!("{}", app.elapsed().as_secs()), bold),
        Span::raw(" s"),
        Span::raw(glyphs.dot),
    ];
    spans.extend(app.figures(glyphs));
    Line::from(spans)
}

/// The bordered board: the cells in view, the cursors, and where the view is.
fn board<S: Play>(frame: &mut Frame<'_>, screen: &Screen, app: &App<S>, glyphs: &Glyphs) {
    let (rows, cols) = app.size().unwrap_or((0, 0));
    let (origin_row, origin_col) = app.origin();
    let (cursor_row, cursor_col) = app.cursor();
    let mut block = Block::bordered().border_set(glyphs.border);
    if screen.span_rows < rows || screen.span_cols < cols {
        // The position readout: which rows and columns are in view, of how many; in short
        // where the full text does not fit on the border.
        let last = |origin: usize, span: usize, len: usize| (origin + span).min(len) - 1;
        let last_row = last(origin_row, screen.span_rows, rows);
        let last_col = last(origin_col, screen.span_cols, cols);
        let (to, dot) = (glyphs.to, glyphs.dot);
        let full = format!(
            " rows {origin_row}{to}{last_row} of {rows}{dot}cols {origin_col}{to}{last_col} of {cols} "
        );
        let short =
            format!(" {origin_row}{to}{last_row}/{rows}, {origin_col}{to}{last_col}/{cols} ");
        let room = usize::from(screen.frame.width.saturating_sub(2));
        let fits = full.chars().count() <= room;
        block = block.title_top(if fits { full } else { short });
    }
    block = block.title_bottom(cursor_readout(app, glyphs));
    frame.render_widget(block, screen.frame);

    let status = app.status();
    // A cell not here yet: asked for, on its way.
    let dot = if app.ascii { " " } else { "·" };
    let pending = (dot, Style::new().fg(Color::DarkGray));
    let buffer = frame.buffer_mut();
    for dr in 0..screen.span_rows {
        let row = origin_row + dr;
        for dc in 0..screen.span_cols {
            let col = origin_col + dc;
            let Some((x, y)) = screen.glyph_at(dr, dc) else {
                continue;
            };
            let cell = app.cell(row, col);
            let (mut symbol, mut style) = cell.map_or(pending, |cell| look(cell, status, glyphs));
            if cell == Some(Cell::Hidden) {
                let mine = app.mine_odds(row, col).map(|(mine, _)| mine);
                let hinted = app.hint == Some((row, col));
                (symbol, style) = on_hidden(symbol, style, mine, hinted, app.shown.overlay, glyphs);
            }
            if cell == Some(Cell::Flagged) && app.proven_wrong(row, col) {
                (symbol, style) = look(Cell::WrongFlag, Status::Lost, glyphs);
            }
            if let Some(colour) = app.colour_at(row, col) {
                style = style.bg(colour).fg(Color::Black);
            }
            if (row, col) == (cursor_row, cursor_col) {
                style = style.add_modifier(Modifier::REVERSED);
                let bracket = Style::new().bold();
                for (bx, text) in [(x - 1, "["), (x + 1, "]")] {
                    if let Some(spot) = buffer.cell_mut((bx, y)) {
                        spot.set_symbol(text).set_style(bracket);
                    }
                }
            }
            if let Some(spot) = buffer.cell_mut((x, y)) {
                spot.set_symbol(symbol).set_style(style);
            }
        }
    }
}

/// The glyph and style of a cell. On a won board every hidden cell is a mine, drawn flagged.
pub(super) fn look(cell: Cell, status: Status, glyphs: &Glyphs) -> (&'static str, Style) {
    let bold = Style::new().bold();
    let dim = Style::new().fg(Color::DarkGray);
    match cell {
        Cell::Hidden if status == Status::Won => (glyphs.flag, bold.fg(Color::Red)),
        Cell::Hidden => (glyphs.hidden, dim),
        Cell::Flagged => (glyphs.flag, bold.fg(Color::Red)),
        Cell::Open(0) => (glyphs.zero, dim),
        Cell::Open(n) => {
            let colour = NUMBER_COLOURS.get(usize::from(n) - 1).copied();
            (glyph(cell), bold.fg(colour.unwrap_or(Color::Reset)))
        }
        Cell::Mine => (glyphs.mine, bold),
        Cell::Exploded => (glyphs.exploded, bold.fg(Color::White).bg(Color::Red)),
        Cell::WrongFlag => (glyphs.wrong_flag, bold.fg(Color::Magenta)),
    }
}

/// The cursor's cell and, under the overlay, its chance of holding a mine.
fn cursor_readout<S: Play>(app: &App<S>, glyphs: &Glyphs) -> String {
    let (row, col) = app.cursor();
    let hidden = app.cell(row, col) == Some(Cell::Hidden);
    let chance = app.mine_odds(row, col).filter(|_| hidden);
    match chance {
        Some((mine, exact)) => {
            let (dot, about, percent) = (glyphs.dot, if exact { "" } else { "~" }, mine * 100.0);
            format!(" ({row}, {col}){dot}mine {about}{percent:.1}% ")
        }
        None => format!(" ({row}, {col}) "),
    }
}

/// The key line's keys: the moves and the help while the player plays the board shown, the
/// source's own, then the key page and quit.
fn key_items<S: Play>(app: &App<S>, glyphs: &Glyphs) -> Vec<(&'static str, &'static str, bool)> {
    let plays = app.status() == Status::Playing && !app.only_watching();
    let moves = [
        ("Space", "open", true),
        ("f", "flag", true),
        ("h", "hint", false),
        ("p", "odds", false),
        ("w", "wrong flags", false),
    ];
    let end = [("?", "keys", true), ("q", "quit", true)];
    let moves = moves.into_iter().filter(|_| plays);
    moves.chain(app.keys(glyphs)).chain(end).collect()
}

/// The main keys, as many as fit in `width` columns: the essential ones (marked `true`)
/// always, the others in their place when there is room for them.
fn key_line(
    keys: Vec<(&'static str, &'static str, bool)>,
    glyphs: &Glyphs,
    width: u16,
) -> Line<'static> {
    let cost = |(name, what, _): &(&str, &str, bool)| {
        name.chars().count() + 1 + what.chars().count() + glyphs.dot.chars().count()
    };
    let mut room = usize::from(width) + glyphs.dot.chars().count();
    room = room.saturating_sub(keys.iter().filter(|k| k.2).map(cost).sum());
    let mut shown = Vec::new();
    for item in keys {
        if item.2 {
            shown.push(item);
        } else if cost(&item) <= room {
            room -= cost(&item);
            shown.push(item);
        }
    }
    let bold = Style::new().bold();
    let spans: Vec<_> = (shown.into_iter())
        .map(|(name, what, _)| [Span::styled(name, bold), Span::raw(format!(" {what}"))])
        .collect();
    Line::from(spans.join(&Span::raw(glyphs.dot)))
}

/// The `?` page: every key, the mouse, the cells, and the source's note.
fn keys_page(page: KeyPage, glyphs: &Glyphs) -> Paragraph<'static> {
    let arrows = "move the cursor (with Shift: a screen at a time)";
    let common = [
        (glyphs.arrows, arrows),
        ("PgUp PgDn", "a screen up or down"),
        ("Home End", "the first or last column"),
        ("g G", "the first or the last cell of the board"),
        ("c", "centre the view on the cursor"),
        ("Space Enter", "reveal the cell, or chord an open number"),
        ("f", "flag or unflag the cell"),
    ];
    let key = Style::new().bold();
    let mut lines = vec![Line::styled(page.title, key), Line::raw("")];
    let rows = common.into_iter().chain(page.rows.iter().copied());
    lines.extend(rows.map(|(name, what)| table_row(name, 13, what)));
    let mouse = "Mouse: left reveals or chords, right flags, middle chords, the wheel scrolls \
                 (with Shift: sideways).";
    let cells = format!(
        "Cells: {} hidden, {} flag, {} mine, {} exploded, {} wrong flag, 1-8 open numbers.",
        glyphs.hidden, glyphs.flag, glyphs.mine, glyphs.exploded, glyphs.wrong_flag
    );
    let odds = "Probabilities: green safe, cyan under 20%, yellow under 50%, light red 50% or \
                more, red a mine; as digits, at most that many tenths (0: proven safe).";
    let notes = [mouse, cells.as_str(), odds, page.note].map(|note| Line::raw(note.to_owned()));
    lines.extend([Line::raw("")].into_iter().chain(notes));
    lines.extend([Line::raw(""), Line::raw("Any key goes back to the game.")]);
    Paragraph::new(lines).wrap(Wrap { trim: false })
}

/// The measures every end screen shows: time (`since` after it), 3BV, 3BV/s, `clicks` and
/// efficiency.
pub(super) fn measures(
    summary: &Summary,
    since: &str,
    clicks: String,
) -> Vec<(&'static str, String)> {
    let or_dash = |value: Option<String>| value.unwrap_or_else(|| "-".into());
    let rate = summary.bbbv_per_second().map(|rate| format!("{rate:.3}"));
    let efficiency = (summary.efficiency()).map(|ioe| format!("{:.0}%", ioe * 100.0));
    let time = format!("{:.2} s{since}", summary.time.as_secs_f64());
    vec![
        ("time", time),
        ("3BV", or_dash(summary.bbbv.map(|bbbv| bbbv.to_string()))),
        ("3BV/s", or_dash(rate)),
        ("clicks", clicks),
        ("efficiency", or_dash(efficiency)),
    ]
}

/// A table's row: `name` in bold, padded to `width` columns, then `value`.
fn table_row(name: &str, width: usize, value: impl Into<String>) -> Line<'static> {
    let name = Span::styled(format!("{name:<width$}"), Style::new().bold());
    Line::from(vec![name, Span::raw(value.into())])
}

/// The end screen over the board.
fn end_screen(frame: &mut Frame<'_>, area: Rect, ending: Ending, glyphs: &Glyphs) {
    let (key, status) = (Style::new().bold(), ending.summary.status);
    let won = status == Status::Won;
    let colour = if won { Color::Green } else { Color::Red };
    // The names' column, one space wider than the longest name.
    let width = ending.rows.iter().map(|row| row.0.len() + 1).max();
    let width = width.unwrap_or(0);
    let mut lines: Vec<Line<'static>> = (ending.rows.into_iter())
        .map(|(name, value)| table_row(name, width, value))
        .collect();
    lines.push(Line::raw(""));
    let keys = [("n", ending.next), ("Esc", " board"), ("q", " quit")];
    let spans = keys.map(|(name, what)| [Span::styled(name, key), Span::raw(what)]);
    lines.push(Line::from(spans.join(&Span::raw(glyphs.dot))));
    // As wide as the longest line, with the border and the padding.
    let widest = lines.iter().map(Line::width).max().unwrap_or(0);
    let width = (widest as u16).saturating_add(4).min(area.width);
    let height = (lines.len() as u16 + 2).min(area.height);
    let x = area.x + (area.width - width) / 2;
    let popup = Rect::new(x, area.y + (area.height - height) / 2, width, height);
    let title = format!(" {} {status} ", ending.who);
    let block = Block::bordered()
        .border_set(glyphs.border)
        .padding(Padding::horizontal(1))
        .border_style(Style::new().fg(colour))
        .title_top(Span::styled(title, key.fg(colour)));
    frame.render_widget(Clear, popup);
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}

/// How a hidden cell shows the help: its odds (coloured, or as a digit of tenths with the
/// digits overlay) and the hinted cell, green and underlined.
pub(super) fn on_hidden(
    mut symbol: &'static str,
    mut style: Style,
    mine: Option<f64>,
    hinted: bool,
    overlay: Overlay,
    glyphs: &Glyphs,
) -> (&'static str, Style) {
    if let Some(mine) = mine {
        style = Style::new().fg(odds_colour(mine)).bold();
        if overlay == Overlay::Digits {
            let tenths = glyphs.tenths.get(odds_tenths(mine)).copied();
            symbol = match tenths {
                Some(digit) if mine < 1.0 => digit,
                _ => glyphs.mine,
            };
            style = style.add_modifier(glyphs.tenths_mark);
        }
    }
    if hinted {
        style = Style::new().fg(Color::Green).bold().underlined();
    }
    (symbol, style)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let got = (odds_colour(mine), odds_tenths(mine));
            assert_eq!(got, (colour, tenths), "{mine}");
        }
    }
}
