//! FL109 `unbound-partition`: `replace partition TERM` where TERM is not a field and names no column.

use super::{Ctx, Rule};
use crate::analyze::guarantee::term_text;
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Term;

pub const RULE: Rule = Rule {
    code: Code::FL109,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in &t.task.writes {
            let Some(p) = &w.partition else { continue };
            if p.column.is_some()
                || matches!(p.term, Term::InputField { .. } | Term::OutputField { .. })
            {
                continue;
            }
            let text = term_text(&p.term);
            out.push(
                Diagnostic::new(
                    RULE.code,
                    p.loc.file,
                    p.loc.span,
                    format!(
                        "`replace partition {text}` in task `{}` names no partition column",
                        t.task.name
                    ),
                )
                .help(format!(
                    "name the column the term fills: `replace partition day = {text}`"
                )),
            );
        }
    });
}
