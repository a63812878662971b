//! The resolved program: kinds, declarations and pipelines with every name
//! bound and every literal checked. Rules and code generators read this.

use std::collections::{BTreeMap, BTreeSet};

pub use crate::syntax::ast::Role;

pub use super::pod::{Executor, PodDef};
use crate::diagnostic::Code;
use crate::source::FileId;
use crate::span::Span;
use crate::vocab::{CommitMode, Guarantee, Mode, OnAmbiguous, ParamType, ParamValue, Pin, Term};

/// A place in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc {
    pub file: FileId,
    pub span: Span,
}

/// A `writes` capability of a kind.
pub const WRITE_CAPS: [&str; 9] = [
    "upsert",
    "insert_if_absent",
    "replace",
    "append",
    "ledger",
    "check_then_append",
    "conditional_commit",
    "overwrite",
    "transactional",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamDef {
    pub name: String,
    pub ty: ParamType,
    pub optional: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindDef {
    pub name: String,
    pub loc: Loc,
    pub stdlib: bool,
    pub roles: BTreeSet<Role>,
    pub pins: BTreeSet<Pin>,
    pub writes: BTreeSet<String>,
    pub transactional: bool,
    pub versioned: bool,
    /// `fenced`: the sink refuses a write from an older interval than the row's last writer.
    pub fenced: bool,
    /// `atomic`: each commit of one table is atomic (not a transaction across tables).
    pub atomic: bool,
    /// `state`: the runtime can keep flowc's state in this system.
    pub state: bool,
    /// `conditional_upsert` (flowc 0.3): an upsert can replace a row only
    /// when a version column of the incoming row is greater (`newest by`).
    pub conditional_upsert: bool,
    /// `serialized_replace` (flowc 0.3): two live replaces of one partition
    /// never interleave (a lock, a serializable commit).
    pub serialized_replace: bool,
    /// `lossy` (flowc 0.3): the system may acknowledge a write it later drops.
    pub lossy: bool,
    /// `idempotent_producer` (flowc 0.3): the client deduplicates its own
    /// resends within one attempt.
    pub idempotent_producer: bool,
    /// `unenforced_key`: the system accepts a declared primary key but never
    /// enforces it (`BigQuery`, Snowflake, Redshift): nothing stops a second
    /// row with the same key.
    pub unenforced_key: bool,
    /// `eventual_upsert`: an upsert inserts a new version of the row and the
    /// system removes older versions at an unknown later time
    /// (`ReplacingMergeTree`); readers see several versions until then.
    pub eventual_upsert: bool,
    /// `deduplicates_inserts`: the system silently drops an insert whose
    /// block is identical to a recent one (`ClickHouse` insert
    /// deduplication), even after the first block was deleted.
    pub deduplicates_inserts: bool,
    pub offsets: bool,
    pub commits: BTreeSet<CommitMode>,
    /// The first mode the `commits` line lists: what a read with no commit
    /// mode is assumed to do when the kind does not list `after_write`.
    pub first_commit: Option<CommitMode>,
    pub coordinator: Option<String>,
    /// `idempotency key`
    pub idempotency_key: bool,
    pub params: Vec<ParamDef>,
}

/// A source, sink or effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclDef {
    pub name: String,
    pub role: Role,
    pub kind: String,
    /// Index into `Program::kinds`.
    pub kind_idx: usize,
    pub kind_loc: Loc,
    pub loc: Loc,
    pub name_loc: Loc,
    pub immutable: bool,
    /// Where `immutable`/`mutable` is written.
    pub mutability_loc: Option<Loc>,
    /// The default pin: `Some(None)` is `pin none`.
    pub pin: Option<Option<Pin>>,
    pub pin_loc: Option<Loc>,
    /// `identity`: `Some(vec![])` for `identity none`.
    pub identity: Option<Vec<String>>,
    pub identity_loc: Option<Loc>,
    /// `cursor COLUMN [unique]` (flowc 0.3): the column an incremental read
    /// goes by, whether no two rows share a value of it, and where.
    pub cursor: Option<(String, bool, Loc)>,
    /// `identity (F, ...) global` (flowc 0.3): no two intervals ever read
    /// one identity (a log position, an id from a sequence).
    pub identity_global: bool,
    pub fields: Option<Vec<String>>,
    pub commit: Option<CommitMode>,
    pub commit_loc: Option<Loc>,
    pub primary_key: Option<Vec<String>>,
    pub primary_key_loc: Option<Loc>,
    /// The kind's coordinator system (the kind's `coordinator` line).
    pub coordinator: Option<String>,
    /// The cluster of that system the declaration is on: its own
    /// `coordinator "CLUSTER"` line, else `"default"`.
    pub cluster: String,
    /// `ready ...` as written on a source, and where.
    pub ready: Option<(Ready, Loc)>,
    /// `secret "NAME"` (flowc 0.2): the platform's secret (a Kubernetes
    /// Secret, an Airflow Connection) that holds the connection URL, and
    /// where it is written.
    pub secret: Option<(String, Loc)>,
    /// Where each kind parameter's value is written.
    pub param_locs: BTreeMap<String, Loc>,
    /// Kind parameters; a `string` one in its template form (placeholders
    /// as written, literal braces doubled: `literal::template`).
    pub params: BTreeMap<String, ParamValue>,
}

/// When an interval's input is complete (a source's `ready`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ready {
    /// `ready marker "NAME"`: a file of that name is in the interval's folder.
    Marker(String),
    /// `ready nonempty`: the folder exists and holds at least one data file.
    Nonempty,
    /// `ready always`: an empty input is legitimate.
    Always,
}

impl Ready {
    /// The word after `ready`.
    pub fn word(&self) -> &'static str {
        match self {
            Ready::Marker(_) => "marker",
            Ready::Nonempty => "nonempty",
            Ready::Always => "always",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowDef {
    pub code: Code,
    pub reason: String,
    pub loc: Loc,
    /// The task or pipeline it covers.
    pub scope: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPartDef {
    pub column: Option<String>,
    pub term: Term,
    /// Where the term is written (without its `column =`).
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyDef {
    pub parts: Vec<KeyPartDef>,
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadDef {
    /// Index into `Program::decls`.
    pub decl: usize,
    pub loc: Loc,
    /// Where the read names its source.
    pub source_loc: Loc,
    /// `pinned P` (`Some(Some(P))`) or `unpinned` (`Some(None)`).
    pub pin: Option<Option<Pin>>,
    pub pin_loc: Option<Loc>,
    pub commit: Option<CommitMode>,
    pub commit_loc: Option<Loc>,
    /// `lookback L` of a cursor read (flowc 0.3): seconds for a duration,
    /// a count for an integer, and where.
    pub lookback: Option<(Lookback, Loc)>,
    /// `inclusive` of a cursor read (flowc 0.3): where.
    pub inclusive: Option<Loc>,
}

/// How far behind the bookmark a cursor read reads again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lookback {
    /// A duration, in seconds (a time cursor).
    Seconds(u64),
    /// A count of cursor values (a numeric cursor).
    Count(u64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteDef {
    pub decl: usize,
    pub loc: Loc,
    pub mode: Mode,
    pub mode_loc: Loc,
    pub partition: Option<KeyPartDef>,
    /// The write's own `key`.
    pub key: Option<KeyDef>,
    pub require: Option<(Guarantee, Loc)>,
    /// `newest by COLUMN` of an upsert (flowc 0.3), and where.
    pub newest_by: Option<(String, Loc)>,
    /// `txn TERM` of a conditional commit (flowc 0.3).
    pub txn: Option<KeyDef>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViaDef {
    Untracked,
    /// `via outbox [S]`: the named sink (index into decls) if any.
    Outbox(Option<(usize, Loc)>),
    IdempotencyKey(KeyDef),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmitDef {
    pub decl: usize,
    pub loc: Loc,
    pub via: ViaDef,
    pub via_loc: Option<Loc>,
    /// `via outbox [S] key K`: the effect's own key.
    pub key: Option<KeyDef>,
    pub require: Option<(Guarantee, Loc)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunDef {
    pub image: Option<String>,
    pub command: Vec<String>,
    pub loc: Loc,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskDef {
    pub name: String,
    pub loc: Loc,
    pub name_loc: Loc,
    pub after: Vec<(String, Loc)>,
    pub reads: Vec<ReadDef>,
    pub key: Option<KeyDef>,
    pub writes: Vec<WriteDef>,
    pub emits: Vec<EmitDef>,
    pub retries: Option<(u32, Loc)>,
    pub internal_retries: Option<(u32, Loc)>,
    pub retry_delay: Option<u64>,
    pub timeout: Option<(u64, Loc)>,
    pub nondeterministic: Option<Loc>,
    pub on_ambiguous: Option<(OnAmbiguous, Loc)>,
    pub require: Option<(Guarantee, Loc)>,
    pub run: Option<RunDef>,
    pub env: Vec<(String, String)>,
    /// Where each `env` value is written, in the order of `env`.
    pub env_locs: Vec<Loc>,
    /// The task's own pod settings (flowc 0.2).
    pub pod: PodDef,
    /// `airflow_executor`, when the task sets it.
    pub executor: Option<Executor>,
    pub allows: Vec<AllowDef>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineDef {
    pub name: String,
    pub loc: Loc,
    pub name_loc: Loc,
    /// The schedule as written and its five-field form.
    pub schedule: Option<(String, String)>,
    pub schedule_loc: Option<Loc>,
    /// A `schedule` whose text is refused (FL002): the pipeline is meant to
    /// be scheduled, so nothing that would follow from its having no
    /// schedule is reported on top (a run-scoped `interval.start`, FL102).
    pub schedule_invalid: bool,
    pub start: Option<String>,
    pub timezone: String,
    /// `catchup`: `true` unless the pipeline says `catchup false`.
    pub catchup: bool,
    /// Where `catchup` is written.
    pub catchup_loc: Option<Loc>,
    pub retries: Option<(u32, Loc)>,
    pub retry_delay: Option<u64>,
    pub timeout: Option<(u64, Loc)>,
    pub image: Option<String>,
    pub require: Option<(Guarantee, Loc)>,
    /// `state NAME`: the sink (index into decls) that keeps the pipeline's
    /// state, and where the setting is.
    pub state: Option<(usize, Loc)>,
    /// The default pod settings of the pipeline's tasks (flowc 0.2).
    pub pod: PodDef,
    /// `airflow_executor`, when the pipeline sets it.
    pub executor: Option<Executor>,
    /// `argo_ttl`: how long Argo keeps a finished workflow, in seconds.
    pub argo_ttl: Option<u64>,
    /// `argo_pod_gc`: Argo's strategy, or `none` for `argo_pod_gc none`.
    pub argo_pod_gc: Option<String>,
    /// `param NAME: TYPE`: what a manual run is given when it is triggered.
    pub params: Vec<ParamDef>,
    pub allows: Vec<AllowDef>,
    pub tasks: Vec<Box<TaskDef>>,
}

/// Everything of a run, resolved.
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub kinds: Vec<KindDef>,
    pub decls: Vec<DeclDef>,
    pub pipelines: Vec<PipelineDef>,
    /// Files whose pipelines are checked for unused declarations (FL704).
    pub files_with_pipelines: BTreeSet<FileId>,
    /// Declarations some statement names (even one that is otherwise wrong).
    pub referenced: BTreeSet<usize>,
}

impl Program {
    pub fn kind_of(&self, decl: &DeclDef) -> &KindDef {
        &self.kinds[decl.kind_idx]
    }
}
