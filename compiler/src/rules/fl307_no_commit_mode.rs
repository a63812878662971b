//! FL307 `no-commit-mode`: a source with offsets read with no commit mode
//! (on the read or the source) whose kind does not list `after_write`, the
//! mode flowc would otherwise default to. The guarantee assumes the first
//! mode the kind lists (`auto` when it lists none).

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::CommitMode;

pub const RULE: Rule = Rule {
    code: Code::FL307,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for r in &t.task.reads {
            if !t.facts.no_commit_mode(r) {
                continue;
            }
            let src = t.facts.decl(r.decl);
            let kind = t.facts.program.kind_of(src);
            let assumed = t.facts.effective_commit(r).map_or("auto", |c| c.word());
            // The modes that lose nothing first.
            let mut modes: Vec<CommitMode> = kind.commits.iter().copied().collect();
            modes.sort_by_key(|m| matches!(m, CommitMode::Auto | CommitMode::BeforeWrite));
            let offered: Vec<String> = modes.iter().map(|m| format!("`commit {}`", m.word())).collect();
            let help = if offered.is_empty() {
                format!("choose a commit mode the kind offers: kind `{}` lists none, so declare what the connector can do on its `commits` line and write it on the read or on `{}`", kind.name, src.name)
            } else {
                format!("choose a commit mode the kind offers, on the read or on `{}`: {}", src.name, offered.join(", or "))
            };
            let mut d = Diagnostic::new(RULE.code, r.loc.file, r.loc.span, format!("task `{}` reads `{}` with no commit mode, and kind `{}` does not offer `after_write` to default to; the guarantee assumes `{assumed}`", t.task.name, src.name, kind.name));
            if !kind.stdlib {
                d = d.label(kind.loc.file, kind.loc.span, format!("kind `{}` is declared here", kind.name));
            }
            out.push(d.help(help));
        }
    });
}
