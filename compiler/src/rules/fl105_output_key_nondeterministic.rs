//! FL105 `output-key-nondeterministic`: a key derived from the output of a nondeterministic task.

use super::{Ctx, Rule};
use crate::analyze::guarantee::{key_uses, term_text, KeyUse};
use crate::analyze::model::KeyPartDef;
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Term;

pub const RULE: Rule = Rule {
    code: Code::FL105,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        let Some(nd) = t.task.nondeterministic else { return };
        let mut parts: Vec<&KeyPartDef> = Vec::new();
        for u in key_uses(&t.facts) {
            match u {
                KeyUse::Write(_, ps) => parts.extend(ps),
                KeyUse::Idempotency(_, k) | KeyUse::Outbox(_, k) | KeyUse::TaskKey(k) => parts.extend(k.parts.iter()),
            }
        }
        for p in parts.into_iter().filter(|p| matches!(p.term, Term::OutputField { .. } | Term::OutputHash)) {
            out.push(
                Diagnostic::new(RULE.code, p.loc.file, p.loc.span, format!("key term `{}` comes from the output of nondeterministic task `{}`", term_text(&p.term), t.task.name))
                    .label(nd.file, nd.span, "the task is nondeterministic")
                    .help("key on the input (`input.FIELD`, `hash(input)`), which does not change between attempts"),
            );
        }
    });
}
