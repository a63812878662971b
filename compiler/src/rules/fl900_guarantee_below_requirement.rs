//! FL900 `guarantee-below-requirement`: an output's derived guarantee is below its requirement.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Tracking;

pub const RULE: Rule = Rule {
    code: Code::FL900,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for o in &t.derived.outputs {
            if o.guarantee.at_least(o.required) {
                continue;
            }
            let what = match (o.mode, o.tracking) {
                (Some(m), _) => format!("`write {} {}`", o.target, m.source()),
                (None, Some(tr)) => format!("`emit {}` ({})", o.target, tracking_word(tr)),
                _ => format!("`{}`", o.target),
            };
            let mut d = Diagnostic::new(RULE.code, o.loc.file, o.loc.span, format!("{what} in task `{}` is {}, below the required {}", t.task.name, o.guarantee.word(), o.required.word()));
            for (at, msg) in &o.failing {
                d = d.label(at.file, at.span, msg.clone());
            }
            if let Some(at) = o.required_loc {
                d = d.label(at.file, at.span, format!("{} required here", o.required.word()));
            }
            let mut help = if o.required_loc.is_none() {
                "fix the clauses labelled above; if a weaker guarantee is acceptable, say so with `require at_least_once` on the output".to_string()
            } else {
                "fix the clauses labelled above, or lower the requirement if the weaker guarantee is acceptable".to_string()
            };
            // What a user of the output would see, in words (flowc 0.3).
            if let Some(a) = o.anomalies.first() {
                help = format!("{} ({}): {}; {help}", a.kind.word(), a.clause, a.scenario);
            }
            out.push(d.help(help));
        }
    });
}

fn tracking_word(t: Tracking) -> &'static str {
    match t {
        Tracking::Outbox => "via outbox",
        Tracking::IdempotencyKey => "via idempotency key",
        Tracking::Untracked => "untracked",
    }
}
