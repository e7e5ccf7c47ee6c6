//! The word-parallel fill: a scanline flood over the words of the padded planes.
//!
//! `Fill::Words`, the default. The worklist is a stack of rows; a `pending` plane marks zero
//! cells reached but not yet opened, and each queued row remembers the word range of its
//! pending cells. Opening a row takes all its pending cells and closes their horizontal runs
//! of passable cells across word edges in two carry passes (toward higher columns by
//! addition, `((p + g) ^ p) & p | g`; toward lower columns by a six-step occluded shift-or
//! fill), then opens the runs dilated by one cell in their own row and the rows above and
//! below in one fused loop. Numbered cells reached above and below are revealed; zero cells
//! become pending there, still hidden.
//!
//! A pending word whose runs end inside it (every visit of a small cascade or a narrow
//! region, the scattered words of a row reached from several places, and two passages side
//! by side across a word edge whose runs do not meet) goes to the walk instead: it opens the
//! run, dilated, and steps to the row above or below where the dilation reaches passable
//! cells, keeping its direction and turning where the region turns, and leaves the other
//! side's zero cells pending. While the next row's passable cells are the run again, or
//! cells of its own columns only (one passage leaving a wider run), a step is a few
//! independent word operations, with no queue and no carry chain between rows. A run that
//! ends at a word edge spills its dilation into the word beside, in its straight steps too
//! (a corridor down a word's first or last column: one more word a row, and the test that
//! the cell across the edge stays closed); one that goes on into the next word is left
//! pending for the row-wide pass.
//!
//! The fill is compiled twice, for baseline x86-64 and for x86-64-v3 (hardware popcount), and
//! picks one at run time, and each of those twice again, for a game with flags and for one
//! with none (the fill's `Planes` say which), whose copy never reads the flag plane: one load
//! fewer in every passable test, and one cache line fewer a row. In each copy the row-wide
//! pass is a function of its own (the `Isa` trait), so the walk inlined beside it does not
//! crowd its loops' registers, and the planes are cut to one length so one bounds check
//! serves all three.
//!
//! Between calls the scratch is clean: the pending plane is all zero and no row is queued.

#![allow(
    clippy::indexing_slicing,
    reason = "word and bit indices come from the planes' own Geometry, which sized every plane; public entry points check coordinates (Geometry::bit) before any index is formed"
)]

use super::Planes;
use crate::plane::Plane;
use crate::{Error, Geometry};

/// A pending word range of one row, first and last word index; empty when `first > last`.
type Range = (usize, usize);

const NOT_QUEUED: Range = (usize::MAX, 0);

/// Buffers of the word fill, kept by a game so cascades never allocate. Between cascades the
/// pending plane is all zero and no row is queued; the span buffer keeps stale words, and
/// each row opened clears the words it reads beyond those it writes.
#[derive(Debug)]
pub(crate) struct Scratch {
    /// Zero cells the cascade has reached but not yet opened, one bit per padded cell.
    pending: Vec<u64>,
    /// For each padded row, the words holding its pending cells.
    queued: Vec<Range>,
    /// Rows with pending cells, to be opened.
    rows: Vec<usize>,
    /// The run words of the row being opened, at `word - row start + 2`, with two spare
    /// words at each end.
    span: Vec<u64>,
}

/// A copy keeps the row stack's capacity (`Vec::clone` would drop it), so a copied game's
/// cascades do not allocate either.
impl Clone for Scratch {
    fn clone(&self) -> Scratch {
        let mut rows = Vec::with_capacity(self.rows.capacity());
        rows.extend_from_slice(&self.rows);
        Scratch {
            pending: self.pending.clone(),
            queued: self.queued.clone(),
            rows,
            span: self.span.clone(),
        }
    }

    /// Copies into this scratch's own buffers when they have room: no allocation.
    fn clone_from(&mut self, source: &Scratch) {
        self.pending.clone_from(&source.pending);
        self.queued.clone_from(&source.queued);
        self.rows.clear();
        self.rows.extend_from_slice(&source.rows);
        self.span.clone_from(&source.span);
    }
}

impl Scratch {
    /// Buffers for a board of `geometry`.
    pub(crate) fn new(geometry: &Geometry) -> Result<Scratch, Error> {
        let pending = Plane::zeroed(geometry)?.into_words();
        let oom = || Error::OutOfMemory {
            bytes: (geometry.rows() + 2) * size_of::<Range>(),
            rows: geometry.rows(),
            cols: geometry.cols(),
        };
        let mut queued = Vec::new();
        queued
            .try_reserve_exact(geometry.rows() + 2)
            .map_err(|_| oom())?;
        queued.resize(geometry.rows() + 2, NOT_QUEUED);
        Ok(Scratch {
            pending,
            queued,
            // Room for the rows of a small cascade, so its first reveal does not allocate.
            rows: Vec::with_capacity(64),
            span: vec![0; geometry.words_per_row() + 4],
        })
    }

    /// Whether the buffers are as a finished cascade must leave them: nothing pending, no row
    /// queued.
    pub(crate) fn is_clean(&self) -> bool {
        self.rows.is_empty()
            && self.pending.iter().all(|&w| w == 0)
            && self.queued.iter().all(|&range| range == NOT_QUEUED)
    }

    /// Buffers with a row left queued, as a broken cascade would leave them.
    #[cfg(test)]
    pub(crate) fn dirty(geometry: &Geometry) -> Scratch {
        let mut scratch = Scratch::new(geometry).expect("small board");
        scratch.rows.push(1);
        scratch
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        (self.pending.capacity() + self.span.capacity()) * size_of::<u64>()
            + self.queued.capacity() * size_of::<Range>()
            + self.rows.capacity() * size_of::<usize>()
    }
}

/// Opens the hidden, unflagged safe cell `seed` (a bit index) and, if it is a zero cell,
/// everything its cascade reaches. Returns the number of cells opened.
///
/// The cascade moves a row at a time. Opening a row takes all its pending cells at once and
/// closes the horizontal runs of passable cells (zero, hidden, unflagged) through them, across
/// word edges and past the pending range where a run goes on: one carry pass rightward, one
/// leftward. The runs, dilated by one cell, are opened in their own row; in the rows above and
/// below the numbered cells they touch are opened and the zero cells become pending there,
/// still hidden. So a zero cell is revealed only when its own row opens its run: a revealed
/// zero cell is an expanded one, and each is expanded once. The sentinel border is
/// pre-revealed and never passable, so runs stop inside the board and dilation never opens a
/// cell off it.
pub(crate) fn fill(planes: &mut Planes<'_>, scratch: &mut Scratch, seed: usize) -> usize {
    let (w, b) = (seed / 64, 1u64 << (seed % 64));
    if planes.zero[w] & b == 0 {
        planes.revealed[w] |= b;
        return 1; // A numbered cell: no cascade.
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("popcnt")
    {
        // SAFETY: `fill_v3` only needs the CPU features checked just above.
        return unsafe { fill_v3(planes, scratch, seed) };
    }
    fill_any::<Baseline>(planes, scratch, seed)
}

/// The fill compiled for x86-64-v3 CPUs: hardware popcount, and-not, and wider vectors.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
fn fill_v3(planes: &mut Planes<'_>, scratch: &mut Scratch, seed: usize) -> usize {
    fill_any::<V3>(planes, scratch, seed)
}

/// The instruction set a copy of the fill is compiled for. The row-wide path is a function
/// of its own in each copy, so that the walk, inlined beside it, does not crowd its loops'
/// registers.
trait Isa {
    fn open_span<const F: bool>(
        planes: &mut Planes<'_>,
        scratch: &mut Scratch,
        row: usize,
        range: Range,
    ) -> usize;
}

/// Any x86-64 (or other) CPU.
struct Baseline;

impl Isa for Baseline {
    #[inline(never)]
    fn open_span<const F: bool>(
        planes: &mut Planes<'_>,
        scratch: &mut Scratch,
        row: usize,
        range: Range,
    ) -> usize {
        open_span::<F>(planes, scratch, row, range)
    }
}

/// x86-64-v3; only [`fill_v3`] uses it.
#[cfg(target_arch = "x86_64")]
struct V3;

#[cfg(target_arch = "x86_64")]
impl Isa for V3 {
    #[inline(always)]
    fn open_span<const F: bool>(
        planes: &mut Planes<'_>,
        scratch: &mut Scratch,
        row: usize,
        range: Range,
    ) -> usize {
        // SAFETY: `V3` is used only by `fill_v3`, which runs only after `fill` checked every
        // feature `open_span_v3` is compiled for.
        unsafe { open_span_v3::<F>(planes, scratch, row, range) }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline(never)]
fn open_span_v3<const F: bool>(
    planes: &mut Planes<'_>,
    scratch: &mut Scratch,
    row: usize,
    range: Range,
) -> usize {
    open_span::<F>(planes, scratch, row, range)
}

/// The fill for instruction set `I`, in its copy for a game with flags or with none.
#[inline(always)]
fn fill_any<I: Isa>(planes: &mut Planes<'_>, scratch: &mut Scratch, seed: usize) -> usize {
    if planes.unflagged {
        fill_flags::<I, false>(planes, scratch, seed)
    } else {
        fill_flags::<I, true>(planes, scratch, seed)
    }
}

/// The fill for instruction set `I`; `F` false is a game with no flag, whose flag plane the
/// fill never reads.
#[inline(always)]
fn fill_flags<I: Isa, const F: bool>(
    planes: &mut Planes<'_>,
    scratch: &mut Scratch,
    seed: usize,
) -> usize {
    let planes = &mut planes.same_length();
    let (w, b) = (seed / 64, 1u64 << (seed % 64));
    let row = w / planes.words_per_row;
    scratch.pending[w] |= b;
    scratch.queued[row] = (w, w);
    scratch.rows.push(row);
    let mut opened = 0;
    while let Some(row) = scratch.rows.pop() {
        let (first, mut j) = std::mem::replace(&mut scratch.queued[row], NOT_QUEUED);
        let last = j;
        // Each pending word whose runs do not go on into the next word (every visit of a
        // small cascade or a narrow region, and the scattered words of a row reached from
        // several places) goes to the walk; from the first word whose runs do, or that
        // shares a wide region's row with the next word, the row-wide path takes the rest
        // of the range.
        j = first;
        while j <= last {
            if scratch.pending[j] != 0 {
                let p = planes.passable::<F>(j);
                let seeds = scratch.pending[j] & p;
                let run = close_down(p, close_up(p, seeds));
                if (j < last && joined::<F>(planes, &scratch.pending, j, p, seeds))
                    || crosses_edge::<F>(planes, j, run)
                {
                    opened += I::open_span::<F>(planes, scratch, row, (j, last));
                    break;
                }
                scratch.pending[j] = 0;
                opened += walk::<F>(planes, scratch, row, j, seeds, run);
            }
            j += 1;
        }
    }
    opened
}

/// Opens the runs through the pending cells of padded row `row`, whose pending words are
/// `first..=last`, across as many words as the runs go.
#[inline(always)]
fn open_span<const F: bool>(
    planes: &mut Planes<'_>,
    scratch: &mut Scratch,
    row: usize,
    (first, last): Range,
) -> usize {
    let planes = &mut planes.same_length();
    let wpr = planes.words_per_row;
    let base = row * wpr;
    let Scratch {
        pending,
        queued,
        rows,
        span,
    } = scratch;
    // Rightward: each pending bit up to the top of its run, carrying into the next word.
    let (mut j, mut carry) = (first, 0u64);
    while j <= last || carry != 0 {
        let p = planes.passable::<F>(j);
        let up = close_up(p, (std::mem::take(&mut pending[j]) | carry) & p);
        span[j + 2 - base] = up;
        carry = up >> 63;
        j += 1;
    }
    let hi = j - 1;
    // Leftward: from every bit reached down to the bottom of its run, carrying likewise.
    // Words left of `first` were not written by the rightward pass and start empty.
    let (mut j, mut carry) = (hi, 0u64);
    loop {
        let k = j + 2 - base;
        let p = planes.passable::<F>(j);
        let reached = if j >= first { span[k] } else { 0 } | (carry & p);
        let run = close_down(p, reached);
        span[k] = run;
        carry = run << 63;
        if j <= first && carry == 0 {
            break;
        }
        j -= 1;
    }
    let lo = j;
    // Open the run words of the three rows, and the words beside them where a run spills
    // over a word edge. A row's first and last bits are sentinels, never in a run, so a
    // spill never leaves the row. Widening reads one word further out on each side, and the
    // four words next to lo..=hi must read as empty.
    let at = |j: usize| j + 2 - base;
    span[at(lo) - 2..at(lo)].fill(0);
    span[at(hi) + 1..=at(hi) + 2].fill(0);
    let out_lo = lo - usize::from(span[at(lo)] & 1 != 0);
    let out_hi = hi + usize::from(span[at(hi)] >> 63 != 0);
    let span = &span[at(out_lo) - 1..=at(out_hi) + 1];
    let mut opened = 0;
    let (mut above, mut below) = (NOT_QUEUED, NOT_QUEUED);
    for (j, wide) in (out_lo..=out_hi).zip(widened(span)) {
        let new = wide & !(planes.closed::<F>(j));
        planes.revealed[j] |= new;
        opened += new.count_ones() as usize;
        opened += open_side::<F>(planes, pending, j - wpr, wide, &mut above);
        opened += open_side::<F>(planes, pending, j + wpr, wide, &mut below);
    }
    queue_sides(queued, rows, row, above, below);
    opened
}

/// Queues the rows above and below `row` for the words where they were seeded.
#[inline(always)]
fn queue_sides(
    queued: &mut [Range],
    rows: &mut Vec<usize>,
    row: usize,
    above: Range,
    below: Range,
) {
    queue(queued, rows, row - 1, above);
    queue(queued, rows, row + 1, below);
}

/// Queues row `row` for the words `seeded` (nothing when it is empty), merging with the
/// range it is already queued for.
#[inline(always)]
fn queue(queued: &mut [Range], rows: &mut Vec<usize>, row: usize, seeded: Range) {
    if seeded.0 <= seeded.1 {
        let queue = &mut queued[row];
        if queue.0 > queue.1 {
            rows.push(row);
            *queue = seeded;
        } else {
            *queue = (queue.0.min(seeded.0), queue.1.max(seeded.1));
        }
    }
}

/// The two edge bits of a word.
const EDGES: u64 = 1 | 1 << 63;

/// Whether a run of word `w` goes on into the word beside it: it holds an edge bit and the
/// cell across that edge, in the same row, is passable. A row's first and last bits are
/// sentinels, never in a run, so `w - 1` and `w + 1` are in the same row whenever read.
#[inline(always)]
fn crosses_edge<const F: bool>(planes: &Planes<'_>, w: usize, run: u64) -> bool {
    run & EDGES != 0
        && ((run >> 63 & planes.passable::<F>(w + 1)) | (run << 63 & planes.passable::<F>(w - 1)))
            != 0
}

/// Whether pending word `j` (passable cells `p`, pending ones `seeds`) should be opened
/// with the next word by the row-wide path: the next word is pending too, and either the
/// two hold more than two pending cells (a wide region's row, which the row-wide path opens
/// in one pass) or the next word's run reaches back across the edge to a passable cell of
/// `j`. Two single pending cells on either side of a word edge whose runs do not meet (two
/// passages of a maze side by side) are walked one word column each: opened together, each
/// row would queue the next with both words and the row-wide path would carry both
/// passages down in step, a row at a time.
#[inline(always)]
fn joined<const F: bool>(
    planes: &Planes<'_>,
    pending: &[u64],
    j: usize,
    p: u64,
    seeds: u64,
) -> bool {
    let next = pending[j + 1];
    if next == 0 {
        return false;
    }
    if (seeds | next).count_ones() > 2 {
        return true;
    }
    let p1 = planes.passable::<F>(j + 1);
    p >> 63 != 0 && close_down(p1, next & p1) & 1 != 0
}

/// Opens the region through `seeds` (passable bits of word `w`, row `row`, not pending)
/// one word column at a time, for as long as its runs stay inside the word: a region that
/// runs down the columns (a corridor, a thin arm of a random region) moves a row a step
/// with no queue between. Each step opens the run through its seeds, dilated by one cell,
/// with the numbered cells of the step before's dilation that fell in this row (`incoming`);
/// it goes on into the row above or below where the dilation reaches passable cells,
/// keeping its direction while it can, and queues the other side's zero cells as pending.
/// While the run stays the same, a step is a few independent word operations: the next
/// row's passable cells under the dilation are exactly the run again. Where they are cells
/// of the run's own columns only (a maze's passage leaving a room's row), that row opens
/// under the wider dilation and the straight steps go on with the narrower one, with no
/// general step between. A run that goes on into the next word is left pending for the
/// row-wide path.
#[inline(always)]
fn walk<const F: bool>(
    planes: &mut Planes<'_>,
    scratch: &mut Scratch,
    mut row: usize,
    mut w: usize,
    mut seeds: u64,
    mut run: u64,
) -> usize {
    let Scratch {
        pending,
        queued,
        rows,
        ..
    } = scratch;
    let wpr = planes.words_per_row;
    let mut opened = 0;
    let mut incoming = 0u64;
    let mut down = true;
    loop {
        let rf = planes.closed::<F>(w);
        if run & EDGES != 0 {
            if crosses_edge::<F>(planes, w, run) {
                let numbered = incoming & !rf & !planes.zero[w];
                planes.revealed[w] |= numbered;
                opened += numbered.count_ones() as usize;
                pending[w] |= seeds;
                queue(queued, rows, row, (w, w));
                return opened;
            }
            // The run ends at the edge: its dilation spills one cell into the word beside,
            // in this row (where that cell is not passable) and the rows above and below.
            for (j, spill) in [(w - 1, run << 63), (w + 1, run >> 63)] {
                if spill != 0 {
                    let new = spill & !(planes.closed::<F>(j));
                    planes.revealed[j] |= new;
                    opened += new.count_ones() as usize;
                    opened += open_side_queued::<F>(
                        planes,
                        pending,
                        queued,
                        rows,
                        row - 1,
                        j - wpr,
                        spill,
                    );
                    opened += open_side_queued::<F>(
                        planes,
                        pending,
                        queued,
                        rows,
                        row + 1,
                        j + wpr,
                        spill,
                    );
                }
            }
        }
        let wide = run | run << 1 | run >> 1;
        let new = (wide | incoming) & !rf;
        planes.revealed[w] |= new;
        opened += new.count_ones() as usize;
        let (mut ahead, mut behind) = if down {
            ((row + 1, w + wpr), (row - 1, w - wpr))
        } else {
            ((row - 1, w - wpr), (row + 1, w + wpr))
        };
        let mut next = planes.passable::<F>(ahead.1) & wide;
        if next == 0 {
            let back = planes.passable::<F>(behind.1) & wide;
            if back != 0 {
                // The region turns: go back the way the step came.
                down = !down;
                std::mem::swap(&mut ahead, &mut behind);
                next = back;
            }
        }
        // The side not taken: its numbered cells under the dilation open, its zero cells
        // are left pending for a later visit.
        opened += open_side_queued::<F>(planes, pending, queued, rows, behind.0, behind.1, wide);
        if next == 0 {
            // Nothing passable ahead either: only its numbered cells open.
            opened += open_side_queued::<F>(planes, pending, queued, rows, ahead.0, ahead.1, wide);
            return opened;
        }
        (row, w, seeds, incoming) = (ahead.0, ahead.1, next, wide);
        if next & (EDGES | !run) == 0 {
            // The run goes on one row on through cells of its own columns only (the same
            // run down a corridor, or one passage leaving a wider run), with nothing else
            // passable beside them, so the row behind is already open under their
            // dilation: open this row under the wider dilation of the row behind (numbered
            // cells only, beside `next`), then walk straight on with the narrower one.
            let (wide, run) = if next == run {
                (wide, run)
            } else {
                let beside = wide & !(planes.closed::<F>(w));
                planes.revealed[w] |= beside;
                opened += beside.count_ones() as usize;
                (next | next << 1 | next >> 1, next)
            };
            incoming = wide;
            let word_step = if down { wpr } else { wpr.wrapping_neg() };
            let (rows_on, j, next, more) =
                straight::<F, false>(planes, w, word_step, wide, run, 0, 0);
            opened += more;
            row = if down { row + rows_on } else { row - rows_on };
            (w, seeds) = (j, next);
            if seeds == 0 {
                // Nothing passable ahead (or the sentinel row): only numbered cells open.
                return opened + open_side_queued::<F>(planes, pending, queued, rows, row, w, wide);
            }
            // Otherwise the general step takes the row where the run changes.
        } else if next == run && ends_at_edge::<F>(planes, w, next) {
            // The same run again, at a word edge it does not cross (a corridor whose zero
            // cells are a word's first or last column): its dilation spills one cell into
            // the word beside, which the general step behind opened in this row, and the
            // straight steps open it in each row on. `side` is that word's offset.
            let (side, spill) = if run >> 63 != 0 {
                (1, 1)
            } else {
                (usize::MAX, 1 << 63)
            };
            let word_step = if down { wpr } else { wpr.wrapping_neg() };
            let (rows_on, j, next, more) =
                straight::<F, true>(planes, w, word_step, wide, run, side, spill);
            opened += more;
            row = if down { row + rows_on } else { row - rows_on };
            (w, seeds) = (j, next);
            // The row where the run changes: the cell spilled into beside it opens (or
            // becomes pending) as the general step opens the cells of the row ahead.
            opened += open_side_queued::<F>(
                planes,
                pending,
                queued,
                rows,
                row,
                w.wrapping_add(side),
                spill,
            );
            if seeds == 0 {
                return opened + open_side_queued::<F>(planes, pending, queued, rows, row, w, wide);
            }
        }
        // The next step's run, through its seeds.
        let p = planes.passable::<F>(w);
        run = close_down(p, close_up(p, seeds));
    }
}

/// Whether run `run` of word `w`, which holds an edge bit, ends at the word edge: it holds
/// one edge bit, and the cell across that edge, in the same row, is not passable, so its
/// dilation only spills one numbered (or closed) cell into the word beside.
#[inline(always)]
fn ends_at_edge<const F: bool>(planes: &Planes<'_>, w: usize, run: u64) -> bool {
    match run & EDGES {
        1 => planes.passable::<F>(w - 1) >> 63 == 0,
        EDGES => false,
        _ => planes.passable::<F>(w + 1) & 1 == 0,
    }
}

/// Opens the rows of a straight run from word `w` on, `step` words a row (up or down): each
/// row's passable cells under the dilation `wide` are exactly `run`, so each opens `wide`,
/// until the first row where that fails. Returns how many rows that row is from `w`, its
/// word, its passable cells under `wide`, and the cells opened. `FLAGS` false reads no flag
/// plane, for a game with no flag: one cache line fewer a row on a board larger than the
/// cache. `SPILL` true is a run at a word edge: each row also opens the cell `spill` of the
/// word `side` words away (wrapping, so `usize::MAX` is the word before), and the walk stops
/// at the first row where that cell is passable, whose run goes on across the edge.
#[inline(always)]
fn straight<const FLAGS: bool, const SPILL: bool>(
    planes: &mut Planes<'_>,
    mut w: usize,
    step: usize,
    wide: u64,
    run: u64,
    side: usize,
    spill: u64,
) -> (usize, usize, u64, usize) {
    // The three planes as slices of one length, so one bounds check covers all three.
    let len = planes.zero.len();
    let (zero, flagged) = (&planes.zero[..len], &planes.flagged[..len]);
    let revealed = &mut planes.revealed[..len];
    let closed = |revealed: &[u64], w: usize| {
        if FLAGS {
            revealed[w] | flagged[w]
        } else {
            revealed[w]
        }
    };
    let (mut rows_on, mut opened) = (1, 0);
    loop {
        let new = wide & !closed(revealed, w);
        revealed[w] |= new;
        opened += new.count_ones() as usize;
        if SPILL {
            let k = w.wrapping_add(side);
            let new = spill & !closed(revealed, k);
            revealed[k] |= new;
            opened += new.count_ones() as usize;
        }
        let j = w.wrapping_add(step);
        let next = zero[j] & !closed(revealed, j) & wide;
        if next != run {
            return (rows_on, j, next, opened);
        }
        if SPILL {
            let k = j.wrapping_add(side);
            if zero[k] & !closed(revealed, k) & spill != 0 {
                return (rows_on, j, next, opened);
            }
        }
        (rows_on, w) = (rows_on + 1, j);
    }
}

/// [`open_side`] for one word of row `row`, queueing the row where zero cells were seeded.
#[inline(always)]
fn open_side_queued<const F: bool>(
    planes: &mut Planes<'_>,
    pending: &mut [u64],
    queued: &mut [Range],
    rows: &mut Vec<usize>,
    row: usize,
    j: usize,
    wide: u64,
) -> usize {
    let mut seeded = NOT_QUEUED;
    let opened = open_side::<F>(planes, pending, j, wide, &mut seeded);
    queue(queued, rows, row, seeded);
    opened
}

/// Opens the cells of `wide` in word `j` of the row above or below a run: the numbered ones
/// are revealed, the zero ones become pending (and `seeded` grows to cover `j`). Sentinel
/// rows are all revealed, so nothing opens there.
#[inline(always)]
fn open_side<const F: bool>(
    planes: &mut Planes<'_>,
    pending: &mut [u64],
    j: usize,
    wide: u64,
    seeded: &mut Range,
) -> usize {
    let new = wide & !(planes.closed::<F>(j));
    if new == 0 {
        return 0;
    }
    let zero = planes.zero[j];
    let numbered = new & !zero;
    planes.revealed[j] |= numbered;
    let seeds = new & zero & !pending[j];
    if seeds != 0 {
        pending[j] |= seeds;
        *seeded = (seeded.0.min(j), j);
    }
    numbered.count_ones() as usize
}

/// The runs of `span[1..len - 1]` dilated by one cell sideways, spilling across word edges.
#[inline(always)]
fn widened(span: &[u64]) -> impl Iterator<Item = u64> + '_ {
    let n = span.len() - 2;
    span[..n]
        .iter()
        .zip(&span[1..=n])
        .zip(&span[2..])
        .map(|((left, run), right)| run | run << 1 | run >> 1 | left >> 63 | right << 63)
}

impl Planes<'_> {
    /// The same planes cut to one length, so that the compiler, seeing one index checked
    /// against one plane, drops the checks against the others.
    #[inline(always)]
    fn same_length(&mut self) -> Planes<'_> {
        let len = self.zero.len();
        Planes {
            zero: &self.zero[..len],
            revealed: &mut self.revealed[..len],
            flagged: &self.flagged[..len],
            unflagged: self.unflagged,
            words_per_row: self.words_per_row,
        }
    }

    /// Cells a cascade may not enter in word `w`: revealed or flagged. `F` false is a game
    /// with no flag, whose flag plane is left unread.
    #[inline(always)]
    fn closed<const F: bool>(&self, w: usize) -> u64 {
        if F {
            self.revealed[w] | self.flagged[w]
        } else {
            self.revealed[w]
        }
    }

    /// Cells a cascade may pass through in word `w`: zero, not revealed, not flagged.
    #[inline(always)]
    fn passable<const F: bool>(&self, w: usize) -> u64 {
        self.zero[w] & !self.closed::<F>(w)
    }
}

#[cfg(test)]
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
    if seeds & !(seeds << 1) & (passable << 1) == 0 {
        return seeds; // Every bit reached already starts at the bottom of its run, or none.
    }
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
        let bit = |i: usize| passable >> i & 1 == 1;
        for s in (0..64).filter(|&s| seeds >> s & 1 == 1) {
            for i in (0..=s).rev().take_while(|&i| bit(i)) {
                out |= 1 << i;
            }
            for i in (s..64).take_while(|&i| bit(i)) {
                out |= 1 << i;
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
