//! FL802 `unsafe-for-target`: a string the target cannot carry unchanged.
//!
//! Found by the code generators (`codegen`), for the target being built.

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL802",
    name: "unsafe-for-target",
    severity: Severity::Error,
    summary: "a string the target cannot carry unchanged",
    explain: include_str!("explain/FL802.md"),
    check: None,
};
