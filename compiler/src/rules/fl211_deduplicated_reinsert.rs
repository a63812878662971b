//! FL211 `deduplicated-reinsert`: `replace partition` or `overwrite` on a kind with `deduplicates_inserts`: the re-insert of an identical block after the delete is silently dropped.

use super::{Ctx, KindLineWrite, Rule};
use crate::diagnostic::{Code, Diagnostic};
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL211,
    check: Some(check),
};

const CHECK: KindLineWrite = KindLineWrite {
    code: RULE.code,
    modes: &[Mode::ReplacePartition, Mode::Overwrite],
    line: "deduplicates_inserts",
    has: |kind| kind.deduplicates_inserts,
    message: |w, sink, task, kind| {
        format!(
            "`{}` of `{}` in task `{}` deletes rows and inserts them again: a retry or re-run that inserts the same block as a recent insert is dropped by kind `{}`, and the rows are gone",
            w.mode.source(),
            sink.name,
            task.name,
            kind.name
        )
    },
    help: "replace the partition from a staging table in one statement (ClickHouse: `ALTER TABLE ... REPLACE PARTITION`), or give each attempt's insert its own deduplication token",
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.kind_line_writes(&CHECK, out);
}
