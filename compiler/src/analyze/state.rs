//! Where a pipeline keeps flowc's state (pins, recorded versions,
//! transaction ids), whether it needs any, and when a source's input is
//! ready.
//!
//! The store is the pipeline's `state NAME` (a sink whose kind has `state`),
//! else the first sink the pipeline writes, in the order of its `write`
//! statements, whose kind has `state`, else a local database file, which only
//! tasks running as local processes on one machine share.

use super::guarantee::TaskFacts;
use super::model::{DeclDef, PipelineDef, Program, Ready, Role};
use crate::vocab::{Mode, Pin};

/// Where a pipeline's state lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// In the system of a sink (index into `Program::decls`): the one
    /// `state` names (`named`), else the first written one that can hold it.
    Sink { decl: usize, named: bool },
    /// In a local database file in the task's working folder.
    Local,
}

/// The state store of `p`.
pub fn store(program: &Program, p: &PipelineDef) -> Store {
    if let Some((decl, _)) = p.state {
        return Store::Sink { decl, named: true };
    }
    p.tasks
        .iter()
        .flat_map(|t| &t.writes)
        .map(|w| w.decl)
        .find(|&i| can_hold_state(program, &program.decls[i]))
        .map_or(Store::Local, |decl| Store::Sink { decl, named: false })
}

/// Whether `d` is a sink whose kind can keep flowc's state.
pub fn can_hold_state(program: &Program, d: &DeclDef) -> bool {
    d.role == Role::Sink && program.kind_of(d).state
}

/// Whether the runtime keeps state for `p`: a pinned read, a
/// `conditional_commit` or `append ledger` write, or an outbox.
pub fn needs_state(program: &Program, p: &PipelineDef) -> bool {
    p.tasks.iter().any(|t| {
        let facts = TaskFacts::new(program, p, t);
        t.reads.iter().any(|r| facts.effective_pin(r).is_some())
            || t.writes
                .iter()
                .any(|w| matches!(w.mode, Mode::ConditionalCommit | Mode::AppendLedger))
            || t.emits
                .iter()
                .any(|e| matches!(e.via, super::model::ViaDef::Outbox(_)))
    })
}

/// Whether `ready marker` and `ready nonempty` apply to the kind: it
/// lists what an interval holds (`pins listing`).
pub fn lists_files(program: &Program, d: &DeclDef) -> bool {
    program.kind_of(d).pins.contains(&Pin::Listing)
}

/// The source's `ready`, else its default: `nonempty` where the kind
/// lists files (`pins listing`), `always` elsewhere.
pub fn ready(program: &Program, d: &DeclDef) -> Ready {
    match &d.ready {
        Some((r, _)) => r.clone(),
        None if lists_files(program, d) => Ready::Nonempty,
        None => Ready::Always,
    }
}
