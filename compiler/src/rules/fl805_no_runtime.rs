//! FL805 `no-runtime`: `scaffold` for a kind that has no runtime yet.
//!
//! Found by the code generators (`codegen`), for the target being built.

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL805,
    check: None,
};

/// The help of a problem with flowc's own Python templates (never with the
/// user's input).
pub(crate) const TEMPLATE_BUG_HELP: &str = "this is a bug in flowc's Python templates";

/// The help when a kind has no Python runtime.
pub(crate) const NO_RUNTIME_HELP: &str = "the Python runtime supports sqlite_table, postgres_table, duckdb_table, mysql_table, files, delta_table, iceberg_table and kafka_topic, and the effects http_request, webhook, slack_message and email; other kinds (BigQuery, Snowflake, Redshift, ClickHouse) are analysis-only: implement the protocol in your task code (docs/targets/deploying.md, \"Kinds without a runtime\")";

/// The message when flowc's table of what the runtime supports does not
/// parse (`err`).
pub(crate) fn capabilities_unparsable(err: &dyn std::fmt::Display) -> String {
    format!("templates/python/capabilities.json does not parse: {err}")
}

/// The message when the scaffold of `task` cannot be rendered (`err`).
pub(crate) fn scaffold_unrenderable(task: &str, err: &dyn std::fmt::Display) -> String {
    format!("the Python scaffold for task `{task}` cannot be rendered: {err}")
}

/// The message and help for a `files` declaration `name` whose `path` is
/// at `scheme://`, which the Python runtime cannot read or write.
pub(crate) fn location_unreadable(name: &str, scheme: &str) -> (String, String) {
    (
        format!("`{name}` is at `{scheme}://`, which the Python runtime cannot read or write: it would find no files there"),
        "the runtime reads and writes local folders (a relative path or `file://...`) and `s3://`, `gs://` and `az://` prefixes: use one of those, or mount the store and point `FLOW_CONN_<NAME>` at it".to_owned(),
    )
}

/// The message and help for a read of `source`, of kind `kind`, which has
/// no Python runtime.
pub(crate) fn read_without_runtime(kind: &str, source: &str) -> (String, String) {
    (
        format!("kind `{kind}` (read of `{source}`) has no Python runtime yet"),
        NO_RUNTIME_HELP.to_owned(),
    )
}

/// The message and help for a read of `source`, of kind `kind`, whose
/// runtime cannot pin by `pin`.
pub(crate) fn read_without_pin(kind: &str, source: &str, pin: &str) -> (String, String) {
    (
        format!("kind `{kind}` (read of `{source}`) has no Python runtime for pin `{pin}`"),
        "pin files by listing, SQLite and PostgreSQL tables by snapshot or cursor, DuckDB and MySQL tables by cursor, delta tables by version or snapshot".to_owned(),
    )
}

/// The message and help for a write to `sink`, of kind `kind`, which has
/// no Python runtime.
pub(crate) fn write_without_runtime(kind: &str, sink: &str) -> (String, String) {
    (
        format!("kind `{kind}` (write to `{sink}`) has no Python runtime yet"),
        NO_RUNTIME_HELP.to_owned(),
    )
}

/// The message and help for a write to `sink`, of kind `kind`, whose
/// runtime has no write mode `mode`.
pub(crate) fn write_without_mode(kind: &str, sink: &str, mode: &str) -> (String, String) {
    (
        format!("kind `{kind}` (write to `{sink}`) has no Python runtime for mode `{mode}`"),
        NO_RUNTIME_HELP.to_owned(),
    )
}

/// The message and help for an emit of `effect`, of kind `kind`, which has
/// no Python runtime.
pub(crate) fn emit_without_runtime(kind: &str, effect: &str) -> (String, String) {
    (
        format!("kind `{kind}` (emit of `{effect}`) has no Python runtime yet"),
        NO_RUNTIME_HELP.to_owned(),
    )
}

/// The message and help for the outbox of `effect`, kept in a sink of kind
/// `kind` whose runtime holds no outbox.
pub(crate) fn outbox_without_runtime(kind: &str, effect: &str) -> (String, String) {
    (
        format!("kind `{kind}` (outbox of `{effect}`) has no Python runtime for an outbox"),
        "keep the outbox in a sqlite_table, postgres_table, duckdb_table or mysql_table the task writes".to_owned(),
    )
}

/// The message and help for the outbox of `effect`, which names no sink the
/// task writes.
pub(crate) fn outbox_without_sink(effect: &str) -> (String, String) {
    (
        format!("the outbox of `{effect}` names no sink the task writes"),
        "name a transactional sink of this task in `via outbox SINK`".to_owned(),
    )
}

/// The help when a Spark task uses what the Spark runtime does not run.
pub(crate) const NO_SPARK_RUNTIME_HELP: &str = "the Spark runtime reads and writes delta_table and iceberg_table (pins `version` and `snapshot`; writes `conditional_commit`, `append`, `overwrite` and `replace partition`) and runs no effects: give the rest its own Python task, or run this task with `python -m` (docs/scaffold.md, \"Spark tasks\")";

/// The message and help for `what` (a read, write or emit, in words) in a
/// task that runs with `spark-submit`, which the Spark runtime cannot run.
pub(crate) fn spark_without_runtime(what: &str) -> (String, String) {
    (
        format!("{what} has no Spark runtime (the task runs with `spark-submit`)"),
        NO_SPARK_RUNTIME_HELP.to_owned(),
    )
}
