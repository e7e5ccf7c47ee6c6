//! LeetCode 529 boards: the engine's import, export and `updateBoard` against a plain
//! depth-first solution and the problem's rules for bad input (see `checks/leetcode.rs`).

#![no_main]

#[path = "../checks/coord.rs"]
mod coord;
#[allow(dead_code)]
#[path = "../../tests/support/mod.rs"]
mod support;

#[allow(dead_code)]
#[path = "../checks/leetcode.rs"]
mod leetcode;

libfuzzer_sys::fuzz_target!(|input: leetcode::Input| leetcode::check(&input));
