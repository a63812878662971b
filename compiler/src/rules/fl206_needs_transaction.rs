//! FL206 `needs-transaction`: `replace partition` on a sink that is neither transactional nor atomic, or `append ledger` on one that is not transactional.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL206,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in &t.task.writes {
            if !t.facts.mode_supported(w) {
                continue;
            }
            let sink = t.facts.decl(w.decl);
            // `replace partition` deletes and inserts in one commit of one
            // table; a ledger commits its rows with the ledger's in one
            // transaction across tables.
            let (lacks, help) = match w.mode {
                Mode::ReplacePartition if !t.facts.sink_atomic(w.decl) => (
                    "is neither transactional nor atomic",
                    "write to a sink whose kind is `transactional` or `atomic`, or use `upsert` on a primary key",
                ),
                Mode::AppendLedger if !t.facts.sink_transactional(w.decl) => (
                    "is not transactional",
                    "write to a sink whose kind is `transactional` (an `atomic` table commits one table at a time), or use `upsert` on a primary key",
                ),
                _ => continue,
            };
            out.push(
                Diagnostic::new(RULE.code, w.mode_loc.file, w.mode_loc.span, format!("`{}` needs a transaction, and `{}` (kind `{}`) {lacks}", w.mode.source(), sink.name, sink.kind))
                    .label(sink.name_loc.file, sink.name_loc.span, format!("`{}` declared here", sink.name))
                    .help(help),
            );
        }
    });
}
