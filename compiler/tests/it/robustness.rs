//! No input makes flowc panic: mutations of every example (bytes cut,
//! repeated, swapped, replaced by tokens of the language) go through the
//! whole pipeline of check, report and code generation.

use crate::common;

use std::fmt::Write as _;

use flowc::check::{self, Input, NoImports};

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
            let outcome = check::check(
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

/// Files shaped to stress where a large file may be cut into chunks: many
/// pipelines and tasks, braces and `task` inside strings and comments,
/// CRLF lines, `env` blocks, comments between tasks, settings after tasks.
fn chunk_stress_files() -> Vec<String> {
    let mut files = Vec::new();
    for style in 0..4 {
        let nl = if style == 1 { "\r\n" } else { "\n" };
        let mut t = String::from(concat!(
            "# header } { task\nsource s: files {\n  path \"in/{interval.start}/ } task\"\n",
            "  immutable\n  identity id\n}\n",
            "sink o: postgres_table {\n  table \"t\"\n  primary_key id\n}\n",
        ));
        for p in 0..3 {
            let _ = write!(t, "pipeline p{p} {{ # opens {{{nl}");
            let _ = write!(t, "  schedule \"@daily\"{nl}  start 2026-01-01{nl}");
            for i in 0..6 {
                let _ = write!(t, "  task t{i} {{{nl}");
                if i > 0 {
                    let _ = write!(t, "    after t{}{nl}", i - 1);
                }
                let _ = write!(
                    t,
                    "    read s pinned listing{nl}    key input.id{nl}    write o upsert{nl}"
                );
                if style == 2 {
                    let _ = write!(t, "    env {{{nl}      A \"}}\"{nl}    }}{nl}");
                }
                let _ = write!(
                    t,
                    "    run command [\"echo\", \"}} task {{\",{nl}      \"x\"]{nl}  }}{nl}"
                );
                if style == 3 {
                    let _ = write!(t, "{nl}  # between tasks }}{nl}{nl}");
                }
            }
            if style == 3 {
                let _ = write!(t, "  retries 2{nl}  allow FL301 because \"test\"{nl}");
            }
            let _ = write!(t, "}}{nl}{nl}");
        }
        files.push(t);
    }
    // One item (or one task) that is most of the file, so that the cuts
    // fall between its statements: a kind's params among its lines, a
    // declaration's settings that go on after a comma, over lines in
    // brackets and in a `{ ... }` block, and a pipeline whose single task
    // holds most lines, a long `env` among them, with pipeline settings and
    // params after it.
    for style in 0..2 {
        let nl = if style == 1 { "\r\n" } else { "\n" };
        let mut t = format!("kind k {{{nl}  roles sink{nl}");
        for i in 0..40 {
            let _ = write!(t, "  param p{i}: string?{nl}  _note{i} \"}} kind {{\"{nl}");
        }
        let _ = write!(t, "}}{nl}sink o: k {{ # {{{nl}");
        for i in 0..40 {
            let _ = write!(
                t,
                "  p{i} \"a\",{nl}    \"b\"{nl}  fields [a,{nl}    b]{nl}  resources {{{nl}    cpu \"1\"{nl}  }}{nl}"
            );
            if i % 7 == 0 {
                let _ = write!(t, "{nl}  # a comment, {{ }}{nl}{nl}");
            }
        }
        let _ = write!(
            t,
            "}}{nl}pipeline p {{{nl}  schedule \"@daily\"{nl}  task t {{{nl}"
        );
        for i in 0..40 {
            let _ = write!(
                t,
                "    after a{i},{nl}      b{i}{nl}    x{i} \"}}\", 1{nl}    env {{{nl}      A \"b\"{nl}    }}{nl}"
            );
        }
        let _ = write!(t, "    env {{{nl}");
        for i in 0..60 {
            let _ = write!(t, "      E{i} \"}} {{{i}\"{nl}");
            if i % 9 == 0 {
                let _ = write!(t, "{nl}      # env {{{nl}");
            }
        }
        let _ = write!(
            t,
            "    }}{nl}    retries 2{nl}  }}{nl}  start 2026-01-01{nl}  param q: string{nl}  allow FL301 because \"x\"{nl}}}{nl}"
        );
        files.push(t);
    }
    files
}

/// A large file is parsed in chunks on several threads. Whatever the input,
/// that must give exactly what parsing the whole file gives, or decline
/// (`None`) so that the whole file is parsed instead.
#[test]
fn chunked_parse_matches_whole_file_parse() {
    use flowc::source::FileId;
    use flowc::syntax::parser::{parse, parse_in_chunks};
    let mut texts: Vec<String> = chunk_stress_files();
    for dir in ["examples", "tests/fixtures/rules", "stdlib"] {
        for f in common::flow_files(dir) {
            texts.push(std::fs::read_to_string(f).expect("read"));
        }
    }
    let mut rng = Lcg(0xc4a2);
    let (mut chunked, mut compared) = (0, 0);
    for text in &texts {
        let mut variants = vec![text.clone()];
        for _ in 0..30 {
            if let Ok(t) = String::from_utf8(mutate(text.as_bytes(), &mut rng)) {
                variants.push(t);
            }
        }
        for v in &variants {
            let whole = parse(FileId(0), v);
            for chunks in 2..=5 {
                compared += 1;
                if let Some(parts) = parse_in_chunks(FileId(0), v, chunks) {
                    chunked += 1;
                    assert_eq!(parts, whole, "{chunks} chunks of:\n{v}");
                }
            }
        }
    }
    // The comparison must have happened often, or it proves nothing.
    assert!(
        chunked * 8 > compared,
        "only {chunked} of {compared} chunked"
    );
    for text in chunk_stress_files() {
        for chunks in 2..=5 {
            assert!(
                parse_in_chunks(FileId(0), &text, chunks).is_some(),
                "no chunks for:\n{text}"
            );
        }
    }
}

/// Found by fuzzing (`fuzz/regressions/check/`): the finding for a file that
/// is not UTF-8 had its span in the raw bytes, which may end inside the
/// U+FFFD that replaces the bad sequence in the text kept for the file.
#[test]
fn a_non_utf8_finding_points_at_the_bad_bytes_of_the_file() {
    // (file, offset and length of the first invalid sequence, in its bytes)
    for (bytes, at, len) in [
        (&b"pipeline p {\x80\n}\n"[..], 12, 1),
        (b"a\xfe", 1, 1),
        (b"\xe2\x82", 0, 2),
        (b"ok\n\xf0\x9f\x98", 3, 3),
        (b"\xc3\x28 more", 0, 1),
        (b"x\xff\xfe\n", 1, 1),
    ] {
        let o = flowc::invariants::check_one(bytes);
        flowc::invariants::spans_inside(&o).unwrap_or_else(|e| panic!("{bytes:?}: {e}"));
        let d = o
            .diagnostics
            .iter()
            .find(|d| d.message.contains("UTF-8"))
            .expect("an FL001 finding");
        assert_eq!(
            (d.span.start, d.span.end - d.span.start),
            (at, len),
            "{bytes:?}"
        );
        // The text kept for the file has the file's length, bad bytes as `?`.
        let text = o.sources.text(d.file);
        assert_eq!(text.len(), bytes.len(), "{bytes:?}");
        assert!(text[d.span.start..d.span.end].chars().all(|c| c == '?'));
    }
}

/// Found by fuzzing (`fuzz/regressions/fmt/`): a number may hold `.` and `:`
/// (`2.-`, `12:30`); `fmt` refused the first and split the second into two
/// tokens, changing the tree.
#[test]
fn numbers_with_dots_and_colons_keep_their_meaning_through_fmt() {
    for text in [
        "source r: f {\nr 2.-}",
        "source s: files {\n  at 12:30\n  v 1.5\n}\n",
    ] {
        let out = flowc::invariants::format_holds(text)
            .unwrap_or_else(|e| panic!("{text:?}: {e}"))
            .expect("formats");
        assert!(out.contains("12:30") || out.contains("2.-"), "{out}");
    }
}

/// Found by fuzzing (`fuzz/regressions/fmt/`): a newline kept after a comma
/// hid a statement's value from alignment until a second pass had joined
/// the line, so `fmt` was not idempotent on this (unparsable) input.
#[test]
fn a_line_joined_after_a_comma_aligns_in_the_first_pass() {
    let once = flowc::format::format(",\ne\nsr s").expect("formats");
    assert_eq!(once, ",   e\nsr  s\n");
    assert_eq!(flowc::format::format(&once).as_deref(), Ok(once.as_str()));
}

/// Found by fuzzing (`fuzz/regressions/fmt/`): the grammar took a byte
/// order mark after leading spaces, which `fmt` refused; and once numbers
/// could hold `.`, `2 .y` formatted as the single number `2.y`. The grammar
/// now takes a mark only at byte 0 (so the answer cannot depend on where a
/// large file is cut into chunks); `fmt` still drops a late one.
#[test]
fn fmt_takes_a_late_byte_order_mark_and_never_joins_a_number_with_a_dot() {
    let bom = " \u{feff}source s: files {\n}\n";
    assert!(flowc::syntax::parse(flowc::source::FileId(0), bom)
        .0
        .is_none());
    assert_eq!(
        flowc::invariants::format_holds(bom).expect("holds"),
        Some("source s: files {\n}\n".to_string())
    );
    let once = flowc::format::format("2 .y 0\ny 0").expect("formats");
    assert_eq!(once, "2 .y 0\ny 0\n");
    assert_eq!(flowc::format::format(&once).as_deref(), Ok(once.as_str()));
}

/// The files kept by fuzzing one target: its minimized corpus
/// (`fuzz/corpus/<target>/`) and every crash it found
/// (`fuzz/regressions/<target>/`).
fn fuzz_inputs(target: &str) -> Vec<std::path::PathBuf> {
    let root = common::repo_root().join("fuzz");
    let mut out = Vec::new();
    for dir in ["corpus", "regressions"] {
        if let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) {
            out.extend(entries.flatten().map(|e| e.path()));
        }
    }
    out.sort();
    assert!(out.len() > 10, "the {target} corpus is missing: {out:?}");
    out
}

/// What the fuzz target `check` checks holds on the inputs it kept: every
/// regression, and one corpus file in 4 (a debug build takes about 10 ms a
/// file; `FLOWC_FUZZ_REPLAY=all` replays them all, and `scripts/fuzz-smoke`
/// replays them all in a release build before it fuzzes).
#[test]
fn the_check_fuzz_corpus_replays() {
    let all = std::env::var("FLOWC_FUZZ_REPLAY").is_ok_and(|v| v == "all");
    let inputs = fuzz_inputs("check");
    let kept = inputs.iter().enumerate().filter(|(i, f)| {
        all || i % 4 == 0 || f.components().any(|c| c.as_os_str() == "regressions")
    });
    for (_, f) in kept {
        let bytes = std::fs::read(f).expect("readable");
        if let Err(e) = flowc::invariants::check_holds(&bytes) {
            panic!("{}: {e}", f.display());
        }
    }
}

/// Rules run on several threads for large programs. Over every rule's
/// trigger fixture checked together, several threads must find exactly what
/// one finds, in the same order.
#[test]
fn rules_on_several_threads_find_what_one_thread_finds() {
    // Pipelines renamed apart, so the files do not clash (FL703).
    let inputs: Vec<Input> = common::flow_files("tests/fixtures/rules")
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            let text = std::fs::read_to_string(&f).expect("read");
            let text: String = text
                .lines()
                .map(|l| match l.strip_prefix("pipeline ") {
                    Some(rest) => format!("pipeline f{i}_{rest}\n"),
                    None => format!("{l}\n"),
                })
                .collect();
            Input {
                key: f.clone(),
                bytes: text.into_bytes(),
                path: f,
            }
        })
        .collect();
    let outcome = check::check(inputs, &NoImports);
    let ctx = flowc::rules::Ctx {
        program: &outcome.program,
        analysis: &outcome.analysis,
        broken: &outcome.broken,
    };
    let mut one = Vec::new();
    flowc::rules::run_on(1, &ctx, &mut one);
    let codes: std::collections::BTreeSet<&str> = one.iter().map(|d| d.code.as_str()).collect();
    assert!(codes.len() > 30, "only {codes:?}");
    for threads in [2, 3, 8] {
        let mut many = Vec::new();
        flowc::rules::run_on(threads, &ctx, &mut many);
        assert_eq!(one, many, "{threads} threads");
    }
}

/// What the fuzz target `fmt` checks holds on every input it kept.
#[test]
fn the_fmt_fuzz_corpus_replays() {
    for f in fuzz_inputs("fmt") {
        let bytes = std::fs::read(&f).expect("readable");
        if let Ok(text) = std::str::from_utf8(&bytes) {
            if let Err(e) = flowc::invariants::format_holds(text) {
                panic!("{}: {e}", f.display());
            }
        }
    }
}

/// A byte-order mark before an item's keyword in the middle of a file is an
/// error there (a file has one only at byte 0), but pest accepts one at the
/// start of a chunk: the chunked parse must not cut before it.
#[test]
fn a_byte_order_mark_inside_a_file_is_no_place_to_cut() {
    use flowc::source::FileId;
    use flowc::syntax::parser::{parse, parse_in_chunks};
    let plain = std::fs::read_to_string(
        common::repo_root().join("tests/fixtures/rules/FL900/trigger.flow"),
    )
    .expect("fixture");
    // Without the mark the file is cut before `pipeline`: the case is live.
    assert!(parse_in_chunks(FileId(0), &plain, 2).is_some());
    let marked = plain.replacen("\npipeline ", "\n\u{feff}pipeline ", 1);
    assert_ne!(marked, plain);
    let whole = parse(FileId(0), &marked);
    assert!(!whole.1.is_empty(), "a mark inside the file is an error");
    for chunks in 2..=5 {
        if let Some(parts) = parse_in_chunks(FileId(0), &marked, chunks) {
            assert_eq!(parts, whole, "{chunks} chunks");
        }
    }
}
