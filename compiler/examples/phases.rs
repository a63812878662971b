//! Times the phases of `flowc check` in one process, for profiling:
//! `cargo run --release --example phases -- FILE.flow`.
// The same allocator as the flowc binary, so the comparison is fair.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::Instant;

use flowc::analyze::{self, Input, NoImports};

fn main() {
    let path = std::env::args().nth(1).expect("usage: phases FILE.flow");
    let bytes = std::fs::read(&path).expect("readable file");
    let text = String::from_utf8(bytes.clone()).expect("UTF-8");
    let t = Instant::now();
    let pairs = flowc::syntax::parser::bare_parse(&text).expect("parses");
    println!("bare pest parse  {:>8.1} ms ({pairs} pairs)", ms(t));
    let t = Instant::now();
    let (ast, _) = flowc::syntax::parse(flowc::source::FileId(0), &text);
    println!("parse + lower    {:>8.1} ms", ms(t));
    let t = Instant::now();
    drop(ast);
    println!("drop ast         {:>8.1} ms", ms(t));
    let t = Instant::now();
    let outcome = analyze::check(
        vec![Input {
            path: path.clone(),
            key: path,
            bytes,
        }],
        &NoImports,
    );
    println!("check (all)      {:>8.1} ms", ms(t));
    let t = Instant::now();
    let out = flowc::diagnostic::human::render(
        &outcome.sources,
        &outcome.diagnostics,
        flowc::diagnostic::Summary::default(),
        false,
    );
    println!("render           {:>8.1} ms ({} bytes)", ms(t), out.len());
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}
