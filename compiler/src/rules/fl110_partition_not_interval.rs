//! FL110 `partition-not-interval`: `replace partition` by a term taken from the data: a run can replace a partition that another interval wrote.

use super::{Ctx, Rule};
use crate::analyze::guarantee::{term_text, TaskFacts};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: Code::FL110,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in &t.task.writes {
            if !TaskFacts::partition_from_data(w) {
                continue;
            }
            let Some(p) = &w.partition else { continue };
            let sink = &t.facts.decl(w.decl).name;
            let text = term_text(&p.term);
            let column = p.column.clone().unwrap_or_else(|| text.rsplit('.').next().unwrap_or("day").to_string());
            out.push(
                Diagnostic::new(
                    RULE.code,
                    p.loc.file,
                    p.loc.span,
                    format!("`replace partition {text}` in task `{}` takes the partition from the data: a run can replace a partition of `{sink}` that another interval wrote", t.task.name),
                )
                .label(w.mode_loc.file, w.mode_loc.span, "late rows of an earlier partition replace that partition with only themselves")
                .help(format!("partition by the interval, `replace partition {column} = interval.start`, so that each run replaces only its own interval's rows")),
            );
        }
    });
}
