//! FL006 `wrong-type`: a setting, property or parameter with a value of the wrong type.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL006",
    name: "wrong-type",
    severity: Severity::Error,
    summary: "a setting, property or parameter with a value of the wrong type",
    explain: include_str!("explain/FL006.md"),
    check: None,
};
