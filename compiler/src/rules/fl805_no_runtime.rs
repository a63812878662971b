//! FL805 `no-runtime`: `scaffold` for a kind that has no runtime yet.
//!
//! Found by the code generators (`codegen`), for the target being built.

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL805",
    name: "no-runtime",
    severity: Severity::Error,
    summary: "`scaffold` for a kind that has no runtime yet",
    explain: include_str!("explain/FL805.md"),
    check: None,
};
