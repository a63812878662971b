//! FL204 `unconditional-overwrite`: `overwrite` of a sink that is not interval-scoped: a late attempt or an older interval's re-run replaces newer output.

use super::{Ctx, Rule};
use crate::analyze::model::{DeclDef, KindDef};
use crate::analyze::scope::NotScoped;
use crate::diagnostic::Code;
use crate::diagnostic::Diagnostic;
use crate::vocab::{Mode, ParamType};

pub const RULE: Rule = Rule {
    code: Code::FL204,
    check: Some(check),
};

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    ctx.each_task(|t| {
        for w in t.task.writes.iter().filter(|w| w.mode == Mode::Overwrite) {
            // FL205 covers a kind without `overwrite`.
            if !t.facts.mode_supported(w) {
                continue;
            }
            let Err(why) = t.facts.sink_scoped(w.decl) else {
                continue;
            };
            let sink = t.facts.decl(w.decl);
            let kind = ctx.program.kind_of(sink);
            out.push(
                Diagnostic::new(RULE.code, w.mode_loc.file, w.mode_loc.span, format!("`overwrite` of `{sink}` in task `{task}` replaces all of it: a late attempt, or a re-run of an older interval, replaces newer output", sink = sink.name, task = t.task.name))
                    .label(sink.name_loc.file, sink.name_loc.span, format!("`{}` is not interval-scoped: {}", sink.name, why.reason(t.facts.schedule_text())))
                    .help(help(sink, kind, &why)),
            );
        }
    });
}

/// The cures the sink's kind offers, in order: an interval-scoped
/// parameter, `replace partition` by an interval term, `conditional_commit`.
fn help(sink: &DeclDef, kind: &KindDef, why: &NotScoped) -> String {
    let mut ways = Vec::new();
    if let NotScoped::FallBack { .. } = why {
        ways.push("add `%z` to the format (as in `{interval.start:%Y-%m-%dT%H%z}`), so that the two passes of the repeated hour render apart".to_string());
    } else if let Some(p) = kind
        .params
        .iter()
        .find(|p| p.ty == ParamType::String && sink.params.contains_key(&p.name))
    {
        let what = match why {
            NotScoped::NoPlaceholder | NotScoped::Manual => "put the interval",
            _ => "put all of the interval",
        };
        ways.push(format!("{what} in `{}`'s `{}` (such as `{{interval.start}}`, or a format as fine as the schedule, `%Y-%m-%dT%H` for an hourly one), so that each interval owns its own output", sink.name, p.name));
    }
    if kind.writes.contains(Mode::ReplacePartition.capability()) {
        ways.push(
            "use `replace partition day = interval.start`, which replaces only the interval's rows"
                .to_string(),
        );
    }
    if kind.writes.contains(Mode::ConditionalCommit.capability()) {
        ways.push("use `conditional_commit`, which commits only against the version recorded at the interval's first attempt".to_string());
    }
    if ways.is_empty() {
        return format!("write to a sink that an interval can own; kind `{}` offers no way to scope `overwrite`", kind.name);
    }
    let n = ways.len();
    let mut text = String::new();
    for (i, w) in ways.into_iter().enumerate() {
        if i > 0 {
            text.push_str(if i + 1 == n { "; or " } else { "; " });
        }
        text.push_str(&w);
    }
    text
}
