//! Wrong flags (protocol 0x0b, answered by 0x8b): the flags of a window that the view's own
//! numbers prove to stand on safe cells. Computed from the view alone: a flag that only the
//! truth knows to be wrong is never named, and two boards that look the same give the same
//! answer.

mod support;

use std::sync::Arc;
use std::time::Duration;

use bitmines_core::{Board, Cell, Game};
use bitmines_server::params::RoomParams;
use bitmines_server::protocol::{ChunkRect, ClientMsg, ErrorCode, MineRule, Mode, ServerMsg};
use bitmines_server::room::{ViewCells, window_wrong_flags};
use support::Recorder;

/// The game after the first click at (0, 0) and the flags given.
fn game(board: &str, flags: &[(usize, usize)]) -> Game {
    let board: Board = board.parse().unwrap();
    let mut game = Game::new(Arc::new(board));
    game.reveal(0, 0).unwrap();
    for &(r, c) in flags {
        game.toggle_flag(r, c).unwrap();
    }
    game
}

fn wrong(game: &Game, mines: usize) -> Vec<(u32, u32)> {
    let params = RoomParams {
        rows: game.rows(),
        cols: game.cols(),
        mines,
        mode: Mode::Coop,
        rule: MineRule::Classic,
        no_guess: false,
        first: Some((0, 0)),
        countdown: false,
    };
    let cell = |r: usize, c: usize| game.cell(r, c).unwrap();
    let view = ViewCells {
        params: &params,
        cell: &cell,
        revealed: game.revealed_count(),
        exploded: 0,
    };
    window_wrong_flags(&view, 1, 1).unwrap()
}

// After the first click, (2, 0) and (2, 1) are proven mines, (3, 1) proven safe, and (3, 0)
// touches no revealed number: nothing the player sees tells what it is.
const BOARD: &str = "\
....
....
**..
....
";
// The same view, with a mine where nothing shows it.
const TWIN: &str = "\
....
....
**..
*...
";

#[test]
fn a_flag_the_numbers_prove_safe_is_named_and_no_other() {
    type Case = (&'static [(usize, usize)], &'static [(u32, u32)]);
    let cases: [Case; 5] = [
        (&[], &[]),
        (&[(3, 1)], &[(3, 1)]),
        (&[(2, 0), (2, 1)], &[]),
        // Wrong in truth, but nothing on the view proves it: never named.
        (&[(3, 0)], &[]),
        (&[(3, 0), (3, 1), (2, 1)], &[(3, 1)]),
    ];
    for (flags, expected) in cases {
        let g = game(BOARD, flags);
        assert_eq!(wrong(&g, 2), expected, "flags {flags:?}");
    }
}

#[test]
fn the_answer_is_the_views_not_the_truths() {
    for flags in [&[(3, 0)][..], &[(3, 1)], &[(3, 0), (3, 1)], &[(2, 0)]] {
        let (a, b) = (game(BOARD, flags), game(TWIN, flags));
        // The two boards differ under (3, 0), and the views are the same cell for cell.
        for r in 0..4 {
            for c in 0..4 {
                assert_eq!(a.cell(r, c).unwrap(), b.cell(r, c).unwrap());
            }
        }
        assert_eq!(wrong(&a, 2), wrong(&b, 3), "flags {flags:?}");
    }
    // And a picture with no board behind it at all gives the same answer.
    let g = game(BOARD, &[(3, 1), (3, 0)]);
    let picture: Vec<Cell> = (0..16).map(|i| g.cell(i / 4, i % 4).unwrap()).collect();
    let params = RoomParams {
        rows: 4,
        cols: 4,
        mines: 2,
        mode: Mode::Race,
        rule: MineRule::Classic,
        no_guess: false,
        first: Some((0, 0)),
        countdown: false,
    };
    let cell = |r: usize, c: usize| picture[r * 4 + c];
    let view = ViewCells {
        params: &params,
        cell: &cell,
        revealed: g.revealed_count(),
        exploded: 0,
    };
    assert_eq!(window_wrong_flags(&view, 3, 3).unwrap(), vec![(3, 1)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_the_wire_a_player_asks_and_a_spectator_may_not() {
    let server = support::start().await;
    let url = server.url("flags", "preset=beginner&mode=coop&noguess=1");
    let mut p = Recorder::join(&url).await;
    p.send(ClientMsg::Subscribe(ChunkRect::one(0, 0))).await;
    p.until(|m| matches!(m, ServerMsg::Chunk { .. })).await;
    // A cell the view proves safe, from the player's own picture: flag it, then ask. It must
    // be proven by the rules a window answers with (the trivial and pair rules, no mine
    // count); while none is, a cell the full solver proves safe is opened first.
    let mut seq = 100;
    let (r, c) = loop {
        let mut position = bitmines_core::Position::new(9, 9, 10).unwrap();
        for (_, r, c, state) in p.picture.cells() {
            if state <= 8 {
                position.reveal(r, c, state).unwrap();
            }
        }
        let mut solver = bitmines_solve::Solver::new(&position).unwrap();
        solver.deduce().unwrap();
        if let Some(cell) = solver.into_certain().safe().next() {
            break cell;
        }
        let full = bitmines_solve::certain(&position).unwrap();
        let (r, c) = full.safe().next().expect("a no-guess board proves a cell");
        seq += 1;
        let open = ClientMsg::Move {
            seq,
            action: bitmines_server::protocol::Action::Reveal,
            row: r as u32,
            col: c as u32,
        };
        assert!(matches!(p.act(open).await, ServerMsg::Ack { .. }));
    };
    let flag = ClientMsg::Move {
        seq: 1,
        action: bitmines_server::protocol::Action::Flag,
        row: r as u32,
        col: c as u32,
    };
    assert!(matches!(
        p.act(flag).await,
        ServerMsg::Ack { flagged: true, .. }
    ));
    let answer = p
        .act(ClientMsg::WrongFlags {
            seq: 2,
            row: 4,
            col: 4,
        })
        .await;
    assert_eq!(
        answer,
        ServerMsg::WrongFlags {
            seq: 2,
            cells: vec![(r as u32, c as u32)]
        }
    );
    let off = p
        .act(ClientMsg::WrongFlags {
            seq: 3,
            row: 9,
            col: 0,
        })
        .await;
    assert!(
        matches!(off, ServerMsg::Error { seq: 3, code, .. } if code == ErrorCode::OffBoard as u16),
        "{off:?}"
    );

    let mut watcher = Recorder::join(&server.url("flags", "spectate=1")).await;
    let refused = watcher
        .act(ClientMsg::WrongFlags {
            seq: 7,
            row: 4,
            col: 4,
        })
        .await;
    assert!(
        matches!(refused, ServerMsg::Error { seq: 7, code, .. } if code == ErrorCode::NotAllowed as u16),
        "{refused:?}"
    );
    watcher.drain(Duration::from_millis(50)).await;
    server.stop().await;
}
