//! The brute-force twin: every layout of the mines over the hidden cells, checked against
//! every revealed number. Obviously right, and exponential.

use bitmines_core::{AsView, Board, Game, Position, SeededPlacer};

/// Every layout consistent with a view, counted exactly.
#[derive(Debug)]
pub(crate) struct Brute {
    pub(crate) cols: usize,
    /// Layouts consistent with every number and the mine count.
    pub(crate) total: u64,
    /// For each cell (`row * cols + col`), the layouts with a mine there.
    pub(crate) mines: Vec<u64>,
    /// Whether each cell is revealed.
    pub(crate) revealed: Vec<bool>,
    /// One consistent layout, as a mine flag per cell, other than `avoid` when another exists.
    pub(crate) other: Option<Vec<bool>>,
    /// Every consistent layout, as a mine flag per cell, when there are at most
    /// [`LISTED`].
    pub(crate) all: Vec<Vec<bool>>,
}

/// The most layouts the twin lists one by one.
pub(crate) const LISTED: usize = 256;

/// The most layouts the twin will look at.
const MAX_LAYOUTS: u64 = 3_000_000;

/// `C(n, k)`, saturating.
fn choose(n: u64, k: u64) -> u64 {
    (0..k).fold(1u64, |acc, i| acc.saturating_mul(n - i) / (i + 1))
}

/// Enumerates the layouts of `view`, or `None` if there are too many to look at. `avoid`
/// is a layout (mine flag per cell) that `other` should differ from.
pub(crate) fn brute(view: &impl AsView, avoid: Option<&[bool]>) -> Option<Brute> {
    brute_given(view, avoid, &[])
}

/// [`brute`], counting only the layouts with a mine on every cell of `given`
/// (`row * cols + col`).
pub(crate) fn brute_given(
    view: &impl AsView,
    avoid: Option<&[bool]>,
    given: &[usize],
) -> Option<Brute> {
    let view = view.view();
    let (rows, cols) = (view.rows(), view.cols());
    let mut hidden = Vec::new();
    let mut numbers = Vec::new();
    let mut revealed = vec![false; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            match view.number(r, c).unwrap() {
                None => hidden.push(r * cols + c),
                Some(n) => {
                    revealed[r * cols + c] = true;
                    numbers.push((r, c, n));
                }
            }
        }
    }
    let h = hidden.len() as u64;
    let m = view.mine_count() as u64;
    if h > 40 || (m <= h && choose(h, m) > MAX_LAYOUTS) {
        return None;
    }
    // Each number as (mask over hidden cells of its neighbours, number).
    let checks: Vec<(u64, u32)> = numbers
        .iter()
        .map(|&(r, c, n)| {
            let mut mask = 0u64;
            for (i, &cell) in hidden.iter().enumerate() {
                let (hr, hc) = (cell / cols, cell % cols);
                if hr.abs_diff(r) <= 1 && hc.abs_diff(c) <= 1 {
                    mask |= 1 << i;
                }
            }
            (mask, u32::from(n))
        })
        .collect();
    let mut out = Brute {
        cols,
        total: 0,
        mines: vec![0; rows * cols],
        revealed,
        other: None,
        all: Vec::new(),
    };
    if m > h {
        return Some(out);
    }
    let required: u64 = hidden
        .iter()
        .enumerate()
        .filter(|&(_, cell)| given.contains(cell))
        .fold(0, |mask, (i, _)| mask | 1 << i);
    let mut record = |layout: u64| {
        if layout & required == required
            && checks
                .iter()
                .all(|&(mask, n)| (layout & mask).count_ones() == n)
        {
            out.total += 1;
            let mut cells = vec![false; rows * cols];
            for (i, &cell) in hidden.iter().enumerate() {
                if layout >> i & 1 != 0 {
                    out.mines[cell] += 1;
                    cells[cell] = true;
                }
            }
            if out.all.len() <= LISTED {
                out.all.push(cells.clone());
            }
            if out.other.is_none() && avoid != Some(&cells[..]) {
                out.other = Some(cells);
            }
        }
    };
    if m == 0 {
        record(0);
    } else {
        // Gosper's hack: every h-bit mask with m bits set, in increasing order.
        let mut layout: u64 = (1 << m) - 1;
        while layout < 1 << h {
            record(layout);
            let low = layout & layout.wrapping_neg();
            let ripple = layout + low;
            layout = (((ripple ^ layout) >> 2) / low) | ripple;
        }
    }
    Some(out)
}

/// SplitMix64, for seeded positions.
pub(crate) struct Rng(pub u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A position from real play: a random board, random reveals of safe cells (cascades
/// included) until at most `hidden` cells are hidden, and some flags, right and wrong.
pub(crate) fn played(
    rng: &mut Rng,
    rows: usize,
    cols: usize,
    mines: usize,
    hidden: usize,
) -> (Board, Game) {
    let board = SeededPlacer::new(rng.next())
        .board(rows, cols, mines)
        .unwrap();
    let mut game = Game::new(board.clone());
    let safe = rows * cols - mines;
    let mut tries = 0;
    while rows * cols - game.revealed_count() > hidden
        && game.revealed_count() < safe
        && tries < 10_000
    {
        tries += 1;
        let (r, c) = (rng.below(rows), rng.below(cols));
        if !board.is_mine(r, c).unwrap() && game.cell(r, c).unwrap() == bitmines_core::Cell::Hidden
        {
            game.reveal(r, c).unwrap();
        }
    }
    for _ in 0..rng.below(3) {
        let (r, c) = (rng.below(rows), rng.below(cols));
        if game.status() == bitmines_core::Status::Playing {
            game.toggle_flag(r, c).unwrap();
        }
    }
    (board, game)
}

/// An adversarial position: a random board of which an arbitrary set of safe cells is
/// shown (no cascade), so numbers sit in shapes play rarely makes; or, with `garbage`,
/// random numbers that no board may satisfy.
pub(crate) fn arbitrary(
    rng: &mut Rng,
    rows: usize,
    cols: usize,
    mines: usize,
    garbage: bool,
) -> Position {
    let board = SeededPlacer::new(rng.next())
        .board(rows, cols, mines)
        .unwrap();
    let mut position = Position::new(rows, cols, mines).unwrap();
    for r in 0..rows {
        for c in 0..cols {
            if board.is_mine(r, c).unwrap() || rng.below(3) != 0 {
                continue;
            }
            let number = if garbage && rng.below(4) == 0 {
                rng.below(4) as u8
            } else {
                board.number(r, c).unwrap()
            };
            position.reveal(r, c, number).unwrap();
        }
    }
    position
}

/// The game `game` would be on a board with mines at `layout`, showing the same cells and
/// flags: built through the checked text form.
pub(crate) fn with_layout(game: &Game, layout: &[bool]) -> Game {
    let (rows, cols) = (game.rows(), game.cols());
    let board = Board::from_mines(
        rows,
        cols,
        (0..rows * cols)
            .filter(|&i| layout[i])
            .map(|i| (i / cols, i % cols)),
    )
    .unwrap();
    let view = game.view();
    let mut text = format!("bitmines game {rows}x{cols} playing\n");
    for r in 0..rows {
        for c in 0..cols {
            let mine = layout[r * cols + c];
            text.push(
                match (
                    view.number(r, c).unwrap(),
                    view.is_flagged(r, c).unwrap(),
                    mine,
                ) {
                    (Some(_), _, _) => char::from(b'0' + board.number(r, c).unwrap()),
                    (None, true, true) => 'F',
                    (None, true, false) => 'f',
                    (None, false, true) => '*',
                    (None, false, false) => '.',
                },
            );
        }
        text.push('\n');
    }
    text.parse().unwrap()
}
