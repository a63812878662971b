//! FL002 `invalid-literal`: a bad duration, date, integer, cron expression, time zone or placeholder.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL002",
    name: "invalid-literal",
    severity: Severity::Error,
    summary: "a bad duration, date, integer, cron expression, time zone or placeholder",
    explain: include_str!("explain/FL002.md"),
    check: None,
};
