//! The generated files for the person who debugs them (issue 36 item 9):
//! Airflow tasks carry `doc_md` (where the task is declared, what it writes
//! with which guarantee and anomalies, why it retries or not), edges read
//! `a >> b`, no empty `env={}`, and a comment says why a task does not
//! retry an ambiguous failure; Argo templates carry the same as annotations
//! and comment their retry expression and mutexes. Through the real binary.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

const FLOW: &str = r##"source lake_orders: files {
  path      "s3://acme-lake/raw/orders/{interval.start}/"
  immutable
  pin       listing
  identity  order_id
  fields    [order_id, amount_cents, updated_at]
}

sink wh_orders: postgres_table {
  table        "core.orders"
  primary_key  order_id
  fields       [order_id, amount_cents, updated_at]
}

sink wh_order_copy: postgres_table {
  table        "backup.orders"
  primary_key  order_id
  fields       [order_id, amount_cents, updated_at]
}

sink wh_totals: postgres_table {
  table        "marts.totals"
  primary_key  day
  fields       [day, total_cents]
}

effect finance_channel: slack_message {
  channel "#finance-daily"
}

pipeline nightly {
  schedule  "@daily"
  start     2026-01-01
  retries   2
  timeout   1h
  image     "ghcr.io/acme/nightly:1.0"

  task load_a {
    read   lake_orders
    key    input.order_id
    write  wh_orders upsert
    run    command ["python", "-m", "nightly.a"]
  }

  task load_b {
    read   lake_orders
    key    input.order_id
    write  wh_order_copy upsert
    run    command ["python", "-m", "nightly.b"]
  }

  task totals {
    after  load_a, load_b
    read   wh_orders pinned snapshot
    write  wh_totals replace partition day = interval.start
    emit   finance_channel via outbox require at_least_once
    env {
      FEATURE "on"
    }
    run    command ["python", "-m", "nightly.totals"]
  }
}
"##;

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
        .expect("the fixture holds the line")
}

fn build(dir: &Path, target: &str) -> String {
    let out = dir.join(target);
    let run = Command::cargo_bin("flowc")
        .expect("the flowc binary")
        .current_dir(dir)
        .args(["build", "--target", target, "--out"])
        .arg(&out)
        .arg("nightly.flow")
        .output()
        .expect("flowc runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let file = if target == "airflow" {
        "nightly.py"
    } else {
        "nightly.yaml"
    };
    std::fs::read_to_string(out.join(file)).expect("the generated file")
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("nightly.flow"), FLOW).expect("write the fixture");
    dir
}

/// Each task's `doc_md`, read back with Python's `ast`.
fn doc_mds(dag: &str) -> serde_json::Value {
    let script = r#"
import ast, json, sys
docs = {}
for node in ast.walk(ast.parse(sys.stdin.read())):
    if isinstance(node, ast.Call):
        kw = {k.arg: k.value for k in node.keywords}
        if "task_id" in kw and "doc_md" in kw:
            docs[ast.literal_eval(kw["task_id"])] = ast.literal_eval(kw["doc_md"])
print(json.dumps(docs))
"#;
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), dag.as_bytes())
        .expect("write the DAG");
    let out = child.wait_with_output().expect("python3 ends");
    assert!(out.status.success(), "the DAG parses as Python");
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn airflow_tasks_say_where_they_come_from_and_what_they_guarantee() {
    let dir = fixture();
    let dag = build(dir.path(), "airflow");
    let docs = doc_mds(&dag);

    let totals = docs["totals"].as_str().expect("totals has doc_md");
    let line = line_of(FLOW, "task totals");
    assert!(
        totals.contains(&format!("declared at `nightly.flow:{line}`")),
        "{totals}"
    );
    assert!(
        totals.contains("- write `wh_totals` (replace partition): **effectively_once**"),
        "{totals}"
    );
    assert!(
        totals.contains("- emit `finance_channel` (via outbox): **at_least_once**"),
        "{totals}"
    );
    // The anomaly the analysis names for the at_least_once emit.
    assert!(totals.contains("  - duplicate: "), "{totals}");
    assert!(totals.contains("is not retried ("), "{totals}");
    let load = docs["load_a"].as_str().expect("load_a has doc_md");
    assert!(
        load.contains(&format!("`nightly.flow:{}`", line_of(FLOW, "task load_a"))),
        "{load}"
    );
    assert!(load.contains("Up to 3 attempts;"), "{load}");
    assert!(load.contains("is retried ("), "{load}");

    // Why `totals` does not retry an ambiguous failure, right above the setting.
    let lines: Vec<&str> = dag.lines().collect();
    let fail = lines
        .iter()
        .position(|l| l.trim() == "on_ambiguous=\"fail\",")
        .expect("totals fails on an ambiguous failure");
    assert_eq!(
        lines[fail - 1].trim(),
        "# on_ambiguous \"fail\": `emit finance_channel` is at_least_once: a retry after an ambiguous failure could repeat it"
    );
    assert_eq!(dag.matches("on_ambiguous=\"fail\"").count(), 1, "{dag}");
    assert_eq!(dag.matches("# on_ambiguous").count(), 1, "{dag}");

    // Edges as one writes them; env only where the task has one.
    assert!(dag.contains("\n    [load_a, load_b] >> totals\n"), "{dag}");
    assert!(!dag.contains("set_upstream"), "{dag}");
    assert!(!dag.contains("env={}"), "{dag}");
    assert_eq!(dag.matches("env={\"FEATURE\": \"on\"}").count(), 1, "{dag}");
}

#[test]
fn a_large_airflow_dag_keeps_its_fast_edges() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut flow = String::from("pipeline wide {\n");
    for i in 0..201 {
        let _ = writeln!(flow, "  task t{i} {{");
        if i > 0 {
            let _ = writeln!(flow, "    after t{}", i - 1);
        }
        flow.push_str("    run command [\"true\"]\n  }\n");
    }
    flow.push_str("}\n");
    std::fs::write(dir.path().join("wide.flow"), &flow).expect("write");
    let out = dir.path().join("out");
    let run = Command::cargo_bin("flowc")
        .expect("the flowc binary")
        .current_dir(dir.path())
        .args(["build", "--target", "airflow", "--out"])
        .arg(&out)
        .arg("wide.flow")
        .output()
        .expect("flowc runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let dag = std::fs::read_to_string(out.join("wide.py")).expect("the DAG");
    assert!(
        dag.contains("\n    flowc.set_upstream(t1, [t0])\n"),
        "{dag}"
    );
    assert!(!dag.contains(" >> "), "the edges of 201 tasks stay fast");
}

#[test]
fn argo_templates_say_where_they_come_from_and_comment_the_retry_protocol() {
    let dir = fixture();
    let yaml = build(dir.path(), "argo");
    let doc: serde_norway::Value = serde_norway::from_str(&yaml).expect("the YAML parses");
    let templates = doc["spec"]["workflowSpec"]["templates"]
        .as_sequence()
        .expect("templates");
    let template = |name: &str| {
        templates
            .iter()
            .find(|t| t["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("template {name}"))
    };
    let totals = &template("task-totals")["metadata"]["annotations"];
    assert_eq!(
        totals["flowc.dev/source"].as_str(),
        Some(format!("nightly.flow:{}", line_of(FLOW, "task totals")).as_str())
    );
    assert_eq!(
        totals["flowc.dev/guarantee"].as_str(),
        Some("at_least_once")
    );
    assert_eq!(
        totals["flowc.dev/outputs"].as_str(),
        Some("write wh_totals (replace partition): effectively_once; emit finance_channel (via outbox): at_least_once")
    );
    let load = &template("task-load-a")["metadata"]["annotations"];
    assert_eq!(
        load["flowc.dev/guarantee"].as_str(),
        Some("effectively_once")
    );

    // The comments: before each expression, what the codes mean and why this
    // task retries what it retries; each mutex names its sinks.
    let before = |needle: &str| {
        let at = yaml.find(needle).expect("the expression");
        yaml[..at]
            .lines()
            .rev()
            .nth(1)
            .unwrap_or_default()
            .trim()
            .to_owned()
    };
    assert!(
        before("expression: \"asInt(lastRetry.exitCode) == 75\"").starts_with(
            "# Only 75 is retried here, under on_ambiguous \"fail\": `emit finance_channel` is at_least_once"
        ),
        "{yaml}"
    );
    assert!(
        before("expression: \"asInt(lastRetry.exitCode) != 65\"")
            .starts_with("# Every code but 65 is retried here: every output is effectively_once"),
        "{yaml}"
    );
    assert_eq!(
        yaml.matches("# The task runtime's exit codes: 0 done; 75 failed and committed nothing;")
            .count(),
        3
    );
    assert_eq!(
        yaml.matches("  # sink `wh_orders` (postgres_table)\n")
            .count(),
        1,
        "{yaml}"
    );
}
