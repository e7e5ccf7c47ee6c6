//! Why a cell is known: the rule and the revealed cells that forced it.

use std::fmt;

/// The tier of deduction a reason belongs to, cheapest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// One number on its own ([`Reason::Satisfied`], [`Reason::Full`]).
    Trivial,
    /// Two overlapping numbers ([`Reason::Pair`]).
    Pair,
    /// Every layout of a frontier component ([`Reason::Component`]).
    Component,
    /// The total mine count ([`Reason::Component`] with `global`, or [`Reason::MineCount`]).
    Global,
}

/// Why a cell is proven safe or proven a mine. Cells are `(row, col)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Reason {
    /// The number at `by` already touches as many proven mines as it shows, so its other
    /// hidden neighbours are safe.
    Satisfied {
        /// The revealed cell.
        by: (usize, usize),
        /// Its number.
        number: u8,
    },
    /// The number at `by` needs every one of its hidden neighbours not proven safe to be a
    /// mine.
    Full {
        /// The revealed cell.
        by: (usize, usize),
        /// Its number.
        number: u8,
    },
    /// Two overlapping numbers: the mines that `first` still needs cannot all fit in the
    /// cells `second` does not see, so its cells outside `second` are all mines and the
    /// cells of `second` outside `first` are all safe (a subset is the case where `first`
    /// has no cells outside `second`).
    Pair {
        /// The number whose outside cells are mines.
        first: (usize, usize),
        /// The number whose outside cells are safe.
        second: (usize, usize),
    },
    /// In every layout of the mines that meets the numbers of one frontier component, the
    /// cell is the same; `global` says the board's mine count was needed too.
    Component {
        /// The revealed cells of the component.
        numbers: Vec<(usize, usize)>,
        /// Whether only the total mine count rules out the other layouts.
        global: bool,
    },
    /// A hidden cell touching no revealed number, settled by the mine count alone: every
    /// layout of the frontier leaves `mines_left` mines for the `cells` cells off it (none,
    /// so they are safe, or all of them, so they are mines).
    MineCount {
        /// Mines left for the cells off the frontier.
        mines_left: usize,
        /// Hidden cells off the frontier.
        cells: usize,
    },
}

impl Reason {
    /// The tier this reason belongs to.
    pub fn tier(&self) -> Tier {
        match self {
            Reason::Satisfied { .. } | Reason::Full { .. } => Tier::Trivial,
            Reason::Pair { .. } => Tier::Pair,
            Reason::Component { global: false, .. } => Tier::Component,
            Reason::Component { global: true, .. } | Reason::MineCount { .. } => Tier::Global,
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Satisfied { by, number } => write!(
                f,
                "the {number} at {by:?} already touches {number} proven {}",
                mines(*number)
            ),
            Reason::Full { by, number } => write!(
                f,
                "the {number} at {by:?} has no more undecided neighbours than the mines it still needs"
            ),
            Reason::Pair { first, second } => write!(
                f,
                "the number at {first:?} needs a mine in each cell {second:?} does not touch, so \
                 the cells only {second:?} touches are safe"
            ),
            Reason::Component { numbers, global } => {
                write!(f, "every layout of the mines that meets the numbers at ")?;
                list(f, numbers)?;
                if *global {
                    write!(
                        f,
                        " and leaves the right number of mines for the rest of the board"
                    )?;
                }
                write!(f, " agrees on it")
            }
            Reason::MineCount { mines_left, cells } => write!(
                f,
                "every layout of the frontier leaves {mines_left} {} for the {cells} hidden {} \
                 touching no number",
                if *mines_left == 1 { "mine" } else { "mines" },
                if *cells == 1 { "cell" } else { "cells" }
            ),
        }
    }
}

fn mines(n: u8) -> &'static str {
    if n == 1 { "mine" } else { "mines" }
}

/// At most eight cells, then how many more.
fn list(f: &mut fmt::Formatter<'_>, cells: &[(usize, usize)]) -> fmt::Result {
    for (i, cell) in cells.iter().take(8).enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{cell:?}")?;
    }
    if cells.len() > 8 {
        write!(f, " and {} more", cells.len() - 8)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every reason reads as one short sentence with its numbers in the singular or plural
    /// they need: what a hint shows next to each cell.
    #[test]
    fn reasons_read_as_short_sentences() {
        for (reason, text) in [
            (
                Reason::Pair {
                    first: (12, 40),
                    second: (12, 41),
                },
                "the number at (12, 40) needs a mine in each cell (12, 41) does not touch, so the \
                 cells only (12, 41) touches are safe",
            ),
            (
                Reason::Satisfied {
                    by: (1, 2),
                    number: 1,
                },
                "the 1 at (1, 2) already touches 1 proven mine",
            ),
            (
                Reason::MineCount {
                    mines_left: 1,
                    cells: 1,
                },
                "every layout of the frontier leaves 1 mine for the 1 hidden cell touching no number",
            ),
            (
                Reason::MineCount {
                    mines_left: 0,
                    cells: 3,
                },
                "every layout of the frontier leaves 0 mines for the 3 hidden cells touching no number",
            ),
        ] {
            assert_eq!(reason.to_string(), text);
            assert!(text.len() <= 130, "{} characters: {text}", text.len());
        }
    }
}
