//! Helpers shared by the core crate's test files: a seeded generator and readers that
//! misbehave the way pipes and failing disks do.

use std::io::{self, ErrorKind, Read};

/// SplitMix64: a tiny deterministic generator for the seeded loops.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`; `n` must be positive.
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

/// A reader that hands over one byte per call, with an `Interrupted` error before each.
pub(crate) struct Trickle<'a> {
    bytes: &'a [u8],
    interrupt: bool,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.interrupt = !self.interrupt;
        if self.interrupt {
            return Err(ErrorKind::Interrupted.into());
        }
        match (self.bytes.split_first(), buf.first_mut()) {
            (Some((&byte, rest)), Some(slot)) => {
                *slot = byte;
                self.bytes = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

pub(crate) fn trickle(bytes: &[u8]) -> Trickle<'_> {
    Trickle {
        bytes,
        interrupt: false,
    }
}

/// A reader that gives `bytes`, then fails with `kind`.
pub(crate) struct FailAfter<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) kind: ErrorKind,
}

impl Read for FailAfter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.bytes.is_empty() {
            return Err(io::Error::new(self.kind, "the disk is on fire"));
        }
        self.bytes.read(buf)
    }
}
