//! An audit's report for people, as the versioned JSON of docs/json.md, and
//! as SARIF 2.1.0 (one rule per [`Check`]).

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::verdict::{Report, Severity};
use super::Check;
use crate::diagnostic::human::escape_controls;
use crate::diagnostic::sarif::{uri, DOCS_SITE};

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// An example as one short line: `key=value, ...` of its fields.
fn example_line(v: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(o) = v.as_object() {
        for (k, x) in o {
            match x {
                Value::Object(inner) => {
                    for (ik, iv) in inner {
                        parts.push(format!("{ik}={}", scalar(iv)));
                    }
                }
                other => parts.push(format!("{k}={}", scalar(other))),
            }
        }
    } else {
        parts.push(scalar(v));
    }
    parts.join(", ")
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The human report: per pipeline and output, its findings, then what the
/// audit could not see or could not run, then one line of totals.
pub fn human(report: &Report) -> String {
    let mut out = String::new();
    for p in &report.pipelines {
        let window = match (&p.since, &p.until) {
            (Some(s), Some(u)) => format!(
                "{} from {s} to {u}, ended by {}",
                plural(p.intervals, "interval"),
                report.now
            ),
            _ => "manual: no intervals expected".to_owned(),
        };
        let _ = writeln!(
            out,
            "pipeline `{}` ({}): {window}",
            escape_controls(&p.name),
            escape_controls(&p.file)
        );
        let mut last: Option<(String, Option<String>)> = None;
        for f in report.findings.iter().filter(|f| f.pipeline == p.name) {
            let head = (f.task.clone(), f.output.clone().or_else(|| f.input.clone()));
            if last.as_ref() != Some(&head) {
                let what = match (&f.output, &f.input, f.guarantee) {
                    (Some(o), _, Some(g)) => format!("output `{}` ({g})", escape_controls(o)),
                    (_, Some(i), _) => format!("input `{}`", escape_controls(i)),
                    _ => "the task".to_owned(),
                };
                let _ = writeln!(out, "  task `{}`, {what}", escape_controls(&f.task));
                last = Some(head);
            }
            let _ = writeln!(
                out,
                "    {}[{}]: {}",
                f.severity.word(),
                f.check,
                escape_controls(&f.message)
            );
            if !f.why.is_empty() {
                let _ = writeln!(out, "      = {}", escape_controls(&f.why));
            }
            for e in &f.examples {
                let _ = writeln!(out, "      - {}", escape_controls(&example_line(e)));
            }
        }
    }
    if !report.not_observable.is_empty() {
        let _ = writeln!(out, "not observable:");
        for u in &report.not_observable {
            let at = [&u.pipeline, &u.task, &u.output]
                .iter()
                .filter_map(|x| x.as_deref())
                .collect::<Vec<_>>()
                .join(".");
            let _ = writeln!(
                out,
                "  {}: {}",
                escape_controls(&at),
                escape_controls(&u.what)
            );
        }
    }
    for e in &report.could_not_run {
        let at = [&e.pipeline, &e.task, &e.output]
            .iter()
            .filter_map(|x| x.as_deref())
            .collect::<Vec<_>>()
            .join(".");
        let at = if at.is_empty() {
            String::new()
        } else {
            format!("{}: ", escape_controls(&at))
        };
        let _ = writeln!(
            out,
            "error: could not audit {at}{}",
            escape_controls(&e.message)
        );
    }
    let s = &report.summary;
    let verdict = match report.exit_code() {
        2 => "the audit could not run every check",
        1 => "an output broke its guarantee",
        _ => "every output within its guarantee",
    };
    let _ = writeln!(
        out,
        "audit: {}, {}, {}, {} could not run: {verdict}",
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.notes, "note"),
        s.could_not_run
    );
    out
}

/// The versioned JSON of docs/json.md.
pub fn json(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(report).unwrap_or_default();
    s.push('\n');
    s
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// SARIF 2.1.0: one rule per check, one result per finding, located at the
/// `.flow` file that declares the pipeline (logical location
/// `pipeline.task.output`); a check that could not run is a tool
/// execution notification, and the run then reports `executionSuccessful: false`.
pub fn sarif(report: &Report) -> String {
    let rules: Vec<Value> = Check::ALL
        .iter()
        .map(|c| {
            json!({
                "id": c.id(),
                "name": c.id(),
                "shortDescription": { "text": c.summary() },
                "helpUri": format!("{DOCS_SITE}audit.html#{}", c.id()),
            })
        })
        .collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            let index = Check::ALL
                .iter()
                .position(|c| c.id() == f.check)
                .unwrap_or(0);
            let name = [Some(&f.pipeline), Some(&f.task), f.output.as_ref().or(f.input.as_ref())]
                .into_iter()
                .flatten()
                .cloned()
                .collect::<Vec<_>>()
                .join(".");
            let mut text = f.message.clone();
            if !f.why.is_empty() {
                text.push_str(" (");
                text.push_str(&f.why);
                text.push(')');
            }
            let mut physical = json!({ "artifactLocation": { "uri": uri(&f.file) } });
            if let (Some(line), Some(column)) = (f.line, f.column) {
                physical["region"] = json!({ "startLine": line, "startColumn": column });
            }
            json!({
                "ruleId": f.check,
                "ruleIndex": index,
                "level": level(f.severity),
                "message": { "text": text },
                "locations": [{
                    "physicalLocation": physical,
                    "logicalLocations": [{ "fullyQualifiedName": name }],
                }],
                "properties": { "count": f.count, "guarantee": f.guarantee, "examples": f.examples },
            })
        })
        .collect();
    let notifications: Vec<Value> = report
        .could_not_run
        .iter()
        .map(|e| json!({ "level": "error", "message": { "text": e.message } }))
        .collect();
    let v = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "flowc audit",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": format!("{DOCS_SITE}audit.html"),
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": report.could_not_run.is_empty(),
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }]
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}
