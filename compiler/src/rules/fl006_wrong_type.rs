//! FL006 `wrong-type`: a setting, property or parameter with a value of the wrong type.
//!
//! Found while resolving names and literals (`analyze::resolve`), which
//! reports a typed `Problem`; its words are here.

use super::Rule;
use crate::analyze::model::Loc;
use crate::diagnostic::{Code, Diagnostic};
use crate::suggest::mean;

pub const RULE: Rule = Rule {
    code: Code::FL006,
    check: None,
};

/// `name`, which takes no value, given `found` (at `at`).
pub fn takes_no_value(name: &str, found: &str, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL006,
        at.file,
        at.span,
        format!("`{name}` takes no value, found {found}"),
    )
    .help(format!("write `{name}` alone on its line"))
}

/// The parameter type `name` (at `at`), which is no type; `near` is the
/// closest that is.
pub fn unknown_param_type(name: &str, near: Option<&str>, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL006,
        at.file,
        at.span,
        format!("unknown parameter type `{name}`{}", mean(near)),
    )
    .help("the types are `string`, `int`, `bool`, `duration` and `key`, with `?` for optional")
}

/// A `run command` (at `at`) with an empty argv.
pub fn empty_command(at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL006,
        at.file,
        at.span,
        "`run command` needs at least the program to start",
    )
    .help("write the argv as a list of strings: `run command [\"python\", \"-m\", \"job\"]`")
}

/// The setting `setting` (named at `at`) without a value; it takes
/// `expected`.
pub fn needs_value(setting: &str, expected: &str, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL006,
        at.file,
        at.span,
        format!("`{setting}` needs a value: {expected}"),
    )
    .help(format!("write `{setting} VALUE` with {expected}"))
}

/// Extra values (at `at`) of the setting `setting`, which takes one,
/// `expected`.
pub fn takes_one_value(setting: &str, expected: &str, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL006,
        at.file,
        at.span,
        format!("`{setting}` takes one value, {expected}"),
    )
    .help("remove the extra values, or put each statement on its own line")
}

/// A value (at `at`, described as `found`) of the setting `setting`, which
/// takes `expected`, written like `example`.
pub fn wrong_type(
    setting: &str,
    expected: &str,
    found: &str,
    example: &str,
    at: Loc,
) -> Diagnostic {
    Diagnostic::new(
        Code::FL006,
        at.file,
        at.span,
        format!("`{setting}` takes {expected}, found {found}"),
    )
    .help(if setting == "schedule" && found == "a name" {
        // `schedule manual`: a pipeline without a schedule is `schedule none`.
        "write a cron string like `schedule \"@daily\"`, or `schedule none` for a pipeline that runs only when triggered".to_string()
    } else {
        format!("write it like `{setting} {example}`")
    })
}

/// The word `value` (at `at`), which is none of the `words` the setting
/// `setting` takes (`one_of` when it takes one of them, not a list); `near`
/// is the closest that is.
pub fn not_a_value(
    value: &str,
    setting: &str,
    words: &[String],
    one_of: bool,
    near: Option<&str>,
    at: Loc,
) -> Diagnostic {
    let list = words
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Diagnostic::new(
        Code::FL006,
        at.file,
        at.span,
        format!("`{value}` is not a value of `{setting}`{}", mean(near)),
    )
    .help(if one_of {
        format!("`{setting}` takes one of {list}")
    } else {
        format!("`{setting}` takes {list}")
    })
}

/// The run parameter `param` declared with type `key` (at `at`), which a
/// trigger cannot give.
pub fn key_pipeline_param(param: &str, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL006,
        at.file,
        at.span,
        format!("parameter `{param}` of a pipeline cannot be a `key`"),
    )
    .help("use `string`, `int`, `bool` or `duration`")
}

/// `ready` at `at` with no value it takes; `found` says what it has.
pub fn ready_wrong_value(found: &str, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL006,
        at.file,
        at.span,
        format!("`ready` takes `marker \"NAME\"`, `nonempty` or `always`, found {found}"),
    )
    .help("write `ready marker \"_SUCCESS\"` (a file that marks the folder complete), `ready nonempty` or `ready always`")
}
