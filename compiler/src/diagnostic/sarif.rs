//! `--format sarif`: SARIF 2.1.0, one `reportingDescriptor` per rule.

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::Code;
use super::{Diagnostic, Severity};
use crate::source::SourceMap;
use crate::span::Span;

/// The root of the published docs site, which `scripts/docs` builds from
/// `docs/` with mdBook: a rule's page is `rules/CODE.html` below it. A
/// build of flowc for a site published elsewhere sets `FLOWC_DOCS_URL` at
/// compile time (ending in `/`); the output never depends on the
/// environment flowc runs in.
pub const DOCS_SITE: &str = match option_env!("FLOWC_DOCS_URL") {
    Some(url) => url,
    None => "https://flowc.dev/",
};

/// The page of one rule on the docs site, as SARIF's `helpUri` gives it.
pub fn rule_page(code: Code) -> String {
    format!("{DOCS_SITE}rules/{}.html", code.as_str())
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// Per file, the code points before each line: SARIF's `charOffset` counts
/// code points (the run's `columnKind`), spans count bytes.
#[derive(Default)]
struct CodePoints(std::collections::HashMap<crate::source::FileId, Vec<usize>>);

impl CodePoints {
    /// Code points before `span.start`, and inside `span`.
    fn of(
        &mut self,
        sources: &SourceMap,
        file: crate::source::FileId,
        line: usize,
        column: usize,
        span: Span,
    ) -> (usize, usize) {
        let text = sources.text(file);
        let before_lines = self.0.entry(file).or_insert_with(|| {
            let mut total = 0;
            let mut starts = vec![0];
            for line in text.split_inclusive('\n') {
                total += line.chars().count();
                starts.push(total);
            }
            starts
        });
        let offset = before_lines.get(line - 1).copied().unwrap_or(0) + column - 1;
        let length = text
            .get(span.start.min(text.len())..span.end.min(text.len()))
            .map_or(span.len(), |t| t.chars().count());
        (offset, length)
    }
}

/// A display path as a SARIF `artifactLocation.uri`: every byte but an
/// RFC 3986 unreserved character or the `/` separator percent-encoded, so
/// that `#`, `?`, `%`, `:`, spaces and non-ASCII names keep pointing at the
/// file. An absolute path (`/x`, or `C:/x` on Windows) becomes a `file://` URI.
pub fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 8);
    let mut rest = path;
    let bytes = path.as_bytes();
    if path.starts_with('/') {
        out.push_str("file://");
    } else if bytes.len() > 2 && bytes[0].is_ascii_alphabetic() && &bytes[1..3] == b":/" {
        out.push_str("file:///");
        out.push_str(&path[..2]);
        rest = &path[2..];
    }
    for b in rest.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

fn location(
    sources: &SourceMap,
    points: &mut CodePoints,
    file: crate::source::FileId,
    span: Span,
    message: Option<&str>,
) -> Value {
    let start = sources.locate(file, span);
    let end = sources.locate(file, Span::new(span.end, span.end));
    let (char_offset, char_length) = points.of(sources, file, start.line, start.column, span);
    let mut loc = json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri(sources.path(file)) },
            "region": {
                "startLine": start.line,
                "startColumn": start.column,
                "endLine": end.line,
                "endColumn": end.column,
                "charOffset": char_offset,
                "charLength": char_length,
            }
        }
    });
    if let Some(m) = message {
        loc["message"] = json!({ "text": m });
    }
    loc
}

/// The SARIF log of `diags`; `omitted` findings that were not listed are
/// said in a notification of the run's invocation.
pub fn render(sources: &SourceMap, diags: &[Diagnostic], omitted: usize) -> String {
    let rules: Vec<Value> = Code::ALL
        .iter()
        .map(|r| {
            json!({
                "id": r.as_str(),
                "name": r.name(),
                "shortDescription": { "text": r.summary() },
                "fullDescription": { "text": r.summary() },
                "helpUri": rule_page(*r),
                "help": { "text": r.explain(), "markdown": r.explain() },
                "defaultConfiguration": { "level": level(r.severity()) },
            })
        })
        .collect();
    let mut points = CodePoints::default();
    let results: Vec<Value> = diags
        .iter()
        .map(|d| {
            let index = Code::ALL.iter().position(|r| *r == d.code).unwrap_or(0);
            let mut text = d.message.clone();
            if let Some(h) = &d.help {
                text.push_str("\nhelp: ");
                text.push_str(h);
            }
            let mut r = json!({
                "ruleId": d.code.as_str(),
                "ruleIndex": index,
                "level": level(d.severity),
                "message": { "text": text },
                "locations": [location(sources, &mut points, d.file, d.span, None)],
                "relatedLocations": d.labels.iter().enumerate().map(|(i, l)| {
                    let mut v = location(sources, &mut points, l.file, l.span, Some(&l.message));
                    v["id"] = json!(i);
                    v
                }).collect::<Vec<_>>(),
            });
            if let Some(reason) = &d.suppressed {
                r["suppressions"] = json!([{ "kind": "inSource", "justification": reason }]);
            }
            r
        })
        .collect();
    let mut v = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "flowc",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://flowc.dev/",
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    if omitted > 0 {
        v["runs"][0]["invocations"] = json!([{
            "executionSuccessful": true,
            "toolExecutionNotifications": [{
                "level": "warning",
                "message": { "text": format!(
                    "{omitted} more findings not listed: at most {} are listed per file",
                    super::MAX_FINDINGS_PER_FILE
                ) },
            }],
        }]);
        v["runs"][0]["properties"] = json!({ "omitted": omitted });
    }
    super::json::to_text(&v)
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn uris_encode_all_but_unreserved_characters_and_slashes() {
        assert_eq!(uri("a/b-c_d.~e.flow"), "a/b-c_d.~e.flow");
        assert_eq!(uri("a#1/q?x=%.flow"), "a%231/q%3Fx%3D%25.flow");
        assert_eq!(uri("c:d e/\u{e9}.flow"), "c%3Ad%20e/%C3%A9.flow");
        assert_eq!(uri("/tmp/x y.flow"), "file:///tmp/x%20y.flow");
        assert_eq!(uri("C:/a b.flow"), "file:///C:/a%20b.flow");
    }
}
