//! Frames of the multiplayer protocol: both decoders on any bytes (see `checks/protocol.rs`).

#![no_main]

#[path = "../checks/protocol.rs"]
mod protocol;

libfuzzer_sys::fuzz_target!(|data: &[u8]| protocol::check(data));
