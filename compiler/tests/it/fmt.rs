//! `flowc fmt` never changes meaning: on every example and fixture the
//! syntax tree (spans aside) and the findings of `check` are the same before
//! and after, and formatting twice changes nothing more.

use crate::common;

use flowc::invariants::{findings, strip_spans};
use flowc::source::FileId;

#[test]
fn formatting_keeps_meaning_and_is_idempotent() {
    let mut files = common::flow_files("examples");
    files.extend(common::flow_files("tests"));
    let mut formatted = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).expect("utf-8 file");
        let (before, _) = flowc::syntax::parse(FileId(0), &text);
        let Ok(once) = flowc::format::format(&text) else {
            // Only files that do not parse may be refused.
            assert!(before.is_none(), "{f} parses but fmt refused it");
            continue;
        };
        formatted += 1;
        assert_eq!(
            flowc::format::format(&once).as_deref(),
            Ok(once.as_str()),
            "{f}: not idempotent"
        );
        let (after, _) = flowc::syntax::parse(FileId(0), &once);
        assert_eq!(
            before.is_some(),
            after.is_some(),
            "{f}: parses before xor after"
        );
        if let (Some(b), Some(a)) = (before, after) {
            assert_eq!(
                strip_spans(&format!("{b:?}")),
                strip_spans(&format!("{a:?}")),
                "{f}: the tree changed"
            );
        }
        assert_eq!(
            findings(&text),
            findings(&once),
            "{f}: the findings changed"
        );
    }
    assert!(formatted > 100, "only {formatted} files formatted");
}

#[test]
fn the_strip_is_not_vacuous() {
    let (a, _) = flowc::syntax::parse(FileId(0), "source a: files {\n  path \"x\"\n}\n");
    let (b, _) = flowc::syntax::parse(FileId(0), "source b: files {\n  path \"x\"\n}\n");
    assert_ne!(
        strip_spans(&format!("{a:?}")),
        strip_spans(&format!("{b:?}"))
    );
}

/// Every `.flow` file the repository ships is in `flowc fmt`'s layout, checked
/// through the binary as CI and users run it: the examples, the stdlib, `flowc
/// init`'s starter.
#[test]
fn shipped_flow_files_are_in_fmt_layout() {
    let root = common::repo_root();
    let out = crate::common::flowc()
        .current_dir(&root)
        .env("NO_COLOR", "1")
        .args(["fmt", "--check", "examples", "stdlib", "templates/init"])
        .output()
        .expect("flowc runs");
    assert!(
        out.status.success(),
        "run `flowc fmt examples stdlib templates/init`:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The same check fails on a shipped-looking file out of layout, so the test
/// above can fail.
#[test]
fn fmt_check_fails_on_a_file_out_of_layout() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("p.flow"),
        "sink s: sqlite_table {\n  table     \"t\"\n  primary_key id\n}\n",
    )
    .expect("write");
    let out = crate::common::flowc()
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .args(["fmt", "--check", "."])
        .output()
        .expect("flowc runs");
    assert_eq!(out.status.code(), Some(1));
}

/// The docs' and READMEs' examples that are whole files (they parse) are in layout too, as
/// a reader copies them.
#[test]
fn docs_examples_are_in_fmt_layout() {
    let mut wrong = Vec::new();
    let mut seen = 0;
    let mut pages = common::files_with_extension("docs", "md");
    pages.extend(["README.md".to_string(), "examples/README.md".to_string()]);
    for page in pages {
        let text = std::fs::read_to_string(&page).expect("utf-8 page");
        let mut lines = text.lines().enumerate();
        while let Some((n, line)) = lines.next() {
            if !line.starts_with("```flow") {
                continue;
            }
            let mut src = String::new();
            for (_, l) in lines.by_ref() {
                if l.starts_with("```") {
                    break;
                }
                src.push_str(l);
                src.push('\n');
            }
            let (tree, _) = flowc::syntax::parse(FileId(0), &src);
            if tree.is_none() {
                continue;
            }
            if let Ok(formatted) = flowc::format::format(&src) {
                seen += 1;
                if formatted != src {
                    wrong.push(format!("{page}:{}", n + 1));
                }
            }
        }
    }
    assert!(seen >= 40, "only {seen} whole-file examples in docs/");
    assert!(wrong.is_empty(), "not in `flowc fmt` layout: {wrong:#?}");
}
