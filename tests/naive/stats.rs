//! A naive twin of `bitmines_core::stats`, written from the definitions alone, used as a test
//! oracle and as the baseline of `benches/stats.rs`.
//!
//! The board is copied into a plain `Vec<Vec<bool>>` of mines, every number is counted from
//! that grid by visiting the up to eight neighbours with hand-written bounds checks, and every
//! region is found with a breadth-first flood over a `VecDeque` and a visited grid. Nothing
//! here touches the engine's bit planes, dilation or cascade fill, so when the two agree it is
//! because both follow the definitions:
//!
//! - a *zero cell* is a safe cell with no neighbouring mine;
//! - an *opening* is an 8-connected region of zero cells;
//! - an *isolated* cell is a numbered safe cell with no zero cell among its 8 neighbours;
//! - an *island* is an 8-connected region of isolated cells;
//! - *3BV* is `openings + isolated`: one click per opening (which also opens its numbered
//!   border), plus one click per numbered cell that no opening reaches.
//!
//! The module uses only `std` and `bitmines_core::{Board, Error}`, so a bench can include it
//! with `#[path = "../tests/naive/stats.rs"] mod naive_stats;`. A crate that does not use
//! every item puts `#[allow(dead_code)]` on that `mod` line.

use std::collections::VecDeque;

use bitmines_core::{Board, Error};

/// The four statistics of one board, counted by the twin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NaiveStats {
    /// 8-connected regions of zero cells.
    pub(crate) openings: usize,
    /// 8-connected regions of isolated cells.
    pub(crate) islands: usize,
    /// Numbered safe cells with no zero cell among their neighbours.
    pub(crate) isolated: usize,
    /// `openings + isolated`.
    pub(crate) bbbv: usize,
}

/// The mines of `board` as a plain grid, `grid[row][col]`.
pub(crate) fn mine_grid(board: &Board) -> Result<Vec<Vec<bool>>, Error> {
    let mut grid = Vec::with_capacity(board.rows());
    for r in 0..board.rows() {
        let mut line = Vec::with_capacity(board.cols());
        for c in 0..board.cols() {
            line.push(board.is_mine(r, c)?);
        }
        grid.push(line);
    }
    Ok(grid)
}

/// The cells around `(row, col)` on a `rows x cols` grid, the cell itself excluded.
pub(crate) fn neighbours(rows: usize, cols: usize, row: usize, col: usize) -> Vec<(usize, usize)> {
    let mut cells = Vec::with_capacity(8);
    for dr in [-1isize, 0, 1] {
        for dc in [-1isize, 0, 1] {
            if dr == 0 && dc == 0 {
                continue;
            }
            let r = row as isize + dr;
            let c = col as isize + dc;
            if r >= 0 && c >= 0 && (r as usize) < rows && (c as usize) < cols {
                cells.push((r as usize, c as usize));
            }
        }
    }
    cells
}

/// The number of mines around every cell (mines included, which the statistics ignore).
pub(crate) fn numbers(mines: &[Vec<bool>]) -> Vec<Vec<usize>> {
    let rows = mines.len();
    let cols = mines.first().map_or(0, Vec::len);
    let mut numbers = vec![vec![0; cols]; rows];
    for (r, line) in numbers.iter_mut().enumerate() {
        for (c, number) in line.iter_mut().enumerate() {
            *number = neighbours(rows, cols, r, c)
                .into_iter()
                .filter(|&(nr, nc)| mines[nr][nc])
                .count();
        }
    }
    numbers
}

/// The zero cells: safe, with no neighbouring mine.
pub(crate) fn zero_grid(mines: &[Vec<bool>]) -> Vec<Vec<bool>> {
    let numbers = numbers(mines);
    mines
        .iter()
        .zip(&numbers)
        .map(|(mine_line, number_line)| {
            mine_line
                .iter()
                .zip(number_line)
                .map(|(&mine, &number)| !mine && number == 0)
                .collect()
        })
        .collect()
}

/// The isolated cells: safe, numbered, and with no zero cell among their neighbours.
pub(crate) fn isolated_grid(mines: &[Vec<bool>]) -> Vec<Vec<bool>> {
    let rows = mines.len();
    let cols = mines.first().map_or(0, Vec::len);
    let zero = zero_grid(mines);
    let mut isolated = vec![vec![false; cols]; rows];
    for (r, line) in isolated.iter_mut().enumerate() {
        for (c, cell) in line.iter_mut().enumerate() {
            let safe_and_numbered = !mines[r][c] && !zero[r][c];
            let touches_zero = neighbours(rows, cols, r, c)
                .into_iter()
                .any(|(nr, nc)| zero[nr][nc]);
            *cell = safe_and_numbered && !touches_zero;
        }
    }
    isolated
}

/// The number of 8-connected regions of `true` cells, each found by a breadth-first flood
/// from its first unvisited cell in row order.
pub(crate) fn regions(member: &[Vec<bool>]) -> usize {
    let rows = member.len();
    let cols = member.first().map_or(0, Vec::len);
    let mut visited = vec![vec![false; cols]; rows];
    let mut queue = VecDeque::new();
    let mut count = 0;
    for r in 0..rows {
        for c in 0..cols {
            if !member[r][c] || visited[r][c] {
                continue;
            }
            count += 1;
            visited[r][c] = true;
            queue.push_back((r, c));
            while let Some((qr, qc)) = queue.pop_front() {
                for (nr, nc) in neighbours(rows, cols, qr, qc) {
                    if member[nr][nc] && !visited[nr][nc] {
                        visited[nr][nc] = true;
                        queue.push_back((nr, nc));
                    }
                }
            }
        }
    }
    count
}

/// The number of `true` cells of a grid.
fn count(grid: &[Vec<bool>]) -> usize {
    grid.iter().flatten().filter(|&&cell| cell).count()
}

/// Every statistic of `board`, from one copy of its mines.
pub(crate) fn stats(board: &Board) -> Result<NaiveStats, Error> {
    let mines = mine_grid(board)?;
    let zero = zero_grid(&mines);
    let isolated = isolated_grid(&mines);
    let openings = regions(&zero);
    let isolated_cells = count(&isolated);
    Ok(NaiveStats {
        openings,
        islands: regions(&isolated),
        isolated: isolated_cells,
        bbbv: openings + isolated_cells,
    })
}

/// The number of openings of `board`.
pub(crate) fn openings(board: &Board) -> Result<usize, Error> {
    Ok(regions(&zero_grid(&mine_grid(board)?)))
}

/// The number of islands of `board`.
pub(crate) fn islands(board: &Board) -> Result<usize, Error> {
    Ok(regions(&isolated_grid(&mine_grid(board)?)))
}

/// The number of isolated cells of `board`.
pub(crate) fn isolated(board: &Board) -> Result<usize, Error> {
    Ok(count(&isolated_grid(&mine_grid(board)?)))
}

/// The 3BV of `board`: one click per opening plus one per isolated cell.
pub(crate) fn bbbv(board: &Board) -> Result<usize, Error> {
    let mines = mine_grid(board)?;
    Ok(regions(&zero_grid(&mines)) + count(&isolated_grid(&mines)))
}
