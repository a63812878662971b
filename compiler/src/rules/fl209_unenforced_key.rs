//! FL209 `unenforced-key`: an `upsert` or `insert_if_absent` into a kind with `unenforced_key`: the statement matches on a key that nothing keeps unique.

use super::{Ctx, KindLineWrite, Rule};
use crate::diagnostic::{Code, Diagnostic};
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL209,
    check: Some(check),
};

const CHECK: KindLineWrite = KindLineWrite {
    code: RULE.code,
    modes: &[Mode::Upsert, Mode::InsertIfAbsent],
    line: "unenforced_key",
    has: |kind| kind.unenforced_key,
    message: |w, sink, task, kind| {
        format!(
            "`{}` into `{}` in task `{}` matches on a primary key that kind `{}` does not enforce: two rows of one key in the input, or two attempts merging at once, both insert",
            w.mode.source(),
            sink.name,
            task.name,
            kind.name
        )
    },
    help: "deduplicate the input on the key before the merge, keep one attempt alive at a time (a `timeout` lease), and check uniqueness after the write; or write to a table that enforces its key",
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.kind_line_writes(&CHECK, out);
}
