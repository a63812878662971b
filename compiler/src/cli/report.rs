//! `flowc report`: the guarantee derived for every output.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{exit_without_freeing, print, usage_error, ReportFormat};
use crate::diagnostic;
use crate::io::read::check_paths;

pub(super) fn run(
    paths: &[PathBuf],
    format: ReportFormat,
    quiet: bool,
    now: Option<&str>,
) -> ExitCode {
    let now = match now.map(parse_now).transpose() {
        Ok(n) => n,
        Err(e) => return usage_error(&e),
    };
    let outcome = match check_paths(paths) {
        Ok(o) => o,
        Err(e) => return usage_error(&e),
    };
    match format {
        ReportFormat::Human => print(&crate::report::table_at(&outcome, now)),
        ReportFormat::Json => print(&crate::report::json_at(&outcome, now)),
    }
    let summary = outcome.summary();
    if summary.errors > 0 && !quiet {
        eprintln!(
            "flowc: {}; run `flowc check` for details",
            diagnostic::human::summary_line(summary)
        );
        for f in &outcome.roots {
            if outcome.broken.contains(f) {
                eprintln!(
                    "flowc: `{}` has no report: it does not parse or its names do not resolve",
                    diagnostic::human::escape_controls(outcome.sources.path(*f))
                );
            }
        }
    }
    exit_without_freeing(outcome);
    ExitCode::from(u8::from(summary.errors > 0))
}

/// `--now`: `now` (the clock), or an RFC 3339 instant (`2026-03-01T12:00:00Z`).
fn parse_now(s: &str) -> Result<jiff::Timestamp, String> {
    if s == "now" {
        return Ok(jiff::Timestamp::now());
    }
    s.parse().map_err(|e| {
        format!(
            "`--now {s}` is not an instant: {e}; write `now` or one such as 2026-03-01T12:00:00Z"
        )
    })
}
