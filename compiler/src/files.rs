//! The file system side of a run: finding `.flow` files, reading them, and
//! following `use` relative to the importing file. Kept out of the pure core.

use std::path::{Component, Path, PathBuf};

use crate::analyze::{Input, Loader};

/// Reads `use`d files relative to the importing file.
pub struct FsLoader;

impl Loader for FsLoader {
    fn load(&self, from: &str, rel: &str) -> Result<Input, String> {
        let base = Path::new(from).parent().unwrap_or(Path::new(""));
        let path = normalize(&base.join(rel));
        read_input(&path)
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

pub fn read_input(path: &Path) -> Result<Input, String> {
    if path.is_dir() {
        return Err("it is a folder, not a `.flow` file".to_string());
    }
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        _ => io_words(&e),
    })?;
    let key = std::fs::canonicalize(path).map_or_else(|_| display(path), |c| display(&c));
    Ok(Input {
        path: display(path),
        key,
        bytes,
    })
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
        } else if path.extension().is_some_and(|e| e == "flow") {
            out.push(normalize(&path));
        }
    }
    Ok(())
}

/// Collect, read and check files; `Err` is a usage problem (exit 2).
pub fn check_paths(paths: &[PathBuf]) -> Result<crate::analyze::Outcome, String> {
    let files = collect(paths)?;
    let mut inputs = Vec::new();
    for f in &files {
        inputs.push(read_input(f).map_err(|e| format!("cannot read `{}`: {e}", display(f)))?);
    }
    Ok(crate::analyze::check(inputs, &FsLoader))
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
