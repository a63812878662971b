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
