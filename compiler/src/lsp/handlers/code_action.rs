//! `textDocument/codeAction`: quick fixes, each the fix a finding carries
//! as typed data ([`DiagnosticData`]: the edits of `flowc check --fix`).
//! A diagnostic without such data (another server's, or one this server
//! did not publish) offers none.

use lsp_types as lt;
use lsp_types::Uri;

use super::super::diagnostics::DiagnosticData;
use super::super::position::Lines;
use super::super::query::is_word;
use super::super::server::{Failure, Server};

/// The quick fixes for `diagnostics` of the document `text` at `uri`.
// `WorkspaceEdit::changes` is keyed by `Uri`, which clippy thinks mutable.
#[allow(clippy::mutable_key_type)]
pub fn code_actions(
    uri: &Uri,
    text: &str,
    diagnostics: &[lt::Diagnostic],
) -> Vec<lt::CodeActionOrCommand> {
    let lines = Lines::new(text);
    let mut out = Vec::new();
    for d in diagnostics {
        let Some(fix) = DiagnosticData::of(d).and_then(|data| data.fix) else {
            continue;
        };
        // One word replaced by another says both, as an editor's menu
        // shows it: "replace `ordres` with `orders`".
        let title = match fix.edits.as_slice() {
            [one] => text
                .get(lines.offset(one.range.start)..lines.offset(one.range.end))
                .filter(|old| !old.is_empty() && old.bytes().all(is_word))
                .filter(|_| !one.new_text.is_empty() && one.new_text.bytes().all(is_word))
                .map_or_else(
                    || fix.title.clone(),
                    |old| format!("replace `{old}` with `{}`", one.new_text),
                ),
            _ => fix.title.clone(),
        };
        out.push(quick_fix(uri, d, title, fix.edits));
    }
    out
}

/// The preferred quick fix for `d` that makes `edits` in `uri`.
// `WorkspaceEdit::changes` is keyed by `Uri`, which clippy thinks mutable.
#[allow(clippy::mutable_key_type)]
fn quick_fix(
    uri: &Uri,
    d: &lt::Diagnostic,
    title: String,
    edits: Vec<lt::TextEdit>,
) -> lt::CodeActionOrCommand {
    let mut changes = std::collections::HashMap::new();
    changes.insert(uri.clone(), edits);
    lt::CodeActionOrCommand::CodeAction(lt::CodeAction {
        title,
        kind: Some(lt::CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![d.clone()]),
        edit: Some(lt::WorkspaceEdit {
            changes: Some(changes),
            ..lt::WorkspaceEdit::default()
        }),
        is_preferred: Some(true),
        ..lt::CodeAction::default()
    })
}

pub fn handle(
    s: &mut Server,
    p: lt::CodeActionParams,
) -> Result<Option<lt::CodeActionResponse>, Failure> {
    Ok(s.text_of(p.text_document.uri.as_str())
        .map(|text| code_actions(&p.text_document.uri, text, &p.context.diagnostics)))
}
