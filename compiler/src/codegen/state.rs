//! FL806 at `flowc build`: a pipeline that needs state (a pin, a
//! `conditional_commit` or `append ledger` write, an outbox) whose store is
//! the local database file (`local`, or a kind the runtime cannot keep state
//! in, which falls back to it), while a task runs in a container. Each attempt of
//! a container task may start in a fresh container, so a retry would not
//! see what the first attempt recorded.

use super::ir::{Pipeline, DURABLE_STATE_KINDS, LOCAL_STATE};
use super::{At, TargetProblem};
use crate::diagnostic::Code;
use crate::vocab::{Mode, Tracking};

/// FL806 for each pipeline of `pipelines` that needs durable state and has
/// none, at its first task that runs in a container.
pub fn problems(pipelines: &[Pipeline]) -> Vec<TargetProblem> {
    pipelines.iter().filter_map(problem).collect()
}

fn problem(p: &Pipeline) -> Option<TargetProblem> {
    if !p.needs_state || DURABLE_STATE_KINDS.contains(&p.state.kind.as_str()) {
        return None;
    }
    let task = p.tasks.iter().find(|t| t.image.is_some())?;
    let store = (p.state.kind != LOCAL_STATE)
        .then_some(p.state.endpoint.as_ref())
        .flatten()
        .map(|e| (e.name.as_str(), p.state.kind.as_str()));
    let (message, help) = crate::rules::no_durable_state_words(
        &p.name,
        &task.name,
        &reason(p),
        store,
        &DURABLE_STATE_KINDS,
    );
    Some(TargetProblem {
        code: Code::FL806,
        pipeline: p.name.clone(),
        task: Some(task.name.clone()),
        message,
        help,
        at: At::Name,
    })
}

/// What the pipeline keeps in its state, first of all.
fn reason(p: &Pipeline) -> String {
    for t in &p.tasks {
        if let Some(r) = t.reads.iter().find(|r| r.pin.is_some()) {
            return format!("the pin of `read {}` (task `{}`)", r.source.name, t.name);
        }
        if let Some(w) = t
            .writes
            .iter()
            .find(|w| matches!(w.mode, Mode::ConditionalCommit | Mode::AppendLedger))
        {
            let what = if w.mode == Mode::ConditionalCommit {
                "the recorded version"
            } else {
                "the transaction ids"
            };
            return format!(
                "{what} of `write {} {}` (task `{}`)",
                w.sink.name,
                w.mode.source(),
                t.name
            );
        }
        if let Some(e) = t.emits.iter().find(|e| e.tracking == Tracking::Outbox) {
            return format!("the outbox of `emit {}` (task `{}`)", e.effect.name, t.name);
        }
    }
    "its pins and recorded versions".to_owned()
}
