//! FL703 `duplicate-name`: two declarations with one name in one namespace.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL703",
    name: "duplicate-name",
    severity: Severity::Error,
    summary: "two declarations with one name in one namespace",
    explain: include_str!("explain/FL703.md"),
    check: None,
};
