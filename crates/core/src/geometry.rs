//! Flat index arithmetic for padded planes.
//!
//! A board of `rows x cols` cells lives inside a plane of `rows + 2` padded rows. Each padded
//! row holds a sentinel cell, the `cols` cells, a second sentinel cell, and zero or more padding
//! bits up to the next multiple of 64, so every padded row starts on a word boundary. The word
//! above word `w` is `w - words_per_row`, the word below is `w + words_per_row`, and no
//! cell of the board has a neighbour outside the plane.

use crate::Error;

/// Bits in one word of a plane.
pub(crate) const WORD_BITS: usize = 64;

/// The shape of a board and the layout of its padded planes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Geometry {
    rows: usize,
    cols: usize,
    words_per_row: usize,
}

impl Geometry {
    /// Checks a board size: at least 1x1, and small enough that every padded plane can be
    /// addressed in bits by a `usize`.
    pub fn new(rows: usize, cols: usize) -> Result<Geometry, Error> {
        if rows == 0 || cols == 0 {
            return Err(Error::EmptyBoard { rows, cols });
        }
        let too_large = Error::TooLarge { rows, cols };
        let words_per_row = cols
            .checked_add(2)
            .ok_or(too_large.clone())?
            .div_ceil(WORD_BITS);
        let words = rows
            .checked_add(2)
            .and_then(|r| r.checked_mul(words_per_row))
            .ok_or(too_large.clone())?;
        // Bit indices and byte sizes must also fit.
        words.checked_mul(WORD_BITS).ok_or(too_large)?;
        Ok(Geometry {
            rows,
            cols,
            words_per_row,
        })
    }

    /// Rows of the board (sentinels not counted).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns of the board (sentinels not counted).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Cells of the board, `rows * cols`.
    pub fn cells(&self) -> usize {
        // Cannot overflow: `new` checked the larger padded product.
        self.rows * self.cols
    }

    /// Words in one padded row.
    pub fn words_per_row(&self) -> usize {
        self.words_per_row
    }

    /// Words in one padded plane, `(rows + 2) * words_per_row`.
    pub fn words(&self) -> usize {
        (self.rows + 2) * self.words_per_row
    }

    /// Bytes of one padded plane.
    pub fn plane_bytes(&self) -> usize {
        self.words() * (WORD_BITS / 8)
    }

    /// The bit index of cell `(row, col)` in a padded plane, or `OffBoard`.
    pub fn bit(&self, row: usize, col: usize) -> Result<usize, Error> {
        if row < self.rows && col < self.cols {
            Ok(self.bit_unchecked(row, col))
        } else {
            Err(Error::OffBoard {
                row,
                col,
                rows: self.rows,
                cols: self.cols,
            })
        }
    }

    /// The bit index of a cell already known to be on the board.
    pub(crate) fn bit_unchecked(&self, row: usize, col: usize) -> usize {
        (row + 1) * self.stride() + col + 1
    }

    /// The `(row, col)` of a bit index that addresses a board cell.
    pub(crate) fn cell_of(&self, bit: usize) -> (usize, usize) {
        (bit / self.stride() - 1, bit % self.stride() - 1)
    }

    /// Bits in one padded row.
    pub(crate) fn stride(&self) -> usize {
        self.words_per_row * WORD_BITS
    }

    /// The bits of word `j` of any padded row that are board cells (not sentinel, not
    /// padding). `j` must be below `words_per_row`.
    pub fn cell_mask(&self, j: usize) -> u64 {
        let lo = j * WORD_BITS; // padded column of bit 0 of this word
        let first = 1usize.saturating_sub(lo); // first cell bit in this word
        let end = (self.cols + 1).saturating_sub(lo).min(WORD_BITS); // one past the last
        if first >= end {
            0
        } else {
            let width = end - first;
            let ones = if width == WORD_BITS {
                !0
            } else {
                (1u64 << width) - 1
            };
            ones << first
        }
    }

    /// The words of board row `row` (padded row `row + 1`) in a plane.
    pub fn row_words(&self, row: usize) -> std::ops::Range<usize> {
        let start = (row + 1) * self.words_per_row;
        start..start + self.words_per_row
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_cover_exactly_the_cells() {
        for cols in [1, 2, 61, 62, 63, 64, 65, 126, 127, 128, 129, 200] {
            let g = Geometry::new(3, cols).unwrap();
            let total: u32 = (0..g.words_per_row())
                .map(|j| g.cell_mask(j).count_ones())
                .sum();
            assert_eq!(total as usize, cols, "cols {cols}");
            for c in 0..cols {
                let b = g.bit(0, c).unwrap() % g.stride();
                assert_ne!(
                    g.cell_mask(b / 64) & (1 << (b % 64)),
                    0,
                    "cols {cols} col {c}"
                );
            }
        }
    }

    #[test]
    fn sizes_are_checked() {
        assert_eq!(
            Geometry::new(0, 5),
            Err(Error::EmptyBoard { rows: 0, cols: 5 })
        );
        assert_eq!(
            Geometry::new(5, 0),
            Err(Error::EmptyBoard { rows: 5, cols: 0 })
        );
        assert_eq!(
            Geometry::new(usize::MAX, 5),
            Err(Error::TooLarge {
                rows: usize::MAX,
                cols: 5
            })
        );
        assert_eq!(
            Geometry::new(3, usize::MAX),
            Err(Error::TooLarge {
                rows: 3,
                cols: usize::MAX
            })
        );
        assert_eq!(
            Geometry::new(1 << 40, 1 << 40),
            Err(Error::TooLarge {
                rows: 1 << 40,
                cols: 1 << 40
            })
        );
    }

    #[test]
    fn bit_round_trips_and_reports_off_board() {
        let g = Geometry::new(4, 70).unwrap();
        assert_eq!(g.words_per_row(), 2);
        for (r, c) in [(0, 0), (3, 69), (2, 62), (1, 63)] {
            assert_eq!(g.cell_of(g.bit(r, c).unwrap()), (r, c));
        }
        assert_eq!(
            g.bit(4, 0),
            Err(Error::OffBoard {
                row: 4,
                col: 0,
                rows: 4,
                cols: 70
            })
        );
        assert_eq!(
            g.bit(0, 70),
            Err(Error::OffBoard {
                row: 0,
                col: 70,
                rows: 4,
                cols: 70
            })
        );
    }
}
