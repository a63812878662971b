//! FL706 `allow-without-reason`: an `allow` with a missing or blank reason.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL706",
    name: "allow-without-reason",
    severity: Severity::Error,
    summary: "an `allow` with a missing or blank reason",
    explain: include_str!("explain/FL706.md"),
    check: None,
};
