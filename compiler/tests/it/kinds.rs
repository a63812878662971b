//! `flowc kinds`: the catalogue of kinds, generated from the resolved
//! program, and its page `docs/reference/kinds.md`, kept in step.

use crate::common::flowc;
use crate::common::repo_root;

const PAGE: &str = "docs/reference/kinds.md";
const REGENERATE: &str =
    "cargo run -q --bin flowc -- kinds --format markdown > docs/reference/kinds.md";

fn stdlib_catalogue() -> Vec<flowc::kinds::Entry> {
    let o = flowc::check::check(Vec::new(), &flowc::check::NoImports);
    flowc::kinds::catalogue(&o)
}

/// Why the committed page is not the generated one, if it is not.
fn stale(committed: &str, generated: &str) -> Option<String> {
    if committed == generated {
        return None;
    }
    let line = committed
        .lines()
        .zip(generated.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| committed.lines().count().min(generated.lines().count()));
    Some(format!(
        "{PAGE} is stale (first difference at line {}); regenerate it: {REGENERATE}",
        line + 1
    ))
}

#[test]
fn the_kinds_page_is_the_generated_catalogue() {
    let committed = std::fs::read_to_string(repo_root().join(PAGE)).unwrap_or_default();
    let generated = flowc::kinds::markdown(&stdlib_catalogue());
    if let Some(why) = stale(&committed, &generated) {
        panic!("{why}");
    }
    // The check itself: a page one parameter behind is refused.
    let behind = generated.replacen("| `database` | `string` | no |\n", "", 1);
    assert_ne!(behind, generated);
    let why = stale(&behind, &generated).expect("a stale page is refused");
    assert!(why.contains(REGENERATE), "{why}");
}

#[test]
fn every_stdlib_kind_is_listed_with_what_it_declares() {
    let entries = stdlib_catalogue();
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    for k in [
        "slack_message",
        "email",
        "http_request",
        "webhook",
        "files",
        "kafka_topic",
        "delta_table",
        "iceberg_table",
        "postgres_table",
        "sqlite_table",
    ] {
        assert!(names.contains(&k), "{k} missing from {names:?}");
    }
    let pg = entries.iter().find(|e| e.name == "postgres_table").unwrap();
    assert_eq!(pg.roles, ["source", "sink"]);
    assert_eq!(pg.pins, ["snapshot", "cursor"]);
    assert!(pg.writes.iter().any(|w| w == "upsert"));
    assert_eq!(
        pg.capabilities,
        [
            "transactional",
            "fenced",
            "state",
            "conditional_upsert",
            "serialized_replace"
        ]
    );
    assert_eq!(pg.coordinator.as_deref(), Some("postgres"));
    assert_eq!(pg.params[0].name, "table");
    assert!(!pg.params[0].optional);
    assert!(pg
        .about
        .as_deref()
        .unwrap()
        .starts_with("A PostgreSQL table."));
    let hook = entries.iter().find(|e| e.name == "webhook").unwrap();
    assert_eq!(hook.idempotency, Some("key"));
    let slack = entries.iter().find(|e| e.name == "slack_message").unwrap();
    assert_eq!(slack.idempotency, Some("none"));
}

#[test]
fn kinds_prints_every_kind_and_one_by_name() {
    let all = flowc().arg("kinds").assert().success();
    let text = String::from_utf8(all.get_output().stdout.clone()).unwrap();
    assert!(text.contains("kind postgres_table  (<stdlib>/postgres.flow)"));
    assert!(text.contains("  param          database: string?"));
    assert!(text.contains("kind webhook"));

    let one = flowc().args(["kinds", "delta_table"]).assert().success();
    let text = String::from_utf8(one.get_output().stdout.clone()).unwrap();
    assert!(
        text.starts_with("kind delta_table  (<stdlib>/lakehouse.flow)\n"),
        "{text}"
    );
    assert_eq!(text.matches("\nkind ").count(), 0, "{text}");
    assert!(text.contains("  pins           version, snapshot"));
}

#[test]
fn an_unknown_kind_is_a_usage_error_with_a_suggestion() {
    let out = flowc().args(["kinds", "postgres_tabel"]).assert().code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("no kind `postgres_tabel`"), "{err}");
    assert!(err.contains("did you mean `postgres_table`"), "{err}");
    assert!(out.get_output().stdout.is_empty());
}

#[test]
fn kinds_json_is_versioned_and_complete() {
    let out = flowc()
        .args(["kinds", "--format", "json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["version"], 1);
    let kinds = v["kinds"].as_array().unwrap();
    assert_eq!(kinds.len(), stdlib_catalogue().len());
    let sqlite = kinds.iter().find(|k| k["name"] == "sqlite_table").unwrap();
    assert_eq!(sqlite["params"][1]["name"], "database");
    assert_eq!(sqlite["params"][1]["type"], "string");
    assert_eq!(sqlite["params"][1]["optional"], true);
}

#[test]
fn kinds_from_lists_the_users_kinds_too() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mine.flow"),
        "# Our ledger service.\nkind ledger_api {\n  roles sink\n  writes ledger\n  param base_url: string\n}\n",
    )
    .unwrap();
    let out = flowc()
        .current_dir(dir.path())
        .args(["kinds", "--from", "mine.flow", "ledger_api"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("kind ledger_api  (mine.flow)\n"), "{text}");
    assert!(text.contains("  Our ledger service."), "{text}");
    assert!(text.contains("  writes         ledger"), "{text}");
    assert!(text.contains("  param          base_url: string"), "{text}");
    // Without --from the user's kind is not seen.
    flowc()
        .current_dir(dir.path())
        .args(["kinds", "ledger_api"])
        .assert()
        .code(2);
}

#[test]
fn kinds_from_files_with_errors_lists_what_resolved_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mine.flow"),
        "kind ledger_api {\n  roles sink\n  writes ledger\n}\n\nsink s: ledger_apii {\n}\n",
    )
    .unwrap();
    let out = flowc()
        .current_dir(dir.path())
        .args(["kinds", "--from", "mine.flow", "ledger_api"])
        .assert()
        .code(1);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("kind ledger_api  (mine.flow)\n"), "{text}");
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("run `flowc check`"), "{err}");
    // A path that does not exist is a usage error.
    flowc()
        .current_dir(dir.path())
        .args(["kinds", "--from", "missing.flow"])
        .assert()
        .code(2);
}

/// Every capability line of a standard-library kind for another vendor's
/// system is backed in its doc comment by a link to the vendor's page.
#[test]
fn vendor_kinds_cite_a_vendor_page_for_every_line() {
    let o = crate::common::check(&[]);
    let entries = flowc::kinds::catalogue(&o);
    for name in [
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
        let e = entries
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("no kind `{name}`"));
        let about = e.about.clone().unwrap_or_default();
        for cap in &e.capabilities {
            let cited = about.lines().any(|l| {
                l.starts_with("- ") && l.contains(&format!("`{cap}`")) && l.contains("https://")
            });
            assert!(cited, "`{name}`: line `{cap}` has no sourced bullet");
        }
    }
}
