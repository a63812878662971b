//! `flowc lsp`: a language server (LSP 3.17 over stdio) on the compiler
//! core. Every answer comes from one [`crate::check::check`] of the open
//! documents, the same run `flowc check` makes, so the editor shows the
//! findings, guarantees and names the command line shows.
//!
//! Synchronous: one thread reads requests and answers them in order
//! (`lsp-server` owns the stdio threads). Edits are coalesced: after a
//! change, every message already queued is taken first, and the open files
//! are checked once when the queue is empty (or after `debounceMs`, an
//! initialization option, of quiet).
//!
//! - [`position`]: byte offsets to UTF-16 positions and back.
//! - [`uri`]: `file:` URIs to paths and back.
//! - [`features`]: hover, definition, references, completion, symbols,
//!   inlay hints, code actions.

pub mod features;
pub mod position;
#[cfg(test)]
mod tests;
pub mod uri;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::str::FromStr as _;
use std::time::{Duration, Instant};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types as lt;
use lsp_types::Uri;

use crate::check::{Input, Loader, Outcome};
use crate::diagnostic::{Diagnostic, Severity};
use crate::io::read::FsLoader;
use crate::source::FileId;
use position::Lines;

/// What the command line hands the server.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// A folder holding a copy of each standard-library file (read-only),
    /// for "go to definition" on a stdlib kind; `None`: no such links.
    pub stdlib_dir: Option<PathBuf>,
}

/// One open document.
struct Doc {
    uri: Uri,
    text: String,
    version: i32,
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

/// Reads `use`d files from disk, but an open document's text from the editor.
struct Overlay<'a> {
    fs: &'a FsLoader,
    open: &'a BTreeMap<String, String>,
}

impl Loader for Overlay<'_> {
    fn load(&self, from: &str, rel: &str) -> Result<Input, String> {
        let mut input = self.fs.load(from, rel)?;
        if let Some(text) = self.open.get(&input.key) {
            input.bytes = text.clone().into_bytes();
        }
        Ok(input)
    }
}

struct Server {
    conn: Connection,
    options: Options,
    docs: BTreeMap<String, Doc>,
    /// The latest check, and per document the latest one in which it parsed
    /// (for completion while a line is half typed).
    snapshot: Option<Rc<Snapshot>>,
    parsed: BTreeMap<String, Rc<Snapshot>>,
    dirty: bool,
    /// When the last edit came (for `debounceMs`).
    last_edit: Instant,
    debounce: Duration,
    /// Documents that were sent findings (to clear them when closed).
    published: BTreeSet<String>,
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
    conn.initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    let mut server = Server {
        conn,
        options,
        docs: BTreeMap::new(),
        snapshot: None,
        parsed: BTreeMap::new(),
        dirty: false,
        last_edit: Instant::now(),
        debounce: Duration::from_millis(debounce.min(10_000)),
        published: BTreeSet::new(),
    };
    server.run()
}

impl Server {
    fn run(&mut self) -> Result<(), String> {
        loop {
            let msg = if self.dirty {
                let wait = self.debounce.saturating_sub(self.last_edit.elapsed());
                match self.conn.receiver.recv_timeout(wait) {
                    Ok(m) => m,
                    Err(e) if e.is_timeout() => {
                        self.flush();
                        continue;
                    }
                    Err(_) => return Ok(()),
                }
            } else {
                match self.conn.receiver.recv() {
                    Ok(m) => m,
                    Err(_) => return Ok(()),
                }
            };
            match msg {
                Message::Request(req) => {
                    if self.conn.handle_shutdown(&req).map_err(|e| e.to_string())? {
                        return Ok(());
                    }
                    let resp = self.request(req);
                    self.send(Message::Response(resp));
                }
                Message::Notification(n) => self.notification(n),
                Message::Response(_) => {}
            }
        }
    }

    fn send(&self, msg: Message) {
        // The client went away: the read loop sees it next and stops.
        let _ = self.conn.sender.send(msg);
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            "textDocument/didOpen" => {
                if let Ok(p) = n.extract::<lt::DidOpenTextDocumentParams>("textDocument/didOpen") {
                    let d = p.text_document;
                    self.docs.insert(
                        d.uri.as_str().to_string(),
                        Doc {
                            uri: d.uri,
                            text: d.text,
                            version: d.version,
                        },
                    );
                    self.touch();
                }
            }
            "textDocument/didChange" => {
                if let Ok(p) =
                    n.extract::<lt::DidChangeTextDocumentParams>("textDocument/didChange")
                {
                    if let Some(doc) = self.docs.get_mut(p.text_document.uri.as_str()) {
                        for change in p.content_changes {
                            apply_change(&mut doc.text, change);
                        }
                        doc.version = p.text_document.version;
                        self.touch();
                    }
                }
            }
            "textDocument/didClose" => {
                if let Ok(p) = n.extract::<lt::DidCloseTextDocumentParams>("textDocument/didClose")
                {
                    let key = p.text_document.uri.as_str().to_string();
                    self.docs.remove(&key);
                    self.parsed.remove(&key);
                    self.touch();
                }
            }
            "textDocument/didSave" | "workspace/didChangeWatchedFiles" => self.touch(),
            _ => {}
        }
    }

    fn touch(&mut self) {
        self.dirty = true;
        self.last_edit = Instant::now();
    }

    /// Check the open documents now and publish their findings.
    fn flush(&mut self) {
        self.dirty = false;
        let Some(snap) = self.recheck() else {
            return;
        };
        let snap = Rc::new(snap);
        let mut now: BTreeSet<String> = BTreeSet::new();
        for (key, doc) in &self.docs {
            let Some(&file) = snap.file_of.get(key) else {
                continue;
            };
            if !snap.outcome.broken.contains(&file) {
                self.parsed.insert(key.clone(), Rc::clone(&snap));
            }
            let diagnostics = diagnostics_of(&snap, file);
            let params = lt::PublishDiagnosticsParams {
                uri: doc.uri.clone(),
                diagnostics,
                version: Some(doc.version),
            };
            self.send(Message::Notification(Notification::new(
                "textDocument/publishDiagnostics".into(),
                params,
            )));
            now.insert(key.clone());
        }
        for gone in self.published.difference(&now) {
            if let Ok(uri) = Uri::from_str(gone) {
                let params = lt::PublishDiagnosticsParams {
                    uri,
                    diagnostics: Vec::new(),
                    version: None,
                };
                self.send(Message::Notification(Notification::new(
                    "textDocument/publishDiagnostics".into(),
                    params,
                )));
            }
        }
        self.published = now;
        self.snapshot = Some(snap);
    }

    fn recheck(&self) -> Option<Snapshot> {
        let fs = FsLoader::new();
        let mut inputs = Vec::new();
        let mut key_of_doc: Vec<(String, String)> = Vec::new();
        for (k, doc) in &self.docs {
            let bytes = doc.text.clone().into_bytes();
            let input = match uri::to_path(&doc.uri) {
                Some(path) => match fs.read_root(Path::new(&path)) {
                    Ok(mut i) => {
                        i.bytes = bytes;
                        i
                    }
                    // Not on disk (yet): checked alone, its `use` unresolved.
                    Err(_) => Input {
                        key: path.clone(),
                        path,
                        bytes,
                    },
                },
                None => Input {
                    path: k.clone(),
                    key: k.clone(),
                    bytes,
                },
            };
            key_of_doc.push((k.clone(), input.path.clone()));
            inputs.push(input);
        }
        let open: BTreeMap<String, String> = inputs
            .iter()
            .map(|i| {
                (
                    i.key.clone(),
                    String::from_utf8_lossy(&i.bytes).into_owned(),
                )
            })
            .collect();
        let loader = Overlay {
            fs: &fs,
            open: &open,
        };
        // The configuration in force for each file, read afresh on every
        // check so an edit to `flowc.toml` shows at once; a broken one
        // leaves every finding as it is (and says so on stderr).
        let configs = crate::io::read::Configs::discover(&[]);
        // The core never panics on input; if it ever did, the server
        // stays up and keeps the findings it had.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::check::check_with(inputs, &loader, &configs)
        }))
        .ok()?;
        if let Some(e) = configs.problem() {
            eprintln!("flowc lsp: {e}");
        }
        let mut file_of = BTreeMap::new();
        let mut uri_of = BTreeMap::new();
        let by_path: BTreeMap<&str, &str> = key_of_doc
            .iter()
            .map(|(k, p)| (p.as_str(), k.as_str()))
            .collect();
        for i in 0..outcome.sources.len() {
            let file = FileId(i);
            let path = outcome.sources.path(file);
            if let Some(k) = by_path.get(path) {
                if let Some(doc) = self.docs.get(*k) {
                    file_of.entry((*k).to_string()).or_insert(file);
                    uri_of.insert(file, doc.uri.clone());
                    continue;
                }
            }
            let uri = if let Some(name) = path.strip_prefix("<stdlib>/") {
                self.options
                    .stdlib_dir
                    .as_ref()
                    .and_then(|d| uri::from_path(&d.join(name).to_string_lossy()))
            } else if path.starts_with('/') {
                uri::from_path(path)
            } else {
                None
            };
            if let Some(uri) = uri {
                uri_of.insert(file, uri);
            }
        }
        Some(Snapshot {
            outcome,
            file_of,
            uri_of,
        })
    }

    fn current(&mut self) -> Option<Rc<Snapshot>> {
        if self.dirty || self.snapshot.is_none() {
            self.flush();
        }
        self.snapshot.clone()
    }

    fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        match self.answer(req) {
            Ok(v) => Response::new_ok(id, v),
            Err((code, msg)) => Response::new_err(id, code as i32, msg),
        }
    }

    fn answer(&mut self, req: Request) -> Result<serde_json::Value, (ErrorCode, String)> {
        use features as f;
        let bad = |e: serde_json::Error| (ErrorCode::InvalidParams, e.to_string());
        let p = req.params;
        let ok = |v: serde_json::Result<serde_json::Value>| {
            v.map_err(|e| (ErrorCode::InternalError, e.to_string()))
        };
        match req.method.as_str() {
            "textDocument/hover" => {
                let p: lt::HoverParams = serde_json::from_value(p).map_err(bad)?;
                let at = p.text_document_position_params;
                let snap = self.current();
                ok(serde_json::to_value(snap.and_then(|s| {
                    f::hover(&s, at.text_document.uri.as_str(), at.position)
                })))
            }
            "textDocument/definition" => {
                let p: lt::GotoDefinitionParams = serde_json::from_value(p).map_err(bad)?;
                let at = p.text_document_position_params;
                let snap = self.current();
                ok(serde_json::to_value(snap.and_then(|s| {
                    f::definition(&s, at.text_document.uri.as_str(), at.position)
                })))
            }
            "textDocument/references" => {
                let p: lt::ReferenceParams = serde_json::from_value(p).map_err(bad)?;
                let at = p.text_document_position;
                let snap = self.current();
                ok(serde_json::to_value(snap.map(|s| {
                    f::references(
                        &s,
                        at.text_document.uri.as_str(),
                        at.position,
                        p.context.include_declaration,
                    )
                })))
            }
            "textDocument/completion" => {
                let p: lt::CompletionParams = serde_json::from_value(p).map_err(bad)?;
                let at = p.text_document_position;
                let key = at.text_document.uri.as_str().to_string();
                let snap = self.current();
                let good = self.parsed.get(&key).cloned().or(snap);
                let text = self.docs.get(&key).map(|d| d.text.clone());
                ok(serde_json::to_value(match (good, text) {
                    (Some(s), Some(t)) => f::completion(&s, &key, &t, at.position),
                    _ => Vec::new(),
                }))
            }
            "textDocument/formatting" => {
                let p: lt::DocumentFormattingParams = serde_json::from_value(p).map_err(bad)?;
                let Some(doc) = self.docs.get(p.text_document.uri.as_str()) else {
                    return Ok(serde_json::Value::Null);
                };
                match f::formatting(&doc.text) {
                    Ok(edits) => ok(serde_json::to_value(edits)),
                    Err(msg) => Err((ErrorCode::RequestFailed, msg)),
                }
            }
            "textDocument/documentSymbol" => {
                let p: lt::DocumentSymbolParams = serde_json::from_value(p).map_err(bad)?;
                let snap = self.current();
                ok(serde_json::to_value(
                    snap.map(|s| f::symbols(&s, p.text_document.uri.as_str())),
                ))
            }
            "textDocument/inlayHint" => {
                let p: lt::InlayHintParams = serde_json::from_value(p).map_err(bad)?;
                let snap = self.current();
                ok(serde_json::to_value(snap.map(|s| {
                    f::inlay_hints(&s, p.text_document.uri.as_str(), p.range)
                })))
            }
            "textDocument/codeAction" => {
                let p: lt::CodeActionParams = serde_json::from_value(p).map_err(bad)?;
                let key = p.text_document.uri.as_str().to_string();
                let text = self.docs.get(&key).map(|d| d.text.clone());
                ok(serde_json::to_value(text.map(|t| {
                    f::code_actions(&p.text_document.uri, &t, &p.context.diagnostics)
                })))
            }
            _ => Err((
                ErrorCode::MethodNotFound,
                format!("flowc lsp does not answer `{}`", req.method),
            )),
        }
    }
}

/// Apply one `didChange` edit; a range is in UTF-16 positions.
fn apply_change(text: &mut String, change: lt::TextDocumentContentChangeEvent) {
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

/// The findings of `file`, as `check` reports them (suppressed ones left out).
fn diagnostics_of(snap: &Snapshot, file: FileId) -> Vec<lt::Diagnostic> {
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
        data: data(snap, lines, d),
    }
}

/// What a finding carries back to `codeAction`: its help, and its fix as
/// the edits `flowc check --fix` makes (those in its own file).
fn data(snap: &Snapshot, lines: &Lines<'_>, d: &Diagnostic) -> Option<serde_json::Value> {
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
        Some(serde_json::json!({ "title": f.title, "edits": edits? }))
    });
    match (&d.help, fix) {
        (None, None) => None,
        (help, fix) => Some(serde_json::json!({ "help": help, "fix": fix })),
    }
}
