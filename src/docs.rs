//! The examples of the README and of every document under `docs/`, run as doctests. The
//! program itself is `src/main.rs`; this library holds no code of its own. The examples live
//! here because they use core, gen and solve together, which only this package has.

/// Each file as the doc comment of an empty item, so `cargo test --doc` runs its examples.
macro_rules! doctested {
    ($($name:ident = $path:literal;)*) => {$(
        #[cfg(doctest)]
        #[doc = include_str!($path)]
        struct $name;
    )*};
}

doctested! {
    Readme = "../README.md";
    Docs = "../docs/README.md";
    CommandLine = "../docs/command-line.md";
    Formats = "../docs/formats.md";
    Library = "../docs/library.md";
    NoGuess = "../docs/no-guess.md";
    Performance = "../docs/performance.md";
    Playing = "../docs/playing.md";
    Solver = "../docs/solver.md";
}
