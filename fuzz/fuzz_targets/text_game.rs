//! Text games: any bytes read as a valid game or refused with one of the format's errors;
//! what reads writes back canonically and reads back the same (see `checks/text.rs`).

#![no_main]

#[allow(dead_code)]
#[path = "../checks/text.rs"]
mod text;

libfuzzer_sys::fuzz_target!(|data: &[u8]| text::check_game(data));
