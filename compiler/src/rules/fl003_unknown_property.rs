//! FL003 `unknown-property`: a property, parameter or setting that the kind or block does not declare.
//!
//! Found while resolving names and literals (`analyze::resolve`), which
//! reports a typed `Problem`; its words are here.

use super::Rule;
use crate::analyze::model::{Loc, Role};
use crate::diagnostic::{Code, Diagnostic};
use crate::suggest::mean;
use crate::vocab::CommitMode;

pub const RULE: Rule = Rule {
    code: Code::FL003,
    check: None,
};

/// Each word in backticks, joined by `, `.
fn ticked(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A line `name` (at `at`) of kind `kind` that is no capability; `caps` are
/// the capability lines, `near` the closest line that is.
pub fn unknown_capability(
    name: &str,
    kind: &str,
    near: Option<&str>,
    caps: &[&str],
    at: Loc,
) -> Diagnostic {
    Diagnostic::new(
        Code::FL003,
        at.file,
        at.span,
        format!("unknown capability `{name}` in kind `{kind}`{}", mean(near)),
    )
    .help(format!(
        "a kind's lines are {} and `param NAME: TYPE`",
        ticked(caps)
    ))
    .fix_name(near, at.file, at.span)
}

/// The property `name` (at `at`) of the declaration `decl` (its role and
/// name), which its kind `kind` (declared at `kind_loc`, with the parameters
/// `params`) does not declare; `near` is the closest name that is.
pub fn unknown_property(
    name: &str,
    (role, decl): (Role, &str),
    kind: &str,
    params: &[String],
    near: Option<&str>,
    at: Loc,
    kind_loc: Loc,
) -> Diagnostic {
    let declared: Vec<String> = params.iter().map(|q| format!("`{q}`")).collect();
    Diagnostic::new(
        Code::FL003,
        at.file,
        at.span,
        format!(
            "unknown property `{name}` for {} `{decl}` of kind `{kind}`{}",
            role.word(),
            mean(near)
        ),
    )
    .label(
        kind_loc.file,
        kind_loc.span,
        format!("kind `{kind}` declared here"),
    )
    .help(if declared.is_empty() {
        format!("kind `{kind}` declares no parameters")
    } else {
        format!("kind `{kind}` declares {}", declared.join(", "))
    })
    .fix_name(near, at.file, at.span)
}

/// The property `name` (at `at`) of a kind used by analysis, which a `role`
/// does not take; `props` are those it takes.
pub fn not_a_role_property(name: &str, role: Role, props: &[&str], at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL003,
        at.file,
        at.span,
        format!("`{name}` is not a property of {}s", role.word()),
    )
    .help(if props.is_empty() {
        format!("{}s take only their kind's parameters", role.word())
    } else {
        format!("{}s take {}", role.word(), ticked(props))
    })
}

/// A `commit` line (at `at`) of the source `decl`, whose kind `kind` has no
/// offsets.
pub fn commit_without_offsets(kind: &str, decl: &str, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL003,
        at.file,
        at.span,
        format!("kind `{kind}` has no offsets, so `commit` does not apply to `{decl}`"),
    )
    .help("remove the line; `commit` is for kinds with offsets, such as `kafka_topic`")
}

/// A `commit` clause (at `at`) of `read source`, whose kind `kind` has no
/// offsets.
pub fn commit_clause_without_offsets(source: &str, kind: &str, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL003,
        at.file,
        at.span,
        format!("`commit` applies to kinds with offsets; `{source}` is of kind `{kind}`"),
    )
    .help("remove the `commit` clause")
}

/// `commit mode` (at `at`), which the kind `kind` (declared at `kind_loc`,
/// offering `offered`) does not offer.
pub fn commit_not_offered(
    kind: &str,
    mode: CommitMode,
    offered: &[CommitMode],
    at: Loc,
    kind_loc: Loc,
) -> Diagnostic {
    let offered: Vec<String> = offered.iter().map(|m| format!("`{}`", m.word())).collect();
    Diagnostic::new(
        Code::FL003,
        at.file,
        at.span,
        format!("kind `{kind}` does not offer `commit {}`", mode.word()),
    )
    .label(
        kind_loc.file,
        kind_loc.span,
        format!("kind `{kind}` declared here"),
    )
    .help(if offered.is_empty() {
        format!("kind `{kind}` lists no `commits`; add the mode to its `commits` line if the connector can do it")
    } else {
        format!("kind `{kind}` commits {}", offered.join(", "))
    })
}

/// The pipeline setting `name` (at `at`), which is none of `settings`;
/// `task_setting` when it is a task's, `near` the closest setting.
pub fn unknown_pipeline_setting(
    name: &str,
    near: Option<&str>,
    settings: &[&str],
    task_setting: bool,
    at: Loc,
) -> Diagnostic {
    let hint = if task_setting {
        format!("`{name}` is a task setting; move it into a task")
    } else {
        format!(
            "the pipeline settings are {}; a pipeline also holds `allow CODE because \"...\"` lines and `task` blocks",
            ticked(settings)
        )
    };
    Diagnostic::new(
        Code::FL003,
        at.file,
        at.span,
        format!("unknown pipeline setting `{name}`{}", mean(near)),
    )
    .help(hint)
    .fix_name(near, at.file, at.span)
}

/// The statement `name` (at `at`) of the task `task`, which is no task
/// statement or setting; `near` is the closest that is.
pub fn unknown_task_statement(name: &str, task: &str, near: Option<&str>, at: Loc) -> Diagnostic {
    let hint = if matches!(
        name,
        "schedule" | "start" | "timezone" | "catchup" | "image" | "state"
    ) {
        format!("`{name}` is a pipeline setting; move it to the pipeline")
    } else {
        "the task statements are `after`, `read`, `key`, `write`, `emit`, `run`, `env`, `allow`, and the settings `retries`, `internal_retries`, `retry_delay`, `timeout`, `nondeterministic`, `on_ambiguous`, `require`".to_string()
    };
    Diagnostic::new(
        Code::FL003,
        at.file,
        at.span,
        format!(
            "unknown task statement `{name}` in task `{task}`{}",
            mean(near)
        ),
    )
    .help(hint)
    .fix_name(near, at.file, at.span)
}

/// `param NAME` (at `at`) in pipeline `pipeline`, which has a schedule (at
/// `schedule`): a scheduled run is started by the scheduler, which has no
/// value to give it.
pub fn param_on_schedule(param: &str, pipeline: &str, at: Loc, schedule: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL003,
        at.file,
        at.span,
        format!("pipeline `{pipeline}` has a schedule, so it takes no `param` (`{param}`)"),
    )
    .label(schedule.file, schedule.span, "scheduled here")
    .help("a scheduled run has nobody to give the value: derive it from `{interval.start}`, or make the pipeline manual (`schedule none`)")
}

/// `lookback` or `inclusive` (`word`, at `at`) on a read of `source` that is
/// not a cursor read (flowc 0.3).
pub fn cursor_clause_without_cursor(word: &str, source: &str, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL003,
        at.file,
        at.span,
        format!("`{word}` applies to a cursor read; `read {source}` does not read by its cursor"),
    )
    .help(format!(
        "read by the source's cursor (`read {source} cursor {word}`), or remove `{word}`"
    ))
}

/// `newest by` or `txn` (`word`, at `at`) on a write whose mode is `mode`
/// (flowc 0.3): `newest by` qualifies `upsert`, `txn` `conditional_commit`.
pub fn clause_for_other_mode(word: &str, mode: crate::vocab::Mode, at: Loc) -> Diagnostic {
    let owner = if word == "txn" {
        "conditional_commit"
    } else {
        "upsert"
    };
    Diagnostic::new(
        Code::FL003,
        at.file,
        at.span,
        format!("`{word}` applies to `{owner}`, not to `{}`", mode.source()),
    )
    .help(format!("remove `{word}`, or write with `{owner}`"))
}

/// `ready WORD` at `at` on source `decl`, whose kind `kind` (declared at
/// `kind_at`) does not list an interval's files.
pub fn ready_not_listed(word: &str, decl: &str, kind: &str, kind_at: Loc, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL003,
        at.file,
        at.span,
        format!(
            "`ready {word}` does not apply to source `{decl}`: kind `{kind}` does not list an interval's files (`pins listing`)"
        ),
    )
    .label(kind_at.file, kind_at.span, format!("kind `{kind}` declared here"))
    .help("write `ready always`, or remove the line: a source of this kind is always ready")
}
