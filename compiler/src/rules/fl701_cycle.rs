//! FL701 `cycle`: the task graph has a cycle.

use super::{Ctx, Rule};
use crate::analyze::graph::EdgeOrigin;
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: Code::FL701,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for report in &ctx.analysis.pipelines {
        let p = &ctx.program.pipelines[report.pipeline];
        for cycle in report.graph.cycles() {
            let n = cycle.len();
            let mut names: Vec<&str> = cycle
                .iter()
                .map(|(t, _)| p.tasks[*t].name.as_str())
                .collect();
            names.push(names[0]);
            let first = &p.tasks[cycle[0].0];
            let mut d = Diagnostic::new(
                RULE.code,
                first.name_loc.file,
                first.name_loc.span,
                format!(
                    "tasks of pipeline `{}` form a cycle: {}",
                    p.name,
                    names
                        .iter()
                        .map(|s| format!("`{s}`"))
                        .collect::<Vec<_>>()
                        .join(" -> ")
                ),
            );
            for (k, (from, origin)) in cycle.iter().enumerate() {
                let to = &p.tasks[cycle[(k + 1) % n].0];
                let from = &p.tasks[*from];
                let msg = match origin {
                    EdgeOrigin::After(_) => {
                        format!("`{}` runs after `{}` (`after`)", to.name, from.name)
                    }
                    EdgeOrigin::DataFlow { decl, .. } => format!(
                        "`{}` reads `{}`, which `{}` writes",
                        to.name, ctx.program.decls[*decl].name, from.name
                    ),
                };
                let at = origin.loc();
                d = d.label(at.file, at.span, msg);
            }
            out.push(d.help(
                "remove an `after`, or split a task so that no task depends on its own output",
            ));
        }
    }
}
