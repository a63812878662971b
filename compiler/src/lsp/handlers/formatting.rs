//! `textDocument/formatting`: `flowc fmt`.

use lsp_types as lt;

use super::super::position::Lines;
use super::super::server::{Failure, Server};

/// `flowc fmt` as one edit of the whole document (none when it is formatted).
pub fn formatting(text: &str) -> Result<Vec<lt::TextEdit>, String> {
    let formatted = crate::format::format_file(text).map_err(|e| {
        format!(
            "cannot format: {} (line {}, column {})",
            e.kind, e.line, e.column
        )
    })?;
    if formatted == text {
        return Ok(Vec::new());
    }
    let lines = Lines::new(text);
    Ok(vec![lt::TextEdit {
        range: lt::Range::new(lt::Position::new(0, 0), lines.position(text.len())),
        new_text: formatted,
    }])
}

pub fn handle(
    s: &mut Server,
    p: lt::DocumentFormattingParams,
) -> Result<Option<Vec<lt::TextEdit>>, Failure> {
    let Some(text) = s.text_of(p.text_document.uri.as_str()) else {
        return Ok(None);
    };
    formatting(text).map(Some).map_err(Failure::failed)
}
