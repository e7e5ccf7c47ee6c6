//! Pictures of boards and games as PNG files.
//!
//! Each cell gets a colour: grey for hidden, orange for a flag, white for an open zero cell,
//! a colour per number (the classic ones, lightened), black for a mine and red for the mine
//! that exploded. A board wider or taller than the picture is scaled down by a whole factor,
//! each pixel the average colour of the block of cells it covers; a small board is scaled up
//! so each cell is a square of pixels.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use bitmines_core::{Board, Cell, Game};
use indicatif::ProgressBar;

use crate::files::{output_name, write_output};

/// An RGB colour.
type Rgb = [u8; 3];

const HIDDEN: Rgb = [160, 160, 160];
const FLAG: Rgb = [255, 140, 0];
const MINE: Rgb = [20, 20, 20];
const EXPLODED: Rgb = [230, 0, 0];
const WRONG_FLAG: Rgb = [200, 0, 200];
/// Open cells by number, 0 to 8.
const NUMBERS: [Rgb; 9] = [
    [250, 250, 250],
    [150, 170, 255],
    [140, 210, 140],
    [255, 150, 150],
    [110, 110, 200],
    [200, 110, 110],
    [100, 200, 200],
    [90, 90, 90],
    [190, 190, 190],
];

/// The colour of what a player sees on a cell.
fn cell_colour(cell: Cell) -> Rgb {
    match cell {
        Cell::Hidden => HIDDEN,
        Cell::Flagged => FLAG,
        Cell::Open(n) => NUMBERS[usize::from(n.min(8))],
        Cell::Exploded => EXPLODED,
        Cell::Mine => MINE,
        Cell::WrongFlag => WRONG_FLAG,
    }
}

/// How a `rows x cols` board maps onto pixels: `down` cells per pixel side, or `up` pixels
/// per cell side (one of the two is 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Scale {
    down: usize,
    up: usize,
    width: usize,
    height: usize,
}

impl Scale {
    /// The scale that fits `rows x cols` cells in `max_side` pixels a side, as large as it
    /// can be up to 16 pixels per cell.
    pub(crate) fn fit(rows: usize, cols: usize, max_side: u32) -> Scale {
        let max_side = (max_side as usize).max(1);
        let longest = rows.max(cols).max(1);
        let down = longest.div_ceil(max_side);
        let up = match down {
            1 => (max_side / longest).clamp(1, 16),
            _ => 1,
        };
        Scale {
            down,
            up,
            width: cols.div_ceil(down) * up,
            height: rows.div_ceil(down) * up,
        }
    }
}

/// Writes a picture of `game` (what its player sees) to `path`, atomically. `progress` counts
/// the board's rows as they are pictured.
pub(crate) fn write_game(
    path: &Path,
    game: &Game,
    max_side: u32,
    progress: &ProgressBar,
) -> anyhow::Result<()> {
    let cells = (game.rows(), game.cols());
    write(path, cells, max_side, progress, |r, c| {
        game.cell(r, c).map(cell_colour)
    })
}

/// Writes a picture of `board` with every cell shown (mines black) to `path`, atomically.
/// `progress` counts the board's rows as they are pictured.
pub(crate) fn write_board(
    path: &Path,
    board: &Board,
    max_side: u32,
    progress: &ProgressBar,
) -> anyhow::Result<()> {
    let cells = (board.rows(), board.cols());
    write(path, cells, max_side, progress, |r, c| {
        Ok(match board.is_mine(r, c)? {
            true => MINE,
            false => NUMBERS[usize::from(board.number(r, c)?.min(8))],
        })
    })
}

/// Renders `rows x cols` cells coloured by `colour` and writes them as a PNG.
fn write(
    path: &Path,
    (rows, cols): (usize, usize),
    max_side: u32,
    progress: &ProgressBar,
    colour: impl Fn(usize, usize) -> Result<Rgb, bitmines_core::Error>,
) -> anyhow::Result<()> {
    let scale = Scale::fit(rows, cols, max_side);
    write_output(path, |file| {
        encode(file, rows, cols, scale, &colour, progress)
    })
    .with_context(|| format!("cannot write the picture {}", output_name(path)))
}

/// Encodes the picture into `out`, one row of pixels at a time, adding each block of board
/// rows to `progress` once it is pictured.
fn encode(
    out: &mut dyn Write,
    rows: usize,
    cols: usize,
    scale: Scale,
    colour: &impl Fn(usize, usize) -> Result<Rgb, bitmines_core::Error>,
    progress: &ProgressBar,
) -> anyhow::Result<()> {
    let (width, height) = (u32::try_from(scale.width)?, u32::try_from(scale.height)?);
    let mut encoder = png::Encoder::new(out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    let mut stream = writer.stream_writer()?;
    let blocks = cols.div_ceil(scale.down);
    let mut sums = vec![[0u32; 4]; blocks];
    let mut line = vec![0u8; scale.width * 3];
    for top in (0..rows).step_by(scale.down) {
        sums.iter_mut().for_each(|sum| *sum = [0; 4]);
        for r in top..(top + scale.down).min(rows) {
            for c in 0..cols {
                let [red, green, blue] = colour(r, c)?;
                let sum = &mut sums[c / scale.down];
                sum[0] += u32::from(red);
                sum[1] += u32::from(green);
                sum[2] += u32::from(blue);
                sum[3] += 1;
            }
        }
        for (block, sum) in sums.iter().enumerate() {
            let pixel = [0, 1, 2].map(|k| ((sum[k] + sum[3] / 2) / sum[3].max(1)) as u8);
            for x in 0..scale.up {
                let at = (block * scale.up + x) * 3;
                line[at..at + 3].copy_from_slice(&pixel);
            }
        }
        for _ in 0..scale.up {
            stream.write_all(&line)?;
        }
        progress.inc(((top + scale.down).min(rows) - top) as u64);
    }
    stream.finish()?;
    writer.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_fit_the_longest_side() {
        let scale = Scale::fit(10_000, 5_000, 2048);
        assert_eq!((scale.down, scale.up), (5, 1));
        assert_eq!((scale.width, scale.height), (1000, 2000));
        let scale = Scale::fit(9, 9, 2048);
        assert_eq!((scale.down, scale.up), (1, 16));
        assert_eq!((scale.width, scale.height), (144, 144));
        let scale = Scale::fit(3000, 1, 2048);
        assert_eq!((scale.width, scale.height), (1, 1500));
        let scale = Scale::fit(1, 1, 1);
        assert_eq!((scale.width, scale.height), (1, 1));
    }

    /// A 2x2 board scaled to one pixel is the average of its four cells.
    #[test]
    fn a_pixel_averages_its_block() {
        let board: Board = "*.\n..\n".parse().expect("a board");
        let mut bytes = Vec::new();
        let scale = Scale::fit(2, 2, 1);
        let colour = |r, c| {
            Ok(match board.is_mine(r, c)? {
                true => MINE,
                false => NUMBERS[usize::from(board.number(r, c)?)],
            })
        };
        encode(&mut bytes, 2, 2, scale, &colour, &ProgressBar::hidden()).expect("encodes");
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .expect("decodes");
        let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
        reader.next_frame(&mut pixels).expect("a frame");
        let want =
            [0, 1, 2].map(|k| ((u32::from(MINE[k]) + 3 * u32::from(NUMBERS[1][k]) + 2) / 4) as u8);
        assert_eq!(pixels[..3], want);
    }
}
