//! FL112 `unfenced-upsert`: an `upsert` on a kind that is not `fenced`: a late attempt or an older interval's re-run puts older values back.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL112,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in t.task.writes.iter().filter(|w| w.mode == Mode::Upsert) {
            // FL205 covers a kind without `upsert`.
            // A key holding a global identity never recurs: nothing to fence.
            if !t.facts.mode_supported(w)
                || t.facts.sink_fenced(w.decl)
                || t.facts.key_never_recurs(w)
                || w.newest_by.is_some()
            {
                continue;
            }
            let sink = t.facts.decl(w.decl);
            let kind = ctx.program.kind_of(sink);
            out.push(
                Diagnostic::new(RULE.code, w.mode_loc.file, w.mode_loc.span, format!("`upsert` into `{}` in task `{}` is not fenced: a late attempt, or a re-run of an older interval, puts older values back over newer ones", sink.name, t.task.name))
                    .label(kind.loc.file, kind.loc.span, format!("kind `{}` is not `fenced`", kind.name))
                    .help("upsert into a sink whose kind is `fenced` (such as `postgres_table` or `sqlite_table`), which refuses a write from an older interval than the row's last writer"),
            );
        }
    });
}
