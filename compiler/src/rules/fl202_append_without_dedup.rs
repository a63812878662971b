//! FL202 `append-without-dedup`: a plain `append`: every retry appends again.

use super::{Ctx, Rule};
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::Mode;

pub const RULE: Rule = Rule {
    code: Code::FL202,
    check: Some(check),
};

/// The modes that replace a plain `append` without duplicates on a retry, in
/// the order the help offers them, with what each needs.
const CURES: [(Mode, &str); 5] = [
    (Mode::AppendLedger, " with a key"),
    (Mode::Upsert, ""),
    (Mode::ReplacePartition, ""),
    (Mode::ConditionalCommit, ""),
    (Mode::Overwrite, ""),
];

const ACCEPT: &str =
    "accept duplicates with `require at_least_once` and `allow FL202 because \"...\"`";

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in t.task.writes.iter().filter(|w| w.mode == Mode::Append) {
            let sink = t.facts.decl(w.decl);
            let kind = t.facts.program.kind_of(sink);
            out.push(
                Diagnostic::new(
                    RULE.code,
                    w.mode_loc.file,
                    w.mode_loc.span,
                    format!(
                        "plain `append` to `{sink}` in task `{task}` appends again on every retry",
                        sink = sink.name,
                        task = t.task.name
                    ),
                )
                .label(
                    sink.name_loc.file,
                    sink.name_loc.span,
                    format!("`{}` declared here", sink.name),
                )
                .help(help(&kind.name, |m| kind.writes.contains(m.capability()))),
            );
        }
    });
}

/// The help for a sink of the kind `kind`, which offers the modes `offers`
/// says it does: only those are suggested.
fn help(kind: &str, offers: impl Fn(Mode) -> bool) -> String {
    let cures: Vec<String> = CURES
        .iter()
        .filter(|(m, _)| offers(*m))
        .map(|(m, needs)| format!("`{}`{needs}", m.source()))
        .collect();
    match cures.as_slice() {
        [] => format!("kind `{kind}` offers no mode that deduplicates: {ACCEPT}"),
        [one] => format!("use {one}; or {ACCEPT}"),
        [init @ .., last] => format!("use {}, or {last}; or {ACCEPT}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offers_only_the_kinds_modes() {
        let delta = help("delta_table", |m| {
            matches!(
                m,
                Mode::ReplacePartition | Mode::ConditionalCommit | Mode::Overwrite | Mode::Append
            )
        });
        assert!(
            !delta.contains("upsert") && !delta.contains("ledger"),
            "{delta}"
        );
        assert!(
            delta.starts_with("use `replace partition`, `conditional_commit`, or `overwrite`;"),
            "{delta}"
        );
        let none = help("files", |m| m == Mode::Append);
        assert!(
            none.starts_with("kind `files` offers no mode that deduplicates"),
            "{none}"
        );
    }
}
