//! FL207 `concurrent-writers`: two unordered tasks of one pipeline write the same sink.

use super::{Ctx, Rule};
use crate::diagnostic::Diagnostic;
use crate::diagnostic::Severity;
use std::collections::BTreeMap;

use crate::analyze::model::{Mode, WriteDef};

pub const RULE: Rule = Rule {
    code: "FL207",
    name: "concurrent-writers",
    severity: Severity::Warning,
    summary: "two unordered tasks of one pipeline write the same sink",
    explain: include_str!("explain/FL207.md"),
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for report in &ctx.analysis.pipelines {
        let p = &ctx.program.pipelines[report.pipeline];
        // sink -> its writers (task, write), in topological order.
        let mut writers: BTreeMap<usize, Vec<(usize, &WriteDef)>> = BTreeMap::new();
        for (i, t) in p.tasks.iter().enumerate() {
            for w in &t.writes {
                let list = writers.entry(w.decl).or_default();
                if !list.iter().any(|(j, _)| *j == i) {
                    list.push((i, w));
                }
            }
        }
        for (decl, mut list) in writers {
            list.sort_by_key(|(i, _)| report.graph.rank[*i]);
            // Ordered writers form a chain: checking neighbours is enough.
            for pair in list.windows(2) {
                let ((a, wa), (b, wb)) = (pair[0], pair[1]);
                if wa.mode == Mode::ConditionalCommit && wb.mode == Mode::ConditionalCommit {
                    continue;
                }
                if report.graph.reaches(a, b) {
                    continue;
                }
                let sink = &ctx.program.decls[decl].name;
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
                    .help(format!(
                        "add `after {}` to task `{}`, or have both use `conditional_commit`",
                        p.tasks[a].name, p.tasks[b].name
                    )),
                );
            }
        }
    }
}
