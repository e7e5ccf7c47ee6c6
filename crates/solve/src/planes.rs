//! The solver's knowledge as planes, and the trivial rule run over them a word at a time.
//!
//! Every plane has the view's padded layout shifted by one guard word at each end, so the
//! neighbour words of any board word, and of the sentinel rows' words next to them, exist:
//! plane index `w + 1` holds layout word `w`. The guard words of `revealed` are all ones
//! (they read as revealed, like the sentinel border), and every other plane is zero there.
//!
//! The solver's knowledge is seven planes: revealed cells, four bit-sliced number planes,
//! proven mines and proven safe cells, 0.875 bytes per padded cell, plus a few rows of
//! scratch.
//!
//! # The sweep
//!
//! A sweep is a pipeline over rows, each stage a loop over one row's words that vectorises
//! (compiled a second time for AVX2, picked at run time): the horizontal sums of a row
//! (two-bit slices of left+centre+right and left+right, for proven mines and for cells that
//! may still be mines), then at the row above the number planes compared with the three rows'
//! sums (equal to the proven mines: the number is met; equal to every cell that may be a mine:
//! it needs them all; outside those bounds: a contradiction), then the verdicts dilated onto
//! the row above that.
//!
//! The marks for the next sweep are kept by strips of one word across the board (`STRIP`; a
//! bit per row in each, `Dirty`): a changed word marks the rows within two of it in its strip,
//! and in the strip beside it when the change lies within two cells of the strip's edge, and
//! the sweep runs the pipeline strip by strip over the marked rows. A strip rules only its own
//! numbers (reading a word past it on each side for the sums) and proves the cells its verdicts
//! reach, the edge cells of the words beside it included: a number that a change may let rule
//! anew lies in a marked strip of its own, so no strip rules its neighbours' numbers again. A
//! run one word wide runs the pipeline in registers (`Band::sweep_word`), wider ones in row
//! buffers (prefetching a later row's words, since a strip's rows lie a row apart). Only the numbers within one row of a change may rule anew, so the rule skips the
//! first and last row of a run of marks (unless a band's edge cut the run there) and the sums
//! skip the rows only those would read: a lone change sums five rows and rules three, not
//! nine and seven. So a move sweeps the words around what it changed rather than whole rows, which
//! matters on a huge board, where the frontier crosses most rows at every move. Boards of one
//! word a row (at most 62 columns) take a path of their own that runs the same pipeline on
//! single words in registers.
//!
//! # Updates
//!
//! `update` takes a later view of the same game, copying only the words whose revealed cells
//! changed and marking them for the next sweep (on a board of one word a row and at most 62
//! rows, whose marks are one word, the rows are compared in registers and the marks set as
//! one mask, `update_narrow`). `update_near` (`Solver::update_revealed`)
//! takes the view after a reveal of the proven safe cells, reading only the words that hold
//! them (the planes keep a list of the words where they proved a cell safe) and, round by
//! round in increasing order, the words a cascade can reach from a zero cell that opened, so
//! its work grows with the cells opened (a test holds it to `update`, marks included, move by
//! move); the words lie far apart, so it asks for the planes and the view's numbers
//! (`View::prefetch_number_words`) eight reads ahead (`UPDATE_AHEAD`). A round of at least
//! 1,024 words (`PAR_ROUND`) is read in pieces of 512 (`ROUND_PIECE`) on the rayon pool, each
//! writing only its own words and handing back its marks and the words beside the zero cells
//! it opened, which are put together in order: what is read depends neither on the pieces nor
//! on the threads.
//!
//! # Bands
//!
//! On a board of at least 2^13 words (`BANDED_WORDS`, about 2^19 cells) and four bands of rows
//! (512 rows), the sweep, `update` and the pair rule's scan for frontier numbers run in bands
//! of 128 rows (`BAND`) on the rayon pool: the sweep takes every even band at once, then every
//! odd one. A band writes only its own rows of the proven planes (`Rows` hands it its own words
//! mutably and the words beside it read-only, split with `split_at_mut`, so no `unsafe`) and
//! reads at most three rows past them, so no two bands of one half touch the same word; a
//! band's proofs mark words for the next sweep once the half is done. The bands depend on the
//! board alone, never on the thread count, and the trivial rule has one fixed point whatever
//! the order it runs in, so a no-guess board is byte-identical to the one the whole-board sweep
//! gives (checked move by move in this module's tests). A play may also sweep one band at a
//! time (`sweep_band`, bands of 16 rows, `DRIVE_BAND`, taking only that band's marks and
//! leaving the others'), driving each band to its own fixed point with its words in cache: it stops where whole sweeps stop (a
//! test holds the two plays together, stall after stall).
//!
//! The sweep's row buffers (the `Ring`, 34 rows of words) of planes dropped on a thread are
//! kept there, at most four (`SPARE_RINGS_KEPT`), for the next planes of the same width, and
//! zeroed before use: a player builds a fresh solver at every guess (a test interleaves widths
//! and failed sweeps against the twin). The ring also lends each sweep and each update buffers
//! for the runs it works on and the words it marks, and a board swept as one piece (all but the
//! largest) is updated with no vector of pieces.

#![allow(
    clippy::indexing_slicing,
    reason = "every index is a layout word of the solver's own Geometry plus the guard offset, and each plane has words() + 2 words"
)]

use bitmines_core::{Geometry, View};
use rayon::prelude::*;

use crate::Error;

/// What the solver knows: the view's revealed cells and numbers, and its own proven mines
/// and proven safe cells.
#[derive(Clone)]
pub(crate) struct Planes {
    pub(crate) geometry: Geometry,
    /// Revealed cells, with the sentinel border, padding and guard words set.
    pub(crate) revealed: Vec<u64>,
    /// The numbers of revealed cells, bit-sliced (bit `i` of a number in plane `i`).
    pub(crate) numbers: [Vec<u64>; 4],
    /// Proven mines.
    pub(crate) mines: Vec<u64>,
    /// Proven safe cells that are still hidden.
    pub(crate) safe: Vec<u64>,
    /// The board-cell mask of each word of a padded row.
    pub(crate) cell_masks: Vec<u64>,
    /// Whether some revealed cell shows 8 (the top bit plane of the numbers is not empty).
    eights: bool,
    /// A row of zero words.
    zeros: Vec<u64>,
    /// Where the trivial rule may find something new: rows of strips of [`STRIP`] words.
    dirty: Dirty,
    /// A buffer for the next sweep's marks, kept to save an allocation a sweep.
    spare: Dirty,
    /// Plane words that may hold proven safe cells, perhaps twice: every word where a cell
    /// was proven safe since the last update, and those left over from before it. A sweep
    /// leaves it in increasing order when it was empty before, as it is after the update
    /// that follows a reveal of every safe word; readers sort it only when it is not.
    safe_words: Vec<usize>,
    /// Plane words [`Planes::update_near`] has looked at (a bit each), cleared after.
    seen: Vec<u64>,
    /// How many cells the safe plane holds.
    pub(crate) safe_count: usize,
    /// Three rows of `satisfied` and `full` results, each `words_per_row + 2` words with a
    /// zero word at each end.
    ring: Ring,
    /// The row buffers of the bands of a sweep in bands, one a band of a half, kept from
    /// sweep to sweep (a sweep reads only what it wrote, as with `ring`).
    band_rings: Vec<Ring>,
}

/// A revealed cell whose number the proven cells around it contradict, as a plane index.
pub(crate) struct Bad(pub(crate) usize);

impl Planes {
    /// The planes of `view`, knowing nothing yet.
    pub(crate) fn new(view: &View<'_>) -> Result<Planes, Error> {
        let geometry = *view.geometry();
        let words = geometry.words() + 2;
        let wpr = geometry.words_per_row();
        let oom = || Error::OutOfMemory {
            bytes: words.saturating_mul(8 * 7),
            rows: geometry.rows(),
            cols: geometry.cols(),
        };
        // The vectors of planes dropped on this thread, if it kept some, else new ones.
        let mut kept = SparePlanes::take(words);
        let mut zeroed = || -> Result<Vec<u64>, Error> {
            let mut v = kept.pop().unwrap_or_default();
            v.clear();
            v.try_reserve_exact(words).map_err(|_| oom())?;
            v.resize(words, 0);
            Ok(v)
        };
        let mut revealed = zeroed()?;
        revealed[0] = !0;
        revealed[words - 1] = !0;
        revealed[1..words - 1].copy_from_slice(view.revealed_words());
        let mut numbers = [zeroed()?, zeroed()?, zeroed()?, zeroed()?];
        if let Some(sliced) = view.number_planes() {
            // A position holds its planes: copied a row at a time, masked to its revealed
            // board cells, as `number_words` reads them word by word (the sentinel rows
            // stay zero). Its twin is that reading, for a game's view.
            let shown = view.revealed_words();
            // The board's words, plane index `w + 1` for word `w`: padded rows 1..=rows.
            let board = wpr..(geometry.rows() + 1) * wpr;
            // Each word's board cells along a row (on the stack for a row of one word).
            let (one, many): ([u64; 1], Vec<u64>);
            let masks: &[u64] = if wpr == 1 {
                one = [geometry.cell_mask(0)];
                &one
            } else {
                many = (0..wpr).map(|j| geometry.cell_mask(j)).collect();
                &many
            };
            for (plane, from) in numbers.iter_mut().zip(sliced) {
                let (Some(to), Some(from), Some(shown)) = (
                    plane.get_mut(board.start + 1..board.end + 1),
                    from.get(board.clone()),
                    shown.get(board.clone()),
                ) else {
                    continue;
                };
                for (((to, &from), &shown), &mask) in
                    to.iter_mut().zip(from).zip(shown).zip(masks.iter().cycle())
                {
                    *to = from & shown & mask;
                }
            }
        } else {
            for w in 0..geometry.words() {
                let slices = view.number_words(w);
                for (plane, slice) in numbers.iter_mut().zip(slices) {
                    plane[w + 1] = slice;
                }
            }
        }
        // A board of one word a row sweeps in registers (`sweep_rows_narrow`) and needs no
        // row buffers: its ring only lends the update its buffer of marks.
        let ring = if wpr == 1 {
            Ring::default()
        } else {
            Ring::new(wpr)
        };
        let eights = numbers[3].iter().any(|&w| w != 0);
        let (mines, safe) = (zeroed()?, zeroed()?);
        let mut cell_masks = kept.pop().unwrap_or_default();
        cell_masks.clear();
        cell_masks.extend((0..wpr).map(|j| geometry.cell_mask(j)));
        let mut zeros = kept.pop().unwrap_or_default();
        zeros.clear();
        zeros.resize(wpr, 0);
        let mut dirty = Dirty {
            per: 0,
            bits: kept.pop().unwrap_or_default(),
        };
        dirty.reset(geometry.rows() + 2, wpr.div_ceil(STRIP));
        dirty.bits.fill(!0);
        let spare = Dirty {
            per: 0,
            bits: kept.pop().unwrap_or_default(),
        };
        SparePlanes::put_back(kept);
        Ok(Planes {
            geometry,
            revealed,
            numbers,
            mines,
            safe,
            cell_masks,
            eights,
            zeros,
            dirty,
            spare,
            safe_words: Vec::new(),
            seen: Vec::new(),
            safe_count: 0,
            ring,
            band_rings: Vec::new(),
        })
    }

    /// Takes in what `view` shows beyond what the planes hold: a later view of the same
    /// game. Words whose revealed cells changed are copied and marked for the trivial rule,
    /// and proven safe cells now revealed leave the safe plane. Returns the words that
    /// changed, or the first cell that shows `view` is not a later view of this position
    /// (a revealed cell hidden again or showing another number, or a proven mine revealed).
    pub(crate) fn update(&mut self, view: &View<'_>) -> Result<usize, (usize, &'static str)> {
        let changed = self.update_in(view, self.banded())?;
        self.tidy_safe_words();
        Ok(changed)
    }

    /// [`Planes::update`] for a view reached from the one the planes hold by revealing
    /// cells of the safe plane, cascades included (as
    /// [`Game::reveal_words`](bitmines_core::Game::reveal_words) of the solver's safe
    /// words does): the words that may hold proven safe cells are compared with the view,
    /// and, from each word that changed, the eight words around it, so the work grows with
    /// what changed rather than with the board. A cell revealed there was proven safe or
    /// lies next to a zero cell revealed with it, so every word that changed is reached.
    /// Cells the view revealed elsewhere are not read: the planes then know less than the
    /// view shows, never something false. Errors as [`Planes::update`], for the words read.
    pub(crate) fn update_near(&mut self, view: &View<'_>) -> Result<usize, (usize, &'static str)> {
        if self.geometry.words() < BANDED_WORDS {
            // A small board is read whole quicker than its words are looked up one by one.
            return self.update(view);
        }
        self.update_words(view)
    }

    /// [`Planes::update_near`] word by word, whatever the board's size.
    fn update_words(&mut self, view: &View<'_>) -> Result<usize, (usize, &'static str)> {
        let geometry = self.geometry;
        let wpr = geometry.words_per_row();
        // Plane indices of the layout words of the board's rows.
        let (lo, hi) = (wpr + 1, (geometry.rows() + 1) * wpr + 1);
        let seen_words = (geometry.words() + 2).div_ceil(64);
        if self.seen.len() != seen_words {
            self.seen = vec![0; seen_words];
        }
        // The words are read round by round, each round in increasing order, so that words
        // side by side share their cache lines and the reads run forward through memory:
        // first the words that may hold proven safe cells, then the unread words around
        // each word that changed in the round before.
        let mut round = std::mem::take(&mut self.safe_words);
        sort_words(&mut round);
        let mut visited: Vec<usize> = Vec::with_capacity(round.len() * 4);
        for &w in &round {
            self.seen[w / 64] |= 1 << (w % 64);
        }
        let mut next: Vec<usize> = Vec::new();
        let mut changed = 0;
        let mut result = Ok(());
        while !round.is_empty() {
            // A long round is read in pieces of `ROUND_PIECE` words on the rayon pool, each
            // writing only its own words; what is read does not depend on the pieces.
            let mut bounds = vec![lo];
            if round.len() >= PAR_ROUND && rayon::current_num_threads() > 1 {
                bounds.extend(round.iter().skip(ROUND_PIECE).step_by(ROUND_PIECE));
            }
            bounds.push(hi);
            let read = self.read_round(view, &round, &bounds);
            for piece in read {
                changed += piece.marks.len();
                self.eights |= piece.eights;
                self.safe_count -= piece.revealed_safe;
                for &(w, bits) in &piece.marks {
                    self.mark_word(w, bits);
                }
                for &near in &piece.near {
                    if (lo..hi).contains(&near) && self.seen[near / 64] >> (near % 64) & 1 == 0 {
                        self.seen[near / 64] |= 1 << (near % 64);
                        next.push(near);
                    }
                }
                if let Some(error) = piece.error {
                    result = Err(error);
                    break;
                }
            }
            visited.append(&mut round);
            std::mem::swap(&mut round, &mut next);
            if result.is_err() {
                break;
            }
            round.sort_unstable();
        }
        // (After an error, words of both rounds may be marked.)
        visited.append(&mut round);
        visited.append(&mut next);
        for &w in &visited {
            self.seen[w / 64] = 0;
        }
        let mut queue = round;
        queue.clear();
        // The words that may still hold proven safe cells: those read, less the emptied.
        queue.extend(visited.iter().copied().filter(|&w| self.safe[w] != 0));
        self.safe_words = queue;
        result.map(|()| changed)
    }

    /// Reads one round of [`Planes::update_words`]: the words `round` (increasing, all
    /// between the first and last of `bounds`), piece by piece as `bounds` cuts them, on
    /// the rayon pool when there are several. Each piece writes only its own words of the
    /// planes it takes in and reports its marks, the words around the zero cells it opened
    /// and its first error, in order, so what is read depends neither on the pieces nor on
    /// the threads.
    fn read_round(&mut self, view: &View<'_>, round: &[usize], bounds: &[usize]) -> Vec<Read> {
        let wpr = self.geometry.words_per_row();
        let [n0, n1, n2, n3] = &mut self.numbers;
        let (cell_masks, mines, seen) = (&self.cell_masks, &self.mines, &self.seen);
        let mut taken = 0;
        let pieces: Vec<(&[usize], Near<'_>)> = bands_in(&mut self.revealed, bounds)
            .zip(bands_in(n0, bounds))
            .zip(bands_in(n1, bounds))
            .zip(bands_in(n2, bounds))
            .zip(bands_in(n3, bounds))
            .zip(bands_in(&mut self.safe, bounds))
            .zip(bounds)
            .filter_map(|((((((revealed, a), b), c), d), safe), &start)| {
                let end = start + revealed.len();
                let count = round[taken..].partition_point(|&w| w < end);
                let words = &round[taken..taken + count];
                taken += count;
                let near = Near {
                    start,
                    wpr,
                    revealed,
                    numbers: [a, b, c, d],
                    safe,
                    mines,
                    cell_masks,
                    seen,
                };
                (!words.is_empty()).then_some((words, near))
            })
            .collect();
        debug_assert_eq!(
            taken,
            round.len(),
            "every word of the round lies in a piece"
        );
        if pieces.len() > 1 {
            pieces
                .into_par_iter()
                .map(|(words, mut near)| near.read(view, words))
                .collect()
        } else {
            pieces
                .into_iter()
                .map(|(words, mut near)| near.read(view, words))
                .collect()
        }
    }

    /// Keeps in the list of safe words only those that hold a proven safe cell, once each.
    fn tidy_safe_words(&mut self) {
        let safe = &self.safe;
        self.safe_words.retain(|&w| safe[w] != 0);
        sort_words(&mut self.safe_words);
    }

    /// The proven safe cells, as `(layout word, cells)` pairs in increasing word order.
    pub(crate) fn safe_words(&self) -> Vec<(usize, u64)> {
        let mut words = Vec::new();
        self.safe_words_into(&mut words);
        words
    }

    /// [`Planes::safe_words`] into `words` (cleared first), whose buffer a caller keeps from
    /// move to move.
    pub(crate) fn safe_words_into(&self, words: &mut Vec<(usize, u64)>) {
        words.clear();
        words.extend(
            self.safe_words
                .iter()
                .filter(|&&w| self.safe[w] != 0)
                .map(|&w| (w - 1, self.safe[w])),
        );
        // The list is in order after a sweep that found it empty: then only checked.
        if !words.is_sorted_by(|a, b| a.0 < b.0) {
            words.sort_unstable_by_key(|&(w, _)| w);
            words.dedup_by_key(|&mut (w, _)| w);
        }
    }

    /// [`Planes::update`], in bands of rows on the rayon pool or not as `banded` says.
    fn update_in(&mut self, view: &View<'_>, banded: bool) -> Result<usize, (usize, &'static str)> {
        if !banded {
            return self.update_whole(view);
        }
        // Each piece is a band of the planes this writes.
        let tops = self.tops(true);
        let bounds = self.bounds(&tops);
        let [n0, n1, n2, n3] = &mut self.numbers;
        let pieces: Vec<Fresh<'_>> = bands_in(&mut self.revealed, &bounds)
            .zip(bands_in(n0, &bounds))
            .zip(bands_in(n1, &bounds))
            .zip(bands_in(n2, &bounds))
            .zip(bands_in(n3, &bounds))
            .zip(bands_in(&mut self.safe, &bounds))
            .zip(&tops)
            .map(|((((((revealed, a), b), c), d), safe), &first)| Fresh {
                first,
                revealed,
                numbers: [a, b, c, d],
                safe,
            })
            .collect();
        let (geometry, mines) = (&self.geometry, self.mines.as_slice());
        let taken: Vec<Result<Taken, (usize, &'static str)>> = if pieces.len() > 1 {
            pieces
                .into_par_iter()
                .map(|piece| piece.update(geometry, mines, view, Vec::new()))
                .collect()
        } else {
            pieces
                .into_iter()
                .map(|piece| piece.update(geometry, mines, view, Vec::new()))
                .collect()
        };
        let mut changed = 0;
        for taken in taken {
            changed += self.take_fresh(&taken?);
        }
        Ok(changed)
    }

    /// Takes in what a piece's update took in: the eights, the proven safe cells now
    /// revealed, and the words that changed, marked for the next sweep. Returns how many
    /// words changed.
    fn take_fresh(&mut self, taken: &Taken) -> usize {
        self.eights |= taken.eights;
        self.safe_count -= taken.revealed_safe;
        for &(w, bits) in &taken.words {
            self.mark_word(w, bits);
        }
        taken.words.len()
    }

    /// [`Planes::update`] of the whole board as one piece, on this thread, with no vector
    /// of pieces: the words that changed are kept in the ring's buffer of marks.
    fn update_whole(&mut self, view: &View<'_>) -> Result<usize, (usize, &'static str)> {
        if self.one_word_marks() {
            return self.update_narrow(view);
        }
        self.update_fresh(view)
    }

    /// [`Planes::update_whole`] through [`Fresh::update`], for boards of any width: the
    /// twin of [`Planes::update_narrow`].
    fn update_fresh(&mut self, view: &View<'_>) -> Result<usize, (usize, &'static str)> {
        let words = self.bound(1)..self.bound(self.geometry.rows() + 1);
        let [n0, n1, n2, n3] = &mut self.numbers;
        let piece = Fresh {
            first: 1,
            revealed: &mut self.revealed[words.clone()],
            numbers: [
                &mut n0[words.clone()],
                &mut n1[words.clone()],
                &mut n2[words.clone()],
                &mut n3[words.clone()],
            ],
            safe: &mut self.safe[words],
        };
        let marks = std::mem::take(&mut self.ring.marks);
        let taken = piece.update(&self.geometry, &self.mines, view, marks)?;
        let changed = self.take_fresh(&taken);
        self.ring.marks = taken.words; // the buffer, for the next update or sweep
        Ok(changed)
    }

    /// Whether the board is one word a row and its marks one word (at most 62 rows): then
    /// a row's marks are a bit of `dirty.bits[0]`, set for many rows at once
    /// ([`Planes::mark_rows`]).
    fn one_word_marks(&self) -> bool {
        self.geometry.words_per_row() == 1 && self.dirty.bits.len() == 1
    }

    /// Marks for the trivial rule the rows within two of each padded row set in `changed`
    /// (bit `r` for padded row `r`, board rows only): what [`Planes::mark_word`] does for
    /// each, on a board with [`Planes::one_word_marks`].
    fn mark_rows(&mut self, changed: u64) {
        let rows = self.geometry.rows();
        let near = changed | changed << 1 | changed << 2 | changed >> 1 | changed >> 2;
        // Padded rows 1..=rows: the sentinel rows are never marked.
        let board = ((1u64 << rows) - 1) << 1;
        if let Some(bits) = self.dirty.bits.first_mut() {
            *bits |= near & board;
        }
    }

    /// [`Planes::update_whole`] on a board with [`Planes::one_word_marks`]: the rows
    /// compared word by word in registers, the numbers read only for the rows that changed,
    /// and the marks set for all of them at once. The same planes, marks and errors as
    /// [`Planes::update_fresh`].
    fn update_narrow(&mut self, view: &View<'_>) -> Result<usize, (usize, &'static str)> {
        let rows = self.geometry.rows();
        // Padded rows 1..=rows: layout words 1..=rows, plane indices 2..=rows + 1.
        let Some(fresh) = view.revealed_words().get(1..=rows) else {
            return Ok(0);
        };
        let [n0, n1, n2, n3] = &mut self.numbers;
        let mut near = Near {
            start: 0,
            wpr: 1,
            revealed: &mut self.revealed,
            numbers: [n0, n1, n2, n3],
            safe: &mut self.safe,
            mines: &self.mines,
            cell_masks: &self.cell_masks,
            seen: &[],
        };
        // The words that changed go into the ring's buffer of marks, kept from update to
        // update; what they hold is taken in once every row is read, as `take_fresh` does.
        let mut marks = std::mem::take(&mut self.ring.marks);
        marks.clear();
        let mut read = Read {
            marks,
            near: Vec::new(),
            revealed_safe: 0,
            eights: false,
            error: None,
        };
        for (w, &new) in (2..).zip(fresh) {
            if new != near.revealed[w] {
                near.take_word(view, w, new, &mut read)?;
            }
        }
        let changed = read
            .marks
            .iter()
            .fold(0u64, |rows, &(w, _)| rows | 1 << (w - 1));
        self.eights |= read.eights;
        self.safe_count -= read.revealed_safe;
        self.mark_rows(changed);
        let count = read.marks.len();
        self.ring.marks = read.marks;
        Ok(count)
    }

    /// Forgets whether plane index `index` is a mine or safe, and marks the words around it
    /// for the trivial rule, which may prove it again.
    pub(crate) fn unprove(&mut self, index: usize) {
        let bit = 1u64 << (index % 64);
        let word = index / 64;
        if (self.safe[word] | self.mines[word]) & bit == 0 {
            return;
        }
        if self.safe[word] & bit != 0 {
            self.safe_count -= 1;
        }
        self.safe[word] &= !bit;
        self.mines[word] &= !bit;
        self.mark_word(word, bit);
    }

    /// Forgets what is proven of plane index `index`, a hidden cell whose mine changed
    /// under the view, and reads again from `view` the numbers of the revealed cells in
    /// its row and the rows beside it, marking them for the trivial rule.
    pub(crate) fn renumber(&mut self, view: &View<'_>, index: usize) {
        self.unprove(index);
        let wpr = self.geometry.words_per_row();
        let row = self.padded_row(index);
        let j = (index / 64 - 1) % wpr;
        // The words of the cells around it: its own word and those beside it.
        let (ja, jb) = (j.saturating_sub(1), (j + 1).min(wpr - 1));
        for r in row.saturating_sub(1).max(1)..=(row + 1).min(self.geometry.rows()) {
            for w in r * wpr + ja..=r * wpr + jb {
                let kept = self.revealed[w + 1] & self.geometry.cell_mask(w % wpr);
                if kept == 0 {
                    continue;
                }
                let slices = view.number_words(w);
                for (plane, slice) in self.numbers.iter_mut().zip(slices) {
                    plane[w + 1] = (plane[w + 1] & !kept) | (slice & kept);
                }
                self.eights |= slices[3] & kept != 0;
            }
        }
        self.mark_word(index / 64, !0);
    }

    /// Heap bytes of the planes (seven planes, plus the ring and row marks).
    pub(crate) fn heap_bytes(&self) -> usize {
        8 * self.revealed.len() * 7
            + self.ring.heap_bytes()
            + self.band_rings.iter().map(Ring::heap_bytes).sum::<usize>()
            + 8 * (self.dirty.bits.len() + self.spare.bits.len() + self.seen.len())
            + 8 * self.safe_words.capacity()
    }

    /// Plane index of a cell.
    pub(crate) fn index(&self, row: usize, col: usize) -> usize {
        (row + 1) * self.geometry.words_per_row() * 64 + col + 1 + 64
    }

    /// The padded row of a plane index (board row + 1).
    fn padded_row(&self, index: usize) -> usize {
        (index - 64) / (self.geometry.words_per_row() * 64)
    }

    /// The cell of a plane index that addresses a board cell.
    pub(crate) fn cell(&self, index: usize) -> (usize, usize) {
        let stride = self.geometry.words_per_row() * 64;
        let bit = index - 64;
        (bit / stride - 1, bit % stride - 1)
    }

    pub(crate) fn get(plane: &[u64], index: usize) -> bool {
        plane[index / 64] >> (index % 64) & 1 != 0
    }

    /// The number shown at a plane index (zero if hidden).
    pub(crate) fn number(&self, index: usize) -> u8 {
        (0..4)
            .map(|i| ((self.numbers[i][index / 64] >> (index % 64) & 1) << i) as u8)
            .sum()
    }

    /// Whether a plane index is a hidden cell not yet proven either way.
    pub(crate) fn is_unknown(&self, index: usize) -> bool {
        !(Self::get(&self.revealed, index)
            || Self::get(&self.mines, index)
            || Self::get(&self.safe, index))
    }

    /// Word `w` of a plane.
    #[cfg(test)] // the frontier scan's twin reads it
    pub(crate) fn word(plane: &[u64], w: usize) -> u64 {
        plane[w]
    }

    /// The cells of plane word `w` (a board row's word) with an undecided neighbour.
    #[cfg(test)] // the frontier scan's twin reads it
    pub(crate) fn unknown_near(&self, w: usize) -> u64 {
        let wpr = self.geometry.words_per_row();
        let undecided = |i: usize| !(self.revealed[i] | self.safe[i] | self.mines[i]);
        let row = |c: usize| {
            let m = undecided(c);
            m | m << 1 | undecided(c - 1) >> 63 | m >> 1 | undecided(c + 1) << 63
        };
        row(w - wpr) | row(w) | row(w + wpr)
    }

    /// Hidden cells proven neither way.
    pub(crate) fn undecided_count(&self) -> usize {
        self.revealed
            .iter()
            .zip(&self.safe)
            .zip(&self.mines)
            .map(|((r, s), m)| (!(r | s | m)).count_ones() as usize)
            .sum()
    }

    /// Whether a plane index addresses a board cell (not a sentinel, padding or guard).
    pub(crate) fn is_cell(&self, index: usize) -> bool {
        let wpr = self.geometry.words_per_row();
        let Some(word) = (index / 64).checked_sub(1) else {
            return false;
        };
        let row = word / wpr;
        row >= 1
            && row <= self.geometry.rows()
            && self.cell_masks[word % wpr] >> (index % 64) & 1 != 0
    }

    /// The board cells set in `plane`, row by row.
    pub(crate) fn cells_of<'a>(
        &'a self,
        plane: &'a [u64],
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        set_bits(plane).map(|i| self.cell(i))
    }

    /// Plane indices of the undecided cells, in increasing order.
    pub(crate) fn undecided_cells(&self) -> Vec<usize> {
        let undecided: Vec<u64> = self
            .revealed
            .iter()
            .zip(&self.safe)
            .zip(&self.mines)
            .map(|((r, s), m)| !(r | s | m))
            .collect();
        set_bits(&undecided).collect()
    }

    /// Proven mines.
    pub(crate) fn mine_count(&self) -> usize {
        self.mines.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Marks a cell proven, and its neighbourhood for the trivial rule to look at again.
    pub(crate) fn prove(&mut self, index: usize, mine: bool) {
        let plane = if mine {
            &mut self.mines
        } else {
            &mut self.safe
        };
        let bit = 1 << (index % 64);
        if !mine && plane[index / 64] & bit == 0 {
            self.safe_count += 1;
            self.safe_words.push(index / 64);
        }
        plane[index / 64] |= bit;
        self.mark_word(index / 64, bit);
    }

    /// Marks for the trivial rule the cells within two rows and two columns of the cells
    /// `bits` of plane word `w` (which changed): a number beside a changed cell may now
    /// prove the cells beside it. Always inlined: out of line, a whole-board sweep from
    /// nothing took 4% more instructions.
    #[inline(always)]
    fn mark_word(&mut self, w: usize, bits: u64) {
        let (rows, wpr) = (self.geometry.rows(), self.geometry.words_per_row());
        let Some(layout) = w.checked_sub(1) else {
            return;
        };
        if layout < 64 && self.one_word_marks() {
            // One word a row: `layout` is the padded row.
            self.mark_rows(1 << layout);
            return;
        }
        let (row, j) = (layout / wpr, layout % wpr);
        let ja = if bits & 0b11 != 0 {
            j.saturating_sub(1)
        } else {
            j
        };
        let jb = if bits >> 62 != 0 {
            (j + 1).min(wpr - 1)
        } else {
            j
        };
        let (top, bottom) = (row.saturating_sub(2).max(1), (row + 2).min(rows));
        if top > bottom {
            return;
        }
        for strip in ja / STRIP..=jb / STRIP {
            self.dirty.set_rows(strip, top, bottom);
        }
    }

    /// One pass of the trivial rule over the rows of each strip marked dirty (all of them
    /// the first time):
    /// every revealed number whose proven mines meet it clears its other unknown
    /// neighbours, and every number that needs all its unknown neighbours makes them mines.
    /// Returns the cells newly proven, or the first revealed cell the proven cells around it
    /// contradict.
    ///
    /// A large board is swept in bands of [`BAND`] rows on the rayon pool: every even band
    /// at once, then every odd one. A band writes only its own rows and reads at most
    /// three rows past them, so no two bands of one half touch the same word, and what the
    /// pass proves depends on the bands alone, never on the number of threads.
    pub(crate) fn sweep(&mut self) -> Result<usize, Bad> {
        self.sweep_in(self.banded())
    }

    /// Whether the board is large enough to sweep, update and scan in bands.
    pub(crate) fn banded(&self) -> bool {
        self.geometry.rows() >= 4 * BAND && self.geometry.words() >= BANDED_WORDS
    }

    /// The first padded row of each band, then `rows + 1`. With `banded`, bands of [`BAND`]
    /// rows, the last one taking the rows left over (so that every band is at least `BAND`
    /// rows tall, and no band reads past the band beside it); otherwise the whole board as
    /// one band.
    pub(crate) fn tops(&self, banded: bool) -> Vec<usize> {
        let rows = self.geometry.rows();
        let bands = if banded { (rows / BAND).max(1) } else { 1 };
        (0..bands).map(|k| 1 + k * BAND).chain([rows + 1]).collect()
    }

    /// The plane index of the first word of each band starting at `tops` (from
    /// [`Planes::tops`]), then of the word after the last band.
    fn bounds(&self, tops: &[usize]) -> Vec<usize> {
        tops.iter().map(|&top| self.bound(top)).collect()
    }

    /// The plane index of the first word of padded row `top`.
    fn bound(&self, top: usize) -> usize {
        top * self.geometry.words_per_row() + 1
    }

    /// [`Planes::sweep`], in bands or not as `banded` says (for boards of more than one
    /// word a row).
    fn sweep_in(&mut self, banded: bool) -> Result<usize, Bad> {
        let rows = self.geometry.rows();
        // The marks to work on, and a cleared buffer (last call's) for the new ones.
        let mut dirty = std::mem::take(&mut self.spare);
        dirty.reset(rows + 2, self.dirty.strips());
        std::mem::swap(&mut dirty, &mut self.dirty);
        let result = if self.geometry.words_per_row() == 1 {
            self.sweep_narrow(&dirty)
        } else if banded {
            self.sweep_bands(&dirty)
        } else {
            self.sweep_whole(&dirty)
        };
        self.spare = dirty;
        result
    }

    /// The sweep of a board of one word a row, run by run.
    fn sweep_narrow(&mut self, dirty: &Dirty) -> Result<usize, Bad> {
        let mut found = 0;
        for (first, last) in dirty.runs(0, 1, self.geometry.rows()) {
            found += self.sweep_rows_narrow(first, last)?;
        }
        Ok(found)
    }

    /// The sweep of the whole board as one band, on this thread.
    fn sweep_whole(&mut self, dirty: &Dirty) -> Result<usize, Bad> {
        let mut ring = std::mem::take(&mut self.ring);
        let mut runs_of = std::mem::take(&mut ring.runs);
        runs_of.clear();
        dirty.runs_of(1, self.geometry.rows(), &mut runs_of);
        self.sweep_runs(ring, runs_of)
    }

    /// Sweeps `runs_of` on this thread with `ring`'s buffers (the planes' own ring, taken
    /// out, which goes back with the buffers), as one band of the whole board: a run writes
    /// only its own rows.
    fn sweep_runs(&mut self, mut ring: Ring, runs_of: Vec<Run>) -> Result<usize, Bad> {
        let (fixed, mines, safe) = self.parts();
        let whole = |own| Rows {
            above: &[],
            own,
            below: &[],
            start: 0,
        };
        let swept = Band {
            fixed,
            mines: whole(mines),
            safe: whole(safe),
        }
        .sweep(&runs_of, &mut ring);
        ring.runs = runs_of;
        let found = swept.map(|swept| {
            let found = self.take(&swept);
            self.safe_words.extend_from_slice(&swept.safe_words);
            ring.marks = swept.marks; // the buffers, for the next sweep
            ring.safe_words = swept.safe_words;
            found
        });
        self.ring = ring;
        found
    }

    /// The bands of rows [`Planes::sweep_band`] takes: bands of [`DRIVE_BAND`] rows on a
    /// board large enough to sweep in bands (with more than one word a row), the last one
    /// taking the rows left over, else the whole board as one.
    pub(crate) fn band_count(&self) -> usize {
        if self.banded() && self.geometry.words_per_row() > 1 {
            self.geometry.rows() / DRIVE_BAND
        } else {
            1
        }
    }

    /// One pass of the trivial rule over the marked rows of band `k` alone (of
    /// [`Planes::band_count`]; the whole board, as [`Planes::sweep`], on a board swept as
    /// one band): the marks of the other bands stay for later, and the marks its proofs set,
    /// in its rows or beside them, join them. A band writes only its own rows, so a play
    /// that drives one band to its fixed point after another works on words that stay in
    /// cache, and the trivial rule reaches the same fixed point whatever the order of the
    /// bands. Returns the cells it proved, or the first contradiction.
    pub(crate) fn sweep_band(&mut self, k: usize) -> Result<usize, Bad> {
        let bands = self.band_count();
        if bands < 2 {
            return self.sweep();
        }
        if k >= bands {
            return Ok(0);
        }
        let lo = 1 + k * DRIVE_BAND;
        let hi = if k + 1 == bands {
            self.geometry.rows()
        } else {
            lo + DRIVE_BAND - 1
        };
        self.sweep_rows(lo, hi)
    }

    /// [`Planes::sweep_band`] of the band of padded rows `lo..=hi` (board rows, on a board of
    /// more than one word a row).
    fn sweep_rows(&mut self, lo: usize, hi: usize) -> Result<usize, Bad> {
        let mut ring = std::mem::take(&mut self.ring);
        let mut runs_of = std::mem::take(&mut ring.runs);
        runs_of.clear();
        self.dirty.runs_of(lo, hi, &mut runs_of);
        if runs_of.is_empty() {
            ring.runs = runs_of;
            self.ring = ring;
            return Ok(0);
        }
        self.dirty.clear_rows(lo, hi);
        // The runs lie in the band's rows: swept as the whole board's, they write what the
        // band's alone would.
        self.sweep_runs(ring, runs_of)
    }

    /// Whether some rows are marked for the trivial rule: if none is, a sweep proves
    /// nothing.
    pub(crate) fn marked(&self) -> bool {
        self.dirty.any_rows(1, self.geometry.rows())
    }

    /// Takes the board rows from the first of band `band` (of [`Planes::band_count`]) to the
    /// last from `other`, planes of the same game that drove the trivial rule on those rows
    /// while these drove the rows above, each to its own bands' fixed point with nothing
    /// proven safe left hidden: their revealed cells, numbers and marks, and the proven mines
    /// of both. Marks are set wherever one side knows what the other did not: rows within
    /// two of the seam that differ, and the mines these proved below it. Cells revealed
    /// since in the view either side did not see are marked by the [`Planes::update`] that
    /// follows. Returns whether it took them (not when either holds proven safe cells, when
    /// the planes differ in size or when the rows are not those of a band past the first).
    pub(crate) fn adopt_bands(&mut self, other: &Planes, band: usize) -> bool {
        let (rows, wpr) = (self.geometry.rows(), self.geometry.words_per_row());
        if other.geometry != self.geometry
            || self.safe_count != 0
            || other.safe_count != 0
            || self.dirty.per != other.dirty.per
            || self.dirty.bits.len() != other.dirty.bits.len()
            || band == 0
            || band >= self.band_count()
        {
            return false;
        }
        // The first padded row taken, and the plane index of the first word of a padded row.
        let lo = 1 + band * DRIVE_BAND;
        let at = |row: usize| row * wpr + 1;
        // The seam: what the two sides know differently within two rows of it.
        let seam: Vec<(usize, u64)> = (at(lo - 2)..at((lo + 2).min(rows + 1)))
            .filter_map(|w| {
                let differ =
                    (self.revealed[w] ^ other.revealed[w]) | (self.mines[w] ^ other.mines[w]);
                (differ != 0).then_some((w, differ))
            })
            .collect();
        self.dirty.copy_rows(&other.dirty, lo, rows + 1);
        let mut proved = Vec::new();
        for w in at(lo)..at(rows + 1) {
            self.revealed[w] = other.revealed[w];
            for (mine, theirs) in self.numbers.iter_mut().zip(&other.numbers) {
                mine[w] = theirs[w];
            }
            let mines = self.mines[w] | other.mines[w];
            if mines != other.mines[w] {
                proved.push((w, mines ^ other.mines[w]));
            }
            self.mines[w] = mines;
        }
        self.eights |= other.eights;
        for (w, bits) in seam.into_iter().chain(proved) {
            self.mark_word(w, bits);
        }
        true
    }

    /// Whether some rows of bands `first..end` (of [`Planes::band_count`]) are marked for
    /// the trivial rule: if none is, [`Planes::sweep_band`] of those bands proves nothing.
    pub(crate) fn marked_bands(&self, first: usize, end: usize) -> bool {
        let bands = self.band_count();
        let end = end.min(bands);
        if first >= end {
            return false;
        }
        if bands < 2 {
            return self.marked();
        }
        let lo = 1 + first * DRIVE_BAND;
        let hi = if end == bands {
            self.geometry.rows()
        } else {
            end * DRIVE_BAND
        };
        self.dirty.any_rows(lo, hi)
    }

    /// The sweep in bands of [`BAND`] rows, the even bands in parallel and then the odd
    /// ones. A contradiction is reported from the first band (in row order) of the first
    /// half that finds one.
    fn sweep_bands(&mut self, dirty: &Dirty) -> Result<usize, Bad> {
        let wpr = self.geometry.words_per_row();
        let tops = self.tops(true);
        if tops.len() < 3 {
            return self.sweep_whole(dirty);
        }
        let bounds = self.bounds(&tops);
        let mut found = 0;
        // Each band's safe words, in increasing order, by band: listed in band order, the
        // bands' words are in increasing order too.
        let mut listed: Vec<(usize, Vec<usize>)> = Vec::new();
        let mut rings = std::mem::take(&mut self.band_rings);
        for half in 0..2 {
            let (fixed, mines, safe) = self.parts();
            let work: Vec<(usize, (Vec<Run>, Band<'_>))> = bands_of(mines, &bounds, half)
                .into_iter()
                .zip(bands_of(safe, &bounds, half))
                .filter_map(|((k, mines), (_, safe))| {
                    let mut runs = Vec::new();
                    dirty.runs_of(tops[k], tops[k + 1] - 1, &mut runs);
                    let band = Band { fixed, mines, safe };
                    (!runs.is_empty()).then_some((k, (runs, band)))
                })
                .collect();
            let work_len = work.len();
            if rings.len() < work_len {
                rings.resize_with(work_len, || Ring::new(wpr));
            }
            let swept: Vec<(usize, Result<Swept, Bad>, Ring)> = work
                .into_par_iter()
                .zip(rings.par_drain(..work_len))
                .map(|((k, (runs, mut band)), mut ring)| {
                    let swept = band.sweep(&runs, &mut ring);
                    (k, swept, ring)
                })
                .collect();
            let mut failed = None;
            for (k, swept, mut ring) in swept {
                match swept {
                    Ok(swept) if failed.is_none() => {
                        found += self.take(&swept);
                        ring.marks = kept_list(swept.marks); // for the next sweep
                        if swept.safe_words.is_empty() {
                            ring.safe_words = kept_list(swept.safe_words);
                        } else {
                            listed.push((k, swept.safe_words));
                        }
                    }
                    Ok(_) => {}
                    Err(bad) => failed = failed.or(Some(bad)),
                }
                ring.order = kept_list(std::mem::take(&mut ring.order));
                rings.push(ring);
            }
            if let Some(bad) = failed {
                self.band_rings = rings;
                return Err(bad);
            }
        }
        listed.sort_unstable_by_key(|&(k, _)| k);
        for (_, words) in &mut listed {
            self.safe_words.extend_from_slice(words);
        }
        // The lists' buffers go back to the rings, for the next sweep.
        for (ring, (_, words)) in rings.iter_mut().zip(listed) {
            ring.safe_words = kept_list(words);
        }
        self.band_rings = rings;
        Ok(found)
    }

    /// The planes a sweep reads, and the two it writes.
    fn parts(&mut self) -> (Fixed<'_>, &mut [u64], &mut [u64]) {
        let fixed = Fixed {
            wpr: self.geometry.words_per_row(),
            rows: self.geometry.rows(),
            revealed: &self.revealed,
            numbers: self.numbers.each_ref().map(Vec::as_slice),
            eights: self.eights,
            zeros: &self.zeros,
            cell_masks: &self.cell_masks,
        };
        (fixed, &mut self.mines, &mut self.safe)
    }

    /// Takes in what a band's sweep proved: counts its safe cells and marks the words
    /// around its proofs for the next sweep (the caller lists the words where it proved a
    /// cell safe). Returns the cells it proved.
    fn take(&mut self, swept: &Swept) -> usize {
        self.safe_count += swept.found_safe;
        for &(w, bits) in &swept.marks {
            self.mark_word(w, bits);
        }
        swept.found
    }

    /// [`Band::sweep_any`] for boards of one word a row (at most 62 columns), where
    /// a row's neighbours in its own word are all it has: the same pipeline on single
    /// words in registers, with no ring of row buffers.
    fn sweep_rows_narrow(&mut self, first: usize, last: usize) -> Result<usize, Bad> {
        if self.eights {
            self.sweep_rows_narrow_in::<true>(first, last)
        } else {
            self.sweep_rows_narrow_in::<false>(first, last)
        }
    }

    /// [`Planes::sweep_rows_narrow`] with `EIGHTS` for whether a revealed 8 is on the
    /// board: without one the numbers' fourth bit plane is zero, and the comparisons drop
    /// it.
    fn sweep_rows_narrow_in<const EIGHTS: bool>(
        &mut self,
        first: usize,
        last: usize,
    ) -> Result<usize, Bad> {
        let rows = self.geometry.rows();
        let mask = self.cell_masks.first().copied().unwrap_or(0);
        let one_word_marks = self.one_word_marks();
        // The planes cut to their padded rows (plane index `q + 1` for padded row `q`): no
        // index in the loop is then checked against a length that a write might change.
        let len = rows + 3;
        let [n0, n1, n2, n3] = &self.numbers;
        let (Some(revealed), Some(safe), Some(mines)) = (
            self.revealed.get(..len),
            self.safe.get_mut(..len),
            self.mines.get_mut(..len),
        ) else {
            return Ok(0);
        };
        let (Some(n0), Some(n1), Some(n2), Some(n3)) =
            (n0.get(..len), n1.get(..len), n2.get(..len), n3.get(..len))
        else {
            return Ok(0);
        };
        // Sums of padded row `q` (0..=rows+1): three-cell and two-cell, for the proven
        // mines and for the cells that may be mines. Sentinel rows hold no mine and read
        // as revealed, so they add nothing.
        let sums = |safe: &[u64], mines: &[u64], q: usize| {
            let horizontal = |c: u64| {
                let (l, r) = (c << 1, c >> 1);
                let (x, a) = (l ^ r, l & r);
                ([x ^ c, a | (c & x)], [x, a])
            };
            let open = !(revealed[q + 1] | safe[q + 1]);
            (horizontal(mines[q + 1]), horizontal(open))
        };
        // The marks of the rows proven in are set once the rows are swept (they are for the
        // next sweep, so setting them later changes nothing): on a board with
        // `one_word_marks` as the bits of the padded rows, else as the words, in the ring's
        // buffer of marks.
        let mut marks = std::mem::take(&mut self.ring.marks);
        marks.clear();
        let mut proved_rows = 0u64;
        let mut found = 0;
        let mut found_safe = 0;
        let mut failed = None;
        // The dilated verdicts of the last two rows ruled, (safe, mine).
        let mut spread = [[0u64; 2]; 2];
        let top = first.saturating_sub(1).max(1);
        let bottom = (last + 1).min(rows);
        // The sums of rows r - 1 and r, carried from one row to the next.
        let (mut up, mut mid) = (sums(safe, mines, top - 1), sums(safe, mines, top));
        for r in top..=bottom + 1 {
            let here = if r <= bottom {
                let down = sums(safe, mines, r + 1);
                let k = add3(up.0.0, mid.0.1, down.0.0);
                let x = add3(up.1.0, mid.1.1, down.1.0);
                let n = [
                    n0[r + 1],
                    n1[r + 1],
                    n2[r + 1],
                    if EIGHTS { n3[r + 1] } else { 0 },
                ];
                let cells = revealed[r + 1] & mask;
                let bad = cells & (less(n, k) | less(x, n));
                if bad != 0 {
                    failed = Some(Bad((r + 1) * 64 + bad.trailing_zeros() as usize));
                    break;
                }
                let dilate = |m: u64| m | m << 1 | m >> 1;
                (up, mid) = (mid, down);
                [dilate(cells & equal(n, k)), dilate(cells & equal(n, x))]
            } else {
                [0, 0]
            };
            // Row r - 1 has every verdict that reaches it: apply them.
            let a = r - 1;
            if a >= first && a <= last {
                let to_safe = spread[0][0] | spread[1][0] | here[0];
                let to_mine = spread[0][1] | spread[1][1] | here[1];
                let undecided = !(revealed[a + 1] | safe[a + 1] | mines[a + 1]);
                let (to_safe, to_mine) = (to_safe & undecided, to_mine & undecided);
                let both = to_safe & to_mine;
                let new = (to_safe | to_mine) & !both;
                if new != 0 {
                    found_safe += (to_safe & !both).count_ones() as usize;
                    safe[a + 1] |= to_safe & !both;
                    mines[a + 1] |= to_mine & !both;
                    found += new.count_ones() as usize;
                    if one_word_marks && a < 64 {
                        proved_rows |= 1 << a;
                    } else {
                        marks.push((a + 1, new));
                    }
                    if to_safe & !both != 0 {
                        self.safe_words.push(a + 1);
                    }
                }
            }
            spread = [spread[1], here];
        }
        self.safe_count += found_safe;
        if proved_rows != 0 {
            self.mark_rows(proved_rows);
        }
        for &(w, bits) in &marks {
            self.mark_word(w, bits);
        }
        self.ring.marks = marks;
        failed.map_or(Ok(found), Err)
    }
}

/// Words of one round of [`Planes::update_words`] at least for it to be read on the rayon
/// pool: a short round is read on the calling thread, where handing it out would cost more.
/// (Tests cut even short rounds, to read in pieces on the small boards they play.)
const PAR_ROUND: usize = if cfg!(test) { 16 } else { 1024 };

/// Words of a round of [`Planes::update_words`] a piece on the rayon pool reads.
const ROUND_PIECE: usize = if cfg!(test) { 7 } else { 512 };

/// What a piece of a round of [`Planes::update_words`] took in.
struct Read {
    /// The words that changed, with their newly revealed cells, to mark for the sweep.
    marks: Vec<(usize, u64)>,
    /// The words beside zero cells that opened, not yet read when the round began (perhaps
    /// twice, perhaps in another piece).
    near: Vec<usize>,
    /// Proven safe cells now revealed.
    revealed_safe: usize,
    eights: bool,
    /// The first word that shows the view is not a later one; the piece stops there.
    error: Option<(usize, &'static str)>,
}

/// The words of a band of rows that one piece of [`Planes::update_words`] writes (from plane
/// index `start`), and the planes it only reads.
struct Near<'a> {
    start: usize,
    wpr: usize,
    revealed: &'a mut [u64],
    numbers: [&'a mut [u64]; 4],
    safe: &'a mut [u64],
    mines: &'a [u64],
    cell_masks: &'a [u64],
    seen: &'a [u64],
}

impl Near<'_> {
    /// Takes in the plane words `words` (increasing, all in this piece) from `view`.
    fn read(&mut self, view: &View<'_>, words: &[usize]) -> Read {
        let wpr = self.wpr;
        let revealed = view.revealed_words();
        let mut read = Read {
            marks: Vec::new(),
            near: Vec::new(),
            revealed_safe: 0,
            eights: false,
            error: None,
        };
        for (i, &w) in words.iter().enumerate() {
            // The words of a later entry, asked for now: entries lie far apart.
            if let Some(&ahead) = words.get(i + UPDATE_AHEAD) {
                view.prefetch_number_words(ahead - 1);
                let at = ahead - self.start;
                prefetch(self.revealed, at);
                prefetch(self.safe, at);
                prefetch(self.mines, ahead);
                for plane in &self.numbers {
                    prefetch(plane, at);
                }
            }
            let new = revealed[w - 1];
            if new == self.revealed[w - self.start] {
                continue;
            }
            let zeros = match self.take_word(view, w, new, &mut read) {
                Ok(zeros) => zeros,
                Err(error) => {
                    read.error = Some(error);
                    break;
                }
            };
            if zeros == 0 {
                continue;
            }
            // A cascade leaves a word only through the zero cells it opened there: to
            // the rows above and below, and across the word's ends from its end bits.
            let (left, right) = (zeros & 1 != 0, zeros >> 63 != 0);
            let mut near = [w - wpr, w + wpr, 0, 0, 0, 0, 0, 0];
            let mut count = 2;
            if left {
                near[count..count + 3].copy_from_slice(&[w - wpr - 1, w - 1, w + wpr - 1]);
                count += 3;
            }
            if right {
                near[count..count + 3].copy_from_slice(&[w - wpr + 1, w + 1, w + wpr + 1]);
                count += 3;
            }
            // Words read before this round began are left out here; the rest are sorted
            // out when the pieces are put together.
            read.near.extend(near[..count].iter().filter(|&&n| {
                self.seen
                    .get(n / 64)
                    .is_some_and(|s| s >> (n % 64) & 1 == 0)
            }));
        }
        read
    }

    /// Takes in plane word `w` of the view, whose revealed cells now read `new`: checks
    /// that it is a later view there, copies the revealed cells and their numbers and takes
    /// the revealed cells out of the safe plane, noting the word in `read`'s marks.
    /// Returns the newly revealed cells that show 0.
    fn take_word(
        &mut self,
        view: &View<'_>,
        w: usize,
        new: u64,
        read: &mut Read,
    ) -> Result<u64, (usize, &'static str)> {
        let at = w - self.start;
        let old = self.revealed[at];
        let first = |bits: u64| w * 64 + bits.trailing_zeros() as usize;
        if old & !new != 0 {
            return Err((first(old & !new), "a revealed cell is hidden again"));
        }
        let slices = view.number_words(w - 1);
        let mask = self.cell_masks[(w - 1) % self.wpr];
        let kept = old & mask;
        for (plane, &slice) in self.numbers.iter().zip(&slices) {
            if (plane[at] ^ slice) & kept != 0 {
                return Err((
                    first((plane[at] ^ slice) & kept),
                    "a revealed cell shows another number",
                ));
            }
        }
        if self.mines[w] & new != 0 {
            return Err((first(self.mines[w] & new), "a proven mine is revealed"));
        }
        self.revealed[at] = new;
        for (plane, slice) in self.numbers.iter_mut().zip(slices) {
            plane[at] = slice;
        }
        read.eights |= slices[3] != 0;
        read.revealed_safe += (self.safe[at] & new).count_ones() as usize;
        self.safe[at] &= !new;
        read.marks.push((w, new & !old));
        let numbered = slices[0] | slices[1] | slices[2] | slices[3];
        Ok(new & !old & !numbered & mask)
    }
}

/// Rows `first..` of the planes that [`Planes::update`] writes, as many as the slices hold.
struct Fresh<'a> {
    first: usize,
    revealed: &'a mut [u64],
    numbers: [&'a mut [u64]; 4],
    safe: &'a mut [u64],
}

/// What [`Fresh::update`] took in: the words that changed (plane index, newly revealed
/// cells), the proven safe cells now revealed, and whether a revealed cell shows 8.
struct Taken {
    words: Vec<(usize, u64)>,
    revealed_safe: usize,
    eights: bool,
}

impl Fresh<'_> {
    /// [`Planes::update`] over these rows: copies in the rows of `view` whose revealed
    /// cells changed, or returns the first cell that shows it is not a later view. The
    /// words that changed are put in `words` (cleared first).
    fn update(
        self,
        geometry: &Geometry,
        mines: &[u64],
        view: &View<'_>,
        mut words_changed: Vec<(usize, u64)>,
    ) -> Result<Taken, (usize, &'static str)> {
        let wpr = geometry.words_per_row();
        let revealed = view.revealed_words();
        words_changed.clear();
        let mut taken = Taken {
            words: words_changed,
            revealed_safe: 0,
            eights: false,
        };
        let Fresh {
            first,
            revealed: old_revealed,
            mut numbers,
            safe,
        } = self;
        for (i, old_row) in old_revealed.chunks_mut(wpr).enumerate() {
            let row = first + i;
            // Layout words of the row, and their offset in these slices.
            let words = row * wpr..(row + 1) * wpr;
            let at = i * wpr;
            // A wide row is compared whole first (a vector compare); a narrow one word by
            // word below, where a call to compare a word or two would cost more than it saves.
            if wpr >= 8 && revealed[words.clone()] == *old_row {
                continue;
            }
            for (j, w) in words.enumerate() {
                let (new, old) = (revealed[w], old_row[j]);
                if new == old {
                    continue;
                }
                let first = |bits: u64| (w + 1) * 64 + bits.trailing_zeros() as usize;
                if old & !new != 0 {
                    return Err((first(old & !new), "a revealed cell is hidden again"));
                }
                let slices = view.number_words(w);
                let kept = old & geometry.cell_mask(j);
                for (plane, &slice) in numbers.iter().zip(&slices) {
                    if (plane[at + j] ^ slice) & kept != 0 {
                        let bits = (plane[at + j] ^ slice) & kept;
                        return Err((first(bits), "a revealed cell shows another number"));
                    }
                }
                if mines[w + 1] & new != 0 {
                    return Err((first(mines[w + 1] & new), "a proven mine is revealed"));
                }
                old_row[j] = new;
                for (plane, slice) in numbers.iter_mut().zip(slices) {
                    plane[at + j] = slice;
                }
                taken.eights |= slices[3] != 0;
                taken.revealed_safe += (safe[at + j] & new).count_ones() as usize;
                safe[at + j] &= !new;
                taken.words.push((w + 1, new & !old));
            }
        }
        Ok(taken)
    }
}

/// Rows of the board per band of the parallel sweep. A band reads three rows past its own
/// (two rows of sums, one guard word beyond), so bands must be taller than that for the
/// bands of one half never to read what another writes.
const BAND: usize = 128;

/// Rows of a band of [`Planes::sweep_band`] on a large board: few enough that a band's
/// words stay in the core's own cache while a play drives it to its fixed point
/// (1000x1000 at density 0.15: 0.880 G instructions with bands of 16 rows, 0.914 G with 32
/// and 0.968 G with 128).
const DRIVE_BAND: usize = 16;
const _: () = assert!(DRIVE_BAND > 3);
const _: () = assert!(BAND > 3);

/// Boards of at least this many words (with at least four bands of rows) are swept in
/// bands on the rayon pool; smaller ones are swept on the calling thread, where handing
/// out the work would cost more than it saves.
const BANDED_WORDS: usize = 1 << 13;

/// Words of a row in a strip of the sweep: the unit of its marks across the board. A
/// strip rules only its own words and hands the verdicts of its edge cells to the words
/// beside it, so one word a strip sweeps the least beside a change (on 1000x1000 at density
/// 0.15, 1.27 G instructions against 1.31 G with two words; when strips read and ruled a
/// word past them on each side, two words took 0.91 of the CPU time of four on 3000x3000).
const STRIP: usize = 1;
const _: () = assert!(STRIP > 0);

/// Where the trivial rule may find something new: for each strip of [`STRIP`] words
/// across the board, a bit per padded row.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct Dirty {
    /// Words of bits a strip.
    per: usize,
    /// Strip by strip, a bit per padded row.
    bits: Vec<u64>,
}

impl Dirty {
    /// Clears the marks, for `rows` padded rows in `strips` strips.
    fn reset(&mut self, rows: usize, strips: usize) {
        self.per = rows.div_ceil(64);
        self.bits.clear();
        self.bits.resize(self.per * strips, 0);
    }

    /// Strips across the board.
    fn strips(&self) -> usize {
        self.bits.len().checked_div(self.per).unwrap_or(0)
    }

    /// Marks padded row `row` of strip `strip`.
    #[cfg(test)]
    fn set(&mut self, strip: usize, row: usize) {
        self.bits[strip * self.per + row / 64] |= 1 << (row % 64);
    }

    /// Marks padded rows `top..=bottom` (at most five) of strip `strip`.
    #[inline]
    fn set_rows(&mut self, strip: usize, top: usize, bottom: usize) {
        let run = (1u64 << (bottom - top + 1)) - 1;
        let at = strip * self.per + top / 64;
        self.bits[at] |= run << (top % 64);
        if top % 64 + (bottom - top) >= 64 {
            self.bits[at + 1] |= run >> (64 - top % 64);
        }
    }

    /// Clears the marks of padded rows `lo..=hi` in every strip.
    fn clear_rows(&mut self, lo: usize, hi: usize) {
        if self.per == 0 || lo > hi {
            return;
        }
        for strip in self.bits.chunks_exact_mut(self.per) {
            for (i, word) in strip.iter_mut().enumerate().take(hi / 64 + 1).skip(lo / 64) {
                *word &= !row_span(i, lo, hi);
            }
        }
    }

    /// Sets the marks of padded rows `lo..=hi` in every strip to those of `other`, marks of
    /// the same shape.
    fn copy_rows(&mut self, other: &Dirty, lo: usize, hi: usize) {
        if self.per == 0 || lo > hi {
            return;
        }
        for (strip, theirs) in self
            .bits
            .chunks_exact_mut(self.per)
            .zip(other.bits.chunks_exact(other.per))
        {
            for (i, (word, their)) in strip
                .iter_mut()
                .zip(theirs)
                .enumerate()
                .take(hi / 64 + 1)
                .skip(lo / 64)
            {
                let span = row_span(i, lo, hi);
                *word = *word & !span | their & span;
            }
        }
    }

    /// Whether some padded row of `lo..=hi` is marked in some strip.
    fn any_rows(&self, lo: usize, hi: usize) -> bool {
        if self.per == 0 || lo > hi {
            return false;
        }
        self.bits.chunks_exact(self.per).any(|strip| {
            strip
                .iter()
                .enumerate()
                .take(hi / 64 + 1)
                .skip(lo / 64)
                .any(|(i, &word)| word & row_span(i, lo, hi) != 0)
        })
    }

    /// The runs of consecutive marked rows of strip `strip` within rows `lo..=hi`, as
    /// `(first, last)`, found as they are taken.
    fn runs(
        &self,
        strip: usize,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = (usize, usize)> + '_ {
        let bits = &self.bits[strip * self.per..(strip + 1) * self.per];
        let mut r = lo;
        std::iter::from_fn(move || {
            // The next marked row, skipping clear words whole.
            while r <= hi {
                let word = bits[r / 64] >> (r % 64);
                if word != 0 {
                    r += word.trailing_zeros() as usize;
                    break;
                }
                r = (r / 64 + 1) * 64;
            }
            if r > hi {
                return None;
            }
            let start = r;
            // Then the end of its run.
            while r <= hi {
                let shift = r % 64;
                let ones = (!(bits[r / 64] >> shift)).trailing_zeros() as usize;
                r += ones.min(64 - shift);
                if ones < 64 - shift {
                    break;
                }
            }
            Some((start, r.min(hi + 1) - 1))
        })
    }

    /// Every run of rows `lo..=hi`, strip by strip, appended to `out`. A run that spans the
    /// same rows as the last one of the strip before joins it, so a sweep of whole rows
    /// (the first, on a new solver) is one run as wide as the board, not one a strip.
    fn runs_of(&self, lo: usize, hi: usize, out: &mut Vec<Run>) {
        let start = out.len();
        for strip in 0..self.strips() {
            for (first, last) in self.runs(strip, lo, hi) {
                let mine = out.len() > start;
                match out.last_mut() {
                    Some(run)
                        if mine
                            && run.strip + run.strips == strip
                            && (run.first, run.last) == (first, last) =>
                    {
                        run.strips += 1;
                    }
                    _ => out.push(Run {
                        strip,
                        strips: 1,
                        first,
                        last,
                        // A mark covers the rows within two of a change, and only the
                        // numbers within one of it may rule anew: a run that starts after
                        // `lo` (so was not cut there) starts two rows above its first
                        // change, and the rule need not read its first row. Likewise at
                        // its end.
                        rule_first: if first > lo { first + 1 } else { first - 1 },
                        rule_last: if last < hi { last - 1 } else { last + 1 },
                    }),
                }
            }
        }
    }
}

/// The bits of word `i` of a strip's marks (rows `64 i..64 i + 64`) that lie in rows
/// `lo..=hi`, for a word that holds some of them.
fn row_span(i: usize, lo: usize, hi: usize) -> u64 {
    let from = lo.max(i * 64) - i * 64;
    let to = hi.min(i * 64 + 63) - i * 64;
    if to - from == 63 {
        !0
    } else {
        ((1u64 << (to - from + 1)) - 1) << from
    }
}

/// `plane` cut at the plane indices `bounds` (each band's start, then where the last one
/// ends): the words before the first band, each band, then the words after the last.
fn cut_at<'a>(plane: &'a mut [u64], bounds: &[usize]) -> Vec<&'a mut [u64]> {
    let mut chunks = Vec::with_capacity(bounds.len() + 1);
    let (mut rest, mut at) = (plane, 0);
    for &bound in bounds {
        let (head, tail) = rest.split_at_mut(bound - at);
        chunks.push(head);
        (rest, at) = (tail, bound);
    }
    chunks.push(rest);
    chunks
}

/// The bands of `plane` cut at `bounds` (as [`cut_at`]), without the words before the
/// first band and after the last.
fn bands_in<'a, 'b>(
    plane: &'a mut [u64],
    bounds: &'b [usize],
) -> impl Iterator<Item = &'a mut [u64]> + use<'a, 'b> {
    // Split as the bands are taken, so that no vector of chunks is allocated.
    let first = bounds.first().copied().unwrap_or(0);
    let (_, mut rest) = plane.split_at_mut(first);
    let mut at = first;
    bounds.iter().skip(1).map(move |&bound| {
        let (band, tail) = std::mem::take(&mut rest).split_at_mut(bound - at);
        (rest, at) = (tail, bound);
        band
    })
}

/// Cuts `plane` at `bounds` (the plane index where each band starts, then where the last
/// one ends) and returns the bands of parity `half` (0: bands 0, 2, 4...), each with its
/// index and the words beside it, which no band of the same half owns.
fn bands_of<'a>(plane: &'a mut [u64], bounds: &[usize], half: usize) -> Vec<(usize, Rows<'a>)> {
    let chunks = cut_at(plane, bounds);
    let bands = bounds.len() - 1;
    let mut owned = Vec::with_capacity(chunks.len());
    let mut seen: Vec<&'a [u64]> = Vec::with_capacity(chunks.len());
    for (i, chunk) in chunks.into_iter().enumerate() {
        if (1..=bands).contains(&i) && (i - 1) % 2 == half {
            owned.push(Some(chunk));
            seen.push(&[]);
        } else {
            owned.push(None);
            seen.push(chunk);
        }
    }
    owned
        .into_iter()
        .enumerate()
        .filter_map(|(i, chunk)| {
            let own = chunk?;
            let rows = Rows {
                above: seen[i - 1],
                own,
                below: seen[i + 1],
                start: bounds[i - 1],
            };
            Some((i - 1, rows))
        })
        .collect()
}

/// The planes a sweep only reads.
#[derive(Clone, Copy)]
struct Fixed<'a> {
    wpr: usize,
    rows: usize,
    revealed: &'a [u64],
    numbers: [&'a [u64]; 4],
    eights: bool,
    zeros: &'a [u64],
    cell_masks: &'a [u64],
}

/// The words of one plane a band may touch: its own rows, which it writes, and the words
/// just before and after them, which it only reads.
struct Rows<'a> {
    above: &'a [u64],
    own: &'a mut [u64],
    below: &'a [u64],
    /// The plane index of `own[0]`.
    start: usize,
}

impl Rows<'_> {
    /// Plane word `i`.
    #[inline(always)]
    fn word(&self, i: usize) -> u64 {
        self.words(i, 1)[0]
    }

    /// Plane words `i..i + n`, which lie in one of the three parts, as a row's words do.
    #[inline(always)]
    fn words(&self, i: usize, n: usize) -> &[u64] {
        if i < self.start {
            &self.above[self.above.len() + i - self.start..][..n]
        } else if i - self.start < self.own.len() {
            &self.own[i - self.start..][..n]
        } else {
            &self.below[i - self.start - self.own.len()..][..n]
        }
    }

    /// Plane words `i..i + n` of the band's own rows, to write.
    #[inline(always)]
    fn own_mut(&mut self, i: usize, n: usize) -> &mut [u64] {
        &mut self.own[i - self.start..][..n]
    }
}

/// What a band's sweep proved: cells, safe cells among them, and the rows where it proved
/// something (whose neighbourhoods the next sweep looks at).
struct Swept {
    found: usize,
    found_safe: usize,
    /// Plane words where it proved something, with the cells it proved there.
    marks: Vec<(usize, u64)>,
    /// Plane words where it proved a cell safe.
    safe_words: Vec<usize>,
}

/// One band of a sweep: the fixed planes and its part of the proven mines and safe cells.
struct Band<'a> {
    fixed: Fixed<'a>,
    mines: Rows<'a>,
    safe: Rows<'a>,
}

impl Band<'_> {
    /// The trivial rule over each run of rows (padded rows, all in this band).
    fn sweep(&mut self, runs: &[Run], ring: &mut Ring) -> Result<Swept, Bad> {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: `sweep_v3` only needs the CPU feature checked just above.
            return unsafe { self.sweep_v3(runs, ring) };
        }
        self.sweep_any(runs, ring)
    }

    /// The sweep compiled for AVX2, which the row loops vectorise to four words at a time.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn sweep_v3(&mut self, runs: &[Run], ring: &mut Ring) -> Result<Swept, Bad> {
        self.sweep_any(runs, ring)
    }

    /// The sweep of each run as a pipeline over rows, each stage a loop over one row's
    /// words: horizontal neighbour sums of row `q` (proven mines, and cells that may be
    /// mines), the rule at row `q - 1` from the sums of three rows, and the verdicts dilated
    /// back onto row `q - 2`. Knowledge only grows along the way, so a stage that reads a
    /// row before a later stage adds to it is merely behind, never wrong.
    #[inline(always)]
    fn sweep_any(&mut self, runs: &[Run], ring: &mut Ring) -> Result<Swept, Bad> {
        let mut marks = std::mem::take(&mut ring.marks);
        marks.clear();
        let mut safe_words = std::mem::take(&mut ring.safe_words);
        safe_words.clear();
        let mut swept = Swept {
            found: 0,
            found_safe: 0,
            marks,
            safe_words,
        };
        for &Run {
            strip,
            strips,
            first,
            last,
            rule_first,
            rule_last,
        } in runs
        {
            let span = Span::of(strip, strips, self.fixed.wpr);
            let rows = [first, last, rule_first, rule_last].map(|r| r as isize);
            // A run one word wide away from the board's sides, the most common, is swept in
            // registers; one or two strips are swept with their width known to the compiler,
            // which then keeps the row loops to a few instructions with no bounds checks; the
            // same code, whatever the width.
            const ONE: usize = STRIP + 2;
            const TWO: usize = 2 * STRIP + 2;
            match (span.m(), span.n()) {
                (3, 1) if !plain_runs() => self.sweep_word(rows, span.j0, &mut swept)?,
                (ONE, STRIP) => self.sweep_run::<ONE>(rows, span, ring, &mut swept)?,
                (TWO, n) if n == 2 * STRIP => {
                    self.sweep_run::<TWO>(rows, span, ring, &mut swept)?;
                }
                _ => self.sweep_run::<0>(rows, span, ring, &mut swept)?,
            }
        }
        // The rows of the runs, between which every word listed lies.
        let top = runs.iter().map(|run| run.first).min().unwrap_or(0);
        let bottom = runs.iter().map(|run| run.last).max().unwrap_or(0);
        sort_rows(
            &mut swept.safe_words,
            self.fixed.wpr,
            top..=bottom,
            &mut ring.counts,
            &mut ring.order,
        );
        Ok(swept)
    }

    /// [`Band::sweep_run`] for a run one word wide (word `j` of each row, with a word on
    /// each side in the row), in registers: the sums of the three words of each row, the
    /// rule at the middle word, and its verdicts dilated onto the three words, as the row
    /// stages do, with no row buffers. The same proofs in the same order as
    /// `sweep_run::<3>` (a test holds the two together sweep by sweep).
    #[inline(always)]
    fn sweep_word(
        &mut self,
        [first, last, rule_first, rule_last]: [isize; 4],
        j: usize,
        swept: &mut Swept,
    ) -> Result<(), Bad> {
        let (rows, wpr) = (self.fixed.rows as isize, self.fixed.wpr);
        // The plane index of word `j` of padded row `q`.
        let at = |q: isize| q as usize * wpr + 1 + j;
        // Row `q`'s three-cell and two-cell sums at word `j`, of the proven mines and of
        // the cells that may be mines, each a low and a high slice; zero off the planes.
        let sums = |band: &Self, q: isize| -> [[u64; 2]; 4] {
            if !(0..=rows + 1).contains(&q) {
                return [[0; 2]; 4];
            }
            let i = at(q);
            let horizontal = |b: u64, c: u64, a: u64| {
                let (l, r) = (c << 1 | b >> 63, c >> 1 | a << 63);
                let (x, y) = (l ^ r, l & r);
                ([x ^ c, y | (c & x)], [x, y])
            };
            let mines = band.mines.words(i - 1, 3);
            let (k3, k2) = horizontal(mines[0], mines[1], mines[2]);
            let revealed = &band.fixed.revealed[i - 1..i + 2];
            let safe = band.safe.words(i - 1, 3);
            let open = |t: usize| !(revealed[t] | safe[t]);
            let (x3, x2) = horizontal(open(0), open(1), open(2));
            [k3, k2, x3, x2]
        };
        // Row `q - 2`'s three-cell sums and row `q - 1`'s sums, for the rule at `q - 1`;
        // and the verdicts (safe and mine, dilated onto words `j - 1`, `j` and `j + 1`)
        // gathered so far for rows `q - 2` (from rows `q - 3` and `q - 2`) and `q - 1` (from
        // row `q - 2`), each moved along as `q` steps down.
        let (mut up, mut mid) = ([[0u64; 2]; 2], [[0u64; 2]; 4]);
        let (mut near, mut next) = ([[0u64; 3]; 2], [[0u64; 3]; 2]);
        for q in first - 2..last + 3 {
            let down = if q >= rule_first - 1 && q <= rule_last + 1 {
                sums(self, q)
            } else {
                [[0; 2]; 4]
            };
            let rb = q - 1;
            let mut verdicts = [[0u64; 3]; 2];
            if rb >= rule_first && rb <= rule_last && rb >= 1 && rb <= rows {
                let k = add3(up[0], mid[1], down[0]);
                let x = add3(up[1], mid[3], down[2]);
                let i = at(rb);
                let numbers = self.fixed.numbers;
                let n3 = if self.fixed.eights { numbers[3][i] } else { 0 };
                let n = [numbers[0][i], numbers[1][i], numbers[2][i], n3];
                let cells = self.fixed.revealed[i] & self.fixed.cell_masks[j];
                let bad = cells & (less(n, k) | less(x, n));
                if bad != 0 {
                    return Err(Bad(i * 64 + bad.trailing_zeros() as usize));
                }
                let dilate = |m: u64| [m << 63, m | m << 1 | m >> 1, m >> 63];
                verdicts = [dilate(cells & equal(n, k)), dilate(cells & equal(n, x))];
            }
            (up, mid) = ([mid[0], mid[2]], down);
            // Plain loops, not array maps: the compiler may leave a map's closure out of
            // line, a call for each of the run's rows.
            let or = |mut a: [[u64; 3]; 2], b: [[u64; 3]; 2]| {
                for (a, b) in a.iter_mut().zip(b) {
                    for (a, b) in a.iter_mut().zip(b) {
                        *a |= b;
                    }
                }
                a
            };
            // Row `q - 2` has every verdict that reaches it now.
            let ready = or(near, verdicts);
            (near, next) = (or(next, verdicts), verdicts);
            let rd = q - 2;
            if rd >= first && rd <= last {
                let base = at(rd) - 1;
                let revealed = &self.fixed.revealed[base..base + 3];
                let safe = self.safe.own_mut(base, 3);
                let mut proved = [(0u64, 0u64); 3];
                for t in 0..3 {
                    let undecided =
                        !(revealed[t] | safe[t] | self.mines.own[base + t - self.mines.start]);
                    let to_safe = ready[0][t] & undecided;
                    let to_mine = ready[1][t] & undecided;
                    let both = to_safe & to_mine;
                    proved[t] = (to_safe & !both, to_mine & !both);
                    safe[t] |= proved[t].0;
                }
                if proved.iter().any(|&(safe, mine)| safe | mine != 0) {
                    let mines = self.mines.own_mut(base, 3);
                    for (t, &(new_safe, new_mine)) in proved.iter().enumerate() {
                        let new = new_safe | new_mine;
                        if new != 0 {
                            mines[t] |= new_mine;
                            swept.found += new.count_ones() as usize;
                            swept.found_safe += new_safe.count_ones() as usize;
                            swept.marks.push((base + t, new));
                            if new_safe != 0 {
                                swept.safe_words.push(base + t);
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// One run of [`Band::sweep_any`]: padded rows `first..=last` of `span`, the rule read
    /// on rows `rule_first..=rule_last`. `M` is the span's [`Span::m`] when it is not 0 (and
    /// then its [`Span::n`] is `M - 2`), so that a compiled copy knows it.
    #[inline(always)]
    fn sweep_run<const M: usize>(
        &mut self,
        [first, last, rule_first, rule_last]: [isize; 4],
        span: Span,
        ring: &mut Ring,
        swept: &mut Swept,
    ) -> Result<(), Bad> {
        let rows = self.fixed.rows as isize;
        let (m, n) = widths::<M>(span);
        for q in first - 2..=last + 2 {
            // Only the rows the rule reads are summed; the others' slots are never read.
            if q >= rule_first - 1 && q <= rule_last + 1 {
                if (0..=rows + 1).contains(&q) {
                    self.sums_row::<M>(q as usize, span, ring);
                } else {
                    ring.sums[slot(q)].iter_mut().for_each(|v| v[..n].fill(0));
                }
            }
            let rb = q - 1;
            if rb >= rule_first && rb <= rule_last && (1..=rows).contains(&rb) {
                self.rule_row::<M>(rb as usize, span, ring)?;
            } else if rb >= first - 1 {
                // Rows above `first - 1` are never read: the rows applied read their own
                // verdicts and those of the rows beside them.
                ring.spread[slot(rb)]
                    .iter_mut()
                    .for_each(|v| v[..m].fill(0));
            }
            let rd = q - 2;
            if rd >= first && rd <= last {
                let (new, new_safe) = self.apply_row::<M>(rd as usize, span, ring, swept);
                swept.found += new;
                swept.found_safe += new_safe;
            }
        }
        Ok(())
    }

    /// Horizontal sums of padded row `q` for the proven mines and for the cells that may be
    /// mines (neither revealed nor proven safe), over the words `span` rules:
    /// each cell's left, centre and right neighbours (`three`), and left and right only
    /// (`two`), as two-bit slices.
    #[inline(always)]
    fn sums_row<const M: usize>(&self, q: usize, span: Span, ring: &mut Ring) {
        let (_, m) = widths::<M>(span);
        // The plane index of the word before the first summed word, and of the word after
        // the last: the words beside the row's own at its ends.
        let lo = q * self.fixed.wpr + span.j0;
        let hi = lo + m + 1;
        let revealed = self.fixed.revealed;
        // A strip's rows lie a row's width apart, too far for the hardware to see a
        // stream: ask for the words of a later row now, so that they have arrived when
        // their turn comes.
        let ahead = lo + PREFETCH_ROWS * self.fixed.wpr;
        for plane in [
            revealed,
            self.fixed.numbers[0],
            self.fixed.numbers[1],
            self.fixed.numbers[2],
        ] {
            prefetch(plane, ahead);
            prefetch(plane, ahead + m + 1);
        }
        for rows in [&self.safe, &self.mines] {
            prefetch(rows.own, ahead.wrapping_sub(rows.start));
            prefetch(rows.own, (ahead + m + 1).wrapping_sub(rows.start));
        }
        let Ring {
            sums, open, lined, ..
        } = ring;
        let open = &mut open[..m + 2];
        open[0] = !(revealed[lo] | self.safe.word(lo));
        for ((x, r), s) in open[1..=m]
            .iter_mut()
            .zip(&revealed[lo + 1..hi])
            .zip(self.safe.words(lo + 1, m))
        {
            *x = !(r | s);
        }
        open[m + 1] = !(revealed[hi] | self.safe.word(hi));
        // The mines of the row with a word on each side, in one piece for `row_sums`.
        let lined = &mut lined[..m + 2];
        lined[0] = self.mines.word(lo);
        lined[1..=m].copy_from_slice(self.mines.words(lo + 1, m));
        lined[m + 1] = self.mines.word(hi);
        let [k3lo, k3hi, k2lo, k2hi, x3lo, x3hi, x2lo, x2hi] = &mut sums[q % 3];
        row_sums(lined, m, [k3lo, k3hi, k2lo, k2hi]);
        row_sums(open, m, [x3lo, x3hi, x2lo, x2hi]);
    }

    /// The rule at each revealed cell of padded row `r` in the words `span` rules: `sat`
    /// marks numbers met by their proven mines, `full` numbers that need every cell that may
    /// still be a mine; both are then dilated along the row into the ring, over the words
    /// they reach (the span's own and the edge cells of the words beside them).
    #[inline(always)]
    fn rule_row<const M: usize>(&self, r: usize, span: Span, ring: &mut Ring) -> Result<(), Bad> {
        let (n, m) = widths::<M>(span);
        let base = r * self.fixed.wpr + 1 + span.j0;
        let Ring {
            sums,
            sat,
            full,
            spread,
            ..
        } = ring;
        // Every slice cut to the span's length, so the loop runs without bounds checks.
        let [up, mid, down] = [&sums[(r + 2) % 3], &sums[r % 3], &sums[(r + 1) % 3]];
        let (uk0, uk1, ux0, ux1) = (
            cut(&up[0], m),
            cut(&up[1], m),
            cut(&up[4], m),
            cut(&up[5], m),
        );
        let (mk0, mk1, mx0, mx1) = (
            cut(&mid[2], m),
            cut(&mid[3], m),
            cut(&mid[6], m),
            cut(&mid[7], m),
        );
        let (dk0, dk1, dx0, dx1) = (
            cut(&down[0], m),
            cut(&down[1], m),
            cut(&down[4], m),
            cut(&down[5], m),
        );
        let [n0, n1, n2, n3] = self.fixed.numbers.map(|n| &n[base..base + m]);
        // Without an 8 anywhere, the top bit plane is all zero and need not be read.
        let n3 = if self.fixed.eights {
            n3
        } else {
            &self.fixed.zeros[..m]
        };
        let shown = &self.fixed.revealed[base..base + m];
        let masks = &self.fixed.cell_masks[span.j0..span.j0 + m];
        // The verdicts go in with the words of the span beside the ruled ones, and a zero
        // word beyond those: `sat[i]` is word `ja - 1 + i`.
        let at = if M > 0 { 2 } else { span.j0 - span.ja + 1 };
        let (sat_row, full_row) = (&mut sat[at..at + m], &mut full[at..at + m]);
        let mut bad = 0;
        for j in 0..m {
            let k = add3([uk0[j], uk1[j]], [mk0[j], mk1[j]], [dk0[j], dk1[j]]);
            let x = add3([ux0[j], ux1[j]], [mx0[j], mx1[j]], [dx0[j], dx1[j]]);
            let n = [n0[j], n1[j], n2[j], n3[j]];
            let cells = shown[j] & masks[j];
            bad |= cells & (less(n, k) | less(x, n));
            sat_row[j] = cells & equal(n, k);
            full_row[j] = cells & equal(n, x);
        }
        if bad != 0 {
            return Err(self.first_bad(r, span, sums));
        }
        // The words beside the ruled ones rule nothing here: their own strips rule them
        // where a change may make them rule anew.
        // (One or two words at each end: single stores, where a fill would call memset.)
        for i in [0, at - 1, at + m, n + 1] {
            sat[i] = 0;
            full[i] = 0;
        }
        let [to_safe, to_mine] = &mut spread[r % 3];
        spread_row(&sat[..n + 2], n, to_safe);
        spread_row(&full[..n + 2], n, to_mine);
        Ok(())
    }

    /// The first revealed cell of padded row `r` that its neighbours contradict.
    #[cold]
    fn first_bad(&self, r: usize, span: Span, sums: &[[Vec<u64>; 8]]) -> Bad {
        let base = r * self.fixed.wpr + 1 + span.j0;
        let [up, mid, down] = [&sums[(r + 2) % 3], &sums[r % 3], &sums[(r + 1) % 3]];
        for j in 0..span.n() {
            let k = add3(
                [up[0][j], up[1][j]],
                [mid[2][j], mid[3][j]],
                [down[0][j], down[1][j]],
            );
            let x = add3(
                [up[4][j], up[5][j]],
                [mid[6][j], mid[7][j]],
                [down[4][j], down[5][j]],
            );
            let n = self.fixed.numbers.map(|n| n[base + j]);
            let bad = self.fixed.revealed[base + j]
                & self.fixed.cell_masks[span.j0 + j]
                & (less(n, k) | less(x, n));
            if bad != 0 {
                return Bad((base + j) * 64 + bad.trailing_zeros() as usize);
            }
        }
        Bad(base * 64)
    }

    /// Proves the undecided cells of padded row `r` that the dilated verdicts of rows
    /// `r - 1`, `r` and `r + 1` reach; returns how many, and how many of them are safe.
    #[inline(always)]
    fn apply_row<const M: usize>(
        &mut self,
        r: usize,
        span: Span,
        ring: &Ring,
        swept: &mut Swept,
    ) -> (usize, usize) {
        let (n, _) = widths::<M>(span);
        let base = r * self.fixed.wpr + 1 + span.ja;
        let [a, b, c] = [
            &ring.spread[(r + 2) % 3],
            &ring.spread[r % 3],
            &ring.spread[(r + 1) % 3],
        ];
        let (a0, a1, b0, b1, c0, c1) = (
            cut(&a[0], n),
            cut(&a[1], n),
            cut(&b[0], n),
            cut(&b[1], n),
            cut(&c[0], n),
            cut(&c[1], n),
        );
        let revealed = &self.fixed.revealed[base..base + n];
        let safe = self.safe.own_mut(base, n);
        let mines = self.mines.own_mut(base, n);
        let (mut found, mut found_safe) = (0, 0);
        for j in 0..n {
            let undecided = !(revealed[j] | safe[j] | mines[j]);
            let to_safe = (a0[j] | b0[j] | c0[j]) & undecided;
            let to_mine = (a1[j] | b1[j] | c1[j]) & undecided;
            // A cell forced both ways is left undecided; the consistency check of the next
            // sweep, or the exact tier, reports the number that cannot be met.
            let both = to_safe & to_mine;
            let new = (to_safe | to_mine) & !both;
            // Most words prove nothing: leave their cache lines clean.
            if new != 0 {
                let new_safe = to_safe & !both;
                safe[j] |= new_safe;
                mines[j] |= to_mine & !both;
                found += new.count_ones() as usize;
                found_safe += new_safe.count_ones() as usize;
                swept.marks.push((base + j, new));
                if new_safe != 0 {
                    swept.safe_words.push(base + j);
                }
            }
        }
        (found, found_safe)
    }
}

/// A strip of [`STRIP`] words across the board (fewer at the right edge): the words
/// `j0..j1` of each row a run of the sweep rules, and the words `ja..jb` (one more on each
/// side, within the row) its verdicts reach, which it proves.
#[derive(Clone, Copy)]
struct Span {
    j0: usize,
    j1: usize,
    ja: usize,
    jb: usize,
}

impl Span {
    /// The span of `strips` strips from strip `strip`, in rows of `wpr` words.
    #[inline(always)]
    fn of(strip: usize, strips: usize, wpr: usize) -> Span {
        let j0 = strip * STRIP;
        let j1 = (j0 + strips * STRIP).min(wpr);
        Span {
            j0,
            j1,
            ja: j0.saturating_sub(1),
            jb: (j1 + 1).min(wpr),
        }
    }

    /// Words the strip rules.
    #[inline(always)]
    fn n(self) -> usize {
        self.j1 - self.j0
    }

    /// Words its verdicts reach.
    #[inline(always)]
    fn m(self) -> usize {
        self.jb - self.ja
    }
}

/// The span's [`Span::m`] and [`Span::n`]: `M` and `M - 2` when `M` is not 0, as the
/// caller of a sweep's row stages checked.
#[inline(always)]
fn widths<const M: usize>(span: Span) -> (usize, usize) {
    if M > 0 {
        debug_assert!(span.m() == M && span.n() == M - 2);
        (M, M - 2)
    } else {
        (span.m(), span.n())
    }
}

#[cfg(test)]
thread_local! {
    /// Whether the sweep takes its row stages for every run, never [`Band::sweep_word`]: a
    /// test sets it to hold the two to the same proofs.
    static PLAIN_RUNS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether runs one word wide take the row stages (in tests that ask for it) rather than
/// [`Band::sweep_word`].
#[inline(always)]
fn plain_runs() -> bool {
    #[cfg(test)]
    return PLAIN_RUNS.with(std::cell::Cell::get);
    #[cfg(not(test))]
    false
}

/// Entries ahead of the one being read whose words [`Planes::update_near`] asks for.
const UPDATE_AHEAD: usize = 8;

/// Rows ahead of the one being summed whose words [`Band::sums_row`] asks for.
const PREFETCH_ROWS: usize = 4;

/// Asks the processor to bring word `i` of `plane` into the cache, if `plane` has it.
#[inline(always)]
fn prefetch(plane: &[u64], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(word) = plane.get(i) {
        // SAFETY: a prefetch only hints at an address, and this one is of a live word.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                std::ptr::from_ref(word).cast(),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (plane, i);
}

/// A run of the sweep: padded rows `first..=last` of `strips` strips side by side from
/// strip `strip`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    strip: usize,
    strips: usize,
    first: usize,
    last: usize,
    /// The rows where the rule is read, `first - 1..=last + 1` less the rows at either end
    /// that no change since the last sweep reaches.
    rule_first: usize,
    rule_last: usize,
}

/// Row buffers of the sweep, three rows deep (row `q` in slot `q % 3`).
#[derive(Clone, Default)]
pub(crate) struct Ring {
    /// Per slot: three-cell and two-cell horizontal sums (low and high bit) of the proven
    /// mines, then of the cells that may be mines.
    /// Three slots on a board of more than one word a row; none on a board of one, which
    /// sweeps in registers (so that its planes, moved whole from the solver to its answer,
    /// are small).
    sums: Vec<[Vec<u64>; 8]>,
    /// Per slot: the row's `sat` and `full` verdicts dilated along the row.
    spread: Vec<[Vec<u64>; 2]>,
    /// The cells that may be mines in the row being summed, with a word on each side.
    open: Vec<u64>,
    /// The proven mines of the row being summed, with a word on each side.
    lined: Vec<u64>,
    /// The current row's verdicts, with a zero word on each side.
    sat: Vec<u64>,
    full: Vec<u64>,
    /// A buffer of words lent to each sweep for its marks (and to each update for the
    /// words it changed), so that neither allocates one.
    marks: Vec<(usize, u64)>,
    /// A buffer lent to each sweep for the words where it proves a cell safe.
    safe_words: Vec<usize>,
    /// A buffer for the runs a sweep of the whole board works on.
    runs: Vec<Run>,
    /// Buffers of [`sort_rows`]: the count of words of each row, and the words in order.
    counts: Vec<usize>,
    order: Vec<usize>,
}

thread_local! {
    /// Rings of planes dropped on this thread, kept for the next planes of the same width:
    /// a player builds a fresh solver at every guess, and a ring is 34 row buffers.
    static SPARE_RINGS: std::cell::RefCell<Vec<Ring>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The most rings [`SPARE_RINGS`] keeps on a thread.
const SPARE_RINGS_KEPT: usize = 4;

/// The vectors of a dropped [`Planes`] (seven planes, the cell masks, the row of zeros and
/// the two sets of row marks), kept on its thread for the next planes: a solve of a small
/// board costs little more than these allocations otherwise.
struct SparePlanes;

thread_local! {
    /// Vectors of planes dropped on this thread, one set at most.
    static SPARE_PLANES: std::cell::RefCell<Vec<Vec<u64>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The largest planes, in words each, whose vectors [`SPARE_PLANES`] keeps (256 KiB in all).
const SPARE_PLANE_WORDS: usize = 1 << 12;

impl SparePlanes {
    /// This thread's kept vectors, if planes of `words` words may use them: popped one by
    /// one, each cleared by its taker.
    fn take(words: usize) -> Vec<Vec<u64>> {
        if words > SPARE_PLANE_WORDS {
            return Vec::new();
        }
        SPARE_PLANES
            .try_with(|kept| {
                kept.try_borrow_mut()
                    .map(|mut kept| std::mem::take(&mut *kept))
            })
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default()
    }

    /// Gives back the list [`SparePlanes::take`] returned, emptied, so that the next planes
    /// dropped on this thread are kept in it without allocating one.
    fn put_back(mut list: Vec<Vec<u64>>) {
        list.clear();
        let _ = SPARE_PLANES.try_with(|kept| {
            if let Ok(mut kept) = kept.try_borrow_mut()
                && kept.is_empty()
                && kept.capacity() < list.capacity()
            {
                *kept = list;
            }
        });
    }

    /// Keeps the vectors of `planes` on this thread, if they are small enough and no set is
    /// kept yet.
    fn keep(planes: &mut Planes) {
        if planes.revealed.capacity() > SPARE_PLANE_WORDS + 2 || planes.revealed.is_empty() {
            return;
        }
        // A thread being torn down has no pool: the vectors are then simply freed.
        let _ = SPARE_PLANES.try_with(|kept| {
            let Ok(mut kept) = kept.try_borrow_mut() else {
                return;
            };
            if !kept.is_empty() {
                return;
            }
            // In the reverse of the order `Planes::new` pops them.
            kept.push(std::mem::take(&mut planes.spare.bits));
            kept.push(std::mem::take(&mut planes.dirty.bits));
            kept.push(std::mem::take(&mut planes.zeros));
            kept.push(std::mem::take(&mut planes.cell_masks));
            kept.push(std::mem::take(&mut planes.safe));
            kept.push(std::mem::take(&mut planes.mines));
            for plane in planes.numbers.iter_mut().rev() {
                kept.push(std::mem::take(plane));
            }
            kept.push(std::mem::take(&mut planes.revealed));
        });
    }
}

impl Drop for Planes {
    fn drop(&mut self) {
        SparePlanes::keep(self);
        if self.ring.open.is_empty() {
            return; // an empty ring: nothing worth keeping
        }
        let ring = std::mem::take(&mut self.ring);
        // A thread being torn down has no pool: the ring is then simply freed.
        let _ = SPARE_RINGS.try_with(|spare| {
            if let Ok(mut spare) = spare.try_borrow_mut()
                && spare.len() < SPARE_RINGS_KEPT
            {
                spare.push(ring);
            }
        });
    }
}

impl Ring {
    /// Zeroed row buffers for rows of `wpr` words: a spare ring of that width if this
    /// thread has one, else a new one.
    pub(crate) fn new(wpr: usize) -> Ring {
        let spare = SPARE_RINGS
            .try_with(|spare| {
                let mut spare = spare.try_borrow_mut().ok()?;
                let at = spare.iter().position(|ring| ring.open.len() == wpr + 2)?;
                Some(spare.swap_remove(at))
            })
            .ok()
            .flatten();
        if let Some(mut ring) = spare {
            ring.sums.iter_mut().flatten().for_each(|v| v.fill(0));
            ring.spread.iter_mut().flatten().for_each(|v| v.fill(0));
            for v in [
                &mut ring.open,
                &mut ring.lined,
                &mut ring.sat,
                &mut ring.full,
            ] {
                v.fill(0);
            }
            return ring;
        }
        let row = || vec![0; wpr];
        Ring {
            sums: (0..3).map(|_| std::array::from_fn(|_| row())).collect(),
            spread: (0..3).map(|_| [row(), row()]).collect(),
            open: vec![0; wpr + 2],
            lined: vec![0; wpr + 2],
            sat: vec![0; wpr + 2],
            full: vec![0; wpr + 2],
            marks: Vec::new(),
            safe_words: Vec::new(),
            runs: Vec::new(),
            counts: Vec::new(),
            order: Vec::new(),
        }
    }

    fn heap_bytes(&self) -> usize {
        8 * (self.sums.iter().flatten().map(Vec::len).sum::<usize>()
            + self.spread.iter().flatten().map(Vec::len).sum::<usize>()
            + self.open.len()
            + self.lined.len()
            + self.sat.len()
            + self.full.len()
            + 2 * self.marks.capacity()
            + self.safe_words.capacity()
            + 3 * self.runs.capacity()
            + self.counts.capacity()
            + self.order.capacity())
    }
}

/// The most entries a list a band's ring keeps from one sweep to the next may hold room
/// for: the first sweep of a board marks every word, and its lists need not stay.
const KEPT_LIST: usize = 1 << 12;

/// `list`, emptied, if it holds room for at most [`KEPT_LIST`] entries, else a new list.
fn kept_list<T>(mut list: Vec<T>) -> Vec<T> {
    if list.capacity() > KEPT_LIST {
        return Vec::new();
    }
    list.clear();
    list
}

/// Puts `words` in increasing order, each once. A list already in that order (as a sweep
/// leaves it, with the update that follows a reveal) is only checked.
fn sort_words(words: &mut Vec<usize>) {
    if !words.is_sorted_by(|a, b| a < b) {
        words.sort_unstable();
        words.dedup();
    }
}

/// Lists shorter than this are sorted by [`sort_words`] alone in [`sort_rows`].
const SORT_ROWS_MIN: usize = 32;

/// [`sort_words`] for the words a sweep lists, plane words of the padded rows `rows` in rows
/// of `wpr` words: run by run, so that the words of each row come in increasing order but a
/// later run's rows may lie above an earlier run's. A count of the words of each row puts
/// them in order in one pass; a list that does not then come out in order, with no word
/// twice, is sorted whole, so the result is [`sort_words`]'s whatever the list.
fn sort_rows(
    words: &mut Vec<usize>,
    wpr: usize,
    rows: std::ops::RangeInclusive<usize>,
    counts: &mut Vec<usize>,
    order: &mut Vec<usize>,
) {
    let (top, bottom) = (*rows.start(), *rows.end());
    if words.len() < SORT_ROWS_MIN || wpr == 0 || bottom < top {
        sort_words(words);
        return;
    }
    let row = |w: usize| w.wrapping_sub(1) / wpr;
    counts.clear();
    counts.resize(bottom - top + 2, 0);
    for &w in words.iter() {
        let r = row(w);
        if r < top || r > bottom {
            sort_words(words);
            return;
        }
        counts[r - top + 1] += 1;
    }
    // Each row's first place in the sorted list.
    for r in 1..counts.len() {
        counts[r] += counts[r - 1];
    }
    order.clear();
    order.resize(words.len(), 0);
    for &w in words.iter() {
        let at = &mut counts[row(w) - top];
        order[*at] = w;
        *at += 1;
    }
    std::mem::swap(words, order);
    if words.is_sorted_by(|a, b| a < b) {
        return;
    }
    // A run proves cells in the words beside its strip too, so a row's words may come out
    // of order where two runs meet: an insertion sort puts the few out of place back.
    for i in 1..words.len() {
        let mut k = i;
        while k > 0 && words[k - 1] > words[k] {
            words.swap(k - 1, k);
            k -= 1;
        }
    }
    words.dedup();
}

/// The first `n` words of a row buffer.
#[inline(always)]
fn cut(v: &[u64], n: usize) -> &[u64] {
    &v[..n]
}

/// The ring slot of row `q` (which may be -1 or -2 at the top of the board).
fn slot(q: isize) -> usize {
    q.rem_euclid(3) as usize
}

/// Horizontal sums of one row given with a word on each side (`wpr + 2` words): for each
/// cell, its left, centre and right bits (`three`) and its left and right bits (`two`),
/// each as a low and a high slice.
#[inline(always)]
fn row_sums(words: &[u64], wpr: usize, [three_lo, three_hi, two_lo, two_hi]: [&mut Vec<u64>; 4]) {
    let (before, centre, after) = (&words[..wpr], &words[1..=wpr], &words[2..wpr + 2]);
    let (three_lo, three_hi) = (&mut three_lo[..wpr], &mut three_hi[..wpr]);
    let (two_lo, two_hi) = (&mut two_lo[..wpr], &mut two_hi[..wpr]);
    for j in 0..wpr {
        let c = centre[j];
        let l = c << 1 | before[j] >> 63;
        let r = c >> 1 | after[j] << 63;
        let (x, a) = (l ^ r, l & r);
        two_lo[j] = x;
        two_hi[j] = a;
        three_lo[j] = x ^ c;
        three_hi[j] = a | (c & x);
    }
}

/// A row given with a zero word on each side, dilated by one cell left and right.
#[inline(always)]
fn spread_row(words: &[u64], wpr: usize, out: &mut [u64]) {
    let (before, centre, after) = (&words[..wpr], &words[1..=wpr], &words[2..wpr + 2]);
    let out = &mut out[..wpr];
    for j in 0..wpr {
        let m = centre[j];
        out[j] = m | m << 1 | m >> 1 | before[j] >> 63 | after[j] << 63;
    }
}

/// The sum of two three-cell sums (at most 3) and a two-cell sum (at most 2), as a
/// bit-sliced number up to 8.
#[inline(always)]
fn add3(a: [u64; 2], b: [u64; 2], c: [u64; 2]) -> [u64; 4] {
    let full = |x: u64, y: u64, z: u64| (x ^ y ^ z, (x & y) | (z & (x ^ y)));
    let (s0, k1) = full(a[0], b[0], c[0]);
    let (t, k2) = full(a[1], b[1], c[1]);
    let (s1, k3) = (t ^ k1, t & k1);
    [s0, s1, k2 ^ k3, k2 & k3]
}

/// The indices of the set bits of a plane, in increasing order.
fn set_bits(plane: &[u64]) -> impl Iterator<Item = usize> + '_ {
    plane.iter().enumerate().flat_map(|(w, &word)| {
        let mut bits = word;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                w * 64 + b
            })
        })
    })
}

/// Lanes where the bit-sliced number `a` equals `b`.
#[inline(always)]
fn equal(a: [u64; 4], b: [u64; 4]) -> u64 {
    !((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]))
}

/// Lanes where the bit-sliced number `a` is less than `b` (the borrow out of `a - b`).
#[inline(always)]
fn less(a: [u64; 4], b: [u64; 4]) -> u64 {
    let step = |i: usize, borrow: u64| (!a[i] & b[i]) | (!(a[i] ^ b[i]) & borrow);
    step(3, step(2, step(1, step(0, 0))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitmines_core::{Board, Game, Position, SeededPlacer, Status};

    /// A position's numbers, copied from its planes a row at a time, are those a game's
    /// view gives word by word (`View::number_words`), on boards across word edges and of
    /// one cell a row or column, as play goes on.
    #[test]
    fn position_numbers_match_the_games_words() {
        let shapes = [
            (1, 9),
            (9, 1),
            (16, 30),
            (7, 62),
            (7, 63),
            (8, 64),
            (9, 65),
            (5, 130),
        ];
        for (seed, &shape) in (1..).zip(&shapes) {
            crate::frontier::tests::after_each_reveal(seed, shape, 4, |game, cell| {
                let from_game = Planes::new(&game.view()).expect("planes");
                let position = Position::of(&game.view()).expect("a position");
                let from_position = Planes::new(&position.view()).expect("planes");
                assert_eq!(
                    from_position.numbers, from_game.numbers,
                    "{shape:?} after {cell:?}"
                );
                assert_eq!(from_position.revealed, from_game.revealed);
                assert_eq!(from_position.eights, from_game.eights);
            });
        }
    }

    /// A number that the proven mines around it exceed is reported in bands as on the
    /// whole board.
    #[test]
    fn bands_report_a_contradiction_as_the_whole_board_does() {
        let (rows, cols) = (3 * BAND, 130);
        let board = SeededPlacer::new(9)
            .board(rows, cols, rows * cols * 15 / 100)
            .expect("a valid board");
        let mut game = Game::new(board);
        let mut cell = (BAND + BAND / 2, 0);
        // Reveal safe cells along the middle band's middle row until one shows a number
        // with more undecided neighbours than it needs.
        let mut planes = loop {
            assert!(cell.1 < cols, "no number to contradict");
            if game
                .board()
                .is_some_and(|b| b.is_mine(cell.0, cell.1) == Ok(false))
            {
                game.reveal(cell.0, cell.1).expect("a safe cell");
            }
            let planes = Planes::new(&game.view()).expect("planes");
            let index = planes.index(cell.0, cell.1);
            let open = around(&planes, index)
                .filter(|&n| planes.is_unknown(n))
                .count();
            let number = usize::from(planes.number(index));
            if Planes::get(&planes.revealed, index) && number > 0 && open > number {
                break planes;
            }
            cell.1 += 1;
        };
        let index = planes.index(cell.0, cell.1);
        let number = usize::from(planes.number(index));
        let open: Vec<usize> = around(&planes, index)
            .filter(|&n| planes.is_unknown(n))
            .collect();
        for &n in &open[..=number] {
            planes.prove(n, true);
        }
        let mut banded = planes.clone();
        let whole = loop {
            match planes.sweep_in(false) {
                Ok(0) => panic!("the contradiction at {cell:?} went unseen"),
                Ok(_) => {}
                Err(Bad(at)) => break at,
            }
        };
        let bands = loop {
            match banded.sweep_in(true) {
                Ok(0) => panic!("the contradiction at {cell:?} went unseen in bands"),
                Ok(_) => {}
                Err(Bad(at)) => break at,
            }
        };
        assert_eq!(whole, bands);
    }

    /// The plane indices of the eight neighbours of a board cell's plane index.
    fn around(planes: &Planes, index: usize) -> impl Iterator<Item = usize> + '_ {
        let stride = planes.geometry.words_per_row() * 64;
        crate::frontier::neighbours(index, stride)
            .into_iter()
            .filter(|&n| planes.is_cell(n))
    }

    /// A game on a seeded board of `rows` x `cols` at `density`, with the first safe cell of
    /// every `every`th row revealed.
    fn game_opened_every(rows: usize, cols: usize, density: f64, seed: u64, every: usize) -> Game {
        let mines = (rows as f64 * cols as f64 * density).round() as usize;
        let board: Board = SeededPlacer::new(seed)
            .board(rows, cols, mines)
            .expect("a valid board");
        let starts: Vec<(usize, usize)> = (0..rows)
            .step_by(every)
            .filter_map(|row| {
                let col = (0..cols).find(|&c| board.is_mine(row, c) == Ok(false))?;
                Some((row, col))
            })
            .collect();
        let mut game = Game::new(board);
        for (row, col) in starts {
            game.reveal(row, col).expect("a safe cell");
        }
        game
    }

    /// The sweep and update in bands give the sweep of the whole board's fixed points,
    /// move after move: the trivial rule has one fixed point, whatever order it runs in.
    #[test]
    fn bands_agree_with_the_whole_board() {
        for (rows, cols, density, seed) in [
            (2 * BAND + 5, 130, 0.12, 1),
            (3 * BAND, 64, 0.15, 2),
            (4 * BAND + 1, 191, 0.18, 3),
        ] {
            // A safe cell in every eleventh row, so that every band has work from the start.
            let mut game = game_opened_every(rows, cols, density, seed, 11);
            let mut whole = Planes::new(&game.view()).expect("planes");
            let mut banded = whole.clone();
            let (mut moves, mut numbers) = (0, 0);
            while game.status() == Status::Playing {
                let fixed = |planes: &mut Planes, bands: bool| {
                    let mut total = 0;
                    loop {
                        match planes.sweep_in(bands) {
                            Ok(0) => return total,
                            Ok(found) => total += found,
                            Err(Bad(at)) => panic!("a sound position contradicted at {at}"),
                        }
                    }
                };
                assert_eq!(fixed(&mut whole, false), fixed(&mut banded, true));
                assert!(
                    whole.mines == banded.mines,
                    "{rows}x{cols}: proven mines differ"
                );
                assert!(
                    whole.safe == banded.safe,
                    "{rows}x{cols}: proven safe cells differ"
                );
                assert_eq!(whole.safe_count, banded.safe_count);
                let constraints = crate::frontier::constraints_in(&whole, false);
                assert_eq!(constraints, crate::frontier::constraints_in(&whole, true));
                numbers += constraints.len();
                let safe = whole.safe[1..whole.safe.len() - 1].to_vec();
                if game.reveal_cells(&safe).expect("proven safe").opened == 0 {
                    break;
                }
                if game.status() == Status::Playing {
                    let view = game.view();
                    let changed = whole.update_in(&view, false).expect("a later view");
                    assert_eq!(
                        changed,
                        banded.update_in(&view, true).expect("a later view")
                    );
                    assert!(whole.revealed == banded.revealed && whole.numbers == banded.numbers);
                    assert!(whole.dirty == banded.dirty && whole.safe == banded.safe);
                    assert_eq!(whole.safe_count, banded.safe_count);
                }
                moves += 1;
            }
            assert!(moves > 3, "{rows}x{cols}: only {moves} moves");
            assert!(numbers > 0, "{rows}x{cols}: no frontier numbers to compare");
        }
    }

    /// A play that drives one band after another to its own fixed point, revealing what
    /// each band's sweep proves and reading back only the words near it, stops where a play
    /// by whole sweeps stops (its twin), stall after stall: the same revealed cells and the
    /// same proven mines and safe cells. Between stalls both games reveal the same safe cell
    /// of the truth.
    #[test]
    fn bands_driven_one_by_one_stop_where_whole_sweeps_stop() {
        for (rows, cols, density, seed) in [
            (2 * BAND + 5, 130, 0.12, 4),
            (3 * BAND, 64, 0.15, 5),
            (4 * BAND + 1, 191, 0.18, 6),
            (3 * BAND + 7, 129, 0.20, 7),
        ] {
            let mut whole_game = game_opened_every(rows, cols, density, seed, 37);
            let mut band_game = whole_game.clone();
            let mut whole = Planes::new(&whole_game.view()).expect("planes");
            let mut bands = whole.clone();
            // Bands as the sweep in bands cuts them, and as a play drives them.
            let tops = if seed % 2 == 0 {
                bands.tops(true)
            } else {
                (0..rows / DRIVE_BAND)
                    .map(|k| 1 + k * DRIVE_BAND)
                    .chain([rows + 1])
                    .collect()
            };
            let truth = whole_game.board().expect("a board").clone();
            let (mut stalls, mut band_moves, mut whole_moves) = (0, 0, 0);
            while whole_game.status() == Status::Playing && stalls < 6 {
                // The twin: whole sweeps, each reveal as soon as a sweep proves a safe cell.
                loop {
                    let found = whole.sweep_in(false).map_err(|Bad(at)| at).expect("sound");
                    if whole.safe_count > 0 {
                        let safe = whole.safe[1..whole.safe.len() - 1].to_vec();
                        whole_game.reveal_cells(&safe).expect("proven safe");
                        whole_moves += 1;
                        if whole_game.status() != Status::Playing {
                            break;
                        }
                        whole.update_in(&whole_game.view(), false).expect("later");
                    } else if found == 0 {
                        break;
                    }
                }
                // Band by band, down and up, until no band has marks.
                let mut down = true;
                while bands.dirty.any_rows(1, rows) && band_game.status() == Status::Playing {
                    for i in 0..tops.len() - 1 {
                        let k = if down { i } else { tops.len() - 2 - i };
                        loop {
                            let found = bands
                                .sweep_rows(tops[k], tops[k + 1] - 1)
                                .map_err(|Bad(at)| at)
                                .expect("sound");
                            if bands.safe_count > 0 {
                                band_game
                                    .reveal_words(&bands.safe_words())
                                    .expect("proven safe");
                                band_moves += 1;
                                if band_game.status() != Status::Playing {
                                    break;
                                }
                                bands.update_words(&band_game.view()).expect("later");
                            } else if found == 0 {
                                break;
                            }
                        }
                    }
                    down = !down;
                }
                assert_eq!(whole_game.status(), band_game.status());
                assert!(
                    whole_game.view().revealed_words() == band_game.view().revealed_words(),
                    "{rows}x{cols}: revealed cells differ at stall {stalls}"
                );
                if whole_game.status() != Status::Playing {
                    break;
                }
                assert!(
                    whole.mines == bands.mines,
                    "{rows}x{cols}: proven mines differ"
                );
                assert!(whole.safe == bands.safe && whole.safe_count == bands.safe_count);
                // Past the stall: the first hidden safe cell of the truth from the middle row.
                let next = (rows / 2 * cols..rows * cols)
                    .chain(0..rows / 2 * cols)
                    .map(|i| (i / cols, i % cols))
                    .find(|&(r, c)| {
                        truth.is_mine(r, c) == Ok(false)
                            && whole_game.cell(r, c) == Ok(bitmines_core::Cell::Hidden)
                    })
                    .expect("a hidden safe cell while in play");
                whole_game.reveal(next.0, next.1).expect("safe");
                band_game.reveal(next.0, next.1).expect("safe");
                whole.update_in(&whole_game.view(), false).expect("later");
                bands.update_in(&band_game.view(), false).expect("later");
                stalls += 1;
            }
            assert!(stalls > 0, "{rows}x{cols}: no stall passed");
            assert!(
                whole_moves > 3 && band_moves > 3,
                "{rows}x{cols}: too few moves"
            );
        }
    }

    /// Clearing and looking for marks by rows agrees with the marks set row by row.
    #[test]
    fn marks_cleared_by_rows_match_rows_cleared_one_by_one() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        for _ in 0..200 {
            let (rows, strips) = (1 + next(300), 1 + next(4));
            let mut dirty = Dirty {
                per: 0,
                bits: Vec::new(),
            };
            dirty.reset(rows, strips);
            let mut naive = vec![vec![false; rows]; strips];
            for _ in 0..next(3 * rows) {
                let (strip, row) = (next(strips), next(rows));
                dirty.set(strip, row);
                naive[strip][row] = true;
            }
            let (a, b) = (next(rows), next(rows));
            let (lo, hi) = (a.min(b), a.max(b));
            let any = naive.iter().any(|strip| strip[lo..=hi].contains(&true));
            assert_eq!(dirty.any_rows(lo, hi), any);
            dirty.clear_rows(lo, hi);
            for strip in &mut naive {
                strip[lo..=hi].fill(false);
            }
            for (s, strip) in naive.iter().enumerate() {
                let kept: Vec<usize> = dirty
                    .runs(s, 0, rows - 1)
                    .flat_map(|(f, l)| f..=l)
                    .collect();
                let want: Vec<usize> = (0..rows).filter(|&r| strip[r]).collect();
                assert_eq!(kept, want, "rows {lo}..={hi} of {rows}, strip {s}");
            }
            assert!(!dirty.any_rows(lo, hi));
        }
    }

    /// Runs one word wide swept in registers prove what the row stages prove, sweep by
    /// sweep, marks and listed safe words included, on boards of widths at and around
    /// word edges.
    #[test]
    fn words_swept_in_registers_match_the_row_stages() {
        let plain = |on: bool| PLAIN_RUNS.with(|flag| flag.set(on));
        for (rows, cols, density, seed) in [
            (40, 129, 0.15, 4),
            (70, 190, 0.17, 5),
            (33, 65, 0.12, 6),
            (90, 256, 0.2, 7),
        ] {
            let mut game = game_opened_every(rows, cols, density, seed, 7);
            let mut fast = Planes::new(&game.view()).expect("planes");
            let mut rows_staged = fast.clone();
            let mut sweeps = 0;
            while game.status() == Status::Playing {
                loop {
                    plain(false);
                    let found = fast.sweep_in(false).map_err(|Bad(at)| at);
                    plain(true);
                    let staged = rows_staged.sweep_in(false).map_err(|Bad(at)| at);
                    plain(false);
                    assert_eq!(found, staged, "{rows}x{cols}: sweep {sweeps}");
                    assert!(fast.mines == rows_staged.mines && fast.safe == rows_staged.safe);
                    assert!(fast.dirty == rows_staged.dirty);
                    assert_eq!(fast.safe_count, rows_staged.safe_count);
                    assert_eq!(fast.safe_words(), rows_staged.safe_words());
                    sweeps += 1;
                    if found != Ok(0) {
                        continue;
                    }
                    break;
                }
                let safe = fast.safe[1..fast.safe.len() - 1].to_vec();
                if game.reveal_cells(&safe).expect("proven safe").opened == 0 {
                    break;
                }
                if game.status() == Status::Playing {
                    let view = game.view();
                    fast.update_in(&view, false).expect("a later view");
                    rows_staged.update_in(&view, false).expect("a later view");
                }
            }
            assert!(sweeps > 10, "{rows}x{cols}: only {sweeps} sweeps");
        }
    }

    /// The runs of marked rows, found a word at a time, are those a row-by-row walk finds,
    /// at word edges and bounds of every kind.
    #[test]
    fn runs_of_marked_rows_match_a_row_by_row_walk() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for rows in [1, 2, 63, 64, 65, 127, 128, 129, 300] {
            for density in [0, 1, 8, 32, 60, 64] {
                let mut dirty = Dirty::default();
                dirty.reset(rows + 2, 3);
                let mut naive = vec![vec![false; rows + 2]; 3];
                for (strip, marks) in naive.iter_mut().enumerate() {
                    for row in 1..=rows {
                        // Runs of every length: a mark repeats the last one half the time.
                        let mark = if row > 1 && next() % 2 == 0 {
                            marks[row - 1]
                        } else {
                            next() % 64 < density
                        };
                        if mark {
                            dirty.set(strip, row);
                            marks[row] = true;
                        }
                    }
                }
                for (lo, hi) in [(1, rows), (2, rows), (1, rows / 2), (rows / 3 + 1, rows)] {
                    if lo > hi {
                        continue;
                    }
                    for (strip, marks) in naive.iter().enumerate() {
                        let mut want = Vec::new();
                        let mut r = lo;
                        while r <= hi {
                            if marks[r] {
                                let start = r;
                                while r <= hi && marks[r] {
                                    r += 1;
                                }
                                want.push((start, r - 1));
                            } else {
                                r += 1;
                            }
                        }
                        let got: Vec<_> = dirty.runs(strip, lo, hi).collect();
                        assert_eq!(got, want, "{rows} rows, strip {strip}, {lo}..={hi}");
                    }
                }
            }
        }
    }

    /// Reading back only the words around the cells a reveal of the safe words opened
    /// takes in exactly what reading the whole view does, marks for the next sweep
    /// included, move after move, on boards of one word a row and of many strips.
    #[test]
    fn an_update_near_the_reveals_matches_a_whole_update() {
        for (rows, cols, density, seed) in [
            (40, 1100, 0.12, 1),
            (90, 300, 0.15, 2),
            (60, 40, 0.10, 5),
            (300, 129, 0.12, 4),
            // Banded: read in pieces, on the pool where a round is long.
            (520, 1100, 0.15, 6),
        ] {
            let start = (rows / 2, cols / 2);
            let zone = bitmines_core::FirstClick::Opening
                .zone(rows, cols, start.0, start.1)
                .expect("on the board");
            let mines = (rows as f64 * cols as f64 * density).round() as usize;
            let board = bitmines_core::Placer::place(
                &SeededPlacer::new(seed),
                &bitmines_core::Placement::new(rows, cols, mines, zone),
            )
            .expect("a valid placement");
            let mut game = Game::new(board);
            game.reveal(start.0, start.1).expect("a safe cell");
            let mut near = Planes::new(&game.view()).expect("planes");
            let mut moves = 0;
            while game.status() == Status::Playing {
                while near
                    .sweep_in(false)
                    .unwrap_or_else(|Bad(at)| panic!("unsound at {at}"))
                    > 0
                {}
                let words = near.safe_words();
                if words.is_empty() {
                    break;
                }
                let mut whole = near.clone();
                game.reveal_words(&words).expect("proven safe");
                if game.status() != Status::Playing {
                    break;
                }
                let view = game.view();
                assert_eq!(
                    near.update_words(&view).expect("a later view"),
                    whole.update_in(&view, false).expect("a later view")
                );
                assert!(near.revealed == whole.revealed && near.numbers == whole.numbers);
                assert!(near.safe == whole.safe && near.dirty == whole.dirty);
                assert_eq!(near.safe_count, whole.safe_count);
                moves += 1;
            }
            assert!(moves > 3, "{rows}x{cols}: only {moves} moves");
        }
    }

    /// On boards of one word a row and at most 62 rows, the update in registers takes in
    /// what its twin through `Fresh` does (planes, counts, marks and the words changed),
    /// move after move, and refuses an earlier view with the same error; and a word's marks
    /// set a row at a time are the rows within two of it, as the strips' marks are.
    #[test]
    fn the_one_word_update_matches_its_twin() {
        let mut refused = 0;
        for (seed, (rows, cols)) in (1..).zip([
            (1, 9),
            (2, 5),
            (9, 1),
            (16, 30),
            (61, 62),
            (62, 62),
            (40, 17),
        ]) {
            let board: Board = SeededPlacer::new(seed)
                .board(rows, cols, rows * cols / 6)
                .expect("a valid board");
            let planes = Planes::new(&Game::new(board).view()).expect("planes");
            assert!(planes.one_word_marks(), "{rows}x{cols}");
            for w in 0..planes.revealed.len() {
                let mut marked = planes.clone();
                marked.dirty.reset(rows + 2, 1);
                let mut want = marked.dirty.clone();
                marked.mark_word(w, 1);
                if let Some(row) = w.checked_sub(1) {
                    let (top, bottom) = (row.saturating_sub(2).max(1), (row + 2).min(rows));
                    if top <= bottom {
                        want.set_rows(0, top, bottom);
                    }
                }
                assert!(marked.dirty == want, "{rows}x{cols}: marks of word {w}");
            }
            let mut fast: Option<Planes> = None;
            let mut views = Vec::new();
            crate::frontier::tests::after_each_reveal(seed, (rows, cols), 3, |game, _| {
                let Some(fast) = fast.as_mut() else {
                    fast = Some(Planes::new(&game.view()).expect("planes"));
                    return;
                };
                while fast
                    .sweep_in(false)
                    .unwrap_or_else(|Bad(at)| panic!("unsound at {at}"))
                    > 0
                {}
                let mut twin = fast.clone();
                let view = game.view();
                assert_eq!(
                    fast.update_narrow(&view),
                    twin.update_fresh(&view),
                    "{rows}x{cols}"
                );
                assert!(fast.revealed == twin.revealed && fast.numbers == twin.numbers);
                assert!(fast.safe == twin.safe && fast.dirty == twin.dirty);
                assert_eq!(
                    (fast.safe_count, fast.eights),
                    (twin.safe_count, twin.eights)
                );
                views.push(game.clone());
            });
            // An earlier view, with cells hidden again, is refused alike.
            if let (Some(fast), Some(earlier)) = (fast.as_mut(), views.first()) {
                let mut twin = fast.clone();
                let view = earlier.view();
                let got = fast.update_narrow(&view);
                refused += usize::from(got.is_err());
                assert_eq!(got, twin.update_fresh(&view));
                assert_eq!(
                    (fast.safe_count, fast.eights),
                    (twin.safe_count, twin.eights)
                );
                assert!(fast.dirty == twin.dirty);
            }
        }
        assert!(refused > 3, "only {refused} earlier views refused");
    }

    /// The count by rows puts a sweep's list of safe words in the order a plain sort and
    /// dedup do, and so does its fallback for lists not of that shape.
    #[test]
    fn sorting_by_rows_matches_a_plain_sort() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let (mut counts, mut order) = (Vec::new(), Vec::new());
        for case in 0..400 {
            let wpr = 1 + next(9);
            let top = 1 + next(20);
            let bottom = top + next(40);
            // As a sweep lists them: runs of rows, each row's words increasing.
            let mut words = Vec::new();
            for _ in 0..next(12) {
                let (first, j0) = (top + next(bottom - top + 1), next(wpr));
                let last = (first + next(6)).min(bottom);
                let j1 = (j0 + 1 + next(3)).min(wpr);
                for r in first..=last {
                    words.extend((j0..j1).filter(|_| next(3) > 0).map(|j| r * wpr + 1 + j));
                }
            }
            match case % 4 {
                // Any order, words twice, words off the rows given.
                1 => words.reverse(),
                2 => words.extend(words.clone()),
                3 => words.push(next(3) * (bottom + 2) * wpr),
                _ => {}
            }
            let mut naive = words.clone();
            naive.sort_unstable();
            naive.dedup();
            sort_rows(&mut words, wpr, top..=bottom, &mut counts, &mut order);
            assert_eq!(words, naive, "case {case}");
        }
    }

    fn slice(n: u8) -> [u64; 4] {
        std::array::from_fn(|i| if n >> i & 1 != 0 { !0 } else { 0 })
    }

    #[test]
    fn bit_sliced_comparisons_match_integers() {
        for a in 0..16u8 {
            for b in 0..16u8 {
                assert_eq!(equal(slice(a), slice(b)) == !0, a == b, "{a} == {b}");
                assert_eq!(less(slice(a), slice(b)) == !0, a < b, "{a} < {b}");
            }
        }
        for bits in 0..256u32 {
            let two = |n: u32| {
                [
                    if n & 1 != 0 { !0 } else { 0 },
                    if n & 2 != 0 { !0 } else { 0 },
                ]
            };
            let sum = add3(
                two((bits & 7).count_ones()),
                two((bits >> 3 & 3).count_ones()),
                two((bits >> 5 & 7).count_ones()),
            );
            let n: u32 = (0..4).map(|i| (sum[i] & 1) as u32 * (1 << i)).sum();
            assert_eq!(n, bits.count_ones());
        }
    }
}
