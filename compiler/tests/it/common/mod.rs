//! Shared helpers for the integration tests: run checks in-process with
//! paths relative to the repository root, so outputs are the same on every machine.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Once;

use flowc::check::Outcome;
use flowc::diagnostic::{self, Summary};

pub mod ir;
mod runner;

#[allow(unused_imports)]
pub use runner::{flowc, flowc_in, Flowc, Run};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

static CWD: Once = Once::new();

/// Run from the repository root, so display paths are `tests/...`.
///
/// The working folder is the process's, shared by every test of the binary:
/// it is set once, to the one folder every test assumes. Tests that start
/// `flowc` pass their own `current_dir`, and the others name files relative
/// to the root only after calling this (through [`check`] or
/// [`flow_files`]), so no test sees another folder. In-process checks need
/// it because a file is shown by the path it was given.
pub fn at_root() {
    CWD.call_once(|| {
        std::env::set_current_dir(repo_root()).expect("repository root exists");
    });
}

pub fn check(paths: &[&str]) -> Outcome {
    at_root();
    let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    flowc::io::read::check_paths(&paths).expect("paths exist")
}

/// `src` checked in memory as `t.flow`, with no imports.
pub fn check_text(src: &str) -> Outcome {
    flowc::check::check(
        vec![flowc::check::Input {
            path: "t.flow".into(),
            key: "t.flow".into(),
            bytes: src.as_bytes().to_vec(),
        }],
        &flowc::check::NoImports,
    )
}

/// The report of a run, as `flowc report --format json` prints it.
pub fn report_json(o: &Outcome) -> serde_json::Value {
    serde_json::from_str(&flowc::report::json(o)).expect("report json")
}

pub fn human(o: &Outcome) -> String {
    let summary = Summary::of(o.roots.len(), &o.diagnostics);
    diagnostic::human::render(&o.sources, &o.diagnostics, summary, false)
}

pub fn json(o: &Outcome) -> String {
    let summary = Summary::of(o.roots.len(), &o.diagnostics);
    diagnostic::json::render(&o.sources, &o.diagnostics, summary)
}

/// Codes of unsuppressed findings.
pub fn codes(o: &Outcome) -> Vec<&'static str> {
    o.diagnostics
        .iter()
        .filter(|d| d.suppressed.is_none())
        .map(|d| d.code.as_str())
        .collect()
}

/// Every `*.flow` file under a folder of the repository, sorted, relative to the root.
pub fn flow_files(dir: &str) -> Vec<String> {
    files_with_extension(dir, "flow")
}

/// Every file with this extension under a folder of the repository, sorted, relative to the root.
pub fn files_with_extension(dir: &str, ext: &str) -> Vec<String> {
    at_root();
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("folder exists") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}
