//! The word-parallel fill: a worklist of (word, seed bits) over the padded planes.

use super::Planes;

/// One pending word: its index and the zero cells in it that were just revealed and not yet
/// expanded.
pub(crate) type Pending = (usize, u64);

/// Opens the hidden, unflagged safe cell `seed` (a bit index) and, if it is a zero cell,
/// everything its cascade reaches. Returns the number of cells opened.
///
/// Each popped word closes the horizontal runs of passable cells through its seed bits and
/// opens those runs dilated by one cell in the three rows around them. A zero cell reached in
/// a neighbouring word is revealed at once and queued as a seed of that word, so it enters
/// exactly one run and is expanded exactly once. The sentinel border is pre-revealed, so
/// dilation never opens a cell off the board and every word touched has neighbours.
pub(crate) fn fill(planes: &mut Planes<'_>, stack: &mut Vec<Pending>, seed: usize) -> usize {
    let (w, b) = (seed / 64, 1u64 << (seed % 64));
    planes.revealed[w] |= b;
    if planes.zero[w] & b == 0 {
        return 1;
    }
    let mut opened = 1;
    let wpr = planes.words_per_row;
    stack.clear();
    stack.push((w, b));
    while let Some((w, seeds)) = stack.pop() {
        let passable = (planes.zero[w] & !(planes.revealed[w] | planes.flagged[w])) | seeds;
        let run = close_runs(passable, seeds);
        let wide = run | run << 1 | run >> 1;
        let (spill_left, spill_right) = (run << 63, run >> 63);
        for (row, own) in [(w - wpr, false), (w, true), (w + wpr, false)] {
            // In the run's own word the zero cells opened are the run itself, expanded now.
            opened += open(planes, stack, row, wide, !own);
            if spill_left != 0 {
                opened += open(planes, stack, row - 1, spill_left, true);
            }
            if spill_right != 0 {
                opened += open(planes, stack, row + 1, spill_right, true);
            }
        }
    }
    opened
}

/// Reveals `bits` of word `w` that are neither revealed nor flagged, queues the zero cells
/// among them when `queue` is set, and returns how many were revealed.
#[inline(always)]
fn open(
    planes: &mut Planes<'_>,
    stack: &mut Vec<Pending>,
    w: usize,
    bits: u64,
    queue: bool,
) -> usize {
    let new = bits & !(planes.revealed[w] | planes.flagged[w]);
    if new == 0 {
        return 0;
    }
    planes.revealed[w] |= new;
    let zeros = new & planes.zero[w];
    if queue && zeros != 0 {
        stack.push((w, zeros));
    }
    new.count_ones() as usize
}

/// The runs of consecutive set bits of `passable` that contain a bit of `seeds`
/// (`seeds` must be a subset of `passable`).
#[inline(always)]
pub(crate) fn close_runs(passable: u64, seeds: u64) -> u64 {
    close_up(passable, seeds) | close_down(passable, seeds)
}

/// From each seed bit up to the top of its run: the carry of `passable + seeds` runs through
/// exactly those bits.
#[inline(always)]
fn close_up(passable: u64, seeds: u64) -> u64 {
    ((passable.wrapping_add(seeds) ^ passable) & passable) | seeds
}

/// From each seed bit down to the bottom of its run, by an occluded shift-or fill in six steps.
#[inline(always)]
fn close_down(passable: u64, seeds: u64) -> u64 {
    let (mut g, mut p) = (seeds, passable);
    g |= p & (g >> 1);
    p &= p >> 1;
    g |= p & (g >> 2);
    p &= p >> 2;
    g |= p & (g >> 4);
    p &= p >> 4;
    g |= p & (g >> 8);
    p &= p >> 8;
    g |= p & (g >> 16);
    p &= p >> 16;
    g | (p & (g >> 32))
}

#[cfg(test)]
mod tests {
    use super::close_runs;

    /// The plain definition: walk out from each seed bit while bits stay passable.
    fn naive_close(passable: u64, seeds: u64) -> u64 {
        let mut out = 0u64;
        for s in 0..64 {
            if seeds >> s & 1 == 0 {
                continue;
            }
            let mut i = s as i32;
            while i >= 0 && passable >> i & 1 == 1 {
                out |= 1 << i;
                i -= 1;
            }
            let mut i = s;
            while i < 64 && passable >> i & 1 == 1 {
                out |= 1 << i;
                i += 1;
            }
        }
        out
    }

    #[test]
    fn close_runs_matches_the_definition() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let passable = next() | next(); // dense, so runs are long
            let seeds = passable & next() & next() & next();
            assert_eq!(close_runs(passable, seeds), naive_close(passable, seeds));
        }
        for (p, s) in [(!0, 1), (!0, 1 << 63), (!0, 0), (0b0111_0110, 0b0100_0000)] {
            assert_eq!(close_runs(p, s), naive_close(p, s), "{p:b} {s:b}");
        }
    }
}
