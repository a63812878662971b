//! FL207 `concurrent-writers`: two unordered tasks of one pipeline write the same sink.

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
            }
        }
        let sink_name = |decl: usize| ctx.program.decls[decl].name.as_str();
        for (decl, mut list) in writers {
            list.sort_by_key(|(i, _, _)| report.graph.rank[*i]);
            let mut unordered: Vec<(usize, usize)> = Vec::new();
            // Writers that are not conditional commits must form a chain;
            // ordered neighbours order them all.
            let plain: Vec<usize> = (0..list.len()).filter(|&k| !list[k].2).collect();
            for pair in plain.windows(2) {
                if !report.graph.reaches(list[pair[0]].0, list[pair[1]].0) {
                    unordered.push((pair[0], pair[1]));
                }
            }
            // A conditional commit needs ordering only against the others: the
            // nearest of them before and after it in the chain decide.
            for k in (0..list.len()).filter(|&k| list[k].2) {
                let before = plain.iter().rev().find(|&&n| n < k);
                let after = plain.iter().find(|&&n| n > k);
                if let Some(&n) = before {
                    if !report.graph.reaches(list[n].0, list[k].0) {
                        unordered.push((n, k));
                    }
                }
                if let Some(&n) = after {
                    if !report.graph.reaches(list[k].0, list[n].0) {
                        unordered.push((k, n));
                    }
                }
            }
            unordered.sort_unstable();
            unordered.dedup();
            for (x, y) in unordered {
                let ((a, wa, _), (b, wb, _)) = (list[x], list[y]);
                let sink = sink_name(decl);
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
