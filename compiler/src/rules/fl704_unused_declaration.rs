//! FL704 `unused-declaration`: a source, sink or effect that no task uses.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use std::collections::BTreeSet;

use crate::analyze::model::ViaDef;

pub const RULE: Rule = Rule {
    code: Code::FL704,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let mut used: BTreeSet<usize> = ctx.program.referenced.clone();
    for p in &ctx.program.pipelines {
        for t in &p.tasks {
            used.extend(t.reads.iter().map(|r| r.decl));
            used.extend(t.writes.iter().map(|w| w.decl));
            used.extend(t.emits.iter().map(|e| e.decl));
            for e in &t.emits {
                if let ViaDef::Outbox(Some((d, _))) = &e.via {
                    used.insert(*d);
                }
            }
        }
    }
    for (i, d) in ctx.program.decls.iter().enumerate() {
        if used.contains(&i)
            || !ctx.program.files_with_pipelines.contains(&d.loc.file)
            || ctx.broken.contains(&d.loc.file)
        {
            continue;
        }
        out.push(
            Diagnostic::new(RULE.code, d.name_loc.file, d.name_loc.span, format!("{} `{}` is declared but no task uses it", d.role.word(), d.name))
                .help("remove it, or move shared declarations to a file without pipelines and import it with `use`"),
        );
    }
}
