//! `flowc check`'s controls through the real binary: rule selection,
//! severities, per-file ignores, excludes and ignore files, standard input,
//! the concise format, `--quiet`, `--color`, `--statistics`, the notice for
//! a folder without `.flow` files, `--target`, and `graph` on several files.

use std::path::Path;

use serde_json::Value;

use crate::common;
use crate::common::{flowc_in, Run};

/// The FL202 fixture: FL202 (a warning) and FL900 (an error).
const APPEND: &str = include_str!("../../../tests/fixtures/rules/FL202/trigger.flow");
/// The FL806 fixture: clean for `check`, FL806 (and FL807) for `build --target argo`.
const NO_STATE: &str = include_str!("../../../tests/fixtures/rules/FL806/trigger.flow");
const CLEAN: &str = include_str!("../../../tests/fixtures/rules/FL202/clean.flow");

/// `text` with its pipeline renamed: pipeline names are one namespace per run.
fn renamed(text: &str, name: &str) -> String {
    // Its own table too: two pipelines writing one table unordered are FL207.
    text.replace("pipeline orders_daily", &format!("pipeline {name}"))
        .replace(
            "\"analytics.order_history\"",
            &format!("\"analytics.order_history_{name}\""),
        )
}

/// A project folder (marked by `.git`, so no configuration above it is read).
fn project<S: AsRef<str>>(files: &[(&str, S)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text.as_ref()).expect("write");
    }
    dir
}

/// `flowc` in `dir`, colours as the environment asks.
fn run(dir: &Path, args: &[&str]) -> Run {
    flowc_in(dir).colors_from_env().args(args).run()
}

/// The codes `check --output-format concise` prints, in order.
fn codes(dir: &Path, args: &[&str]) -> (Option<i32>, Vec<String>) {
    let mut all = vec!["check", "--output-format", "concise", "--quiet"];
    all.extend_from_slice(args);
    let r = run(dir, &all);
    let codes = r
        .stdout
        .lines()
        .filter_map(|l| l.split(": ").nth(1))
        .filter_map(|rest| rest.split(' ').next())
        .map(str::to_owned)
        .collect();
    (r.code, codes)
}

#[test]
fn select_and_ignore_by_code_name_and_prefix() {
    let dir = project(&[("p.flow", APPEND)]);
    let d = dir.path();
    assert_eq!(
        codes(d, &[]),
        (Some(1), vec!["FL900".into(), "FL202".into()])
    );
    assert_eq!(
        codes(d, &["--select", "FL2"]),
        (Some(0), vec!["FL202".into()])
    );
    assert_eq!(
        codes(d, &["--select", "guarantee-below-requirement"]),
        (Some(1), vec!["FL900".into()])
    );
    assert_eq!(codes(d, &["--ignore", "FL900,FL202"]), (Some(0), vec![]));
    assert_eq!(
        codes(d, &["--select", "FL900", "--extend-select", "FL202"]),
        (Some(1), vec!["FL900".into(), "FL202".into()])
    );
    // An unknown rule is a usage error naming it, with the near miss.
    let r = run(d, &["check", "--select", "FL2O2"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("`--select`") && r.stderr.contains("FL2O2"),
        "{}",
        r.stderr
    );
    let r = run(d, &["check", "--ignore", "unpinned-mutable-inpt"]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("unpinned-mutable-input"), "{}", r.stderr);
}

#[test]
fn parse_errors_and_reasonless_allows_cannot_be_ignored() {
    let dir = project(&[("p.flow", "pipeline {")]);
    for rule in ["FL001", "syntax-error", "FL702", "FL706"] {
        let r = run(dir.path(), &["check", "--ignore", rule]);
        assert_eq!(r.code, Some(2), "{rule}");
        assert!(r.stderr.contains("cannot be ignored"), "{}", r.stderr);
    }
    // A prefix keeps them: the file still fails.
    assert_eq!(
        codes(dir.path(), &["--ignore", "FL0"]),
        (Some(1), vec!["FL001".into()])
    );
    let r = run(dir.path(), &["check", "--select", "FL9"]);
    assert_eq!(r.code, Some(1));
    // An allow without a reason is still FL706 under any selection.
    let no_reason = include_str!("../../../tests/fixtures/rules/FL706/trigger.flow");
    let dir = project(&[("p.flow", no_reason)]);
    let (code, found) = codes(dir.path(), &["--select", "FL2"]);
    assert_eq!(code, Some(1));
    assert!(found.contains(&"FL706".to_owned()), "{found:?}");
}

#[test]
fn severity_overrides_change_the_exit_status_and_the_json() {
    let config = "[severity]\nFL202 = \"error\"\nguarantee-below-requirement = \"warning\"\n";
    let dir = project(&[("p.flow", APPEND), ("flowc.toml", config)]);
    let r = run(
        dir.path(),
        &["check", "--output-format", "json", "--select", "FL202"],
    );
    assert_eq!(r.code, Some(1), "FL202 is an error now");
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["diagnostics"][0]["code"], "FL202");
    assert_eq!(v["diagnostics"][0]["severity"], "error");
    assert_eq!(v["summary"]["errors"], 1);
    let r = run(
        dir.path(),
        &["check", "--output-format", "sarif", "--select", "FL900"],
    );
    assert_eq!(r.code, Some(0), "FL900 is a warning now: {}", r.stdout);
    let v: Value = serde_json::from_str(&r.stdout).expect("sarif");
    assert_eq!(v["runs"][0]["results"][0]["level"], "warning");
    // --isolated reads no file: the rules' own severities.
    let r = run(dir.path(), &["check", "--isolated", "--select", "FL900"]);
    assert_eq!(r.code, Some(1));
}

#[test]
fn per_file_ignores_match_globs_from_the_configuration_folder() {
    let config =
        "[per-file-ignores]\n\"legacy/**\" = [\"FL900\"]\n\"*_draft.flow\" = [\"FL202\"]\n";
    let dir = project(&[
        ("flowc.toml", config),
        ("legacy/old/p.flow", &renamed(APPEND, "a")),
        ("new/p.flow", &renamed(APPEND, "b")),
        ("new/q_draft.flow", &renamed(APPEND, "c")),
    ]);
    let r = run(dir.path(), &["check", "--output-format", "concise", "-q"]);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(
        lines
            .iter()
            .all(|l| !(l.starts_with("legacy/") && l.contains("FL900"))),
        "{lines:?}"
    );
    assert!(lines
        .iter()
        .any(|l| l.starts_with("legacy/") && l.contains("FL202")));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("new/p.flow") && l.contains("FL202")));
    assert!(lines
        .iter()
        .all(|l| !(l.starts_with("new/q_draft") && l.contains("FL202"))));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("new/q_draft") && l.contains("FL900")));
}

#[test]
fn discovery_honours_gitignore_ignore_and_exclude() {
    let dir = project(&[
        (
            "flowc.toml",
            "exclude = [\"vendored\", \"gen/*.flow\"]\n".to_owned(),
        ),
        (".gitignore", "build/\n".to_owned()),
        ("drafts/.ignore", "wip.flow\n".to_owned()),
        ("ok.flow", renamed(CLEAN, "a")),
        ("build/p.flow", APPEND.to_owned()),
        ("vendored/deep/p.flow", APPEND.to_owned()),
        ("gen/p.flow", APPEND.to_owned()),
        ("gen/sub/kept.flow", renamed(CLEAN, "b")),
        ("drafts/wip.flow", APPEND.to_owned()),
        ("drafts/done.flow", renamed(CLEAN, "c")),
    ]);
    let r = run(dir.path(), &["check"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("in 3 files"), "{}", r.stdout);
    // A file named on the command line is checked all the same.
    let r = run(
        dir.path(),
        &["check", "build/p.flow", "-q", "--output-format", "concise"],
    );
    assert_eq!(r.code, Some(1));
    assert!(r.stdout.contains("build/p.flow:"), "{}", r.stdout);
    // `fmt` finds the same files.
    let r = run(dir.path(), &["fmt", "--check"]);
    assert!(
        !r.stdout.contains("build/") && !r.stdout.contains("vendored"),
        "{}",
        r.stdout
    );
}

/// A folder named on the command line is searched even when the configuration
/// excludes it (as a named file is checked); patterns still apply below it,
/// and searching the folder above leaves it out.
#[test]
fn a_named_folder_is_searched_even_when_excluded() {
    let dir = project(&[
        (
            "flowc.toml",
            "exclude = [\"fixtures\", \"gen\"]\n".to_owned(),
        ),
        ("ok.flow", renamed(CLEAN, "a")),
        ("fixtures/bad/p.flow", APPEND.to_owned()),
        ("fixtures/bad/gen/q.flow", APPEND.to_owned()),
    ]);
    // The folder above: `fixtures` is left out.
    let r = run(dir.path(), &["check"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("in 1 file"), "{}", r.stdout);
    // Named: searched, its own `gen` still left out.
    for named in ["fixtures", "fixtures/bad", "fixtures/bad/"] {
        let r = run(
            dir.path(),
            &["check", named, "-q", "--output-format", "concise"],
        );
        assert_eq!(r.code, Some(1), "{named}: {}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains("fixtures/bad/p.flow:"), "{}", r.stdout);
        assert!(!r.stdout.contains("q.flow"), "{}", r.stdout);
    }
}

#[test]
fn a_folder_without_flow_files_says_so() {
    let dir = project(&[("empty/README.md", "x"), ("ok.flow", CLEAN)]);
    let r = run(dir.path(), &["check", "empty"]);
    assert_eq!(r.code, Some(0));
    assert!(
        r.stderr.contains("no .flow file under `empty`"),
        "{}",
        r.stderr
    );
    let r = run(dir.path(), &["check", "empty", "--quiet"]);
    assert!(
        r.stderr.is_empty() && r.stdout.is_empty(),
        "{}{}",
        r.stdout,
        r.stderr
    );
    let r = run(dir.path(), &["check", "."]);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
}

#[test]
fn stdin_is_checked_under_its_stdin_filename() {
    let dir = project(&[
        (
            "flowc.toml",
            "[per-file-ignores]\n\"legacy/*\" = [\"FL900\"]\n",
        ),
        ("legacy/.keep", ""),
    ]);
    let out = flowc_in(dir.path())
        .colors_from_env()
        .args([
            "check",
            "-",
            "--stdin-filename",
            "legacy/p.flow",
            "--format",
            "concise",
        ])
        .write_stdin(APPEND)
        .output()
        .expect("runs");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("legacy/p.flow:26:26: FL202 "), "{text}");
    assert!(!text.contains("FL900"));
    // Without a name: shown as `-`, and the per-file ignore does not apply.
    let out = flowc_in(dir.path())
        .colors_from_env()
        .args(["check", "-", "--output-format", "concise"])
        .write_stdin(APPEND)
        .output()
        .expect("runs");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(out.status.code(), Some(1));
    assert!(text.starts_with("-:26:5: FL900 "), "{text}");
    // `use` is read from the folder of the name: the example's imports resolve.
    let root = common::repo_root();
    let example = std::fs::read_to_string(root.join("examples/revenue_daily.flow")).expect("read");
    assert!(example.contains("use \""), "the example imports");
    for (name, code) in [
        ("examples/revenue_daily.flow", 0),
        ("elsewhere/revenue_daily.flow", 1),
    ] {
        let out = flowc_in(&root)
            .colors_from_env()
            .args([
                "check",
                "--output-format",
                "concise",
                "--stdin-filename",
                name,
            ])
            .write_stdin(example.clone())
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(code), "{name}: {text}");
    }
}

#[test]
fn concise_is_one_finding_a_line_and_quiet_drops_the_summary() {
    let dir = project(&[("p.flow", APPEND)]);
    let r = run(dir.path(), &["check", "--output-format", "concise"]);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].starts_with("p.flow:26:5: FL900 `write order_history append`"));
    assert!(lines[1].starts_with("p.flow:26:26: FL202 plain `append`"));
    assert_eq!(lines[2], "1 error, 1 warning in 1 file");
    let r = run(
        dir.path(),
        &["check", "--output-format", "concise", "--quiet"],
    );
    assert_eq!(r.stdout.lines().count(), 2);
    let r = run(dir.path(), &["check", "--quiet"]);
    assert!(
        r.stdout.contains("FL202") && !r.stdout.contains("in 1 file"),
        "{}",
        r.stdout
    );
    let clean = project(&[("p.flow", CLEAN)]);
    let r = run(clean.path(), &["check", "--quiet"]);
    assert_eq!((r.code, r.stdout.as_str()), (Some(0), ""));
    // `--format` is the old spelling, still accepted.
    let r = run(dir.path(), &["check", "--format", "concise", "-q"]);
    assert_eq!(r.stdout.lines().count(), 2);
}

#[test]
fn color_follows_the_flag_then_no_color_then_force_color() {
    let dir = project(&[("p.flow", APPEND)]);
    let esc = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = flowc_in(dir.path());
        c.colors_from_env();
        c.arg("check").args(args);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().expect("runs");
        out.stdout.contains(&0x1b)
    };
    assert!(!esc(&[], &[]), "not a terminal: no colour");
    assert!(esc(&["--color", "always"], &[]));
    assert!(esc(&["--color", "always"], &[("NO_COLOR", "1")]));
    assert!(esc(&[], &[("FORCE_COLOR", "1")]));
    assert!(!esc(&[], &[("FORCE_COLOR", "1"), ("NO_COLOR", "1")]));
    assert!(!esc(&["--color", "never"], &[("FORCE_COLOR", "1")]));
    assert!(
        !esc(&[], &[("FORCE_COLOR", "")]),
        "an empty variable is unset"
    );
}

#[test]
fn statistics_count_findings_per_rule() {
    let dir = project(&[
        ("a.flow", renamed(APPEND, "a")),
        ("b.flow", renamed(APPEND, "b")),
    ]);
    let r = run(dir.path(), &["check", "--statistics"]);
    assert_eq!(r.code, Some(1));
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "    2  FL202  warning  append-without-dedup",
            "    2  FL900  error    guarantee-below-requirement",
            "2 errors, 2 warnings in 2 files"
        ]
    );
    let r = run(
        dir.path(),
        &["check", "--statistics", "--output-format", "json"],
    );
    assert_eq!(r.code, Some(2));
}

#[test]
fn target_at_check_time_reports_what_build_refuses() {
    let dir = project(&[("p.flow", NO_STATE)]);
    let d = dir.path();
    assert_eq!(codes(d, &[]), (Some(0), vec![]));
    let (code, found) = codes(d, &["--target", "argo"]);
    assert_eq!(code, Some(1));
    assert!(
        found.contains(&"FL806".to_owned()) && found.contains(&"FL807".to_owned()),
        "{found:?}"
    );
    let (code, found) = codes(d, &["--target", "airflow"]);
    assert_eq!((code, found), (Some(1), vec!["FL806".to_owned()]));
    // `build` refuses the same.
    let out = tempfile::tempdir().expect("tempdir");
    let b = flowc_in(d)
        .colors_from_env()
        .args(["build", "--target", "airflow", "--out"])
        .arg(out.path())
        .arg("p.flow")
        .output()
        .expect("runs");
    assert_eq!(b.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&b.stdout).contains("FL806"));
    // The configured target, and selection applies to target findings too.
    std::fs::write(d.join("flowc.toml"), "target = \"argo\"\n").expect("write");
    let (code, found) = codes(d, &[]);
    assert_eq!(code, Some(1));
    assert!(found.contains(&"FL807".to_owned()), "{found:?}");
    // What the generator refuses stays, as `build` would not write it; its
    // warnings follow the selection.
    assert_eq!(
        codes(d, &["--ignore", "FL806,FL807"]),
        (Some(1), vec!["FL806".to_owned()])
    );
    std::fs::write(
        d.join("flowc.toml"),
        "target = \"argo\"\n[severity]\nFL806 = \"warning\"\n",
    )
    .expect("write");
    assert_eq!(codes(d, &["--select", "FL9"]).0, Some(1));
    let r = run(d, &["check", "--target", "nomad"]);
    assert_eq!(r.code, Some(2));
    std::fs::write(d.join("flowc.toml"), "target = \"nomad\"\n").expect("write");
    let r = run(d, &["check"]);
    assert_eq!(r.code, Some(2));
    assert!(
        r.stderr.contains("flowc.toml") && r.stderr.contains("`target`"),
        "{}",
        r.stderr
    );
}

#[test]
fn graph_draws_every_pipeline_of_every_file() {
    let root = common::repo_root();
    let r = run(&root, &["graph", "examples/"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let examples = common::flow_files("examples");
    // One graph, a cluster per pipeline.
    assert_eq!(r.stdout.matches("digraph ").count(), 1);
    let graphs = r.stdout.matches("subgraph \"cluster_").count();
    assert!(
        graphs >= examples.len() - 1,
        "{graphs} clusters for {} files",
        examples.len()
    );
    let two = run(
        &root,
        &[
            "graph",
            "examples/revenue_daily.flow",
            "examples/churn_scoring.flow",
        ],
    );
    assert_eq!(two.stdout.matches("digraph ").count(), 1, "{}", two.stderr);
    assert_eq!(
        two.stdout.matches("subgraph \"cluster_").count(),
        2,
        "{}",
        two.stderr
    );
    let first = two.stdout.find("revenue_daily").expect("drawn");
    let second = two.stdout.find("churn_scoring").expect("drawn");
    assert!(first < second, "in the order of the files given");
    let one = run(
        &root,
        &[
            "graph",
            "--pipeline",
            "churn_scoring",
            "examples/revenue_daily.flow",
            "examples/churn_scoring.flow",
        ],
    );
    assert_eq!(one.stdout.matches("digraph ").count(), 1);
    // One name in two files is ambiguous: named, not guessed.
    let dir = project(&[("a.flow", CLEAN), ("b.flow", CLEAN)]);
    let r = run(dir.path(), &["graph", "--pipeline", "orders_daily", "."]);
    assert_eq!(r.code, Some(2));
    assert!(
        r.stderr.contains("a.flow") && r.stderr.contains("b.flow"),
        "{}",
        r.stderr
    );
    // A broken file among them is never skipped in silence.
    let dir = project(&[("a.flow", CLEAN), ("b.flow", "pipeline {")]);
    let r = run(dir.path(), &["graph", "."]);
    assert_eq!(r.code, Some(1));
    assert!(r.stdout.contains("FL001"), "{}", r.stdout);
}

#[test]
fn build_settles_findings_by_the_configuration_too() {
    let dir = project(&[("p.flow", CLEAN)]);
    let out = tempfile::tempdir().expect("tempdir");
    let build = || {
        flowc_in(dir.path())
            .colors_from_env()
            .args(["build", "--target", "airflow", "--out"])
            .arg(out.path())
            .arg("p.flow")
            .output()
            .expect("runs")
    };
    assert_eq!(build().status.code(), Some(0));
    // FL704 (a warning) made an error: nothing is written for the file.
    let unused =
        format!("{CLEAN}\neffect spare: webhook {{\n  url \"https://example.invalid/x\"\n}}\n");
    std::fs::write(dir.path().join("p.flow"), &unused).expect("write");
    let (code, found) = codes(dir.path(), &[]);
    assert_eq!(code, Some(0), "{found:?}");
    std::fs::write(
        dir.path().join("flowc.toml"),
        "[severity]\nFL704 = \"error\"\n",
    )
    .expect("write");
    let b = build();
    assert_eq!(
        b.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&b.stdout)
    );
    assert!(String::from_utf8_lossy(&b.stderr).contains("wrote 0 files"));
}
