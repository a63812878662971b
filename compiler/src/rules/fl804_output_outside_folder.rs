//! FL804 `output-outside-folder`: an output path that would leave `--out`.
//!
//! Found by the code generators (`codegen`), for the target being built.

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL804",
    name: "output-outside-folder",
    severity: Severity::Error,
    summary: "an output path that would leave `--out`",
    explain: include_str!("explain/FL804.md"),
    check: None,
};
