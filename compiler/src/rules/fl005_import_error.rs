//! FL005 `import-error`: `use` of a file that cannot be read, or a cycle of `use`.
//!
//! Found while following `use` (the loader in `check`), which reports a typed
//! `Problem`; its words are here.

use super::Rule;
use crate::analyze::model::Loc;
use crate::diagnostic::{Code, Diagnostic};

pub const RULE: Rule = Rule {
    code: Code::FL005,
    check: None,
};

/// The `use` at `at` of `path`, which cannot be imported for the reason `why`.
pub fn import_failed(path: &str, why: &str, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL005,
        at.file,
        at.span,
        format!("cannot import `{path}`: {why}"),
    )
    .help("`use` paths are relative to the importing file")
}

/// The `use` at `at`, which closes a cycle through `files`; `own` when a
/// file imports itself.
pub fn use_cycle(files: &[String], own: bool, at: Loc) -> Diagnostic {
    let help = if own {
        "remove this `use`: a file sees its own declarations"
    } else {
        "move the shared declarations into a file that both import"
    };
    Diagnostic::new(
        Code::FL005,
        at.file,
        at.span,
        format!("`use` cycle: {}", files.join(" -> ")),
    )
    .help(help)
}
