//! `bitmines play --connect`: a server's room as the terminal game's source ([`Room`]). It
//! holds a [`Picture`] of the chunks in view, never decides a move itself, and answers the
//! app when the server's frames ([`NetEvent`]s) come.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;
use std::time::{Duration, Instant};

use bitmines_core::{Cell, Status};
use bitmines_server::client::{Link, NetEvent, OddsWindow, Picture, cell_of, status_of};
use bitmines_server::protocol::{
    self, CHUNK, ChunkRect, ClientMsg, ErrorCode, EventKind, MineRule, Mode, NO_TIME, NOBODY, Over,
    PlayerInfo, SeriesEntry, ServerMsg, Welcome, cell,
};
use crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use super::app::{Action, App, Help, Move, Overlay, Play, Reply, Shown, Summary};
use super::draw::{Ending, Glyphs, KeyPage, measures};
use super::local::flags_wrong;

/// The least time between two cursor frames: the server passes cursors on at most ten
/// times a second, so sending more would only spend the rate limit.
const CURSOR_EVERY: Duration = Duration::from_millis(100);

/// Room events kept for the panel.
const EVENTS_KEPT: usize = 8;

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

/// The connection as the player sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum LinkState {
    /// Before the first welcome.
    #[default]
    Connecting,
    /// Joined.
    Connected,
    /// Lost, joining again (the try's number).
    Reconnecting(u32),
    /// Gone for good.
    Lost,
}

/// A request waiting for its answer, by `seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    /// A move on a cell.
    Move(protocol::Action, (usize, usize)),
    /// Help (a hint, odds, wrong flags), the next game or ready: the answers say which.
    Other,
}

/// The terminal game over a room of a server.
pub(crate) type Remote = App<Room>;

/// Everything known here of a room: the welcome, the chunks in view, the players, the
/// room's events and the requests waiting for their answers.
#[derive(Debug, Default)]
pub(crate) struct Room {
    /// The room's address without its query, for the screen.
    url: String,
    /// `Some` when spectating: the player to watch, if one was named.
    spectate: Option<Option<u32>>,
    welcome: Option<Welcome>,
    token: Option<String>,
    link: LinkState,
    picture: Picture,
    /// The view drawn; after a watch request, the view of the chunk frames that answer it.
    view: u32,
    /// Whether the connection has a view to subscribe to.
    has_view: bool,
    /// A watch was sent and its chunks have not come yet.
    watch_sent: bool,
    /// The player whose view is watched in a race, when not one's own; and the one before
    /// the last watch, to go back to if the server refuses it.
    watching: Option<u32>,
    watched_before: Option<u32>,
    /// The chunks watched, `(chunk_row, chunk_col)`.
    subscribed: BTreeSet<(u32, u32)>,
    /// The cursor and the cells in view, as the app last told them.
    cursor: (usize, usize),
    in_view: Option<[Range<usize>; 2]>,
    players: Vec<PlayerInfo>,
    /// The server's clock of a view, as the welcome or the last clock frame gave it:
    /// `(view, play time in milliseconds, running, when it came)`. The server sends one
    /// whenever a clock starts or stops and with every watch, so it is the one clock shown.
    clock: Option<(u32, u32, bool, Instant)>,
    /// Other co-op players' cursors, by player id.
    cursors: BTreeMap<u32, (usize, usize)>,
    /// The room's last events, named when drawn, so a name that came after its event shows.
    events: Vec<(EventKind, u32, u32, u32)>,
    /// The help on the board, as the app last told it.
    shown: Shown,
    odds: Option<OddsWindow>,
    wrong_flags: Vec<(usize, usize)>,
    over: Option<Over>,
    /// A race room's series scoreboard, as the server last sent it.
    series: Vec<SeriesEntry>,
    /// Whether a race with a countdown has not started yet.
    countdown: bool,
    seq: u32,
    asked: HashMap<u32, Asked>,
    outbox: Vec<ClientMsg>,
    cursor_moved: bool,
    cursor_sent: Option<Instant>,
    replies: Vec<Reply>,
}

impl App<Room> {
    /// A session about to join `url` in a terminal of `area`; `spectate` is `Some` to watch
    /// (naming the player to watch, in a race).
    pub(crate) fn new(url: &str, spectate: Option<Option<u32>>, area: Rect, now: Instant) -> Self {
        let room = Room {
            url: url.split('?').next().unwrap_or(url).to_owned(),
            spectate,
            replies: vec![Reply::Say(Some("connecting…".into()))],
            ..Room::default()
        };
        App::over(room, area, now)
    }

    /// Takes what the network thread said, at `now`.
    pub(crate) fn receive(&mut self, event: NetEvent, now: Instant) {
        self.update(now, |room| room.receive(event, now));
    }

    /// One turn of the loop at `now`: what `link` brought in, the clock, the messages out.
    pub(crate) fn pump(&mut self, link: &Link, now: Instant) {
        for event in link.poll() {
            self.receive(event, now);
        }
        self.tick(now);
        for msg in self.take_outbox() {
            link.send(msg);
        }
    }
}

impl Room {
    /// The player's token (hexadecimal), to come back as the same player.
    pub(crate) fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// The state of a cell of the view drawn, if its chunk is here.
    pub(crate) fn state(&self, row: usize, col: usize) -> Option<u8> {
        self.picture.cell(self.view, row, col)
    }

    /// Whether this is a co-op room.
    fn co_op(&self) -> bool {
        self.welcome.as_ref().is_some_and(|w| w.mode == Mode::Coop)
    }

    /// The room's last events in words, oldest first.
    pub(crate) fn events(&self) -> Vec<String> {
        let co_op = self.co_op();
        let words = |&(kind, player, row, col): &(EventKind, u32, u32, u32)| {
            let name = self.name_of(player);
            match kind {
                EventKind::MineHit => format!("{name} hit a mine at ({row}, {col})"),
                EventKind::Joined => format!("{name} joined"),
                EventKind::Left => format!("{name} left"),
                EventKind::Won if co_op => "the room cleared the board".to_owned(),
                EventKind::Won => format!("{name} cleared the board"),
                // The room's own end carries no player (the mine hit before it names who).
                EventKind::Lost if co_op => "the room lost the game".to_owned(),
                EventKind::Lost => format!("{name} lost"),
            }
        };
        self.events.iter().map(words).collect()
    }

    /// The player this screen follows: oneself, or the player watched.
    pub(crate) fn followed(&self) -> Option<&PlayerInfo> {
        let welcome = self.welcome.as_ref()?;
        let id = match (welcome.spectator, self.watching) {
            (_, Some(target)) if welcome.mode == Mode::Race => target,
            (false, _) => welcome.player,
            _ => return self.players.first(),
        };
        self.players.iter().find(|p| p.id == id)
    }

    /// A player's name, or `player N`.
    pub(crate) fn name_of(&self, id: u32) -> String {
        let player = self.players.iter().find(|p| p.id == id);
        player.map_or_else(|| format!("player {id}"), |p| p.name.clone())
    }

    /// The messages to send, in order, emptied.
    pub(crate) fn take_outbox(&mut self) -> Vec<ClientMsg> {
        std::mem::take(&mut self.outbox)
    }

    /// Takes what the network thread said, at `now`.
    fn receive(&mut self, event: NetEvent, now: Instant) {
        match event {
            NetEvent::Joined { welcome, token } => self.joined(welcome, token, now),
            NetEvent::Frame(frame) => self.frame(frame, now),
            NetEvent::Reconnecting { attempt, reason } => {
                self.link = LinkState::Reconnecting(attempt);
                self.asked.clear();
                self.say(format!(
                    "reconnecting (try {attempt}) with this player's token; the connection was lost: {reason}"
                ));
            }
            NetEvent::Closed(reason) => {
                self.link = LinkState::Lost;
                self.say(format!("disconnected: {reason}; q quits"));
            }
        }
    }

    fn joined(&mut self, welcome: Welcome, token: Option<String>, now: Instant) {
        let old = self.welcome.as_ref().map(|w| (w.game, w.rows, w.cols));
        if old.is_some_and(|(game, ..)| game != welcome.game) {
            // Back after a rematch this client missed: the old game's end goes.
            self.over = None;
            self.replies.push(Reply::Fresh);
        }
        self.link = LinkState::Connected;
        self.token = token.or(self.token.take());
        // The new connection watches nothing yet: everything is asked for again, and
        // answers to requests of the old one will not come.
        self.subscribed.clear();
        self.asked.clear();
        self.watch_sent = false;
        self.watching = None;
        self.view = welcome.view;
        self.has_view = welcome.view != NOBODY;
        self.clock = Some((welcome.view, welcome.elapsed_ms, welcome.clock_running, now));
        // The cursor starts on the first click, or in the middle where the room's board is
        // made around the first cell a player reveals.
        let (half_rows, half_cols) = (welcome.rows as usize / 2, welcome.cols as usize / 2);
        let first = welcome
            .first
            .map_or((half_rows, half_cols), |(r, c)| (r as usize, c as usize));
        let who = match welcome.spectator {
            true => "as a spectator".to_owned(),
            false => format!("as player {}", welcome.player),
        };
        let kind = match (welcome.mode, welcome.rule) {
            (Mode::Race, _) => "race",
            (Mode::Coop, MineRule::Classic) => "co-op, classic",
            (Mode::Coop, MineRule::Endless) => "co-op, endless",
        };
        let (rows, cols, mines) = (welcome.rows, welcome.cols, welcome.mines);
        let mut note = match old {
            Some(_) => format!("reconnected {who}"),
            None => format!("joined {who}: {kind}, {rows}x{cols}, {mines} mines"),
        };
        if welcome.spectator {
            match (welcome.mode, self.spectate.flatten()) {
                (Mode::Race, Some(player)) => {
                    self.watch(player);
                    self.picture.clear();
                    note += &format!(", watching player {player}");
                }
                (Mode::Coop, Some(_)) => note += "; a co-op room has one view, watched by all",
                _ => {}
            }
        }
        let new_board =
            old.is_none_or(|(_, old_rows, old_cols)| (old_rows, old_cols) != (rows, cols));
        self.welcome = Some(welcome);
        self.say(note);
        if new_board {
            self.replies.push(Reply::Place(first));
        }
        self.cursor_moved = true;
    }

    fn frame(&mut self, frame: ServerMsg, now: Instant) {
        match frame {
            ServerMsg::Chunk { view, .. } | ServerMsg::Delta { view, .. } => {
                if self.watch_sent && matches!(frame, ServerMsg::Chunk { .. }) {
                    // The first chunk after a watch names the view watched.
                    self.watch_sent = false;
                    self.view = view;
                }
                self.picture.apply(&frame);
            }
            ServerMsg::Ack {
                seq,
                opened,
                exploded,
                ..
            } => {
                let Some(Asked::Move(action, (row, col))) = self.asked.remove(&seq) else {
                    return;
                };
                let said = if exploded > 0 {
                    Some(format!("({row}, {col}) was a mine"))
                } else if action != protocol::Action::Flag && opened == 0 {
                    Some(format!("nothing opened at ({row}, {col})"))
                } else {
                    None
                };
                self.replies.extend([Reply::Hint(None), Reply::Say(said)]);
                if opened > 0 || exploded > 0 {
                    self.refresh_help();
                }
            }
            ServerMsg::Error {
                seq, code, message, ..
            } => {
                self.asked.remove(&seq);
                if seq == 0 && self.watch_sent && matches!(code, 3 | 14) {
                    // The watch was refused: the view stays the one watched before.
                    self.watch_sent = false;
                    self.watching = self.watched_before;
                }
                self.say(format!("{}: {message}", ErrorCode::name(code)));
            }
            ServerMsg::Players(players) => {
                self.players = players;
                let race_spectator = |w: &Welcome| w.spectator && w.mode == Mode::Race;
                let no_view = !self.has_view && self.welcome.as_ref().is_some_and(race_spectator);
                if no_view && let Some(first) = self.players.first() {
                    // A spectator who came before any player watches the first to come.
                    let player = self.spectate.flatten().unwrap_or(first.id);
                    self.watch(player);
                }
            }
            ServerMsg::Cursors(cursors) => {
                let me = self.welcome.as_ref().map_or(NOBODY, |w| w.player);
                for (player, row, col) in cursors {
                    if player != me {
                        self.cursors.insert(player, (row as usize, col as usize));
                    }
                }
            }
            ServerMsg::Clock {
                view,
                elapsed_ms,
                running,
            } => self.clock = Some((view, elapsed_ms, running, now)),
            ServerMsg::Progress { share } => {
                self.say(format!("making the board: {}%", share / 100))
            }
            ServerMsg::Over(over) => {
                if over.view == self.view {
                    self.replies.push(Reply::Ended);
                    self.over = Some(over);
                }
            }
            ServerMsg::Hint { seq, found } => {
                if self.asked.remove(&seq).is_none() {
                    return;
                }
                let Some((row, col, reason)) = found else {
                    let (row, col) = self.cursor;
                    return self.say(format!(
                        "no hidden cell near ({row}, {col}) is proven safe (the server looks at 48x48 cells around it)"
                    ));
                };
                self.replies
                    .push(Reply::Hint(Some((row as usize, col as usize))));
                self.say(format!("({row}, {col}) is safe: {reason}"));
            }
            ServerMsg::Odds {
                seq,
                row,
                col,
                height,
                width,
                cells,
            } => {
                if self.asked.remove(&seq).is_some() && self.shown.overlay != Overlay::Off {
                    let (corner, size) = ((row, col), (height, width));
                    self.odds = Some(OddsWindow {
                        corner,
                        size,
                        cells,
                    });
                }
            }
            ServerMsg::WrongFlags { seq, cells } => {
                if self.asked.remove(&seq).is_none() || !self.shown.wrong_flags {
                    return;
                }
                self.say(flags_wrong(cells.len(), " near the cursor"));
                let cells = cells.into_iter().map(|(r, c)| (r as usize, c as usize));
                self.wrong_flags = cells.collect();
            }
            ServerMsg::Event {
                kind,
                player,
                row,
                col,
            } => {
                if kind == EventKind::Left {
                    self.cursors.remove(&player);
                }
                self.events.push((kind, player, row, col));
                if self.events.len() > EVENTS_KEPT {
                    self.events.remove(0);
                }
            }
            ServerMsg::NewGame { game } => {
                // The chunks watched come again with the new board, and the clock with them.
                self.over = None;
                self.replies.push(Reply::Fresh);
                if let Some(welcome) = &mut self.welcome {
                    welcome.game = game;
                }
                self.say(format!("game {game}: a new board"));
            }
            ServerMsg::Series(entries) => self.series = entries,
            // The panel counts each player's own cells; the team's total is the web page's.
            ServerMsg::Start {
                ready,
                racers,
                starts_in_ms,
            } => {
                self.countdown = starts_in_ms != 0;
                self.say(match starts_in_ms {
                    0 => "the race has started: go!".to_owned(),
                    NO_TIME => format!("{ready} of {racers} racers ready: n when you are"),
                    ms => format!("the race starts in {} s", ms.div_ceil(1000)),
                });
            }
            ServerMsg::Team { .. }
            | ServerMsg::Summaries { .. }
            | ServerMsg::Welcome(_)
            | ServerMsg::Pong { .. } => {}
        }
    }

    /// Watches the chunks in view and only those (up to the welcome's limit): new ones are
    /// subscribed, those that left the view unsubscribed and dropped from the picture.
    fn sync_subscriptions(&mut self) {
        let Some(welcome) = &self.welcome else { return };
        if self.link != LinkState::Connected || !self.has_view {
            return;
        }
        let Some([rows, cols]) = self.in_view.clone() else {
            return;
        };
        let chunks = |cells: &Range<usize>| cells.start / CHUNK..=(cells.end - 1) / CHUNK;
        let all = chunks(&rows).flat_map(|r| chunks(&cols).map(move |c| (r as u32, c as u32)));
        let wanted: BTreeSet<_> = all.take(welcome.max_chunks as usize).collect();
        let one = |(row, col)| ChunkRect::one(row, col);
        for &chunk in self.subscribed.difference(&wanted) {
            self.outbox.push(ClientMsg::Unsubscribe(one(chunk)));
            self.picture.forget(self.view, chunk.0, chunk.1);
        }
        for &chunk in wanted.difference(&self.subscribed) {
            self.outbox.push(ClientMsg::Subscribe(one(chunk)));
        }
        self.subscribed = wanted;
    }

    /// Sends the request `msg` makes of the next `seq`, recording what it asks; `false`, and
    /// a word why, when it cannot be sent now.
    fn request(&mut self, asked: Asked, msg: impl FnOnce(u32) -> ClientMsg) -> bool {
        if self.link != LinkState::Connected {
            self.say(match self.link {
                LinkState::Lost => "not connected: the connection is lost; q quits",
                _ => "not connected yet: waiting for the server",
            });
            return false;
        }
        self.seq = self.seq.wrapping_add(1);
        self.asked.insert(self.seq, asked);
        self.outbox.push(msg(self.seq));
        true
    }

    /// Asks the server for help on the cells around the cursor; `false` when it cannot be
    /// sent now.
    fn ask(&mut self, help: Help) -> bool {
        let (row, col) = (self.cursor.0 as u32, self.cursor.1 as u32);
        self.request(Asked::Other, |seq| match help {
            Help::Hint => ClientMsg::Hint { seq, row, col },
            Help::Odds => ClientMsg::Odds { seq, row, col },
            Help::WrongFlags => ClientMsg::WrongFlags { seq, row, col },
        })
    }

    /// Watches `player`'s view: the chunk frames that answer name it.
    fn watch(&mut self, player: u32) {
        self.outbox.push(ClientMsg::Watch { player });
        self.watch_sent = true;
        self.watching = Some(player);
        self.has_view = true;
    }

    /// `n`: the room's next game, once this one is over (the server says so when it is not,
    /// as in a race where another racer still plays); before a race with a countdown
    /// starts, ready to race.
    fn rematch(&mut self) {
        let Some(welcome) = &self.welcome else { return };
        if welcome.spectator {
            return self.say("a spectator cannot start the next game");
        }
        if self.countdown {
            if self.request(Asked::Other, |seq| ClientMsg::Ready { seq }) {
                self.say("ready: the race starts once every racer is");
            }
            return;
        }
        if self.over.as_ref().is_none_or(|o| o.view != welcome.view) {
            return self.say("the next game (n) comes once this one is over");
        }
        if self.request(Asked::Other, |seq| ClientMsg::Rematch { seq }) {
            self.say("asked for the next game");
        }
    }

    /// Tab: watch the next player's view in a race (a spectator, or a racer whose game is
    /// over; the server refuses a racer still playing, in words).
    fn watch_next(&mut self) {
        let Some(welcome) = &self.welcome else { return };
        if welcome.mode != Mode::Race {
            return self.say("a co-op room has one view, watched by all");
        }
        if self.link != LinkState::Connected {
            return self.say("not connected: the view cannot change now");
        }
        let ids: Vec<u32> = self.players.iter().map(|p| p.id).collect();
        let current = self.followed().map(|p| p.id);
        let at = ids.iter().position(|&p| Some(p) == current);
        let Some(&player) = ids.get(at.map_or(0, |i| (i + 1) % ids.len())) else {
            return self.say("nobody plays in this race yet");
        };
        self.watched_before = self.watching;
        self.watch(player);
        self.say(format!("watching {}", self.name_of(player)));
    }

    /// Asks again for what is shown, after a move of one's own opened cells.
    fn refresh_help(&mut self) {
        if self.shown.overlay != Overlay::Off {
            self.ask(Help::Odds);
        }
        if self.shown.wrong_flags {
            self.ask(Help::WrongFlags);
        }
    }

    /// One player's line in the panel: co-op scores, or race progress.
    fn player_line(&self, player: &PlayerInfo, ascii: bool) -> Line<'static> {
        let me = self.welcome.as_ref().is_some_and(|w| w.player == player.id);
        let mark = [["● ", "○ "], ["+ ", "- "]][usize::from(ascii)][usize::from(!player.online)];
        let mark = Span::styled(mark, Style::new().fg(colour_of(player.id)));
        let name: String = player.name.chars().take(10).collect();
        let name = format!("{name:<11}", name = name + if me { "*" } else { "" });
        let name = Span::styled(name, Style::new().bold());
        let (p, revealed) = (player, player.revealed);
        let figures = if self.co_op() {
            format!("{revealed:>6}{:>4}{:>4}", p.mines_hit, p.flags)
        } else {
            let safe = (self.welcome.as_ref()).map_or(0, |w| {
                (u64::from(w.rows) * u64::from(w.cols)).saturating_sub(w.mines)
            });
            let status = match status_of(player.status) {
                Status::Playing => String::new(),
                status => status.to_string(),
            };
            let done = (revealed * 100).checked_div(safe).unwrap_or(0);
            format!("{done:>4}%{:>5}s {status}", p.elapsed_ms / 1000)
        };
        Line::from(vec![mark, name, Span::raw(figures)])
    }
}

impl Play for Room {
    const ROOM: bool = true;

    fn size(&self) -> Option<(usize, usize)> {
        let w = self.welcome.as_ref()?;
        // A board of no cells has nothing to show or move over.
        (w.rows > 0 && w.cols > 0).then_some((w.rows as usize, w.cols as usize))
    }

    fn cell(&self, row: usize, col: usize) -> Option<Cell> {
        self.state(row, col).map(cell_of)
    }

    fn status(&self) -> Status {
        status_of(match &self.over {
            Some(over) if over.view == self.view => over.status,
            _ => self.followed().map_or(0, |p| p.status),
        })
    }

    /// The play time of the view drawn, as the server's clock gives it (run on from its
    /// last word while it runs); none until the clock of a view just watched comes.
    fn elapsed(&self, now: Instant) -> Duration {
        match self.clock {
            Some((view, ms, running, at)) if view == self.view && !self.watch_sent => {
                let ran = running.then(|| now.saturating_duration_since(at));
                Duration::from_millis(u64::from(ms)) + ran.unwrap_or_default()
            }
            _ => Duration::ZERO,
        }
    }

    /// Often enough to show the server's frames soon after they come.
    fn wake(&self, _now: Instant) -> Option<Duration> {
        Some(Duration::from_millis(30))
    }

    /// Help taken off the board goes: it is asked for again when shown again.
    fn show(&mut self, cursor: (usize, usize), view: Option<[Range<usize>; 2]>, shown: Shown) {
        self.shown = shown;
        if shown.overlay == Overlay::Off {
            self.odds = None;
        }
        if !shown.wrong_flags {
            self.wrong_flags.clear();
        }
        if cursor != self.cursor {
            self.cursor = cursor;
            self.cursor_moved = true;
        }
        self.in_view = view;
        self.sync_subscriptions();
    }

    /// Sends the cursor if it moved and the last one was sent long enough ago.
    fn tick(&mut self, now: Instant) {
        let co_op_player =
            (self.welcome.as_ref()).is_some_and(|w| w.mode == Mode::Coop && !w.spectator);
        let due = self
            .cursor_sent
            .is_none_or(|sent| now.saturating_duration_since(sent) >= CURSOR_EVERY);
        if self.cursor_moved && co_op_player && self.link == LinkState::Connected && due {
            let (row, col) = (self.cursor.0 as u32, self.cursor.1 as u32);
            self.outbox.push(ClientMsg::Cursor { row, col });
            self.cursor_sent = Some(now);
            self.cursor_moved = false;
        }
    }

    fn play(&mut self, action: Move, cell: (usize, usize), _now: Instant) {
        let action = match action {
            Move::Flag => protocol::Action::Flag,
            Move::Chord => protocol::Action::Chord,
            Move::Wasted => return,
            // A hidden cell, or one whose chunk has not come: the server decides.
            Move::Reveal => match self.state(cell.0, cell.1) {
                Some(cell::HIDDEN) | None => protocol::Action::Reveal,
                Some(_) => return,
            },
        };
        let (row, col) = (cell.0 as u32, cell.1 as u32);
        let move_of = |seq| ClientMsg::Move {
            seq,
            action,
            row,
            col,
        };
        self.request(Asked::Move(action, cell), move_of);
    }

    /// The help asked for around the cursor; the probabilities come on once asked for,
    /// and go to digits even when they cannot be asked for again.
    fn help(&mut self, ask: Help, shown: Shown) -> bool {
        match ask {
            Help::Odds if shown.overlay == Overlay::Off => true,
            Help::WrongFlags if !shown.wrong_flags => true,
            Help::Odds => self.ask(ask) || self.shown.overlay != Overlay::Off,
            _ => self.ask(ask),
        }
    }

    /// `n`, the next game or ready to race; Tab, the next player.
    fn key(&mut self, code: KeyCode, _now: Instant) -> Action {
        match code {
            KeyCode::Char('n') => self.rematch(),
            KeyCode::Tab => self.watch_next(),
            _ => {}
        }
        Action::Continue
    }

    fn replies(&mut self) -> &mut Vec<Reply> {
        &mut self.replies
    }

    fn mine_odds(&self, row: usize, col: usize) -> Option<(f64, bool)> {
        Some((self.odds.as_ref()?.mine(row, col)?, true))
    }

    fn proven_wrong(&self, row: usize, col: usize) -> bool {
        self.wrong_flags.contains(&(row, col))
    }

    fn colour_at(&self, row: usize, col: usize) -> Option<Color> {
        let (&player, _) = self.cursors.iter().find(|(_, at)| **at == (row, col))?;
        Some(colour_of(player))
    }

    fn mines_left(&self) -> i128 {
        let flags: u64 = if self.co_op() {
            self.players.iter().map(|p| u64::from(p.flags)).sum()
        } else {
            self.followed().map_or(0, |p| u64::from(p.flags))
        };
        (self.welcome.as_ref()).map_or(0, |w| w.mines as i128 - flags as i128)
    }

    /// The connection, the room and who plays here.
    fn figures(&self, glyphs: &Glyphs) -> Vec<Span<'static>> {
        let bold = Style::new().bold();
        let Some(welcome) = &self.welcome else {
            return Vec::new();
        };
        let mut spans = Vec::new();
        let link = match self.link {
            LinkState::Connecting => Some("connecting".to_owned()),
            LinkState::Connected => None,
            LinkState::Reconnecting(attempt) => Some(format!("reconnecting ({attempt})")),
            LinkState::Lost => Some("disconnected".to_owned()),
        };
        if let Some(link) = link {
            let alarm = bold.fg(Color::White).bg(Color::Red);
            spans.extend([Span::styled(link, alarm), Span::raw(glyphs.dot)]);
        }
        let mode = if self.co_op() { "co-op" } else { "race" };
        let (rows, cols) = (welcome.rows, welcome.cols);
        let you = format!("you: {}", self.name_of(welcome.player));
        let who = match welcome.spectator {
            true => Span::raw("spectating"),
            false => Span::styled(you, bold.fg(colour_of(welcome.player))),
        };
        let room = Span::raw(format!("{mode} {rows}x{cols}"));
        spans.extend([room, Span::raw(glyphs.dot), who]);
        spans
    }

    /// The room's address before the welcome; then its last event.
    fn idle_line(&self) -> String {
        match self.welcome {
            None => self.url.clone(),
            Some(_) => self.events().pop().unwrap_or_default(),
        }
    }

    /// A watcher's moves about the board (and Tab in a race), or Esc once the game is over.
    fn keys(&self, glyphs: &Glyphs) -> Vec<(&'static str, &'static str, bool)> {
        match (self.only_watching(), self.co_op()) {
            (true, false) => vec![(glyphs.arrows, "move", true), ("Tab", "next player", true)],
            (true, true) => vec![(glyphs.arrows, "move", true), ("c", "centre", true)],
            _ if self.status() == Status::Playing => vec![],
            _ => vec![("Esc", "board", true)],
        }
    }

    fn only_watching(&self) -> bool {
        let other = |w: &Welcome| self.watching.is_some_and(|player| player != w.player);
        self.welcome
            .as_ref()
            .is_some_and(|w| w.spectator || other(w))
    }

    #[rustfmt::skip]
    const KEY_PAGE: KeyPage = KeyPage {
        title: "bitmines play --connect: keys",
        rows: &[
            ("h", "hint: a cell proven safe near the cursor, and why"),
            ("p", "the odds around the cursor: colours, then digits, then off"),
            ("w", "show the flags near the cursor proven wrong"),
            ("Tab", "a race: watch the next player (once your own game is over)"),
            ("Esc", "clear the message and the hint"),
            ("n", "once the game is over: the next game in this room, on a new board"),
            ("q Ctrl-C", "quit (the game goes on on the server; the token brings you back)"),
        ],
        note: "The others' cursors show in their colours, as in the panel; help is the \
               server's, on the 48x48 cells around the cursor.",
    };

    /// The players and the room's last events.
    fn panel(&self, glyphs: &Glyphs, ascii: bool) -> Vec<Line<'static>> {
        let bold = Style::new().bold();
        let head = if self.co_op() {
            format!("{:<13}{:>6}{:>4}{:>4}", "Players", "open", "hit", "flg")
        } else {
            format!("{:<13}{:>5}{:>6}", "Players", "done", "time")
        };
        let mut lines = vec![Line::styled(head, bold)];
        lines.extend(self.players.iter().map(|p| self.player_line(p, ascii)));
        lines.extend([Line::raw(""), Line::styled("Room", bold)]);
        let dot = glyphs.dot.trim_start();
        let events = self.events().into_iter();
        lines.extend(events.map(|event| Line::raw(format!("{dot}{event}"))));
        lines
    }

    /// The server's measures, each player's flags right, and a race room's series: every
    /// racer's wins across the room's games, and best time.
    fn ending(&self) -> Option<Ending> {
        let over = self.over.as_ref()?;
        let summary = Summary {
            status: status_of(over.status),
            time: Duration::from_millis(u64::from(over.elapsed_ms)),
            bbbv: Some(over.bbbv as usize),
            clicks: u64::from(over.clicks),
        };
        let mut rows = measures(&summary, "", summary.clicks.to_string());
        for &(player, flags) in &over.correct_flags {
            rows.push(("flags right", format!("{}: {flags}", self.name_of(player))));
        }
        for entry in &self.series {
            let best = match entry.best_ms {
                NO_TIME => "-".to_owned(),
                ms => format!("{:.2} s", f64::from(ms) / 1000.0),
            };
            let name = self.name_of(entry.player);
            rows.push(("series", format!("{name}: {} won, best {best}", entry.wins)));
        }
        let (who, next) = (if self.co_op() { "The room" } else { "You" }, " next game");
        Some(Ending {
            summary,
            who,
            next,
            rows,
        })
    }
}

#[cfg(test)]
#[path = "remote_tests.rs"]
mod live;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::screens::check;
    use crate::play::script::{play, says, screen_text};

    /// A 100x200 room of 2000 mines whose first click is (70, 100).
    fn welcome(mode: Mode, spectator: bool) -> Welcome {
        Welcome {
            version: 1,
            spectator,
            player: if spectator { NOBODY } else { 1 },
            token: [0; 16],
            rows: 100,
            cols: 200,
            mines: 2000,
            mode,
            rule: MineRule::Classic,
            no_guess: false,
            first: Some((70, 100)),
            max_chunks: 256,
            view: if mode == Mode::Coop { 0 } else { 1 },
            elapsed_ms: 0,
            clock_running: false,
            game: 1,
        }
    }

    /// A session in a terminal of `width x height`, not joined yet.
    fn fresh(url: &str, spectate: Option<Option<u32>>, (width, height): (u16, u16)) -> Remote {
        let area = Rect::new(0, 0, width, height);
        Remote::new(url, spectate, area, Instant::now())
    }

    /// The join's answer: `welcome`, with `token` for a player.
    fn join(remote: &mut Remote, now: Instant, welcome: Welcome, token: Option<String>) {
        remote.receive(NetEvent::Joined { welcome, token }, now);
    }

    /// An app joined to a room of `welcome(mode, ..)`, its join's messages not taken yet.
    fn joined(mode: Mode, spectate: Option<Option<u32>>) -> (Remote, Instant) {
        let now = Instant::now();
        let mut remote = fresh("ws://127.0.0.1:1/room/r?mode=race", spectate, (100, 30));
        let token = spectate.is_none().then(|| "ab".repeat(16));
        join(&mut remote, now, welcome(mode, spectate.is_some()), token);
        (remote, now)
    }

    /// Takes the server's frames, in order, at `now`.
    fn frames(remote: &mut Remote, now: Instant, frames: impl IntoIterator<Item = ServerMsg>) {
        for frame in frames {
            remote.receive(NetEvent::Frame(frame), now);
        }
    }

    /// The end of `view`'s game (`status` 1 won, 2 lost) after 8 s, 3BV 12 in 16 clicks, the
    /// players 1 and 2 with 1 and 0 flags right.
    fn over(view: u32, status: u8) -> ServerMsg {
        ServerMsg::Over(Over {
            view,
            status,
            elapsed_ms: 8000,
            bbbv: 12,
            clicks: 16,
            correct_flags: vec![(1, 1), (2, 0)],
        })
    }

    /// A player online, playing, with no mine hit.
    fn player(id: u32, name: &str, revealed: u64, flags: u32, elapsed_ms: u32) -> PlayerInfo {
        PlayerInfo {
            id,
            name: name.into(),
            online: true,
            status: 0,
            revealed,
            mines_hit: 0,
            flags,
            elapsed_ms,
        }
    }

    fn clock(view: u32, elapsed_ms: u32, running: bool) -> ServerMsg {
        ServerMsg::Clock {
            view,
            elapsed_ms,
            running,
        }
    }

    fn event(kind: EventKind, player: u32, (row, col): (u32, u32)) -> ServerMsg {
        ServerMsg::Event {
            kind,
            player,
            row,
            col,
        }
    }

    /// Checks that the message line is `text`.
    fn said(remote: &Remote, text: &str) {
        assert_eq!(remote.message(), Some(text));
    }

    /// Before a race with a countdown starts, the message line says where it stands and `n`
    /// says the racer is ready; the count and the start are told in words. Then `n` asks for
    /// the next game only once one's own game is over: before, it says why and sends nothing;
    /// on the end screen it sends a rematch and closes the screen; the new game's frame clears
    /// what was shown of the old one and names the game.
    #[test]
    fn n_is_ready_before_a_race_then_the_next_game_once_it_is_over() {
        let (mut remote, now) = joined(Mode::Race, None);
        remote.take_outbox();
        let start = |ready, racers, starts_in_ms| ServerMsg::Start {
            ready,
            racers,
            starts_in_ms,
        };
        frames(&mut remote, now, [start(1, 2, NO_TIME)]);
        said(&remote, "1 of 2 racers ready: n when you are");
        play(&mut remote, now, "n");
        let sent = remote.take_outbox();
        assert!(
            matches!(sent[..], [ClientMsg::Ready { seq: 1 }]),
            "{sent:?}"
        );
        said(&remote, "ready: the race starts once every racer is");
        frames(&mut remote, now, [start(2, 2, 2_400)]);
        said(&remote, "the race starts in 3 s");
        frames(&mut remote, now, [start(2, 2, 0)]);
        said(&remote, "the race has started: go!");
        // Started: `n` is the next game again, once this one is over.
        play(&mut remote, now, "n");
        assert!(remote.take_outbox().is_empty());
        said(&remote, "the next game (n) comes once this one is over");
        frames(&mut remote, now, [over(1, 2)]);
        assert!(remote.end_screen().is_some());
        play(&mut remote, now, "n");
        assert!(remote.end_screen().is_none());
        let sent = remote.take_outbox();
        let rematch = matches!(sent[..], [ClientMsg::Rematch { seq: 2 }]);
        assert!(rematch, "{sent:?}");
        said(&remote, "asked for the next game");
        // Acknowledged, then the new game: no end, the game's number, the clock at 0.
        let ack = ServerMsg::Ack {
            seq: 2,
            opened: 0,
            exploded: 0,
            status: 0,
            flagged: false,
        };
        let series = ServerMsg::Series(vec![SeriesEntry {
            player: 1,
            wins: 0,
            best_ms: NO_TIME,
        }]);
        let (new_game, clock) = (ServerMsg::NewGame { game: 2 }, clock(1, 0, false));
        frames(&mut remote, now, [ack, new_game, series, clock]);
        assert_eq!(remote.status(), Status::Playing);
        assert_eq!(remote.welcome.as_ref().map(|w| w.game), Some(2));
        assert_eq!(remote.elapsed(), Duration::ZERO);
        assert_eq!(remote.series.len(), 1);
        said(&remote, "game 2: a new board");
        // Game 2 ends, the connection drops, and game 3 began meanwhile: the end goes.
        frames(&mut remote, now, [over(1, 1)]);
        assert_eq!(remote.status(), Status::Won);
        let later = Welcome {
            game: 3,
            ..welcome(Mode::Race, false)
        };
        join(&mut remote, now, later, None);
        assert_eq!(remote.status(), Status::Playing);
        assert!(remote.end_screen().is_none());
        // A spectator has no next game to ask for.
        let (mut watcher, now) = joined(Mode::Coop, Some(None));
        watcher.take_outbox();
        play(&mut watcher, now, "n");
        assert!(watcher.take_outbox().is_empty());
    }

    /// A join subscribes the chunks in view, one by one, and sends the cursor; the view's
    /// chunks follow the cursor to the board's end, and those left are unsubscribed.
    #[test]
    fn the_view_decides_what_is_watched() {
        let (mut remote, now) = joined(Mode::Coop, None);
        assert_eq!(remote.url, "ws://127.0.0.1:1/room/r");
        assert_eq!(remote.cursor(), (70, 100));
        let one = ChunkRect::one;
        let (subscribe, unsubscribe) = (ClientMsg::Subscribe, ClientMsg::Unsubscribe);
        let cursor = |row, col| ClientMsg::Cursor { row, col };
        remote.tick(now);
        let sent = [subscribe(one(0, 1)), subscribe(one(1, 1)), cursor(70, 100)];
        assert_eq!(remote.take_outbox(), sent);
        play(&mut remote, now, "G");
        // Too soon for another cursor frame: it waits for the next tick after the throttle.
        remote.tick(now);
        let (left, come) = ([one(0, 1), one(1, 1)], [one(1, 2), one(1, 3)]);
        let (left, come) = (left.map(unsubscribe), come.map(subscribe));
        assert_eq!(remote.take_outbox(), [left, come].concat());
        remote.tick(now + CURSOR_EVERY);
        assert_eq!(remote.take_outbox(), [cursor(99, 199)]);
    }

    /// While a new room's board is made, the share done is what the screen says; the clock
    /// the welcome gives is the one shown, stopped until the room's first move.
    #[test]
    fn the_making_of_the_board_is_shown_then_the_servers_clock() {
        let (now, ms) = (Instant::now(), Duration::from_millis);
        let mut remote = fresh("ws://127.0.0.1:1/room/r", None, (120, 40));
        frames(&mut remote, now, [ServerMsg::Progress { share: 4_271 }]);
        said(&remote, "making the board: 42%");
        let resumed = Welcome {
            elapsed_ms: 61_000,
            clock_running: true,
            ..welcome(Mode::Coop, false)
        };
        join(&mut remote, now, resumed, None);
        remote.tick(now + ms(500));
        assert_eq!(remote.elapsed(), ms(61_500));
        frames(&mut remote, now + ms(500), [clock(0, 62_000, false)]);
        remote.tick(now + Duration::from_secs(9));
        assert_eq!(remote.elapsed(), ms(62_000));
    }

    /// Frames from the room: the clock, players, cursors, events, a refusal; a lost
    /// connection and keys that cannot be sent meanwhile.
    #[test]
    fn the_room_is_shown_as_its_frames_tell() {
        let (mut remote, now) = joined(Mode::Coop, None);
        frames(&mut remote, now, [clock(0, 3000, true)]);
        let players = ServerMsg::Players(vec![
            player(1, "ann", 12, 3, 4000),
            player(2, "bo", 12, 3, 4000),
        ]);
        let cursors = ServerMsg::Cursors(vec![(1, 50, 100), (2, 7, 8)]);
        let hit = event(EventKind::MineHit, 2, (7, 9));
        // The co-op room's loss is the room's, with no player of its own.
        let lost = event(EventKind::Lost, u32::MAX, (0, 0));
        frames(&mut remote, now, [players, cursors, hit, lost]);
        assert_eq!(remote.cursors.iter().collect::<Vec<_>>(), [(&2, &(7, 8))]);
        let events = ["bo hit a mine at (7, 9)", "the room lost the game"];
        assert_eq!(remote.events(), events);
        // The clock runs on from its frame; the players' own times do not move it.
        remote.tick(now + Duration::from_millis(1500));
        assert_eq!(remote.elapsed(), Duration::from_millis(4500));

        // A move and the server's refusal of it.
        remote.take_outbox();
        play(&mut remote, now, "space");
        let sent = remote.take_outbox();
        let reveal = protocol::Action::Reveal;
        assert!(matches!(sent[..], [ClientMsg::Move { seq: 1, action, .. }] if action == reveal));
        let message = "the game is over".into();
        let refusal = ServerMsg::Error {
            seq: 1,
            code: 5,
            message,
        };
        frames(&mut remote, now, [refusal]);
        said(&remote, "game over: the game is over");

        // Lost: keys say so and send nothing; joined again, the chunks are asked for anew.
        let reason = "reset".into();
        remote.receive(NetEvent::Reconnecting { attempt: 2, reason }, now);
        assert_eq!(remote.link, LinkState::Reconnecting(2));
        remote.take_outbox();
        play(&mut remote, now, "f");
        assert!(remote.take_outbox().is_empty());
        assert!(says(&remote, "not connected"));
        let token = Some("cd".repeat(16));
        join(&mut remote, now, welcome(Mode::Coop, false), token.clone());
        assert_eq!(remote.token(), token.as_deref());
        assert!(says(&remote, "reconnected"));
        let sent = remote.take_outbox();
        assert!(sent.iter().any(|m| matches!(m, ClientMsg::Subscribe(_))));
        assert_eq!(play(&mut remote, now, "q").1, [Action::Quit]);
        // Gone for good (the link's own tests hold when): keys say so.
        remote.receive(NetEvent::Closed("taken over".into()), now);
        assert_eq!(remote.link, LinkState::Lost);
        said(&remote, "disconnected: taken over; q quits");
    }

    /// A co-op room of 9x9 with two players, as snapshots in `tests/play/room*.txt` (see
    /// screens.rs): the board from a chunk frame, the panel, an event on the message line,
    /// the keys page and the end screen.
    #[test]
    fn a_room_on_the_screen() {
        let now = Instant::now();
        let mut remote = fresh("ws://127.0.0.1:1/room/r", None, (80, 16));
        let welcome = Welcome {
            rows: 9,
            cols: 9,
            mines: 10,
            first: Some((4, 4)),
            ..welcome(Mode::Coop, false)
        };
        join(&mut remote, now, welcome, Some("07".repeat(16)));
        let mut cells = vec![cell::HIDDEN; 81];
        cells[4 * 9 + 4] = 0;
        cells[4 * 9 + 5] = 2;
        cells[0] = cell::FLAGGED;
        let players = [player(1, "ann", 2, 1, 3000), player(2, "bo", 2, 0, 3000)];
        let players = ServerMsg::Players(players.into());
        let cursors = ServerMsg::Cursors(vec![(2, 1, 1)]);
        let joined = event(EventKind::Joined, 2, (0, 0));
        let chunk = ServerMsg::Chunk {
            view: 0,
            chunk_row: 0,
            chunk_col: 0,
            height: 9,
            width: 9,
            cells,
        };
        frames(
            &mut remote,
            now,
            [chunk, clock(0, 3000, true), players, cursors, joined],
        );
        play(&mut remote, now, "esc");
        check("room", &screen_text(&remote));
        play(&mut remote, now, "?");
        check("room-keys", &screen_text(&remote));
        play(&mut remote, now, "x");
        frames(&mut remote, now, [over(0, 1)]);
        check("room-won", &screen_text(&remote));
    }
}
