//! `flowc report`: the derived guarantee of every output, as a table for
//! people and as the versioned JSON of docs/json.md.

use crate::analyze::anomaly::Anomaly;
use std::fmt::Write as _;

use serde::Serialize;

use crate::analyze::guarantee::{term_text, Clauses, OutputReport};
use crate::analyze::model::Role;
use crate::check::Outcome;
use crate::vocab::{Guarantee, Mode, Tracking};

// The JSON of docs/json.md, written straight from these structs. Their fields
// are in alphabetical order: the order the format has always had.

#[derive(Serialize)]
struct ReportJson<'a> {
    pipelines: Vec<PipelineJson<'a>>,
    version: u32,
}

#[derive(Serialize)]
struct PipelineJson<'a> {
    file: &'a str,
    name: &'a str,
    /// The schedule in words with its first intervals; `null` for a manual pipeline.
    schedule: Option<crate::schedule::ScheduleWords>,
    state: StateJson<'a>,
    tasks: Vec<TaskJson<'a>>,
}

/// Where a pipeline's state lives: `{"store": "postgres_table", "via":
/// "warehouse"}`, or `{"store": "local"}`. A store whose kind the runtime
/// cannot keep state in yet (`kafka_topic`) is reported where the state
/// really goes, the local file, with the sink it stands in for:
/// `{"store": "local", "instead_of": {"store": "kafka_topic", "via": "events"}}`.
#[derive(Serialize)]
struct StateJson<'a> {
    store: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    via: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instead_of: Option<Box<StateJson<'a>>>,
}

/// The pipeline's state store, the sink that reaches it, and whether
/// `state` names it.
fn state_of<'a>(
    outcome: &'a Outcome,
    p: &crate::analyze::model::PipelineDef,
) -> (StateJson<'a>, bool) {
    use crate::analyze::state::{store, Store};
    let local = |instead_of| StateJson {
        store: "local",
        via: None,
        instead_of,
    };
    match store(&outcome.program, p) {
        Store::Local => (local(None), false),
        Store::Sink { decl, named } => {
            let d = &outcome.program.decls[decl];
            let sink = StateJson {
                store: &outcome.program.kind_of(d).name,
                via: Some(&d.name),
                instead_of: None,
            };
            if crate::codegen::ir::DURABLE_STATE_KINDS.contains(&sink.store) {
                (sink, named)
            } else {
                (local(Some(Box::new(sink))), named)
            }
        }
    }
}

#[derive(Serialize)]
struct TaskJson<'a> {
    achieved: Option<&'static str>,
    attempts_per_write: u128,
    name: &'a str,
    on_ambiguous: &'static str,
    on_ambiguous_why: &'a str,
    outputs: Vec<OutputJson<'a>>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum OutputJson<'a> {
    Effect {
        anomalies: &'a [Anomaly],
        clauses: EffectClausesJson,
        guarantee: &'static str,
        key: Option<EffectKeyJson>,
        required: &'static str,
        role: &'static str,
        target: &'a str,
        tracking: Option<&'static str>,
        via: Option<&'a str>,
    },
    Sink {
        anomalies: &'a [Anomaly],
        clauses: ClausesJson,
        guarantee: &'static str,
        mode: Option<&'static str>,
        required: &'static str,
        role: &'static str,
        target: &'a str,
    },
}

/// An effect's key: where it comes from and its terms as written.
#[derive(Serialize)]
struct EffectKeyJson {
    from: &'static str,
    terms: Vec<String>,
}

#[derive(Serialize)]
struct ClausesJson {
    cursor_complete: Option<bool>,
    deterministic: Option<bool>,
    every_interval_runs: Option<bool>,
    idempotent: Option<bool>,
    input_stable: Option<bool>,
    key_stable: Option<bool>,
    key_unique: Option<bool>,
    lease: Option<bool>,
    no_loss: Option<bool>,
    no_regression: Option<bool>,
    shared_coordinator: Option<bool>,
    versioned: Option<bool>,
}

/// An effect's clauses: the ones that apply to effects (`null` where one
/// does not apply to its tracking, such as `key_stable` of a bare `emit`).
#[derive(Serialize)]
struct EffectClausesJson {
    cursor_complete: Option<bool>,
    deterministic: Option<bool>,
    every_interval_runs: Option<bool>,
    input_stable: Option<bool>,
    key_stable: Option<bool>,
    no_loss: Option<bool>,
}

fn clauses_json(c: &Clauses) -> ClausesJson {
    ClausesJson {
        deterministic: c.deterministic,
        every_interval_runs: c.every_interval_runs,
        idempotent: c.idempotent,
        input_stable: c.input_stable,
        key_stable: c.key_stable,
        key_unique: c.key_unique,
        lease: c.lease,
        no_loss: c.no_loss,
        no_regression: c.no_regression,
        shared_coordinator: c.shared_coordinator,
        versioned: c.versioned,
        cursor_complete: c.cursor_complete,
    }
}

/// Names of the clauses that fail.
pub fn failing_clauses(c: &Clauses) -> Vec<&'static str> {
    [
        ("input_stable", c.input_stable),
        ("deterministic", c.deterministic),
        ("key_stable", c.key_stable),
        ("key_unique", c.key_unique),
        ("idempotent", c.idempotent),
        ("no_loss", c.no_loss),
        ("no_regression", c.no_regression),
        ("every_interval_runs", c.every_interval_runs),
        ("shared_coordinator", c.shared_coordinator),
        ("versioned", c.versioned),
        ("cursor_complete", c.cursor_complete),
    ]
    .into_iter()
    .filter(|(_, v)| *v == Some(false))
    .map(|(n, _)| n)
    .collect()
}

fn output_json(o: &OutputReport) -> OutputJson<'_> {
    match o.role {
        Role::Effect => OutputJson::Effect {
            anomalies: &o.anomalies,
            clauses: EffectClausesJson {
                deterministic: o.clauses.deterministic,
                every_interval_runs: o.clauses.every_interval_runs,
                input_stable: o.clauses.input_stable,
                key_stable: o.clauses.key_stable,
                no_loss: o.clauses.no_loss,
                cursor_complete: o.clauses.cursor_complete,
            },
            guarantee: o.guarantee.word(),
            key: o.effect_key.as_ref().map(|k| EffectKeyJson {
                from: k.from.word(),
                terms: k.parts.iter().map(|p| term_text(&p.term)).collect(),
            }),
            required: o.required.word(),
            role: "effect",
            target: &o.target,
            tracking: o.tracking.map(Tracking::word),
            via: o.via.as_deref(),
        },
        _ => OutputJson::Sink {
            anomalies: &o.anomalies,
            clauses: clauses_json(&o.clauses),
            guarantee: o.guarantee.word(),
            mode: o.mode.map(Mode::word),
            required: o.required.word(),
            role: "sink",
            target: &o.target,
        },
    }
}

/// Pipelines of the given files, in source order.
fn pipelines_of(outcome: &Outcome) -> Vec<(usize, &crate::analyze::PipelineReport)> {
    let mut out: Vec<(usize, &crate::analyze::PipelineReport)> = Vec::new();
    for root in &outcome.roots {
        for pr in &outcome.analysis.pipelines {
            let p = &outcome.program.pipelines[pr.pipeline];
            if p.loc.file == *root {
                out.push((pr.pipeline, pr));
            }
        }
    }
    out
}

pub fn json(outcome: &Outcome) -> String {
    json_at(outcome, None)
}

/// [`json`], each schedule's intervals the next ones after `now` (the first
/// ones from `start` when `None`).
pub fn json_at(outcome: &Outcome, now: Option<jiff::Timestamp>) -> String {
    let pipelines = pipelines_of(outcome)
        .into_iter()
        .map(|(i, pr)| {
            let p = &outcome.program.pipelines[i];
            PipelineJson {
                file: outcome.sources.path(p.loc.file),
                name: &p.name,
                schedule: crate::schedule::describe(p, now),
                state: state_of(outcome, p).0,
                tasks: pr
                    .tasks
                    .iter()
                    .map(|t| TaskJson {
                        achieved: t.achieved.map(Guarantee::word),
                        attempts_per_write: t.attempts_per_write,
                        name: &t.name,
                        on_ambiguous: t.on_ambiguous.word(),
                        on_ambiguous_why: &t.on_ambiguous_why,
                        outputs: t.outputs.iter().map(output_json).collect(),
                    })
                    .collect(),
            }
        })
        .collect();
    let report = ReportJson {
        pipelines,
        version: 1,
    };
    let mut s = serde_json::to_string_pretty(&report).unwrap_or_default();
    s.push('\n');
    s
}

/// The human table: one per pipeline.
pub fn table(outcome: &Outcome) -> String {
    table_at(outcome, None)
}

/// [`table`], each schedule's intervals the next ones after `now` (the
/// first ones from `start` when `None`).
pub fn table_at(outcome: &Outcome, now: Option<jiff::Timestamp>) -> String {
    let mut out = String::new();
    for (i, pr) in pipelines_of(outcome) {
        let p = &outcome.program.pipelines[i];
        let _ = writeln!(
            out,
            "pipeline {} ({})",
            p.name,
            // A file name may hold control characters: shown escaped.
            crate::diagnostic::human::escape_controls(outcome.sources.path(p.loc.file))
        );
        if let Some(w) = crate::schedule::describe(p, now) {
            let _ = writeln!(out, "  schedule `{}` ({}): {}", w.cron, w.timezone, w.words);
            let shown: Vec<String> = w
                .intervals
                .iter()
                .map(crate::schedule::human_interval)
                .collect();
            let _ = writeln!(
                out,
                "  {} intervals: {}",
                if w.from == "now" { "next" } else { "first" },
                shown.join(", ")
            );
        }
        let mut rows: Vec<[String; 6]> = vec![[
            "task".into(),
            "output".into(),
            "mode".into(),
            "guarantee".into(),
            "required".into(),
            "failing clauses".into(),
        ]];
        for t in &pr.tasks {
            if t.outputs.is_empty() {
                rows.push([
                    t.name.clone(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    String::new(),
                ]);
            }
            for o in &t.outputs {
                let mode = match (o.mode, o.tracking) {
                    (Some(m), _) => m.source().to_string(),
                    (None, Some(Tracking::Untracked)) => "emit".to_string(),
                    (None, Some(tr)) => format!("via {}", tr.word()),
                    _ => String::new(),
                };
                let mark = if o.guarantee.at_least(o.required) {
                    ""
                } else {
                    "  ✗"
                };
                let mut failing = failing_clauses(&o.clauses).join(", ");
                if o.role == Role::Effect
                    && !o.failing.is_empty()
                    && failing.is_empty()
                    && o.guarantee != o.required
                {
                    failing = o
                        .failing
                        .first()
                        .map(|(_, m)| m.clone())
                        .unwrap_or_default();
                }
                rows.push([
                    t.name.clone(),
                    o.target.clone(),
                    mode,
                    format!("{}{mark}", o.guarantee.word()),
                    o.required.word().to_string(),
                    failing,
                ]);
            }
        }
        let mut widths = [0usize; 6];
        for r in &rows {
            for (w, c) in widths.iter_mut().zip(r) {
                *w = (*w).max(c.chars().count());
            }
        }
        for r in &rows {
            let mut line = String::from("  ");
            for (k, (w, c)) in widths.iter().zip(r).enumerate() {
                line.push_str(c);
                if k + 1 < r.len() {
                    line.push_str(&" ".repeat(w - c.chars().count() + 2));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        // What can go wrong, in words (flowc 0.3): one line per anomaly.
        for t in &pr.tasks {
            for o in &t.outputs {
                for a in &o.anomalies {
                    let _ = writeln!(
                        out,
                        "  {}/{}: {} ({}): {}",
                        t.name,
                        o.target,
                        a.kind.word(),
                        a.clause,
                        a.scenario
                    );
                }
            }
        }
        for t in &pr.tasks {
            let _ = writeln!(
                out,
                "  {}: {} attempt{} per write, on_ambiguous {}{}, achieved {}",
                t.name,
                t.attempts_per_write,
                if t.attempts_per_write == 1 { "" } else { "s" },
                t.on_ambiguous.word(),
                // Why a task fails rather than retries (issue 28 item 8).
                if t.on_ambiguous == crate::vocab::OnAmbiguous::Fail {
                    format!(" ({})", t.on_ambiguous_why)
                } else {
                    String::new()
                },
                t.achieved.map_or("n/a (no outputs)", Guarantee::word)
            );
        }
        let (state, named) = state_of(outcome, p);
        let how = if named {
            " (named by `state`)"
        } else {
            " (the first written sink that can hold it)"
        };
        let _ = match (state.instead_of.as_deref(), state.via) {
            (Some(sink), _) => writeln!(
                out,
                "  state: a local SQLite file: its store is {} `{}`{how}, where the runtime cannot keep state yet (durable only for tasks that run as local processes on one machine)",
                sink.store,
                sink.via.unwrap_or_default(),
            ),
            (None, None) => writeln!(
                out,
                "  state: a local SQLite file (durable only for tasks that run as local processes on one machine)"
            ),
            (None, Some(via)) => writeln!(out, "  state: {} of sink `{via}`{how}", state.store),
        };
        // Every `allow` with its reason (docs/reference/language.md: the reason shows in reports).
        let allows = p.allows.iter().map(|a| (None, a)).chain(
            p.tasks
                .iter()
                .flat_map(|t| t.allows.iter().map(move |a| (Some(&t.name), a))),
        );
        for (task, a) in allows {
            let scope = task.map_or_else(|| "the pipeline".to_string(), |t| format!("task `{t}`"));
            let _ = writeln!(
                out,
                "  allowed in {scope}: {} because {}",
                a.code,
                crate::codegen::quote::yaml_str(&a.reason)
            );
        }
        out.push('\n');
    }
    out
}
