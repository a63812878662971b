//! FL702 `unknown-name`: a reference to an undeclared source, sink, effect, kind or task.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL702,
    check: None,
};
