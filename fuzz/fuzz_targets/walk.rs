//! Folder walks over a tree the input builds: regular files, links (to
//! the process environment, `/dev/zero`, `/etc/passwd`, secrets beside the
//! project, folders in and out of it, each other), FIFOs, a link to a
//! device, folders, and configuration files that may be any of these,
//! through the functions the binary's `check DIR`, `fmt DIR` and
//! `check --fix DIR` use.
//!
//! The input is split at 0xFF into up to 12 entries. An entry's first byte
//! says what it is (modulo 6: a `.flow` file with the rest as its text, a
//! link to one of the targets below, a FIFO, a folder, a `flowc.toml` or
//! `pyproject.toml` holding the rest, a link named as a configuration);
//! its second byte names it (one of a few names, in the project or a
//! sub-folder). Whatever they are:
//! - nothing hangs and nothing is read without limit (libFuzzer's timeout
//!   and memory limit);
//! - every file the run reads, but the embedded standard library, is a
//!   `.flow` file whose real path lies inside the project;
//! - `fmt`'s reader refuses every file outside the project;
//! - no output form, and no error message, ever shows a byte of a secret
//!   or a terminal control character.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;

const SECRET: &str = "SECRET-5e2a";

struct Base {
    base: PathBuf,
    outside: PathBuf,
}

fn base() -> &'static Base {
    static BASE: OnceLock<Base> = OnceLock::new();
    BASE.get_or_init(|| {
        std::env::set_var("FLOWC_FUZZ_SECRET", SECRET);
        let base = std::env::temp_dir().join(format!("flowc-fuzz-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let outside = base.join("outside");
        std::fs::create_dir_all(outside.join("dir")).expect("create the fuzz tree");
        let write = |p: PathBuf, text: &str| std::fs::write(p, text).expect("write the fuzz tree");
        write(
            outside.join("secret.flow"),
            &format!("source s: files {{\n  path \"{SECRET}\"\n}}\n{SECRET}\n"),
        );
        write(outside.join(".env"), &format!("TOKEN={SECRET}\n"));
        write(outside.join("flowc.toml"), &format!("select = [\"{SECRET}\"]\n"));
        write(outside.join("dir/in.flow"), &format!("# {SECRET}\n"));
        Base {
            base: base.canonicalize().expect("canonical base"),
            outside: outside.canonicalize().expect("canonical outside"),
        }
    })
}

const NAMES: [&str; 8] = [
    "a.flow",
    "b.flow",
    "sub/c.flow",
    "sub/d.flow",
    "sub",
    "deep/sub/e.flow",
    "x.txt",
    "sub/deep",
];

fn targets(outside: &Path) -> Vec<String> {
    vec![
        "/proc/self/environ".into(),
        "/dev/zero".into(),
        "/dev/null".into(),
        "/etc/passwd".into(),
        "/".into(),
        outside.join("secret.flow").display().to_string(),
        outside.join(".env").display().to_string(),
        outside.join("flowc.toml").display().to_string(),
        outside.display().to_string(),
        "../outside/dir".into(),
        "..".into(),
        "a.flow".into(),
        "sub".into(),
        "fifo.flow".into(),
        "nowhere.flow".into(),
    ]
}

/// Whether the folder of `at`, as far as it exists, really lies inside `project` (a real path).
/// An entry may make `sub` a link to `/` or out of the project; the harness must not then make
/// `sub/c.flow`, `sub/pyproject.toml` or `sub/deep` through it (run as root, it wrote
/// `/pyproject.toml`, which every Python tool run below `/` then failed to parse).
fn folder_inside(project: &Path, at: &Path) -> bool {
    let mut folder = at.parent();
    while let Some(dir) = folder {
        if let Ok(real) = dir.canonicalize() {
            return real.starts_with(project);
        }
        folder = dir.parent();
    }
    false
}

/// Writes `bytes` to `at` unless `at` already is something other than a regular file. The
/// harness itself must never open a FIFO for writing (that blocks until a reader comes: an
/// earlier entry may have made `at` a FIFO, or a link to one) nor write through a link (to the
/// secrets outside the project, or to `/dev/zero`).
fn write_plain(at: &Path, bytes: &[u8]) {
    if at.symlink_metadata().map_or(true, |m| m.file_type().is_file()) {
        let _ = std::fs::write(at, bytes);
    }
}

fuzz_target!(|data: &[u8]| {
    static RUN: AtomicUsize = AtomicUsize::new(0);
    let b = base();
    let project = b.base.join(format!("p{}", RUN.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::create_dir_all(project.join(".git"));
    let targets = targets(&b.outside);
    for entry in data.split(|&x| x == 0xff).take(12) {
        let (Some(&kind), Some(&name)) = (entry.first(), entry.get(1)) else {
            continue;
        };
        let rest = &entry[2..];
        let at = project.join(NAMES[usize::from(name) % NAMES.len()]);
        if !folder_inside(&project, &at) {
            continue; // an earlier entry made a folder on the way a link out of the project
        }
        if let Some(parent) = at.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let target = |n: usize| targets[n % targets.len()].clone();
        match kind % 6 {
            0 => write_plain(&at, rest),
            1 => {
                let t = target(rest.first().map_or(0, |&x| usize::from(x)));
                let _ = std::os::unix::fs::symlink(t, &at);
            }
            2 => {
                let _ = std::process::Command::new("mkfifo").arg(&at).status();
            }
            3 => {
                let _ = std::fs::create_dir_all(&at);
            }
            4 => {
                let config = if name % 2 == 0 {
                    "flowc.toml"
                } else {
                    "pyproject.toml"
                };
                let dir = at.parent().unwrap_or(&project);
                write_plain(&dir.join(config), rest);
            }
            _ => {
                let config = if name % 2 == 0 {
                    "flowc.toml"
                } else {
                    "pyproject.toml"
                };
                let dir = at.parent().unwrap_or(&project);
                let t = target(rest.first().map_or(0, |&x| usize::from(x)));
                let _ = std::os::unix::fs::symlink(t, dir.join(config));
            }
        }
    }
    let root = project.canonicalize().expect("canonical project");
    let secret_free = |what: &str, text: &str| {
        assert!(!text.contains(SECRET), "a secret reached {what}:\n{text}");
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "a control character reached {what}: {text:?}"
        );
    };
    match flowc::io::read::check_paths(&[project.clone()]) {
        Err(e) => secret_free("an error", &flowc::diagnostic::human::escape_controls(&e)),
        Ok(outcome) => {
            for i in 0..outcome.sources.len() {
                let path = outcome.sources.path(flowc::source::FileId(i));
                if path.starts_with("<stdlib>/") {
                    continue;
                }
                assert!(
                    Path::new(path).extension().is_some_and(|e| e == "flow"),
                    "a file that is not `.flow` was read: {path:?}"
                );
                let real = Path::new(path)
                    .canonicalize()
                    .unwrap_or_else(|_| PathBuf::from(path));
                assert!(
                    real.starts_with(&root),
                    "a file outside the project was read: {path:?} ({real:?})"
                );
                assert!(
                    !outcome
                        .sources
                        .text(flowc::source::FileId(i))
                        .contains(SECRET),
                    "a secret was read from {path:?}"
                );
            }
            let summary = outcome.summary();
            let rendered = [
                flowc::diagnostic::human::render(
                    &outcome.sources,
                    &outcome.diagnostics,
                    summary,
                    false,
                ),
                flowc::diagnostic::json::render(&outcome.sources, &outcome.diagnostics, summary),
                flowc::diagnostic::sarif::render(
                    &outcome.sources,
                    &outcome.diagnostics,
                    summary.omitted,
                ),
                flowc::diagnostic::github::render(&outcome.sources, &outcome.diagnostics, summary),
            ];
            for r in &rendered {
                assert!(!r.contains(SECRET), "a secret reached the output:\n{r}");
            }
        }
    }
    // What `fmt` and `check --fix` read of a folder: the same walk, and a
    // reader that refuses anything outside the project.
    let configs = Arc::new(flowc::io::read::Configs::discover(&[]));
    if let Ok(found) = flowc::io::read::discover(&[project.clone()], &configs) {
        for f in &found.files {
            if let Ok(Ok(bytes)) = flowc::io::read::read_source(f, 1 << 20) {
                let real = f.canonicalize().expect("a file read exists");
                assert!(real.starts_with(&root), "fmt read {f:?} ({real:?})");
                assert!(
                    !String::from_utf8_lossy(&bytes).contains(SECRET),
                    "fmt read a secret from {f:?}"
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&project);
});
