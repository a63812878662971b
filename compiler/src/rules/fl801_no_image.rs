//! FL801 `no-image`: a task with no container image, built for a target that needs one.
//!
//! Found by the code generators (`codegen`), for the target being built.

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL801",
    name: "no-image",
    severity: Severity::Error,
    summary: "a task with no container image, built for a target that needs one",
    explain: include_str!("explain/FL801.md"),
    check: None,
};
