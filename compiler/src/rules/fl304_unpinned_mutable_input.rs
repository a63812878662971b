//! FL304 `unpinned-mutable-input`: a mutable source read without a pin.

use super::{Ctx, Rule};
use crate::analyze::model::Role;
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::vocab::Pin;

pub const RULE: Rule = Rule {
    code: Code::FL304,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for r in &t.task.reads {
            let src = t.facts.decl(r.decl);
            let immutable = src.role == Role::Source && src.immutable;
            if immutable || t.facts.effective_pin(r).is_some() {
                continue;
            }
            let kind = t.facts.program.kind_of(src);
            let pins: Vec<String> = kind.pins.iter().map(|p| if *p == Pin::Cursor { "`cursor`".to_string() } else { format!("`pinned {}`", p.word()) }).collect();
            let at = r.pin_loc.unwrap_or(r.loc);
            // The fix pins a read that says nothing about its pin (never one
            // written `unpinned` on purpose), with the first pin the kind
            // offers but offsets, which also need a commit mode.
            let pin = kind.pins.iter().find(|p| !matches!(p, Pin::Offsets | Pin::Cursor)).filter(|_| r.pin_loc.is_none());
            let mut d = Diagnostic::new(RULE.code, at.file, at.span, format!("task `{}` reads mutable `{}` without a pin: a retry may read different input", t.task.name, src.name))
                    .label(src.name_loc.file, src.name_loc.span, format!("`{}` is mutable", src.name))
                    .help(if pins.is_empty() { format!("kind `{}` offers no pins; declare the source `immutable` if what an interval reads never changes", kind.name) } else { format!("pin the read ({}), or declare the source `immutable` if it never changes", pins.join(" or ")) });
            if let Some(p) = pin {
                let end = r.source_loc.span.end;
                d = d.fix(
                    format!("pin the read with `pinned {}`", p.word()),
                    r.source_loc.file,
                    Span::new(end, end),
                    format!(" pinned {}", p.word()),
                );
            }
            out.push(d);
        }
    });
}
