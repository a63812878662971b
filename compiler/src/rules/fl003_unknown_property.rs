//! FL003 `unknown-property`: a property, parameter or setting that the kind or block does not declare.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL003",
    name: "unknown-property",
    severity: Severity::Error,
    summary: "a property, parameter or setting that the kind or block does not declare",
    explain: include_str!("explain/FL003.md"),
    check: None,
};
