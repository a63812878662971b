//! `flowc check`: findings for files, in one of four formats.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{color_wanted, exit_without_freeing, print, usage_error, CheckFormat};
use crate::diagnostic;
use crate::io::read::check_paths;

pub(super) fn run(
    paths: &[PathBuf],
    format: CheckFormat,
    deny_warnings: bool,
    fixes: &super::fix::FixArgs,
) -> ExitCode {
    let paths = &match super::fix::run(paths, fixes) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let outcome = match check_paths(paths) {
        Ok(o) => o,
        Err(e) => return usage_error(&e),
    };
    let summary = outcome.summary();
    let s = &outcome.sources;
    let d = &outcome.diagnostics;
    print(&match format {
        CheckFormat::Human => diagnostic::human::render(s, d, summary, color_wanted()),
        CheckFormat::Json => diagnostic::json::render(s, d, summary),
        CheckFormat::Sarif => diagnostic::sarif::render(s, d, summary.omitted),
        CheckFormat::Github => diagnostic::github::render(s, d, summary),
    });
    let failed = summary.errors > 0 || (deny_warnings && summary.warnings > 0);
    exit_without_freeing(outcome);
    ExitCode::from(u8::from(failed))
}
