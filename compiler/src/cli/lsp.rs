//! `flowc lsp`: the language server on stdin and stdout (the protocol's
//! messages only; log lines go to stderr).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::lsp::{serve, Options};

pub(super) fn run() -> ExitCode {
    let (conn, io) = crate::lsp::transport::stdio();
    let options = Options {
        stdlib_dir: stdlib_copy(),
        pending: Some(io.pending()),
        log_counts: std::env::var_os("FLOWC_LSP_STATS").is_some_and(|v| v == "1"),
    };
    let served = serve(conn, options);
    let joined = io.join();
    match served.and(joined) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
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
/// that is already there and the same (a regular file, read without
/// following a link) is left alone; any other is replaced as every file
/// flowc writes is: a new file created under a fresh name (never through
/// a link), its mode set on its handle, renamed into place, so a link
/// planted at a copy's name is replaced and whatever it points at stays
/// untouched. The two folders flowc makes (`flowc/` and `stdlib-VERSION/`)
/// must be real folders, not links. None can be made: no such links.
fn stdlib_copy() -> Option<PathBuf> {
    let dir = cache_dir()?;
    own_folder(dir.parent()?)?;
    own_folder(&dir)?;
    for (path, text) in crate::check::stdlib_files() {
        let name = path.strip_prefix("<stdlib>/")?;
        let file = dir.join(name);
        if holds(&file, text) {
            continue;
        }
        #[cfg(unix)]
        let mode = {
            use std::os::unix::fs::PermissionsExt as _;
            Some(std::fs::Permissions::from_mode(0o444))
        };
        #[cfg(not(unix))]
        let mode = None;
        crate::io::write::write_atomic_with(&file, text, mode).ok()?;
    }
    Some(dir)
}

/// `dir` is a folder (made when missing, its parents too), not a link.
fn own_folder(dir: &Path) -> Option<()> {
    if std::fs::symlink_metadata(dir).is_err() {
        std::fs::create_dir_all(dir).ok()?;
    }
    std::fs::symlink_metadata(dir)
        .ok()
        .filter(std::fs::Metadata::is_dir)
        .map(drop)
}

/// Whether `file` is a regular file holding exactly `text`; opened without
/// following a link and without blocking on a pipe.
fn holds(file: &Path, text: &str) -> bool {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let Ok(f) = options.open(file) else {
        return false;
    };
    let regular = f
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() == text.len() as u64);
    let mut bytes = Vec::new();
    regular
        && std::io::Read::read_to_end(&mut std::io::Read::take(f, text.len() as u64), &mut bytes)
            .is_ok()
        && bytes == text.as_bytes()
}
