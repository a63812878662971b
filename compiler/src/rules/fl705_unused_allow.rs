//! FL705 `unused-allow`: an `allow` that suppresses nothing.
//!
//! Found when suppressions are applied (`rules::suppress`).

use super::Rule;
use crate::analyze::model::AllowDef;
use crate::diagnostic::{Code, Diagnostic};

pub const RULE: Rule = Rule {
    code: Code::FL705,
    check: None,
};

/// The finding for an `allow` that covered no finding.
pub(super) fn finding(a: &AllowDef) -> Diagnostic {
    Diagnostic::new(
        Code::FL705,
        a.loc.file,
        a.loc.span,
        format!("`allow {}` suppresses nothing", a.code),
    )
    .help("remove it: no finding with that code is reported in its scope")
}
