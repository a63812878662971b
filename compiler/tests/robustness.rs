//! No input makes flowc panic: mutations of every example (bytes cut,
//! repeated, swapped, replaced by tokens of the language) go through the
//! whole pipeline of check, report and code generation.

mod common;

use flowc::analyze::{self, Input, NoImports};

/// A small deterministic generator, so failures reproduce.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as usize
    }
}

const TOKENS: [&str; 24] = [
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ",",
    "=",
    "\"",
    "\n",
    "#",
    "\\",
    "read ",
    "write ",
    "key ",
    "emit ",
    "upsert",
    "pinned ",
    "via outbox ",
    "9999999999",
    "1h1h",
    "\u{feff}",
    "é",
    "\0",
];

fn mutate(text: &[u8], rng: &mut Lcg) -> Vec<u8> {
    let mut out = text.to_vec();
    for _ in 0..=(rng.next() % 4) {
        if out.is_empty() {
            break;
        }
        let at = rng.next() % out.len();
        let len = (rng.next() % 40).min(out.len() - at);
        match rng.next() % 4 {
            0 => {
                out.drain(at..at + len);
            }
            1 => {
                let piece: Vec<u8> = out[at..at + len].to_vec();
                out.splice(at..at, piece);
            }
            2 => {
                let t = TOKENS[rng.next() % TOKENS.len()].as_bytes();
                out.splice(at..at, t.iter().copied());
            }
            _ => {
                out[at] = (rng.next() % 256) as u8;
            }
        }
    }
    out
}

#[test]
fn mutated_examples_never_panic() {
    let mut files = common::flow_files("examples");
    files.extend(common::flow_files("tests/fixtures/rules"));
    let mut rng = Lcg(0x5eed);
    let mut runs = 0;
    for f in &files {
        let text = std::fs::read(f).expect("read");
        for _ in 0..40 {
            let bytes = mutate(&text, &mut rng);
            let outcome = analyze::check(
                vec![Input {
                    path: "m.flow".into(),
                    key: "m.flow".into(),
                    bytes,
                }],
                &NoImports,
            );
            let _ = flowc::report::json(&outcome);
            let _ = flowc::report::table(&outcome);
            for &root in &outcome.roots {
                if !outcome.file_has_errors(root) {
                    let pipelines = flowc::codegen::lower::pipelines_of(&outcome, root);
                    let _ = flowc::codegen::argo::generate(
                        &pipelines,
                        flowc::codegen::argo::ArgoKind::Auto,
                    );
                    let _ = flowc::codegen::airflow::generate(&pipelines);
                }
            }
            runs += 1;
        }
    }
    assert!(runs > 1000, "only {runs} runs");
}
