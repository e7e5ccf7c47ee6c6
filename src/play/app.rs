//! The terminal game's state and what each key and mouse event does to it, with no terminal:
//! [`App`] over a source that implements [`Play`]. Time is always passed in, so tests replay
//! a game to the same screen.

use std::ops::{Deref, DerefMut, Range};
use std::time::{Duration, Instant};

use bitmines_core::{Cell, Status};
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::{Line, Span};

use super::draw::{Ending, Glyphs, KeyPage};
use super::local::Local;
use super::viewport::{self, Screen};

/// Rows (or columns) one turn of the mouse wheel scrolls.
const WHEEL_STEP: isize = 3;

/// Terminal columns of the players' panel, right of the board, on terminals wide enough.
pub(crate) const PANEL_WIDTH: u16 = 30;

/// The narrowest terminal that shows the panel beside the board.
const PANEL_FROM: u16 = 64;

/// What the loop around the app must do after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// Draw and wait for the next event.
    Continue,
    /// Save the game, then go on.
    Save,
    /// Stop at once.
    Quit,
}

/// How the mine probabilities are shown on hidden cells.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Overlay {
    /// Not at all.
    #[default]
    Off,
    /// As the colour of each hidden cell's glyph.
    Colour,
    /// As one digit per hidden cell: at most that many tenths.
    Digits,
}

impl Overlay {
    /// The next one `p` shows: colours, then digits, then off.
    fn next(self) -> Overlay {
        match self {
            Overlay::Off => Overlay::Colour,
            Overlay::Colour => Overlay::Digits,
            Overlay::Digits => Overlay::Off,
        }
    }
}

/// The help shown on the board; by default none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Shown {
    /// How the mine probabilities are shown.
    pub(crate) overlay: Overlay,
    /// Whether flags proven wrong are shown.
    pub(crate) wrong_flags: bool,
}

/// A move on a cell, as the app asks it of its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Move {
    /// Space or a left click on a cell that is not an open number.
    Reveal,
    /// `f` or a right click.
    Flag,
    /// A middle click, or Space or a left click on an open number.
    Chord,
    /// Space or a left click on a flag: nothing opens, but a player counts the click.
    Wasted,
}

/// The help a player asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Help {
    /// `h`: a cell proven safe, and why.
    Hint,
    /// `p`: the mine probabilities, as colours, then digits, then off.
    Odds,
    /// `w`: the flags proven wrong, shown or hidden.
    WrongFlags,
}

/// What a source tells the app, after a move, a request or a frame from the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reply {
    /// This text on the message line, or none.
    Say(Option<String>),
    /// The hint's mark on this cell, the cursor brought there; or the mark taken off.
    Hint(Option<(usize, usize)>),
    /// The cursor to this cell, the view following.
    Goto((usize, usize)),
    /// The cursor on this cell with the view centred on it: a new board.
    Place((usize, usize)),
    /// The probabilities and the wrong flags go: they cannot be worked out.
    HelpOff,
    /// The game is over: the help goes and its end screen comes up.
    Ended,
    /// The next game: the help, the hint and the end screen go.
    Fresh,
}

/// What the terminal game plays: a local game or a room of a server. The app calls the
/// methods that change it and then takes its [`Reply`]s; the screen reads the others.
pub(crate) trait Play {
    /// Whether the board shares the screen with the players' panel.
    const ROOM: bool;
    /// Board rows and columns; `None` before there is a board (a room before its welcome).
    fn size(&self) -> Option<(usize, usize)>;
    /// A cell of the board shown, or `None` while it is not known here (a chunk on its way).
    fn cell(&self, row: usize, col: usize) -> Option<Cell>;
    /// The status of the game shown.
    fn status(&self) -> Status;
    /// Time played, at `now`.
    fn elapsed(&self, now: Instant) -> Duration;
    /// How long the loop may wait for an event before drawing again; `None`: until one.
    fn wake(&self, now: Instant) -> Option<Duration>;
    /// Whether keys other than quit wait (a board being made).
    fn busy(&self) -> bool {
        false
    }
    /// What `q` says when quitting now would lose the game: the next `q` quits.
    fn quit_note(&self) -> Option<&'static str> {
        None
    }
    /// After every change: the cursor, the cells in view (`None`: none), the help shown.
    fn show(&mut self, cursor: (usize, usize), view: Option<[Range<usize>; 2]>, shown: Shown);
    /// Moves the source's clock to `now`.
    fn tick(&mut self, now: Instant);
    /// A move on `cell`.
    fn play(&mut self, action: Move, cell: (usize, usize), now: Instant);
    /// A request for help; `true` if the board shows `shown` next.
    fn help(&mut self, ask: Help, shown: Shown) -> bool;
    /// A key the app leaves to the source (`n`, the next game once this one is over; save;
    /// the next player); a key the source does not use changes nothing.
    fn key(&mut self, code: KeyCode, now: Instant) -> Action;
    /// The replies not taken yet, in order; the app empties it.
    fn replies(&mut self) -> &mut Vec<Reply>;
    /// Puts `text` on the message line.
    fn say(&mut self, text: impl Into<String>) {
        self.replies().push(Reply::Say(Some(text.into())));
    }
    /// While the overlay is on: a hidden cell's chance of a mine, and whether it is exact.
    fn mine_odds(&self, row: usize, col: usize) -> Option<(f64, bool)>;
    /// Whether `(row, col)` holds a flag proven wrong, while they are shown.
    fn proven_wrong(&self, row: usize, col: usize) -> bool;
    /// The colour of another player's cursor on `(row, col)`, if one is there.
    fn colour_at(&self, _row: usize, _col: usize) -> Option<Color> {
        None
    }
    /// Mines less flags (the screen shows none left on a won board).
    fn mines_left(&self) -> i128;
    /// The status line after the mines left and the time.
    fn figures(&self, glyphs: &Glyphs) -> Vec<Span<'static>>;
    /// The message line when there is no message; while there is no board, what the screen
    /// says over it (a room's address).
    fn idle_line(&self) -> String;
    /// This source's own keys on the key line, after the moves (while the player plays the
    /// board shown) and before the key page and quit: `(key, what it does, whether it is
    /// shown however narrow the screen)`.
    fn keys(&self, glyphs: &Glyphs) -> Vec<(&'static str, &'static str, bool)>;
    /// Whether the board shown is not the player's to play: a spectator's, another racer's.
    fn only_watching(&self) -> bool {
        false
    }
    /// The key page's title, and the keys and the note of this source's own.
    const KEY_PAGE: KeyPage;
    /// The players' panel; empty when playing alone.
    fn panel(&self, _glyphs: &Glyphs, _ascii: bool) -> Vec<Line<'static>> {
        Vec::new()
    }
    /// The end screen, once the game is over.
    fn ending(&self) -> Option<Ending>;
}

/// A finished game in the measures players compare.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Summary {
    /// Won or lost.
    pub(crate) status: Status,
    /// From the first click to the last.
    pub(crate) time: Duration,
    /// The board's 3BV: the fewest clicks that clear it without flags or chords.
    pub(crate) bbbv: Option<usize>,
    /// The clicks made.
    pub(crate) clicks: u64,
}

impl Summary {
    /// 3BV per second, for a won game that took some time.
    pub(crate) fn bbbv_per_second(&self) -> Option<f64> {
        let seconds = self.time.as_secs_f64();
        match (self.status, self.bbbv) {
            (Status::Won, Some(bbbv)) if seconds > 0.0 => Some(bbbv as f64 / seconds),
            _ => None,
        }
    }

    /// 3BV per click (IOE): 1 for a game cleared with no wasted click, above 1 with chords.
    pub(crate) fn efficiency(&self) -> Option<f64> {
        match (self.status, self.bbbv, self.clicks) {
            (Status::Won, Some(bbbv), clicks) if clicks > 0 => Some(bbbv as f64 / clicks as f64),
            _ => None,
        }
    }
}

/// Everything the screen shows over a source `S`, which the app derefs to.
#[derive(Debug)]
pub(crate) struct App<S = Local> {
    source: S,
    /// Always on the board, once there is one.
    cursor: (usize, usize),
    /// The top-left cell shown; kept so the view never runs past the board's end.
    origin: (usize, usize),
    area: Rect,
    /// Whether to draw with ASCII glyphs only.
    pub(crate) ascii: bool,
    /// Whether the key page (`?`) is in front of the board.
    pub(crate) keys_shown: bool,
    end_shown: bool,
    /// The cell of the last hint, until the next move.
    pub(crate) hint: Option<(usize, usize)>,
    /// The help shown on the board.
    pub(crate) shown: Shown,
    message: Option<String>,
    now: Instant,
    /// Whether `q` has asked to confirm, and the next `q` quits.
    quit_asked: bool,
}

impl<S> Deref for App<S> {
    type Target = S;

    fn deref(&self) -> &S {
        &self.source
    }
}

impl<S> DerefMut for App<S> {
    fn deref_mut(&mut self) -> &mut S {
        &mut self.source
    }
}

impl<S: Play> App<S> {
    /// An app over `source` in a terminal of `area`, having taken its first replies.
    pub(crate) fn over(source: S, area: Rect, now: Instant) -> Self {
        let mut app = App {
            source,
            cursor: (0, 0),
            origin: (0, 0),
            area,
            ascii: false,
            keys_shown: false,
            end_shown: false,
            hint: None,
            shown: Shown::default(),
            message: None,
            now,
            quit_asked: false,
        };
        app.absorb();
        app
    }

    /// The same app drawn with ASCII glyphs only.
    pub(crate) fn with_ascii(mut self, ascii: bool) -> Self {
        self.ascii = ascii;
        self
    }

    /// Applies `event`, which arrived at `now`.
    pub(crate) fn handle(&mut self, event: &Event, now: Instant) -> Action {
        self.now = now;
        let mut action = Action::Continue;
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => action = self.key(key),
            Event::Mouse(mouse) => self.mouse(mouse),
            Event::Resize(width, height) => self.resize(Rect::new(0, 0, *width, *height)),
            _ => {}
        }
        self.absorb();
        action
    }

    /// Moves the app's clock to `now` and lets the source catch up (a board made off the
    /// thread, a cursor frame due).
    pub(crate) fn tick(&mut self, now: Instant) {
        self.update(now, |source| source.tick(now));
    }

    /// Lets `change` act on the source at `now` (a server's frame), then takes its replies.
    pub(crate) fn update(&mut self, now: Instant, change: impl FnOnce(&mut S)) {
        self.now = now;
        change(&mut self.source);
        self.absorb();
    }

    /// Takes the terminal's new size, keeping the cursor in view.
    pub(crate) fn resize(&mut self, area: Rect) {
        self.area = area;
        self.follow();
        self.absorb();
    }

    /// Shows `text` on the message line.
    pub(crate) fn note(&mut self, text: impl Into<String>) {
        self.message = Some(text.into());
    }

    /// The cursor, `(row, col)`.
    pub(crate) fn cursor(&self) -> (usize, usize) {
        self.cursor
    }

    /// The top-left cell shown.
    pub(crate) fn origin(&self) -> (usize, usize) {
        self.origin
    }

    /// The terminal's size as last seen.
    pub(crate) fn area(&self) -> Rect {
        self.area
    }

    /// The message line's text, if any.
    pub(crate) fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// Time played so far.
    pub(crate) fn elapsed(&self) -> Duration {
        self.source.elapsed(self.now)
    }

    /// How long the loop may wait for an event before drawing again; `None`: until one.
    pub(crate) fn wake(&self) -> Option<Duration> {
        self.source.wake(self.now)
    }

    /// The end screen, while it is shown.
    pub(crate) fn end_screen(&self) -> Option<Ending> {
        self.end_shown.then(|| self.source.ending()).flatten()
    }

    /// Whether the players' panel is drawn beside the board.
    pub(crate) fn shows_panel(&self) -> bool {
        S::ROOM && self.area.width >= PANEL_FROM
    }

    /// The part of the terminal the board's screen lays out in: all of it, less the panel.
    pub(crate) fn board_area(&self) -> Rect {
        let mut area = self.area;
        if self.shows_panel() {
            area.width -= PANEL_WIDTH;
        }
        area
    }

    /// The layout of the board's part of the screen, or `None` while there is no board or
    /// when the terminal is too small.
    pub(crate) fn screen(&self) -> Option<Screen> {
        let (rows, cols) = self.source.size()?;
        Screen::new(self.board_area(), rows, cols)
    }

    /// Board rows and columns (none before there is a board).
    fn size(&self) -> (usize, usize) {
        self.source.size().unwrap_or((0, 0))
    }

    /// Rows and columns of the board in view; one each when the terminal is too small to
    /// show any, so moves still have a view to keep the cursor in.
    fn spans(&self) -> (usize, usize) {
        self.screen()
            .map_or((1, 1), |screen| (screen.span_rows, screen.span_cols))
    }

    /// Takes the source's replies, then tells it where the cursor and the view are.
    fn absorb(&mut self) {
        for reply in std::mem::take(self.source.replies()) {
            match reply {
                Reply::Say(text) => self.message = text,
                Reply::Hint(None) => self.hint = None,
                Reply::Hint(Some(cell)) => {
                    self.hint = Some(cell);
                    self.move_to(cell.0, cell.1);
                }
                Reply::Goto((row, col)) => self.move_to(row, col),
                Reply::Place(cell) => {
                    self.cursor = cell;
                    self.centre();
                }
                Reply::HelpOff => self.shown = Shown::default(),
                Reply::Ended | Reply::Fresh => {
                    self.shown = Shown::default();
                    self.hint = None;
                    self.end_shown = reply == Reply::Ended;
                }
            }
        }
        let view = self.screen().map(|screen| {
            let (row, col) = self.origin;
            [row..row + screen.span_rows, col..col + screen.span_cols]
        });
        self.source.show(self.cursor, view, self.shown);
    }

    fn key(&mut self, key: &KeyEvent) -> Action {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        if ctrl && key.code == KeyCode::Char('c') {
            return Action::Quit;
        }
        if matches!(key.code, KeyCode::Char('q' | 'Q')) {
            match self.source.quit_note() {
                Some(note) if !self.quit_asked => {
                    self.quit_asked = true;
                    self.note(note);
                    return Action::Continue;
                }
                _ => return Action::Quit,
            }
        }
        self.quit_asked = false;
        if self.source.busy() || self.screen().is_none() {
            // Keys wait while the board is made, and act on nothing the player cannot see.
            return Action::Continue;
        }
        if self.keys_shown {
            self.keys_shown = false;
            return Action::Continue;
        }
        if self.end_shown {
            // The end screen covers the board: the first key closes it, and `n` goes on.
            self.end_shown = false;
            if key.code != KeyCode::Char('n') {
                return Action::Continue;
            }
        }
        let (page_rows, page_cols) = self.spans();
        let (page_rows, page_cols) = (page_rows as isize, page_cols as isize);
        let step = |page: isize| if shift { page } else { 1 };
        let (one_rows, one_cols) = (step(page_rows), step(page_cols));
        let (rows, cols) = self.size();
        match key.code {
            KeyCode::Up => self.move_by(-one_rows, 0, shift),
            KeyCode::Down => self.move_by(one_rows, 0, shift),
            KeyCode::Left => self.move_by(0, -one_cols, shift),
            KeyCode::Right => self.move_by(0, one_cols, shift),
            KeyCode::PageUp => self.move_by(-page_rows, 0, true),
            KeyCode::PageDown => self.move_by(page_rows, 0, true),
            KeyCode::Home => self.move_to(self.cursor.0, 0),
            KeyCode::End => self.move_to(self.cursor.0, cols - 1),
            KeyCode::Char('g') => self.move_to(0, 0),
            KeyCode::Char('G') => self.move_to(rows - 1, cols - 1),
            KeyCode::Char('c') => self.centre(),
            KeyCode::Char(' ') | KeyCode::Enter => self.open(self.cursor),
            KeyCode::Char('f') => self.source.play(Move::Flag, self.cursor, self.now),
            KeyCode::Char('h') => self.ask(Help::Hint, |_| {}),
            KeyCode::Char('p') => self.ask(Help::Odds, |s| s.overlay = s.overlay.next()),
            KeyCode::Char('w') => self.ask(Help::WrongFlags, |s| s.wrong_flags = !s.wrong_flags),
            KeyCode::Char('?') => self.keys_shown = true,
            KeyCode::Esc => (self.message, self.hint) = (None, None),
            code => return self.source.key(code, self.now),
        }
        Action::Continue
    }

    fn mouse(&mut self, mouse: &MouseEvent) {
        if self.source.busy() || self.screen().is_none() {
            return;
        }
        let sideways = mouse.modifiers.contains(KeyModifiers::SHIFT);
        match mouse.kind {
            MouseEventKind::ScrollUp if sideways => self.scroll(0, -WHEEL_STEP),
            MouseEventKind::ScrollDown if sideways => self.scroll(0, WHEEL_STEP),
            MouseEventKind::ScrollUp => self.scroll(-WHEEL_STEP, 0),
            MouseEventKind::ScrollDown => self.scroll(WHEEL_STEP, 0),
            MouseEventKind::ScrollLeft => self.scroll(0, -WHEEL_STEP),
            MouseEventKind::ScrollRight => self.scroll(0, WHEEL_STEP),
            MouseEventKind::Down(button) => {
                if self.keys_shown || self.end_shown {
                    (self.keys_shown, self.end_shown) = (false, false);
                    return;
                }
                let (x, y) = (mouse.column, mouse.row);
                let at = self.screen().and_then(|s| s.cell_at(x, y));
                let Some((row, col)) = at else { return };
                let cell = (self.origin.0 + row, self.origin.1 + col);
                let (rows, cols) = self.size();
                if cell.0 >= rows || cell.1 >= cols {
                    return;
                }
                // The view stays put under the mouse: the cell clicked is in view already.
                self.cursor = cell;
                match button {
                    MouseButton::Left => self.open(cell),
                    MouseButton::Right => self.source.play(Move::Flag, cell, self.now),
                    MouseButton::Middle => self.source.play(Move::Chord, cell, self.now),
                }
            }
            _ => {}
        }
    }

    /// Moves the cursor by `(rows, cols)`; a page move takes the view along, so the cursor
    /// keeps its place on the screen.
    fn move_by(&mut self, rows: isize, cols: isize, page: bool) {
        let (board_rows, board_cols) = self.size();
        self.cursor = (
            viewport::step(self.cursor.0, rows, board_rows),
            viewport::step(self.cursor.1, cols, board_cols),
        );
        if page {
            self.scroll(rows, cols);
        }
        self.follow();
    }

    fn move_to(&mut self, row: usize, col: usize) {
        self.cursor = (row, col);
        self.follow();
    }

    /// Scrolls the view alone; the cursor may leave it (`c` brings the view back).
    fn scroll(&mut self, rows: isize, cols: isize) {
        let (span_rows, span_cols) = self.spans();
        let (board_rows, board_cols) = self.size();
        let axis = |origin, delta, len, span| {
            viewport::clamp(viewport::step(origin, delta, len), len, span)
        };
        self.origin = (
            axis(self.origin.0, rows, board_rows, span_rows),
            axis(self.origin.1, cols, board_cols, span_cols),
        );
    }

    /// Scrolls the view as little as keeps the cursor in it.
    fn follow(&mut self) {
        self.place_view(viewport::follow);
    }

    /// Puts the cursor in the middle of the view.
    fn centre(&mut self) {
        self.place_view(|_, cursor, len, span| viewport::centre(cursor, len, span));
    }

    /// Moves the view on each axis to `axis(origin, cursor, board length, span)`.
    fn place_view(&mut self, axis: impl Fn(usize, usize, usize, usize) -> usize) {
        let ((rows, cols), (span_rows, span_cols)) = (self.size(), self.spans());
        self.origin = (
            axis(self.origin.0, self.cursor.0, rows, span_rows),
            axis(self.origin.1, self.cursor.1, cols, span_cols),
        );
    }

    /// Asks the source for help, and shows the help `change` makes if it says yes.
    fn ask(&mut self, help: Help, change: impl FnOnce(&mut Shown)) {
        let mut shown = self.shown;
        change(&mut shown);
        if self.source.help(help, shown) {
            self.shown = shown;
        }
    }

    /// Space or a left click: chords an open number, says why a flag does not open,
    /// reveals anything else.
    fn open(&mut self, cell: (usize, usize)) {
        let (row, col) = cell;
        match self.source.cell(row, col) {
            Some(Cell::Open(n)) if n > 0 => self.source.play(Move::Chord, cell, self.now),
            Some(Cell::Flagged) if self.source.status() == Status::Playing => {
                self.source.play(Move::Wasted, cell, self.now);
                self.note(if self.source.proven_wrong(row, col) {
                    format!(
                        "the flag on ({row}, {col}) is proven wrong: f takes it off, then Space opens the cell"
                    )
                } else {
                    format!("({row}, {col}) is flagged: f takes the flag off first")
                });
            }
            _ => self.source.play(Move::Reveal, cell, self.now),
        }
    }
}
