//! FL402 `unstable-idempotency-key`: an idempotency key that changes between attempts or runs.

use super::{Ctx, Rule};
use crate::analyze::guarantee::term_text;
use crate::analyze::model::ViaDef;
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: Code::FL402,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for e in &t.task.emits {
            let ViaDef::IdempotencyKey(k) = &e.via else { continue };
            for p in k.parts.iter().filter(|p| !t.facts.term_stable(&p.term)) {
                out.push(
                    Diagnostic::new(RULE.code, p.loc.file, p.loc.span, format!("idempotency key term `{}` of `emit {}` in task `{}` is not stable", term_text(&p.term), t.facts.decl(e.decl).name, t.task.name))
                        .help("the receiver deduplicates on this key, so it must be the same on every attempt and re-run: use `input.FIELD`, `hash(input)` or, in a scheduled pipeline, `interval.start`"),
                );
            }
        }
    });
}
