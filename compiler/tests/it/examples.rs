//! Every example and every stdlib file is clean; every example's report is snapshotted.

use crate::common;

#[test]
fn every_example_is_clean() {
    let files = common::flow_files("examples");
    assert!(
        files.len() >= 5,
        "expected at least 5 examples, found {files:?}"
    );
    for f in &files {
        let o = common::check(&[f]);
        assert!(
            common::codes(&o).is_empty(),
            "{f} is not clean:\n{}",
            common::human(&o)
        );
    }
}

#[test]
fn the_stdlib_is_clean_and_declares_the_listed_kinds() {
    let o = common::check(&[]);
    let stdlib_findings: Vec<_> = o
        .diagnostics
        .iter()
        .filter(|d| o.sources.path(d.file).starts_with("<stdlib>"))
        .collect();
    assert!(stdlib_findings.is_empty(), "{stdlib_findings:#?}");
    let kinds: Vec<&str> = o
        .program
        .kinds
        .iter()
        .filter(|k| k.stdlib)
        .map(|k| k.name.as_str())
        .collect();
    for k in [
        "files",
        "postgres_table",
        "sqlite_table",
        "delta_table",
        "iceberg_table",
        "kafka_topic",
        "slack_message",
        "email",
        "http_request",
        "webhook",
        "bigquery_table",
        "bigquery_streaming_table",
        "bigquery_write_api_table",
        "snowflake_table",
        "snowpipe_streaming_table",
        "redshift_table",
        "clickhouse_table",
        "mysql_table",
        "duckdb_table",
    ] {
        assert!(kinds.contains(&k), "stdlib lacks `{k}`");
    }
}

#[test]
fn example_reports() {
    for f in common::flow_files("examples") {
        let o = common::check(&[&f]);
        let name = f.trim_start_matches("examples/").replace(['/', '.'], "_");
        insta::assert_snapshot!(format!("report_{name}"), flowc::report::table(&o));
        insta::assert_snapshot!(format!("report_json_{name}"), flowc::report::json(&o));
    }
}

/// The repository is a flowc project: `flowc check` at its root, as a
/// newcomer runs it, checks what ships for users (its `flowc.toml` leaves the
/// test fixtures out) and finds nothing.
#[test]
fn the_repository_checks_clean_at_its_root() {
    let out = crate::common::flowc()
        .current_dir(common::repo_root())
        .env("NO_COLOR", "1")
        .args(["check", "--output-format", "concise"])
        .output()
        .expect("flowc runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("0 errors, 0 warnings"), "{text}");
    // The examples are among the files checked.
    let checked: usize = text
        .rsplit(" in ")
        .next()
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(checked >= common::flow_files("examples").len(), "{text}");
}

/// The Spark example's generated DAG and Workflow, as `flowc build` writes
/// them: the task runs `spark-submit` in its image with its resources, and
/// takes the exit codes of every other task.
#[test]
fn the_spark_example_builds_a_dag_and_a_workflow() {
    let out = tempfile::tempdir().expect("temp dir");
    for target in ["airflow", "argo"] {
        let dest = out.path().join(target);
        let run = crate::common::flowc()
            .current_dir(common::repo_root())
            .env("NO_COLOR", "1")
            .args(["build", "--target", target, "--out"])
            .arg(&dest)
            .arg("examples/clicks_spark.flow")
            .output()
            .expect("flowc runs");
        assert_eq!(
            run.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let dag = std::fs::read_to_string(out.path().join("airflow/clicks_spark.py")).expect("the DAG");
    let workflow =
        std::fs::read_to_string(out.path().join("argo/clicks_spark.yaml")).expect("the Workflow");
    for text in [&dag, &workflow] {
        assert!(text.contains("spark-submit"), "{text}");
        assert!(text.contains("ghcr.io/acme/clicks-spark:1.4.0"), "{text}");
    }
    assert!(
        dag.contains(r#"container_resources={"cpu": "4", "memory": "8Gi"}"#),
        "{dag}"
    );
    assert!(
        workflow.contains("asInt(lastRetry.exitCode) != 65"),
        "{workflow}"
    );
    insta::assert_snapshot!("clicks_spark_dag", dag);
    insta::assert_snapshot!("clicks_spark_workflow", workflow);
}
