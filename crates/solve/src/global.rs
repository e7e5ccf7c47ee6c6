//! The board's mine count ties the components together: a layout of the whole board puts
//! `k_c` mines in each component and the rest, `left - sum k_c`, on the `off` undecided
//! cells touching no number, in `C(off, left - sum k_c)` ways. This module turns the
//! components' distributions into a weight for each mine total of each component.
//!
//! Only the totals from each distribution's first count above zero to its last are
//! weighed. Distributions are scaled to a maximum of one and the binomials are taken
//! relative to their largest, as products of their ratios in plain numbers while these stay
//! well within the range of `f64` and as logarithms past it, so nothing overflows; whether a
//! total is possible at all is tracked apart, exactly, and a possible total never gets a
//! weight below [`FLOOR`], so no layout is lost to underflow. The number of layouts is kept
//! as a product and a logarithm, so a weighing takes no logarithm unless it is asked for.
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
/// frontier. Its vectors, and the buffers [`Weights::weigh`] works in, are kept from one
/// weighing to the next.
#[derive(Debug, Clone, Default)]
pub(crate) struct Weights {
    /// Every component's weights per mine total (zero where impossible), one component
    /// after the other: component `c`'s are `weights[at[c]..at[c + 1]]`.
    weights: Vec<f64>,
    at: Vec<usize>,
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
    work: Work,
}

/// The buffers of a weighing: the distributions scaled, their supports, the prefix and
/// suffix products (flat, with the offset of each), and a few of one total each.
#[derive(Debug, Clone, Default)]
struct Work {
    scaled: Vec<f64>,
    support: Vec<bool>,
    /// Where each distribution starts in `scaled` and `support`, then their end.
    at: Vec<usize>,
    prefix: Vec<f64>,
    prefix_support: Vec<bool>,
    prefix_at: Vec<usize>,
    suffix: Vec<f64>,
    suffix_support: Vec<bool>,
    /// Where the product of the components from `c` on lies in `suffix`, for each `c` from
    /// 1 up to `n` (the empty product).
    suffix_at: Vec<(usize, usize)>,
    product: Vec<f64>,
    product_support: Vec<bool>,
    ln_w: Vec<f64>,
    w: Vec<f64>,
    /// Each distribution's first possible total and its length (exact weighing: `scaled`
    /// and `support` hold only the totals from the first possible to the last).
    first: Vec<usize>,
    len: Vec<usize>,
    /// The components with more than one possible total, which the products take in; the
    /// others only move the totals.
    varying: Vec<usize>,
    /// The binomial weights with the floor, by total from the first the product reaches.
    floored: Vec<f64>,
}

/// Values with their supports from `from` to `to`.
fn span<'a>(
    values: &'a [f64],
    support: &'a [bool],
    (from, to): (usize, usize),
) -> (&'a [f64], &'a [bool]) {
    (&values[from..to], &support[from..to])
}

/// Part `c` of flat values with their supports, part `c` lying at `at[c]..at[c + 1]`.
fn part<'a>(
    values: &'a [f64],
    support: &'a [bool],
    at: &[usize],
    c: usize,
) -> (&'a [f64], &'a [bool]) {
    let range = at[c]..at[c + 1];
    (&values[range.clone()], &support[range])
}

/// The number of layouts, kept as the parts of its logarithm so that no logarithm is
/// computed unless it is asked for: `C(off, mines)` times the factors of `scale`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layouts {
    /// Everything but `C(off, mines)`.
    scale: Scale,
    off: usize,
    mines: usize,
}

impl Layouts {
    /// The natural logarithm of the number of layouts.
    pub(crate) fn ln(&self) -> f64 {
        self.scale.ln() + ln_choose(self.off, self.mines)
    }
}

/// A product of positive factors, kept as a plain number while it stays well within the
/// range of `f64` and as a logarithm past that, so that a weighing takes no logarithm
/// unless the number of layouts is asked for.
#[derive(Debug, Clone, Copy)]
struct Scale {
    product: f64,
    ln: f64,
}

impl Scale {
    const ONE: Scale = Scale {
        product: 1.0,
        ln: 0.0,
    };

    /// Multiplies by `x`, positive.
    fn times(&mut self, x: f64) {
        let p = self.product * x;
        if (1e-150..1e150).contains(&p) {
            self.product = p;
        } else {
            self.ln += x.ln();
        }
    }

    fn ln(&self) -> f64 {
        self.ln + self.product.ln()
    }
}

/// Fewest and most mines the frontier can hold, when no total fits the mine count.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NoTotal {
    pub(crate) min: usize,
    pub(crate) max: usize,
}

impl Weights {
    /// Component `c`'s weight per mine total.
    pub(crate) fn component(&self, c: usize) -> &[f64] {
        &self.weights[self.at[c]..self.at[c + 1]]
    }

    /// Weighs the components `dists` (layout counts by mine total) given `left` mines for
    /// them and the `off` cells touching no number.
    pub(crate) fn weigh<'a>(
        &mut self,
        dists: impl IntoIterator<Item = &'a [f64]>,
        left: usize,
        off: usize,
        how: Weighing,
    ) -> Result<(), NoTotal> {
        self.weights.clear();
        self.at.clear();
        self.at.push(0);
        match how {
            Weighing::Exact => self.exact(dists, left, off),
            Weighing::Density => {
                self.spread(dists);
                self.density(left, off);
                Ok(())
            }
        }
    }

    /// Each distribution scaled to a largest count of one, whole, with its support, into
    /// the work's `scaled`, `support` and `at`; returns the logarithm of the scales'
    /// product.
    fn spread<'a>(&mut self, dists: impl IntoIterator<Item = &'a [f64]>) -> f64 {
        let work = &mut self.work;
        work.scaled.clear();
        work.support.clear();
        work.at.clear();
        work.at.push(0);
        let mut ln_scales = 0.0;
        for d in dists {
            let from = work.scaled.len();
            work.scaled.extend_from_slice(d);
            ln_scales += scale(&mut work.scaled[from..]).ln();
            work.support.extend(d.iter().map(|&n| n > 0.0));
            work.at.push(work.scaled.len());
        }
        ln_scales
    }

    /// The weighing through the mine count, on each distribution's possible totals only
    /// (from its first to its last count above zero), with the binomials as products of
    /// their ratios in plain numbers while these stay within `1e-250..1e250` (the
    /// logarithms otherwise). A component's weights are zero at the totals it cannot
    /// hold. `Weights::exact_naive`, its twin, weighs every total up to each
    /// distribution's length, with the binomials as logarithms.
    fn exact<'a>(
        &mut self,
        dists: impl IntoIterator<Item = &'a [f64]>,
        left: usize,
        off: usize,
    ) -> Result<(), NoTotal> {
        let Work {
            scaled,
            support,
            at,
            prefix,
            prefix_support,
            prefix_at,
            suffix,
            suffix_support,
            suffix_at,
            product,
            product_support,
            ln_w,
            w,
            first,
            len,
            varying,
            floored,
        } = &mut self.work;
        scaled.clear();
        support.clear();
        at.clear();
        at.push(0);
        first.clear();
        len.clear();
        varying.clear();
        let mut layouts = Scale::ONE;
        for (c, d) in dists.into_iter().enumerate() {
            len.push(d.len());
            let Some(lo) = d.iter().position(|&n| n > 0.0) else {
                // No layout at all: no total fits, as when the totals miss the mine count.
                return Err(NoTotal { min: 0, max: 0 });
            };
            let hi = d.iter().rposition(|&n| n > 0.0).unwrap_or(lo);
            first.push(lo);
            if hi == lo {
                // One total: scaled, the distribution is a one there, and its products
                // with the others are theirs moved by `lo`, bit for bit.
                layouts.times(d[lo]);
                continue;
            }
            varying.push(c);
            let from = scaled.len();
            scaled.extend_from_slice(&d[lo..=hi]);
            layouts.times(scale(&mut scaled[from..]));
            support.extend(d[lo..=hi].iter().map(|&n| n > 0.0));
            at.push(scaled.len());
        }
        let n = at.len() - 1;
        let (scaled, support, at) = (&scaled[..], &support[..], &at[..]);
        // Prefix and suffix convolutions, so each component sees the product of all others;
        // each starts at the sum of its components' first totals.
        prefix.clear();
        prefix.push(1.0);
        prefix_support.clear();
        prefix_support.push(true);
        prefix_at.clear();
        prefix_at.extend([0, 1]);
        for c in 0..n {
            let (p, s) = part(prefix, prefix_support, prefix_at, c);
            let (d, ds) = part(scaled, support, at, c);
            // The first is the distribution as it is (times the empty product).
            if c == 0 {
                prefix.extend_from_slice(d);
                prefix_support.extend_from_slice(ds);
            } else {
                convolve(p, d, product);
                or_convolve(s, ds, product_support);
                layouts.times(scale(product));
                prefix.extend_from_slice(product);
                prefix_support.extend_from_slice(product_support);
            }
            prefix_at.push(prefix.len());
        }
        suffix.clear();
        suffix.push(1.0);
        suffix_support.clear();
        suffix_support.push(true);
        suffix_at.clear();
        suffix_at.resize(n + 1, (0, 1));
        for c in (1..n).rev() {
            let (p, s) = span(suffix, suffix_support, suffix_at[c + 1]);
            let (d, ds) = part(scaled, support, at, c);
            let from = suffix.len();
            if c + 1 == n {
                suffix.extend_from_slice(d);
                suffix_support.extend_from_slice(ds);
            } else {
                scaled_product((p, s), (d, ds), product, product_support);
                suffix.extend_from_slice(product);
                suffix_support.extend_from_slice(product_support);
            }
            suffix_at[c] = (from, suffix.len());
        }
        let (all, all_support) = part(prefix, prefix_support, prefix_at, n);
        let low: usize = first.iter().sum();
        // Totals `low + i` with `i` in `0..all.len()`; those that fit the mine count are
        // `fits.0..=fits.1` (empty if none).
        let fits = (
            low.max(left.saturating_sub(off)),
            left.min(low + all.len() - 1),
        );
        if !(fits.0..=fits.1).any(|t| all_support[t - low]) {
            let min = low + all_support.iter().position(|&s| s).unwrap_or(0);
            let max = low + all_support.iter().rposition(|&s| s).unwrap_or(0);
            return Err(NoTotal { min, max });
        }
        // Binomial weights C(off, left - t) relative to the first total that fits:
        // C(off, r - 1) / C(off, r) = r / (off - r + 1), with r = left - t.
        w.clear();
        w.resize(all.len(), 0.0);
        let (from, to) = (fits.0 - low, fits.1 - low);
        let mut plain = true;
        let mut x = 1.0;
        for (i, slot) in w.iter_mut().enumerate().take(to + 1).skip(from) {
            *slot = x;
            if !(1e-250..1e250).contains(&x) {
                plain = false;
                break;
            }
            let r = (left - low - i) as f64;
            x *= r / (off as f64 - r + 1.0);
        }
        let top = if plain {
            let top = (from..=to)
                .filter(|&i| all_support[i])
                .map(|i| w[i])
                .fold(0.0, f64::max);
            w[from..=to].iter_mut().for_each(|x| *x /= top);
            layouts.times(top);
            top
        } else {
            ln_w.clear();
            ln_w.resize(all.len(), 0.0);
            let mut acc = 0.0;
            for (i, slot) in ln_w.iter_mut().enumerate().take(to + 1).skip(from) {
                *slot = acc;
                let r = (left - low - i) as f64;
                acc += (r / (off as f64 - r + 1.0)).ln();
            }
            let top = (from..=to)
                .filter(|&i| all_support[i])
                .map(|i| ln_w[i])
                .fold(f64::NEG_INFINITY, f64::max);
            for i in from..=to {
                w[i] = (ln_w[i] - top).exp();
            }
            layouts.ln += top;
            1.0
        };
        debug_assert!(top > 0.0);
        // With the floor, and zero where the total does not fit.
        floored.clear();
        floored.resize(all.len(), 0.0);
        for i in from..=to {
            floored[i] = w[i].max(FLOOR);
        }
        let floored = &floored[..];

        // Every component's weights, zero but at the totals it holds. One of a single
        // total weighs a one there: its others reach every total the product reaches, so
        // its sum is feasible, and its largest is itself.
        for (&lo, &l) in first.iter().zip(len.iter()) {
            let from = self.weights.len();
            self.weights.resize(from + l, 0.0);
            self.at.push(self.weights.len());
            self.weights[from + lo] = 1.0;
        }
        for (j, &c) in varying.iter().enumerate() {
            // The others: those before `j` times those after it, either of them read as
            // it is where the other is the empty product.
            let (others, others_support) = if j + 1 == n {
                part(prefix, prefix_support, prefix_at, j)
            } else if j == 0 {
                span(suffix, suffix_support, suffix_at[1])
            } else {
                let (p, ps) = part(prefix, prefix_support, prefix_at, j);
                let (q, qs) = span(suffix, suffix_support, suffix_at[j + 1]);
                scaled_product((p, ps), (q, qs), product, product_support);
                (&product[..], &product_support[..])
            };
            let ds = &support[at[j]..at[j + 1]];
            let lo = first[c];
            // The others' totals start at `low - lo`: the component's total `lo + k` and
            // the others' `low - lo + t` make the total `low + k + t`.
            let weights = &mut self.weights[self.at[c]..self.at[c + 1]];
            weights[lo] = 0.0;
            let mut top = 0.0;
            for (k, &held) in ds.iter().enumerate() {
                if !held {
                    continue;
                }
                let mut sum = 0.0;
                let mut feasible = false;
                for (t, (&o, &os)) in others.iter().zip(others_support).enumerate() {
                    let b = floored[k + t];
                    if os && b > 0.0 {
                        feasible = true;
                        sum += o * b;
                    }
                }
                if feasible {
                    let sum = sum.max(FLOOR);
                    weights[lo + k] = sum;
                    if sum > top {
                        top = sum;
                    }
                }
            }
            if top > 0.0 {
                weights[lo..lo + ds.len()].iter_mut().for_each(|x| {
                    if *x > 0.0 {
                        *x = (*x / top).max(FLOOR);
                    }
                });
            }
        }

        let (mut total, mut mines_off, mut sum) = (0.0, 0.0, 0.0);
        let mut off_left: Option<Option<usize>> = None;
        for i in from..=to {
            if all_support[i] {
                let t = low + i;
                sum += all[i] * w[i];
                let weight = (all[i] * floored[i]).max(FLOOR);
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
        // The number of layouts, from the same sums: the products were scaled by
        // `layouts`, the binomials by `top` and by `C(off, left - fits.0)`.
        layouts.times(sum);
        self.layouts = Some(Layouts {
            scale: layouts,
            off,
            mines: left - fits.0,
        });
        self.off_probability = if off == 0 {
            0.0
        } else {
            mines_off / total / off as f64
        };
        self.off_safe = off > 0 && off_mines == Some(0);
        self.off_mine = off > 0 && off_mines == Some(off);
        self.off_mines = off_mines;
        Ok(())
    }

    /// [`Weights::exact`] the way it was first written, its twin: every total of each
    /// distribution weighed, the binomials as logarithms.
    #[cfg(test)]
    fn exact_naive<'a>(
        &mut self,
        dists: impl IntoIterator<Item = &'a [f64]>,
        left: usize,
        off: usize,
    ) -> Result<(), NoTotal> {
        self.weights.clear();
        self.at.clear();
        self.at.push(0);
        let ln_scales = self.spread(dists);
        let Work {
            scaled,
            support,
            at,
            prefix,
            prefix_support,
            prefix_at,
            suffix,
            suffix_support,
            suffix_at,
            product,
            product_support,
            ln_w,
            w,
            ..
        } = &mut self.work;
        let n = at.len() - 1;
        // Prefix and suffix convolutions, so each component sees the product of all others.
        prefix.clear();
        prefix.push(1.0);
        prefix_support.clear();
        prefix_support.push(true);
        prefix_at.clear();
        prefix_at.extend([0, 1]);
        let mut ln_norms = 0.0;
        for c in 0..n {
            let (p, s) = part(prefix, prefix_support, prefix_at, c);
            let (d, ds) = part(scaled, support, at, c);
            convolve(p, d, product);
            or_convolve(s, ds, product_support);
            ln_norms += scale(product).ln();
            prefix.extend_from_slice(product);
            prefix_support.extend_from_slice(product_support);
            prefix_at.push(prefix.len());
        }
        suffix.clear();
        suffix.push(1.0);
        suffix_support.clear();
        suffix_support.push(true);
        suffix_at.clear();
        suffix_at.resize(n + 1, (0, 1));
        // The product of all of them is never read (the prefix gives it), so the suffixes
        // stop at the second component.
        for c in (1..n).rev() {
            let (p, s) = span(suffix, suffix_support, suffix_at[c + 1]);
            let (d, ds) = part(scaled, support, at, c);
            convolve(p, d, product);
            or_convolve(s, ds, product_support);
            scale(product);
            let from = suffix.len();
            suffix.extend_from_slice(product);
            suffix_support.extend_from_slice(product_support);
            suffix_at[c] = (from, suffix.len());
        }
        let (all, all_support) = part(prefix, prefix_support, prefix_at, n);
        let most = all.len() - 1;
        // Binomial weights C(off, left - t) by frontier total t, relative, as logarithms.
        let possible = |t: usize| t <= left && left - t <= off;
        let first = left.saturating_sub(off);
        ln_w.clear();
        ln_w.resize(most + 1, f64::NEG_INFINITY);
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
        w.clear();
        w.extend(ln_w.iter().map(|&l| {
            if l == f64::NEG_INFINITY {
                0.0
            } else {
                (l - top).exp().max(FLOOR)
            }
        }));
        let w = &w[..];

        for c in 0..n {
            let (p, ps) = part(prefix, prefix_support, prefix_at, c);
            let (q, qs) = span(suffix, suffix_support, suffix_at[c + 1]);
            scaled_product((p, ps), (q, qs), product, product_support);
            // Plain slices, as `w` is: pushing a weight does not make their addresses be
            // read again.
            let (others, others_support) = (&product[..], &product_support[..]);
            // The totals the others can hold lie within these: the sums skip the rest.
            let low = others_support
                .iter()
                .position(|&s| s)
                .unwrap_or(others.len());
            let high = others_support.iter().rposition(|&s| s).unwrap_or(0);
            let from = self.weights.len();
            let len = at[c + 1] - at[c];
            self.weights.extend((0..len).map(|k| {
                // The totals `t` of the others with `k + t` possible: `first..=left`.
                let Some(last) = left.checked_sub(k) else {
                    return 0.0;
                };
                let last = last.min(high);
                let mut sum = 0.0;
                let mut feasible = false;
                for t in first.saturating_sub(k).max(low)..=last {
                    if others_support[t] {
                        feasible = true;
                        sum += others[t] * w[k + t];
                    }
                }
                if feasible { sum.max(FLOOR) } else { 0.0 }
            }));
            let weights = &mut self.weights[from..];
            let top = largest(weights);
            if top > 0.0 {
                weights.iter_mut().for_each(|x| {
                    if *x > 0.0 {
                        *x = (*x / top).max(FLOOR);
                    }
                });
            }
            self.at.push(self.weights.len());
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
            // `w[t]` is this exponential, unless it fell below the floor.
            .map(|t| {
                all[t]
                    * if w[t] > FLOOR {
                        w[t]
                    } else {
                        (ln_w[t] - top).exp()
                    }
            })
            .sum::<f64>()
            .ln();
        self.layouts = Some(Layouts {
            scale: Scale {
                product: 1.0,
                ln: ln_total + top + ln_scales + ln_norms,
            },
            off,
            mines: left - first,
        });
        self.off_probability = if off == 0 {
            0.0
        } else {
            mines_off / total / off as f64
        };
        self.off_safe = off > 0 && off_mines == Some(0);
        self.off_mine = off > 0 && off_mines == Some(off);
        self.off_mines = off_mines;
        Ok(())
    }

    /// Each component weighed on its own: a layout with `k` mines by `(p / (1 - p))^k`, `p`
    /// the density of the mines left over the undecided cells. Off-frontier cells get the
    /// mines the components do not take in expectation.
    fn density(&mut self, left: usize, off: usize) {
        let work = &self.work;
        let n = work.at.len() - 1;
        let cells: usize = off
            + (0..n)
                .map(|c| work.at[c + 1] - work.at[c] - 1)
                .sum::<usize>();
        let p = if cells == 0 {
            0.0
        } else {
            left as f64 / cells as f64
        };
        let mut expected = 0.0;
        for c in 0..n {
            let (d, s) = part(&work.scaled, &work.support, &work.at, c);
            let ln_ratio = (p / (1.0 - p)).ln();
            let ln = |k: usize| {
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
            };
            let top = (0..d.len())
                .filter(|&k| s[k])
                .map(ln)
                .fold(f64::NEG_INFINITY, f64::max);
            let from = self.weights.len();
            self.weights.extend((0..d.len()).map(|k| {
                if s[k] && ln(k) > f64::NEG_INFINITY {
                    (ln(k) - top).exp().max(FLOOR)
                } else if s[k] {
                    FLOOR
                } else {
                    0.0
                }
            }));
            let w = &self.weights[from..];
            let z: f64 = d.iter().zip(w).map(|(a, b)| a * b).sum();
            if z > 0.0 {
                expected += d
                    .iter()
                    .zip(w)
                    .enumerate()
                    .map(|(k, (a, b))| k as f64 * a * b)
                    .sum::<f64>()
                    / z;
            }
            self.at.push(self.weights.len());
        }
        self.off_probability = if off == 0 {
            0.0
        } else {
            ((left as f64 - expected) / off as f64).clamp(0.0, 1.0)
        };
        self.off_safe = false;
        self.off_mine = false;
        self.off_mines = None;
        self.layouts = None;
    }
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

/// The largest of `d`, and zero if none is larger: the weights and counts it is given are
/// never negative or NaN, where a plain comparison is `f64::max` in fewer instructions.
fn largest(d: &[f64]) -> f64 {
    d.iter().fold(0.0, |top, &x| if x > top { x } else { top })
}

/// Scales `d` to a maximum of one in place; returns the scale (one for all zeros).
fn scale(d: &mut [f64]) -> f64 {
    let top = largest(d);
    if top > 0.0 {
        d.iter_mut().for_each(|x| *x /= top);
        top
    } else {
        1.0
    }
}

/// The convolution of `a` and `b`, into `out`.
fn convolve(a: &[f64], b: &[f64], out: &mut Vec<f64>) {
    out.clear();
    out.resize(a.len() + b.len() - 1, 0.0);
    for (i, &x) in a.iter().enumerate() {
        if x == 0.0 {
            continue;
        }
        for (o, &y) in out[i..].iter_mut().zip(b) {
            *o += x * y;
        }
    }
}

/// The product of `p` and `q`, each scaled to a largest value of one, with the totals
/// they reach together, scaled likewise, into `out` and `support`: the convolutions and
/// [`scale`], but with the empty product (`[1.0]`, the others of the first and the last
/// component) on one side, the other side as it is. Each of its terms would be its own
/// plus zero times one and divided by one, so the values are the same bit for bit (tested
/// against the convolutions).
fn scaled_product(
    (p, ps): (&[f64], &[bool]),
    (q, qs): (&[f64], &[bool]),
    out: &mut Vec<f64>,
    support: &mut Vec<bool>,
) {
    let (values, reach) = if *p == [1.0] {
        (q, qs)
    } else if *q == [1.0] {
        (p, ps)
    } else {
        convolve(p, q, out);
        or_convolve(ps, qs, support);
        scale(out);
        return;
    };
    out.clear();
    out.extend_from_slice(values);
    support.clear();
    support.extend_from_slice(reach);
}

/// The totals `a` and `b` can reach together, into `out`.
fn or_convolve(a: &[bool], b: &[bool], out: &mut Vec<bool>) {
    out.clear();
    out.resize(a.len() + b.len() - 1, false);
    for (i, &x) in a.iter().enumerate() {
        if x {
            for (o, &y) in out[i..].iter_mut().zip(b) {
                *o |= y;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A distribution scaled as the weighing scales them, with its support.
    fn scaled(counts: &[u32]) -> (Vec<f64>, Vec<bool>) {
        let mut values: Vec<f64> = counts.iter().map(|&n| f64::from(n)).collect();
        scale(&mut values);
        (values, counts.iter().map(|&n| n > 0).collect())
    }

    proptest! {
        /// The product of two scaled distributions is the convolutions' bit for bit, the
        /// empty product on either side or neither.
        #[test]
        fn scaled_product_matches_convolving(
            a in proptest::collection::vec(0u32..5000, 1..12),
            b in proptest::collection::vec(0u32..5000, 1..12),
            empty in 0usize..4,
        ) {
            let one = (vec![1.0], vec![true]);
            let (p, q) = match empty {
                0 => (one.clone(), scaled(&b)),
                1 => (scaled(&a), one.clone()),
                2 => (one.clone(), one.clone()),
                _ => (scaled(&a), scaled(&b)),
            };
            let (mut fast, mut fast_support) = (Vec::new(), Vec::new());
            scaled_product((&p.0, &p.1), (&q.0, &q.1), &mut fast, &mut fast_support);
            let (mut naive, mut naive_support) = (Vec::new(), Vec::new());
            convolve(&p.0, &q.0, &mut naive);
            or_convolve(&p.1, &q.1, &mut naive_support);
            scale(&mut naive);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&fast), bits(&naive));
            prop_assert_eq!(fast_support, naive_support);
        }
    }

    /// Weights at the totals a distribution holds, each relative to the largest of them,
    /// so that weights scaled otherwise compare.
    fn relative(weights: &[f64], dist: &[f64]) -> Vec<f64> {
        let held: Vec<f64> = weights
            .iter()
            .zip(dist)
            .map(|(&w, &d)| if d > 0.0 { w } else { 0.0 })
            .collect();
        let top = largest(&held);
        held.iter()
            .map(|&w| if top > 0.0 { w / top } else { w })
            .collect()
    }

    /// Whether `a` and `b` agree to rounding: relatively, or both at the floor.
    fn close(a: f64, b: f64) -> bool {
        (a == 0.0) == (b == 0.0) && (a - b).abs() <= 1e-11 * a.abs().max(b.abs()) + 1e-290
    }

    proptest! {
        /// The weighing on the possible totals in plain numbers agrees with its twin, which
        /// weighs every total with logarithms: the same totals that fit (or the same error),
        /// each component's weights at the totals it holds equal to rounding and zero
        /// exactly where the twin's are, and the same probability off the frontier and
        /// number of layouts. Boards from a few cells to a million, so that the binomials'
        /// ratios leave the plain numbers' range now and then.
        #[test]
        fn exact_matches_its_twin(
            dists in proptest::collection::vec(
                (0usize..6, proptest::collection::vec(0u64..(1 << 40), 1..14)),
                1..6,
            ),
            left in 0usize..80,
            off in prop_oneof![0usize..20, 0usize..400, 0usize..1_000_000],
        ) {
            // A few zeros before each distribution, and some inside it.
            let dists: Vec<Vec<f64>> = dists
                .iter()
                .map(|(zeros, counts)| {
                    std::iter::repeat_n(0.0, *zeros)
                        .chain(counts.iter().map(|&n| if n % 5 == 0 { 0.0 } else { n as f64 }))
                        .collect()
                })
                .collect();
            let (mut fast, mut naive) = (Weights::default(), Weights::default());
            let a = fast.weigh(dists.iter().map(Vec::as_slice), left, off, Weighing::Exact);
            let b = naive.exact_naive(dists.iter().map(Vec::as_slice), left, off);
            match (a, b) {
                (Err(x), Err(y)) => {
                    prop_assert!(dists.iter().any(|d| d.iter().all(|&n| n == 0.0))
                        || (x.min, x.max) == (y.min, y.max));
                    return Ok(());
                }
                (Ok(()), Ok(())) => {}
                (a, b) => prop_assert!(false, "{a:?} against {b:?}"),
            }
            for (c, d) in dists.iter().enumerate() {
                let (x, y) = (fast.component(c), naive.component(c));
                prop_assert_eq!(x.len(), y.len());
                for (&p, &q) in relative(x, d).iter().zip(&relative(y, d)) {
                    prop_assert!(close(p, q), "component {c}: {p} against {q}");
                }
            }
            prop_assert!(close(fast.off_probability, naive.off_probability)
                || (fast.off_probability - naive.off_probability).abs() < 1e-15);
            prop_assert_eq!(
                (fast.off_safe, fast.off_mine, fast.off_mines),
                (naive.off_safe, naive.off_mine, naive.off_mines)
            );
            let (p, q) = (
                fast.layouts.map(|l| l.ln()).unwrap_or(0.0),
                naive.layouts.map(|l| l.ln()).unwrap_or(0.0),
            );
            prop_assert!((p - q).abs() <= 1e-9 * p.abs().max(1.0), "{p} against {q} layouts");
        }
    }

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
