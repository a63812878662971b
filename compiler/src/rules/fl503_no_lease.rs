//! FL503 `no-lease`: `conditional_commit` or retries without a `timeout` lease.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL503,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        if t.facts.lease() {
            return;
        }
        let cc = t
            .task
            .writes
            .iter()
            .find(|w| w.mode == Mode::ConditionalCommit);
        let retries = t.facts.retries();
        if cc.is_none() && retries == 0 {
            return;
        }
        let mut d = Diagnostic::new(
            RULE.code,
            t.task.name_loc.file,
            t.task.name_loc.span,
            format!(
                "task `{}` has no lease: neither it nor pipeline `{}` sets `timeout`",
                t.task.name, t.pipeline.name
            ),
        );
        if let Some(w) = cc {
            d = d.label(
                w.mode_loc.file,
                w.mode_loc.span,
                "a conditional commit needs a lease to fence late attempts",
            );
        }
        // The fix puts the lease beside what needs it: the `retries`
        // setting, or the conditional commit's `write`.
        let mut anchor = cc.map(|w| w.loc);
        if let Some((n, l)) = t
            .task
            .retries
            .or(t.pipeline.retries)
            .filter(|(n, _)| *n > 0)
        {
            d = d.label(
                l.file,
                l.span,
                format!("{n} retries: a hung attempt is never given up"),
            );
            anchor = Some(l);
        }
        d = d.help("add `timeout 30m` (how long one attempt may run) to the task or the pipeline");
        if let Some(at) = anchor {
            d = d.fix_line("add `timeout 30m`", at.file, at.span.start, "timeout 30m");
        }
        out.push(d);
    });
}
