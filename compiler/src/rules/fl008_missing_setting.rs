//! FL008 `missing-setting`: a scheduled pipeline without `start`, or a task without `run`.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL008,
    check: None,
};
