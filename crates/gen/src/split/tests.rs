//! The hypergeometric draws against the exact law, and `below` against its plain twin.
//!
//! - The law the tests compare with is computed here in floating point, in log space, from
//!   the ratio of successive terms, and checked against `C(m, k) C(N - m, n - k) / C(N, n)`
//!   in exact integers on every small case.
//! - Chi-square tests of `mines_in_part` and of the rejection sampler alone against that law,
//!   on large parameters (a chunk of a 10^9- or 10^12-cell board) and at the edges (no mines,
//!   every cell a mine, an empty part, the whole board, sides of 1); the rejection sampler
//!   and the simulation against each other and the law on many small parameter sets; every
//!   envelope checked exactly for the inequalities that make rejection exact.
//! - Planted biases (a mode off by one, a tail too steep, draws with replacement) fail the
//!   same check, so the check can fail.
//!
//! The seeds are fixed, so the tests are deterministic; the bounds sit six standard
//! deviations out, as in the crate's other statistical tests.

use super::*;

/// A fixed stream for test `seed`.
fn stream(seed: u64) -> Pcg64 {
    Pcg64::new(u128::from(seed) << 64 | 0x2545_F491, 0x5851_F42D_4C95_7F2D)
}

/// The plain Lemire loop, computing the threshold every time: the twin of `below`.
fn plain_below(rng: &mut Pcg64, n: u64) -> u64 {
    let threshold = n.wrapping_neg() % n;
    loop {
        let m = u128::from(rng.next_u64()) * u128::from(n);
        if (m as u64) >= threshold {
            return (m >> 64) as u64;
        }
    }
}

#[test]
fn below_draws_what_the_plain_loop_draws() {
    let mut sizes = vec![
        1,
        2,
        3,
        7,
        1 << 32,
        (1 << 32) + 1,
        1 << 63,
        (1 << 63) + 1,
        u64::MAX / 3 * 2,
        u64::MAX - 1,
        u64::MAX,
    ];
    let mut pick = stream(1);
    sizes.extend(
        (0..2000)
            .map(|i| pick.next_u64() >> (i % 64))
            .filter(|&n| n > 0),
    );
    let (mut ours, mut plain) = (stream(2), stream(2));
    for &n in &sizes {
        for _ in 0..50 {
            let x = below(&mut ours, n);
            assert_eq!(x, plain_below(&mut plain, n), "below({n})");
            assert!(x < n);
        }
    }
    // Both consumed the same words.
    assert_eq!(ours.next_u64(), plain.next_u64());
}

/// A hypergeometric law: the probabilities of `first..first + probs.len()`, and the support
/// `low..=high` (outside it the law is exactly zero; inside it but outside the list, too
/// small to matter).
#[derive(Debug)]
struct Law {
    first: u64,
    probs: Vec<f64>,
    low: u64,
    high: u64,
}

/// The law of `HG(cells, mines, part)`, from the mode outwards by the ratio of successive
/// terms, in logarithms, until the terms fall below e^-200 of the mode's; then normalised.
fn law(cells: u64, mines: u64, part: u64) -> Law {
    let low = (mines + part).saturating_sub(cells);
    let high = mines.min(part);
    let (big_n, m, n) = (cells as f64, mines as f64, part as f64);
    // ln p(j + 1) - ln p(j), for low <= j < high.
    let step = |j: u64| {
        let j = j as f64;
        (m - j).ln() + (n - j).ln() - (j + 1.0).ln() - (big_n - m - n + j + 1.0).ln()
    };
    let mode = ((u128::from(mines) + 1) * (u128::from(part) + 1) / (u128::from(cells) + 2)) as u64;
    let mode = mode.clamp(low, high);
    let mut above = vec![0.0];
    let mut k = mode;
    while k < high && *above.last().unwrap_or(&0.0) > -200.0 {
        above.push(above.last().unwrap_or(&0.0) + step(k));
        k += 1;
    }
    let mut below = vec![];
    let mut k = mode;
    let mut log = 0.0;
    while k > low && log > -200.0 {
        log -= step(k - 1);
        below.push(log);
        k -= 1;
    }
    let first = mode - below.len() as u64;
    let logs: Vec<f64> = below.into_iter().rev().chain(above).collect();
    let total: f64 = logs.iter().map(|l| l.exp()).sum();
    Law {
        first,
        probs: logs.iter().map(|l| l.exp() / total).collect(),
        low,
        high,
    }
}

/// `C(n, k)` exactly, for the small values of these tests.
fn binomial(n: u64, k: u64) -> u128 {
    (0..u128::from(k)).fold(1, |acc, i| acc * (u128::from(n) - i) / (i + 1))
}

#[test]
fn the_law_of_these_tests_is_the_definition() {
    for cells in 1..=40 {
        for mines in 0..=cells {
            for part in 0..=cells {
                let law = law(cells, mines, part);
                let all = binomial(cells, part) as f64;
                for k in law.low..=law.high {
                    let exact =
                        (binomial(mines, k) * binomial(cells - mines, part - k)) as f64 / all;
                    let ours = k
                        .checked_sub(law.first)
                        .and_then(|i| law.probs.get(i as usize))
                        .copied()
                        .unwrap_or(0.0);
                    assert!(
                        (ours - exact).abs() <= 1e-12 * exact.max(1e-80),
                        "HG({cells}, {mines}, {part}) at {k}: {ours} against {exact}"
                    );
                }
            }
        }
    }
}

/// An upper quantile of the chi-square law with `df` degrees of freedom, `z` standard normal
/// deviations out (Wilson-Hilferty; conservative for few degrees of freedom).
fn chi2_quantile(df: f64, z: f64) -> f64 {
    let a = 2.0 / (9.0 * df);
    df * (1.0 - a + z * a.sqrt()).powi(3)
}

/// Each bin of a chi-square test expects at least this many draws.
const MIN_EXPECTED: f64 = 10.0;

/// Bins of `law` for `draws` draws: consecutive values merged until each bin expects at
/// least [`MIN_EXPECTED`] draws. Returns each value's bin (values before and after the list
/// fall in the first and last bins) and each bin's probability.
fn bins(law: &Law, draws: u64) -> (Vec<usize>, Vec<f64>) {
    let mut of_value = Vec::with_capacity(law.probs.len());
    let mut probs: Vec<f64> = vec![0.0];
    for &p in &law.probs {
        if *probs.last().unwrap_or(&0.0) * draws as f64 >= MIN_EXPECTED {
            probs.push(0.0);
        }
        *probs.last_mut().unwrap_or(&mut 0.0) += p;
        of_value.push(probs.len() - 1);
    }
    // A last bin expecting too little joins the one before it.
    if probs.len() > 1 && probs[probs.len() - 1] * (draws as f64) < MIN_EXPECTED {
        let last = probs.pop().unwrap_or(0.0);
        *probs.last_mut().unwrap_or(&mut 0.0) += last;
        let bins = probs.len();
        of_value.iter_mut().for_each(|b| *b = (*b).min(bins - 1));
    }
    (of_value, probs)
}

/// `draws` draws of `sample`, binned for `law`; an error for any draw outside the support.
fn observe(
    law: &Law,
    draws: u64,
    mut sample: impl FnMut() -> u64,
) -> Result<(Vec<u64>, Vec<f64>), String> {
    let (of_value, probs) = bins(law, draws);
    let mut counts = vec![0u64; probs.len()];
    for _ in 0..draws {
        let k = sample();
        if !(law.low..=law.high).contains(&k) {
            return Err(format!(
                "{k} is outside the support {}..={}",
                law.low, law.high
            ));
        }
        let i = (k.saturating_sub(law.first) as usize).min(of_value.len() - 1);
        counts[of_value[i]] += 1;
    }
    Ok((counts, probs))
}

/// The chi-square test of `draws` draws of `sample` against `law`: an error naming the
/// statistic when it lies beyond six standard deviations, or when a draw falls outside the
/// support.
fn check(law: &Law, draws: u64, sample: impl FnMut() -> u64) -> Result<(), String> {
    let (counts, probs) = observe(law, draws, sample)?;
    if counts.len() < 2 {
        return Ok(());
    }
    let stat: f64 = counts
        .iter()
        .zip(&probs)
        .map(|(&o, &p)| {
            let e = p * draws as f64;
            (o as f64 - e).powi(2) / e
        })
        .sum();
    let df = (counts.len() - 1) as f64;
    let limit = chi2_quantile(df, 6.0);
    match stat < limit {
        true => Ok(()),
        false => Err(format!(
            "chi-square {stat:.1} over {df} degrees of freedom, limit {limit:.1}"
        )),
    }
}

/// The two-sample chi-square test of equally many draws of `a` and `b`, binned for `law`.
fn check_two(
    law: &Law,
    draws: u64,
    a: impl FnMut() -> u64,
    b: impl FnMut() -> u64,
) -> Result<(), String> {
    let (a, _) = observe(law, draws, a)?;
    let (b, _) = observe(law, draws, b)?;
    let used: Vec<(u64, u64)> = a.into_iter().zip(b).filter(|&(x, y)| x + y > 0).collect();
    if used.len() < 2 {
        return Ok(());
    }
    let stat: f64 = used
        .iter()
        .map(|&(x, y)| (x as f64 - y as f64).powi(2) / (x + y) as f64)
        .sum();
    let df = (used.len() - 1) as f64;
    let limit = chi2_quantile(df, 6.0);
    match stat < limit {
        true => Ok(()),
        false => Err(format!(
            "two-sample chi-square {stat:.1} over {df} degrees of freedom, limit {limit:.1}"
        )),
    }
}

/// Large and edge parameters, as `(cells, mines, part, draws)`.
const CASES: [(u64, u64, u64, u64); 27] = [
    // Chunks of large boards at the usual densities: the rejection sampler.
    (1_000_000_000, 150_000_000, 1 << 18, 20_000),
    (10_000_000_000, 1_500_000_000, 1 << 18, 20_000),
    (1_000_000_000_000, 500_000_000_000, 1 << 18, 20_000),
    (1_000_000_000, 999_000_000, 1 << 18, 20_000),
    (1 << 20, 1 << 19, 1 << 19, 20_000),
    // A part larger than half the cells, and mines larger than the part.
    (
        1_000_000_000,
        150_000_000,
        1_000_000_000 - (1 << 18),
        20_000,
    ),
    (3_000_000, 1_000_000, 300_000, 20_000),
    // Terms past 2^56: the chances in u128.
    (1 << 47, 1 << 46, 1 << 20, 10_000),
    // Sparse: a mean near or below one.
    (10_000_000_000, 20_000, 1 << 18, 20_000),
    (
        1_000_000_000_000,
        1_000_000_000_000 - 30_000,
        1 << 18,
        20_000,
    ),
    (1_000_000, 100, 1000, 20_000),
    (1_000_000_000, 10, 500_000_000, 20_000),
    // Sides just above and below the simulation's threshold.
    (100_000, 17, 50_000, 20_000),
    (100_000, 16, 50_000, 20_000),
    // Edges: no mines, every cell a mine, an empty part, the whole board, sides of one.
    (1_000_000_000, 0, 1 << 18, 1000),
    (1_000_000, 1_000_000, 777, 1000),
    (1_000_000, 12_345, 1_000_000, 1000),
    (1_000_000, 12_345, 0, 1000),
    (1, 0, 1, 1000),
    (1, 1, 1, 1000),
    (1, 1, 0, 1000),
    (1000, 1, 300, 20_000),
    (1000, 300, 1, 20_000),
    (1000, 999, 300, 20_000),
    (1000, 300, 999, 20_000),
    (1_000_000_000_000, 1, 500_000_000_000, 20_000),
    (1_000_000_000_000, 400_000_000_000, 1, 20_000),
];

#[test]
fn draws_follow_the_exact_law_on_large_and_edge_parameters() {
    for (i, &(cells, mines, part, draws)) in CASES.iter().enumerate() {
        let law = law(cells, mines, part);
        let mut rng = stream(100 + i as u64);
        let result = check(&law, draws, || mines_in_part(&mut rng, cells, mines, part));
        assert_eq!(result, Ok(()), "HG({cells}, {mines}, {part})");
    }
}

#[test]
fn the_rejection_sampler_alone_follows_the_exact_law() {
    // Canonical parameters (n <= m <= N - m, n <= N - n), some below the simulation's
    // threshold, where mines_in_part never takes this path.
    for (i, (cells, mines, part)) in [
        (1_000_000_000, 150_000_000, 1 << 18),
        (1_000_000_000_000, 500_000_000_000, 1 << 18),
        (1 << 20, 1 << 19, 1 << 19),
        (1 << 47, 1 << 46, 1 << 20),
        (10_000_000_000, 1 << 18, 20_000),
        (1_000_000, 1000, 100),
        (1000, 300, 200),
        (100, 50, 50),
        (10, 5, 5),
        (3, 1, 1),
        (2, 1, 1),
        (1_000_000_000, 1, 1),
        (1_000_000_000, 30, 20),
    ]
    .into_iter()
    .enumerate()
    {
        let envelope = Envelope::new(cells, mines, part).expect("a board below 2^48 cells");
        let law = law(cells, mines, part);
        let mut rng = stream(200 + i as u64);
        let result = check(&law, 20_000, || envelope.sample(&mut rng));
        assert_eq!(result, Ok(()), "{envelope:?}");
    }
}

/// Every canonical parameter set with at most `max` cells: `(cells, m, n)` with
/// `1 <= n <= m <= cells - m`.
fn small_canonical(max: u64) -> impl Iterator<Item = (u64, u64, u64)> {
    (2..=max)
        .flat_map(|cells| (1..=cells / 2).flat_map(move |m| (1..=m).map(move |n| (cells, m, n))))
}

/// Checks exactly the inequalities that make rejection from `envelope` exact: the mode is
/// where the ratio of successive terms crosses 1, and every factor past the flat part is at
/// most its tail's `rho`, so every acceptance chance is a probability.
fn assert_envelope_holds(envelope: &Envelope) {
    let e = envelope;
    let n = e.part;
    assert!(e.left <= e.mode && e.mode + e.right <= n, "{e:?}");
    for j in 0..n {
        let (a, b) = e.ratio(j);
        // r(j) >= 1 before the mode, < 1 from it on.
        assert_eq!(a >= b, j < e.mode, "{e:?}: r({j}) = {a} / {b}");
    }
    let (tl, tr) = (u128::from(e.left_tail), u128::from(e.right_tail));
    assert_eq!(tr == 1, e.mode + e.right == n, "{e:?}: right tail");
    assert_eq!(tl == 1, e.left == e.mode, "{e:?}: left tail");
    for j in e.mode + e.right..n {
        let (a, b) = e.ratio(j);
        assert!(
            a * tr <= b * (tr - 1),
            "{e:?}: r({j}) = {a} / {b} above the right tail"
        );
    }
    for j in 0..e.mode - e.left {
        let (a, b) = e.ratio(j);
        assert!(
            b * tl <= a * (tl - 1),
            "{e:?}: 1 / r({j}) = {b} / {a} above the left tail"
        );
    }
}

#[test]
fn every_envelope_bounds_the_law_exactly() {
    for (cells, m, n) in small_canonical(70) {
        let envelope = Envelope::new(cells, m, n).expect("small");
        assert_envelope_holds(&envelope);
    }
    for &(cells, mines, part, _) in &CASES {
        let (cells, mines, part) = (cells, mines.min(cells - mines), part.min(cells - part));
        let (n, m) = (mines.min(part), mines.max(part));
        if n > 0 {
            assert_envelope_holds(&Envelope::new(cells, m, n).expect("below 2^48 cells"));
        }
    }
    // Sizes whose terms would not fit are refused (and left to the simulation, which no test
    // can afford there: the smaller side is then past 2^32), down to the edge.
    assert_eq!(Envelope::new(1 << 62, 1 << 61, 1 << 40), None);
    // (n + 1)(N + 1) reaches 2^96 at N = 398065729532860, about 2^48.5, with n = m = N / 2.
    let (big, half) = (398_065_729_532_860, 199_032_864_766_430);
    assert_eq!(Envelope::new(big, half, half), None);
    assert!(Envelope::new(big - 2, half - 1, half - 1).is_some());
}

#[test]
fn rejection_and_simulation_agree_with_each_other_and_the_law_on_small_parameters() {
    // Every canonical set up to 16 cells, then a spread of larger ones.
    let mut sets: Vec<(u64, u64, u64)> = small_canonical(16).collect();
    let mut pick = stream(5);
    while sets.len() < 150 {
        let cells = 17 + below(&mut pick, 200);
        let m = 1 + below(&mut pick, cells / 2);
        let n = 1 + below(&mut pick, m);
        sets.push((cells, m, n));
    }
    for (i, &(cells, m, n)) in sets.iter().enumerate() {
        let envelope = Envelope::new(cells, m, n).expect("small");
        let law = law(cells, m, n);
        let (mut a, mut b) = (stream(1000 + i as u64), stream(5000 + i as u64));
        let draws = 3000;
        let reject = || envelope.sample(&mut a);
        let simulated = || simulate(&mut b, cells, m, n);
        assert_eq!(
            check_two(&law, draws, reject, simulated),
            Ok(()),
            "HG({cells}, {m}, {n})"
        );
        let mut c = stream(9000 + i as u64);
        assert_eq!(
            check(&law, draws, || envelope.sample(&mut c)),
            Ok(()),
            "HG({cells}, {m}, {n})"
        );
    }
}

/// The simulation, checked on its own: it is the twin the rejection sampler is compared with.
#[test]
fn simulation_follows_the_exact_law() {
    for (i, (cells, mines, part)) in [
        (10, 3, 4),
        (40, 20, 20),
        (1000, 900, 30),
        (1000, 30, 990),
        (7, 7, 3),
    ]
    .into_iter()
    .enumerate()
    {
        let law = law(cells, mines, part);
        let mut rng = stream(300 + i as u64);
        assert_eq!(
            check(&law, 20_000, || simulate(&mut rng, cells, mines, part)),
            Ok(())
        );
    }
}

/// The checks have the power to fail: samplers with small planted flaws, each of a kind an
/// implementation could plausibly have, are caught with 20,000 to 50,000 draws, as many as
/// the tests above take or a little more. Each flaw is planted where it matters most: a mode
/// off by one where the law is narrow, a tail too steep where the tail is long.
#[test]
fn planted_biases_fail_the_check() {
    // The mode off by one: the factor between the true mode and the next, about 0.74 here,
    // is dropped, so every value above the mode is a third too likely.
    let (cells, m, n) = (100, 30, 10);
    let narrow = law(cells, m, n);
    let envelope = Envelope::new(cells, m, n).expect("small");
    let shifted = Envelope {
        mode: envelope.mode + 1,
        ..envelope
    };
    let mut rng = stream(6);
    let result = check(&narrow, 20_000, || shifted.sample(&mut rng));
    assert!(result.is_err(), "a shifted mode passed: {result:?}");
    let (mut a, mut b) = (stream(10), stream(11));
    let result = check_two(
        &narrow,
        50_000,
        || shifted.sample(&mut a),
        || simulate(&mut b, cells, m, n),
    );
    assert!(
        result.is_err(),
        "a shifted mode passed beside the simulation: {result:?}"
    );

    // A right tail falling twice as fast as it may: the first tail factors exceed its rho,
    // their chances are capped at one, and the tail loses weight.
    let (cells, m, n) = (10_000, 3000, 1000);
    let wide = law(cells, m, n);
    let envelope = Envelope::new(cells, m, n).expect("small");
    let steep = Envelope {
        right_tail: envelope.right_tail / 2,
        ..envelope.clone()
    };
    assert!(steep.right_tail >= 2, "{steep:?}");
    let mut rng = stream(7);
    let result = check(&wide, 50_000, || steep.sample(&mut rng));
    assert!(result.is_err(), "a steep tail passed: {result:?}");

    // One value too rare: the mode redrawn one time in four.
    let (cells, m, n) = (1000, 300, 40);
    let envelope = Envelope::new(cells, m, n).expect("small");
    let mut rng = stream(9);
    let rarer_mode = || loop {
        let k = envelope.sample(&mut rng);
        if k != envelope.mode || below(&mut rng, 4) != 0 {
            return k;
        }
    };
    let result = check(&law(cells, m, n), 20_000, rarer_mode);
    assert!(result.is_err(), "a rarer mode passed: {result:?}");

    // Draws with replacement: a binomial, with the hypergeometric's mean but a larger
    // variance (by half again, with the part half the cells).
    let (cells, m, n) = (200, 60, 100);
    let mut rng = stream(8);
    let binomial = || (0..n).map(|_| u64::from(below(&mut rng, cells) < m)).sum();
    let result = check(&law(cells, m, n), 20_000, binomial);
    assert!(result.is_err(), "a binomial passed: {result:?}");

    // A draw outside the support is always an error.
    assert!(check(&law(cells, m, n), 10, || n + 1).is_err());
}

/// The same stream gives the same draws: pinned values, so that a change to the sampler,
/// even one that keeps its law, is seen here before it changes every board.
#[test]
fn draws_from_a_fixed_stream_are_pinned() {
    let mut rng = stream(12);
    let draws: Vec<u64> = [
        (1_000_000_000, 150_000_000, 1 << 18),
        (10_000_000_000, 1_500_000_000, 1 << 18),
        (1_000_000, 100, 1000),
        (1000, 300, 40),
    ]
    .iter()
    .flat_map(|&(cells, mines, part)| {
        (0..3)
            .map(|_| mines_in_part(&mut rng, cells, mines, part))
            .collect::<Vec<_>>()
    })
    .collect();
    assert_eq!(
        draws,
        [39288, 39354, 39329, 39386, 39365, 39323, 1, 0, 0, 14, 12, 9]
    );
}
