//! The files of one run: their display paths and text.

use crate::span::{LineIndex, Location, Span};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub usize);

#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as the user gave it (or as reached through `use`), with `/`.
    pub path: String,
    pub text: String,
    pub lines: LineIndex,
}

#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn add(&mut self, path: impl Into<String>, text: impl Into<String>) -> FileId {
        let text = text.into();
        let lines = LineIndex::new(&text);
        self.files.push(SourceFile {
            path: path.into(),
            text,
            lines,
        });
        FileId(self.files.len() - 1)
    }

    /// [`SourceMap::add`] for a text whose line index is already built.
    pub fn add_indexed(&mut self, path: String, text: String, lines: LineIndex) -> FileId {
        self.files.push(SourceFile { path, text, lines });
        FileId(self.files.len() - 1)
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0]
    }

    pub fn path(&self, id: FileId) -> &str {
        &self.files[id.0].path
    }

    pub fn text(&self, id: FileId) -> &str {
        &self.files[id.0].text
    }

    pub fn locate(&self, id: FileId, span: Span) -> Location {
        let f = &self.files[id.0];
        f.lines.locate(&f.text, span)
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}
