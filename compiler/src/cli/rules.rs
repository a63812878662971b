//! `flowc rules`: every rule on one line.

use std::fmt::Write as _;
use std::process::ExitCode;

use super::print;
use crate::rules::registry;

pub(super) fn run() -> ExitCode {
    let mut out = String::new();
    for r in registry::all() {
        let _ = writeln!(
            out,
            "{}  {:<28} {:<7}  {}",
            r.code,
            r.name,
            r.severity.word(),
            r.summary
        );
    }
    print(&out);
    ExitCode::SUCCESS
}
