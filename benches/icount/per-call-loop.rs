// The truth player's per-call loop (`src/stress/mod.rs`'s `play`: `Player::plan`, then
// `Table::apply` on each act) over the board of the `stress/truth/1000x1000-density-0.15` case,
// for counting a checkout of any commit since stress began: copy it to `examples/`, replace
// `TABLE_NEW` by that commit's table constructor (docs/performance.md gives the commands).
use std::hint::black_box;
use std::sync::Arc;

use bitmines_core::{Board, FirstClick, Game, Status};

#[path = "../tests/naive/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod naive;
#[path = "../tests/common/moves.rs"]
#[allow(dead_code)]
mod moves;
#[path = "../src/stress"]
#[allow(dead_code, unreachable_pub)]
mod stress {
    #[path = "play.rs"]
    pub(crate) mod play;
    #[path = "walk.rs"]
    pub(crate) mod walk;
}
use stress::play::{Player, PlayerKind, Table};
use stress::walk::TileWalk;

#[inline(never)]
fn measured(work: &mut dyn FnMut()) {
    work();
}

fn main() {
    let zone = FirstClick::Opening.zone(1000, 1000, 500, 500).expect("on board");
    let config = bitmines_gen::Config::new(1000, 1000, 150_000, 1).keep_clear(zone);
    let board: Arc<Board> = Arc::new(bitmines_gen::generate(&config).expect("board"));
    let mut table = TABLE_NEW;
    let player = Player::new(PlayerKind::Truth, 1);
    let mut acts = Vec::with_capacity(16);
    let mut visited = 0u64;
    measured(&mut || {
        let mut step = |table: &mut Table, cell: (usize, usize)| {
            acts.clear();
            player.plan(&table.game, &board, cell, &mut acts).expect("plans");
            for &act in &acts {
                table.apply(act).expect("applies");
                if table.game.status() != Status::Playing {
                    break;
                }
            }
        };
        step(&mut table, (500, 500));
        TileWalk::new(1000, 1000, 1).run(|r, c| {
            if table.game.status() != Status::Playing {
                return false;
            }
            visited += 1;
            step(&mut table, (r, c));
            true
        });
    });
    let game: &Game = &table.game;
    println!(
        "{} touched, {visited} visited, {:?}",
        black_box(table.calls.touched()),
        game.status()
    );
}
