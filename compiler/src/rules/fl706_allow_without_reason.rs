//! FL706 `allow-without-reason`: an `allow` with a missing or blank reason.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL706,
    check: None,
};
