//! FL306 `uncommitted-offsets`: a source with offsets read with neither a pin nor a commit mode.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::CommitMode;

pub const RULE: Rule = Rule {
    code: Code::FL306,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for r in &t.task.reads {
            let src = t.facts.decl(r.decl);
            // Without `after_write` to default to, FL307 says it instead.
            if !t.facts.program.kind_of(src).offsets || t.facts.effective_pin(r).is_some() || t.facts.stated_commit(r).is_some() || t.facts.no_commit_mode(r) {
                continue;
            }
            // Suggest only what the kind offers.
            let kind = t.facts.program.kind_of(src);
            let mut ways: Vec<String> = Vec::new();
            if kind.pins.contains(&crate::vocab::Pin::Offsets) {
                ways.push("`pinned offsets`".into());
            }
            ways.extend(
                [CommitMode::AfterWrite, CommitMode::InTransaction]
                    .iter()
                    .filter(|m| kind.commits.contains(m))
                    .map(|m| format!("`commit {}`", m.word())),
            );
            let help = if ways.is_empty() {
                format!("kind `{}` offers no offset pin and no safe commit mode; declare what the connector can do in the kind (`pins offsets`, `commits after_write`)", kind.name)
            } else {
                format!("say how offsets are handled: {}", ways.join(", or "))
            };
            out.push(
                Diagnostic::new(RULE.code, r.loc.file, r.loc.span, format!("task `{}` reads `{}` with neither a pin nor a commit mode; its offsets default to `commit after_write`", t.task.name, src.name))
                    .help(help),
            );
        }
    });
}
