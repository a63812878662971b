//! `--format json`: the versioned shape of RULES.md.

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
    m.insert("code".into(), json!(d.code));
    m.insert(
        "name".into(),
        json!(crate::rules::registry::lookup(d.code).map_or("", |r| r.name)),
    );
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
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}
