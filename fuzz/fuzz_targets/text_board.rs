//! Text boards: any bytes read as a board or refused with the right error; what reads writes
//! back canonically and reads back the same (see `checks/text.rs`).

#![no_main]

#[allow(dead_code)]
#[path = "../checks/text.rs"]
mod text;

libfuzzer_sys::fuzz_target!(|data: &[u8]| text::check_board(data));
