//! The rule pages in docs/rules/ are generated from the explain text in
//! compiler/src/rules/explain/; this test fails when they drift.
//! Regenerate with `FLOWC_BLESS=1 cargo test --test it docs::`.

use crate::common;

use flowc::rules::registry;

const HEADINGS: [&str; 4] = [
    "## What it catches",
    "## Why it matters",
    "## Unsafe example",
    "## Fix",
];

fn page(r: &flowc::rules::Rule) -> String {
    format!(
        "<!-- generated from compiler/src/rules/explain/{}.md by `FLOWC_BLESS=1 cargo test --test it docs::`; do not edit -->\n{}",
        r.code, r.explain
    )
}

#[test]
fn explain_pages_have_every_heading() {
    for r in registry::all() {
        assert!(
            r.explain.starts_with(&format!("# {} {}\n", r.code, r.name)),
            "{} title",
            r.code
        );
        for h in HEADINGS {
            assert!(r.explain.contains(h), "{} lacks `{h}`", r.code);
        }
        assert!(r.explain.contains("```flow"), "{} has no example", r.code);
    }
}

#[test]
fn docs_rules_match_explain_pages() {
    let dir = common::repo_root().join("docs/rules");
    let bless = std::env::var_os("FLOWC_BLESS").is_some();
    let mut drift = Vec::new();
    for r in registry::all() {
        let path = dir.join(format!("{}.md", r.code));
        let want = page(r);
        if bless {
            std::fs::create_dir_all(&dir).expect("docs/rules");
            std::fs::write(&path, &want).expect("write");
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            drift.push(path.display().to_string());
        }
    }
    assert!(
        drift.is_empty(),
        "out of date (run `FLOWC_BLESS=1 cargo test --test it docs::`): {drift:#?}"
    );
}

fn flow_block_after(page: &str, heading: &str) -> Option<String> {
    let at = page.find(heading)?;
    let rest = &page[at..];
    let start = rest.find("```flow\n")? + "```flow\n".len();
    let end = rest[start..].find("```")?;
    Some(rest[start..start + end].to_string())
}

fn codes_of(src: &str) -> Vec<&'static str> {
    let o = flowc::analyze::check(
        vec![flowc::analyze::Input {
            path: "example.flow".into(),
            key: "example.flow".into(),
            bytes: src.as_bytes().to_vec(),
        }],
        &flowc::analyze::NoImports,
    );
    o.diagnostics
        .iter()
        .filter(|d| d.suppressed.is_none())
        .map(|d| d.code)
        .collect()
}

/// Each page's unsafe example triggers its rule, and its fix does not.
#[test]
fn explain_examples_do_what_they_say() {
    let mut wrong = Vec::new();
    for r in registry::all() {
        // Target codes need a build; FL005's fix imports a file that exists only on disk.
        if r.code.starts_with("FL8") {
            continue;
        }
        let bad = flow_block_after(r.explain, "## Unsafe example").unwrap_or_default();
        if !codes_of(&bad).contains(&r.code) {
            wrong.push(format!(
                "{}: unsafe example gives {:?}",
                r.code,
                codes_of(&bad)
            ));
        }
        if r.code == "FL005" {
            continue;
        }
        let fixed = flow_block_after(r.explain, "## Fix").unwrap_or_default();
        if codes_of(&fixed).contains(&r.code) {
            wrong.push(format!(
                "{}: fix still gives {:?}",
                r.code,
                codes_of(&fixed)
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
