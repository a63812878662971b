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

/// A source and a sink as `kind.flow` of the issue has them: the sink's
/// declaration line and settings, and the source's `path`.
fn kind_change(sink: &str, path: &str) -> String {
    format!(
        r#"source orders_in: files {{
  path      "{path}"
  immutable
  pin       listing
  identity  id
  fields    [id, amount]
}}

{sink}

pipeline p {{
  schedule  "@daily"
  start     2026-01-05
  timeout   30m

  task aggregate {{
    read   orders_in
    key    input.id
    write  out upsert
    run    command ["python", "-m", "jobs.aggregate"]
  }}
}}
"#
    )
}

/// The JSON findings of `text` as one file.
fn findings(text: &str) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    std::fs::write(dir.path().join("p.flow"), text).expect("write");
    let mut c = crate::common::flowc_in(dir.path());
    c.args(["check", "--output-format", "json", "p.flow"]);
    let r = c.run();
    let v: serde_json::Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
    v["diagnostics"].as_array().expect("diagnostics").clone()
}

fn codes_of(found: &[serde_json::Value]) -> Vec<&str> {
    found
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default())
        .collect()
}

const POSTGRES_SINK: &str = "sink out: postgres_table {
  table        \"marts.revenue\"
  primary_key  id
  fields       [id, amount]
}";

#[test]
fn a_changed_sink_kind_is_one_finding() {
    let clean = findings(&kind_change(POSTGRES_SINK, "in/{interval.start}/"));
    assert!(clean.is_empty(), "{clean:?}");
    // One edit, `postgres_table` to `kafka_topic`: it was FL004 (no
    // `topic`), FL003 twice (`table`, `primary_key`), and on the task's
    // write FL107, FL205 and FL900. Now the first, with the others folded
    // under it as labels.
    let kafka = POSTGRES_SINK.replace("postgres_table", "kafka_topic");
    let found = findings(&kind_change(&kafka, "in/{interval.start}/"));
    assert_eq!(codes_of(&found), ["FL004"], "{found:#?}");
    let labels: Vec<&str> = found[0]["labels"]
        .as_array()
        .expect("labels")
        .iter()
        .map(|l| l["message"].as_str().unwrap_or_default())
        .collect();
    assert!(
        labels.contains(&"unknown property `table` for sink `out` of kind `kafka_topic`")
            && labels
                .contains(&"unknown property `primary_key` for sink `out` of kind `kafka_topic`"),
        "{labels:?}"
    );
    assert!(
        found[0]["help"]
            .as_str()
            .is_some_and(|h| h.contains("2 more settings of `out` do not fit its kind")),
        "{}",
        found[0]["help"]
    );
    // A kind that does not exist stays one FL702 with its did-you-mean.
    let typo = POSTGRES_SINK.replace("postgres_table", "postgres_tabel");
    assert_eq!(
        codes_of(&findings(&kind_change(&typo, "in/{interval.start}/"))),
        ["FL702"]
    );
}

#[test]
fn independent_errors_on_one_declaration_are_all_reported() {
    // A stray property and a misspelt placeholder on the same source: two
    // mistakes, two findings.
    let source_errors = findings(&kind_change(POSTGRES_SINK, "in/{interval.strat}/").replace(
        "  pin       listing\n",
        "  pin       listing\n  colour    \"red\"\n",
    ));
    let codes = codes_of(&source_errors);
    assert!(
        codes.contains(&"FL002") && codes.contains(&"FL003"),
        "{source_errors:#?}"
    );
    // A typo of a property next to a stray one, on a sink of the right
    // kind: both reported, and so is what the rules find on its write.
    let sink = POSTGRES_SINK
        .replace("  primary_key  id\n", "  colour       \"red\"\n")
        .replace("  fields ", "  feilds ");
    let found = findings(&kind_change(&sink, "in/{interval.start}/"));
    assert_eq!(
        codes_of(&found),
        ["FL003", "FL003", "FL107", "FL900"],
        "{found:#?}"
    );
}
