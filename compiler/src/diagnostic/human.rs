//! miette's graphical report, with the whole file attached as the source so
//! line numbers are right.

use std::fmt;

use miette::{
    Diagnostic as MietteDiagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan,
    MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use super::{Diagnostic, Severity, Summary};
use crate::source::{SourceFile, SourceMap};
use crate::span::Span;

/// A file as miette reads it. miette scans a text from its start to find
/// the lines around a span, so each finding in a large file would cost the
/// whole file; this hands it only the lines near the span, and says where
/// they are. The result is the same, as miette counts lines: a file with a
/// lone `\r` (a line break to miette, not to us) is read whole.
#[derive(Debug)]
struct Source<'s> {
    file: &'s SourceFile,
    lone_cr: bool,
}

/// Whether a text has a `\r` that does not start a `\r\n`.
fn has_lone_cr(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'\r', bytes).any(|i| bytes.get(i + 1) != Some(&b'\n'))
}

impl SourceCode for Source<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let text = self.file.text.as_str();
        let name = || self.file.path.clone();
        if self.lone_cr {
            let c = text.read_span(span, before, after)?;
            return Ok(Box::new(MietteSpanContents::new_named(
                name(),
                c.data(),
                *c.span(),
                c.line(),
                c.column(),
                c.line_count(),
            )));
        }
        // Whole lines, a margin wider than miette's context on each side.
        let lines = &self.file.lines;
        let first = lines.line_of(span.offset()).saturating_sub(before + 2);
        let last = lines.line_of(span.offset() + span.len()) + after + 2;
        let start = lines.line_start(first).unwrap_or(0);
        let end = lines.line_start(last + 1).unwrap_or(text.len());
        let local = SourceSpan::new((span.offset() - start).into(), span.len());
        let c = text[start..end].read_span(&local, before, after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            name(),
            c.data(),
            SourceSpan::new((c.span().offset() + start).into(), c.span().len()),
            c.line() + first,
            c.column(),
            c.line_count() + first,
        )))
    }
}

/// One finding (or, for labels in another file, one related note) as miette sees it.
#[derive(Debug)]
struct Report<'s> {
    code: Option<String>,
    message: String,
    severity: miette::Severity,
    help: Option<String>,
    source: Source<'s>,
    labels: Vec<LabeledSpan>,
    related: Vec<Report<'s>>,
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report<'_> {}

impl MietteDiagnostic for Report<'_> {
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

fn report<'s>(sources: &'s SourceMap, lone_cr: &[bool], d: &Diagnostic) -> Report<'s> {
    let source = |file: crate::source::FileId| Source {
        file: sources.get(file),
        lone_cr: lone_cr[file.0],
    };
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
                source: source(label.file),
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
        source: source(d.file),
        labels,
        related,
    }
}

fn handler(theme: GraphicalTheme) -> GraphicalReportHandler {
    GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false)
        .with_context_lines(1)
}

/// Render unsuppressed findings, then a summary line.
pub fn render(sources: &SourceMap, diags: &[Diagnostic], summary: Summary, color: bool) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = handler(theme);
    let lone_cr: Vec<bool> = (0..sources.len())
        .map(|i| has_lone_cr(sources.text(crate::source::FileId(i))))
        .collect();
    let mut out = String::new();
    for d in diags.iter().filter(|d| d.suppressed.is_none()) {
        let _ = handler.render_report(&mut out, &report(sources, &lone_cr, d));
        out.push('\n');
    }
    out.push_str(&summary_line(summary));
    out.push('\n');
    out
}

pub fn summary_line(s: Summary) -> String {
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    let mut line = format!(
        "{}, {} in {}",
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.files, "file")
    );
    if s.omitted > 0 {
        line = format!(
            "{line}\n{} not shown: at most {} are listed per file",
            plural(s.omitted, "more finding"),
            super::MAX_FINDINGS_PER_FILE
        );
    }
    line
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;
    use crate::source::FileId;

    /// One finding rendered from the lines near its spans, and from the
    /// whole text (what miette does on its own).
    fn both(sources: &SourceMap, d: &Diagnostic) -> (String, String) {
        let h = handler(GraphicalTheme::unicode_nocolor());
        let mut near = String::new();
        let mut whole = String::new();
        let _ = h.render_report(&mut near, &report(sources, &[false, false], d));
        let _ = h.render_report(&mut whole, &report(sources, &[true, true], d));
        (near, whole)
    }

    #[test]
    fn reading_near_a_span_renders_what_reading_the_whole_file_does() {
        let mut long = String::new();
        for i in 0..40 {
            let _ = write!(long, "line {i} \u{e9}\t{{ x }}\r\n");
        }
        long.push_str("last line without newline");
        let texts = [
            long.clone(),
            long.replace("\r\n", "\n"),
            "one".into(),
            String::new(),
        ];
        let mut compared = 0;
        for text in &texts {
            let mut sources = SourceMap::default();
            let main = sources.add("a.flow", text.clone());
            let other = sources.add("b.flow", "other\nfile\n");
            let len = text.len();
            let spans = [
                (0, 0),
                (0, 3),
                (len / 2, len / 2 + 10),
                (len.saturating_sub(5), len),
                (len, len),
                (30, 200),
            ];
            for &(from, to) in &spans {
                let (start, end) = (from.min(len), to.min(len));
                if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
                    continue;
                }
                let d = Diagnostic::new("FL101", main, Span::new(start, end), "message")
                    .label(main, Span::new(start / 3, start / 3), "earlier")
                    .label(main, Span::new(end, end), "later")
                    .label(other, Span::new(6, 10), "elsewhere")
                    .help("help");
                let (near, whole) = both(&sources, &d);
                assert_eq!(near, whole, "span {start}..{end} of {text:?}");
                assert!(near.contains("a.flow"), "{near}");
                compared += 1;
            }
        }
        assert!(compared > 15, "{compared}");
    }

    #[test]
    fn many_findings_in_a_large_file_render_in_linear_time() {
        // 20,000 findings in a 1 MB file: reading the whole file for each
        // one would take minutes.
        let text = "task t {\n  key input.id\n}\n".repeat(40_000);
        let mut sources = SourceMap::default();
        let f = sources.add("big.flow", text.clone());
        let diags: Vec<Diagnostic> = (0..20_000)
            .map(|i| Diagnostic::new("FL101", f, Span::new(i * 50, i * 50 + 4), "m"))
            .collect();
        let out = render(&sources, &diags, Summary::default(), false);
        assert_eq!(out.matches("big.flow:").count(), 20_000);
        let _ = FileId(0);
    }
}
