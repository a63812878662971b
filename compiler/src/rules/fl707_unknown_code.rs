//! FL707 `unknown-code`: an `allow` naming a code that does not exist.
//!
//! Found while resolving names and literals (`analyze::resolve`), which
//! reports a typed `Problem`; its words are here.

use super::Rule;
use crate::analyze::model::Loc;
use crate::diagnostic::{Code, Diagnostic};
use crate::suggest::did_you_mean;

pub const RULE: Rule = Rule {
    code: Code::FL707,
    check: None,
};

/// `allow` naming `code` (at `at`), which is neither a rule's code nor its name.
pub fn finding(code: &str, at: Loc) -> Diagnostic {
    let codes = Code::ALL
        .iter()
        .map(|c| c.as_str())
        .chain(Code::ALL.iter().map(|c| c.name()));
    Diagnostic::new(
        Code::FL707,
        at.file,
        at.span,
        format!(
            "`allow` names `{code}`, which is not a flowc rule{}",
            did_you_mean(code, codes)
        ),
    )
    .help("`flowc rules` lists every code")
}
