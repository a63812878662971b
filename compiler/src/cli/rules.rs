//! `flowc rules`: every rule on one line.

use std::fmt::Write as _;
use std::process::ExitCode;

use super::print;
use crate::diagnostic::Code;

pub(super) fn run() -> ExitCode {
    let mut out = String::new();
    for r in Code::ALL {
        let _ = writeln!(
            out,
            "{}  {:<28} {:<7}  {}",
            r,
            r.name(),
            r.severity().word(),
            r.summary()
        );
    }
    print(&out);
    ExitCode::SUCCESS
}
