//! `textDocument/definition`: a source, sink, effect, kind, task in
//! `after`, or a `use` path.

use lsp_types as lt;

use super::super::query::{entity_at, file_and_offset, kind_name_span, Entity};
use super::super::server::{Failure, Server};
use super::super::Snapshot;
use crate::source::FileId;
use crate::span::Span;

fn use_at(text: &str, at: usize) -> Option<String> {
    let (ast, _) = crate::syntax::parse(FileId(0), text);
    ast?.items.into_iter().find_map(|i| match i {
        crate::syntax::ast::Item::Use(u) if u.span.start <= at && at <= u.span.end => {
            Some(u.path.value)
        }
        _ => None,
    })
}

pub(super) fn declaration_of(snap: &Snapshot, e: Entity) -> Option<lt::Location> {
    let program = &snap.outcome.program;
    match e {
        Entity::Decl(i) => {
            let d = &program.decls[i];
            snap.location(d.name_loc.file, d.name_loc.span)
        }
        Entity::Kind(i) => {
            let k = &program.kinds[i];
            snap.location(k.loc.file, kind_name_span(snap, k))
        }
        Entity::Task(p, t) => {
            let l = &program.pipelines[p].tasks[t].name_loc;
            snap.location(l.file, l.span)
        }
    }
}

/// Go to definition: a source, sink, effect, kind, task in `after`, or `use` path.
pub fn definition(
    snap: &Snapshot,
    uri: &str,
    pos: lt::Position,
) -> Option<lt::GotoDefinitionResponse> {
    let (file, at) = file_and_offset(snap, uri, pos)?;
    if let Some(rel) = use_at(snap.text(file), at) {
        let here = std::path::Path::new(snap.outcome.sources.path(file));
        let wanted = crate::io::read::normalize(&here.parent()?.join(rel));
        let wanted = wanted.to_string_lossy();
        let target = (0..snap.outcome.sources.len())
            .map(FileId)
            .find(|f| snap.outcome.sources.path(*f) == wanted)?;
        let loc = snap.location(target, Span::new(0, 0))?;
        return Some(lt::GotoDefinitionResponse::Scalar(loc));
    }
    let e = entity_at(snap, file, at)?;
    declaration_of(snap, e).map(lt::GotoDefinitionResponse::Scalar)
}

pub fn handle(
    s: &mut Server,
    p: lt::GotoDefinitionParams,
) -> Result<Option<lt::GotoDefinitionResponse>, Failure> {
    let at = p.text_document_position_params;
    Ok(s.current()
        .and_then(|snap| definition(&snap, at.text_document.uri.as_str(), at.position)))
}
