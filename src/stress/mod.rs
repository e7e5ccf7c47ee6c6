//! `bitmines stress`: generate a large board, play it to the end, check and report.
//!
//! `walk.rs` orders the cells without storing them; `play.rs` holds the players and the table
//! that applies their moves; `deduce.rs` is the solver player; `report.rs` is the report.
//! This module runs it all: a memory check, generation on a rayon pool of `--threads` (or
//! `--resume`, reading a saved game), play with a progress bar and a Ctrl-C flag checked every
//! 2^14 visits, checkpoints (`--save-every`), statistics, checks, and the final save
//! (`--save`).

mod deduce;
mod play;
mod report;
mod tiles;
mod walk;

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use bitmines_core::{Board, Game, Geometry, Stats, Status, saved};
use indicatif::{ProgressBar, ProgressState, ProgressStyle};

use bitmines_gen::NoGuess;

use crate::cli::{
    BoardArgs, BoardSpec, CellArg, JsonArg, KeepClear, SizeDefault, ThreadsArg, at_least_one,
    thread_pool, whole,
};
use crate::files::{Dash, check_output, open_saved, write_atomic};
use crate::generate::{NO_GUESS_PLANES, no_guess_shown};
use crate::picture;
use crate::system::{emit, ensure_memory, peak_rss, progress_bar};
pub(crate) use play::PlayerKind;
use play::{Player, Table};
pub(crate) use report::SCHEMA;
use report::{BoardInfo, BoardStats, Checks, End, Generation, Memory, Play, Report, ns_per};
use walk::TileWalk;

/// Boards up to this many cells are also replayed on the naive twin by `--check`.
const NAIVE_MAX_CELLS: u64 = 1_000_000;

/// No-guess boards from this many cells show their generation on a terminal.
const NO_GUESS_PROGRESS_CELLS: usize = 1_000_000;

/// Walk steps between two looks at the clock, the progress bar and Ctrl-C.
const TICK: u64 = 1 << 14;

/// Options of `bitmines stress`. The defaults make a 10^8-cell run.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    board: BoardArgs,
    #[command(flatten)]
    threads: ThreadsArg,
    /// The player's first click as ROW,COL (default: the centre of the board).
    #[arg(long, value_name = "ROW,COL", allow_hyphen_values = true)]
    first_click: Option<CellArg>,
    /// Who plays.
    #[arg(long, value_enum, default_value_t = PlayerKind::Truth)]
    player: PlayerKind,
    /// The shape of the tiles the truth player's board is cut into for the threads: bands of
    /// 256 rows, or squares of 256x254 cells.
    #[arg(long, value_enum, default_value_t = tiles::Shape::Bands)]
    tiles: tiles::Shape,
    /// Play a no-guess board, certified by the solver from the first click (as
    /// `gen --no-guess` makes); the solver player must then win without a guess.
    #[arg(long)]
    no_guess: bool,
    #[command(flatten)]
    json: JsonArg,
    /// Write a picture of the game to FILE (PNG), scaled down to fit --png-size.
    #[arg(long, value_name = "FILE")]
    png: Option<PathBuf>,
    /// Picture the game after this many calls instead of at the end.
    #[arg(long, value_name = "CALLS", requires = "png", value_parser = whole::<u64>, allow_negative_numbers = true)]
    png_after: Option<u64>,
    /// Longest side of the picture, in pixels.
    #[arg(long, value_name = "PIXELS", default_value_t = 2048, requires = "png", value_parser = at_least_one::<u32>, allow_negative_numbers = true)]
    png_size: u32,
    /// Replay every call on the scalar fill (and, up to 10^6 cells, on the naive twin), and
    /// stop at the first disagreement.
    #[arg(long)]
    check: bool,
    /// Save the game to FILE when the run ends, interrupted or not (replaced atomically).
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Also save a checkpoint to the --save file every this many calls.
    #[arg(long, value_name = "CALLS", requires = "save", value_parser = at_least_one::<u64>, allow_negative_numbers = true)]
    save_every: Option<u64>,
    /// Continue a game saved with --save (its board, view and seed) instead of generating one.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["preset", "rows", "cols", "mines", "density", "seed", "first_click", "first_click_rule", "no_guess"])]
    resume: Option<PathBuf>,
}

/// The game a run plays and where it came from.
struct Start {
    /// The game, fresh or resumed.
    game: Game,
    /// The seed of the player's order and choices.
    seed: u64,
    /// The first click, for a fresh game.
    first_click: Option<CellArg>,
    /// What generation kept clear, for a generated board.
    first_click_rule: Option<KeepClear>,
    /// Seconds spent generating the board, or reading the saved game.
    seconds: f64,
    /// Whether the board is certified no-guess.
    no_guess: bool,
    /// The saved game it resumes, if any.
    resumed_from: Option<String>,
}

/// The board of a run given no size: 10^8 cells at density 0.15.
const DEFAULT_SIZE: SizeDefault = SizeDefault::Size {
    rows: 10_000,
    cols: 10_000,
    density: 0.15,
};

/// Set by Ctrl-C; the play loop stops at its next tick.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Runs a stress run and prints its report. Exit code 0 when every check passed, 1 when one
/// failed, 130 when interrupted.
pub(crate) fn run(args: &Args) -> anyhow::Result<ExitCode> {
    // Checked before the run, which would otherwise fail only at its end, its game lost.
    if let Some(path) = &args.png {
        check_output("--png", path, Dash::Refused)?;
    }
    if let Some(path) = &args.save {
        check_output("--save", path, Dash::Refused)?;
    }
    if args.check && args.player == PlayerKind::Solver {
        bail!(
            "--check replays single calls on twin engines, but the solver player moves by whole planes; run it without --check"
        );
    }
    let pool = thread_pool(args.threads.threads)?;
    let threads = pool.current_num_threads();
    let start = match &args.resume {
        Some(path) => resume(path, args)?,
        None => generate(args, &pool)?,
    };
    // A second Ctrl-C ends the process at once.
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    });
    let Start {
        game,
        seed,
        first_click,
        first_click_rule,
        seconds,
        no_guess,
        resumed_from,
    } = start;
    let board = Arc::clone(
        game.board()
            .ok_or_else(|| anyhow::anyhow!("the game has no board"))?,
    );
    let cells = board.geometry().cells() as u64;
    let naive = args.check && cells <= NAIVE_MAX_CELLS;
    let mut table = Table::new(game, args.check, naive);
    let progress = play_progress(board.safe_count() as u64, table.revealed_at_start);
    let mut outputs = Outputs::default();
    let started = Instant::now();
    let mut tiled = None;
    let (visited, played, mut deduction) = match args.player {
        PlayerKind::Solver => {
            let mut last_checkpoint = 0;
            let mut tick = |table: &Table| {
                progress.set_position(table.game.revealed_count() as u64);
                after_calls(table, args, &mut outputs, &mut last_checkpoint)?;
                Ok(!INTERRUPTED.load(Ordering::Relaxed))
            };
            let click = first_click.map(|cell| (cell.row, cell.col));
            match deduce::play(&mut table, &board, click, &mut tick) {
                Ok(done) => (0, Ok(()), Some(done)),
                Err(stop) => (0, Err(stop), None),
            }
        }
        _ if tiles::applies(args.player, args.check, per_call(args)) => {
            let click = first_click.map(|cell| (cell.row, cell.col));
            let run = tiles::play(
                &mut table,
                &board,
                (seed, click),
                (args.tiles, threads),
                &progress,
                &INTERRUPTED,
            )
            .context("the tiled play failed")?;
            tiled = Some(run.1);
            (run.0, Ok(()), None)
        }
        _ => {
            let (visited, played) = play(
                &mut table,
                &board,
                args,
                (seed, first_click),
                &progress,
                &mut outputs,
            );
            (visited, played, None)
        }
    };
    let play_seconds = started.elapsed().as_secs_f64();
    progress.finish_and_clear();
    let interrupted = INTERRUPTED.load(Ordering::SeqCst);
    if let Some(done) = &mut deduction {
        done.deduced_per_second = done.deduced as f64 / play_seconds.max(1e-9);
    }
    let mut failure = match played {
        Ok(()) => None,
        Err(Stop::Disagreement(failure)) => Some(failure),
        Err(Stop::Io(error)) => return Err(error),
    };
    if failure.is_none() && args.check {
        failure = table.compare_all().err();
    }
    if let (Some(path), None) = (&args.png, &outputs.picture) {
        if let Some(after) = args.png_after {
            eprintln!(
                "bitmines: the game ended after {} calls, before --png-after {after}; picturing its final state",
                table.calls.total()
            );
        }
        picture::write_game(path, &table.game, args.png_size, &ProgressBar::hidden())?;
        outputs.picture = Some(path.display().to_string());
    }
    if let Some(path) = &args.save {
        save(path, &table.game)?;
    }
    let stats = match interrupted {
        true => None,
        false => {
            let started = Instant::now();
            let stats = Stats::of_bands(&board, tiles::BAND, threads)?;
            Some(BoardStats {
                openings: stats.openings,
                islands: stats.islands,
                bbbv: stats.bbbv,
                seconds: started.elapsed().as_secs_f64(),
            })
        }
    };
    let game = &table.game;
    let mut checks = checks(&table, failure.as_deref());
    if no_guess && let Some(done) = &deduction {
        checks.no_guess = match done.guesses {
            0 => "no guess needed".to_owned(),
            n => format!("{n} guesses on a certified board"),
        };
    }
    let end = match (game.status(), interrupted) {
        _ if !checks.passed() => End::Failed,
        (Status::Won, _) => End::Won,
        (Status::Lost, _) => End::Lost,
        (Status::Playing, true) => End::Interrupted,
        (Status::Playing, false) => End::Failed,
    };
    let calls = table.calls;
    let engine_bytes = (board.heap_bytes() + game.heap_bytes()) as u64;
    let peak = peak_rss();
    let report = Report {
        schema: SCHEMA,
        end,
        board: BoardInfo {
            rows: board.rows(),
            cols: board.cols(),
            cells,
            mines: board.mine_count(),
            density: board.mine_count() as f64 / cells as f64,
            seed,
            first_click: first_click.map(|cell| [cell.row, cell.col]),
            first_click_rule,
            no_guess,
        },
        resumed_from,
        threads,
        player: args.player,
        solver: deduction,
        generation: Generation {
            seconds,
            ns_per_cell: ns_per(seconds, cells),
        },
        calls,
        play: Play {
            seconds: play_seconds,
            touched_cells: calls.touched(),
            ns_per_touched_cell: ns_per(play_seconds, calls.touched()),
            safe_cells: board.safe_count() as u64,
            revealed: game.revealed_count() as u64,
            visited,
            tiles: tiled,
        },
        stats,
        memory: Memory {
            peak_rss_bytes: peak,
            peak_bytes_per_cell: peak.map(|bytes| bytes as f64 / cells as f64),
            engine_bytes,
            engine_bytes_per_cell: engine_bytes as f64 / cells as f64,
        },
        checks,
        png: outputs.picture,
        saved: args.save.as_ref().map(|path| path.display().to_string()),
        checkpoints: outputs.checkpoints,
    };
    if args.json.json {
        emit(format!("{}\n", serde_json::to_string(&report)?))?;
    } else {
        emit(&report)?;
    }
    if let Some(failure) = &failure {
        eprintln!("bitmines: check failed: {failure}");
    }
    Ok(match report.end {
        End::Won | End::Lost => ExitCode::SUCCESS,
        End::Interrupted => ExitCode::from(130),
        End::Failed => ExitCode::from(1),
    })
}

/// Generates the board the options describe, timed, on `pool`.
fn generate(args: &Args, pool: &rayon::ThreadPool) -> anyhow::Result<Start> {
    let chosen = args.board.choose(DEFAULT_SIZE)?;
    let (rows, cols, seed, keep_clear) = (
        chosen.rows,
        chosen.cols,
        chosen.seed,
        chosen.first_click_rule,
    );
    let first_click = args.first_click.unwrap_or(CellArg {
        row: rows / 2,
        col: cols / 2,
    });
    let spec = BoardSpec {
        rows,
        cols,
        mines: Some(chosen.mines),
        density: 0.0,
        seed,
        first_click: Some((first_click, keep_clear)),
    };
    let config = spec.config()?;
    let geometry = Geometry::new(rows, cols)?;
    check_memory(&geometry, args)?;
    let started = Instant::now();
    let board = if args.no_guess {
        let spinner = match geometry.cells() >= NO_GUESS_PROGRESS_CELLS {
            true => progress_bar(
                None,
                ProgressStyle::with_template("{spinner} {elapsed_precise} generating {msg}"),
                Some(Duration::from_millis(100)),
            ),
            false => ProgressBar::hidden(),
        };
        let request = NoGuess::new(rows, cols, config.mines, seed).first_click(
            keep_clear.into(),
            first_click.row,
            first_click.col,
        );
        let certified = no_guess_shown(&request, pool, &spinner);
        spinner.finish_and_clear();
        certified?.into_board()
    } else {
        pool.install(|| bitmines_gen::generate(&config))?
    };
    Ok(Start {
        seconds: started.elapsed().as_secs_f64(),
        no_guess: args.no_guess,
        game: {
            let mut game = Game::try_new(board)?;
            game.set_seed(Some(seed));
            game
        },
        seed,
        first_click: Some(first_click),
        first_click_rule: Some(keep_clear),
        resumed_from: None,
    })
}

/// Reads a game saved by `--save`, timed, after checking from its header that it fits in
/// memory.
fn resume(path: &Path, args: &Args) -> anyhow::Result<Start> {
    let context = || format!("cannot resume from {}", path.display());
    let header = saved::read_header(open_saved(path)?).with_context(context)?;
    check_memory(&Geometry::new(header.rows, header.cols)?, args)?;
    let started = Instant::now();
    let (game, header) = Game::read_saved(open_saved(path)?).with_context(context)?;
    let seed = header.seed.ok_or_else(|| {
        anyhow::anyhow!(
            "{} records no seed to resume the player with",
            path.display()
        )
    })?;
    Ok(Start {
        seconds: started.elapsed().as_secs_f64(),
        first_click: (game.revealed_count() == 0).then(|| CellArg {
            row: game.rows() / 2,
            col: game.cols() / 2,
        }),
        game,
        seed,
        first_click_rule: None,
        no_guess: false,
        resumed_from: Some(path.display().to_string()),
    })
}

/// Saves `game` to `path` atomically, with its seed (the board's and the player's).
fn save(path: &Path, game: &Game) -> anyhow::Result<()> {
    write_atomic(path, |out| Ok(game.write_saved(out)?))
        .with_context(|| format!("cannot save the game to {}", path.display()))
}

/// Files a run wrote while playing.
#[derive(Default)]
struct Outputs {
    /// The picture, once written.
    picture: Option<String>,
    /// Checkpoints saved by `--save-every`.
    checkpoints: u64,
}

/// Why play stopped early.
enum Stop {
    /// The engines disagreed.
    Disagreement(String),
    /// A picture or a checkpoint could not be written.
    Io(anyhow::Error),
}

/// Plays the game: the first click of a fresh game, then every cell in walk order until the
/// game ends. Returns the walk steps taken, and why play stopped early if it did.
fn play(
    table: &mut Table,
    board: &Board,
    args: &Args,
    (seed, first_click): (u64, Option<CellArg>),
    progress: &ProgressBar,
    outputs: &mut Outputs,
) -> (u64, Result<(), Stop>) {
    let player = Player::new(args.player, seed);
    let mut acts = Vec::with_capacity(16);
    let mut last_checkpoint = 0;
    let mut step = |table: &mut Table, (row, col): (usize, usize)| {
        acts.clear();
        player
            .plan(&table.game, board, (row, col), &mut acts)
            .map_err(|e| Stop::Io(e.context("the player failed")))?;
        for &act in &acts {
            table.apply(act).map_err(Stop::Disagreement)?;
            after_calls(table, args, outputs, &mut last_checkpoint)?;
            if table.game.status() != Status::Playing {
                break;
            }
        }
        Ok::<(), Stop>(())
    };
    if let Some(cell) = first_click
        && table.game.status() == Status::Playing
        && let Err(stop) = step(table, (cell.row, cell.col))
    {
        return (0, Err(stop));
    }
    let mut stop = None;
    let mut visited = 0;
    TileWalk::new(board.rows(), board.cols(), seed).run(|row, col| {
        if table.game.status() != Status::Playing {
            return false;
        }
        if visited % TICK == 0 {
            progress.set_position(table.game.revealed_count() as u64);
            if INTERRUPTED.load(Ordering::Relaxed) {
                return false;
            }
        }
        visited += 1;
        match step(table, (row, col)) {
            Ok(()) => true,
            Err(error) => {
                stop = Some(error);
                false
            }
        }
    });
    (visited, stop.map_or(Ok(()), Err))
}

/// What follows a call: the picture of `--png-after` once its call count is reached, and a
/// checkpoint when `--save-every` calls have passed since the last.
fn after_calls(
    table: &Table,
    args: &Args,
    outputs: &mut Outputs,
    last_checkpoint: &mut u64,
) -> Result<(), Stop> {
    let calls = table.calls.total();
    if let (Some(after), Some(path)) = (args.png_after, &args.png)
        && calls >= after
        && outputs.picture.is_none()
    {
        picture::write_game(path, &table.game, args.png_size, &ProgressBar::hidden())
            .map_err(Stop::Io)?;
        outputs.picture = Some(path.display().to_string());
    }
    if let (Some(every), Some(path)) = (args.save_every, &args.save)
        && calls >= *last_checkpoint + every
    {
        save(path, &table.game).map_err(Stop::Io)?;
        *last_checkpoint = calls;
        outputs.checkpoints += 1;
    }
    Ok(())
}

/// The end-of-run checks.
fn checks(table: &Table, failure: Option<&str>) -> Checks {
    let game = &table.game;
    let validate = match game.validate() {
        Ok(()) => "ok".to_owned(),
        Err(error) => error.to_string(),
    };
    let opened = game.revealed_count() as u64 - table.revealed_at_start;
    let all_safe = game.status() != Status::Won || game.revealed_count() == safe_count(game);
    let (scalar, naive) = table.twins();
    let twin = |checked: bool| match (checked, failure) {
        (false, _) => "skipped".to_owned(),
        (true, None) => "agrees".to_owned(),
        (true, Some(failure)) => failure.to_owned(),
    };
    Checks {
        validate,
        status: game.status().to_string(),
        revealed_once: table.calls.opened == opened && all_safe,
        scalar: twin(scalar),
        naive: twin(naive),
        no_guess: "skipped".to_owned(),
    }
}

/// Safe cells of the game's board.
fn safe_count(game: &Game) -> usize {
    game.board().map_or(0, |board| board.safe_count())
}

/// Fails before allocating if the run needs more memory than the system has available.
fn check_memory(geometry: &Geometry, args: &Args) -> anyhow::Result<()> {
    let check = args.check;
    let plane = geometry.plane_bytes() as u64;
    let cells = geometry.cells() as u64;
    let rows = geometry.rows() as u64;
    // Board: mines and zero planes. Game: revealed, flagged and pending planes, row queues.
    let mut need = plane * 5 + rows * 32;
    if args.no_guess && args.resume.is_none() {
        // Generation's peak, while the game below does not exist yet.
        need = need.max(plane * NO_GUESS_PLANES);
    }
    if args.player == PlayerKind::Solver {
        // The solver's seven planes and its row marks.
        need += plane * 7 + rows * 2;
    }
    if check {
        // The scalar game's planes, and its cell stack in the worst case.
        need += plane * 3 + rows * 32 + cells * 8;
    }
    if tiles::applies(args.player, check, per_call(args)) {
        // The tiles' revealed, flagged and pending planes beside the game's, while one is
        // made from the other; squares keep their part of the zero plane too.
        need += plane * 3 + rows * 32;
        if args.tiles == tiles::Shape::Squares {
            need += plane + rows * 16 * (geometry.cols() as u64).div_ceil(tiles::SQUARE.1 as u64);
        }
    }
    if check && cells <= NAIVE_MAX_CELLS {
        // Two grids of one byte per cell and a flood queue of two indices per cell.
        need += cells * 18;
    }
    let run = if check { "run with --check" } else { "run" };
    ensure_memory(need, || {
        format!("a {}x{} {run}", geometry.rows(), geometry.cols())
    })
}

/// Whether the run acts on a count of calls (`--png-after`, `--save-every`), which only play
/// on the whole game keeps.
fn per_call(args: &Args) -> bool {
    args.png_after.is_some() || args.save_every.is_some()
}

/// The bar of safe cells revealed, on a terminal only.
fn play_progress(safe_cells: u64, revealed: u64) -> ProgressBar {
    let style = ProgressStyle::with_template(
        "{elapsed_precise} [{bar:30}] {human_pos}/{human_len} safe cells revealed, {rate}, ETA {eta}",
    )
    .map(|style| {
        style
            .progress_chars("=> ")
            .with_key("rate", |state: &ProgressState, out: &mut dyn fmt::Write| {
                let _ = write!(out, "{:.1} M cells/s", state.per_sec() / 1e6);
            })
    });
    let bar = progress_bar(Some(safe_cells), style, Some(Duration::from_millis(200)));
    bar.set_position(revealed);
    bar.reset_eta();
    bar
}
