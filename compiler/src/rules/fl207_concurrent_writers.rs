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

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    // sink -> (pipeline, its first write of the sink), one per pipeline.
    let mut across: BTreeMap<usize, Vec<(usize, &WriteDef)>> = BTreeMap::new();
    for report in &ctx.analysis.pipelines {
        let p = &ctx.program.pipelines[report.pipeline];
        // sink -> its writers: (task, its first write of the sink, whether all its
        // writes of the sink are conditional commits).
        let mut writers: BTreeMap<usize, Vec<(usize, &WriteDef, bool)>> = BTreeMap::new();
        for (i, t) in p.tasks.iter().enumerate() {
            for w in &t.writes {
                let list = writers.entry(w.decl).or_default();
                let cc = w.mode == Mode::ConditionalCommit;
                match list.iter_mut().find(|(j, _, _)| *j == i) {
                    Some(entry) => entry.2 &= cc,
                    None => list.push((i, w, cc)),
                }
                let others = across.entry(w.decl).or_default();
                if !others.iter().any(|(q, _)| *q == report.pipeline) {
                    others.push((report.pipeline, w));
                }
            }
        }
        let sink_name = |decl: usize| ctx.program.decls[decl].name.as_str();
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
                let sink = sink_name(decl);
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
                            "tasks `{}` and `{}` both write `{sink}`, and nothing orders them",
                            p.tasks[a].name, p.tasks[b].name
                        ),
                    )
                    .label(
                        wa.loc.file,
                        wa.loc.span,
                        format!("`{}` writes `{sink}` here", p.tasks[a].name),
                    )
                    .help(help),
                );
            }
        }
    }
    // Pipelines of one run are scheduled independently: nothing orders their
    // tasks. The finding goes on each later pipeline's write, labelling the
    // first pipeline's.
    for (decl, list) in across {
        let Some(&(first, wf)) = list.first() else {
            continue;
        };
        let sink = ctx.program.decls[decl].name.as_str();
        let pa = &ctx.program.pipelines[first].name;
        for &(other, wo) in &list[1..] {
            let pb = &ctx.program.pipelines[other].name;
            out.push(
                Diagnostic::new(
                    RULE.code,
                    wo.loc.file,
                    wo.loc.span,
                    format!(
                        "pipelines `{pa}` and `{pb}` both write `{sink}`, and nothing orders their tasks"
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
