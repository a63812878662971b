//! FL207 `concurrent-writers`: two unordered tasks write the same sink:
//! two tasks of one pipeline that nothing orders (conditional commits
//! included), or tasks of two pipelines of one run.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use std::collections::BTreeMap;

use crate::analyze::model::WriteDef;
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL207,
    check: Some(check),
};

/// The system a declaration names: its kind, its `secret` (where the
/// connection comes from) and its string parameters (table, path, topic,
/// location, database). Two declarations with one identity are one table
/// written under two names (issue 27, item 19).
fn identity(d: &crate::analyze::model::DeclDef) -> (&str, Option<&str>, Vec<(&str, &str)>) {
    let params = d
        .params
        .iter()
        .filter_map(|(k, v)| match v {
            crate::vocab::ParamValue::String(s) => Some((k.as_str(), s.as_str())),
            _ => None,
        })
        .collect();
    (
        d.kind.as_str(),
        d.secret.as_ref().map(|(s, _)| s.as_str()),
        params,
    )
}

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    // Each declaration stands for the first one that names the same system.
    let mut first: BTreeMap<_, usize> = BTreeMap::new();
    let canonical: Vec<usize> = ctx
        .program
        .decls
        .iter()
        .enumerate()
        .map(|(i, d)| *first.entry(identity(d)).or_insert(i))
        .collect();
    // sink -> (pipeline, its first write of the sink), one per pipeline.
    let mut across: BTreeMap<usize, Vec<(usize, &WriteDef)>> = BTreeMap::new();
    for report in &ctx.analysis.pipelines {
        let p = &ctx.program.pipelines[report.pipeline];
        // sink -> its writers: (task, its first write of the sink, whether all its
        // writes of the sink are conditional commits).
        let mut writers: BTreeMap<usize, Vec<(usize, &WriteDef, bool)>> = BTreeMap::new();
        for (i, t) in p.tasks.iter().enumerate() {
            // Inserts-if-absent never replace a row: whichever commits first,
            // an unordered writer cannot undo it (flowc 0.3).
            for w in t.writes.iter().filter(|w| w.mode != Mode::InsertIfAbsent) {
                let system = canonical.get(w.decl).copied().unwrap_or(w.decl);
                let list = writers.entry(system).or_default();
                let cc = w.mode == Mode::ConditionalCommit;
                // Tasks and pipelines come in order, so an entry of this task (or
                // pipeline) can only be the last one: no scan of the list, which
                // grows with the writers (issue 27, item 13).
                match list.last_mut().filter(|(j, _, _)| *j == i) {
                    Some(entry) => entry.2 &= cc,
                    None => list.push((i, w, cc)),
                }
                let others = across.entry(system).or_default();
                if others.last().map(|(q, _)| *q) != Some(report.pipeline) {
                    others.push((report.pipeline, w));
                }
            }
        }
        // One name when both write one declaration; both when two
        // declarations name one system.
        let sink_name = |a: usize, b: usize| {
            let (na, nb) = (&ctx.program.decls[a].name, &ctx.program.decls[b].name);
            if a == b {
                format!("`{na}`")
            } else {
                format!("`{na}` and `{nb}` (one system under two names)")
            }
        };
        // A graph too dense to build has no data-flow edges: FL708 refuses
        // the pipeline, and "nothing orders them" would be untrue.
        if report.graph.dense.is_some() {
            continue;
        }
        for (decl, mut list) in writers {
            // Every writer must follow the one before it: ordered neighbours
            // order them all. Two conditional commits are no exception: each
            // one's commit moves the version the other asserts, so both fail
            // on every retry (flowc 0.2).
            list.sort_by_key(|(i, _, _)| report.graph.rank[*i]);
            for pair in list.windows(2) {
                let ((a, wa, cca), (b, wb, ccb)) = (pair[0], pair[1]);
                if report.graph.reaches(a, b) {
                    continue;
                }
                let _ = decl;
                let sink = sink_name(wa.decl, wb.decl);
                let help = if cca && ccb {
                    format!(
                        "add `after {}` to task `{}`: two conditional commits of one sink each move the version the other asserts, so unordered they can fail every retry",
                        p.tasks[a].name, p.tasks[b].name
                    )
                } else {
                    format!(
                        "add `after {}` to task `{}`, so that one writes after the other",
                        p.tasks[a].name, p.tasks[b].name
                    )
                };
                out.push(
                    Diagnostic::new(
                        RULE.code,
                        wb.loc.file,
                        wb.loc.span,
                        format!(
                            "tasks `{}` and `{}` both write {sink}, and nothing orders them",
                            p.tasks[a].name, p.tasks[b].name
                        ),
                    )
                    .label(
                        wa.loc.file,
                        wa.loc.span,
                        format!(
                            "`{}` writes `{}` here",
                            p.tasks[a].name, ctx.program.decls[wa.decl].name
                        ),
                    )
                    .help(help),
                );
            }
        }
    }
    // Pipelines of one run are scheduled independently: nothing orders their
    // tasks. The finding goes on each later pipeline's write, labelling the
    // first pipeline's.
    for list in across.into_values() {
        let Some(&(first, wf)) = list.first() else {
            continue;
        };
        let pa = &ctx.program.pipelines[first].name;
        for &(other, wo) in &list[1..] {
            let pb = &ctx.program.pipelines[other].name;
            let (sink, other_name) = (
                &ctx.program.decls[wf.decl].name,
                &ctx.program.decls[wo.decl].name,
            );
            let also = if sink == other_name {
                String::new()
            } else {
                format!(" (as `{other_name}`: one system under two names)")
            };
            out.push(
                Diagnostic::new(
                    RULE.code,
                    wo.loc.file,
                    wo.loc.span,
                    format!(
                        "pipelines `{pa}` and `{pb}` both write `{sink}`{also}, and nothing orders their tasks"
                    ),
                )
                .label(
                    wf.loc.file,
                    wf.loc.span,
                    format!("pipeline `{pa}` writes `{sink}` here"),
                )
                .help(format!(
                    "write `{sink}` from one pipeline only, or move both tasks into one pipeline and order them with `after`"
                )),
            );
        }
    }
}
