//! FL202 `append-without-dedup`: a plain `append`: every retry appends again.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::vocab::Mode;
use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: Code::FL202,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in t.task.writes.iter().filter(|w| w.mode == Mode::Append) {
            let sink = t.facts.decl(w.decl);
            out.push(
                Diagnostic::new(RULE.code, w.mode_loc.file, w.mode_loc.span, format!("plain `append` to `{sink}` in task `{task}` appends again on every retry", sink = sink.name, task = t.task.name))
                    .label(sink.name_loc.file, sink.name_loc.span, format!("`{}` declared here", sink.name))
                    .help("use `append ledger` with a key, `upsert`, or `replace partition`; or accept duplicates with `require at_least_once` and `allow FL202 because \"...\"`"),
            );
        }
    });
}
