//! FL111 `skipped-intervals`: `catchup false` in a scheduled pipeline with interval-scoped reads: the input of a skipped interval is never read.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: Code::FL111,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for report in &ctx.analysis.pipelines {
        let p = &ctx.program.pipelines[report.pipeline];
        // `catchup` has no meaning in a manual pipeline.
        if p.schedule.is_none() || p.catchup {
            continue;
        }
        let at = p.catchup_loc.unwrap_or(p.name_loc);
        // The interval-scoped declarations the pipeline reads, in read order.
        let mut read: Vec<usize> = Vec::new();
        for t in &p.tasks {
            for r in &t.reads {
                if !read.contains(&r.decl)
                    && crate::analyze::guarantee::interval_scoped(&ctx.program.decls[r.decl])
                {
                    read.push(r.decl);
                }
            }
        }
        if read.is_empty() {
            continue;
        }
        let mut d = Diagnostic::new(RULE.code, at.file, at.span, format!("`catchup false` in pipeline `{}`: the scheduler may skip intervals, and their input is never read", p.name));
        for decl in read {
            let src = &ctx.program.decls[decl];
            d = d.label(
                src.name_loc.file,
                src.name_loc.span,
                format!(
                    "`{}` is interval-scoped: a skipped interval's input is lost",
                    src.name
                ),
            );
        }
        out.push(d.help("remove `catchup false` (catch-up is the default), so that every interval runs; run missed intervals with `flowc backfill` where the target has no catch-up"));
    }
}
