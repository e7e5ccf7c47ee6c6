//! Binary boards: the in-memory and the streaming reader agree on any bytes, and what reads
//! writes back identically (see `checks/binary.rs`).

#![no_main]

#[allow(dead_code)]
#[path = "../checks/binary.rs"]
mod binary;
#[allow(dead_code)]
#[path = "../checks/bytes.rs"]
mod bytes;

libfuzzer_sys::fuzz_target!(|data: &[u8]| binary::check(data));
