//! Pictures of boards and games as PNG files.
//!
//! Each cell gets a colour: grey for hidden, orange for a flag, white for an open zero cell,
//! a colour per number (the classic ones, lightened), black for a mine, red for the mine
//! that exploded and purple for a flag proven wrong. A small board is scaled up so each cell
//! is a square of pixels; from [`DIGIT_MIN`] pixels a cell, each number is also written in
//! it, and from 4 pixels a thin darker edge tells neighbouring cells apart. A board wider or
//! taller than the picture is scaled down by a whole factor, each pixel the average colour of
//! the block of cells it covers (no digits then). A legend of the colours, in words, runs
//! in a strip below the board.
//!
//! The picture is box-filtered down (or scaled up by whole pixels) and streamed row by row, so
//! a huge board never needs the whole image in memory.

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

/// What a cell is painted with: its colour and, when it shows a number, the number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Paint {
    colour: Rgb,
    digit: Option<u8>,
}

impl Paint {
    fn plain(colour: Rgb) -> Paint {
        Paint {
            colour,
            digit: None,
        }
    }

    /// An open cell: its number's colour, and the number itself unless it is 0.
    fn open(n: u8) -> Paint {
        let n = n.min(8);
        Paint {
            colour: NUMBERS[usize::from(n)],
            digit: (n > 0).then_some(n),
        }
    }
}

/// What a player sees on a cell.
fn cell_paint(cell: Cell) -> Paint {
    match cell {
        Cell::Hidden => Paint::plain(HIDDEN),
        Cell::Flagged => Paint::plain(FLAG),
        Cell::Open(n) => Paint::open(n),
        Cell::Exploded => Paint::plain(EXPLODED),
        Cell::Mine => Paint::plain(MINE),
        Cell::WrongFlag => Paint::plain(WRONG_FLAG),
    }
}

/// The legend of a game's picture: every state a player's cell can show.
const GAME_LEGEND: &[(Rgb, &str)] = &[
    (HIDDEN, "HIDDEN"),
    (FLAG, "FLAG"),
    (MINE, "MINE"),
    (EXPLODED, "EXPLODED"),
    (WRONG_FLAG, "WRONG FLAG"),
];

/// The legend of a board's picture, where every cell is shown: mines and numbers.
const BOARD_LEGEND: &[(Rgb, &str)] = &[(MINE, "MINE")];

/// The smallest cell, in pixels a side, that has its number written in it: a glyph of the
/// font and a pixel of margin on each side.
pub(crate) const DIGIT_MIN: usize = GLYPH_H + 2;

/// Cells from this many pixels a side get a darker edge, so that neighbours of one colour
/// (a hidden region, an opening) still show their cells.
const EDGE_MIN: usize = 4;

/// The glyphs' size in font pixels.
const GLYPH_W: usize = 5;
const GLYPH_H: usize = 7;

/// A 5x7 font for the digits and the legend's words: each row's five pixels are the low five
/// bits, the leftmost the highest. Characters it lacks are drawn as blanks.
fn glyph(ch: char) -> [u8; GLYPH_H] {
    match ch {
        '0' => [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
        '1' => [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        '2' => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
        '3' => [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        '4' => [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
        '5' => [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        '6' => [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
        '7' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
        'A' => [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        'D' => [0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C],
        'E' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F],
        'F' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        'G' => [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F],
        'H' => [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        'I' => [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E],
        'L' => [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
        'M' => [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11],
        'N' => [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        'O' => [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
        'P' => [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        'R' => [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        'W' => [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A],
        'X' => [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
        _ => [0; GLYPH_H],
    }
}

/// Whether font pixel `(x, y)` of `ch` is set.
fn inked(ch: char, x: usize, y: usize) -> bool {
    x < GLYPH_W && y < GLYPH_H && glyph(ch)[y] >> (GLYPH_W - 1 - x) & 1 == 1
}

/// Black or white, whichever reads better on `background`.
fn ink_on(background: Rgb) -> Rgb {
    let [r, g, b] = background.map(u32::from);
    // Perceived brightness, weighted as in ITU-R BT.601.
    match 299 * r + 587 * g + 114 * b {
        l if l >= 128_000 => [0, 0, 0],
        _ => [255, 255, 255],
    }
}

/// `colour` a quarter darker.
fn darker(colour: Rgb) -> Rgb {
    colour.map(|c| (u16::from(c) * 3 / 4) as u8)
}

/// Where a cell of `up` pixels a side has its digit: the font's scale and the offset of the
/// glyph's top left corner in the cell; `None` when the cell is too small for one.
fn digit_layout(up: usize) -> Option<(usize, usize, usize)> {
    if up < DIGIT_MIN {
        return None;
    }
    // The edge takes a pixel; the glyph is centred in what is left.
    let inner = up - 1;
    let k = ((inner - 1) / GLYPH_H).min((inner - 1) / GLYPH_W).max(1);
    Some((k, (inner - GLYPH_W * k) / 2, (inner - GLYPH_H * k) / 2))
}

/// The colour of pixel `(x, y)` of a cell of `up` pixels a side painted with `paint`.
fn cell_pixel(paint: Paint, up: usize, x: usize, y: usize) -> Rgb {
    if up >= EDGE_MIN && (x == up - 1 || y == up - 1) {
        return darker(paint.colour);
    }
    if let (Some(n), Some((k, left, top))) = (paint.digit, digit_layout(up))
        && x >= left
        && y >= top
        && inked(char::from(b'0' + n), (x - left) / k, (y - top) / k)
    {
        return ink_on(paint.colour);
    }
    paint.colour
}

/// The background of the legend strip and of any width it adds beside the board.
const PAPER: Rgb = [255, 255, 255];

/// The legend: a strip of `width` pixels (or wider, where an entry needs it) holding a
/// swatch and a word for each of `entries`, then a swatch for each number with the number
/// in it, wrapped into as many rows as they need. Returns the strip's width, its height and
/// its pixels, row after row.
fn legend(width: usize, entries: &[(Rgb, &str)]) -> (usize, usize, Vec<u8>) {
    // Twice the font's size on wide pictures, so the legend reads at a glance there too.
    let k = if width >= 600 { 2 } else { 1 };
    let swatch = (GLYPH_H + 4) * k;
    let gap = 2 * GLYPH_W * k;
    let margin = 2 * k;
    let advance = (GLYPH_W + 1) * k;
    let mut items: Vec<(Paint, &str)> = entries
        .iter()
        .map(|&(colour, word)| (Paint::plain(colour), word))
        .collect();
    items.extend((0..=8).map(|n| {
        (
            Paint {
                colour: NUMBERS[usize::from(n)],
                digit: Some(n),
            },
            "",
        )
    }));
    let item_width = |word: &str| match word.len() {
        0 => swatch,
        len => swatch + k * 3 + len * advance - k,
    };
    let widest = items.iter().map(|(_, w)| item_width(w)).max().unwrap_or(0);
    let width = width.max(widest + 2 * margin);
    // Lay the items out in rows: (row, x) of each.
    let mut places = Vec::with_capacity(items.len());
    let (mut row, mut x) = (0, margin);
    for (_, word) in &items {
        let w = item_width(word);
        if x > margin && x + w > width - margin {
            row += 1;
            x = margin;
        }
        places.push((row, x));
        x += w + gap;
    }
    let line = swatch + margin;
    let height = margin + (row + 1) * line;
    let mut pixels = vec![0u8; width * height * 3];
    let mut put = |x: usize, y: usize, colour: Rgb| {
        let at = (y * width + x) * 3;
        pixels[at..at + 3].copy_from_slice(&colour);
    };
    for y in 0..height {
        for x in 0..width {
            // A rule along the top parts the legend from the board.
            put(x, y, if y < k { [0, 0, 0] } else { PAPER });
        }
    }
    for ((paint, word), &(row, left)) in items.iter().zip(&places) {
        let top = margin + row * line + k;
        for y in 0..swatch {
            for x in 0..swatch {
                // An outline, so a swatch as light as the paper still shows.
                let edge = x < k || y < k || x >= swatch - k || y >= swatch - k;
                let colour = match (edge, paint.digit) {
                    (true, _) => [0, 0, 0],
                    (false, Some(n)) => {
                        let (gx, gy) = (
                            x.wrapping_sub(swatch / 2 - GLYPH_W * k / 2),
                            y.wrapping_sub(2 * k),
                        );
                        match inked(char::from(b'0' + n), gx / k, gy / k) {
                            true => ink_on(paint.colour),
                            false => paint.colour,
                        }
                    }
                    (false, None) => paint.colour,
                };
                put(left + x, top + y, colour);
            }
        }
        let text_left = left + swatch + k * 3;
        let text_top = top + 2 * k;
        for (i, ch) in word.chars().enumerate() {
            for y in 0..GLYPH_H * k {
                for x in 0..GLYPH_W * k {
                    if inked(ch, x / k, y / k) {
                        put(text_left + i * advance + x, text_top + y, [0, 0, 0]);
                    }
                }
            }
        }
    }
    (width, height, pixels)
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
    write(path, cells, max_side, GAME_LEGEND, progress, |r, c| {
        game.cell(r, c).map(cell_paint)
    })
}

/// Writes a picture of `board` with every cell shown (mines black, every other cell its
/// number) to `path`, atomically. `progress` counts the board's rows as they are pictured.
pub(crate) fn write_board(
    path: &Path,
    board: &Board,
    max_side: u32,
    progress: &ProgressBar,
) -> anyhow::Result<()> {
    let cells = (board.rows(), board.cols());
    write(path, cells, max_side, BOARD_LEGEND, progress, |r, c| {
        board_paint(board, r, c)
    })
}

/// A cell of a board with every cell shown.
fn board_paint(board: &Board, r: usize, c: usize) -> Result<Paint, bitmines_core::Error> {
    Ok(match board.is_mine(r, c)? {
        true => Paint::plain(MINE),
        false => Paint::open(board.number(r, c)?),
    })
}

/// Renders `rows x cols` cells painted by `paint`, with a legend of `entries`, and writes
/// them as a PNG.
fn write(
    path: &Path,
    (rows, cols): (usize, usize),
    max_side: u32,
    entries: &[(Rgb, &str)],
    progress: &ProgressBar,
    paint: impl Fn(usize, usize) -> Result<Paint, bitmines_core::Error>,
) -> anyhow::Result<()> {
    let scale = Scale::fit(rows, cols, max_side);
    write_output(path, |file| {
        encode(file, rows, cols, scale, entries, &paint, progress)
    })
    .with_context(|| format!("cannot write the picture {}", output_name(path)))
}

/// Encodes the picture into `out`, one row of pixels at a time, adding each block of board
/// rows to `progress` once it is pictured; the legend of `entries` follows the board.
fn encode(
    out: &mut dyn Write,
    rows: usize,
    cols: usize,
    scale: Scale,
    entries: &[(Rgb, &str)],
    paint: &impl Fn(usize, usize) -> Result<Paint, bitmines_core::Error>,
    progress: &ProgressBar,
) -> anyhow::Result<()> {
    let (width, legend_height, legend_pixels) = legend(scale.width, entries);
    let height = scale.height + legend_height;
    let mut encoder = png::Encoder::new(out, u32::try_from(width)?, u32::try_from(height)?);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    let mut stream = writer.stream_writer()?;
    let blocks = cols.div_ceil(scale.down);
    let mut sums = vec![[0u32; 4]; blocks];
    // A cell's digit is drawn only where a pixel is a single cell (`down` is 1).
    let mut digits = vec![None; blocks];
    // Any width the legend adds beside the board stays paper.
    let mut line: Vec<u8> = PAPER.repeat(width);
    for top in (0..rows).step_by(scale.down) {
        sums.iter_mut().for_each(|sum| *sum = [0; 4]);
        for r in top..(top + scale.down).min(rows) {
            for c in 0..cols {
                let cell = paint(r, c)?;
                let sum = &mut sums[c / scale.down];
                sum[0] += u32::from(cell.colour[0]);
                sum[1] += u32::from(cell.colour[1]);
                sum[2] += u32::from(cell.colour[2]);
                sum[3] += 1;
                digits[c / scale.down] = cell.digit;
            }
        }
        for y in 0..scale.up {
            for (block, sum) in sums.iter().enumerate() {
                let colour = [0, 1, 2].map(|k| ((sum[k] + sum[3] / 2) / sum[3].max(1)) as u8);
                let cell = Paint {
                    colour,
                    digit: if scale.down == 1 { digits[block] } else { None },
                };
                for x in 0..scale.up {
                    let at = (block * scale.up + x) * 3;
                    line[at..at + 3].copy_from_slice(&cell_pixel(cell, scale.up, x, y));
                }
            }
            stream.write_all(&line)?;
        }
        progress.inc(((top + scale.down).min(rows) - top) as u64);
    }
    stream.write_all(&legend_pixels)?;
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

    /// Encodes `rows x cols` cells painted by `paint` at `scale` and decodes the picture:
    /// its width, its height and its pixels.
    fn picture(
        rows: usize,
        cols: usize,
        scale: Scale,
        entries: &[(Rgb, &str)],
        paint: impl Fn(usize, usize) -> Result<Paint, bitmines_core::Error>,
    ) -> (usize, usize, Vec<Rgb>) {
        let mut bytes = Vec::new();
        encode(
            &mut bytes,
            rows,
            cols,
            scale,
            entries,
            &paint,
            &ProgressBar::hidden(),
        )
        .expect("encodes");
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .expect("decodes");
        let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
        let info = reader.next_frame(&mut pixels).expect("a frame");
        assert_eq!(info.color_type, png::ColorType::Rgb);
        let pixels = pixels.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
        (info.width as usize, info.height as usize, pixels)
    }

    /// A 2x2 board scaled to one pixel is the average of its four cells.
    #[test]
    fn a_pixel_averages_its_block() {
        let board: Board = "*.\n..\n".parse().expect("a board");
        let scale = Scale::fit(2, 2, 1);
        let (_, _, pixels) = picture(2, 2, scale, BOARD_LEGEND, |r, c| board_paint(&board, r, c));
        let want =
            [0, 1, 2].map(|k| ((u32::from(MINE[k]) + 3 * u32::from(NUMBERS[1][k]) + 2) / 4) as u8);
        assert_eq!(pixels[0], want);
    }

    /// A game after a reveal: `*..` over two empty rows, opened from the far corner, so the
    /// three cells around the mine show 1 and the mine's cell stays hidden.
    fn small_game() -> Game {
        let mut game = Game::new("*..\n...\n...\n".parse::<Board>().expect("a board"));
        game.reveal(2, 2).expect("a reveal");
        game
    }

    /// At 16 pixels a cell, the 1 at (1, 1) is written in black on its colour, pixel for
    /// pixel the font's 1 at twice its size, while a hidden cell and an open zero cell hold
    /// nothing but their colour and their darker edge.
    #[test]
    fn a_number_is_written_in_its_cell() {
        let game = small_game();
        let scale = Scale::fit(3, 3, 2048);
        assert_eq!(scale.up, 16);
        let (width, _, pixels) = picture(3, 3, scale, GAME_LEGEND, |r, c| {
            game.cell(r, c).map(cell_paint)
        });
        let at = |x: usize, y: usize| pixels[y * width + x];
        let one = [
            "..#..", //
            ".##..", //
            "..#..", //
            "..#..", //
            "..#..", //
            "..#..", //
            ".###.",
        ];
        // The glyph is 10x14 pixels, centred in the 15 pixels inside the cell's edge.
        let (left, top) = (16 + 2, 16);
        let mut inked = 0;
        for (gy, row) in one.iter().enumerate() {
            for (gx, bit) in row.chars().enumerate() {
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let pixel = at(left + 2 * gx + dx, top + 2 * gy + dy);
                    match bit {
                        '#' => {
                            assert_eq!(pixel, [0, 0, 0], "font pixel ({gx}, {gy})");
                            inked += 1;
                        }
                        _ => assert_eq!(pixel, NUMBERS[1], "font pixel ({gx}, {gy})"),
                    }
                }
            }
        }
        assert_eq!(inked, 4 * 10);
        for (row, col, colour) in [(0, 0, HIDDEN), (2, 2, NUMBERS[0])] {
            for y in 0..16 {
                for x in 0..16 {
                    let pixel = at(col * 16 + x, row * 16 + y);
                    let edge = x == 15 || y == 15;
                    let want = if edge { darker(colour) } else { colour };
                    assert_eq!(pixel, want, "cell ({row}, {col}), pixel ({x}, {y})");
                }
            }
        }
    }

    /// Cells smaller than [`DIGIT_MIN`] pixels show their colour alone.
    #[test]
    fn small_cells_have_no_digits() {
        let game = small_game();
        let scale = Scale::fit(3, 3, 3 * (DIGIT_MIN as u32 - 1));
        assert_eq!(scale.up, DIGIT_MIN - 1);
        let (width, _, pixels) = picture(3, 3, scale, GAME_LEGEND, |r, c| {
            game.cell(r, c).map(cell_paint)
        });
        let up = scale.up;
        for y in up..2 * up {
            for x in up..2 * up {
                let pixel = pixels[y * width + x];
                assert!(
                    pixel == NUMBERS[1] || pixel == darker(NUMBERS[1]),
                    "pixel ({x}, {y}) is {pixel:?}"
                );
            }
        }
    }

    /// Below the board, a strip on white paper holds a swatch of every colour a game's
    /// picture uses, each number's, and the words in black.
    #[test]
    fn the_legend_follows_the_board() {
        let game = small_game();
        let scale = Scale::fit(3, 3, 2048);
        let (width, height, pixels) = picture(3, 3, scale, GAME_LEGEND, |r, c| {
            game.cell(r, c).map(cell_paint)
        });
        assert!(
            height > scale.height + 2 * DIGIT_MIN,
            "a strip below the board"
        );
        let strip = &pixels[scale.height * width..];
        for (colour, word) in GAME_LEGEND {
            assert!(strip.contains(colour), "no swatch for {word}");
        }
        for colour in NUMBERS {
            assert!(strip.contains(&colour), "no swatch for {colour:?}");
        }
        let paper = strip.iter().filter(|p| **p == PAPER).count();
        let ink = strip.iter().filter(|p| **p == [0, 0, 0]).count();
        assert!(paper > strip.len() / 2, "mostly paper");
        assert!(ink > 5 * 7 * 10, "outlines and words in black");
        // The board's own pixels never take the legend's colours for cells it lacks.
        assert!(!pixels[..scale.height * width].contains(&EXPLODED));
    }
}
