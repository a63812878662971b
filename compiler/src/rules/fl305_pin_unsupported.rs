//! FL305 `pin-unsupported`: a pin that the source's kind does not offer.

use super::{Ctx, Rule};
use crate::diagnostic::Code;

use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: Code::FL305,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let offers = |kind: &crate::analyze::model::KindDef| -> String {
        let pins: Vec<String> = kind
            .pins
            .iter()
            .map(|p| format!("`{}`", p.word()))
            .collect();
        if pins.is_empty() {
            format!("kind `{}` offers no pins", kind.name)
        } else {
            format!("kind `{}` offers {}", kind.name, pins.join(", "))
        }
    };
    for d in &ctx.program.decls {
        if ctx.broken.contains(&d.loc.file) {
            continue;
        }
        let (Some(Some(pin)), Some(at)) = (d.pin, d.pin_loc) else {
            continue;
        };
        let kind = ctx.program.kind_of(d);
        if !kind.pins.contains(&pin) {
            out.push(
                Diagnostic::new(
                    RULE.code,
                    at.file,
                    at.span,
                    format!(
                        "`{}` cannot be pinned by `{}`: kind `{}` does not offer it",
                        d.name,
                        pin.word(),
                        kind.name
                    ),
                )
                .label(
                    kind.loc.file,
                    kind.loc.span,
                    format!("kind `{}` declared here", kind.name),
                )
                .help(offers(kind)),
            );
        }
    }
    ctx.each_task(|t| {
        for r in &t.task.reads {
            let (Some(Some(pin)), Some(at)) = (r.pin, r.pin_loc) else {
                continue;
            };
            let src = t.facts.decl(r.decl);
            let kind = t.facts.program.kind_of(src);
            if !kind.pins.contains(&pin) {
                out.push(
                    Diagnostic::new(
                        RULE.code,
                        at.file,
                        at.span,
                        format!(
                            "task `{}` pins `{}` by `{}`, which kind `{}` does not offer",
                            t.task.name,
                            src.name,
                            pin.word(),
                            kind.name
                        ),
                    )
                    .label(
                        kind.loc.file,
                        kind.loc.span,
                        format!("kind `{}` declared here", kind.name),
                    )
                    .help(offers(kind)),
                );
            }
        }
    });
}
