//! FL004 `missing-parameter`: a required kind parameter is missing.
//!
//! Found while resolving names and literals (`analyze::resolve`), which
//! reports a typed `Problem`; its words are here.

use super::Rule;
use crate::analyze::model::{Loc, Role};
use crate::diagnostic::{Code, Diagnostic};
use crate::vocab::ParamType;

pub const RULE: Rule = Rule {
    code: Code::FL004,
    check: None,
};

/// The `role` `decl` (named at `at`) without the required parameter `param`
/// (of type `ty`) of its kind `kind`, declared at `kind_loc`.
pub fn finding(
    role: Role,
    decl: &str,
    param: &str,
    ty: ParamType,
    kind: &str,
    at: Loc,
    kind_loc: Loc,
) -> Diagnostic {
    Diagnostic::new(
        Code::FL004,
        at.file,
        at.span,
        format!(
            "{} `{decl}` is missing the required parameter `{param}` of kind `{kind}`",
            role.word(),
        ),
    )
    .label(
        kind_loc.file,
        kind_loc.span,
        format!("kind `{kind}` declared here"),
    )
    .help(format!(
        "add a line `{param} {}` inside the braces",
        example_of(ty)
    ))
}

/// A value of type `ty`, to show in the help.
fn example_of(ty: ParamType) -> &'static str {
    match ty {
        ParamType::String => "\"...\"",
        ParamType::Int => "1",
        ParamType::Bool => "true",
        ParamType::Duration => "30m",
        ParamType::Key => "id",
    }
}
