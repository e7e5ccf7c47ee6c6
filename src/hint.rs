//! `bitmines hint`: what a player can know about a position, with reasons and probabilities.
//!
//! The solver on a view, game or board file, as text or JSON.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use bitmines_core::{Game, View};
use bitmines_solve::{Mode, Reason, Solver};
use serde::Serialize;

use crate::cli::{JsonArg, whole};
use crate::files::{Format, Loaded, read};
use crate::system::emit;
use crate::text::{count, count_as, layouts, thousands};

/// The name and version of the `--json` report's shape.
pub(crate) const SCHEMA: &str = "bitmines-hint/1";

/// Options of `bitmines hint`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// A player's view in text (`bitmines view ROWSxCOLS mines N`, then `#` hidden, `F`
    /// flag, `0`-`8` revealed), a game (text or saved), or a board (nothing revealed).
    file: PathBuf,
    /// The file's format (default: recognised from its first bytes).
    #[arg(long, value_enum)]
    format: Option<Format>,
    #[command(flatten)]
    json: JsonArg,
    /// List at most this many cells of each kind (0: all).
    #[arg(long, default_value_t = 100, value_parser = whole::<usize>, allow_negative_numbers = true)]
    limit: usize,
}

/// One proven cell.
#[derive(Serialize)]
struct Proven {
    row: usize,
    col: usize,
    /// The tier that proved it.
    tier: String,
    /// Why, in words.
    reason: String,
}

/// One frontier cell and its mine probability.
#[derive(Serialize)]
struct Odds {
    row: usize,
    col: usize,
    mine: f64,
}

/// Everything `hint` reports.
#[derive(Serialize)]
struct Report {
    schema: &'static str,
    rows: usize,
    cols: usize,
    mines: usize,
    revealed: usize,
    /// Whether every certain cell was found (no component past the budget, exact weighing).
    complete: bool,
    safe_count: usize,
    mine_count: usize,
    safe: Vec<Proven>,
    proven_mines: Vec<Proven>,
    wrong_flags: Vec<(usize, usize)>,
    /// `exact` or `density`.
    mode: &'static str,
    exact: bool,
    off_frontier: f64,
    off_frontier_cells: usize,
    log10_layouts: Option<f64>,
    frontier_count: usize,
    frontier: Vec<Odds>,
    /// When nothing is proven safe: the first unavoidable 50/50, two cells no number can
    /// ever tell apart (one of them must be guessed some time; now costs nothing more).
    fifty_fifty: Option<[(usize, usize); 2]>,
    /// Whether a list was cut at `--limit`.
    truncated: bool,
}

/// Reads the position and reports.
pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let loaded = read(&args.file, args.format)?;
    let report = match &loaded {
        Loaded::View(position) => report(&position.view(), args.limit),
        Loaded::Game(game) => report(&game.view(), args.limit),
        Loaded::Board(board, ..) => report(&Game::new(board.clone()).view(), args.limit),
    }
    .with_context(|| format!("cannot solve {}", args.file.display()))?;
    if args.json.json {
        emit(serde_json::to_string(&report)? + "\n")
    } else {
        emit(text(&report))
    }
}

fn report(view: &View<'_>, limit: usize) -> anyhow::Result<Report> {
    let solution = Solver::new(view)?.solve()?;
    let (certain, odds) = (&solution.certain, &solution.probabilities);
    let cap = if limit == 0 { usize::MAX } else { limit };
    let proven =
        |cells: &mut dyn Iterator<Item = (usize, usize)>| -> anyhow::Result<(usize, Vec<Proven>)> {
            let mut listed = Vec::new();
            let mut count = 0;
            for (row, col) in cells {
                count += 1;
                if listed.len() < cap {
                    let reason = certain.reason(row, col);
                    listed.push(Proven {
                        row,
                        col,
                        tier: reason.as_ref().map_or("unknown".into(), |r| {
                            format!("{:?}", r.tier()).to_lowercase()
                        }),
                        reason: reason.as_ref().map_or_else(String::new, Reason::to_string),
                    });
                }
            }
            Ok((count, listed))
        };
    let (safe_count, safe) = proven(&mut certain.safe())?;
    let (mine_count, proven_mines) = proven(&mut certain.mines())?;
    let frontier_all: Vec<Odds> = odds
        .frontier()
        .map(|((row, col), mine)| Odds { row, col, mine })
        .collect();
    let frontier_count = frontier_all.len();
    let frontier: Vec<Odds> = frontier_all.into_iter().take(cap).collect();
    let wrong_flags = certain.wrong_flags(view)?;
    let fifty_fifty = if safe_count == 0 {
        bitmines_solve::fifty_fifty(view)?
    } else {
        None
    };
    Ok(Report {
        schema: SCHEMA,
        rows: view.rows(),
        cols: view.cols(),
        mines: view.mine_count(),
        revealed: view.revealed_count(),
        complete: certain.complete(),
        truncated: safe.len() < safe_count
            || proven_mines.len() < mine_count
            || frontier.len() < frontier_count,
        safe_count,
        mine_count,
        safe,
        proven_mines,
        wrong_flags,
        mode: match odds.mode() {
            Mode::Exact => "exact",
            _ => "density",
        },
        exact: odds.exact(),
        off_frontier: odds.off_frontier(),
        off_frontier_cells: odds.off_frontier_cells(),
        log10_layouts: odds.log10_layouts(),
        frontier_count,
        frontier,
        fifty_fifty,
    })
}

fn text(r: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}x{} board, {}, {} revealed",
        r.rows,
        r.cols,
        count(r.mines, "mine"),
        count(r.revealed, "cell")
    );
    let _ = writeln!(
        out,
        "certain: {} safe, {}{}",
        thousands(r.safe_count),
        count(r.mine_count, "mine"),
        if r.complete {
            ""
        } else {
            " (not every certain cell was looked for: see the probabilities' mode)"
        }
    );
    for (kind, cells) in [("safe", &r.safe), ("mine", &r.proven_mines)] {
        for p in cells {
            let _ = writeln!(out, "  ({}, {}) {kind}: {}", p.row, p.col, p.reason);
        }
    }
    for (row, col) in &r.wrong_flags {
        let _ = writeln!(out, "  ({row}, {col}) is flagged but proven safe");
    }
    let layouts = r
        .log10_layouts
        .map_or(String::new(), |l| format!(", {}", layouts(l)));
    let _ = write!(
        out,
        "probabilities ({}{}): {} next to numbers",
        if r.exact { "exact" } else { r.mode },
        layouts,
        count_as(r.frontier_count, "undecided cell", "undecided cells"),
    );
    let _ = if r.off_frontier_cells > 0 {
        writeln!(
            out,
            "; the {} others {:.4} each",
            r.off_frontier_cells, r.off_frontier
        )
    } else {
        writeln!(out)
    };
    for o in &r.frontier {
        let _ = writeln!(out, "  ({}, {}) {:.4}", o.row, o.col, o.mine);
    }
    if let Some([(r0, c0), (r1, c1)]) = r.fifty_fifty {
        let _ = writeln!(
            out,
            "unavoidable 50/50: ({r0}, {c0}) and ({r1}, {c1}); no number can ever tell them apart, so guessing one now loses nothing"
        );
    }
    if r.truncated {
        let _ = writeln!(out, "(lists cut at --limit; --limit 0 lists all)");
    }
    out
}
