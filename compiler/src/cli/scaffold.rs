//! `flowc scaffold --lang python`: task modules, their runtime and transform stubs.

use std::path::PathBuf;
use std::process::ExitCode;

use super::build::{generate_into, plural};

pub(super) fn run(paths: &[PathBuf], out: &std::path::Path) -> ExitCode {
    let result = generate_into(paths, out, crate::codegen::target::python_scaffold, |_| {
        Vec::new()
    });
    match result {
        Ok(run) => {
            let kept_note = if run.kept.is_empty() {
                String::new()
            } else {
                format!(
                    "; kept {} as it was",
                    plural(run.kept.len(), "existing transform")
                )
            };
            eprintln!(
                "flowc: wrote {} to {}{kept_note}",
                plural(run.written.len(), "file"),
                super::shown_path(out)
            );
            run.code
        }
        Err(code) => code,
    }
}
