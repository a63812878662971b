//! The server's state and loop: the open documents, the latest check, and
//! the dispatch of each message, by its type in `lsp_types`, to its
//! handler in [`super::handlers`].

use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;
use std::str::FromStr as _;
use std::time::{Duration, Instant};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types as lt;
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest,
    InlayHintRequest, References,
};
use lsp_types::Uri;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::diagnostics::diagnostics_of;
use super::handlers::{self as h, documents};
use super::{uri, Options, Snapshot};
use crate::check::{Input, Loader};
use crate::io::read::FsLoader;
use crate::source::FileId;

/// How long bytes the reader holds (a message on its way) may hold back a
/// check after the last message came.
const MAX_HOLD: Duration = Duration::from_millis(100);

/// One open document.
pub struct Doc {
    pub uri: Uri,
    pub text: String,
    pub version: i32,
}

/// What was last published for a document.
struct Published {
    version: Option<i32>,
    diagnostics: Vec<lt::Diagnostic>,
}

pub struct Server {
    conn: Connection,
    options: Options,
    pub(super) docs: BTreeMap<String, Doc>,
    /// The latest check, and per document the latest one in which it parsed
    /// (for completion while a line is half typed).
    snapshot: Option<Rc<Snapshot>>,
    pub(super) parsed: BTreeMap<String, Rc<Snapshot>>,
    dirty: bool,
    /// When the last edit came (for `debounceMs`), and the last message.
    last_edit: Instant,
    last_message: Instant,
    debounce: Duration,
    /// Per document, what it was last sent (to send only what changed, and
    /// to clear a closed one).
    published: BTreeMap<String, Published>,
    /// How many checks ran (for the log at exit).
    checks: u64,
    publishes: u64,
}

/// Why a request was not answered.
#[derive(Debug)]
pub struct Failure {
    code: ErrorCode,
    message: String,
}

impl Failure {
    /// The request was valid but could not be carried out.
    pub fn failed(message: String) -> Failure {
        Failure {
            code: ErrorCode::RequestFailed,
            message,
        }
    }
}

/// A request on its way to the one handler for its type.
struct Dispatch<'a> {
    server: &'a mut Server,
    req: Option<Request>,
    resp: Option<Response>,
}

impl Dispatch<'_> {
    fn on<R>(mut self, handler: fn(&mut Server, R::Params) -> Result<R::Result, Failure>) -> Self
    where
        R: lt::request::Request,
        R::Params: DeserializeOwned,
        R::Result: Serialize,
    {
        let Some(req) = self.req.take_if(|r| r.method == R::METHOD) else {
            return self;
        };
        let id = req.id;
        let answer = serde_json::from_value::<R::Params>(req.params)
            .map_err(|e| Failure {
                code: ErrorCode::InvalidParams,
                message: e.to_string(),
            })
            .and_then(|p| handler(self.server, p))
            .and_then(|r| {
                serde_json::to_value(r).map_err(|e| Failure {
                    code: ErrorCode::InternalError,
                    message: e.to_string(),
                })
            });
        self.resp = Some(match answer {
            Ok(v) => Response::new_ok(id, v),
            Err(f) => Response::new_err(id, f.code as i32, f.message),
        });
        self
    }

    fn finish(self) -> Response {
        match (self.resp, self.req) {
            (Some(r), _) => r,
            (None, Some(req)) => Response::new_err(
                req.id,
                ErrorCode::MethodNotFound as i32,
                format!("flowc lsp does not answer `{}`", req.method),
            ),
            (None, None) => unreachable!("a request is answered or left"),
        }
    }
}

/// A notification on its way to its handler (unknown ones are dropped,
/// as are ones whose parameters do not fit).
struct Notified<'a> {
    server: &'a mut Server,
    n: Option<Notification>,
}

impl Notified<'_> {
    fn on<N>(mut self, handler: fn(&mut Server, N::Params)) -> Self
    where
        N: lt::notification::Notification,
        N::Params: DeserializeOwned,
    {
        if let Some(n) = self.n.take_if(|n| n.method == N::METHOD) {
            if let Ok(p) = serde_json::from_value::<N::Params>(n.params) {
                handler(self.server, p);
            }
        }
        self
    }
}

impl Server {
    pub fn new(conn: Connection, options: Options, debounce: Duration) -> Server {
        Server {
            conn,
            options,
            docs: BTreeMap::new(),
            snapshot: None,
            parsed: BTreeMap::new(),
            dirty: false,
            last_edit: Instant::now(),
            last_message: Instant::now(),
            debounce,
            published: BTreeMap::new(),
            checks: 0,
            publishes: 0,
        }
    }

    /// Serve until `exit` (or the end of the stream). Edits are coalesced:
    /// every message already queued (or whose bytes the reader already
    /// holds) is taken first, and the open documents are checked once when
    /// none is (or after `debounceMs` of quiet).
    pub fn run(&mut self) -> Result<(), String> {
        let result = self.serve();
        if self.options.log_counts {
            eprintln!(
                "flowc lsp: {} checks, {} publishes",
                self.checks, self.publishes
            );
        }
        result
    }

    fn serve(&mut self) -> Result<(), String> {
        loop {
            let msg = if self.dirty {
                let wait = self.debounce.saturating_sub(self.last_edit.elapsed());
                let wait = if wait.is_zero() && self.more_on_the_way() {
                    Duration::from_millis(1)
                } else {
                    wait
                };
                match self.conn.receiver.recv_timeout(wait) {
                    Ok(m) => m,
                    Err(e) if e.is_timeout() => {
                        if !self.more_on_the_way() {
                            self.flush();
                        }
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
            self.last_message = Instant::now();
            match msg {
                Message::Request(req) => {
                    if self.conn.handle_shutdown(&req).map_err(|e| e.to_string())? {
                        return Ok(());
                    }
                    let resp = self.answer(req);
                    self.send(Message::Response(resp));
                }
                Message::Notification(n) => self.notification(n),
                Message::Response(_) => {}
            }
        }
    }

    /// Whether the reader holds bytes of a message not yet handed over
    /// (for at most [`MAX_HOLD`] after the last message).
    fn more_on_the_way(&self) -> bool {
        self.options
            .pending
            .as_ref()
            .is_some_and(super::transport::Pending::more)
            && self.last_message.elapsed() < MAX_HOLD
    }

    fn send(&mut self, msg: Message) {
        // The client went away: the read loop sees it next and stops.
        let _ = self.conn.sender.send(msg);
    }

    fn answer(&mut self, req: Request) -> Response {
        Dispatch {
            server: self,
            req: Some(req),
            resp: None,
        }
        .on::<HoverRequest>(h::hover::handle)
        .on::<GotoDefinition>(h::definition::handle)
        .on::<References>(h::references::handle)
        .on::<Completion>(h::completion::handle)
        .on::<Formatting>(h::formatting::handle)
        .on::<DocumentSymbolRequest>(h::symbols::handle)
        .on::<InlayHintRequest>(h::inlay_hints::handle)
        .on::<CodeActionRequest>(h::code_action::handle)
        .finish()
    }

    fn notification(&mut self, n: Notification) {
        Notified {
            server: self,
            n: Some(n),
        }
        .on::<DidOpenTextDocument>(documents::did_open)
        .on::<DidChangeTextDocument>(documents::did_change)
        .on::<DidCloseTextDocument>(documents::did_close)
        .on::<DidSaveTextDocument>(documents::did_save)
        .on::<DidChangeWatchedFiles>(documents::did_change_watched_files);
    }

    /// Something changed: check before the next answer or when idle.
    pub fn touch(&mut self) {
        self.dirty = true;
        self.last_edit = Instant::now();
    }

    /// The text of the open document `key` (a URI's text).
    pub fn text_of(&self, key: &str) -> Option<&str> {
        self.docs.get(key).map(|d| d.text.as_str())
    }

    /// The latest check of the open documents (made now if an edit came since).
    pub fn current(&mut self) -> Option<Rc<Snapshot>> {
        if self.dirty || self.snapshot.is_none() {
            self.flush();
        }
        self.snapshot.clone()
    }

    /// The latest check in which document `key` parsed, else the latest.
    pub fn parsed_or_current(&mut self, key: &str) -> Option<Rc<Snapshot>> {
        let now = self.current();
        self.parsed.get(key).cloned().or(now)
    }

    fn publish(&mut self, uri: Uri, version: Option<i32>, diagnostics: Vec<lt::Diagnostic>) {
        use lt::notification::Notification as _;
        let params = lt::PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        self.publishes += 1;
        self.send(Message::Notification(Notification::new(
            PublishDiagnostics::METHOD.into(),
            params,
        )));
    }

    /// Check the open documents now, and publish the findings of each
    /// document that was edited since it was last sent them or whose
    /// findings changed (and clear those of a closed one).
    fn flush(&mut self) {
        self.dirty = false;
        let Some(snap) = self.recheck() else {
            return;
        };
        self.checks += 1;
        let snap = Rc::new(snap);
        let mut now: BTreeMap<String, Published> = BTreeMap::new();
        let mut sends = Vec::new();
        for (key, doc) in &self.docs {
            let Some(&file) = snap.file_of.get(key) else {
                continue;
            };
            if !snap.outcome.broken.contains(&file) {
                self.parsed.insert(key.clone(), Rc::clone(&snap));
            }
            let diagnostics = diagnostics_of(&snap, file);
            let same = self
                .published
                .get(key)
                .is_some_and(|p| p.version == Some(doc.version) && p.diagnostics == diagnostics);
            if !same {
                sends.push((doc.uri.clone(), Some(doc.version), diagnostics.clone()));
            }
            now.insert(
                key.clone(),
                Published {
                    version: Some(doc.version),
                    diagnostics,
                },
            );
        }
        for gone in self.published.keys().filter(|k| !now.contains_key(*k)) {
            if let Ok(uri) = Uri::from_str(gone) {
                sends.push((uri, None, Vec::new()));
            }
        }
        for (uri, version, diagnostics) in sends {
            self.publish(uri, version, diagnostics);
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
            // The editor's text; the file on disk is never opened (it may
            // be a pipe or a device that would block or never end).
            let input = match uri::to_path(&doc.uri) {
                Some(path) => match fs.with_text(Path::new(&path), bytes.clone()) {
                    Some(i) => i,
                    // Not on disk (yet): checked alone, its `use` unresolved.
                    None => Input {
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
