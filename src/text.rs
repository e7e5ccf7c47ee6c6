//! Numbers and counts as people read them: thousands separators, singular and plural.
//!
//! Also layouts as a number (`layouts`, from a base-10 logarithm).

/// A whole number of any unsigned width.
pub(crate) trait Whole {
    /// The number, widened.
    fn wide(self) -> u128;
}

macro_rules! whole {
    ($($t:ty),*) => {$(
        impl Whole for $t {
            fn wide(self) -> u128 {
                self as u128
            }
        }
    )*};
}
whole!(u8, u16, u32, u64, usize, u128);

/// `n` with a comma every three digits: `1234567` is `1,234,567`.
pub(crate) fn thousands(n: impl Whole) -> String {
    let digits = n.wide().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `n` and the noun, singular for one: `count(1, "mine")` is `1 mine`, `count(2500, "mine")`
/// is `2,500 mines`. Nouns whose plural is not an added `s` go through [`count_as`].
pub(crate) fn count(n: impl Whole, noun: &str) -> String {
    let n = n.wide();
    count_as(n, noun, &format!("{noun}s"))
}

/// `n` and the singular or plural noun given.
pub(crate) fn count_as(n: impl Whole, one: &str, many: &str) -> String {
    let n = n.wide();
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// How many layouts `10^log10` is, as a number while it fits a plain reading (below 10^15,
/// rounded to a whole number) and as a power of ten above.
pub(crate) fn layouts(log10: f64) -> String {
    if log10 < 15.0 {
        let n = 10f64.powf(log10).round().max(1.0) as u128;
        count(n, "layout")
    } else {
        format!("10^{log10:.1} layouts")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_written() {
        for (n, text) in [
            (0u64, "0"),
            (7, "7"),
            (999, "999"),
            (1000, "1,000"),
            (85_000_000, "85,000,000"),
            (123_456_789_012, "123,456,789,012"),
        ] {
            assert_eq!(thousands(n), text);
        }
        assert_eq!(count(1u64, "mine"), "1 mine");
        assert_eq!(count(0u64, "mine"), "0 mines");
        assert_eq!(count(2500u64, "mine"), "2,500 mines");
        assert_eq!(count_as(1u64, "guess", "guesses"), "1 guess");
        assert_eq!(layouts(2f64.log10()), "2 layouts");
        assert_eq!(layouts(0.0), "1 layout");
        assert_eq!(layouts(40.31), "10^40.3 layouts");
    }
}
