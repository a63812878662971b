//! One version: the workspace's, in the binary, the wheel's pre-commit
//! mirror, the editor extension, the changelog and the docs' reference.

use crate::common;

fn read(path: &str) -> String {
    std::fs::read_to_string(common::repo_root().join(path)).expect(path)
}

/// The `version = "…"` value of a TOML file's `[project]`-like table, or the
/// `"version": "…"` of a JSON file: the first one in the file.
fn first_version(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let l = l.trim();
        let rest = l
            .strip_prefix("version = \"")
            .or_else(|| l.strip_prefix("\"version\": \""))?;
        Some(rest.split('"').next()?.to_string())
    })
}

/// Where a version is written besides Cargo.toml, and what disagrees.
fn disagreements(version: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    for file in [
        "packaging/pre-commit-mirror/pyproject.toml",
        "editors/vscode/package.json",
    ] {
        let found = first_version(&read(file));
        if found.as_deref() != Some(version) {
            wrong.push(format!("{file}: {found:?}"));
        }
    }
    let mirror = read("packaging/pre-commit-mirror/pyproject.toml");
    // Named by its release URL, never `flowc==VERSION` (docs/security.md): the URL's tag and
    // the wheel's file name carry the version.
    if !mirror.contains(&format!("/v{version}/flowc-{version}-")) {
        wrong.push("packaging/pre-commit-mirror/pyproject.toml: its flowc dependency".into());
    }
    if !read("CHANGELOG.md").contains(&format!("\n## {version}\n")) {
        wrong.push(format!("CHANGELOG.md: no `## {version}` section"));
    }
    let minor: String = version.split('.').take(2).collect::<Vec<_>>().join(".");
    if !read("docs/reference/README.md").contains(&format!("flowc {minor}")) {
        wrong.push(format!("docs/reference/README.md: not `flowc {minor}`"));
    }
    wrong
}

#[test]
fn one_version_everywhere() {
    let version = env!("CARGO_PKG_VERSION");
    let out = crate::common::flowc()
        .arg("--version")
        .output()
        .expect("flowc runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("flowc {version}")
    );
    let wrong = disagreements(version);
    assert!(wrong.is_empty(), "not version {version}: {wrong:#?}");
}

#[test]
fn a_stale_version_is_seen() {
    assert!(!disagreements("9.9.9").is_empty());
    assert_eq!(
        first_version("[project]\nname = \"x\"\nversion = \"1.2.3\"\n").as_deref(),
        Some("1.2.3")
    );
}
