//! FL803 `name-collision`: two names that become one after conversion to a target's naming rules.
//!
//! Found by the code generators (`codegen`), for the target being built.

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL803",
    name: "name-collision",
    severity: Severity::Error,
    summary: "two names that become one after conversion to a target's naming rules",
    explain: include_str!("explain/FL803.md"),
    check: None,
};
