//! serde: JSON boards, games and configs give a value or an error, and values round-trip
//! (see `checks/serde.rs`).

#![no_main]

#[allow(dead_code)]
#[path = "../checks/bytes.rs"]
mod bytes;
#[path = "../checks/serde.rs"]
mod serde;

libfuzzer_sys::fuzz_target!(|data: &[u8]| serde::check(data));
