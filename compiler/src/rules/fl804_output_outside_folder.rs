//! FL804 `output-outside-folder`: an output path that would leave `--out`.
//!
//! Found by the code generators (`codegen`), for the target being built.

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL804,
    check: None,
};
