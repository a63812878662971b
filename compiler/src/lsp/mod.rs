//! `flowc lsp`: a language server (LSP 3.17 over stdio) on the compiler
//! core. Every answer comes from one [`crate::check::check`] of the open
//! documents, the same run `flowc check` makes, so the editor shows the
//! findings, guarantees and names the command line shows.
//!
//! Synchronous: one thread answers requests in order, between a reader and
//! a writer thread ([`transport`]). Edits are coalesced: after a change,
//! every message already read is taken first, and the open files are
//! checked once when none is waiting (or after `debounceMs`, an
//! initialization option, of quiet); a check publishes only the findings
//! of documents edited since or whose findings changed.
//!
//! - [`transport`]: the protocol's framing on stdio, bounded.
//! - [`server`]: the state, the loop, and the typed dispatch.
//! - [`handlers`]: one file per request (hover, definition, references,
//!   completion, formatting, symbols, inlay hints, code actions) and the
//!   document notifications.
//! - [`query`]: what stands at a position; [`words`]: the language's words
//!   completion and hover offer; [`diagnostics`]: findings as diagnostics,
//!   with their fix as typed data.
//! - [`position`]: byte offsets to UTF-16 positions and back.
//! - [`uri`]: `file:` URIs to paths and back.

pub mod diagnostics;
pub mod handlers;
pub mod position;
pub mod query;
pub mod server;
#[cfg(test)]
mod tests;
pub mod transport;
pub mod uri;
pub mod words;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use lsp_server::Connection;
use lsp_types as lt;
use lsp_types::Uri;

use crate::check::Outcome;
use crate::source::FileId;
use position::Lines;
use server::Server;

/// What the command line hands the server.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// A folder holding a copy of each standard-library file (read-only),
    /// for "go to definition" on a stdlib kind; `None`: no such links.
    pub stdlib_dir: Option<PathBuf>,
    /// Whether the reader holds bytes of a message not yet handed over
    /// (from [`transport::stdio`]); `None`: only the queue counts.
    pub pending: Option<transport::Pending>,
    /// Say on stderr at exit how many checks and publishes were made.
    pub log_counts: bool,
}

/// One check of the open documents, and how its files map to URIs.
pub struct Snapshot {
    pub outcome: Outcome,
    /// Open document (URI text) to its file in `outcome`.
    pub file_of: BTreeMap<String, FileId>,
    /// Every file of `outcome` that has a URI.
    pub uri_of: BTreeMap<FileId, Uri>,
}

impl Snapshot {
    pub fn text(&self, file: FileId) -> &str {
        self.outcome.sources.text(file)
    }

    pub fn location(&self, file: FileId, span: crate::span::Span) -> Option<lt::Location> {
        let uri = self.uri_of.get(&file)?.clone();
        let range = Lines::new(self.text(file)).range(span);
        Some(lt::Location { uri, range })
    }
}

/// The server's capabilities: what `initialize` answers.
pub fn capabilities() -> lt::ServerCapabilities {
    lt::ServerCapabilities {
        position_encoding: Some(lt::PositionEncodingKind::UTF16),
        text_document_sync: Some(lt::TextDocumentSyncCapability::Options(
            lt::TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(lt::TextDocumentSyncKind::INCREMENTAL),
                save: Some(lt::TextDocumentSyncSaveOptions::Supported(true)),
                ..lt::TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(lt::HoverProviderCapability::Simple(true)),
        definition_provider: Some(lt::OneOf::Left(true)),
        references_provider: Some(lt::OneOf::Left(true)),
        completion_provider: Some(lt::CompletionOptions {
            trigger_characters: Some(vec![".".into(), ":".into(), " ".into()]),
            ..lt::CompletionOptions::default()
        }),
        document_formatting_provider: Some(lt::OneOf::Left(true)),
        document_symbol_provider: Some(lt::OneOf::Left(true)),
        code_action_provider: Some(lt::CodeActionProviderCapability::Options(
            lt::CodeActionOptions {
                code_action_kinds: Some(vec![lt::CodeActionKind::QUICKFIX]),
                ..lt::CodeActionOptions::default()
            },
        )),
        inlay_hint_provider: Some(lt::OneOf::Left(true)),
        ..lt::ServerCapabilities::default()
    }
}

/// Serve one client on `conn` until it sends `exit` (or the stream closes).
pub fn serve(conn: Connection, options: Options) -> Result<(), String> {
    let (id, params) = conn.initialize_start().map_err(|e| e.to_string())?;
    let debounce = params
        .get("initializationOptions")
        .and_then(|o| o.get("debounceMs"))
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0);
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": { "name": "flowc", "version": env!("CARGO_PKG_VERSION") },
    });
    // The answer; `initialized` is not waited for (a client that sends
    // something else first is served all the same).
    conn.sender
        .send(lsp_server::Response::new_ok(id, result).into())
        .map_err(|e| e.to_string())?;
    let debounce = Duration::from_millis(debounce.min(10_000));
    Server::new(conn, options, debounce).run()
}
