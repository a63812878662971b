//! FL005 `import-error`: `use` of a file that cannot be read, or a cycle of `use`.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Severity;

pub const RULE: Rule = Rule {
    code: "FL005",
    name: "import-error",
    severity: Severity::Error,
    summary: "`use` of a file that cannot be read, or a cycle of `use`",
    explain: include_str!("explain/FL005.md"),
    check: None,
};
