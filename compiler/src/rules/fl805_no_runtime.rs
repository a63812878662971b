//! FL805 `no-runtime`: `scaffold` for a kind that has no runtime yet.
//!
//! Found by the code generators (`codegen`), for the target being built.

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL805,
    check: None,
};
