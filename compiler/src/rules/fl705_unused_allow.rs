//! FL705 `unused-allow`: an `allow` that suppresses nothing.
//!
//! Found when suppressions are applied (`rules::suppress`).

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL705,
    check: None,
};
