//! `textDocument/completion`: what may stand at the cursor, from where the
//! cursor is in the syntax ([`Query::at`]) and the names of the latest
//! check in which the document parsed.

use lsp_types as lt;

use super::super::position::Lines;
use super::super::query::{decl_named, kind_of_decl, Piece, Query};
use super::super::server::{Failure, Server};
use super::super::words::{words, Place, Word};
use super::super::Snapshot;
use crate::analyze::model::{DeclDef, Role};
use crate::diagnostic::Code;
use crate::source::FileId;
use crate::vocab::Mode;

use lt::CompletionItemKind as K;

fn item(label: &str, kind: lt::CompletionItemKind, detail: Option<String>) -> lt::CompletionItem {
    lt::CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail,
        ..lt::CompletionItem::default()
    }
}

/// A word of the language: its kind of word as the detail, and the
/// catalog's summary and value shape as the documentation.
fn word_item(w: &Word, kind: lt::CompletionItemKind) -> lt::CompletionItem {
    let mut it = item(w.name, kind, w.detail.map(str::to_string));
    if let Some(summary) = w.summary {
        let usage = w
            .usage
            .map(|u| format!("\n\nValue: {u}"))
            .unwrap_or_default();
        it.documentation = Some(lt::Documentation::MarkupContent(lt::MarkupContent {
            kind: lt::MarkupKind::Markdown,
            value: format!("{summary}{usage}"),
        }));
    }
    it
}

/// A declared source, sink or effect as a completion: its name, with its role and kind.
fn decl_item(d: &DeclDef) -> lt::CompletionItem {
    item(
        &d.name,
        K::VARIABLE,
        Some(format!("{}: {}", d.role.word(), d.kind)),
    )
}

fn role_of_verb(verb: &str) -> Option<Role> {
    match verb {
        "read" => Some(Role::Source),
        "write" => Some(Role::Sink),
        "emit" => Some(Role::Effect),
        _ => None,
    }
}

fn role_of_decl(word: &str) -> Option<Role> {
    match word {
        "source" => Some(Role::Source),
        "sink" => Some(Role::Sink),
        "effect" => Some(Role::Effect),
        _ => None,
    }
}

/// Completion at `pos` of `text` (the document as the editor has it now);
/// names come from `snap`, the latest check in which the document parsed.
pub fn completion(
    snap: &Snapshot,
    uri: &str,
    text: &str,
    pos: lt::Position,
) -> Vec<lt::CompletionItem> {
    let at = Lines::new(text).offset(pos);
    let q = Query::at(text, at);
    if q.inert {
        return Vec::new();
    }
    let program = &snap.outcome.program;
    let file = snap.file_of.get(uri).copied().unwrap_or(FileId(usize::MAX));
    let words_done = q.words();
    let first = words_done.first().copied();

    if first == Some("allow") {
        return Code::ALL
            .iter()
            .map(|c| item(c.as_str(), K::CONSTANT, Some(c.summary().to_string())))
            .collect();
    }
    if q.after_output_dot() {
        return fields_for(snap, file, q.task());
    }
    // `source NAME: KIND`
    if let Some(role) = first.and_then(role_of_decl) {
        let colon = q.done.iter().position(|p| *p == Piece::Punct(b':'));
        if colon.is_some_and(|i| i + 1 == q.done.len()) {
            return program
                .kinds
                .iter()
                .filter(|k| k.roles.contains(&role))
                .map(|k| {
                    item(
                        &k.name,
                        K::CLASS,
                        Some(format!("kind for a {}", role.word())),
                    )
                })
                .collect();
        }
    }
    match words_done.as_slice() {
        ["write", name] => {
            if let Some(k) = kind_of_decl(snap, file, name) {
                return Mode::ALL
                    .iter()
                    .filter(|(_, m)| k.writes.contains(m.capability()))
                    .map(|(_, m)| item(m.source(), K::ENUM_MEMBER, Some("write mode".into())))
                    .collect();
            }
        }
        ["read", name] => {
            let mut out = vec![item("pinned", K::KEYWORD, None)];
            if kind_of_decl(snap, file, name)
                .is_some_and(|k| k.pins.contains(&crate::vocab::Pin::Cursor))
            {
                out.push(item(
                    "cursor",
                    K::KEYWORD,
                    Some("an incremental read by the source's cursor".into()),
                ));
            }
            return out;
        }
        ["read", _, "cursor", ..] => {
            return vec![
                item(
                    "lookback",
                    K::KEYWORD,
                    Some("how far behind the bookmark to read again".into()),
                ),
                item(
                    "inclusive",
                    K::KEYWORD,
                    Some("read the bookmark's own value again".into()),
                ),
            ]
        }
        ["write", _, "upsert"] => {
            return vec![item(
                "newest by",
                K::KEYWORD,
                Some("replace a row only with a greater version".into()),
            )]
        }
        ["write", _, "conditional_commit"] => {
            return vec![item(
                "txn",
                K::KEYWORD,
                Some("the id the committer deduplicates on".into()),
            )]
        }
        ["read", name, "pinned"] => {
            if let Some(k) = kind_of_decl(snap, file, name) {
                return k
                    .pins
                    .iter()
                    .map(|p| item(p.word(), K::ENUM_MEMBER, Some("pin".into())))
                    .collect();
            }
        }
        [verb] if role_of_verb(verb).is_some() => {
            let role = role_of_verb(verb);
            return program
                .decls
                .iter()
                .filter(|d| Some(d.role) == role)
                .map(decl_item)
                .collect();
        }
        ["after", ..] => {
            let pipeline = q.pipeline().and_then(|name| {
                program
                    .pipelines
                    .iter()
                    .find(|p| p.name == name && p.loc.file == file)
                    .or_else(|| program.pipelines.iter().find(|p| p.name == name))
            });
            if let Some(p) = pipeline {
                return p
                    .tasks
                    .iter()
                    .map(|t| item(&t.name, K::FUNCTION, Some("task".into())))
                    .collect();
            }
        }
        [] => {
            // The first word of a line inside a declaration: its
            // properties and its kind's parameters.
            if let Some((role, name, kind)) = q.decl() {
                let mut out: Vec<lt::CompletionItem> = words(Place::Decl(role))
                    .iter()
                    .map(|w| word_item(w, K::PROPERTY))
                    .collect();
                let kind = program.kinds.iter().find(|k| k.name == kind).or_else(|| {
                    decl_named(snap, file, name)
                        .and_then(|i| program.kinds.get(program.decls[i].kind_idx))
                });
                if let Some(k) = kind {
                    out.extend(k.params.iter().map(|p| {
                        item(
                            &p.name,
                            K::FIELD,
                            Some(format!(
                                "parameter of `{}`: {}{}",
                                k.name,
                                p.ty.word(),
                                if p.optional { "?" } else { "" }
                            )),
                        )
                    }));
                }
                return out;
            }
            // The first word of a line in a pipeline, a task or a kind:
            // its settings (from the catalog) and statements.
            if let Some(place @ (Place::Pipeline | Place::Task | Place::Kind)) = q.line_start() {
                return words(place)
                    .iter()
                    .map(|w| {
                        let kind = if w.summary.is_some() {
                            K::PROPERTY
                        } else {
                            K::KEYWORD
                        };
                        word_item(w, kind)
                    })
                    .collect();
            }
        }
        _ => {}
    }
    // Anything else: the declared names and the top-level words.
    let mut out: Vec<lt::CompletionItem> = program
        .decls
        .iter()
        .filter(|d| !d.name.is_empty())
        .map(decl_item)
        .collect();
    out.extend(
        words(Place::Top)
            .into_iter()
            .map(|w| item(w.name, K::KEYWORD, w.detail.map(str::to_string))),
    );
    out
}

/// `output.` fields: from the `fields` lines of what the task `task`
/// reads and writes (every declaration's when no task holds the cursor).
fn fields_for(snap: &Snapshot, file: FileId, task: Option<&str>) -> Vec<lt::CompletionItem> {
    let program = &snap.outcome.program;
    // The snapshot may be of an older text: the task is found by name.
    let task = task.and_then(|name| {
        program
            .pipelines
            .iter()
            .flat_map(|p| p.tasks.iter())
            .find(|t| t.loc.file == file && t.name == name)
    });
    let decls: Vec<usize> = match task {
        Some(t) => t
            .reads
            .iter()
            .map(|r| r.decl)
            .chain(t.writes.iter().map(|w| w.decl))
            .collect(),
        None => (0..program.decls.len()).collect(),
    };
    let mut seen = std::collections::BTreeSet::new();
    decls
        .into_iter()
        .filter_map(|i| program.decls.get(i))
        .flat_map(|d| {
            d.fields
                .iter()
                .flatten()
                .map(move |f| (f.clone(), d.name.clone()))
        })
        .filter(|(f, _)| seen.insert(f.clone()))
        .map(|(f, d)| item(&f, K::FIELD, Some(format!("field of `{d}`"))))
        .collect()
}

pub fn handle(
    s: &mut Server,
    p: lt::CompletionParams,
) -> Result<Option<lt::CompletionResponse>, Failure> {
    let at = p.text_document_position;
    let key = at.text_document.uri.as_str();
    let snap = s.parsed_or_current(key);
    let items = match (snap, s.text_of(key)) {
        (Some(snap), Some(text)) => completion(&snap, key, text, at.position),
        _ => Vec::new(),
    };
    Ok(Some(lt::CompletionResponse::Array(items)))
}
