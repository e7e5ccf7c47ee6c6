//! Differential fuzzing of the engine: the word fill, the scalar fill and the naive twin play
//! the same calls and must agree after each one (see `checks/engines.rs`).

#![no_main]

#[allow(dead_code)]
#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "../checks/coord.rs"]
mod coord;
#[allow(dead_code)]
#[path = "../../tests/naive/mod.rs"]
mod naive;
#[allow(dead_code)]
#[path = "../../tests/support/mod.rs"]
mod support;

#[allow(dead_code)]
#[path = "../checks/engines.rs"]
mod engines;

libfuzzer_sys::fuzz_target!(|input: engines::Input| engines::check(&input));
