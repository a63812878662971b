//! FL210 `eventual-upsert`: an `upsert` into a kind with `eventual_upsert`: each write adds a row version, and older versions go only when the system merges in the background.

use super::{Ctx, KindLineWrite, Rule};
use crate::diagnostic::{Code, Diagnostic};
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL210,
    check: Some(check),
};

const CHECK: KindLineWrite = KindLineWrite {
    code: RULE.code,
    modes: &[Mode::Upsert],
    line: "eventual_upsert",
    has: |kind| kind.eventual_upsert,
    message: |_, sink, task, kind| {
        format!(
            "`upsert` into `{}` in task `{}` adds a row version per write: a reader sees every version of a key until kind `{}` merges them, at a time nobody chooses",
            sink.name, task.name, kind.name
        )
    },
    help: "read the table with `FINAL` (or `argMax` by the version column) in every consumer; or write it with `replace partition` by the interval",
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.kind_line_writes(&CHECK, out);
}
