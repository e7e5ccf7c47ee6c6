//! The scalar fill: an explicit stack of cell indices over the sentinel-bordered plane.
//!
//! `Fill::Scalar`, the reference: an explicit stack of bit indices, the eight constant
//! neighbour offsets of the padded plane, and the pre-revealed sentinel doing the bounds
//! checks.

#![allow(
    clippy::indexing_slicing,
    reason = "word and bit indices come from the planes' own Geometry, which sized every plane; public entry points check coordinates (Geometry::bit) before any index is formed"
)]

use super::{Planes, bit_of};

/// Opens the hidden, unflagged safe cell `seed` (a bit index) and, if it is a zero cell,
/// everything its cascade reaches. Returns the number of cells opened.
pub(crate) fn fill(planes: &mut Planes<'_>, stack: &mut Vec<usize>, seed: usize) -> usize {
    let stride = planes.words_per_row * 64;
    // The eight neighbours as wrapping offsets; the sentinel border keeps every sum in range.
    let offsets = [
        stride.wrapping_neg().wrapping_sub(1),
        stride.wrapping_neg(),
        stride.wrapping_neg().wrapping_add(1),
        1usize.wrapping_neg(),
        1,
        stride - 1,
        stride,
        stride + 1,
    ];
    planes.revealed[seed / 64] |= 1 << (seed % 64);
    let mut opened = 1;
    if !bit_of(planes.zero, seed) {
        return opened;
    }
    stack.clear();
    stack.push(seed);
    while let Some(cell) = stack.pop() {
        for offset in offsets {
            let n = cell.wrapping_add(offset);
            let (w, b) = (n / 64, 1u64 << (n % 64));
            if (planes.revealed[w] | planes.flagged[w]) & b == 0 {
                planes.revealed[w] |= b;
                opened += 1;
                if planes.zero[w] & b != 0 {
                    stack.push(n);
                }
            }
        }
    }
    opened
}
