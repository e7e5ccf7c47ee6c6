//! Where things go on the screen, and which part of the board it shows: arithmetic on plain
//! numbers, tested at the edges of boards far larger than any terminal without building one.

use ratatui::layout::Rect;

/// Terminal columns per board cell: a space, then the cell's glyph. The cursor draws brackets
/// in the spaces on either side of its cell, so it shows even without colour.
pub(crate) const CELL_WIDTH: u16 = 2;

/// The smallest terminal the game draws in: a status line, a bordered board of at least one
/// row of ten cells, a message line and a key line. Below this it says it is too small.
pub(crate) const MIN_WIDTH: u16 = 24;
/// See [`MIN_WIDTH`].
pub(crate) const MIN_HEIGHT: u16 = 6;

/// Cells kept between the cursor and the edge of the view when the view scrolls to follow
/// it (fewer on views too small for it), so the player sees what lies ahead.
const SCROLL_MARGIN: usize = 2;

/// The board's part of the screen, for one terminal size and board size; the lines around it
/// are at [`Screen::line_rows`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Screen {
    /// The board's bordered block, centred under the status line.
    pub(crate) frame: Rect,
    /// Inside the block: the visible cells, [`CELL_WIDTH`] columns each plus one trailing
    /// column for the cursor's closing bracket.
    pub(crate) cells: Rect,
    /// Board rows shown.
    pub(crate) span_rows: usize,
    /// Board columns shown.
    pub(crate) span_cols: usize,
}

impl Screen {
    /// The layout of a terminal of `area` showing a `rows x cols` board, or `None` when the
    /// terminal is smaller than [`MIN_WIDTH`] x [`MIN_HEIGHT`].
    pub(crate) fn new(area: Rect, rows: usize, cols: usize) -> Option<Screen> {
        if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
            return None;
        }
        // Everything but the status line, the message line and the key line; the board's
        // border takes one cell on each side of that.
        let middle = area.height - 3;
        let span_rows = rows.min(usize::from(middle - 2));
        let span_cols = cols.min(usize::from((area.width - 2 - 1) / CELL_WIDTH));
        // Both spans fit in a u16 here: they are at most the terminal's size.
        let inner_height = span_rows as u16;
        let inner_width = span_cols as u16 * CELL_WIDTH + 1;
        let frame_width = inner_width + 2;
        let x = area.x + (area.width - frame_width) / 2;
        let frame = Rect::new(x, area.y + 1, frame_width, inner_height + 2);
        Some(Screen {
            frame,
            cells: Rect::new(frame.x + 1, frame.y + 1, inner_width, inner_height),
            span_rows,
            span_cols,
        })
    }

    /// The terminal rows of the status line (the top one, over the board), the message line
    /// (right under the board) and the key line (under the message line).
    pub(crate) fn line_rows(&self) -> [u16; 3] {
        let under = self.frame.y + self.frame.height;
        [self.frame.y - 1, under, under + 1]
    }

    /// The offset `(row, col)` from the view's origin of the cell drawn at terminal position
    /// `(x, y)`, or `None` if no cell is drawn there.
    pub(crate) fn cell_at(&self, x: u16, y: u16) -> Option<(usize, usize)> {
        let (dx, dy) = (x.checked_sub(self.cells.x)?, y.checked_sub(self.cells.y)?);
        let (row, col) = (usize::from(dy), usize::from(dx / CELL_WIDTH));
        (row < self.span_rows && col < self.span_cols).then_some((row, col))
    }

    /// The terminal position `(x, y)` of the glyph of the cell at offset `(row, col)` from
    /// the view's origin, or `None` if that offset is outside the view.
    pub(crate) fn glyph_at(&self, row: usize, col: usize) -> Option<(u16, u16)> {
        if row >= self.span_rows || col >= self.span_cols {
            return None;
        }
        // Both offsets are below the spans, which fit in a u16.
        let x = self.cells.x + col as u16 * CELL_WIDTH + 1;
        Some((x, self.cells.y + row as u16))
    }
}

/// The largest origin that still fills a view of `span` cells on an axis of `len` cells:
/// `origin` itself, or less so the view does not run past the board's end.
pub(crate) fn clamp(origin: usize, len: usize, span: usize) -> usize {
    origin.min(len.saturating_sub(span))
}

/// The origin closest to `origin` that shows `cursor` with [`SCROLL_MARGIN`] cells of room
/// on each side (fewer at the board's edges and in views too small for it).
pub(crate) fn follow(origin: usize, cursor: usize, len: usize, span: usize) -> usize {
    let margin = SCROLL_MARGIN.min(span.saturating_sub(1) / 2);
    let lowest = cursor
        .saturating_add(margin)
        .saturating_add(1)
        .saturating_sub(span);
    let highest = cursor.saturating_sub(margin);
    clamp(origin.clamp(lowest, highest.max(lowest)), len, span)
}

/// The origin that puts `cursor` in the middle of the view, as far as the board's edges allow.
pub(crate) fn centre(cursor: usize, len: usize, span: usize) -> usize {
    clamp(cursor.saturating_sub(span / 2), len, span)
}

/// `position` moved by `delta` cells, kept on an axis of `len` cells.
pub(crate) fn step(position: usize, delta: isize, len: usize) -> usize {
    position
        .saturating_add_signed(delta)
        .min(len.saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One row per case: the axis length, the span, the origin and the cursor before, and
    /// the origin `follow` gives.
    #[test]
    fn follow_keeps_the_cursor_in_view_with_a_margin() {
        let huge = 100_000_000;
        #[rustfmt::skip]
        let cases: &[(usize, usize, usize, usize, usize)] = &[
            // len, span, origin, cursor -> origin
            (30, 10, 0, 0, 0),           // at the start, nothing moves
            (30, 10, 0, 7, 0),           // inside the margin
            (30, 10, 0, 8, 1),           // one past the margin: scroll by one
            (30, 10, 5, 6, 4),           // near the top edge of the view: scroll back
            (30, 10, 0, 29, 20),         // the last cell: the view ends at the board's end
            (30, 10, 25, 29, 20),        // an origin past the end is pulled back
            (30, 40, 7, 15, 0),          // the whole axis fits: origin 0
            (5, 1, 0, 4, 4),             // a one-cell view shows exactly the cursor
            (5, 2, 0, 4, 3),             // a two-cell view: no room for a margin
            (1, 10, 0, 0, 0),            // a one-cell axis
            (huge, 30, 0, huge - 1, huge - 30),
            (huge, 30, huge - 30, 0, 0),
            (huge, 30, 50_000_000, 50_000_010, 50_000_000),
            (huge, 30, 50_000_000, 50_000_028, 50_000_001),
            (usize::MAX, 30, 0, usize::MAX - 1, usize::MAX - 30),
        ];
        for &(len, span, origin, cursor, expected) in cases {
            let got = follow(origin, cursor, len, span);
            let case = (len, span, origin, cursor);
            assert_eq!(got, expected, "len, span, origin, cursor: {case:?}");
            let in_view = got <= cursor && cursor < got + span.min(len);
            assert!(in_view, "cursor out of view");
        }
    }

    #[test]
    fn centre_clamp_and_step_stay_on_the_board() {
        let huge = 100_000_000;
        #[rustfmt::skip]
        let centres: &[(usize, usize, usize, usize)] = &[
            // len, span, cursor -> origin
            (30, 10, 15, 10),
            (30, 10, 0, 0),
            (30, 10, 29, 20),
            (30, 40, 29, 0),
            (huge, 31, huge / 2, huge / 2 - 15),
            (huge, 31, huge - 1, huge - 31),
        ];
        for &(len, span, cursor, expected) in centres {
            assert_eq!(centre(cursor, len, span), expected, "{len} {span} {cursor}");
        }
        assert_eq!(clamp(usize::MAX, huge, 30), huge - 30);
        #[rustfmt::skip]
        let steps: &[(usize, isize, usize, usize)] = &[
            // position, delta, len -> position
            (0, -1, 10, 0),
            (9, 1, 10, 9),
            (5, -30, 10, 0),
            (5, 30, 10, 9),
            (0, isize::MIN, huge, 0),
            (huge - 2, isize::MAX, huge, huge - 1),
            (0, 1, 1, 0),
        ];
        for &(position, delta, len, expected) in steps {
            let got = step(position, delta, len);
            assert_eq!(got, expected, "{position} {delta} {len}");
        }
    }

    #[test]
    fn the_screen_fits_the_board_or_shows_what_fits() {
        let area = |w, h| Rect::new(0, 0, w, h);
        // Expert in 80x24: the whole board, centred, with the trailing bracket column.
        let expert = Screen::new(area(80, 24), 16, 30).expect("fits");
        assert_eq!((expert.span_rows, expert.span_cols), (16, 30));
        assert_eq!(expert.frame, Rect::new(8, 1, 63, 18));
        assert_eq!(expert.cells, Rect::new(9, 2, 61, 16));
        assert_eq!(expert.line_rows(), [0, 19, 20]);
        let beginner = Screen::new(area(80, 24), 9, 9).expect("fits");
        assert_eq!(beginner.line_rows(), [0, 12, 13]);
        // A huge board in the same terminal: as many cells as fit.
        let huge = Screen::new(area(80, 24), 10_000, 10_000).expect("fits");
        assert_eq!((huge.span_rows, huge.span_cols), (19, 38));
        assert_eq!(huge.frame.width, 38 * 2 + 1 + 2);
        assert_eq!(huge.line_rows(), [0, 22, 23]);
        // The smallest terminal drawn, and one cell less each way.
        let small = Screen::new(area(MIN_WIDTH, MIN_HEIGHT), 100, 100).expect("fits");
        assert_eq!((small.span_rows, small.span_cols), (1, 10));
        assert_eq!(Screen::new(area(MIN_WIDTH - 1, 40), 9, 9), None);
        assert_eq!(Screen::new(area(100, MIN_HEIGHT - 1), 9, 9), None);
        assert_eq!(Screen::new(area(0, 0), 9, 9), None);
        // A 1xN board.
        let line = Screen::new(area(80, 24), 1, 10_000).expect("fits");
        assert_eq!((line.span_rows, line.span_cols), (1, 38));
    }

    /// A cell's `(row, col)` offset from the view's origin.
    type Offset = (usize, usize);

    #[test]
    fn mouse_positions_map_to_cells_and_back() {
        let screen = Screen::new(Rect::new(0, 0, 80, 24), 16, 30).expect("fits");
        let (x0, y0) = (screen.cells.x, screen.cells.y);
        #[rustfmt::skip]
        // x, y -> the cell's offset in the view
        let cases: &[(u16, u16, Option<Offset>)] = &[
            (x0, y0, Some((0, 0))),          // the space before the first glyph
            (x0 + 1, y0, Some((0, 0))),      // the first glyph
            (x0 + 2, y0, Some((0, 1))),
            (x0 + 59, y0 + 15, Some((15, 29))),
            (x0 + 60, y0, None),             // the trailing bracket column
            (x0 - 1, y0, None),              // the border
            (x0, y0 + 16, None),             // below the last row
            (0, 0, None),
        ];
        for &(x, y, expected) in cases {
            assert_eq!(screen.cell_at(x, y), expected, "({x}, {y})");
            if let Some((row, col)) = expected {
                let (gx, gy) = screen.glyph_at(row, col).expect("in view");
                assert_eq!(screen.cell_at(gx, gy), expected);
            }
        }
        assert_eq!(screen.glyph_at(16, 0), None);
        assert_eq!(screen.glyph_at(0, 30), None);
    }
}
