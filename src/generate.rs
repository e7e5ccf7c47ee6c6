//! `bitmines gen`: generate a board and write it to a file.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use bitmines_core::Geometry;

use crate::cli::{BoardSpec, CellArg, KeepClear, thread_pool};
use crate::files::{Format, save_board, write_atomic};
use crate::system::ensure_memory;

/// Options of `bitmines gen`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Rows of the board.
    #[arg(long)]
    rows: usize,
    /// Columns of the board.
    #[arg(long)]
    cols: usize,
    /// Exactly this many mines.
    #[arg(long, required_unless_present = "density", conflicts_with = "density")]
    mines: Option<usize>,
    /// Mines as a fraction of the cells, rounded to the nearest mine.
    #[arg(long)]
    density: Option<f64>,
    /// Seed: the same options give the same board, on any number of threads.
    #[arg(long)]
    seed: u64,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Keep the first click at ROW,COL free of mines (see --keep-clear).
    #[arg(long, value_name = "ROW,COL")]
    first_click: Option<CellArg>,
    /// What to keep free of mines around --first-click.
    #[arg(long, value_enum, default_value_t = KeepClear::Opening, requires = "first_click")]
    keep_clear: KeepClear,
    /// File format.
    #[arg(long, value_enum, default_value_t = Format::Bin)]
    format: Format,
    /// The file to write (replaced atomically if it exists).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

/// Generates the board and writes it.
pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let spec = BoardSpec {
        rows: args.rows,
        cols: args.cols,
        mines: args.mines,
        density: args.density.unwrap_or(0.0),
        seed: args.seed,
        first_click: args.first_click.map(|cell| (cell, args.keep_clear)),
    };
    let config = spec.config()?;
    let geometry = Geometry::new(args.rows, args.cols)?;
    // The board's two planes, and for MBF the file's bytes, four per mine.
    let mbf = match args.format {
        Format::Mbf => config.mines as u64 * 4,
        _ => 0,
    };
    ensure_memory(geometry.plane_bytes() as u64 * 2 + mbf, || {
        format!("a {}x{} board", geometry.rows(), geometry.cols())
    })?;
    let pool = thread_pool(args.threads)?;
    let started = Instant::now();
    let board = pool.install(|| bitmines_gen::generate(&config))?;
    let generated = started.elapsed();
    let started = Instant::now();
    write_atomic(&args.output, |out| {
        save_board(out, &board, Some(args.seed), args.format)
    })
    .with_context(|| format!("cannot write {}", args.output.display()))?;
    eprintln!(
        "bitmines: wrote {} ({}x{}, {} mines, seed {}, {}) in {:.3} s after {:.3} s generating",
        args.output.display(),
        geometry.rows(),
        geometry.cols(),
        board.mine_count(),
        args.seed,
        args.format,
        started.elapsed().as_secs_f64(),
        generated.as_secs_f64()
    );
    Ok(())
}
