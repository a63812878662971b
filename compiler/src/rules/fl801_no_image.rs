//! FL801 `no-image`: a task with no container image, built for a target that needs one.
//!
//! Found by the code generators (`codegen`), for the target being built.

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL801,
    check: None,
};
