//! FL803 `name-collision`: two names that become one after conversion to a target's naming rules.
//!
//! Found by the code generators (`codegen`), for the target being built.

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL803,
    check: None,
};
