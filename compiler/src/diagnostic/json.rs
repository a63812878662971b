//! `--format json`: the versioned shape of docs/json.md.

use std::fmt::Write as _;

use serde_json::{json, Map, Value};

use super::{Diagnostic, Summary};
use crate::source::SourceMap;

pub fn diagnostic(sources: &SourceMap, d: &Diagnostic) -> Value {
    let labels: Vec<Value> = d
        .labels
        .iter()
        .map(|l| {
            let mut m = Map::new();
            m.insert("message".into(), json!(l.message));
            m.insert("span".into(), json!(sources.locate(l.file, l.span)));
            if l.file != d.file {
                // Only for labels in another file (an import): the path they refer to.
                m.insert("file".into(), json!(sources.path(l.file)));
            }
            Value::Object(m)
        })
        .collect();
    let mut m = Map::new();
    m.insert("code".into(), json!(d.code.as_str()));
    m.insert("name".into(), json!(d.code.name()));
    m.insert("severity".into(), json!(d.severity.word()));
    m.insert("message".into(), json!(d.message));
    m.insert("file".into(), json!(sources.path(d.file)));
    m.insert("span".into(), json!(sources.locate(d.file, d.span)));
    m.insert("labels".into(), Value::Array(labels));
    m.insert("help".into(), json!(d.help));
    if let Some(reason) = &d.suppressed {
        m.insert("suppressed".into(), json!({ "reason": reason }));
    }
    Value::Object(m)
}

pub fn render(sources: &SourceMap, diags: &[Diagnostic], summary: Summary) -> String {
    let mut v = json!({
        "version": 1,
        "diagnostics": diags.iter().map(|d| diagnostic(sources, d)).collect::<Vec<_>>(),
        "summary": { "files": summary.files, "errors": summary.errors, "warnings": summary.warnings },
    });
    if summary.omitted > 0 {
        v["summary"]["omitted"] = json!(summary.omitted);
    }
    to_text(&v)
}

/// Pretty JSON text, one newline at the end. serde escapes C0 controls;
/// this also escapes the other characters a terminal would act on (DEL, C1
/// controls, bidi marks: [`super::human::is_escaped`]) as `\uXXXX`, which
/// decodes to the same string. They can only occur inside strings, where
/// such an escape is valid.
pub fn to_text(v: &Value) -> String {
    let s = serde_json::to_string_pretty(v).unwrap_or_default();
    let mut out = String::with_capacity(s.len() + 1);
    for c in s.chars() {
        if super::human::is_escaped(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_controls_are_escaped_and_decode_back() {
        let v = json!({ "m": "\u{1b}[2J\u{7f}\u{9b}\u{202e}é\n" });
        let text = to_text(&v);
        assert!(!text.chars().any(crate::diagnostic::human::is_escaped));
        assert!(text.contains(r"\u001b[2J\u007f\u009b\u202eé\n"), "{text}");
        assert_eq!(serde_json::from_str::<Value>(&text).expect("json"), v);
    }
}
