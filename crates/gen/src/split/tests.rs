//! The draws of this module against plain twins.

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
