//! The same input gives the same bytes, run after run: every file `flowc build`
//! (both targets) and `flowc scaffold` write, and everything `check`, `report`
//! and `graph` print, for every example.
//!
//! Each run is a separate process of the real binary, and that is what makes
//! this a test of hash seeds too: Rust's std `HashMap` and `HashSet` hash with
//! `RandomState`, whose keys are drawn from the operating system once per
//! process, so two processes iterate the same map in different orders. Were
//! such an order to reach the output, runs would differ. Every command runs
//! [`RUNS`] times, so a leak through a map of two entries goes unseen with
//! odds of 1 in 2^(RUNS-1), and every example and command is another chance.
//!
//! What the sources do today (checked by reading them, as this test cannot):
//! `HashMap`/`HashSet` appear only in `analyze/resolve/` (per-file scopes)
//! and `codegen/airflow.rs` (seen file names, task variables by name), all
//! used for lookups and never iterated; every order that reaches output comes
//! from a `Vec`, a `BTreeMap`/`BTreeSet` or petgraph's index order.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Runs of each command; the first is the reference for the others.
const RUNS: usize = 3;

/// What one run left behind: its exit status, what it printed, and every file
/// under `--out` (relative path to bytes).
#[derive(PartialEq, Eq)]
struct Run {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    files: BTreeMap<String, Vec<u8>>,
}

fn files_under(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("folder entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).expect("under root");
                let bytes = std::fs::read(&path).expect("readable output file");
                files.insert(rel.to_string_lossy().into_owned(), bytes);
            }
        }
    }
    files
}

/// Run flowc with `args`, where `{out}` stands for a fresh output folder. The
/// folder has the same path every run (the previous one is moved aside first),
/// so even the "wrote N files to DIR" line must match.
fn run(args: &[&str], scratch: &Path, index: usize) -> Run {
    let out = scratch.join("out");
    if out.exists() {
        std::fs::rename(&out, scratch.join(format!("run{index}")))
            .expect("move the last output aside");
    }
    let out_arg = out.to_string_lossy().into_owned();
    let args: Vec<&str> = args
        .iter()
        .map(|a| if *a == "{out}" { out_arg.as_str() } else { a })
        .collect();
    let output = Command::new(env!("CARGO_BIN_EXE_flowc"))
        .args(&args)
        .current_dir(common::repo_root())
        .env("NO_COLOR", "1")
        .output()
        .expect("flowc runs");
    Run {
        status: output.status.code(),
        stdout: output.stdout,
        stderr: output.stderr,
        files: files_under(&out),
    }
}

/// Where two runs differ, in words.
fn difference(a: &Run, b: &Run) -> String {
    let first_line = |x: &[u8], y: &[u8]| {
        let (x, y) = (String::from_utf8_lossy(x), String::from_utf8_lossy(y));
        x.lines()
            .zip(y.lines())
            .enumerate()
            .find(|(_, (l, r))| l != r)
            .map_or_else(
                || "the same lines, different lengths".to_owned(),
                |(n, (l, r))| format!("line {}: {l:?} then {r:?}", n + 1),
            )
    };
    if a.status != b.status {
        return format!("exit status {:?} then {:?}", a.status, b.status);
    }
    if a.stdout != b.stdout {
        return format!("stdout, {}", first_line(&a.stdout, &b.stdout));
    }
    if a.stderr != b.stderr {
        return format!("stderr, {}", first_line(&a.stderr, &b.stderr));
    }
    let names = |r: &Run| r.files.keys().cloned().collect::<Vec<_>>();
    if names(a) != names(b) {
        return format!("files {:?} then {:?}", names(a), names(b));
    }
    for (name, bytes) in &a.files {
        if &b.files[name] != bytes {
            return format!("{name}, {}", first_line(bytes, &b.files[name]));
        }
    }
    "nothing".to_owned()
}

/// Run every command [`RUNS`] times on `path`; returns the reference runs.
fn same_every_run(path: &str, commands: &[Vec<&str>]) -> Vec<Run> {
    let mut reference_runs = Vec::new();
    for command in commands {
        let scratch = tempfile::tempdir().expect("temp dir");
        let mut args = command.clone();
        args.push(path);
        let reference = run(&args, scratch.path(), 0);
        for index in 1..RUNS {
            let again = run(&args, scratch.path(), index);
            assert!(
                again == reference,
                "`flowc {}` differs between two runs: {}",
                args.join(" "),
                difference(&reference, &again)
            );
        }
        reference_runs.push(reference);
    }
    reference_runs
}

/// A build for every target of the registry, Argo's other kind, and the
/// scaffold, last.
fn writers() -> Vec<Vec<&'static str>> {
    let mut writers: Vec<Vec<&'static str>> = flowc::codegen::target::TARGETS
        .iter()
        .map(|t| vec!["build", "--target", t.name, "--out", "{out}"])
        .collect();
    writers.push(vec![
        "build",
        "--target",
        "argo",
        "--argo-kind",
        "template",
        "--out",
        "{out}",
    ]);
    writers.push(vec!["scaffold", "--lang", "python", "--out", "{out}"]);
    writers
}

fn printers() -> Vec<Vec<&'static str>> {
    vec![
        vec!["check"],
        vec!["check", "--format", "json"],
        vec!["check", "--format", "sarif"],
        vec!["report"],
        vec!["report", "--format", "json"],
    ]
}

#[test]
fn every_example_builds_and_prints_the_same_bytes_every_run() {
    let examples: Vec<String> = common::flow_files("examples")
        .into_iter()
        .filter(|p| !p.starts_with("examples/common/"))
        .collect();
    assert!(examples.len() >= 5, "examples: {examples:?}");
    let mut commands = writers();
    let scaffold = commands.len() - 1;
    commands.extend(printers());
    commands.push(vec!["graph"]);
    commands.push(vec!["graph", "--format", "mermaid"]);
    let mut scaffolded = 0;
    for example in &examples {
        let runs = same_every_run(example, &commands);
        // The test compares something: every target writes every example.
        for (command, run) in commands.iter().zip(&runs).take(scaffold) {
            assert_eq!(
                run.status,
                Some(0),
                "`flowc {}` {example}",
                command.join(" ")
            );
            assert!(
                !run.files.is_empty(),
                "`flowc {}` {example} wrote nothing",
                command.join(" ")
            );
        }
        scaffolded += runs[scaffold].files.len();
        for run in &runs[scaffold + 1..] {
            assert!(!run.stdout.is_empty());
        }
    }
    assert!(scaffolded > 0, "scaffold wrote nothing for any example");
}

#[test]
fn whole_folders_build_the_same_bytes_every_run() {
    let mut commands = writers();
    commands.extend(printers());
    for runs in [
        same_every_run("examples", &commands),
        same_every_run("tests/fault", &[writers().pop().expect("the scaffold")]),
    ] {
        assert!(runs.iter().any(|r| !r.files.is_empty()));
    }
}
