//! What can go wrong with an output, said in words (MODEL-v0.3 C2): one
//! anomaly per (kind, clause), each with the scenario that produces it, in
//! a fixed order. The lattice name stays the summary; the anomalies say
//! what a user of the output would see.

use serde::Serialize;

use super::guarantee::{Clauses, TaskFacts};
use super::model::WriteDef;
use crate::vocab::{CommitMode, Mode, Term, Tracking};

/// The kinds of anomaly, in the order the report lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnomalyKind {
    /// Records of the input never reach the output.
    Loss,
    /// A late attempt or an older interval puts older output back.
    Regression,
    /// An interval the scheduler skips is never read.
    Skipped,
    /// One input record's effect appears more than once.
    Duplicate,
    /// Rows from another read of a changing input stay beside the current
    /// ones; no key appears twice.
    Stale,
    /// Attempts produce different content for one key; the first
    /// committed is kept.
    FirstWins,
    /// The interval's output depends on when the attempt ran, with no
    /// extra rows.
    Drift,
}

impl AnomalyKind {
    pub fn word(self) -> &'static str {
        match self {
            AnomalyKind::Loss => "loss",
            AnomalyKind::Regression => "regression",
            AnomalyKind::Skipped => "skipped",
            AnomalyKind::Duplicate => "duplicate",
            AnomalyKind::Stale => "stale",
            AnomalyKind::FirstWins => "first_wins",
            AnomalyKind::Drift => "drift",
        }
    }
}

/// One anomaly: its kind, the clause that fails, and the scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Anomaly {
    pub kind: AnomalyKind,
    pub clause: &'static str,
    pub scenario: String,
}

fn push(out: &mut Vec<Anomaly>, kind: AnomalyKind, clause: &'static str, scenario: String) {
    if !out.iter().any(|a| a.kind == kind && a.clause == clause) {
        out.push(Anomaly {
            kind,
            clause,
            scenario,
        });
    }
}

/// The causes of loss that come from the task's reads.
fn read_losses(f: &TaskFacts<'_>, c: &Clauses, out: &mut Vec<Anomaly>) {
    for r in &f.task.reads {
        if let Some(m @ (CommitMode::Auto | CommitMode::BeforeWrite)) = f.effective_commit(r) {
            push(out, AnomalyKind::Loss, "no_loss", format!(
                "the offsets of `{}` are committed `{}`: an attempt that fails after the commit and before the write leaves its records unread for good",
                f.decl(r.decl).name,
                m.word()
            ));
        }
    }
    if c.cursor_complete == Some(false) {
        if let Some(r) = f
            .cursor_reads()
            .into_iter()
            .find(|r| !f.cursor_gaps(r).is_empty())
        {
            // Both gaps, when both are open: each loses rows of its own.
            let gap = f.cursor_gaps(r).join("; and ");
            push(
                out,
                AnomalyKind::Loss,
                "cursor_complete",
                format!("in the cursor read of `{}`, {gap}", f.decl(r.decl).name),
            );
        }
    }
    if c.every_interval_runs == Some(false) {
        if let Some(r) = f.skipped_reads().first() {
            push(out, AnomalyKind::Skipped, "every_interval_runs", format!(
                "with `catchup false`, an interval the scheduler skips (it was down, or paused) never reads its `{}`",
                f.decl(r.decl).name
            ));
        }
    }
}

/// The anomalies of a write, from its clauses (`c`) and mode.
pub fn of_write<'a>(
    f: &TaskFacts<'a>,
    w: &'a WriteDef,
    c: &Clauses,
    exactly: bool,
) -> Vec<Anomaly> {
    let mut out = Vec::new();
    let sink = f.decl(w.decl);
    if f.program.kind_of(sink).lossy {
        push(
            &mut out,
            AnomalyKind::Loss,
            "no_loss",
            format!(
                "kind `{}` is `lossy`: it can acknowledge a write to `{}` and drop it later",
                sink.kind, sink.name
            ),
        );
    }
    if f.reinsert_dropped(w) {
        push(
            &mut out,
            AnomalyKind::Loss,
            "no_loss",
            format!(
                "kind `{}` has `deduplicates_inserts`: a retry or re-run deletes `{}` and inserts a block identical to a recent one, which the system drops",
                sink.kind, sink.name
            ),
        );
    }
    read_losses(f, c, &mut out);
    if c.no_regression == Some(false) {
        let scenario = match w.mode {
            Mode::Overwrite => format!("a late attempt, or a re-run of another interval, replaces all of `{}` with its own output", sink.name),
            Mode::Upsert => format!("a late attempt, or a re-run of an older interval, puts older values back over newer rows of `{}`", sink.name),
            _ => format!("a run replaces a partition of `{}` that another interval wrote", sink.name),
        };
        push(&mut out, AnomalyKind::Regression, "no_regression", scenario);
    }
    if exactly {
        return sorted(out);
    }
    let unstable = c.input_stable == Some(false);
    let nondet = c.deterministic == Some(false);
    if c.idempotent == Some(false) {
        let scenario = match f.rereads(w) {
            Some(r) => format!(
                "the cursor read of `{}` reads rows again that an earlier interval read, and the write adds them again",
                f.decl(r.decl).name
            ),
            None => format!("a retry after a failure at commit writes the interval's records to `{}` again", sink.name),
        };
        push(&mut out, AnomalyKind::Duplicate, "idempotent", scenario);
    }
    if c.key_stable == Some(false) {
        let scenario = if w.mode == Mode::ConditionalCommit {
            // A term new at every attempt (`attempt.number`, `uuid()`, `now()`) gives a retry a
            // new id too, not only a re-run.
            let per_attempt = TaskFacts::txn_parts(w).iter().any(|p| p.term.per_attempt());
            if per_attempt {
                format!(
                    "a retry after a failure at commit runs under a new transaction id and commits the interval to `{}` again",
                    sink.name
                )
            } else {
                format!(
                    "a re-run under a new transaction id commits the interval to `{}` again",
                    sink.name
                )
            }
        } else {
            format!(
                "a retry writes the records to `{}` under new keys beside the old ones",
                sink.name
            )
        };
        push(&mut out, AnomalyKind::Duplicate, "key_stable", scenario);
    }
    if c.shared_coordinator == Some(false) {
        push(&mut out, AnomalyKind::Duplicate, "shared_coordinator", format!(
            "the write to `{}` commits and the offsets do not: a retry reads and writes the records again",
            sink.name
        ));
    }
    if c.key_unique == Some(false) {
        let kind = if matches!(w.mode, Mode::InsertIfAbsent | Mode::AppendLedger) {
            AnomalyKind::FirstWins
        } else {
            AnomalyKind::Drift
        };
        push(
            &mut out,
            kind,
            "key_unique",
            format!(
            "several input records share one key of `{}`: which one is kept depends on the attempt",
            sink.name
        ),
        );
    }
    let by_output_key = f
        .dedup_parts(w)
        .iter()
        .any(|p| matches!(p.term, Term::OutputField { .. } | Term::OutputHash));
    for (fails, clause, why) in [
        (unstable, "input_stable", "another read of a changing input"),
        (nondet, "deterministic", "a nondeterministic transform"),
    ] {
        if !fails {
            continue;
        }
        let (kind, scenario) = match w.mode {
            Mode::InsertIfAbsent => (AnomalyKind::FirstWins, format!("attempts produce different rows for one key from {why}: the first committed to `{}` is kept", sink.name)),
            Mode::Upsert if w.newest_by.is_some() => (AnomalyKind::FirstWins, format!("attempts produce different rows with one version from {why}: on a tie the row first committed to `{}` is kept", sink.name)),
            Mode::Upsert | Mode::AppendLedger if clause == "input_stable" && !by_output_key => (AnomalyKind::Stale, format!("rows written to `{}` from {why} stay beside the current ones (no key appears twice)", sink.name)),
            Mode::Upsert | Mode::AppendLedger => (AnomalyKind::Drift, format!("the rows of `{}` depend on which attempt ran, from {why}", sink.name)),
            Mode::Append | Mode::CheckThenAppend => (AnomalyKind::Stale, format!("rows appended to `{}` from {why} stay beside a retry's", sink.name)),
            _ => (AnomalyKind::Drift, format!("the interval's output in `{}` depends on when the attempt ran, from {why}", sink.name)),
        };
        push(&mut out, kind, clause, scenario);
    }
    sorted(out)
}

/// The anomalies of an effect, from its clauses and tracking.
pub fn of_emit(
    f: &TaskFacts<'_>,
    tracking: Tracking,
    target: &str,
    c: &Clauses,
    duplicates: bool,
) -> Vec<Anomaly> {
    let mut out = Vec::new();
    read_losses(f, c, &mut out);
    match tracking {
        Tracking::Untracked => push(
            &mut out,
            AnomalyKind::Duplicate,
            "idempotent",
            format!("a retry of the task sends `{target}` again: nothing records that it was sent"),
        ),
        _ if c.key_stable == Some(false) => push(
            &mut out,
            AnomalyKind::Duplicate,
            "key_stable",
            format!("a retry names `{target}`'s messages with new keys, so they are sent again"),
        ),
        _ => {}
    }
    if duplicates
        && tracking != Tracking::Untracked
        && c.key_stable != Some(false)
        && out.iter().all(|a| a.kind != AnomalyKind::Duplicate)
    {
        let unstable = c.input_stable == Some(false) || c.deterministic == Some(false);
        if !unstable {
            push(&mut out, AnomalyKind::Duplicate, "idempotent", format!(
                "a message of `{target}` can be sent again after a failure between sending and recording it"
            ));
        }
    }
    for (fails, clause, why) in [
        (
            c.input_stable == Some(false),
            "input_stable",
            "another read of a changing input",
        ),
        (
            c.deterministic == Some(false),
            "deterministic",
            "a nondeterministic transform",
        ),
    ] {
        if !fails {
            continue;
        }
        let (kind, scenario) = match tracking {
            Tracking::IdempotencyKey => (AnomalyKind::FirstWins, format!("attempts send different payloads under one key from {why}: the receiver of `{target}` keeps the first")),
            Tracking::Outbox => (AnomalyKind::Drift, format!("the messages of `{target}` depend on which attempt committed, from {why}")),
            Tracking::Untracked => continue,
        };
        push(&mut out, kind, clause, scenario);
    }
    sorted(out)
}

fn sorted(mut out: Vec<Anomaly>) -> Vec<Anomaly> {
    out.sort_by_key(|a| a.kind);
    out
}
