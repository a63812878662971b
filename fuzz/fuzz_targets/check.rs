//! Any bytes through `check` and everything after it: no panic, and every
//! finding's spans inside its file. A 0xFF byte (never in UTF-8) splits the
//! input into files `a.flow`, `b.flow`, ... that `use` can import.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = flowc::invariants::check_holds(data) {
        panic!("{e}");
    }
});
