//! The examples of the README and of the documents under `docs/`, run as doctests. The
//! program itself is `src/main.rs`; this library holds no code of its own. The examples live
//! here because they use core, gen and solve together, which only this package has.

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct Readme;
