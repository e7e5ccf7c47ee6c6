//! MBF boards: any bytes read exactly as the format says or refused with the error for their
//! first problem; what reads writes back in row order (see `checks/mbf.rs`).

#![no_main]

#[allow(dead_code)]
#[path = "../checks/mbf.rs"]
mod mbf;

libfuzzer_sys::fuzz_target!(|data: &[u8]| mbf::check(data));
