//! The file system side of a run: finding `.flow` files, reading them, and
//! following `use` relative to the importing file. Kept out of the pure core.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::check::{Input, Loader};
use crate::config::{self, Origin, Overrides, Settings};

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

    /// The text of standard input, as if it were the file `name` (which
    /// need not exist): shown under that name, its `use` read from its folder.
    pub fn read_stdin(&self, name: &Path) -> Result<Input, String> {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(MAX_INPUT_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {}", io_words(&e)))?;
        if bytes.len() > MAX_INPUT_BYTES {
            return Err(format!(
                "standard input is larger than {} MiB, the most flowc reads from one file",
                MAX_INPUT_BYTES / 1_048_576
            ));
        }
        let real = absolute(name);
        let root = project_root(&real);
        Ok(self.remember(name.to_path_buf(), real, root, bytes))
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

/// The largest configuration file flowc reads (1 MiB).
const MAX_CONFIG_BYTES: u64 = 1_048_576;

/// Which configuration files a run reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigChoice {
    /// The closest `flowc.toml`, or `pyproject.toml` with `[tool.flowc]`,
    /// at or above each file's folder (in one folder `flowc.toml` wins).
    Discover,
    /// None (`--isolated`): the defaults and the command line.
    Isolated,
    /// Exactly this file, for every file of the run (`--config PATH`).
    File(PathBuf),
}

/// The configurations of a run, found once per folder. It is the run's
/// [`Policy`](crate::check::Policy): each finding is settled by the
/// settings of its file's folder.
#[derive(Debug)]
pub struct Configs {
    choice: ConfigChoice,
    cli: Overrides,
    targets: Vec<String>,
    /// The settings of every run's file when they do not depend on the folder.
    fixed: Option<Arc<Settings>>,
    /// By absolute folder: the settings in force there.
    by_dir: Mutex<BTreeMap<PathBuf, Arc<Settings>>>,
    /// The first configuration problem met while settling findings.
    problem: Mutex<Option<String>>,
    /// By the path a file is shown as: its absolute path and settings.
    by_path: Mutex<BTreeMap<String, (PathBuf, Arc<Settings>)>>,
}

impl Configs {
    /// `targets` are the names a configured `target` may take.
    pub fn new(choice: ConfigChoice, cli: Overrides, targets: &[&str]) -> Result<Configs, String> {
        let targets: Vec<String> = targets.iter().map(|t| (*t).to_owned()).collect();
        // The command line's own mistakes first, before any file is blamed.
        Settings::defaults(Some(&cli), false, PathBuf::new())?;
        let fixed = match &choice {
            ConfigChoice::Discover => None,
            ConfigChoice::Isolated => Some(Arc::new(Settings::defaults(
                Some(&cli),
                true,
                absolute(Path::new(".")),
            )?)),
            ConfigChoice::File(path) => {
                let real = std::fs::canonicalize(path)
                    .map_err(|e| format!("cannot read `{}`: {}", display(path), io_words(&e)))?;
                let pyproject = real.file_name().is_some_and(|n| n == "pyproject.toml");
                let names: Vec<&str> = targets.iter().map(String::as_str).collect();
                let file = read_config(&real, &display(path), pyproject, &names)?
                    .ok_or_else(|| format!("`{}` has no `[tool.flowc]` table", display(path)))?;
                let dir = real.parent().map_or_else(PathBuf::new, Path::to_path_buf);
                Some(Arc::new(
                    config::settle(&file, Some(&cli), Origin::File(real.clone()), dir)
                        .map_err(|e| format!("`{}`: {e}", display(path)))?,
                ))
            }
        };
        Ok(Configs {
            choice,
            cli,
            targets,
            fixed,
            by_dir: Mutex::new(BTreeMap::new()),
            problem: Mutex::new(None),
            by_path: Mutex::new(BTreeMap::new()),
        })
    }

    /// Every configuration file found, no overrides: what `fmt`, `build`,
    /// `report` and `graph` use.
    pub fn discover(targets: &[&str]) -> Configs {
        Configs {
            choice: ConfigChoice::Discover,
            cli: Overrides::default(),
            targets: targets.iter().map(|t| (*t).to_owned()).collect(),
            fixed: None,
            by_dir: Mutex::new(BTreeMap::new()),
            problem: Mutex::new(None),
            by_path: Mutex::new(BTreeMap::new()),
        }
    }

    /// The settings in force for files in the folder `dir`.
    pub fn for_dir(&self, dir: &Path) -> Result<Arc<Settings>, String> {
        if let Some(f) = &self.fixed {
            return Ok(Arc::clone(f));
        }
        let dir = absolute(dir);
        if let Some(s) = self
            .by_dir
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&dir)
        {
            return Ok(Arc::clone(s));
        }
        let names: Vec<&str> = self.targets.iter().map(String::as_str).collect();
        let mut found = None;
        for d in dir.ancestors() {
            for (name, pyproject) in [("flowc.toml", false), ("pyproject.toml", true)] {
                let candidate = d.join(name);
                if !candidate.is_file() {
                    continue;
                }
                if let Some(file) = read_config(&candidate, &shown(&candidate), pyproject, &names)?
                {
                    found = Some((file, candidate));
                    break;
                }
            }
            if found.is_some() {
                break;
            }
        }
        let settings = match found {
            Some((file, path)) => {
                let folder = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
                config::settle(&file, Some(&self.cli), Origin::File(path.clone()), folder)
                    .map_err(|e| format!("`{}`: {e}", shown(&path)))?
            }
            None => Settings::defaults(Some(&self.cli), false, absolute(Path::new(".")))?,
        };
        let settings = Arc::new(settings);
        self.by_dir
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(dir, Arc::clone(&settings));
        Ok(settings)
    }

    /// The settings in force for the file `path`.
    pub fn for_file(&self, path: &Path) -> Result<Arc<Settings>, String> {
        let abs = absolute(path);
        self.for_dir(abs.parent().unwrap_or(Path::new("/")))
    }

    /// The settings that say what a run with these `paths` shows in
    /// `--show-settings`: those of the first path's folder (itself, for a folder).
    pub fn for_paths(&self, paths: &[PathBuf]) -> Result<Arc<Settings>, String> {
        let first = paths
            .first()
            .map_or_else(|| PathBuf::from("."), Clone::clone);
        if first.is_dir() {
            self.for_dir(&first)
        } else {
            self.for_file(&first)
        }
    }

    /// Which configuration files this run reads.
    pub fn choice(&self) -> &ConfigChoice {
        &self.choice
    }

    /// The first configuration problem met while settling findings.
    pub fn problem(&self) -> Option<String> {
        self.problem
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl crate::check::Policy for Configs {
    fn settle(&self, path: &str, d: &mut crate::diagnostic::Diagnostic) -> bool {
        // Each file's absolute path and settings are looked up once, not
        // once per finding.
        let found = {
            let mut by_path = self.by_path.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((abs, s)) = by_path.get(path) {
                Ok((abs.clone(), Arc::clone(s)))
            } else {
                let abs = absolute(Path::new(path));
                self.for_file(&abs).map(|s| {
                    by_path.insert(path.to_owned(), (abs.clone(), Arc::clone(&s)));
                    (abs, s)
                })
            }
        };
        match found {
            Ok((abs, s)) => s.settle(&abs, d),
            Err(e) => {
                self.problem
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get_or_insert(e);
                true
            }
        }
    }
}

/// An absolute path as messages show it: relative to the current folder
/// when it is inside it.
fn shown(path: &Path) -> String {
    let cwd = std::env::current_dir()
        .ok()
        .and_then(|c| std::fs::canonicalize(c).ok());
    match cwd.as_deref().and_then(|c| path.strip_prefix(c).ok()) {
        Some(rel) if !rel.as_os_str().is_empty() => display(rel),
        _ => display(path),
    }
}

/// Read and parse one configuration file.
fn read_config(
    path: &Path,
    shown: &str,
    pyproject: bool,
    targets: &[&str],
) -> Result<Option<config::FileConfig>, String> {
    let bytes = match read_limited(path, MAX_CONFIG_BYTES) {
        Ok(Ok(b)) => b,
        Ok(Err(_)) => {
            return Err(format!(
                "`{shown}` is larger than 1 MiB, too large for a configuration"
            ))
        }
        Err(e) => return Err(format!("cannot read `{shown}`: {}", io_words(&e))),
    };
    let text = String::from_utf8(bytes).map_err(|_| format!("`{shown}` is not UTF-8 text"))?;
    config::parse(&text, shown, pyproject, targets)
}

/// `p` as an absolute path: canonical when it exists, else its folder's
/// canonical path with its name, else joined to the current folder.
pub fn absolute(p: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(p) {
        return real;
    }
    if let (Some(parent), Some(name)) = (p.parent(), p.file_name()) {
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        if let Ok(real) = std::fs::canonicalize(parent) {
            return real.join(name);
        }
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    normalize(&cwd.join(p))
}

/// The files a run reads: those named, and the *.flow files under named folders.
#[derive(Debug, Default)]
pub struct Found {
    pub files: Vec<PathBuf>,
    /// The named folders that hold no `.flow` file (after exclusions).
    pub empty: Vec<PathBuf>,
}

/// Files named on the command line, and *.flow files under named folders,
/// sorted so runs are deterministic. Folders are searched as `git` would
/// see them: `.gitignore`, `.ignore` and `.git/info/exclude` are honoured
/// (in a git checkout or not), as is `exclude` of the configuration in
/// force; hidden entries, `target` and `node_modules` are skipped. A file
/// named on the command line is always read.
pub fn discover(paths: &[PathBuf], configs: &Arc<Configs>) -> Result<Found, String> {
    let defaults = [PathBuf::from(".")];
    let paths = if paths.is_empty() {
        &defaults[..]
    } else {
        paths
    };
    let mut out = Found::default();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("`{}` does not exist", display(p)),
            _ => format!("cannot read `{}`: {}", display(p), io_words(&e)),
        })?;
        if meta.is_dir() {
            let found = walk(p, configs)?;
            if found.is_empty() {
                out.empty.push(p.clone());
            }
            out.files.extend(found);
        } else {
            out.files.push(normalize(p));
        }
    }
    Ok(out)
}

/// Files named on the command line, and *.flow files under named folders
/// ([`discover`] with the configuration files found).
pub fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let configs = Arc::new(Configs::discover(&[]));
    Ok(discover(paths, &configs)?.files)
}

fn walk(dir: &Path, configs: &Arc<Configs>) -> Result<Vec<PathBuf>, String> {
    let cannot =
        |e: &dyn std::fmt::Display| format!("cannot read folder `{}`: {}", display(dir), e);
    // The configuration of each folder is read once; a bad one stops the walk.
    let problem: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let seen = Arc::clone(&problem);
    let filter = Arc::clone(configs);
    let mut found = Vec::new();
    let walker = ignore::WalkBuilder::new(dir)
        .hidden(true)
        .parents(true)
        .ignore(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |entry| {
            if entry.depth() == 0 {
                return true;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            let name = entry.file_name();
            if is_dir && (name == "target" || name == "node_modules") {
                return false;
            }
            let path = absolute(entry.path());
            match filter.for_file(&path) {
                Ok(s) => !s.excludes(&path),
                Err(e) => {
                    seen.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .get_or_insert(e);
                    false
                }
            }
        })
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => match e.io_error() {
                Some(io) => return Err(cannot(&io_words(io))),
                // A line of an ignore file that is no glob ignores nothing.
                None => continue,
            },
        };
        if let Some(e) = problem
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            return Err(e);
        }
        let path = entry.path();
        let is_file_like = entry.file_type().is_some_and(|t| !t.is_dir());
        // Only regular files (or links to one): a pipe named `x.flow`
        // would block the run.
        if is_file_like && is_flow(path) && std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            found.push(normalize(path));
        }
    }
    if let Some(e) = problem
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()
    {
        return Err(e);
    }
    found.sort();
    Ok(found)
}

/// Collect, read and check files; `Err` is a usage problem (exit 2).
pub fn check_paths(paths: &[PathBuf]) -> Result<crate::check::Outcome, String> {
    let configs = Arc::new(Configs::discover(&[]));
    let found = discover(paths, &configs)?;
    check_files(&found.files, None, &configs)
}

/// Read and check `files` (and the text of standard input, shown as `stdin`'s
/// name, when given) with the configurations of `configs`.
pub fn check_files(
    files: &[PathBuf],
    stdin: Option<&Path>,
    configs: &Configs,
) -> Result<crate::check::Outcome, String> {
    let loader = FsLoader::new();
    let mut inputs = Vec::new();
    if let Some(name) = stdin {
        inputs.push(loader.read_stdin(name)?);
    }
    for f in files {
        inputs.push(
            loader
                .read_root(f)
                .map_err(|e| format!("cannot read `{}`: {e}", display(f)))?,
        );
    }
    let outcome = crate::check::check_with(inputs, &loader, configs);
    match configs.problem() {
        Some(e) => Err(e),
        None => Ok(outcome),
    }
}

/// The source file as a generated header names it: its path relative to its
/// project root ([`project_root`]), with `/` between folders.
/// The same file gives the same text from any working folder, given as a
/// relative or an absolute path, and no absolute path of this machine ever
/// appears (docs/reference/targets.md). A file that cannot be resolved keeps a relative path
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
