//! flowc 0.2's loss: `no_regression` (overwrite, upsert, replace partition),
//! `every_interval_runs` (catch-up), loss reaching effects, coordinator
//! clusters and atomic-but-not-transactional kinds, checked through
//! `report --format json` and the findings, each with a near miss.

use serde_json::Value;

struct Run {
    codes: Vec<String>,
    report: Value,
}

impl Run {
    fn has(&self, code: &str) -> bool {
        self.codes.iter().any(|c| c == code)
    }

    /// Output `i` of task `task` of the first pipeline.
    fn output(&self, task: &str, i: usize) -> &Value {
        let tasks = self.report["pipelines"][0]["tasks"]
            .as_array()
            .expect("tasks");
        let t = tasks
            .iter()
            .find(|t| t["name"] == task)
            .expect("task in report");
        &t["outputs"][i]
    }

    fn guarantee(&self, task: &str, i: usize) -> &str {
        self.output(task, i)["guarantee"]
            .as_str()
            .expect("guarantee")
    }

    fn clause(&self, task: &str, i: usize, clause: &str) -> Value {
        self.output(task, i)["clauses"][clause].clone()
    }
}

fn run(src: &str) -> Run {
    let o = crate::common::check_text(src);
    let codes = o
        .diagnostics
        .iter()
        .filter(|d| d.suppressed.is_none())
        .map(|d| d.code.as_str().to_string())
        .collect();
    let report: Value = crate::common::report_json(&o);
    Run { codes, report }
}

const T: Value = Value::Bool(true);
const F: Value = Value::Bool(false);

const FILES_SOURCE: &str = "source src: files {\n  path \"in/{interval.start}/\"\n  immutable\n  identity id\n  fields [id, v, event_date]\n}\n";

/// A daily pipeline (`settings` added to it) with one task `t` whose body is `body`.
fn daily(decls: &str, settings: &str, body: &str) -> String {
    format!(
        "{decls}\npipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n  retries 1\n  timeout 30m\n{settings}\n  task t {{\n{body}    run command [\"job\"]\n  }}\n}}\n"
    )
}

fn files_sink(path: &str) -> String {
    format!("{FILES_SOURCE}\nsink out: files {{\n  path \"{path}\"\n}}\n")
}

#[test]
fn an_overwrite_of_an_interval_scoped_sink_keeps_newer_output() {
    let scoped = run(&daily(
        &files_sink("out/dt={interval.start}/"),
        "",
        "    read src pinned listing\n    write out overwrite\n",
    ));
    assert!(scoped.codes.is_empty(), "{:?}", scoped.codes);
    assert_eq!(scoped.guarantee("t", 0), "effectively_once");
    assert_eq!(scoped.clause("t", 0, "no_regression"), T);
    assert_eq!(scoped.clause("t", 0, "idempotent"), T);
    assert_eq!(scoped.clause("t", 0, "no_loss"), T);
    assert_eq!(scoped.clause("t", 0, "every_interval_runs"), T);

    // The near miss: the same overwrite of the whole folder.
    let whole = run(&daily(
        &files_sink("out/"),
        "",
        "    read src pinned listing\n    write out overwrite\n",
    ));
    assert!(
        whole.has("FL204") && whole.has("FL900"),
        "{:?}",
        whole.codes
    );
    assert_eq!(whole.guarantee("t", 0), "at_most_once");
    assert_eq!(whole.clause("t", 0, "no_regression"), F);
    assert_eq!(whole.clause("t", 0, "idempotent"), T);
    assert_eq!(whole.clause("t", 0, "no_loss"), F);
}

#[test]
fn an_overwrite_that_reads_its_own_sink_duplicates() {
    let body = "    read src pinned listing\n    read out pinned listing\n    write out overwrite\n    require none\n";
    let scoped = run(&daily(&files_sink("out/dt={interval.start}/"), "", body));
    assert_eq!(scoped.clause("t", 0, "idempotent"), F);
    assert_eq!(scoped.clause("t", 0, "no_regression"), T);
    assert_eq!(scoped.guarantee("t", 0), "at_least_once");
    let whole = run(&daily(&files_sink("out/"), "", body));
    assert_eq!(whole.clause("t", 0, "idempotent"), F);
    assert_eq!(whole.guarantee("t", 0), "none");
}

#[test]
fn fl204_names_only_the_cures_the_kind_offers() {
    let o = crate::common::check_text(&daily(
        &files_sink("out/"),
        "",
        "    read src pinned listing\n    write out overwrite\n    require at_most_once\n",
    ));
    let d = o
        .diagnostics
        .iter()
        .find(|d| d.code.as_str() == "FL204")
        .expect("FL204");
    let help = d.help.clone().unwrap_or_default();
    assert!(help.contains("`path`"), "{help}");
    // `files` offers neither `replace` nor `conditional_commit`.
    assert!(!help.contains("replace partition"), "{help}");
    assert!(!help.contains("conditional_commit"), "{help}");

    let delta = "source src: delta_table {\n  location \"s3://b/in\"\n  identity id\n}\n\nsink out: delta_table {\n  location \"s3://b/out\"\n}\n";
    let o = crate::common::check_text(&daily(
        delta,
        "",
        "    read src pinned version\n    write out overwrite\n    require at_most_once\n",
    ));
    let d = o
        .diagnostics
        .iter()
        .find(|d| d.code.as_str() == "FL204")
        .expect("FL204 on delta");
    let help = d.help.clone().unwrap_or_default();
    assert!(
        help.contains("replace partition day = interval.start"),
        "{help}"
    );
    assert!(help.contains("conditional_commit"), "{help}");
}

fn pg_sink() -> String {
    format!(
        "{FILES_SOURCE}\nsink out: postgres_table {{\n  table \"t\"\n  primary_key (day, id)\n}}\n"
    )
}

#[test]
fn a_partition_taken_from_the_data_regresses() {
    let interval = run(&daily(
        &pg_sink(),
        "",
        "    read src pinned listing\n    write out replace partition day = interval.start\n",
    ));
    assert!(interval.codes.is_empty(), "{:?}", interval.codes);
    assert_eq!(interval.clause("t", 0, "no_regression"), T);
    assert_eq!(interval.guarantee("t", 0), "effectively_once");

    for term in [
        "day = input.event_date",
        "input.event_date",
        "day = output.event_date",
    ] {
        let data = run(&daily(
            &pg_sink(),
            "",
            &format!("    read src pinned listing\n    write out replace partition {term}\n"),
        ));
        assert!(data.has("FL110"), "{term}: {:?}", data.codes);
        assert_eq!(data.clause("t", 0, "no_regression"), F, "{term}");
        assert_eq!(data.guarantee("t", 0), "at_most_once", "{term}");
    }

    // Any other term keeps it: a `run.id` partition never replaces another run's rows.
    let run_id = run(&daily(
        &pg_sink(),
        "",
        "    read src pinned listing\n    write out replace partition day = run.id\n",
    ));
    assert!(!run_id.has("FL110"), "{:?}", run_id.codes);
    assert_eq!(run_id.clause("t", 0, "no_regression"), T);
}

#[test]
fn an_upsert_regresses_unless_its_kind_is_fenced() {
    let body = "    read src pinned listing\n    key input.id\n    write out upsert\n";
    let sqlite =
        format!("{FILES_SOURCE}\nsink out: sqlite_table {{\n  table \"t\"\n  primary_key id\n}}\n");
    let fenced = run(&daily(&sqlite, "", body));
    assert!(fenced.codes.is_empty(), "{:?}", fenced.codes);
    assert_eq!(fenced.clause("t", 0, "no_regression"), T);
    assert_eq!(fenced.guarantee("t", 0), "effectively_once");

    let kind = "kind my_table {\n  roles sink\n  writes upsert\n  transactional\n  param table: string\n  param primary_key: key?\n}\n";
    let own = format!(
        "{kind}\n{FILES_SOURCE}\nsink out: my_table {{\n  table \"t\"\n  primary_key id\n}}\n"
    );
    let unfenced = run(&daily(&own, "", body));
    assert!(
        unfenced.has("FL112") && unfenced.has("FL900"),
        "{:?}",
        unfenced.codes
    );
    assert_eq!(unfenced.clause("t", 0, "no_regression"), F);
    assert_eq!(unfenced.guarantee("t", 0), "at_most_once");

    // The user's kind that says `fenced` is trusted.
    let trusted = own.replace("  transactional\n", "  transactional\n  fenced\n");
    let r = run(&daily(&trusted, "", body));
    assert!(r.codes.is_empty(), "{:?}", r.codes);
}

const EFFECT: &str = "effect hook: webhook {\n  url \"https://h.example/x\"\n}\n";

#[test]
fn catchup_false_with_an_interval_scoped_read_skips_intervals() {
    let decls = format!("{}\n{EFFECT}", files_sink("out/dt={interval.start}/"));
    let body = "    read src pinned listing\n    write out overwrite\n    emit hook via idempotency_key input.id\n";
    let skipped = run(&daily(
        &decls,
        "  catchup false\n  require at_most_once\n",
        body,
    ));
    assert!(skipped.has("FL111"), "{:?}", skipped.codes);
    assert!(!skipped.has("FL900"), "{:?}", skipped.codes);
    for i in 0..2 {
        assert_eq!(
            skipped.clause("t", i, "every_interval_runs"),
            F,
            "output {i}"
        );
        assert_eq!(skipped.clause("t", i, "no_loss"), F, "output {i}");
        assert_eq!(skipped.guarantee("t", i), "at_most_once", "output {i}");
    }
    // The write's own clause still holds: the loss is the task's.
    assert_eq!(skipped.clause("t", 0, "no_regression"), T);

    // Catch-up is the default.
    let default = run(&daily(&decls, "", body));
    assert!(default.codes.is_empty(), "{:?}", default.codes);
    assert_eq!(default.clause("t", 0, "every_interval_runs"), T);
    assert_eq!(default.clause("t", 1, "every_interval_runs"), T);
    assert_eq!(default.guarantee("t", 1), "effectively_once");

    // A source that is not interval-scoped loses nothing when skipped.
    let table = "source src: postgres_table {\n  table \"s\"\n  pin snapshot\n  identity id\n  fields [id]\n}\n\nsink out: postgres_table {\n  table \"t\"\n  primary_key id\n}\n";
    let r = run(&daily(
        table,
        "  catchup false\n",
        "    read src\n    key input.id\n    write out upsert\n",
    ));
    assert!(r.codes.is_empty(), "{:?}", r.codes);
    assert_eq!(r.clause("t", 0, "every_interval_runs"), T);
}

#[test]
fn catchup_means_nothing_in_a_manual_pipeline() {
    let src = format!(
        "{}\npipeline p {{\n  schedule none\n  catchup false\n  timeout 30m\n\n  task t {{\n    read src pinned listing\n    write out overwrite\n    run command [\"job\"]\n  }}\n}}\n",
        files_sink("out/dt={interval.start}/")
    );
    let r = run(&src);
    assert!(!r.has("FL111"), "{:?}", r.codes);
    assert_eq!(r.clause("t", 0, "every_interval_runs"), T);
}

const KAFKA_AUTO: &str =
    "source src: kafka_topic {\n  topic \"in\"\n  commit auto\n  identity id\n  fields [id]\n}\n";

#[test]
fn loss_from_offsets_reaches_effects() {
    let decls =
        format!("{KAFKA_AUTO}\n{EFFECT}\neffect note: slack_message {{\n  channel \"#x\"\n}}\n");
    let r = run(&daily(
        &decls,
        "  require none\n",
        "    read src pinned offsets\n    emit hook via idempotency_key input.id\n    emit note\n",
    ));
    assert_eq!(r.guarantee("t", 0), "at_most_once");
    assert_eq!(r.clause("t", 0, "no_loss"), F);
    assert_eq!(r.clause("t", 0, "key_stable"), T);
    assert_eq!(r.guarantee("t", 1), "none");
    assert_eq!(r.clause("t", 1, "no_loss"), F);
    // Clauses that do not apply to a bare emit are null.
    assert_eq!(r.clause("t", 1, "key_stable"), Value::Null);
    assert_eq!(r.clause("t", 1, "input_stable"), Value::Null);

    // The near miss: offsets committed after the write lose nothing.
    let kept = decls.replace("commit auto", "commit after_write");
    let r = run(&daily(
        &kept,
        "  require none\n",
        "    read src pinned offsets\n    emit hook via idempotency_key input.id\n    emit note\n",
    ));
    assert_eq!(r.clause("t", 0, "no_loss"), T);
    assert_eq!(r.guarantee("t", 1), "at_least_once");
}

#[test]
fn an_outbox_takes_the_meet_with_the_loss() {
    let decls = format!(
        "{KAFKA_AUTO}\n{EFFECT}\nsink out: postgres_table {{\n  table \"t\"\n  primary_key id\n}}\n"
    );
    let r = run(&daily(
        &decls,
        "  require none\n",
        "    read src pinned offsets\n    key input.id\n    write out upsert\n    emit hook via outbox\n",
    ));
    assert_eq!(r.guarantee("t", 0), "at_most_once");
    assert_eq!(r.guarantee("t", 1), "at_most_once");
    assert_eq!(r.clause("t", 1, "no_loss"), F);
}

fn transactional_case(source_cluster: &str, sink: &str) -> String {
    format!(
        "source src: kafka_topic {{\n  topic \"in\"\n  commit in_transaction\n  identity id\n  fields [id]\n{source_cluster}}}\n\n{sink}\npipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n  timeout 30m\n\n  task t {{\n    read src pinned offsets\n    write out transactional\n    run command [\"job\"]\n  }}\n}}\n"
    )
}

#[test]
fn a_coordinator_is_a_cluster_of_one_system() {
    let topic = |cluster: &str| format!("sink out: kafka_topic {{\n  topic \"o\"\n{cluster}}}\n");
    // Both on the default cluster of Kafka.
    let r = run(&transactional_case("", &topic("")));
    assert!(!r.has("FL303"), "{:?}", r.codes);
    assert_eq!(r.clause("t", 0, "shared_coordinator"), T);
    assert_eq!(r.guarantee("t", 0), "exactly_once");
    // The same cluster named on both.
    let c = "  coordinator \"eu\"\n";
    let r = run(&transactional_case(c, &topic(c)));
    assert_eq!(r.clause("t", 0, "shared_coordinator"), T, "{:?}", r.codes);
    // Two clusters.
    let r = run(&transactional_case(c, &topic("  coordinator \"us\"\n")));
    assert!(r.has("FL303"), "{:?}", r.codes);
    assert_eq!(r.clause("t", 0, "shared_coordinator"), F);
    // A PostgreSQL sink naming a "kafka" cluster is still PostgreSQL.
    let pg = "sink out: postgres_table {\n  table \"t\"\n  coordinator \"kafka\"\n}\n";
    let r = run(&transactional_case("  coordinator \"kafka\"\n", pg));
    assert!(r.has("FL303"), "{:?}", r.codes);
    assert_eq!(r.clause("t", 0, "shared_coordinator"), F);
}

#[test]
fn a_kind_without_coordinator_shares_with_nothing() {
    let kind = "kind my_log {\n  roles source, sink\n  offsets\n  commits after_write, in_transaction\n  writes transactional\n  param topic: string\n}\n";
    let src = format!(
        "{kind}\nsource src: my_log {{\n  topic \"in\"\n  commit in_transaction\n  identity id\n  fields [id]\n}}\n\nsink out: my_log {{\n  topic \"o\"\n}}\n\npipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n  timeout 30m\n\n  task t {{\n    read src\n    write out transactional\n    run command [\"job\"]\n  }}\n}}\n"
    );
    let r = run(&src);
    assert!(r.has("FL303"), "{:?}", r.codes);
    assert_eq!(r.clause("t", 0, "shared_coordinator"), F);
}

const DELTA: &str = "source src: delta_table {\n  location \"s3://b/in\"\n  identity id\n  fields [id]\n}\n\nsink out: delta_table {\n  location \"s3://b/out\"\n  primary_key (day, id)\n}\n";

#[test]
fn an_atomic_table_replaces_a_partition_but_holds_no_outbox() {
    let r = run(&daily(
        DELTA,
        "",
        "    read src pinned version\n    write out replace partition day = interval.start\n",
    ));
    assert!(r.codes.is_empty(), "{:?}", r.codes);
    assert_eq!(r.guarantee("t", 0), "effectively_once");

    let decls = format!("{DELTA}\n{EFFECT}");
    let r = run(&daily(
        &decls,
        "",
        "    read src pinned version\n    write out conditional_commit\n    emit hook via outbox\n",
    ));
    assert!(r.has("FL404"), "{:?}", r.codes);

    // The near miss: a transactional PostgreSQL write holds it.
    let pg = format!("{}\n{EFFECT}", pg_sink());
    let r = run(&daily(
        &pg,
        "",
        "    read src pinned listing\n    write out replace partition day = interval.start\n    emit hook via outbox\n",
    ));
    assert!(!r.has("FL404"), "{:?}", r.codes);
}

#[test]
fn a_ledger_needs_a_transaction_not_one_atomic_table() {
    let kind = |cap: &str| {
        format!("kind my_table {{\n  roles sink\n  writes ledger, replace\n  {cap}\n  param table: string\n  param primary_key: key?\n}}\n")
    };
    let body = |mode: &str| {
        format!("    read src pinned listing\n    key input.id\n    write out {mode}\n    require none\n")
    };
    let decls = |cap: &str| {
        format!("{}\n{FILES_SOURCE}\nsink out: my_table {{\n  table \"t\"\n  primary_key (day, id)\n}}\n", kind(cap))
    };
    let r = run(&daily(&decls("atomic"), "", &body("append ledger")));
    assert!(r.has("FL206"), "{:?}", r.codes);
    let r = run(&daily(
        &decls("atomic"),
        "",
        &body("replace partition day = interval.start"),
    ));
    assert!(!r.has("FL206"), "{:?}", r.codes);
    let r = run(&daily(&decls("transactional"), "", &body("append ledger")));
    assert!(!r.has("FL206"), "{:?}", r.codes);
}

/// An unfenced upsert (`mysql_table` is not `fenced`) keyed by `KEY`, holding
/// the outbox of a webhook; `extra`: more pipeline settings.
fn unfenced_upsert(key: &str, extra: &str) -> String {
    format!(
        "source raw: files {{\n  path \"in/{{interval.start}}/\"\n  immutable\n  identity id\n}}\n\n\
         sink db: mysql_table {{\n  table \"o\"\n  primary_key (id, day)\n}}\n\n\
         effect hook: webhook {{\n  url \"https://example.com/hook\"\n}}\n\n\
         pipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n  timeout 10m\n  retries 2\n{extra}\n\
         \n  task t {{\n    read raw pinned listing\n    key {key}\n    write db upsert\n\
         \x20   emit hook via outbox db\n    run command [\"python\", \"-m\", \"t\"]\n  }}\n}}\n"
    )
}

#[test]
fn an_unfenced_upsert_keyed_by_the_interval_cannot_regress() {
    // Each interval writes keys of its own: nothing of another interval to put back.
    let r = run(&unfenced_upsert("(input.id, day = interval.start)", ""));
    assert!(!r.has("FL112"), "{:?}", r.codes);
    assert_eq!(r.clause("t", 0, "no_regression"), Value::Bool(true));
    assert_eq!(r.guarantee("t", 0), "effectively_once");
    // Near miss: keyed by the record alone, the key recurs across intervals.
    let r = run(&unfenced_upsert("(input.id, day = input.day)", ""));
    assert!(r.has("FL112"), "{:?}", r.codes);
    assert_eq!(r.clause("t", 0, "no_regression"), Value::Bool(false));
    assert_eq!(r.guarantee("t", 0), "at_most_once");
}

#[test]
fn an_outbox_message_does_not_regress_with_its_write() {
    // The write puts older values back on a re-run (at_most_once), but its
    // outbox rows have fixed ids and are sent once: the message is not lost.
    let r = run(&unfenced_upsert("(input.id, day = input.day)", ""));
    assert_eq!(r.guarantee("t", 0), "at_most_once");
    assert_eq!(r.guarantee("t", 1), "effectively_once");
    // Near miss: skipped intervals lose the messages too.
    let r = run(&unfenced_upsert(
        "(input.id, day = input.day)",
        "  catchup false",
    ));
    assert_eq!(r.guarantee("t", 1), "at_most_once");
}
