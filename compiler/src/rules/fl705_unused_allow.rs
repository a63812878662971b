//! FL705 `unused-allow`: an `allow` that suppresses nothing.
//!
//! Found when suppressions are applied (`analyze::suppress`).

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL705",
    name: "unused-allow",
    severity: Severity::Warning,
    summary: "an `allow` that suppresses nothing",
    explain: include_str!("explain/FL705.md"),
    check: None,
};
