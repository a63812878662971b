//! `flowc report`: the guarantee derived for every output.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{exit_without_freeing, print, usage_error, ReportFormat};
use crate::diagnostic;
use crate::io::read::check_paths;

pub(super) fn run(paths: &[PathBuf], format: ReportFormat) -> ExitCode {
    let outcome = match check_paths(paths) {
        Ok(o) => o,
        Err(e) => return usage_error(&e),
    };
    match format {
        ReportFormat::Human => print(&crate::report::table(&outcome)),
        ReportFormat::Json => print(&crate::report::json(&outcome)),
    }
    let summary = outcome.summary();
    if summary.errors > 0 {
        eprintln!(
            "flowc: {}; run `flowc check` for details",
            diagnostic::human::summary_line(summary)
        );
        for f in &outcome.roots {
            if outcome.broken.contains(f) {
                eprintln!(
                    "flowc: `{}` has no report: it does not parse or its names do not resolve",
                    outcome.sources.path(*f)
                );
            }
        }
    }
    exit_without_freeing(outcome);
    ExitCode::from(u8::from(summary.errors > 0))
}
