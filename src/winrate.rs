//! `bitmines winrate`: many seeded games played by the solver's player, in parallel, and the
//! win rate with its 95% confidence interval.
//!
//! The games run on a rayon pool; game `i` is seeded from the run's seed and `i`, so the result
//! is the same on any thread count. The interval is Wilson's score interval.

use std::time::Instant;

use anyhow::Context;
use bitmines_core::{FirstClick, Game, Geometry, SeededPlacer, Status};
use bitmines_solve::{Player, Policy};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;

use crate::cli::value_name;
use crate::cli::{
    BoardArgs, CellArg, JsonArg, KeepClear, Preset, SizeDefault, ThreadsArg, at_least_one,
    thread_pool,
};
use crate::system::{emit, ensure_memory, progress_bar};
use crate::text::count;

/// The guess policies, as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PolicyArg {
    /// The hidden cell least likely to be a mine.
    Safest,
    /// Among the equally safest, the one most likely to open a region.
    Tiebreak,
    /// One move ahead: the safest cells weighed by how safe the next move is after them.
    Lookahead,
    /// Look-ahead, with unavoidable 50/50s guessed first and dead cells (which can show
    /// only one number) guessed last.
    Unavoidable,
    /// All of the above, exact end-game play when at most 1,024 layouts of the mines
    /// remain, and long-term risk in the look-ahead: a cell likely to lie in a 50/50 no
    /// reveal could settle scores higher, over a wider set of candidates.
    Full,
}

impl From<PolicyArg> for Policy {
    fn from(policy: PolicyArg) -> Policy {
        match policy {
            PolicyArg::Safest => Policy::Safest,
            PolicyArg::Tiebreak => Policy::Tiebreak,
            PolicyArg::Lookahead => Policy::Lookahead,
            PolicyArg::Unavoidable => Policy::Unavoidable,
            PolicyArg::Full => Policy::Full,
        }
    }
}

/// The name and version of the `--json` report's shape.
pub(crate) const SCHEMA: &str = "bitmines-winrate/2";

/// Options of `bitmines winrate`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    board: BoardArgs,
    #[command(flatten)]
    threads: ThreadsArg,
    /// Games to play.
    #[arg(long, default_value_t = 10_000, value_parser = at_least_one::<u64>, allow_negative_numbers = true)]
    games: u64,
    /// The first click, ROW,COL, the same in every game (default: the centre of the board).
    #[arg(long, value_name = "ROW,COL", allow_hyphen_values = true)]
    first_click: Option<CellArg>,
    /// How the player guesses (default: the strongest).
    #[arg(long, value_enum, default_value_t = PolicyArg::Full)]
    policy: PolicyArg,
    #[command(flatten)]
    json: JsonArg,
}

/// What `winrate` reports.
#[derive(Debug, Serialize, PartialEq)]
pub(crate) struct Report {
    schema: &'static str,
    rows: usize,
    cols: usize,
    mines: usize,
    first_click: (usize, usize),
    first_click_rule: KeepClear,
    policy: PolicyArg,
    seed: u64,
    games: u64,
    wins: u64,
    win_rate: f64,
    /// The 95% Wilson score interval of the win rate.
    interval: (f64, f64),
    guesses_per_game: f64,
    threads: usize,
    seconds: f64,
    games_per_second_per_thread: f64,
}

/// The seed of game `index`: SplitMix64 of the run's seed and the index, so every game is
/// the same on any number of threads.
fn game_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The 95% Wilson score interval of `wins` out of `games`.
pub(crate) fn wilson(wins: u64, games: u64) -> (f64, f64) {
    if games == 0 {
        return (0.0, 1.0);
    }
    let (n, p, z) = (
        games as f64,
        wins as f64 / games as f64,
        1.959_963_984_540_054,
    );
    let centre = p + z * z / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    let scale = 1.0 + z * z / n;
    ((centre - spread) / scale, (centre + spread) / scale)
}

/// Reveals the first click, unless the game is won before it (a board with no safe cell),
/// which `stress` and `demo` count as a win too.
fn first_click(game: &mut Game, (row, col): (usize, usize)) -> Result<(), bitmines_core::Error> {
    if game.status() == Status::Playing {
        game.reveal(row, col)?;
    }
    Ok(())
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let chosen = args.board.choose(SizeDefault::Preset(Preset::Expert))?;
    let (rows, cols, mines, seed) = (chosen.rows, chosen.cols, chosen.mines, chosen.seed);
    let policy = FirstClick::from(chosen.first_click_rule);
    let click = args
        .first_click
        .map_or((rows / 2, cols / 2), |cell| (cell.row, cell.col));
    let pool = thread_pool(args.threads.threads)?;
    let threads = pool.current_num_threads();
    // Each thread holds a game's planes and the solver's seven at once.
    let geometry = Geometry::new(rows, cols)?;
    ensure_memory(geometry.plane_bytes() as u64 * 12 * threads as u64, || {
        format!("a {rows}x{cols} game on each of {threads} threads")
    })?;
    // Every argument is checked by a game built from it before any work starts.
    let mut probe = Game::deferred(rows, cols, mines, policy, SeededPlacer::new(seed))?;
    first_click(&mut probe, click)
        .with_context(|| format!("--first-click {},{}", click.0, click.1))?;
    let player = Player::new(args.policy.into());
    let bar = progress(args.games);
    let start = Instant::now();
    let results: Vec<anyhow::Result<(bool, usize)>> = pool.install(|| {
        (0..args.games)
            .into_par_iter()
            .map(|i| {
                let seed = game_seed(seed, i);
                let mut game = Game::deferred(rows, cols, mines, policy, SeededPlacer::new(seed))?;
                first_click(&mut game, click)?;
                let outcome = player.play(&mut game)?;
                bar.inc(1);
                Ok((outcome.won, outcome.guesses.len()))
            })
            .collect()
    });
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let (mut wins, mut guesses) = (0u64, 0usize);
    for result in results {
        let (won, g) = result?;
        wins += u64::from(won);
        guesses += g;
    }
    let report = Report {
        schema: SCHEMA,
        rows,
        cols,
        mines,
        first_click: click,
        first_click_rule: chosen.first_click_rule,
        policy: args.policy,
        seed,
        games: args.games,
        wins,
        win_rate: wins as f64 / args.games as f64,
        interval: wilson(wins, args.games),
        guesses_per_game: guesses as f64 / args.games as f64,
        threads,
        seconds,
        games_per_second_per_thread: args.games as f64 / seconds / threads as f64,
    };
    if args.json.json {
        emit(serde_json::to_string(&report)? + "\n")
    } else {
        emit(text(&report))
    }
}

fn text(r: &Report) -> String {
    format!(
        "{}x{} board, {}, first click ({}, {}), {} first-click rule, {} policy; seed {}\n\
         {} in {}: {:.2}% (95% interval {:.2}% to {:.2}%)\n\
         {:.2} guesses a game; {:.1} s on {}, {} a second a thread\n",
        r.rows,
        r.cols,
        count(r.mines, "mine"),
        r.first_click.0,
        r.first_click.1,
        value_name(&r.first_click_rule),
        value_name(&r.policy),
        r.seed,
        count(r.wins, "win"),
        count(r.games, "game"),
        100.0 * r.win_rate,
        100.0 * r.interval.0,
        100.0 * r.interval.1,
        r.guesses_per_game,
        r.seconds,
        count(r.threads, "thread"),
        count(r.games_per_second_per_thread.round() as u64, "game"),
    )
}

/// A bar of games played on a terminal; nothing for pipes and files.
fn progress(games: u64) -> ProgressBar {
    let style = ProgressStyle::with_template(
        "{elapsed_precise} [{bar:30}] {human_pos}/{human_len} games, {per_sec}, ETA {eta}",
    );
    progress_bar(Some(games), style, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_intervals_match_known_values() {
        let (lo, hi) = wilson(50, 100);
        assert!(
            (lo - 0.4038).abs() < 1e-4 && (hi - 0.5962).abs() < 1e-4,
            "{lo} {hi}"
        );
        let (lo, hi) = wilson(0, 10);
        assert!(lo.abs() < 1e-12 && (hi - 0.2775).abs() < 1e-4, "{lo} {hi}");
    }

    #[test]
    fn game_seeds_differ_by_index_and_seed() {
        assert_ne!(game_seed(1, 0), game_seed(1, 1));
        assert_ne!(game_seed(1, 0), game_seed(2, 0));
    }
}
