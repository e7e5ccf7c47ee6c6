//! A Minesweeper engine on bitset planes.
//!
//! - [`Board`] is the truth: a plane of mines and a plane of zero cells, immutable and
//!   shareable behind an `Arc`.
//! - [`Game`] is one player's view of a board: revealed and flagged planes, counters and a
//!   [`Status`]. Many games may share one board.
//! - A game is played under a [`Rule`]: [`Rule::Classic`], where the first mine revealed
//!   loses, or [`Rule::Endless`], where a revealed mine explodes, stays shown, and play goes
//!   on (for huge boards shared by many players).
//! - Every plane is padded with a one-cell sentinel border and rows aligned to 64-bit words
//!   ([`Geometry`]), so the cascade runs over flat word indices with no bounds checks.
//! - The cascade is word-parallel by default; [`Fill::Scalar`] is the cell-by-cell reference.
//!
//! ```
//! use bitmines_core::{Board, Cell, Game, Status};
//!
//! let board: Board = "\
//! .....
//! ..*..
//! .....
//! .....
//! "
//! .parse()?;
//! let mut game = Game::new(board);
//! let step = game.reveal(3, 0)?; // a zero cell: the cascade opens everything it can reach
//! assert_eq!(step.opened, 18); // all but the mine and the cell above it
//! assert_eq!(game.cell(1, 1)?, Cell::Open(1));
//! assert_eq!(game.toggle_flag(1, 2)?, true);
//! let step = game.chord(1, 1)?; // one flag next to a 1: open its other neighbours
//! assert_eq!(step.status, Status::Won);
//! # Ok::<(), bitmines_core::Error>(())
//! ```
//!
//! Games can start before their mines exist, so the first click is never a mine:
//!
//! ```
//! use bitmines_core::{Game, Status};
//!
//! let mut game = Game::seeded(16, 30, 99, 7)?; // expert, seed 7, first click opens
//! let step = game.reveal(8, 15)?;
//! assert!(step.opened >= 1);
//! assert_eq!(step.status, Status::Playing);
//! # Ok::<(), bitmines_core::Error>(())
//! ```
//!
//! Boards and games have text forms ([`formats`]), a binary board format ([`binary`]) and a
//! binary saved-game format ([`saved`]); each reader checks everything, so what it reads is
//! a board or a game the engine could hold. With the `serde` feature, `Board` and `Game`
//! implement `Serialize` and `Deserialize` as the bytes of their binary formats, which carry
//! their version, and deserializing runs the same checked readers.

// No input may make the library panic: outside tests, no unwrap, expect, panic or unchecked
// indexing. Modules whose hot loops index planes by word allow indexing, saying why.
#![cfg_attr(
    not(test),
    warn(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadme;

pub mod binary;
mod board;
pub mod cascade;
mod error;
pub mod formats;
mod game;
mod geometry;
pub mod leetcode;
mod place;
mod plane;
pub mod saved;
#[cfg(feature = "serde")]
mod serde_impls;
pub mod stats;
pub mod view;

pub use board::Board;
#[doc(hidden)]
pub use board::ZeroJob;
pub use cascade::Fill;
pub use error::Error;
pub use game::tiled;
pub use game::tiled::{Move, Tile, TiledGame};
pub use game::{Cell, Game, Reveal, Rule, Status};
pub use geometry::Geometry;
pub use place::{FirstClick, Placement, Placer, SeededPlacer, Zone};
pub use stats::Stats;
pub use view::{AsView, Position, View};

// Boards are shared by `Arc` across threads, and games move between them.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Board>();
    send_sync::<Game>();
};
