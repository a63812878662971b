//! FL504 `effect-downgrades-retry`: an effect below `effectively_once` makes a task whose writes are all `effectively_once` or better fail on an ambiguous failure instead of retrying.

use super::{Ctx, Rule};
use crate::analyze::model::Role;
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Guarantee;

pub const RULE: Rule = Rule {
    code: Code::FL504,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        // Only where flowc chose the policy: the task's own `on_ambiguous` is what it says.
        if t.task.on_ambiguous.is_some() {
            return;
        }
        let safe = |o: &&crate::analyze::OutputReport| o.guarantee.at_least(Guarantee::EffectivelyOnce);
        let writes: Vec<_> = t.derived.outputs.iter().filter(|o| o.role == Role::Sink).collect();
        if writes.is_empty() || !writes.iter().all(safe) {
            return;
        }
        let Some(effect) = t
            .derived
            .outputs
            .iter()
            .find(|o| o.role == Role::Effect && !safe(o))
        else {
            return;
        };
        let mut d = Diagnostic::new(
            RULE.code,
            effect.loc.file,
            effect.loc.span,
            format!(
                "`emit {}` is {}, so task `{}` fails on an ambiguous failure instead of retrying, although its writes are {}",
                effect.target,
                effect.guarantee.word(),
                t.task.name,
                writes
                    .iter()
                    .map(|o| o.guarantee)
                    .reduce(Guarantee::meet)
                    .map_or("safe", Guarantee::word)
            ),
        );
        if let Some(at) = effect.required_loc {
            d = d.label(at.file, at.span, format!("{} accepted here", effect.required.word()));
        }
        for w in &writes {
            d = d.label(w.loc.file, w.loc.span, format!("`{}` alone would be retried", w.target));
        }
        out.push(d.help(format!(
            "a retry after an ambiguous failure could send `{}` again: set `on_ambiguous retry` on task `{}` if that is acceptable, or make the effect effectively_once (an idempotency key, or an outbox on a kind that deduplicates)",
            effect.target, t.task.name
        )));
    });
}
