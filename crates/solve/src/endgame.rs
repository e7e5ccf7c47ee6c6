//! Exact end-game play: when few layouts of the mines remain, the guess that wins most often
//! with best play after it.
//!
//! The layouts the view allows are enumerated (at most [`ENDGAME`]); a set of them is a
//! bitset. The chance of winning from a set is 1 for a single layout; otherwise, if some
//! hidden cell is safe in every layout of the set yet shows different things in some, it
//! is revealed for free and the set splits by what it shows; otherwise it is the best, over
//! the cells that are a mine in some layouts and not in others, of the sum over what the
//! cell may show of the share of layouts showing it times the chance of winning from them.
//! What a cell shows is its number and, for a zero, every cell its cascade opens with its
//! number (flagged cells stay shut, as in play). Sets are memoised, and the cells of a set
//! are tried safest first: a cell wins at most the share of layouts it is safe in, so the
//! rest are skipped once that share is no better than the best found.
//!
//! # How
//!
//! When the view allows at most [`ENDGAME`] = 1,024 layouts (the exact tier's count says so
//! first), a depth-first search over the hidden cells that are not proven mines (at most 128,
//! a `u128` a layout; the proven mines are mines in every layout, counted into the numbers
//! beside them and left out, so a large board's hidden mines do not keep it from running)
//! lists them: the cells some number touches first, then the rest, which only the mine count
//! limits, so that the numbers cut dead branches early; each number is checked all along and
//! once its last cell is set (a budget of 200,000 steps). A set of layouts is a 1,024-bit set,
//! and for each cell that tells layouts apart the sets of layouts in which it is a mine, and in
//! which its reveal shows the same, are precomputed, so splitting a set is an AND per part, and
//! counting one a population count per word (the CPU's instruction where it has one, checked
//! at run time). The memo holds at most 30,000 sets, past which the player looks ahead
//! instead; the sets are hashed a word at a time, and the memo is never iterated, so the hash
//! cannot change a result. Tested against an exhaustive search over every cell and layout.

#![allow(
    clippy::indexing_slicing,
    reason = "layout and cell indices are below the lengths of the tables built from them"
)]

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use bitmines_core::{AsView, Status, View};

use crate::{Certain, Error, Solver};

/// Most layouts the end-game search takes on.
pub const ENDGAME: usize = 1024;

/// Most sets of layouts one search looks at before giving up.
const BUDGET: usize = 30_000;

/// Most steps the enumeration of the layouts takes before giving up.
const STEPS: usize = 200_000;

/// Most hidden cells, other than proven mines, the search takes on.
const MAX_CELLS: usize = 128;

/// A set of layouts, one bit each.
type Set = [u64; ENDGAME / 64];

/// What a hidden cell shows in one layout: a number, or [`MINE`].
const MINE: u8 = 9;

/// The hidden cells of a position that are not proven mines, and every layout of the mines
/// on them that the view allows, with what each cell shows in each layout.
pub(crate) struct Layouts {
    /// The hidden cells other than proven mines, row by row.
    pub(crate) cells: Vec<(usize, usize)>,
    /// For each layout, what each cell shows (a number, or [`MINE`]).
    shows: Vec<Vec<u8>>,
    /// Each cell's neighbours among `cells` (indices into `cells`).
    neighbours: Vec<Vec<usize>>,
    /// Whether each cell is flagged: a cascade does not open it.
    flagged: Vec<bool>,
}

impl Layouts {
    /// Every layout of the mines `view` allows, given `certain`, what the solver proved of
    /// it: its proven mines are mines in every layout, so only the other hidden cells are
    /// listed, each layout holding the mines the proven ones leave. `None` if there are
    /// more than [`ENDGAME`] layouts, more than [`MAX_CELLS`] such cells, none, or the
    /// enumeration runs past its budget.
    pub(crate) fn of(view: &View<'_>, certain: &Certain) -> Result<Option<Layouts>, Error> {
        // Nothing is allocated for a large board with many hidden safe cells.
        if hidden_safe_at_least(view) > MAX_CELLS {
            return Ok(None);
        }
        let proven = certain.mines().count();
        let Some(mines) = view.mine_count().checked_sub(proven) else {
            return Ok(None);
        };
        let cells = certain.undecided().chain(certain.safe()).collect();
        Layouts::within(view, cells, mines)
    }

    /// Every layout of `mines` mines on `cells` (distinct hidden cells) that the numbers
    /// beside them allow, every other hidden cell next to them or to those numbers taken
    /// to be a mine.
    fn within(
        view: &View<'_>,
        mut cells: Vec<(usize, usize)>,
        mines: usize,
    ) -> Result<Option<Layouts>, Error> {
        let (rows, cols) = (view.rows(), view.cols());
        cells.sort_unstable();
        if cells.is_empty() || cells.len() > MAX_CELLS {
            return Ok(None);
        }
        let index = |cell: (usize, usize)| cells.binary_search(&cell).ok();
        let mut flagged = Vec::with_capacity(cells.len());
        // Each hidden cell's neighbours among `cells`, and the mines around it outside them.
        let mut neighbours: Vec<Vec<usize>> = Vec::with_capacity(cells.len());
        let mut outside = Vec::with_capacity(cells.len());
        // The revealed numbers next to `cells`, each once.
        let mut beside = Vec::new();
        for &(r, c) in &cells {
            flagged.push(view.is_flagged(r, c)?);
            let (mut near, mut out) = (Vec::new(), 0u8);
            for (nr, nc) in around(rows, cols, r, c) {
                match (view.number(nr, nc)?, index((nr, nc))) {
                    (Some(_), _) => beside.push((nr, nc)),
                    (None, Some(j)) => near.push(j),
                    (None, None) => out += 1,
                }
            }
            neighbours.push(near);
            outside.push(out);
        }
        beside.sort_unstable();
        beside.dedup();
        // Each number: the cells it touches, and the mines it needs among them.
        let mut numbers: Vec<(Vec<usize>, u8)> = Vec::with_capacity(beside.len());
        // For each cell, the numbers that touch it.
        let mut touching: Vec<Vec<usize>> = vec![Vec::new(); cells.len()];
        for (r, c) in beside {
            let (mut near, mut out) = (Vec::new(), 0u8);
            for (nr, nc) in around(rows, cols, r, c) {
                if view.number(nr, nc)?.is_none() {
                    match index((nr, nc)) {
                        Some(j) => near.push(j),
                        None => out += 1,
                    }
                }
            }
            let Some(need) = view.number(r, c)?.and_then(|n| n.checked_sub(out)) else {
                return Ok(None); // more mines around it than it shows: no layout
            };
            for &j in &near {
                touching[j].push(numbers.len());
            }
            numbers.push((near, need));
        }
        // Depth-first over the cells, each a mine or not: first the cells some number
        // touches, then the rest (which only the mine count limits), row by row within
        // each, so that the numbers cut dead branches early. Each number is checked all
        // along (too many mines, or too few cells left to place its own) and exactly once
        // its last cell is set; the mine count too.
        let order: Vec<usize> = (0..cells.len())
            .filter(|&i| !touching[i].is_empty())
            .chain((0..cells.len()).filter(|&i| touching[i].is_empty()))
            .collect();
        let mut at = vec![0; cells.len()];
        for (p, &i) in order.iter().enumerate() {
            at[i] = p;
        }
        let last: Vec<usize> = numbers
            .iter()
            .map(|(around, _)| around.iter().map(|&j| at[j]).max().unwrap_or(0))
            .collect();
        // A layout as a bit per position in `order` while searching.
        let mut found: Vec<u128> = Vec::new();
        let mut layout: u128 = 0;
        let mut stack: Vec<(usize, bool)> = vec![(0, false), (0, true)];
        let n = cells.len();
        let mut steps = 0;
        while let Some((p, mine)) = stack.pop() {
            steps += 1;
            if steps > STEPS {
                return Ok(None);
            }
            // Undo the positions set after position p on the path popped back from.
            let keep = if p == 0 { 0 } else { (1u128 << p) - 1 };
            layout &= keep;
            let mut placed = layout.count_ones() as usize;
            if mine {
                layout |= 1 << p;
                placed += 1;
            }
            if placed > mines || placed + (n - p - 1) < mines {
                continue;
            }
            let broken = touching[order[p]].iter().any(|&k| {
                let (around, number) = &numbers[k];
                let have = around.iter().filter(|&&j| layout >> at[j] & 1 != 0).count();
                let open = around.iter().filter(|&&j| at[j] > p).count();
                have > usize::from(*number)
                    || have + open < usize::from(*number)
                    || (last[k] == p && have != usize::from(*number))
            });
            if broken {
                continue;
            }
            if p + 1 == n {
                found.push(layout);
                if found.len() > ENDGAME {
                    return Ok(None);
                }
                continue;
            }
            stack.push((p + 1, false));
            stack.push((p + 1, true));
        }
        // Back to a bit per cell, listed as a search in row order lists them (a mine at
        // the first cell first, and so on), so that the layouts keep one order.
        let mut found: Vec<u128> = found
            .into_iter()
            .map(|by_position| {
                order
                    .iter()
                    .enumerate()
                    .filter(|&(p, _)| by_position >> p & 1 != 0)
                    .fold(0u128, |layout, (_, &i)| layout | 1 << i)
            })
            .collect();
        found.sort_unstable_by_key(|&layout| std::cmp::Reverse(layout.reverse_bits()));
        if found.is_empty() {
            return Ok(None);
        }
        let shows = found
            .iter()
            .map(|&layout| {
                (0..n)
                    .map(|i| {
                        if layout >> i & 1 != 0 {
                            MINE
                        } else {
                            outside[i]
                                + neighbours[i]
                                    .iter()
                                    .filter(|&&j| layout >> j & 1 != 0)
                                    .count() as u8
                        }
                    })
                    .collect()
            })
            .collect();
        Ok(Some(Layouts {
            cells,
            shows,
            neighbours,
            flagged,
        }))
    }

    /// How many layouts there are.
    pub(crate) fn len(&self) -> usize {
        self.shows.len()
    }

    /// What revealing hidden cell `i`, safe in layout `l`, shows there: each cell opened
    /// (the cell, then its cascade through zeros, flagged cells left shut), in increasing
    /// order, with its number.
    fn cascade(&self, l: usize, i: usize) -> Vec<(usize, u8)> {
        let shows = &self.shows[l];
        let mut opened = vec![(i, shows[i])];
        if shows[i] != 0 {
            return opened;
        }
        let mut seen: u128 = 1 << i;
        let mut todo = vec![i];
        while let Some(x) = todo.pop() {
            for &y in &self.neighbours[x] {
                if seen >> y & 1 != 0 || self.flagged[y] {
                    continue;
                }
                seen |= 1 << y;
                opened.push((y, shows[y]));
                if shows[y] == 0 {
                    todo.push(y);
                }
            }
        }
        opened.sort_unstable();
        opened
    }
}

/// The search over sets of layouts.
struct Search {
    /// For each cell that tells some layouts apart, what revealing it may show, as sets of
    /// layouts: `parts[start[k]..start[k + 1]]`, the first the layouts in which it is a
    /// mine, then one set per thing seen (the number it shows and, for a zero, every cell
    /// its cascade opens with the number each shows).
    parts: Vec<Set>,
    start: Vec<usize>,
    memo: HashMap<Set, f64, BuildHasherDefault<SetHasher>>,
    /// Vectors of `(mines, cell)` lent to each [`Search::win`] on the way down, so that a
    /// search allocates one per level rather than one per set.
    spare: Vec<Vec<(u32, usize)>>,
}

/// A hash of sets of layouts, a word at a time (a rotation and a multiply each, then the
/// high half folded onto the low one, which picks the bucket): much cheaper than the
/// standard library's keyed hash over a set's 128 bytes, and the memo is never iterated,
/// so the search is the same.
#[derive(Default)]
struct SetHasher(u64);

impl Hasher for SetHasher {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Search {
    /// The search over `layouts`, keeping the cells that do not show the same in all.
    fn new(layouts: &Layouts) -> (Search, Vec<usize>) {
        let mut parts = Vec::new();
        let mut start = vec![0];
        let mut kept = Vec::new();
        for i in 0..layouts.cells.len() {
            let mut mines = [0u64; ENDGAME / 64];
            let mut seen: Vec<(Vec<(usize, u8)>, Set)> = Vec::new();
            for (l, shows) in layouts.shows.iter().enumerate() {
                let bit = |set: &mut Set| set[l / 64] |= 1 << (l % 64);
                if shows[i] == MINE {
                    bit(&mut mines);
                    continue;
                }
                let sight = layouts.cascade(l, i);
                match seen.iter_mut().find(|(s, _)| *s == sight) {
                    Some((_, set)) => bit(set),
                    None => {
                        let mut set = [0u64; ENDGAME / 64];
                        bit(&mut set);
                        seen.push((sight, set));
                    }
                }
            }
            let told = usize::from(count(&mines) > 0) + seen.len();
            if told > 1 {
                parts.push(mines);
                parts.extend(seen.into_iter().map(|(_, set)| set));
                start.push(parts.len());
                kept.push(i);
            }
        }
        let search = Search {
            parts,
            start,
            memo: HashMap::default(),
            spare: Vec::new(),
        };
        (search, kept)
    }

    /// The layouts of `set` in which kept cell `k` is a mine.
    fn mines(&self, set: &Set, k: usize) -> u32 {
        count_both(&self.parts[self.start[k]], set)
    }

    /// How many different things kept cell `k` shows over the layouts of `set` where it is
    /// safe, counting to two at most.
    fn sights(&self, set: &Set, k: usize) -> usize {
        self.parts[self.start[k] + 1..self.start[k + 1]]
            .iter()
            .filter(|part| count_both(part, set) > 0)
            .take(2)
            .count()
    }

    /// The chance of winning from `set` with best play, or `None` past the budget.
    fn win(&mut self, set: &Set) -> Option<f64> {
        let total = count(set);
        if total <= 1 {
            return Some(if total == 1 { 1.0 } else { 0.0 });
        }
        if let Some(&known) = self.memo.get(set) {
            return Some(known);
        }
        if self.memo.len() >= BUDGET {
            return None;
        }
        let mut order = self.spare.pop().unwrap_or_default();
        order.clear();
        order.extend((0..self.start.len() - 1).map(|k| (self.mines(set, k), k)));
        // A cell safe in every layout that tells them apart is revealed for free.
        let free = order
            .iter()
            .find(|&&(m, k)| m == 0 && self.sights(set, k) > 1)
            .map(|&(_, k)| k);
        let best = if let Some(k) = free {
            self.value(set, k, total)?
        } else {
            // Safest first: a cell wins at most the share of layouts it is safe in, so once
            // that share is no better than the best found, no later cell can do better.
            order.retain(|&(m, _)| m > 0 && m < total);
            order.sort_unstable();
            let mut best: f64 = 0.0;
            for &(mines, k) in &order {
                if f64::from(total - mines) / f64::from(total) <= best {
                    break;
                }
                best = best.max(self.value(set, k, total)?);
            }
            best
        };
        self.spare.push(order);
        self.memo.insert(*set, best);
        Some(best)
    }

    /// The chance of winning after revealing kept cell `k` over the `total` layouts of
    /// `set`: the mines lose, every sight goes on.
    fn value(&mut self, set: &Set, k: usize, total: u32) -> Option<f64> {
        let mut value = 0.0;
        for j in self.start[k] + 1..self.start[k + 1] {
            let part = and(&self.parts[j], set);
            let n = count(&part);
            if n > 0 {
                value += f64::from(n) / f64::from(total) * self.win(&part)?;
            }
        }
        Some(value)
    }
}

/// The layouts in both sets.
fn and(a: &Set, b: &Set) -> Set {
    std::array::from_fn(|w| a[w] & b[w])
}

/// Layouts in a set.
fn count(set: &Set) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("popcnt") {
        // SAFETY: `count_popcnt` only needs the CPU feature checked just above.
        return unsafe { count_popcnt(set) };
    }
    set.iter().map(|w| w.count_ones()).sum()
}

/// [`count`] compiled with the CPU's population count instruction, a quarter of the
/// search's time without it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn count_popcnt(set: &Set) -> u32 {
    set.iter().map(|w| w.count_ones()).sum()
}

/// Layouts in both sets: `count(&and(a, b))` without the set between.
fn count_both(a: &Set, b: &Set) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("popcnt") {
        // SAFETY: `count_both_popcnt` only needs the CPU feature checked just above.
        return unsafe { count_both_popcnt(a, b) };
    }
    a.iter().zip(b).map(|(x, y)| (x & y).count_ones()).sum()
}

/// [`count_both`] compiled with the CPU's population count instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn count_both_popcnt(a: &Set, b: &Set) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x & y).count_ones()).sum()
}

/// The best move of the end game, from [`end_game`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EndGame {
    cell: (usize, usize),
    win: f64,
    mine: f64,
    layouts: usize,
}

impl EndGame {
    /// The cell to reveal, `(row, col)`.
    pub fn cell(&self) -> (usize, usize) {
        self.cell
    }

    /// The chance of winning the game by revealing it and playing best after it, every
    /// layout equally likely, cascades included.
    pub fn win(&self) -> f64 {
        self.win
    }

    /// The chance that the cell is a mine.
    pub fn mine(&self) -> f64 {
        self.mine
    }

    /// The layouts of the mines the view allows.
    pub fn layouts(&self) -> usize {
        self.layouts
    }
}

/// Exact end-game play: when the view allows at most [`ENDGAME`] layouts of the mines, the
/// cell whose reveal gives the best chance of winning with best play after it (a cell
/// proven safe that tells layouts apart comes first, being free); ties go to the safer
/// cell, then the first row by row. `None` when the view allows more layouts, or none, or
/// has more than 128 hidden cells besides those the trivial rule proves to be mines, or
/// the search runs past its budget, or nothing is left to reveal. A lost game is
/// `Error::Finished`.
///
/// ```
/// use bitmines_core::Position;
///
/// // A 50/50: the game is won half the time.
/// let position: Position = "bitmines view 1x3 mines 1\n#1#\n".parse()?;
/// let best = bitmines_solve::end_game(&position)?.expect("two layouts");
/// assert_eq!((best.layouts(), best.cell()), (2, (0, 0)));
/// assert!((best.win() - 0.5).abs() < 1e-12 && (best.mine() - 0.5).abs() < 1e-12);
///
/// // Two 50/50s, and two safe cells between them that tell each apart: reveal one.
/// let position: Position = "bitmines view 1x8 mines 2\n#1####1#\n".parse()?;
/// let best = bitmines_solve::end_game(&position)?.expect("four layouts");
/// assert_eq!((best.layouts(), best.cell(), best.mine()), (4, (0, 3), 0.0));
/// assert_eq!(best.win(), 1.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn end_game(position: &(impl AsView + ?Sized)) -> Result<Option<EndGame>, Error> {
    let view = position.view();
    if view.status() == Status::Lost {
        return Err(Error::Finished {
            status: view.status(),
        });
    }
    // Nothing is allocated for a large board with many hidden safe cells.
    if hidden_safe_at_least(&view) > MAX_CELLS {
        return Ok(None);
    }
    // The trivial rule's proven mines are left out of the listing: few cells are left to
    // list however many mines the view hides.
    let mut solver = Solver::new(&view)?;
    match solver.trivial() {
        Ok(_) => {}
        Err(Error::Contradiction { .. } | Error::MineCount { .. }) => return Ok(None),
        Err(error) => return Err(error),
    }
    let Some(layouts) = Layouts::of(&view, &solver.into_certain())? else {
        return Ok(None);
    };
    Ok(best(&layouts).map(|(cell, win, mine)| EndGame {
        cell,
        win,
        mine,
        layouts: layouts.len(),
    }))
}

/// The cell to reveal with the best chance of winning over `layouts`, with that chance and
/// its chance of being a mine; ties go to the safer cell, then the first row by row. `None`
/// when the search runs past its budget.
pub(crate) fn best(layouts: &Layouts) -> Option<((usize, usize), f64, f64)> {
    let mut all = [0u64; ENDGAME / 64];
    for l in 0..layouts.len() {
        all[l / 64] |= 1 << (l % 64);
    }
    let total = count(&all);
    let (mut search, kept) = Search::new(layouts);
    let mut best: Option<((usize, usize), f64, f64)> = None;
    for (k, &i) in kept.iter().enumerate() {
        let cell = layouts.cells[i];
        let mines = search.mines(&all, k);
        if mines == total {
            continue;
        }
        let p = f64::from(mines) / f64::from(total);
        let value = search.value(&all, k, total)?;
        let better = match best {
            None => true,
            Some((_, v, q)) => value > v + 1e-12 || ((value - v).abs() <= 1e-12 && p < q),
        };
        if better {
            best = Some((cell, value, p));
        }
    }
    best
}

/// The fewest hidden cells of `view` that can be safe: its hidden cells less its mines.
fn hidden_safe_at_least(view: &View<'_>) -> usize {
    (view.rows() * view.cols() - view.revealed_count()).saturating_sub(view.mine_count())
}

/// The on-board neighbours of `(r, c)`.
pub(crate) fn around(
    rows: usize,
    cols: usize,
    r: usize,
    c: usize,
) -> impl Iterator<Item = (usize, usize)> {
    (r.saturating_sub(1)..=(r + 1).min(rows - 1))
        .flat_map(move |nr| (c.saturating_sub(1)..=(c + 1).min(cols - 1)).map(move |nc| (nr, nc)))
        .filter(move |&cell| cell != (r, c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The counts (with the CPU's population count where it has one) agree with a
        /// count of the layouts one at a time.
        #[test]
        fn counts_agree_with_layout_by_layout(
            a in proptest::array::uniform16(any::<u64>()),
            b in proptest::array::uniform16(any::<u64>()),
        ) {
            let held = |set: &Set, l: usize| set[l / 64] >> (l % 64) & 1 != 0;
            let one_by_one = |f: &dyn Fn(usize) -> bool| (0..ENDGAME).filter(|&l| f(l)).count() as u32;
            prop_assert_eq!(count(&a), one_by_one(&|l| held(&a, l)));
            prop_assert_eq!(count_both(&a, &b), one_by_one(&|l| held(&a, l) && held(&b, l)));
            prop_assert_eq!(count(&and(&a, &b)), count_both(&a, &b));
        }
    }
}
