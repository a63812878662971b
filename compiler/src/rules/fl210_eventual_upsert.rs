//! FL210 `eventual-upsert`: an `upsert` into a kind with `eventual_upsert`: each write adds a row version, and older versions go only when the system merges in the background.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL210,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in t.task.writes.iter().filter(|w| w.mode == Mode::Upsert) {
            if !t.facts.mode_supported(w) {
                continue;
            }
            let sink = t.facts.decl(w.decl);
            let kind = ctx.program.kind_of(sink);
            if !kind.eventual_upsert {
                continue;
            }
            out.push(
                Diagnostic::new(
                    RULE.code,
                    w.mode_loc.file,
                    w.mode_loc.span,
                    format!(
                        "`upsert` into `{}` in task `{}` adds a row version per write: a reader sees every version of a key until kind `{}` merges them, at a time nobody chooses",
                        sink.name, t.task.name, kind.name
                    ),
                )
                .label(
                    kind.loc.file,
                    kind.loc.span,
                    format!("kind `{}` has the line `eventual_upsert`", kind.name),
                )
                .help(
                    "read the table with `FINAL` (or `argMax` by the version column) in every consumer; or write it with `replace partition` by the interval",
                ),
            );
        }
    });
}
