//! FL209 `unenforced-key`: an `upsert` or `insert_if_absent` into a kind with `unenforced_key`: the statement matches on a key that nothing keeps unique.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL209,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in t
            .task
            .writes
            .iter()
            .filter(|w| matches!(w.mode, Mode::Upsert | Mode::InsertIfAbsent))
        {
            // FL205 covers a kind without the mode.
            if !t.facts.mode_supported(w) {
                continue;
            }
            let sink = t.facts.decl(w.decl);
            let kind = ctx.program.kind_of(sink);
            if !kind.unenforced_key {
                continue;
            }
            out.push(
                Diagnostic::new(
                    RULE.code,
                    w.mode_loc.file,
                    w.mode_loc.span,
                    format!(
                        "`{}` into `{}` in task `{}` matches on a primary key that kind `{}` does not enforce: two rows of one key in the input, or two attempts merging at once, both insert",
                        w.mode.source(),
                        sink.name,
                        t.task.name,
                        kind.name
                    ),
                )
                .label(
                    kind.loc.file,
                    kind.loc.span,
                    format!("kind `{}` has the line `unenforced_key`", kind.name),
                )
                .help(
                    "deduplicate the input on the key before the merge, keep one attempt alive at a time (a `timeout` lease), and check uniqueness after the write; or write to a table that enforces its key",
                ),
            );
        }
    });
}
