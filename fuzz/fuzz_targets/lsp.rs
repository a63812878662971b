//! Any bytes as the language server's standard input: the framing never
//! panics, always ends, answers every bad frame with a JSON-RPC error,
//! holds no more than one bounded frame, and frames the same whatever the
//! sizes of the reads (the first byte, modulo 8, says how many of the
//! bytes after it are read sizes; the rest is the stream).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (cuts, stream) = match data.split_first() {
        Some((&n, rest)) => rest.split_at(usize::from(n % 8).min(rest.len())),
        None => (&[][..], data),
    };
    if let Err(e) = flowc::lsp::transport::framing_holds(stream, cuts) {
        panic!("{e}");
    }
});
