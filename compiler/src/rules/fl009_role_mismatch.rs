//! FL009 `role-mismatch`: a declaration, `read`, `write` or `emit` that does not fit the kind's roles.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL009",
    name: "role-mismatch",
    severity: Severity::Error,
    summary: "a declaration, `read`, `write` or `emit` that does not fit the kind's roles",
    explain: include_str!("explain/FL009.md"),
    check: None,
};
