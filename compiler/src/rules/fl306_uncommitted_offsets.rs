//! FL306 `uncommitted-offsets`: a source with offsets read with neither a pin nor a commit mode.

use super::{Ctx, Rule};
use crate::diagnostic::Diagnostic;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL306",
    name: "uncommitted-offsets",
    severity: Severity::Warning,
    summary: "a source with offsets read with neither a pin nor a commit mode",
    explain: include_str!("explain/FL306.md"),
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for r in &t.task.reads {
            let src = t.facts.decl(r.decl);
            if !t.facts.program.kind_of(src).offsets || t.facts.effective_pin(r).is_some() || t.facts.stated_commit(r).is_some() {
                continue;
            }
            out.push(
                Diagnostic::new(RULE.code, r.loc.file, r.loc.span, format!("task `{}` reads `{}` with neither a pin nor a commit mode; its offsets default to `commit after_write`", t.task.name, src.name))
                    .help("say how offsets are handled: `pinned offsets`, or `commit after_write` / `commit in_transaction`"),
            );
        }
    });
}
