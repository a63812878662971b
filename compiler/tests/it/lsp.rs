//! `flowc lsp` over the real binary's stdio: the protocol's framing,
//! `initialize`, diagnostics on open and on change, and a clean `shutdown`.
//! (Every feature is driven by real clients in `tests/lsp/`.)

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) stdin: Option<ChildStdin>,
    /// Messages read by a thread of their own, so a missing answer fails
    /// the test after a while instead of hanging it.
    inbox: mpsc::Receiver<Value>,
}

impl Server {
    pub(crate) fn start(cache: &std::path::Path) -> Server {
        Server::start_with(cache, Stdio::inherit())
    }

    /// `flowc lsp` with its cache under `cache` and stderr to `stderr`.
    pub(crate) fn start_with(cache: &std::path::Path, stderr: Stdio) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_flowc"))
            .arg("lsp")
            .env("XDG_CACHE_HOME", cache)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("flowc lsp starts");
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, inbox) = mpsc::channel();
        std::thread::spawn(move || {
            while let Some(m) = read_message(&mut stdout) {
                if tx.send(m).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            stdin,
            inbox,
        }
    }

    pub(crate) fn send(&mut self, msg: &Value) {
        let body = msg.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    /// Bytes as they are, framed or not.
    pub(crate) fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    /// Close the server's stdin (the end of the stream).
    pub(crate) fn close(&mut self) {
        self.stdin = None;
    }

    pub(crate) fn read(&mut self) -> Value {
        self.inbox
            .recv_timeout(Duration::from_secs(20))
            .expect("a message from the server within 20 s")
    }

    /// The next message within `wait`, if one comes.
    pub(crate) fn poll(&mut self, wait: Duration) -> Option<Value> {
        self.inbox.recv_timeout(wait).ok()
    }

    /// The next message for which `want` holds (others are skipped).
    pub(crate) fn until(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        for _ in 0..100 {
            let m = self.read();
            if want(&m) {
                return m;
            }
        }
        panic!("no such message among 100");
    }

    pub(crate) fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
        msg["params"] = params;
        self.send(&msg);
        self.until(|m| m["id"] == id)
    }

    pub(crate) fn notify(&mut self, method: &str, params: Value) {
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        msg["params"] = params;
        self.send(&msg);
    }

    pub(crate) fn diagnostics(&mut self) -> Value {
        self.until(|m| m["method"] == "textDocument/publishDiagnostics")["params"].clone()
    }
}

pub(crate) const BROKEN: &str = "\
source orders: postgres_table {
  table  \"shop.orders\"
  mutable
  pin    snapshot
}

sink totals: postgres_table {
  table        \"shop.totals\"
  primary_key  day
}

pipeline daily {
  # prüfung 😀: non-ASCII before the edit
  task t {
    read   ordres
    key    (day = interval.start)
    write  totals upsert
  }
}
";

#[test]
fn initialize_diagnostics_on_open_and_change_then_shutdown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("p.flow");
    std::fs::write(&file, BROKEN).expect("write");
    let uri = format!("file://{}", file.display());
    let mut s = Server::start(dir.path());

    let init = s.request(
        1,
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {}}),
    );
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["positionEncoding"], "utf-16", "{init}");
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(init["result"]["serverInfo"]["name"], "flowc");
    s.notify("initialized", json!({}));

    s.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "flow", "version": 1, "text": BROKEN}}),
    );
    let d = s.diagnostics();
    assert_eq!(d["uri"], uri);
    let list = d["diagnostics"].as_array().expect("a list");
    let unknown = list
        .iter()
        .find(|x| x["message"].as_str().is_some_and(|m| m.contains("ordres")))
        .unwrap_or_else(|| panic!("a finding names `ordres`: {d}"));
    assert_eq!(unknown["source"], "flowc");
    assert!(unknown["code"]
        .as_str()
        .is_some_and(|c| c.starts_with("FL")));
    // Line 15 (0-based 14), `ordres` after `    read   `.
    assert_eq!(
        unknown["range"]["start"],
        json!({"line": 14, "character": 11}),
        "{unknown}"
    );
    // The same codes as `flowc check --format json`.
    let out = Command::new(env!("CARGO_BIN_EXE_flowc"))
        .args(["check", "--format", "json"])
        .arg(&file)
        .output()
        .expect("check runs");
    let cli: Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut cli_codes: Vec<String> = cli["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|x| x["suppressed"].is_null() || x["suppressed"] == false)
        .map(|x| x["code"].as_str().unwrap_or_default().to_string())
        .collect();
    let mut lsp_codes: Vec<String> = list
        .iter()
        .map(|x| x["code"].as_str().unwrap_or_default().to_string())
        .collect();
    cli_codes.sort();
    lsp_codes.sort();
    assert_eq!(lsp_codes, cli_codes);

    // The quick fix is the edit of `flowc check --fix`, carried in the
    // finding's data.
    assert_eq!(
        unknown["data"]["fix"]["edits"][0]["newText"], "orders",
        "{unknown}"
    );
    let actions = s.request(
        3,
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": unknown["range"], "context": {"diagnostics": [unknown]}}),
    );
    let edit = &actions["result"][0]["edit"]["changes"][uri.as_str()][0];
    assert_eq!(edit["newText"], "orders", "{actions}");
    assert_eq!(edit["range"], unknown["range"], "{actions}");

    // An incremental edit after the non-ASCII comment: `ordres` to
    // `orders` (UTF-16 columns), and the finding is gone.
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 14, "character": 11}, "end": {"line": 14, "character": 17}}, "text": "orders"}
        ]}),
    );
    let d = s.diagnostics();
    assert_eq!(d["version"], 2);
    let text = d["diagnostics"].to_string();
    assert!(!text.contains("ordres"), "{text}");

    let bye = s.request(2, "shutdown", Value::Null);
    assert!(bye["error"].is_null(), "{bye}");
    s.notify("exit", Value::Null);
    let status = wait(&mut s.child);
    assert!(status.success(), "{status:?}");
}

#[test]
fn an_unknown_request_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = Server::start(dir.path());
    s.request(
        1,
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {}}),
    );
    s.notify("initialized", json!({}));
    let r = s.request(2, "flowc/nothing", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    // Bad params for a known request: an error answer, and the server lives on.
    let r = s.request(3, "textDocument/hover", json!({"nope": 1}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = s.request(4, "shutdown", Value::Null);
    assert!(r["error"].is_null(), "{r}");
    s.notify("exit", Value::Null);
    assert!(wait(&mut s.child).success());
}

/// One framed message, or `None` at the end of the stream.
fn read_message(r: &mut BufReader<ChildStdout>) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            len = n.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

pub(crate) fn wait(child: &mut Child) -> std::process::ExitStatus {
    for _ in 0..200 {
        if let Some(st) = child.try_wait().expect("wait") {
            return st;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    let _ = child.kill();
    panic!("flowc lsp did not exit after `exit`");
}
