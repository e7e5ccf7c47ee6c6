//! The frontier: revealed numbers that still touch undecided cells (constraints), the
//! undecided cells they touch, merged into variables by the numbers they touch, and the
//! independent components those form.
//!
//! Variables are cells touching the same constraints, merged with a multiplicity; components
//! come from a union of the constraints each variable links (a search over the constraints
//! with `FixedBitSet` visited marks is its twin). The lists are per frontier cell, not per
//! board cell.

#![allow(
    clippy::indexing_slicing,
    reason = "plane indices come from the solver's own Geometry; ids index the vectors built alongside them; chunk_by groups are never empty"
)]

#[cfg(test)]
use fixedbitset::FixedBitSet;
use rayon::prelude::*;

use crate::exact::Part;
use crate::few::Few;

use crate::planes::Planes;

/// A revealed number with undecided neighbours: those cells hold exactly `need` mines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Constraint {
    /// Plane index of the revealed cell.
    pub(crate) index: usize,
    /// The number, less the proven mines around it.
    pub(crate) need: u8,
    /// The number shown.
    pub(crate) number: u8,
    /// Its undecided neighbours, one bit per neighbour in the order of [`neighbours`].
    pub(crate) mask: u8,
    /// Plane indices of its undecided neighbours, in increasing order; `len` are used.
    cells: [usize; 8],
    len: u8,
}

impl Constraint {
    /// Plane indices of its undecided neighbours, in increasing order.
    pub(crate) fn cells(&self) -> &[usize] {
        &self.cells[..usize::from(self.len)]
    }
}

/// A multiplicative hash for plane indices and packed states.
#[derive(Default)]
pub(crate) struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

/// A hash map keyed by plane indices or packed states.
pub(crate) type FastMap<K, V> =
    std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FastHasher>>;

/// Undecided cells touching exactly the same constraints: interchangeable, so counted once
/// with a multiplicity.
#[derive(Debug, Clone)]
pub(crate) struct Var {
    /// Plane indices of the cells, in increasing order.
    pub(crate) cells: Few<usize>,
    /// The constraints they touch, in increasing order.
    pub(crate) constraints: Few<u32>,
}

/// Constraints linked through shared cells, with their variables: ranges of
/// [`Frontier::vars_of`] and [`Frontier::constraints_of`].
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Component {
    vars: (u32, u32),
    constraints: (u32, u32),
}

/// The whole frontier of a position. Its vectors, and the buffers it is built with, are
/// kept from one build to the next ([`Frontier::build`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct Frontier {
    pub(crate) constraints: Vec<Constraint>,
    pub(crate) vars: Vec<Var>,
    pub(crate) components: Vec<Component>,
    /// Every component's variable ids, one component after the other, each sorted.
    component_vars: Vec<u32>,
    /// Every component's constraint ids, likewise.
    component_constraints: Vec<u32>,
    /// Undecided cells on the frontier.
    pub(crate) cells: usize,
    /// Every frontier cell with its variable, in plane order.
    pub(crate) in_plane_order: Vec<(usize, u32)>,
    /// Undecided cells touching no revealed number.
    pub(crate) off: usize,
    build: Build,
}

/// The buffers [`Frontier::build`] works in.
#[derive(Debug, Clone, Default)]
struct Build {
    touches: Vec<(usize, u32)>,
    ranked: Ranked,
    /// Each frontier cell with the key of its constraints, in plane order.
    cells: Vec<(u64, usize)>,
    /// Each frontier cell: the key of its constraints, the cell, its constraints (a board
    /// too large for [`cells_by_rank`]).
    sorted: Vec<(u64, usize, Few<u32>)>,
    /// Each frontier cell's key and place in `cells`, packed into one word to sort.
    order: Vec<u64>,
    first: Vec<usize>,
    of_constraint: Vec<u32>,
    next: Vec<usize>,
    /// Whether `first` and `of_constraint` are those of the last build.
    linked: bool,
    /// Each constraint's parent in the union of linked constraints, then its component.
    parent: Vec<u32>,
    /// Each component's constraints, then variables, then where its lists begin.
    sizes: Vec<(u32, u32)>,
    /// The revealed cells next to an undecided one, by word, as the scan finds them.
    words: Vec<(usize, u64)>,
}

impl Frontier {
    /// Bytes of its constraints, variables and components: those they use, or with `held`
    /// those their vectors hold (kept from earlier builds too), with the planes the build
    /// works in.
    pub(crate) fn heap_bytes(&self, held: bool) -> usize {
        // The components' two flat lists of ids, then the lists they index.
        let ids = bytes(&self.component_vars, held) + bytes(&self.component_constraints, held);
        // The planes of the build by rank, a word of ids for every cell of the board up to
        // the last number, are held, not used after the build.
        let ranked = &self.build.ranked;
        let planes = if held {
            bytes(&ranked.numbers, true) + bytes(&ranked.cells, true) + bytes(&ranked.id_of, true)
        } else {
            0
        };
        planes
            + ids
            + bytes(&self.constraints, held)
            + bytes(&self.in_plane_order, held)
            + bytes(&self.vars, held)
            + bytes(&self.components, held)
    }

    /// Variable ids of a component, sorted.
    pub(crate) fn vars_of(&self, component: &Component) -> &[u32] {
        &self.component_vars[component.vars.0 as usize..component.vars.1 as usize]
    }

    /// Constraint ids of a component, sorted.
    pub(crate) fn constraints_of(&self, component: &Component) -> &[u32] {
        &self.component_constraints
            [component.constraints.0 as usize..component.constraints.1 as usize]
    }

    /// The variables of every constraint, as the last build found them: constraint `c`'s
    /// ids, increasing, are `of_constraint[first[c]..first[c + 1]]` of `(first,
    /// of_constraint)`. Listed by [`Frontier::link_vars_by_constraint`], which the forward
    /// pass's plan needs and the walk of a small component does not; before it, empty.
    pub(crate) fn vars_by_constraint(&self) -> (&[usize], &[u32]) {
        if self.build.linked {
            (&self.build.first, &self.build.of_constraint)
        } else {
            (&[], &[])
        }
    }

    /// Lists the variables of every constraint for [`Frontier::vars_by_constraint`], once
    /// a build.
    pub(crate) fn link_vars_by_constraint(&mut self) {
        let build = &mut self.build;
        if !build.linked {
            vars_by_constraint(
                self.constraints.len(),
                &self.vars,
                (&mut build.first, &mut build.of_constraint, &mut build.next),
            );
            build.linked = true;
        }
    }

    /// Component `component` as the count reads it.
    pub(crate) fn part(&self, component: &Component) -> Part<'_> {
        Part {
            vars: self.vars_of(component),
            own: self.constraints_of(component),
            all_vars: &self.vars,
            constraints: &self.constraints,
            vars_by_constraint: self.vars_by_constraint(),
        }
    }
}

/// The variables of each of `constraints` constraints: constraint `c`'s ids, increasing,
/// are `of_constraint[first[c]..first[c + 1]]`.
fn vars_by_constraint(
    constraints: usize,
    vars: &[Var],
    (first, of_constraint, next): (&mut Vec<usize>, &mut Vec<u32>, &mut Vec<usize>),
) {
    first.clear();
    first.resize(constraints + 1, 0);
    for var in vars {
        for &c in var.constraints.iter() {
            first[c as usize + 1] += 1;
        }
    }
    for c in 0..constraints {
        first[c + 1] += first[c];
    }
    of_constraint.clear();
    of_constraint.resize(first[constraints], 0);
    // Each constraint's next place, from its first; plain slices, sized, so that their
    // addresses stay in registers.
    next.clear();
    next.extend_from_slice(first);
    let (of_constraint, next) = (&mut of_constraint[..], &mut next[..]);
    for (v, var) in (0u32..).zip(vars) {
        for &c in var.constraints.iter() {
            of_constraint[next[c as usize]] = v;
            next[c as usize] += 1;
        }
    }
}

/// Bytes of the items of `v`, or with `held` of all it has room for.
pub(crate) fn bytes<T>(v: &Vec<T>, held: bool) -> usize {
    std::mem::size_of::<T>() * if held { v.capacity() } else { v.len() }
}

/// The constraints of every revealed cell that touches an undecided cell, in plane order.
#[cfg(test)]
pub(crate) fn constraints(planes: &Planes) -> Vec<Constraint> {
    constraints_in(planes, planes.banded())
}

/// [`constraints`] into `out`, on this thread (a board too small for bands), scanning
/// into `words`: both keep their allocations.
pub(crate) fn constraints_into(
    planes: &Planes,
    out: &mut Vec<Constraint>,
    words: &mut Vec<(usize, u64)>,
) {
    words.clear();
    scan_rows(planes, 1..planes.geometry.rows() + 1, words);
    out.clear();
    constraints_of_words(planes, words, out);
}

/// [`constraints_into`] on a board of one word a row, in one pass over the rows: a
/// number's undecided neighbours and proven mines are the three bits around it in the
/// words of its row and the rows beside it, so each constraint is read from six words in
/// registers rather than cell by cell. The same constraints in the same order as its twin,
/// `constraints_into`.
fn constraints_narrow(planes: &Planes, out: &mut Vec<Constraint>) {
    out.clear();
    let rows = planes.geometry.rows();
    let mask = planes.cell_masks.first().copied().unwrap_or(0);
    // Plane indices of padded rows 0..=rows + 1 (one word a row, after the guard word).
    let (Some(revealed), Some(safe), Some(mines)) = (
        planes.revealed.get(1..rows + 3),
        planes.safe.get(1..rows + 3),
        planes.mines.get(1..rows + 3),
    ) else {
        return;
    };
    let numbers = planes
        .numbers
        .each_ref()
        .map(|plane| plane.get(1..rows + 3).unwrap_or(&[]));
    // Offsets of the neighbours in the order of `neighbours`, bit `k` of a mask.
    const AROUND: [isize; 8] = [-65, -64, -63, -1, 1, 63, 64, 65];
    let undecided = |q: usize| !(revealed[q] | safe[q] | mines[q]);
    let dilate = |u: u64| u | u << 1 | u >> 1;
    // The undecided cells of the row above and of this one, carried from row to row.
    let (mut up, mut here) = (undecided(0), undecided(1));
    for q in 1..=rows {
        let down = undecided(q + 1);
        let mut shown = revealed[q] & mask & (dilate(up) | dilate(here) | dilate(down));
        // The row's words, read once for all its numbers.
        let n = numbers.map(|plane| plane.get(q).copied().unwrap_or(0));
        let (m_up, m_here, m_down) = (mines[q - 1], mines[q], mines[q + 1]);
        while shown != 0 {
            // A board cell: bits 1..=62 of its word, so the bits beside it are in the word.
            let b = shown.trailing_zeros();
            shown &= shown - 1;
            let three = |word: u64| (word >> (b - 1)) & 0b111;
            let number = (n[0] >> b & 1
                | (n[1] >> b & 1) << 1
                | (n[2] >> b & 1) << 2
                | (n[3] >> b & 1) << 3) as u8;
            // The proven mines around it, in one count of one byte.
            let proven =
                (three(m_up) | (three(m_here) & 0b101) << 3 | three(m_down) << 6).count_ones();
            let side = three(here);
            let open = three(up) | (side & 0b001) << 3 | (side & 0b100) << 2 | three(down) << 5;
            let index = (q + 1) * 64 + b as usize;
            let mut constraint = Constraint {
                index,
                need: number.saturating_sub(proven as u8),
                number,
                mask: open as u8,
                cells: [0; 8],
                len: 0,
            };
            let mut bits = open;
            while bits != 0 {
                let k = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                constraint.cells[usize::from(constraint.len)] =
                    index.wrapping_add_signed(AROUND[k]);
                constraint.len += 1;
            }
            out.push(constraint);
        }
        (up, here) = (here, down);
    }
}

/// Each word's revealed cells next to an undecided one, for the padded rows `rows`: the
/// undecided cells of each row are dilated along it once, into a ring of three rows, and
/// each word takes those of its own row and the rows beside it. The same words as
/// [`scan_rows_naive`], which dilates around each word on its own.
fn scan_rows(planes: &Planes, rows: std::ops::Range<usize>, words: &mut Vec<(usize, u64)>) {
    let wpr = planes.geometry.words_per_row();
    if rows.is_empty() {
        return;
    }
    let undecided = |i: usize| !(planes.revealed[i] | planes.safe[i] | planes.mines[i]);
    // Padded row `row`'s undecided cells and those beside them along the row, reading one
    // word past each end as `Planes::unknown_near` does.
    let spread = |row: usize, out: &mut [u64]| {
        let base = row * wpr + 1;
        let mut left = undecided(base - 1);
        let mut here = undecided(base);
        for (j, out) in out.iter_mut().enumerate() {
            let right = undecided(base + j + 1);
            *out = here | here << 1 | left >> 63 | here >> 1 | right << 63;
            (left, here) = (here, right);
        }
    };
    // Rows of a few words (expert's is one) are kept on the stack: the scan runs at every
    // stall of the trivial rule, and a small board's scan costs little more than three
    // allocations.
    let mut few = [[0u64; SCAN_FEW]; 3];
    let mut many: [Vec<u64>; 3];
    let [mut up, mut mid, mut down]: [&mut [u64]; 3] = if wpr <= SCAN_FEW {
        few.each_mut().map(|row| &mut row[..wpr])
    } else {
        many = std::array::from_fn(|_| vec![0; wpr]);
        many.each_mut().map(Vec::as_mut_slice)
    };
    spread(rows.start - 1, up);
    spread(rows.start, mid);
    for row in rows {
        spread(row + 1, down);
        let base = row * wpr + 1;
        let shown = &planes.revealed[base..base + wpr];
        for (j, ((&shown, &mask), ((&u, &m), &d))) in shown
            .iter()
            .zip(&planes.cell_masks)
            .zip(up.iter().zip(mid.iter()).zip(down.iter()))
            .enumerate()
        {
            let shown = shown & mask & (u | m | d);
            if shown != 0 {
                words.push((base + j, shown));
            }
        }
        std::mem::swap(&mut up, &mut mid);
        std::mem::swap(&mut mid, &mut down);
    }
}

/// Rows of at most this many words are scanned with buffers on the stack.
const SCAN_FEW: usize = 4;

/// [`scan_rows`] word by word, each word's neighbourhood read on its own: the twin it is
/// held to.
#[cfg(test)]
fn scan_rows_naive(planes: &Planes, rows: std::ops::Range<usize>, words: &mut Vec<(usize, u64)>) {
    let wpr = planes.geometry.words_per_row();
    for row in rows {
        for j in 0..wpr {
            let w = row * wpr + j + 1;
            let shown = Planes::word(&planes.revealed, w) & planes.cell_masks[j];
            if shown == 0 {
                continue;
            }
            let shown = shown & planes.unknown_near(w);
            if shown != 0 {
                words.push((w, shown));
            }
        }
    }
}

/// The constraint of every cell of `words`, appended to `out`.
fn constraints_of_words(planes: &Planes, words: &[(usize, u64)], out: &mut Vec<Constraint>) {
    let stride = planes.geometry.words_per_row() * 64;
    let count: usize = words
        .iter()
        .map(|&(_, shown)| shown.count_ones() as usize)
        .sum();
    out.reserve(count);
    for &(w, mut shown) in words {
        while shown != 0 {
            let index = w * 64 + shown.trailing_zeros() as usize;
            shown &= shown - 1;
            let number = planes.number(index);
            let mut constraint = Constraint {
                index,
                need: 0,
                number,
                mask: 0,
                cells: [0; 8],
                len: 0,
            };
            let mut mines = 0u8;
            for (k, n) in neighbours(index, stride).into_iter().enumerate() {
                if Planes::get(&planes.mines, n) {
                    mines += 1;
                } else if planes.is_unknown(n) {
                    constraint.mask |= 1 << k;
                    constraint.cells[usize::from(constraint.len)] = n;
                    constraint.len += 1;
                }
            }
            constraint.need = number.saturating_sub(mines);
            out.push(constraint);
        }
    }
}

/// [`constraints`], scanning the planes' bands of rows on the rayon pool with `banded`, or
/// the whole board on this thread.
pub(crate) fn constraints_in(planes: &Planes, banded: bool) -> Vec<Constraint> {
    // Each word's revealed cells next to an undecided one, found once: counted first, so
    // the list is allocated once at its size. A large board is scanned in bands of rows on
    // the rayon pool, the bands' lists joined in row order.
    let scan = |rows: std::ops::Range<usize>| {
        let mut words: Vec<(usize, u64)> = Vec::new();
        scan_rows(planes, rows, &mut words);
        words
    };
    let tops = planes.tops(banded);
    let words: Vec<(usize, u64)> = if banded {
        tops.par_windows(2)
            .map(|top| scan(top[0]..top[1]))
            .collect::<Vec<_>>()
            .concat()
    } else {
        scan(1..planes.geometry.rows() + 1)
    };
    let mut out = Vec::new();
    constraints_of_words(planes, &words, &mut out);
    out
}

/// Each frontier cell (plane order) with its constraints (in increasing order) and their
/// [`signature`], appended to `out`: the twin of [`cells_by_rank`], by sorting every
/// (cell, constraint) pair, whatever the board's size.
fn cells_by_sorting(
    constraints: &[Constraint],
    stride: usize,
    touches: &mut Vec<(usize, u32)>,
    out: &mut Vec<(u64, usize, Few<u32>)>,
) {
    touches.clear();
    touches.extend(
        constraints
            .iter()
            .enumerate()
            .flat_map(|(c, con)| con.cells().iter().map(move |&cell| (cell, c as u32))),
    );
    touches.sort_unstable();
    for group in touches.chunk_by(|a, b| a.0 == b.0) {
        let sig: Few<u32> = group.iter().map(|&(_, c)| c).collect();
        out.push((signature(constraints, &sig, stride), group[0].0, sig));
    }
}

/// The planes [`cells_by_rank`] works in: the numbers that are constraints and the
/// frontier cells, a bit each, from plane index 0, and each constraint's id by the plane
/// index of its number.
#[derive(Debug, Clone, Default)]
struct Ranked {
    numbers: Vec<u64>,
    cells: Vec<u64>,
    /// Each constraint's id at the plane index of its number; set for every number on
    /// `numbers` at each build, and read only there, so never cleared (the entries
    /// elsewhere are kept from earlier builds).
    id_of: Vec<u32>,
}

/// The most words of a plane [`cells_by_rank`] takes (a board of about a million cells):
/// past it the planes would cost more than sorting the frontier's pairs.
const RANKED_WORDS: usize = 1 << 14;

/// [`cells_by_sorting`] without a sort, on a board small enough for planes
/// ([`RANKED_WORDS`]): the frontier cells are walked in plane order from a plane of them,
/// each with its key; its constraints are its neighbours on the plane of the constraints'
/// numbers, each with its id read at its number's plane index (the ids are their places
/// in the list, in plane order, as [`cells_by_sorting`] gives them), and are read only for
/// the first cell of each variable ([`Ranked::constraints_of`]). Returns false, having
/// done nothing, on a larger board.
fn cells_by_rank(
    constraints: &[Constraint],
    stride: usize,
    ranked: &mut Ranked,
    out: &mut Vec<(u64, usize)>,
) -> bool {
    let Some(last) = constraints.last() else {
        return true;
    };
    // A frontier cell lies at most a row and a cell past its number, and its neighbours
    // as far again.
    let words = (last.index + 2 * stride + 2) / 64 + 1;
    if words > RANKED_WORDS {
        return false;
    }
    let Ranked {
        numbers,
        cells,
        id_of,
    } = ranked;
    numbers.clear();
    numbers.resize(words, 0);
    cells.clear();
    cells.resize(words, 0);
    if id_of.len() < words * 64 {
        id_of.resize(words * 64, 0);
    }
    // Plain slices, sized: the writes below do not make their addresses be read again.
    let (numbers, cells, id_of) = (&mut numbers[..], &mut cells[..], &mut id_of[..]);
    for (id, c) in (0u32..).zip(constraints) {
        let (w, b) = (c.index / 64, c.index % 64);
        numbers[w] |= 1 << b;
        id_of[c.index] = id;
        if stride == 64 && (1..63).contains(&b) {
            // One word a row: the undecided neighbours are the bits of its mask, three
            // in the row above, one each side, three below (the order of `neighbours`).
            let mask = u64::from(c.mask);
            cells[w - 1] |= (mask & 0b111) << (b - 1);
            cells[w] |= (mask >> 3 & 1) << (b - 1) | (mask >> 4 & 1) << (b + 1);
            cells[w + 1] |= (mask >> 5 & 0b111) << (b - 1);
        } else {
            for &cell in c.cells() {
                cells[cell / 64] |= 1 << (cell % 64);
            }
        }
    }
    let (numbers, id_of) = (&numbers[..], &id_of[..]);
    for (w, &word) in cells.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let cell = w * 64 + b;
            let key = if stride == 64 && (1..63).contains(&b) {
                narrow_key(numbers, id_of, cell)
            } else {
                let sig = constraints_of_cell(numbers, id_of, cell, stride);
                signature(constraints, &sig, stride)
            };
            out.push((key, cell));
        }
    }
    true
}

/// The [`signature`] of frontier cell `cell` (bits 1..=62 of its word) on a board of one
/// word a row, from the three bits around it of the numbers' plane in its row and the rows
/// beside it, with no list of its constraints: laid out five bits a row, the numbers
/// around it give the places of the others relative to the first (its lowest bit) by one
/// shift, as `signature` sets them.
fn narrow_key(numbers: &[u64], id_of: &[u32], cell: usize) -> u64 {
    let (w, b) = (cell / 64, cell % 64);
    let three = |word: u64| word >> (b - 1) & 0b111;
    let around = three(numbers[w - 1]) | three(numbers[w]) << 5 | three(numbers[w + 1]) << 10;
    if around == 0 {
        return 0;
    }
    let s = around.trailing_zeros();
    // The first number: row `s / 5` of the three from the row above, column `s % 5` of
    // the three from the one before the cell.
    let first = cell - 65 + (s / 5) as usize * 64 + (s % 5) as usize;
    u64::from(id_of[first]) << 16 | ((around >> s) & !1) << 2
}

/// The ids of the constraints beside frontier cell `cell`, increasing, from the numbers'
/// plane and the ids by plane index that [`cells_by_rank`] wrote.
fn constraints_of_cell(numbers: &[u64], id_of: &[u32], cell: usize, stride: usize) -> Few<u32> {
    let mut sig = Few::new();
    let (w, b) = (cell / 64, cell % 64);
    if stride == 64 && (1..63).contains(&b) {
        // One word a row: the numbers beside the cell are three bits of each of three
        // words, walked in plane order as the neighbours are (the cell's own bit is no
        // number: it is hidden).
        for nw in [w - 1, w, w + 1] {
            let mut three = numbers[nw] >> (b - 1) & 0b111;
            while three != 0 {
                let bit = b - 1 + three.trailing_zeros() as usize;
                three &= three - 1;
                sig.push(id_of[nw * 64 + bit]);
            }
        }
    } else {
        for n in neighbours(cell, stride) {
            let (nw, bit) = (n / 64, n % 64);
            if numbers[nw] >> bit & 1 != 0 {
                sig.push(id_of[n]);
            }
        }
    }
    sig
}

impl Ranked {
    /// The ids of the constraints beside frontier cell `cell`, as the last
    /// [`cells_by_rank`] found them.
    fn constraints_of(&self, cell: usize, stride: usize) -> Few<u32> {
        constraints_of_cell(&self.numbers, &self.id_of, cell, stride)
    }
}

/// Bits of a frontier cell's place in the list of them, below its key in the word that
/// [`Frontier::build`] sorts; a larger frontier sorts the tuples instead.
const PLACE_BITS: u32 = 16;

/// The variables of `cells` (key, cell, constraints), by sorting the tuples by key then
/// cell: each run of one key is a variable, its cells in increasing order.
fn vars_by_sorting(cells: &mut [(u64, usize, Few<u32>)], vars: &mut Vec<Var>) {
    cells.sort_unstable_by_key(|&(key, cell, _)| (key, cell));
    vars.clear();
    for group in cells.chunk_by(|a, b| a.0 == b.0) {
        vars.push(Var {
            cells: group.iter().map(|&(_, cell, _)| cell).collect(),
            constraints: group[0].2,
        });
    }
}

/// The components of the frontier: constraints linked through shared variables, numbered
/// by their first constraint, each with its variables and its constraints in increasing
/// order, as ranges of the two flat lists. Each variable links its constraints in a union
/// whose root is the least constraint of its set, so that numbering the roots in order
/// numbers the components as a search from each constraint not yet reached would
/// ([`components_by_search`], the twin), and listing constraints and variables in order
/// into their components' ranges lists each one sorted, with no sort.
fn link_components(
    constraints: usize,
    vars: &[Var],
    parent: &mut Vec<u32>,
    sizes: &mut Vec<(u32, u32)>,
    (components, component_vars, component_constraints): (
        &mut Vec<Component>,
        &mut Vec<u32>,
        &mut Vec<u32>,
    ),
) {
    parent.clear();
    parent.extend(0..constraints as u32);
    let parent = &mut parent[..];
    let find = |parent: &mut [u32], mut c: u32| {
        while parent[c as usize] != c {
            let up = parent[parent[c as usize] as usize];
            parent[c as usize] = up;
            c = up;
        }
        c
    };
    for var in vars {
        // A variable of one constraint links nothing.
        let Some((&first, rest)) = var.constraints.split_first() else {
            continue;
        };
        if rest.is_empty() {
            continue;
        }
        let mut root = find(parent, first);
        for &c in rest {
            let other = find(parent, c);
            if other < root {
                parent[root as usize] = other;
                root = other;
            } else if other > root {
                parent[other as usize] = root;
            }
        }
    }
    // Each constraint's component, numbered as the roots come, in one pass: every link
    // points to a lesser constraint, so in increasing order each constraint's parent is
    // behind it and holds its component by then (a root is the least of its set, so it
    // comes before the others of it).
    sizes.clear();
    for c in 0..parent.len() {
        let up = parent[c] as usize;
        let component = if up == c {
            sizes.push((0, 0));
            sizes.len() as u32 - 1
        } else {
            parent[up]
        };
        parent[c] = component;
        sizes[component as usize].0 += 1;
    }
    for var in vars {
        if let Some(&c) = var.constraints.first() {
            sizes[parent[c as usize] as usize].1 += 1;
        }
    }
    components.clear();
    let (mut vars_at, mut constraints_at) = (0u32, 0u32);
    for size in sizes.iter_mut() {
        let (c, v) = *size;
        components.push(Component {
            vars: (vars_at, vars_at + v),
            constraints: (constraints_at, constraints_at + c),
        });
        *size = (constraints_at, vars_at);
        vars_at += v;
        constraints_at += c;
    }
    component_constraints.clear();
    component_constraints.resize(constraints_at as usize, 0);
    component_vars.clear();
    component_vars.resize(vars_at as usize, 0);
    for (c, &component) in (0u32..).zip(parent.iter()) {
        let at = &mut sizes[component as usize].0;
        component_constraints[*at as usize] = c;
        *at += 1;
    }
    for (v, var) in (0u32..).zip(vars) {
        if let Some(&c) = var.constraints.first() {
            let at = &mut sizes[parent[c as usize] as usize].1;
            component_vars[*at as usize] = v;
            *at += 1;
        }
    }
}

/// [`link_components`] the way it was first written, its twin: a search over constraints
/// from each one not yet reached, each component's lists sorted; each component's
/// variables and constraints.
#[cfg(test)]
fn components_by_search(
    constraints: usize,
    vars: &[Var],
    (first, of_constraint): (&[usize], &[u32]),
) -> Vec<(Vec<u32>, Vec<u32>)> {
    let mut seen_constraint = FixedBitSet::with_capacity(constraints);
    let mut seen_var = FixedBitSet::with_capacity(vars.len());
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for seed in 0..constraints {
        if seen_constraint.put(seed) {
            continue;
        }
        let (mut component_vars, mut component_constraints) = (Vec::new(), Vec::new());
        stack.push(seed);
        while let Some(c) = stack.pop() {
            component_constraints.push(c as u32);
            for &v in &of_constraint[first[c]..first[c + 1]] {
                if seen_var.put(v as usize) {
                    continue;
                }
                component_vars.push(v);
                for &other in vars[v as usize].constraints.iter() {
                    if !seen_constraint.put(other as usize) {
                        stack.push(other as usize);
                    }
                }
            }
        }
        component_constraints.sort_unstable();
        component_vars.sort_unstable();
        out.push((component_vars, component_constraints));
    }
    out
}

/// A key naming the set of constraints `sig` (in increasing order) in one word: the first
/// constraint's id, then a bit for each other one by its place relative to the first
/// within three rows and five columns. Every constraint of a cell lies beside the cell,
/// so the others lie at most two rows below the first (which is the first in plane
/// order) and two columns either side of it; and one constraint lies at each plane index,
/// so two cells share a key exactly when they share their constraints (`stride`, the
/// plane indices from one row to the next, is at least 64).
fn signature(constraints: &[Constraint], sig: &[u32], stride: usize) -> u64 {
    let Some((&first, rest)) = sig.split_first() else {
        return 0;
    };
    let at = constraints[first as usize].index;
    let mut mask = 0u64;
    for &c in rest {
        let d = constraints[c as usize].index + 2 - at;
        let (dr, dc) = (d / stride, d % stride);
        mask |= 1 << (dr * 5 + dc);
    }
    u64::from(first) << 16 | mask
}

/// The eight neighbours of a plane index, in increasing order.
pub(crate) fn neighbours(index: usize, stride: usize) -> [usize; 8] {
    let (up, down) = (index - stride, index + stride);
    [
        up - 1,
        up,
        up + 1,
        index - 1,
        index + 1,
        down - 1,
        down,
        down + 1,
    ]
}

impl Frontier {
    /// Builds the frontier of the constraints in `self.constraints` (found by
    /// [`Frontier::scan`]), with `undecided` undecided cells on the board in all and
    /// `stride` plane indices from one row to the next, reusing the vectors of the last
    /// build.
    pub(crate) fn build(&mut self, undecided: usize, stride: usize) {
        let Frontier {
            constraints,
            vars,
            in_plane_order,
            components,
            component_vars,
            component_constraints,
            build,
            ..
        } = self;
        let Build {
            touches,
            ranked,
            cells,
            sorted,
            order,
            linked,
            parent,
            sizes,
            ..
        } = build;
        // Each frontier cell in plane order, with a key that names the set of constraints
        // it touches in one word (see `signature`), so that sorting by key groups the
        // cells of each variable.
        cells.clear();
        vars.clear();
        in_plane_order.clear();
        let frontier_cells;
        if !cells_by_rank(constraints, stride, ranked, cells) {
            // A large board: every (cell, constraint) pair sorted, then the tuples.
            sorted.clear();
            cells_by_sorting(constraints, stride, touches, sorted);
            frontier_cells = sorted.len();
            vars_by_sorting(sorted, vars);
            for (v, var) in vars.iter().enumerate() {
                in_plane_order.extend(var.cells.iter().map(|&cell| (cell, v as u32)));
            }
            in_plane_order.sort_unstable();
        } else if cells.len() <= 1 << PLACE_BITS {
            frontier_cells = cells.len();
            // The cells are in plane order, so sorting by key then place sorts by key then
            // cell: the key (below 2^48, see `signature`) and the place packed into one word
            // sort as plain integers, faster than the tuples.
            order.clear();
            order.extend(
                cells
                    .iter()
                    .enumerate()
                    .map(|(place, &(key, _))| key << PLACE_BITS | place as u64),
            );
            order.sort_unstable();
            in_plane_order.resize(frontier_cells, (0, 0));
            // Plain slices, as below: pushing a variable does not make their addresses be
            // read again.
            let (cells, in_plane_order) = (&cells[..], &mut in_plane_order[..]);
            let place = |packed: u64| (packed & ((1 << PLACE_BITS) - 1)) as usize;
            let mut at = 0;
            while let Some(&packed) = order.get(at) {
                // A run of one key is a variable: its constraints are those of its first
                // cell, read once.
                let v = vars.len() as u32;
                let first = cells[place(packed)].1;
                let mut var = Var {
                    cells: Few::new(),
                    constraints: ranked.constraints_of(first, stride),
                };
                for &p in order[at..]
                    .iter()
                    .take_while(|&&p| p >> PLACE_BITS == packed >> PLACE_BITS)
                {
                    let cell = cells[place(p)].1;
                    in_plane_order[place(p)] = (cell, v);
                    var.cells.push(cell);
                    at += 1;
                }
                vars.push(var);
            }
        } else {
            // More cells than a place in the packed word holds: the pairs sorted as they
            // are, each run of one key a variable.
            frontier_cells = cells.len();
            cells.sort_unstable();
            for group in cells.chunk_by(|a, b| a.0 == b.0) {
                vars.push(Var {
                    cells: group.iter().map(|&(_, cell)| cell).collect(),
                    constraints: ranked.constraints_of(group[0].1, stride),
                });
            }
            for (v, var) in vars.iter().enumerate() {
                in_plane_order.extend(var.cells.iter().map(|&cell| (cell, v as u32)));
            }
            in_plane_order.sort_unstable();
        }
        #[cfg(test)]
        {
            // The naive twin: every (cell, constraint) pair sorted, then the tuples.
            let (mut pairs, mut tuples, mut twin) = (Vec::new(), Vec::new(), Vec::new());
            cells_by_sorting(constraints, stride, &mut pairs, &mut tuples);
            vars_by_sorting(&mut tuples, &mut twin);
            assert_eq!(twin.len(), vars.len());
            for (a, b) in twin.iter().zip(vars.iter()) {
                assert_eq!(*a.cells, *b.cells);
                assert_eq!(*a.constraints, *b.constraints);
            }
            let mut plane_order: Vec<(usize, u32)> = (0u32..)
                .zip(&twin)
                .flat_map(|(v, var)| var.cells.iter().map(move |&cell| (cell, v)))
                .collect();
            plane_order.sort_unstable();
            assert_eq!(&plane_order, in_plane_order);
        }
        // Components by a union of the constraints each variable links; the lists of each
        // constraint's variables only where the forward pass needs them
        // ([`Frontier::link_vars_by_constraint`]).
        let vars = &vars[..];
        *linked = false;
        link_components(
            constraints.len(),
            vars,
            parent,
            sizes,
            (components, component_vars, component_constraints),
        );
        // The twin: a search over constraints from each one not yet reached, each
        // component's lists sorted.
        #[cfg(test)]
        {
            let (mut first, mut of_constraint, mut next) = (Vec::new(), Vec::new(), Vec::new());
            vars_by_constraint(
                constraints.len(),
                vars,
                (&mut first, &mut of_constraint, &mut next),
            );
            let twin = components_by_search(constraints.len(), vars, (&first, &of_constraint));
            let ours: Vec<(Vec<u32>, Vec<u32>)> = components
                .iter()
                .map(|c| {
                    (
                        component_vars[c.vars.0 as usize..c.vars.1 as usize].to_vec(),
                        component_constraints[c.constraints.0 as usize..c.constraints.1 as usize]
                            .to_vec(),
                    )
                })
                .collect();
            assert_eq!(ours, twin, "components by union against the search");
        }
        self.cells = frontier_cells;
        self.off = undecided - frontier_cells;
    }

    /// Scans `planes` for the constraints a later [`Frontier::build`] takes: in bands on
    /// the rayon pool on a large board, into the kept vectors otherwise.
    pub(crate) fn scan(&mut self, planes: &Planes) {
        if planes.banded() {
            self.constraints = constraints_in(planes, true);
        } else if planes.geometry.words_per_row() == 1 {
            constraints_narrow(planes, &mut self.constraints);
        } else {
            constraints_into(planes, &mut self.constraints, &mut self.build.words);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use bitmines_core::{Board, Game, SeededPlacer, Status};

    /// Boards of one cell a row or column, expert's, and rows across word edges.
    const SHAPES: [(usize, usize); 7] = [
        (1, 9),
        (9, 1),
        (16, 30),
        (7, 63),
        (8, 64),
        (9, 65),
        (20, 130),
    ];

    /// Plays a board of `rows` x `cols` (a sixth of it mines, from `seed`) by revealing
    /// every `step`th safe cell, one at a time, and hands `check` the game after each,
    /// with the cell just revealed.
    pub(crate) fn after_each_reveal(
        seed: u64,
        (rows, cols): (usize, usize),
        step: usize,
        mut check: impl FnMut(&Game, (usize, usize)),
    ) {
        let board: Board = SeededPlacer::new(seed)
            .board(rows, cols, rows * cols / 6)
            .expect("a valid board");
        let safe: Vec<(usize, usize)> = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .filter(|&(r, c)| board.is_mine(r, c) == Ok(false))
            .collect();
        let mut game = Game::new(board);
        for &(r, c) in safe.iter().step_by(step) {
            if game.status() != Status::Playing {
                break;
            }
            game.reveal(r, c).expect("a safe cell");
            check(&game, (r, c));
        }
    }

    /// On boards of one word a row, the constraints read in one pass over the rows are
    /// those the scan by rows and the reading cell by cell give, in the same order, as play
    /// goes on (with the cells the trivial rule proves).
    #[test]
    fn one_word_constraints_match_their_twin() {
        for (seed, &shape) in (1..).zip(&[(1, 9), (9, 1), (16, 30), (7, 62), (62, 62), (70, 5)]) {
            after_each_reveal(seed, shape, 3, |game, _| {
                let mut planes = Planes::new(&game.view()).expect("planes");
                for sweeps in 0..2 {
                    let mut got = Vec::new();
                    constraints_narrow(&planes, &mut got);
                    let (mut want, mut words) = (Vec::new(), Vec::new());
                    constraints_into(&planes, &mut want, &mut words);
                    assert_eq!(got, want, "{shape:?} after {sweeps} sweeps");
                    let _ = planes.sweep();
                }
            });
        }
    }

    /// The scan for revealed cells beside undecided ones, row by row, finds the words its
    /// word-by-word twin does, over the whole board and over runs of rows, as play goes on.
    #[test]
    fn scan_by_rows_matches_its_twin() {
        for (seed, &(rows, cols)) in (1..).zip(SHAPES.iter().chain(&[(30, 300), (5, 128)])) {
            after_each_reveal(seed, (rows, cols), 5, |game, _| {
                let mut planes = Planes::new(&game.view()).expect("planes");
                // Proven cells too, as the pair rule's scan sees them.
                let _ = planes.sweep();
                for span in [1..rows + 1, 1..1, rows / 2 + 1..rows + 1, 1..rows / 3 + 1] {
                    let (mut fast, mut naive) = (Vec::new(), Vec::new());
                    scan_rows(&planes, span.clone(), &mut fast);
                    scan_rows_naive(&planes, span.clone(), &mut naive);
                    assert_eq!(fast, naive, "{rows}x{cols}, rows {span:?}");
                }
            });
        }
    }

    /// The frontier cells found on planes of the constraints match those found by sorting
    /// every (cell, constraint) pair, on boards across word edges, as play goes on.
    #[test]
    fn cells_by_rank_match_cells_by_sorting() {
        // The widest board of one word a row too, whose last column is bit 62.
        for (seed, &(rows, cols)) in (1..).zip(SHAPES.iter().chain(&[(6, 62)])) {
            // Every seventh safe cell revealed, one at a time, comparing after each.
            after_each_reveal(seed, (rows, cols), 7, |game, (r, c)| {
                let mut planes = Planes::new(&game.view()).expect("planes");
                // Proven cells too, as the exact tier sees them.
                while planes.sweep().is_ok_and(|found| found > 0) {}
                let constraints = constraints(&planes);
                let stride = planes.geometry.words_per_row() * 64;
                let (mut ranked, mut touches) = (Ranked::default(), Vec::new());
                let (mut by_rank, mut by_sorting) = (Vec::new(), Vec::new());
                assert!(cells_by_rank(
                    &constraints,
                    stride,
                    &mut ranked,
                    &mut by_rank
                ));
                cells_by_sorting(&constraints, stride, &mut touches, &mut by_sorting);
                // Each cell's constraints as the build reads them, from the planes.
                let by_rank: Vec<(u64, usize, Vec<u32>)> = by_rank
                    .iter()
                    .map(|&(key, cell)| (key, cell, ranked.constraints_of(cell, stride).to_vec()))
                    .collect();
                let by_sorting: Vec<(u64, usize, Vec<u32>)> = by_sorting
                    .iter()
                    .map(|(key, cell, sig)| (*key, *cell, sig.to_vec()))
                    .collect();
                assert_eq!(
                    by_rank, by_sorting,
                    "{rows}x{cols}, seed {seed}, after ({r}, {c})"
                );
                // Two cells share a key exactly when they share their constraints.
                for (i, a) in by_sorting.iter().enumerate() {
                    for b in &by_sorting[i + 1..] {
                        assert_eq!(a.0 == b.0, a.2 == b.2, "cells {} and {}", a.1, b.1);
                    }
                }
            });
        }
    }
}
