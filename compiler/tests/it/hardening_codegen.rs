//! Literal checks and generated bodies, through the real binary: what the
//! targets could not load is refused by `check` or `build`, and what they can
//! load reads back as written.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output};

use crate::common::flowc_in;
use serde_json::Value;

/// `flowc ARGS` run in `dir`, with `TZDIR` unset unless `env` sets it.
fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Stdout and stderr of a run, for assertions and failure messages.
fn said(out: &Output) -> String {
    format!("{}{}", text(&out.stdout), text(&out.stderr))
}

/// A temporary folder holding `files` (name, contents).
fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, contents) in files {
        let path = dir.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(path, contents).expect("write");
    }
    dir
}

/// `flowc check` of `spec` (as `p.flow`): exit code and everything printed.
fn check(spec: &str) -> (Option<i32>, String) {
    check_with(spec, &[])
}

fn check_with(spec: &str, env: &[(&str, &str)]) -> (Option<i32>, String) {
    let dir = workspace(&[("p.flow", spec)]);
    let out = flowc_in(dir.path())
        .args(["check", "p.flow"])
        .env_remove("TZDIR")
        .envs(env.iter().copied())
        .output()
        .expect("flowc runs");
    (out.status.code(), said(&out))
}

/// A one-task pipeline with `settings` at the pipeline level and `run` as
/// the task's run statement.
fn pipeline(name: &str, settings: &str, run: &str) -> String {
    format!("pipeline {name} {{\n{settings}\n  task load {{\n    {run}\n  }}\n}}\n")
}

fn assert_refused(spec: &str, code: &str, says: &str) {
    let (status, out) = check(spec);
    assert_eq!(status, Some(1), "refused:\n{spec}\n{out}");
    assert!(out.contains(code), "{code} expected:\n{spec}\n{out}");
    assert!(out.contains(says), "`{says}` expected:\n{spec}\n{out}");
}

fn assert_accepted(spec: &str) {
    let (status, out) = check(spec);
    assert_eq!(status, Some(0), "accepted:\n{spec}\n{out}");
}

fn build(dir: &Path, target: &str, paths: &[&str]) -> Output {
    let mut args = vec!["build", "--target", target, "--out", "out"];
    args.extend_from_slice(paths);
    flowc_in(dir)
        .args(&args)
        .env_remove("TZDIR")
        .output()
        .expect("flowc runs")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn python3_has(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

// ---------------------------------------------------------------- item 12

/// Characters a YAML 1.2 stream may not hold raw (U+FFFE, U+FFFF, C0 and C1
/// controls, DEL, a byte-order mark inside the text) and other
/// noncharacters, as `.flow` escapes and as the text they stand for.
const AWKWARD: &str =
    r"a\u{FFFE}b\u{FFFF}c\u{1}\u{7F}\u{85}\u{9F}\u{FEFF}\u{FDD0}\u{1FFFE}\u{10FFFF}\u{E000}z";

fn awkward_text() -> String {
    "a\u{FFFE}b\u{FFFF}c\u{1}\u{7F}\u{85}\u{9F}\u{FEFF}\u{FDD0}\u{1FFFE}\u{10FFFF}\u{E000}z".into()
}

fn awkward_spec() -> String {
    pipeline(
        "odd_chars",
        "",
        &format!(
            "run image \"img:{AWKWARD}\" command [\"prog\", \"{AWKWARD}\"]\n    env {{\n      ODD \"{AWKWARD}\"\n    }}"
        ),
    )
}

#[test]
fn argo_yaml_with_noncharacters_loads_and_reads_back() {
    let dir = workspace(&[("p.flow", &awkward_spec())]);
    let out = build(dir.path(), "argo", &["p.flow"]);
    assert!(out.status.success(), "{}", said(&out));
    let yaml = read(&dir.path().join("out/odd_chars.yaml"));
    for raw in [
        '\u{FFFE}', '\u{FFFF}', '\u{1}', '\u{7F}', '\u{85}', '\u{FEFF}',
    ] {
        assert!(!yaml.contains(raw), "U+{:04X} raw in:\n{yaml}", raw as u32);
    }
    let doc: Value = serde_norway::from_str(&yaml)
        .unwrap_or_else(|e| panic!("the generated YAML loads: {e}\n{yaml}"));
    let container = doc["spec"]["templates"]
        .as_array()
        .expect("templates")
        .iter()
        .find(|t| t.get("container").is_some())
        .expect("a container template")["container"]
        .clone();
    let want = awkward_text();
    assert_eq!(container["image"], Value::String(format!("img:{want}")));
    assert_eq!(container["command"][1], Value::String(want.clone()));
    let env = container["env"].as_array().expect("env");
    let odd = env.iter().find(|e| e["name"] == "ODD").expect("ODD");
    assert_eq!(odd["value"], Value::String(want));

    if python3_has("yaml") {
        // PyYAML is stricter than libyaml about what a stream may hold.
        let py = Command::new("python3")
            .args([
                "-c",
                "import sys, yaml, json; d = yaml.safe_load(open(sys.argv[1], encoding='utf-8')); \
                 c = [t for t in d['spec']['templates'] if 'container' in t][0]['container']; \
                 print(json.dumps(c['command'][1]))",
            ])
            .arg(dir.path().join("out/odd_chars.yaml"))
            .output()
            .expect("python3 runs");
        assert!(py.status.success(), "PyYAML loads it: {}", said(&py));
        let back: String = serde_json::from_str(text(&py.stdout).trim()).expect("json");
        assert_eq!(back, awkward_text());
    }
}

#[test]
fn airflow_dag_with_noncharacters_parses_and_reads_back() {
    let dir = workspace(&[("p.flow", &awkward_spec())]);
    let out = build(dir.path(), "airflow", &["p.flow"]);
    assert!(out.status.success(), "{}", said(&out));
    let dag = read(&dir.path().join("out/odd_chars.py"));
    for raw in [
        '\u{FFFE}', '\u{FFFF}', '\u{1}', '\u{7F}', '\u{85}', '\u{FEFF}',
    ] {
        assert!(!dag.contains(raw), "U+{:04X} raw in:\n{dag}", raw as u32);
    }
    if !python3_has("ast") {
        return;
    }
    // Every string literal of the DAG, as Python reads it.
    let py = Command::new("python3")
        .args([
            "-c",
            "import ast, sys, json; t = ast.parse(open(sys.argv[1], encoding='utf-8').read()); \
             print(json.dumps(sorted({n.value for n in ast.walk(t) if isinstance(n, ast.Constant) and isinstance(n.value, str)})))",
        ])
        .arg(dir.path().join("out/odd_chars.py"))
        .output()
        .expect("python3 runs");
    assert!(py.status.success(), "the DAG parses: {}", said(&py));
    let strings: Vec<String> = serde_json::from_str(text(&py.stdout).trim()).expect("json");
    let want = awkward_text();
    assert!(strings.contains(&want), "{strings:?}");
    assert!(strings.contains(&format!("img:{want}")), "{strings:?}");
}

// ---------------------------------------------------------------- item 13

#[test]
fn an_empty_image_or_program_is_fl002() {
    assert_refused(
        &pipeline("p", "", "run image \"\" command [\"job\"]"),
        "FL002",
        "image",
    );
    assert_refused(
        &pipeline("p", "  image \"\"", "run command [\"job\"]"),
        "FL002",
        "image",
    );
    assert_refused(
        &pipeline("p", "", "run command [\"\", \"x\"]"),
        "FL002",
        "program",
    );
    assert_refused(
        &pipeline("p", "", "run image \"  \" command [\"job\"]"),
        "FL002",
        "image",
    );
    // Empty later arguments are argv entries like any other.
    assert_accepted(&pipeline(
        "p",
        "  image \"ghcr.io/acme/job:1\"",
        "run command [\"job\", \"\", \"--flag\", \"\"]",
    ));
    assert_accepted(&pipeline(
        "p",
        "",
        "run image \"ghcr.io/acme/job:1\" command [\"job\"]",
    ));
    // An env name is an identifier: an empty one does not parse.
    let (status, out) = check(&pipeline(
        "p",
        "",
        "run command [\"job\"]\n    env {\n      \"\" \"x\"\n    }",
    ));
    assert_eq!(status, Some(1), "{out}");
    assert!(out.contains("FL001"), "{out}");
}

// ---------------------------------------------------------------- item 14

fn zoned(zone: &str) -> String {
    pipeline(
        "p",
        &format!("  schedule \"@daily\"\n  start 2026-01-01\n  timezone \"{zone}\""),
        "run command [\"job\"]",
    )
}

#[test]
fn time_zones_are_the_bundled_names_the_targets_know() {
    for bad in ["Etc/Unknown", "Factory", "Europe/Pari"] {
        assert_refused(&zoned(bad), "FL002", bad);
    }
    let (_, out) = check(&zoned("Europe/Pari"));
    assert!(out.contains("Europe/Paris"), "{out}");
    for good in [
        "UTC",
        "Europe/Berlin",
        "America/Argentina/Buenos_Aires",
        "Asia/Kolkata",
    ] {
        assert_accepted(&zoned(good));
    }
}

#[test]
fn time_zones_do_not_depend_on_tzdir() {
    let empty = tempfile::tempdir().expect("temp dir");
    // A zone file the bundled database does not have: a copy of a real
    // TZif file when there is one, else a made-up one.
    let fake = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(fake.path().join("Mars")).expect("mkdir");
    let tzif = ["/usr/share/zoneinfo/UTC", "/usr/share/zoneinfo/Etc/UTC"]
        .iter()
        .find_map(|p| std::fs::read(p).ok())
        .unwrap_or_else(|| b"TZif2".to_vec());
    std::fs::write(fake.path().join("Mars/Olympus"), &tzif).expect("write");
    std::fs::write(fake.path().join("UTC"), &tzif).expect("write");
    for dir in [empty.path(), fake.path()] {
        let tzdir = dir.to_str().expect("utf-8 path");
        for good in ["UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires"] {
            let (status, out) = check_with(&zoned(good), &[("TZDIR", tzdir)]);
            assert_eq!(status, Some(0), "{good} with TZDIR={tzdir}: {out}");
        }
        for bad in ["Mars/Olympus", "Etc/Unknown"] {
            let (status, out) = check_with(&zoned(bad), &[("TZDIR", tzdir)]);
            assert_eq!(status, Some(1), "{bad} with TZDIR={tzdir}: {out}");
            assert!(out.contains("FL002"), "{out}");
        }
    }
}

// ---------------------------------------------------------------- item 15

#[test]
fn a_dag_file_may_not_shadow_a_module_the_dags_import() {
    for name in ["datetime", "pendulum", "airflow", "json", "logging"] {
        let dir = workspace(&[("p.flow", &pipeline(name, "", "run command [\"job\"]"))]);
        let out = build(dir.path(), "airflow", &["p.flow"]);
        let all = said(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {all}");
        assert!(all.contains("FL803"), "{name}: {all}");
        assert!(all.contains(&format!("`{name}.py`")), "{name}: {all}");
        assert!(all.contains("rename the pipeline"), "{name}: {all}");
        assert!(!dir.path().join(format!("out/{name}.py")).exists());
    }
    // A near miss builds.
    let dir = workspace(&[(
        "p.flow",
        &pipeline("datetime_daily", "", "run command [\"job\"]"),
    )]);
    let out = build(dir.path(), "airflow", &["p.flow"]);
    assert!(out.status.success(), "{}", said(&out));
    assert!(dir.path().join("out/datetime_daily.py").exists());
}

// ---------------------------------------------------------------- item 18

/// A run statement both targets accept.
const RUN: &str = "run image \"ghcr.io/acme/job:1\" command [\"job\"]";

#[test]
fn pipeline_names_differing_in_case_are_fl803() {
    let two = format!(
        "{}{}",
        pipeline("Orders", "", RUN),
        pipeline("orders", "", RUN)
    );
    for target in flowc::codegen::target::TARGETS.iter().map(|t| t.name) {
        let dir = workspace(&[("p.flow", &two)]);
        let out = build(dir.path(), target, &["p.flow"]);
        let all = said(&out);
        assert_eq!(out.status.code(), Some(1), "{target}: {all}");
        assert!(all.contains("FL803"), "{target}: {all}");
        assert!(all.contains("`Orders`"), "{target}: {all}");
        assert!(!all.contains("FL801"), "{target}: {all}");
    }
    // Across two files of one run.
    for target in flowc::codegen::target::TARGETS.iter().map(|t| t.name) {
        let dir = workspace(&[
            ("a.flow", &pipeline("Orders", "", RUN)),
            ("b.flow", &pipeline("orders", "", RUN)),
        ]);
        let out = build(dir.path(), target, &["a.flow", "b.flow"]);
        let all = said(&out);
        assert_eq!(out.status.code(), Some(1), "{target}: {all}");
        assert!(all.contains("FL803"), "{target}: {all}");
        assert!(!all.contains("FL801"), "{target}: {all}");
    }
    // Different names build.
    for target in flowc::codegen::target::TARGETS.iter().map(|t| t.name) {
        let dir = workspace(&[
            ("a.flow", &pipeline("Orders", "", RUN)),
            ("b.flow", &pipeline("orders_eu", "", RUN)),
        ]);
        let out = build(dir.path(), target, &["a.flow", "b.flow"]);
        assert!(out.status.success(), "{target}: {}", said(&out));
    }
}

fn sinks(first: &str, second: &str) -> String {
    format!(
        "sink {first}: sqlite_table {{\n  table \"a\"\n  database \"/tmp/a.db\"\n  primary_key id\n  fields [id]\n}}\n\
         sink {second}: sqlite_table {{\n  table \"b\"\n  database \"/tmp/b.db\"\n  primary_key id\n  fields [id]\n}}\n\
         pipeline p {{\n  task one {{\n    key output.id\n    write {first} upsert\n    run command [\"python\", \"-m\", \"jobs.one\"]\n  }}\n\
         task two {{\n    key output.id\n    write {second} upsert\n    run command [\"python\", \"-m\", \"jobs.two\"]\n  }}\n}}\n"
    )
}

#[test]
fn endpoints_sharing_a_connection_variable_are_fl803() {
    let dir = workspace(&[("p.flow", &sinks("orders", "Orders"))]);
    let out = flowc_in(dir.path())
        .args(["scaffold", "--lang", "python", "--out", "out", "p.flow"])
        .env_remove("TZDIR")
        .output()
        .expect("flowc runs");
    let all = said(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("FL803"), "{all}");
    assert!(all.contains("FLOW_CONN_ORDERS"), "{all}");
    let dir = workspace(&[("p.flow", &sinks("orders", "orders_eu"))]);
    let out = flowc_in(dir.path())
        .args(["scaffold", "--lang", "python", "--out", "out", "p.flow"])
        .env_remove("TZDIR")
        .output()
        .expect("flowc runs");
    assert!(out.status.success(), "{}", said(&out));
}

// ---------------------------------------------------------------- item 21

fn scheduled(cron: &str) -> String {
    pipeline(
        "p",
        &format!("  schedule \"{cron}\"\n  start 2026-01-01"),
        "run command [\"job\"]",
    )
}

#[test]
fn schedules_that_never_fire_are_fl002() {
    assert_refused(&scheduled("0 0 30 2 *"), "FL002", "never");
    assert_refused(&scheduled("0 0 31 4 *"), "FL002", "never");
    assert_refused(&scheduled("0 0 31 2,4,6,9,11 *"), "FL002", "never");
    assert_refused(&scheduled("0 0 30-31 FEB *"), "FL002", "never");
    // Leap days fire, and a day of week is OR-ed with the day of month.
    assert_accepted(&scheduled("0 0 29 2 *"));
    assert_accepted(&scheduled("0 0 30 2 MON"));
    assert_accepted(&scheduled("0 0 31 * *"));
    assert_accepted(&scheduled("0 0 30,1 2 *"));
}

// ---------------------------------------------------------------- item 10

/// `n` tasks in a chain, each also `after` every earlier task.
fn dense(n: usize) -> String {
    let mut s = String::from("pipeline dense {\n  image \"ghcr.io/acme/job:1\"\n");
    for i in 0..n {
        let _ = writeln!(s, "  task t{i} {{");
        if i > 0 {
            let after: Vec<String> = (0..i).map(|j| format!("t{j}")).collect();
            let _ = writeln!(s, "    after {}", after.join(", "));
        }
        s.push_str("    run command [\"job\"]\n  }\n");
    }
    s.push_str("}\n");
    s
}

#[test]
fn redundant_dependency_edges_are_not_emitted() {
    let dir = workspace(&[("p.flow", &dense(40))]);
    let out = build(dir.path(), "airflow", &["p.flow"]);
    assert!(out.status.success(), "{}", said(&out));
    let dag = read(&dir.path().join("out/dense.py"));
    let edges: Vec<&str> = dag.lines().filter(|l| l.contains(" >> ")).collect();
    assert_eq!(edges.len(), 39, "{dag}");
    for (i, line) in edges.iter().enumerate() {
        assert_eq!(line.trim(), format!("t{i} >> t{}", i + 1));
    }
    let out = build(dir.path(), "argo", &["p.flow"]);
    assert!(out.status.success(), "{}", said(&out));
    let doc: Value =
        serde_norway::from_str(&read(&dir.path().join("out/dense.yaml"))).expect("yaml");
    let tasks = doc["spec"]["templates"][0]["dag"]["tasks"]
        .as_array()
        .expect("dag tasks");
    for t in tasks {
        let name = t["name"].as_str().expect("name");
        let i: usize = name[1..].parse().expect("index");
        if i == 0 {
            assert!(t.get("depends").is_none(), "{t}");
        } else {
            assert_eq!(t["depends"], Value::String(format!("t{}", i - 1)), "{t}");
        }
    }
    // A diamond keeps both of its sides.
    let diamond = "pipeline d {\n  task a {\n    run command [\"j\"]\n  }\n  task b {\n    after a\n    run command [\"j\"]\n  }\n  task c {\n    after a\n    run command [\"j\"]\n  }\n  task e {\n    after a, b, c\n    run command [\"j\"]\n  }\n}\n";
    let dir = workspace(&[("p.flow", diamond)]);
    let out = build(dir.path(), "airflow", &["p.flow"]);
    assert!(out.status.success(), "{}", said(&out));
    let dag = read(&dir.path().join("out/d.py"));
    assert!(dag.contains("\n    [b, c] >> e\n"), "{dag}");
    assert!(!dag.contains("[a, b, c] >> e"), "{dag}");
}
