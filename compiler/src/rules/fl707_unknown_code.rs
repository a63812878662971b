//! FL707 `unknown-code`: an `allow` naming a code that does not exist.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL707,
    check: None,
};
