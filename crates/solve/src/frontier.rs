//! The frontier: revealed numbers that still touch undecided cells (constraints), the
//! undecided cells they touch, merged into variables by the numbers they touch, and the
//! independent components those form.
//!
//! Variables are cells touching the same constraints, merged with a multiplicity; components
//! come from a search over the constraints with `FixedBitSet` visited marks. The lists are per
//! frontier cell, not per board cell.

#![allow(
    clippy::indexing_slicing,
    reason = "plane indices come from the solver's own Geometry; ids index the vectors built alongside them; chunk_by groups are never empty"
)]

use fixedbitset::FixedBitSet;
use rayon::prelude::*;

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

/// Constraints linked through shared cells, with their variables.
#[derive(Debug, Clone, Default)]
pub(crate) struct Component {
    /// Variable ids.
    pub(crate) vars: Vec<u32>,
    /// Constraint ids.
    pub(crate) constraints: Vec<u32>,
}

/// The whole frontier of a position.
#[derive(Debug, Clone, Default)]
pub(crate) struct Frontier {
    pub(crate) constraints: Vec<Constraint>,
    pub(crate) vars: Vec<Var>,
    pub(crate) components: Vec<Component>,
    /// Undecided cells on the frontier.
    pub(crate) cells: usize,
    /// Undecided cells touching no revealed number.
    pub(crate) off: usize,
}

impl Frontier {
    /// Heap bytes of its constraints, variables and components.
    pub(crate) fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.constraints.capacity() * size_of::<Constraint>()
            + self.vars.capacity() * size_of::<Var>()
            + self.components.capacity() * size_of::<Component>()
            + self
                .components
                .iter()
                .map(|c| (c.vars.capacity() + c.constraints.capacity()) * size_of::<u32>())
                .sum::<usize>()
    }
}

/// The constraints of every revealed cell that touches an undecided cell, in plane order.
pub(crate) fn constraints(planes: &Planes) -> Vec<Constraint> {
    constraints_in(planes, planes.banded())
}

/// [`constraints`], scanning the planes' bands of rows on the rayon pool with `banded`, or
/// the whole board on this thread.
pub(crate) fn constraints_in(planes: &Planes, banded: bool) -> Vec<Constraint> {
    let g = &planes.geometry;
    let (wpr, stride) = (g.words_per_row(), g.words_per_row() * 64);
    let undecided = |i: usize| planes.is_unknown(i);
    // Each word's revealed cells next to an undecided one, found once: counted first, so
    // the list is allocated once at its size. A large board is scanned in bands of rows on
    // the rayon pool, the bands' lists joined in row order.
    let scan = |rows: std::ops::Range<usize>| {
        let mut words: Vec<(usize, u64)> = Vec::new();
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
        words
    };
    let tops = planes.tops(banded);
    let words: Vec<(usize, u64)> = if banded {
        tops.par_windows(2)
            .map(|top| scan(top[0]..top[1]))
            .collect::<Vec<_>>()
            .concat()
    } else {
        scan(1..g.rows() + 1)
    };
    let count = words
        .iter()
        .map(|&(_, shown)| shown.count_ones() as usize)
        .sum();
    let mut out = Vec::with_capacity(count);
    for (w, mut shown) in words {
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
                } else if undecided(n) {
                    constraint.mask |= 1 << k;
                    constraint.cells[usize::from(constraint.len)] = n;
                    constraint.len += 1;
                }
            }
            constraint.need = number.saturating_sub(mines);
            out.push(constraint);
        }
    }
    out
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
    /// The frontier of `constraints`, with `undecided` undecided cells on the board in all.
    pub(crate) fn new(constraints: Vec<Constraint>, undecided: usize) -> Frontier {
        // Each frontier cell with the constraints it touches: sorting the pairs groups a
        // cell's constraints together, in increasing order.
        let mut touches: Vec<(usize, u32)> = constraints
            .iter()
            .enumerate()
            .flat_map(|(c, con)| con.cells().iter().map(move |&cell| (cell, c as u32)))
            .collect();
        touches.sort_unstable();
        let mut cells: Vec<(Few<u32>, usize)> = Vec::with_capacity(touches.len());
        for group in touches.chunk_by(|a, b| a.0 == b.0) {
            let sig = group.iter().map(|&(_, c)| c).collect();
            cells.push((sig, group[0].0));
        }
        let frontier_cells = cells.len();
        cells.sort_unstable();
        let mut vars: Vec<Var> = Vec::with_capacity(cells.chunk_by(|a, b| a.0 == b.0).count());
        for group in cells.chunk_by(|a, b| a.0 == b.0) {
            vars.push(Var {
                cells: group.iter().map(|(_, cell)| *cell).collect(),
                constraints: group[0].0,
            });
        }
        // Variables of each constraint (`first[c]..first[c + 1]` of `of_constraint`), then
        // components by a search over constraints.
        let mut first = vec![0usize; constraints.len() + 1];
        for var in &vars {
            for &c in var.constraints.iter() {
                first[c as usize + 1] += 1;
            }
        }
        for c in 0..constraints.len() {
            first[c + 1] += first[c];
        }
        let mut of_constraint = vec![0u32; first[constraints.len()]];
        let mut next = first.clone();
        for (v, var) in vars.iter().enumerate() {
            for &c in var.constraints.iter() {
                of_constraint[next[c as usize]] = v as u32;
                next[c as usize] += 1;
            }
        }
        let mut seen_constraint = FixedBitSet::with_capacity(constraints.len());
        let mut seen_var = FixedBitSet::with_capacity(vars.len());
        let mut components = Vec::new();
        let mut stack = Vec::new();
        for seed in 0..constraints.len() {
            if seen_constraint.put(seed) {
                continue;
            }
            let mut component = Component::default();
            stack.push(seed);
            while let Some(c) = stack.pop() {
                component.constraints.push(c as u32);
                for &v in &of_constraint[first[c]..first[c + 1]] {
                    if seen_var.put(v as usize) {
                        continue;
                    }
                    component.vars.push(v);
                    for &other in vars[v as usize].constraints.iter() {
                        if !seen_constraint.put(other as usize) {
                            stack.push(other as usize);
                        }
                    }
                }
            }
            component.constraints.sort_unstable();
            component.vars.sort_unstable();
            components.push(component);
        }
        Frontier {
            constraints,
            vars,
            components,
            cells: frontier_cells,
            off: undecided - frontier_cells,
        }
    }
}
