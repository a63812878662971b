//! FL205 `mode-unsupported`: a write mode that the sink's kind does not offer.

use super::{Ctx, Rule};
use crate::diagnostic::Code;

use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: Code::FL205,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in &t.task.writes {
            if t.facts.mode_supported(w) {
                continue;
            }
            let sink = t.facts.decl(w.decl);
            let kind = t.facts.program.kind_of(sink);
            if let (Some((column, at)), true) = (&w.newest_by, kind.writes.contains(w.mode.capability())) {
                out.push(
                    Diagnostic::new(
                        RULE.code,
                        at.file,
                        at.span,
                        format!(
                            "`{}` of kind `{}` cannot upsert `newest by {column}`: the kind has no `conditional_upsert`",
                            sink.name, kind.name
                        ),
                    )
                    .label(kind.loc.file, kind.loc.span, format!("kind `{}` declared here", kind.name))
                    .help(format!(
                        "add `conditional_upsert` to kind `{}` if its upsert can keep the stored row when the incoming `{column}` is not greater; otherwise drop `newest by`",
                        kind.name
                    )),
                );
                continue;
            }
            let offered: Vec<String> = kind
                .writes
                .iter()
                .map(|c| format!("`{}`", capability_source(c)))
                .collect();
            out.push(
                Diagnostic::new(
                    RULE.code,
                    w.mode_loc.file,
                    w.mode_loc.span,
                    format!(
                        "`{}` of kind `{}` does not support `{}`",
                        sink.name,
                        kind.name,
                        w.mode.source()
                    ),
                )
                .label(
                    kind.loc.file,
                    kind.loc.span,
                    format!("kind `{}` declared here", kind.name),
                )
                .help(if offered.is_empty() {
                    format!("kind `{}` offers no write modes", kind.name)
                } else {
                    format!("kind `{}` offers {}", kind.name, offered.join(", "))
                }),
            );
        }
    });
}

fn capability_source(c: &str) -> &str {
    match c {
        "replace" => "replace partition",
        "ledger" => "append ledger",
        other => other,
    }
}
