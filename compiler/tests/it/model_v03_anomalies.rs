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

/// The anomalies of output `i` of the first task.
fn anomalies(v: &Value, i: usize) -> &Vec<Value> {
    v["pipelines"][0]["tasks"][0]["outputs"][i]["anomalies"]
        .as_array()
        .expect("anomalies on every output")
}

/// (kind, clause) of every anomaly of output `i` of the first task.
fn kinds(v: &Value, i: usize) -> Vec<(String, String)> {
    anomalies(v, i)
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

/// The scenario of one anomaly (kind, clause) of output `i` of the first task.
fn scenario(v: &Value, i: usize, kind: &str, clause: &str) -> String {
    anomalies(v, i)
        .iter()
        .find(|a| a["kind"] == kind && a["clause"] == clause)
        .and_then(|a| a["scenario"].as_str())
        .unwrap_or_else(|| panic!("no {kind} ({clause}) in {v}"))
        .to_string()
}

const LAKE: &str =
    "source feed: files {\n  path \"in/{interval.start}/\"\n  immutable\n  identity id\n}\n\n\
                    sink lake: delta_table {\n  location \"lake/t\"\n}\n";

/// C6: a transaction id new at every attempt duplicates on a retry, not only
/// on a re-run; a run-scoped one on a re-run; the scenario says which.
#[test]
fn a_txn_id_of_the_attempt_duplicates_on_a_retry_one_of_the_run_on_a_re_run() {
    let (v, _, _) = report(&daily(
        LAKE,
        "    read feed\n    write lake conditional_commit txn attempt.number\n",
    ));
    let s = scenario(&v, 0, "duplicate", "key_stable");
    assert!(s.starts_with("a retry after a failure at commit"), "{s}");
    let (v, _, _) = report(&daily(
        LAKE,
        "    read feed\n    write lake conditional_commit txn run.id\n",
    ));
    let s = scenario(&v, 0, "duplicate", "key_stable");
    assert!(s.starts_with("a re-run under a new transaction id"), "{s}");
    // the near miss: the default id (the interval) is stable, nothing to say
    let (v, _, _) = report(&daily(
        LAKE,
        "    read feed\n    write lake conditional_commit\n",
    ));
    assert!(kinds(&v, 0).is_empty(), "{:?}", kinds(&v, 0));
}

/// C3: a cursor read open on both sides (not unique nor inclusive, and no
/// lookback) names both ways it loses rows in its one loss anomaly.
#[test]
fn a_cursor_read_open_on_both_sides_names_both_losses() {
    let src = "source orders: postgres_table {\n  table \"o\"\n  identity order_id\n  cursor updated_at\n}\n\n\
               sink copy: postgres_table {\n  table \"c\"\n  primary_key order_id\n}\n";
    let (v, _, _) = report(&daily(
        src,
        "    read orders cursor\n    key input.order_id\n    write copy upsert\n",
    ));
    let s = scenario(&v, 0, "loss", "cursor_complete");
    assert!(
        s.contains("not `inclusive`") && s.contains("no `lookback`"),
        "{s}"
    );
    let (v, _, _) = report(&daily(
        src,
        "    read orders cursor lookback 1h\n    key input.order_id\n    write copy upsert\n",
    ));
    let s = scenario(&v, 0, "loss", "cursor_complete");
    assert!(
        s.contains("not `inclusive`") && !s.contains("lookback"),
        "{s}"
    );
    let (v, _, _) = report(&daily(
        src,
        "    read orders cursor lookback 1h inclusive\n    key input.order_id\n    write copy upsert\n",
    ));
    assert!(kinds(&v, 0).is_empty(), "{:?}", kinds(&v, 0));
}
