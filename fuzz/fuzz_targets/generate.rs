//! Board generation: exact, zone-respecting, deterministic boards or the right refusal (see
//! `checks/generate.rs`).

#![no_main]

#[allow(dead_code)]
#[path = "../../tests/support/mod.rs"]
mod support;

#[allow(dead_code)]
#[path = "../checks/generate.rs"]
mod generate;

libfuzzer_sys::fuzz_target!(|input: generate::Input| generate::check(&input));
