//! Findings as the protocol's diagnostics, and the typed data each one
//! carries back to `codeAction` in `Diagnostic.data`.

use lsp_types as lt;
use serde::{Deserialize, Serialize};

use super::position::Lines;
use super::Snapshot;
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::FileId;

/// What a finding carries in `Diagnostic.data`: its help line and its fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticData {
    pub help: Option<String>,
    pub fix: Option<DiagnosticFix>,
}

/// A finding's fix: the edits `flowc check --fix` makes, in the finding's
/// own file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticFix {
    pub title: String,
    pub edits: Vec<lt::TextEdit>,
}

impl DiagnosticData {
    /// The data of a diagnostic this server published, if it is one.
    pub fn of(d: &lt::Diagnostic) -> Option<DiagnosticData> {
        if d.source.as_deref() != Some("flowc") {
            return None;
        }
        serde_json::from_value(d.data.clone()?).ok()
    }
}

/// The findings of `file`, as `check` reports them (suppressed ones left out).
pub fn diagnostics_of(snap: &Snapshot, file: FileId) -> Vec<lt::Diagnostic> {
    let lines = Lines::new(snap.text(file));
    snap.outcome
        .diagnostics
        .iter()
        .filter(|d| d.file == file && d.suppressed.is_none())
        .map(|d| to_lsp(snap, &lines, d))
        .collect()
}

fn to_lsp(snap: &Snapshot, lines: &Lines<'_>, d: &Diagnostic) -> lt::Diagnostic {
    let related: Vec<lt::DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .filter_map(|l| {
            Some(lt::DiagnosticRelatedInformation {
                location: snap.location(l.file, l.span)?,
                message: l.message.clone(),
            })
        })
        .collect();
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    lt::Diagnostic {
        range: lines.range(d.span),
        severity: Some(match d.severity {
            Severity::Error => lt::DiagnosticSeverity::ERROR,
            Severity::Warning => lt::DiagnosticSeverity::WARNING,
        }),
        code: Some(lt::NumberOrString::String(d.code.as_str().to_string())),
        code_description: None,
        source: Some("flowc".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: data(snap, lines, d).and_then(|v| serde_json::to_value(v).ok()),
    }
}

/// A finding's help and its fix as edits of its own file (a fix that
/// edits another file is left out).
fn data(snap: &Snapshot, lines: &Lines<'_>, d: &Diagnostic) -> Option<DiagnosticData> {
    let text = snap.text(d.file);
    let fix = d.fix.as_ref().and_then(|f| {
        let edits: Option<Vec<lt::TextEdit>> = f
            .edits
            .iter()
            .map(|e| {
                let (span, new_text) = crate::fix::resolve(text, e).filter(|_| e.file == d.file)?;
                Some(lt::TextEdit {
                    range: lines.range(span),
                    new_text,
                })
            })
            .collect();
        Some(DiagnosticFix {
            title: f.title.clone(),
            edits: edits?,
        })
    });
    (d.help.is_some() || fix.is_some()).then(|| DiagnosticData {
        help: d.help.clone(),
        fix,
    })
}
