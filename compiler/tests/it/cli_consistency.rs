//! One command line (issue 36 item 10): the same flags mean the same thing
//! on every command, names are suggested when misspelled, shells complete
//! flowc, and `docs/flowc.1` is the manual page of this binary. Through the
//! real binary, each with a near miss.

use std::path::Path;

use assert_cmd::Command;

use crate::common;

fn flowc(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("flowc").expect("binary builds");
    c.current_dir(dir).env("NO_COLOR", "1");
    c
}

/// A project with one clean pipeline and one with an error.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    std::fs::write(
        dir.path().join("ok.flow"),
        "pipeline ok {\n  task t {\n    run command [\"true\"]\n  }\n}\n",
    )
    .expect("write");
    dir
}

fn broken(dir: &Path) {
    std::fs::write(
        dir.join("broken.flow"),
        "pipeline broken {\n  task t {\n    read nowhere\n    run command [\"true\"]\n  }\n}\n",
    )
    .expect("write");
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

#[test]
fn report_takes_output_format_and_quiet_as_check_does() {
    let dir = project();
    let json = flowc(dir.path())
        .args(["report", "--output-format", "json", "ok.flow"])
        .output()
        .expect("runs");
    assert_eq!(json.status.code(), Some(0), "{}", text(&json.stderr));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(v["pipelines"][0]["name"], "ok");
    // The old spelling stays.
    let old = flowc(dir.path())
        .args(["report", "--format", "json", "ok.flow"])
        .output()
        .expect("runs");
    assert_eq!(old.stdout, json.stdout);

    broken(dir.path());
    let loud = flowc(dir.path())
        .args(["report", "."])
        .output()
        .expect("runs");
    assert_eq!(loud.status.code(), Some(1));
    assert!(
        text(&loud.stderr).contains("has no report"),
        "{}",
        text(&loud.stderr)
    );
    let quiet = flowc(dir.path())
        .args(["report", "-q", "."])
        .output()
        .expect("runs");
    assert_eq!(quiet.status.code(), Some(1), "the exit status still says");
    assert_eq!(text(&quiet.stderr), "");
    assert_eq!(quiet.stdout, loud.stdout);
}

#[test]
fn check_exit_zero_reports_and_exits_0_and_refuses_deny_warnings() {
    let dir = project();
    broken(dir.path());
    let plain = flowc(dir.path())
        .args(["check", "--output-format", "concise", "."])
        .output()
        .expect("runs");
    assert_eq!(plain.status.code(), Some(1));
    let zero = flowc(dir.path())
        .args(["check", "--exit-zero", "--output-format", "concise", "."])
        .output()
        .expect("runs");
    assert_eq!(zero.status.code(), Some(0));
    assert_eq!(zero.stdout, plain.stdout);
    assert!(
        text(&zero.stdout).contains("broken.flow:3:"),
        "{}",
        text(&zero.stdout)
    );
    let both = flowc(dir.path())
        .args(["check", "--exit-zero", "--deny-warnings", "."])
        .output()
        .expect("runs");
    assert_eq!(both.status.code(), Some(2));
    // A command that cannot run still says so.
    let missing = flowc(dir.path())
        .args(["check", "--exit-zero", "nowhere.flow"])
        .output()
        .expect("runs");
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn fmt_diff_is_check() {
    let dir = project();
    let messy = "pipeline ok {\n task t {\n run command [\"true\"]\n }\n}\n";
    std::fs::write(dir.path().join("ok.flow"), messy).expect("write");
    let diff = flowc(dir.path())
        .args(["fmt", "--diff", "ok.flow"])
        .output()
        .expect("runs");
    assert_eq!(diff.status.code(), Some(1));
    assert!(
        text(&diff.stdout).contains("+++ ok.flow (formatted)"),
        "{}",
        text(&diff.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("ok.flow")).expect("read"),
        messy,
        "--diff writes nothing"
    );
    let check = flowc(dir.path())
        .args(["fmt", "--check", "ok.flow"])
        .output()
        .expect("runs");
    assert_eq!(check.stdout, diff.stdout);
}

#[test]
fn build_takes_the_target_from_the_configuration() {
    let dir = project();
    let none = flowc(dir.path())
        .args(["build", "--out", "out", "ok.flow"])
        .output()
        .expect("runs");
    assert_eq!(none.status.code(), Some(2));
    assert!(
        text(&none.stderr)
            .contains("no target: pass `--target airflow|argo|ir`, or set `target` in flowc.toml"),
        "{}",
        text(&none.stderr)
    );
    assert!(!dir.path().join("out").exists());
    std::fs::write(dir.path().join("flowc.toml"), "target = \"ir\"\n").expect("write");
    let configured = flowc(dir.path())
        .args(["build", "--out", "out", "ok.flow"])
        .output()
        .expect("runs");
    assert_eq!(
        configured.status.code(),
        Some(0),
        "{}",
        text(&configured.stderr)
    );
    assert!(dir.path().join("out/ok.ir.json").is_file());
    // The command line beats the file.
    let given = flowc(dir.path())
        .args(["build", "--target", "airflow", "--out", "dags", "ok.flow"])
        .output()
        .expect("runs");
    assert_eq!(given.status.code(), Some(0));
    assert!(dir.path().join("dags/ok.py").is_file());
}

#[test]
fn scaffold_defaults_to_python() {
    let dir = project();
    let out = flowc(dir.path())
        .args(["scaffold", "--out", "py", "ok.flow"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let explicit = flowc(dir.path())
        .args(["scaffold", "--lang", "python", "--out", "py2", "ok.flow"])
        .output()
        .expect("runs");
    assert_eq!(explicit.status.code(), Some(0));
    let listing = |d: &str| {
        let mut names: Vec<String> = walk(&dir.path().join(d));
        names.sort();
        names
    };
    assert!(!listing("py").is_empty());
    assert_eq!(listing("py"), listing("py2"));
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read_dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(walk(&path).into_iter().map(|p| {
                format!(
                    "{}/{p}",
                    path.file_name().unwrap_or_default().to_string_lossy()
                )
            }));
        } else {
            out.push(
                path.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into(),
            );
        }
    }
    out
}

#[test]
fn unknown_names_get_a_suggestion_in_one_sentence() {
    let dir = project();
    let said = |args: &[&str]| {
        let out = flowc(dir.path()).args(args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2));
        text(&out.stderr)
    };
    assert_eq!(
        said(&["kinds", "slak"]),
        "error: no kind `slak`; did you mean `slack_message`? (`flowc kinds` lists them)\n"
    );
    assert_eq!(
        said(&["kinds", "slack_mesage"]),
        "error: no kind `slack_mesage`; did you mean `slack_message`? (`flowc kinds` lists them)\n"
    );
    assert_eq!(
        said(&["kinds", "zzzz"]),
        "error: no kind `zzzz`; `flowc kinds` lists them\n"
    );
    assert_eq!(
        said(&["explain", "FL90"]),
        "error: no rule `FL90`; did you mean `FL900`? (`flowc rules` lists them)\n"
    );
    assert_eq!(
        said(&["explain", "FL9999"]),
        "error: no rule `FL9999`; `flowc rules` lists them\n"
    );
}

#[test]
fn shells_complete_every_command_and_flag() {
    let dir = project();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = flowc(dir.path())
            .args(["completions", shell])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = text(&out.stdout);
        for word in [
            "backfill",
            "scaffold",
            "output-format",
            "exit-zero",
            "argo-kind",
        ] {
            assert!(script.contains(word), "{shell} lacks {word}");
        }
    }
    let bad = flowc(dir.path())
        .args(["completions", "tcsh"])
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(2));
}

/// `docs/flowc.1` is what this binary's clap definition renders
/// (`FLOWC_BLESS=1 cargo test --test it cli_consistency::` rewrites it).
#[test]
fn the_manual_page_is_current() {
    let page = flowc::cli::man_page();
    for section in [
        ".SH \"FLOWC CHECK\"",
        ".SH \"FLOWC BUILD\"",
        "\\-\\-exit\\-zero",
    ] {
        assert!(page.contains(section), "{section}");
    }
    let path = common::repo_root().join("docs/flowc.1");
    if std::env::var_os("FLOWC_BLESS").is_some() {
        std::fs::write(&path, &page).expect("write docs/flowc.1");
    }
    let shipped = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        shipped == page,
        "docs/flowc.1 is stale: run `FLOWC_BLESS=1 cargo test --test it cli_consistency::`"
    );
}

#[test]
fn graph_of_several_pipelines_is_one_image_with_a_cluster_each() {
    let dir = project();
    std::fs::write(
        dir.path().join("two.flow"),
        "pipeline first {\n  task a {\n    run command [\"true\"]\n  }\n}\n\npipeline second {\n  task a {\n    run command [\"true\"]\n  }\n  task b {\n    after a\n    run command [\"true\"]\n  }\n}\n",
    )
    .expect("write");
    let dot = flowc(dir.path())
        .args(["graph", "two.flow", "ok.flow"])
        .output()
        .expect("runs");
    assert_eq!(dot.status.code(), Some(0), "{}", text(&dot.stderr));
    let dot = text(&dot.stdout);
    assert_eq!(dot.matches("digraph ").count(), 1, "{dot}");
    assert_eq!(dot.matches("  subgraph \"cluster_").count(), 3, "{dot}");
    for (i, name) in ["first", "second", "ok"].iter().enumerate() {
        assert!(
            dot.contains(&format!(
                "  subgraph \"cluster_{i}\" {{\n    label=\"pipeline {name}\";"
            )),
            "{dot}"
        );
    }
    // Task `a` of each pipeline is its own node, and one legend ends the graph.
    assert!(dot.contains("    \"p0/task:a\" [label=\"a\""), "{dot}");
    assert!(
        dot.contains("    \"p1/task:a\" -> \"p1/task:b\" [style=dashed];"),
        "{dot}"
    );
    assert_eq!(dot.matches("legend [").count(), 1);
    // Graphviz reads it as one graph, when it is installed.
    if let Ok(mut child) = std::process::Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), dot.as_bytes())
            .expect("write");
        let svg = child.wait_with_output().expect("dot ends");
        assert!(svg.status.success());
        assert_eq!(text(&svg.stdout).matches("<svg").count(), 1);
    }
    // One pipeline is drawn as before: a graph of its own, no cluster.
    let one = flowc(dir.path())
        .args(["graph", "--pipeline", "second", "two.flow"])
        .output()
        .expect("runs");
    let one = text(&one.stdout);
    assert!(one.starts_with("digraph \"second\" {"), "{one}");
    assert!(!one.contains("cluster_"), "{one}");
    // Mermaid: one flowchart, a subgraph per pipeline.
    let mermaid = flowc(dir.path())
        .args(["graph", "--format", "mermaid", "two.flow"])
        .output()
        .expect("runs");
    let mermaid = text(&mermaid.stdout);
    assert_eq!(mermaid.matches("flowchart LR").count(), 1, "{mermaid}");
    assert!(
        mermaid.contains("  subgraph p0[\"pipeline first\"]\n    p0t0(\"a\")\n  end\n"),
        "{mermaid}"
    );
    assert!(mermaid.contains("    p1t0 -.-> p1t1\n"), "{mermaid}");
}
