//! `flowc init`: a starter project.

use std::process::ExitCode;

use super::usage_error;

pub(super) fn run(dir: Option<&std::path::Path>) -> ExitCode {
    let dir = dir.unwrap_or(std::path::Path::new("."));
    let name = std::fs::canonicalize(dir)
        .ok()
        .or_else(|| Some(dir.to_path_buf()))
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "pipelines".into());
    let files = crate::init::starter_files(&name);
    for (rel, _) in &files {
        if dir.join(rel).exists() {
            return usage_error(&format!(
                "`{}` already exists; init changes nothing in a project that has it",
                dir.join(rel).display()
            ));
        }
    }
    for (rel, contents) in &files {
        if let Err(e) = crate::io::write::write_atomic(&dir.join(rel), contents) {
            return usage_error(&format!(
                "cannot write `{}`: {}",
                dir.join(rel).display(),
                crate::io::read::io_words(&e)
            ));
        }
        eprintln!("created {}", dir.join(rel).display());
    }
    eprintln!("next: `flowc check {}`", dir.display());
    ExitCode::SUCCESS
}
