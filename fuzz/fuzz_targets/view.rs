//! Players' views: any bytes read as a view or refused with a syntax error naming line and
//! column; the solver answers every view that reads, checked against an enumeration of
//! every layout on small ones (see `checks/view.rs`).

#![no_main]

#[path = "../checks/view.rs"]
mod view;

libfuzzer_sys::fuzz_target!(|data: &[u8]| view::check(data));
