//! FL702 `unknown-name`: a reference to an undeclared source, sink, effect, kind or task.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL702",
    name: "unknown-name",
    severity: Severity::Error,
    summary: "a reference to an undeclared source, sink, effect, kind or task",
    explain: include_str!("explain/FL702.md"),
    check: None,
};
