//! Argument types shared by the subcommands.

use std::str::FromStr;

use anyhow::Context;
use bitmines_core::{FirstClick, Geometry};
use bitmines_gen::Config;

/// A cell given on the command line as `ROW,COL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CellArg {
    /// The row.
    pub(crate) row: usize,
    /// The column.
    pub(crate) col: usize,
}

impl FromStr for CellArg {
    type Err = String;

    fn from_str(text: &str) -> Result<CellArg, String> {
        let (row, col) = text
            .split_once(',')
            .ok_or_else(|| format!("expected ROW,COL, got {text:?}"))?;
        let number = |part: &str| {
            part.trim()
                .parse::<usize>()
                .map_err(|_| format!("expected ROW,COL with whole numbers, got {text:?}"))
        };
        Ok(CellArg {
            row: number(row)?,
            col: number(col)?,
        })
    }
}

/// Which cells around the first click are kept free of mines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum KeepClear {
    /// The first click and its eight neighbours, so the first click opens a region.
    Opening,
    /// The first click only.
    Safe,
    /// Nothing: the first click may be a mine.
    None,
}

impl From<KeepClear> for FirstClick {
    fn from(keep: KeepClear) -> FirstClick {
        match keep {
            KeepClear::Opening => FirstClick::Opening,
            KeepClear::Safe => FirstClick::Safe,
            KeepClear::None => FirstClick::Unprotected,
        }
    }
}

/// The classic boards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Preset {
    /// 9x9 with 10 mines.
    Beginner,
    /// 16x16 with 40 mines.
    Intermediate,
    /// 16x30 with 99 mines.
    Expert,
}

impl Preset {
    /// Rows, columns and mines.
    pub(crate) fn size(self) -> (usize, usize, usize) {
        match self {
            Preset::Beginner => (9, 9, 10),
            Preset::Intermediate => (16, 16, 40),
            Preset::Expert => (16, 30, 99),
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Preset::Beginner => "beginner",
            Preset::Intermediate => "intermediate",
            Preset::Expert => "expert",
        }
    }
}

/// What to generate, as given on the command line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BoardSpec {
    /// Rows of the board.
    pub(crate) rows: usize,
    /// Columns of the board.
    pub(crate) cols: usize,
    /// Exactly this many mines, if given.
    pub(crate) mines: Option<usize>,
    /// Otherwise this fraction of the cells.
    pub(crate) density: f64,
    /// The seed.
    pub(crate) seed: u64,
    /// The first click, if any, and what it keeps clear.
    pub(crate) first_click: Option<(CellArg, KeepClear)>,
}

impl BoardSpec {
    /// The generator config, with every value checked: the size, the mine count or density,
    /// and the first click on the board.
    pub(crate) fn config(&self) -> anyhow::Result<Config> {
        Geometry::new(self.rows, self.cols)?;
        let config = match self.mines {
            Some(mines) => Config::new(self.rows, self.cols, mines, self.seed),
            None => Config::with_density(self.rows, self.cols, self.density, self.seed)?,
        };
        let Some((cell, keep)) = self.first_click else {
            return Ok(config);
        };
        let zone = FirstClick::from(keep)
            .zone(self.rows, self.cols, cell.row, cell.col)
            .with_context(|| format!("--first-click {},{}", cell.row, cell.col))?;
        Ok(config.keep_clear(zone))
    }
}

/// A rayon pool of `threads` workers (0: one per core).
pub(crate) fn thread_pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .with_context(|| format!("cannot start {threads} threads"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_parse() {
        assert_eq!("3,4".parse(), Ok(CellArg { row: 3, col: 4 }));
        assert_eq!(" 3 , 4 ".parse(), Ok(CellArg { row: 3, col: 4 }));
        for bad in ["", "3", "3,", ",4", "-1,2", "a,b", "1,2,3", "1.5,2"] {
            assert!(bad.parse::<CellArg>().is_err(), "{bad:?} parsed");
        }
    }
}
