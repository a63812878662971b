//! How the code generators write their files: through [`Writer`], which
//! `io::write::Disk` implements, so that code generation stays pure and sits
//! below `io` in the layering (`compiler/tests/it/layering.rs`).

use std::path::{Path, PathBuf};

use super::GeneratedFile;

/// Why a generated file was not written.
#[derive(Debug)]
pub enum Refusal {
    /// Its path leaves the output folder; the reason, in words.
    Outside(String),
    /// A folder is where the file would go.
    Folder(PathBuf),
    /// Something other than a plain file (a pipe, a device) is there.
    NotPlain(PathBuf),
    /// A file flowc did not generate is there.
    NotGenerated(PathBuf),
    /// The system refused to stage or rename it.
    Io(PathBuf, std::io::Error),
}

/// Where generated files go.
pub trait Writer {
    /// Write `files` under `out`, all or none: every path is checked first
    /// (inside `out`, no link, no folder, and no existing file that flowc
    /// did not generate), then every file is staged, and only when all are
    /// staged are they put in place. Returns how many files were written
    /// (the first ones of `files`) and, by index into `files`, why the others
    /// were not.
    fn write_all_or_none(
        &self,
        out: &Path,
        files: &[GeneratedFile],
    ) -> (usize, Vec<(usize, Refusal)>);
}
