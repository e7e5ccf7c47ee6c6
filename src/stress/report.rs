//! The report of a stress run, as text for people and as JSON for scripts.
//!
//! `Display` for people and `Serialize` for `--json`.

use std::fmt;

use serde::Serialize;

use crate::text::{count, thousands};

use super::deduce::Deduction;
use super::play::{Calls, PlayerKind};
use crate::cli::KeepClear;
use crate::system::human_bytes;

/// Bumped when a field of the JSON report changes meaning or disappears.
pub(crate) const SCHEMA: &str = "bitmines-stress/2";

/// How the run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum End {
    /// The game was won.
    Won,
    /// The game was lost.
    Lost,
    /// Ctrl-C stopped the run before the game ended.
    Interrupted,
    /// The engines disagreed, or an invariant failed.
    Failed,
}

/// Everything a stress run measured and checked.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Report {
    /// The version of this report's shape.
    pub(crate) schema: &'static str,
    /// How the run ended.
    pub(crate) end: End,
    /// The board that was played.
    pub(crate) board: BoardInfo,
    /// The saved game this run continued, if any.
    pub(crate) resumed_from: Option<String>,
    /// Worker threads used for generation, the truth player's play and the statistics.
    pub(crate) threads: usize,
    /// Who played.
    pub(crate) player: PlayerKind,
    /// What the solver player deduced and guessed (solver player only).
    pub(crate) solver: Option<Deduction>,
    /// Generating the board.
    pub(crate) generation: Generation,
    /// Calls made, by kind.
    pub(crate) calls: Calls,
    /// Playing the game.
    pub(crate) play: Play,
    /// Openings, islands and 3BV of the board (left out of interrupted runs).
    pub(crate) stats: Option<BoardStats>,
    /// Memory used.
    pub(crate) memory: Memory,
    /// The invariant checks.
    pub(crate) checks: Checks,
    /// Where the picture was written, if one was asked for.
    pub(crate) png: Option<String>,
    /// Where the game was saved at the end, if asked.
    pub(crate) saved: Option<String>,
    /// Checkpoints saved during play (`--save-every`).
    pub(crate) checkpoints: u64,
}

/// The board of a stress run.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BoardInfo {
    /// Rows.
    pub(crate) rows: usize,
    /// Columns.
    pub(crate) cols: usize,
    /// Rows times columns.
    pub(crate) cells: u64,
    /// Mines on the board.
    pub(crate) mines: usize,
    /// Mines per cell.
    pub(crate) density: f64,
    /// The seed of the board and of the player.
    pub(crate) seed: u64,
    /// The player's first click (none for a resumed game that had one already).
    pub(crate) first_click: Option<[usize; 2]>,
    /// What the generator kept clear around it, the first-click rule (unknown for a
    /// resumed game).
    pub(crate) first_click_rule: Option<KeepClear>,
    /// Whether the board was generated no-guess, certified by the solver.
    pub(crate) no_guess: bool,
}

/// Time to generate the board (or to read the saved game).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Generation {
    /// Wall-clock seconds.
    pub(crate) seconds: f64,
    /// Nanoseconds per board cell.
    pub(crate) ns_per_cell: f64,
}

/// Play time.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Play {
    /// Wall-clock seconds for the whole game, the player's own work included.
    pub(crate) seconds: f64,
    /// Cells the calls changed: opened, flagged or unflagged.
    pub(crate) touched_cells: u64,
    /// Nanoseconds per touched cell over the whole game.
    pub(crate) ns_per_touched_cell: f64,
    /// Safe cells on the board.
    pub(crate) safe_cells: u64,
    /// Safe cells revealed when the game ended.
    pub(crate) revealed: u64,
    /// Walk steps taken (cells the player visited).
    pub(crate) visited: u64,
    /// How play went in tiles on the threads, when the truth player played so.
    pub(crate) tiles: Option<super::tiles::Tiles>,
}

/// Board statistics.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BoardStats {
    /// Zero regions.
    pub(crate) openings: usize,
    /// Numbered cells not next to any zero cell.
    pub(crate) islands: usize,
    /// The fewest clicks that clear the board.
    pub(crate) bbbv: usize,
    /// Seconds to compute all three.
    pub(crate) seconds: f64,
}

/// Memory used by the run.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Memory {
    /// The process's peak resident memory, where the system reports it.
    pub(crate) peak_rss_bytes: Option<u64>,
    /// Peak resident bytes per board cell.
    pub(crate) peak_bytes_per_cell: Option<f64>,
    /// Heap bytes of the board and the game under test.
    pub(crate) engine_bytes: u64,
    /// Engine heap bytes per board cell.
    pub(crate) engine_bytes_per_cell: f64,
}

/// Invariant checks at the end of the run.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Checks {
    /// `Game::validate()`: `ok`, or the error it returned.
    pub(crate) validate: String,
    /// The game's final status.
    pub(crate) status: String,
    /// The calls opened every cell they revealed exactly once (their opened counts add up to
    /// the cells revealed during the run), and, for a won game, every safe cell is revealed.
    pub(crate) revealed_once: bool,
    /// The scalar fill: `agrees`, `skipped`, or the first disagreement.
    pub(crate) scalar: String,
    /// The naive twin: `agrees`, `skipped`, or the first disagreement.
    pub(crate) naive: String,
    /// On a no-guess board played by the solver: `no guess needed`, or how many guesses it
    /// took; `skipped` otherwise.
    pub(crate) no_guess: String,
}

impl Checks {
    /// Whether every check passed.
    pub(crate) fn passed(&self) -> bool {
        self.validate == "ok"
            && self.revealed_once
            && matches!(self.scalar.as_str(), "agrees" | "skipped")
            && matches!(self.naive.as_str(), "agrees" | "skipped")
            && matches!(self.no_guess.as_str(), "no guess needed" | "skipped")
    }
}

/// Nanoseconds per item for `count` items in `seconds`; 0 when there are none.
pub(crate) fn ns_per(seconds: f64, count: u64) -> f64 {
    match count {
        0 => 0.0,
        _ => seconds * 1e9 / count as f64,
    }
}

/// The name a value has in the JSON report (`"truth"`, `"opening"`).
fn name(value: impl Serialize) -> Result<String, fmt::Error> {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => Ok(name),
        _ => Err(fmt::Error),
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.board;
        let c = &self.calls;
        let p = &self.play;
        let end = match self.end {
            End::Won => "won",
            End::Lost => "lost",
            End::Interrupted => "interrupted (partial report)",
            End::Failed => "FAILED",
        };
        writeln!(f, "bitmines stress: {end}")?;
        writeln!(
            f,
            "board       {} x {} = {}, {} (density {:.4}), seed {}",
            b.rows,
            b.cols,
            count(b.cells, "cell"),
            count(b.mines, "mine"),
            b.density,
            b.seed
        )?;
        if let Some([row, col]) = b.first_click {
            let keep = b.first_click_rule.map_or(Ok("?".to_owned()), name)?;
            writeln!(f, "first click ({row}, {col}), {keep} first-click rule")?;
        }
        if b.no_guess {
            writeln!(
                f,
                "no-guess    certified: the solver clears it from the first click"
            )?;
        }
        if let Some(path) = &self.resumed_from {
            writeln!(f, "resumed     from {path}")?;
        }
        writeln!(
            f,
            "{}  {:.3} s on {}, {:.3} ns/cell",
            if self.resumed_from.is_some() {
                "reading   "
            } else {
                "generation"
            },
            self.generation.seconds,
            count(self.threads, "thread"),
            self.generation.ns_per_cell
        )?;
        writeln!(
            f,
            "play        {} player, {:.3} s, {} of {} cells visited, {} of {} safe cells revealed",
            serde_json::to_value(self.player)
                .map_err(|_| fmt::Error)?
                .as_str()
                .unwrap_or("?"),
            p.seconds,
            thousands(p.visited),
            thousands(b.cells),
            thousands(p.revealed),
            thousands(p.safe_cells)
        )?;
        writeln!(
            f,
            "            {:.2} ns per touched cell ({} touched)",
            p.ns_per_touched_cell,
            thousands(p.touched_cells)
        )?;
        if let Some(t) = &p.tiles {
            let turns: Vec<String> = t.threads.iter().map(|s| thousands(s.turns)).collect();
            let busy: Vec<String> = t
                .threads
                .iter()
                .map(|s| format!("{:.3}", s.busy_seconds))
                .collect();
            let shape = match t.shape {
                super::tiles::Shape::Bands => format!("bands of {} rows", t.band),
                super::tiles::Shape::Squares => {
                    format!("squares of {}x{} cells", t.band, t.tile_cols)
                }
            };
            writeln!(
                f,
                "            {} {shape}; tile turns by thread {}, busy {} s; {} of exchange, {} cells handed over",
                t.tiles,
                turns.join(" + "),
                busy.join(" + "),
                count(t.rounds, "round"),
                thousands(t.handed_over)
            )?;
        }
        writeln!(
            f,
            "calls       {} reveal, {} flag, {} unflag, {} chord; {} cells opened, largest opening {}",
            thousands(c.reveal),
            thousands(c.flag),
            thousands(c.unflag),
            thousands(c.chord),
            thousands(c.opened),
            thousands(c.largest_opening)
        )?;
        if let Some(d) = &self.solver {
            let total = d.proven.total().max(1) as f64;
            let share = |n: u64| 100.0 * n as f64 / total;
            writeln!(
                f,
                "solver      {} cells deduced in {} moves ({:.0} cells/s), {} stalls",
                thousands(d.deduced),
                thousands(d.moves),
                d.deduced_per_second,
                thousands(d.stalls)
            )?;
            writeln!(
                f,
                "            {} guesses: {} assisted (a mine, flagged by the assistant), {} lucky; {:.1} mines expected; {} off the frontier",
                thousands(d.guesses),
                thousands(d.assisted),
                thousands(d.lucky),
                d.expected_assisted,
                thousands(d.off_frontier)
            )?;
            writeln!(
                f,
                "            proven by tier: trivial {:.2}%, pair {:.2}%, component {:.2}%, global {:.2}% of {} cells",
                share(d.proven.trivial),
                share(d.proven.pair),
                share(d.proven.component),
                share(d.proven.global),
                thousands(d.proven.total())
            )?;
            writeln!(
                f,
                "            solver planes {} ({:.3} B/cell); largest frontier {} cells",
                human_bytes(d.solver_bytes),
                d.solver_bytes_per_cell,
                thousands(d.largest_frontier)
            )?;
            writeln!(
                f,
                "            exact tier at most {} at one stall, for {} frontier cells ({:.0} B per frontier cell)",
                human_bytes(d.exact_bytes),
                thousands(d.exact_cells),
                d.exact_bytes as f64 / d.exact_cells.max(1) as f64
            )?;
        }
        if let Some(s) = &self.stats {
            writeln!(
                f,
                "board stats {}, {}, 3BV {} ({:.3} s)",
                count(s.openings, "opening"),
                count(s.islands, "island"),
                thousands(s.bbbv),
                s.seconds
            )?;
        }
        let m = &self.memory;
        let peak = match (m.peak_rss_bytes, m.peak_bytes_per_cell) {
            (Some(bytes), Some(per_cell)) => {
                format!("peak {} ({per_cell:.2} B/cell)", human_bytes(bytes))
            }
            _ => "peak unknown".to_owned(),
        };
        writeln!(
            f,
            "memory      {peak}; board + game {} ({:.3} B/cell)",
            human_bytes(m.engine_bytes),
            m.engine_bytes_per_cell
        )?;
        let k = &self.checks;
        writeln!(
            f,
            "checks      validate: {}; status: {}; each revealed cell opened once{}: {}",
            k.validate,
            k.status,
            if self.end == End::Won {
                ", all safe cells revealed"
            } else {
                ""
            },
            if k.revealed_once { "yes" } else { "NO" }
        )?;
        writeln!(
            f,
            "            scalar fill: {}; naive twin: {}",
            k.scalar, k.naive
        )?;
        if b.no_guess {
            writeln!(f, "            no-guess board: {}", k.no_guess)?;
        }
        if let Some(path) = &self.png {
            writeln!(f, "picture     {path}")?;
        }
        if let Some(path) = &self.saved {
            writeln!(
                f,
                "saved       {path} ({} during play)",
                count(self.checkpoints, "checkpoint")
            )?;
        }
        Ok(())
    }
}
