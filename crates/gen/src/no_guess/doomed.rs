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

#![allow(
    clippy::indexing_slicing,
    reason = "rows are sliced from planes of the board's own Geometry, (rows + 2) * words_per_row words each, at padded rows 0..=rows + 1"
)]

use bitmines_core::Board;

/// Whether `board` holds a pair of cells, or a checkerboard block of two by two, that no
/// view from the first click `click` ever tells apart (see the module's docs), so that no
/// solver clears it.
pub(crate) fn doomed(board: &Board, click: (usize, usize)) -> bool {
    if board.geometry().words_per_row() == 1 {
        return doomed_one_word(board, click);
    }
    doomed_words(board, click)
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

    /// The same test, cell by cell: a doomed pair or a doomed block.
    fn naive(board: &Board, click: (usize, usize)) -> bool {
        naive_pair(board, click) || naive_block(board, click)
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
            rows in 1usize..7,
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
            prop_assert_eq!(found, doomed_words(&board, click));
        }
    }

    #[test]
    fn doomed_boards_are_never_cleared() {
        let (mut seen, mut blocks) = (0, 0);
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
                    let play = super::super::replay(&std::sync::Arc::new(board), &request, &|_| {})
                        .expect("plays");
                    assert!(!play.won, "{rows}x{cols}/{mines} seed {seed}");
                }
            }
        }
        assert!(seen > 100, "only {seen} doomed boards seen");
        assert!(blocks > 30, "only {blocks} boards doomed by a block alone");
    }
}
