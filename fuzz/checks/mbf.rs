//! The `mbf` property: `Board::from_mbf` reads exactly the byte strings the MBF format
//! allows, refuses every other one with the error for its first problem, and what it reads
//! writes back (`to_mbf`) as the same header and the same mines in row order.
//!
//! MBF lists its mines as `(x, y)` pairs in any order, so one board has many encodings;
//! `to_mbf` writes the one with the pairs in row order, and that is what is compared.
//!
//! Shared by the `mbf` fuzz target and `tests/fuzz_regressions.rs`.

use std::collections::BTreeSet;

use bitmines_core::{Board, Error};

/// Checks `Board::from_mbf` and `Board::to_mbf` on `bytes`.
pub(crate) fn check(bytes: &[u8]) {
    let read = Board::from_mbf(bytes);
    match (expected(bytes), read) {
        (Ok(mines), Ok(board)) => {
            let (width, height) = (bytes[0], bytes[1]);
            assert_eq!(
                (board.cols(), board.rows()),
                (usize::from(width), usize::from(height)),
                "{bytes:?}"
            );
            assert_eq!(board.mine_count(), mines.len(), "{bytes:?}");
            for &(y, x) in &mines {
                assert_eq!(board.is_mine(y, x), Ok(true), "({y}, {x}) of {bytes:?}");
            }
            // `mines` is ordered by row, then column: the order `to_mbf` writes.
            let mut canonical = bytes[..4].to_vec();
            canonical.extend(mines.iter().flat_map(|&(y, x)| [x as u8, y as u8]));
            let written = board
                .to_mbf()
                .unwrap_or_else(|e| panic!("{bytes:?} does not write back: {e}"));
            assert_eq!(written, canonical, "to_mbf(from_mbf({bytes:?}))");
            assert_eq!(
                Board::from_mbf(&written).as_ref(),
                Ok(&board),
                "{written:?} reads back differently"
            );
        }
        (Ok(_), Err(error)) => panic!("{bytes:?} refused: {error}"),
        (Err(want), Ok(board)) => panic!("{bytes:?} read as {board:?}, expected {want:?}"),
        (Err(want), Err(error)) => assert_eq!(error, want, "{bytes:?}"),
    }
}

/// What the format says `bytes` hold: the mines as `(row, col)` in row order, or the error
/// for the first problem, in the order `from_mbf` documents (length, then size, then each
/// pair in turn).
fn expected(bytes: &[u8]) -> Result<BTreeSet<(usize, usize)>, Error> {
    if bytes.len() < 4 {
        return Err(Error::Truncated {
            needed: 4,
            found: bytes.len(),
        });
    }
    let (width, height) = (usize::from(bytes[0]), usize::from(bytes[1]));
    let declared = usize::from(bytes[2]) << 8 | usize::from(bytes[3]);
    let needed = 4 + 2 * declared;
    if bytes.len() < needed {
        return Err(Error::Truncated {
            needed,
            found: bytes.len(),
        });
    }
    if bytes.len() > needed {
        return Err(Error::MineCountMismatch {
            declared,
            found: (bytes.len() - 4).div_ceil(2),
        });
    }
    if width == 0 || height == 0 {
        return Err(Error::EmptyBoard {
            rows: height,
            cols: width,
        });
    }
    let mut mines = BTreeSet::new();
    for pair in bytes[4..].chunks(2) {
        let (x, y) = (usize::from(pair[0]), usize::from(pair[1]));
        if x >= width || y >= height {
            return Err(Error::OffBoard {
                row: y,
                col: x,
                rows: height,
                cols: width,
            });
        }
        if !mines.insert((y, x)) {
            return Err(Error::DuplicateMine { row: y, col: x });
        }
    }
    Ok(mines)
}
