//! A quick proof, from the truth, that the solver can never clear a board: rejection skips
//! such boards before it plays them, which changes no result, only the time.
//!
//! The proof is a pair of cells side by side (in a row or in a column), one a mine and one
//! safe, whose cells that are next to one of the two and not the other are all mines or off
//! the board. Every cell a player can reveal then sees both of the pair or neither, so
//! swapping the pair's mine gives a board that shows the same view move for move, with the
//! same mine count; and the safe cell never opens in a cascade, since each of its
//! neighbours is the mine, a mine, or next to the mine. So no sound solver ever proves the
//! safe one safe, and the game is never won. The first click is kept out of pairs: it is
//! revealed whatever it borders.
//!
//! The same proof holds for a block of two by two cells whose mines lie on one diagonal
//! (the checkerboard), when the four cells diagonally off its corners are all mines or off
//! the board, as they are at a side (two of them off) or in a corner (three). Moving the
//! block's two mines to the other diagonal changes the count of no cell but those four
//! corners, which are never revealed: every other cell beside the block sees one of its
//! rows or columns whole or nothing of it, and each row and column of the block holds one
//! mine either way. A safe cell of the block never opens in a cascade, since each of its
//! neighbours sees a mine of the block on either board, or is one. So the block's safe
//! cells are never proven safe. At a side this catches about a quarter of the expert draws
//! that the pairs let through and the solver does not clear.
//!
//! Both are cases of one proof. Take a set of cells, none the click, half of them mines,
//! and move its mines to its other cells: if every cell outside the set that is not a mine
//! sees as many of the set's mines after as before, no view ever tells the two boards apart
//! (a revealed cell shows the same number on both; a safe cell of the set never opens in a
//! cascade, since a cell beside it sees the mine it is on the other board, so is never a
//! zero; and no sound solver proves it safe, as it is a mine on a board that shows the same
//! view and mine count). The cells that would see a different number are then mines or
//! off the board. A few more such sets, of up to six cells in two or three rows, which a
//! search over expert draws found the most often, are listed in [`SHAPES`] and tried,
//! turned and mirrored every way, where they touch a side of the board (two to four of the
//! cells that must be mines are then off it; elsewhere they almost never occur); the cells
//! that must be mines are worked out from each.

#![allow(
    clippy::indexing_slicing,
    reason = "rows are sliced from planes of the board's own Geometry, (rows + 2) * words_per_row words each, at padded rows 0..=rows + 1"
)]

use std::sync::OnceLock;

use bitmines_core::Board;

/// Sets of cells (row, column, whether a mine) whose mines, moved to the set's other
/// cells, change the count of no cell but the ones that [`shapes`] works out must be mines
/// or off the board (see the module's docs). Each is tried in every turn and mirror, and
/// with its mines and safe cells the other way round. The pair and the block, the most
/// common, have checks of their own.
const SHAPES: [&[(i32, i32, bool)]; 9] = [
    &[(0, 0, false), (0, 1, true), (1, 0, true), (1, 2, false)],
    &[(0, 0, false), (0, 1, true), (0, 2, false), (1, 0, true)],
    &[(0, 0, false), (0, 1, true), (2, 0, true), (2, 1, false)],
    &[(0, 0, false), (0, 2, true)],
    &[
        (0, 0, false),
        (0, 1, true),
        (0, 2, false),
        (1, 0, true),
        (1, 1, false),
        (1, 2, true),
    ],
    &[
        (0, 0, false),
        (0, 1, true),
        (0, 3, false),
        (1, 0, true),
        (1, 2, false),
        (1, 3, true),
    ],
    &[
        (0, 0, false),
        (0, 1, true),
        (0, 3, false),
        (1, 0, true),
        (1, 1, false),
        (1, 3, true),
    ],
    &[
        (0, 0, false),
        (0, 1, false),
        (0, 3, true),
        (1, 0, true),
        (1, 1, false),
        (1, 3, true),
    ],
    &[
        (0, 0, false),
        (0, 1, true),
        (0, 2, false),
        (1, 0, true),
        (1, 1, false),
        (1, 3, true),
    ],
];

/// One turn or mirror of a set of [`SHAPES`], its cells and the cells around it that must
/// be mines or off the board, as placed with its top row on the board's first row (`top`)
/// and with its bottom row on the last (`bottom`).
struct Shape {
    top: Placed,
    bottom: Placed,
}

/// A [`Shape`] placed against the top or the bottom of a board, its rows counted from that
/// side (0 the side's own row) and its cells as indices into [`Near`]'s words (a cell in
/// row `k`, `c` columns right of the set's leftmost, at `6 * k + c + 1`). The walls off the
/// board are left out.
struct Placed {
    walls: Vec<usize>,
    cells: Vec<(usize, bool)>,
}

/// The words of the five rows along one side of a board (0 the side's row), each read at
/// columns -1 to 4 on: bit `c` of `wall[6 * k + by + 1]` says whether the cell `by` columns
/// right of column `c` in row `k` is a mine or off the board, and likewise the mines and
/// the open cells (on the board, not the click).
struct Near {
    wall: [u64; 30],
    mine: [u64; 30],
    open: [u64; 30],
}

/// Every turn and mirror of [`SHAPES`], each once (a set and the same set with its mines
/// and safe cells the other way round count as one), with its walls worked out.
fn shapes() -> &'static [Shape] {
    static ALL: OnceLock<Vec<Shape>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut seen: Vec<Vec<(i32, i32, bool)>> = Vec::new();
        for set in SHAPES {
            for turn in 0..8 {
                let mut cells: Vec<(i32, i32, bool)> = set
                    .iter()
                    .map(|&(r, c, mine)| {
                        let (r, c) = if turn & 4 != 0 { (c, r) } else { (r, c) };
                        let r = if turn & 1 != 0 { -r } else { r };
                        let c = if turn & 2 != 0 { -c } else { c };
                        (r, c, mine)
                    })
                    .collect();
                let top = cells.iter().map(|x| x.0).min().unwrap_or(0);
                let left = cells.iter().map(|x| x.1).min().unwrap_or(0);
                for cell in &mut cells {
                    *cell = (cell.0 - top, cell.1 - left, cell.2);
                }
                cells.sort_unstable();
                if cells.first().is_some_and(|x| x.2) {
                    cells.iter_mut().for_each(|x| x.2 = !x.2);
                }
                if !seen.contains(&cells) {
                    seen.push(cells);
                }
            }
        }
        seen.into_iter()
            .map(|cells| {
                let height = cells.iter().map(|x| x.0).max().unwrap_or(0) + 1;
                let width = cells.iter().map(|x| x.1).max().unwrap_or(0) + 1;
                // What a cell at (r, c) would see of the set's mines after the move, less
                // what it sees before.
                let change = |r: i32, c: i32| -> i32 {
                    cells
                        .iter()
                        .filter(|x| (x.0 - r).abs() <= 1 && (x.1 - c).abs() <= 1)
                        .map(|x| if x.2 { -1 } else { 1 })
                        .sum()
                };
                let walls: Vec<(i32, i32)> = (-1..=height)
                    .flat_map(|r| (-1..=width).map(move |c| (r, c)))
                    .filter(|&(r, c)| !cells.iter().any(|x| (x.0, x.1) == (r, c)))
                    .filter(|&(r, c)| change(r, c) != 0)
                    .collect();
                // Rows and columns as `Near` counts them, from the top or from the bottom.
                let place = |row: &dyn Fn(i32) -> i32| Placed {
                    walls: walls
                        .iter()
                        .filter(|&&(r, _)| (0..=4).contains(&row(r)))
                        .map(|&(r, c)| row(r) as usize * 6 + (c + 1) as usize)
                        .collect(),
                    cells: cells
                        .iter()
                        .map(|&(r, c, mine)| (row(r) as usize * 6 + (c + 1) as usize, mine))
                        .collect(),
                };
                let (top, bottom) = (place(&|r| r), place(&|r| height - 1 - r));
                Shape { top, bottom }
            })
            .collect()
    })
}

/// Whether a set of [`shapes`] lies on `board` touching a side, none of its cells the
/// click. Tried on boards of one word a row and at most 64 rows (expert's); on others it
/// says no, which only means the draw is played.
fn doomed_at_a_side(board: &Board, click: (usize, usize)) -> bool {
    let geometry = board.geometry();
    let (rows, cols) = (geometry.rows(), geometry.cols());
    if geometry.words_per_row() != 1 || rows > 64 {
        return false;
    }
    // The board's rows with column c at bit c, and its columns with row r at bit r: a set
    // touching the left or right side is one touching the top or bottom of the columns.
    let mines = board.mine_words();
    let (mut by_rows, mut by_cols) = ([0u64; 64], [0u64; 64]);
    for (r, word) in by_rows.iter_mut().take(rows).enumerate() {
        *word = mines.get(r + 1).map_or(0, |&w| w >> 1);
    }
    for (r, &word) in by_rows.iter().take(rows).enumerate() {
        let mut bits = word;
        while bits != 0 {
            by_cols[bits.trailing_zeros() as usize] |= 1 << r;
            bits &= bits - 1;
        }
    }
    touches_top_or_bottom(&by_rows[..rows], cols, click)
        || touches_top_or_bottom(&by_cols[..cols], rows, (click.1, click.0))
}

/// Whether a set of [`shapes`] lies in the `words` (bit c of word r the mine at (r, c), a
/// board `width` cells wide) with its top row the first row or its bottom row the last,
/// none of its cells `click`.
fn touches_top_or_bottom(words: &[u64], width: usize, click: (usize, usize)) -> bool {
    let cells = if width >= 64 { !0 } else { (1u64 << width) - 1 };
    let rows = words.len();
    // Row `r` (any integer), rows off the board reading as walls with no mines or open cells.
    let on = |r: i64| usize::try_from(r).ok().filter(|&r| r < rows);
    let mine = |r: i64| on(r).map_or(0, |r| words[r]);
    let open = |r: i64| {
        let click = match on(r) {
            Some(r) if r == click.0 && click.1 < 64 => 1 << click.1,
            _ => 0,
        };
        on(r).map_or(0, |_| cells & !click)
    };
    let wall = |r: i64| on(r).map_or(!0, |r| words[r] | !cells);
    // Bit c of the answer is bit c + by of `word`, bits past it reading as `fill`.
    let shift = |word: u64, by: i64, fill: u64| match by {
        0 => word,
        1.. => word >> by | fill << (64 - by),
        _ => word << -by | fill >> (64 + by),
    };
    let near = |row: &dyn Fn(i64) -> i64| {
        let mut near = Near {
            wall: [0; 30],
            mine: [0; 30],
            open: [0; 30],
        };
        for k in 0..5 {
            let r = row(k as i64);
            let (w, m, o) = (wall(r), mine(r), open(r));
            for (i, by) in (-1..=4).enumerate() {
                near.wall[6 * k + i] = shift(w, by, !0);
                near.mine[6 * k + i] = shift(m, by, 0);
                near.open[6 * k + i] = shift(o, by, 0);
            }
        }
        near
    };
    let last = rows as i64 - 1;
    let (top, bottom) = (near(&|k| k), near(&|k| last - k));
    let found = |near: &Near, placed: &Placed| {
        // The walls first: most placements lack one.
        let mut at = cells;
        for &i in &placed.walls {
            at &= near.wall[i];
            if at == 0 {
                return false;
            }
        }
        let (mut same, mut other) = (at, at);
        for &(i, is_mine) in &placed.cells {
            let differ = near.mine[i] ^ if is_mine { !0 } else { 0 };
            same &= near.open[i] & !differ;
            other &= near.open[i] & differ;
        }
        same | other != 0
    };
    let shapes = shapes();
    shapes.iter().any(|shape| found(&top, &shape.top))
        || shapes.iter().any(|shape| found(&bottom, &shape.bottom))
}

/// Whether `board` holds a pair of cells, or a checkerboard block of two by two, or one
/// of the sets of [`SHAPES`] at a side, that no view from the first click `click` ever
/// tells apart (see the module's docs), so that no solver clears it.
pub(crate) fn doomed(board: &Board, click: (usize, usize)) -> bool {
    let pairs = if board.geometry().words_per_row() == 1 {
        doomed_one_word(board, click)
    } else {
        doomed_words(board, click)
    };
    pairs || doomed_at_a_side(board, click)
}

/// [`doomed`] on a board of one word a row (expert's): a row's cells are one word, so the
/// pairs of each row are a few operations on the words of the rows around it, with no
/// planes built. The same answer as [`doomed_words`], which builds them for any width.
fn doomed_one_word(board: &Board, click: (usize, usize)) -> bool {
    let geometry = board.geometry();
    let rows = geometry.rows();
    let cells = geometry.cell_mask(0);
    let mines = board.mine_words();
    let on_board = |p: usize| (1..=rows).contains(&p);
    // Padded row `p`'s mines, its cells that are mines or off the board (every cell of a
    // sentinel row), and the board cells a pair may use (not the click).
    let mine = |p: usize| mines.get(p).copied().unwrap_or(0);
    let wall = |p: usize| if on_board(p) { mine(p) | !cells } else { !0 };
    let click = geometry.bit(click.0, click.1).ok();
    let open = |p: usize| {
        let beside = click
            .filter(|&bit| bit / 64 == p)
            .map_or(0, |bit| 1 << (bit % 64));
        if on_board(p) { cells & !beside } else { 0 }
    };
    // Bit `i` of the answer is bit `i + by` of `word`, bits past the word reading as `fill`
    // (as `shift` reads a row of one word).
    let shift = |word: u64, by: i32, fill: u64| match by {
        0 => word,
        1.. => word >> by | fill << (64 - by),
        _ => word << -by | fill >> (64 + by),
    };
    for p in 1..=rows {
        let (m, o) = (mine(p), open(p));
        // The pair (p, c), (p, c + 1): columns c - 1 and c + 2 of rows p - 1 to p + 1.
        let pair = o & shift(o, 1, 0) & (m ^ shift(m, 1, 0));
        let column = |by: i32| {
            shift(wall(p - 1), by, !0) & shift(wall(p), by, !0) & shift(wall(p + 1), by, !0)
        };
        if pair != 0 && pair & column(-1) & column(2) != 0 {
            return true;
        }
        // The pair (p, c), (p + 1, c): rows p - 1 and p + 2 of columns c - 1 to c + 1.
        if p < rows {
            let pair = o & open(p + 1) & (m ^ mine(p + 1));
            let rank = |q: usize| shift(wall(q), -1, !0) & wall(q) & shift(wall(q), 1, !0);
            if pair != 0 && pair & rank(p - 1) & rank(p + 2) != 0 {
                return true;
            }
            // The block (p, c) to (p + 1, c + 1), mines on one diagonal: cells (p - 1, c - 1),
            // (p - 1, c + 2), (p + 2, c - 1) and (p + 2, c + 2).
            let (n, right, below) = (mine(p + 1), shift(m, 1, 0), shift(mine(p + 1), 1, 0));
            let block = (m ^ right) & !(n ^ right) & !(below ^ m);
            let block = block & o & shift(o, 1, 0) & open(p + 1) & shift(open(p + 1), 1, 0);
            let corners = |q: usize| shift(wall(q), -1, !0) & shift(wall(q), 2, !0);
            if block != 0 && block & corners(p - 1) & corners(p + 2) != 0 {
                return true;
            }
        }
    }
    false
}

/// [`doomed`] on a board of any width, over planes of walls and open cells built for it.
fn doomed_words(board: &Board, click: (usize, usize)) -> bool {
    let geometry = board.geometry();
    let (rows, wpr) = (geometry.rows(), geometry.words_per_row());
    let mines = board.mine_words();
    // Cells that are mines or off the board (sentinel rows and columns, padding), and the
    // board cells a pair may use.
    let mut wall = vec![!0u64; mines.len()];
    let mut open = vec![0u64; mines.len()];
    for p in 1..=rows {
        for j in 0..wpr {
            let w = p * wpr + j;
            wall[w] = mines[w] | !geometry.cell_mask(j);
            open[w] = geometry.cell_mask(j);
        }
    }
    if let Ok(bit) = geometry.bit(click.0, click.1) {
        open[bit / 64] &= !(1 << (bit % 64));
    }
    let row = |p: usize| p * wpr..(p + 1) * wpr;
    for p in 1..=rows {
        for j in 0..wpr {
            let m = |p: usize, by: isize| shift(&mines[row(p)], j, by, 0);
            let o = |p: usize, by: isize| shift(&open[row(p)], j, by, 0);
            let w = |p: usize, by: isize| shift(&wall[row(p)], j, by, !0);
            // The pair (p, c), (p, c + 1): columns c - 1 and c + 2 of rows p - 1 to p + 1.
            let pair = o(p, 0) & o(p, 1) & (m(p, 0) ^ m(p, 1));
            let column = |by: isize| w(p - 1, by) & w(p, by) & w(p + 1, by);
            if pair != 0 && pair & column(-1) & column(2) != 0 {
                return true;
            }
            // The pair (p, c), (p + 1, c): rows p - 1 and p + 2 of columns c - 1 to c + 1.
            if p < rows {
                let pair = o(p, 0) & o(p + 1, 0) & (m(p, 0) ^ m(p + 1, 0));
                let rank = |q: usize| w(q, -1) & w(q, 0) & w(q, 1);
                if pair != 0 && pair & rank(p - 1) & rank(p + 2) != 0 {
                    return true;
                }
                // The block (p, c) to (p + 1, c + 1), mines on one diagonal, and its four
                // corners diagonally off it.
                let block =
                    (m(p, 0) ^ m(p, 1)) & !(m(p + 1, 0) ^ m(p, 1)) & !(m(p + 1, 1) ^ m(p, 0));
                let block = block & o(p, 0) & o(p, 1) & o(p + 1, 0) & o(p + 1, 1);
                let corners = |q: usize| w(q, -1) & w(q, 2);
                if block != 0 && block & corners(p - 1) & corners(p + 2) != 0 {
                    return true;
                }
            }
        }
    }
    false
}

/// Word `j` of a padded row read `by` bits further on: bit `i` of the answer is bit
/// `64 * j + i + by` of the row, and bits beyond the row read as `fill`.
fn shift(row: &[u64], j: usize, by: isize, fill: u64) -> u64 {
    let word = |k: isize| {
        usize::try_from(k)
            .ok()
            .and_then(|k| row.get(k).copied())
            .unwrap_or(fill)
    };
    let (q, s) = (j as isize + by.div_euclid(64), by.rem_euclid(64) as u32);
    if s == 0 {
        word(q)
    } else {
        word(q) >> s | word(q + 1) << (64 - s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use bitmines_core::FirstClick;
    use proptest::prelude::*;

    use crate::{Config, generate};

    /// Whether cell (r, c) is a mine or off the board.
    fn wall(board: &Board, r: isize, c: isize) -> bool {
        match (usize::try_from(r), usize::try_from(c)) {
            (Ok(r), Ok(c)) => board.is_mine(r, c).unwrap_or(true),
            _ => true,
        }
    }

    /// The same test, cell by cell: a doomed pair, block, or set at a side.
    fn naive(board: &Board, click: (usize, usize)) -> bool {
        naive_pair(board, click) || naive_block(board, click) || naive_side(board, click)
    }

    /// Every set of [`SHAPES`], in every turn and mirror and both ways round, that touches a
    /// side of a board of one word a row and at most 64 rows, none of its cells the click,
    /// such that moving its mines to its other cells changes what no safe cell outside it
    /// sees: the proof itself, cell by cell, with no walls worked out.
    fn naive_side(board: &Board, click: (usize, usize)) -> bool {
        if board.geometry().words_per_row() != 1 || board.rows() > 64 {
            return false;
        }
        let (rows, cols) = (board.rows() as isize, board.cols() as isize);
        let click = (click.0 as isize, click.1 as isize);
        let mut sets = Vec::new();
        for set in SHAPES {
            for turn in 0..8 {
                for flip in [false, true] {
                    let cells: Vec<(isize, isize, bool)> = set
                        .iter()
                        .map(|&(r, c, mine)| {
                            let (r, c) = (r as isize, c as isize);
                            let (r, c) = if turn & 4 != 0 { (c, r) } else { (r, c) };
                            let r = if turn & 1 != 0 { 3 - r } else { r };
                            let c = if turn & 2 != 0 { 3 - c } else { c };
                            (r, c, mine != flip)
                        })
                        .collect();
                    sets.push(cells);
                }
            }
        }
        sets.iter().any(|set| {
            (-4..rows + 4).any(|dr| {
                (-4..cols + 4).any(|dc| {
                    let cells: Vec<(isize, isize, bool)> =
                        set.iter().map(|&(r, c, m)| (r + dr, c + dc, m)).collect();
                    let fits = || {
                        cells.iter().all(|&(r, c, m)| {
                            (0..rows).contains(&r)
                                && (0..cols).contains(&c)
                                && (r, c) != click
                                && wall(board, r, c) == m
                        })
                    };
                    let side = || {
                        cells
                            .iter()
                            .any(|&(r, c, _)| r == 0 || r == rows - 1 || c == 0 || c == cols - 1)
                    };
                    // Every safe cell outside the set sees as many of its mines after the
                    // move as before.
                    let same = || {
                        (dr - 1..dr + 5).all(|r| {
                            (dc - 1..dc + 5).all(|c| {
                                let inside = cells.iter().any(|&(s, d, _)| (s, d) == (r, c));
                                let change: i32 = cells
                                    .iter()
                                    .filter(|&&(s, d, _)| (s - r).abs() <= 1 && (d - c).abs() <= 1)
                                    .map(|&(_, _, m)| if m { -1 } else { 1 })
                                    .sum();
                                inside || wall(board, r, c) || change == 0
                            })
                        })
                    };
                    fits() && side() && same()
                })
            })
        })
    }

    /// Every block of two by two cells, none the click, with mines on one diagonal and the
    /// four cells diagonally off its corners mines or off the board.
    fn naive_block(board: &Board, click: (usize, usize)) -> bool {
        let (rows, cols) = (board.rows() as isize, board.cols() as isize);
        let mine = |r: isize, c: isize| wall(board, r, c);
        let click = (click.0 as isize, click.1 as isize);
        (0..rows - 1).any(|r| {
            (0..cols - 1).any(|c| {
                let block = [(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)];
                let corners = [
                    (r - 1, c - 1),
                    (r - 1, c + 2),
                    (r + 2, c - 1),
                    (r + 2, c + 2),
                ];
                !block.contains(&click)
                    && mine(r, c) != mine(r, c + 1)
                    && mine(r, c) == mine(r + 1, c + 1)
                    && mine(r, c + 1) == mine(r + 1, c)
                    && corners.iter().all(|&(s, d)| mine(s, d))
            })
        })
    }

    /// Every pair side by side, neither the click, one a mine, and each cell next to one
    /// and not the other a mine or off the board.
    fn naive_pair(board: &Board, click: (usize, usize)) -> bool {
        let (rows, cols) = (board.rows() as isize, board.cols() as isize);
        let mine = |r: isize, c: isize| wall(board, r, c);
        let near = |(r, c): (isize, isize), (s, d): (isize, isize)| {
            (r - s).abs() <= 1 && (c - d).abs() <= 1
        };
        let click = (click.0 as isize, click.1 as isize);
        for r in 0..rows {
            for c in 0..cols {
                for b in [(r, c + 1), (r + 1, c)] {
                    let a = (r, c);
                    if b.0 >= rows || b.1 >= cols || a == click || b == click {
                        continue;
                    }
                    if mine(a.0, a.1) == mine(b.0, b.1) {
                        continue;
                    }
                    let hidden = (r - 1..=b.0 + 1)
                        .flat_map(|s| (c - 1..=b.1 + 1).map(move |d| (s, d)))
                        .filter(|&x| x != a && x != b && near(x, a) != near(x, b))
                        .all(|(s, d)| mine(s, d));
                    if hidden {
                        return true;
                    }
                }
            }
        }
        false
    }

    proptest! {
        #[test]
        fn doomed_agrees_with_its_naive_twin(
            rows in 1usize..20,
            cols in 1usize..140,
            density in 0.0f64..0.9,
            seed in any::<u64>(),
            click in (0usize..7, 0usize..140),
        ) {
            let cells = rows * cols;
            let mines = ((cells as f64 * density) as usize).min(cells);
            let board = generate(&Config::new(rows, cols, mines, seed)).expect("fits");
            let click = (click.0 % rows, click.1 % cols);
            let found = doomed(&board, click);
            prop_assert_eq!(found, naive(&board, click));
            prop_assert_eq!(doomed_at_a_side(&board, click), naive_side(&board, click));
            let pairs = doomed_words(&board, click);
            prop_assert_eq!(found, pairs || doomed_at_a_side(&board, click));
        }
    }

    #[test]
    fn doomed_boards_are_never_cleared() {
        let (mut seen, mut blocks, mut sides) = (0, 0, 0);
        for (rows, cols, mines) in [(16, 30, 99), (9, 9, 10), (5, 7, 9), (3, 70, 40)] {
            let request =
                crate::NoGuess::new(rows, cols, mines, 0).first_click(FirstClick::Safe, 0, 0);
            let zone = FirstClick::Safe
                .zone(rows, cols, 0, 0)
                .expect("on the board");
            for seed in 0..300 {
                let board =
                    generate(&Config::new(rows, cols, mines, seed).keep_clear(zone.clone()))
                        .expect("fits");
                if doomed(&board, (0, 0)) {
                    seen += 1;
                    blocks += usize::from(!naive_pair(&board, (0, 0)));
                    sides +=
                        usize::from(!naive_pair(&board, (0, 0)) && !naive_block(&board, (0, 0)));
                    let play = super::super::replay(&std::sync::Arc::new(board), &request, &|_| {})
                        .expect("plays");
                    assert!(!play.won, "{rows}x{cols}/{mines} seed {seed}");
                }
            }
        }
        assert!(seen > 100, "only {seen} doomed boards seen");
        assert!(blocks > 30, "only {blocks} boards doomed by a block alone");
        assert!(
            sides > 10,
            "only {sides} boards doomed by a set at a side alone"
        );
    }
}
