//! FL204 `unconditional-overwrite`: `overwrite` on a versioned sink: the last writer wins.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::vocab::Mode;
use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: Code::FL204,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in t.task.writes.iter().filter(|w| w.mode == Mode::Overwrite) {
            let sink = t.facts.decl(w.decl);
            if !(t.facts.sink_versioned(w.decl)) {
                continue;
            }
            out.push(
                Diagnostic::new(RULE.code, w.mode_loc.file, w.mode_loc.span, format!("`overwrite` of versioned `{sink}` in task `{task}`: a late attempt can replace newer output", sink = sink.name, task = t.task.name))
                    .label(sink.name_loc.file, sink.name_loc.span, format!("`{}` declared here", sink.name))
                    .help("use `conditional_commit`, which commits only against the version recorded at the interval's first attempt"),
            );
        }
    });
}
