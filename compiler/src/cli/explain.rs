//! `flowc explain`: a rule's page.

use std::process::ExitCode;

use super::{print, usage_error};
use crate::diagnostic::Code;

pub(super) fn run(rule: &str) -> ExitCode {
    if let Some(r) = Code::lookup(rule) {
        print(r.explain());
        ExitCode::SUCCESS
    } else {
        let names = Code::ALL.iter().flat_map(|r| [r.as_str(), r.name()]);
        let hint = crate::suggest::did_you_mean(rule, names);
        usage_error(&format!("no rule `{rule}`{hint}; `flowc rules` lists them"))
    }
}
