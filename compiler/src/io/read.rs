//! The file system side of a run: finding `.flow` files, reading them, and
//! following `use` relative to the importing file. Kept out of the pure core.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use crate::check::{Input, Loader};

/// The largest file flowc reads (32 MiB), named on the command line or
/// reached by `use`: a larger one is refused before it is read, or as soon
/// as the limit is passed for a pipe or a device.
pub const MAX_INPUT_BYTES: usize = crate::syntax::parser::MAX_FILE_BYTES;

/// Where a file that was read sits on disk.
#[derive(Debug, Clone)]
struct Place {
    /// The path it was reached by (as given, or the importer's joined with
    /// the `use` path): what messages show.
    shown: PathBuf,
    /// Its real path, every link resolved: `use` is resolved from here.
    real: PathBuf,
    /// The project root of the command-line file it was reached from:
    /// `use` never leaves it.
    root: PathBuf,
}

/// Reads the files named on the command line and those that `use` names,
/// relative to the importing file's real path and never outside the
/// project root of the command-line file that led to them.
#[derive(Debug, Default)]
pub struct FsLoader {
    /// Each file read, by its key (the [`Input::key`] handed out).
    places: Mutex<BTreeMap<String, Place>>,
}

impl FsLoader {
    pub fn new() -> Self {
        FsLoader::default()
    }

    /// A file named on the command line: anything but a folder (a pipe
    /// included), read up to [`MAX_INPUT_BYTES`].
    pub fn read_root(&self, path: &Path) -> Result<Input, String> {
        let bytes = read_bounded(path, Kind::Named)?;
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| normalize(path));
        let root = project_root(&real);
        Ok(self.remember(path.to_path_buf(), real, root, bytes))
    }

    fn remember(&self, shown: PathBuf, real: PathBuf, root: PathBuf, bytes: Vec<u8>) -> Input {
        // The key is the real path, lossless but for names that are not
        // UTF-8; `display` is only for messages.
        let key = real.to_string_lossy().into_owned();
        let input = Input {
            path: display(&shown),
            key: key.clone(),
            bytes,
        };
        self.places
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key)
            .or_insert(Place { shown, real, root });
        input
    }
}

impl Loader for FsLoader {
    fn load(&self, from: &str, rel: &str) -> Result<Input, String> {
        let from = self
            .places
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(from)
            .cloned()
            .ok_or_else(|| "the importing file was not read from disk".to_string())?;
        let named = Path::new(rel);
        let dir = from.real.parent().unwrap_or(Path::new(""));
        // Absolute paths are allowed, but only inside the root like any other.
        let wanted = normalize(&dir.join(named));
        let outside = |what: &str| {
            format!(
                "{what} outside the project root (the folder of the nearest `flowc.toml`, \
                 `pyproject.toml` or `.git`), and `use` reads nothing outside it"
            )
        };
        if !wanted.starts_with(&from.root) {
            return Err(outside("it is"));
        }
        let real = std::fs::canonicalize(&wanted).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => io_words(&e),
        })?;
        if !real.starts_with(&from.root) {
            return Err(outside("it is a link to a file"));
        }
        let meta = std::fs::metadata(&real).map_err(|e| io_words(&e))?;
        if meta.is_dir() {
            return Err("it is a folder, not a `.flow` file".to_string());
        }
        if !meta.is_file() {
            return Err(NOT_REGULAR.to_string());
        }
        if !is_flow(named) || !is_flow(&real) {
            return Err("only `.flow` files can be imported".to_string());
        }
        let bytes = read_bounded(&real, Kind::Imported)?;
        let shown = normalize(&from.shown.parent().unwrap_or(Path::new("")).join(named));
        Ok(self.remember(shown, real, from.root, bytes))
    }
}

const NOT_REGULAR: &str = "it is not a regular file (a device, pipe or socket)";

fn is_flow(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "flow")
}

/// What may be read: a file named on the command line may be a pipe (or
/// a device: the size limit stops `/dev/zero`), an imported one only a
/// regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Named,
    Imported,
}

/// Read at most [`MAX_INPUT_BYTES`] of `path`; a file over the limit is
/// refused (unread when its size is known up front).
fn read_bounded(path: &Path, kind: Kind) -> Result<Vec<u8>, String> {
    let words = |e: &std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        _ => io_words(e),
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    if kind == Kind::Imported {
        // A pipe put in the file's place after it was looked at must not
        // block the open; the handle's own metadata then refuses it.
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| words(&e))?;
    let meta = file.metadata().map_err(|e| words(&e))?;
    if meta.is_dir() {
        return Err("it is a folder, not a `.flow` file".to_string());
    }
    if kind == Kind::Imported && !meta.is_file() {
        return Err(NOT_REGULAR.to_string());
    }
    let too_large = || {
        format!(
            "it is larger than {} MiB, the most flowc reads from one file; split it into files joined with `use`",
            MAX_INPUT_BYTES / 1_048_576
        )
    };
    if meta.is_file() && meta.len() > MAX_INPUT_BYTES as u64 {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| words(&e))?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

/// `a/./b/../c` to `a/c`, without touching the file system.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.iter().collect()
}

/// The files that mark a project's root folder: flowc's configuration, a
/// Python project's, or a git checkout.
pub const ROOT_MARKERS: [&str; 3] = ["flowc.toml", "pyproject.toml", ".git"];

/// The project root of `file`: the nearest folder at or above the file's
/// own that holds one of [`ROOT_MARKERS`], else the file's own folder. The
/// path is absolute (canonical) when the file exists; `use` stays inside it,
/// and generated headers name sources relative to it.
pub fn project_root(file: &Path) -> PathBuf {
    let real = std::fs::canonicalize(file).unwrap_or_else(|_| normalize(file));
    let start = real.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    start
        .ancestors()
        .find(|dir| {
            ROOT_MARKERS
                .iter()
                .any(|m| dir.join(m).symlink_metadata().is_ok())
        })
        .map_or(start.clone(), Path::to_path_buf)
}

/// An I/O error in the house style: lowercase, without the `(os error N)`
/// that only means something to a programmer.
pub fn io_words(e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::PermissionDenied {
        return "permission denied".to_string();
    }
    let text = e.to_string();
    let text = text.split(" (os error").next().unwrap_or(&text);
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_lowercase().collect::<String>() + chars.as_str()
    })
}

pub fn display(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

/// Files named on the command line, and *.flow files under named folders,
/// sorted so runs are deterministic.
pub fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let defaults = [PathBuf::from(".")];
    let paths = if paths.is_empty() {
        &defaults[..]
    } else {
        paths
    };
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("`{}` does not exist", display(p)),
            _ => format!("cannot read `{}`: {}", display(p), io_words(&e)),
        })?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found)
                .map_err(|e| format!("cannot read folder `{}`: {}", display(p), io_words(&e)))?;
            found.sort();
            out.extend(found);
        } else {
            out.push(normalize(p));
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        let hidden = name.to_string_lossy().starts_with('.') && name != "." && name != "..";
        let ft = entry.file_type()?;
        if ft.is_dir() {
            if !hidden && name != "target" && name != "node_modules" {
                walk(&path, out)?;
            }
        } else if is_flow(&path) && std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            // Only regular files (or links to one): a pipe named `x.flow`
            // would block the run.
            out.push(normalize(&path));
        }
    }
    Ok(())
}

/// Collect, read and check files; `Err` is a usage problem (exit 2).
pub fn check_paths(paths: &[PathBuf]) -> Result<crate::check::Outcome, String> {
    let files = collect(paths)?;
    let loader = FsLoader::new();
    let mut inputs = Vec::new();
    for f in &files {
        inputs.push(
            loader
                .read_root(f)
                .map_err(|e| format!("cannot read `{}`: {e}", display(f)))?,
        );
    }
    Ok(crate::check::check(inputs, &loader))
}

/// The source file as a generated header names it: its path relative to its
/// project root ([`project_root`]), with `/` between folders.
/// The same file gives the same text from any working folder, given as a
/// relative or an absolute path, and no absolute path of this machine ever
/// appears (TARGETS.md). A file that cannot be resolved keeps a relative path
/// as given (normalized) and an absolute one is cut to its file name.
pub fn header_path(given: &str) -> String {
    let path = std::path::Path::new(given);
    if let Ok(real) = std::fs::canonicalize(path) {
        let root = project_root(&real);
        if let Ok(relative) = real.strip_prefix(&root) {
            let relative = display(relative);
            if !relative.is_empty() {
                return relative;
            }
        }
    }
    if path.is_absolute() {
        path.file_name().map_or_else(
            || "source.flow".to_owned(),
            |n| n.to_string_lossy().into_owned(),
        )
    } else {
        display(&normalize(path))
    }
}

/// The bytes of a file, reading at most one byte more than `limit`; for a
/// larger file, its size instead (at least `limit + 1`).
pub fn read_limited(path: &Path, limit: u64) -> std::io::Result<Result<Vec<u8>, u64>> {
    let file = std::fs::File::open(path)?;
    let size = file.metadata().map_or(0, |m| m.len());
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Ok(Err(size.max(limit + 1)));
    }
    Ok(Ok(bytes))
}

#[cfg(test)]
mod tests {
    use super::project_root;

    #[test]
    fn the_root_is_the_nearest_folder_with_a_marker() {
        let dir = tempfile::tempdir().expect("tempdir");
        let top = dir.path().canonicalize().expect("canonical");
        let deep = top.join("a/b");
        std::fs::create_dir_all(&deep).expect("mkdir");
        std::fs::write(deep.join("p.flow"), "").expect("write");
        // No marker anywhere below the temp folder: the file's own folder
        // (unless the temp folder itself sits in a project).
        let found = project_root(&deep.join("p.flow"));
        assert!(found == deep || !found.starts_with(&top), "{found:?}");
        std::fs::write(top.join("a/flowc.toml"), "").expect("write");
        assert_eq!(project_root(&deep.join("p.flow")), top.join("a"));
        std::fs::create_dir(deep.join(".git")).expect("mkdir");
        assert_eq!(project_root(&deep.join("p.flow")), deep);
    }
}
