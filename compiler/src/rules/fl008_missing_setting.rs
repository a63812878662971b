//! FL008 `missing-setting`: a scheduled pipeline without `start`, or a task without `run`.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL008",
    name: "missing-setting",
    severity: Severity::Error,
    summary: "a scheduled pipeline without `start`, or a task without `run`",
    explain: include_str!("explain/FL008.md"),
    check: None,
};
