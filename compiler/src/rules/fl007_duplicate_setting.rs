//! FL007 `duplicate-setting`: the same setting or property twice in one block.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL007",
    name: "duplicate-setting",
    severity: Severity::Error,
    summary: "the same setting or property twice in one block",
    explain: include_str!("explain/FL007.md"),
    check: None,
};
