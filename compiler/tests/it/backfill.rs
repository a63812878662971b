//! `flowc backfill`: the intervals of a scheduled pipeline between two dates,
//! as Argo Workflows (each validated against Argo's strict schema, which is
//! shown refusing a broken one) or as Airflow's `airflow backfill create`;
//! and its refusals (exit 2) with a near miss beside each.

use std::path::Path;
use std::sync::LazyLock;

use serde_json::{json, Value};

use crate::common::{flowc, Run};

const DAILY: &str = "tests/argo/orders_daily.flow";

const SCHEMA_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/data/argo-workflows-schema.strict.json"
);

/// Argo's strict schema, rooted at `Workflow` (as `argo.rs` builds it).
static WORKFLOW: LazyLock<jsonschema::Validator> = LazyLock::new(|| {
    let text = std::fs::read_to_string(SCHEMA_PATH).expect("schema file");
    let mut schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    let root = schema.as_object_mut().expect("schema object");
    root.remove("oneOf");
    root.remove("type");
    root.insert(
        "$ref".into(),
        json!("#/definitions/io.argoproj.workflow.v1alpha1.Workflow"),
    );
    jsonschema::options()
        .build(&schema)
        .expect("the Workflow schema compiles")
});

pub(crate) fn schema_errors(doc: &Value) -> Vec<String> {
    WORKFLOW
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// The YAML documents of a stream, as JSON values.
fn documents(text: &str) -> Vec<Value> {
    text.split("\n---\n")
        .skip(1)
        .map(|doc| serde_norway::from_str::<Value>(doc).expect("each document is YAML"))
        .collect()
}

fn env_of(doc: &Value, var: &str) -> Vec<String> {
    doc["spec"]["templates"]
        .as_array()
        .expect("templates")
        .iter()
        .filter_map(|t| t["container"]["env"].as_array())
        .flat_map(|env| env.iter())
        .filter(|e| e["name"] == var)
        .map(|e| e["value"].as_str().expect("a value").to_owned())
        .collect()
}

#[test]
fn argo_gets_one_valid_workflow_per_interval_with_the_interval_as_parameters() {
    let Run {
        code,
        stdout: out,
        stderr: err,
    } = flowc()
        .arg("backfill")
        .args(["--from", "2026-03-01", "--to", "2026-03-03", DAILY])
        .run();
    assert_eq!(code, Some(0), "{err}");
    let docs = documents(&out);
    assert_eq!(docs.len(), 3);
    let mut names = Vec::new();
    for (doc, day) in docs.iter().zip(["01", "02", "03"]) {
        assert_eq!(schema_errors(doc), Vec::<String>::new(), "{doc}");
        assert_eq!(doc["kind"], "Workflow");
        let start = format!("2026-03-{day}T01:00:00Z");
        let next = format!("2026-03-{:02}T01:00:00Z", day.parse::<u8>().unwrap() + 1);
        assert_eq!(
            doc["spec"]["arguments"]["parameters"],
            json!([
                {"name": "interval_start", "value": start},
                {"name": "interval_end", "value": next},
            ])
        );
        // every task takes its interval from the parameters, and keeps its schedule
        assert_eq!(
            env_of(doc, "FLOW_INTERVAL_START"),
            vec!["{{workflow.parameters.interval_start}}"; 2]
        );
        assert_eq!(
            env_of(doc, "FLOW_INTERVAL_END"),
            vec!["{{workflow.parameters.interval_end}}"; 2]
        );
        assert_eq!(env_of(doc, "FLOW_SCHEDULE"), vec!["0 2 * * *"; 2]);
        names.push(doc["metadata"]["name"].as_str().unwrap().to_owned());
        // the label names the pipeline, so `kubectl get -l` finds every interval's Workflow
        assert_eq!(
            doc["metadata"]["labels"]["flowc.dev/pipeline"],
            "orders-daily"
        );
    }
    assert_eq!(
        names,
        [
            "orders-daily-20260301-0100",
            "orders-daily-20260302-0100",
            "orders-daily-20260303-0100"
        ]
    );
    // the header lists them
    assert!(out.starts_with("# flowc backfill of pipeline `orders_daily`"));
    assert!(out.contains("#   2026-03-03T01:00:00Z .. 2026-03-04T01:00:00Z\n"));
}

#[test]
fn the_schema_refuses_a_broken_backfill_workflow() {
    let Run { stdout: out, .. } = flowc()
        .arg("backfill")
        .args(["--from", "2026-03-01", "--to", "2026-03-01", DAILY])
        .run();
    let mut doc = documents(&out).remove(0);
    assert!(schema_errors(&doc).is_empty());
    doc["spec"]["arguments"]["parameters"][0]["when"] = json!("2026");
    assert!(
        !schema_errors(&doc).is_empty(),
        "an unknown field is refused"
    );
    let mut doc = documents(&out).remove(0);
    doc["spec"]["arguments"] = json!({"parameters": "interval_start"});
    assert!(!schema_errors(&doc).is_empty(), "parameters must be a list");
}

#[test]
fn intervals_follow_the_zone_across_a_dst_change() {
    // Paris skips 02:00-03:00 on 2026-03-29: the day's tick is 03:00 CEST, its interval 23 hours
    let Run {
        code,
        stdout: out,
        stderr: err,
    } = flowc()
        .arg("backfill")
        .args(["--from", "2026-03-28", "--to", "2026-03-30", DAILY])
        .run();
    assert_eq!(code, Some(0), "{err}");
    let starts: Vec<Value> = documents(&out)
        .iter()
        .map(|d| d["spec"]["arguments"]["parameters"].clone())
        .collect();
    assert_eq!(
        starts,
        [
            json!([{"name": "interval_start", "value": "2026-03-28T01:00:00Z"}, {"name": "interval_end", "value": "2026-03-29T01:00:00Z"}]),
            json!([{"name": "interval_start", "value": "2026-03-29T01:00:00Z"}, {"name": "interval_end", "value": "2026-03-30T00:00:00Z"}]),
            json!([{"name": "interval_start", "value": "2026-03-30T00:00:00Z"}, {"name": "interval_end", "value": "2026-03-31T00:00:00Z"}]),
        ]
    );
}

#[test]
fn intervals_before_the_pipelines_start_are_not_run() {
    // orders_daily starts on 2026-01-01
    let Run {
        code, stdout: out, ..
    } = flowc()
        .arg("backfill")
        .args(["--from", "2025-12-30", "--to", "2026-01-01", DAILY])
        .run();
    assert_eq!(code, Some(0));
    assert_eq!(documents(&out).len(), 1);
    let Run {
        code, stderr: err, ..
    } = flowc()
        .arg("backfill")
        .args(["--from", "2025-12-01", "--to", "2025-12-31", DAILY])
        .run();
    assert_eq!(code, Some(2));
    assert!(
        err.contains("no interval of `orders_daily` starts from 2025-12-01 to 2025-12-31 (the pipeline starts on 2026-01-01)"),
        "{err}"
    );
}

#[test]
fn airflow_gets_its_backfill_command_for_the_window() {
    let Run {
        code,
        stdout: out,
        stderr: err,
    } = flowc()
        .arg("backfill")
        .args([
            "--target",
            "airflow",
            "--from",
            "2026-03-01",
            "--to",
            "2026-03-07",
            DAILY,
        ])
        .run();
    assert_eq!(code, Some(0), "{err}");
    let command: Vec<&str> = out.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        command,
        [
            "airflow backfill create --dag-id orders_daily --from-date 2026-03-01T01:00:00+00:00 \
          --to-date 2026-03-07T01:00:00+00:00 --reprocess-behavior failed"
        ]
    );
    assert_eq!(out.lines().filter(|l| l.starts_with("#   ")).count(), 7);
}

#[test]
fn the_output_is_deterministic_and_out_writes_the_same_text() {
    let args = ["--from", "2026-02-01", "--to", "2026-02-28", DAILY];
    let Run { stdout: first, .. } = flowc().arg("backfill").args(args).run();
    let Run { stdout: second, .. } = flowc().arg("backfill").args(args).run();
    assert_eq!(first, second);
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("february.yaml");
    std::fs::write(&file, "old").expect("write");
    let out = file.to_str().expect("utf-8 path");
    let Run {
        code,
        stdout: printed,
        stderr: err,
    } = flowc()
        .arg("backfill")
        .args([
            "--out",
            out,
            "--from",
            "2026-02-01",
            "--to",
            "2026-02-28",
            DAILY,
        ])
        .run();
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(printed, "");
    assert!(err.contains("wrote the backfill of 28 intervals"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).expect("written"), first);
    let leftovers = std::fs::read_dir(dir.path()).expect("dir").count();
    assert_eq!(leftovers, 1, "no temporary file is left behind");
}

#[test]
fn bad_ranges_and_manual_pipelines_are_refused_with_exit_2() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["--from", "2026-03-05", "--to", "2026-03-01", DAILY],
            "error: `--from 2026-03-05` is after `--to 2026-03-01`",
        ),
        (
            &["--from", "2026-3-5", "--to", "2026-03-01", DAILY],
            "`2026-3-5` is not a date: write YYYY-MM-DD",
        ),
        (
            &["--from", "2026-02-30", "--to", "2026-03-01", DAILY],
            "`2026-02-30` is not a date",
        ),
        (
            &[
                "--from",
                "2026-03-01",
                "--to",
                "2026-03-02",
                "tests/argo/manual_backfill.flow",
            ],
            "error: pipeline `manual_backfill` is manual: it has no intervals to backfill",
        ),
        (
            &[
                "--pipeline",
                "nope",
                "--from",
                "2026-03-01",
                "--to",
                "2026-03-02",
                DAILY,
            ],
            "error: no pipeline `nope` in the file",
        ),
    ];
    for (args, expected) in cases {
        let Run {
            code,
            stdout: out,
            stderr: err,
        } = flowc().arg("backfill").args(args).run();
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_eq!(out, "", "nothing printed for {args:?}");
    }
    // near misses: the same day twice is one day, the pipeline named exists
    let Run {
        code, stdout: out, ..
    } = flowc()
        .arg("backfill")
        .args(["--from", "2026-03-05", "--to", "2026-03-05", DAILY])
        .run();
    assert_eq!((code, documents(&out).len()), (Some(0), 1));
    let Run { code, .. } = flowc()
        .arg("backfill")
        .args([
            "--pipeline",
            "orders_daily",
            "--from",
            "2026-03-01",
            "--to",
            "2026-03-02",
            DAILY,
        ])
        .run();
    assert_eq!(code, Some(0));
}

#[test]
fn a_file_with_errors_prints_them_and_exits_1() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("broken.flow");
    std::fs::write(
        &file,
        "pipeline p {\n  schedule \"@daily\"\n  task t { read nowhere }\n}\n",
    )
    .expect("write");
    let Run {
        code,
        stdout: out,
        stderr: err,
    } = flowc()
        .arg("backfill")
        .args(["--from", "2026-03-01", "--to", "2026-03-02", path(&file)])
        .run();
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(out, "");
    assert!(err.contains("nowhere"), "{err}");
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn a_huge_range_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("minutely.flow");
    std::fs::write(
        &file,
        "pipeline every_minute {\n  schedule \"* * * * *\"\n  start 2026-01-01\n  image \"busybox\"\n  task t {\n    run command [\"true\"]\n  }\n}\n",
    )
    .expect("write");
    let Run {
        code, stderr: err, ..
    } = flowc()
        .arg("backfill")
        .args(["--from", "2026-03-01", "--to", "2026-03-31", path(&file)])
        .run();
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("more than 10000 intervals"), "{err}");
    let Run {
        code,
        stdout: out,
        stderr: err,
    } = flowc()
        .arg("backfill")
        .args(["--from", "2026-03-01", "--to", "2026-03-01", path(&file)])
        .run();
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(documents(&out).len(), 1440);
}

/// An hourly schedule across Paris's spring-forward gap: the civil ticks 02:30
/// (in the gap, read as 03:30 CEST) and 03:30 meet in one instant and are one
/// tick, so no interval is empty and none is dropped: 23 one-hour intervals
/// for a 23-hour day (issue 27 item 15; the runtime's `previous_tick` reads a
/// tick the same way, `tests/python/test_verdicts.py`).
#[test]
fn ticks_that_meet_in_a_dst_gap_are_one_tick() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("hourly.flow");
    std::fs::write(
        &file,
        "pipeline hourly {\n  schedule \"30 * * * *\"\n  start 2026-01-01\n  timezone \"Europe/Paris\"\n  image \"busybox\"\n  task t {\n    run command [\"true\"]\n  }\n}\n",
    )
    .expect("write");
    let Run {
        code,
        stdout: out,
        stderr: err,
    } = flowc()
        .arg("backfill")
        .args(["--from", "2026-03-29", "--to", "2026-03-29", path(&file)])
        .run();
    assert_eq!(code, Some(0), "{err}");
    let intervals: Vec<(String, String)> = documents(&out)
        .iter()
        .map(|d| {
            let p = &d["spec"]["arguments"]["parameters"];
            (
                p[0]["value"].as_str().unwrap_or_default().to_owned(),
                p[1]["value"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(intervals.len(), 23);
    assert!(intervals.iter().all(|(s, e)| s < e), "{intervals:?}");
    assert!(
        intervals.windows(2).all(|w| w[0].1 == w[1].0),
        "{intervals:?}"
    );
    assert!(intervals.contains(&(
        "2026-03-29T01:30:00Z".to_owned(),
        "2026-03-29T02:30:00Z".to_owned()
    )));
}
