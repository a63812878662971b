//! `--format github`: workflow-command annotations for GitHub Actions.

use std::fmt::Write as _;

use super::{Diagnostic, Severity, Summary};
use crate::source::SourceMap;

/// Workflow-command escapes, after control characters are made visible
/// (a runner's log is a terminal too).
fn escape_data(s: &str) -> String {
    super::human::escape_controls(s)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn render(sources: &SourceMap, diags: &[Diagnostic], summary: Summary) -> String {
    let mut out = String::new();
    for d in diags.iter().filter(|d| d.suppressed.is_none()) {
        let start = sources.locate(d.file, d.span);
        let end = sources.locate(d.file, crate::span::Span::new(d.span.end, d.span.end));
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let name = d.code.name();
        let mut message = d.message.clone();
        if let Some(h) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(h);
        }
        let _ = writeln!(
            out,
            "::{level} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            escape_property(sources.path(d.file)),
            start.line,
            start.column,
            end.line,
            end.column,
            escape_property(&format!("{} {name}", d.code)),
            escape_data(&message),
        );
    }
    out.push_str(&super::human::summary_line(summary));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_workflow_command_syntax() {
        assert_eq!(escape_data("a%b\nc"), "a%25b%0Ac");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
        assert_eq!(escape_data("\u{1b}[2J\r\n"), "\\u{1b}[2J\\u{d}%0A");
    }
}
