//! `flowc fmt`: rewrite files in the canonical layout, or show the diff.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{print, usage_error};

pub(super) fn run(paths: &[PathBuf], check: bool) -> ExitCode {
    use crate::io::read::{collect, display};
    let files = match collect(paths) {
        Ok(f) => f,
        Err(e) => return usage_error(&e),
    };
    let mut failed = false;
    let mut out = String::new();
    for f in &files {
        // Escaped: a file name may hold control characters.
        let name = crate::diagnostic::human::escape_controls(&display(f)).into_owned();
        let text = match crate::io::read::read_source(f, crate::format::MAX_INPUT_BYTES) {
            Ok(Err(size)) => {
                let e = crate::format::file_too_large(size);
                eprintln!("{name}:{e}");
                failed = true;
                continue;
            }
            Ok(Ok(bytes)) => {
                if let Ok(t) = String::from_utf8(bytes) {
                    t
                } else {
                    eprintln!("{name}: not UTF-8; run `flowc check {name}`");
                    failed = true;
                    continue;
                }
            }
            Err(e) => return usage_error(&format!("cannot read `{name}`: {e}")),
        };
        match crate::format::format_file(&text) {
            Ok(new) if new == text => {}
            Ok(new) if check => {
                failed = true;
                let diff = similar::TextDiff::from_lines(&text, &new);
                // Escaped: a control character of the file would reach
                // the terminal.
                out.push_str(&crate::diagnostic::human::escape_controls(
                    &diff
                        .unified_diff()
                        .context_radius(2)
                        .header(&name, &format!("{name} (formatted)"))
                        .to_string(),
                ));
            }
            Ok(new) => {
                if let Err(e) = crate::io::write::rewrite_existing(f, &new) {
                    return usage_error(&format!(
                        "cannot write `{name}`: {}",
                        crate::io::read::io_words(&e)
                    ));
                }
                eprintln!("formatted {name}");
            }
            Err(e) => {
                eprintln!("{name}:{e}; run `flowc check {name}` for details");
                failed = true;
            }
        }
    }
    print(&out);
    ExitCode::from(u8::from(failed))
}
