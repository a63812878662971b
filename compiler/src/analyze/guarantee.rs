//! The guarantee derivation of docs/reference/guarantees.md: for every output (each `write` and
//! each `emit`), the clauses and the guarantee they add up to.

use std::collections::BTreeSet;

use super::graph::TaskGraph;
use super::model::{
    DeclDef, EmitDef, KeyDef, KeyPartDef, Loc, PipelineDef, Program, Role, TaskDef, ViaDef,
    WriteDef,
};
use crate::diagnostic::Diagnostic;
use crate::source::FileId;
use crate::vocab::{CommitMode, Guarantee, Mode, OnAmbiguous, Term, Tracking};

/// The clause values of one output; `None` where a clause does not apply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Clauses {
    pub input_stable: Option<bool>,
    pub deterministic: Option<bool>,
    pub key_stable: Option<bool>,
    pub key_unique: Option<bool>,
    pub idempotent: Option<bool>,
    /// The conjunction of the three loss causes: offsets committed before
    /// the write, `no_regression` and `every_interval_runs`.
    pub no_loss: Option<bool>,
    /// A late attempt or a re-run of an older interval cannot replace what a
    /// newer interval wrote.
    pub no_regression: Option<bool>,
    /// The scheduler runs every interval (no interval-scoped read is skipped
    /// by `catchup false`).
    pub every_interval_runs: Option<bool>,
    pub lease: Option<bool>,
    pub shared_coordinator: Option<bool>,
    pub versioned: Option<bool>,
    /// A task with a cursor read (flowc 0.3): every row committed up to the
    /// lookback after its cursor value is read (`unique` or `inclusive`,
    /// and a `lookback`). `None` for a task without a cursor read.
    pub cursor_complete: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputReport {
    /// The sink or effect's name.
    pub target: String,
    pub decl: usize,
    pub role: Role,
    /// For writes.
    pub mode: Option<Mode>,
    /// For effects.
    pub tracking: Option<Tracking>,
    /// For outbox effects: the sink that holds the outbox.
    pub via: Option<String>,
    pub required: Guarantee,
    /// Where the requirement comes from (`None`: the default).
    pub required_loc: Option<Loc>,
    pub guarantee: Guarantee,
    pub clauses: Clauses,
    /// Where the output is declared (the `write` or `emit` statement).
    pub loc: Loc,
    /// One label per failing clause, at the declaration responsible.
    pub failing: Vec<(Loc, String)>,
    /// For effects: the key that names each message (`None` for writes and
    /// untracked effects).
    pub effect_key: Option<EffectKey>,
    /// What can go wrong, in words (flowc 0.3), in the report's order.
    pub anomalies: Vec<super::anomaly::Anomaly>,
}

/// Where an effect's key comes from (flowc 0.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EffectKeyFrom {
    /// Written on the emit: `via idempotency_key K`, or `via outbox ... key K`.
    Own,
    /// The key of the write that holds the outbox (its own key, else the task's).
    Write,
    /// The partition term of the `replace partition` write that holds the outbox.
    Partition,
    /// None of these: the interval and the message's position in the output.
    Position,
}

impl EffectKeyFrom {
    pub fn word(self) -> &'static str {
        match self {
            EffectKeyFrom::Own => "own",
            EffectKeyFrom::Write => "write",
            EffectKeyFrom::Partition => "partition",
            EffectKeyFrom::Position => "position",
        }
    }
}

/// An effect's key: where it comes from and its terms (none for `Position`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectKey {
    pub from: EffectKeyFrom,
    pub parts: Vec<KeyPartDef>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskReport {
    pub name: String,
    pub retries: u32,
    pub internal_retries: u32,
    pub attempts_per_write: u128,
    pub on_ambiguous: OnAmbiguous,
    /// Why `on_ambiguous` is what it is, in words.
    pub on_ambiguous_why: String,
    pub achieved: Option<Guarantee>,
    pub outputs: Vec<OutputReport>,
}

#[derive(Debug, Clone)]
pub struct PipelineReport {
    /// Index into `Program::pipelines`.
    pub pipeline: usize,
    pub graph: TaskGraph,
    pub tasks: Vec<TaskReport>,
}

#[derive(Debug, Clone, Default)]
pub struct Analysis {
    pub pipelines: Vec<PipelineReport>,
}

/// Derive every output's guarantee for pipelines of files that resolved.
pub fn analyze(
    program: &Program,
    broken: &BTreeSet<FileId>,
    _diags: &mut [Diagnostic],
) -> Analysis {
    let pipelines = program
        .pipelines
        .iter()
        .enumerate()
        .filter(|(_, p)| !broken.contains(&p.loc.file))
        .map(|(i, p)| {
            let graph = TaskGraph::build(p);
            // Each task's report stands alone: large pipelines use all cores.
            let tasks = crate::par::map_runs(&p.tasks, crate::par::cores(), 1000, |run| {
                run.iter()
                    .map(|t| task_report(program, p, t))
                    .collect::<Vec<_>>()
            })
            .into_iter()
            .flatten()
            .collect();
            PipelineReport {
                pipeline: i,
                graph,
                tasks,
            }
        })
        .collect();
    Analysis { pipelines }
}

/// Facts about one task that every output shares.
pub struct TaskFacts<'a> {
    pub program: &'a Program,
    pub pipeline: &'a PipelineDef,
    pub task: &'a TaskDef,
}

impl<'a> TaskFacts<'a> {
    pub fn new(program: &'a Program, pipeline: &'a PipelineDef, task: &'a TaskDef) -> Self {
        TaskFacts {
            program,
            pipeline,
            task,
        }
    }

    /// The pipeline runs on a schedule: it has one, or means to (a
    /// `schedule` refused by FL002 is not reported again as none).
    pub fn scheduled(&self) -> bool {
        self.pipeline.schedule.is_some() || self.pipeline.schedule_invalid
    }

    pub fn deterministic(&self) -> bool {
        self.task.nondeterministic.is_none()
    }

    pub fn decl(&self, i: usize) -> &'a DeclDef {
        &self.program.decls[i]
    }

    /// The read's pin after the source's default: `None` when unpinned.
    pub fn effective_pin(&self, r: &super::model::ReadDef) -> Option<crate::vocab::Pin> {
        match r.pin {
            Some(p) => p,
            None => self.decl(r.decl).pin.flatten(),
        }
    }

    /// Where the effective pin is written, if anywhere.
    pub fn pin_loc(&self, r: &super::model::ReadDef) -> Option<Loc> {
        r.pin_loc.or(self.decl(r.decl).pin_loc)
    }

    /// The read's commit mode after the source's default (`None`: not stated).
    pub fn stated_commit(&self, r: &super::model::ReadDef) -> Option<(CommitMode, Loc)> {
        if let (Some(c), Some(l)) = (r.commit, r.commit_loc) {
            Some((c, l))
        } else {
            let d = self.decl(r.decl);
            d.commit.zip(d.commit_loc)
        }
    }

    /// Where a finding about the read's commit mode goes: the `commit`
    /// clause of the read, else the read itself (a finding about a task
    /// stays inside it, where its `allow` reaches), with the source's own
    /// `commit` line as a second place to show.
    pub fn commit_place(&self, r: &super::model::ReadDef) -> (Loc, Option<Loc>) {
        match (r.commit, r.commit_loc) {
            (Some(_), Some(at)) => (at, None),
            _ => (r.loc, self.decl(r.decl).commit_loc),
        }
    }

    /// The commit mode in force, for kinds with offsets: stated, else
    /// `after_write` when the kind lists it (FL306), else the first mode the
    /// kind lists (FL307), so `commits auto` loses; a kind that lists no
    /// mode is taken as `auto` (offsets move on their own).
    pub fn effective_commit(&self, r: &super::model::ReadDef) -> Option<CommitMode> {
        let kind = self.program.kind_of(self.decl(r.decl));
        if !kind.offsets {
            return None;
        }
        if let Some((c, _)) = self.stated_commit(r) {
            return Some(c);
        }
        if kind.commits.contains(&CommitMode::AfterWrite) {
            return Some(CommitMode::AfterWrite);
        }
        Some(kind.first_commit.unwrap_or(CommitMode::Auto))
    }

    /// A read of a source with offsets that states no commit mode where the
    /// kind does not offer `after_write` to default to (FL307).
    pub fn no_commit_mode(&self, r: &super::model::ReadDef) -> bool {
        let kind = self.program.kind_of(self.decl(r.decl));
        kind.offsets
            && self.stated_commit(r).is_none()
            && !kind.commits.contains(&CommitMode::AfterWrite)
    }

    pub fn read_stable(&self, r: &super::model::ReadDef) -> bool {
        let d = self.decl(r.decl);
        let kind = self.program.kind_of(d);
        d.role == Role::Source && d.immutable
            || self
                .effective_pin(r)
                .is_some_and(|p| kind.pins.contains(&p))
    }

    pub fn input_stable(&self) -> bool {
        self.task.reads.iter().all(|r| self.read_stable(r))
    }

    /// The offsets cause of loss does not hold: no read commits its
    /// offsets `auto` or `before_write`.
    pub fn offsets_kept(&self) -> bool {
        self.task.reads.iter().all(|r| {
            !matches!(
                self.effective_commit(r),
                Some(CommitMode::Auto | CommitMode::BeforeWrite)
            )
        })
    }

    /// Whether a declaration reads one interval's data: a parameter string
    /// holds an `{interval...}` placeholder (v0.2's test, kept for reads:
    /// FL111, FL807). See [`interval_scoped`].
    pub fn interval_scoped(&self, decl: usize) -> bool {
        interval_scoped(self.decl(decl))
    }

    /// Whether a sink is interval-scoped for this pipeline (MODEL-v0.3 C1):
    /// the tuple of its rendered parameters is injective over the
    /// pipeline's intervals, so that an `overwrite` replaces its own
    /// interval's place only. The reason when it is not.
    pub fn sink_scoped(&self, decl: usize) -> Result<(), super::scope::NotScoped> {
        super::scope::scoped(self.decl(decl), self.pipeline)
    }

    /// The pipeline's schedule as written (`manual` when it has none).
    pub fn schedule_text(&self) -> &str {
        self.pipeline
            .schedule
            .as_ref()
            .map_or("manual", |(text, _)| text.as_str())
    }

    /// The reads whose declaration is interval-scoped, when the scheduler
    /// may skip intervals (a scheduled pipeline with `catchup false`): the
    /// input of a skipped interval is never read (FL111).
    pub fn skipped_reads(&self) -> Vec<&'a super::model::ReadDef> {
        if !self.scheduled() || self.pipeline.catchup {
            return Vec::new();
        }
        self.task
            .reads
            .iter()
            .filter(|r| self.interval_scoped(r.decl))
            .collect()
    }

    /// The skipped-interval cause of loss does not hold.
    pub fn every_interval_runs(&self) -> bool {
        self.skipped_reads().is_empty()
    }

    /// The causes of loss that come from the task's reads and so apply to
    /// every output of the task, effects included.
    pub fn task_loses(&self) -> bool {
        !self.offsets_kept() || !self.every_interval_runs() || self.cursor_complete() == Some(false)
    }

    /// The task's cursor reads (flowc 0.3): their pin is `cursor`.
    pub fn cursor_reads(&self) -> Vec<&'a super::model::ReadDef> {
        self.task
            .reads
            .iter()
            .filter(|r| self.effective_pin(r) == Some(crate::vocab::Pin::Cursor))
            .collect()
    }

    /// Why a cursor read can skip rows, if it can: a cursor neither
    /// `unique` nor read `inclusive` skips rows that share the bookmark's
    /// value and commit after the read; no `lookback` skips rows that
    /// commit late with an older value.
    pub fn cursor_gaps(&self, r: &super::model::ReadDef) -> Vec<&'static str> {
        let unique = self.decl(r.decl).cursor.as_ref().is_some_and(|c| c.1);
        let mut out = Vec::new();
        if !unique && r.inclusive.is_none() {
            out.push("rows sharing the bookmark's cursor value that commit after the read are skipped (the cursor is not `unique` and the read not `inclusive`)");
        }
        if r.lookback.is_none() {
            out.push("rows that commit late with an older cursor value (a long transaction, a replica) are skipped (no `lookback`)");
        }
        out
    }

    /// `cursor_complete`: `None` without a cursor read.
    pub fn cursor_complete(&self) -> Option<bool> {
        let reads = self.cursor_reads();
        (!reads.is_empty()).then(|| reads.iter().all(|r| self.cursor_gaps(r).is_empty()))
    }

    /// Labels for a failing `cursor_complete`, at each cursor read.
    fn cursor_labels(&self) -> Vec<(Loc, String)> {
        self.cursor_reads()
            .into_iter()
            .flat_map(|r| {
                let name = &self.decl(r.decl).name;
                self.cursor_gaps(r).into_iter().map(move |g| {
                    (
                        r.loc,
                        format!("cursor read of `{name}`: {g} (cursor_complete)"),
                    )
                })
            })
            .collect()
    }

    /// A cursor read that reads some rows twice across intervals: the
    /// rows behind the bookmark (`lookback`), the bookmark's own value
    /// (`inclusive`). A write deduplicates them only when its key holds the
    /// source's identity (through `input.F`) at the record level.
    pub fn rereads(&self, w: &WriteDef) -> Option<&'a super::model::ReadDef> {
        let record_level = matches!(
            w.mode,
            Mode::Upsert | Mode::InsertIfAbsent | Mode::AppendLedger
        );
        let inputs: BTreeSet<&str> = self
            .dedup_parts(w)
            .iter()
            .filter_map(|p| match &p.term {
                Term::InputField { field } => Some(field.as_str()),
                _ => None,
            })
            .collect();
        self.cursor_reads().into_iter().find(|r| {
            let again = r.lookback.is_some() || r.inclusive.is_some();
            let keyed = record_level
                && self.decl(r.decl).identity.as_ref().is_some_and(|id| {
                    !id.is_empty() && id.iter().all(|f| inputs.contains(f.as_str()))
                });
            again && !keyed
        })
    }

    /// Whether the task reads the sink that `w` writes.
    pub fn reads_own_sink(&self, w: &WriteDef) -> bool {
        self.task.reads.iter().any(|r| r.decl == w.decl)
    }

    /// `replace partition` by a term taken from the data (`input.F`,
    /// `output.F`, bound or not): a run can replace a partition that
    /// another interval wrote (FL110).
    pub fn partition_from_data(w: &WriteDef) -> bool {
        w.mode == Mode::ReplacePartition
            && w.partition.as_ref().is_some_and(|p| {
                matches!(p.term, Term::InputField { .. } | Term::OutputField { .. })
            })
    }

    /// `no_regression` of one write: a late attempt, or a re-run of an
    /// older interval, cannot replace output that a newer interval wrote.
    /// A mode the kind does not offer has no runtime to regress with
    /// (FL205, and it duplicates): the clause holds.
    pub fn no_regression(&self, w: &WriteDef) -> bool {
        if !self.mode_supported(w) {
            return true;
        }
        match w.mode {
            Mode::Overwrite => self.sink_scoped(w.decl).is_ok(),
            // A version column decides, whoever writes last (flowc 0.3).
            Mode::Upsert => {
                w.newest_by.is_some() || self.sink_fenced(w.decl) || self.key_never_recurs(w)
            }
            Mode::ReplacePartition => !Self::partition_from_data(w),
            _ => true,
        }
    }

    /// The write's key holds every field of a read's global identity
    /// (`identity (F, ...) global`, through `input.F`), or the interval
    /// (`interval.start`, `interval.end`): no two intervals write one key,
    /// so none can put back what another wrote (flowc 0.3).
    pub fn key_never_recurs(&self, w: &WriteDef) -> bool {
        let parts = self.dedup_parts(w);
        if parts
            .iter()
            .any(|p| matches!(p.term, Term::IntervalStart | Term::IntervalEnd))
        {
            return true;
        }
        let inputs: BTreeSet<&str> = parts
            .iter()
            .filter_map(|p| match &p.term {
                Term::InputField { field } => Some(field.as_str()),
                _ => None,
            })
            .collect();
        self.task.reads.iter().any(|r| {
            let d = self.decl(r.decl);
            d.identity_global
                && d.identity.as_ref().is_some_and(|id| {
                    !id.is_empty() && id.iter().all(|f| inputs.contains(f.as_str()))
                })
        })
    }

    pub fn lease(&self) -> bool {
        self.task.timeout.is_some() || self.pipeline.timeout.is_some()
    }

    pub fn retries(&self) -> u32 {
        self.task
            .retries
            .or(self.pipeline.retries)
            .map_or(0, |(n, _)| n)
    }

    pub fn internal_retries(&self) -> u32 {
        self.task.internal_retries.map_or(0, |(n, _)| n)
    }

    /// The key a write uses: its own, else the task's.
    pub fn write_key(&self, w: &'a WriteDef) -> Option<&'a KeyDef> {
        w.key.as_ref().or(self.task.key.as_ref())
    }

    /// The dedup unit of a write: the partition term for `replace partition`, else its key's parts.
    pub fn dedup_parts(&self, w: &'a WriteDef) -> Vec<&'a KeyPartDef> {
        if w.mode == Mode::ReplacePartition {
            return w.partition.iter().collect();
        }
        self.write_key(w)
            .map(|k| k.parts.iter().collect())
            .unwrap_or_default()
    }

    pub fn term_stable(&self, t: &Term) -> bool {
        match t {
            Term::InputField { .. } | Term::InputHash => true,
            Term::IntervalStart | Term::IntervalEnd => self.scheduled(),
            Term::OutputField { .. } | Term::OutputHash => self.deterministic(),
            Term::RunId
            | Term::AttemptId
            | Term::AttemptNumber
            | Term::Now
            | Term::Uuid
            | Term::Random => false,
        }
    }

    /// The identity of what a read yields: the source's `identity`, or a read
    /// sink's `primary_key`. `None` when undeclared, empty for `identity none`.
    pub fn read_identity(&self, r: &super::model::ReadDef) -> Option<Vec<String>> {
        let d = self.decl(r.decl);
        match d.role {
            Role::Sink => d.primary_key.clone(),
            _ => d.identity.clone(),
        }
    }

    /// FL104's condition for a record-level key (flowc 0.2): the key is
    /// unique when (iii) it has an `output.*` term or `hash(output)`, or (ii)
    /// it has `hash(input)` and no read's source declares `identity none`,
    /// or (i) every read declares an identity and the key's `input.*` terms
    /// cover each. Interval terms exempt nothing: they are shared by every
    /// record of the interval.
    pub fn key_not_unique(&self, parts: &[&KeyPartDef]) -> bool {
        if parts.is_empty() {
            return false;
        }
        if parts
            .iter()
            .any(|p| matches!(p.term, Term::OutputField { .. } | Term::OutputHash))
        {
            return false;
        }
        let identities: Vec<Option<Vec<String>>> = self
            .task
            .reads
            .iter()
            .map(|r| self.read_identity(r))
            .collect();
        if parts.iter().any(|p| p.term == Term::InputHash) {
            return identities
                .iter()
                .any(|id| id.as_ref().is_some_and(Vec::is_empty));
        }
        let fields: BTreeSet<&str> = parts
            .iter()
            .filter_map(|p| match &p.term {
                Term::InputField { field } => Some(field.as_str()),
                _ => None,
            })
            .collect();
        identities.iter().any(|id| match id {
            None => true,
            Some(id) if id.is_empty() => true,
            Some(id) => !id.iter().all(|f| fields.contains(f.as_str())),
        })
    }

    /// Columns an upsert key fills (FL107).
    pub fn key_columns(parts: &[&KeyPartDef]) -> (BTreeSet<String>, bool) {
        let mut cols = BTreeSet::new();
        let mut unbound = false;
        for p in parts {
            match (&p.column, &p.term) {
                (Some(c), _) => {
                    cols.insert(c.clone());
                }
                (None, Term::InputField { field } | Term::OutputField { field }) => {
                    cols.insert(field.clone());
                }
                _ => unbound = true,
            }
        }
        (cols, unbound)
    }

    /// Whether an upsert's key is exactly the sink's primary key.
    pub fn upsert_enforced(&self, w: &'a WriteDef) -> bool {
        let Some(pk) = &self.decl(w.decl).primary_key else {
            return false;
        };
        let parts = self.dedup_parts(w);
        if parts.is_empty() {
            return false;
        }
        // An unbound term other than a field fills no column, so the sink
        // cannot enforce it: the key is not enforced (FL107, flowc 0.2).
        let (cols, unbound) = Self::key_columns(&parts);
        let pk: BTreeSet<String> = pk.iter().cloned().collect();
        !unbound && cols == pk
    }

    /// `write S transactional` with every read's offsets committed in the
    /// sink's transaction under one coordinator (exactly-once (a)).
    pub fn shared_coordinator(&self, w: &WriteDef) -> bool {
        if self.task.reads.is_empty() {
            return false;
        }
        let sink = self.decl(w.decl);
        self.task.reads.iter().all(|r| {
            let d = self.decl(r.decl);
            let kind = self.program.kind_of(d);
            kind.offsets
                && kind.commits.contains(&CommitMode::InTransaction)
                && self.effective_commit(r) == Some(CommitMode::InTransaction)
                && same_coordinator(d, sink)
        })
    }

    /// The kind offers the write's mode, and `conditional_upsert` when the
    /// upsert is `newest by` a version column (flowc 0.3).
    pub fn mode_supported(&self, w: &WriteDef) -> bool {
        let kind = self.program.kind_of(self.decl(w.decl));
        kind.writes.contains(w.mode.capability())
            && (w.newest_by.is_none() || kind.conditional_upsert)
    }

    /// The parts of a conditional commit's `txn`, if it names its own.
    pub fn txn_parts(w: &'a WriteDef) -> Vec<&'a KeyPartDef> {
        w.txn
            .as_ref()
            .map(|k| k.parts.iter().collect())
            .unwrap_or_default()
    }

    pub fn sink_transactional(&self, decl: usize) -> bool {
        self.program.kind_of(self.decl(decl)).transactional
    }

    /// Each commit of one table is atomic: `transactional` or `atomic`.
    pub fn sink_atomic(&self, decl: usize) -> bool {
        let kind = self.program.kind_of(self.decl(decl));
        kind.transactional || kind.atomic
    }

    /// `serialized_replace`: two live replaces of one partition never interleave.
    pub fn sink_serialized(&self, decl: usize) -> bool {
        self.program.kind_of(self.decl(decl)).serialized_replace
    }

    /// `lossy`: the sink may acknowledge a write it later drops.
    pub fn sink_lossy(&self, decl: usize) -> bool {
        self.program.kind_of(self.decl(decl)).lossy
    }

    /// A `replace partition` or `overwrite` on a kind with
    /// `deduplicates_inserts`: the delete goes through and a re-insert
    /// identical to a recent block is dropped (FL211).
    pub fn reinsert_dropped(&self, w: &WriteDef) -> bool {
        matches!(w.mode, Mode::ReplacePartition | Mode::Overwrite)
            && self.program.kind_of(self.decl(w.decl)).deduplicates_inserts
    }

    pub fn sink_fenced(&self, decl: usize) -> bool {
        self.program.kind_of(self.decl(decl)).fenced
    }

    pub fn sink_versioned(&self, decl: usize) -> bool {
        self.program.kind_of(self.decl(decl)).versioned
    }

    pub fn requirement(&self, own: Option<(Guarantee, Loc)>) -> (Guarantee, Option<Loc>) {
        own.or(self.task.require)
            .or(self.pipeline.require)
            .map_or((Guarantee::EffectivelyOnce, None), |(g, l)| (g, Some(l)))
    }

    /// Labels for unstable reads.
    fn unstable_reads(&self) -> Vec<(Loc, String)> {
        self.task
            .reads
            .iter()
            .filter(|r| !self.read_stable(r))
            .map(|r| {
                let d = self.decl(r.decl);
                let kind = self.program.kind_of(d);
                let msg = match self.effective_pin(r) {
                    Some(p) if !kind.pins.contains(&p) => format!("`{}` cannot be pinned by `{}`: kind `{}` does not offer it", d.name, p.word(), kind.name),
                    _ => format!("`{}` is mutable and read unpinned: a retry may read different input (input_stable)", d.name),
                };
                (r.loc, msg)
            })
            .collect()
    }

    fn loss_labels(&self) -> Vec<(Loc, String)> {
        self.task
            .reads
            .iter()
            .filter_map(|r| {
                let c = self.effective_commit(r)?;
                if !matches!(c, CommitMode::Auto | CommitMode::BeforeWrite) {
                    return None;
                }
                let at = self.stated_commit(r).map_or(r.loc, |(_, l)| l);
                Some((
                    at,
                    format!(
                        "offsets of `{}` are committed `{}`: records can be lost (no_loss)",
                        self.decl(r.decl).name,
                        c.word()
                    ),
                ))
            })
            .collect()
    }

    /// Labels for the skipped-interval cause, at the `catchup` line.
    fn skipped_labels(&self) -> Vec<(Loc, String)> {
        let at = self.pipeline.catchup_loc.unwrap_or(self.pipeline.name_loc);
        self.skipped_reads()
            .iter()
            .map(|r| {
                (
                    at,
                    format!(
                        "`catchup false`: the input of `{}` in an interval the scheduler skips is never read (every_interval_runs)",
                        self.decl(r.decl).name
                    ),
                )
            })
            .collect()
    }

    /// Labels for every cause of loss that comes from the task's reads.
    fn task_loss_labels(&self) -> Vec<(Loc, String)> {
        let mut out = self.loss_labels();
        out.extend(self.skipped_labels());
        out.extend(self.cursor_labels());
        out
    }

    /// The label of a failing `no_regression`, at the write's mode.
    fn regression_label(&self, w: &WriteDef) -> (Loc, String) {
        let sink = &self.decl(w.decl).name;
        let why = match w.mode {
            Mode::Overwrite => {
                let why = self
                    .sink_scoped(w.decl)
                    .err()
                    .map(|e| e.reason(self.schedule_text()))
                    .unwrap_or_default();
                format!("`overwrite` replaces all of `{sink}`, which is not interval-scoped ({why}): a late attempt or a re-run of another interval replaces its output (no_regression)")
            }
            Mode::Upsert => format!("kind `{}` is not `fenced`: a late attempt or a re-run of an older interval puts older values back in `{sink}` (no_regression)", self.decl(w.decl).kind),
            _ => format!("the partition is taken from the data: a run can replace a partition of `{sink}` that another interval wrote (no_regression)"),
        };
        let at = match (&w.partition, w.mode) {
            (Some(p), Mode::ReplacePartition) => p.loc,
            _ => w.mode_loc,
        };
        (at, why)
    }

    fn nondeterministic_label(&self) -> Vec<(Loc, String)> {
        self.task
            .nondeterministic
            .map(|l| (l, "the task is nondeterministic: attempts can produce different output (deterministic)".to_string()))
            .into_iter()
            .collect()
    }

    fn unstable_key_labels(&self, parts: &[&KeyPartDef]) -> Vec<(Loc, String)> {
        parts
            .iter()
            .filter(|p| !self.term_stable(&p.term))
            .map(|p| {
                (
                    p.loc,
                    format!(
                        "`{}` changes between attempts or runs (key_stable)",
                        term_text(&p.term)
                    ),
                )
            })
            .collect()
    }
}

/// Whether a declaration is interval-scoped: one of its string parameters
/// holds an `{interval...}` placeholder. The one place that decides it: an
/// interval-scoped sink owns its interval's output (`overwrite`), and an
/// interval-scoped read loses the input of a skipped interval.
///
/// Placeholders are found on the parameters' template form, so a brace
/// written `\{` never counts (`literal::has_interval_placeholder`).
pub fn interval_scoped(d: &DeclDef) -> bool {
    super::literal::has_interval_placeholder(d)
}

/// Two declarations share a coordinator: their kinds name one system and
/// the declarations one cluster of it. A kind with no `coordinator` line
/// shares with nothing.
pub fn same_coordinator(a: &DeclDef, b: &DeclDef) -> bool {
    a.coordinator.is_some() && a.coordinator == b.coordinator && a.cluster == b.cluster
}

/// The verdict of an output whose guarantee, loss aside, is `g`, when its
/// task loses: loss and duplicates give `none`, loss only `at_most_once`.
fn with_loss(g: Guarantee, loss: bool) -> Guarantee {
    if !loss {
        return g;
    }
    match g {
        Guarantee::AtLeastOnce | Guarantee::None => Guarantee::None,
        _ => Guarantee::AtMostOnce,
    }
}

/// A term as written in a `.flow` file.
pub fn term_text(t: &Term) -> String {
    match t {
        Term::InputField { field } => format!("input.{field}"),
        Term::InputHash => "hash(input)".into(),
        Term::OutputField { field } => format!("output.{field}"),
        Term::OutputHash => "hash(output)".into(),
        Term::IntervalStart => "interval.start".into(),
        Term::IntervalEnd => "interval.end".into(),
        Term::RunId => "run.id".into(),
        Term::AttemptId => "attempt.id".into(),
        Term::AttemptNumber => "attempt.number".into(),
        Term::Now => "now()".into(),
        Term::Uuid => "uuid()".into(),
        Term::Random => "random()".into(),
    }
}

fn verdict(loss: bool, duplicates: bool, exactly: bool) -> Guarantee {
    match (loss, duplicates) {
        (true, true) => Guarantee::None,
        (true, false) => Guarantee::AtMostOnce,
        (false, true) => Guarantee::AtLeastOnce,
        (false, false) if exactly => Guarantee::ExactlyOnce,
        (false, false) => Guarantee::EffectivelyOnce,
    }
}

pub fn write_report(f: &TaskFacts<'_>, w: &WriteDef) -> OutputReport {
    let sink = f.decl(w.decl);
    let supported = f.mode_supported(w);
    let transactional_sink = f.sink_transactional(w.decl);
    let atomic_sink = f.sink_atomic(w.decl);
    let versioned = f.sink_versioned(w.decl);
    let parts = f.dedup_parts(w);
    let record_level = matches!(
        w.mode,
        Mode::Upsert | Mode::InsertIfAbsent | Mode::AppendLedger
    );
    let keyed = matches!(
        w.mode,
        Mode::Upsert | Mode::InsertIfAbsent | Mode::AppendLedger | Mode::ReplacePartition
    );
    let input_stable = f.input_stable();
    let deterministic = f.deterministic();
    let offsets_kept = f.offsets_kept();
    let no_regression = f.no_regression(w);
    let every_interval_runs = f.every_interval_runs();
    let lossy = f.sink_lossy(w.decl);
    let reinsert_dropped = f.reinsert_dropped(w);
    let cursor_complete = f.cursor_complete();
    let no_loss = offsets_kept
        && no_regression
        && every_interval_runs
        && !lossy
        && !reinsert_dropped
        && cursor_complete != Some(false);
    let lease = f.lease();

    let key_stable = if keyed {
        Some(!parts.is_empty() && parts.iter().all(|p| f.term_stable(&p.term)))
    } else if w.mode == Mode::ConditionalCommit {
        // The id the committer deduplicates on: flowc's own (the interval)
        // unless `txn` names another, which must be stable (flowc 0.3).
        let txn = TaskFacts::txn_parts(w);
        Some(txn.iter().all(|p| f.term_stable(&p.term)))
    } else if w.mode == Mode::Transactional {
        Some(true)
    } else {
        None
    };
    // Holds exactly when FL104 does not fire (docs/reference/guarantees.md); a missing key fails key_stable instead.
    let key_unique = record_level.then(|| !f.key_not_unique(&parts));
    let shared = (w.mode == Mode::Transactional).then(|| f.shared_coordinator(w));
    let rereads = f.rereads(w);
    let idempotent = supported
        && rereads.is_none()
        && match w.mode {
            // An insert-if-absent deduplicates on the key the sink enforces,
            // as an upsert does; it never replaces (no_regression holds).
            Mode::Upsert | Mode::InsertIfAbsent => f.upsert_enforced(w),
            // Two live attempts of one partition's replace must not
            // interleave their delete and insert (flowc 0.3).
            Mode::ReplacePartition => atomic_sink && f.sink_serialized(w.decl),
            Mode::AppendLedger => transactional_sink,
            Mode::ConditionalCommit => versioned,
            // A retry replaces, it does not add; unless the task reads what
            // it replaces, so that the new content accumulates the old.
            Mode::Overwrite => !f.reads_own_sink(w),
            _ => false,
        };
    let exactly = supported
        && match w.mode {
            Mode::Transactional => shared == Some(true),
            Mode::ConditionalCommit => {
                versioned && lease && input_stable && deterministic && key_stable != Some(false)
            }
            _ => false,
        };
    let clauses_hold = idempotent
        && key_stable.unwrap_or(true)
        && key_unique.unwrap_or(true)
        && input_stable
        && deterministic;
    let duplicates = !exactly && !clauses_hold;
    let loss = !no_loss;
    let guarantee = verdict(loss, duplicates, exactly);

    let mut failing = Vec::new();
    if loss {
        failing.extend(f.loss_labels());
        if !no_regression {
            failing.push(f.regression_label(w));
        }
        failing.extend(f.skipped_labels());
        if lossy {
            failing.push((w.mode_loc, format!("kind `{}` is `lossy`: it may acknowledge a write to `{}` and drop it later (no_loss)", sink.kind, sink.name)));
        }
        if reinsert_dropped {
            failing.push((w.mode_loc, format!("kind `{}` has `deduplicates_inserts`: the `{}` of `{}` deletes, and a re-insert identical to a recent block is dropped (no_loss)", sink.kind, w.mode.source(), sink.name)));
        }
        failing.extend(f.cursor_labels());
    }
    if duplicates {
        if let (Some(r), true) = (rereads, supported) {
            failing.push((
                r.loc,
                format!(
                    "the cursor read of `{}` reads rows again that an earlier interval read (`lookback`, `inclusive`), and `{} {}` is not keyed on `{}`'s identity (idempotent)",
                    f.decl(r.decl).name,
                    w.mode.source(),
                    sink.name,
                    f.decl(r.decl).name
                ),
            ));
        } else if !idempotent && !(w.mode == Mode::Transactional) {
            let why = if supported {
                match w.mode {
                    Mode::Upsert | Mode::InsertIfAbsent if parts.is_empty() => format!("`{}` without a key deduplicates nothing (idempotent)", w.mode.source()),
                    Mode::Upsert | Mode::InsertIfAbsent => format!("the key is not `{}`'s primary key, so the `{}` does not deduplicate (idempotent)", sink.name, w.mode.source()),
                    Mode::ReplacePartition if atomic_sink => format!("kind `{}` has no `serialized_replace`: two live attempts can each delete the partition and both insert (idempotent)", sink.kind),
                    Mode::ReplacePartition => format!("`{}` is neither transactional nor atomic, so the delete and the insert do not commit together (idempotent)", sink.name),
                    Mode::AppendLedger => format!("`{}` is not transactional, so the write and its dedup are not atomic (idempotent)", sink.name),
                    Mode::Overwrite => format!("task `{}` also reads `{}`: a retry writes the old content again with the new (idempotent)", f.task.name, sink.name),
                    Mode::ConditionalCommit => format!("`{}` is not versioned: there is no version to commit against (idempotent)", sink.name),
                    m => format!("`{}` applies every attempt again (idempotent)", m.source()),
                }
            } else {
                format!(
                    "kind `{}` does not support `{}`",
                    sink.kind,
                    w.mode.source()
                )
            };
            failing.push((w.mode_loc, why));
        }
        if w.mode == Mode::Transactional && shared == Some(false) {
            failing.push((w.mode_loc, format!("the reads' offsets are not committed in `{}`'s transaction under one coordinator (shared_coordinator)", sink.name)));
        }
        if !input_stable {
            failing.extend(f.unstable_reads());
        }
        if !deterministic {
            failing.extend(f.nondeterministic_label());
        }
        if key_stable == Some(false) && w.mode == Mode::ConditionalCommit {
            failing.extend(TaskFacts::txn_parts(w).into_iter().flat_map(|p| {
                let who = if p.term.per_attempt() {
                    "a retry"
                } else {
                    "a re-run"
                };
                f.unstable_key_labels(&[p]).into_iter().map(move |(l, m)| {
                    (
                        l,
                        format!("{m}: {who} commits again under a new transaction id"),
                    )
                })
            }));
        } else if key_stable == Some(false) {
            if parts.is_empty() {
                failing.push((
                    w.loc,
                    format!(
                        "no key for `{} {}` (key_stable)",
                        w.mode.source(),
                        sink.name
                    ),
                ));
            } else {
                failing.extend(f.unstable_key_labels(&parts));
            }
        }
        if key_unique == Some(false) && !parts.is_empty() {
            let at = parts.first().map_or(w.loc, |p| p.loc);
            failing.push((
                at,
                "the key does not identify input records uniquely (key_unique)".to_string(),
            ));
        }
    }
    let (required, required_loc) = f.requirement(w.require);
    if guarantee == Guarantee::EffectivelyOnce && required == Guarantee::ExactlyOnce {
        // Nothing above failed, yet exactly-once is out of reach: say why.
        if w.mode == Mode::ConditionalCommit && !lease {
            failing.push((
                f.task.name_loc,
                format!(
                    "no `timeout` on task `{}` or its pipeline: without a lease, an attempt the scheduler gave up on can still commit (lease)",
                    f.task.name
                ),
            ));
        } else if w.mode != Mode::ConditionalCommit {
            failing.push((
                w.mode_loc,
                format!(
                    "`{}` deduplicates retries, which is effectively_once; exactly_once needs `transactional`, or `conditional_commit` under a lease",
                    w.mode.source()
                ),
            ));
        }
    }
    let mut report = OutputReport {
        target: sink.name.clone(),
        decl: w.decl,
        role: Role::Sink,
        mode: Some(w.mode),
        tracking: None,
        via: None,
        required,
        required_loc,
        guarantee,
        clauses: Clauses {
            input_stable: Some(input_stable),
            deterministic: Some(deterministic),
            key_stable,
            key_unique,
            idempotent: Some(idempotent || exactly),
            no_loss: Some(no_loss),
            no_regression: Some(no_regression),
            every_interval_runs: Some(every_interval_runs),
            lease: Some(lease),
            shared_coordinator: shared,
            versioned: (w.mode == Mode::ConditionalCommit).then_some(versioned),
            cursor_complete,
        },
        loc: w.loc,
        failing,
        effect_key: None,
        anomalies: Vec::new(),
    };
    report.anomalies = super::anomaly::of_write(f, w, &report.clauses, exactly);
    report
}

/// The write that holds an emit's outbox: the named sink's transactional
/// write, else the task's first transactional write.
pub fn outbox_write<'a>(f: &TaskFacts<'a>, e: &EmitDef) -> Option<&'a WriteDef> {
    let ViaDef::Outbox(named) = &e.via else {
        return None;
    };
    match named {
        Some((decl, _)) => f
            .task
            .writes
            .iter()
            .find(|w| w.decl == *decl && f.sink_transactional(w.decl)),
        None => f.task.writes.iter().find(|w| f.sink_transactional(w.decl)),
    }
}

/// An effect's key (flowc 0.2): the key written on the emit, else for an
/// outbox the key of the write that holds it (its own, else the task's),
/// else that write's partition term, else the interval and the message's
/// position. `None` for an untracked emit.
pub fn effect_key<'a>(
    f: &TaskFacts<'a>,
    e: &'a EmitDef,
) -> Option<(EffectKeyFrom, Vec<&'a KeyPartDef>)> {
    match &e.via {
        ViaDef::Untracked => None,
        ViaDef::IdempotencyKey(k) => Some((EffectKeyFrom::Own, k.parts.iter().collect())),
        ViaDef::Outbox(_) => {
            if let Some(k) = &e.key {
                return Some((EffectKeyFrom::Own, k.parts.iter().collect()));
            }
            let w = outbox_write(f, e);
            if let Some(k) = w.and_then(|w| f.write_key(w)) {
                return Some((EffectKeyFrom::Write, k.parts.iter().collect()));
            }
            if let Some(p) = w.and_then(|w| w.partition.as_ref()) {
                return Some((EffectKeyFrom::Partition, vec![p]));
            }
            Some((EffectKeyFrom::Position, Vec::new()))
        }
    }
}

/// Whether an effect key stays the same across attempts and re-runs: every
/// term stable; the interval-and-position fallback is the interval, so it is
/// run-scoped in a manual pipeline.
pub fn effect_key_stable(f: &TaskFacts<'_>, from: EffectKeyFrom, parts: &[&KeyPartDef]) -> bool {
    match from {
        EffectKeyFrom::Position => f.scheduled(),
        _ => parts.iter().all(|p| f.term_stable(&p.term)),
    }
}

pub fn emit_report(f: &TaskFacts<'_>, e: &EmitDef, writes: &[OutputReport]) -> OutputReport {
    let effect = f.decl(e.decl);
    let kind = f.program.kind_of(effect);
    let input_stable = f.input_stable();
    let deterministic = f.deterministic();
    let mut failing = Vec::new();
    let mut via = None;
    let (tracking, guarantee, clauses) = match &e.via {
        ViaDef::Untracked => {
            failing.push((
                e.loc,
                format!(
                    "`emit {}` is untracked: every attempt sends it again",
                    effect.name
                ),
            ));
            (
                Tracking::Untracked,
                Guarantee::AtLeastOnce,
                Clauses::default(),
            )
        }
        ViaDef::IdempotencyKey(k) => {
            let parts: Vec<&KeyPartDef> = k.parts.iter().collect();
            let key_stable = parts.iter().all(|p| f.term_stable(&p.term));
            let ok = key_stable && kind.idempotency_key && input_stable && deterministic;
            if !ok {
                if !kind.idempotency_key {
                    failing.push((
                        e.via_loc.unwrap_or(e.loc),
                        format!(
                            "kind `{}` does not deduplicate on a key (idempotency none)",
                            kind.name
                        ),
                    ));
                }
                if !key_stable {
                    failing.extend(f.unstable_key_labels(&parts));
                }
                if !input_stable {
                    failing.extend(f.unstable_reads());
                }
                if !deterministic {
                    failing.extend(f.nondeterministic_label());
                }
            }
            let g = if ok {
                Guarantee::EffectivelyOnce
            } else {
                Guarantee::AtLeastOnce
            };
            (
                Tracking::IdempotencyKey,
                g,
                Clauses {
                    input_stable: Some(input_stable),
                    deterministic: Some(deterministic),
                    key_stable: Some(key_stable),
                    idempotent: Some(kind.idempotency_key),
                    ..Clauses::default()
                },
            )
        }
        ViaDef::Outbox(_) => match outbox_write(f, e) {
            None => {
                failing.push((
                    e.via_loc.unwrap_or(e.loc),
                    "no transactional write in this task holds the outbox".to_string(),
                ));
                (
                    Tracking::Outbox,
                    Guarantee::AtLeastOnce,
                    Clauses {
                        input_stable: Some(input_stable),
                        deterministic: Some(deterministic),
                        ..Clauses::default()
                    },
                )
            }
            Some(w) => {
                via = Some(f.decl(w.decl).name.clone());
                let (from, parts) =
                    effect_key(f, e).unwrap_or((EffectKeyFrom::Position, Vec::new()));
                let key_stable = effect_key_stable(f, from, &parts);
                let idx = f
                    .task
                    .writes
                    .iter()
                    .position(|x| std::ptr::eq(x, w))
                    .unwrap_or(0);
                let wg = writes
                    .get(idx)
                    .map_or(Guarantee::None, |r| message_holder(f, w, r));
                let cap = if kind.idempotency_key {
                    Guarantee::EffectivelyOnce
                } else {
                    Guarantee::AtLeastOnce
                };
                let mut g = cap.meet(wg);
                if !key_stable {
                    // A new key on a retry or re-run is a new message.
                    g = g.meet(Guarantee::AtLeastOnce);
                    if from == EffectKeyFrom::Position {
                        failing.push((
                            e.loc,
                            "the outbox rows are named by the interval, which is the trigger time of a manual run: a re-run sends every message again (key_stable)".to_string(),
                        ));
                    } else {
                        failing.extend(f.unstable_key_labels(&parts));
                    }
                }
                if !kind.idempotency_key {
                    failing.push((e.loc, format!("kind `{}` has no idempotency key: a relay that crashes after sending sends again", kind.name)));
                }
                if !wg.at_least(cap) {
                    if let Some(r) = writes.get(idx) {
                        failing.push((
                            r.loc,
                            format!("the outbox's write to `{}` is only {}", r.target, wg.word()),
                        ));
                        failing.extend(r.failing.iter().cloned());
                    }
                }
                (
                    Tracking::Outbox,
                    g,
                    Clauses {
                        key_stable: Some(key_stable),
                        input_stable: Some(input_stable),
                        deterministic: Some(deterministic),
                        ..Clauses::default()
                    },
                )
            }
        },
    };
    let effect_key = effect_key(f, e).map(|(from, parts)| EffectKey {
        from,
        parts: parts.into_iter().cloned().collect(),
    });
    // The offsets and skipped-interval causes come from the task's reads,
    // so they reach effects too.
    let (guarantee, clauses) = effect_loss(f, guarantee, clauses, &mut failing);
    let (required, required_loc) = f.requirement(e.require);
    let duplicates = matches!(guarantee, Guarantee::AtLeastOnce | Guarantee::None);
    let anomalies = super::anomaly::of_emit(f, tracking, &effect.name, &clauses, duplicates);
    OutputReport {
        target: effect.name.clone(),
        decl: e.decl,
        role: Role::Effect,
        mode: None,
        tracking: Some(tracking),
        via,
        required,
        required_loc,
        guarantee,
        clauses,
        loc: e.loc,
        failing,
        effect_key,
        anomalies,
    }
}

/// The guarantee of an outbox's holding write, as its messages see it. A
/// regression of the write's rows (an older interval's values put back:
/// `no_regression`) neither loses nor repeats a message: the message's row
/// id is fixed, the row is inserted if absent and sent once. Every other
/// cause of the write's loss counts (the task's own, offsets and skipped
/// intervals, also reach the effect through `effect_loss`).
fn message_holder(f: &TaskFacts<'_>, w: &WriteDef, r: &OutputReport) -> Guarantee {
    if r.clauses.no_regression != Some(false) {
        return r.guarantee;
    }
    let other_loss = !(f.offsets_kept()
        && f.every_interval_runs()
        && !f.sink_lossy(w.decl)
        && !f.reinsert_dropped(w)
        && f.cursor_complete() != Some(false));
    match r.guarantee {
        Guarantee::AtMostOnce if !other_loss => Guarantee::EffectivelyOnce,
        Guarantee::None if !other_loss => Guarantee::AtLeastOnce,
        g => g,
    }
}

/// An effect's guarantee and clauses once the task's own causes of loss
/// (offsets, skipped intervals) are counted, with their labels.
fn effect_loss(
    f: &TaskFacts<'_>,
    guarantee: Guarantee,
    clauses: Clauses,
    failing: &mut Vec<(Loc, String)>,
) -> (Guarantee, Clauses) {
    let loss = f.task_loses();
    if loss {
        // An outbox may already show them, through its write's labels.
        for l in f.task_loss_labels() {
            if !failing.contains(&l) {
                failing.push(l);
            }
        }
    }
    let clauses = Clauses {
        no_loss: Some(!loss),
        every_interval_runs: Some(f.every_interval_runs()),
        cursor_complete: f.cursor_complete(),
        ..clauses
    };
    (with_loss(guarantee, loss), clauses)
}

fn task_report(program: &Program, p: &PipelineDef, t: &TaskDef) -> TaskReport {
    let f = TaskFacts::new(program, p, t);
    let mut outputs: Vec<OutputReport> = t.writes.iter().map(|w| write_report(&f, w)).collect();
    let writes = outputs.clone();
    outputs.extend(t.emits.iter().map(|e| emit_report(&f, e, &writes)));
    let achieved = outputs.iter().map(|o| o.guarantee).reduce(Guarantee::meet);
    let all_safe = outputs
        .iter()
        .all(|o| o.guarantee.at_least(Guarantee::EffectivelyOnce));
    let on_ambiguous = t.on_ambiguous.map_or(
        if all_safe {
            OnAmbiguous::Retry
        } else {
            OnAmbiguous::Fail
        },
        |(o, _)| o,
    );
    let unsafe_output = outputs
        .iter()
        .find(|o| !o.guarantee.at_least(Guarantee::EffectivelyOnce));
    let on_ambiguous_why = match (t.on_ambiguous, unsafe_output) {
        (Some(_), _) => "set by the task's `on_ambiguous`".to_string(),
        (None, None) if outputs.is_empty() => "the task has no outputs".to_string(),
        (None, None) => "every output is effectively_once or better, so a retry after an ambiguous failure repeats nothing".to_string(),
        (None, Some(o)) => format!(
            "`{} {}` is {}: a retry after an ambiguous failure could repeat it",
            if o.role == Role::Effect { "emit" } else { "write" },
            o.target,
            o.guarantee.word()
        ),
    };
    let retries = f.retries();
    let internal = f.internal_retries();
    TaskReport {
        name: t.name.clone(),
        retries,
        internal_retries: internal,
        // Both factors are at most 2^32, so the product fits: 2^64 at most.
        attempts_per_write: (u128::from(retries) + 1) * (u128::from(internal) + 1),
        on_ambiguous,
        on_ambiguous_why,
        achieved,
        outputs,
    }
}

/// Key-bearing positions of a task, for the key rules: each with the mode
/// that uses it (`None` for an idempotency key or an unused task key).
pub enum KeyUse<'a> {
    Write(&'a WriteDef, Vec<&'a KeyPartDef>),
    Idempotency(&'a EmitDef, &'a KeyDef),
    /// `emit E via outbox ... key K`: the effect's own key.
    Outbox(&'a EmitDef, &'a KeyDef),
    /// The task's `key`, used by no write.
    TaskKey(&'a KeyDef),
}

pub fn key_uses<'a>(f: &TaskFacts<'a>) -> Vec<KeyUse<'a>> {
    let mut out = Vec::new();
    let mut task_key_used = false;
    for w in &f.task.writes {
        let mut parts: Vec<&KeyPartDef> = Vec::new();
        if let Some(p) = &w.partition {
            parts.push(p);
        }
        // A conditional commit's `txn` is checked like a key (flowc 0.3):
        // FL101, FL102, FL103 and FL105 (it fills no column).
        if let Some(t) = &w.txn {
            parts.extend(t.parts.iter());
        }
        match (&w.key, &f.task.key) {
            (Some(k), _) => parts.extend(k.parts.iter()),
            (None, Some(k)) => {
                task_key_used = true;
                parts.extend(k.parts.iter());
            }
            (None, None) => {}
        }
        out.push(KeyUse::Write(w, parts));
    }
    for e in &f.task.emits {
        match (&e.via, &e.key) {
            (ViaDef::IdempotencyKey(k), _) => out.push(KeyUse::Idempotency(e, k)),
            (ViaDef::Outbox(_), Some(k)) => out.push(KeyUse::Outbox(e, k)),
            _ => {}
        }
    }
    if let (false, Some(k)) = (task_key_used, &f.task.key) {
        out.push(KeyUse::TaskKey(k));
    }
    out
}
