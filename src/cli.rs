//! Argument types shared by the subcommands.
//!
//! The options every subcommand shares are flattened into each: `BoardArgs` (`--preset`,
//! `--rows`, `--cols`, `--mines`, `--density`, `--seed`, `--first-click-rule` with the old
//! `--keep-clear` and `--rule` as hidden aliases) resolved by one rule (`BoardArgs::choose`
//! with the subcommand's `SizeDefault`: a preset's size and mines, a custom size keeping its
//! density, a missing seed from the clock); `ThreadsArg` (at most eight threads a core,
//! checked in `check_threads`; 0 is one per core everywhere); `JsonArg` (its help is given
//! each subcommand's schema name in `main.rs`); and the number parsers (`whole`,
//! `at_least_one`, `threads`, `number`, `non_negative`, `positive`, `fraction`) whose one
//! phrase `main` prints after the option and the value (`--seed -1: must be 0 or more`).
//! `refused` gives a range checked later the same form.

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
        // The option and the value are printed before this phrase, as for every value.
        let (row, col) = text
            .split_once(',')
            .ok_or_else(|| "not ROW,COL".to_owned())?;
        let number = |part: &str| {
            whole::<usize>(part)
                .map_err(|_| "not ROW,COL with whole numbers of 0 or more".to_owned())
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

/// A value as the command line names it (`opening`, `lookahead`), for reports.
pub(crate) fn value_name(value: &impl clap::ValueEnum) -> String {
    value
        .to_possible_value()
        .map_or_else(String::new, |value| value.get_name().to_owned())
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

/// A whole number given on the command line, 0 or more. What is wrong with a bad one is one
/// phrase, which `main` prints after the option and the value (`--seed -1: must be 0 or
/// more`), the same for every numeric option of every subcommand.
pub(crate) fn whole<T: FromStr>(text: &str) -> Result<T, String> {
    whole_or(text, "must be 0 or more")
}

/// A whole number, with `negative` as the phrase for a value below 0.
fn whole_or<T: FromStr>(text: &str, negative: &str) -> Result<T, String> {
    let text = text.trim();
    if let Some(rest) = text.strip_prefix('-')
        && !rest.is_empty()
        && rest.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(negative.into());
    }
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err("not a whole number".into());
    }
    text.parse().map_err(|_| "is too large".into())
}

/// A whole number of at least 1.
pub(crate) fn at_least_one<T: FromStr + PartialEq + Default>(text: &str) -> Result<T, String> {
    match whole_or::<T>(text, "must be 1 or more")? {
        zero if zero == T::default() => Err("must be 1 or more".into()),
        n => Ok(n),
    }
}

/// A thread count: 0 for one per core, the one meaning of 0 wherever `--threads` is taken.
pub(crate) fn threads(text: &str) -> Result<usize, String> {
    whole_or(text, "must be 0 (one per core) or more")
}

/// A finite decimal number; the subcommand checks its range and reports it in the same form
/// as the parsers above.
pub(crate) fn number(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(value),
        _ => Err("not a number".into()),
    }
}

/// A decimal number of 0 or more.
pub(crate) fn non_negative(text: &str) -> Result<f64, String> {
    match number(text)? {
        value if value < 0.0 => Err("must be 0 or more".into()),
        value => Ok(value),
    }
}

/// A decimal number above 0.
pub(crate) fn positive(text: &str) -> Result<f64, String> {
    match number(text)? {
        value if value <= 0.0 => Err("must be above 0".into()),
        value => Ok(value),
    }
}

/// A fraction from 0 to 1.
pub(crate) fn fraction(text: &str) -> Result<f64, String> {
    match number(text)? {
        value if !(0.0..=1.0).contains(&value) => Err("must be 0 to 1".into()),
        value => Ok(value),
    }
}

/// The one form of a command-line value refused after parsing, the same as `main` prints for
/// one refused while parsing: the option, the value, and what is wrong.
pub(crate) fn refused(option: &str, value: impl std::fmt::Display, reason: &str) -> anyhow::Error {
    anyhow::anyhow!("--{option} {value}: {reason}")
}

/// The board, the seed and the first-click rule, named the same way in every subcommand
/// that makes a board (`gen`, `stress`, `winrate`, `play`, `demo`). Each subcommand gives
/// its own default size ([`SizeDefault`]); everything else follows one rule.
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct BoardArgs {
    /// The board: beginner (9x9, 10 mines), intermediate (16x16, 40) or expert (16x30, 99).
    /// --rows, --cols, --mines and --density change one part of it and keep the rest.
    #[arg(long, value_enum)]
    pub(crate) preset: Option<Preset>,
    /// Rows of the board, in place of the preset's.
    #[arg(long, value_parser = whole::<usize>, allow_negative_numbers = true)]
    pub(crate) rows: Option<usize>,
    /// Columns of the board, in place of the preset's.
    #[arg(long, value_parser = whole::<usize>, allow_negative_numbers = true)]
    pub(crate) cols: Option<usize>,
    /// Exactly this many mines (default: the preset's, or its density on another size).
    #[arg(long, value_parser = whole::<usize>, allow_negative_numbers = true, conflicts_with = "density")]
    pub(crate) mines: Option<usize>,
    /// Mines as a fraction of the cells, rounded to the nearest mine.
    #[arg(long, value_parser = fraction, allow_negative_numbers = true)]
    pub(crate) density: Option<f64>,
    /// Seed of the board (default: one from the clock). The seed used is always printed, so
    /// any run can be made again with --seed.
    #[arg(long, value_parser = whole::<u64>, allow_negative_numbers = true)]
    pub(crate) seed: Option<u64>,
    /// What the first click keeps free of mines: the cell and its neighbours (opening, so it
    /// opens a region), the cell alone (safe), or nothing (none).
    #[arg(
        long,
        value_enum,
        value_name = "RULE",
        alias = "keep-clear",
        alias = "rule"
    )]
    pub(crate) first_click_rule: Option<KeepClear>,
}

/// The size a subcommand plays when no option names one.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SizeDefault {
    /// A preset.
    Preset(Preset),
    /// A size with a density of mines.
    Size {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
        /// Mines as a fraction of the cells.
        density: f64,
    },
}

/// The board the options choose, every default filled in.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chosen {
    /// The preset's name when the board is exactly a preset, `custom` otherwise.
    pub(crate) name: &'static str,
    /// Rows.
    pub(crate) rows: usize,
    /// Columns.
    pub(crate) cols: usize,
    /// Mines.
    pub(crate) mines: usize,
    /// The seed, given or drawn from the clock.
    pub(crate) seed: u64,
    /// What the first click keeps clear.
    pub(crate) first_click_rule: KeepClear,
}

impl BoardArgs {
    /// The board these options choose on a subcommand whose default is `default`: a preset
    /// gives its size and mines, --rows and --cols replace its size (keeping its density
    /// unless --mines or --density says otherwise), and a missing seed comes from the clock.
    pub(crate) fn choose(&self, default: SizeDefault) -> anyhow::Result<Chosen> {
        let (base_rows, base_cols, base_mines, base_density, base_name) =
            match (self.preset, default) {
                (Some(preset), _) | (None, SizeDefault::Preset(preset)) => {
                    let (rows, cols, mines) = preset.size();
                    let density = mines as f64 / (rows * cols) as f64;
                    (rows, cols, Some(mines), density, preset.name())
                }
                (
                    None,
                    SizeDefault::Size {
                        rows,
                        cols,
                        density,
                    },
                ) => (rows, cols, None, density, "custom"),
            };
        let rows = self.rows.unwrap_or(base_rows);
        let cols = self.cols.unwrap_or(base_cols);
        Geometry::new(rows, cols)?;
        let seed = self.seed.unwrap_or_else(clock_seed);
        let same_size = (rows, cols) == (base_rows, base_cols);
        let density = |density| -> anyhow::Result<usize> {
            Ok(Config::with_density(rows, cols, density, seed)?.mines)
        };
        let mines = match (self.mines, self.density, base_mines) {
            (Some(mines), _, _) => mines,
            (None, Some(fraction), _) => density(fraction)?,
            (None, None, Some(mines)) if same_size => mines,
            (None, None, _) => density(base_density)?,
        };
        let custom = self.rows.is_some()
            || self.cols.is_some()
            || self.mines.is_some()
            || self.density.is_some();
        Ok(Chosen {
            name: if custom { "custom" } else { base_name },
            rows,
            cols,
            mines,
            seed,
            first_click_rule: self.first_click_rule.unwrap_or(KeepClear::Opening),
        })
    }
}

/// A seed from the clock, for runs given none.
pub(crate) fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as u64);
    // Two runs started in the same nanosecond by different processes still differ.
    nanos ^ u64::from(std::process::id()).rotate_left(32)
}

/// `--threads`, named and checked the same way in every subcommand that takes it.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub(crate) struct ThreadsArg {
    /// Worker threads (0: one per core; at most 8 per core).
    #[arg(long, default_value_t = 0, value_parser = threads, allow_negative_numbers = true)]
    pub(crate) threads: usize,
}

/// Threads allowed for each core: more only adds switching, and thousands take seconds to
/// start.
const THREADS_PER_CORE: usize = 8;

/// The most threads a run may ask for on this machine.
pub(crate) fn max_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from) * THREADS_PER_CORE
}

/// Refuses a `--threads` above [`max_threads`], in the one form of a refused value.
pub(crate) fn check_threads(threads: usize) -> anyhow::Result<()> {
    let max = max_threads();
    if threads > max {
        return Err(refused(
            "threads",
            threads,
            &format!(
                "must be at most {max} ({THREADS_PER_CORE} for each of this machine's {} cores)",
                max / THREADS_PER_CORE
            ),
        ));
    }
    Ok(())
}

/// A rayon pool of `threads` workers (0: one per core), refusing more than
/// [`max_threads`] with a message that says why.
pub(crate) fn thread_pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    check_threads(threads)?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .with_context(|| format!("cannot start {threads} threads"))
}

/// `--json`, the same in every subcommand that reports.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub(crate) struct JsonArg {
    /// Print the report as one JSON object on standard output (the help of each subcommand
    /// names its schema).
    #[arg(long)]
    pub(crate) json: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_say_what_is_wrong_in_one_phrase() {
        assert_eq!(whole::<usize>("12"), Ok(12));
        assert_eq!(whole::<usize>("-5"), Err("must be 0 or more".into()));
        assert_eq!(whole::<usize>("1.5"), Err("not a whole number".into()));
        assert_eq!(whole::<usize>("-x"), Err("not a whole number".into()));
        assert_eq!(whole::<usize>(""), Err("not a whole number".into()));
        assert_eq!(whole::<u32>("99999999999"), Err("is too large".into()));
        assert_eq!(at_least_one::<u64>("0"), Err("must be 1 or more".into()));
        assert_eq!(at_least_one::<u64>("-3"), Err("must be 1 or more".into()));
        assert_eq!(
            threads("-1"),
            Err("must be 0 (one per core) or more".into())
        );
        assert_eq!(number("abc"), Err("not a number".into()));
        assert_eq!(number("inf"), Err("not a number".into()));
        assert_eq!(positive("0"), Err("must be above 0".into()));
        assert_eq!(non_negative("-0.5"), Err("must be 0 or more".into()));
        assert_eq!(fraction("1.5"), Err("must be 0 to 1".into()));
        assert_eq!(fraction("0.25"), Ok(0.25));
    }

    #[test]
    fn cells_parse() {
        assert_eq!("3,4".parse(), Ok(CellArg { row: 3, col: 4 }));
        assert_eq!(" 3 , 4 ".parse(), Ok(CellArg { row: 3, col: 4 }));
        for bad in ["", "3", "3,", ",4", "-1,2", "a,b", "1,2,3", "1.5,2"] {
            assert!(bad.parse::<CellArg>().is_err(), "{bad:?} parsed");
        }
    }

    /// The `--preset`, `--rows`, `--cols`, `--mines` and `--density` a subcommand with the
    /// expert default takes, parsed as the binary parses them.
    fn chosen(line: &str) -> anyhow::Result<Chosen> {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            board: BoardArgs,
        }
        let words = std::iter::once("bitmines").chain(line.split_whitespace());
        let cli = <Cli as clap::Parser>::try_parse_from(words)?;
        cli.board.choose(SizeDefault::Preset(Preset::Expert))
    }

    #[test]
    fn presets_and_custom_sizes() {
        #[rustfmt::skip]
        let cases: &[(&str, &str, usize, usize, usize)] = &[
            // arguments, name, rows, cols, mines
            ("--seed 1", "expert", 16, 30, 99),
            ("--seed 1 --preset beginner", "beginner", 9, 9, 10),
            ("--seed 1 --preset intermediate", "intermediate", 16, 16, 40),
            ("--seed 1 --rows 100 --cols 100", "custom", 100, 100, 2063), // expert's density
            ("--seed 1 --preset beginner --cols 18", "custom", 9, 18, 20),
            ("--seed 1 --rows 10 --cols 10 --mines 5", "custom", 10, 10, 5),
            ("--seed 1 --rows 10 --cols 10 --density 0.5", "custom", 10, 10, 50),
            ("--seed 1 --rows 10000 --cols 10000 --density 0.2", "custom", 10_000, 10_000, 20_000_000),
            ("--seed 1 --rows 1 --cols 5000 --mines 0", "custom", 1, 5000, 0),
        ];
        for &(line, name, rows, cols, mines) in cases {
            let got = chosen(line).unwrap_or_else(|e| panic!("{line}: {e:#}"));
            let got = (got.name, got.rows, got.cols, got.mines, got.seed);
            assert_eq!(got, (name, rows, cols, mines, 1), "{line}");
        }
        // The other refusals are tests/cli.rs's, with their messages, through the binary.
        assert!(chosen("--first-click-rule sometimes").is_err());
    }
}
