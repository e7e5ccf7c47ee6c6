//! Exact hypergeometric draws: how many of `mines` mines, spread uniformly over `cells` cells,
//! land in a given `part` of them.

use rand_core::Rng;
use rand_distr::{Distribution, Hypergeometric};
use rand_pcg::Pcg64;

/// Parameters whose smallest side is at most this are drawn by direct simulation, which is
/// exact and costs one random number per unit of that side. `rand_distr`'s sampler fails or
/// stalls on some of them (for example `cells = 10^6, mines = 100, part = 1000`, or
/// `cells = 10^9, mines = 10, part = 5 * 10^8`).
const SIMULATE_BELOW: u64 = 256;

/// The number of mines among `part` of `cells` cells when `mines` mines are placed uniformly.
/// `mines` and `part` must not exceed `cells`.
pub(crate) fn mines_in_part(rng: &mut Pcg64, cells: u64, mines: u64, part: u64) -> u64 {
    let smallest = mines.min(cells - mines).min(part).min(cells - part);
    if smallest <= SIMULATE_BELOW {
        return simulate(rng, cells, mines, part);
    }
    match Hypergeometric::new(cells, mines, part) {
        Ok(distribution) => distribution.sample(rng),
        // Outside the sampler's numeric range the simulation is still exact, only slower.
        Err(_) => simulate(rng, cells, mines, part),
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

#[cfg(test)]
mod tests;
