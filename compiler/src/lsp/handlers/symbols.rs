//! `textDocument/documentSymbol`: kinds, declarations, pipelines and
//! their tasks.

use lsp_types as lt;

use super::super::position::Lines;
use super::super::query::kind_name_span;
use super::super::server::{Failure, Server};
use super::super::Snapshot;

#[allow(deprecated)] // `DocumentSymbol::deprecated` has to be named
fn symbol(
    name: &str,
    detail: Option<String>,
    kind: lt::SymbolKind,
    range: lt::Range,
    selection: lt::Range,
    children: Option<Vec<lt::DocumentSymbol>>,
) -> lt::DocumentSymbol {
    lt::DocumentSymbol {
        name: if name.is_empty() {
            "?".into()
        } else {
            name.into()
        },
        detail,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range: selection,
        children,
    }
}

/// Document symbols: kinds, declarations, pipelines and their tasks.
pub fn symbols(snap: &Snapshot, uri: &str) -> Vec<lt::DocumentSymbol> {
    let Some(&file) = snap.file_of.get(uri) else {
        return Vec::new();
    };
    let lines = Lines::new(snap.text(file));
    let program = &snap.outcome.program;
    let mut out: Vec<(usize, lt::DocumentSymbol)> = Vec::new();
    for k in program.kinds.iter().filter(|k| k.loc.file == file) {
        let r = lines.range(k.loc.span);
        let sel = lines.range(kind_name_span(snap, k));
        out.push((
            k.loc.span.start,
            symbol(
                &k.name,
                Some("kind".into()),
                lt::SymbolKind::CLASS,
                r,
                sel,
                None,
            ),
        ));
    }
    for d in program.decls.iter().filter(|d| d.loc.file == file) {
        out.push((
            d.loc.span.start,
            symbol(
                &d.name,
                Some(format!("{}: {}", d.role.word(), d.kind)),
                lt::SymbolKind::VARIABLE,
                lines.range(d.loc.span),
                lines.range(d.name_loc.span),
                None,
            ),
        ));
    }
    for p in program.pipelines.iter().filter(|p| p.loc.file == file) {
        let tasks = p
            .tasks
            .iter()
            .map(|t| {
                symbol(
                    &t.name,
                    Some("task".into()),
                    lt::SymbolKind::FUNCTION,
                    lines.range(t.loc.span),
                    lines.range(t.name_loc.span),
                    None,
                )
            })
            .collect();
        out.push((
            p.loc.span.start,
            symbol(
                &p.name,
                Some("pipeline".into()),
                lt::SymbolKind::MODULE,
                lines.range(p.loc.span),
                lines.range(p.name_loc.span),
                Some(tasks),
            ),
        ));
    }
    out.sort_by_key(|(at, _)| *at);
    out.into_iter().map(|(_, s)| s).collect()
}

pub fn handle(
    s: &mut Server,
    p: lt::DocumentSymbolParams,
) -> Result<Option<lt::DocumentSymbolResponse>, Failure> {
    Ok(s.current().map(|snap| {
        lt::DocumentSymbolResponse::Nested(symbols(&snap, p.text_document.uri.as_str()))
    }))
}
