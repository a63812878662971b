//! docs/contributing.md names the files to touch for a rule, a target and a runtime
//! kind; every path it writes in backticks must exist, so the page cannot go stale.

use crate::common;

/// The backticked spans of `text` that look like repository paths: a `/`, and only
/// path characters (this leaves out commands and code).
fn backticked_paths(text: &str) -> Vec<&str> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| span.contains('/') && !span.contains("://"))
        .filter(|span| {
            span.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'))
        })
        .collect()
}

/// The paths `page` names that do not exist under the repository root.
fn missing_paths(page: &str) -> Vec<&str> {
    let root = common::repo_root();
    backticked_paths(page)
        .into_iter()
        .filter(|p| !root.join(p).exists())
        .collect()
}

#[test]
fn every_path_in_contributing_exists() {
    let root = common::repo_root();
    let page =
        std::fs::read_to_string(root.join("docs/contributing.md")).expect("docs/contributing.md");
    let paths = backticked_paths(&page);
    assert!(paths.len() >= 20, "too few paths found: {paths:?}");
    let missing = missing_paths(&page);
    assert!(
        missing.is_empty(),
        "docs/contributing.md names files that do not exist: {missing:?}"
    );
}

#[test]
fn a_page_naming_a_missing_file_is_refused() {
    let page = "edit `compiler/src/codegen/python.rs` and `compiler/src/codegen/no_such_file.rs`";
    assert_eq!(
        missing_paths(page),
        ["compiler/src/codegen/no_such_file.rs"]
    );
}

#[test]
fn the_extraction_keeps_paths_and_leaves_out_the_rest() {
    let text = "see `compiler/src/cli.rs`, run `cargo test --test it docs::`, \
                read `https://example.com/x` and `docs/targets/` but not `a b/c`";
    assert_eq!(
        backticked_paths(text),
        ["compiler/src/cli.rs", "docs/targets/"]
    );
}

/// Every target of the registry has its page, and the page on adding one
/// names the registry.
#[test]
fn every_target_has_a_page_and_the_registry_is_named() {
    let root = common::repo_root();
    for target in flowc::codegen::target::TARGETS {
        let page = root.join(format!("docs/targets/{}.md", target.name));
        assert!(page.exists(), "no page for target `{}`", target.name);
    }
    let page =
        std::fs::read_to_string(root.join("docs/contributing.md")).expect("docs/contributing.md");
    let section = page
        .split("## A target")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("an `A target` section");
    for path in [
        "compiler/src/codegen/target.rs",
        "compiler/src/codegen/ir.rs",
        "compiler/src/codegen/mod.rs",
    ] {
        assert!(
            section.contains(&format!("`{path}`")),
            "{path} is not named"
        );
    }
}
