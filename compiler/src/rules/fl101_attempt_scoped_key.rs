//! FL101 `attempt-scoped-key`: a key term that changes on every attempt: `attempt.*`, `now()`, `uuid()`, `random()`.

use super::{Ctx, Rule};
use crate::analyze::guarantee::{key_uses, term_text, KeyUse};
use crate::analyze::model::{KeyPartDef, Loc};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL101,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for u in key_uses(&t.facts) {
            let (parts, at, what): (Vec<&KeyPartDef>, Loc, String) = match &u {
                // FL203 replaces this rule on ledger keys, FL402 on idempotency keys.
                KeyUse::Write(w, _) if w.mode == Mode::AppendLedger => continue,
                KeyUse::Idempotency(..) => continue,
                KeyUse::Write(w, parts) => (parts.clone(), w.loc, format!("`write {}`", t.facts.decl(w.decl).name)),
                KeyUse::TaskKey(k) => (k.parts.iter().collect(), k.loc, "the task's key".to_string()),
                KeyUse::Outbox(e, k) => (k.parts.iter().collect(), e.loc, format!("`emit {}`", t.facts.decl(e.decl).name)),
            };
            for p in parts.into_iter().filter(|p| p.term.per_attempt()) {
                out.push(
                    Diagnostic::new(RULE.code, p.loc.file, p.loc.span, format!("key term `{}` of {what} in task `{}` changes on every attempt", term_text(&p.term), t.task.name))
                        .label(at.file, at.span, "the key is used here")
                        .help("derive the key from the input (`input.FIELD`, `hash(input)`) or the interval (`interval.start`), so a retry produces the same key"),
                );
            }
        }
    });
}
