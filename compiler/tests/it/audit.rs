//! `flowc audit` through the real binary: a deployment's systems planted
//! with known anomalies (database files written by `python3`, which the
//! audit itself runs), the verdict and exit code on them, each with a near
//! miss, and the refusals: bad dates, an unreachable system or a missing
//! table (exit 2), broken files, an unknown pipeline, no Python.
//! `tests/python/test_audit.py` runs the same fixture's tasks for real, on
//! both database kinds.

use std::path::Path;
use std::process::Command as Std;

use assert_cmd::Command;
use serde_json::Value;

use crate::common::repo_root;

const FLOW: &str = "tests/audit/orders_week.flow";

fn flowc() -> Command {
    let mut c = Command::cargo_bin("flowc").expect("binary builds");
    c.current_dir(repo_root());
    c.env_remove("FLOWC_STATE");
    c
}

/// Exit code, stdout, stderr.
fn run(c: &mut Command) -> (i32, String, String) {
    let out = c.output().expect("flowc runs");
    (
        out.status.code().expect("an exit code"),
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

/// Run `script` (Python, with `sqlite3` imported and `d` the folder) to plant a deployment.
fn plant(dir: &Path, script: &str) {
    let code = format!("import sqlite3, sys\nd = sys.argv[1]\n{script}\n");
    let status = Std::new("python3")
        .args(["-c", &code, &dir.display().to_string()])
        .status()
        .expect("python3 runs");
    assert!(status.success(), "planting failed");
}

const REGISTER: &str = r#"
s = sqlite3.connect(d + "/state.sqlite")
s.execute("CREATE TABLE flowc_attempts (pipeline TEXT NOT NULL, task TEXT NOT NULL, interval_start TEXT NOT NULL, token BIGINT NOT NULL, run_id TEXT NOT NULL, attempt BIGINT NOT NULL, host TEXT NOT NULL, pid BIGINT NOT NULL, started_at TEXT NOT NULL, committing_at TEXT, finished_at TEXT, outcome TEXT, PRIMARY KEY (pipeline, task, interval_start, token))")
def attempt(task, day, token, outcome):
    s.execute("INSERT INTO flowc_attempts VALUES ('orders_week', ?, ?, ?, 'r', 1, 'h', 1, 'x', 'x', 'x', ?)", (task, "2026-03-0%dT00:00:00Z" % day, token, outcome))
w = sqlite3.connect(d + "/warehouse.sqlite")
w.execute("CREATE TABLE orders (id TEXT PRIMARY KEY, amount BIGINT, _flow_interval_end TEXT)")
w.execute("CREATE TABLE order_log (id TEXT, amount BIGINT)")
w.execute("CREATE TABLE flowc_outbox (id TEXT PRIMARY KEY, pipeline TEXT NOT NULL, task TEXT NOT NULL, effect TEXT NOT NULL, interval_start TEXT NOT NULL, idempotency_key TEXT, payload TEXT NOT NULL, sent INTEGER NOT NULL DEFAULT 0, seq INTEGER)")
"#;

/// Three days: `load` ran every day (03-03 twice), `log` skipped 03-02 and
/// holds one id twice.
const ANOMALIES: &str = r#"
for day in (1, 2, 3):
    attempt("load", day, 1, "ok")
attempt("load", 3, 2, "ok")
attempt("log", 1, 1, "ok")
attempt("log", 2, 1, "nothing_committed")
attempt("log", 3, 1, "ok")
w.executemany("INSERT INTO order_log VALUES (?, ?)", [("a", 1), ("b", 2), ("a", 1)])
s.commit(); w.commit()
"#;

/// The near miss: every day once, every id once.
const CLEAN: &str = r#"
for day in (1, 2, 3):
    attempt("load", day, 1, "ok")
    attempt("log", day, 1, "ok")
w.executemany("INSERT INTO order_log VALUES (?, ?)", [("a", 1), ("b", 2)])
s.commit(); w.commit()
"#;

fn audit(dir: &Path, extra: &[&str]) -> Command {
    let mut c = flowc();
    let warehouse = format!("sqlite://{}/warehouse.sqlite", dir.display());
    c.args([
        "audit",
        "--since",
        "2026-03-01",
        "--until",
        "2026-03-03",
        "--at",
        "2026-03-05T00:00:00Z",
        "--state",
        &format!("sqlite://{}/state.sqlite", dir.display()),
        "--conn",
        &format!("orders={warehouse}"),
        "--conn",
        &format!("order_log={warehouse}"),
        "--conn",
        &format!("orders_in=file://{}/files", dir.display()),
    ]);
    c.args(extra);
    c.arg(FLOW);
    c
}

fn json(dir: &Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    let (code, out, err) = run(&mut audit(dir, &args));
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, v)
}

fn findings(v: &Value) -> Vec<(String, String, String, String, u64)> {
    let mut out: Vec<_> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["check"].as_str().unwrap_or("").to_owned(),
                f["task"].as_str().unwrap_or("").to_owned(),
                f["output"].as_str().unwrap_or("").to_owned(),
                f["severity"].as_str().unwrap_or("").to_owned(),
                f["count"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    out.sort();
    out
}

fn strs(items: &[(&str, &str, &str, &str, u64)]) -> Vec<(String, String, String, String, u64)> {
    let mut v: Vec<_> = items
        .iter()
        .map(|(a, b, c, d, n)| ((*a).into(), (*b).into(), (*c).into(), (*d).into(), *n))
        .collect();
    v.sort();
    v
}

#[test]
fn planted_anomalies_are_judged_by_each_outputs_guarantee() {
    let dir = tempfile::tempdir().expect("tempdir");
    plant(dir.path(), &format!("{REGISTER}{ANOMALIES}"));
    let (code, v) = json(dir.path(), &[]);
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(v["verdict"], "broken");
    assert_eq!(
        findings(&v),
        strs(&[
            ("interval-repeated", "load", "orders", "note", 1),
            ("interval-repeated", "load", "notify", "note", 1),
            ("interval-missing", "log", "order_log", "error", 1),
            ("duplicate-key", "log", "order_log", "note", 1),
        ])
    );
    let missing = v["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["check"] == "interval-missing"))
        .expect("a missing interval");
    assert_eq!(
        missing["examples"][0]["interval_start"],
        "2026-03-02T00:00:00Z"
    );
    assert_eq!(
        missing["examples"][0]["state"],
        "1 attempt(s), none succeeded"
    );
    assert_eq!(v["summary"]["errors"], 1);
    assert_eq!(v["version"], 1);

    // one task only: `log`'s findings, none of `load`'s
    let (code, only) = json(dir.path(), &["--task", "log"]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&only),
        strs(&[
            ("interval-missing", "log", "order_log", "error", 1),
            ("duplicate-key", "log", "order_log", "note", 1),
        ])
    );

    // the near miss: the same deployment without the anomalies
    let clean = tempfile::tempdir().expect("tempdir");
    plant(clean.path(), &format!("{REGISTER}{CLEAN}"));
    let (code, v) = json(clean.path(), &[]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["verdict"], "within_guarantee");
    assert_eq!(findings(&v), Vec::new());
    assert!(v["summary"]["checks_run"].as_u64().unwrap_or(0) >= 5);
}

#[test]
fn the_human_report_names_each_output_and_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    plant(dir.path(), &format!("{REGISTER}{ANOMALIES}"));
    let (code, out, _) = run(&mut audit(dir.path(), &[]));
    assert_eq!(code, 1);
    insta::assert_snapshot!("audit_human", out);
}

#[test]
fn sarif_has_a_rule_per_check_and_a_result_per_finding() {
    let dir = tempfile::tempdir().expect("tempdir");
    plant(dir.path(), &format!("{REGISTER}{ANOMALIES}"));
    let (code, out, _) = run(&mut audit(dir.path(), &["--format", "sarif"]));
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).expect("SARIF is JSON");
    assert_eq!(v["version"], "2.1.0");
    let run0 = &v["runs"][0];
    assert_eq!(
        run0["tool"]["driver"]["rules"].as_array().map(Vec::len),
        Some(flowc::audit::Check::ALL.len())
    );
    assert_eq!(flowc::audit::Check::ALL.len(), 15);
    let results = run0["results"].as_array().expect("results");
    assert_eq!(results.len(), 4);
    let levels: Vec<&str> = results.iter().filter_map(|r| r["level"].as_str()).collect();
    assert_eq!(levels.iter().filter(|l| **l == "error").count(), 1);
    assert!(results.iter().all(
        |r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            == "tests/audit/orders_week.flow"
    ));
    // each result points at the output's declaration: `write order_log append` is on line 45
    let missing = results
        .iter()
        .find(|r| r["ruleId"] == "interval-missing")
        .expect("interval-missing");
    assert_eq!(
        missing["locations"][0]["physicalLocation"]["region"]["startLine"],
        45
    );
    assert_eq!(run0["invocations"][0]["executionSuccessful"], true);
}

#[test]
fn an_outbox_row_unsent_past_the_grace_period_breaks_effectively_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let unsent = r#"
w.execute("INSERT INTO flowc_outbox VALUES ('x', 'orders_week', 'load', 'notify', '2026-03-02T00:00:00Z', 'x', '{}', 0, 1)")
w.execute("INSERT INTO flowc_outbox VALUES ('y', 'orders_week', 'load', 'notify', '2026-03-03T00:00:00Z', 'y', '{\"n\": 2}', 1, 2)")
w.commit()
"#;
    plant(dir.path(), &format!("{REGISTER}{CLEAN}{unsent}"));
    let (code, v) = json(dir.path(), &[]);
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(
        findings(&v),
        strs(&[("outbox-unsent", "load", "notify", "error", 1)])
    );
    // near miss: inside a grace period long enough, the row is not late yet
    let (code, v) = json(dir.path(), &["--grace", "200000"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(findings(&v), Vec::new());
}

#[test]
fn a_missing_table_is_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    plant(
        dir.path(),
        &format!("{REGISTER}{CLEAN}\nw.execute('DROP TABLE order_log')\nw.commit()"),
    );
    let (code, v) = json(dir.path(), &[]);
    assert_eq!(code, 2, "{v:#}");
    assert_eq!(v["verdict"], "could_not_run");
    let messages = v["could_not_run"].to_string();
    assert!(
        messages.contains("`order_log`") && messages.contains("does not exist"),
        "{messages}"
    );
    // a state store without an attempt register: no task ran there, or it is the wrong one
    let empty = tempfile::tempdir().expect("tempdir");
    plant(empty.path(), "sqlite3.connect(d + '/state.sqlite').close()\nsqlite3.connect(d + '/warehouse.sqlite').close()");
    let (code, v) = json(empty.path(), &[]);
    assert_eq!(code, 2);
    assert!(v["could_not_run"]
        .to_string()
        .contains("no attempt register"));
    // a database file that does not exist is never created by the audit
    let none = tempfile::tempdir().expect("tempdir");
    let (code, v) = json(none.path(), &[]);
    assert_eq!(code, 2);
    assert!(v["could_not_run"].to_string().contains("does not exist"));
    assert!(!none.path().join("state.sqlite").exists());
}

#[test]
fn an_unreachable_system_is_exit_2_without_its_credentials() {
    let dir = tempfile::tempdir().expect("tempdir");
    plant(dir.path(), &format!("{REGISTER}{CLEAN}"));
    let (code, out, err) = run(&mut audit(
        dir.path(),
        &[
            "--conn",
            "orders=postgresql://auditor:hunter2@127.0.0.1:9/shop",
        ],
    ));
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("could not audit"), "{out}");
    assert!(
        !out.contains("hunter2") && !err.contains("hunter2"),
        "{out}{err}"
    );
}

#[test]
fn bad_arguments_are_exit_2() {
    for (args, words) in [
        (vec!["--since", "2026-3-1"], "is not a date"),
        (vec!["--since", "2026-02-30"], "is not a date"),
        (vec!["--at", "yesterday"], "is not a time"),
        (vec!["--conn", "orders"], "NAME=URL"),
        (vec!["--pipeline", "nope"], "no pipeline `nope`"),
        (vec!["--task", "nope"], "no task `nope`"),
        (
            vec!["--since", "2026-03-09", "--until", "2026-03-03"],
            "is after",
        ),
    ] {
        let (code, out, err) = run(flowc().arg("audit").args(&args).arg(FLOW));
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(words), "{args:?}: {err}");
    }
}

#[test]
fn no_python_or_broken_files_are_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, _, err) = run(audit(dir.path(), &[]).env("FLOWC_PYTHON", "/nonexistent/python"));
    assert_eq!(code, 2);
    assert!(err.contains("FLOWC_PYTHON"), "{err}");
    let broken = dir.path().join("broken.flow");
    std::fs::write(
        &broken,
        "pipeline p {\n  schedule \"@daily\"\n  task t { write nowhere upsert }\n}\n",
    )
    .expect("write");
    let (code, _, err) = run(flowc().args(["audit"]).arg(&broken));
    assert_eq!(code, 2);
    assert!(err.contains("before auditing"), "{err}");
}

#[test]
fn a_manual_pipeline_expects_no_interval() {
    let (code, out, err) = run(flowc().args([
        "audit",
        "--format",
        "json",
        "--state",
        "sqlite:///nonexistent/state.sqlite",
        "--pipeline",
        "pg_manual",
        "tests/fault/postgres_manual.flow",
    ]));
    // the state store does not exist: exit 2, but the manual pipeline expected no interval
    assert_eq!(code, 2, "{out}{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["pipelines"][0]["intervals"], 0);
    assert_eq!(v["pipelines"][0]["since"], Value::Null);
}

/// An attempt register where interval 03-01 ran again after 03-02 committed
/// (`late`), or before it did (the near miss).
fn late_commit(late: bool) -> (i32, Value) {
    let dir = tempfile::tempdir().expect("tempdir");
    let rerun_at = if late {
        "2026-03-03T09:00:00.000000Z"
    } else {
        "2026-03-02T01:00:00.000000Z"
    };
    plant(
        dir.path(),
        &format!(
            r#"
s = sqlite3.connect(d + "/state.sqlite")
s.execute("CREATE TABLE flowc_attempts (pipeline TEXT NOT NULL, task TEXT NOT NULL, interval_start TEXT NOT NULL, token BIGINT NOT NULL, run_id TEXT NOT NULL, attempt BIGINT NOT NULL, host TEXT NOT NULL, pid BIGINT NOT NULL, started_at TEXT NOT NULL, committing_at TEXT, finished_at TEXT, outcome TEXT, PRIMARY KEY (pipeline, task, interval_start, token))")
for start, token, done in [("2026-03-01", 1, "2026-03-02T00:05:00.000000Z"), ("2026-03-02", 1, "2026-03-03T00:05:00.000000Z"), ("2026-03-01", 2, "{rerun_at}")]:
    s.execute("INSERT INTO flowc_attempts VALUES ('latest_daily', 'refresh', ?, ?, 'r', 1, 'h', 1, 'x', 'x', ?, 'ok')", (start + "T00:00:00Z", token, done))
s.commit()
w = sqlite3.connect(d + "/w.sqlite")
w.execute("CREATE TABLE by_day (id TEXT, amount BIGINT, day TEXT)")
w.commit()
"#
        ),
    );
    let (code, out, err) = run(flowc().args([
        "audit",
        "--format",
        "json",
        "--since",
        "2026-03-01",
        "--until",
        "2026-03-02",
        "--state",
        &format!("sqlite://{}/state.sqlite", dir.path().display()),
        "--conn",
        &format!("latest=sqlite://{}/w.sqlite", dir.path().display()),
        "tests/audit/latest.flow",
    ]));
    (
        code,
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}")),
    )
}

#[test]
fn an_older_interval_committed_late_is_found_where_it_can_regress() {
    let (code, v) = late_commit(true);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        findings(&v),
        strs(&[
            ("interval-repeated", "refresh", "latest", "note", 1),
            ("late-commit", "refresh", "latest", "note", 1),
        ])
    );
    let late = v["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["check"] == "late-commit"))
        .expect("late-commit");
    assert_eq!(
        late["why"],
        "`at_most_once` allows an older interval's write to replace a newer one's rows"
    );
    assert_eq!(
        late["examples"][0]["newer_interval"],
        "2026-03-02T00:00:00Z"
    );
    // the near miss: the re-run of 03-01 finished before 03-02 committed
    let (code, v) = late_commit(false);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        findings(&v),
        strs(&[("interval-repeated", "refresh", "latest", "note", 1)])
    );
}

/// `upsert_run` of the fault matrix's `sq_modes`: keyed `(input.id, run =
/// run.id)`, so a re-run writes its records again under a new `run`.
fn run_scoped(rows: &str) -> (i32, Value) {
    let dir = tempfile::tempdir().expect("tempdir");
    plant(
        dir.path(),
        &format!(
            r#"
s = sqlite3.connect(d + "/state.sqlite")
s.execute("CREATE TABLE flowc_attempts (pipeline TEXT NOT NULL, task TEXT NOT NULL, interval_start TEXT NOT NULL, token BIGINT NOT NULL, run_id TEXT NOT NULL, attempt BIGINT NOT NULL, host TEXT NOT NULL, pid BIGINT NOT NULL, started_at TEXT NOT NULL, committing_at TEXT, finished_at TEXT, outcome TEXT, PRIMARY KEY (pipeline, task, interval_start, token))")
s.execute("INSERT INTO flowc_attempts VALUES ('sq_modes', 'upsert_run', '2026-01-01T00:00:00Z', 1, 'r', 1, 'h', 1, 'x', 'x', 'x', 'ok')")
s.commit()
w = sqlite3.connect(d + "/w.sqlite")
w.execute("CREATE TABLE orders_run (id TEXT, rec TEXT, amount BIGINT, run TEXT, _flow_interval_end TEXT, PRIMARY KEY (id, run))")
w.executemany("INSERT INTO orders_run VALUES (?, ?, 1, ?, 'x')", {rows})
w.commit()
"#
        ),
    );
    let (code, out, err) = run(flowc().args([
        "audit",
        "--format",
        "json",
        "--since",
        "2026-01-01",
        "--until",
        "2026-01-01",
        "--at",
        "2026-01-03T00:00:00Z",
        "--task",
        "upsert_run",
        "--state",
        &format!("sqlite://{}/state.sqlite", dir.path().display()),
        "--conn",
        &format!("sq_orders_run=sqlite://{}/w.sqlite", dir.path().display()),
        "--conn",
        &format!("sq_orders_in=file://{}/files", dir.path().display()),
        "tests/fault/sqlite_modes.flow",
    ]));
    (
        code,
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}")),
    )
}

#[test]
fn a_run_scoped_key_column_is_left_out_of_the_comparison() {
    let (code, v) =
        run_scoped(r#"[("a", "a", "run-1"), ("a", "a", "run-2"), ("b", "b", "run-1")]"#);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        findings(&v),
        strs(&[("duplicate-key", "upsert_run", "sq_orders_run", "note", 1)])
    );
    let message = v["findings"][0]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("key (_flow_interval_end, id); compared without `run`"),
        "{message}"
    );
    // the near miss: one run per id
    let (code, v) = run_scoped(r#"[("a", "a", "run-1"), ("b", "b", "run-1")]"#);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(findings(&v), Vec::new());
}
