//! FL009 `role-mismatch`: a declaration, `read`, `write` or `emit` that does not fit the kind's roles.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL009,
    check: None,
};
