//! The frontier: revealed numbers that still touch undecided cells (constraints), the
//! undecided cells they touch, merged into variables by the numbers they touch, and the
//! independent components those form.

#![allow(
    clippy::indexing_slicing,
    reason = "plane indices come from the solver's own Geometry; ids index the vectors built alongside them; chunk_by groups are never empty"
)]

use fixedbitset::FixedBitSet;

use crate::planes::Planes;

/// A revealed number with undecided neighbours: those cells hold exactly `need` mines.
#[derive(Debug, Clone)]
pub(crate) struct Constraint {
    /// Plane index of the revealed cell.
    pub(crate) index: usize,
    /// The number, less the proven mines around it.
    pub(crate) need: u8,
    /// The number shown.
    pub(crate) number: u8,
    /// Plane indices of its undecided neighbours.
    pub(crate) cells: Vec<usize>,
}

/// Undecided cells touching exactly the same constraints: interchangeable, so counted once
/// with a multiplicity.
#[derive(Debug, Clone)]
pub(crate) struct Var {
    /// Plane indices of the cells, in increasing order.
    pub(crate) cells: Vec<usize>,
    /// The constraints they touch, in increasing order.
    pub(crate) constraints: Vec<u32>,
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

/// The constraints of every revealed cell that touches an undecided cell, in plane order.
pub(crate) fn constraints(planes: &Planes) -> Vec<Constraint> {
    let g = &planes.geometry;
    let (wpr, stride) = (g.words_per_row(), g.words_per_row() * 64);
    let undecided = |i: usize| planes.is_unknown(i);
    let mut out = Vec::new();
    for row in 1..=g.rows() {
        for j in 0..wpr {
            let w = row * wpr + j + 1;
            let mut shown = Planes::word(&planes.revealed, w) & planes.cell_masks[j];
            if shown == 0 || planes.unknown_near(w) == 0 {
                continue;
            }
            shown &= planes.unknown_near(w);
            while shown != 0 {
                let index = w * 64 + shown.trailing_zeros() as usize;
                shown &= shown - 1;
                let number = planes.number(index);
                let mut mines = 0u8;
                let mut cells = Vec::with_capacity(8);
                for n in neighbours(index, stride) {
                    if Planes::get(&planes.mines, n) {
                        mines += 1;
                    } else if undecided(n) {
                        cells.push(n);
                    }
                }
                out.push(Constraint {
                    index,
                    need: number.saturating_sub(mines),
                    number,
                    cells,
                });
            }
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
            .flat_map(|(c, con)| con.cells.iter().map(move |&cell| (cell, c as u32)))
            .collect();
        touches.sort_unstable();
        let mut cells: Vec<(Vec<u32>, usize)> = Vec::new();
        for group in touches.chunk_by(|a, b| a.0 == b.0) {
            let sig = group.iter().map(|&(_, c)| c).collect();
            cells.push((sig, group[0].0));
        }
        let frontier_cells = cells.len();
        cells.sort_unstable();
        let mut vars: Vec<Var> = Vec::new();
        for group in cells.chunk_by(|a, b| a.0 == b.0) {
            vars.push(Var {
                cells: group.iter().map(|(_, cell)| *cell).collect(),
                constraints: group[0].0.clone(),
            });
        }
        // Variables of each constraint, then components by a search over constraints.
        let mut of_constraint: Vec<Vec<u32>> = vec![Vec::new(); constraints.len()];
        for (v, var) in vars.iter().enumerate() {
            for &c in &var.constraints {
                of_constraint[c as usize].push(v as u32);
            }
        }
        let mut seen_constraint = FixedBitSet::with_capacity(constraints.len());
        let mut seen_var = FixedBitSet::with_capacity(vars.len());
        let mut components = Vec::new();
        let mut stack = Vec::new();
        for start in 0..constraints.len() {
            if seen_constraint.put(start) {
                continue;
            }
            let mut component = Component::default();
            stack.push(start);
            while let Some(c) = stack.pop() {
                component.constraints.push(c as u32);
                for &v in &of_constraint[c] {
                    if seen_var.put(v as usize) {
                        continue;
                    }
                    component.vars.push(v);
                    for &other in &vars[v as usize].constraints {
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
