//! FL001 `syntax-error`: the file does not parse, or is not UTF-8.
//!
//! Found by the parser (`syntax::parser`).

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL001",
    name: "syntax-error",
    severity: Severity::Error,
    summary: "the file does not parse, or is not UTF-8",
    explain: include_str!("explain/FL001.md"),
    check: None,
};
