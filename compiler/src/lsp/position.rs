//! Byte offsets to LSP positions and back. The protocol counts columns in
//! UTF-16 code units (the default `positionEncoding` of LSP 3.17); flowc's
//! spans are byte offsets into UTF-8 text.

use lsp_types::{Position, Range};

use crate::span::{LineIndex, Span};

/// A text with its line starts, for mapping in both directions.
pub struct Lines<'a> {
    text: &'a str,
    index: LineIndex,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Self {
        Lines {
            text,
            index: LineIndex::new(text),
        }
    }

    fn line_bounds(&self, line: usize) -> Option<(usize, usize)> {
        let start = self.index.line_start(line)?;
        let end = self
            .index
            .line_start(line + 1)
            .map_or(self.text.len(), |n| n - 1);
        Some((start, end.max(start)))
    }

    /// The position of byte `offset` (clamped to the text, and moved back
    /// to the start of a character it falls inside).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.index.line_of(offset);
        let start = self.index.line_start(line).unwrap_or(0);
        let col: usize = self.text[start..offset].chars().map(char::len_utf16).sum();
        Position::new(to_u32(line), to_u32(col))
    }

    pub fn range(&self, span: Span) -> Range {
        Range::new(self.position(span.start), self.position(span.end))
    }

    /// The byte offset of `pos`: a line past the end is the end of the
    /// text, a column past the end of its line is the end of the line, and
    /// a column inside a surrogate pair is the start of its character.
    pub fn offset(&self, pos: Position) -> usize {
        let Some((start, end)) = self.line_bounds(pos.line as usize) else {
            return self.text.len();
        };
        let mut units = 0usize;
        let want = pos.character as usize;
        for (i, c) in self.text[start..end].char_indices() {
            if units >= want {
                return start + i;
            }
            units += c.len_utf16();
            if units > want {
                return start + i;
            }
        }
        end
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_round_trips() {
        let l = Lines::new("ab\ncd\n");
        assert_eq!(l.position(0), Position::new(0, 0));
        assert_eq!(l.position(4), Position::new(1, 1));
        assert_eq!(l.offset(Position::new(1, 1)), 4);
        assert_eq!(l.position(6), Position::new(2, 0));
    }

    #[test]
    fn columns_count_utf16_units_not_bytes_or_chars() {
        // `é` is 2 bytes and 1 unit; `😀` is 4 bytes and 2 units (a pair).
        let text = "# é😀x\nsource s: k {}\n";
        let l = Lines::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(x, 8);
        assert_eq!(l.position(x), Position::new(0, 5));
        assert_eq!(l.offset(Position::new(0, 5)), x);
        // After the emoji: byte 8; before it: byte 4 (unit 3).
        assert_eq!(l.offset(Position::new(0, 3)), 4);
        // Inside the surrogate pair: the start of the emoji.
        assert_eq!(l.offset(Position::new(0, 4)), 4);
        // A byte inside a character maps to the character's start.
        assert_eq!(l.position(5), Position::new(0, 3));
        assert_eq!(l.position(3), Position::new(0, 2));
    }

    #[test]
    fn out_of_range_positions_clamp() {
        let text = "añb\nz";
        let l = Lines::new(text);
        assert_eq!(l.offset(Position::new(0, 99)), 4);
        assert_eq!(l.offset(Position::new(9, 0)), text.len());
        assert_eq!(l.position(999), Position::new(1, 1));
        // CRLF: the column past the end of a line stops before the `\r`? No:
        // `\r` is text of the line for the protocol too.
        let crlf = Lines::new("ab\r\ncd");
        assert_eq!(crlf.offset(Position::new(0, 9)), 3);
        assert_eq!(crlf.offset(Position::new(1, 1)), 5);
    }
}
