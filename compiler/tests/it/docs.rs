//! The rule pages in docs/rules/ are what `flowc explain` prints (the
//! catalog includes them): each has every heading, and its examples do
//! what they say.

use flowc::diagnostic::Code;

const HEADINGS: [&str; 4] = [
    "## What it catches",
    "## Why it matters",
    "## Unsafe example",
    "## Fix",
];

#[test]
fn explain_pages_have_every_heading() {
    for r in Code::ALL {
        assert!(
            r.explain()
                .starts_with(&format!("# {} {}\n", r.as_str(), r.name())),
            "{} title",
            r.as_str()
        );
        for h in HEADINGS {
            assert!(r.explain().contains(h), "{} lacks `{h}`", r.as_str());
        }
        assert!(
            r.explain().contains("```flow"),
            "{} has no example",
            r.as_str()
        );
    }
}

fn flow_block_after(page: &str, heading: &str) -> Option<String> {
    let at = page.find(heading)?;
    let rest = &page[at..];
    let start = rest.find("```flow\n")? + "```flow\n".len();
    let end = rest[start..].find("```")?;
    Some(rest[start..start + end].to_string())
}

fn codes_of(src: &str) -> Vec<&'static str> {
    let o = flowc::check::check(
        vec![flowc::check::Input {
            path: "example.flow".into(),
            key: "example.flow".into(),
            bytes: src.as_bytes().to_vec(),
        }],
        &flowc::check::NoImports,
    );
    o.diagnostics
        .iter()
        .filter(|d| d.suppressed.is_none())
        .map(|d| d.code.as_str())
        .collect()
}

/// Each page's unsafe example triggers its rule, and its fix does not.
#[test]
fn explain_examples_do_what_they_say() {
    let mut wrong = Vec::new();
    for r in Code::ALL {
        // Target codes need a build; FL005's fix imports a file that exists only on disk.
        if r.as_str().starts_with("FL8") {
            continue;
        }
        let bad = flow_block_after(r.explain(), "## Unsafe example").unwrap_or_default();
        if !codes_of(&bad).contains(&r.as_str()) {
            wrong.push(format!(
                "{}: unsafe example gives {:?}",
                r.as_str(),
                codes_of(&bad)
            ));
        }
        if *r == Code::FL005 {
            continue;
        }
        let fixed = flow_block_after(r.explain(), "## Fix").unwrap_or_default();
        if codes_of(&fixed).contains(&r.as_str()) {
            wrong.push(format!(
                "{}: fix still gives {:?}",
                r.as_str(),
                codes_of(&fixed)
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn argo_strict_check(
    published: &std::path::Path,
    strict: &std::path::Path,
) -> std::process::Output {
    std::process::Command::new("python3")
        .arg(repo_root().join("scripts/argo-schema-strict"))
        .arg("--check")
        .arg(published)
        .arg(strict)
        .output()
        .expect("python3 runs scripts/argo-schema-strict")
}

/// The strict Argo schema the Argo tests validate against is exactly what
/// scripts/argo-schema-strict derives from the published schema committed
/// beside it; a strict file edited by hand (or a published one replaced
/// without re-deriving) fails.
#[test]
fn argo_strict_schema_is_derived_from_the_published_one() {
    let data = repo_root().join("tests/data");
    let published = data.join("argo-workflows-schema.json");
    let strict = data.join("argo-workflows-schema.strict.json");
    let out = argo_strict_check(&published, &strict);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A near miss: the same file with one `additionalProperties: false` dropped.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(&strict).unwrap();
    let tampered = text.replacen("   \"additionalProperties\": false,\n", "", 1);
    assert_ne!(tampered, text);
    let bad = dir.path().join("strict.json");
    std::fs::write(&bad, tampered).unwrap();
    let out = argo_strict_check(&published, &bad);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run scripts/argo-schema-strict"));
}
