//! FL208 `unserialized-replace`: `replace partition` on a kind that commits each replace atomically but does not serialize two replaces of one partition (no `serialized_replace`).

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL208,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in t.task.writes.iter().filter(|w| w.mode == Mode::ReplacePartition) {
            // FL205 covers a kind without `replace`, FL206 one without atomic commits.
            if !t.facts.mode_supported(w)
                || !t.facts.sink_atomic(w.decl)
                || t.facts.sink_serialized(w.decl)
            {
                continue;
            }
            let sink = t.facts.decl(w.decl);
            let kind = ctx.program.kind_of(sink);
            out.push(
                Diagnostic::new(
                    RULE.code,
                    w.mode_loc.file,
                    w.mode_loc.span,
                    format!(
                        "`replace partition` of `{}` in task `{}`: two live attempts can each delete the partition and both insert",
                        sink.name, t.task.name
                    ),
                )
                .label(
                    kind.loc.file,
                    kind.loc.span,
                    format!("kind `{}` has no `serialized_replace` line", kind.name),
                )
                .help(format!(
                    "add `serialized_replace` to kind `{}` if the system serializes two replaces of one partition (a lock, a serializable commit); otherwise use `upsert` on a primary key",
                    kind.name
                )),
            );
        }
    });
}
