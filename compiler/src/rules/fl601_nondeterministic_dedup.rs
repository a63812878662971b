//! FL601 `nondeterministic-dedup`: a nondeterministic task writes through an idempotent mode.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL601,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        let Some(nd) = t.task.nondeterministic else { return };
        for w in &t.task.writes {
            if !matches!(w.mode, Mode::Upsert | Mode::InsertIfAbsent | Mode::ReplacePartition | Mode::AppendLedger | Mode::ConditionalCommit) {
                continue;
            }
            out.push(
                Diagnostic::new(RULE.code, w.mode_loc.file, w.mode_loc.span, format!("nondeterministic task `{}` deduplicates its write to `{}`: whichever attempt lands wins", t.task.name, t.facts.decl(w.decl).name))
                    .label(nd.file, nd.span, "the task is nondeterministic")
                    .help("make the transform deterministic (seed it, sort its input), or accept it with `require at_least_once`"),
            );
        }
    });
}
