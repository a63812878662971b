//! `flowc explain`: a rule's page.

use std::process::ExitCode;

use super::{print, usage_error};
use crate::analyze;
use crate::rules::registry;

pub(super) fn run(rule: &str) -> ExitCode {
    if let Some(r) = registry::lookup(rule) {
        print(r.explain);
        ExitCode::SUCCESS
    } else {
        let names = registry::all().iter().flat_map(|r| [r.code, r.name]);
        let hint = analyze::suggest::did_you_mean(rule, names);
        usage_error(&format!("no rule `{rule}`{hint}; `flowc rules` lists them"))
    }
}
