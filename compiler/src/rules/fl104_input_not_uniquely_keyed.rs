//! FL104 `input-not-uniquely-keyed`: a record-level key of `input.*` terms that does not cover the input's identity.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::{Mode, Term};

pub const RULE: Rule = Rule {
    code: Code::FL104,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        let f = &t.facts;
        for w in &t.task.writes {
            if !matches!(w.mode, Mode::Upsert | Mode::InsertIfAbsent | Mode::AppendLedger) {
                continue;
            }
            let parts = f.dedup_parts(w);
            if !f.key_not_unique(&parts) {
                continue;
            }
            let key = f.write_key(w).map_or(w.loc, |k| k.loc);
            let fields: Vec<&str> = parts.iter().filter_map(|p| match &p.term { Term::InputField { field } => Some(field.as_str()), _ => None }).collect();
            let hashed = parts.iter().any(|p| p.term == Term::InputHash);
            let mut d = Diagnostic::new(RULE.code, key.file, key.span, format!("key of `write {}` in task `{}` may not identify input records uniquely", f.decl(w.decl).name, t.task.name));
            for r in &t.task.reads {
                let src = f.decl(r.decl);
                match f.read_identity(r) {
                    // `hash(input)` is unique except under `identity none` (flowc 0.2).
                    Some(id) if hashed && id.is_empty() => d = d.label(src.name_loc.file, src.name_loc.span, format!("`{}` has `identity none`: identical records are distinct events, and `hash(input)` collapses them into one", src.name)),
                    _ if hashed => {}
                    None => d = d.label(src.name_loc.file, src.name_loc.span, format!("`{}` declares no identity", src.name)),
                    Some(id) if id.is_empty() => d = d.label(src.name_loc.file, src.name_loc.span, format!("`{}` has `identity none`: the same record can arrive twice under different keys", src.name)),
                    Some(id) => {
                        let missing: Vec<&String> = id.iter().filter(|x| !fields.contains(&x.as_str())).collect();
                        if !missing.is_empty() {
                            let at = src.identity_loc.or(src.primary_key_loc).unwrap_or(src.name_loc);
                            d = d.label(at.file, at.span, format!("identity of `{}` includes {}, which the key leaves out", src.name, missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")));
                        }
                    }
                }
            }
            let interval = parts.iter().any(|p| matches!(p.term, Term::IntervalStart | Term::IntervalEnd));
            let help = if hashed {
                "declare the source's `identity` if identical records are the same record, or key on an `output.*` term that tells them apart"
            } else if interval {
                "an interval term is shared by every record of the interval: add the fields of the input's declared `identity` to the key (or declare it)"
            } else {
                "key on the fields of the input's declared `identity` (or declare it), or on `hash(input)` when records have no identifier"
            };
            out.push(d.help(help));
        }
    });
}
