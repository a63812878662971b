//! FL004 `missing-parameter`: a required kind parameter is missing.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL004,
    check: None,
};
