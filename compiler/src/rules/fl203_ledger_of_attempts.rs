//! FL203 `ledger-of-attempts`: an `append ledger` keyed on the attempt: it records attempts, not records.

use super::{Ctx, Rule};
use crate::analyze::guarantee::term_text;
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL203,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in t.task.writes.iter().filter(|w| w.mode == Mode::AppendLedger) {
            for p in t.facts.dedup_parts(w).into_iter().filter(|p| p.term.per_attempt()) {
                out.push(
                    Diagnostic::new(RULE.code, p.loc.file, p.loc.span, format!("the ledger of `{}` in task `{}` is keyed on `{}`: it records attempts, not records", t.facts.decl(w.decl).name, t.task.name, term_text(&p.term)))
                        .label(w.mode_loc.file, w.mode_loc.span, "ledger write")
                        .help("key the ledger on what identifies a record: `input.FIELD` or `hash(input)`"),
                );
            }
        }
    });
}
