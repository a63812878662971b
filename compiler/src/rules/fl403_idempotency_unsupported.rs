//! FL403 `idempotency-unsupported`: `via idempotency_key` on an effect kind that cannot deduplicate.

use super::{Ctx, Rule};
use crate::analyze::model::ViaDef;
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: Code::FL403,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for e in &t.task.emits {
            if !matches!(e.via, ViaDef::IdempotencyKey(_)) {
                continue;
            }
            let effect = t.facts.decl(e.decl);
            let kind = t.facts.program.kind_of(effect);
            if kind.idempotency_key {
                continue;
            }
            let at = e.via_loc.unwrap_or(e.loc);
            out.push(
                Diagnostic::new(RULE.code, at.file, at.span, format!("`{}` (kind `{}`) cannot deduplicate on an idempotency key", effect.name, kind.name))
                    .label(kind.loc.file, kind.loc.span, format!("kind `{}` does not declare `idempotency key`", kind.name))
                    .help("send it `via outbox` instead, and accept at-least-once delivery with `require at_least_once`"),
            );
        }
    });
}
