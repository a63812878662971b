//! FL308 `incomplete-cursor`: a cursor read that can skip rows: its cursor is not `unique` and the read not `inclusive`, or it has no `lookback` (flowc 0.3).

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: Code::FL308,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for r in t.facts.cursor_reads() {
            let gaps = t.facts.cursor_gaps(r);
            let Some(first) = gaps.first() else {
                continue;
            };
            let src = t.facts.decl(r.decl);
            let mut d = Diagnostic::new(
                RULE.code,
                r.loc.file,
                r.loc.span,
                format!(
                    "the cursor read of `{}` in task `{}` can skip rows: {first}",
                    src.name, t.task.name
                ),
            );
            for g in gaps.iter().skip(1) {
                d = d.label(r.loc.file, r.loc.span, (*g).to_string());
            }
            if let Some((column, _, at)) = &src.cursor {
                d = d.label(at.file, at.span, format!("`{}` goes by `{column}`", src.name));
            }
            let mut fixes = Vec::new();
            if src.cursor.as_ref().is_some_and(|c| !c.1) && r.inclusive.is_none() {
                fixes.push("read `inclusive` (or declare the cursor `unique` if no two rows share a value)");
            }
            if r.lookback.is_none() {
                fixes.push("add a `lookback` as long as a row can take to commit after its cursor value (`lookback 2h`)");
            }
            out.push(d.help(format!(
                "{}; rows read again are deduplicated when the write is keyed on the source's identity",
                fixes.join(", and ")
            )));
        }
    });
}
