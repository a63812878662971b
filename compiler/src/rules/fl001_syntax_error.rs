//! FL001 `syntax-error`: the file does not parse, or is not UTF-8.
//!
//! Found by the parser (`syntax::parser`).

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL001,
    check: None,
};
