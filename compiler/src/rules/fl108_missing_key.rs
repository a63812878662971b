//! FL108 `missing-key`: an `upsert` or `append ledger` with no key.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL108,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in &t.task.writes {
            if !matches!(
                w.mode,
                Mode::Upsert | Mode::InsertIfAbsent | Mode::AppendLedger
            ) || t.facts.write_key(w).is_some()
            {
                continue;
            }
            out.push(
                Diagnostic::new(
                    RULE.code,
                    w.loc.file,
                    w.loc.span,
                    format!(
                        "`{} {}` in task `{}` has no key",
                        w.mode.source(),
                        t.facts.decl(w.decl).name,
                        t.task.name
                    ),
                )
                .label(
                    w.mode_loc.file,
                    w.mode_loc.span,
                    "this mode deduplicates on a key",
                )
                .help("add `key input.FIELD` to the task, or `key ...` to this write"),
            );
        }
    });
}
