//! `flowc lsp`: the language server on stdin and stdout (the protocol's
//! messages only; log lines go to stderr).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::lsp::{serve, Options};

pub(super) fn run() -> ExitCode {
    let options = Options {
        stdlib_dir: stdlib_copy(),
    };
    let (conn, io) = lsp_server::Connection::stdio();
    let served = serve(conn, options);
    let joined = io.join();
    match (served, joined) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Err(e), _) => {
            eprintln!("error: flowc lsp: {e}");
            ExitCode::from(1)
        }
        (_, Err(e)) => {
            eprintln!("error: flowc lsp: {e}");
            ExitCode::from(1)
        }
    }
}

/// The cache folder for this version's copy of the standard library:
/// `$XDG_CACHE_HOME/flowc/stdlib-VERSION` (or `~/.cache/...`).
fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?;
    Some(
        base.join("flowc")
            .join(format!("stdlib-{}", env!("CARGO_PKG_VERSION"))),
    )
}

/// Write the embedded standard library into the cache folder, read-only,
/// so that "go to definition" on a stdlib kind opens a real file. A copy
/// that is already there and the same is left alone; none can be made:
/// no such links.
fn stdlib_copy() -> Option<PathBuf> {
    let dir = cache_dir()?;
    std::fs::create_dir_all(&dir).ok()?;
    for (path, text) in crate::check::stdlib_files() {
        let name = path.strip_prefix("<stdlib>/")?;
        let file = dir.join(name);
        if std::fs::read_to_string(&file).is_ok_and(|t| t == text) {
            continue;
        }
        // An older copy is read-only: make it writable to replace it.
        if let Ok(meta) = std::fs::metadata(&file) {
            let mut perms = meta.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            let _ = std::fs::set_permissions(&file, perms);
        }
        crate::io::write::write_atomic(&file, text).ok()?;
        if let Ok(meta) = std::fs::metadata(&file) {
            let mut perms = meta.permissions();
            perms.set_readonly(true);
            let _ = std::fs::set_permissions(&file, perms);
        }
    }
    Some(dir)
}
