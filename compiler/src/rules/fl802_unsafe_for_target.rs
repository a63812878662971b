//! FL802 `unsafe-for-target`: a string the target cannot carry unchanged.
//!
//! Found by the code generators (`codegen`), for the target being built.

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL802,
    check: None,
};
