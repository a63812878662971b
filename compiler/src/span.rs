//! Byte spans over one source file, and the line/column index used to report them.

use serde::Serialize;

/// A half-open byte range `[start, end)` in one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    pub fn len(self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.end == self.start
    }

    /// The smallest span covering both.
    #[must_use]
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    pub fn contains(self, other: Span) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

/// A span as the JSON shapes of docs/json.md spell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Location {
    pub offset: usize,
    pub length: usize,
    pub line: usize,
    pub column: usize,
}

/// Line starts of a file, for turning byte offsets into 1-based lines and
/// columns counted in Unicode scalar values.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { starts }
    }

    /// The 0-based line that holds byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// Where 0-based `line` starts; `None` past the last line.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line).copied()
    }

    pub fn locate(&self, text: &str, span: Span) -> Location {
        let offset = span.start.min(text.len());
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let line_start = self.starts[line];
        let column = text
            .get(line_start..offset)
            .map_or(offset - line_start, |s| s.chars().count())
            + 1;
        Location {
            offset,
            length: span.len(),
            line: line + 1,
            column,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_scalar_values() {
        let text = "ab\nécho x\n";
        let idx = LineIndex::new(text);
        let at_x = text.find('x').unwrap();
        let loc = idx.locate(text, Span::new(at_x, at_x + 1));
        assert_eq!((loc.line, loc.column, loc.offset), (2, 6, at_x));
    }
}
