//! FL502 `ambiguous-retry`: `on_ambiguous retry` on a task with an output below effectively-once.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::{Guarantee, OnAmbiguous};

pub const RULE: Rule = Rule {
    code: Code::FL502,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        let Some((OnAmbiguous::Retry, at)) = t.task.on_ambiguous else {
            return;
        };
        let Some(o) = t
            .derived
            .outputs
            .iter()
            .find(|o| !o.guarantee.at_least(Guarantee::EffectivelyOnce))
        else {
            return;
        };
        out.push(
            Diagnostic::new(
                RULE.code,
                at.file,
                at.span,
                format!(
                    "task `{}` retries after ambiguous failures, but `{}` is only {}",
                    t.task.name,
                    o.target,
                    o.guarantee.word()
                ),
            )
            .label(
                o.loc.file,
                o.loc.span,
                "a retry after a commit duplicates this output",
            )
            .help("use `on_ambiguous fail` (a person decides), or make every output idempotent"),
        );
    });
}
