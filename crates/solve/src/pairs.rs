//! The pair rule: two frontier numbers within two cells of each other, compared through
//! the cells they share.
//!
//! Each number's undecided neighbours are placed in a 7x7 frame of bits centred on the
//! first number (bit `row * 7 + col`), so the shared cells, and the cells only one of the
//! two touches, are a few word operations.

#![allow(
    clippy::indexing_slicing,
    reason = "constraint ids index the constraint list they were built from"
)]

use crate::Reason;
use crate::frontier::{Constraint, FastMap};
use crate::planes::Planes;

/// Offsets `(row, col)` of the eight neighbours, in the order of
/// [`neighbours`](crate::frontier::neighbours).
const OFFSETS: [(isize, isize); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

/// A neighbour mask as bits of a 7x7 frame centred on its own number.
fn frame(mask: u8) -> u64 {
    FRAMES[usize::from(mask)]
}

/// [`frame`] of every mask, worked out once.
const FRAMES: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut k = 0;
        while k < 8 {
            if mask >> k & 1 != 0 {
                let (dr, dc) = OFFSETS[k];
                table[mask] |= 1 << ((3 + dr) * 7 + 3 + dc);
            }
            k += 1;
        }
        mask += 1;
    }
    table
};

/// The frame moved by `(dr, dc)` cells, `|dr|, |dc| <= 2`; a centred 3x3 stays inside.
fn shifted(frame: u64, dr: isize, dc: isize) -> u64 {
    let by = dr * 7 + dc;
    if by >= 0 { frame << by } else { frame >> -by }
}

/// One round of the pair rule over `constraints` (those of `planes`, in plane order); proves
/// cells in `planes` with their reasons, and returns how many.
pub(crate) fn pairs(
    planes: &mut Planes,
    constraints: &[Constraint],
    reasons: &mut FastMap<usize, Reason>,
) -> usize {
    let stride = (planes.geometry.words_per_row() * 64) as isize;
    let mut found = 0;
    // For each row offset `dr`, the first constraint not before the numbers of that row
    // within two columns of `a`: it only moves forward, as `a` does.
    let mut from = [0usize; 5];
    for a in constraints {
        let fa = frame(a.mask);
        for (dr, from) in (-2isize..=2).zip(&mut from) {
            // The numbers of row `dr` within two columns: a run of the sorted list.
            let Some(lo) = a.index.checked_add_signed(dr * stride - 2) else {
                continue;
            };
            while constraints.get(*from).is_some_and(|c| c.index < lo) {
                *from += 1;
            }
            for b in constraints[*from..]
                .iter()
                .take_while(|c| c.index <= lo + 4)
            {
                let dc = b.index as isize - lo as isize - 2;
                if (dr, dc) == (0, 0) {
                    continue;
                }
                let fb = shifted(frame(b.mask), dr, dc);
                let (only_a, only_b) = (fa & !fb, fb & !fa);
                // The mines `a` needs beyond what the shared cells can take from `b` must
                // all sit in `a`'s own cells.
                if fa & fb == 0
                    || only_a | only_b == 0
                    || u32::from(a.need) != u32::from(b.need) + only_a.count_ones()
                {
                    continue;
                }
                let reason = Reason::Pair {
                    first: planes.cell(a.index),
                    second: planes.cell(b.index),
                };
                for (mut bits, mine) in [(only_a, true), (only_b, false)] {
                    while bits != 0 {
                        let p = bits.trailing_zeros() as isize;
                        bits &= bits - 1;
                        let Some(cell) =
                            a.index.checked_add_signed((p / 7 - 3) * stride + p % 7 - 3)
                        else {
                            continue;
                        };
                        if planes.is_unknown(cell) {
                            planes.prove(cell, mine);
                            reasons.insert(cell, reason.clone());
                            found += 1;
                        }
                    }
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_place_neighbours_around_the_centre() {
        assert_eq!(frame(0b1111_1111).count_ones(), 8);
        assert_eq!(frame(0b1111_1111) & 1 << (3 * 7 + 3), 0);
        // The left neighbour of a number two columns to the right is the cell between
        // the two, the first number's right neighbour.
        assert_eq!(shifted(frame(1 << 3), 0, 2), 1 << (3 * 7 + 4));
        // The up-left neighbour of a number two up and two left: the frame's corner.
        assert_eq!(shifted(frame(1), -2, -2), 1);
    }
}
