//! Saved games: the in-memory and the streaming reader agree on any bytes, what reads is a
//! valid game, and it writes back identically (see `checks/saved.rs`).

#![no_main]

#[allow(dead_code)]
#[path = "../checks/bytes.rs"]
mod bytes;
#[path = "../checks/saved.rs"]
mod saved;

libfuzzer_sys::fuzz_target!(|data: &[u8]| saved::check(data));
