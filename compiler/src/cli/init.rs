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
        // Anything at the path counts, a link to nothing included: it
        // would be replaced.
        if dir.join(rel).symlink_metadata().is_ok() {
            return usage_error(&format!(
                "`{}` already exists; init changes nothing in a project that has it",
                super::shown_path(&dir.join(rel))
            ));
        }
    }
    for (rel, contents) in &files {
        if let Err(e) = crate::io::write::write_atomic(&dir.join(rel), contents) {
            return usage_error(&format!(
                "cannot write `{}`: {}",
                super::shown_path(&dir.join(rel)),
                crate::io::read::io_words(&e)
            ));
        }
        eprintln!("created {}", super::shown_path(&dir.join(rel)));
    }
    eprintln!("next: `flowc check {}`", super::shown_path(dir));
    ExitCode::SUCCESS
}
