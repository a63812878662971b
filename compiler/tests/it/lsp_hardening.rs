//! `flowc lsp` against hostile input, through the real binary: the
//! protocol's framing (bounded, answered, never a panic), documents that
//! are not regular files, the stdlib cache under a planted link, and how
//! many checks and publishes a burst of edits or of opened files costs.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};

use super::lsp::{wait, Server};

fn started(cache: &std::path::Path) -> Server {
    let mut s = Server::start_with(cache, Stdio::piped());
    let init = s.request(
        1,
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {}}),
    );
    assert!(init["result"]["capabilities"].is_object(), "{init}");
    s.notify("initialized", json!({}));
    s
}

/// A request the server answers (with "method not found"): proof that it
/// still reads and answers after whatever came before.
fn ping(s: &mut Server, id: i64) {
    let r = s.request(id, "flowc/ping", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
}

fn frame(body: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

fn ping_frame(id: i64) -> String {
    frame(&json!({"jsonrpc": "2.0", "id": id, "method": "flowc/ping"}).to_string())
}

/// The highest resident set the process had, in kB (Linux).
fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn stop(mut s: Server) -> (std::process::ExitStatus, String) {
    let r = s.request(999, "shutdown", Value::Null);
    assert!(r["error"].is_null(), "{r}");
    s.notify("exit", Value::Null);
    let status = wait(&mut s.child);
    let mut err = String::new();
    if let Some(mut e) = s.child.stderr.take() {
        use std::io::Read as _;
        let _ = e.read_to_string(&mut err);
    }
    (status, err)
}

#[test]
fn every_malformed_frame_is_answered_and_the_server_keeps_serving() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = started(dir.path());
    let bad: &[(&str, String, i64)] = &[
        (
            "u64::MAX",
            "Content-Length: 18446744073709551615\r\n\r\n".into(),
            -32700,
        ),
        (
            "two billion",
            "Content-Length: 2000000000\r\n\r\n".into(),
            -32700,
        ),
        (
            "past u64",
            "Content-Length: 99999999999999999999999\r\n\r\n".into(),
            -32700,
        ),
        ("negative", "Content-Length: -5\r\n\r\n{}".into(), -32700),
        (
            "not a number",
            "Content-Length: abc\r\n\r\n{}".into(),
            -32700,
        ),
        ("a sign", "Content-Length: +2\r\n\r\n{}".into(), -32700),
        ("empty", "Content-Length: \r\n\r\n{}".into(), -32700),
        (
            "duplicated",
            "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}".into(),
            -32700,
        ),
        (
            "duplicated, another case",
            "Content-Length: 2\r\ncontent-length: 3\r\n\r\n{}".into(),
            -32700,
        ),
        (
            "missing",
            "Content-Type: application/vscode-jsonrpc\r\n\r\n{}".into(),
            -32700,
        ),
        ("not a header line", "hello\r\n\r\n".into(), -32700),
        (
            "a header block without end",
            format!("X-Pad: {}", "a".repeat(20_000)),
            -32700,
        ),
        ("not JSON", frame("{not json"), -32700),
        ("not UTF-8", String::new(), -32700),
        ("JSON, not a message", frame("[1, 2]"), -32600),
        ("a number", frame("42"), -32600),
    ];
    let mut id = 10;
    for (what, bytes, code) in bad {
        id += 1;
        let mut raw = bytes.as_bytes().to_vec();
        if *what == "not UTF-8" {
            raw = b"Content-Length: 1\r\n\r\n\xff".to_vec();
        }
        raw.extend_from_slice(ping_frame(id).as_bytes());
        s.send_raw(&raw);
        let answer = s.read();
        assert_eq!(answer["error"]["code"], *code, "{what}: {answer}");
        assert!(answer["id"].is_null(), "{what}: {answer}");
        let next = s.until(|m| m["id"] == id);
        assert_eq!(next["error"]["code"], -32601, "{what}: {next}");
    }
    // A body shorter than announced swallows the start of the next frame:
    // answered, and the frame after it is read whole.
    id += 1;
    let body = json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}).to_string();
    let short = format!("Content-Length: {}\r\n\r\n{body}", body.len() + 10);
    s.send_raw(format!("{short}{}", ping_frame(id)).as_bytes());
    let answer = s.read();
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    let next = s.until(|m| m["id"] == id);
    assert_eq!(next["error"]["code"], -32601, "{next}");
    // An id the client can match, when the message has one.
    s.send_raw(frame(r#"{"jsonrpc": "2.0", "id": 77, "method": 5}"#).as_bytes());
    let answer = s.read();
    assert_eq!(answer["id"], 77, "{answer}");
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    ping(&mut s, 500);
    // Nothing was allocated for the announced lengths.
    let rss = peak_rss_kb(s.child.id()).expect("VmHWM");
    assert!(rss < 300_000, "peak RSS {rss} kB");
    let (status, err) = stop(s);
    assert!(status.success(), "{status:?} {err}");
    assert!(!err.contains("panicked"), "{err}");
    // The log says what was wrong, never what was sent.
    assert!(err.contains("more than one `Content-Length`"), "{err}");
    assert!(!err.contains("not json"), "{err}");
}

#[test]
fn the_end_of_the_stream_mid_frame_ends_the_server_cleanly() {
    let ends: &[&[u8]] = &[
        b"Content-Length: 100\r\n\r\n{\"jsonrpc\": \"2.0\"",
        b"Content-Length: 18446744073709551615\r\n\r\n",
        b"Content-Length: 10",
        b"Content-Len",
    ];
    for end in ends {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut s = started(dir.path());
        s.send_raw(end);
        s.close();
        let status = wait(&mut s.child);
        assert_eq!(status.code(), Some(0), "{}", String::from_utf8_lossy(end));
    }
}

#[cfg(unix)]
fn mode(p: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::symlink_metadata(p)
        .expect("stat")
        .permissions()
        .mode()
        & 0o7777
}

#[cfg(unix)]
fn mkfifo(p: &std::path::Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
}

fn stdlib_copies(cache: &std::path::Path) -> std::path::PathBuf {
    let copies = cache
        .join("flowc")
        .join(format!("stdlib-{}", env!("CARGO_PKG_VERSION")));
    std::fs::create_dir_all(&copies).expect("mkdir");
    copies
}

/// A link planted at a copy's name in the stdlib cache, to a private file:
/// the file keeps its mode and text, the copy becomes a read-only regular file.
#[cfg(unix)]
#[test]
fn a_link_planted_in_the_stdlib_cache_leaves_its_target_untouched() {
    use std::os::unix::fs::{symlink, PermissionsExt as _};
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let copies = stdlib_copies(&cache);
    let victim = dir.path().join("private.txt");
    std::fs::write(&victim, "secret\n").expect("write");
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    symlink(&victim, copies.join("postgres.flow")).expect("link");
    let s = started(&cache);
    let (status, err) = stop(s);
    assert!(status.success(), "{status:?} {err}");
    assert_eq!(mode(&victim), 0o600, "the link's target keeps its mode");
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "secret\n");
    let copy = copies.join("postgres.flow");
    assert!(std::fs::symlink_metadata(&copy)
        .expect("stat")
        .file_type()
        .is_file());
    assert_eq!(mode(&copy), 0o444);
}

/// Links planted in the stdlib cache: at a copy's name (to a private file,
/// to a FIFO, to a folder) and a FIFO in a copy's place. The server starts
/// and answers, every copy ends up a read-only regular file with the
/// stdlib's text, and what the links pointed at is as it was.
#[cfg(unix)]
#[test]
fn the_stdlib_cache_never_writes_or_blocks_through_a_planted_file() {
    use std::os::unix::fs::{symlink, PermissionsExt as _};
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let copies = cache
        .join("flowc")
        .join(format!("stdlib-{}", env!("CARGO_PKG_VERSION")));
    std::fs::create_dir_all(&copies).expect("mkdir");
    let victim = dir.path().join("private.txt");
    std::fs::write(&victim, "secret\n").expect("write");
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).expect("mkdir");
    symlink(&victim, copies.join("postgres.flow")).expect("link");
    symlink(&fifo, copies.join("files.flow")).expect("link");
    symlink(&elsewhere, copies.join("kafka.flow")).expect("link");
    mkfifo(&copies.join("sqlite.flow"));

    let s = started(&cache);
    let (status, err) = stop(s);
    assert!(status.success(), "{status:?} {err}");

    assert_eq!(mode(&victim), 0o600, "the link's target keeps its mode");
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "secret\n");
    assert!(std::fs::read_dir(&elsewhere).expect("ls").next().is_none());
    let fifo_kind = std::fs::symlink_metadata(&fifo).expect("stat").file_type();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&fifo_kind));
    for name in [
        "postgres.flow",
        "files.flow",
        "kafka.flow",
        "sqlite.flow",
        "effects.flow",
    ] {
        let copy = copies.join(name);
        let meta = std::fs::symlink_metadata(&copy).expect("stat");
        assert!(meta.file_type().is_file(), "{name} is a regular file");
        assert_eq!(mode(&copy), 0o444, "{name} is read-only");
        let text = std::fs::read_to_string(&copy).expect("read");
        assert!(text.contains("kind "), "{name} holds the stdlib");
    }
}

/// A link where flowc's own cache folder goes: nothing is written through
/// it (and the server still serves, without stdlib links).
#[cfg(unix)]
#[test]
fn a_linked_stdlib_cache_folder_is_not_written_through() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(cache.join("flowc")).expect("mkdir");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).expect("mkdir");
    symlink(
        &elsewhere,
        cache
            .join("flowc")
            .join(format!("stdlib-{}", env!("CARGO_PKG_VERSION"))),
    )
    .expect("link");
    let mut s = started(&cache);
    ping(&mut s, 2);
    let (status, err) = stop(s);
    assert!(status.success(), "{status:?} {err}");
    assert!(std::fs::read_dir(&elsewhere).expect("ls").next().is_none());
}

/// Documents whose path is a FIFO, a link to one, a socket or a device:
/// checked from the editor's text, the file itself never opened; a `use`
/// of a FIFO is refused, not read. The server answers throughout.
#[cfg(unix)]
#[test]
fn documents_that_are_not_regular_files_are_never_opened() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().expect("tempdir");
    let proj = dir.path().join("proj");
    std::fs::create_dir_all(proj.join(".git")).expect("mkdir");
    mkfifo(&proj.join("fifo.flow"));
    mkfifo(&proj.join("other.fifo"));
    symlink(proj.join("other.fifo"), proj.join("link.flow")).expect("link");
    symlink("/dev/zero", proj.join("zero.flow")).expect("link");
    let _socket = std::os::unix::net::UnixListener::bind(proj.join("sock.flow")).expect("bind");
    let uses = "use \"fifo.flow\"\n";
    std::fs::write(proj.join("uses.flow"), uses).expect("write");
    let mut s = started(&dir.path().join("cache"));
    let docs = [
        ("fifo.flow", super::lsp::BROKEN),
        ("link.flow", super::lsp::BROKEN),
        ("zero.flow", super::lsp::BROKEN),
        ("sock.flow", super::lsp::BROKEN),
        ("uses.flow", uses),
    ];
    for (i, (name, text)) in docs.iter().enumerate() {
        let uri = format!("file://{}", proj.join(name).display());
        s.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "flow", "version": 1, "text": text}}),
        );
        let d = s.until(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        });
        ping(&mut s, 10 + i64::try_from(i).expect("small"));
        let found = d["params"]["diagnostics"].to_string();
        if *name == "uses.flow" {
            assert!(found.contains("not a regular file"), "{name}: {found}");
        } else {
            assert!(found.contains("ordres"), "{name}: {found}");
        }
    }
    let (status, err) = stop(s);
    assert!(status.success(), "{status:?} {err}");
}

fn is_publish(m: &Value) -> bool {
    m["method"] == "textDocument/publishDiagnostics"
}

/// Ten edits sent at once are checked once (one publish, of the last
/// version), and a document that did not change is not sent its findings
/// again.
#[test]
fn queued_edits_are_checked_once_and_unchanged_documents_are_not_republished() {
    let dir = tempfile::tempdir().expect("tempdir");
    let proj = dir.path().join("proj");
    std::fs::create_dir_all(proj.join(".git")).expect("mkdir");
    let a = format!("file://{}", proj.join("a.flow").display());
    let b = format!("file://{}", proj.join("b.flow").display());
    let mut s = started(&dir.path().join("cache"));
    let other = "source elsewhere: postgres_table {\n  table \"x.y\"\n  pin snapshot\n}\n";
    for (uri, text) in [(&a, super::lsp::BROKEN), (&b, other)] {
        s.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "flow", "version": 1, "text": text}}),
        );
        let d = s.until(|m| is_publish(m) && m["params"]["uri"] == *uri);
        assert_eq!(d["params"]["version"], 1);
    }
    // Nothing more: each was sent its findings once.
    assert_eq!(s.poll(Duration::from_millis(300)), None);
    // Ten small edits of `a` (a character typed into the comment), in one write.
    let mut burst = String::new();
    for v in 2..=11 {
        let body = json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": a, "version": v},
            "contentChanges": [{"range": {"start": {"line": 12, "character": 3}, "end": {"line": 12, "character": 3}}, "text": "x"}]
        }})
        .to_string();
        burst.push_str(&frame(&body));
    }
    assert!(burst.len() < 4096, "one atomic pipe write: {}", burst.len());
    s.send_raw(burst.as_bytes());
    let d = s.until(is_publish);
    assert_eq!(d["params"]["uri"], a, "{d}");
    assert_eq!(
        d["params"]["version"], 11,
        "one check, after the last edit: {d}"
    );
    // `b` did not change, and `a` was sent once.
    assert_eq!(s.poll(Duration::from_millis(500)), None);
    ping(&mut s, 3);
    let (status, err) = stop(s);
    assert!(status.success(), "{status:?} {err}");
}

/// Opening many files at once sends each its findings once.
#[test]
fn opening_many_files_publishes_each_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let proj = dir.path().join("proj");
    std::fs::create_dir_all(proj.join(".git")).expect("mkdir");
    let mut s = started(&dir.path().join("cache"));
    let n = 200;
    let mut burst = String::new();
    for i in 0..n {
        let uri = format!("file://{}/f{i}.flow", proj.display());
        let body = json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "flow", "version": 1, "text": format!("source s{i}: postgres_table {{\n  table \"t{i}\"\n  pin snapshot\n}}\n")}
        }})
        .to_string();
        burst.push_str(&frame(&body));
    }
    s.send_raw(burst.as_bytes());
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    while seen.len() < n {
        let m = s.until(is_publish);
        *seen
            .entry(m["params"]["uri"].as_str().unwrap_or_default().to_string())
            .or_default() += 1;
    }
    while let Some(m) = s.poll(Duration::from_millis(500)) {
        if is_publish(&m) {
            *seen
                .entry(m["params"]["uri"].as_str().unwrap_or_default().to_string())
                .or_default() += 1;
        }
    }
    let twice: Vec<_> = seen.iter().filter(|(_, c)| **c > 1).collect();
    let total: usize = seen.values().sum();
    assert!(
        twice.is_empty(),
        "{total} publishes for {n} files; {} files more than once, e.g. {:?}",
        twice.len(),
        twice.iter().take(3).collect::<Vec<_>>()
    );
    let (status, err) = stop(s);
    assert!(status.success(), "{status:?} {err}");
}

/// The server reads each file's configuration, as `flowc check` does:
/// a rule ignored in `flowc.toml` is not shown, and the same file in a
/// folder without that configuration shows it.
#[test]
fn the_server_reads_the_configuration_of_each_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let quiet = dir.path().join("quiet");
    let loud = dir.path().join("loud");
    for p in [&quiet, &loud] {
        std::fs::create_dir_all(p.join(".git")).expect("mkdir");
    }
    std::fs::write(quiet.join("flowc.toml"), "ignore = [\"FL008\"]\n").expect("write");
    let mut s = started(&dir.path().join("cache"));
    for (proj, shown) in [(&quiet, false), (&loud, true)] {
        let uri = format!("file://{}", proj.join("p.flow").display());
        s.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "flow", "version": 1, "text": super::lsp::BROKEN}}),
        );
        let d = s.until(|m| is_publish(m) && m["params"]["uri"] == uri);
        let codes = d["params"]["diagnostics"].to_string();
        assert_eq!(codes.contains("FL008"), shown, "{uri}: {codes}");
        assert!(codes.contains("FL702"), "{uri}: {codes}");
    }
    let (status, err) = stop(s);
    assert!(status.success(), "{status:?} {err}");
}
