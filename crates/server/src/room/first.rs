//! The first click is the player's: a co-op room made without `first=ROW,COL` makes its
//! board around the first cell a player reveals, as a desk game does.
//!
//! Until then the room holds a stand-in board ([`crate::log::make_board`]: a plain board
//! with the room's mine count and secret seed) that no view opens a cell of; flags may be
//! placed on it, and help answers from the view alone as ever. The room's first reveal of a
//! game makes the board played around that cell ([`crate::log::around_first`]: the region it
//! opens kept clear, certified from it when the room is no-guess) from a seed the stand-in
//! and the cell decide, moves the view onto it with its flags, and then makes the reveal.
//! The record of that reveal is an ordinary move: recovery replays it on the same stand-in
//! (restored from the snapshot, or made again from the room's seed) and so makes the same
//! board. The clock starts at that move, so the time a board takes to make is nobody's.
//!
//! A room of up to [`INLINE_BOARD_CELLS`] cells makes the board on its worker at once. A
//! larger one asks the server for it as a rematch does ([`Room::board_wanted`]): the reveal
//! waits, every connection is sent progress frames, other moves are refused meanwhile with
//! [`ErrorCode::Busy`] naming why, and the reveal is made and acknowledged when the board is
//! handed back ([`Room::board_made`]), after which the server writes a snapshot at once so
//! that a restart does not make it again. A reveal that was waiting when the server stopped
//! left no record: the room comes back with its stand-in, and the first reveal is asked again.

use std::sync::Arc;
use std::time::Instant;

use bitmines_core::{Board, Cell, Game, Rule};

use super::rematch::Asked;
use super::{ConnId, Room};
use crate::protocol::{Action, ErrorCode, MineRule};

#[cfg(doc)]
use super::INLINE_BOARD_CELLS;

impl Room {
    /// Whether a reveal of `player`'s at (`row`, `col`) is the one the room's board is made
    /// around: the board is still the stand-in, and the cell is hidden (a flagged one is not
    /// revealed).
    pub(super) fn first_reveal(&self, player: usize, row: usize, col: usize) -> bool {
        self.stand_in
            && self
                .players
                .get(player)
                .and_then(|p| self.views.get(p.view))
                .is_some_and(|v| v.game.cell(row, col).is_ok_and(|c| c == Cell::Hidden))
    }

    /// Why a move must wait, while the board of this game is being made around its first
    /// click off the worker.
    pub(super) fn making_first_board(&self) -> Option<String> {
        let asked = self.asked.as_ref()?;
        let (_, (row, col), _) = asked.first?;
        Some(format!(
            "the board is being made around the first click at ({row}, {col}); moves are \
             taken once it is"
        ))
    }

    /// Asks the server for the board around `player`'s first click at `cell`, to be made off
    /// the worker; the move waits in [`Room::board_made`].
    pub(super) fn ask_first_board(
        &mut self,
        player: usize,
        cell: (usize, usize),
        conn: ConnId,
        seq: u32,
        received: Instant,
    ) {
        let (around, seed) = crate::log::around_first(&self.params, &self.board, cell);
        self.asked = Some(Asked {
            game: self.game,
            seed,
            first: Some((player, cell, around)),
            conn,
            seq,
            received,
            handed_out: false,
        });
    }

    /// The board a first click waited for, handed back: the view moves onto it and the
    /// reveal is made and acknowledged; or, if it could not be made, the reveal is refused
    /// with why, and the room keeps its stand-in. True when the reveal was made.
    pub(super) fn first_board_made(
        &mut self,
        player: usize,
        (row, col): (usize, usize),
        asked: &Asked,
        made: Result<Board, String>,
        now: Instant,
    ) -> bool {
        let cell = (row as u32, col as u32);
        let done = made
            .and_then(|board| self.set_first_board(Arc::new(board)))
            .map_err(|e| {
                let why = format!("the board around ({row}, {col}) could not be made: {e}");
                (ErrorCode::Storage, why)
            })
            .and_then(|()| {
                let (conn, seq, received) = (asked.conn, asked.seq, asked.received);
                self.commit_move(player, conn, seq, Action::Reveal, cell, received, now)
            });
        match done {
            Ok(()) => true,
            Err(refusal) => {
                self.error(asked.conn, asked.seq, refusal);
                false
            }
        }
    }

    /// Moves the room from its stand-in onto `board`, made around the first click: each
    /// view's game starts again on it with the flags it had (nothing else was open; only a
    /// co-op room has a stand-in, and a co-op view knows each of its flags' owner).
    pub(super) fn set_first_board(&mut self, board: Arc<Board>) -> Result<(), String> {
        let rule = match self.params.rule {
            MineRule::Classic => Rule::Classic,
            MineRule::Endless => Rule::Endless,
        };
        let mut games = Vec::with_capacity(self.views.len());
        for slot in &self.views {
            let mut game = Game::try_new(Arc::clone(&board))
                .map_err(|e| e.to_string())?
                .with_rule(rule);
            // A co-op view knows who placed each of its flags, so it knows them all.
            for &cell in slot.flag_owner.keys() {
                let (r, c) = (cell / self.params.cols, cell % self.params.cols);
                game.toggle_flag(r, c).map_err(|e| e.to_string())?;
            }
            games.push(game);
        }
        for (slot, game) in self.views.iter_mut().zip(games) {
            slot.game = game;
        }
        self.board = board;
        self.bbbv = None;
        self.stand_in = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{Record, around_first, make_board};
    use crate::metrics::Metrics;
    use crate::params::RoomParams;
    use crate::protocol::Mode;
    use crate::room::fresh_room;
    use bitmines_core::Status;

    fn params(rule: MineRule, no_guess: bool) -> RoomParams {
        RoomParams {
            rows: 16,
            cols: 30,
            mines: 99,
            mode: Mode::Coop,
            rule,
            no_guess,
            first: None,
            countdown: false,
        }
    }

    fn mv(player: u32, action: Action, row: u32, col: u32) -> Record {
        Record::Move {
            player,
            action,
            row,
            col,
            at_ms: 0,
        }
    }

    /// A room of `params` and `seed` with two players and `records` applied.
    fn played(params: &RoomParams, seed: u64, records: &[Record]) -> Room {
        let now = Instant::now();
        let mut room = fresh_room(params, seed, 256, Arc::new(Metrics::default()), now).unwrap();
        for player in 0..2 {
            let join = Record::Join {
                player,
                token: [player as u8; 16],
                name: format!("p{player}"),
            };
            room.apply_record(&join, now).unwrap();
        }
        for record in records {
            room.apply_record(record, now).unwrap();
        }
        room
    }

    /// The cells of a 16x30 game, as its player sees them.
    fn cells(game: &Game) -> Vec<Cell> {
        (0..16)
            .flat_map(|r| (0..30).map(move |c| (r, c)))
            .map(|(r, c)| game.cell(r, c).unwrap())
            .collect()
    }

    #[test]
    fn the_board_is_made_around_the_first_reveal_keeping_the_flags() {
        for (rule, no_guess) in [
            (MineRule::Classic, false),
            (MineRule::Endless, false),
            (MineRule::Classic, true),
        ] {
            let params = params(rule, no_guess);
            for (seed, click) in [(1, (0, 0)), (2, (15, 29)), (3, (7, 12)), (4, (0, 17))] {
                let what = format!("{rule:?}, no-guess {no_guess}, seed {seed}, click {click:?}");
                let (row, col) = (click.0 as u32, click.1 as u32);
                // Nothing is open before the first reveal: no view shows a cell of the
                // stand-in.
                let flagged = (5, 5);
                let before = played(&params, seed, &[mv(1, Action::Flag, 5, 5)]);
                let view = before.games().next().unwrap();
                assert_eq!(view.revealed_count(), 0, "{what}");
                assert!(before.first_reveal(0, click.0, click.1), "{what}");
                // A flagged cell is not revealed, so it makes no board.
                assert!(!before.first_reveal(0, flagged.0, flagged.1), "{what}");

                let records = [mv(1, Action::Flag, 5, 5), mv(0, Action::Reveal, row, col)];
                let room = played(&params, seed, &records);
                let game = room.games().next().unwrap();
                // The board is the one the stand-in and the click decide, with the click's
                // region clear: the click opened a zero and its cascade.
                let stand_in = make_board(&params, seed).unwrap();
                let (around, board_seed) = around_first(&params, &stand_in, click);
                let board = make_board(&around, board_seed).unwrap();
                assert_eq!(room.board().mine_words(), board.mine_words(), "{what}");
                assert_ne!(board.mine_words(), stand_in.mine_words(), "{what}");
                assert_eq!(
                    game.cell(click.0, click.1).unwrap(),
                    Cell::Open(0),
                    "{what}"
                );
                assert_eq!(game.status(), Status::Playing, "{what}");
                // The flag placed on the stand-in stands (unless the cascade took its cell:
                // a flag on a cell proven safe by a zero is opened by it).
                let flag = game.cell(flagged.0, flagged.1).unwrap();
                assert!(
                    flag == Cell::Flagged || matches!(flag, Cell::Open(_)),
                    "{what}"
                );
                let mut expected = Game::try_new(Arc::new(board)).unwrap();
                if flag == Cell::Flagged {
                    expected.toggle_flag(flagged.0, flagged.1).unwrap();
                }
                expected.reveal(click.0, click.1).unwrap();
                assert_eq!(cells(game), cells(&expected), "{what}");
                room.validate().unwrap();
                // Replayed (as recovery does), the same records make the same board and view.
                let again = played(&params, seed, &records);
                assert_eq!(
                    again.board().mine_words(),
                    room.board().mine_words(),
                    "{what}"
                );
                assert_eq!(cells(again.games().next().unwrap()), cells(game), "{what}");
                // A second reveal is an ordinary move: the board stays.
                let mut more = records.to_vec();
                more.push(mv(1, Action::Reveal, 15 - row, 29 - col));
                let later = played(&params, seed, &more);
                assert_eq!(
                    later.board().mine_words(),
                    room.board().mine_words(),
                    "{what}"
                );
            }
        }
    }

    #[test]
    fn another_click_makes_another_board_and_a_room_given_its_first_click_none() {
        let params = params(MineRule::Classic, false);
        let a = played(&params, 9, &[mv(0, Action::Reveal, 0, 0)]);
        let b = played(&params, 9, &[mv(0, Action::Reveal, 15, 29)]);
        assert_ne!(a.board().mine_words(), b.board().mine_words());
        let given = RoomParams {
            first: Some((8, 15)),
            ..params
        };
        let room = played(&given, 9, &[]);
        assert!(!room.first_reveal(0, 0, 0));
        let c = played(&given, 9, &[mv(0, Action::Reveal, 0, 0)]);
        assert_eq!(c.board().mine_words(), room.board().mine_words());
    }
}
