//! FL702 `unknown-name`: a reference to an undeclared source, sink, effect, kind or task.
//!
//! Found while resolving names and literals (`analyze::resolve`), which
//! reports a typed `Problem`; its words are here.

use super::Rule;
use crate::analyze::model::Loc;
use crate::diagnostic::{Code, Diagnostic};
use crate::suggest::mean;

pub const RULE: Rule = Rule {
    code: Code::FL702,
    check: None,
};

/// A declaration naming the kind `name` (at `at`), not in scope; `near` is
/// the closest kind that is, and `builtin` the standard library's kinds for
/// the declaration's role. A name that is the first word of exactly one
/// built-in kind (`kafka` for `kafka_topic`) is taken as meaning it.
pub fn unknown_kind(name: &str, near: Option<&str>, builtin: &[String], at: Loc) -> Diagnostic {
    let prefixed: Vec<&str> = builtin
        .iter()
        .map(String::as_str)
        .filter(|k| {
            k.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('_'))
        })
        .collect();
    let guess = near.or(match prefixed.as_slice() {
        [one] => Some(*one),
        _ => None,
    });
    let list = builtin
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let help = if list.is_empty() {
        "declare it with `kind NAME { ... }`, or import the file that does with `use`".to_string()
    } else {
        format!(
            "the built-in kinds are {list}; or declare it with `kind NAME {{ ... }}`, or import the file that does with `use`"
        )
    };
    Diagnostic::new(
        Code::FL702,
        at.file,
        at.span,
        format!("unknown kind `{name}`{}", mean(guess)),
    )
    .help(help)
    // Only a close spelling is fixed: a first word may name another kind.
    .fix_name(near, at.file, at.span)
}

/// A statement naming the `what` (source, sink, effect) `name` (at `at`),
/// not in scope; `near` is the closest name that is.
pub fn unknown_decl(what: &str, name: &str, near: Option<&str>, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL702,
        at.file,
        at.span,
        format!("unknown {what} `{name}`{}", mean(near)),
    )
    .help(format!(
        "declare it with `{what} {name}: KIND {{ ... }}`, or import the file that does with `use`"
    ))
    .fix_name(near, at.file, at.span)
}

/// `after` naming the task `name` (at `at`), which `pipeline` does not
/// have; `near` is the closest task it has.
pub fn unknown_task(name: &str, pipeline: &str, near: Option<&str>, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL702,
        at.file,
        at.span,
        format!(
            "unknown task `{name}` in pipeline `{pipeline}`{}",
            mean(near)
        ),
    )
    .help("`after` names tasks of the same pipeline")
    .fix_name(near, at.file, at.span)
}
