//! miette's graphical report, with the whole file attached as the source so
//! line numbers are right.

use std::fmt;

use miette::{
    Diagnostic as MietteDiagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan,
    NamedSource, SourceCode,
};

use super::{Diagnostic, Severity, Summary};
use crate::source::{FileId, SourceMap};
use crate::span::Span;

/// One finding (or, for labels in another file, one related note) as miette sees it.
#[derive(Debug)]
struct Report {
    code: Option<String>,
    message: String,
    severity: miette::Severity,
    help: Option<String>,
    source: NamedSource<String>,
    labels: Vec<LabeledSpan>,
    related: Vec<Report>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report {}

impl MietteDiagnostic for Report {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.code
            .as_ref()
            .map(|c| Box::new(c) as Box<dyn fmt::Display>)
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn MietteDiagnostic> + 'a>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(
                self.related.iter().map(|r| r as &dyn MietteDiagnostic),
            ))
        }
    }
}

/// A span miette can show: an empty span at the end of a file would vanish,
/// so it covers the last character instead.
fn visible(text: &str, span: Span) -> (usize, usize) {
    let start = span.start.min(text.len());
    let end = span.end.min(text.len()).max(start);
    if end > start || text.is_empty() {
        return (start, end - start);
    }
    if start < text.len() {
        let len = text[start..].chars().next().map_or(1, char::len_utf8);
        return (start, len);
    }
    let last = text.char_indices().last().map_or(0, |(i, _)| i);
    (last, text.len() - last)
}

fn named(sources: &SourceMap, file: FileId) -> NamedSource<String> {
    NamedSource::new(sources.path(file), sources.text(file).to_string())
}

fn report(sources: &SourceMap, d: &Diagnostic) -> Report {
    let text = sources.text(d.file);
    let (o, l) = visible(text, d.span);
    let mut labels = vec![LabeledSpan::new_primary_with_span(None, (o, l))];
    let mut related: Vec<Report> = Vec::new();
    for label in &d.labels {
        if label.file == d.file {
            let (o, l) = visible(text, label.span);
            labels.push(LabeledSpan::new_with_span(
                Some(label.message.clone()),
                (o, l),
            ));
        } else {
            let other = sources.text(label.file);
            let (o, l) = visible(other, label.span);
            related.push(Report {
                code: None,
                message: label.message.clone(),
                severity: miette::Severity::Advice,
                help: None,
                source: named(sources, label.file),
                labels: vec![LabeledSpan::new_with_span(
                    Some(label.message.clone()),
                    (o, l),
                )],
                related: Vec::new(),
            });
        }
    }
    Report {
        code: Some(format!(
            "{}({})",
            d.code,
            crate::rules::registry::lookup(d.code).map_or("", |r| r.name)
        )),
        message: d.message.clone(),
        severity: match d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        },
        help: d.help.clone(),
        source: named(sources, d.file),
        labels,
        related,
    }
}

/// Render unsuppressed findings, then a summary line.
pub fn render(sources: &SourceMap, diags: &[Diagnostic], summary: Summary, color: bool) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false)
        .with_context_lines(1);
    let mut out = String::new();
    for d in diags.iter().filter(|d| d.suppressed.is_none()) {
        let _ = handler.render_report(&mut out, &report(sources, d));
        out.push('\n');
    }
    out.push_str(&summary_line(summary));
    out.push('\n');
    out
}

pub fn summary_line(s: Summary) -> String {
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {} in {}",
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.files, "file")
    )
}
