//! `textDocument/inlayHint`: each output's guarantee at the end of its line.

use lsp_types as lt;

use super::super::position::Lines;
use super::super::server::{Failure, Server};
use super::super::Snapshot;

/// Inlay hints: each output's guarantee at the end of its line.
pub fn inlay_hints(snap: &Snapshot, uri: &str, range: lt::Range) -> Vec<lt::InlayHint> {
    let Some(&file) = snap.file_of.get(uri) else {
        return Vec::new();
    };
    let text = snap.text(file);
    let lines = Lines::new(text);
    let (from, to) = (lines.offset(range.start), lines.offset(range.end));
    snap.outcome
        .analysis
        .pipelines
        .iter()
        .flat_map(|p| p.tasks.iter())
        .flat_map(|t| t.outputs.iter())
        .filter(|o| o.loc.file == file && o.loc.span.start >= from && o.loc.span.start <= to)
        .map(|o| {
            let start = o.loc.span.start.min(text.len());
            let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
            let end = if text[..end].ends_with('\r') {
                end - 1
            } else {
                end
            };
            lt::InlayHint {
                position: lines.position(end),
                label: lt::InlayHintLabel::String(format!("⇒ {}", o.guarantee.word())),
                kind: None,
                text_edits: None,
                tooltip: Some(lt::InlayHintTooltip::String(format!(
                    "derived guarantee of `{}`; required: {}",
                    o.target,
                    o.required.word()
                ))),
                padding_left: Some(true),
                padding_right: None,
                data: None,
            }
        })
        .collect()
}

pub fn handle(
    s: &mut Server,
    p: lt::InlayHintParams,
) -> Result<Option<Vec<lt::InlayHint>>, Failure> {
    Ok(s.current()
        .map(|snap| inlay_hints(&snap, p.text_document.uri.as_str(), p.range)))
}
