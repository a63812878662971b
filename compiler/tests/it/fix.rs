//! `flowc check --fix` and `--diff`, through the real binary: on every
//! example and rule fixture, a fix leaves each derived guarantee equal or
//! stronger (`flowc report --format json` before and after, compared in the
//! guarantee lattice), and a second `--fix` changes nothing.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::flowc_in;
use flowc::vocab::Guarantee;
use serde_json::Value;

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_tree(&src, &dst);
        } else if src.extension().is_some_and(|x| x == "flow") {
            std::fs::copy(&src, &dst).expect("copy");
        }
    }
}

/// A scratch project holding a copy of `examples/` and `tests/fixtures/`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("project root");
    copy_tree(
        &common::repo_root().join("examples"),
        &dir.path().join("examples"),
    );
    copy_tree(
        &common::repo_root().join("tests/fixtures"),
        &dir.path().join("tests/fixtures"),
    );
    dir
}

fn flow_files(dir: &Path, under: &str) -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).expect("read_dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "flow") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&dir.join(under), &mut out);
    out.sort();
    out
}

/// Every output's derived guarantee, by pipeline, task and output.
fn guarantees(dir: &Path, file: &Path) -> BTreeMap<(String, String, String), Guarantee> {
    let out = flowc_in(dir)
        .args(["report", "--format", "json"])
        .arg(file)
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let mut g = BTreeMap::new();
    for p in v["pipelines"].as_array().into_iter().flatten() {
        for t in p["tasks"].as_array().into_iter().flatten() {
            for o in t["outputs"].as_array().into_iter().flatten() {
                let word = o["guarantee"].as_str().expect("a guarantee");
                g.insert(
                    (
                        p["name"].as_str().unwrap_or_default().to_string(),
                        t["name"].as_str().unwrap_or_default().to_string(),
                        o["target"].as_str().unwrap_or_default().to_string(),
                    ),
                    Guarantee::from_word(word).expect("a guarantee word"),
                );
            }
        }
    }
    g
}

fn codes(dir: &Path, file: &Path) -> Vec<String> {
    let out = flowc_in(dir)
        .args(["check", "--format", "json"])
        .arg(file)
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["suppressed"].is_null())
        .map(|d| d["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn fixes_never_weaken_a_guarantee_and_a_second_fix_changes_nothing() {
    let dir = project();
    let d = dir.path();
    let mut fixed = Vec::new();
    for file in flow_files(d, "examples")
        .into_iter()
        .chain(flow_files(d, "tests/fixtures"))
    {
        let rel = file.strip_prefix(d).expect("inside").to_path_buf();
        let before_text = std::fs::read_to_string(&file).expect("read");
        let diff = flowc_in(d)
            .args(["check", "--diff"])
            .arg(&rel)
            .output()
            .expect("runs");
        let would = diff.status.code() == Some(1);
        assert!(
            matches!(diff.status.code(), Some(0 | 1)),
            "{rel:?}: {diff:?}"
        );
        let before = guarantees(d, &rel);
        flowc_in(d)
            .args(["check", "--fix"])
            .arg(&rel)
            .output()
            .expect("runs");
        let after_text = std::fs::read_to_string(&file).expect("read");
        assert_eq!(
            would,
            after_text != before_text,
            "{rel:?}: --diff and --fix agree"
        );
        if !would {
            assert!(diff.stdout.is_empty(), "{rel:?}");
            continue;
        }
        // The diff shows the change --fix made.
        let shown = String::from_utf8_lossy(&diff.stdout);
        assert!(shown.contains("(fixed)"), "{shown}");
        let after = guarantees(d, &rel);
        for (out, g) in &before {
            let now = after
                .get(out)
                .unwrap_or_else(|| panic!("{rel:?}: {out:?} is gone"));
            assert!(now.at_least(*g), "{rel:?}: {out:?} was {g:?}, is {now:?}");
        }
        // Idempotent: nothing is left to fix.
        let again = flowc_in(d)
            .args(["check", "--diff"])
            .arg(&rel)
            .output()
            .expect("runs");
        assert_eq!(
            again.status.code(),
            Some(0),
            "{rel:?}: {}",
            String::from_utf8_lossy(&again.stdout)
        );
        flowc_in(d)
            .args(["check", "--fix"])
            .arg(&rel)
            .output()
            .expect("runs");
        assert_eq!(
            std::fs::read_to_string(&file).expect("read"),
            after_text,
            "{rel:?}"
        );
        fixed.push(rel);
    }
    let names: Vec<String> = fixed.iter().map(|p| p.display().to_string()).collect();
    for want in [
        "FL304/trigger.flow",
        "FL503/trigger.flow",
        "FL702/trigger.flow",
    ] {
        assert!(
            names.iter().any(|n| n.ends_with(want)),
            "{want} is fixed: {names:?}"
        );
    }
}

/// A scratch project with one file, `p.flow`.
fn one_file(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("project root");
    std::fs::write(dir.path().join("p.flow"), text).expect("write");
    dir
}

const SPEC: &str = r#"source raw: files {
  path      "s3://lake/raw/{interval.start}/"
  identity  (order_id)
  fields    [order_id, amount]
}

sink out: postgres_table {
  table        "t"
  primary_key  (order_id)
}

Pipeline p {
  schedule  "@daily"
  start     2026-01-01
  timezone  "UTC"
  retries   2
  image     "ghcr.io/acme/x:1"

  task t {
    read   rawx
    key    input.order_id
    write  out upsert
    run    command ["python", "-m", "x"]
  }
}
"#;

#[test]
fn fixes_chain_until_nothing_is_left() {
    let dir = one_file(SPEC);
    let d = dir.path();
    let p = Path::new("p.flow");
    // Before: the keyword's case stops the parse.
    assert_eq!(codes(d, p), ["FL001"]);
    let diff = flowc_in(d)
        .args(["check", "--diff", "p.flow"])
        .output()
        .expect("runs");
    assert_eq!(diff.status.code(), Some(1));
    let fixed = flowc_in(d)
        .args(["check", "--fix", "p.flow"])
        .output()
        .expect("runs");
    assert_eq!(fixed.status.code(), Some(0), "{fixed:?}");
    let text = std::fs::read_to_string(d.join("p.flow")).expect("read");
    // Keyword case (FL001), the did-you-mean name (FL702), the kind's pin
    // (FL304) and a lease beside `retries` (FL503).
    assert!(text.contains("\npipeline p {"), "{text}");
    assert!(text.contains("    read   raw pinned listing\n"), "{text}");
    assert!(text.contains("  timeout 30m\n  retries   2\n"), "{text}");
    assert!(codes(d, p).is_empty(), "{:?}", codes(d, p));
    // The diff showed exactly what --fix then wrote.
    let shown = String::from_utf8(diff.stdout).expect("UTF-8");
    assert!(shown.contains("-Pipeline p {\n+pipeline p {"), "{shown}");
    assert!(shown.contains("+    read   raw pinned listing"), "{shown}");
}

#[test]
fn a_rule_the_configuration_turns_off_is_not_fixed() {
    // The same file, with the lease rule ignored by flowc.toml: every other
    // fix is made, the lease is not added; without the file it is.
    let dir = one_file(SPEC);
    let d = dir.path();
    std::fs::write(d.join("flowc.toml"), "ignore = [\"FL503\"]\n").expect("write config");
    let fixed = flowc_in(d)
        .args(["check", "--fix", "p.flow"])
        .output()
        .expect("runs");
    assert_eq!(fixed.status.code(), Some(0), "{fixed:?}");
    let text = std::fs::read_to_string(d.join("p.flow")).expect("read");
    assert!(text.contains("    read   raw pinned listing\n"), "{text}");
    assert!(!text.contains("timeout"), "{text}");
    // The command line's own selection counts too: `--isolated` reads no
    // configuration, so the lease is fixed now.
    let again = flowc_in(d)
        .args(["check", "--isolated", "--fix", "p.flow"])
        .output()
        .expect("runs");
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    let text = std::fs::read_to_string(d.join("p.flow")).expect("read");
    assert!(text.contains("  timeout 30m\n  retries   2\n"), "{text}");
}

#[test]
fn what_no_fix_can_mend_is_left_and_reported() {
    // A misspelled keyword is not fixed (it may be a name), nor is a read
    // written `unpinned` on purpose, nor a source whose kind has no pins
    // but offsets.
    let text = SPEC
        .replace("Pipeline p", "pipelin p")
        .replace("read   rawx", "read   raw unpinned");
    let dir = one_file(&text);
    let d = dir.path();
    let diff = flowc_in(d)
        .args(["check", "--diff", "p.flow"])
        .output()
        .expect("runs");
    assert_eq!(
        diff.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&diff.stdout)
    );
    assert!(diff.stdout.is_empty());
    let out = flowc_in(d)
        .args(["check", "--fix", "p.flow"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(d.join("p.flow")).expect("read"),
        text
    );
    let fixed = SPEC
        .replace("Pipeline p", "pipeline p")
        .replace("read   rawx", "read   raw unpinned");
    let dir = one_file(&fixed);
    let out = flowc_in(dir.path())
        .args(["check", "--fix", "p.flow"])
        .output()
        .expect("runs");
    let after = std::fs::read_to_string(dir.path().join("p.flow")).expect("read");
    assert!(after.contains("read   raw unpinned\n"), "{after}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("FL304"),
        "{out:?}"
    );
}

#[test]
fn with_importers_checks_the_files_that_use_a_named_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    std::fs::create_dir_all(d.join(".git")).expect("root");
    std::fs::create_dir_all(d.join("shared")).expect("mkdir");
    std::fs::write(
        d.join("shared/decl.flow"),
        "sink out: postgres_table {\n  table        \"t\"\n  primary_key  (order_id)\n}\n",
    )
    .expect("write");
    let pipeline = SPEC
        .replace("Pipeline p", "pipeline p")
        .replace("read   rawx", "read   raw pinned listing")
        .replace("  retries   2\n", "  timeout   30m\n  retries   2\n");
    let start = pipeline.find("sink out").expect("sink");
    let end = start + pipeline[start..].find("}\n").expect("end") + 2;
    let importer = format!(
        "use \"shared/decl.flow\"\n{}{}",
        &pipeline[..start],
        &pipeline[end..]
    );
    std::fs::write(d.join("importer.flow"), &importer).expect("write");
    std::fs::write(d.join("unrelated.flow"), "pipeline q {\n").expect("write");
    let ok = flowc_in(d)
        .args(["check", "--with-importers", "shared/decl.flow"])
        .output()
        .expect("runs");
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
    assert!(
        String::from_utf8_lossy(&ok.stdout).contains("in 2 files"),
        "{ok:?}"
    );
    // A change to the used file that breaks its importer fails the check of
    // the used file alone only with the flag.
    std::fs::write(
        d.join("shared/decl.flow"),
        "sink outs: postgres_table {\n  table        \"t\"\n  primary_key  (order_id)\n}\n",
    )
    .expect("write");
    let alone = flowc_in(d)
        .args(["check", "shared/decl.flow"])
        .output()
        .expect("runs");
    assert_eq!(alone.status.code(), Some(0), "{alone:?}");
    let with = flowc_in(d)
        .args(["check", "--with-importers", "shared/decl.flow"])
        .output()
        .expect("runs");
    assert_eq!(with.status.code(), Some(1), "{with:?}");
    let shown = String::from_utf8_lossy(&with.stdout);
    assert!(
        shown.contains("importer.flow") && shown.contains("FL702"),
        "{shown}"
    );
    assert!(!shown.contains("unrelated.flow"), "{shown}");
}
