//! Any text through `fmt`: never a panic; a file that parses formats,
//! formatting twice changes nothing more, and the formatted file parses to
//! the same tree (spans aside) with the same findings.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = flowc::invariants::format_holds(text) {
        panic!("{e}");
    }
});
