//! The saved-game format against its specification.
//!
//! - A naive encoder written here from the spec in `bitmines_core::saved`, one cell at a
//!   time with its own CRC-32, is the twin: the engine's bytes must equal its bytes.
//! - Round trips after every move of random games (reveals, flags, chords past wrong flags),
//!   at the word edges of a padded row, through memory, a writer, and a reader that hands
//!   over one byte at a time.
//! - Every truncation and every single-bit flip of small saved games is an error.
//! - Crafted states no game can reach, drawn as pictures with the checksum fixed up so the
//!   rules themselves are reached: each rule is a row of a table with the error it gives.
//! - On every board of up to six cells, every view under every status reads exactly when a
//!   walk over every move reaches it, under either rule: the rules refuse nothing play makes,
//!   and nothing else gets through.
//! - Endless games (flag bit 1) round trip after every move, with any number of exploded
//!   mines; the states only the classic rule refuses read under the endless one, and lost
//!   endless games are refused.
//! - Property tests: arbitrary and edited bytes never panic, and whatever reads back writes
//!   back to the same bytes and is a valid game.

use std::collections::HashSet;
use std::io::{self, ErrorKind, Write};

use bitmines_core::saved::{HEADER_LEN, MAGIC, VERSION, read_header};
use bitmines_core::{Board, Cell, Error, Game, Rule, Status};
use proptest::prelude::*;

#[allow(dead_code)]
mod support;
use support::{FailAfter, Rng, trickle};

/// The saved form of `game` with `seed` recorded in place of its own.
fn saved_with(game: &Game, seed: Option<u64>) -> Result<Vec<u8>, bitmines_core::Error> {
    let mut game = game.clone();
    game.set_seed(seed);
    game.to_saved()
}

/// `write_saved` of `game` with `seed` recorded in place of its own.
fn write_saved_with(
    game: &Game,
    seed: Option<u64>,
    out: impl std::io::Write,
) -> Result<(), bitmines_core::Error> {
    let mut game = game.clone();
    game.set_seed(seed);
    game.write_saved(out)
}

/// Widths around the word edges of a padded row (`cols + 2` bits) and of a plane row.
const WIDTHS: [usize; 7] = [1, 2, 63, 64, 65, 127, 129];

/// Every `(row, col)` of a `rows x cols` grid in row order.
fn cells(rows: usize, cols: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..rows).flat_map(move |r| (0..cols).map(move |c| (r, c)))
}

/// A `rows x cols` board with each cell a mine with probability `density`.
fn random_board(rng: &mut Rng, rows: usize, cols: usize, density: f64) -> Board {
    let mines: Vec<_> = cells(rows, cols).filter(|_| rng.chance(density)).collect();
    Board::from_mines(rows, cols, mines).unwrap()
}

/// The cells around `(row, col)` on a `rows x cols` board.
fn around(rows: usize, cols: usize, row: usize, col: usize) -> Vec<(usize, usize)> {
    cells(3, 3)
        .filter(|&d| d != (1, 1))
        .filter_map(|(dr, dc)| Some(((row + dr).checked_sub(1)?, (col + dc).checked_sub(1)?)))
        .filter(|&(r, c)| r < rows && c < cols)
        .collect()
}

// ---------------------------------------------------------------------------------------
// The naive twin, from the spec
// ---------------------------------------------------------------------------------------

/// CRC-32 (IEEE, reflected, as zlib computes it), one bit at a time.
fn naive_crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                crc >> 1 ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// One plane as a grid of bits, row by row.
type Grid = Vec<Vec<bool>>;

/// What a saved game holds, field by field, with the counts given separately so crafted
/// files can lie about them.
struct Parts {
    rows: u64,
    cols: u64,
    seed: Option<u64>,
    /// Played under the endless rule (flag bit 1).
    endless: bool,
    status: u8,
    /// Mines, revealed, flagged.
    planes: [Grid; 3],
    exploded: Vec<(u64, u64)>,
    /// Mines, revealed, flags, exploded, as the header declares them.
    counts: [u64; 4],
}

/// The counts a set of planes and an exploded list imply.
fn counts_of(planes: &[Grid; 3], exploded: &[(u64, u64)]) -> [u64; 4] {
    let ones = |grid: &Grid| grid.iter().flatten().filter(|&&b| b).count() as u64;
    [
        ones(&planes[0]),
        ones(&planes[1]),
        ones(&planes[2]),
        exploded.len() as u64,
    ]
}

/// The bytes of a saved game as the spec lays them out, with its CRC.
fn encode_parts(parts: &Parts) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(b"\x89BMG\r\n\x1a\n");
    out.extend_from_slice(&1u32.to_le_bytes());
    let flags = u32::from(parts.seed.is_some()) | u32::from(parts.endless) << 1;
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&parts.rows.to_le_bytes());
    out.extend_from_slice(&parts.cols.to_le_bytes());
    out.extend_from_slice(&parts.counts[0].to_le_bytes());
    out.extend_from_slice(&parts.seed.unwrap_or(0).to_le_bytes());
    out.push(parts.status);
    out.extend_from_slice(&[0; 7]);
    for count in &parts.counts[1..] {
        out.extend_from_slice(&count.to_le_bytes());
    }
    for plane in &parts.planes {
        for row in plane {
            for k in 0..row.len().div_ceil(8) {
                let mut byte = 0u8;
                for j in 0..8 {
                    if row.get(8 * k + j) == Some(&true) {
                        byte |= 1 << j;
                    }
                }
                out.push(byte);
            }
        }
    }
    for &(row, col) in &parts.exploded {
        out.extend_from_slice(&row.to_le_bytes());
        out.extend_from_slice(&col.to_le_bytes());
    }
    let crc = naive_crc32(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// The saved form of a game, read off its cells one at a time as a player (and the truth)
/// sees them.
fn naive_encode(game: &Game, seed: Option<u64>) -> Vec<u8> {
    let board = game.board().unwrap();
    let (rows, cols) = (game.rows(), game.cols());
    let grid = |f: &dyn Fn(usize, usize) -> bool| -> Grid {
        (0..rows)
            .map(|r| (0..cols).map(|c| f(r, c)).collect())
            .collect()
    };
    let cell = |r, c| game.cell(r, c).unwrap();
    let planes = [
        grid(&|r, c| board.is_mine(r, c).unwrap()),
        grid(&|r, c| matches!(cell(r, c), Cell::Open(_))),
        grid(&|r, c| matches!(cell(r, c), Cell::Flagged | Cell::WrongFlag)),
    ];
    let exploded: Vec<(u64, u64)> = cells(rows, cols)
        .filter(|&(r, c)| cell(r, c) == Cell::Exploded)
        .map(|(r, c)| (r as u64, c as u64))
        .collect();
    let status = match game.status() {
        Status::Playing => 0,
        Status::Won => 1,
        Status::Lost => 2,
    };
    let counts = counts_of(&planes, &exploded);
    encode_parts(&Parts {
        rows: rows as u64,
        cols: cols as u64,
        seed,
        endless: game.rule() == Rule::Endless,
        status,
        planes,
        exploded,
        counts,
    })
}

#[test]
fn the_naive_crc_is_crc32() {
    // The check value every CRC-32 (IEEE) implementation gives for "123456789".
    assert_eq!(naive_crc32(b"123456789"), 0xCBF4_3926);
    assert_eq!(naive_crc32(b"bitmines"), crc32fast::hash(b"bitmines"));
}

// ---------------------------------------------------------------------------------------
// Readers and writers
// ---------------------------------------------------------------------------------------

/// A writer that takes `room` bytes, then fails.
struct FullDisk {
    written: Vec<u8>,
    room: usize,
}

impl Write for FullDisk {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = buf.len().min(self.room - self.written.len());
        if n == 0 && !buf.is_empty() {
            return Err(io::Error::new(ErrorKind::StorageFull, "no space left"));
        }
        self.written.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------------------

/// The exploded cells of a game in increasing order.
fn exploded_sorted(game: &Game) -> Vec<(usize, usize)> {
    let mut exploded: Vec<_> = game.exploded().collect();
    exploded.sort_unstable();
    exploded
}

/// Checks that `read` is `want` in every way the public API shows, and valid.
fn check_same(want: &Game, read: &Game, what: &str) {
    assert_eq!(
        (read.rows(), read.cols()),
        (want.rows(), want.cols()),
        "{what}"
    );
    assert_eq!(read.board(), want.board(), "{what}");
    assert_eq!(read.mine_count(), want.mine_count(), "{what}");
    assert_eq!(read.revealed_count(), want.revealed_count(), "{what}");
    assert_eq!(read.flag_count(), want.flag_count(), "{what}");
    assert_eq!(read.status(), want.status(), "{what}");
    assert_eq!(read.rule(), want.rule(), "{what}");
    assert_eq!(read.exploded_count(), want.exploded_count(), "{what}");
    assert_eq!(exploded_sorted(read), exploded_sorted(want), "{what}");
    for (r, c) in cells(want.rows(), want.cols()) {
        assert_eq!(read.cell(r, c), want.cell(r, c), "{what}: cell ({r}, {c})");
    }
    assert_eq!(read.validate(), Ok(()), "{what}");
    // The text format reads the same game.
    assert_eq!(read.to_string(), want.to_string(), "{what}");
}

/// Writes `game` every way there is, checks the bytes against the naive encoder, and reads
/// them back every way there is.
fn check_round_trip(game: &Game, seed: Option<u64>) {
    let what = format!("{game:?}, seed {seed:?}");
    let bytes = saved_with(game, seed).unwrap();
    assert_eq!(bytes, naive_encode(game, seed), "{what}");
    let exploded = game.exploded().count();
    let plane = game.rows() * game.cols().div_ceil(8);
    assert_eq!(bytes.len(), 84 + 3 * plane + 16 * exploded, "{what}");
    let mut written = Vec::new();
    write_saved_with(game, seed, &mut written).unwrap();
    assert_eq!(written, bytes, "{what}");

    let (read, header) = Game::from_saved(&bytes).unwrap();
    check_same(game, &read, &what);
    assert_eq!(
        (
            header.rows,
            header.cols,
            header.mines,
            header.seed,
            header.rule
        ),
        (
            game.rows(),
            game.cols(),
            game.mine_count(),
            seed,
            game.rule()
        ),
        "{what}"
    );
    assert_eq!(
        (
            header.status,
            header.revealed,
            header.flags,
            header.exploded
        ),
        (
            game.status(),
            game.revealed_count(),
            game.flag_count(),
            exploded
        ),
        "{what}"
    );
    assert_eq!(read_header(&bytes[..]), Ok(header), "{what}");
    let (streamed, streamed_header) = Game::read_saved(&bytes[..]).unwrap();
    assert_eq!(streamed_header, header, "{what}");
    check_same(game, &streamed, &what);
    if bytes.len() < 4096 {
        let (trickled, _) = Game::read_saved(trickle(&bytes)).unwrap();
        check_same(game, &trickled, &what);
    }
    assert_eq!(saved_with(&read, seed).unwrap(), bytes, "{what}");
}

/// One random move through the public API. Results are ignored on purpose: a move may be
/// refused (the game is over) or change nothing, and only the state it leaves is checked.
fn random_move(rng: &mut Rng, game: &mut Game) {
    let (rows, cols) = (game.rows(), game.cols());
    let board = game.board().unwrap().clone();
    let (r, c) = (rng.below(rows), rng.below(cols));
    let all: Vec<(usize, usize)> = cells(rows, cols).collect();
    let matching = |game: &Game, want: &dyn Fn(usize, usize, Cell) -> bool| -> Vec<_> {
        all.iter()
            .copied()
            .filter(|&(r, c)| want(r, c, game.cell(r, c).unwrap()))
            .collect()
    };
    match rng.below(100) {
        0..20 => {
            let _ = game.reveal(r, c);
        }
        20..45 => {
            // A hidden safe cell, so that games also get won.
            let safe = matching(game, &|r, c, cell| {
                cell == Cell::Hidden && !board.is_mine(r, c).unwrap()
            });
            if !safe.is_empty() {
                let (r, c) = rng.pick(&safe);
                let _ = game.reveal(r, c);
            }
        }
        45..60 => {
            let _ = game.toggle_flag(r, c);
        }
        60..70 => {
            let _ = game.chord(r, c);
        }
        _ => {
            // Flags as many hidden neighbours of a number as it says, right or (often)
            // wrong, then chords: a wrong guess sets off every unflagged mine around it.
            // Mostly a 2 or more, which can set off several mines at once.
            let least = if rng.chance(0.7) { 2 } else { 1 };
            let open = matching(
                game,
                &|_, _, cell| matches!(cell, Cell::Open(n) if n >= least),
            );
            if open.is_empty() {
                return;
            }
            let (r, c) = rng.pick(&open);
            for (nr, nc) in around(rows, cols, r, c) {
                if game.cell(nr, nc) == Ok(Cell::Flagged) {
                    let _ = game.toggle_flag(nr, nc);
                }
            }
            let mut hidden: Vec<_> = around(rows, cols, r, c)
                .into_iter()
                .filter(|&(nr, nc)| game.cell(nr, nc) == Ok(Cell::Hidden))
                .collect();
            let mine = |&(nr, nc): &(usize, usize)| board.is_mine(nr, nc).unwrap();
            if rng.chance(0.3) {
                hidden.retain(mine);
            } else if rng.chance(0.5) {
                // Every flag wrong while there are safe cells to put them on.
                hidden.sort_by_key(mine);
            } else if !hidden.is_empty() {
                let len = hidden.len();
                hidden.rotate_left(rng.below(len));
            }
            let number = usize::from(board.number(r, c).unwrap());
            for &(nr, nc) in hidden.iter().take(number) {
                let _ = game.toggle_flag(nr, nc);
            }
            let _ = game.chord(r, c);
        }
    }
}

/// How the games of a test ended, so the test can show it reached every kind of end.
#[derive(Debug, Default)]
struct Ends {
    won: usize,
    lost: usize,
    lost_many: usize,
    wrong_flags: usize,
}

impl Ends {
    fn count(&mut self, game: &Game) {
        match game.status() {
            Status::Won => self.won += 1,
            Status::Lost => self.lost += 1,
            Status::Playing => {}
        }
        self.lost_many += usize::from(game.exploded().count() > 1);
        self.wrong_flags += usize::from(
            cells(game.rows(), game.cols()).any(|(r, c)| game.cell(r, c) == Ok(Cell::WrongFlag)),
        );
    }
}

#[test]
fn random_games_round_trip_after_every_move() {
    let mut rng = Rng(1);
    let mut ends = Ends::default();
    for case in 0..420 {
        let cols = if case % 4 == 0 {
            1 + rng.below(12)
        } else {
            WIDTHS[case % WIDTHS.len()]
        };
        let rows = 1 + rng.below(if cols > 60 { 4 } else { 9 });
        let density = rng.pick(&[0.0, 0.05, 0.12, 0.2, 0.35, 1.0]);
        let mut game = if case % 5 == 0 {
            // A deferred game places its mines on the first reveal, then plays on.
            let mines = (rows * cols * 15 / 100).min((rows * cols).saturating_sub(9));
            let mut game = Game::seeded(rows, cols, mines, case as u64).unwrap();
            game.reveal(rng.below(rows), rng.below(cols)).unwrap();
            game
        } else {
            Game::new(random_board(&mut rng, rows, cols, density))
        };
        let seed = rng.chance(0.5).then(|| rng.next());
        check_round_trip(&game, seed);
        for _ in 0..30 {
            if game.status() != Status::Playing {
                break;
            }
            random_move(&mut rng, &mut game);
            check_round_trip(&game, seed);
        }
        ends.count(&game);
    }
    // The round trips above only mean something if the games reached every kind of end.
    assert!(ends.won > 30, "{ends:?}");
    assert!(ends.lost > 30, "{ends:?}");
    assert!(ends.lost_many > 20, "{ends:?}");
    assert!(ends.wrong_flags > 10, "{ends:?}");
}

#[test]
fn random_endless_games_round_trip_after_every_move() {
    let mut rng = Rng(11);
    let (mut won, mut many, mut most) = (0, 0, 0);
    for case in 0..240 {
        let cols = if case % 4 == 0 {
            1 + rng.below(12)
        } else {
            WIDTHS[case % WIDTHS.len()]
        };
        let rows = 1 + rng.below(if cols > 60 { 4 } else { 9 });
        let density = rng.pick(&[0.05, 0.12, 0.2, 0.35]);
        let mut game =
            Game::new(random_board(&mut rng, rows, cols, density)).with_rule(Rule::Endless);
        let seed = rng.chance(0.5).then(|| rng.next());
        check_round_trip(&game, seed);
        for _ in 0..40 {
            if game.status() != Status::Playing {
                break;
            }
            random_move(&mut rng, &mut game);
            assert_ne!(game.status(), Status::Lost, "an endless game is never lost");
            check_round_trip(&game, seed);
        }
        won += usize::from(game.status() == Status::Won);
        many += usize::from(game.exploded_count() > 1);
        most = most.max(game.exploded_count());
    }
    // The round trips above only mean something if the games exploded many mines and some
    // went on to a win.
    assert!(won > 20, "{won} won");
    assert!(many > 60, "{many} with several mines exploded");
    assert!(most > 8, "at most {most} mines exploded in one game");
}

#[test]
fn edge_games_round_trip() {
    // No safe cell (won at once), no mine, one cell either way, and the corners of wide rows.
    for (rows, cols) in [(1, 1), (1, 64), (64, 1), (3, 129), (2, 127)] {
        let all: Vec<_> = cells(rows, cols).collect();
        let mut corners = vec![(0, 0), (rows - 1, cols - 1)];
        corners.dedup();
        for mines in [vec![], all, corners] {
            let board = Board::from_mines(rows, cols, mines).unwrap();
            let mut game = Game::new(board);
            for seed in [None, Some(0), Some(u64::MAX)] {
                check_round_trip(&game, seed);
            }
            if game.status() == Status::Playing {
                game.toggle_flag(rows - 1, cols - 1).unwrap();
                check_round_trip(&game, None);
                game.reveal(0, 0).unwrap();
                check_round_trip(&game, None);
            }
        }
    }
}

#[test]
fn games_larger_than_one_piece_round_trip() {
    // Rows longer than the 64 KiB pieces reads and writes move, and planes of many short
    // rows that fill several pieces.
    let mut rng = Rng(2);
    for (rows, cols) in [(2, 600_001), (2000, 300)] {
        let mut game = Game::new(random_board(&mut rng, rows, cols, 0.1));
        for _ in 0..20 {
            let (r, c) = (rng.below(rows), rng.below(cols));
            if game.status() == Status::Playing && game.cell(r, c) == Ok(Cell::Hidden) {
                if game.board().unwrap().is_mine(r, c).unwrap() {
                    game.toggle_flag(r, c).unwrap();
                } else {
                    game.reveal(r, c).unwrap();
                }
            }
        }
        assert!(game.revealed_count() > 0 && game.flag_count() > 0);
        let bytes = saved_with(&game, Some(5)).unwrap();
        assert_eq!(bytes, naive_encode(&game, Some(5)));
        let (read, _) = Game::read_saved(&bytes[..]).unwrap();
        assert_eq!(saved_with(&read, Some(5)).unwrap(), bytes);
        assert_eq!(read.validate(), Ok(()));
        assert_eq!(
            (read.revealed_count(), read.flag_count()),
            (game.revealed_count(), game.flag_count())
        );
    }
}

#[test]
fn a_small_game_has_the_bytes_the_spec_prescribes() {
    // Written out by hand, with the CRC from zlib, so the encoder and the naive twin cannot
    // drift from the spec together. Two wrong flags let a chord on the 2 set off both mines.
    let mut game = Game::new("*.*\n...\n".parse::<Board>().unwrap());
    game.reveal(1, 1).unwrap();
    game.toggle_flag(1, 0).unwrap();
    game.toggle_flag(1, 2).unwrap();
    game.chord(1, 1).unwrap();
    let want = [
        0x89, b'B', b'M', b'G', b'\r', b'\n', 0x1a, b'\n', // magic
        1, 0, 0, 0, // version
        1, 0, 0, 0, // flags: a seed is recorded
        2, 0, 0, 0, 0, 0, 0, 0, // rows
        3, 0, 0, 0, 0, 0, 0, 0, // cols
        2, 0, 0, 0, 0, 0, 0, 0, // mines
        7, 0, 0, 0, 0, 0, 0, 0, // seed
        2, 0, 0, 0, 0, 0, 0, 0, // status: lost, and padding
        2, 0, 0, 0, 0, 0, 0, 0, // revealed
        2, 0, 0, 0, 0, 0, 0, 0, // flags
        2, 0, 0, 0, 0, 0, 0, 0, // exploded
        0b101, 0, // mines, one byte a row
        0b010, 0b010, // revealed
        0, 0b101, // flagged
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // exploded (0, 0)
        0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, // exploded (0, 2)
        94, 247, 55, 58, // CRC-32
    ];
    assert_eq!(saved_with(&game, Some(7)).unwrap(), want);
    assert_eq!(MAGIC, *b"\x89BMG\r\n\x1a\n");
    assert_eq!(VERSION, 1);
    assert_eq!(HEADER_LEN, 80);
}

#[test]
fn deferred_games_cannot_be_saved() {
    let game = Game::seeded(9, 9, 10, 1).unwrap();
    assert_eq!(saved_with(&game, None), Err(Error::Deferred));
    let mut out = Vec::new();
    assert_eq!(
        write_saved_with(&game, Some(1), &mut out),
        Err(Error::Deferred)
    );
    assert!(out.is_empty());
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/// What reading a crafted file must give.
enum Want {
    /// Exactly this error.
    Exactly(Error),
    /// `Inconsistent` at this cell, its reason containing the text.
    Cell(usize, usize, &'static str),
}

/// Reads `bytes` from memory, from a slice reader and one byte at a time; all three must
/// give what `want` says.
fn check_error(name: &str, bytes: &[u8], want: &Want) {
    let results = [
        ("from_saved", Game::from_saved(bytes)),
        ("read_saved", Game::read_saved(bytes)),
        (
            "read_saved, one byte at a time",
            Game::read_saved(trickle(bytes)),
        ),
    ];
    for (how, result) in results {
        let error = match result {
            Ok((game, _)) => panic!("{name} ({how}): accepted as\n{game}"),
            Err(error) => error,
        };
        match want {
            Want::Exactly(want) => assert_eq!(&error, want, "{name} ({how})"),
            Want::Cell(row, col, text) => match &error {
                Error::Inconsistent {
                    row: r,
                    col: c,
                    reason,
                } if (r, c) == (row, col) && reason.contains(text) => {}
                other => panic!("{name} ({how}): {other:?}, expected ({row}, {col}): {text}"),
            },
        }
    }
}

/// The parts of a state drawn as a picture, one character per cell:
///
/// | char | mine | revealed | flagged | exploded |
/// | --- | --- | --- | --- | --- |
/// | `.` | | | | |
/// | `*` | yes | | | |
/// | `f` | | | yes | |
/// | `F` | yes | | yes | |
/// | `o` | | yes | | |
/// | `X` | yes | | | yes |
/// | `R` | yes | yes | | |
/// | `b` | | yes | yes | |
/// | `x` | | | | yes |
/// | `Y` | yes | yes | | yes |
/// | `Z` | yes | | yes | yes |
///
/// The counts are the ones the planes imply; `status` is the byte written.
fn picture(text: &str, status: u8) -> Parts {
    let lines: Vec<&str> = text.lines().collect();
    let (rows, cols) = (lines.len(), lines[0].len());
    let mut planes: [Grid; 3] = Default::default();
    let mut exploded = Vec::new();
    for (r, line) in lines.iter().enumerate() {
        assert_eq!(line.len(), cols, "a ragged picture");
        for plane in &mut planes {
            plane.push(Vec::new());
        }
        for (c, ch) in line.chars().enumerate() {
            let [mine, revealed, flagged, blew] = match ch {
                '.' => [false, false, false, false],
                '*' => [true, false, false, false],
                'f' => [false, false, true, false],
                'F' => [true, false, true, false],
                'o' => [false, true, false, false],
                'X' => [true, false, false, true],
                'R' => [true, true, false, false],
                'b' => [false, true, true, false],
                'x' => [false, false, false, true],
                'Y' => [true, true, false, true],
                'Z' => [true, false, true, true],
                other => panic!("no such picture cell: {other:?}"),
            };
            for (plane, bit) in planes.iter_mut().zip([mine, revealed, flagged]) {
                plane[r].push(bit);
            }
            if blew {
                exploded.push((r as u64, c as u64));
            }
        }
    }
    let counts = counts_of(&planes, &exploded);
    Parts {
        rows: rows as u64,
        cols: cols as u64,
        seed: None,
        endless: false,
        status,
        planes,
        exploded,
        counts,
    }
}

const PLAYING: u8 = 0;
const WON: u8 = 1;
const LOST: u8 = 2;

#[test]
fn pictures_of_reachable_states_read() {
    // The control group for the table below: states some sequence of moves reaches.
    for (text, status) in [
        ("o*.\n...\n", PLAYING),
        ("oF\n", WON),
        ("**\n", WON),
        ("X.\n", LOST),
        ("Xf\n.o\n", LOST),
        ("XoX\nfof\n", LOST),
        // Three mines set off by one chord on the 4, past three wrong flags; the flagged
        // mine stays put, and the cells beyond the chord need not be open.
        ("XXX.\nfof.\nfoF.\n", LOST),
    ] {
        let bytes = encode_parts(&picture(text, status));
        let (game, _) = Game::from_saved(&bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(game.validate(), Ok(()), "{text}");
        assert_eq!(saved_with(&game, None).unwrap(), bytes, "{text}");
    }
}

#[test]
fn states_no_game_reaches_are_refused() {
    let cases: Vec<(&str, &str, u8, Want)> = vec![
        (
            "a revealed mine",
            "o.\n.R\n",
            PLAYING,
            Want::Cell(1, 1, "a revealed cell holds a mine"),
        ),
        (
            "a flag on a revealed cell",
            ".*\nbo\n",
            PLAYING,
            Want::Cell(1, 0, "a revealed cell is also flagged"),
        ),
        (
            "an exploded safe cell",
            "*x.\n",
            LOST,
            Want::Cell(0, 1, "an exploded cell holds no mine"),
        ),
        (
            "an exploded mine also revealed",
            "Y..\n",
            LOST,
            Want::Cell(0, 0, "an exploded mine is also revealed"),
        ),
        (
            "an exploded mine also flagged",
            "..Z\n",
            LOST,
            Want::Cell(0, 2, "an exploded mine is also flagged"),
        ),
        (
            "a flag on a board with no safe cell",
            "**\n*F\n",
            WON,
            Want::Cell(1, 1, "nothing is flagged"),
        ),
        (
            "nothing explodes on a board with no safe cell",
            "*X\n",
            LOST,
            Want::Cell(0, 1, "no safe cell"),
        ),
        (
            "an exploded mine with every safe cell revealed",
            "Xo\n",
            LOST,
            Want::Cell(0, 0, "every safe cell revealed"),
        ),
        (
            "two exploded mines no revealed cell touches",
            "X.o.X\n",
            LOST,
            Want::Cell(0, 0, "2 mines exploded"),
        ),
        (
            "two exploded mines touching only a hidden cell",
            "X.X\nf.f\n",
            LOST,
            Want::Cell(0, 0, "2 mines exploded"),
        ),
        (
            "two exploded mines round a cell short of flags",
            "XoX\nfo.\n",
            LOST,
            Want::Cell(0, 0, "2 mines exploded"),
        ),
        (
            "two exploded mines round a cell with a hidden neighbour",
            "X.X\n.o.\nf.f\n",
            LOST,
            Want::Cell(0, 0, "2 mines exploded"),
        ),
        (
            "nine exploded mines",
            "XXXX\nXoXf\nXXXf\nffff\n",
            LOST,
            Want::Cell(0, 0, "9 mines exploded"),
        ),
        (
            "playing, but a mine exploded",
            "X.o\n",
            PLAYING,
            Want::Exactly(Error::StatusMismatch {
                declared: Status::Playing,
                actual: Status::Lost,
            }),
        ),
        (
            "won, but a mine exploded",
            "Xo.\n",
            WON,
            Want::Exactly(Error::StatusMismatch {
                declared: Status::Won,
                actual: Status::Lost,
            }),
        ),
        (
            "won with a safe cell hidden",
            "*o.\n",
            WON,
            Want::Exactly(Error::StatusMismatch {
                declared: Status::Won,
                actual: Status::Playing,
            }),
        ),
        (
            "lost with no mine exploded",
            "*o.\n",
            LOST,
            Want::Exactly(Error::StatusMismatch {
                declared: Status::Lost,
                actual: Status::Playing,
            }),
        ),
        (
            "playing with every safe cell revealed",
            "*oo\n",
            PLAYING,
            Want::Exactly(Error::StatusMismatch {
                declared: Status::Playing,
                actual: Status::Won,
            }),
        ),
        (
            "playing on a board with no safe cell",
            "**\n",
            PLAYING,
            Want::Exactly(Error::StatusMismatch {
                declared: Status::Playing,
                actual: Status::Won,
            }),
        ),
    ];
    for (name, text, status, want) in &cases {
        check_error(name, &encode_parts(&picture(text, *status)), want);
    }
}

/// `parts` under the endless rule.
fn endless(mut parts: Parts) -> Parts {
    parts.endless = true;
    parts
}

#[test]
fn endless_pictures_read_or_are_refused() {
    // States only the classic rule refuses: several explosions no chord explains, and an
    // explosion with every safe cell revealed.
    for (text, status) in [
        ("X.o\n", PLAYING),
        ("Xo\n", WON),
        ("X.o.X\n", PLAYING),
        ("XXXX\nXoXf\nXXXf\nffff\n", PLAYING),
        ("X*X\n.f.\nXoX\n", PLAYING),
        ("XoX\nooo\n", WON),
    ] {
        let bytes = encode_parts(&endless(picture(text, status)));
        let (game, header) = Game::from_saved(&bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(
            (game.rule(), header.rule),
            (Rule::Endless, Rule::Endless),
            "{text}"
        );
        assert_eq!(game.validate(), Ok(()), "{text}");
        assert_eq!(saved_with(&game, None).unwrap(), bytes, "{text}");
    }
    let cases: Vec<(&str, &str, u8, Want)> = vec![
        (
            "an endless game is never lost",
            "X.o\n",
            LOST,
            Want::Exactly(Error::StatusMismatch {
                declared: Status::Lost,
                actual: Status::Playing,
            }),
        ),
        (
            "an endless game won with a mine exploded, declared lost",
            "Xo\n",
            LOST,
            Want::Exactly(Error::StatusMismatch {
                declared: Status::Lost,
                actual: Status::Won,
            }),
        ),
        (
            "playing with every safe cell revealed and a mine exploded",
            "XoX\n",
            PLAYING,
            Want::Exactly(Error::StatusMismatch {
                declared: Status::Playing,
                actual: Status::Won,
            }),
        ),
        (
            "nothing explodes on a board with no safe cell, under either rule",
            "*X\n",
            WON,
            Want::Cell(0, 1, "no safe cell"),
        ),
        (
            "a flag on a board with no safe cell",
            "**\n*F\n",
            WON,
            Want::Cell(1, 1, "nothing is flagged"),
        ),
        (
            "an exploded safe cell",
            "*x.\n",
            PLAYING,
            Want::Cell(0, 1, "an exploded cell holds no mine"),
        ),
        (
            "an exploded mine also revealed",
            "Y..\n",
            PLAYING,
            Want::Cell(0, 0, "an exploded mine is also revealed"),
        ),
        (
            "an exploded mine also flagged",
            "..Z\n",
            PLAYING,
            Want::Cell(0, 2, "an exploded mine is also flagged"),
        ),
        (
            "a revealed mine",
            "X.\n.R\n",
            PLAYING,
            Want::Cell(1, 1, "a revealed cell holds a mine"),
        ),
    ];
    for (name, text, status, want) in &cases {
        check_error(name, &encode_parts(&endless(picture(text, *status))), want);
    }
    // The exploded list must still be in increasing order.
    let mut parts = endless(picture("X.X\n...\n", PLAYING));
    parts.exploded.reverse();
    check_error(
        "an endless list out of order",
        &encode_parts(&parts),
        &Want::Exactly(Error::ExplodedOrder {
            row: 0,
            col: 0,
            previous: (0, 2),
        }),
    );
}

/// Every state play under `rule` reaches on `board`, as its saved bytes: a walk over every
/// reveal, flag and chord on every cell, from the first state to every end.
fn reachable_under(board: &Board, rule: Rule) -> HashSet<Vec<u8>> {
    let start = Game::new(board.clone()).with_rule(rule);
    let mut seen = HashSet::from([saved_with(&start, None).unwrap()]);
    let mut stack = vec![start];
    while let Some(game) = stack.pop() {
        if game.status() != Status::Playing {
            continue;
        }
        for (r, c) in cells(board.rows(), board.cols()) {
            for step in 0..3 {
                let mut next = game.clone();
                let _ = match step {
                    0 => next.reveal(r, c).map(drop),
                    1 => next.toggle_flag(r, c).map(drop),
                    _ => next.chord(r, c).map(drop),
                };
                if seen.insert(saved_with(&next, None).unwrap()) {
                    stack.push(next);
                }
            }
        }
    }
    seen
}

#[test]
fn on_tiny_boards_exactly_the_states_play_reaches_read() {
    on_tiny_boards_exactly_the_states_play_reaches_read_under(Rule::Classic);
}

#[test]
fn on_tiny_boards_exactly_the_states_endless_play_reaches_read() {
    on_tiny_boards_exactly_the_states_play_reaches_read_under(Rule::Endless);
}

fn on_tiny_boards_exactly_the_states_play_reaches_read_under(rule: Rule) {
    // Every board of a few cells, every view of it a cell can show (a safe cell hidden,
    // flagged or revealed; a mine hidden, flagged or exploded) under every status: the reader
    // accepts exactly the states the walk over every move reaches. So the rules refuse
    // nothing play makes, and let nothing else through.
    let mut several_exploded = 0;
    for (rows, cols) in [(1, 1), (1, 4), (2, 2), (2, 3)] {
        let n = rows * cols;
        for layout in 0..1usize << n {
            let mine = |i: usize| layout >> i & 1 == 1;
            let mines = cells(rows, cols).enumerate().filter(|&(i, _)| mine(i));
            let board = Board::from_mines(rows, cols, mines.map(|(_, cell)| cell)).unwrap();
            let reached = reachable_under(&board, rule);
            several_exploded += reached
                .iter()
                .filter(|bytes| read_header(&bytes[..]).unwrap().exploded > 1)
                .count();
            let mut accepted = 0;
            for view in 0..3usize.pow(n as u32) {
                let mut text = String::new();
                for i in 0..n {
                    let shown = view / 3usize.pow(i as u32) % 3;
                    let options = if mine(i) {
                        ['*', 'F', 'X']
                    } else {
                        ['.', 'f', 'o']
                    };
                    text.push(options[shown]);
                    if (i + 1) % cols == 0 {
                        text.push('\n');
                    }
                }
                for status in [PLAYING, WON, LOST] {
                    let mut parts = picture(&text, status);
                    parts.endless = rule == Rule::Endless;
                    let bytes = encode_parts(&parts);
                    let read = Game::from_saved(&bytes);
                    assert_eq!(
                        read.is_ok(),
                        reached.contains(&bytes),
                        "{rule}: status {status} of\n{text}{read:?}"
                    );
                    accepted += usize::from(read.is_ok());
                }
            }
            assert_eq!(accepted, reached.len(), "{rows}x{cols} layout {layout:b}");
        }
    }
    // The walk reached the chords that set off several mines at once.
    assert!(several_exploded > 100, "{several_exploded}");
}

/// The parts of a lost 2x3 game with two exploded mines and a chord that explains them.
fn two_exploded() -> Parts {
    picture("XoX\nfof\n", LOST)
}

#[test]
fn the_exploded_list_is_checked() {
    let edit = |change: &dyn Fn(&mut Parts)| {
        let mut parts = two_exploded();
        change(&mut parts);
        encode_parts(&parts)
    };
    let cases: Vec<(&str, Vec<u8>, Error)> = vec![
        (
            "out of order",
            edit(&|p| p.exploded.reverse()),
            Error::ExplodedOrder {
                row: 0,
                col: 0,
                previous: (0, 2),
            },
        ),
        (
            "a cell twice",
            edit(&|p| p.exploded[1] = (0, 0)),
            Error::ExplodedOrder {
                row: 0,
                col: 0,
                previous: (0, 0),
            },
        ),
        (
            "a row off the board",
            edit(&|p| p.exploded[1] = (2, 0)),
            Error::OffBoard {
                row: 2,
                col: 0,
                rows: 2,
                cols: 3,
            },
        ),
        (
            "a column past usize",
            edit(&|p| p.exploded[0] = (0, u64::MAX)),
            Error::OffBoard {
                row: 0,
                col: usize::try_from(u64::MAX).unwrap_or(usize::MAX),
                rows: 2,
                cols: 3,
            },
        ),
    ];
    for (name, bytes, want) in cases {
        check_error(name, &bytes, &Want::Exactly(want));
    }
}

#[test]
fn header_counts_must_match_the_planes() {
    let with_counts = |counts: [u64; 4]| {
        let mut parts = two_exploded();
        parts.counts = counts;
        encode_parts(&parts)
    };
    assert_eq!(two_exploded().counts, [2, 2, 2, 2]);
    let cases = [
        (
            [3, 2, 2, 2],
            Error::MineCountMismatch {
                declared: 3,
                found: 2,
            },
        ),
        (
            [2, 1, 2, 2],
            Error::CountMismatch {
                what: "revealed cells",
                declared: 1,
                found: 2,
            },
        ),
        (
            [2, 2, 3, 2],
            Error::CountMismatch {
                what: "flags",
                declared: 3,
                found: 2,
            },
        ),
        (
            [7, 2, 2, 2],
            Error::CountTooLarge {
                what: "mines",
                count: 7,
                max: 6,
            },
        ),
        (
            [2, 5, 2, 2],
            Error::CountTooLarge {
                what: "revealed cells",
                count: 5,
                max: 4,
            },
        ),
        (
            [2, 2, 7, 2],
            Error::CountTooLarge {
                what: "flags",
                count: 7,
                max: 6,
            },
        ),
        (
            [2, 2, 2, 3],
            Error::CountTooLarge {
                what: "exploded mines",
                count: 3,
                max: 2,
            },
        ),
        (
            [2, 2, 2, u64::MAX],
            Error::CountTooLarge {
                what: "exploded mines",
                count: u64::MAX,
                max: 2,
            },
        ),
    ];
    for (counts, want) in cases {
        check_error(
            &format!("counts {counts:?}"),
            &with_counts(counts),
            &Want::Exactly(want),
        );
    }
    // One exploded mine fewer than listed: the list is one pair too long.
    let short = with_counts([2, 2, 2, 1]);
    check_error(
        "an exploded count one short",
        &short,
        &Want::Exactly(Error::TrailingBytes {
            len: short.len() - 16,
        }),
    );
}

/// `bytes` with `value` written at `at` and the CRC fixed up, so the checks after it are
/// reached.
fn patched(bytes: &[u8], at: usize, value: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + value.len()].copy_from_slice(value);
    fix_crc(out)
}

/// `bytes` with the CRC recomputed.
fn fix_crc(mut bytes: Vec<u8>) -> Vec<u8> {
    let end = bytes.len() - 4;
    let crc = naive_crc32(&bytes[..end]);
    bytes[end..].copy_from_slice(&crc.to_le_bytes());
    bytes
}

#[test]
fn every_header_field_is_checked() {
    let mut parts = two_exploded();
    parts.seed = Some(9);
    let good = encode_parts(&parts);
    let format = "bitmines saved game";
    let u32le = |v: u32| v.to_le_bytes().to_vec();
    let u64le = |v: u64| v.to_le_bytes().to_vec();
    let board_magic = *b"\x89BMB\r\n\x1a\n";
    let cases: Vec<(usize, Vec<u8>, Error)> = vec![
        (
            0,
            board_magic.to_vec(),
            Error::BadMagic {
                format,
                expected: MAGIC,
                found: board_magic,
            },
        ),
        (
            8,
            u32le(0),
            Error::UnsupportedVersion {
                format,
                version: 0,
                supported: 1,
            },
        ),
        (
            8,
            u32le(2),
            Error::UnsupportedVersion {
                format,
                version: 2,
                supported: 1,
            },
        ),
        (
            12,
            u32le(5),
            Error::UnknownFlags {
                flags: 5,
                defined: 3,
            },
        ),
        (12, u32le(0), Error::UnflaggedSeed { seed: 9 }),
        (16, u64le(0), Error::EmptyBoard { rows: 0, cols: 3 }),
        (24, u64le(0), Error::EmptyBoard { rows: 2, cols: 0 }),
        (
            16,
            u64le(u64::MAX),
            Error::TooLarge {
                rows: usize::MAX,
                cols: 3,
            },
        ),
        (48, vec![3], Error::BadStatus { found: 3 }),
        (48, vec![255], Error::BadStatus { found: 255 }),
        (
            49,
            vec![1],
            Error::HeaderPadding {
                offset: 49,
                found: 1,
            },
        ),
        (
            55,
            vec![0x80],
            Error::HeaderPadding {
                offset: 55,
                found: 0x80,
            },
        ),
    ];
    for (at, value, want) in cases {
        let bytes = patched(&good, at, &value);
        check_error(
            &format!("{value:?} at {at}"),
            &bytes,
            &Want::Exactly(want.clone()),
        );
        assert_eq!(read_header(&bytes[..]), Err(want), "{value:?} at {at}");
    }
}

#[test]
fn padding_bits_are_checked_in_every_plane() {
    // A 2x3 game: one byte a row, columns 0 to 2 in bits 0 to 2 and five padding bits.
    let good = encode_parts(&two_exploded());
    for (i, plane) in ["mine", "revealed", "flagged"].into_iter().enumerate() {
        for (row, bits) in [(0, 0b1000), (1, 0b1000_0000)] {
            let mut bad = good.clone();
            bad[80 + 2 * i + row] |= bits;
            let want = Error::PaddingBits {
                plane,
                row,
                cols: 3,
                bits,
            };
            check_error(plane, &fix_crc(bad), &Want::Exactly(want));
        }
    }
}

#[test]
fn length_and_checksum_are_checked() {
    let good = encode_parts(&two_exploded());
    let len = good.len();
    assert_eq!(len, 84 + 3 * 2 + 32);
    let mut longer = good.clone();
    longer.push(0);
    check_error(
        "a byte more",
        &longer,
        &Want::Exactly(Error::TrailingBytes { len }),
    );
    for cut in [0, 1, 47, 48, 79] {
        let want = Error::Truncated {
            needed: HEADER_LEN,
            found: cut,
        };
        check_error("a short header", &good[..cut], &Want::Exactly(want.clone()));
        assert_eq!(read_header(&good[..cut]), Err(want));
    }
    for cut in [80, 85, 86, 90, len - 4, len - 1] {
        let want = Error::Truncated {
            needed: len,
            found: cut,
        };
        check_error("a short file", &good[..cut], &Want::Exactly(want));
    }
    let mut bad = good.clone();
    bad[84] ^= 0b10;
    let stored = u32::from_le_bytes(bad[len - 4..].try_into().unwrap());
    let computed = crc32fast::hash(&bad[..len - 4]);
    check_error(
        "a flipped revealed bit",
        &bad,
        &Want::Exactly(Error::ChecksumMismatch { stored, computed }),
    );
}

#[test]
fn a_huge_header_on_a_short_input_is_truncated() {
    // A header claiming a 2^30 x 2^30 board (3 * 2^57 bytes of planes) ahead of nothing: the
    // reader must fail at the end of the input, having allocated in step with what it read.
    let mut parts = picture(".\n", PLAYING);
    parts.rows = 1 << 30;
    parts.cols = 1 << 30;
    let mut head = encode_parts(&parts)[..HEADER_LEN].to_vec();
    head.extend_from_slice(&[0; 1000]);
    let head = &head[..];
    let needed = 84 + 3 * (1usize << 57);
    let want = Error::Truncated {
        needed,
        found: head.len(),
    };
    assert_eq!(Game::from_saved(head).unwrap_err(), want);
    assert_eq!(Game::read_saved(head).unwrap_err(), want);
    // Exploded mines as many as the cells make the length overflow a `usize`.
    parts.counts = [1 << 60, 0, 0, 1 << 60];
    let bytes = encode_parts(&parts);
    let too_large = Error::TooLarge {
        rows: 1 << 30,
        cols: 1 << 30,
    };
    assert_eq!(Game::from_saved(&bytes).unwrap_err(), too_large);
    assert_eq!(Game::read_saved(&bytes[..]).unwrap_err(), too_large);
}

/// Small saved games in every state: playing with flags, won, lost by a reveal, lost by a
/// chord on two mines past a wrong flag.
fn small_games() -> Vec<Vec<u8>> {
    let mut games = Vec::new();
    let mut game = Game::new("*..\n...\n..*\n".parse::<Board>().unwrap());
    game.toggle_flag(0, 0).unwrap();
    game.reveal(2, 0).unwrap();
    games.push(saved_with(&game, Some(3)).unwrap());
    let mut won = game.clone();
    won.reveal(0, 2).unwrap(); // a zero cell: the cascade opens the last safe cells
    assert_eq!(won.status(), Status::Won);
    games.push(saved_with(&won, None).unwrap());
    let mut lost = game.clone();
    lost.reveal(2, 2).unwrap();
    games.push(saved_with(&lost, None).unwrap());
    games.push(encode_parts(&two_exploded()));
    let mut endless = Game::new("*.*\n...\n".parse::<Board>().unwrap()).with_rule(Rule::Endless);
    endless.reveal(0, 0).unwrap();
    endless.reveal(0, 2).unwrap();
    games.push(saved_with(&endless, Some(4)).unwrap());
    endless.reveal(1, 1).unwrap(); // a 2, both its mines exploded
    assert_eq!(endless.chord(1, 1).unwrap().opened, 3);
    assert_eq!(endless.status(), Status::Won);
    games.push(saved_with(&endless, None).unwrap());
    games
}

#[test]
fn every_truncation_is_an_error() {
    for bytes in small_games() {
        for cut in 0..bytes.len() {
            assert!(Game::from_saved(&bytes[..cut]).is_err(), "cut at {cut}");
            assert!(Game::read_saved(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }
}

#[test]
fn every_single_bit_flip_is_an_error() {
    for bytes in small_games() {
        for bit in 0..8 * bytes.len() {
            let mut bad = bytes.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(Game::from_saved(&bad).is_err(), "bit {bit}");
            assert!(Game::read_saved(&bad[..]).is_err(), "bit {bit}");
        }
    }
}

#[test]
fn io_errors_are_reported() {
    let good = encode_parts(&two_exploded());
    for (at, kind) in [
        (0, ErrorKind::PermissionDenied),
        (50, ErrorKind::ConnectionReset),
        (100, ErrorKind::Other),
    ] {
        let input = FailAfter {
            bytes: &good[..at],
            kind,
        };
        match Game::read_saved(input) {
            Err(Error::Io { kind: found, .. }) => assert_eq!(found, kind),
            other => panic!("{kind:?} after {at} bytes: {other:?}"),
        }
    }
    // An early end reported as `UnexpectedEof` is a truncation like any other.
    let input = FailAfter {
        bytes: &good[..90],
        kind: ErrorKind::UnexpectedEof,
    };
    assert!(matches!(
        Game::read_saved(input),
        Err(Error::Truncated { found: 90, .. })
    ));
    let (game, _) = Game::from_saved(&good).unwrap();
    for room in [0, 10, good.len() - 1] {
        let mut disk = FullDisk {
            written: Vec::new(),
            room,
        };
        match write_saved_with(&game, None, &mut disk) {
            Err(Error::Io { kind, .. }) => assert_eq!(kind, ErrorKind::StorageFull),
            other => panic!("room {room}: {other:?}"),
        }
    }
}

#[test]
fn messages_name_the_bad_value() {
    let cases = [
        (
            Error::BadMagic {
                format: "bitmines saved game",
                expected: MAGIC,
                found: *b"PK\x03\x04\x14\x00\x00\x00",
            },
            "not a bitmines saved game: it starts [50, 4b, 03, 04, 14, 00, 00, 00] where [89, 42, 4d, 47, 0d, 0a, 1a, 0a] is expected",
        ),
        (
            Error::UnsupportedVersion {
                format: "bitmines saved game",
                version: 2,
                supported: 1,
            },
            "bitmines saved game format version 2 is not supported (this crate reads 1)",
        ),
        (
            Error::BadStatus { found: 7 },
            "status byte 7 is not 0 (playing), 1 (won) or 2 (lost)",
        ),
        (
            Error::HeaderPadding {
                offset: 52,
                found: 0x10,
            },
            "header byte 52 is 0x10 where the format has a zero padding byte",
        ),
        (
            Error::CountTooLarge {
                what: "exploded mines",
                count: 12,
                max: 10,
            },
            "the header declares 12 exploded mines, more than the 10 it allows",
        ),
        (
            Error::CountMismatch {
                what: "flags",
                declared: 3,
                found: 2,
            },
            "the header declares 3 flags but the planes hold 2",
        ),
        (
            Error::ExplodedOrder {
                row: 1,
                col: 4,
                previous: (2, 0),
            },
            "exploded cell (1, 4) is listed after (2, 0): the list must be strictly increasing",
        ),
        (
            Error::PaddingBits {
                plane: "flagged",
                row: 2,
                cols: 70,
                bits: 0b1100_0000,
            },
            "row 2 of the flagged plane sets padding bits 0b11000000 in its last byte, past the board's 70 columns",
        ),
    ];
    for (error, message) in cases {
        assert_eq!(error.to_string(), message);
    }
}

// ---------------------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------------------

/// Whatever reads back must be a valid game that writes back to the same bytes.
fn check_read(bytes: &[u8]) -> Result<(), TestCaseError> {
    let from_memory = Game::from_saved(bytes);
    let streamed = Game::read_saved(bytes);
    prop_assert_eq!(from_memory.as_ref().err(), streamed.as_ref().err());
    if let Ok((game, header)) = from_memory {
        prop_assert_eq!(game.validate(), Ok(()));
        prop_assert_eq!(saved_with(&game, header.seed).unwrap(), bytes);
        prop_assert_eq!(read_header(bytes), Ok(header));
    }
    Ok(())
}

/// A small random game after a few random moves, saved; under the endless rule for odd
/// seeds.
fn saved_game(seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let (rows, cols) = (1 + rng.below(4), 1 + rng.below(10));
    let rule = if seed % 2 == 1 {
        Rule::Endless
    } else {
        Rule::Classic
    };
    let mut game = Game::new(random_board(&mut rng, rows, cols, 0.25)).with_rule(rule);
    for _ in 0..rng.below(8) {
        if game.status() == Status::Playing {
            random_move(&mut rng, &mut game);
        }
    }
    saved_with(&game, rng.chance(0.5).then_some(seed)).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        check_read(&bytes)?;
    }

    #[test]
    fn arbitrary_bytes_after_a_good_prefix_never_panic(
        rows in 0u64..4,
        cols in 0u64..12,
        status in 0u8..4,
        counts in proptest::array::uniform4(0u64..6),
        rest in proptest::collection::vec(any::<u8>(), 0..120),
        fix in any::<bool>(),
    ) {
        // Random bytes rarely get past the magic, so these start with a plausible header.
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        for value in [rows, cols, counts[0], 0] {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes.extend_from_slice(&[status, 0, 0, 0, 0, 0, 0, 0]);
        for value in &counts[1..] {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes.extend_from_slice(&rest);
        if fix && bytes.len() >= 4 {
            bytes = fix_crc(bytes);
        }
        check_read(&bytes)?;
    }

    /// Random endless games of every width round trip after every move.
    #[test]
    fn endless_games_round_trip(
        seed in any::<u64>(),
        rows in 1usize..6,
        cols in proptest::sample::select(&[1usize, 2, 3, 7, 63, 64, 65][..]),
        density in proptest::sample::select(&[0.05, 0.2, 0.4][..]),
        moves in 0usize..30,
    ) {
        let mut rng = Rng(seed);
        let mut game = Game::new(random_board(&mut rng, rows, cols, density)).with_rule(Rule::Endless);
        let recorded = rng.chance(0.5).then_some(seed);
        check_round_trip(&game, recorded);
        for _ in 0..moves {
            if game.status() != Status::Playing {
                break;
            }
            random_move(&mut rng, &mut game);
            check_round_trip(&game, recorded);
        }
    }

    #[test]
    fn edited_games_never_panic_and_never_lie(
        seed in any::<u64>(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        fix in any::<bool>(),
    ) {
        let mut bytes = saved_game(seed);
        check_read(&bytes)?;
        for (at, value) in edits {
            let len = bytes.len();
            bytes[at % len] = value;
        }
        if fix {
            bytes = fix_crc(bytes);
        }
        check_read(&bytes)?;
    }
}

/// A game remembers the seed its board came from (`Game::seeded`, a seeded placer, a saved
/// game read back, or `set_seed`) and records it when saved, without being asked again.
#[test]
fn a_saved_game_records_the_seed_the_game_remembers() {
    let seed_of = |game: &Game| {
        let (read, header) = Game::from_saved(&game.to_saved().unwrap()).unwrap();
        assert_eq!(read.seed(), header.seed);
        header.seed
    };
    let mut seeded = Game::seeded(9, 9, 10, 42).unwrap();
    assert_eq!(seeded.seed(), Some(42));
    seeded.reveal(4, 4).unwrap();
    assert_eq!(seed_of(&seeded), Some(42));

    let placer = |request: &bitmines_core::Placement| {
        bitmines_core::Placer::place(&bitmines_core::SeededPlacer::new(1), request)
    };
    let mut unnamed = Game::deferred(9, 9, 10, bitmines_core::FirstClick::Opening, placer).unwrap();
    unnamed.reveal(4, 4).unwrap();
    assert_eq!(seed_of(&unnamed), None);

    let mut plain = Game::new(Board::from_mines(2, 2, [(0, 0)]).unwrap());
    assert_eq!(seed_of(&plain), None);
    plain.set_seed(Some(5));
    assert_eq!(seed_of(&plain), Some(5));
}
