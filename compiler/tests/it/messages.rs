//! The messages a new user tripped on, through the real binary: each shows
//! the improved words on the input that tripped, and a near miss that keeps
//! its own message.

use crate::common;

use std::io::Write as _;

use crate::common::flowc;
use serde_json::Value;

/// A one-task pipeline reading a files source and writing `sink` of kind
/// `kind` with `write`, scheduled `schedule`.
fn spec(kind: &str, write: &str, schedule: &str) -> String {
    format!(
        r#"source raw: files {{
  path      "s3://lake/raw/{{interval.start}}/"
  immutable
  identity  (order_id)
  fields    [order_id, amount, order_month]
}}

sink out: {kind} {{
  location  "s3://lake/out"
}}

pipeline p {{
  schedule  {schedule}
  start     2026-01-01
  timezone  "UTC"
  image     "ghcr.io/acme/x:1"

  task t {{
    read   raw pinned listing
    write  out {write}
    run    command ["python", "-m", "x"]
  }}
}}
"#
    )
}

fn temp_flow(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new()
        .suffix(".flow")
        .tempfile()
        .expect("temp file");
    f.write_all(text.as_bytes()).expect("write");
    f
}

/// The findings of `flowc check --format json` on `text`.
fn findings(text: &str) -> Vec<Value> {
    let f = temp_flow(text);
    let out = flowc()
        .args(["check", "--format", "json"])
        .arg(f.path())
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v["diagnostics"].as_array().cloned().unwrap_or_default()
}

fn with_code<'a>(ds: &'a [Value], code: &str) -> Vec<&'a Value> {
    ds.iter().filter(|d| d["code"] == code).collect()
}

fn text(d: &Value, field: &str) -> String {
    d[field].as_str().unwrap_or_default().to_string()
}

#[test]
fn fl202_help_lists_only_the_modes_the_sinks_kind_offers() {
    let ds = findings(&spec("delta_table", "append", "\"@daily\""));
    let [d] = with_code(&ds, "FL202")[..] else {
        panic!("one FL202: {ds:#?}")
    };
    let help = text(d, "help");
    assert!(help.contains("`replace partition`"), "{help}");
    assert!(
        !help.contains("upsert") && !help.contains("ledger"),
        "a delta table offers neither: {help}"
    );
    // Near miss: a PostgreSQL table offers them all.
    let pg = findings(&spec("postgres_table", "append", "\"@daily\"").replace(
        "location  \"s3://lake/out\"",
        "table \"t\"\n  primary_key (order_id)",
    ));
    let [d] = with_code(&pg, "FL202")[..] else {
        panic!("one FL202: {pg:#?}")
    };
    assert!(
        text(d, "help")
            .starts_with("use `append ledger` with a key, `upsert`, or `replace partition`;"),
        "{d}"
    );
}

#[test]
fn a_misspelled_mode_with_arguments_names_the_mode() {
    let ds = findings(&spec(
        "delta_table",
        "replace_partition order_month = input.order_month",
        "\"@daily\"",
    ));
    let [d] = &ds[..] else {
        panic!("one finding: {ds:#?}")
    };
    assert_eq!(d["code"], "FL001");
    assert_eq!(
        text(d, "message"),
        "`replace_partition` is not a write mode; did you mean `replace partition COL = TERM`?"
    );
    // Near miss: a real mode followed by a bad clause is a parse error at the clause.
    let ds = findings(&spec("delta_table", "overwrite order_month", "\"@daily\""));
    let [d] = &ds[..] else {
        panic!("one finding: {ds:#?}")
    };
    assert!(text(d, "message").starts_with("expected "), "{d}");
    assert!(text(d, "message").ends_with("found `order_month`"), "{d}");
}

#[test]
fn report_prints_modes_as_they_are_written() {
    let out = flowc()
        .args(["report", "examples/legacy_crm_migration.flow"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let table = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(table.contains("via idempotency_key"), "{table}");
    assert!(table.contains("via outbox"), "{table}");
    assert!(!table.contains("emit idempotency_key"), "{table}");
    let f = temp_flow(
        &spec(
            "postgres_table",
            "replace partition order_month = input.order_month",
            "\"@daily\"",
        )
        .replace("location  \"s3://lake/out\"", "table \"t\""),
    );
    let out = flowc().arg("report").arg(f.path()).output().expect("runs");
    let table = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(table.contains(" replace partition "), "{table}");
    assert!(!table.contains("replace_partition"), "{table}");
}

#[test]
fn a_one_line_block_says_that_the_brace_ends_its_line() {
    let ds = findings("source raw: files { path \"lake/{interval.start}/\" identity id }\n");
    let [d] = &ds[..] else {
        panic!("one finding: {ds:#?}")
    };
    assert!(text(d, "help").starts_with("`{` ends its line"), "{d}");
    // Near miss: a second statement on a line inside a block is told
    // something else.
    let ds = findings("source raw: files {\n  immutable path \"x\"\n}\n");
    assert!(
        ds.iter()
            .all(|d| !text(d, "help").contains("`{` ends its line")),
        "{ds:#?}"
    );
}

#[test]
fn schedule_manual_suggests_schedule_none() {
    let ds = findings(&spec("delta_table", "overwrite", "manual"));
    let [d] = with_code(&ds, "FL006")[..] else {
        panic!("one FL006: {ds:#?}")
    };
    assert!(text(d, "help").contains("`schedule none`"), "{d}");
    // Near miss: `schedule none` is a pipeline without a schedule.
    let ds = findings(&spec("delta_table", "overwrite", "none"));
    assert!(with_code(&ds, "FL006").is_empty(), "{ds:#?}");
}

#[test]
fn an_unknown_kind_lists_the_built_in_kinds() {
    let ds = findings(&spec("kafka", "append", "\"@daily\""));
    let [d] = with_code(&ds, "FL702")[..] else {
        panic!("one FL702: {ds:#?}")
    };
    assert_eq!(
        text(d, "message"),
        "unknown kind `kafka`; did you mean `kafka_topic`?"
    );
    let help = text(d, "help");
    for k in [
        "delta_table",
        "iceberg_table",
        "postgres_table",
        "kafka_topic",
        "files",
    ] {
        assert!(help.contains(&format!("`{k}`")), "{k}: {help}");
    }
    // Near miss: a name no kind starts with gets the list and no guess.
    let ds = findings(&spec("warehouse", "append", "\"@daily\""));
    let [d] = with_code(&ds, "FL702")[..] else {
        panic!("one FL702: {ds:#?}")
    };
    assert_eq!(text(d, "message"), "unknown kind `warehouse`");
    assert!(text(d, "help").contains("`delta_table`"), "{d}");
}

/// The word after `flowc` that names a path in an example line: what ends
/// in `.flow` or `/`, except the folder `--out` writes to.
fn example_paths(help: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for line in help
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("flowc "))
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        for (i, w) in words.iter().enumerate() {
            let out = i > 0 && words[i - 1] == "--out";
            let named = w.starts_with(|c: char| c.is_ascii_alphanumeric());
            if !out
                && named
                && (std::path::Path::new(w)
                    .extension()
                    .is_some_and(|e| e == "flow")
                    || w.ends_with('/'))
            {
                paths.push((*w).to_string());
            }
        }
    }
    paths
}

#[test]
fn every_help_example_names_a_file_that_exists() {
    let mut seen = 0;
    for cmd in [
        None,
        Some("check"),
        Some("report"),
        Some("build"),
        Some("scaffold"),
        Some("fmt"),
        Some("graph"),
        Some("explain"),
    ] {
        let mut c = flowc();
        if let Some(cmd) = cmd {
            c.arg(cmd);
        }
        let out = c.arg("--help").output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{cmd:?}");
        let help = String::from_utf8(out.stdout).expect("UTF-8");
        for p in example_paths(&help) {
            seen += 1;
            assert!(
                common::repo_root().join(&p).exists(),
                "`flowc {} --help` names `{p}`, which does not exist",
                cmd.unwrap_or_default()
            );
        }
    }
    assert!(seen >= 8, "the examples name files: {seen}");
    // The check itself refuses a missing file.
    assert_eq!(
        example_paths("  flowc report examples/orders.flow"),
        ["examples/orders.flow"]
    );
    assert!(!common::repo_root().join("examples/orders.flow").exists());
}

#[test]
fn a_label_inside_the_primary_span_has_no_stray_connector() {
    let f = temp_flow(&spec("delta_table", "append", "\"@daily\""));
    let out = flowc().arg("check").arg(f.path()).output().expect("runs");
    let human = String::from_utf8(out.stdout).expect("UTF-8");
    let fl900 = human
        .split("\n\n")
        .skip_while(|s| !s.contains("FL900"))
        .nth(1)
        .expect("FL900's excerpt");
    assert!(
        fl900.contains("╰── `append` applies every attempt again"),
        "{fl900}"
    );
    // No row of the excerpt has a `│` that ends nowhere: every label row
    // holds only its own connector.
    for row in fl900.lines().filter(|l| l.contains("╰──")) {
        let before = &row[..row.find("╰──").expect("label")];
        assert!(
            !before.trim_start().trim_start_matches('·').contains('│'),
            "{fl900}"
        );
    }
}
