//! A frame of `bitmines play --connect`: the board from the server's chunks, drawn with the
//! local game's glyphs, layout and cursor, the other players' cursors in their colours, and
//! a panel of the players and the room's events.

use bitmines_core::{Cell, Status};
use bitmines_server::protocol::{Mode, Over, PlayerInfo};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::app::Page;
use super::draw::{ASCII, EndPopup, Glyphs, Symbol, UNICODE, look, on_hidden};
use super::remote::{LinkState, PANEL_WIDTH, Remote};
use super::viewport::{MIN_HEIGHT, MIN_WIDTH, Screen};

/// Each player's colour, by id: their cursor on the board and their mark in the panel.
const PLAYER_COLOURS: [Color; 6] = [
    Color::Magenta,
    Color::Cyan,
    Color::Yellow,
    Color::Green,
    Color::Blue,
    Color::LightRed,
];

/// The colour of player `id`.
fn colour_of(id: u32) -> Color {
    PLAYER_COLOURS[id as usize % PLAYER_COLOURS.len()]
}

/// Draws the whole screen for `remote`.
pub(crate) fn draw(frame: &mut Frame<'_>, remote: &Remote) {
    let area = frame.area();
    let glyphs = if remote.ascii() { &ASCII } else { &UNICODE };
    let Some(screen) = remote.screen() else {
        let text = if remote.welcome().is_none() {
            format!(
                "{}\n{}",
                remote.url(),
                remote.message().unwrap_or("connecting…")
            )
        } else {
            format!(
                "The terminal is too small ({}x{}): bitmines needs at least {MIN_WIDTH}x{MIN_HEIGHT}.",
                area.width, area.height
            )
        };
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    };
    if remote.page() == Page::Keys {
        frame.render_widget(keys_page(glyphs), area);
        return;
    }
    // The status, message and key lines take the terminal's whole width, above and under
    // the panel.
    let wide = |line: Rect| Rect::new(area.x, line.y, area.width, line.height);
    frame.render_widget(status_line(remote, glyphs), wide(screen.status));
    board(frame, &screen, remote, glyphs);
    frame.render_widget(message_line(remote), wide(screen.message));
    frame.render_widget(key_line(remote, glyphs), wide(screen.keys));
    if remote.shows_panel() {
        let board_area = remote.board_area();
        let panel = Rect::new(
            board_area.x + board_area.width,
            area.y + 1,
            PANEL_WIDTH,
            screen.message.y.saturating_sub(area.y + 1),
        );
        frame.render_widget(players_panel(remote, glyphs), panel);
    }
    if let Some(over) = remote.end_screen() {
        end_screen(frame, area, remote, over, glyphs);
    }
}

/// Mines left, time, cells revealed, the room and the connection.
fn status_line(remote: &Remote, glyphs: &Glyphs) -> Line<'static> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let Some(welcome) = remote.welcome() else {
        return Line::raw(remote.url().to_owned());
    };
    let co_op = welcome.mode == Mode::Coop;
    let flags: u64 = if co_op {
        remote.players().iter().map(|p| u64::from(p.flags)).sum()
    } else {
        remote.followed().map_or(0, |p| u64::from(p.flags))
    };
    let left = match remote.status() {
        Status::Won => 0,
        _ => welcome.mines as i128 - flags as i128,
    };
    let mut spans = vec![
        Span::styled(left.to_string(), bold),
        Span::raw(if left == 1 {
            " mine left"
        } else {
            " mines left"
        }),
        Span::raw(glyphs.dot),
        Span::styled(remote.elapsed().as_secs().to_string(), bold),
        Span::raw(" s"),
        Span::raw(glyphs.dot),
    ];
    let link = match remote.link() {
        LinkState::Connecting => Some("connecting".to_owned()),
        LinkState::Connected => None,
        LinkState::Reconnecting(attempt) => Some(format!("reconnecting ({attempt})")),
        LinkState::Lost => Some("disconnected".to_owned()),
    };
    if let Some(link) = link {
        spans.push(Span::styled(link, bold.fg(Color::White).bg(Color::Red)));
        spans.push(Span::raw(glyphs.dot));
    }
    spans.push(Span::raw(format!(
        "{} {}x{}",
        if co_op { "co-op" } else { "race" },
        welcome.rows,
        welcome.cols
    )));
    spans.push(Span::raw(glyphs.dot));
    spans.push(if welcome.spectator {
        Span::raw("spectating")
    } else {
        Span::styled(
            format!("you: {}", remote.name_of(welcome.player)),
            bold.fg(colour_of(welcome.player)),
        )
    });
    Line::from(spans)
}

/// The bordered board: the cells in view, the cursors, and where the view is.
fn board(frame: &mut Frame<'_>, screen: &Screen, remote: &Remote, glyphs: &Glyphs) {
    let (rows, cols) = remote.size();
    let (origin_row, origin_col) = remote.origin();
    let (cursor_row, cursor_col) = remote.cursor();
    let mut block = Block::bordered().border_set(glyphs.border);
    if screen.span_rows < rows || screen.span_cols < cols {
        let last = |origin: usize, span: usize, len: usize| (origin + span).min(len) - 1;
        let to = glyphs.to;
        let full = format!(
            " rows {origin_row}{to}{} of {rows}{}cols {origin_col}{to}{} of {cols} ",
            last(origin_row, screen.span_rows, rows),
            glyphs.dot,
            last(origin_col, screen.span_cols, cols),
        );
        let short = format!(
            " {origin_row}{to}{}/{rows}, {origin_col}{to}{}/{cols} ",
            last(origin_row, screen.span_rows, rows),
            last(origin_col, screen.span_cols, cols),
        );
        let room = usize::from(screen.frame.width.saturating_sub(2));
        block = block.title_top(if full.chars().count() <= room {
            full
        } else {
            short
        });
    }
    block = block.title_bottom(cursor_readout(remote, glyphs));
    frame.render_widget(block, screen.frame);

    let status = remote.status();
    let odds = remote.odds();
    let overlay = remote.overlay();
    let others: Vec<(u32, (usize, usize))> =
        remote.cursors().iter().map(|(&p, &at)| (p, at)).collect();
    let buffer = frame.buffer_mut();
    for dr in 0..screen.span_rows {
        let row = origin_row + dr;
        for dc in 0..screen.span_cols {
            let col = origin_col + dc;
            let Some((x, y)) = screen.glyph_at(dr, dc) else {
                continue;
            };
            let (mut symbol, mut style) = match remote.cell(row, col) {
                Some(cell) => look(cell, status, glyphs),
                // Not here yet: asked for, on its way.
                None => (
                    Symbol::Static(if remote.ascii() { " " } else { "·" }),
                    Style::new().fg(Color::DarkGray),
                ),
            };
            let cell = remote.cell(row, col);
            if cell == Some(Cell::Hidden) {
                let mine = odds.and_then(|odds| odds.mine(row, col));
                let hinted = remote.hint() == Some((row, col));
                (symbol, style) = on_hidden(symbol, style, mine, hinted, overlay, glyphs);
            }
            if cell == Some(Cell::Flagged) && remote.proven_wrong(row, col) {
                (symbol, style) = look(Cell::WrongFlag, Status::Lost, glyphs);
            }
            if let Some(&(player, _)) = others.iter().find(|(_, at)| *at == (row, col)) {
                style = style.bg(colour_of(player)).fg(Color::Black);
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

/// The cursor's cell and, under the overlay, its chance of holding a mine.
fn cursor_readout(remote: &Remote, glyphs: &Glyphs) -> String {
    let (row, col) = remote.cursor();
    let chance = remote
        .odds()
        .filter(|_| remote.cell(row, col) == Some(Cell::Hidden))
        .and_then(|odds| odds.mine(row, col));
    match chance {
        Some(mine) => format!(" ({row}, {col}){}mine {:.1}% ", glyphs.dot, mine * 100.0),
        None => format!(" ({row}, {col}) "),
    }
}

/// The last message, else the room's last event.
fn message_line(remote: &Remote) -> Line<'static> {
    let text = match remote.message() {
        Some(message) => message.to_owned(),
        None => remote.events().pop().unwrap_or_default(),
    };
    Line::raw(text)
}

/// The keys.
fn key_line(remote: &Remote, glyphs: &Glyphs) -> Line<'static> {
    let race = remote.welcome().is_some_and(|w| w.mode == Mode::Race);
    let keys: &[(&str, &str)] = if remote.only_watching() && race {
        &[
            (glyphs.arrows, "move"),
            ("Tab", "next player"),
            ("?", "keys"),
            ("q", "quit"),
        ]
    } else if remote.only_watching() {
        &[
            (glyphs.arrows, "move"),
            ("c", "centre"),
            ("?", "keys"),
            ("q", "quit"),
        ]
    } else if remote.status() == Status::Playing {
        &[
            ("Space", "open"),
            ("f", "flag"),
            ("h", "hint"),
            ("p", "odds"),
            ("w", "wrong flags"),
            ("?", "keys"),
            ("q", "quit"),
        ]
    } else {
        &[("Esc", "board"), ("?", "keys"), ("q", "quit")]
    };
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut spans = Vec::new();
    for (i, (name, what)) in keys.iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw(glyphs.dot));
        }
        spans.push(Span::styled(*name, bold));
        spans.push(Span::raw(format!(" {what}")));
    }
    Line::from(spans)
}

/// The `?` page: every key of a game in a room.
fn keys_page(glyphs: &Glyphs) -> Paragraph<'static> {
    let rows: [(&str, &str); 13] = [
        (
            glyphs.arrows,
            "move the cursor (with Shift: a screen at a time)",
        ),
        ("PgUp PgDn", "a screen up or down"),
        ("Home End", "the first or last column"),
        ("g G", "the first or the last cell of the board"),
        ("c", "centre the view on the cursor"),
        ("Space Enter", "reveal the cell, or chord an open number"),
        ("f", "flag or unflag the cell"),
        ("h", "hint: a cell proven safe near the cursor, and why"),
        (
            "p",
            "the odds around the cursor: colours, then digits, then off",
        ),
        ("w", "show the flags near the cursor proven wrong"),
        (
            "Tab",
            "a race: watch the next player (once your own game is over)",
        ),
        ("Esc", "clear the message and the hint"),
        (
            "q Ctrl-C",
            "quit (the game goes on on the server; the token brings you back)",
        ),
    ];
    let key = Style::new().add_modifier(Modifier::BOLD);
    let mut lines = vec![
        Line::styled("bitmines play --connect: keys", key),
        Line::raw(""),
    ];
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
        Line::raw(
            "The others' cursors show in their colours, as in the panel; help is the \
             server's, on the 48x48 cells around the cursor.",
        ),
        Line::raw(""),
        Line::raw("Any key goes back to the game."),
    ]);
    Paragraph::new(lines).wrap(Wrap { trim: false })
}

/// One player's line in the panel: co-op scores, or race progress.
fn player_line(remote: &Remote, player: &PlayerInfo, co_op: bool) -> Line<'static> {
    let me = remote.welcome().is_some_and(|w| w.player == player.id);
    let mark = Span::styled(
        match (player.online, remote.ascii()) {
            (true, false) => "● ",
            (false, false) => "○ ",
            (true, true) => "+ ",
            (false, true) => "- ",
        },
        Style::new().fg(colour_of(player.id)),
    );
    let mut name: String = player.name.chars().take(10).collect();
    if me {
        name += "*";
    }
    let name = Span::styled(
        format!("{name:<11}"),
        Style::new().add_modifier(Modifier::BOLD),
    );
    let figures = if co_op {
        format!(
            "{:>6}{:>4}{:>4}",
            player.revealed, player.mines_hit, player.flags
        )
    } else {
        let safe = remote
            .welcome()
            .map_or(0, |w| u64::from(w.rows) * u64::from(w.cols) - w.mines);
        let status = match player.status {
            1 => "won",
            2 => "lost",
            _ => "",
        };
        format!(
            "{:>4}%{:>5}s {status}",
            (player.revealed * 100).checked_div(safe).unwrap_or(0),
            player.elapsed_ms / 1000
        )
    };
    Line::from(vec![mark, name, Span::raw(figures)])
}

/// The players and the room's last events.
fn players_panel(remote: &Remote, glyphs: &Glyphs) -> Paragraph<'static> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let co_op = remote.welcome().is_some_and(|w| w.mode == Mode::Coop);
    let mut lines = vec![Line::styled(
        if co_op {
            format!("{:<13}{:>6}{:>4}{:>4}", "Players", "open", "hit", "flg")
        } else {
            format!("{:<13}{:>5}{:>6}", "Players", "done", "time")
        },
        bold,
    )];
    lines.extend(
        remote
            .players()
            .iter()
            .map(|player| player_line(remote, player, co_op)),
    );
    lines.push(Line::raw(""));
    lines.push(Line::styled("Room", bold));
    lines.extend(
        remote
            .events()
            .into_iter()
            .map(|event| Line::raw(format!("{}{event}", glyphs.dot.trim_start()))),
    );
    Paragraph::new(lines).wrap(Wrap { trim: false })
}

/// The end screen over the board, from the server's over frame.
fn end_screen(frame: &mut Frame<'_>, area: Rect, remote: &Remote, over: &Over, glyphs: &Glyphs) {
    let key = Style::new().add_modifier(Modifier::BOLD);
    let co_op = remote.welcome().is_some_and(|w| w.mode == Mode::Coop);
    let won = over.status == 1;
    let (title, colour) = match (won, co_op) {
        (true, true) => (" The room won ", Color::Green),
        (true, false) => (" You won ", Color::Green),
        (false, true) => (" The room lost ", Color::Red),
        (false, false) => (" You lost ", Color::Red),
    };
    let seconds = f64::from(over.elapsed_ms) / 1000.0;
    let dash = || "-".to_owned();
    let mut rows = vec![
        ("time", format!("{seconds:.2} s")),
        ("3BV", over.bbbv.to_string()),
        (
            "3BV/s",
            if won && seconds > 0.0 {
                format!("{:.3}", f64::from(over.bbbv) / seconds)
            } else {
                dash()
            },
        ),
        ("clicks", over.clicks.to_string()),
        (
            "efficiency",
            if won && over.clicks > 0 {
                format!(
                    "{:.0}%",
                    f64::from(over.bbbv) / f64::from(over.clicks) * 100.0
                )
            } else {
                dash()
            },
        ),
    ];
    for &(player, flags) in &over.correct_flags {
        rows.push((
            "flags right",
            format!("{}: {flags}", remote.name_of(player)),
        ));
    }
    let keys = vec![
        Span::styled("Esc", key),
        Span::raw(" board"),
        Span::raw(glyphs.dot),
        Span::styled("q", key),
        Span::raw(" quit"),
    ];
    let popup = EndPopup {
        title,
        colour,
        name_width: 12,
        keys,
    };
    popup.draw(frame, area, glyphs, rows);
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use bitmines_server::protocol::{EventKind, MineRule, ServerMsg, Welcome, cell};
    use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::play::net::NetEvent;

    /// The screen of `remote` as text, one line per terminal row.
    fn text(remote: &Remote) -> String {
        let area = remote.area();
        let mut terminal = Terminal::new(TestBackend::new(area.width, area.height)).unwrap();
        terminal.draw(|frame| draw(frame, remote)).unwrap();
        let buffer = terminal.backend().buffer().clone();
        (0..area.height)
            .map(|y| {
                (0..area.width)
                    .map(|x| buffer.cell((x, y)).map_or(" ", |c| c.symbol()))
                    .collect::<String>()
                    .trim_end()
                    .to_owned()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A co-op room of 9x9 with two players: the board from a chunk frame, the panel, the
    /// other player's cursor, an event on the message line, the keys page and the end screen.
    #[test]
    fn a_room_on_the_screen() {
        let now = Instant::now();
        let mut remote = Remote::new(
            "ws://127.0.0.1:1/room/r",
            None,
            Rect::new(0, 0, 80, 16),
            now,
        );
        let welcome = Welcome {
            version: 1,
            spectator: false,
            player: 1,
            token: [7; 16],
            rows: 9,
            cols: 9,
            mines: 10,
            mode: Mode::Coop,
            rule: MineRule::Classic,
            no_guess: false,
            first: (4, 4),
            max_chunks: 256,
            view: 0,
            elapsed_ms: 0,
            clock_running: false,
        };
        remote.receive(
            NetEvent::Joined {
                welcome,
                token: Some("07".repeat(16)),
            },
            now,
        );
        let mut cells = vec![cell::HIDDEN; 81];
        cells[4 * 9 + 4] = 0;
        cells[4 * 9 + 5] = 2;
        cells[0] = cell::FLAGGED;
        let player = |id, name: &str, flags| PlayerInfo {
            id,
            name: name.into(),
            online: true,
            status: 0,
            revealed: 2,
            mines_hit: 0,
            flags,
            elapsed_ms: 3000,
        };
        for frame in [
            ServerMsg::Chunk {
                view: 0,
                chunk_row: 0,
                chunk_col: 0,
                height: 9,
                width: 9,
                cells,
            },
            ServerMsg::Players(vec![player(1, "ann", 1), player(2, "bo", 0)]),
            ServerMsg::Cursors(vec![(2, 1, 1)]),
            ServerMsg::Event {
                kind: EventKind::Joined,
                player: 2,
                row: 0,
                col: 0,
            },
        ] {
            remote.receive(NetEvent::Frame(frame), now);
        }
        let press = |remote: &mut Remote, code| {
            remote.handle(&Event::Key(KeyEvent::new(code, KeyModifiers::NONE)), now);
        };
        press(&mut remote, KeyCode::Esc);
        let screen = text(&remote);
        for part in [
            "9 mines left · 3 s · co-op 9x9 · you: ann",
            "│ ⚑ ■ ■ ■ ■ ■ ■ ■ ■ │",
            "│ ■ ■ ■ ■[ ]2 ■ ■ ■ │",
            "● ann*",
            "● bo",
            "· bo joined",
            "\nbo joined\n",
            "Space open · f flag · h hint · p odds · w wrong flags · ? keys · q quit",
        ] {
            assert!(screen.contains(part), "{part:?} not on\n{screen}");
        }
        press(&mut remote, KeyCode::Char('?'));
        assert!(text(&remote).contains("bitmines play --connect: keys"));
        press(&mut remote, KeyCode::Char('x'));
        remote.receive(
            NetEvent::Frame(ServerMsg::Over(Over {
                view: 0,
                status: 1,
                elapsed_ms: 8000,
                bbbv: 12,
                clicks: 16,
                correct_flags: vec![(1, 1), (2, 0)],
            })),
            now,
        );
        let screen = text(&remote);
        for part in [
            "The room won",
            "time        8.00 s",
            "3BV         12",
            "3BV/s       1.500",
            "clicks      16",
            "efficiency  75%",
            "flags right ann: 1",
            "flags right bo: 0",
        ] {
            assert!(screen.contains(part), "{part:?} not on\n{screen}");
        }
    }
}
