//! FL706 `allow-without-reason`: an `allow` with a missing or blank reason.
//!
//! Found while resolving names and literals (`analyze::resolve`), which
//! reports a typed `Problem`; its words are here.

use super::Rule;
use crate::analyze::model::Loc;
use crate::diagnostic::{Code, Diagnostic};

pub const RULE: Rule = Rule {
    code: Code::FL706,
    check: None,
};

/// `allow code` at `at` with no reason.
pub fn finding(code: &str, at: Loc) -> Diagnostic {
    Diagnostic::new(Code::FL706, at.file, at.span, format!("`allow {code}` gives no reason"))
        .help(format!("say why the finding is acceptable: `allow {code} because \"...\"`; without a reason it suppresses nothing"))
}
