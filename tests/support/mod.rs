//! Small helpers shared by the test files: a deterministic generator (xorshift64*) for the
//! seeded loops, so they need no extra crate, the neighbourhood of a cell, and a plain
//! LeetCode 529 solution.

/// xorshift64* with a scrambled, never-zero seed.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n`; `n` must not be zero. The modulo bias is far below what the tests
    /// can see.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `true` with probability `p`.
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    /// One element of a non-empty slice.
    pub(crate) fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// The cells around `(row, col)` on a `rows x cols` grid, the cell itself excluded.
pub(crate) fn around(rows: usize, cols: usize, row: usize, col: usize) -> Vec<(usize, usize)> {
    let mut cells = Vec::new();
    for r in row.saturating_sub(1)..=(row + 1).min(rows - 1) {
        for c in col.saturating_sub(1)..=(col + 1).min(cols - 1) {
            if (r, c) != (row, col) {
                cells.push((r, c));
            }
        }
    }
    cells
}

/// LeetCode 529 as its statement reads, solved the classic way: a click on `M` makes it `X`;
/// a click on `E` counts the `M` and `X` around the cell, writes the digit if there are any,
/// and otherwise writes `B` and reveals every adjacent `E` the same way (an explicit stack
/// stands in for the recursion); a click on anything else changes nothing.
pub(crate) fn naive_update_board(board: &mut [Vec<char>], [row, col]: [usize; 2]) {
    match board[row][col] {
        'M' => board[row][col] = 'X',
        'E' => {
            let (rows, cols) = (board.len(), board[0].len());
            let mut stack = vec![(row, col)];
            while let Some((r, c)) = stack.pop() {
                if board[r][c] != 'E' {
                    continue;
                }
                let neighbours = around(rows, cols, r, c);
                let mines = neighbours
                    .iter()
                    .filter(|&&(nr, nc)| matches!(board[nr][nc], 'M' | 'X'))
                    .count();
                if mines > 0 {
                    board[r][c] = char::from(b'0' + mines as u8);
                } else {
                    board[r][c] = 'B';
                    stack.extend(
                        neighbours
                            .into_iter()
                            .filter(|&(nr, nc)| board[nr][nc] == 'E'),
                    );
                }
            }
        }
        _ => {}
    }
}
