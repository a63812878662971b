//! FL703 `duplicate-name`: two declarations with one name in one namespace.
//!
//! Found while resolving names and literals (`analyze::resolve`), which
//! reports a typed `Problem`; its words are here.

use super::Rule;
use crate::analyze::model::Loc;
use crate::analyze::problem::Namespace;
use crate::diagnostic::{Code, Diagnostic};

pub const RULE: Rule = Rule {
    code: Code::FL703,
    check: None,
};

/// `name` declared at `first` and again at `again`, in `namespace`:
/// found at the second, pointing at both.
pub fn duplicate(namespace: &Namespace, name: &str, first: Loc, again: Loc) -> Diagnostic {
    let (message, help) = match namespace {
        Namespace::Kind => (
            format!("kind `{name}` is declared twice"),
            "rename one of them",
        ),
        Namespace::ImportedKind => (
            format!("kind `{name}` is declared twice"),
            "rename one of them: kinds share one namespace, imports included",
        ),
        Namespace::Decl => (
            format!("`{name}` is declared twice"),
            "rename one of them: sources, sinks and effects share one namespace",
        ),
        Namespace::ImportedDecl => (
            format!("`{name}` is declared twice"),
            "rename one of them: sources, sinks and effects share one namespace, imports included",
        ),
        Namespace::Pipeline => (
            format!("pipeline `{name}` is declared twice"),
            "pipeline names are one namespace across all files of a run; rename one",
        ),
        Namespace::Task { pipeline } => (
            format!("task `{name}` is declared twice in pipeline `{pipeline}`"),
            "rename one of the tasks",
        ),
    };
    Diagnostic::new(Code::FL703, again.file, again.span, message)
        .label(first.file, first.span, "first declared here")
        .label(again.file, again.span, "declared again here")
        .help(help)
}

/// A user kind at `again` named `name`, as the standard library's at `stdlib`.
pub fn stdlib_kind_reused(name: &str, stdlib: Loc, again: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL703,
        again.file,
        again.span,
        format!("kind `{name}` is already declared by the standard library"),
    )
    .label(
        stdlib.file,
        stdlib.span,
        "the standard library's declaration",
    )
    .label(again.file, again.span, "declared again here")
    .help("give your kind another name")
}
