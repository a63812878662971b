//! miette's graphical report, over an excerpt of each file: the lines near
//! the spans, with control characters escaped and very long lines cut
//! around the spans, so that a report is cheap, readable and safe to print.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use miette::{
    Diagnostic as MietteDiagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan,
    MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use super::{Diagnostic, Severity, Summary};
use crate::source::{SourceFile, SourceMap};
use crate::span::Span;

/// Whether a character is shown escaped in a report: a control character
/// (other than a newline or a tab), which a terminal may act on (colours,
/// cursor moves, the window title), or a mark that reorders or splits text
/// (bidi overrides and isolates, line and paragraph separators), or one
/// that takes no room, so it could not be seen in the quoted line (zero-width
/// spaces and joiners, the word joiner, a byte-order mark).
pub fn is_escaped(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{61c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200b}'..='\u{200d}'
                | '\u{2060}'
                | '\u{feff}'
        )
}

/// `text` with every [`is_escaped`] character written as `\u{hex}`.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        push_visible(&mut out, c);
    }
    Cow::Owned(out)
}

fn push_visible(out: &mut String, c: char) {
    if is_escaped(c) {
        out.extend(c.escape_unicode());
    } else {
        out.push(c);
    }
}

/// Lines longer than this (in characters, once escaped) are cut: only
/// [`WINDOW`] characters around each span boundary on them are shown.
const LONG_LINE: usize = 400;
const WINDOW: usize = 60;
/// Lines kept around each span: more than miette's context, so that the
/// contexts it merges are contiguous in the excerpt.
const MARGIN: usize = 2;

/// One excerpt line: where it starts in [`Excerpt::text`], and which line
/// of the file (0-based) it shows.
#[derive(Debug, Clone, Copy)]
struct ExcerptLine {
    at: usize,
    line: usize,
}

/// What miette reads for one report in one file. miette would scan a text
/// from its start for each span, print control characters as they are and
/// underline a span past column 65,535 with a width it cannot format; so it
/// gets this excerpt instead, and the spans are translated into it.
#[derive(Debug)]
struct Excerpt {
    name: String,
    text: String,
    lines: Vec<ExcerptLine>,
    /// Excerpt offset of each translated span start, to its 0-based column
    /// in the file (in Unicode scalar values), for the `[file:line:col]` header.
    columns: HashMap<usize, usize>,
}

impl Excerpt {
    /// The excerpt of `file` around `spans`; returns it with each span
    /// translated to `(offset, length)` in it.
    fn new(file: &SourceFile, spans: &[(usize, usize)]) -> (Excerpt, Vec<(usize, usize)>) {
        let text = file.text.as_str();
        let index = &file.lines;
        // Lines that exist: a final newline does not start another one.
        let count =
            index.line_of(text.len()) + usize::from(text.is_empty() || !text.ends_with('\n'));
        let count = count.max(1);
        let mut ranges: Vec<(usize, usize)> = spans
            .iter()
            .map(|&(o, l)| {
                let first = index.line_of(o).saturating_sub(MARGIN);
                let last = (index.line_of(o + l) + MARGIN).min(count - 1);
                (first.min(count - 1), last)
            })
            .collect();
        ranges.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for (a, b) in ranges {
            match merged.last_mut() {
                Some(m) if a <= m.1 + 1 => m.1 = m.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        // Every span boundary, to be found in the excerpt.
        let mut points: Vec<usize> = spans.iter().flat_map(|&(o, l)| [o, o + l]).collect();
        points.sort_unstable();
        points.dedup();
        let mut at: HashMap<usize, usize> = HashMap::new();
        let mut excerpt = Excerpt {
            name: escape_controls(&file.path).into_owned(),
            text: String::new(),
            lines: Vec::new(),
            columns: HashMap::new(),
        };
        for (a, b) in merged {
            for line in a..=b {
                let start = index.line_start(line).unwrap_or(text.len());
                let next = index.line_start(line + 1).unwrap_or(text.len());
                let full = &text[start..next];
                let content = full
                    .strip_suffix('\n')
                    .map_or(full, |c| c.strip_suffix('\r').unwrap_or(c));
                let lo = points.partition_point(|&p| p < start);
                let hi = points.partition_point(|&p| p < next);
                excerpt.lines.push(ExcerptLine {
                    at: excerpt.text.len(),
                    line,
                });
                excerpt.push_line(content, start, &points[lo..hi], &mut at);
                // Boundaries on the line break land at the end of the line.
                for &p in &points[lo..hi] {
                    at.entry(p).or_insert(excerpt.text.len());
                }
                if full.ends_with('\n') {
                    excerpt.text.push('\n');
                }
            }
        }
        let end = excerpt.text.len();
        let translated = spans
            .iter()
            .map(|&(o, l)| {
                let s = at.get(&o).copied().unwrap_or(end);
                let e = at.get(&(o + l)).copied().unwrap_or(end).max(s);
                let before = &text[index.line_start(index.line_of(o)).unwrap_or(0)..o];
                excerpt.columns.insert(s, before.chars().count());
                (s, e - s)
            })
            .collect();
        (excerpt, translated)
    }

    /// Append one line (without its line break), escaped, and cut around
    /// `points` (offsets in the file) when long; records where each point lands.
    fn push_line(
        &mut self,
        content: &str,
        start: usize,
        points: &[usize],
        at: &mut HashMap<usize, usize>,
    ) {
        let width: usize = content
            .chars()
            .map(|c| if is_escaped(c) { 10 } else { 1 })
            .sum();
        let chars: Vec<(usize, char)> = if width > LONG_LINE {
            content.char_indices().collect()
        } else {
            Vec::new()
        };
        // Character ranges to show: all of a short line, windows on a long one.
        let mut keep: Vec<(usize, usize)> = Vec::new();
        if chars.is_empty() {
            keep.push((0, usize::MAX));
        } else {
            for &p in points {
                let i = chars.partition_point(|&(b, _)| b + start < p);
                let range = (i.saturating_sub(WINDOW), (i + WINDOW).min(chars.len()));
                match keep.last_mut() {
                    Some(k) if range.0 <= k.1 => k.1 = k.1.max(range.1),
                    _ => keep.push(range),
                }
            }
        }
        if chars.is_empty() {
            for (b, c) in content.char_indices() {
                if let Ok(i) = points.binary_search(&(start + b)) {
                    at.insert(points[i], self.text.len());
                }
                push_visible(&mut self.text, c);
            }
            return;
        }
        let mut shown_to = 0;
        for (a, b) in keep {
            if a > shown_to {
                self.text.push('…');
            }
            for &(byte, c) in &chars[a..b] {
                if let Ok(i) = points.binary_search(&(start + byte)) {
                    at.insert(points[i], self.text.len());
                }
                push_visible(&mut self.text, c);
            }
            shown_to = b;
        }
        if shown_to < chars.len() {
            self.text.push('…');
        }
    }
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        if self.lines.is_empty() {
            return Err(MietteError::OutOfBounds);
        }
        let line_of = |offset: usize| {
            self.lines
                .partition_point(|l| l.at <= offset)
                .saturating_sub(1)
        };
        let end = span.offset() + span.len();
        let mut first = line_of(span.offset());
        let mut last = line_of(if span.is_empty() { end } else { end - 1 }).max(first);
        // Context lines, but never across a gap between the excerpt's pieces.
        for _ in 0..before {
            if first > 0 && self.lines[first - 1].line + 1 == self.lines[first].line {
                first -= 1;
            }
        }
        for _ in 0..after {
            if last + 1 < self.lines.len() && self.lines[last].line + 1 == self.lines[last + 1].line
            {
                last += 1;
            }
        }
        let from = self.lines[first].at;
        let to = self.lines.get(last + 1).map_or(self.text.len(), |l| l.at);
        let data = &self.text[from..to];
        let column = if before == 0 {
            self.columns.get(&span.offset()).copied().unwrap_or(0)
        } else {
            0
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            data.as_bytes(),
            SourceSpan::new(from.into(), data.len()),
            self.lines[first].line,
            column,
            last - first + 1,
        )))
    }
}

/// One finding (or, for labels in another file, one related note) as miette sees it.
#[derive(Debug)]
struct Report {
    code: Option<String>,
    message: String,
    severity: miette::Severity,
    help: Option<String>,
    source: Excerpt,
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

/// Which span miette marks as the finding's: 0 for its own, or the index
/// (from 1, among the labels in its file) of the first label inside its
/// one-line span. miette draws a connector for an unlabelled span among
/// labelled ones on its line, pointing at nothing, so such a label marks the
/// spot instead.
fn primary(d: &Diagnostic, text: &str) -> Option<usize> {
    let one_line = text
        .get(d.span.start..d.span.end)
        .is_some_and(|t| !t.contains('\n'));
    let inside = |l: &crate::diagnostic::Label| {
        l.file == d.file && one_line && l.span.start >= d.span.start && l.span.end <= d.span.end
    };
    if d.labels.iter().any(inside) {
        d.labels
            .iter()
            .filter(|l| l.file == d.file)
            .position(inside)
            .map(|i| i + 1)
    } else {
        Some(0)
    }
}

fn report(sources: &SourceMap, d: &Diagnostic) -> Report {
    let text = sources.text(d.file);
    let mut spans = vec![visible(text, d.span)];
    let mut names = vec![None];
    let mut related: Vec<Report> = Vec::new();
    for label in &d.labels {
        let message = escape_controls(&label.message).into_owned();
        if label.file == d.file {
            spans.push(visible(text, label.span));
            names.push(Some(message));
        } else {
            let other = sources.text(label.file);
            let (source, at) = Excerpt::new(sources.get(label.file), &[visible(other, label.span)]);
            related.push(Report {
                code: None,
                message: message.clone(),
                severity: miette::Severity::Advice,
                help: None,
                source,
                labels: vec![LabeledSpan::new_with_span(Some(message), at[0])],
                related: Vec::new(),
            });
        }
    }
    let primary = primary(d, text);
    let (source, at) = Excerpt::new(sources.get(d.file), &spans);
    let labels = at
        .into_iter()
        .zip(names)
        .enumerate()
        .filter(|(i, _)| *i != 0 || primary == Some(0))
        .map(|(i, (span, name))| {
            if i == 0 {
                LabeledSpan::new_primary_with_span(None, span)
            } else if Some(i) == primary {
                LabeledSpan::new_primary_with_span(name, span)
            } else {
                LabeledSpan::new_with_span(name, span)
            }
        })
        .collect();
    Report {
        code: Some(format!("{}({})", d.code, d.code.name())),
        message: escape_controls(&d.message).into_owned(),
        severity: match d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        },
        help: d.help.as_deref().map(|h| escape_controls(h).into_owned()),
        source,
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
    use crate::diagnostic::Code;
    use crate::source::FileId;

    fn rendered(d: &dyn MietteDiagnostic) -> String {
        let mut out = String::new();
        let _ = handler(GraphicalTheme::unicode_nocolor()).render_report(&mut out, d);
        out
    }

    /// A report as miette renders it from the whole file (what the excerpt
    /// must reproduce for ordinary text).
    struct Whole<'r> {
        report: &'r Report,
        source: miette::NamedSource<String>,
        labels: Vec<LabeledSpan>,
    }

    impl fmt::Debug for Whole<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("Whole")
        }
    }

    impl fmt::Display for Whole<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(&self.report.message)
        }
    }

    impl std::error::Error for Whole<'_> {}

    impl MietteDiagnostic for Whole<'_> {
        fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
            self.report.code()
        }
        fn severity(&self) -> Option<miette::Severity> {
            self.report.severity()
        }
        fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
            self.report.help()
        }
        fn source_code(&self) -> Option<&dyn SourceCode> {
            Some(&self.source)
        }
        fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
            Some(Box::new(self.labels.iter().cloned()))
        }
    }

    fn whole_file(sources: &SourceMap, d: &Diagnostic) -> String {
        let report = report(sources, d);
        let text = sources.text(d.file);
        let p = super::primary(d, text);
        let mut labels = Vec::new();
        if p == Some(0) {
            labels.push(LabeledSpan::new_primary_with_span(
                None,
                visible(text, d.span),
            ));
        }
        labels.extend(d.labels.iter().enumerate().map(|(i, l)| {
            let (m, at) = (Some(l.message.clone()), visible(text, l.span));
            if p == Some(i + 1) {
                LabeledSpan::new_primary_with_span(m, at)
            } else {
                LabeledSpan::new_with_span(m, at)
            }
        }));
        rendered(&Whole {
            report: &report,
            source: miette::NamedSource::new(sources.path(d.file), text.to_owned()),
            labels,
        })
    }

    #[test]
    fn an_excerpt_renders_what_the_whole_file_does() {
        let mut long = String::new();
        for i in 0..40 {
            let _ = write!(long, "line {i} e\t{{ x }}\r\n");
        }
        long.push_str("last line without newline");
        let texts = [
            long.clone(),
            long.replace("\r\n", "\n"),
            format!("{}\n", long.replace("\r\n", "\n")),
            "one".into(),
            String::new(),
        ];
        let mut compared = 0;
        for text in &texts {
            let mut sources = SourceMap::default();
            let main = sources.add("a.flow", text.clone());
            let len = text.len();
            let spans = [
                (0, 0),
                (0, 3),
                (len / 2, len / 2 + 10),
                (len.saturating_sub(5), len.saturating_sub(2)),
                (len, len),
                (30, 200),
            ];
            for &(from, to) in &spans {
                let (start, end) = (from.min(len), to.min(len));
                let d = Diagnostic::new(Code::FL101, main, Span::new(start, end), "message")
                    .label(main, Span::new(start / 3, start / 3), "earlier")
                    .label(main, Span::new(end, end), "later")
                    .help("help");
                let near = rendered(&report(&sources, &d));
                assert_eq!(
                    near,
                    whole_file(&sources, &d),
                    "span {start}..{end} of {text:?}"
                );
                assert!(near.contains("a.flow"), "{near}");
                compared += 1;
            }
        }
        assert!(compared > 20, "{compared}");
    }

    #[test]
    fn a_label_in_another_file_is_a_related_note() {
        let mut sources = SourceMap::default();
        let main = sources.add("a.flow", "use \"b.flow\"\n");
        let other = sources.add("b.flow", "other\nfile\n");
        let d = Diagnostic::new(Code::FL101, main, Span::new(4, 12), "message").label(
            other,
            Span::new(6, 10),
            "elsewhere",
        );
        let out = rendered(&report(&sources, &d));
        assert!(out.contains("[b.flow:2:1]"), "{out}");
        assert!(out.contains("elsewhere"), "{out}");
    }

    #[test]
    fn headers_count_columns_in_scalar_values_and_long_lines_are_cut() {
        let line = format!("\u{e9}\u{e9}{}x{}", " ".repeat(100_000), "y".repeat(1_000));
        let mut sources = SourceMap::default();
        let f = sources.add("a.flow", format!("first\n{line}\nlast\n"));
        let at = 6 + line.find('x').unwrap_or(0);
        let d = Diagnostic::new(Code::FL101, f, Span::new(at, at + 1), "m");
        let out = rendered(&report(&sources, &d));
        assert!(out.contains("[a.flow:2:100003]"), "{out}");
        assert!(out.lines().all(|l| l.chars().count() < 200), "{out}");
        let (snippet, under) = {
            let lines: Vec<&str> = out.lines().collect();
            let i = lines.iter().position(|l| l.contains('x')).unwrap_or(0);
            (lines[i], lines[i + 1])
        };
        assert!(snippet.contains('…'), "{out}");
        let x = snippet.chars().position(|c| c == 'x');
        assert_eq!(under.chars().position(|c| c == '─' || c == '┬'), x, "{out}");
    }

    #[test]
    fn control_characters_are_shown_escaped() {
        assert_eq!(escape_controls("a\u{1b}[2Jb\tc"), "a\\u{1b}[2Jb\tc");
        assert_eq!(
            escape_controls("\u{202e}\u{9b}\r"),
            "\\u{202e}\\u{9b}\\u{d}"
        );
        assert_eq!(escape_controls("\u{feff}x\u{200b}"), "\\u{feff}x\\u{200b}");
        assert!(matches!(escape_controls("plain é\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn many_findings_in_a_large_file_render_in_linear_time() {
        // 20,000 findings in a 1 MB file: reading the whole file for each
        // one would take minutes.
        let text = "task t {\n  key input.id\n}\n".repeat(40_000);
        let mut sources = SourceMap::default();
        let f = sources.add("big.flow", text.clone());
        let diags: Vec<Diagnostic> = (0..20_000)
            .map(|i| Diagnostic::new(Code::FL101, f, Span::new(i * 50, i * 50 + 4), "m"))
            .collect();
        let out = render(&sources, &diags, Summary::default(), false);
        assert_eq!(out.matches("big.flow:").count(), 20_000);
        let _ = FileId(0);
    }
}
