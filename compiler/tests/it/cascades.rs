//! Findings that only follow from an earlier error are not reported on top
//! of it (issue 36 item 5): a `schedule` that FL002 refuses is a pipeline
//! meant to be scheduled, so its `interval.start` keys are not also FL102
//! "has no schedule" with the FL900 that follows. Through the real binary,
//! with the near miss (a pipeline that really has no schedule).

use assert_cmd::Command;

fn codes(schedule_line: &str) -> Vec<String> {
    let flow = format!(
        r#"source orders_in: files {{
  path      "in/{{interval.start}}/"
  immutable
  pin       listing
  identity  id
  fields    [id, amount]
}}

sink revenue: postgres_table {{
  table        "marts.revenue_weekly"
  primary_key  week
}}

pipeline revenue_weekly {{
{schedule_line}
  timeout   30m
  require   effectively_once

  task aggregate {{
    read   orders_in
    write  revenue replace partition week = interval.start
    run    command ["python", "-m", "jobs.aggregate"]
  }}
}}
"#
    );
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    std::fs::write(dir.path().join("p.flow"), flow).expect("write");
    let out = Command::cargo_bin("flowc")
        .expect("binary builds")
        .current_dir(dir.path())
        .args(["check", "--output-format", "json", "p.flow"])
        .output()
        .expect("runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_refused_schedule_is_not_also_no_schedule() {
    // The weekday in the minute field: FL002, and nothing that follows from it.
    assert_eq!(
        codes("  schedule  \"mon 6 * * 0\"\n  start     2026-01-05"),
        ["FL002"]
    );
    // The near miss: a pipeline with no schedule keys on a run-scoped interval.
    let manual = codes("  schedule  none");
    assert!(manual.contains(&"FL102".to_owned()), "{manual:?}");
    // And the valid schedule: clean.
    assert!(
        codes("  schedule  \"0 6 * * 1\"\n  start     2026-01-05").is_empty(),
        "a weekly schedule keyed on its interval is clean"
    );
}
