//! FL707 `unknown-code`: an `allow` naming a code that does not exist.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL707",
    name: "unknown-code",
    severity: Severity::Error,
    summary: "an `allow` naming a code that does not exist",
    explain: include_str!("explain/FL707.md"),
    check: None,
};
