//! Instruction counts of the hot paths, under callgrind, against committed baselines.
//!
//! Wall-clock times on a shared machine move by 10% or more from run to run; the number of
//! instructions a call executes does not. Each case below sets up its input, then runs the
//! measured work once inside [`measured`], and callgrind counts only the instructions
//! executed while that function is on the stack (`--collect-atstart=no
//! --toggle-collect=...measured`), so setup costs nothing in the count.
//!
//! ```text
//! scripts/icount                 # compare every case with benches/icount/baseline.tsv
//! scripts/icount --update        # record the counts as the new baseline, append history
//! scripts/icount --update --commit REV  # the same, naming the commit measured
//! scripts/icount --cases spiral  # only the cases whose name contains "spiral"
//! scripts/icount plot            # draw benches/icount/history.tsv as history.svg
//! scripts/icount time [filter]   # wall time per call: word fill, scalar fill, naive twin
//! cargo run --release --example icount -- run <case>   # one case, as callgrind runs it
//! ```
//!
//! The comparison fails when a case's count moves by more than the threshold either way: a
//! regression is a failure, and an improvement must be recorded in the same commit that
//! makes it (`--update`), so the baseline always describes the code beside it. An update
//! rewrites every case's count, so moves below the threshold do not add up unseen, and
//! appends to the history the cases that moved by more than 0.1%.
//!
//! Counts repeat exactly on one machine with the pinned toolchain: every input comes from a
//! fixed seed, rayon runs on one thread, and nothing measured hashes with a random seed.
//! What can still differ between machines is run-time CPU dispatch (the word fill and the
//! solver's population counts pick x86-64-v3 code where the CPU has it, the C library picks
//! its `memcpy`); the baseline records which word-fill path it was taken on, and the check
//! refuses to compare counts taken on the other path.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::indexing_slicing,
    reason = "a command-line tool over its own tables"
)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::Instant;

use bitmines_core::tiled::Move as TileMove;
use bitmines_core::{
    Board, Cell, Fill, FirstClick, Game, Placement, Placer, SeededPlacer, TiledGame,
};
use bitmines_gen::{Method, NoGuess, no_guess};
use bitmines_solve::{Player, Policy, Solver};

#[path = "../benches/support/shapes.rs"]
#[allow(dead_code)]
mod shapes;

#[path = "../benches/support/solve_positions.rs"]
#[allow(dead_code)]
mod positions;

#[path = "../tests/naive/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod naive;

/// Moves on the engine and on the naive twin, as the stress run's table applies them.
#[path = "../tests/common/moves.rs"]
#[allow(dead_code)]
mod moves;

/// The stress run's truth player, its walk and its tiled play, as `bitmines stress` builds
/// them, so the counted loop is the main job's own.
#[path = "../src/stress"]
#[allow(dead_code, unreachable_pub)]
mod stress {
    #[path = "play.rs"]
    pub(crate) mod play;
    #[path = "tiles.rs"]
    pub(crate) mod tiles;
    #[path = "walk.rs"]
    pub(crate) mod walk;
}

/// A regression or an improvement larger than this fraction fails the check. Counts repeat
/// exactly on one machine, so any change is real; the margin lets a few instructions of
/// noise from the C library's allocator (its arena grows differently after a change in an
/// unrelated allocation) pass, while any change worth a commit message stands out. A build
/// in another folder (a fresh clone, as CI's) moved the probabilities case by 0.56%, so the
/// margin is 1%.
const THRESHOLD: f64 = 0.01;

/// An update writes a history line for a case that moved by more than this fraction.
const HISTORY_STEP: f64 = 0.001;

const BASELINE: &str = "benches/icount/baseline.tsv";
const HISTORY: &str = "benches/icount/history.tsv";
const PICTURE: &str = "benches/icount/history.svg";

/// Runs `work` once. Callgrind counts the instructions executed while this function is on
/// the stack, and nothing else.
#[inline(never)]
fn measured(work: &mut dyn FnMut()) {
    work();
}

/// One measured reveal or chord on a prepared game.
struct Move {
    game: Game,
    cell: (usize, usize),
    chord: bool,
}

impl Move {
    fn run(&mut self) -> usize {
        let (r, c) = self.cell;
        let step = if self.chord {
            self.game.chord(r, c)
        } else {
            self.game.reveal(r, c)
        };
        step.expect("a measured move is valid").opened
    }
}

/// The case names, in the order they are run and reported.
fn case_names() -> Vec<String> {
    let mut names = Vec::new();
    for shape in [
        "serpentine-rows",
        "serpentine-columns",
        "corridors-5-wide-down-columns",
        "spiral",
        "maze-1",
    ] {
        names.push(format!("reveal/1000x1000/{shape}"));
    }
    for density in ["0.001", "0.05", "0.1", "0.15", "0.2"] {
        names.push(format!("reveal/1000x1000/centre-density-{density}"));
    }
    names.push("reveal/4096x4096/empty".into());
    names.push("reveal/expert/first-opening".into());
    names.push("reveal/expert/numbered-cell".into());
    names.push("chord/expert".into());
    names.push("solve/trivial-sweep/1000x1000".into());
    names.push("solve/probabilities/expert-first-stall-x20".into());
    names.push("solve/probabilities/expert-first-stall-once".into());
    names.push("gen/no-guess/expert-x8".into());
    names.push("play/expert-safest".into());
    names.push("tiled/1000x1000/every-safe-cell-4-bands".into());
    names.push("tiled/1000x1000/every-safe-cell-16-squares".into());
    names.push("stats/bands/1000x1000".into());
    names.push("stress/truth/1000x1000-density-0.15".into());
    names.push("stress/truth/no-guess-expert".into());
    names
}

/// The shape a reveal case names, at `size` x `size`.
fn shape(size: usize, name: &str) -> Option<shapes::Shape> {
    Some(match name {
        "serpentine-rows" => shapes::serpentine(size, 4, false),
        "serpentine-columns" => shapes::serpentine(size, 4, true),
        "corridors-5-wide-down-columns" => shapes::serpentine(size, 6, true),
        "spiral" => shapes::spiral(size),
        "maze-1" => shapes::maze(size, 1),
        _ => {
            if let Some(density) = name.strip_prefix("density-") {
                return largest_opening(size, density.parse().ok()?);
            }
            let density = name.strip_prefix("centre-density-")?.parse().ok()?;
            shapes::random_from_centre(size, density, 7)
        }
    })
}

/// The reveal benchmark's random board (seed 7) at `density`, clicked at the zero cell whose
/// cascade opens the most.
fn largest_opening(size: usize, density: f64) -> Option<shapes::Shape> {
    let mines = (size as f64 * size as f64 * density).round() as usize;
    let board = SeededPlacer::new(7).board(size, size, mines).ok()?;
    let mut scan = Game::new(Arc::new(board.clone()));
    let mut best = ((0, 0), 0);
    for r in 0..size {
        for c in 0..size {
            if board.is_zero(r, c).ok()? && scan.cell(r, c).ok()? == Cell::Hidden {
                let opened = scan.reveal(r, c).ok()?.opened;
                if opened > best.1 {
                    best = ((r, c), opened);
                }
            }
        }
    }
    Some(shapes::Shape {
        name: format!("density-{density}"),
        board,
        cell: best.0,
    })
}

/// Cases `time` runs beside the counted ones: the reveal benchmark's largest openings on
/// random boards, and the shapes at 4096x4096 (too slow to count in CI).
fn timed_only() -> Vec<String> {
    let mut names: Vec<String> = ["0.001", "0.05", "0.1", "0.2"]
        .iter()
        .map(|d| format!("reveal/1000x1000/density-{d}"))
        .collect();
    for shape in [
        "serpentine-rows",
        "serpentine-columns",
        "corridors-5-wide-down-columns",
        "spiral",
        "maze-1",
    ] {
        names.push(format!("reveal/4096x4096/{shape}"));
    }
    names
}

/// The expert board of the reveal benchmark, its first click and its best chord.
fn expert() -> Arc<Board> {
    let zone = FirstClick::Opening.zone(16, 30, 8, 15).expect("on board");
    Arc::new(
        SeededPlacer::new(99)
            .place(&Placement::new(16, 30, 99, zone))
            .expect("valid board"),
    )
}

/// The reveal or chord a case measures, on `fill`, with the board it runs on.
fn move_of(case: &str, fill: Fill) -> Option<(Arc<Board>, Move)> {
    let sized = [(1000, "reveal/1000x1000/"), (4096, "reveal/4096x4096/")]
        .into_iter()
        .find_map(|(size, prefix)| Some((size, case.strip_prefix(prefix)?)))
        .filter(|&(_, name)| name != "empty");
    let (board, cell, chord) = if let Some((size, name)) = sized {
        let shape = shape(size, name)?;
        (Arc::new(shape.board), shape.cell, false)
    } else {
        match case {
            "reveal/4096x4096/empty" => (
                Arc::new(Board::empty(4096, 4096).expect("valid")),
                (0, 0),
                false,
            ),
            "reveal/expert/first-opening" => (expert(), (8, 15), false),
            "reveal/expert/numbered-cell" => {
                let board = expert();
                let cell = numbered_cell(&board);
                (board, cell, false)
            }
            // The chord of the reveal benchmark: the numbered cell whose chord opens most.
            "chord/expert" => {
                let board = expert();
                let cell = best_chord(&board);
                (board, cell, true)
            }
            _ => return None,
        }
    };
    let mut game = Game::new(Arc::clone(&board)).with_fill(fill);
    if chord {
        flag_around(&mut game, cell);
    }
    Some((board, Move { game, cell, chord }))
}

fn numbered_cell(board: &Board) -> (usize, usize) {
    (0..board.rows())
        .flat_map(|r| (0..board.cols()).map(move |c| (r, c)))
        .find(|&(r, c)| !board.is_mine(r, c).unwrap_or(true) && board.number(r, c).unwrap_or(0) > 0)
        .expect("the board has a numbered cell")
}

fn flag_around(game: &mut Game, (r, c): (usize, usize)) {
    game.reveal(r, c).expect("safe cell");
    for nr in r.saturating_sub(1)..=(r + 1).min(game.rows() - 1) {
        for nc in c.saturating_sub(1)..=(c + 1).min(game.cols() - 1) {
            let board = game.board().expect("mines are placed");
            if board.is_mine(nr, nc).expect("on board") {
                game.toggle_flag(nr, nc).expect("hidden cell");
            }
        }
    }
}

fn best_chord(board: &Arc<Board>) -> (usize, usize) {
    let mut best = ((0, 0), 0);
    for r in 0..board.rows() {
        for c in 0..board.cols() {
            if board.is_mine(r, c).unwrap_or(true) || board.number(r, c).unwrap_or(0) == 0 {
                continue;
            }
            let mut game = Game::new(Arc::clone(board));
            flag_around(&mut game, (r, c));
            let opened = game.chord(r, c).map_or(0, |s| s.opened);
            if opened > best.1 {
                best = ((r, c), opened);
            }
        }
    }
    best.0
}

/// A 1000x1000 game at density 0.15 part way through: the first click's opening, then
/// scattered safe reveals, as the solver benchmark builds it.
/// A 1000x1000 game at density 0.15 from seed 1 with its first click made at the centre.
fn opened_game() -> Game {
    let side = 1000;
    let zone = FirstClick::Opening
        .zone(side, side, side / 2, side / 2)
        .expect("on board");
    let board =
        bitmines_gen::generate(&bitmines_gen::Config::new(side, side, 150_000, 1).keep_clear(zone))
            .expect("board");
    let mut game = Game::new(board);
    game.reveal(side / 2, side / 2).expect("safe first click");
    game
}

fn mid_game() -> Game {
    let side = 1000;
    let mines = 150_000;
    let zone = FirstClick::Opening
        .zone(side, side, side / 2, side / 2)
        .expect("on board");
    let board =
        bitmines_gen::generate(&bitmines_gen::Config::new(side, side, mines, 1).keep_clear(zone))
            .expect("board");
    let mut game = Game::new(board);
    game.reveal(side / 2, side / 2).expect("safe first click");
    let board = game.board().expect("placed").clone();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut i = 0;
    while i < side * side {
        let (r, c) = (i / side, i % side);
        if game.cell(r, c).expect("on board") == Cell::Hidden && !board.is_mine(r, c).expect("on") {
            game.reveal(r, c).expect("safe cell");
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        i += 1 + (state % 7) as usize;
    }
    game
}

/// Sets up `case` and runs it once inside [`measured`]. Returns what it did, as a check
/// that the work was not optimised away and as a line for the log.
fn run_case(case: &str) -> Result<String, String> {
    // One worker, and it is this thread: rayon's parallel loops run here, inside
    // `measured`, where callgrind counts them (a worker thread's stack would not hold it).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build()
        .map_err(|e| e.to_string())?;
    pool.install(|| run_on_this_thread(case))
}

fn run_on_this_thread(case: &str) -> Result<String, String> {
    if let Some((_, mut mv)) = move_of(case, Fill::Words) {
        // Once on a copy first, so the count is of a call in a running program: the CPU's
        // features already detected, the code already paged in.
        let warm = Move {
            game: mv.game.clone(),
            ..mv
        };
        let _ = Move::run(&mut { warm });
        let mut opened = 0;
        measured(&mut || opened = mv.run());
        return Ok(format!("{opened} cells opened"));
    }
    let done = match case {
        "solve/trivial-sweep/1000x1000" => {
            let game = mid_game();
            let mut solver = Solver::new(&game).map_err(|e| e.to_string())?;
            let mut found = 0;
            measured(&mut || found = solver.sweep().expect("a real game is consistent"));
            format!("{found} cells proven")
        }
        "solve/probabilities/expert-first-stall-x20" => {
            let stalls = positions::expert_stalls(20);
            let mut exact = 0;
            measured(&mut || {
                for position in &stalls {
                    let odds = bitmines_solve::probabilities(black_box(position));
                    exact += usize::from(odds.is_ok_and(|o| o.exact()));
                }
            });
            format!("{exact} of 20 exact")
        }
        "solve/probabilities/expert-first-stall-once" => {
            // One solve of the first stall of the first expert game, the position that
            // examples/solve_anchor.rs compares first.
            let stall = positions::expert_stalls(1);
            let position = stall.first().ok_or("no expert stall")?;
            let mut cells = 0;
            measured(&mut || {
                let odds = bitmines_solve::probabilities(black_box(position));
                cells = odds.map_or(0, |o| usize::from(o.exact()));
            });
            format!("{cells} exact")
        }
        "stress/truth/1000x1000-density-0.15" | "stress/truth/no-guess-expert" => {
            // The main job's play: the truth player's first click and its walk over every
            // tile of bands of 256 rows, on one thread, as `bitmines stress` runs it.
            // Generation is setup.
            let (board, click) = if case.ends_with("expert") {
                let request = NoGuess::new(16, 30, 99, 1)
                    .first_click(FirstClick::Opening, 8, 15)
                    .method(Method::Auto);
                let board = no_guess(&request).map_err(|e| e.to_string())?;
                (board.into_board(), (8, 15))
            } else {
                let zone = FirstClick::Opening
                    .zone(1000, 1000, 500, 500)
                    .expect("on board");
                let config = bitmines_gen::Config::new(1000, 1000, 150_000, 1).keep_clear(zone);
                (
                    bitmines_gen::generate(&config).map_err(|e| e.to_string())?,
                    (500, 500),
                )
            };
            let mut table = stress::play::Table::new(
                Game::try_new(board.clone()).map_err(|e| e.to_string())?,
                false,
                false,
            );
            let progress = indicatif::ProgressBar::hidden();
            let interrupted = std::sync::atomic::AtomicBool::new(false);
            let mut visited = 0;
            measured(&mut || {
                let run = stress::tiles::play(
                    &mut table,
                    black_box(&board),
                    (1, Some(click)),
                    (stress::tiles::Shape::Bands, 1),
                    &progress,
                    &interrupted,
                )
                .expect("the truth player plays");
                visited = run.0;
            });
            format!(
                "{} cells touched, {visited} visited, {}",
                table.calls.touched(),
                table.game.status()
            )
        }
        "gen/no-guess/expert-x8" => {
            let mut mines = 0;
            measured(&mut || {
                for seed in 0..8 {
                    let request = NoGuess::new(16, 30, 99, seed)
                        .first_click(FirstClick::Opening, 3, 3)
                        .method(Method::Auto);
                    let board = no_guess(&request).expect("certified");
                    mines += black_box(board).board().mine_count();
                }
            });
            format!("{mines} mines placed")
        }
        "tiled/1000x1000/every-safe-cell-4-bands"
        | "tiled/1000x1000/every-safe-cell-16-squares" => {
            // The opening made, then every safe cell still hidden revealed, as one batch of a
            // game cut into four bands of 256 rows (the stress run's band) or sixteen squares
            // of 256x254 cells (the stress run's square), on one thread.
            let squares = case.ends_with("squares");
            let game = opened_game();
            let board = game.board().expect("placed").clone();
            let moves: Vec<TileMove> = (0..1000 * 1000)
                .map(|i| (i / 1000, i % 1000))
                .filter(|&(r, c)| !board.is_mine(r, c).expect("on board"))
                .map(|(r, c)| TileMove::Reveal(r, c))
                .collect();
            let cols = if squares { 254 } else { 1000 };
            let mut tiled = TiledGame::with_tiles(game, 256, cols).map_err(|e| e.to_string())?;
            let mut opened = 0;
            measured(&mut || {
                let batch = tiled.apply(1, black_box(&moves)).expect("a batch");
                opened = batch.opened + batch.handed_over;
            });
            format!("{opened} cells opened, {}", tiled.status())
        }
        "stats/bands/1000x1000" => {
            let game = opened_game();
            let board = game.board().expect("placed").clone();
            let mut bbbv = 0;
            measured(&mut || {
                let stats =
                    bitmines_core::Stats::of_bands(black_box(&board), 256, 1).expect("statistics");
                bbbv = stats.bbbv;
            });
            format!("3BV {bbbv}")
        }
        "play/expert-safest" => {
            let mut game = Game::deferred(16, 30, 99, FirstClick::Opening, SeededPlacer::new(2026))
                .map_err(|e| e.to_string())?;
            let mut status = String::new();
            measured(&mut || {
                game.reveal(8, 15).expect("first click");
                let outcome = Player::new(Policy::Safest).play(&mut game).expect("plays");
                status = format!("{} after {} guesses", game.status(), outcome.guesses.len());
            });
            status
        }
        _ => return Err(format!("no case named {case:?}; `icount list` names them")),
    };
    Ok(done)
}

/// The word-fill path this machine takes, as the baseline records it.
fn cpu_path() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("popcnt")
        {
            return "x86-64-v3";
        }
        "x86-64"
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::env::consts::ARCH
    }
}

/// Runs one case under callgrind and reads its instruction count.
fn count(exe: &Path, case: &str, dir: &Path) -> Result<u64, String> {
    let out = dir.join(format!("{}.out", case.replace('/', "_")));
    let status = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--collect-atstart=no")
        .arg("--toggle-collect=*icount::measured*")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(exe)
        .args(["run", case])
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .map_err(|e| format!("valgrind does not start: {e}"))?;
    if !status.status.success() {
        return Err(format!(
            "{case}: callgrind failed:\n{}",
            String::from_utf8_lossy(&status.stderr)
        ));
    }
    let text = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let total = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("totals: ")
                .or_else(|| l.strip_prefix("summary: "))
        })
        .and_then(|t| t.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| format!("{}: no totals line", out.display()))?;
    if total == 0 {
        return Err(format!("{case}: nothing was counted inside `measured`"));
    }
    Ok(total)
}

/// A baseline file: `# path: <cpu path>`, then `case<TAB>instructions` lines.
fn read_baseline(path: &Path) -> Result<(String, BTreeMap<String, u64>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut cpu = String::new();
    let mut counts = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(p) = line.strip_prefix("# path: ") {
            cpu = p.trim().to_string();
        } else if !line.starts_with('#') && !line.trim().is_empty() {
            let (case, n) = line
                .split_once('\t')
                .ok_or_else(|| format!("{}:{}: no tab", path.display(), i + 1))?;
            let n = n
                .trim()
                .parse()
                .map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
            counts.insert(case.to_string(), n);
        }
    }
    Ok((cpu, counts))
}

fn write_baseline(path: &Path, counts: &BTreeMap<String, u64>) -> Result<(), String> {
    let mut text = format!(
        "# Instructions of each case of examples/icount.rs under callgrind; `scripts/icount --update` writes this.\n# path: {}\n",
        cpu_path()
    );
    for name in case_names() {
        if let Some(n) = counts.get(&name) {
            let _ = writeln!(text, "{name}\t{n}");
        }
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The commit a history line is recorded for: the current commit, with `+` when the
/// working tree has changes (the update is then part of the commit that follows it).
fn commit_label() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let head = git(&["rev-parse", "--short=9", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    if dirty { format!("{head}+") } else { head }
}

fn check(args: &[String]) -> Result<bool, String> {
    let update = args.iter().any(|a| a == "--update");
    let filter = args
        .iter()
        .position(|a| a == "--cases")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_default();
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = std::env::temp_dir().join(format!("bitmines-icount-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let (cpu, mut baseline) = read_baseline(Path::new(BASELINE))
        .unwrap_or_else(|_| (cpu_path().to_string(), BTreeMap::new()));
    if !update && cpu != cpu_path() {
        return Err(format!(
            "the baseline was taken on the {cpu} word-fill path and this machine takes the {} path; \
             counts on different paths are not comparable (record a baseline here with --update)",
            cpu_path()
        ));
    }
    println!(
        "{:<46} {:>15} {:>15} {:>9}",
        "case", "baseline", "now", "change"
    );
    let mut ok = true;
    let mut changed = Vec::new();
    for case in case_names().into_iter().filter(|c| c.contains(&filter)) {
        let now = count(&exe, &case, &dir)?;
        let (was, change) = match baseline.get(&case) {
            Some(&was) => (
                was.to_string(),
                format!("{:+.2}%", 100.0 * (now as f64 / was as f64 - 1.0)),
            ),
            None => ("-".into(), "new".into()),
        };
        let moved_by = |fraction: f64| {
            baseline
                .get(&case)
                .is_none_or(|&was| (now as f64 / was as f64 - 1.0).abs() > fraction)
        };
        let moved = moved_by(THRESHOLD);
        let verdict = match (moved, update) {
            (false, _) => "",
            (true, true) => "  recorded",
            (true, false) => {
                ok = false;
                if baseline.get(&case).is_some_and(|&was| now < was) {
                    "  IMPROVED: record it with scripts/icount --update"
                } else {
                    "  REGRESSED"
                }
            }
        };
        println!("{case:<46} {was:>15} {now:>15} {change:>9}{verdict}");
        if update {
            // The baseline takes every count, so small moves do not add up unseen; the
            // history takes the moves larger than the allocator's noise.
            if moved_by(HISTORY_STEP) {
                changed.push((case.clone(), now));
            }
            baseline.insert(case, now);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    if update {
        write_baseline(Path::new(BASELINE), &baseline)?;
        let label = args
            .iter()
            .position(|a| a == "--commit")
            .and_then(|i| args.get(i + 1))
            .cloned()
            .unwrap_or_else(commit_label);
        let mut history = std::fs::read_to_string(HISTORY).unwrap_or_else(|_| {
            "# commit\tcase\tinstructions (one line per case at each baseline update; `+`: the commit that follows)\n".into()
        });
        for (case, n) in &changed {
            let _ = writeln!(history, "{label}\t{case}\t{n}");
        }
        std::fs::write(HISTORY, history).map_err(|e| format!("{HISTORY}: {e}"))?;
        plot(Path::new(HISTORY), Path::new(PICTURE))?;
        println!(
            "{BASELINE} rewritten; {} cases moved by more than {:.1}% and went into {HISTORY}; {PICTURE} redrawn",
            changed.len(),
            100.0 * HISTORY_STEP
        );
    }
    if !ok {
        println!(
            "\nA case moved by more than {:.1}% from {BASELINE}.",
            100.0 * THRESHOLD
        );
    }
    Ok(ok)
}

/// Draws the history as one small chart per case: instructions (relative to the case's
/// first record) at each update, in the order the updates were made.
fn plot(history: &Path, out: &Path) -> Result<(), String> {
    let text =
        std::fs::read_to_string(history).map_err(|e| format!("{}: {e}", history.display()))?;
    let mut commits: Vec<String> = Vec::new();
    let mut series: BTreeMap<String, Vec<(usize, u64)>> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut fields = line.split('\t');
        let (Some(commit), Some(case), Some(n)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let Ok(n) = n.trim().parse::<u64>() else {
            continue;
        };
        if commits.last().is_none_or(|c| c != commit) {
            commits.push(commit.to_string());
        }
        series
            .entry(case.to_string())
            .or_default()
            .push((commits.len() - 1, n));
    }
    let order: Vec<String> = case_names()
        .into_iter()
        .filter(|c| series.contains_key(c))
        .chain(series.keys().filter(|c| !case_names().contains(c)).cloned())
        .collect();
    let (w, h, cols) = (360.0, 150.0, 3usize);
    let rows = order.len().div_ceil(cols).max(1);
    let width = w * cols as f64;
    let height = h * rows as f64 + 40.0;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"11\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"10\" y=\"22\" font-size=\"15\">bitmines: instructions per case at each baseline update ({} updates, {} .. {})</text>\n",
        commits.len(),
        commits.first().map_or("", String::as_str),
        commits.last().map_or("", String::as_str),
    );
    let last = commits.len().saturating_sub(1).max(1) as f64;
    for (k, case) in order.iter().enumerate() {
        let points = &series[case];
        let (x0, y0) = ((k % cols) as f64 * w, 40.0 + (k / cols) as f64 * h);
        let (left, right, top, bottom) = (x0 + 50.0, x0 + w - 15.0, y0 + 22.0, y0 + h - 22.0);
        let hi = points.iter().map(|p| p.1).max().unwrap_or(1) as f64;
        let lo = 0.0;
        let x = |i: usize| left + (right - left) * i as f64 / last;
        let y = |n: u64| bottom - (bottom - top) * (n as f64 - lo) / (hi - lo).max(1.0);
        let (first, now) = (points[0].1, points[points.len() - 1].1);
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{case}</text>\n\
             <text x=\"{}\" y=\"{}\" fill=\"#555\">{} now; {:.2}x its first record</text>\n\
             <line x1=\"{left}\" y1=\"{bottom}\" x2=\"{right}\" y2=\"{bottom}\" stroke=\"#999\"/>\n\
             <line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{bottom}\" stroke=\"#999\"/>\n\
             <text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">{}</text>\n\
             <text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">0</text>",
            x0 + 8.0,
            y0 + 12.0,
            x0 + 8.0,
            bottom + 16.0,
            short(now),
            now as f64 / first as f64,
            left - 4.0,
            top + 4.0,
            short(hi as u64),
            left - 4.0,
            bottom,
        );
        let path: Vec<String> = points
            .iter()
            .map(|&(i, n)| format!("{:.1},{:.1}", x(i), y(n)))
            .collect();
        let _ = writeln!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"2\"/>",
            path.join(" ")
        );
        for &(i, n) in points {
            let _ = writeln!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#1f6feb\"><title>{}: {n}</title></circle>",
                x(i),
                y(n),
                commits[i]
            );
        }
    }
    svg.push_str("</svg>\n");
    std::fs::write(out, svg).map_err(|e| format!("{}: {e}", out.display()))
}

/// An instruction count with a metric suffix.
fn short(n: u64) -> String {
    let n = n as f64;
    if n >= 1e9 {
        format!("{:.2}G", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.2}M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.1}k", n / 1e3)
    } else {
        format!("{n}")
    }
}

/// Wall time per call of each reveal case on the word fill, the scalar fill and the naive
/// twin, interleaved in one process so the ratios share the machine's state.
fn time(filter: &str) -> Result<(), String> {
    println!(
        "{:<46} {:>9} {:>11} {:>11} {:>11} {:>8}",
        "case", "opened", "words ns/c", "scalar ns/c", "naive ns/c", "naive/w"
    );
    let cases = case_names().into_iter().chain(timed_only());
    for case in cases.filter(|c| c.contains(filter)) {
        let Some((board, mv)) = move_of(&case, Fill::Words) else {
            continue;
        };
        let (_, scalar) = move_of(&case, Fill::Scalar).expect("same case");
        let mut twin = naive::NaiveGame::from_board(&board);
        for r in 0..board.rows() {
            for c in 0..board.cols() {
                match mv.game.cell(r, c).expect("on board") {
                    Cell::Flagged => {
                        let _ = twin.toggle_flag(r, c);
                    }
                    Cell::Open(_) => {
                        let _ = twin.reveal(r, c);
                    }
                    _ => {}
                }
            }
        }
        let mut best = [f64::MAX; 3];
        let mut opened = 0;
        let reps = (4_000_000 / board.rows().saturating_mul(board.cols()).max(1)).clamp(3, 5_000);
        let (r, c) = mv.cell;
        for _ in 0..5 {
            // Each fill opens `reps` fresh copies in a row, timed together, so the clock's own
            // cost does not weigh on the small cases.
            let mut words: Vec<Move> = (0..reps)
                .map(|_| Move {
                    game: mv.game.clone(),
                    cell: mv.cell,
                    chord: mv.chord,
                })
                .collect();
            let start = Instant::now();
            for m in &mut words {
                opened = black_box(m.run());
            }
            let t0 = start.elapsed().as_secs_f64();
            drop(words);
            let mut scalars: Vec<Move> = (0..reps)
                .map(|_| Move {
                    game: scalar.game.clone(),
                    cell: mv.cell,
                    chord: mv.chord,
                })
                .collect();
            let start = Instant::now();
            for m in &mut scalars {
                assert_eq!(black_box(m.run()), opened, "{case}: the fills disagree");
            }
            let t1 = start.elapsed().as_secs_f64();
            drop(scalars);
            let mut twins: Vec<naive::NaiveGame> = (0..reps).map(|_| twin.clone()).collect();
            let start = Instant::now();
            for n in &mut twins {
                let got = if mv.chord {
                    n.chord(r, c)
                } else {
                    n.reveal(r, c)
                };
                assert_eq!(
                    got.ok().map(|g| g.0),
                    Some(opened),
                    "{case}: the naive twin disagrees"
                );
            }
            let t2 = start.elapsed().as_secs_f64();
            drop(twins);
            for (k, t) in [t0, t1, t2].into_iter().enumerate() {
                best[k] = best[k].min(t / reps as f64);
            }
        }
        let per = |s: f64| s * 1e9 / opened.max(1) as f64;
        println!(
            "{case:<46} {opened:>9} {:>11.3} {:>11.3} {:>11.3} {:>7.1}x",
            per(best[0]),
            per(best[1]),
            per(best[2]),
            best[2] / best[0]
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => match args.get(1) {
            Some(case) => run_case(case).map(|done| {
                eprintln!("{case}: {done}");
                true
            }),
            None => Err("usage: icount run <case>".into()),
        },
        Some("list") => {
            case_names().iter().for_each(|c| println!("{c}"));
            Ok(true)
        }
        Some("plot") => {
            let history = args.get(1).map_or(PathBuf::from(HISTORY), PathBuf::from);
            let out = args.get(2).map_or(PathBuf::from(PICTURE), PathBuf::from);
            plot(&history, &out).map(|()| {
                println!("{} written", out.display());
                true
            })
        }
        Some("time") => time(args.get(1).map_or("", String::as_str)).map(|()| true),
        Some("check") => check(&args[1..]),
        _ => Err("usage: icount check [--update] [--cases FILTER] | run CASE | list | plot [HISTORY [SVG]] | time [FILTER]".into()),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("icount: {e}");
            ExitCode::FAILURE
        }
    }
}
