//! The `view` property: any bytes that are UTF-8 either read as a player's view or are
//! refused with `ViewSyntax`; what reads prints back canonically and reads back the same;
//! and the solver answers every view that reads, without panicking: a typed error for a
//! view no layout satisfies, otherwise probabilities in `[0, 1]` and certain cells that
//! agree with them. Small views are checked against an enumeration of every layout.
//!
//! Shared by the `view` fuzz target and `tests/fuzz_regressions.rs`.

use bitmines_core::{Error, Position};
use bitmines_solve::{Budget, Solver};

/// Views with at most this many hidden cells are checked against every layout.
const BRUTE_HIDDEN: usize = 14;

pub(crate) fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let position = match text.parse::<Position>() {
        Ok(position) => position,
        Err(Error::ViewSyntax { line, col, .. }) => {
            assert!(line >= 1 && col >= 1, "{text:?}: line {line}, column {col}");
            return;
        }
        Err(other) => panic!("{text:?} refused with {other:?}, not a syntax error"),
    };
    let printed = position.to_string();
    let again: Position = printed
        .parse()
        .unwrap_or_else(|e| panic!("{printed:?} does not read back: {e}"));
    assert_eq!(again, position, "{printed:?} reads back differently");

    let view = position.view();
    let (rows, cols) = (view.rows(), view.cols());
    let budget = Budget::default().with_states(1 << 12);
    let solved = Solver::new(&position).and_then(|s| s.with_budget(budget).solve());
    let brute = brute(&position);
    let solution = match solved {
        Ok(solution) => solution,
        Err(
            bitmines_solve::Error::Contradiction { .. } | bitmines_solve::Error::MineCount { .. },
        ) => {
            if let Some((total, _)) = brute {
                assert_eq!(total, 0, "{text:?}: refused, but {total} layouts exist");
            }
            return;
        }
        Err(other) => panic!("{text:?}: unexpected {other:?}"),
    };
    let (certain, odds) = (&solution.certain, &solution.probabilities);
    for r in 0..rows {
        for c in 0..cols {
            let p = odds.mine(r, c).expect("on the board");
            assert!((0.0..=1.0).contains(&p), "{text:?} ({r}, {c}): {p}");
            match certain.verdict(r, c).expect("on the board") {
                Some(true) => assert_eq!(p, 1.0, "{text:?} ({r}, {c})"),
                Some(false) => assert_eq!(p, 0.0, "{text:?} ({r}, {c})"),
                None => {}
            }
        }
    }
    if let Some((total, mines)) = brute {
        assert!(total > 0, "{text:?}: answered, but no layout exists");
        if odds.exact() {
            for r in 0..rows {
                for c in 0..cols {
                    let expected = mines[r * cols + c] as f64 / total as f64;
                    let p = odds.mine(r, c).expect("on the board");
                    assert!(
                        (p - expected).abs() < 1e-9,
                        "{text:?} ({r}, {c}): {p} against {expected}"
                    );
                }
            }
        }
    }
}

/// The number of layouts consistent with the view, and for each cell the layouts with a
/// mine there; `None` when the view has too many hidden cells to enumerate.
fn brute(position: &Position) -> Option<(u64, Vec<u64>)> {
    let view = position.view();
    let (rows, cols) = (view.rows(), view.cols());
    let mut hidden = Vec::new();
    let mut numbers = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            match view.number(r, c).ok()? {
                None => hidden.push((r, c)),
                Some(n) => numbers.push((r, c, u32::from(n))),
            }
        }
    }
    if hidden.len() > BRUTE_HIDDEN {
        return None;
    }
    let mut total = 0;
    let mut mines = vec![0u64; rows * cols];
    for layout in 0u32..1 << hidden.len() {
        if layout.count_ones() as usize != view.mine_count() {
            continue;
        }
        let fits = numbers.iter().all(|&(r, c, n)| {
            let around = hidden
                .iter()
                .enumerate()
                .filter(|&(i, &(hr, hc))| {
                    layout >> i & 1 != 0 && hr.abs_diff(r) <= 1 && hc.abs_diff(c) <= 1
                })
                .count();
            around as u32 == n
        });
        if fits {
            total += 1;
            for (i, &(r, c)) in hidden.iter().enumerate() {
                if layout >> i & 1 != 0 {
                    mines[r * cols + c] += 1;
                }
            }
        }
    }
    Some((total, mines))
}
