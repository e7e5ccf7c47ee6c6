//! The boards the cascade benchmarks open, and where each is clicked: random boards, and
//! the twisting shapes that keep a flood fill's runs short (serpentines, a spiral, a maze).
//!
//! Included with `#[path]` by `benches/reveal.rs` and `examples/icount.rs`, so the
//! instruction counts and the criterion figures are taken on the same boards.

use bitmines_core::{Board, FirstClick, Placement, Placer, SeededPlacer};

/// A board and the cell whose reveal is measured.
pub(crate) struct Shape {
    /// The name after the board size: `serpentine-columns`, `spiral`, ...
    pub(crate) name: String,
    pub(crate) board: Board,
    pub(crate) cell: (usize, usize),
}

/// Mine walls every `pitch`-th line, each with a gap `pitch - 1` cells long at alternating
/// ends, so the one zero region snakes through the board in corridors `pitch - 1` cells wide.
/// Walls across rows keep runs a full row long; walls down columns make every run as narrow
/// as the corridor's zero cells (one cell at pitch 4), the row-by-row fill's worst case.
pub(crate) fn serpentine(size: usize, pitch: usize, walls_down_columns: bool) -> Shape {
    let gap = pitch - 1;
    let mut mines = Vec::new();
    for (k, line) in (0..size).step_by(pitch).enumerate() {
        let span = if k.is_multiple_of(2) {
            0..size.saturating_sub(gap)
        } else {
            gap..size
        };
        for along in span {
            mines.push(if walls_down_columns {
                (along, line)
            } else {
                (line, along)
            });
        }
    }
    let board = Board::from_mines(size, size, mines).expect("valid board");
    let middle = pitch / 2;
    let cell = if walls_down_columns {
        (size / 2, middle)
    } else {
        (middle, size / 2)
    };
    let name = match (walls_down_columns, pitch) {
        (true, 4) => "serpentine-columns".to_string(),
        (false, 4) => "serpentine-rows".to_string(),
        (true, _) => format!("corridors-{}-wide-down-columns", pitch - 1),
        (false, _) => format!("corridors-{}-wide-across-rows", pitch - 1),
    };
    Shape { name, board, cell }
}

/// A square spiral corridor three cells wide, walls one cell thick between its turns: every
/// cell is a mine except those within one cell of the spiral's centre line, which starts at
/// (1, 1), runs along the top, down the right side, back along the bottom and up the left,
/// and turns inward four cells at a time. Its zero cells are the centre line, so the one
/// cascade from the start walks a one-cell path along rows and down columns in turn.
pub(crate) fn spiral(size: usize) -> Shape {
    let mut open = vec![false; size * size];
    let mut carve = |r: usize, c: usize| {
        for rr in r.saturating_sub(1)..=(r + 1).min(size - 1) {
            for cc in c.saturating_sub(1)..=(c + 1).min(size - 1) {
                open[rr * size + cc] = true;
            }
        }
    };
    let (mut r, mut c) = (1usize, 1usize);
    carve(r, c);
    // Right, down, left, up; the legs are L, L, L, L-4, L-4, L-8, L-8, ...
    let moves: [(isize, isize); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
    let mut leg = size as isize - 3;
    let mut turn = 0usize;
    while leg > 0 {
        let (dr, dc) = moves[turn % 4];
        for _ in 0..leg {
            r = r.wrapping_add_signed(dr);
            c = c.wrapping_add_signed(dc);
            carve(r, c);
        }
        turn += 1;
        if turn >= 3 && !turn.is_multiple_of(2) {
            leg -= 4;
        }
    }
    Shape {
        name: "spiral".into(),
        board: walls_except(size, &open),
        cell: (1, 1),
    }
}

/// A random maze of 3x3 rooms, one cell of wall between neighbouring rooms, each wall between
/// rooms of the maze's spanning tree (a depth-first walk from a seeded generator) opened for
/// its three cells. Only a room's centre and the doors' middles are zero cells, so the
/// cascade winds through one-cell paths that branch and turn at random.
pub(crate) fn maze(size: usize, seed: u64) -> Shape {
    let n = size.div_ceil(4);
    let mut open = vec![false; size * size];
    let mut carve = |r: usize, c: usize| {
        if r < size && c < size {
            open[r * size + c] = true;
        }
    };
    let mut visited = vec![false; n * n];
    let mut stack = vec![(0usize, 0usize)];
    visited[0] = true;
    let mut state = seed | 1;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for dr in 0..3 {
        for dc in 0..3 {
            carve(dr, dc);
        }
    }
    while let Some(&(r, c)) = stack.last() {
        let mut choices = [(0usize, 0usize); 4];
        let mut count = 0;
        for (dr, dc) in [(0isize, 1isize), (1, 0), (0, -1), (-1, 0)] {
            let (Some(nr), Some(nc)) = (r.checked_add_signed(dr), c.checked_add_signed(dc)) else {
                continue;
            };
            if nr < n && nc < n && !visited[nr * n + nc] {
                choices[count] = (nr, nc);
                count += 1;
            }
        }
        if count == 0 {
            stack.pop();
            continue;
        }
        let (nr, nc) = choices[(next() % count as u64) as usize];
        visited[nr * n + nc] = true;
        // The new room, and the three wall cells between it and the room it is reached from.
        for dr in 0..3 {
            for dc in 0..3 {
                carve(4 * nr + dr, 4 * nc + dc);
            }
        }
        for k in 0..3 {
            if nr != r {
                carve(4 * r.max(nr) - 1, 4 * c + k);
            } else {
                carve(4 * r + k, 4 * c.max(nc) - 1);
            }
        }
        stack.push((nr, nc));
    }
    Shape {
        name: format!("maze-{seed}"),
        board: walls_except(size, &open),
        cell: (1, 1),
    }
}

/// A uniformly random board at `density` with its first click, the centre, kept clear of
/// mines around it, so the reveal measured is a real first move's opening.
pub(crate) fn random_from_centre(size: usize, density: f64, seed: u64) -> Shape {
    let mines = (size as f64 * size as f64 * density).round() as usize;
    let (r, c) = (size / 2, size / 2);
    let zone = FirstClick::Opening
        .zone(size, size, r, c)
        .expect("on board");
    let board = SeededPlacer::new(seed)
        .place(&Placement::new(size, size, mines, zone))
        .expect("valid board");
    Shape {
        name: format!("centre-density-{density}"),
        board,
        cell: (r, c),
    }
}

/// A board whose mines are every cell not marked open.
fn walls_except(size: usize, open: &[bool]) -> Board {
    let mines = (0..size * size)
        .filter(|&i| !open[i])
        .map(|i| (i / size, i % size));
    Board::from_mines(size, size, mines).expect("valid board")
}
