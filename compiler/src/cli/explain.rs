//! `flowc explain`: a rule's page.

use std::process::ExitCode;

use super::{not_found, print, usage_error};
use crate::diagnostic::Code;

pub(super) fn run(rule: &str) -> ExitCode {
    if let Some(r) = Code::lookup(rule) {
        print(r.explain());
        ExitCode::SUCCESS
    } else {
        let names = Code::ALL.iter().flat_map(|r| [r.as_str(), r.name()]);
        let near = crate::suggest::closest_or_start(rule, names);
        usage_error(&not_found("rule", rule, near, "flowc rules"))
    }
}
