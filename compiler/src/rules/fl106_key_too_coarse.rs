//! FL106 `key-too-coarse`: an `upsert` or `append ledger` keyed only on interval terms.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::{Mode, Term};

pub const RULE: Rule = Rule {
    code: Code::FL106,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in &t.task.writes {
            if !matches!(w.mode, Mode::Upsert | Mode::InsertIfAbsent | Mode::AppendLedger) {
                continue;
            }
            let parts = t.facts.dedup_parts(w);
            if parts.is_empty() || !parts.iter().all(|p| matches!(p.term, Term::IntervalStart | Term::IntervalEnd)) {
                continue;
            }
            let key = t.facts.write_key(w).map_or(w.loc, |k| k.loc);
            out.push(
                Diagnostic::new(RULE.code, key.file, key.span, format!("`{} {}` in task `{}` is keyed only on the interval: every record of an interval shares one key", w.mode.source(), t.facts.decl(w.decl).name, t.task.name))
                    .help("add the record's own fields to the key (`(input.id, day = interval.start)`), or replace the whole partition with `replace partition`"),
            );
        }
    });
}
