//! FL005 `import-error`: `use` of a file that cannot be read, or a cycle of `use`.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL005,
    check: None,
};
