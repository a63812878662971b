//! FL103 `unknown-key-field`: `input.F` or `output.F` names a field that no read or written declaration has.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use std::collections::BTreeSet;

use crate::analyze::guarantee::{key_uses, KeyUse};
use crate::analyze::model::KeyPartDef;
use crate::suggest::did_you_mean;
use crate::vocab::Term;

pub const RULE: Rule = Rule {
    code: Code::FL103,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        let f = &t.facts;
        let known = |decls: &mut dyn Iterator<Item = usize>| -> Option<BTreeSet<String>> {
            let mut set = BTreeSet::new();
            for d in decls {
                let d = f.decl(d);
                set.extend(d.fields.clone()?);
                set.extend(d.primary_key.clone().unwrap_or_default());
                set.extend(d.identity.clone().unwrap_or_default());
            }
            Some(set)
        };
        let input = known(&mut t.task.reads.iter().map(|r| r.decl));
        let output = known(&mut t.task.writes.iter().map(|w| w.decl));
        let mut parts: Vec<&KeyPartDef> = Vec::new();
        for u in key_uses(f) {
            match u {
                KeyUse::Write(_, ps) => parts.extend(ps),
                KeyUse::Idempotency(_, k) | KeyUse::Outbox(_, k) | KeyUse::TaskKey(k) => parts.extend(k.parts.iter()),
            }
        }
        for p in parts {
            let (field, set, side) = match &p.term {
                Term::InputField { field } => (field, &input, "read"),
                Term::OutputField { field } => (field, &output, "written"),
                _ => continue,
            };
            let Some(set) = set else { continue };
            if set.contains(field) {
                continue;
            }
            let prefix = if side == "read" { "input" } else { "output" };
            out.push(
                Diagnostic::new(RULE.code, p.loc.file, p.loc.span, format!("`{prefix}.{field}` in task `{}`: no {side} declaration has a field `{field}`{}", t.task.name, did_you_mean(field, set.iter().map(String::as_str))))
                    .help(if set.is_empty() {
                        format!("the task has no {side} declaration with fields; {prefix}.{field} names nothing")
                    } else {
                        format!("use one of the declared fields ({}), or add `{field}` to the `fields` line", set.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "))
                    }),
            );
        }
    });
}
