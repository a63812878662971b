//! FL006 `wrong-type`: a setting, property or parameter with a value of the wrong type.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL006,
    check: None,
};
