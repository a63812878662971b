//! MODEL-v0.3 C2: every write and effect lists its anomalies, one per
//! (kind, clause), with a scenario, in order; only those some scenario of
//! the model produces.

use serde_json::Value;

fn report(src: &str) -> (Value, String, Vec<String>) {
    let o = crate::common::check_text(src);
    let helps = o
        .diagnostics
        .iter()
        .filter(|d| d.code.as_str() == "FL900")
        .filter_map(|d| d.help.clone())
        .collect();
    (
        crate::common::report_json(&o),
        flowc::report::table(&o),
        helps,
    )
}

/// (kind, clause) of every anomaly of output `i` of the first task.
fn kinds(v: &Value, i: usize) -> Vec<(String, String)> {
    v["pipelines"][0]["tasks"][0]["outputs"][i]["anomalies"]
        .as_array()
        .expect("anomalies on every output")
        .iter()
        .map(|a| {
            assert!(a["scenario"].as_str().is_some_and(|s| !s.is_empty()), "{a}");
            (
                a["kind"].as_str().expect("kind").to_string(),
                a["clause"].as_str().expect("clause").to_string(),
            )
        })
        .collect()
}

fn pair(k: &str, c: &str) -> (String, String) {
    (k.to_string(), c.to_string())
}

fn daily(decls: &str, body: &str) -> String {
    format!(
        "{decls}\npipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n  retries 2\n  timeout 30m\n  require none\n\n  task t {{\n{body}    run command [\"job\"]\n  }}\n}}\n"
    )
}

const PG: &str = "source orders: postgres_table {\n  table \"o\"\n  identity order_id\n}\n\n\
                  sink copy: postgres_table {\n  table \"c\"\n  primary_key order_id\n}\n\n\
                  sink log: postgres_table {\n  table \"l\"\n}\n\n\
                  sink folder: files {\n  path \"out/{interval.start}/\"\n}\n\n\
                  effect hook: webhook {\n  url \"https://example.com/h\"\n}\n";

#[test]
fn a_pinned_deterministic_upsert_has_none() {
    let (v, _, _) = report(&daily(
        PG,
        "    read orders pinned snapshot\n    key input.order_id\n    write copy upsert\n",
    ));
    assert!(kinds(&v, 0).is_empty(), "{:?}", kinds(&v, 0));
}

#[test]
fn an_unpinned_upsert_is_stale_not_duplicate() {
    let (v, table, helps) = report(&daily(
        PG,
        "    read orders unpinned\n    key input.order_id\n    write copy upsert\n    require effectively_once\n",
    ));
    assert_eq!(kinds(&v, 0), [pair("stale", "input_stable")]);
    assert_eq!(
        v["pipelines"][0]["tasks"][0]["outputs"][0]["guarantee"],
        "at_least_once"
    );
    assert!(table.contains("t/copy: stale (input_stable):"), "{table}");
    assert!(
        helps.iter().any(|h| h.starts_with("stale (input_stable):")),
        "{helps:?}"
    );
}

#[test]
fn an_interval_scoped_overwrite_drifts_from_an_unpinned_input() {
    let (v, _, _) = report(&daily(
        PG,
        "    read orders unpinned\n    write folder overwrite\n",
    ));
    assert_eq!(kinds(&v, 0), [pair("drift", "input_stable")]);
    let (v, _, _) = report(&daily(
        PG,
        "    read orders pinned snapshot\n    write folder overwrite\n",
    ));
    assert!(kinds(&v, 0).is_empty());
}

#[test]
fn an_append_duplicates() {
    let (v, _, _) = report(&daily(
        PG,
        "    read orders pinned snapshot\n    write log append\n",
    ));
    assert_eq!(kinds(&v, 0), [pair("duplicate", "idempotent")]);
}

#[test]
fn insert_if_absent_from_a_changing_input_keeps_the_first() {
    let (v, _, _) = report(&daily(
        PG,
        "    read orders unpinned\n    key input.order_id\n    write copy insert_if_absent\n",
    ));
    assert_eq!(kinds(&v, 0), [pair("first_wins", "input_stable")]);
}

#[test]
fn loss_and_regression_come_first() {
    let (v, _, _) = report(&daily(
        &PG.replace("out/{interval.start}/", "out/"),
        "    read orders unpinned\n    write folder overwrite\n",
    ));
    assert_eq!(
        kinds(&v, 0),
        [
            pair("regression", "no_regression"),
            pair("drift", "input_stable")
        ]
    );
}

#[test]
fn effects_list_theirs() {
    let (v, _, _) = report(&daily(PG, "    read orders pinned snapshot\n    key input.order_id\n    write copy upsert\n    emit hook\n"));
    assert_eq!(kinds(&v, 1), [pair("duplicate", "idempotent")]);
    let (v, _, _) = report(&daily(PG, "    read orders unpinned\n    key input.order_id\n    write copy upsert\n    emit hook via idempotency_key input.order_id\n"));
    assert!(
        kinds(&v, 1).contains(&pair("first_wins", "input_stable")),
        "{:?}",
        kinds(&v, 1)
    );
}
