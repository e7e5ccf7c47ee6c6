//! Reveal cost per touched cell: the word-parallel fill, the scalar fill and the naive twin
//! side by side on the same boards.
//!
//! Every group times one call (a reveal or a chord) on a fresh game built outside the timed
//! window, and reports throughput in cells opened by that call, so criterion's report reads
//! as time per touched cell.
//!
//! The boards are random ones and the shapes of `benches/support/shapes.rs` that keep runs
//! short (serpentines with walls across the rows and down the columns, corridors down the
//! columns, a square spiral, a random maze), at 1000x1000 and 4096x4096.

use std::hint::black_box;
use std::sync::Arc;

use bitmines_core::{Board, Cell, Fill, FirstClick, Game, Placement, Placer, SeededPlacer};
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

#[path = "support/shapes.rs"]
mod shapes;

#[path = "../tests/naive/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod naive;

/// One timed call on one board.
struct Case {
    group: String,
    board: Arc<Board>,
    /// State reached before the timed call.
    prepare: fn(&mut Game, (usize, usize)),
    action: Action,
    cell: (usize, usize),
}

#[derive(Clone, Copy)]
enum Action {
    Reveal,
    Chord,
}

impl Case {
    /// A fresh game in the state the timed call starts from.
    fn game(&self, fill: Fill) -> Game {
        let mut game = Game::new(Arc::clone(&self.board)).with_fill(fill);
        (self.prepare)(&mut game, self.cell);
        game
    }

    fn naive(&self) -> naive::NaiveGame {
        let mut game = naive::NaiveGame::from_board(&self.board);
        let reference = self.game(Fill::Scalar);
        // Replay the prepared state cell by cell: the naive twin has no bulk import.
        for r in 0..self.board.rows() {
            for c in 0..self.board.cols() {
                match reference.cell(r, c).expect("on board") {
                    Cell::Flagged => {
                        let _ = game.toggle_flag(r, c);
                    }
                    Cell::Open(_) => {
                        let _ = game.reveal(r, c);
                    }
                    _ => {}
                }
            }
        }
        game
    }

    /// Cells the timed call opens, the same for both fills (checked).
    fn opened(&self) -> usize {
        let [words, scalar] = [Fill::Words, Fill::Scalar].map(|fill| {
            let step = run(&mut self.game(fill), self.action, self.cell);
            step.expect("benchmark action is valid").opened
        });
        assert_eq!(words, scalar, "{}: the fills disagree", self.group);
        words
    }
}

fn run(
    game: &mut Game,
    action: Action,
    (r, c): (usize, usize),
) -> Result<bitmines_core::Reveal, bitmines_core::Error> {
    match action {
        Action::Reveal => game.reveal(r, c),
        Action::Chord => game.chord(r, c),
    }
}

fn nothing(_: &mut Game, _: (usize, usize)) {}

/// A uniformly random board and the zero cell whose cascade opens the most.
fn random_case(rows: usize, cols: usize, density: f64) -> Case {
    let mines = (rows as f64 * cols as f64 * density).round() as usize;
    let board = Arc::new(
        SeededPlacer::new(7)
            .board(rows, cols, mines)
            .expect("valid board"),
    );
    let cell = largest_opening(&board);
    Case {
        group: format!("reveal/{rows}x{cols}/density-{density}"),
        board,
        prepare: nothing,
        action: Action::Reveal,
        cell,
    }
}

fn largest_opening(board: &Arc<Board>) -> (usize, usize) {
    let mut scan = Game::new(Arc::clone(board));
    let mut best = ((0, 0), 0);
    for r in 0..board.rows() {
        for c in 0..board.cols() {
            if board.is_zero(r, c).expect("on board")
                && scan.cell(r, c).expect("on board") == Cell::Hidden
            {
                let opened = scan.reveal(r, c).expect("safe cell").opened;
                if opened > best.1 {
                    best = ((r, c), opened);
                }
            }
        }
    }
    best.0
}

/// A shape of `benches/support/shapes.rs`, revealed at its own cell.
fn shape_case(size: usize, shape: shapes::Shape) -> Case {
    Case {
        group: format!("reveal/{size}x{size}/{}", shape.name),
        board: Arc::new(shape.board),
        prepare: nothing,
        action: Action::Reveal,
        cell: shape.cell,
    }
}

/// The expert board (16x30, 99 mines) placed around a first click in its centre.
fn expert() -> Arc<Board> {
    let zone = FirstClick::Opening.zone(16, 30, 8, 15).expect("on board");
    Arc::new(
        SeededPlacer::new(99)
            .place(&Placement::new(16, 30, 99, zone))
            .expect("valid board"),
    )
}

/// The first numbered safe cell of a board.
fn numbered_cell(board: &Board) -> (usize, usize) {
    (0..board.rows())
        .flat_map(|r| (0..board.cols()).map(move |c| (r, c)))
        .find(|&(r, c)| !board.is_mine(r, c).unwrap_or(true) && board.number(r, c).unwrap_or(0) > 0)
        .expect("the board has a numbered cell")
}

/// Reveals the cell and flags every mine around it, so a chord on it opens the rest.
fn flag_around(game: &mut Game, (r, c): (usize, usize)) {
    game.reveal(r, c).expect("safe cell");
    for nr in r.saturating_sub(1)..=(r + 1).min(game.rows() - 1) {
        for nc in c.saturating_sub(1)..=(c + 1).min(game.cols() - 1) {
            let board = game.board().expect("mines are placed");
            if board.is_mine(nr, nc).expect("on board") {
                game.toggle_flag(nr, nc).expect("hidden cell");
            }
        }
    }
}

/// The numbered cell of the expert board whose chord opens the most cells.
fn best_chord(board: &Arc<Board>) -> (usize, usize) {
    let mut best = ((0, 0), 0);
    for r in 0..board.rows() {
        for c in 0..board.cols() {
            if board.is_mine(r, c).unwrap_or(true) || board.number(r, c).unwrap_or(0) == 0 {
                continue;
            }
            let mut game = Game::new(Arc::clone(board));
            flag_around(&mut game, (r, c));
            let opened = game.chord(r, c).map_or(0, |s| s.opened);
            if opened > best.1 {
                best = ((r, c), opened);
            }
        }
    }
    best.0
}

fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = [0.001, 0.05, 0.10, 0.20]
        .into_iter()
        .map(|d| random_case(1000, 1000, d))
        .collect();
    cases.push(Case {
        group: "reveal/4096x4096/empty".into(),
        board: Arc::new(Board::empty(4096, 4096).expect("valid board")),
        prepare: nothing,
        action: Action::Reveal,
        cell: (0, 0),
    });
    for size in [1000, 4096] {
        cases.push(shape_case(size, shapes::serpentine(size, 4, false)));
        cases.push(shape_case(size, shapes::serpentine(size, 4, true)));
        cases.push(shape_case(size, shapes::serpentine(size, 6, true)));
        cases.push(shape_case(size, shapes::spiral(size)));
        cases.push(shape_case(size, shapes::maze(size, 1)));
    }
    for density in [0.001, 0.05, 0.10, 0.15, 0.20] {
        cases.push(shape_case(
            1000,
            shapes::random_from_centre(1000, density, 7),
        ));
    }
    let board = expert();
    cases.push(Case {
        group: "reveal/expert/first-opening".into(),
        board: Arc::clone(&board),
        prepare: nothing,
        action: Action::Reveal,
        cell: (8, 15),
    });
    cases.push(Case {
        group: "reveal/expert/numbered-cell".into(),
        board: Arc::clone(&board),
        prepare: nothing,
        action: Action::Reveal,
        cell: numbered_cell(&board),
    });
    let chord_cell = best_chord(&board);
    cases.push(Case {
        group: "chord/expert".into(),
        board,
        prepare: flag_around,
        action: Action::Chord,
        cell: chord_cell,
    });
    cases
}

fn bench(c: &mut Criterion) {
    for case in cases() {
        let opened = case.opened();
        let mut group = c.benchmark_group(&case.group);
        group.throughput(Throughput::Elements(opened.max(1) as u64));
        if case.board.rows() * case.board.cols() >= 1 << 20 {
            group.sample_size(10);
        }
        for (name, fill) in [("words", Fill::Words), ("scalar", Fill::Scalar)] {
            let template = case.game(fill);
            group.bench_function(BenchmarkId::new(name, opened), |b| {
                b.iter_batched_ref(
                    || template.clone(),
                    |game| black_box(run(game, case.action, case.cell)),
                    BatchSize::LargeInput,
                );
            });
        }
        let template = case.naive();
        let (r, c) = case.cell;
        let naive_opened = match case.action {
            Action::Reveal => template.clone().reveal(r, c),
            Action::Chord => template.clone().chord(r, c),
        };
        // Never time fills that disagree.
        assert_eq!(
            naive_opened.map(|(opened, _)| opened).ok(),
            Some(opened),
            "{}",
            case.group
        );
        group.bench_function(BenchmarkId::new("naive", opened), |b| {
            b.iter_batched_ref(
                || template.clone(),
                |game| match case.action {
                    Action::Reveal => black_box(game.reveal(r, c)),
                    Action::Chord => black_box(game.chord(r, c)),
                },
                BatchSize::LargeInput,
            );
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
