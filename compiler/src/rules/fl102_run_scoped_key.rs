//! FL102 `run-scoped-key`: a key term scoped to one run: `run.id`, or an interval term in an unscheduled pipeline.

use super::{Ctx, Rule};
use crate::analyze::guarantee::{key_uses, term_text, KeyUse};
use crate::analyze::model::KeyPartDef;
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Term;

pub const RULE: Rule = Rule {
    code: Code::FL102,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        let scheduled = t.facts.scheduled();
        for u in key_uses(&t.facts) {
            let parts: Vec<&KeyPartDef> = match &u {
                KeyUse::Idempotency(..) => continue,
                KeyUse::Write(_, parts) => parts.clone(),
                KeyUse::TaskKey(k) | KeyUse::Outbox(_, k) => k.parts.iter().collect(),
            };
            for p in parts {
                let interval = matches!(p.term, Term::IntervalStart | Term::IntervalEnd);
                if p.term == Term::RunId {
                    out.push(
                        Diagnostic::new(RULE.code, p.loc.file, p.loc.span, format!("key term `run.id` in task `{}` is new on every re-run and backfill", t.task.name))
                            .help("retries keep `run.id`, but a re-run of the same interval gets a new one and writes again; key on the input or on `interval.start`"),
                    );
                } else if interval && !scheduled {
                    out.push(
                        Diagnostic::new(RULE.code, p.loc.file, p.loc.span, format!("`{}` in task `{}` is run-scoped: pipeline `{}` has no schedule", term_text(&p.term), t.task.name, t.pipeline.name))
                            .label(t.pipeline.name_loc.file, t.pipeline.name_loc.span, "no `schedule`: each manual run has its own interval")
                            .help("key on the input (`input.FIELD`, `hash(input)`), or give the pipeline a `schedule`"),
                    );
                }
            }
        }
    });
}
