//! A local game as the terminal game's source ([`Local`]): the engine's [`Game`], its clock,
//! its clicks and the solver's help, all answered at once. The solver's knowledge is redone
//! only when cells open, and a large board's first click is played off the input thread.

use std::fmt;
use std::ops::Range;
use std::time::{Duration, Instant};

use bitmines_core::{Cell, Game, Stats, Status};
use bitmines_solve::{Solution, Solver};
use crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;

use super::Setup;
use super::app::{Action, App, Help, Move, Overlay, Play, Reply, Shown, Summary};
use super::draw::{Ending, Glyphs, KeyPage, measures};

/// Boards of at least this many cells are generated off the input thread: from about a
/// million cells generation takes long enough for a player to notice a frozen screen.
const OFF_THREAD_CELLS: usize = 1 << 18;

/// The play time, from the first click on the board to the end of the game.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Clock {
    started: Option<Instant>,
    stopped: Option<Instant>,
}

impl Clock {
    /// Starts the clock at `now`, unless it has started already.
    fn start(&mut self, now: Instant) {
        self.started.get_or_insert(now);
    }

    /// Stops the clock at `now`, unless it has stopped already.
    fn stop(&mut self, now: Instant) {
        if self.started.is_some() {
            self.stopped.get_or_insert(now);
        }
    }

    /// Time played up to `now` (or up to the end).
    pub(crate) fn elapsed(&self, now: Instant) -> Duration {
        let end = self.stopped.unwrap_or(now);
        (self.started).map_or(Duration::ZERO, |started| {
            end.saturating_duration_since(started)
        })
    }

    /// Whether the clock is running, so the screen needs redrawing as time passes.
    pub(crate) fn running(&self) -> bool {
        self.started.is_some() && self.stopped.is_none()
    }
}

/// Clicks by kind, counted as players count them: every click (or key standing for one)
/// while the game is on, whether it changed anything or not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Clicks {
    /// Reveals (left clicks, Space on a hidden cell).
    pub(crate) left: u64,
    /// Flags placed or taken back (right clicks, `f`).
    pub(crate) right: u64,
    /// Chords (middle clicks, left clicks or Space on an open number).
    pub(crate) chord: u64,
}

impl Clicks {
    /// Every click.
    pub(crate) fn total(&self) -> u64 {
        self.left + self.right + self.chord
    }
}

/// The help the player asked the solver for during a game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct HelpUsed {
    /// Hints asked for.
    pub(crate) hints: u64,
    /// Whether the mine probabilities were shown.
    pub(crate) odds: bool,
    /// Whether the proven-wrong flags were shown.
    pub(crate) wrong_flags: bool,
}

impl fmt::Display for HelpUsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hints = (self.hints > 0).then(|| crate::text::count(self.hints, "hint"));
        let odds = self.odds.then(|| "probabilities".to_owned());
        let flags = self.wrong_flags.then(|| "wrong flags".to_owned());
        let parts = [hints, odds, flags].into_iter().flatten();
        let text = parts.collect::<Vec<_>>().join(", ");
        f.write_str(if text.is_empty() { "none" } else { &text })
    }
}

/// A first click whose board is being generated on another thread: the game comes back
/// with the click applied.
#[derive(Debug)]
struct Pending {
    work: std::thread::JoinHandle<(Game, Result<(), bitmines_core::Error>)>,
    /// When the click was made, for the progress line.
    since: Instant,
}

/// A game on this machine, with what the player asked of the solver.
#[derive(Debug)]
pub(crate) struct Local {
    game: Game,
    setup: Setup,
    /// The help on the board, as the app last told it.
    shown: Shown,
    /// What the view proves (the chance of a mine on every hidden cell, the cells proven
    /// safe), while the overlay or the wrong flags are shown. The solver never trusts a
    /// flag, so it holds until a cell is revealed.
    knowledge: Option<Solution>,
    /// The revealed count `knowledge` was computed at: it changes only when cells open.
    known_at: usize,
    help: HelpUsed,
    clicks: Clicks,
    clock: Clock,
    /// When the game ended, for its summary.
    now: Instant,
    bbbv: Option<usize>,
    resumed: bool,
    /// Whether quitting saves the game (`--save`).
    save_on_quit: bool,
    /// Whether a move was made since the game started or was last saved.
    unsaved: bool,
    /// The first click's board, being generated on another thread.
    pending: Option<Pending>,
    replies: Vec<Reply>,
}

impl App<Local> {
    /// A game ready to play in a terminal of `area`, the cursor on the board's middle cell.
    /// `resumed` says the game was read from a file, whose time and clicks are not recorded.
    pub(crate) fn local(game: Game, setup: Setup, area: Rect, now: Instant, resumed: bool) -> Self {
        App::over(Local::new(game, setup, now, resumed), area, now)
    }

    /// The same app told whether quitting saves the game (`--save`), so `q` need not ask.
    pub(crate) fn with_save_on_quit(mut self, save_on_quit: bool) -> Self {
        self.save_on_quit = save_on_quit;
        self
    }
}

impl Local {
    fn new(game: Game, setup: Setup, now: Instant, resumed: bool) -> Local {
        let mut local = Local {
            replies: vec![Reply::Place((game.rows() / 2, game.cols() / 2))],
            game,
            setup,
            shown: Shown::default(),
            knowledge: None,
            known_at: 0,
            help: HelpUsed::default(),
            clicks: Clicks::default(),
            clock: Clock::default(),
            now,
            bbbv: None,
            resumed,
            save_on_quit: false,
            unsaved: false,
            pending: None,
        };
        if local.game.status() != Status::Playing {
            local.finish(now);
        }
        local
    }

    /// Records that the game was just saved: quitting loses nothing until the next move.
    pub(crate) fn saved(&mut self) {
        self.unsaved = false;
    }

    /// The game.
    pub(crate) fn game(&self) -> &Game {
        &self.game
    }

    /// The measures of the game, once it is over.
    pub(crate) fn summary(&self) -> Option<Summary> {
        (self.game.status() != Status::Playing).then(|| Summary {
            status: self.game.status(),
            time: self.clock.elapsed(self.now),
            bbbv: self.bbbv,
            clicks: self.clicks.total(),
        })
    }

    /// The board's size, `ROWSxCOLS`.
    fn size_text(&self) -> String {
        format!("{}x{}", self.game.rows(), self.game.cols())
    }

    /// Brings the help up to date after a move, or closes the game when it ended.
    fn after_move(&mut self, result: Result<(), bitmines_core::Error>, now: Instant) {
        self.unsaved = true;
        let said = result.err().map(|e| e.to_string());
        self.replies.extend([Reply::Say(said), Reply::Hint(None)]);
        if self.game.status() == Status::Playing {
            self.refresh_help();
        } else {
            self.finish(now);
        }
    }

    /// The end: the clock stops, the help goes, and the end screen comes up with the board's
    /// 3BV (counted once, here, since it costs a pass over the whole board).
    fn finish(&mut self, now: Instant) {
        self.clock.stop(now);
        self.now = now;
        self.knowledge = None;
        self.replies.push(Reply::Ended);
        let stats = self.game.board().and_then(|board| Stats::of(board).ok());
        self.bbbv = stats.map(|stats| stats.bbbv);
    }

    /// Brings what the view proves up to date while help is shown, and says whether it is
    /// there. It changes only when cells open (the solver ignores flags), so it is computed
    /// then, not per frame: on a huge board a solve is far slower than drawing the view.
    fn refresh_help(&mut self) -> bool {
        if self.shown == Shown::default() {
            self.knowledge = None;
            return false;
        }
        if self.knowledge.is_some() && self.known_at == self.game.revealed_count() {
            return true;
        }
        // One solve gives both the probabilities and the certain cells, so the overlay and
        // the wrong flags together cost one pass over the board.
        let solved = Solver::new(&self.game).and_then(Solver::solve);
        self.known_at = self.game.revealed_count();
        if let Err(error) = &solved {
            self.replies.push(Reply::HelpOff);
            self.say(error.to_string());
        }
        self.knowledge = solved.ok();
        self.knowledge.is_some()
    }

    fn ask_hint(&mut self) {
        if self.game.board().is_none() {
            // Nothing is known before the first click but the first-click rule.
            return self.say(self.setup.first_click_note());
        }
        let hint = match bitmines_solve::hint(&self.game) {
            Ok(hint) => hint,
            Err(error) => return self.say(error.to_string()),
        };
        // Learning that no cell is safe is help too: it says a guess is due, and which one,
        // if a 50/50 must be guessed anyway.
        self.help.hints += 1;
        if let Some(hint) = hint {
            let (row, col) = hint.cell();
            self.replies.push(Reply::Hint(Some((row, col))));
            // The solver never trusts flags, so its safe cell may carry one of the player's.
            let flagged = self.game.cell(row, col) == Ok(Cell::Flagged);
            let wrong = flagged.then_some("; the flag on it is wrong");
            return self.say(format!("{hint}{}", wrong.unwrap_or_default()));
        }
        match bitmines_solve::fifty_fifty(&self.game) {
            Ok(Some([(r0, c0), (r1, c1)])) => {
                self.replies.push(Reply::Goto((r0, c0)));
                self.say(format!(
                    "no hidden cell is proven safe; ({r0}, {c0}) and ({r1}, {c1}) are a 50/50 nothing can ever settle: guess one now"
                ));
            }
            _ => self.say("no hidden cell is proven safe: this is a guess"),
        }
    }

    /// Shows the help `shown` asks for: `ask` says which part changed, and is counted.
    fn show_help(&mut self, ask: Help, shown: Shown) {
        self.shown = shown;
        if !self.refresh_help() {
            return;
        }
        self.help.odds |= ask == Help::Odds && shown.overlay != Overlay::Off;
        if ask == Help::WrongFlags && shown.wrong_flags {
            self.help.wrong_flags = true;
            let known = self.knowledge.as_ref();
            let wrong = known.and_then(|known| known.certain.wrong_flags(&self.game).ok());
            self.say(flags_wrong(wrong.map_or(0, |flags| flags.len()), ""));
        }
    }
}

/// How many flags are proven wrong, in words; `near` says where, when there are none.
pub(super) fn flags_wrong(count: usize, near: &str) -> String {
    match count {
        0 => format!("no flag{near} is proven wrong"),
        1 => "1 flag is proven wrong".to_owned(),
        n => format!("{n} flags are proven wrong"),
    }
}

impl Play for Local {
    const ROOM: bool = false;

    fn size(&self) -> Option<(usize, usize)> {
        Some((self.game.rows(), self.game.cols()))
    }

    fn cell(&self, row: usize, col: usize) -> Option<Cell> {
        self.game.cell(row, col).ok()
    }

    fn status(&self) -> Status {
        self.game.status()
    }

    fn elapsed(&self, now: Instant) -> Duration {
        self.clock.elapsed(now)
    }

    /// While a board is generated off this thread, wake often to show its progress and
    /// take it when it is there; while the clock runs, wake at the next whole second to
    /// redraw the timer; otherwise sleep until something happens.
    fn wake(&self, now: Instant) -> Option<Duration> {
        if self.pending.is_some() {
            Some(Duration::from_millis(100))
        } else if self.clock.running() {
            let into_second = self.clock.elapsed(now).subsec_nanos();
            Some(Duration::from_nanos(u64::from(1_000_000_000 - into_second)))
        } else {
            None
        }
    }

    /// While the board of the first click is being generated off the input thread.
    fn busy(&self) -> bool {
        self.pending.is_some()
    }

    fn quit_note(&self) -> Option<&'static str> {
        let playing = self.game.status() == Status::Playing && self.pending.is_none();
        let would_lose = self.unsaved && !self.save_on_quit && playing;
        would_lose.then_some("q again quits and drops this game; s saves it first")
    }

    /// Takes the board of the first click once its thread has made it (the clock starts
    /// then, as the first cells are shown).
    fn tick(&mut self, now: Instant) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        if !pending.work.is_finished() {
            self.say(generating_note(&self.game, now - pending.since));
            self.pending = Some(pending);
            return;
        }
        match pending.work.join() {
            Ok((game, result)) => {
                self.game = game;
                self.clock.start(now);
                self.after_move(result, now);
            }
            Err(_) => self.say("the board could not be generated"),
        }
    }

    fn play(&mut self, action: Move, (row, col): (usize, usize), now: Instant) {
        if self.game.status() != Status::Playing {
            return;
        }
        match action {
            Move::Reveal | Move::Wasted => self.clicks.left += 1,
            Move::Chord => self.clicks.chord += 1,
            Move::Flag => self.clicks.right += 1,
        }
        let large = self.game.rows().saturating_mul(self.game.cols()) >= OFF_THREAD_CELLS;
        if action == Move::Wasted {
            // A wasted click, counted as one; the engine leaves flagged cells closed.
            return;
        } else if action == Move::Reveal && self.game.board().is_none() && large {
            // The first click on a large board: its board is made off this thread, so the
            // screen stays alive and quitting stays instant.
            let mut game = self.game.clone();
            let work = std::thread::spawn(move || {
                let result = game.reveal(row, col).map(drop);
                (game, result)
            });
            self.pending = Some(Pending { work, since: now });
            return self.say(generating_note(&self.game, Duration::ZERO));
        }
        self.clock.start(now);
        let result = match action {
            Move::Chord => self.game.chord(row, col).map(drop),
            Move::Flag => self.game.toggle_flag(row, col).map(drop),
            _ => self.game.reveal(row, col).map(drop),
        };
        self.after_move(result, now);
    }

    fn help(&mut self, ask: Help, shown: Shown) -> bool {
        if self.game.status() != Status::Playing {
            return false;
        }
        match ask {
            Help::Hint => self.ask_hint(),
            _ => self.show_help(ask, shown),
        }
        true
    }

    fn show(&mut self, _: (usize, usize), _: Option<[Range<usize>; 2]>, shown: Shown) {
        self.shown = shown;
    }

    /// `s` saves; `n` starts a fresh game with the same settings and the next seed, once
    /// this one is over.
    fn key(&mut self, code: KeyCode, now: Instant) -> Action {
        if code == KeyCode::Char('s') {
            return Action::Save;
        }
        let over = self.game.status() != Status::Playing;
        if code == KeyCode::Char('n') && !over {
            self.say("n starts a new game once this one is over");
        } else if code == KeyCode::Char('n') {
            let setup = self.setup.next();
            match setup.game() {
                Ok(game) => {
                    let save_on_quit = self.save_on_quit;
                    *self = Local::new(game, setup, now, false);
                    self.save_on_quit = save_on_quit;
                    self.replies.splice(0..0, [Reply::Fresh, Reply::Say(None)]);
                }
                Err(error) => self.say(format!("cannot start a new game: {error:#}")),
            }
        }
        Action::Continue
    }

    fn replies(&mut self) -> &mut Vec<Reply> {
        &mut self.replies
    }

    fn mine_odds(&self, row: usize, col: usize) -> Option<(f64, bool)> {
        let odds = &self.knowledge.as_ref()?.probabilities;
        let shown = self.shown.overlay != Overlay::Off;
        shown.then_some((odds.mine(row, col).ok()?, odds.exact()))
    }

    fn proven_wrong(&self, row: usize, col: usize) -> bool {
        let known = self.knowledge.as_ref();
        self.shown.wrong_flags
            && known.is_some_and(|k| k.certain.verdict(row, col) == Ok(Some(false)))
    }

    fn mines_left(&self) -> i128 {
        self.game.mine_count() as i128 - self.game.flag_count() as i128
    }

    fn figures(&self, glyphs: &Glyphs) -> Vec<Span<'static>> {
        let Setup { name, seed, .. } = &self.setup;
        let (game, size) = (&self.game, self.size_text());
        let safe = game.rows() * game.cols() - game.mine_count();
        let seed = seed.map_or(String::new(), |seed| format!(", seed {seed}"));
        let bold = Style::new().bold();
        vec![
            Span::styled(format!("{}", game.revealed_count()), bold),
            Span::raw(format!(" of {safe} revealed")),
            Span::raw(glyphs.dot),
            Span::raw(format!("{name} {size}{seed}")),
        ]
    }

    fn idle_line(&self) -> String {
        match self.game.status() {
            Status::Playing if self.game.board().is_none() => {
                self.setup.first_click_note().to_owned()
            }
            Status::Playing => String::new(),
            _ => (self.summary()).map_or(String::new(), |summary| summary_line(self, &summary)),
        }
    }

    /// `n` once the game is over, and save.
    fn keys(&self, _glyphs: &Glyphs) -> Vec<(&'static str, &'static str, bool)> {
        let over = self.game.status() != Status::Playing;
        let next = over.then_some(("n", "new game", true));
        next.into_iter().chain([("s", "save", false)]).collect()
    }

    #[rustfmt::skip]
    const KEY_PAGE: KeyPage = KeyPage {
        title: "bitmines play: keys",
        rows: &[
            ("h", "hint: a cell proven safe, and why"),
            ("p", "mine probabilities: as colours, then digits, then off"),
            ("w", "show the flags proven wrong"),
            ("s", "save the game"),
            ("n", "a new game with the next seed, once this one is over"),
            ("Esc", "clear the message and the hint"),
            ("q", "quit (twice on an unsaved game; --save saves on quitting)"),
            ("Ctrl-C", "quit at once"),
        ],
        note: "Help asked for (hints, probabilities, wrong flags) shows at the end.",
    };

    fn ending(&self) -> Option<Ending> {
        let summary = self.summary()?;
        let (Clicks { left, right, chord }, total) = (self.clicks, summary.clicks);
        let clicks = format!("{total} ({left} left, {right} right, {chord} chord)");
        let since = if self.resumed { " since resuming" } else { "" };
        let mut rows = measures(&summary, since, clicks);
        rows.push(("help used", self.help.to_string()));
        let (who, next) = ("You", " new game");
        Some(Ending {
            summary,
            who,
            next,
            rows,
        })
    }
}

/// The progress line while the first click's board is made.
fn generating_note(game: &Game, elapsed: Duration) -> String {
    let (rows, cols, seconds) = (game.rows(), game.cols(), elapsed.as_secs());
    format!("generating the {rows}x{cols} board around the first click: {seconds} s (q quits)")
}

/// One line on a finished game, for the message line and for the terminal after quitting.
pub(crate) fn summary_line(local: &Local, summary: &Summary) -> String {
    let (status, name, size) = (summary.status, &local.setup.name, local.size_text());
    let seconds = summary.time.as_secs_f64();
    let part = |part: Option<String>| part.unwrap_or_default();
    let bbbv = part(summary.bbbv.map(|bbbv| format!(", 3BV {bbbv}")));
    let rate = part(summary.bbbv_per_second().map(|r| format!(", {r:.3} 3BV/s")));
    let clicks = crate::text::count(summary.clicks, "click");
    let used = local.help != HelpUsed::default();
    let help = part(used.then(|| format!(", help: {}", local.help)));
    format!("{status} {name} {size} in {seconds:.2} s{bbbv}{rate}, {clicks}{help}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::script::{BOARD, app_on, custom, play, says, seeded, wait_for_board};
    use bitmines_core::FirstClick;

    /// The cursor's cell, `(row, col)`.
    type Cursor = (usize, usize);
    /// The top-left cell in view, `(row, col)`.
    type Origin = (usize, usize);

    /// The actions of `letters`: `c` continue, `s` save, `q` quit.
    fn actions_of(letters: &str) -> Vec<Action> {
        let action = |letter| match letter {
            'c' => Action::Continue,
            's' => Action::Save,
            _ => Action::Quit,
        };
        letters.chars().map(action).collect()
    }

    /// Time played, and whether the clock runs.
    fn clock(app: &App) -> (Duration, bool) {
        (app.elapsed(), app.clock.running())
    }

    /// A huge board, never clicked, so nothing is generated: for moving about.
    fn huge() -> (App, Instant) {
        seeded(custom(1000, 2000, 1, FirstClick::Opening, 1), 80, 24)
    }

    /// In an 80x24 terminal the view is 19 rows by 38 columns; the cursor starts in the
    /// middle of the board, at (500, 1000), with the view centred on it.
    #[test]
    fn keys_and_the_wheel_move_the_cursor_and_the_view() {
        #[rustfmt::skip]
        let cases: &[(&str, Cursor, Origin)] = &[
            // script, cursor, origin
            ("", (500, 1000), (491, 981)),
            ("g", (0, 0), (0, 0)),
            ("G", (999, 1999), (981, 1962)),
            ("g right right right", (0, 3), (0, 0)),
            ("g down down down down down down down down down down down down down down down down down",
                (17, 0), (1, 0)),               // scrolled once the cursor passed the margin
            ("g up left", (0, 0), (0, 0)),      // nothing past the edge
            ("G down right", (999, 1999), (981, 1962)),
            ("g pgdn", (19, 0), (17, 0)),       // a page takes the view along, with the margin
            ("g pgdn pgup", (0, 0), (0, 0)),
            ("G pgdn", (999, 1999), (981, 1962)),
            ("g S-right S-down", (19, 38), (17, 36)),
            ("G S-left S-up", (980, 1961), (964, 1926)),
            ("home", (500, 0), (491, 0)),
            ("end", (500, 1999), (491, 1962)),
            ("wheel:down", (500, 1000), (494, 981)), // the view alone
            ("wheel:S-down", (500, 1000), (491, 984)),
            ("g wheel:up", (0, 0), (0, 0)),
            ("G wheel:down", (999, 1999), (981, 1962)),
            ("wheel:down wheel:down c", (500, 1000), (491, 981)),
            ("resize:30,8", (500, 1000), (499, 990)), // 3 rows of 13 columns
            ("resize:30,8 right right right", (500, 1003), (499, 993)),
            ("resize:10,3 resize:80,24", (500, 1000), (498, 998)), // the least scroll
            ("click:0,0 rclick:79,23", (500, 1000), (491, 981)), // off the board: nothing
            ("rclick:3,3", (492, 982), (491, 981)), // the cell under the mouse; the view stays
        ];
        for &(script, cursor, origin) in cases {
            let (mut app, start) = huge();
            play(&mut app, start, script);
            assert_eq!((app.cursor(), app.origin()), (cursor, origin), "{script:?}");
            assert_eq!(app.game().status(), Status::Playing, "{script:?}");
        }
    }

    /// One row per game: the script, the game afterwards in the text game format (`.` hidden
    /// safe, `*` hidden mine, digits revealed, `f` a flag on a safe cell, `F` on a mine, `X`
    /// exploded), and the clicks counted (left, right, chord).
    #[test]
    fn keys_and_the_mouse_play_the_game() {
        #[rustfmt::skip]
        let cases: &[(&str, &str, (u64, u64, u64))] = &[
            ("", "playing\n*....\n.....\n..*..\n.....\n", (0, 0, 0)),
            ("G space", "playing\n*1000\n.2110\n..*10\n...10\n", (1, 0, 0)),
            ("G enter", "playing\n*1000\n.2110\n..*10\n...10\n", (1, 0, 0)),
            ("open:3,4", "playing\n*1000\n.2110\n..*10\n...10\n", (1, 0, 0)),
            // Space on an open number chords, on an open zero it is a wasted click.
            ("G space space", "playing\n*1000\n.2110\n..*10\n...10\n", (2, 0, 0)),
            ("G space left space", "playing\n*1000\n.2110\n..*10\n...10\n", (1, 0, 1)),
            ("G space g down down space down right right space",
                "won\n*1000\n12110\n01*10\n01110\n", (3, 0, 0)),
            ("space", "lost\n*....\n.....\n..X..\n.....\n", (1, 0, 0)),
            ("f", "playing\n*....\n.....\n..F..\n.....\n", (0, 1, 0)),
            ("f f", "playing\n*....\n.....\n..*..\n.....\n", (0, 2, 0)),
            ("flag:0,0 flag:0,1", "playing\nFf...\n.....\n..*..\n.....\n", (0, 2, 0)),
            // Space on a flag is a click that opens nothing.
            ("g f space", "playing\nF....\n.....\n..*..\n.....\n", (1, 1, 0)),
            ("G space up left left left f w space", "playing\n*1000\n.2110\n.f*10\n...10\n", (2, 1, 0)),
            // A left click on an open number chords; so does the middle button anywhere.
            ("G space flag:2,2 open:2,3", "playing\n*1000\n.2110\n..F10\n..110\n", (1, 1, 1)),
            ("G space flag:2,2 chord:2,3", "playing\n*1000\n.2110\n..F10\n..110\n", (1, 1, 1)),
            ("G space chord:3,4", "playing\n*1000\n.2110\n..*10\n...10\n", (1, 0, 1)),
            // A wrong flag lets a chord set off the mine it should have covered.
            ("G space flag:3,2 chord:2,3", "lost\n*1000\n.2110\n..X10\n..f10\n", (1, 1, 1)),
            // Once the game is over, no click counts or changes anything.
            ("space space f flag:0,0 open:3,4", "lost\n*....\n.....\n..X..\n.....\n", (1, 0, 0)),
            // Keys the game does not use change nothing.
            ("x Z 9 ;", "playing\n*....\n.....\n..*..\n.....\n", (0, 0, 0)),
        ];
        for &(script, expected, (left, right, chord)) in cases {
            let (mut app, start) = app_on(BOARD, 80, 24);
            play(&mut app, start, script);
            let game = app.game();
            let expected = format!("bitmines game 4x5 {expected}");
            assert_eq!(game.to_string(), expected, "{script:?}");
            assert_eq!(app.clicks, Clicks { left, right, chord }, "{script:?}");
            game.validate().expect("a valid game");
        }
    }

    #[test]
    fn measures_that_do_not_apply_are_left_out() {
        let won = Summary {
            status: Status::Won,
            time: Duration::from_millis(2500),
            bbbv: Some(10),
            clicks: 12,
        };
        #[rustfmt::skip]
        let cases: &[(Summary, Option<f64>, Option<f64>)] = &[
            // summary, 3BV/s, efficiency
            (won, Some(4.0), Some(10.0 / 12.0)),
            (Summary { status: Status::Lost, ..won }, None, None),
            (Summary { time: Duration::ZERO, ..won }, None, Some(10.0 / 12.0)),
            (Summary { bbbv: None, ..won }, None, None),
            (Summary { clicks: 0, ..won }, Some(4.0), None),
        ];
        for (summary, rate, efficiency) in cases {
            assert_eq!(summary.bbbv_per_second(), *rate, "{summary:?}");
            assert_eq!(summary.efficiency(), *efficiency, "{summary:?}");
        }
        #[rustfmt::skip]
        let help: &[(HelpUsed, &str)] = &[
            (HelpUsed::default(), "none"),
            (HelpUsed { hints: 1, ..HelpUsed::default() }, "1 hint"),
            (HelpUsed { hints: 3, odds: true, wrong_flags: true }, "3 hints, probabilities, wrong flags"),
            (HelpUsed { wrong_flags: true, ..HelpUsed::default() }, "wrong flags"),
        ];
        for (used, text) in help {
            assert_eq!(used.to_string(), *text);
        }
    }

    #[test]
    fn the_clock_runs_from_the_first_click_to_the_end() {
        let (mut app, start) = app_on(BOARD, 80, 24);
        play(&mut app, start, "wait:5000");
        assert_eq!(clock(&app), (Duration::ZERO, false));
        let (now, _) = play(&mut app, start, "wait:5000 f wait:1500");
        assert_eq!(clock(&app), (Duration::from_millis(1500), true));
        play(&mut app, now, "wait:250 f space wait:9000");
        assert_eq!(app.game().status(), Status::Lost);
        assert_eq!(clock(&app), (Duration::from_millis(1750), false));
    }

    /// One row per script: the board, the help the end screen will report, the cursor, and
    /// a part of the message.
    #[test]
    fn help_from_the_solver_is_shown_and_counted() {
        let none = HelpUsed::default();
        let hint = HelpUsed { hints: 1, ..none };
        let odds = HelpUsed { odds: true, ..none };
        let flags = HelpUsed {
            wrong_flags: true,
            ..none
        };
        // Two mines side by side over four safe cells: a 50/50 nothing can settle.
        let pair = "*.\n..\n..\n";
        #[rustfmt::skip]
        let cases: &[(&str, &str, HelpUsed, Cursor, &str)] = &[
            // Nothing revealed yet, and no first-click rule on a board given whole: no cell
            // is proven safe.
            (BOARD, "h", hint, (2, 2), "no hidden cell is proven safe"),
            // The 1 at (1, 3) touches one hidden cell, a mine; the 1 at (1, 2) is then met.
            (BOARD, "G space h", hint, (2, 1), "(2, 1) is safe: "),
            (BOARD, "G space h h", HelpUsed { hints: 2, ..none }, (2, 1), "(2, 1) is safe: "),
            (BOARD, "G space h f h", HelpUsed { hints: 2, ..none }, (2, 1), "mine; the flag on it is wrong"),
            // With nothing proven safe and a 50/50 left, the hint names the pair and moves to
            // its first cell.
            (pair, "open:2,0 h", hint, (0, 0), "(0, 0) and (0, 1) are a 50/50"),
            (BOARD, "G space p", odds, (3, 4), ""),
            (BOARD, "G space p p p", odds, (3, 4), ""),
            (BOARD, "G space w", flags, (3, 4), "no flag is proven wrong"),
            (BOARD, "G space flag:3,2 w", flags, (3, 2), "1 flag is proven wrong"),
            (BOARD, "G space flag:3,2 flag:0,0 w", flags, (0, 0), "1 flag is proven wrong"),
            (BOARD, "G space h p w", HelpUsed { hints: 1, odds: true, wrong_flags: true }, (2, 1), "no flag"),
            // Space on a flag opens nothing and says why, plainly when `w` has shown the flag
            // proven wrong: (2, 1) is proven safe once (3, 4) opens.
            (BOARD, "g f space", none, (0, 0), "(0, 0) is flagged: f takes the flag off first"),
            (BOARD, "G space up left left left f w space", flags, (2, 1), "the flag on (2, 1) is proven wrong"),
            // Once the game is over there is nothing to help with.
            (BOARD, "space h p w", none, (2, 2), ""),
        ];
        for &(board, script, used, cursor, message) in cases {
            let (mut app, start) = app_on(board, 80, 24);
            play(&mut app, start, script);
            assert_eq!((app.help, app.cursor()), (used, cursor), "{script:?}");
            assert!(says(&app, message), "{script:?}: {:?}", app.message());
        }
    }

    /// The probabilities follow the game: computed when the overlay comes on, again when
    /// cells open, and gone when it goes off.
    #[test]
    fn the_probabilities_follow_the_view() {
        let (mut app, start) = app_on(BOARD, 80, 24);
        let odds = |app: &App| {
            let known = app.knowledge.as_ref().map(|known| &known.probabilities);
            let cells = [(0, 0), (1, 0), (2, 2), (3, 2), (3, 0)];
            cells.map(|(r, c)| known.and_then(|odds| odds.mine(r, c).ok()))
        };
        play(&mut app, start, "G space p");
        assert_eq!(app.shown.overlay, Overlay::Colour);
        let (half, one, zero) = (Some(0.5), Some(1.0), Some(0.0));
        assert_eq!(odds(&app), [half, half, one, zero, zero]);
        let known = app.knowledge.as_ref();
        assert_eq!(known.map(|known| known.probabilities.exact()), Some(true));
        play(&mut app, start, "open:3,0");
        assert_eq!(odds(&app), [one, zero, one, zero, zero]);
        play(&mut app, start, "p p");
        assert_eq!(app.shown.overlay, Overlay::Off);
        assert!(app.knowledge.is_none());
        play(&mut app, start, "w open:3,2 open:1,0");
        assert_eq!(app.game().status(), Status::Won);
        assert!(app.knowledge.is_none() && !app.shown.wrong_flags);
    }

    #[test]
    fn a_hint_before_the_first_click_tells_the_first_click_rule() {
        let (mut app, start) = huge();
        play(&mut app, start, "h");
        assert_eq!(app.message(), Some(app.setup.first_click_note()));
        assert_eq!(app.help, HelpUsed::default());
    }

    /// `n` starts a new game with the next seed once the game is over, whether the end
    /// screen is up or was closed by any key or click; before, it says why not. A key on the
    /// key page only closes it.
    #[test]
    fn n_starts_a_new_game_once_this_one_is_over() {
        #[rustfmt::skip]
        let cases: &[(&str, Option<u64>, Cursor, &str)] = &[
            // script, seed of the game then, cursor, part of the message
            ("n", Some(1), (2, 2), "once this one is over"),
            ("? G", Some(1), (2, 2), ""),
            // The cursor starts on (2, 2), a mine.
            ("space n", Some(2), (2, 2), ""),
            ("space esc n", Some(2), (2, 2), ""),
            ("space x n", Some(2), (2, 2), ""),
            ("space space n", Some(2), (2, 2), ""),
            ("space click:1,1 n", Some(2), (2, 2), ""),
        ];
        for &(script, seed, cursor, message) in cases {
            let (mut app, start) = app_on(BOARD, 80, 24);
            play(&mut app, start, script);
            let game = app.game();
            let got = (game.status(), game.board().is_some(), app.setup.seed);
            let fresh = seed == Some(2);
            assert_eq!(got, (Status::Playing, !fresh, seed), "{script:?}");
            assert_eq!(
                (app.cursor(), app.keys_shown),
                (cursor, false),
                "{script:?}"
            );
            assert!(!fresh || app.clicks == Clicks::default(), "{script:?}");
            assert!(says(&app, message), "{script:?}: {:?}", app.message());
        }
    }

    /// The next game of a no-guess game is no-guess too: hints alone clear both boards.
    #[test]
    fn the_next_game_of_a_no_guess_game_is_no_guess_too() {
        let setup = Setup {
            no_guess: true,
            ..custom(16, 30, 99, FirstClick::Opening, 8)
        };
        let (mut app, mut now) = seeded(setup, 80, 24);
        for seed in [8, 9] {
            assert_eq!(app.setup.seed, Some(seed));
            (now, _) = play(&mut app, now, "space");
            for _ in 0..16 * 30 {
                if app.game().status() != Status::Playing {
                    break;
                }
                (now, _) = play(&mut app, now, "h");
                assert!(app.hint.is_some(), "seed {seed}: {:?}", app.message());
                (now, _) = play(&mut app, now, "space");
            }
            assert_eq!(
                app.game().status(),
                Status::Won,
                "seed {seed}: {:?}",
                app.message()
            );
            (now, _) = play(&mut app, now, "n");
        }
    }
    /// On the "terminal too small" screen nothing can be seen, so no key but quit acts.
    #[test]
    fn keys_on_a_screen_too_small_do_nothing() {
        let (mut app, start) = app_on(BOARD, 10, 3);
        let before = (app.cursor(), app.origin());
        let (_, actions) = play(&mut app, start, "space f G h p w s n ? click:1,1 C-c");
        assert_eq!(app.game().revealed_count(), 0);
        assert_eq!(app.game().flag_count(), 0);
        assert_eq!((app.cursor(), app.origin()), before);
        assert!(!app.keys_shown);
        assert_eq!(actions, actions_of("ccccccccccq"));
        // Made large enough, the game goes on where it was.
        play(&mut app, start, "resize:80,24 space");
        assert_eq!(app.game().status(), Status::Lost);
    }

    /// The actions for the loop of the keys that leave the board (one letter an action:
    /// `c` continue, `s` save, `q` quit). `q` on a game in progress that would be lost asks
    /// once; a second `q` quits. Ctrl-C quits at once, and so does `q` with nothing to lose:
    /// before the first move, after the end, after a save, or when --save saves on quitting.
    #[test]
    fn quit_and_save_and_q_asks_once_before_dropping_an_unsaved_game() {
        #[rustfmt::skip]
        let cases: &[(&str, bool, &str)] = &[
            // script, saved on quit, actions
            ("q", false, "q"),
            ("Q", false, "q"),
            ("C-c", false, "q"),
            ("? q", false, "cq"), // at once, from the key page too
            ("space q", false, "cq"), // and from the end screen: a lost game, nothing to lose
            ("s", false, "s"),
            ("? s", false, "cc"), // a key on the key page closes it
            ("G space q", false, "ccc"),
            ("G space q q", false, "cccq"),
            ("G space q Q", false, "cccq"),
            ("G space q left q", false, "ccccc"),
            ("G space C-c", false, "ccq"),
            ("G space q", true, "ccq"),
        ];
        for &(script, save_on_quit, actions) in cases {
            let (app, start) = app_on(BOARD, 80, 24);
            let mut app = app.with_save_on_quit(save_on_quit);
            let got = play(&mut app, start, script).1;
            assert_eq!(got, actions_of(actions), "{script:?}");
        }
        let (mut app, start) = app_on(BOARD, 80, 24);
        play(&mut app, start, "G space q");
        assert!(says(&app, "q again quits"), "{:?}", app.message());
        // After a save there is nothing to lose until the next move.
        play(&mut app, start, "s");
        app.saved();
        assert_eq!(play(&mut app, start, "q").1, [Action::Quit]);
    }

    /// A board large enough to take a while is generated off the input thread: the first
    /// click returns at once with a progress line, `q` still quits at once, and the clock
    /// starts when the first cells are shown, not at the click.
    #[test]
    fn a_large_board_is_generated_off_the_input_thread() {
        let setup = custom(1000, 1000, 150_000, FirstClick::Opening, 3);
        let (mut app, start) = seeded(setup.clone(), 80, 24);
        let (now, actions) = play(&mut app, start, "space");
        assert_eq!(actions, [Action::Continue]);
        let waits = app.busy();
        assert!(waits, "the click waits for the board off the input thread");
        assert!(says(&app, "generating"), "{:?}", app.message());
        assert_eq!(clock(&app), (Duration::ZERO, false));
        // Keys other than quit wait; quit acts at once.
        assert_eq!(play(&mut app, now, "f").1, [Action::Continue]);
        let later = wait_for_board(&mut app, now);
        assert!(app.game().revealed_count() >= 9);
        assert_eq!(app.game().flag_count(), 0);
        // The clock starts as the first cells are shown.
        assert_eq!(clock(&app), (Duration::ZERO, true));
        play(&mut app, later, "wait:1500");
        assert_eq!(app.elapsed(), Duration::from_millis(1500));

        let (mut app, start) = seeded(setup, 80, 24);
        let (_, actions) = play(&mut app, start, "space q");
        assert_eq!(actions, [Action::Continue, Action::Quit]);
    }
}
