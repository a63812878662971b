//! FL302 `offset-before-sink`: a read whose offsets are committed before the write (`commit before_write`).

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::CommitMode;

pub const RULE: Rule = Rule {
    code: Code::FL302,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for r in &t.task.reads {
            if t.facts.effective_commit(r) != Some(CommitMode::BeforeWrite) {
                continue;
            }
            let src = t.facts.decl(r.decl);
            let (at, on_source) = t.facts.commit_place(r);
            let mut d = Diagnostic::new(RULE.code, at.file, at.span, format!("offsets of `{src}` are committed before the write in task `{task}`: a crash between the two loses records", src = src.name, task = t.task.name));
            if at != r.loc {
                d = d.label(r.loc.file, r.loc.span, "read here");
            }
            if let Some(c) = on_source {
                d = d.label(c.file, c.span, format!("`commit before_write` is set on `{}` here", src.name));
            }
            out.push(d.help("commit `in_transaction` with a `transactional` write, or `after_write`"));
        }
    });
}
