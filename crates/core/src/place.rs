//! Deferred mine placement: the first click, its policy, and the placers that honour it.
//!
//! `FirstClick` says which cells the first reveal keeps clear, `Zone` is that rectangle,
//! `Placer` builds the board once the click is known (any closure works), and `SeededPlacer`
//! is the simple uniform one on `rand_pcg`. `Zone`'s serde lives here, next to its private
//! fields.
//!
//! A seed names a board together with its placer: `SeededPlacer` (`Game::seeded`, and
//! `winrate` and `demo` on the command line) and `bitmines-gen`'s `generate` (`gen` and
//! `stress`; its `Generator` placer for `play`) place mines two ways, and the same seed gives
//! each its own board, each pinned by fixed-output tests (`tests/seeded.rs` here). A game
//! remembers its seed (`Game::seed`), and a saved game records it.

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::plane::Plane;
use crate::{Board, Error, Geometry};

/// What the first reveal of a deferred game is promised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum FirstClick {
    /// Nothing: the first click may hit a mine.
    Unprotected,
    /// The clicked cell is safe.
    Safe,
    /// The clicked cell and its neighbours are safe, so the first click opens a cascade.
    #[default]
    Opening,
}

/// The rule's name as the command line, the server and the files spell it: `none`, `safe` or
/// `opening`.
impl std::fmt::Display for FirstClick {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FirstClick::Unprotected => "none",
            FirstClick::Safe => "safe",
            FirstClick::Opening => "opening",
        })
    }
}

impl FirstClick {
    /// The cells kept clear when the first click lands on `(row, col)` of a `rows x cols`
    /// board. The coordinates must be on the board.
    pub fn zone(self, rows: usize, cols: usize, row: usize, col: usize) -> Result<Zone, Error> {
        if row >= rows || col >= cols {
            return Err(Error::OffBoard {
                row,
                col,
                rows,
                cols,
            });
        }
        let reach = usize::from(self == FirstClick::Opening);
        let (rows_kept, cols_kept) = match self {
            FirstClick::Unprotected => (0..0, 0..0),
            _ => (
                row.saturating_sub(reach)..row.saturating_add(reach + 1).min(rows),
                col.saturating_sub(reach)..col.saturating_add(reach + 1).min(cols),
            ),
        };
        Ok(Zone {
            rows: rows_kept,
            cols: cols_kept,
        })
    }

    /// The most cells this policy keeps clear on a `rows x cols` board, wherever the first
    /// click lands.
    pub fn max_kept_clear(self, rows: usize, cols: usize) -> usize {
        match self {
            FirstClick::Unprotected => 0,
            FirstClick::Safe => 1.min(rows).min(cols),
            FirstClick::Opening => rows.min(3) * cols.min(3),
        }
    }

    /// The most mines a deferred `rows x cols` game may hold under this policy, so that
    /// every first click leaves room for them.
    pub fn max_mines(self, rows: usize, cols: usize) -> usize {
        rows.saturating_mul(cols) - self.max_kept_clear(rows, cols)
    }

    /// `TooManyMines` unless `mines` fit a `rows x cols` board under this policy.
    pub fn check_mines(self, rows: usize, cols: usize, mines: usize) -> Result<(), Error> {
        let max = self.max_mines(rows, cols);
        if mines > max {
            return Err(Error::TooManyMines {
                mines,
                max,
                rows,
                cols,
                policy: self,
            });
        }
        Ok(())
    }
}

/// The rectangle of cells a placer must keep free of mines (empty for
/// [`FirstClick::Unprotected`]).
///
/// A zone is what [`FirstClick::zone`] makes, or the empty default: no cell, or 1 to 3 rows
/// by 1 to 3 columns. With the `serde` feature it serializes as its row and column ranges
/// (`{"rows":{"start":4,"end":7},"cols":{"start":0,"end":2}}` in JSON), and deserializing
/// refuses any other shape, so a zone read from outside is never larger than a first click
/// keeps clear.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Zone {
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
}

impl Default for Zone {
    /// No cell kept clear.
    fn default() -> Zone {
        Zone {
            rows: 0..0,
            cols: 0..0,
        }
    }
}

impl Zone {
    /// The rows of the zone.
    pub fn rows(&self) -> std::ops::Range<usize> {
        self.rows.clone()
    }

    /// The columns of the zone.
    pub fn cols(&self) -> std::ops::Range<usize> {
        self.cols.clone()
    }

    /// Whether `(row, col)` must stay clear.
    pub fn contains(&self, row: usize, col: usize) -> bool {
        self.rows.contains(&row) && self.cols.contains(&col)
    }

    /// The cells to keep clear, row by row.
    pub fn cells(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.rows
            .clone()
            .flat_map(move |r| self.cols.clone().map(move |c| (r, c)))
    }

    /// How many cells are kept clear.
    pub fn len(&self) -> usize {
        self.rows.len() * self.cols.len()
    }

    /// Whether no cell is kept clear.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a deferred game asks of its [`Placer`] on the first reveal.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Placement {
    /// Rows of the board to build.
    pub rows: usize,
    /// Columns of the board to build.
    pub cols: usize,
    /// Exactly how many mines to place.
    pub mines: usize,
    /// The cells that must hold no mine.
    pub zone: Zone,
}

impl Placement {
    /// A request for `mines` mines on a `rows x cols` board, none in `zone`.
    pub fn new(rows: usize, cols: usize, mines: usize, zone: Zone) -> Placement {
        Placement {
            rows,
            cols,
            mines,
            zone,
        }
    }
}

/// Builds the board of a deferred game once its first click is known.
///
/// A placer must return a `rows x cols` board with exactly `mines` mines and none in the
/// zone; a game checks this and answers [`Error::BadPlacement`] otherwise. Any
/// `Fn(&Placement) -> Result<Board, Error>` closure is a placer, and so is [`SeededPlacer`].
pub trait Placer: Send + Sync {
    /// Builds the board for `request`.
    fn place(&self, request: &Placement) -> Result<Board, Error>;

    /// The seed the boards are drawn from, if the placer has one, so a game can remember
    /// it ([`Game::seed`](crate::Game::seed)). None by default.
    fn seed(&self) -> Option<u64> {
        None
    }
}

impl<F> Placer for F
where
    F: Fn(&Placement) -> Result<Board, Error> + Send + Sync,
{
    fn place(&self, request: &Placement) -> Result<Board, Error> {
        self(request)
    }
}

/// A simple seeded placer: uniform over every layout that keeps the zone clear, and the
/// same board for the same seed and request.
///
/// It draws cells with a `Pcg64` and rejects those already taken or in the zone; above half
/// the free cells it draws the holes instead. That is fine for games of any size people play;
/// `bitmines-gen` places million-cell boards in parallel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SeededPlacer {
    seed: u64,
}

impl SeededPlacer {
    /// A placer drawing from `seed`.
    pub fn new(seed: u64) -> SeededPlacer {
        SeededPlacer { seed }
    }
}

impl SeededPlacer {
    /// A uniformly random `rows x cols` board with exactly `mines` mines and no cell kept clear.
    ///
    /// ```
    /// let board = bitmines_core::SeededPlacer::new(42).board(16, 30, 99)?;
    /// assert_eq!(board.mine_count(), 99);
    /// # Ok::<(), bitmines_core::Error>(())
    /// ```
    pub fn board(&self, rows: usize, cols: usize, mines: usize) -> Result<Board, Error> {
        FirstClick::Unprotected.check_mines(rows, cols, mines)?;
        self.place(&Placement::new(rows, cols, mines, Zone::default()))
    }
}

impl Placer for SeededPlacer {
    fn seed(&self) -> Option<u64> {
        Some(self.seed)
    }

    fn place(&self, request: &Placement) -> Result<Board, Error> {
        let geometry = Geometry::new(request.rows, request.cols)?;
        let cells = geometry.cells();
        // A zone made for another board may reach past this one: count only its cells here.
        let kept = request
            .zone
            .cells()
            .filter(|&(r, c)| r < request.rows && c < request.cols)
            .count();
        let free = cells - kept;
        if request.mines > free {
            return Err(Error::BadPlacement {
                reason: format!("{} mines do not fit in {free} free cells", request.mines),
            });
        }
        let mut rng = Pcg64::seed_from_u64(self.seed);
        let invert = request.mines > free / 2;
        let draws = if invert {
            free - request.mines
        } else {
            request.mines
        };
        let mut drawn = Plane::zeroed(&geometry)?;
        let mut taken = 0;
        while taken < draws {
            let i = below(&mut rng, cells as u64) as usize;
            let (row, col) = (i / request.cols, i % request.cols);
            let bit = geometry.bit_unchecked(row, col);
            if !request.zone.contains(row, col) && !drawn.get(bit) {
                drawn.set(bit);
                taken += 1;
            }
        }
        if invert {
            // The drawn cells are the holes: every other free cell is a mine.
            let mut mines = Plane::zeroed(&geometry)?;
            for row in 0..request.rows {
                for col in 0..request.cols {
                    let bit = geometry.bit_unchecked(row, col);
                    if !request.zone.contains(row, col) && !drawn.get(bit) {
                        mines.set(bit);
                    }
                }
            }
            drawn = mines;
        }
        Board::from_plane(geometry, drawn, request.mines)
    }
}

/// A uniform integer in `0..n` (`n > 0`), by Lemire's multiply-and-reject.
fn below(rng: &mut Pcg64, n: u64) -> u64 {
    let threshold = n.wrapping_neg() % n;
    loop {
        let m = u128::from(rng.next_u64()) * u128::from(n);
        if (m as u64) >= threshold {
            return (m >> 64) as u64;
        }
    }
}

/// A zone as serde sees it: its row and column ranges.
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename = "Zone")]
struct ZoneFields {
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
}

#[cfg(feature = "serde")]
impl serde::Serialize for Zone {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ZoneFields {
            rows: self.rows(),
            cols: self.cols(),
        }
        .serialize(serializer)
    }
}

/// Refuses a zone no first click makes: it is either empty (`0..0` by `0..0`) or 1 to 3 rows
/// by 1 to 3 columns.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Zone {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Zone, D::Error> {
        let ZoneFields { rows, cols } = ZoneFields::deserialize(deserializer)?;
        let spans = |range: &std::ops::Range<usize>| (1..=3).contains(&range.len());
        let empty = rows == (0..0) && cols == (0..0);
        let first_click = spans(&rows) && spans(&cols);
        if !(empty || first_click) {
            return Err(serde::de::Error::custom(format!(
                "rows {rows:?} by columns {cols:?} is not a zone a first click keeps clear: \
                 that is empty (0..0 by 0..0) or 1 to 3 rows by 1 to 3 columns"
            )));
        }
        Ok(Zone { rows, cols })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_clip_at_edges() {
        assert_eq!(FirstClick::Opening.zone(5, 5, 0, 0).unwrap().len(), 4);
        assert_eq!(FirstClick::Opening.zone(5, 5, 2, 2).unwrap().len(), 9);
        assert_eq!(FirstClick::Opening.zone(1, 1, 0, 0).unwrap().len(), 1);
        assert_eq!(
            FirstClick::Safe
                .zone(5, 5, 4, 4)
                .unwrap()
                .cells()
                .collect::<Vec<_>>(),
            [(4, 4)]
        );
        assert!(FirstClick::Unprotected.zone(5, 5, 1, 1).unwrap().is_empty());
        assert_eq!(
            FirstClick::Safe.zone(5, 5, 5, 0),
            Err(Error::OffBoard {
                row: 5,
                col: 0,
                rows: 5,
                cols: 5
            })
        );
    }

    #[test]
    fn zones_and_placements_from_extreme_input_are_errors_or_values() {
        let zone = FirstClick::Opening
            .zone(usize::MAX, usize::MAX, usize::MAX - 1, usize::MAX - 1)
            .unwrap();
        assert_eq!(zone.len(), 4);
        // A zone from a larger board leaves the 1x1 board its one cell.
        let big = FirstClick::Opening.zone(5, 5, 2, 2).unwrap();
        let board = SeededPlacer::new(1)
            .place(&Placement::new(1, 1, 1, big.clone()))
            .unwrap();
        assert_eq!(board.mine_count(), 1);
        assert!(matches!(
            SeededPlacer::new(1).place(&Placement::new(1, 1, 2, big)),
            Err(Error::BadPlacement { .. })
        ));
        assert!(matches!(
            SeededPlacer::new(1).board(3, 3, 10),
            Err(Error::TooManyMines {
                mines: 10,
                max: 9,
                ..
            })
        ));
        assert!(matches!(
            SeededPlacer::new(1).board(0, 3, 0),
            Err(Error::EmptyBoard { rows: 0, cols: 3 })
        ));
    }

    #[test]
    fn seeded_placer_is_exact_and_keeps_the_zone_clear() {
        for (rows, cols, mines) in [(9, 9, 10), (16, 30, 99), (5, 5, 16), (4, 4, 0), (3, 7, 12)] {
            for seed in 0..20 {
                let zone = FirstClick::Opening
                    .zone(rows, cols, rows / 2, cols / 2)
                    .unwrap();
                let request = Placement {
                    rows,
                    cols,
                    mines,
                    zone: zone.clone(),
                };
                let board = SeededPlacer::new(seed).place(&request).unwrap();
                let placed: usize = (0..rows)
                    .flat_map(|r| (0..cols).map(move |c| (r, c)))
                    .filter(|&(r, c)| board.is_mine(r, c).unwrap())
                    .count();
                assert_eq!((placed, board.mine_count()), (mines, mines));
                assert!(zone.cells().all(|(r, c)| !board.is_mine(r, c).unwrap()));
                assert_eq!(board, SeededPlacer::new(seed).place(&request).unwrap());
            }
        }
    }
}
