//! The document notifications: `didOpen`, `didChange`, `didClose`,
//! `didSave` and `workspace/didChangeWatchedFiles`. Each only records
//! what changed; the open documents are checked once the queue is empty
//! (see [`Server::run`]).

use lsp_types as lt;

use super::super::position::Lines;
use super::super::server::{Doc, Server};

pub fn did_open(s: &mut Server, p: lt::DidOpenTextDocumentParams) {
    let d = p.text_document;
    s.docs.insert(
        d.uri.as_str().to_string(),
        Doc {
            uri: d.uri,
            text: d.text,
            version: d.version,
        },
    );
    s.touch();
}

pub fn did_change(s: &mut Server, p: lt::DidChangeTextDocumentParams) {
    if let Some(doc) = s.docs.get_mut(p.text_document.uri.as_str()) {
        for change in p.content_changes {
            apply_change(&mut doc.text, change);
        }
        doc.version = p.text_document.version;
        s.touch();
    }
}

pub fn did_close(s: &mut Server, p: lt::DidCloseTextDocumentParams) {
    let key = p.text_document.uri.as_str().to_string();
    s.docs.remove(&key);
    s.parsed.remove(&key);
    s.touch();
}

pub fn did_save(s: &mut Server, _: lt::DidSaveTextDocumentParams) {
    s.touch();
}

pub fn did_change_watched_files(s: &mut Server, _: lt::DidChangeWatchedFilesParams) {
    s.touch();
}

/// Apply one `didChange` edit; a range is in UTF-16 positions.
pub fn apply_change(text: &mut String, change: lt::TextDocumentContentChangeEvent) {
    match change.range {
        None => *text = change.text,
        Some(r) => {
            let lines = Lines::new(text);
            let start = lines.offset(r.start);
            let end = lines.offset(r.end).max(start);
            text.replace_range(start..end, &change.text);
        }
    }
}
