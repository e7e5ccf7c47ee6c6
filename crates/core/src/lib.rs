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
//!
//! # What is public, and why
//!
//! [`Board`] and [`Game`] with their moves, [`Cell`], [`Status`], [`Reveal`] and [`Fill`] (the
//! cascade, chosen per game); [`Geometry`], because the planes' padded layout is part of what
//! [`Board::from_mine_words`], [`View::revealed_words`] and the binary format promise;
//! [`View`], [`Position`] and [`AsView`], the only door a solver has (numbers of revealed
//! cells, never the mines); [`FirstClick`], [`Zone`], [`Placement`], [`Placer`] and
//! [`SeededPlacer`] for deferred games; [`Stats`]; one [`Error`]. The modules [`binary`],
//! [`formats`], [`saved`], [`leetcode`], [`stats`], [`cascade`] and [`view`] are public because
//! each is a format or a tool a user calls by name (both fills are public so that a user can
//! check one against the other).
//!
//! Hidden (`#[doc(hidden)]`), public only because another bitmines crate needs them, and free
//! to change in any release: `View::number_words` and `View::number_planes` (read by the
//! solver's planes), and `Board::from_mine_words_with` with `ZeroJob` (the seam through which
//! `bitmines-gen` builds the zero plane on rayon). `view::neighbour_count`, once public, is
//! private.
//!
//! `bitvec`'s `BitSlice` appears in three read-only row views ([`Board::mine_row`],
//! [`Game::revealed_row`], [`Game::flagged_row`]), kept deliberately: it lends a row without a
//! copy, with the full slice API (`count_ones`, `iter_ones`, ranges). This makes bitvec 1.x
//! part of this crate's public API: moving to a bitvec 2 would be a breaking release. Users
//! who want no bitvec type read cells with [`Board::is_mine`] and [`Game::cell`], whole padded
//! planes with [`View::revealed_words`] and [`View::flagged_words`], or 64 cells of a row from
//! any column with [`Game::revealed_word`] and [`Game::flagged_word`].
//!
//! No public function panics on its input: bad sizes, coordinates, text and placements are
//! [`Error`] variants that name the value and the bound. The crate, like `bitmines-gen` and
//! `bitmines-solve`, sets clippy's `unwrap_used`, `expect_used`, `panic` and
//! `indexing_slicing` to warn outside tests (CI denies warnings); the modules that index
//! planes by word (`plane`, `board`, `view`, `stats`, the fills, the batch moves and
//! `rebase`) allow `indexing_slicing` with the reason: every index there is formed from the
//! plane's own [`Geometry`], after the public entry point checked the coordinates.
//! [`Geometry::new`] refuses sizes whose padded planes could not be addressed in bits, so
//! every size product formed from a valid geometry fits a `usize`.

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
