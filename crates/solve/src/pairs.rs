//! The pair rule: two frontier numbers within two cells of each other, compared through
//! the cells they share.
//!
//! Each number's undecided neighbours are placed in a 7x7 frame of bits centred on the
//! first number (bit `row * 7 + col`), so the shared cells, and the cells only one of the
//! two touches, are a few word operations.
//!
//! On a board of one word a row, a solver's next round looks only at the pairs with a
//! number whose constraint changed since its last round (`pairs_since`): an unchanged pair
//! proves nothing new.

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
                if let Some(only) = passes(fa, a, b, dr, dc) {
                    found += prove_pair(planes, reasons, a, b, only);
                }
            }
        }
    }
    found
}

/// Whether the pair `a`, `b` (`b` lying `(dr, dc)` cells from `a`, `fa` the frame of `a`'s
/// cells) proves anything: the mines `a` needs beyond what the shared cells can take from
/// `b` must all sit in `a`'s own cells. Then the cells only `a` touches are mines and those
/// only `b` touches are safe, returned as frames around `a`.
#[inline(always)]
fn passes(fa: u64, a: &Constraint, b: &Constraint, dr: isize, dc: isize) -> Option<(u64, u64)> {
    let fb = shifted(frame(b.mask), dr, dc);
    let (only_a, only_b) = (fa & !fb, fb & !fa);
    (fa & fb != 0
        && only_a | only_b != 0
        && u32::from(a.need) == u32::from(b.need) + only_a.count_ones())
    .then_some((only_a, only_b))
}

/// Proves the cells of a pair that [`passes`] (`only`, frames around `a`) that are not
/// proven yet, with the pair as their reason; returns how many.
#[inline(always)]
fn prove_pair(
    planes: &mut Planes,
    reasons: &mut FastMap<usize, Reason>,
    a: &Constraint,
    b: &Constraint,
    (only_a, only_b): (u64, u64),
) -> usize {
    let stride = (planes.geometry.words_per_row() * 64) as isize;
    let reason = Reason::Pair {
        first: planes.cell(a.index),
        second: planes.cell(b.index),
    };
    let mut found = 0;
    for (mut bits, mine) in [(only_a, true), (only_b, false)] {
        while bits != 0 {
            let p = bits.trailing_zeros() as isize;
            bits &= bits - 1;
            let Some(cell) = a.index.checked_add_signed((p / 7 - 3) * stride + p % 7 - 3) else {
                continue;
            };
            if planes.is_unknown(cell) {
                planes.prove(cell, mine);
                reasons.insert(cell, reason.clone());
                found += 1;
            }
        }
    }
    found
}

/// Plane words of the largest board [`pairs_since`] works on by itself: one word a row, 62
/// rows, the two sentinel rows and the two guard words.
const SINCE_WORDS: usize = 66;

/// [`pairs`] on a board of one word a row, looking only at the pairs of which some
/// number's constraint is not in `before`, the constraints of an earlier round on the same
/// planes (in plane order) with no proof forgotten since: the same proofs with the same
/// reasons. Whether a pair proves anything depends on its two constraints alone, and a pair
/// that passed in that round proved every cell only one of the two touches, which then
/// left their undecided cells; so a pair whose constraints are both unchanged proves
/// nothing now. The pairs of each changed number are found through a mask of each row's
/// numbers, those that pass are put in the order [`pairs`] meets them (by the first number,
/// then the second, both in plane order), and proven in it. Other boards take [`pairs`].
pub(crate) fn pairs_since(
    planes: &mut Planes,
    constraints: &[Constraint],
    before: &[Constraint],
    reasons: &mut FastMap<usize, Reason>,
) -> usize {
    if planes.geometry.words_per_row() != 1 || planes.revealed.len() > SINCE_WORDS {
        return pairs(planes, constraints, reasons);
    }
    // Whether each constraint is the same as in `before` (both lists in plane order): the
    // same number with the same undecided cells and need, all that `passes` reads.
    let mut same = Vec::with_capacity(constraints.len());
    let mut j = 0;
    for c in constraints {
        while before.get(j).is_some_and(|b| b.index < c.index) {
            j += 1;
        }
        same.push(
            before
                .get(j)
                .is_some_and(|b| (b.index, b.mask, b.need) == (c.index, c.mask, c.need)),
        );
    }
    // Each plane word's numbers, and the place in the list of the first of them.
    let mut at = [0u64; SINCE_WORDS];
    let mut first = [0usize; SINCE_WORDS];
    for (id, c) in constraints.iter().enumerate() {
        let Some(word) = at.get_mut(c.index / 64) else {
            return pairs(planes, constraints, reasons);
        };
        if *word == 0 {
            first[c.index / 64] = id;
        }
        *word |= 1 << (c.index % 64);
    }
    // The pairs that pass, as (first id, second id, cells).
    let mut passed: Vec<(usize, usize, (u64, u64))> = Vec::new();
    for (id, c) in constraints.iter().enumerate() {
        if same[id] {
            continue;
        }
        let (w, bit) = (c.index / 64, c.index % 64);
        // A number's cell is a board cell, bits 1..=62 of its word, so the columns within
        // two of it lie in the word.
        let window = (!0u64 >> (63 - (bit + 2).min(63))) & (!0u64 << bit.saturating_sub(2));
        for dr in -2isize..=2 {
            let Some(v) = w.checked_add_signed(dr).filter(|&v| v < SINCE_WORDS) else {
                continue;
            };
            let mut partners = at[v] & window;
            while partners != 0 {
                let b = partners.trailing_zeros() as usize;
                partners &= partners - 1;
                let dc = b as isize - bit as isize;
                if (dr, dc) == (0, 0) {
                    continue;
                }
                let other = first[v] + (at[v] & ((1u64 << b) - 1)).count_ones() as usize;
                let x = &constraints[other];
                if let Some(only) = passes(frame(c.mask), c, x, dr, dc) {
                    passed.push((id, other, only));
                }
                // The pair the other way round, unless the other number changed too and
                // meets it from its own side.
                if same[other]
                    && let Some(only) = passes(frame(x.mask), x, c, -dr, -dc)
                {
                    passed.push((other, id, only));
                }
            }
        }
    }
    passed.sort_unstable_by_key(|&(a, b, _)| (a, b));
    passed
        .iter()
        .map(|&(a, b, only)| prove_pair(planes, reasons, &constraints[a], &constraints[b], only))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Looking only at the pairs with a number changed since the last round proves what
    /// looking at every pair does, with the same reasons, round after round and move after
    /// move of a play that reveals what the rules prove.
    #[test]
    fn pairs_since_the_last_round_match_every_pair() {
        use bitmines_core::{Board, Game, SeededPlacer, Status};
        let mut proven = 0;
        for (seed, (rows, cols, mines)) in (1..).zip([
            (16, 30, 99),
            (9, 9, 12),
            (30, 16, 80),
            (62, 62, 600),
            (1, 40, 6),
        ]) {
            let board: Board = SeededPlacer::new(seed)
                .board(rows, cols, mines)
                .expect("a valid board");
            let Some(start) = (0..rows * cols)
                .map(|i| (i / cols, i % cols))
                .find(|&(r, c)| board.is_mine(r, c) == Ok(false))
            else {
                continue;
            };
            let mut game = Game::new(board);
            game.reveal(start.0, start.1).expect("a safe cell");
            let mut kept = Planes::new(&game.view()).expect("planes");
            let mut twin = kept.clone();
            let (mut reasons, mut twin_reasons) = (FastMap::default(), FastMap::default());
            let mut before = Vec::new();
            while game.status() == Status::Playing {
                loop {
                    while kept.sweep().unwrap_or(0) > 0 {}
                    while twin.sweep().unwrap_or(0) > 0 {}
                    let constraints = crate::frontier::constraints_in(&kept, false);
                    let found = pairs_since(&mut kept, &constraints, &before, &mut reasons);
                    assert_eq!(found, pairs(&mut twin, &constraints, &mut twin_reasons));
                    assert!(
                        kept.mines == twin.mines && kept.safe == twin.safe,
                        "{rows}x{cols}"
                    );
                    assert_eq!(reasons, twin_reasons, "{rows}x{cols}");
                    proven += found;
                    before = constraints;
                    if found == 0 {
                        break;
                    }
                }
                let words = kept.safe_words();
                if words.is_empty() || game.reveal_words(&words).expect("proven safe").opened == 0 {
                    break;
                }
                if game.status() == Status::Playing {
                    kept.update(&game.view()).expect("a later view");
                    twin.update(&game.view()).expect("a later view");
                }
            }
        }
        assert!(proven > 20, "only {proven} cells proven by pairs");
    }

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
