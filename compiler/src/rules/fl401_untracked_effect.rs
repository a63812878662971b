//! FL401 `untracked-effect`: a bare `emit`: the effect is sent again on every attempt.

use super::{Ctx, Rule};
use crate::analyze::model::ViaDef;
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: Code::FL401,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for e in t.task.emits.iter().filter(|e| e.via == ViaDef::Untracked) {
            let effect = t.facts.decl(e.decl);
            let kind = t.facts.program.kind_of(effect);
            let help = if kind.idempotency_key {
                "send it `via outbox` (a row committed with the task's write) or `via idempotency_key input.FIELD`"
            } else {
                "send it `via outbox`: it is then sent once per committed write, not once per attempt"
            };
            out.push(
                Diagnostic::new(RULE.code, e.loc.file, e.loc.span, format!("`emit {}` in task `{}` is untracked: every attempt sends it again, even when its write never lands", effect.name, t.task.name))
                    .help(help),
            );
        }
    });
}
