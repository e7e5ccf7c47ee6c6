//! Exact hypergeometric draws: how many of `mines` mines, spread uniformly over `cells` cells,
//! land in a given `part` of them.
//!
//! Every draw is made of integer arithmetic (`u64` and `u128`) and uniform integers from
//! [`below`], nothing else: no logarithm, exponential or rounding mode takes part, so the same
//! random stream gives the same counts, and the same boards, on every platform. Small cases are
//! simulated draw by draw ([`simulate`]); the others are drawn by rejection from an envelope
//! whose acceptance test is a product of exact rational chances ([`Envelope`]).
//!
//! The envelope is flat around the mode with geometric tails; its acceptance test is the
//! product of the law's successive term ratios, each an exact rational chance decided on a
//! few random bits. The tests (`split/tests.rs`) check every envelope's inequalities exactly
//! and the draws against the law by chi-square.

use rand_core::Rng;
use rand_pcg::Pcg64;

/// Parameters whose smallest side is at most this are drawn by direct simulation, one random
/// number per unit of that side; up to here that costs no more than setting up an envelope.
const SIMULATE_BELOW: u64 = 16;

/// Rejection is used while `(n + 1) (cells + 1)` stays below this (`n` the smaller side), so
/// that every term of a ratio below is under 2^96, a term times a tail parameter (at most
/// 2^[`MAX_TAIL_BITS`]) under 2^120, and that times a digit of 8 random bits fits a `u128`.
/// That covers every board below 2^48 cells (two planes of 32 TiB); larger ones are
/// simulated, still exactly.
const MAX_TERM: u128 = 1 << 96;

/// `log2` of the largest tail parameter `T` of an [`Envelope`] (past a standard deviation of
/// 2^24, the flat part is widened instead).
const MAX_TAIL_BITS: u32 = 24;

/// The number of mines among `part` of `cells` cells when `mines` mines are placed uniformly.
/// `mines` and `part` must not exceed `cells`.
pub(crate) fn mines_in_part(rng: &mut Pcg64, cells: u64, mines: u64, part: u64) -> u64 {
    if mines > cells - mines {
        // Count the safe cells in the part instead.
        return part - mines_in_part(rng, cells, cells - mines, part);
    }
    if part > cells - part {
        // Count the mines outside the part instead.
        return mines - mines_in_part(rng, cells, mines, cells - part);
    }
    // The law is symmetric in the mines and the part: C(m, k) C(N - m, n - k) / C(N, n) equals
    // C(n, k) C(N - n, m - k) / C(N, m). The envelope takes the smaller as its `n`.
    let (small, large) = (mines.min(part), mines.max(part));
    if small <= SIMULATE_BELOW {
        return simulate(rng, cells, mines, part);
    }
    match Envelope::new(cells, large, small) {
        Some(envelope) => envelope.sample(rng),
        None => simulate(rng, cells, mines, part),
    }
}

/// Direct simulation in `O(min(mines, cells - mines, part, cells - part))` draws.
pub(crate) fn simulate(rng: &mut Pcg64, cells: u64, mines: u64, part: u64) -> u64 {
    if mines > cells - mines {
        // Count the safe cells in the part instead.
        return part - simulate(rng, cells, cells - mines, part);
    }
    if part > cells - part {
        // Count the mines outside the part instead.
        return mines - simulate(rng, cells, mines, cells - part);
    }
    let mut hits = 0;
    if mines <= part {
        // Place the mines one by one on the free cells; each lands in the part with
        // probability (free cells of the part) / (free cells).
        for placed in 0..mines {
            hits += u64::from(below(rng, cells - placed) < part - hits);
        }
    } else {
        // Draw the part's cells one by one; each is a mine with probability
        // (mines not yet drawn) / (cells not yet drawn).
        for drawn in 0..part {
            hits += u64::from(below(rng, cells - drawn) < mines - hits);
        }
    }
    hits
}

/// Exact rejection sampling of the hypergeometric law `HG(N, m, n)`: the mines among `n` of
/// `N` cells holding `m` mines, with `1 <= n <= m <= N - m` and `n <= N - n` (the support is
/// `0..=n`).
///
/// **The law as ratios.** Write `p(k)` for the probability of `k`. Successive terms have the
/// ratio `r(j) = p(j + 1) / p(j) = (m - j)(n - j) / ((j + 1)(N - m - n + j + 1))` for
/// `0 <= j <= n`, a ratio of two integers below `(n + 1)(N + 1)`, so below 2^96 here (see
/// [`MAX_TERM`]). Both of its factors decrease in `j`, so `r` strictly decreases, and expanding
/// `r(j) >= 1` gives `(j + 1)(N + 2) <= (m + 1)(n + 1)`: the mode is
/// `M = floor((m + 1)(n + 1) / (N + 2))`, with `r(j) >= 1` below it and `r(j) < 1` from it on.
/// So `w(k) = p(k) / p(M)` is the product of `r(j)` over `M <= j < k` above the mode and of
/// `1 / r(j)` over `k <= j < M` below it, and every one of those factors is at most 1.
///
/// **The envelope.** `e(k)` is 1 on the flat part `M - left ..= M + right`, and `rho^i` at `i`
/// cells past its right end, where `rho = (T - 1) / T` for a power of two `T` and the flat part
/// is widened until `r(M + right) <= rho`. Since `r` decreases, every later factor is at most
/// `rho` as well, so `w(M + right + i) <= rho^i`; the left tail is the same with `1 / r`, which
/// decreases leftwards. A tail that would start past the support is left out (`T = 1`,
/// weight 0). The envelope's total, `(left + right + 1) + (T_right - 1) + (T_left - 1)`, is an
/// integer, so a proposal `k` with probability exactly `e(k) / total` takes one uniform
/// integer below the total (a point of the flat part, or a tail) and, in a tail, a geometric
/// distance: one plus the number of successes before the first failure, each success a group
/// of `log2(T)` random bits that are not all zero, exactly `rho`.
///
/// **Acceptance.** `k` is accepted with probability `w(k) / e(k)`: in the flat part the product
/// of its factors `r(j)` or `1 / r(j)`, in a tail the flat part's product up to the tail's
/// start times `r(j) / rho = a T / (b (T - 1))` (or `b T / (a (T - 1))` on the left) for each
/// step into the tail. Each factor is a ratio of integers that fit a `u128`, the numerator at
/// most the denominator, and is tested as an independent exact chance: whether a uniform real
/// in `[0, 1)`, read eight random bits at a time, lies below it, decided by integer
/// comparisons ([`chance_narrow`]). The chances are taken from the far end inwards, where they
/// are smallest, so a rejection usually stops early.
///
/// So a round returns `k` with probability exactly `e(k) / total * w(k) / e(k) = w(k) / total`,
/// and the accepted value has probability `w(k) / sum(w) = p(k)`: the law is exact, with no
/// approximation anywhere. The choice of `left`, `right` and `T` affects only the speed;
/// exactness needs only `r(M + right) <= rho` and `1 / r(M - left - 1) <= rho_left`, which
/// hold by construction (and are checked in the tests). With `T` the power of two at or below
/// the standard deviation `s`, and the flat part about `s^2 / T` either side, a draw takes
/// about 1.75 rounds and `1.2 s` chances (217 for `s = 183`, a chunk of a board at density
/// 0.15), under a microsecond.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Envelope {
    /// `N`, the cells.
    cells: u64,
    /// `m`, the larger side.
    mines: u64,
    /// `n`, the smaller side.
    part: u64,
    /// `M`, the mode.
    mode: u64,
    /// The flat part reaches from `mode - left` ...
    left: u64,
    /// ... to `mode + right`.
    right: u64,
    /// `T` of the left tail, 1 for none.
    left_tail: u64,
    /// `T` of the right tail, 1 for none.
    right_tail: u64,
}

impl Envelope {
    /// The envelope of `HG(cells, mines, part)` in the form [`Envelope`] describes, or `None`
    /// when the board is too large for its terms to fit (see [`MAX_TERM`]).
    fn new(cells: u64, mines: u64, part: u64) -> Option<Envelope> {
        let (big_n, m, n) = (u128::from(cells), u128::from(mines), u128::from(part));
        if (n + 1) * (big_n + 1) >= MAX_TERM {
            return None;
        }
        // Below 2^96 / (N + 2) <= n: the casts cannot truncate.
        let mode = ((m + 1) * (n + 1) / (big_n + 2)) as u64;
        // The shape is free: exactness needs only the inequalities checked below. For a snug
        // envelope, T is a power of two near the standard deviation, and the flat part starts
        // at about var / T either side, where the law falls by about (T - 1) / T a step. The
        // variance is n (m / N)(1 - m / N)(1 - n / N), near enough.
        let var = n * m / big_n * (big_n - m) / big_n * (big_n - n) / big_n;
        let t = 1 << var.isqrt().max(2).ilog2().min(MAX_TAIL_BITS);
        let reach = (var / u128::from(t)).max(1) as u64;
        let mut envelope = Envelope {
            cells,
            mines,
            part,
            mode,
            left: reach.min(mode),
            right: reach.min(part - mode),
            left_tail: 1,
            right_tail: 1,
        };
        // Widened until the first factor past the flat part, and so every later one, is at
        // most (T - 1) / T, or the flat part reaches the end of the support (no tail). On the
        // right the factor is a / b < 1 (from the mode on), on the left b / a < 1 (before it,
        // strictly, as left >= 1 and r decreases strictly); T (b - a) < 2^24 2^96 fits.
        let wide = u128::from(t);
        while envelope.mode + envelope.right < part {
            let (a, b) = envelope.ratio(mode + envelope.right);
            if wide * (b - a) >= b {
                envelope.right_tail = t;
                break;
            }
            envelope.right = (envelope.right + envelope.right.div_ceil(8)).min(part - mode);
        }
        while envelope.left < mode {
            let (a, b) = envelope.ratio(mode - envelope.left - 1);
            if wide * (a - b) >= a {
                envelope.left_tail = t;
                break;
            }
            envelope.left = (envelope.left + envelope.left.div_ceil(8)).min(mode);
        }
        Some(envelope)
    }

    /// `r(j) = p(j + 1) / p(j)` as its numerator and denominator, for `j <= n`. Each factor
    /// fits a `u64` (`N - m - n + j + 1 <= N - m + 1 <= N`, as `m >= 1`), so each product is
    /// one widening multiplication.
    fn ratio(&self, j: u64) -> (u128, u128) {
        let wide = |x: u64, y: u64| u128::from(x) * u128::from(y);
        (
            wide(self.mines - j, self.part - j),
            wide(j + 1, self.cells - self.mines - self.part + j + 1),
        )
    }

    /// One draw of the law, by rounds of proposal and acceptance until one is accepted.
    fn sample(&self, rng: &mut Pcg64) -> u64 {
        let mut digits = Digits::new(rng);
        let flat = self.left + self.right + 1;
        let right_weight = self.right_tail - 1;
        let total = flat + right_weight + (self.left_tail - 1);
        loop {
            let u = below(digits.rng, total);
            if u < flat {
                let k = self.mode - self.left + u;
                if self.flat_chances(&mut digits, k) {
                    return k;
                }
            } else if u < flat + right_weight {
                let start = self.mode + self.right;
                let i = geometric(digits.rng, self.right_tail);
                // Past the support the law is zero: the proposal is rejected.
                if i <= self.part - start
                    && self.right_tail_chances(&mut digits, start, start + i)
                    && self.flat_chances(&mut digits, start)
                {
                    return start + i;
                }
            } else {
                let start = self.mode - self.left;
                let i = geometric(digits.rng, self.left_tail);
                if i <= start
                    && self.left_tail_chances(&mut digits, start - i, start)
                    && self.flat_chances(&mut digits, start)
                {
                    return start - i;
                }
            }
        }
    }

    /// A chance of `w(k)`, for `k` in the flat part: every factor between the mode and `k`.
    fn flat_chances(&self, digits: &mut Digits<'_>, k: u64) -> bool {
        if k >= self.mode {
            self.chain(digits, (self.mode..k).rev(), Side::Right, (1, 1))
        } else {
            self.chain(digits, k..self.mode, Side::Left, (1, 1))
        }
    }

    /// A chance of `w(k) / (w(start) rho^(k - start))`, for `k` past the flat part's right end
    /// `start`: every factor `r(j) / rho` between them.
    fn right_tail_chances(&self, digits: &mut Digits<'_>, start: u64, k: u64) -> bool {
        let t = self.right_tail;
        self.chain(digits, (start..k).rev(), Side::Right, (t, t - 1))
    }

    /// A chance of `w(k) / (w(start) rho^(start - k))`, for `k` before the flat part's left end
    /// `start`: every factor `(1 / r(j)) / rho` between them.
    fn left_tail_chances(&self, digits: &mut Digits<'_>, k: u64, start: u64) -> bool {
        let t = self.left_tail;
        self.chain(digits, k..start, Side::Left, (t, t - 1))
    }

    /// Whether every factor of a chain passes its chance, taken in the order of `js`, farthest
    /// from the mode first. A factor is `r(j) p / q` on the right of the mode and
    /// `(1 / r(j)) p / q` on its left, with `(p, q)` `(1, 1)` in the flat part and `(T, T - 1)`
    /// in a tail; the envelope makes each at most 1. Denominators grow away from the mode
    /// (`r`'s denominator with `j`, its numerator as `j` falls), so the first has the largest:
    /// when it is below 2^56 the whole chain runs on `u64`, where each factor is two
    /// multiplications and a chance reads one digit in all but about one case in 256.
    fn chain(
        &self,
        digits: &mut Digits<'_>,
        mut js: impl Iterator<Item = u64>,
        side: Side,
        (p, q): (u64, u64),
    ) -> bool {
        let Some(first) = js.next() else {
            return true;
        };
        let factor = |j: u64| {
            let (a, b) = self.ratio(j);
            match side {
                Side::Right => (a * u128::from(p), b * u128::from(q)),
                Side::Left => (b * u128::from(p), a * u128::from(q)),
            }
        };
        let (num, den) = factor(first);
        if den >> NARROW_BITS != 0 {
            return chance(digits, num, den)
                && js.all(|j| {
                    let (num, den) = factor(j);
                    chance(digits, num, den)
                });
        }
        // Every term below is at most the first denominator, so below 2^56.
        let (big_n, m, n) = (self.cells, self.mines, self.part);
        let narrow = |j: u64| {
            let (a, b) = ((m - j) * (n - j), (j + 1) * (big_n - m - n + j + 1));
            match side {
                Side::Right => (a * p, b * q),
                Side::Left => (b * p, a * q),
            }
        };
        chance_narrow(digits, num as u64, den as u64)
            && js.all(|j| {
                let (num, den) = narrow(j);
                chance_narrow(digits, num, den)
            })
    }
}

/// Which side of the mode a chain of factors lies on.
#[derive(Debug, Clone, Copy)]
enum Side {
    Left,
    Right,
}

/// `1 + i` with probability `(1 - rho) rho^i`, `rho = (t - 1) / t`, for `t` a power of two
/// from 2 to 2^24: one plus the number of successes before the first failure, a failure being
/// a group of `log2(t)` random bits that are all zero (probability `1 / t`). A random word
/// holds `64 / log2(t)` such groups, so a word serves several steps.
fn geometric(rng: &mut Pcg64, t: u64) -> u64 {
    let bits = t.trailing_zeros();
    let mut i = 1;
    loop {
        let mut word = rng.next_u64();
        for _ in 0..64 / bits {
            if word & (t - 1) == 0 {
                return i;
            }
            i += 1;
            word >>= bits;
        }
    }
}

/// Uniform random digits of [`DIGIT_BITS`] bits, several to a word of the stream.
struct Digits<'a> {
    rng: &'a mut Pcg64,
    /// The digits not used yet of the last word, lowest first.
    word: u64,
    /// How many digits `word` has left.
    left: u32,
}

/// Bits per digit of [`Digits`].
const DIGIT_BITS: u32 = 8;

impl Digits<'_> {
    fn new(rng: &mut Pcg64) -> Digits<'_> {
        Digits {
            rng,
            word: 0,
            left: 0,
        }
    }

    /// The next digit, below `2^DIGIT_BITS`.
    fn next(&mut self) -> u64 {
        if self.left == 0 {
            self.word = self.rng.next_u64();
            self.left = u64::BITS / DIGIT_BITS;
        }
        let digit = self.word & ((1 << DIGIT_BITS) - 1);
        self.word >>= DIGIT_BITS;
        self.left -= 1;
        digit
    }
}

/// Denominators below `2^NARROW_BITS` leave room for a digit in a `u64`.
const NARROW_BITS: u32 = u64::BITS - DIGIT_BITS;

/// True with probability exactly `num / den` (`0 < den < 2^56`, `num <= den`): whether a
/// uniform `U` in `[0, 1)` is below `num / den`, reading `U` a digit at a time. With
/// `U = (d + U') / 2^8`, `U < num / den` exactly when `U' den < num 2^8 - d den`: false if that
/// is not positive, true if it is at least `den`, and otherwise the same question of `U'`
/// with the difference as the new `num` (still below `den`), about once in 256.
fn chance_narrow(digits: &mut Digits<'_>, mut num: u64, den: u64) -> bool {
    loop {
        let scaled = num << DIGIT_BITS;
        let low = digits.next() * den;
        if low >= scaled {
            return false;
        }
        num = scaled - low;
        if num >= den {
            return true;
        }
    }
}

/// [`chance_narrow`] in `u128`, for `0 < den < 2^120` (which [`MAX_TERM`] and
/// [`MAX_TAIL_BITS`] make sure of), `num <= den`.
fn chance(digits: &mut Digits<'_>, mut num: u128, den: u128) -> bool {
    loop {
        let scaled = num << DIGIT_BITS;
        let low = u128::from(digits.next()) * den;
        if low >= scaled {
            return false;
        }
        num = scaled - low;
        if num >= den {
            return true;
        }
    }
}

/// A uniform integer in `0..n` (`n > 0`), by Lemire's multiply-and-reject. A draw is
/// rejected when the low half of the product falls under `2^64 mod n`, which is below `n`,
/// so the division that finds that threshold is done only for a low half under `n`; the
/// draws and results are those of the plain loop that always divides.
pub(crate) fn below(rng: &mut Pcg64, n: u64) -> u64 {
    let mut m = u128::from(rng.next_u64()) * u128::from(n);
    if (m as u64) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u64) < threshold {
            m = u128::from(rng.next_u64()) * u128::from(n);
        }
    }
    (m >> 64) as u64
}

// By path, so that benches/generate.rs can include this file as a module of its own.
#[cfg(test)]
#[path = "split/tests.rs"]
mod tests;
