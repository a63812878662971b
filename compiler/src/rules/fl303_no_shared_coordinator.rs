//! FL303 `no-shared-coordinator`: a `transactional` write whose reads do not commit in its transaction under one coordinator.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::{CommitMode, Mode};

pub const RULE: Rule = Rule {
    code: Code::FL303,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        let f = &t.facts;
        let mut has_transactional = false;
        for w in t.task.writes.iter().filter(|w| w.mode == Mode::Transactional) {
            has_transactional = true;
            if f.mode_supported(w) && f.shared_coordinator(w) {
                continue;
            }
            let sink = f.decl(w.decl);
            let mut d = Diagnostic::new(RULE.code, w.mode_loc.file, w.mode_loc.span, format!("`write {} transactional` in task `{}` does not share one transaction with its reads", sink.name, t.task.name));
            if t.task.reads.is_empty() {
                d = d.label(t.task.name_loc.file, t.task.name_loc.span, "the task reads nothing whose offsets could commit with the write");
            }
            for r in &t.task.reads {
                let src = f.decl(r.decl);
                let kind = f.program.kind_of(src);
                let why = if !kind.offsets {
                    Some(format!("`{}` (kind `{}`) has no offsets to commit", src.name, kind.name))
                } else if !kind.commits.contains(&CommitMode::InTransaction) {
                    Some(format!("kind `{}` of `{}` does not offer `commit in_transaction`", kind.name, src.name))
                } else if f.effective_commit(r) != Some(CommitMode::InTransaction) {
                    Some(format!("`{}` does not commit `in_transaction`", src.name))
                } else if src.coordinator.is_none() || sink.coordinator.is_none() {
                    let without: Vec<String> = [(src, kind), (sink, f.program.kind_of(sink))]
                        .iter()
                        .filter(|(d, _)| d.coordinator.is_none())
                        .map(|(d, k)| format!("`{}` (kind `{}`)", d.name, k.name))
                        .collect();
                    Some(format!("{} has no `coordinator`, so it shares a transaction with nothing", without.join(" and ")))
                } else if src.coordinator != sink.coordinator {
                    Some(format!("`{}` is on system {} but `{}` on {}: two systems commit apart", src.name, coord(src.coordinator.as_deref()), sink.name, coord(sink.coordinator.as_deref())))
                } else if src.cluster != sink.cluster {
                    Some(format!("`{}` is on {} cluster \"{}\" but `{}` on \"{}\": two clusters commit apart", src.name, coord(src.coordinator.as_deref()), src.cluster, sink.name, sink.cluster))
                } else {
                    None
                };
                if let Some(why) = why {
                    d = d.label(r.loc.file, r.loc.span, why);
                }
            }
            out.push(d.help("read only sources with offsets, `commit in_transaction`, on the sink's own system and cluster; otherwise use an idempotent mode"));
        }
        if has_transactional {
            return;
        }
        for r in &t.task.reads {
            if let Some((CommitMode::InTransaction, _)) = f.stated_commit(r) {
                if f.program.kind_of(f.decl(r.decl)).offsets {
                    let (at, on_source) = f.commit_place(r);
                    let name = &f.decl(r.decl).name;
                    let mut d = Diagnostic::new(RULE.code, at.file, at.span, format!("`{name}` commits `in_transaction`, but task `{}` has no `transactional` write", t.task.name));
                    if at != r.loc {
                        d = d.label(r.loc.file, r.loc.span, "read here");
                    }
                    if let Some(c) = on_source {
                        d = d.label(c.file, c.span, format!("`commit in_transaction` is set on `{name}` here"));
                    }
                    out.push(d.help("add a `write SINK transactional` under the same coordinator, or commit `after_write`"));
                }
            }
        }
    });
}

fn coord(c: Option<&str>) -> String {
    c.map_or_else(|| "none".to_string(), |c| format!("\"{c}\""))
}
