//! FL404 `outbox-without-sink`: `via outbox` in a task with no transactional write to hold the outbox.

use super::{Ctx, Rule};
use crate::analyze::guarantee::outbox_write;
use crate::analyze::model::ViaDef;
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: Code::FL404,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for e in &t.task.emits {
            let ViaDef::Outbox(named) = &e.via else { continue };
            if outbox_write(&t.facts, e).is_some() {
                continue;
            }
            let at = e.via_loc.unwrap_or(e.loc);
            let effect = &t.facts.decl(e.decl).name;
            let d = match named {
                Some((decl, name_at)) => Diagnostic::new(RULE.code, name_at.file, name_at.span, format!("`emit {effect} via outbox {}`: task `{}` has no transactional write to `{}`", t.facts.decl(*decl).name, t.task.name, t.facts.decl(*decl).name))
                    .help("name a sink this task writes and whose kind is `transactional`"),
                // Offer `via idempotency_key` only where the kind can deduplicate on one (else FL403).
                None => Diagnostic::new(RULE.code, at.file, at.span, format!("`emit {effect} via outbox` in task `{}`: the task has no transactional write to hold the outbox", t.task.name))
                    .help(if t.facts.program.kind_of(t.facts.decl(e.decl)).idempotency_key {
                        "the outbox row must commit with a write; write to a `transactional` sink (such as `postgres_table`) in this task, or use `via idempotency_key`"
                    } else {
                        "the outbox row must commit with a write; write to a `transactional` sink (such as `postgres_table`) in this task"
                    }),
            };
            // An atomic table commits one table: the outbox is another.
            let mut atomic_only: Vec<usize> = t
                .task
                .writes
                .iter()
                .map(|w| w.decl)
                .filter(|&decl| named.is_none_or(|(n, _)| n == decl))
                .filter(|&decl| t.facts.sink_atomic(decl) && !t.facts.sink_transactional(decl))
                .collect();
            atomic_only.dedup();
            let mut d = d;
            for decl in atomic_only {
                let sink = t.facts.decl(decl);
                d = d.label(sink.name_loc.file, sink.name_loc.span, format!("`{}` (kind `{}`) is atomic, not transactional: each commit covers one table, and the outbox is another", sink.name, sink.kind));
            }
            out.push(d);
        }
    });
}
