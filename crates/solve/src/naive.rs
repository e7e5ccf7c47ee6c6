//! The trivial rule one cell at a time: the reference twin of the word-parallel sweep.
//!
//! It reads the view through [`View::number`] alone and keeps its knowledge in plain
//! vectors, so it shares nothing with the planes it checks. Slow on purpose.

#![allow(
    clippy::indexing_slicing,
    reason = "cell indices are row * cols + col for cells of the view, into a vector of rows * cols facts"
)]

use bitmines_core::{AsView, View};

use crate::Error;

/// Cells proven by the trivial rule, row by row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    /// Proven mines.
    pub mines: Vec<(usize, usize)>,
    /// Proven safe cells, still hidden.
    pub safe: Vec<(usize, usize)>,
}

/// What the solver knows of one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fact {
    Revealed(u8),
    Unknown,
    Mine,
    Safe,
}

/// Applies the trivial rule at every revealed cell, in row order, until nothing changes:
/// a number touching as many proven mines as it shows clears its other unknown neighbours;
/// a number needing every unknown neighbour makes them all mines. A number that the proven
/// cells around it contradict is `Error::Contradiction`.
pub fn trivial(position: &(impl AsView + ?Sized)) -> Result<Known, Error> {
    let view = position.view();
    let (rows, cols) = (view.rows(), view.cols());
    let mut facts = cells(&view)?;
    loop {
        let mut changed = false;
        for row in 0..rows {
            for col in 0..cols {
                let Fact::Revealed(number) = facts[row * cols + col] else {
                    continue;
                };
                let around = neighbours(rows, cols, row, col);
                let count = |want: Fact| around.iter().filter(|&&i| facts[i] == want).count();
                let (mines, unknown) = (count(Fact::Mine), count(Fact::Unknown));
                let n = usize::from(number);
                if n < mines || n > mines + unknown {
                    return Err(Error::Contradiction {
                        row,
                        col,
                        number,
                        reason: format!(
                            "{mines} proven mines and {unknown} undecided cells around it"
                        ),
                    });
                }
                let verdict = if n == mines {
                    Fact::Safe
                } else if n == mines + unknown {
                    Fact::Mine
                } else {
                    continue;
                };
                for &i in &around {
                    if facts[i] == Fact::Unknown {
                        facts[i] = verdict;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut known = Known::default();
    for (i, fact) in facts.iter().enumerate() {
        match fact {
            Fact::Mine => known.mines.push((i / cols, i % cols)),
            Fact::Safe => known.safe.push((i / cols, i % cols)),
            _ => {}
        }
    }
    Ok(known)
}

/// Every cell of the view as a fact, row by row.
fn cells(view: &View<'_>) -> Result<Vec<Fact>, Error> {
    let mut facts = Vec::with_capacity(view.rows() * view.cols());
    for row in 0..view.rows() {
        for col in 0..view.cols() {
            facts.push(match view.number(row, col)? {
                Some(n) => Fact::Revealed(n),
                None => Fact::Unknown,
            });
        }
    }
    Ok(facts)
}

/// The indices of the neighbours of `(row, col)` on the board.
fn neighbours(rows: usize, cols: usize, row: usize, col: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(8);
    for r in row.saturating_sub(1)..=(row + 1).min(rows - 1) {
        for c in col.saturating_sub(1)..=(col + 1).min(cols - 1) {
            if (r, c) != (row, col) {
                out.push(r * cols + c);
            }
        }
    }
    out
}
