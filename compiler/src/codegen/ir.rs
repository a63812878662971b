//! The target-neutral description of one pipeline that every code generator
//! renders from. It is built from a checked, analysed file (no errors), so
//! every name resolves and every guarantee is derived. Templates see it as
//! JSON; generators may add their own escaped fields next to it.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::vocab::{Guarantee, Mode, OnAmbiguous, ParamValue, Pin, Term, Tracking};

/// One pipeline, ready for code generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pipeline {
    pub name: String,
    /// The `.flow` file as given on the command line (never made absolute).
    pub source_file: String,
    /// When the pipeline runs; `None` for a manual pipeline.
    pub schedule: Option<Schedule>,
    /// The first day of the schedule (`YYYY-MM-DD` in JSON); set whenever
    /// `schedule` is.
    pub start: Option<jiff::civil::Date>,
    /// IANA zone name; `"UTC"` by default.
    pub timezone: String,
    pub catchup: bool,
    /// The pipeline's default image.
    pub image: Option<String>,
    /// Where the runtime keeps the pipeline's state (flowc 0.2).
    #[serde(default)]
    pub state: StateStore,
    /// Whether the runtime keeps any state: a pinned read, a
    /// `conditional_commit` or `append ledger` write, or an outbox.
    #[serde(default)]
    pub needs_state: bool,
    /// The pipeline's own pod settings, the defaults of its tasks' (flowc 0.2).
    #[serde(default, skip_serializing_if = "Pod::is_empty")]
    pub pod: Pod,
    /// `argo_ttl`: how long Argo keeps a finished workflow; `None` for the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argo_ttl_seconds: Option<u64>,
    /// `argo_pod_gc`: Argo's strategy, `none` for no garbage collection;
    /// `None` for the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argo_pod_gc: Option<String>,
    /// `param NAME: TYPE` of a manual pipeline, in source order: given when
    /// a run is triggered, seen by every task as `FLOW_PARAM_<NAME>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<RunParam>,
    /// Tasks in a deterministic topological order.
    pub tasks: Vec<Task>,
}

/// Where a pipeline's state lives: a sink's system, or a local database file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateStore {
    /// The sink's kind (`postgres_table`), or `local`.
    pub kind: String,
    /// The sink whose connection reaches the store; `None` for `local`.
    pub endpoint: Option<Arc<Endpoint>>,
    /// Whether the pipeline names the sink (`state NAME`) rather than it
    /// being the first written sink that can hold state.
    pub named: bool,
}

impl Default for StateStore {
    fn default() -> Self {
        StateStore {
            kind: LOCAL_STATE.to_owned(),
            endpoint: None,
            named: false,
        }
    }
}

/// A run parameter of a manual pipeline (`param month: string`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunParam {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: crate::vocab::ParamType,
    /// Written `TYPE?`: a trigger may leave it out.
    pub optional: bool,
}

impl RunParam {
    /// The environment variable a task reads it from.
    pub fn env_name(&self) -> String {
        format!("FLOW_PARAM_{}", self.name.to_uppercase())
    }
}

/// The `kind` of a [`StateStore`] kept in a local database file.
pub const LOCAL_STATE: &str = "local";

/// The kinds with `state` whose store the Python runtime implements. A
/// pipeline whose store is another kind (`kafka_topic`) keeps its state in
/// the local file, as `local` does (`flowc_runtime/state.py`).
pub const DURABLE_STATE_KINDS: [&str; 5] = [
    "postgres_table",
    "mysql_table",
    "duckdb_table",
    "delta_table",
    "iceberg_table",
];

/// A pipeline's schedule, checked by the front end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    /// The cron expression or preset exactly as written (`@daily`).
    pub text: String,
    /// Five cron fields: a preset's expansion (`0 0 * * *`), else the
    /// expression as written.
    pub cron: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub name: String,
    /// Direct predecessors (explicit `after` plus inferred data-flow edges),
    /// in the pipeline's topological order.
    pub upstream: Vec<String>,
    /// Scheduler retries (N retries = N + 1 attempts).
    pub retries: u32,
    pub internal_retries: u32,
    pub retry_delay_seconds: u64,
    /// The lease; `None` when neither the task nor the pipeline sets `timeout`.
    pub timeout_seconds: Option<u64>,
    /// Resolved: the task's own setting, else the default of docs/reference/guarantees.md.
    pub on_ambiguous: OnAmbiguous,
    /// The task's `run image`, else the pipeline's `image`.
    pub image: Option<String>,
    /// argv, exactly as written.
    pub command: Vec<String>,
    /// `env { ... }` in source order, values exactly as written.
    pub env: Vec<EnvVar>,
    pub nondeterministic: bool,
    pub reads: Vec<Read>,
    pub writes: Vec<Write>,
    pub emits: Vec<Emit>,
    /// Where the task's pod runs: its own settings over its pipeline's.
    #[serde(default, skip_serializing_if = "Pod::is_empty")]
    pub pod: Pod,
    /// The connections the platform's secret store holds: every declaration
    /// the task reads, writes or emits to, and the pipeline's state store,
    /// that says `secret "NAME"`; sorted by variable.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<SecretEnv>,
    /// `airflow_executor` (`local` or `kubernetes`), the task's else the
    /// pipeline's; `None`: a pod when the task has an image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub airflow_executor: Option<String>,
    /// The line of `source_file` where the task is declared (1-based); 0 in
    /// IR written before flowc 0.3, which did not record it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub line: usize,
    /// Why `on_ambiguous` is what it is, in words (the analysis's reason);
    /// empty in IR written before flowc 0.3.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub on_ambiguous_why: String,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What can go wrong with an output, in words (flowc 0.3): the anomaly's
/// kind (`duplicate`) and the scenario that produces it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anomaly {
    pub kind: String,
    pub scenario: String,
}

/// Pod settings (flowc 0.2); every field optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Pod {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_account: Option<String>,
    /// Requests and limits alike.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_pull_policy: Option<String>,
}

impl Pod {
    pub fn is_empty(&self) -> bool {
        *self == Pod::default()
    }
}

/// An environment variable whose value is in the platform's secret store:
/// `FLOW_CONN_<DECL>` from the secret `secret` (a Kubernetes Secret's key
/// `url`, an Airflow Connection's URI), or an effect's `FLOW_TOKEN_<DECL>`
/// (the Kubernetes Secret's key `token`, optional: pods only).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SecretEnv {
    pub name: String,
    pub secret: String,
}

/// The prefix of an effect's token variable, read from a Secret's key `token`.
pub const TOKEN_PREFIX: &str = "FLOW_TOKEN_";

impl SecretEnv {
    /// A token (`FLOW_TOKEN_<DECL>`), not a connection.
    pub fn is_token(&self) -> bool {
        self.name.starts_with(TOKEN_PREFIX)
    }

    /// The key of the Kubernetes Secret that holds the value.
    pub fn key(&self) -> &'static str {
        if self.is_token() {
            "token"
        } else {
            "url"
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvVar {
    pub name: String,
    pub value: String,
}

/// A declared source, sink or effect, as the runtime needs to reach it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoint {
    pub name: String,
    pub kind: String,
    /// Kind parameters as written (durations in seconds; a string in its
    /// template form: placeholders as written, literal braces doubled).
    pub params: BTreeMap<String, ParamValue>,
    /// `fields [..]` when declared.
    pub fields: Option<Vec<String>>,
    /// The kind's coordinator name after any `coordinator` override.
    pub coordinator: Option<String>,
    /// `secret "NAME"`: where the platform keeps the connection URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Read {
    /// Shared by every task that uses the declaration.
    pub source: Arc<Endpoint>,
    pub immutable: bool,
    /// The effective pin (the read's, else the source's default); `None` = unpinned.
    pub pin: Option<Pin>,
    /// Offset commit mode for kinds with offsets (`auto`, `before_write`, `after_write`, `in_transaction`).
    pub commit: Option<String>,
    /// `identity` fields; `Some(vec![])` for `identity none`, `None` when undeclared.
    pub identity: Option<Vec<String>>,
    /// When the interval's input is complete: `marker`, `nonempty` or
    /// `always` (the source's `ready`, else its kind's default). IR
    /// written before flowc 0.2 has none and reads as `always`, what those
    /// versions did.
    #[serde(default = "ready_always")]
    pub ready: String,
    /// The marker's file name for `ready marker`.
    #[serde(default)]
    pub ready_marker: Option<String>,
    /// A cursor read (flowc 0.3): the column, and how the range is read.
    /// `None` for every other read, and in IR written before flowc 0.3.
    #[serde(default)]
    pub cursor: Option<Cursor>,
}

/// An incremental read by a cursor column (flowc 0.3): each interval reads
/// `(bookmark - lookback, high]` (`[...]` when `inclusive`), `high` being
/// the largest value at the first attempt; the bookmark moves to `high`
/// when the write commits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    pub column: String,
    /// No two rows share a value of the column.
    pub unique: bool,
    /// How far behind the bookmark to read again: seconds of a time
    /// cursor, or a count of a numeric one.
    pub lookback_seconds: Option<u64>,
    pub lookback_count: Option<u64>,
    pub inclusive: bool,
}

fn ready_always() -> String {
    "always".to_owned()
}

/// A key term with the column it fills (`COL = TERM`, or the field's own name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyPart {
    pub column: Option<String>,
    #[serde(flatten)]
    pub term: Term,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Write {
    /// Shared by every task that uses the declaration.
    pub sink: Arc<Endpoint>,
    pub mode: Mode,
    /// `replace partition`: the partition column and term.
    pub partition: Option<KeyPart>,
    /// The effective key (the write's, else the task's).
    pub key: Option<Vec<KeyPart>>,
    /// The sink's `primary_key`.
    pub primary_key: Option<Vec<String>>,
    pub guarantee: Guarantee,
    pub required: Guarantee,
    /// `upsert newest by COLUMN` (flowc 0.3): the stored row is replaced
    /// only when the incoming COLUMN is greater.
    #[serde(default)]
    pub newest_by: Option<String>,
    /// `conditional_commit txn TERM` (flowc 0.3): the id the commit
    /// deduplicates on; `None`: flowc's own (pipeline, task, interval start).
    #[serde(default)]
    pub txn: Option<Vec<KeyPart>>,
    /// What can go wrong with the output (flowc 0.3), in the report's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anomalies: Vec<Anomaly>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Emit {
    /// Shared by every task that uses the declaration.
    pub effect: Arc<Endpoint>,
    pub tracking: Tracking,
    /// `via outbox`: the sink holding the outbox.
    pub outbox: Option<String>,
    /// `via idempotency_key K`: the key; for `outbox`, the key of the outbox's write.
    pub key: Option<Vec<KeyPart>>,
    /// `via outbox ... key K`: the key written on the emit (the runtime
    /// derives the fallbacks itself).
    pub effect_key: Option<Vec<KeyPart>>,
    /// The effect kind declares `idempotency key`.
    pub kind_has_idempotency_key: bool,
    pub guarantee: Guarantee,
    pub required: Guarantee,
    /// What can go wrong with the output (flowc 0.3), in the report's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anomalies: Vec<Anomaly>,
}
