//! MODEL-v0.3 C3–C8 in the analysis: cursor reads (`cursor_complete`,
//! FL308, re-reads), `upsert newest by`, `insert_if_absent`,
//! `conditional_commit txn`, `serialized_replace` (FL208), `identity ...
//! global`, `lossy` and `idempotent_producer`; each with its near miss,
//! through the findings and `report --format json`.

use serde_json::Value;

struct Run {
    codes: Vec<String>,
    report: Value,
    messages: Vec<String>,
}

impl Run {
    fn has(&self, code: &str) -> bool {
        self.codes.iter().any(|c| c == code)
    }

    fn output(&self, i: usize) -> &Value {
        &self.report["pipelines"][0]["tasks"][0]["outputs"][i]
    }

    fn guarantee(&self) -> &str {
        self.output(0)["guarantee"].as_str().expect("guarantee")
    }

    fn clause(&self, c: &str) -> Value {
        self.output(0)["clauses"][c].clone()
    }
}

fn run(src: &str) -> Run {
    let o = crate::common::check_text(src);
    let live: Vec<_> = o
        .diagnostics
        .iter()
        .filter(|d| d.suppressed.is_none())
        .collect();
    let codes = live.iter().map(|d| d.code.as_str().to_string()).collect();
    let messages = live
        .iter()
        .map(|d| format!("{}: {} {:?}", d.code.as_str(), d.message, d.labels))
        .collect();
    let report: Value = crate::common::report_json(&o);
    Run {
        codes,
        report,
        messages,
    }
}

const T: Value = Value::Bool(true);
const F: Value = Value::Bool(false);

/// An hourly pipeline over `decls` with one task `t` whose body is `body`.
fn hourly(decls: &str, body: &str) -> Run {
    run(&format!(
        "{decls}\npipeline p {{\n  schedule \"@hourly\"\n  start 2026-01-01\n  retries 2\n  timeout 30m\n  require none\n\n  task t {{\n{body}    run command [\"job\"]\n  }}\n}}\n"
    ))
}

fn orders(cursor: &str) -> String {
    format!(
        "source orders: postgres_table {{\n  table \"shop.orders\"\n  identity order_id\n  {cursor}\n}}\n\n\
         sink copy: postgres_table {{\n  table \"mart.orders\"\n  primary_key order_id\n}}\n\n\
         sink log: postgres_table {{\n  table \"mart.log\"\n}}\n"
    )
}

#[test]
fn a_cursor_read_is_complete_with_unique_or_inclusive_and_a_lookback() {
    let upsert = "    key input.order_id\n    write copy upsert\n";
    for (cursor, read, complete) in [
        (
            "cursor updated_at",
            "read orders cursor lookback 2h inclusive",
            true,
        ),
        ("cursor id unique", "read orders cursor lookback 1000", true),
        ("cursor updated_at", "read orders cursor lookback 2h", false),
        ("cursor updated_at", "read orders cursor inclusive", false),
        ("cursor id unique", "read orders cursor", false),
    ] {
        let r = hourly(&orders(cursor), &format!("    {read}\n{upsert}"));
        assert_eq!(
            r.clause("cursor_complete"),
            Value::Bool(complete),
            "{read}: {:#?}",
            r.messages
        );
        assert_eq!(r.has("FL308"), !complete, "{read}: {:#?}", r.messages);
        assert_eq!(r.clause("no_loss"), Value::Bool(complete), "{read}");
        assert_eq!(r.clause("input_stable"), T, "{read}: the range is the pin");
        if complete {
            assert_eq!(
                r.guarantee(),
                "effectively_once",
                "{read}: {:#?}",
                r.messages
            );
        } else {
            assert_eq!(r.guarantee(), "at_most_once", "{read}");
        }
    }
}

#[test]
fn the_source_default_pin_cursor_is_a_cursor_read() {
    let r = hourly(
        &orders("cursor updated_at\n  pin cursor"),
        "    read orders lookback 2h inclusive\n    key input.order_id\n    write copy upsert\n",
    );
    assert_eq!(r.clause("cursor_complete"), T, "{:#?}", r.messages);
    assert!(!r.has("FL003"), "{:#?}", r.messages);
}

#[test]
fn cursor_complete_is_null_without_a_cursor_read() {
    let r = hourly(
        &orders("cursor updated_at"),
        "    read orders pinned snapshot\n    key input.order_id\n    write copy upsert\n",
    );
    assert_eq!(r.clause("cursor_complete"), Value::Null);
    assert!(!r.has("FL308"));
}

#[test]
fn rows_read_again_duplicate_unless_keyed_on_the_identity() {
    // An append of the re-read rows duplicates them.
    let r = hourly(
        &orders("cursor updated_at"),
        "    read orders cursor lookback 2h inclusive\n    write log append\n",
    );
    assert_eq!(r.guarantee(), "at_least_once", "{:#?}", r.messages);
    // An upsert keyed on something else than the identity too.
    let r = hourly(
        &orders("cursor updated_at"),
        "    read orders cursor lookback 2h inclusive\n    key day = interval.start\n    write log replace partition day = interval.start\n",
    );
    assert_eq!(r.clause("idempotent"), F, "{:#?}", r.messages);
    // Keyed on the identity: no duplicate.
    let r = hourly(
        &orders("cursor updated_at"),
        "    read orders cursor lookback 2h inclusive\n    key input.order_id\n    write copy insert_if_absent\n",
    );
    assert_eq!(r.clause("idempotent"), T, "{:#?}", r.messages);
    assert_eq!(r.guarantee(), "effectively_once");
}

#[test]
fn cursor_clauses_need_a_cursor_and_a_column() {
    let r = hourly(
        &orders("cursor updated_at"),
        "    read orders pinned snapshot lookback 2h\n    key input.order_id\n    write copy upsert\n",
    );
    assert!(r.has("FL003"), "{:#?}", r.messages);
    let r = hourly(
        &orders("fields [order_id]"),
        "    read orders cursor lookback 2h inclusive\n    key input.order_id\n    write copy upsert\n",
    );
    assert!(r.has("FL008"), "{:#?}", r.messages);
    let r = hourly(
        &orders("cursor updated_at"),
        "    read orders cursor lookback 0s inclusive\n    key input.order_id\n    write copy upsert\n",
    );
    assert!(r.has("FL002"), "{:#?}", r.messages);
    let r = hourly(
        &orders("cursor updated_at"),
        "    read orders cursor lookback 2h lookback 1h\n    key input.order_id\n    write copy upsert\n",
    );
    assert!(r.has("FL007"), "{:#?}", r.messages);
}

#[test]
fn a_kind_without_the_cursor_pin_is_fl305() {
    let r = hourly(
        "kind legacy {\n  roles source\n  pins snapshot\n  param table: string\n}\n\n\
         source orders: legacy {\n  table \"o\"\n  identity order_id\n  cursor updated_at\n}\n\n\
         sink copy: postgres_table {\n  table \"mart.orders\"\n  primary_key order_id\n}\n",
        "    read orders cursor lookback 2h inclusive\n    key input.order_id\n    write copy upsert\n",
    );
    assert!(r.has("FL305"), "{:#?}", r.messages);
}

fn dim(kind_lines: &str, write: &str) -> Run {
    hourly(
        &format!(
            "kind warehouse {{\n  roles source, sink\n  pins snapshot\n  writes upsert\n  transactional\n{kind_lines}  param table: string\n  param primary_key: key?\n}}\n\n\
             source customers: warehouse {{\n  table \"crm.customers\"\n  identity customer_id\n}}\n\n\
             sink dim: warehouse {{\n  table \"dw.dim_customer\"\n  primary_key customer_id\n}}\n"
        ),
        &format!("    read customers pinned snapshot\n    key input.customer_id\n    {write}\n"),
    )
}

#[test]
fn newest_by_fences_by_version_on_a_conditional_upsert_kind() {
    let r = dim(
        "  conditional_upsert\n",
        "write dim upsert newest by version",
    );
    assert!(!r.has("FL112") && !r.has("FL205"), "{:#?}", r.messages);
    assert_eq!(r.clause("no_regression"), T);
    assert_eq!(r.guarantee(), "effectively_once");
    // Near miss: the kind lacks the line: FL205.
    let r = dim("", "write dim upsert newest by version");
    assert!(r.has("FL205"), "{:#?}", r.messages);
    // Near miss: without `newest by`, an unfenced upsert regresses (FL112).
    let r = dim("  conditional_upsert\n", "write dim upsert");
    assert!(r.has("FL112"), "{:#?}", r.messages);
    assert_eq!(r.clause("no_regression"), F);
    // `newest by` qualifies only `upsert`.
    let r = dim(
        "  conditional_upsert\n",
        "write dim append newest by version",
    );
    assert!(r.has("FL003"), "{:#?}", r.messages);
}

#[test]
fn insert_if_absent_never_regresses_and_does_not_race() {
    let src = "source events: postgres_table {\n  table \"e\"\n  identity order_id\n}\n\n\
               sink first_seen: postgres_table {\n  table \"f\"\n  primary_key order_id\n}\n";
    let two = format!(
        "{src}\npipeline p {{\n  schedule \"@hourly\"\n  start 2026-01-01\n  retries 2\n  timeout 30m\n\n  \
         task a {{\n    read events pinned snapshot\n    key input.order_id\n    write first_seen insert_if_absent\n    run command [\"a\"]\n  }}\n  \
         task b {{\n    read events pinned snapshot\n    key input.order_id\n    write first_seen insert_if_absent\n    run command [\"b\"]\n  }}\n}}\n"
    );
    let r = run(&two);
    assert!(!r.has("FL207"), "{:#?}", r.messages);
    assert_eq!(r.clause("no_regression"), T);
    assert_eq!(r.clause("idempotent"), T);
    assert_eq!(r.guarantee(), "effectively_once", "{:#?}", r.messages);
    // Near miss: two unordered upserts do race.
    let r = run(&two.replace("insert_if_absent", "upsert"));
    assert!(r.has("FL207"), "{:#?}", r.messages);
    // Without a key, an insert-if-absent is FL108; off the primary key, FL107.
    let r = run(&two.replace("    key input.order_id\n", ""));
    assert!(r.has("FL108"), "{:#?}", r.messages);
    let r = run(&two.replace("key input.order_id", "key x = input.order_id"));
    assert!(r.has("FL107"), "{:#?}", r.messages);
    // A kind that does not offer it: FL205.
    let r = run(&two.replace(
        "sink first_seen: postgres_table {\n  table \"f\"\n  primary_key order_id\n}",
        "sink first_seen: files {\n  path \"f/{interval.start}/\"\n}",
    ));
    assert!(r.has("FL205"), "{:#?}", r.messages);
}

fn lake(txn: &str) -> Run {
    hourly(
        "source src: delta_table {\n  location \"in\"\n  identity id\n  fields [id, v]\n}\n\nsink out: delta_table {\n  location \"out\"\n}\n",
        &format!("    read src pinned version\n    write out conditional_commit{txn}\n"),
    )
}

#[test]
fn a_txn_term_is_checked_like_a_key_term() {
    let own = lake("");
    assert_eq!(own.clause("key_stable"), T);
    assert_eq!(own.guarantee(), "exactly_once", "{:#?}", own.messages);
    let interval = lake(" txn interval.start");
    assert_eq!(
        interval.guarantee(),
        "exactly_once",
        "{:#?}",
        interval.messages
    );
    // A committer deduplicating on the run id commits again after a restore.
    let run_id = lake(" txn run.id");
    assert!(run_id.has("FL102"), "{:#?}", run_id.messages);
    assert_eq!(run_id.clause("key_stable"), F);
    assert_eq!(run_id.guarantee(), "at_least_once");
    let attempt = lake(" txn attempt.id");
    assert!(attempt.has("FL101"), "{:#?}", attempt.messages);
    let unknown = lake(" txn input.nope");
    assert!(unknown.has("FL103"), "{:#?}", unknown.messages);
    // `txn` qualifies only `conditional_commit`.
    let r = hourly(
        "source src: delta_table {\n  location \"in\"\n  identity id\n}\n\nsink out: delta_table {\n  location \"out\"\n}\n",
        "    read src pinned version\n    write out append txn run.id\n",
    );
    assert!(r.has("FL003"), "{:#?}", r.messages);
}

#[test]
fn a_replace_needs_a_serializing_kind() {
    let k = |line: &str| {
        hourly(
            &format!("kind wh {{\n  roles source, sink\n  pins snapshot\n  writes replace\n  atomic\n{line}  param table: string\n}}\n\nsource src: wh {{\n  table \"a\"\n  identity id\n}}\n\nsink out: wh {{\n  table \"b\"\n}}\n"),
            "    read src pinned snapshot\n    write out replace partition day = interval.start\n",
        )
    };
    let r = k("");
    assert!(r.has("FL208"), "{:#?}", r.messages);
    assert_eq!(r.clause("idempotent"), F);
    assert_eq!(r.guarantee(), "at_least_once");
    let r = k("  serialized_replace\n");
    assert!(!r.has("FL208"), "{:#?}", r.messages);
    assert_eq!(r.clause("idempotent"), T);
    assert_eq!(r.guarantee(), "effectively_once");
}

fn positions(global: &str, key: &str) -> Run {
    hourly(
        &format!(
            "source log: kafka_topic {{\n  topic \"t\"\n  identity (partition, offset){global}\n  commit after_write\n}}\n\n\
             sink objects: delta_table {{\n  location \"o\"\n  primary_key (partition, offset)\n}}\n\n\
             kind kv {{\n  roles sink\n  writes upsert\n  transactional\n  param table: string\n  param primary_key: key?\n}}\n\n\
             sink store: kv {{\n  table \"s\"\n  primary_key (partition, offset)\n}}\n"
        ),
        &format!("    read log pinned offsets\n    key {key}\n    write store upsert\n"),
    )
}

#[test]
fn a_global_identity_never_recurs() {
    let r = positions(" global", "(input.partition, input.offset)");
    assert!(!r.has("FL112"), "{:#?}", r.messages);
    assert_eq!(r.clause("no_regression"), T);
    // Near miss: the same identity, not global.
    let r = positions("", "(input.partition, input.offset)");
    assert!(r.has("FL112"), "{:#?}", r.messages);
    assert_eq!(r.clause("no_regression"), F);
    // Near miss: a key that holds only part of it (and no interval term,
    // which would keep each interval's keys its own).
    let r = positions(" global", "(partition = input.partition, offset = run.id)");
    assert_eq!(r.clause("no_regression"), F, "{:#?}", r.messages);
}

#[test]
fn a_lossy_kind_loses_and_an_idempotent_producer_does_not_multiply() {
    let k = |lines: &str, internal: &str| {
        hourly(
            &format!("kind stream {{\n  roles source, sink\n  pins offsets\n  offsets\n  commits after_write\n  writes append, transactional\n{lines}  param topic: string\n}}\n\nsource src: files {{\n  path \"in/{{interval.start}}/\"\n  immutable\n  identity id\n}}\n\nsink out: stream {{\n  topic \"o\"\n}}\n"),
            &format!("    read src pinned listing\n    write out append\n{internal}"),
        )
    };
    let r = k("  lossy\n", "");
    assert_eq!(r.clause("no_loss"), F, "{:#?}", r.messages);
    assert_eq!(r.guarantee(), "none");
    let r = k("", "");
    assert_eq!(r.clause("no_loss"), T);
    let r = k("  idempotent_producer\n", "    internal_retries 3\n");
    assert!(!r.has("FL501"), "{:#?}", r.messages);
    let r = k("", "    internal_retries 3\n");
    assert!(r.has("FL501"), "{:#?}", r.messages);
}
