//! FL008 `missing-setting`: a scheduled pipeline without `start`, or a task without `run`.
//!
//! Found while resolving names and literals (`analyze::resolve`), which
//! reports a typed `Problem`; its words are here.

use super::Rule;
use crate::analyze::model::Loc;
use crate::diagnostic::{Code, Diagnostic};

pub const RULE: Rule = Rule {
    code: Code::FL008,
    check: None,
};

/// The scheduled pipeline `pipeline` (named at `at`, scheduled at
/// `schedule`) without a `start`.
pub fn no_start(pipeline: &str, at: Loc, schedule: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL008,
        at.file,
        at.span,
        format!("scheduled pipeline `{pipeline}` has no `start`"),
    )
    .label(schedule.file, schedule.span, "scheduled here")
    .help("add `start YYYY-MM-DD`: the date of the first interval")
}

/// The task `task` (named at `at`) without a `run`.
pub fn no_run(task: &str, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL008,
        at.file,
        at.span,
        format!("task `{task}` has no `run`"),
    )
    .help("say what the scheduler starts: `run command [\"python\", \"-m\", \"job\"]`")
}

/// A cursor read (at `at`) of `source` (declared at `decl`), which names no
/// cursor column (flowc 0.3).
pub fn cursor_without_column(source: &str, decl: Loc, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL008,
        at.file,
        at.span,
        format!("a cursor read of `{source}`, which has no `cursor` column"),
    )
    .label(decl.file, decl.span, format!("`{source}` declared here"))
    .help(format!("name the column the read goes by on `{source}`: `cursor updated_at`, or `cursor id unique` when no two rows share a value"))
}
