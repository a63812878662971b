//! FL211 `deduplicated-reinsert`: `replace partition` or `overwrite` on a kind with `deduplicates_inserts`: the re-insert of an identical block after the delete is silently dropped.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL211,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in t
            .task
            .writes
            .iter()
            .filter(|w| matches!(w.mode, Mode::ReplacePartition | Mode::Overwrite))
        {
            if !t.facts.mode_supported(w) {
                continue;
            }
            let sink = t.facts.decl(w.decl);
            let kind = ctx.program.kind_of(sink);
            if !kind.deduplicates_inserts {
                continue;
            }
            out.push(
                Diagnostic::new(
                    RULE.code,
                    w.mode_loc.file,
                    w.mode_loc.span,
                    format!(
                        "`{}` of `{}` in task `{}` deletes rows and inserts them again: a retry or re-run that inserts the same block as a recent insert is dropped by kind `{}`, and the rows are gone",
                        w.mode.source(),
                        sink.name,
                        t.task.name,
                        kind.name
                    ),
                )
                .label(
                    kind.loc.file,
                    kind.loc.span,
                    format!("kind `{}` has the line `deduplicates_inserts`", kind.name),
                )
                .help(
                    "replace the partition from a staging table in one statement (ClickHouse: `ALTER TABLE ... REPLACE PARTITION`), or give each attempt's insert its own deduplication token",
                ),
            );
        }
    });
}
