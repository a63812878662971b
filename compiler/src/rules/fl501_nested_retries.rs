//! FL501 `nested-retries`: scheduler retries and internal retries multiplied on one task.

use super::{Ctx, Rule};
use crate::analyze::model::Role;
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::Severity;
use crate::vocab::Guarantee;

pub const RULE: Rule = Rule {
    code: Code::FL501,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        let (r, i) = (t.derived.retries, t.derived.internal_retries);
        if r == 0 || i == 0 {
            return;
        }
        // A write to a kind whose client deduplicates its own resends
        // (`idempotent_producer`) is applied once per task attempt, however
        // many internal retries resend it (flowc 0.3): it is not counted.
        let counted: Vec<_> = t
            .derived
            .outputs
            .iter()
            .filter(|o| {
                o.role != Role::Sink
                    || !ctx
                        .program
                        .kind_of(&ctx.program.decls[o.decl])
                        .idempotent_producer
            })
            .collect();
        if counted.is_empty() && !t.derived.outputs.is_empty() {
            return;
        }
        let unsafe_output = counted
            .iter()
            .find(|o| !o.guarantee.at_least(Guarantee::EffectivelyOnce));
        let at = t.task.internal_retries.map_or(t.task.name_loc, |(_, l)| l);
        let mut d = Diagnostic::new(
            RULE.code,
            at.file,
            at.span,
            format!(
                "task `{}` nests retries: {} x {} = {} attempts at the write",
                t.task.name,
                u64::from(r) + 1,
                u64::from(i) + 1,
                t.derived.attempts_per_write
            ),
        );
        if let Some((_, l)) = t.task.retries.or(t.pipeline.retries) {
            d = d.label(l.file, l.span, format!("{r} scheduler retries"));
        }
        d = d.label(at.file, at.span, format!("{i} internal retries"));
        if let Some(o) = unsafe_output {
            d = d.label(
                o.loc.file,
                o.loc.span,
                format!(
                    "`{}` is only {}: each attempt can duplicate it",
                    o.target,
                    o.guarantee.word()
                ),
            );
        } else {
            d = d.severity(Severity::Warning);
        }
        out.push(d.help("keep one retry layer: set `internal_retries 0` or `retries 0`"));
    });
}
