//! FL003 `unknown-property`: a property, parameter or setting that the kind or block does not declare.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL003,
    check: None,
};
