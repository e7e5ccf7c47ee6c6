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
//!
//! A small component (at most 32 variables, 16 constraints and 53 cells, and a few thousand
//! steps) is counted by [`enumerate`] instead: a walk of every layout, variable by variable
//! in the order of their ids, keeping each layout with its mines and its product of
//! binomials. Its distribution is the forward pass's bit for bit (every sum is an exact
//! integer below 2^53); its shares are the same sums taken layout by layout, which round
//! otherwise than the backward pass's by an ulp or so. The forward and backward passes are
//! its twin in the tests, and count every component it declines.

#![allow(
    clippy::indexing_slicing,
    reason = "indices are state, step and mine-count positions of vectors sized for them in the same function"
)]

use crate::few::Few;
use crate::frontier::{Constraint, FastMap, Var, bytes};

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

/// [`BINOMIAL`] padded with zeros to 16 by 16, so that the walk's indices, masked to four
/// bits, need no bounds check.
const WALK_BINOMIAL: [[f64; 16]; 16] = {
    let mut t = [[0.0; 16]; 16];
    let mut m = 0;
    while m < 9 {
        let mut x = 0;
        while x < 9 {
            t[m][x] = BINOMIAL[m][x];
            x += 1;
        }
        m += 1;
    }
    t
};

/// Layers with fewer states than this find states by a scan rather than a hash map.
const SCAN: usize = 24;

/// What one step does to one open constraint.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Touch {
    /// Four-bit slot of the constraint in the state.
    shift: u32,
    /// Mines the constraint needs in all.
    need: u8,
    /// Whether this step assigns its last variable.
    closes: bool,
    /// Cells of its variables after this step: the most mines it can still receive.
    room_after: u8,
    /// Whether this step opens it: its slot then holds no sum yet, whatever a constraint
    /// the same step closes left in it (a freed slot is taken again at once).
    opens: bool,
}

/// One variable's step.
#[derive(Debug, Clone, PartialEq)]
struct Step {
    /// The variable's id in the frontier.
    var: u32,
    /// Its cells.
    m: usize,
    touches: Few<Touch>,
    /// The state's bits that stay: all but the slots of the constraints it closes.
    keep: u64,
    /// One in the slot of each constraint it touches and leaves open: the next state is
    /// the state's kept bits plus `x` times this, for `x` mines on the variable.
    inc: u64,
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

/// A component after the forward pass. Its vectors are kept from one count to the next
/// ([`count`] clears them), so a solver that counts again allocates nothing new.
#[derive(Debug, Clone, Default)]
pub(crate) struct Counted {
    steps: Vec<Step>,
    layers: Vec<Layer>,
    /// Every layer's layout counts, one after the other: the first `counts_used`, each
    /// state's meaningful only within its span but for the last layer's (the room past
    /// them is kept from earlier counts).
    counts: Vec<f64>,
    counts_used: usize,
    /// For each state of each layer, the first and last mine count its layouts may have:
    /// the counts outside are zero and are skipped (`(1, 0)`: none).
    span: Vec<(usize, usize)>,
    /// For each state of each layer but the last and each mine count `x` of the next
    /// variable, the state of the next layer it leads to (`u32::MAX`: none).
    edges: Vec<u32>,
    /// Whether [`enumerate`] counted it, walking every layout: then `small`, `leaves`,
    /// `leaf_x` and `dist` hold the count, and the layers above are not read.
    enumerated: bool,
    /// The enumerated component's variables, `(id, cells)`, in the order walked.
    small: Vec<(u32, usize)>,
    /// The enumerated component's layouts, in the order walked: each one's mines in all
    /// and the product of its variables' binomials (the layouts it stands for).
    leaves: Vec<(usize, f64)>,
    /// The mines on each variable of `small` (the first `small.len()`), for each layout of
    /// `leaves` in turn.
    leaf_x: Vec<[u8; SMALL_VARS]>,
    /// The enumerated component's layouts by number of mines (empty: none).
    dist: Vec<f64>,
}

impl Counted {
    /// Bytes of its steps and layers: those they use, or with `held` those their vectors
    /// hold (kept from earlier counts too).
    pub(crate) fn heap_bytes(&self, held: bool) -> usize {
        // Only the way it was counted is in use; with `held`, both ways' vectors count.
        let enumerated = bytes(&self.small, held)
            + bytes(&self.leaves, held)
            + bytes(&self.leaf_x, held)
            + bytes(&self.dist, held);
        if self.enumerated && !held {
            return enumerated;
        }
        let counts = if held {
            bytes(&self.counts, true)
        } else {
            std::mem::size_of::<f64>() * self.counts_used
        };
        let passes = counts
            + bytes(&self.span, held)
            + bytes(&self.edges, held)
            + bytes(&self.steps, held)
            + bytes(&self.layers, held);
        if held { passes + enumerated } else { passes }
    }

    /// Layouts of the component by number of mines (empty: none meets its constraints).
    pub(crate) fn distribution(&self) -> &[f64] {
        if self.enumerated {
            return &self.dist;
        }
        match self.layers.last() {
            Some(last) if last.states > 0 => &self.counts[last.counts_at..][..last.width],
            _ => &[],
        }
    }
}

/// Buffers the counting reuses from one component, and one solve, to the next: the plan's
/// bookkeeping, the forward pass's keys and map, and the backward pass's weights.
#[derive(Debug, Default)]
pub(crate) struct Work {
    keys: Vec<u64>,
    next_keys: Vec<u64>,
    map: FastMap<u64, u32>,
    // The plan's bookkeeping, indexed by the frontier's constraint and variable ids: only
    // the entries of the component being planned are set and read, the others are stale.
    /// Each constraint's variables not yet placed.
    left: Vec<usize>,
    /// Each constraint's cells not yet placed.
    room: Vec<usize>,
    /// Each constraint's slot in the state, once open.
    slot_of: Vec<Option<u32>>,
    placed: Vec<bool>,
    candidate: Vec<bool>,
    /// Each variable's score in the plan: the constraints it would open less those it
    /// would close, kept up to date as variables are placed.
    scores: Vec<i32>,
    /// The variables that touch an open constraint (some perhaps placed since).
    candidates: Vec<u32>,
    after: Vec<f64>,
    before: Vec<f64>,
    /// [`enumerate`]'s bookkeeping: each constraint's place in the component (indexed by
    /// the frontier's ids; only the component's entries are set and read), and each
    /// variable's step of the walk.
    place_of: Vec<u8>,
    walk: Vec<Walk>,
    places: Places,
}

/// One variable's step of [`enumerate`]'s walk.
#[derive(Debug, Clone, Copy, Default)]
struct Walk {
    /// Its cells.
    m: u8,
    /// How many of `touches` are used.
    len: u8,
    /// The constraints it touches: each one's slot in the walk's packed needs (four bits
    /// a constraint, by its place in the component), and its cells left after this
    /// variable (the most mines it can still receive).
    touches: [(u8, u8); 8],
    /// One in the slot of each constraint it touches: `x` mines on the variable take `x`
    /// times this from the packed needs.
    inc: u64,
}

/// [`enumerate`]'s walk, by place: the mines on each variable and the most it may take,
/// and for the variables before each place their binomials' product and their mines. Kept
/// in [`Work`], so that a walk sets only the first place's.
#[derive(Debug, Clone)]
struct Places {
    x: [u8; 2 * SMALL_VARS],
    high: [u8; 2 * SMALL_VARS],
    weight: [f64; 2 * SMALL_VARS],
    mines: [usize; 2 * SMALL_VARS],
}

impl Default for Places {
    fn default() -> Places {
        Places {
            x: [0; 2 * SMALL_VARS],
            high: [0; 2 * SMALL_VARS],
            weight: [1.0; 2 * SMALL_VARS],
            mines: [0; 2 * SMALL_VARS],
        }
    }
}

/// One component as the count reads it: its variables and its constraints (ids, sorted)
/// within the frontier's lists of each.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Part<'a> {
    pub(crate) vars: &'a [u32],
    pub(crate) own: &'a [u32],
    pub(crate) all_vars: &'a [Var],
    pub(crate) constraints: &'a [Constraint],
    /// The variables of every constraint of the frontier (see
    /// [`Frontier::vars_by_constraint`](crate::frontier::Frontier::vars_by_constraint)).
    pub(crate) vars_by_constraint: (&'a [usize], &'a [u32]),
}

/// Counts the layouts of the component `part`, placing at most `max_mines` mines, with at
/// most `max_states` states in a layer, into `out` (whose vectors are reused), with `work`'s
/// buffers.
pub(crate) fn count(
    part: Part<'_>,
    max_mines: usize,
    max_states: usize,
    out: &mut Counted,
    work: &mut Work,
) -> Result<(), OverBudget> {
    out.enumerated = false;
    plan(part, &mut out.steps, work)?;
    // The twin of the plan, checked in every test that counts.
    #[cfg(test)]
    {
        let mut naive = Vec::new();
        plan_naive(part, &mut naive)?;
        assert_eq!(out.steps, naive, "the plan from the frontier's lists");
    }
    forward(max_mines, max_states, out, work)
}

/// The forward pass over `out`'s steps: the states of each layer, their layout counts by
/// mines placed, and the edges between them. A layer's counts are written only within
/// each state's span: the room for them is grown, never cleared, so a new state's counts
/// are set where [`forward_naive`], its twin, adds them to zeros, and the counts a state
/// takes in later are zeroed only where its span grows. The sums are the same, term for
/// term.
fn forward(
    max_mines: usize,
    max_states: usize,
    out: &mut Counted,
    work: &mut Work,
) -> Result<(), OverBudget> {
    let Counted {
        steps,
        layers,
        counts,
        counts_used,
        span,
        edges,
        ..
    } = out;
    layers.clear();
    layers.push(Layer {
        states: 1,
        width: 1,
        counts_at: 0,
        span_at: 0,
        edges_at: 0,
    });
    if counts.is_empty() {
        counts.push(0.0);
    }
    counts[0] = 1.0;
    *counts_used = 1;
    span.clear();
    span.push((0, 0));
    edges.clear();
    // The keys of the last layer and of the one being built: only the forward pass needs
    // them, so two vectors serve every layer.
    let Work {
        keys,
        next_keys,
        map,
        ..
    } = work;
    keys.clear();
    keys.push(0);
    map.clear();
    for step in steps.iter() {
        let Some(layer) = layers.last_mut() else {
            break;
        };
        let m = step.m;
        let width = (layer.width + m).min(max_mines + 1);
        let most = (layer.states * (m + 1)).min(max_states + 1);
        let (counts_at, span_at) = (*counts_used, span.len());
        next_keys.clear();
        // The map of a much larger layer before is dropped rather than cleared, which would
        // cost its whole capacity at every step after it.
        if map.capacity() > 4 * most.max(SCAN) {
            *map = FastMap::default();
        } else {
            map.clear();
        }
        // Room for as many states as the layer may have, beyond what earlier counts left
        // (never read outside a span, so never cleared).
        if counts.len() < counts_at + most * width {
            counts.resize(counts_at + most * width, 0.0);
        }
        span.reserve(most);
        layer.edges_at = edges.len();
        edges.resize(layer.edges_at + layer.states * (m + 1), u32::MAX);
        let layer = *layer;
        // This layer's edges, and the counts of the last layer and of this one, as plain
        // slices (see `plan`); the last layer's lie before this one's.
        let layer_edges = &mut edges[layer.edges_at..];
        let (before, new) = counts.split_at_mut(counts_at);
        let before = &before[layer.counts_at..];
        let binomials = &BINOMIAL[m];
        for (i, &key) in keys.iter().enumerate() {
            let (lo, hi) = span[layer.span_at + i];
            if lo > hi {
                continue;
            }
            let from = &before[i * layer.width..(i + 1) * layer.width];
            let (xs, key_kept) = (mine_counts(step, key, width - 1 - lo), key & step.keep);
            let edges_of = &mut layer_edges[i * (m + 1)..(i + 1) * (m + 1)];
            for x in xs {
                let next = key_kept + x as u64 * step.inc;
                let found = if next_keys.len() < SCAN {
                    next_keys.iter().position(|&k| k == next)
                } else {
                    if map.is_empty() {
                        map.reserve(most);
                        map.extend(next_keys.iter().enumerate().map(|(j, &k)| (k, j as u32)));
                    }
                    map.get(&next).map(|&j| j as usize)
                };
                let c = binomials[x];
                let top = hi.min(width - 1 - x);
                let (a, b) = (lo + x, top + x);
                let from = &from[lo..=top];
                let j = match found {
                    Some(j) => {
                        // Zero what the span takes in, then add.
                        let to = &mut new[j * width..(j + 1) * width];
                        let s = &mut span[span_at + j];
                        to[a.min(s.0)..s.0].fill(0.0);
                        to[s.1 + 1..b.max(s.1) + 1].fill(0.0);
                        for (slot, &n) in to[a..=b].iter_mut().zip(from) {
                            *slot += n * c;
                        }
                        *s = (s.0.min(a), s.1.max(b));
                        j
                    }
                    None => {
                        let j = next_keys.len();
                        if j >= max_states {
                            return Err(OverBudget::States);
                        }
                        next_keys.push(next);
                        if !map.is_empty() {
                            map.insert(next, j as u32);
                        }
                        let to = &mut new[j * width..(j + 1) * width];
                        for (slot, &n) in to[a..=b].iter_mut().zip(from) {
                            *slot = n * c;
                        }
                        span.push((a, b));
                        j
                    }
                };
                edges_of[x] = j as u32;
            }
        }
        *counts_used = counts_at + next_keys.len() * width;
        layers.push(Layer {
            states: next_keys.len(),
            width,
            counts_at,
            span_at,
            edges_at: edges.len(),
        });
        std::mem::swap(keys, next_keys);
    }
    // The last layer's counts are read whole (`Counted::distribution`): zero them outside
    // each state's span.
    if let Some(last) = layers.last() {
        for i in 0..last.states {
            let (lo, hi) = span[last.span_at + i];
            let row = &mut counts[last.counts_at + i * last.width..][..last.width];
            row[..lo.min(last.width)].fill(0.0);
            row[(hi + 1).min(last.width)..].fill(0.0);
        }
    }
    Ok(())
}

/// Most variables a component [`enumerate`] walks may have.
const SMALL_VARS: usize = 32;

/// Most constraints a component [`enumerate`] walks may have: as many as a state of the
/// forward pass holds open, so that no component it counts is one the forward pass would
/// give up on for its width.
const SMALL_CONSTRAINTS: usize = 16;

/// Masks a constraint's place in [`enumerate`]'s arrays of `SMALL_CONSTRAINTS`.
const MASK: u8 = SMALL_CONSTRAINTS as u8 - 1;

/// Masks a variable's place in [`enumerate`]'s arrays of `2 * SMALL_VARS`.
const PLACES: usize = 2 * SMALL_VARS - 1;

/// Most cells a component [`enumerate`] walks may have: its layouts, weighted by their
/// binomials, then number at most `2^53`, so every sum of them is an exact `f64`, the
/// forward pass's as well, and both give the same distribution bit for bit.
const SMALL_CELLS: usize = 53;

/// Most steps (partial layouts entered, plus a variable's worth for each layout found)
/// [`enumerate`] takes before it gives the component back to the forward pass.
const SMALL_STEPS: usize = 1 << 13;

/// Counts a small component by walking each of its layouts, variable by variable in the
/// order of their ids, into `out`'s `dist`, `leaves` and `leaf_x`. The expert stalls' components
/// mostly have a few dozen layouts, where the plan, the layers and the backward pass cost
/// more than the walk. Returns `false`, with `out` not counted, for a component past the
/// `SMALL_*` bounds, one whose forward pass could meet `max_states` (as many states in a
/// layer as the products of its variables' choices), one with more layouts than
/// `SMALL_STEPS` allows, or one with a number that needs more than 8 mines (none on a
/// board: the needs are packed four bits each); [`count`] counts those.
pub(crate) fn enumerate(
    part: Part<'_>,
    max_mines: usize,
    max_states: usize,
    out: &mut Counted,
    work: &mut Work,
) -> bool {
    let Part {
        vars,
        own,
        all_vars,
        constraints,
        ..
    } = part;
    let n = vars.len();
    if n == 0 || n > SMALL_VARS || own.len() > SMALL_CONSTRAINTS {
        return false;
    }
    let mut cells = 0;
    let mut choices = 1usize;
    for &v in vars {
        let m = all_vars[v as usize].cells.len();
        cells += m;
        choices = choices.saturating_mul(m + 1);
    }
    if cells > SMALL_CELLS || choices > max_states {
        return false;
    }
    let Work {
        place_of,
        walk,
        places,
        ..
    } = work;
    grow(place_of, constraints.len(), 0);
    // What each constraint still needs, four bits each by its place in the component (the
    // places are below `SMALL_CONSTRAINTS`, 16, so they fill one word, and a need is at
    // most 8), and the cells of it still to walk (masked likewise, so every index is in
    // bounds).
    let mut still = 0u64;
    let mut room = [0u8; SMALL_CONSTRAINTS];
    for (i, &c) in own.iter().enumerate() {
        let constraint = &constraints[c as usize];
        if constraint.need > 8 {
            return false;
        }
        place_of[c as usize] = i as u8;
        still |= u64::from(constraint.need) << (4 * i);
        room[i & usize::from(MASK)] = constraint.cells().len() as u8;
    }
    let Counted {
        small,
        leaves,
        leaf_x,
        dist,
        ..
    } = out;
    small.clear();
    walk.clear();
    for &v in vars {
        let var = &all_vars[v as usize];
        let m = var.cells.len();
        small.push((v, m));
        let mut step = Walk {
            m: m as u8,
            ..Walk::default()
        };
        for &c in var.constraints.iter() {
            let i = place_of[c as usize] & MASK;
            let left = &mut room[usize::from(i)];
            *left = left.saturating_sub(m as u8);
            step.touches[usize::from(step.len) & 7] = (4 * i, *left);
            step.len += 1;
            step.inc |= 1 << (4 * i);
        }
        walk.push(step);
    }
    let width = cells.min(max_mines) + 1;
    leaves.clear();
    leaf_x.clear();
    dist.clear();
    dist.resize(width, 0.0);
    // The walk: `x[p]` mines on the variable at place `p`, up to `high[p]`; `still` holds
    // what each constraint needs beyond the mines placed, `weight[p]` and `mines[p]` the
    // binomials' product and the mines of places before `p`. Places are below
    // `SMALL_VARS + 1`, masked likewise. A constraint's need never falls below zero (no
    // variable takes more than the least of its constraints' needs), so the packed needs
    // are taken from and given back to with no borrow between slots.
    let walk = &walk[..n];
    let Places {
        x,
        high,
        weight,
        mines,
    } = places;
    weight[0] = 1.0;
    mines[0] = 0;
    let mut steps = 0;
    let mut p = 0;
    'walk: loop {
        if let Some(step) = walk.get(p) {
            let m = usize::from(step.m);
            let mut low = 0i32;
            let mut top = m.min(max_mines - mines[p & PLACES]) as i32;
            for &(shift, left_after) in &step.touches[..usize::from(step.len)] {
                let need = (still >> shift & 15) as i32;
                low = low.max(need - i32::from(left_after));
                top = top.min(need);
            }
            if low <= top {
                x[p & PLACES] = low as u8;
                high[p & PLACES] = top as u8;
                still -= low as u64 * step.inc;
                weight[(p + 1) & PLACES] =
                    weight[p & PLACES] * WALK_BINOMIAL[m & 15][low as usize & 15];
                mines[(p + 1) & PLACES] = mines[p & PLACES] + low as usize;
                p += 1;
                steps += 1;
                if steps > SMALL_STEPS {
                    return false;
                }
                continue;
            }
        } else {
            let (t, w) = (mines[n & PLACES], weight[n & PLACES]);
            dist[t] += w;
            leaves.push((t, w));
            let mut xs = [0u8; SMALL_VARS];
            xs.copy_from_slice(&x[..SMALL_VARS]);
            leaf_x.push(xs);
            steps += n;
        }
        // Back to the last place with a count left to try.
        while p > 0 {
            p -= 1;
            let step = &walk[p];
            let xp = x[p & PLACES];
            if xp < high[p & PLACES] {
                x[p & PLACES] = xp + 1;
                still -= step.inc;
                weight[(p + 1) & PLACES] = weight[p & PLACES]
                    * WALK_BINOMIAL[usize::from(step.m) & 15][usize::from(xp + 1) & 15];
                mines[(p + 1) & PLACES] = mines[p & PLACES] + usize::from(xp + 1);
                p += 1;
                continue 'walk;
            }
            still += u64::from(xp) * step.inc;
        }
        break;
    }
    if dist.iter().all(|&d| d == 0.0) {
        dist.clear();
    }
    out.enumerated = true;
    true
}

/// [`shares`] of an enumerated component: each variable's layouts by its mines and the
/// total, weighed by the total.
fn shares_enumerated(counted: &Counted, weights: &[f64], out: &mut Vec<Share>) {
    out.clear();
    out.extend(counted.small.iter().map(|&(var, m)| Share {
        var,
        m,
        z: [0.0; 9],
    }));
    for (&(t, w), xs) in counted.leaves.iter().zip(&counted.leaf_x) {
        let g = w * weights.get(t).copied().unwrap_or(0.0);
        for (share, &x) in out.iter_mut().zip(xs) {
            share.z[usize::from(x)] += g;
        }
    }
}

/// [`count`] the way it was first written, its twin: the plan by [`plan_naive`], and each
/// layer's counts zeroed as its states are found, then added to.
#[cfg(test)]
pub(crate) fn count_naive(
    part: Part<'_>,
    max_mines: usize,
    max_states: usize,
    out: &mut Counted,
    work: &mut Work,
) -> Result<(), OverBudget> {
    out.enumerated = false;
    let Counted {
        steps,
        layers,
        counts,
        counts_used,
        span,
        edges,
        ..
    } = out;
    plan_naive(part, steps)?;
    layers.clear();
    layers.push(Layer {
        states: 1,
        width: 1,
        counts_at: 0,
        span_at: 0,
        edges_at: 0,
    });
    counts.clear();
    counts.push(1.0);
    span.clear();
    span.push((0, 0));
    edges.clear();
    // The keys of the last layer and of the one being built: only the forward pass needs
    // them, so two vectors serve every layer.
    let Work {
        keys,
        next_keys,
        map,
        ..
    } = work;
    keys.clear();
    keys.push(0);
    map.clear();
    for step in steps.iter() {
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
            *map = FastMap::default();
        } else {
            map.clear();
        }
        counts.reserve(most * width);
        span.reserve(most);
        layer.edges_at = edges.len();
        edges.resize(layer.edges_at + layer.states * (m + 1), u32::MAX);
        let layer = *layer;
        // This layer's edges as a plain slice (see `plan`).
        let layer_edges = &mut edges[layer.edges_at..];
        for (i, &key) in keys.iter().enumerate() {
            let (lo, hi) = span[layer.span_at + i];
            if lo > hi {
                continue;
            }
            let from_at = layer.counts_at + i * layer.width;
            let (xs, key_kept) = (mine_counts(step, key, width - 1 - lo), key & step.keep);
            for x in xs {
                let next = key_kept + x as u64 * step.inc;
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
                        counts.extend(std::iter::repeat_n(0.0, width));
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
                layer_edges[i * (m + 1) + x] = j;
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
        std::mem::swap(keys, next_keys);
    }
    *counts_used = counts.len();
    Ok(())
}

/// The mine counts `x` of `step`'s variable that the state `key` can take: those that
/// leave every constraint it touches at most its need, with room left to meet it, and
/// meet the need of each it closes; at most `most` (and at most the variable's cells).
/// Each constraint bounds `x` from both sides, so the counts are one range, found once a
/// state rather than once a count ([`mine_counts_naive`], its twin, tries each count).
fn mine_counts(step: &Step, key: u64, most: usize) -> std::ops::RangeInclusive<usize> {
    let (mut low, mut high) = (0i32, step.m.min(most) as i32);
    for t in &step.touches {
        let old = if t.opens {
            0
        } else {
            (key >> t.shift & 15) as i32
        };
        let need = i32::from(t.need);
        let fewest = if t.closes {
            need
        } else {
            need - i32::from(t.room_after)
        };
        low = low.max(fewest - old);
        high = high.min(need - old);
    }
    if low > high {
        #[allow(clippy::reversed_empty_ranges, reason = "no count fits")]
        return 1..=0;
    }
    low as usize..=high as usize
}

/// [`mine_counts`] the plain way: each count `x` tried against each constraint in turn,
/// with the next state it leads to (the twin of the kept bits plus `x` times `inc`).
#[cfg(test)]
fn mine_counts_naive(step: &Step, key: u64, most: usize) -> Vec<(usize, u64)> {
    let mut out = Vec::new();
    'x: for x in 0..=step.m.min(most) {
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
        out.push((x, next));
    }
    out
}

/// The steps: an order of the variables that keeps few constraints open, and what each
/// step does to the constraints it touches. Works on the frontier's own lists of each
/// constraint's variables, by frontier ids, so nothing is numbered or listed afresh for the
/// component ([`plan_naive`], its twin, does both, and gives the same steps).
fn plan(part: Part<'_>, steps: &mut Vec<Step>, work: &mut Work) -> Result<(), OverBudget> {
    let Part {
        vars,
        own,
        all_vars,
        constraints,
        vars_by_constraint: (first, of_constraint),
    } = part;
    let Work {
        left,
        room,
        slot_of,
        placed,
        candidate,
        scores,
        candidates,
        ..
    } = work;
    grow(left, constraints.len(), 0);
    grow(room, constraints.len(), 0);
    grow(slot_of, constraints.len(), None);
    grow(placed, all_vars.len(), false);
    grow(candidate, all_vars.len(), false);
    grow(scores, all_vars.len(), 0);
    // Plain slices from here on, once each vector has its size: their addresses and
    // lengths stay in registers, where a vector's would be read again from `work` after
    // every store through another.
    let (left, room, slot_of) = (&mut left[..], &mut room[..], &mut slot_of[..]);
    let (placed, candidate, scores) = (&mut placed[..], &mut candidate[..], &mut scores[..]);
    // Unassigned variables and cells of each constraint: all of its variables, and all of
    // its undecided cells (each lies in exactly one variable that touches it).
    for &c in own {
        let c = c as usize;
        left[c] = first[c + 1] - first[c];
        room[c] = constraints[c].cells().len();
        slot_of[c] = None;
    }
    // A variable's score: the constraints it touches that have no slot yet (it would open
    // them) less those it is the last unassigned variable of (it would close them). Kept
    // as constraints open and lose variables, rather than summed afresh at every step.
    for &v in vars {
        let v = v as usize;
        placed[v] = false;
        candidate[v] = false;
        scores[v] = all_vars[v]
            .constraints
            .iter()
            .fold(0i32, |s, &c| s + 1 - i32::from(left[c as usize] == 1));
    }
    candidates.clear();
    let mut free_slots: u32 = 0xFFFF;
    // Every variable of `vars` before this place is placed.
    let mut unplaced = 0;
    steps.clear();
    for _ in 0..vars.len() {
        candidates.retain(|&v| !placed[v as usize]);
        // The naive twin of the kept scores, summed afresh, checked in every test that
        // counts.
        #[cfg(test)]
        for &v in candidates.iter() {
            let naive = all_vars[v as usize].constraints.iter().fold(0i32, |s, &c| {
                s + i32::from(slot_of[c as usize].is_none()) - i32::from(left[c as usize] == 1)
            });
            assert_eq!(scores[v as usize], naive, "kept score of variable {v}");
        }
        // The next variable: among those touching an open constraint, the one that opens
        // the fewest new constraints less those it closes (ties to the lowest id); the
        // first unplaced otherwise.
        let pick = candidates
            .iter()
            .copied()
            .min_by_key(|&v| (scores[v as usize], v))
            .or_else(|| {
                while vars.get(unplaced).is_some_and(|&v| placed[v as usize]) {
                    unplaced += 1;
                }
                vars.get(unplaced).copied()
            });
        let Some(v) = pick else { break };
        placed[v as usize] = true;
        let var = &all_vars[v as usize];
        let m = var.cells.len();
        let mut touches = Few::new();
        let (mut keep, mut inc) = (!0u64, 0u64);
        for &c in var.constraints.iter() {
            let c = c as usize;
            let opens = slot_of[c].is_none();
            let slot = match slot_of[c] {
                Some(s) => s,
                None => {
                    if free_slots == 0 {
                        return Err(OverBudget::Width);
                    }
                    let s = free_slots.trailing_zeros();
                    free_slots &= !(1 << s);
                    slot_of[c] = Some(s);
                    for &other in &of_constraint[first[c]..first[c + 1]] {
                        // Opened: no variable of it opens it any more.
                        let other = other as usize;
                        scores[other] -= 1;
                        if !placed[other] && !candidate[other] {
                            candidate[other] = true;
                            candidates.push(other as u32);
                        }
                    }
                    s
                }
            };
            left[c] -= 1;
            room[c] -= m;
            if left[c] == 1 {
                // Its one unassigned variable now closes it.
                for &other in &of_constraint[first[c]..first[c + 1]] {
                    scores[other as usize] -= 1;
                }
            }
            let closes = left[c] == 0;
            let shift = 4 * slot;
            touches.push(Touch {
                shift,
                need: constraints[c].need,
                closes,
                room_after: room[c].min(15) as u8,
                opens,
            });
            if closes {
                free_slots |= 1 << slot;
                keep &= !(15 << shift);
            } else {
                inc |= 1 << shift;
            }
        }
        steps.push(Step {
            var: v,
            m,
            touches,
            keep,
            inc,
        });
    }
    Ok(())
}

/// Makes `v` at least `n` long, new entries `value`; the entries it has are kept.
fn grow<T: Clone>(v: &mut Vec<T>, n: usize, value: T) {
    if v.len() < n {
        v.resize(n, value);
    }
}

/// [`plan`] the way it was first written, its twin: the component's constraints numbered
/// afresh, with lists of each one's variables built for it.
#[cfg(test)]
fn plan_naive(part: Part<'_>, steps: &mut Vec<Step>) -> Result<(), OverBudget> {
    let Part {
        vars,
        own,
        all_vars,
        constraints,
        ..
    } = part;
    let (mut left, mut room, mut first, mut of_constraint, mut next) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut placed, mut candidate, mut candidates, mut scores, mut slot_of) = (
        Vec::<bool>::new(),
        Vec::new(),
        Vec::<usize>::new(),
        Vec::new(),
        Vec::new(),
    );
    let (mut locals, mut local_of) = (Vec::<Few<u32>>::new(), Vec::new());
    let (left, room, first, of_constraint, next) = (
        &mut left,
        &mut room,
        &mut first,
        &mut of_constraint,
        &mut next,
    );
    let (placed, candidate, candidates, scores, slot_of, locals, local_of) = (
        &mut placed,
        &mut candidate,
        &mut candidates,
        &mut scores,
        &mut slot_of,
        &mut locals,
        &mut local_of,
    );
    // Local numbering of the component's constraints: their place in `own`; each
    // variable's, found once. Every constraint of a variable of the component is in `own`.
    if local_of.len() < constraints.len() {
        local_of.resize(constraints.len(), 0);
    }
    for (l, &c) in own.iter().enumerate() {
        local_of[c as usize] = l as u32;
    }
    locals.clear();
    locals.extend(vars.iter().map(|v| {
        all_vars[*v as usize]
            .constraints
            .iter()
            .map(|&c| local_of[c as usize])
            .collect::<Few<u32>>()
    }));
    // Plain slices from here on, once each vector has its size: their addresses and
    // lengths stay in registers, where a vector's would be read again from `work` after
    // every store through another.
    let locals = &locals[..];
    let local = |i: usize| locals[i].iter().map(|&l| l as usize);
    // Unassigned variables and unassigned cells of each constraint.
    refill(left, own.len(), 0);
    refill(room, own.len(), 0);
    for (i, v) in vars.iter().enumerate() {
        let var = &all_vars[*v as usize];
        for l in local(i) {
            left[l] += 1;
            room[l] += var.cells.len();
        }
    }
    // The variables of each constraint: `of_constraint[first[l]..first[l + 1]]`.
    refill(first, own.len() + 1, 0);
    for l in 0..own.len() {
        first[l + 1] = first[l] + left[l];
    }
    refill(of_constraint, first[own.len()], 0);
    next.clear();
    next.extend_from_slice(first);
    for i in 0..vars.len() {
        for l in local(i) {
            of_constraint[next[l]] = i;
            next[l] += 1;
        }
    }
    refill(placed, vars.len(), false);
    refill(candidate, vars.len(), false);
    candidates.clear();
    refill(slot_of, own.len(), None);
    // A variable's score: the constraints it touches that have no slot yet (it would open
    // them) less those it is the last unassigned variable of (it would close them). Kept
    // as constraints open and lose variables, rather than summed afresh at every step.
    scores.clear();
    scores.extend(
        (0..vars.len()).map(|i| local(i).fold(0i32, |s, l| s + 1 - i32::from(left[l] == 1))),
    );
    let mut free_slots: u32 = 0xFFFF;
    steps.clear();
    // The bookkeeping as plain slices too, now that each has its size.
    let (left, room, placed, candidate) = (
        &mut left[..],
        &mut room[..],
        &mut placed[..],
        &mut candidate[..],
    );
    let (scores, slot_of, first, of_constraint) = (
        &mut scores[..],
        &mut slot_of[..],
        &first[..],
        &of_constraint[..],
    );
    for _ in 0..vars.len() {
        candidates.retain(|&i| !placed[i]);
        // The naive twin of the kept scores, summed afresh, checked in every test that
        // counts.
        #[cfg(test)]
        for &i in candidates.iter() {
            let naive = local(i).fold(0i32, |s, l| {
                s + i32::from(slot_of[l].is_none()) - i32::from(left[l] == 1)
            });
            assert_eq!(scores[i], naive, "kept score of variable {i}");
        }
        // The next variable: among those touching an open constraint, the one that opens
        // the fewest new constraints less those it closes; the first unplaced otherwise.
        let pick = candidates
            .iter()
            .copied()
            .min_by_key(|&i| (scores[i], i))
            .or_else(|| placed.iter().position(|p| !p));
        let Some(i) = pick else { break };
        placed[i] = true;
        let var = &all_vars[vars[i] as usize];
        let m = var.cells.len();
        let mut touches = Few::new();
        for (c, l) in var.constraints.iter().zip(local(i)) {
            let opens = slot_of[l].is_none();
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
                        // Opened: no variable of it opens it any more.
                        scores[other] -= 1;
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
            if left[l] == 1 {
                // Its one unassigned variable now closes it.
                for &other in &of_constraint[first[l]..first[l + 1]] {
                    scores[other] -= 1;
                }
            }
            touches.push(Touch {
                shift: 4 * slot,
                need: constraints[*c as usize].need,
                closes: left[l] == 0,
                room_after: room[l].min(15) as u8,
                opens,
            });
            if left[l] == 0 {
                free_slots |= 1 << slot;
            }
        }
        let (mut keep, mut inc) = (!0u64, 0u64);
        for t in touches.iter() {
            if t.closes {
                keep &= !(15 << t.shift);
            } else {
                inc |= 1 << t.shift;
            }
        }
        steps.push(Step {
            var: vars[i],
            m,
            touches,
            keep,
            inc,
        });
    }
    Ok(())
}

/// Empties `v` and fills it with `n` copies of `value`, keeping its allocation.
#[cfg(test)]
fn refill<T: Clone>(v: &mut Vec<T>, n: usize, value: T) {
    v.clear();
    v.resize(n, value);
}

/// One variable's share of a counted component's weighted layouts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Share {
    /// The variable's id in the frontier.
    pub(crate) var: u32,
    /// Its cells.
    pub(crate) m: usize,
    /// The weighted count of layouts in which it holds `x` mines, for `x` in `0..=m`.
    pub(crate) z: [f64; 9],
}

/// For each variable of a counted component, the weighted count of layouts in which it
/// holds `x` mines, for `x` in `0..=m`; `weights[k]` weighs the layouts with `k` mines in
/// the component. Written to `out` in step order, with `work`'s buffers.
pub(crate) fn shares(counted: &Counted, weights: &[f64], out: &mut Vec<Share>, work: &mut Work) {
    if counted.enumerated {
        shares_enumerated(counted, weights, out);
        return;
    }
    let n = counted.steps.len();
    out.clear();
    out.extend(counted.steps.iter().map(|s| Share {
        var: s.var,
        m: s.m,
        z: [0.0; 9],
    }));
    let Some(last) = counted.layers.last() else {
        return;
    };
    // The backward weights of the last layer: one state (every constraint closed).
    let Work { after, before, .. } = work;
    after.clear();
    let given = &weights[..weights.len().min(last.width)];
    for _ in 0..last.states {
        after.extend_from_slice(given);
        after.resize(after.len() + last.width - given.len(), 0.0);
    }
    for t in (0..n).rev() {
        let (layer, next) = (&counted.layers[t], &counted.layers[t + 1]);
        let m = counted.steps[t].m;
        // Only each state's span of `before` is written and, a layer on, read (a state's
        // edges lead within the spans of the next layer's states, see `count`), so only
        // the spans are cleared.
        if before.len() < layer.states * layer.width {
            before.resize(layer.states * layer.width, 0.0);
        }
        let mut by_x = [0.0; 9];
        for i in 0..layer.states {
            let (lo, hi) = counted.span[layer.span_at + i];
            if lo > hi {
                continue;
            }
            let from = &counted.counts[layer.counts_at + i * layer.width..][..layer.width];
            let back = &mut before[i * layer.width..(i + 1) * layer.width];
            back[lo..=hi].fill(0.0);
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
        out[t].z = by_x;
        std::mem::swap(after, before);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontier::Frontier;
    use crate::planes::Planes;
    use bitmines_core::{Game, SeededPlacer, Status};
    use proptest::prelude::*;

    proptest! {
        /// The range of mine counts and the kept-bits-plus-increment states agree with
        /// trying each count against each constraint, over random steps and states whose
        /// open slots hold at most their need, with slots a step frees and takes again.
        #[test]
        fn mine_counts_match_trying_each(
            m in 1usize..=8,
            most in 0usize..10,
            // Per touch: need, closes, room after, opens, takes a freed slot, sum so far.
            touched in proptest::collection::vec(
                (0u8..=8, any::<bool>(), 0u8..16, any::<bool>(), any::<bool>(), 0u64..=8),
                1..=8,
            ),
            untouched in 0u64..=8,
        ) {
            let mut touches = Few::new();
            let (mut keep, mut inc, mut key) = (!0u64, 0u64, untouched << 60);
            let mut freed = Vec::new();
            for (slot, &(need, closes, room_after, opens, again, sum)) in (0u32..).zip(&touched) {
                // A constraint this step opens, now and then in a slot that a constraint
                // it closed just freed, as the plan hands them out.
                let shift = match freed.pop() {
                    Some(shift) if opens && again => shift,
                    _ => 4 * slot,
                };
                // An open constraint's sum so far; one opened here has none, and its slot
                // holds 0 or what the closed one left.
                if !opens {
                    key |= sum.min(u64::from(need)) << shift;
                }
                if closes {
                    keep &= !(15 << shift);
                    freed.push(shift);
                } else {
                    inc |= 1 << shift;
                }
                touches.push(Touch { shift, need, closes, room_after, opens });
            }
            let step = Step { var: 0, m, touches, keep, inc };
            let fast: Vec<(usize, u64)> = mine_counts(&step, key, most)
                .map(|x| (x, (key & step.keep) + x as u64 * step.inc))
                .collect();
            prop_assert_eq!(fast, mine_counts_naive(&step, key, most));
        }
    }

    /// Every component of a game's frontier, counted by [`count`] and by its twin
    /// [`count_naive`], with `max_mines` mines at most: the same steps, states, spans,
    /// edges and counts within each span, the same distribution, and the same shares bit
    /// for bit under the weights `weights` (cycled over the mine totals).
    fn check_against_naive(frontier: &Frontier, max_mines: usize, weights: &[f64]) {
        let (mut work, mut naive_work) = (Work::default(), Work::default());
        // One `Counted` across components, as the solver's kept slots are: the room a
        // larger count left must not leak into a smaller one.
        let mut fast = Counted::default();
        for component in &frontier.components {
            let part = Part {
                vars: frontier.vars_of(component),
                own: frontier.constraints_of(component),
                all_vars: &frontier.vars,
                constraints: &frontier.constraints,
                vars_by_constraint: frontier.vars_by_constraint(),
            };
            let mut naive = Counted::default();
            let a = count(part, max_mines, 1 << 12, &mut fast, &mut work);
            let b = count_naive(part, max_mines, 1 << 12, &mut naive, &mut naive_work);
            assert_eq!(a, b);
            if a.is_err() {
                continue;
            }
            assert_eq!(fast.steps, naive.steps);
            assert_eq!(fast.layers.len(), naive.layers.len());
            for (x, y) in fast.layers.iter().zip(&naive.layers) {
                assert_eq!((x.states, x.width), (y.states, y.width));
                for i in 0..x.states {
                    let span = fast.span[x.span_at + i];
                    assert_eq!(span, naive.span[y.span_at + i]);
                    let row = |c: &Counted, l: &Layer| {
                        c.counts[l.counts_at + i * l.width..][span.0..=span.1].to_vec()
                    };
                    let (p, q) = (row(&fast, x), row(&naive, y));
                    assert_eq!(
                        p.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                        q.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
                    );
                }
            }
            assert_eq!(fast.edges, naive.edges);
            let bits = |d: &[f64]| d.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(fast.distribution()), bits(naive.distribution()));
            assert_eq!(fast.heap_bytes(false), naive.heap_bytes(false));
            let w: Vec<f64> = (0..fast.distribution().len())
                .map(|k| weights[k % weights.len()])
                .collect();
            let (mut p, mut q) = (Vec::new(), Vec::new());
            shares(&fast, &w, &mut p, &mut work);
            shares(&naive, &w, &mut q, &mut naive_work);
            assert_eq!(p.len(), q.len());
            for (x, y) in p.iter().zip(&q) {
                assert_eq!((x.var, x.m), (y.var, y.m));
                assert_eq!(bits(&x.z), bits(&y.z));
            }
            check_enumerated(part, max_mines, &fast, &w, &p);
        }
    }

    /// [`enumerate`] against the forward and backward passes' `counted` and `shares` of
    /// the same component: where it takes the component, the same distribution bit for
    /// bit, and shares equal to rounding, zero exactly where theirs are (so the same
    /// cells proven).
    fn check_enumerated(
        part: Part<'_>,
        max_mines: usize,
        counted: &Counted,
        weights: &[f64],
        shared: &[Share],
    ) {
        let mut small = Counted::default();
        let mut work = Work::default();
        if !enumerate(part, max_mines, 1 << 12, &mut small, &mut work) {
            return;
        }
        let bits = |d: &[f64]| d.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(small.distribution()), bits(counted.distribution()));
        let mut got = Vec::new();
        shares(&small, weights, &mut got, &mut work);
        assert_eq!(got.len(), shared.len());
        for x in &got {
            let y = shared
                .iter()
                .find(|y| y.var == x.var)
                .expect("the same variables");
            assert_eq!(x.m, y.m);
            for (a, b) in x.z.iter().zip(&y.z) {
                assert_eq!(*a == 0.0, *b == 0.0, "{:?} against {:?}", x.z, y.z);
                assert!(
                    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()),
                    "{a} against {b}"
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// The count and its twin agree exactly on the frontiers of random games, as play
        /// goes on: a board of random size and density, its safe cells revealed in a
        /// random order, compared after each reveal.
        #[test]
        fn count_matches_its_twin(
            seed in any::<u64>(),
            rows in 2usize..18,
            cols in 2usize..34,
            density in 8usize..30,
            every in 1usize..6,
            max_mines in 0usize..40,
            weights in proptest::collection::vec(1e-300f64..1.0, 1..6),
        ) {
            let mines = (rows * cols * density / 100).max(1);
            let board = SeededPlacer::new(seed).board(rows, cols, mines).expect("a valid board");
            let safe: Vec<(usize, usize)> = (0..rows)
                .flat_map(|r| (0..cols).map(move |c| (r, c)))
                .filter(|&(r, c)| board.is_mine(r, c) == Ok(false))
                .collect();
            let mut game = Game::new(board);
            for &(r, c) in safe.iter().skip(seed as usize % every).step_by(every) {
                if game.status() != Status::Playing {
                    break;
                }
                game.reveal(r, c).expect("a safe cell");
                let mut planes = Planes::new(&game.view()).expect("planes");
                // Now and then the trivial rule's mines first, as the solver sees them.
                if (r + c) % 2 == 0 {
                    while planes.sweep().is_ok_and(|found| found > 0) {}
                }
                let mut frontier = Frontier::default();
                frontier.scan(&planes);
                frontier.build(planes.undecided_count(), planes.geometry.words_per_row() * 64);
                frontier.link_vars_by_constraint();
                check_against_naive(&frontier, max_mines.max(mines / 2), &weights);
            }
        }
    }

    #[test]
    fn binomials() {
        assert_eq!(BINOMIAL[8][4], 70.0);
        assert_eq!(BINOMIAL[5][0], 1.0);
        assert_eq!(BINOMIAL[5][5], 1.0);
        assert_eq!(BINOMIAL[3][4], 0.0);
        for (m, row) in WALK_BINOMIAL.iter().enumerate() {
            for (x, &padded) in row.iter().enumerate() {
                let plain = BINOMIAL.get(m).and_then(|row| row.get(x)).copied();
                assert_eq!(padded, plain.unwrap_or(0.0));
            }
        }
    }
}
