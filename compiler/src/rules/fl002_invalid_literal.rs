//! FL002 `invalid-literal`: a bad duration, date, integer, cron expression, time zone or placeholder.
//!
//! Found while resolving names and literals (`analyze::resolve`).

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL002,
    check: None,
};
