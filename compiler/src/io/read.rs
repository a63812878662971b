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

    /// A file named on the command line or found by a folder walk: a
    /// regular file inside its project root, never through a link that
    /// leaves it, read up to [`MAX_INPUT_BYTES`].
    pub fn read_root(&self, path: &Path) -> Result<Input, String> {
        let (real, root) = source_place(path)?;
        let bytes = read_bounded(&real)?;
        Ok(self.remember(path.to_path_buf(), real, root, bytes))
    }

    /// An editor's document: `bytes` as the text of the file at `path`,
    /// which is never opened (it may be a pipe or a device); its `use` is
    /// read from its real folder. `None` when no file is at `path`.
    pub fn with_text(&self, path: &Path, bytes: Vec<u8>) -> Option<Input> {
        let real = std::fs::canonicalize(path).ok()?;
        let root = project_root(path);
        Some(self.remember(path.to_path_buf(), real, root, bytes))
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
                "{what} outside the project root{}, and `use` reads nothing outside it",
                root_words()
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
        let bytes = read_bounded(&real)?;
        let shown = normalize(&from.shown.parent().unwrap_or(Path::new("")).join(named));
        Ok(self.remember(shown, real, from.root, bytes))
    }
}

const NOT_REGULAR: &str = "it is not a regular file (a device, pipe or socket)";

fn is_flow(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "flow")
}

/// Read at most [`MAX_INPUT_BYTES`] of the regular file `path` (a pipe,
/// device or socket is refused without blocking); a file over the limit is
/// refused, unread when its size is known up front.
fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    let file = open_regular(path).map_err(|e| {
        if e.starts_with("it is a folder") {
            "it is a folder, not a `.flow` file".to_string()
        } else {
            e
        }
    })?;
    let too_large = || {
        format!(
            "it is larger than {} MiB, the most flowc reads from one file; split it into files joined with `use`",
            MAX_INPUT_BYTES / 1_048_576
        )
    };
    match read_capped(file, MAX_INPUT_BYTES as u64).map_err(|e| io_words(&e))? {
        Ok(bytes) => Ok(bytes),
        Err(_) => Err(too_large()),
    }
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
/// Python project's with a `[tool.flowc]` table, or a git checkout.
pub const ROOT_MARKERS: [&str; 3] = ["flowc.toml", "pyproject.toml", ".git"];

/// A configuration file at a project root: where it is, whether it is a
/// `pyproject.toml`, and its text (or why it was not read).
#[derive(Debug, Clone)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub pyproject: bool,
    pub text: Result<String, String>,
}

/// A folder's project: its root, and the configuration file that marks it.
#[derive(Debug, Clone)]
pub struct Project {
    /// Canonical when the folder exists.
    pub root: PathBuf,
    pub config: Option<ConfigFile>,
}

/// The project of the folder `dir`, defined once for files and
/// configuration alike: the nearest folder at or above `dir` that holds a
/// `flowc.toml`, or a `pyproject.toml` with a `[tool.flowc]` table (in one
/// folder `flowc.toml` wins), never above the repository (the nearest
/// folder holding `.git`) when there is one; else the repository's folder;
/// else `dir` itself. Its configuration file is read only when it is a
/// regular file inside the root (a link to elsewhere is refused).
pub fn locate(dir: &Path) -> Project {
    let dir = absolute(dir);
    let repo = dir
        .ancestors()
        .find(|d| d.join(".git").symlink_metadata().is_ok())
        .map(Path::to_path_buf);
    for d in dir.ancestors() {
        let toml = d.join("flowc.toml");
        if toml.symlink_metadata().is_ok_and(|m| !m.is_dir()) {
            let text = read_config_text(&toml, d);
            return Project {
                root: d.to_path_buf(),
                config: Some(ConfigFile {
                    path: toml,
                    pyproject: false,
                    text,
                }),
            };
        }
        let py = d.join("pyproject.toml");
        if py.symlink_metadata().is_ok_and(|m| !m.is_dir()) {
            // A `pyproject.toml` that cannot be read safely marks nothing.
            if let Ok(text) = read_config_text(&py, d) {
                if has_flowc_table(&text) {
                    return Project {
                        root: d.to_path_buf(),
                        config: Some(ConfigFile {
                            path: py,
                            pyproject: true,
                            text: Ok(text),
                        }),
                    };
                }
            }
        }
        if repo.as_deref() == Some(d) {
            break;
        }
    }
    Project {
        root: repo.unwrap_or(dir),
        config: None,
    }
}

/// Whether a `pyproject.toml` holds a `[tool.flowc]` table; one that is not
/// valid TOML counts when it mentions `tool.flowc`, so its error is shown.
fn has_flowc_table(text: &str) -> bool {
    match toml::from_str::<toml::Table>(text) {
        Ok(doc) => doc.get("tool").and_then(|t| t.get("flowc")).is_some(),
        Err(_) => text.contains("tool.flowc"),
    }
}

/// The text of the configuration file `path` of the project rooted at
/// `root`: a regular file inside the root (through a link only to a file
/// inside it), at most [`MAX_CONFIG_BYTES`], UTF-8.
fn read_config_text(path: &Path, root: &Path) -> Result<String, String> {
    let real = contained(path, root)?;
    let Ok(bytes) = open_regular(&real)
        .and_then(|f| read_capped(f, MAX_CONFIG_BYTES).map_err(|e| io_words(&e)))?
    else {
        return Err("it is larger than 1 MiB, too large for a configuration".into());
    };
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())
}

/// The real path of `path` when it lies inside `root` (itself or through
/// links that stay inside), else why not.
fn contained(path: &Path, root: &Path) -> Result<PathBuf, String> {
    let real = std::fs::canonicalize(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "no such file (or a link to nothing)".to_string(),
        _ => io_words(&e),
    })?;
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if real.starts_with(&root) {
        Ok(real)
    } else {
        Err(format!(
            "it is a link to a file outside the project root{}, and flowc reads nothing there",
            root_words()
        ))
    }
}

/// How messages name the project root.
fn root_words() -> &'static str {
    " (the folder of the nearest `flowc.toml`, `pyproject.toml` with \
     `[tool.flowc]`, or `.git`)"
}

/// Open `path` for reading without blocking on a pipe, and only when it
/// is a regular file (its handle says so, not an earlier look).
fn open_regular(path: &Path) -> Result<std::fs::File, String> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        _ => io_words(&e),
    })?;
    let meta = file.metadata().map_err(|e| io_words(&e))?;
    if meta.is_dir() {
        return Err("it is a folder, not a file".to_string());
    }
    if !meta.is_file() {
        return Err(NOT_REGULAR.to_string());
    }
    Ok(file)
}

/// At most `limit` bytes of `file`: `Err(size)` past it.
fn read_capped(file: std::fs::File, limit: u64) -> std::io::Result<Result<Vec<u8>, u64>> {
    let size = file.metadata().map_or(0, |m| m.len());
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Ok(Err(size.max(limit + 1)));
    }
    Ok(Ok(bytes))
}

/// The project root of `file`: that of the folder holding it (see
/// [`locate`]), the file itself never resolved (a link named `x.flow` is
/// judged by where it sits, and what it leads to must lie inside). `use`
/// stays inside it, and generated headers name sources relative to it.
pub fn project_root(file: &Path) -> PathBuf {
    let parent = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    locate(parent).root
}

/// A `.flow` file's real path and project root, when it may be read: a
/// regular file inside its project root, reached through no link that
/// leaves it.
pub fn source_place(path: &Path) -> Result<(PathBuf, PathBuf), String> {
    let root = project_root(path);
    let real = contained(path, &root)?;
    let meta = std::fs::metadata(&real).map_err(|e| io_words(&e))?;
    if meta.is_dir() {
        return Err("it is a folder, not a `.flow` file".to_string());
    }
    if !meta.is_file() {
        return Err(NOT_REGULAR.to_string());
    }
    Ok((real, root))
}

/// The bytes of a `.flow` file flowc reads itself (`fmt`): as
/// [`source_place`] allows, at most `limit` bytes (`Ok(Err(size))` past it).
pub fn read_source(path: &Path, limit: u64) -> Result<Result<Vec<u8>, u64>, String> {
    let (real, _) = source_place(path)?;
    let file = open_regular(&real)?;
    read_capped(file, limit).map_err(|e| io_words(&e))
}

/// Paths and I/O errors in words (pure: defined with the findings, below
/// the code generators, which word what `io` reports).
pub use crate::diagnostic::words::{display, io_words};

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
        if let Some(c) = locate(&dir).config {
            let shown = shown(&c.path);
            let text = c.text.map_err(|e| match e.strip_prefix("it is ") {
                Some(rest) if !rest.starts_with("a link") && !rest.starts_with("not a regular") => {
                    format!("`{shown}` is {rest}")
                }
                _ => format!("cannot read `{shown}`: {e}"),
            })?;
            if let Some(file) = config::parse(&text, &shown, c.pyproject, &names)? {
                found = Some((file, c.path));
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
        let at = sits_at(path);
        self.for_dir(at.parent().unwrap_or(Path::new("/")))
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
                let abs = sits_at(Path::new(path));
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

/// Read and parse the configuration file named on the command line
/// (`--config`): a regular file, wherever it is.
fn read_config(
    path: &Path,
    shown: &str,
    pyproject: bool,
    targets: &[&str],
) -> Result<Option<config::FileConfig>, String> {
    let file = open_regular(path).map_err(|e| format!("cannot read `{shown}`: {e}"))?;
    let Ok(bytes) = read_capped(file, MAX_CONFIG_BYTES)
        .map_err(|e| format!("cannot read `{shown}`: {}", io_words(&e)))?
    else {
        return Err(format!(
            "`{shown}` is larger than 1 MiB, too large for a configuration"
        ));
    };
    let text = String::from_utf8(bytes).map_err(|_| format!("`{shown}` is not UTF-8 text"))?;
    config::parse(&text, shown, pyproject, targets)
}

/// `p` as an absolute path: canonical when it exists, else its folder's
/// canonical path with its name, else joined to the current folder.
/// Where the file `p` sits: its folder's real path joined with its own name,
/// the file itself never resolved. A link named `x.flow` takes the settings
/// of the folder it is in, never those of the folder it leads to (which may
/// lie outside the project: its configuration is never read).
pub fn sits_at(p: &Path) -> PathBuf {
    match (p.parent(), p.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            absolute(parent).join(name)
        }
        _ => absolute(p),
    }
}

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
    /// The `.flow` files of folders that were not read: links that leave
    /// the project root, and files that are not regular.
    pub skipped: Vec<PathBuf>,
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
            let (found, skipped) = walk(p, configs)?;
            if found.is_empty() {
                out.empty.push(p.clone());
            }
            out.files.extend(found);
            for (path, why) in skipped {
                eprintln!(
                    "warning: skipped `{}`: {why}",
                    crate::diagnostic::human::escape_controls(&display(&path))
                );
                out.skipped.push(path);
            }
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

/// The `.flow` files under `dir`, and those skipped with the reason.
type Walked = (Vec<PathBuf>, Vec<(PathBuf, String)>);

fn walk(dir: &Path, configs: &Arc<Configs>) -> Result<Walked, String> {
    let cannot =
        |e: &dyn std::fmt::Display| format!("cannot read folder `{}`: {}", display(dir), e);
    // The configuration of each folder is read once; a bad one stops the walk.
    let problem: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let seen = Arc::clone(&problem);
    let filter = Arc::clone(configs);
    let named = absolute(dir);
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    let mut roots: std::collections::HashMap<PathBuf, PathBuf> = std::collections::HashMap::new();
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
            let path = sits_at(entry.path());
            match filter.for_file(&path) {
                Ok(s) => !s.excludes_below(&named, &path),
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
        if !is_file_like || !is_flow(path) {
            continue;
        }
        // Only regular files inside the project root, or links to one: a
        // pipe named `x.flow` would block the run, and a link named so may
        // lead to any file of the machine.
        let parent = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let root = roots
            .entry(parent)
            .or_insert_with(|| project_root(path))
            .clone();
        match contained(path, &root).and_then(|real| {
            let meta = std::fs::metadata(&real).map_err(|e| io_words(&e))?;
            if meta.is_file() {
                Ok(())
            } else {
                Err(NOT_REGULAR.to_string())
            }
        }) {
            Ok(()) => found.push(normalize(path)),
            Err(why) => skipped.push((normalize(path), why)),
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
    skipped.sort();
    Ok((found, skipped))
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
    let mut outcome = crate::check::check_with(inputs, &loader, configs);
    // The code generators name each root in their headers without reaching
    // the disk themselves (`codegen::lower`).
    for &file in &outcome.roots {
        let header = header_path(outcome.sources.path(file));
        outcome.header_paths.insert(file, header);
    }
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
