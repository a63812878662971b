//! Any text through `fmt`: never a panic; a file that parses formats,
//! formatting twice changes nothing more, and the formatted file parses to
//! the same tree (spans aside) with the same findings. And the text parsed
//! in chunks, as a large file is, gives the whole-file parse or declines.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = flowc::invariants::chunks_hold(text) {
        panic!("{e}");
    }
    if let Err(e) = flowc::invariants::format_holds(text) {
        panic!("{e}");
    }
});
