//! Times the phases of `flowc check` in one process, for profiling:
//! `cargo run --release --example phases -- FILE.flow [RUNS]`. Resolution,
//! analysis and rules are timed over the file and the standard library
//! (without `use`), as the mean of RUNS runs (default 10).
// The same allocator as the flowc binary, so the comparison is fair.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::Instant;

use flowc::analyze::resolve::{resolve, Unit};
use flowc::check::{self, Input, NoImports};
use flowc::source::FileId;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: phases FILE.flow [RUNS]");
    let runs: u32 = args
        .next()
        .map_or(10, |r| r.parse().expect("RUNS is a number"));
    let bytes = std::fs::read(&path).expect("readable file");
    let text = String::from_utf8(bytes.clone()).expect("UTF-8");
    let start = Instant::now();
    let pairs = flowc::syntax::parser::bare_parse(&text).expect("parses");
    println!("bare pest parse  {:>8.1} ms ({pairs} pairs)", ms(start));
    let start = Instant::now();
    let (ast, _) = flowc::syntax::parse(FileId(0), &text);
    println!("parse + lower    {:>8.1} ms", ms(start));
    let start = Instant::now();
    drop(ast);
    println!("drop ast         {:>8.1} ms", ms(start));

    let mut texts: Vec<String> = check::stdlib_files().map(|(_, t)| t.to_string()).collect();
    texts.push(text);
    let asts: Vec<_> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| flowc::syntax::parse(FileId(i), t).0.expect("parses"))
        .collect();
    let units = Unit::stdlib_then_root(&asts);
    let mut problems = Vec::new();
    let start = Instant::now();
    for _ in 0..runs {
        problems.clear();
        std::hint::black_box(resolve(&units, &mut problems));
    }
    println!("resolve          {:>8.1} ms", ms(start) / f64::from(runs));
    let program = resolve(&units, &mut problems);
    let mut found: Vec<_> = problems.into_iter().map(flowc::rules::finding).collect();
    let broken = std::collections::BTreeSet::new();
    let start = Instant::now();
    for _ in 0..runs {
        std::hint::black_box(flowc::analyze::guarantee::analyze(
            &program, &broken, &mut found,
        ));
    }
    println!("analyze          {:>8.1} ms", ms(start) / f64::from(runs));
    let analysis = flowc::analyze::guarantee::analyze(&program, &broken, &mut found);
    let start = Instant::now();
    for _ in 0..runs {
        let mut diags = Vec::new();
        flowc::rules::run(&program, &analysis, &broken, &mut diags);
        std::hint::black_box(diags);
    }
    println!("rules            {:>8.1} ms", ms(start) / f64::from(runs));

    let start = Instant::now();
    let outcome = check::check(
        vec![Input {
            path: path.clone(),
            key: path,
            bytes,
        }],
        &NoImports,
    );
    println!("check (all)      {:>8.1} ms", ms(start));
    let start = Instant::now();
    let out = flowc::diagnostic::human::render(
        &outcome.sources,
        &outcome.diagnostics,
        flowc::diagnostic::Summary::default(),
        false,
    );
    println!(
        "render           {:>8.1} ms ({} bytes)",
        ms(start),
        out.len()
    );
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}
