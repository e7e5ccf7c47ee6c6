//! The board's mine count ties the components together: a layout of the whole board puts
//! `k_c` mines in each component and the rest, `left - sum k_c`, on the `off` undecided
//! cells touching no number, in `C(off, left - sum k_c)` ways. This module turns the
//! components' distributions into a weight for each mine total of each component.
//!
//! Distributions are scaled to a maximum of one and the binomials are handled as
//! logarithms relative to their largest, so nothing overflows; whether a total is possible
//! at all is tracked apart, exactly, and a possible total never gets a weight below
//! [`FLOOR`], so no layout is lost to underflow.
//!
//! The other components are convolved by prefix and suffix products, and the cells touching
//! no number contribute `C(off, left - t)`. Past `Budget::global`, each component is weighed
//! alone by the density of the mines left.

#![allow(
    clippy::indexing_slicing,
    reason = "indices are mine totals within vectors sized for them in the same function"
)]

/// The smallest weight a possible total gets.
pub(crate) const FLOOR: f64 = 1e-300;

/// How the components are weighed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Weighing {
    /// Exactly, through the mine count.
    Exact,
    /// Each component on its own, by the density of the mines left.
    Density,
}

/// The weights of each component's mine totals, and what they say of the cells off the
/// frontier.
#[derive(Debug, Clone)]
pub(crate) struct Weights {
    /// For each component, a weight per mine total (zero where impossible).
    pub(crate) component: Vec<Vec<f64>>,
    /// Probability that a cell off the frontier is a mine.
    pub(crate) off_probability: f64,
    /// Whether every possible layout leaves no mine off the frontier (there are such cells).
    pub(crate) off_safe: bool,
    /// Whether every possible layout fills every cell off the frontier.
    pub(crate) off_mine: bool,
    /// The mines left for the cells off the frontier when that is the same in every
    /// possible layout.
    pub(crate) off_mines: Option<usize>,
    /// The number of layouts of the undecided cells (exact weighing).
    pub(crate) layouts: Option<Layouts>,
}

/// The number of layouts, kept as the parts of its logarithm so the binomial's logarithm is
/// computed only when asked for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layouts {
    /// Everything but `ln C(off, mines)`.
    partial: f64,
    off: usize,
    mines: usize,
}

impl Layouts {
    /// The natural logarithm of the number of layouts.
    pub(crate) fn ln(&self) -> f64 {
        self.partial + ln_choose(self.off, self.mines)
    }
}

/// Fewest and most mines the frontier can hold, when no total fits the mine count.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NoTotal {
    pub(crate) min: usize,
    pub(crate) max: usize,
}

/// Weighs the components `dists` (layout counts by mine total) given `left` mines for them
/// and the `off` cells touching no number.
pub(crate) fn weigh(
    dists: &[&[f64]],
    left: usize,
    off: usize,
    how: Weighing,
) -> Result<Weights, NoTotal> {
    let scaled: Vec<(Vec<f64>, f64)> = dists.iter().map(|d| scale(d)).collect();
    let ln_scales: f64 = scaled.iter().map(|(_, s)| s.ln()).sum();
    let scaled: Vec<Vec<f64>> = scaled.into_iter().map(|(d, _)| d).collect();
    let support: Vec<Vec<bool>> = dists
        .iter()
        .map(|d| d.iter().map(|&n| n > 0.0).collect())
        .collect();
    match how {
        Weighing::Exact => exact(ln_scales, &scaled, &support, left, off),
        Weighing::Density => Ok(density(&scaled, &support, left, off)),
    }
}

fn exact(
    ln_scales: f64,
    scaled: &[Vec<f64>],
    support: &[Vec<bool>],
    left: usize,
    off: usize,
) -> Result<Weights, NoTotal> {
    let n = scaled.len();
    // Prefix and suffix convolutions, so each component sees the product of all others.
    let mut prefix = vec![(vec![1.0], vec![true])];
    let mut ln_norms = 0.0;
    for c in 0..n {
        let (p, s) = &prefix[c];
        let (product, norm) = scale(&convolve(p, &scaled[c]));
        ln_norms += norm.ln();
        prefix.push((product, or_convolve(s, &support[c])));
    }
    let mut suffix = vec![(vec![1.0], vec![true]); n + 1];
    for c in (0..n).rev() {
        let (p, s) = &suffix[c + 1];
        suffix[c] = (
            normalised(convolve(p, &scaled[c])),
            or_convolve(s, &support[c]),
        );
    }
    let (all, all_support) = &prefix[n];
    let most = all.len() - 1;
    // Binomial weights C(off, left - t) by frontier total t, relative, as logarithms.
    let possible = |t: usize| t <= left && left - t <= off;
    let first = left.saturating_sub(off);
    let mut ln_w = vec![f64::NEG_INFINITY; most + 1];
    let mut acc = 0.0;
    for (t, slot) in ln_w.iter_mut().enumerate().skip(first) {
        if !possible(t) {
            break;
        }
        *slot = acc;
        // C(off, r - 1) / C(off, r) = r / (off - r + 1), with r = left - t.
        let r = (left - t) as f64;
        acc += (r / (off as f64 - r + 1.0)).ln();
    }
    let top = (0..=most)
        .filter(|&t| all_support[t] && possible(t))
        .map(|t| ln_w[t])
        .fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY {
        let min = all_support.iter().position(|&s| s).unwrap_or(0);
        let max = all_support.iter().rposition(|&s| s).unwrap_or(0);
        return Err(NoTotal { min, max });
    }
    let w: Vec<f64> = ln_w
        .iter()
        .map(|&l| {
            if l == f64::NEG_INFINITY {
                0.0
            } else {
                (l - top).exp().max(FLOOR)
            }
        })
        .collect();

    let mut component = Vec::with_capacity(n);
    for c in 0..n {
        let others = normalised(convolve(&prefix[c].0, &suffix[c + 1].0));
        let others_support = or_convolve(&prefix[c].1, &suffix[c + 1].1);
        let mut weights = vec![0.0; scaled[c].len()];
        for (k, weight) in weights.iter_mut().enumerate() {
            let mut sum = 0.0;
            let mut feasible = false;
            for (t, (&p, &s)) in others.iter().zip(&others_support).enumerate() {
                if s && possible(k + t) {
                    feasible = true;
                    sum += p * w[k + t];
                }
            }
            if feasible {
                *weight = sum.max(FLOOR);
            }
        }
        let top = weights.iter().copied().fold(0.0, f64::max);
        if top > 0.0 {
            weights.iter_mut().for_each(|x| {
                if *x > 0.0 {
                    *x = (*x / top).max(FLOOR);
                }
            });
        }
        component.push(weights);
    }

    let (mut total, mut mines_off) = (0.0, 0.0);
    let mut off_left: Option<Option<usize>> = None;
    for t in 0..=most {
        if all_support[t] && possible(t) {
            let weight = (all[t] * w[t]).max(FLOOR);
            total += weight;
            mines_off += weight * (left - t) as f64;
            off_left = Some(match off_left {
                None => Some(left - t),
                Some(Some(l)) if l == left - t => Some(l),
                Some(_) => None,
            });
        }
    }
    let off_mines = off_left.flatten();
    // The number of layouts, from the same sums: the products were scaled by `ln_scales`
    // and `ln_norms`, the binomials by `top` and by `C(off, left - first)`.
    let ln_total: f64 = (0..=most)
        .filter(|&t| all_support[t] && possible(t))
        .map(|t| all[t] * (ln_w[t] - top).exp())
        .sum::<f64>()
        .ln();
    let layouts = Layouts {
        partial: ln_total + top + ln_scales + ln_norms,
        off,
        mines: left - first,
    };
    Ok(Weights {
        component,
        off_probability: if off == 0 {
            0.0
        } else {
            mines_off / total / off as f64
        },
        off_safe: off > 0 && off_mines == Some(0),
        off_mine: off > 0 && off_mines == Some(off),
        off_mines,
        layouts: Some(layouts),
    })
}

/// `ln C(n, k)`.
pub(crate) fn ln_choose(n: usize, k: usize) -> f64 {
    if k > n {
        return f64::NEG_INFINITY;
    }
    ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)
}

/// `ln n!`: summed exactly below 256, Stirling's series above (error below 1e-15 relative).
fn ln_factorial(n: usize) -> f64 {
    if n < 256 {
        return (2..=n).map(|i| (i as f64).ln()).sum();
    }
    let x = n as f64;
    let inv = 1.0 / x;
    x * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI * x).ln() + inv / 12.0 - inv.powi(3) / 360.0
        + inv.powi(5) / 1260.0
}

/// Each component weighed on its own: a layout with `k` mines by `(p / (1 - p))^k`, `p`
/// the density of the mines left over the undecided cells. Off-frontier cells get the mines
/// the components do not take in expectation.
fn density(scaled: &[Vec<f64>], support: &[Vec<bool>], left: usize, off: usize) -> Weights {
    let cells: usize = off + scaled.iter().map(|d| d.len() - 1).sum::<usize>();
    let p = if cells == 0 {
        0.0
    } else {
        left as f64 / cells as f64
    };
    let mut expected = 0.0;
    let component: Vec<Vec<f64>> = scaled
        .iter()
        .zip(support)
        .map(|(d, s)| {
            let ln_ratio = (p / (1.0 - p)).ln();
            let ln: Vec<f64> = (0..d.len())
                .map(|k| {
                    if p <= 0.0 {
                        if k == 0 { 0.0 } else { f64::NEG_INFINITY }
                    } else if p >= 1.0 {
                        if k + 1 == d.len() {
                            0.0
                        } else {
                            f64::NEG_INFINITY
                        }
                    } else {
                        k as f64 * ln_ratio
                    }
                })
                .collect();
            let top = (0..d.len())
                .filter(|&k| s[k])
                .map(|k| ln[k])
                .fold(f64::NEG_INFINITY, f64::max);
            let w: Vec<f64> = (0..d.len())
                .map(|k| {
                    if s[k] && ln[k] > f64::NEG_INFINITY {
                        (ln[k] - top).exp().max(FLOOR)
                    } else if s[k] {
                        FLOOR
                    } else {
                        0.0
                    }
                })
                .collect();
            let z: f64 = d.iter().zip(&w).map(|(a, b)| a * b).sum();
            if z > 0.0 {
                expected += d
                    .iter()
                    .zip(&w)
                    .enumerate()
                    .map(|(k, (a, b))| k as f64 * a * b)
                    .sum::<f64>()
                    / z;
            }
            w
        })
        .collect();
    Weights {
        component,
        off_probability: if off == 0 {
            0.0
        } else {
            ((left as f64 - expected) / off as f64).clamp(0.0, 1.0)
        },
        off_safe: false,
        off_mine: false,
        off_mines: None,
        layouts: None,
    }
}

/// A distribution scaled to a maximum of one, and the scale.
fn scale(d: &[f64]) -> (Vec<f64>, f64) {
    let top = d.iter().copied().fold(0.0, f64::max);
    if top > 0.0 {
        (d.iter().map(|x| x / top).collect(), top)
    } else {
        (d.to_vec(), 1.0)
    }
}

fn normalised(d: Vec<f64>) -> Vec<f64> {
    scale(&d).0
}

fn convolve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, &x) in a.iter().enumerate() {
        if x == 0.0 {
            continue;
        }
        for (j, &y) in b.iter().enumerate() {
            out[i + j] += x * y;
        }
    }
    out
}

fn or_convolve(a: &[bool], b: &[bool]) -> Vec<bool> {
    let mut out = vec![false; a.len() + b.len() - 1];
    for (i, &x) in a.iter().enumerate() {
        if x {
            for (j, &y) in b.iter().enumerate() {
                out[i + j] |= y;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_choose_matches_products() {
        assert!((ln_choose(10, 3) - 120f64.ln()).abs() < 1e-12);
        let exact: f64 = (0..50)
            .map(|i| ((1000 - i) as f64 / (i + 1) as f64).ln())
            .sum();
        assert!(
            (ln_choose(1000, 50) - exact).abs() < 1e-9,
            "{} vs {exact}",
            ln_choose(1000, 50)
        );
    }
}
