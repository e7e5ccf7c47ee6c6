//! `bitmines play`: Minesweeper in the terminal, on boards of any size, local or in a room of
//! a `bitmines serve` server (`--connect`); ARCHITECTURE.md maps the files. This one holds the
//! command line, the terminal's setup and teardown, and the one event loop, which never waits
//! on the network and wakes only for an event or a clock the source names.

mod app;
mod draw;
mod local;
mod remote;
#[cfg(test)]
mod screens;
#[cfg(test)]
mod script;
mod viewport;

use std::io::{self, IsTerminal, Stdout};
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use bitmines_core::{FirstClick, Game, Geometry, saved};
use bitmines_gen::{Generator, NoGuessGenerator};
use bitmines_server::client::{Link, NetEvent};
use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;

use crate::cli::{BoardArgs, Preset, SizeDefault, clock_seed, whole};
use crate::files::{Dash, check_output, open_saved, write_atomic};
use crate::system::ensure_memory;

use app::Play;
pub(crate) use app::{Action, App};

/// Options of `bitmines play`; with none, an expert game.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    board: BoardArgs,
    /// A board the solver clears from the first click without a guess, made when the first
    /// click lands (about 0.3 s for 1000x1000; 6 s for 10^8 cells on two threads).
    #[arg(long)]
    no_guess: bool,
    /// Draw with ASCII characters only, for terminals without Unicode.
    #[arg(long)]
    ascii: bool,
    /// Continue a saved game (saved with the save key or --save).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["preset", "rows", "cols", "mines", "density", "seed", "first_click_rule"])]
    resume: Option<PathBuf>,
    /// Save the game to FILE when quitting, and with the save key (replaced atomically).
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Play in a room of a `bitmines serve` server instead: ws://HOST:PORT/room/NAME, with
    /// the room's parameters in the query if this join makes it (?mode=race&preset=beginner).
    #[arg(long, value_name = "URL", conflicts_with_all = ["preset", "rows", "cols", "mines", "density", "seed", "first_click_rule", "no_guess", "resume", "save"])]
    connect: Option<String>,
    /// With --connect: only watch, following PLAYER's view in a race (the first player's if
    /// none is named; a co-op room has one view).
    #[arg(long, value_name = "PLAYER", num_args = 0..=1, requires = "connect", value_parser = whole::<u32>, allow_negative_numbers = true)]
    spectate: Option<Option<u32>>,
    /// With --connect: come back as the player this token was given to (printed on quitting).
    #[arg(
        long,
        value_name = "HEX",
        requires = "connect",
        conflicts_with = "spectate"
    )]
    token: Option<String>,
}

/// How a game was set up, so the next one can be set up the same way.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Setup {
    /// The preset's name, `custom`, or `resumed`.
    pub(crate) name: &'static str,
    /// Rows of the board.
    pub(crate) rows: usize,
    /// Columns of the board.
    pub(crate) cols: usize,
    /// Mines on the board.
    pub(crate) mines: usize,
    /// What the first click keeps clear.
    pub(crate) first_click: FirstClick,
    /// The seed of the mines; `None` for a resumed game whose file records none.
    pub(crate) seed: Option<u64>,
    /// Whether each board is one the solver clears from the first click without a guess.
    pub(crate) no_guess: bool,
}

impl Setup {
    /// A game whose board is generated around its first click. Plain generation is the
    /// parallel one, so a 10^8-cell board is ready a fraction of a second after the click;
    /// a no-guess board is one the solver clears from that click without a guess.
    pub(crate) fn game(&self) -> anyhow::Result<Game> {
        let (rows, cols, mines, rule) = (self.rows, self.cols, self.mines, self.first_click);
        let seed = self.seed.unwrap_or_default();
        if self.no_guess && rule == FirstClick::Unprotected {
            bail!(
                "a no-guess board needs a first click that keeps its cell clear: use --first-click-rule safe or opening"
            );
        }
        fits(rows, cols, self.no_guess)?;
        Ok(if self.no_guess {
            Game::deferred(rows, cols, mines, rule, NoGuessGenerator::new(seed, rule))?
        } else {
            Game::deferred(rows, cols, mines, rule, Generator::new(seed))?
        })
    }

    /// The same setup with the next seed.
    pub(crate) fn next(&self) -> Setup {
        let seed = self.seed.map(|seed| seed.wrapping_add(1));
        let resumed = self.name == "resumed";
        Setup {
            seed: Some(seed.unwrap_or_else(clock_seed)),
            name: if resumed { "custom" } else { self.name },
            ..self.clone()
        }
    }

    /// What the player knows before the first click.
    pub(crate) fn first_click_note(&self) -> &'static str {
        match self.first_click {
            FirstClick::Opening => "the first click is safe and opens a region: start anywhere",
            FirstClick::Safe => "the first click is safe: start anywhere",
            _ => "the first click may be a mine: nothing is known yet",
        }
    }

    /// The setup the command line asks for.
    fn from_args(args: &Args) -> anyhow::Result<Setup> {
        let chosen = args.board.choose(SizeDefault::Preset(Preset::Expert))?;
        Ok(Setup {
            name: chosen.name,
            rows: chosen.rows,
            cols: chosen.cols,
            mines: chosen.mines,
            first_click: chosen.first_click_rule.into(),
            seed: Some(chosen.seed),
            no_guess: args.no_guess,
        })
    }
}

/// Plays a game in the terminal until the player quits.
pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    if let Some(url) = &args.connect {
        return run_remote(url, args);
    }
    if args.no_guess && args.resume.is_some() {
        bail!("--no-guess makes a new board; a resumed game keeps its own");
    }
    // Checked before the game starts: quitting saves, and a file that cannot be written
    // would lose the game at the end.
    if let Some(path) = &args.save {
        check_output("--save", path, Dash::Refused)?;
    }
    let (game, setup) = match &args.resume {
        Some(path) => resume(path)?,
        None => {
            let setup = Setup::from_args(args)?;
            (setup.game()?, setup)
        }
    };
    need_terminal()?;
    // The save key writes to --save, else the file resumed, else one named after the seed.
    let named = || PathBuf::from(format!("bitmines-{}.bmg", setup.seed.unwrap_or_default()));
    let given = args.save.as_ref().or(args.resume.as_ref());
    let save_to = given.cloned().unwrap_or_else(named);
    let app = |area| {
        let app = App::local(game, setup, area, Instant::now(), args.resume.is_some());
        app.with_ascii(args.ascii)
            .with_save_on_quit(args.save.is_some())
    };
    let pump = |app: &mut App| app.tick(Instant::now());
    let app = play(app, pump, |app| save_key(app, &save_to))?;
    if let Some(path) = &args.save
        && app.game().board().is_some()
    {
        save(path, &app)?;
        eprintln!("bitmines: saved the game to {}", path.display());
    }
    if let Some(summary) = app.summary() {
        println!("{}", local::summary_line(&app, &summary));
    }
    Ok(())
}

/// Reads a saved game, after checking from its header that it fits in memory.
fn resume(path: &Path) -> anyhow::Result<(Game, Setup)> {
    let context = || format!("cannot resume from {}", path.display());
    let header = saved::read_header(open_saved(path)?).with_context(context)?;
    fits(header.rows, header.cols, false)?;
    let (game, header) = Game::read_saved(open_saved(path)?).with_context(context)?;
    let setup = Setup {
        name: "resumed",
        rows: game.rows(),
        cols: game.cols(),
        mines: game.mine_count(),
        first_click: FirstClick::Opening,
        seed: header.seed,
        no_guess: false,
    };
    Ok((game, setup))
}

/// Fails unless a `rows x cols` game fits in memory: the board's two planes and the game's
/// three, and three more while a no-guess board is made.
fn fits(rows: usize, cols: usize, no_guess: bool) -> anyhow::Result<()> {
    let planes = if no_guess { 8 } else { 5 };
    let bytes = Geometry::new(rows, cols)?.plane_bytes() as u64 * planes;
    let what = if no_guess { " no-guess" } else { "" };
    ensure_memory(bytes, || format!("a {rows}x{cols}{what} game"))
}

/// Saves the game with its seed (which the game remembers), atomically.
fn save(path: &Path, app: &App) -> anyhow::Result<()> {
    write_atomic(path, |out| Ok(app.game().write_saved(out)?))
        .with_context(|| format!("cannot save the game to {}", path.display()))
}

/// Takes the terminal, makes the app for its size, then draws, waits for events and applies
/// them until the player quits, and gives the terminal back. `pump` brings the app up to
/// date before each frame (its clock, a server's frames, messages to send).
fn play<S: Play>(
    app: impl FnOnce(Rect) -> App<S>,
    mut pump: impl FnMut(&mut App<S>),
    mut save: impl FnMut(&mut App<S>),
) -> anyhow::Result<App<S>> {
    let mut term = Term::enter().context("cannot set up the terminal")?;
    let mut app = app(term.area()?);
    loop {
        let area = term.area()?;
        if app.area() != area {
            app.resize(area);
        }
        pump(&mut app);
        term.0.draw(|frame| draw::draw(frame, &app))?;
        if let Some(wait) = app.wake()
            && !event::poll(wait)?
        {
            continue;
        }
        // Apply every event already waiting before drawing again, so held-down keys on a
        // slow terminal do not queue up frames.
        loop {
            let event = event::read()?;
            match app.handle(&event, Instant::now()) {
                Action::Quit => return Ok(app),
                Action::Save => save(&mut app),
                Action::Continue => {}
            }
            if !event::poll(Duration::ZERO)? {
                break;
            }
        }
    }
}

/// Plays in a room of a server until the player quits, then says how to come back.
fn run_remote(url: &str, args: &Args) -> anyhow::Result<()> {
    if !url.starts_with("ws://") {
        bail!("--connect {url}: the address must start with ws:// (ws://HOST:PORT/room/NAME)");
    }
    if let Some(token) = &args.token
        && (token.len() != 32 || !token.chars().all(|c| c.is_ascii_hexdigit()))
    {
        bail!("--token {token}: a token is 32 hexadecimal digits");
    }
    need_terminal()?;
    let link = Link::open(url, args.spectate.is_some(), args.token.clone())
        .context("cannot start the network thread")?;
    // The first answer comes before the terminal is taken, so a server that is not there or
    // a refused join is one line on the normal screen, not a screen to quit.
    let first = link.wait(Duration::from_secs(10));
    if let Some(NetEvent::Closed(reason)) = &first {
        bail!("--connect {url}: {reason}");
    }
    let remote = |area| {
        let mut remote = remote::Remote::new(url, args.spectate, area, Instant::now());
        if let Some(event) = first {
            remote.receive(event, Instant::now());
        }
        remote.with_ascii(args.ascii)
    };
    // The socket is another thread's: nothing here waits on it.
    let pump = |remote: &mut remote::Remote| remote.pump(&link, Instant::now());
    let remote = play(remote, pump, |_| {})?;
    drop(link);
    if let Some(token) = remote.token() {
        let base = url.split('?').next().unwrap_or(url);
        println!(
            "bitmines: to come back as this player: bitmines play --connect {base} --token {token}"
        );
    }
    Ok(())
}

/// The save key: saves and says where, or why not.
fn save_key(app: &mut App, path: &Path) {
    if app.game().board().is_none() {
        app.note("nothing to save before the first click");
        return;
    }
    match save(path, app) {
        Ok(()) => {
            app.saved();
            app.note(format!(
                "saved to {0}; continue with: bitmines play --resume {0}",
                path.display()
            ));
        }
        Err(error) => app.note(format!("{error:#}")),
    }
}

/// The terminal in raw mode on the alternate screen with the mouse captured; dropping it,
/// or a panic, puts the terminal back as it was.
struct Term(Terminal<CrosstermBackend<Stdout>>);

/// Fails unless standard input and output are both a terminal.
fn need_terminal() -> anyhow::Result<()> {
    if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
        bail!("play needs a terminal: standard input and output must both be one");
    }
    Ok(())
}

impl Term {
    /// The terminal's size now.
    fn area(&self) -> io::Result<Rect> {
        let size = self.0.size()?;
        Ok(Rect::new(0, 0, size.width, size.height))
    }

    fn enter() -> io::Result<Term> {
        static HOOK: Once = Once::new();
        HOOK.call_once(|| {
            // The panic message must land on the normal screen, so the terminal is restored
            // before the previous hook prints it.
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                previous(info);
            }));
        });
        enable_raw_mode()?;
        let entered = crossterm::execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)
            .and_then(|()| Terminal::new(CrosstermBackend::new(io::stdout())));
        entered.map(Term).inspect_err(|_| restore())
    }
}

impl Drop for Term {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal back: mouse released, normal screen, cursor shown, cooked mode. Each
/// step is tried even if one before it failed.
fn restore() {
    let _ = crossterm::execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitmines_gen::Config;
    use clap::Parser;

    /// The `play` subcommand's arguments, parsed as the binary parses them.
    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn setup(line: &str) -> anyhow::Result<Setup> {
        let words = std::iter::once("play").chain(line.split_whitespace());
        Setup::from_args(&Cli::try_parse_from(words)?.args)
    }

    #[test]
    fn the_next_game_takes_the_next_seed() {
        let first = setup("--seed 41 --first-click-rule safe").expect("valid");
        let next = first.next();
        assert_eq!(next.seed, Some(42));
        assert_eq!(next.first_click, FirstClick::Safe);
        assert_eq!((next.rows, next.cols, next.mines), (16, 30, 99));
        let resumed = Setup {
            name: "resumed",
            seed: None,
            ..first
        };
        assert_eq!(resumed.next().name, "custom");
        assert!(resumed.next().seed.is_some());
    }

    /// The save key writes the saved-game format with the seed, and `--resume` reads it back
    /// to the same game; before the first click there is no board to save.
    #[test]
    fn saved_games_resume_where_they_stopped() {
        let dir = tempfile::tempdir().expect("a temp folder");
        let path = dir.path().join("game.bmg");
        let (mut app, start) = script::seeded(setup("--seed 9").expect("valid"), 80, 24);
        save_key(&mut app, &path);
        let nothing = "nothing to save before the first click";
        assert_eq!(app.message(), Some(nothing));
        assert!(!path.exists());
        script::play(&mut app, start, "space right right f");
        save_key(&mut app, &path);
        assert!(app.message().is_some_and(|m| m.starts_with("saved to ")));
        let (game, setup) = resume(&path).expect("resumes");
        assert_eq!(game.to_string(), app.game().to_string());
        assert_eq!((setup.name, setup.seed), ("resumed", Some(9)));
    }

    /// The board a game generates on its first click is the one `bitmines gen` writes for
    /// the same options, so a seed shared between players means the same game.
    #[test]
    fn play_and_gen_agree_on_the_board() {
        let setup = setup("--seed 7 --rows 40 --cols 50 --mines 300").expect("valid");
        let mut game = setup.game().expect("a game");
        game.reveal(10, 20).expect("reveals");
        let zone = FirstClick::Opening.zone(40, 50, 10, 20);
        let config = Config::new(40, 50, 300, 7).keep_clear(zone.expect("on the board"));
        let board = bitmines_gen::generate(&config).expect("generates");
        assert_eq!(game.board().map(|b| b.to_string()), Some(board.to_string()));
    }
}
