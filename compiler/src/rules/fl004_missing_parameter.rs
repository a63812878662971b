//! FL004 `missing-parameter`: a required kind parameter is missing.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL004",
    name: "missing-parameter",
    severity: Severity::Error,
    summary: "a required kind parameter is missing",
    explain: include_str!("explain/FL004.md"),
    check: None,
};
