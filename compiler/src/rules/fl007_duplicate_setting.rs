//! FL007 `duplicate-setting`: the same setting or property twice in one block.
//!
//! Found while resolving names and literals (`analyze::resolve`), which
//! reports a typed `Problem`; its words are here.

use super::Rule;
use crate::analyze::model::Loc;
use crate::analyze::problem::Clause;
use crate::diagnostic::{Code, Diagnostic};

pub const RULE: Rule = Rule {
    code: Code::FL007,
    check: None,
};

/// The parameter `param` of kind `kind`, declared at `first` and again at `at`.
pub fn param_twice(param: &str, kind: &str, at: Loc, first: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL007,
        at.file,
        at.span,
        format!("parameter `{param}` is declared twice in kind `{kind}`"),
    )
    .label(first.file, first.span, "first declared here")
    .help("remove one of the two lines")
}

/// The environment variable `name`, set at `first` and again at `at`.
pub fn env_twice(name: &str, at: Loc, first: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL007,
        at.file,
        at.span,
        format!("environment variable `{name}` is set twice"),
    )
    .label(first.file, first.span, "first set here")
    .help("keep one of the two lines")
}

/// A setting set at `first` as `first_word`, and again at `at` as `word`.
pub fn setting_twice(first_word: &str, word: &str, at: Loc, first: Loc) -> Diagnostic {
    let message = if first_word == word {
        format!("`{first_word}` is set twice in one block")
    } else {
        format!("`{word}` and `{first_word}` are one setting, set twice in one block")
    };
    Diagnostic::new(Code::FL007, at.file, at.span, message)
        .label(first.file, first.span, "first set here")
        .help("keep one of the two lines")
}

/// A second `clause` (at `at`) of the statement naming `name`.
pub fn clause_twice(clause: Clause, name: &str, at: Loc) -> Diagnostic {
    let (message, help) = match clause {
        Clause::Pin => (
            format!("`read {name}` states its pin twice"),
            "keep one of `pinned P` and `unpinned`",
        ),
        Clause::Commit => (
            format!("`read {name}` states its commit mode twice"),
            "keep one `commit` clause",
        ),
        Clause::Key => (
            format!("`write {name}` states its key twice"),
            "keep one `key` clause",
        ),
        Clause::Require => (
            format!("`write {name}` states its requirement twice"),
            "keep one `require` clause",
        ),
        Clause::Lookback => (
            format!("`read {name}` states its lookback twice"),
            "keep one `lookback` clause",
        ),
        Clause::Inclusive => (
            format!("`read {name}` says `inclusive` twice"),
            "keep one `inclusive`",
        ),
        Clause::Newest => (
            format!("`write {name}` states its version column twice"),
            "keep one `newest by` clause",
        ),
        Clause::Txn => (
            format!("`write {name}` states its transaction id twice"),
            "keep one `txn` clause",
        ),
    };
    Diagnostic::new(Code::FL007, at.file, at.span, message).help(help)
}

/// A task's second `what` statement (at `at`; the first at `first`).
pub fn statement_twice(what: &str, at: Loc, first: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL007,
        at.file,
        at.span,
        format!("a task has one `{what}`; this is the second"),
    )
    .label(first.file, first.span, "first here")
    .help(format!("merge them into one `{what}`"))
}

/// The run parameter `param` of pipeline `pipeline`, declared at `first` and again at `at`.
/// `first_spelled` is the first declaration's name when it differs from
/// `param` in case only (both would be the same `FLOW_PARAM_` variable).
pub fn pipeline_param_twice(
    param: &str,
    first_spelled: Option<&str>,
    pipeline: &str,
    at: Loc,
    first: Loc,
) -> Diagnostic {
    match first_spelled {
        None => Diagnostic::new(
            Code::FL007,
            at.file,
            at.span,
            format!("parameter `{param}` is declared twice in pipeline `{pipeline}`"),
        )
        .label(first.file, first.span, "first declared here")
        .help("remove one of the two lines"),
        Some(other) => Diagnostic::new(
            Code::FL007,
            at.file,
            at.span,
            format!(
                "parameters `{other}` and `{param}` of pipeline `{pipeline}` differ only in case"
            ),
        )
        .label(first.file, first.span, format!("`{other}` declared here"))
        .help(format!(
            "rename one of them: a task sees both as `FLOW_PARAM_{}`",
            param.to_ascii_uppercase()
        )),
    }
}
