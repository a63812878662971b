//! The baseline of `scripts/bench`: read a file and run the bare pest parse
//! of the `.flow` grammar over it (every pair visited once), nothing else.
//! `cargo build --release --example bare_parse`.

// The same allocator as the flowc binary, so the comparison is fair.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: bare_parse FILE.flow");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("bare_parse: cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    match flowc::syntax::parser::bare_parse(&text) {
        Ok(pairs) => {
            println!("{pairs} pairs");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bare_parse: {e}");
            ExitCode::FAILURE
        }
    }
}
