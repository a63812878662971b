//! FL201 `check-then-append`: `check_then_append`: the check and the append are separate steps.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL201,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in t.task.writes.iter().filter(|w| w.mode == Mode::CheckThenAppend) {
            let sink = t.facts.decl(w.decl);
            out.push(
                Diagnostic::new(RULE.code, w.mode_loc.file, w.mode_loc.span, format!("`check_then_append` to `{sink}` in task `{task}`: two attempts can both pass the check and both append", sink = sink.name, task = t.task.name))
                    .label(sink.name_loc.file, sink.name_loc.span, format!("`{}` declared here", sink.name))
                    .help("use `append ledger` (the ledger check and the append share one transaction) or `upsert` on a primary key"),
            );
        }
    });
}
