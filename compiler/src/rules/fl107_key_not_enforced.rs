//! FL107 `key-not-enforced`: an `upsert` whose key columns are not exactly the sink's primary key.

use super::{Ctx, Rule};
use crate::analyze::guarantee::{term_text, TaskFacts};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::vocab::{Mode, Term};

pub const RULE: Rule = Rule {
    code: Code::FL107,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        let f = &t.facts;
        for w in t.task.writes.iter().filter(|w| matches!(w.mode, Mode::Upsert | Mode::InsertIfAbsent)) {
            let parts = f.dedup_parts(w);
            if parts.is_empty() || f.upsert_enforced(w) {
                continue;
            }
            let sink = f.decl(w.decl);
            let key = f.write_key(w).map_or(w.loc, |k| k.loc);
            let (cols, unbound) = TaskFacts::key_columns(&parts);
            let cols_text = cols.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
            // A term that is not a field names no column: bind it.
            let loose: Vec<_> = parts.iter().filter(|p| p.column.is_none() && !matches!(p.term, Term::InputField { .. } | Term::OutputField { .. })).collect();
            let d = match &sink.primary_key {
                Some(pk) if unbound && !loose.is_empty() => {
                    let p = loose[0];
                    let text = term_text(&p.term);
                    let d = Diagnostic::new(RULE.code, p.loc.file, p.loc.span, format!("`{}` into `{}` in task `{}`: key term `{text}` fills no column, so the sink cannot enforce it", w.mode.source(), sink.name, t.task.name))
                        .label(key.file, key.span, "the key is used here")
                        .help(format!("bind it to a column of the primary key, `COL = {text}`, or leave it out of the key"));
                    // The fix binds the one loose term to the one column of
                    // the primary key that no other term fills.
                    let left: Vec<&String> = pk.iter().filter(|c| !cols.contains(*c)).collect();
                    match (loose.as_slice(), left.as_slice()) {
                        ([_], [col]) => d.fix(
                            format!("bind `{text}` to `{col}`"),
                            p.loc.file,
                            Span::new(p.loc.span.start, p.loc.span.start),
                            format!("{col} = "),
                        ),
                        _ => d,
                    }
                }
                None => Diagnostic::new(RULE.code, key.file, key.span, format!("`{}` into `{}` in task `{}`: the sink has no primary key to enforce the key", w.mode.source(), sink.name, t.task.name))
                    .label(sink.name_loc.file, sink.name_loc.span, format!("`{}` declares no `primary_key`", sink.name))
                    .help(format!("declare `primary_key` on `{}` with the key's columns", sink.name)),
                Some(pk) => {
                    let pk_text = pk.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
                    let at = sink.primary_key_loc.unwrap_or(sink.name_loc);
                    let msg = if cols.is_empty() {
                        format!("`{}` into `{}` in task `{}`: no key term fills a column, so the key cannot be the primary key ({pk_text})", w.mode.source(), sink.name, t.task.name)
                    } else {
                        format!("`{}` into `{}` in task `{}` is keyed on {cols_text}, but the sink's primary key is {pk_text}", w.mode.source(), sink.name, t.task.name)
                    };
                    Diagnostic::new(RULE.code, key.file, key.span, msg)
                        .label(at.file, at.span, "primary key declared here")
                        .help("key the upsert on exactly the primary key's columns; bind other terms to a column with `COL = TERM`")
                }
            };
            out.push(d);
        }
    });
}
