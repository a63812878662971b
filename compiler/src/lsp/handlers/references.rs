//! `textDocument/references`: every place the name at the cursor is used.

use lsp_types as lt;

use super::super::query::{entity_at, file_and_offset, name_in, Entity};
use super::super::server::{Failure, Server};
use super::super::Snapshot;
use super::definition::declaration_of;
use crate::source::FileId;
use crate::span::Span;

/// Find references: every place the name at the cursor is used.
pub fn references(
    snap: &Snapshot,
    uri: &str,
    pos: lt::Position,
    include_declaration: bool,
) -> Vec<lt::Location> {
    let Some((file, at)) = file_and_offset(snap, uri, pos) else {
        return Vec::new();
    };
    let Some(e) = entity_at(snap, file, at) else {
        return Vec::new();
    };
    let program = &snap.outcome.program;
    let mut spans: Vec<(FileId, Span)> = Vec::new();
    match e {
        Entity::Decl(i) => {
            let name = &program.decls[i].name;
            for p in &program.pipelines {
                for t in &p.tasks {
                    let locs = t
                        .reads
                        .iter()
                        .filter(|r| r.decl == i)
                        .map(|r| r.loc)
                        .chain(t.writes.iter().filter(|w| w.decl == i).map(|w| w.loc))
                        .chain(t.emits.iter().filter(|w| w.decl == i).map(|w| w.loc));
                    for l in locs {
                        if let Some(sp) = name_in(snap.text(l.file), l.span, name) {
                            spans.push((l.file, sp));
                        }
                    }
                }
            }
        }
        Entity::Kind(i) => {
            for d in program.decls.iter().filter(|d| d.kind_idx == i) {
                spans.push((d.kind_loc.file, d.kind_loc.span));
            }
        }
        Entity::Task(p, t) => {
            let name = &program.pipelines[p].tasks[t].name;
            for task in &program.pipelines[p].tasks {
                for (n, l) in &task.after {
                    if n == name {
                        let sp = name_in(snap.text(l.file), l.span, name).unwrap_or(l.span);
                        spans.push((l.file, sp));
                    }
                }
            }
        }
    }
    let mut out: Vec<lt::Location> = Vec::new();
    if include_declaration {
        out.extend(declaration_of(snap, e));
    }
    out.extend(spans.into_iter().filter_map(|(f, s)| snap.location(f, s)));
    out
}

pub fn handle(
    s: &mut Server,
    p: lt::ReferenceParams,
) -> Result<Option<Vec<lt::Location>>, Failure> {
    let at = p.text_document_position;
    Ok(s.current().map(|snap| {
        references(
            &snap,
            at.text_document.uri.as_str(),
            at.position,
            p.context.include_declaration,
        )
    }))
}
