//! FL206 `needs-transaction`: `replace partition` or `append ledger` on a sink that is not transactional.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::vocab::Mode;
use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: Code::FL206,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in &t.task.writes {
            if !matches!(w.mode, Mode::ReplacePartition | Mode::AppendLedger) || !t.facts.mode_supported(w) || t.facts.sink_transactional(w.decl) {
                continue;
            }
            let sink = t.facts.decl(w.decl);
            out.push(
                Diagnostic::new(RULE.code, w.mode_loc.file, w.mode_loc.span, format!("`{}` needs a transaction, and `{}` (kind `{}`) is not transactional", w.mode.source(), sink.name, sink.kind))
                    .label(sink.name_loc.file, sink.name_loc.span, format!("`{}` declared here", sink.name))
                    .help("write to a sink whose kind is `transactional`, or use `upsert` on a primary key"),
            );
        }
    });
}
