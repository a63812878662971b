//! FL007 `duplicate-setting`: the same setting or property twice in one block.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL007,
    check: None,
};
