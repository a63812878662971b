//! FL703 `duplicate-name`: two declarations with one name in one namespace.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL703,
    check: None,
};
