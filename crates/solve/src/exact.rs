//! Exact counting of the layouts of one frontier component, by number of mines, and each
//! variable's share of them.
//!
//! The variables of a component are assigned one at a time in an order that keeps few
//! constraints *open* (some of their variables assigned, some not). The state after a
//! prefix of the order is the partial sum of every open constraint, packed four bits a
//! constraint into a `u64`; layouts of the prefix with the same state extend in exactly
//! the same ways, so they are merged and counted, by mines placed so far (the forward
//! pass). The cost grows with the number of distinct states, which the order keeps small:
//! it follows the frontier, so the open constraints are those across one cut of it.
//!
//! A backward pass over the same states, seeded with a weight for each mine total of the
//! component (from the rest of the board, see `global`), gives the weighted count of
//! layouts in which each variable holds each possible number of mines.
//!
//! Counts are `f64`: exact integers up to 2^53, rounded to 53 bits beyond. A count is never
//! rounded to zero, and every weight is positive where a layout exists, so a cell is called
//! certain only when no layout, however unlikely, disagrees.
//!
//! The order is chosen greedily, following the frontier. Every layer's counts, spans and edges
//! lie one after another in one vector of each kind; the keys, which only the forward pass
//! reads, in two vectors taken in turn.

#![allow(
    clippy::indexing_slicing,
    reason = "indices are state, step and mine-count positions of vectors sized for them in the same function"
)]

use crate::few::Few;
use crate::frontier::{Constraint, FastMap, Var};

/// Binomial coefficients `C(m, x)` for `m, x <= 8`.
const BINOMIAL: [[f64; 9]; 9] = {
    let mut t = [[0.0; 9]; 9];
    let mut m = 0;
    while m < 9 {
        t[m][0] = 1.0;
        let mut x = 1;
        while x <= m {
            t[m][x] = t[m - 1][x - 1] + if x < m { t[m - 1][x] } else { 0.0 };
            x += 1;
        }
        m += 1;
    }
    t
};

/// Layers with fewer states than this find states by a scan rather than a hash map.
const SCAN: usize = 24;

/// What one step does to one open constraint.
#[derive(Debug, Clone, Copy, Default)]
struct Touch {
    /// Four-bit slot of the constraint in the state.
    shift: u32,
    /// Mines the constraint needs in all.
    need: u8,
    /// Whether this step assigns its last variable.
    closes: bool,
    /// Cells of its variables after this step: the most mines it can still receive.
    room_after: u8,
}

/// One variable's step.
#[derive(Debug, Clone)]
struct Step {
    /// The variable's id in the frontier.
    var: u32,
    /// Its cells.
    m: usize,
    touches: Few<Touch>,
}

/// The states after a prefix of the order: where its figures lie in the component's
/// vectors ([`Counted`] keeps every layer's in one vector of each kind).
#[derive(Debug, Clone, Copy)]
struct Layer {
    /// How many states.
    states: usize,
    /// Layout counts, `width` per state, by mines in the prefix, from `counts_at`.
    width: usize,
    counts_at: usize,
    /// Its states' spans, from `span_at`.
    span_at: usize,
    /// Its states' edges, `m + 1` per state, from `edges_at` (none for the last layer).
    edges_at: usize,
}

/// Why a component was not counted exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OverBudget {
    /// More open constraints at once than a state holds.
    Width,
    /// More states in one layer than the budget allows.
    States,
}

/// A component after the forward pass.
#[derive(Debug, Clone)]
pub(crate) struct Counted {
    steps: Vec<Step>,
    layers: Vec<Layer>,
    /// Every layer's layout counts, one after the other.
    counts: Vec<f64>,
    /// For each state of each layer, the first and last mine count its layouts may have:
    /// the counts outside are zero and are skipped (`(1, 0)`: none).
    span: Vec<(usize, usize)>,
    /// For each state of each layer but the last and each mine count `x` of the next
    /// variable, the state of the next layer it leads to (`u32::MAX`: none).
    edges: Vec<u32>,
}

impl Counted {
    /// Heap bytes of its steps and layers.
    pub(crate) fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.counts.capacity() * size_of::<f64>()
            + self.span.capacity() * size_of::<(usize, usize)>()
            + self.edges.capacity() * size_of::<u32>()
            + self.steps.capacity() * size_of::<Step>()
            + self.layers.capacity() * size_of::<Layer>()
    }

    /// Layouts of the component by number of mines (empty: none meets its constraints).
    pub(crate) fn distribution(&self) -> &[f64] {
        match self.layers.last() {
            Some(last) if last.states > 0 => &self.counts[last.counts_at..][..last.width],
            _ => &[],
        }
    }
}

/// Counts the layouts of the component made of `vars` (ids into `all_vars`), placing at most
/// `max_mines` mines, with at most `max_states` states in a layer.
pub(crate) fn count(
    vars: &[u32],
    own: &[u32],
    all_vars: &[Var],
    constraints: &[Constraint],
    max_mines: usize,
    max_states: usize,
) -> Result<Counted, OverBudget> {
    let steps = plan(vars, own, all_vars, constraints)?;
    let mut layers = Vec::with_capacity(steps.len() + 1);
    layers.push(Layer {
        states: 1,
        width: 1,
        counts_at: 0,
        span_at: 0,
        edges_at: 0,
    });
    let (mut counts, mut span, mut edges) = (vec![1.0], vec![(0, 0)], Vec::new());
    // The keys of the last layer and of the one being built: only the forward pass needs
    // them, so two vectors serve every layer.
    let (mut keys, mut next_keys): (Vec<u64>, Vec<u64>) = (vec![0], Vec::new());
    let mut map: FastMap<u64, u32> = FastMap::default();
    for step in &steps {
        let Some(layer) = layers.last_mut() else {
            break;
        };
        let m = step.m;
        let width = (layer.width + m).min(max_mines + 1);
        let most = (layer.states * (m + 1)).min(max_states + 1);
        let (counts_at, span_at) = (counts.len(), span.len());
        next_keys.clear();
        // The map of a much larger layer before is dropped rather than cleared, which would
        // cost its whole capacity at every step after it.
        if map.capacity() > 4 * most.max(SCAN) {
            map = FastMap::default();
        } else {
            map.clear();
        }
        counts.reserve(most * width);
        span.reserve(most);
        layer.edges_at = edges.len();
        edges.resize(layer.edges_at + layer.states * (m + 1), u32::MAX);
        let layer = *layer;
        for (i, &key) in keys.iter().enumerate() {
            let (lo, hi) = span[layer.span_at + i];
            let from_at = layer.counts_at + i * layer.width;
            #[allow(
                clippy::needless_range_loop,
                reason = "x is a mine count, not only an index"
            )]
            'x: for x in 0..=m {
                if lo > hi || lo + x >= width {
                    continue;
                }
                let mut next = key;
                for t in &step.touches {
                    let sum = (next >> t.shift & 15) as u8 + x as u8;
                    if sum > t.need || (t.closes && sum != t.need) || sum + t.room_after < t.need {
                        continue 'x;
                    }
                    next &= !(15 << t.shift);
                    if !t.closes {
                        next |= u64::from(sum) << t.shift;
                    }
                }
                let found = if next_keys.len() < SCAN {
                    next_keys.iter().position(|&k| k == next).map(|j| j as u32)
                } else {
                    if map.is_empty() {
                        map.reserve(most);
                        map.extend(next_keys.iter().enumerate().map(|(j, &k)| (k, j as u32)));
                    }
                    map.get(&next).copied()
                };
                let j = match found {
                    Some(j) => j,
                    None => {
                        next_keys.push(next);
                        counts.resize(counts.len() + width, 0.0);
                        span.push((usize::MAX, 0));
                        let j = (next_keys.len() - 1) as u32;
                        if !map.is_empty() {
                            map.insert(next, j);
                        }
                        j
                    }
                };
                if next_keys.len() > max_states {
                    return Err(OverBudget::States);
                }
                edges[layer.edges_at + i * (m + 1) + x] = j;
                let c = BINOMIAL[m][x];
                let top = hi.min(width - 1 - x);
                // The last layer's counts lie before the new layer's, so both can be had.
                let (before, new) = counts.split_at_mut(counts_at);
                let from = &before[from_at..from_at + layer.width];
                let to = &mut new[j as usize * width + lo + x..=j as usize * width + top + x];
                for (slot, &n) in to.iter_mut().zip(&from[lo..=top]) {
                    *slot += n * c;
                }
                let s = &mut span[span_at + j as usize];
                *s = (s.0.min(lo + x), s.1.max(top + x));
            }
        }
        layers.push(Layer {
            states: next_keys.len(),
            width,
            counts_at,
            span_at,
            edges_at: edges.len(),
        });
        std::mem::swap(&mut keys, &mut next_keys);
    }
    Ok(Counted {
        steps,
        layers,
        counts,
        span,
        edges,
    })
}

/// The steps: an order of the variables that keeps few constraints open, and what each
/// step does to the constraints it touches.
fn plan(
    vars: &[u32],
    own: &[u32],
    all_vars: &[Var],
    constraints: &[Constraint],
) -> Result<Vec<Step>, OverBudget> {
    // Local numbering of the component's constraints: their place in `own`, which is sorted.
    let local = |c: &u32| own.binary_search(c).unwrap_or(0);
    let mut left = vec![0usize; own.len()]; // unassigned variables of each constraint
    let mut room = vec![0usize; own.len()]; // unassigned cells of each constraint
    for v in vars {
        let var = &all_vars[*v as usize];
        for c in &var.constraints {
            let l = local(c);
            left[l] += 1;
            room[l] += var.cells.len();
        }
    }
    // The variables of each constraint: `of_constraint[first[l]..first[l + 1]]`.
    let mut first = vec![0usize; own.len() + 1];
    for l in 0..own.len() {
        first[l + 1] = first[l] + left[l];
    }
    let mut of_constraint = vec![0usize; first[own.len()]];
    let mut next = first.clone();
    for (i, v) in vars.iter().enumerate() {
        for c in &all_vars[*v as usize].constraints {
            let l = local(c);
            of_constraint[next[l]] = i;
            next[l] += 1;
        }
    }
    let mut placed = vec![false; vars.len()];
    let mut candidate = vec![false; vars.len()];
    let mut candidates: Vec<usize> = Vec::new();
    let mut slot_of: Vec<Option<u32>> = vec![None; own.len()];
    let mut free_slots: u32 = 0xFFFF;
    let mut steps = Vec::with_capacity(vars.len());
    for _ in 0..vars.len() {
        candidates.retain(|&i| !placed[i]);
        // The next variable: among those touching an open constraint, the one that opens
        // the fewest new constraints less those it closes; the first unplaced otherwise.
        let score = |i: usize| {
            let var = &all_vars[vars[i] as usize];
            var.constraints.iter().fold(0i32, |s, c| {
                let l = local(c);
                s + i32::from(slot_of[l].is_none()) - i32::from(left[l] == 1)
            })
        };
        let pick = candidates
            .iter()
            .copied()
            .min_by_key(|&i| (score(i), i))
            .or_else(|| placed.iter().position(|p| !p));
        let Some(i) = pick else { break };
        placed[i] = true;
        let var = &all_vars[vars[i] as usize];
        let m = var.cells.len();
        let mut touches = Few::new();
        for c in &var.constraints {
            let l = local(c);
            let slot = match slot_of[l] {
                Some(s) => s,
                None => {
                    if free_slots == 0 {
                        return Err(OverBudget::Width);
                    }
                    let s = free_slots.trailing_zeros();
                    free_slots &= !(1 << s);
                    slot_of[l] = Some(s);
                    for &other in &of_constraint[first[l]..first[l + 1]] {
                        if !placed[other] && !candidate[other] {
                            candidate[other] = true;
                            candidates.push(other);
                        }
                    }
                    s
                }
            };
            left[l] -= 1;
            room[l] -= m;
            touches.push(Touch {
                shift: 4 * slot,
                need: constraints[*c as usize].need,
                closes: left[l] == 0,
                room_after: room[l].min(15) as u8,
            });
            if left[l] == 0 {
                free_slots |= 1 << slot;
            }
        }
        steps.push(Step {
            var: vars[i],
            m,
            touches,
        });
    }
    Ok(steps)
}

/// For each variable of a counted component, the weighted count of layouts in which it
/// holds `x` mines, for `x` in `0..=m`; `weights[k]` weighs the layouts with `k` mines in
/// the component. Returned as `(variable id, counts)` in step order.
pub(crate) fn shares(counted: &Counted, weights: &[f64]) -> Vec<(u32, [f64; 9])> {
    let n = counted.steps.len();
    let mut out = vec![(0, [0.0; 9]); n];
    let Some(last) = counted.layers.last() else {
        return out;
    };
    // The backward weights of the last layer: one state (every constraint closed).
    let mut after: Vec<f64> = (0..last.states * last.width)
        .map(|i| weights.get(i % last.width).copied().unwrap_or(0.0))
        .collect();
    let mut before = Vec::new();
    for t in (0..n).rev() {
        let (layer, next) = (&counted.layers[t], &counted.layers[t + 1]);
        let m = counted.steps[t].m;
        before.clear();
        before.resize(layer.states * layer.width, 0.0);
        let mut by_x = [0.0; 9];
        for i in 0..layer.states {
            let (lo, hi) = counted.span[layer.span_at + i];
            if lo > hi {
                continue;
            }
            let from = &counted.counts[layer.counts_at + i * layer.width..][..layer.width];
            let back = &mut before[i * layer.width..(i + 1) * layer.width];
            for (x, total) in by_x.iter_mut().enumerate().take(m + 1) {
                let j = counted.edges[layer.edges_at + i * (m + 1) + x];
                if j == u32::MAX {
                    continue;
                }
                let c = BINOMIAL[m][x];
                let ahead = &after[j as usize * next.width..(j as usize + 1) * next.width];
                for k in lo..=hi {
                    let g = ahead.get(k + x).copied().unwrap_or(0.0) * c;
                    back[k] += g;
                    *total += from[k] * g;
                }
            }
        }
        out[t] = (counted.steps[t].var, by_x);
        std::mem::swap(&mut after, &mut before);
    }
    out
}

/// Multiplicity of a step's variable, by variable id.
pub(crate) fn multiplicity(counted: &Counted, var: u32) -> usize {
    counted
        .steps
        .iter()
        .find(|s| s.var == var)
        .map_or(0, |s| s.m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials() {
        assert_eq!(BINOMIAL[8][4], 70.0);
        assert_eq!(BINOMIAL[5][0], 1.0);
        assert_eq!(BINOMIAL[5][5], 1.0);
        assert_eq!(BINOMIAL[3][4], 0.0);
    }
}
