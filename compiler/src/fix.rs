//! Fixes: the machine-applicable part of findings' help, as edits of the
//! text. Pure: `flowc check --fix` (`cli::fix`) reads and writes the files
//! and runs the rounds, the language server offers the same edits as quick
//! fixes.
//!
//! A fix does only what its finding's help says (a did-you-mean name, a
//! keyword's case, the pin the source's kind offers, a lease), so it never
//! weakens a derived guarantee; `compiler/tests/it/fix.rs` checks that
//! against `flowc report` for every example and fixture a fix applies to.

use crate::diagnostic::{Diagnostic, Edit};
use crate::source::FileId;
use crate::span::Span;

/// The most rounds of fixes one run applies: a fix can reveal another (a
/// name fixed lets the read resolve, whose pin is then fixed); past this
/// the rest is left for the next run.
pub const MAX_ROUNDS: usize = 8;

/// `edit` as a replacement of a span of `text`, or `None` when it does not
/// fit the text (out of bounds, or not on character boundaries). A line
/// edit becomes an insertion at the start of the line that holds its
/// offset, indented as that line is.
pub fn resolve(text: &str, edit: &Edit) -> Option<(Span, String)> {
    let (start, end) = (edit.span.start, edit.span.end);
    if start > end
        || end > text.len()
        || !text.is_char_boundary(start)
        || !text.is_char_boundary(end)
    {
        return None;
    }
    if !edit.line {
        return Some((edit.span, edit.text.clone()));
    }
    let line = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = text[line..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let newline = if text[line..]
        .split('\n')
        .next()
        .is_some_and(|l| l.ends_with('\r'))
    {
        "\r\n"
    } else {
        "\n"
    };
    Some((
        Span::new(line, line),
        format!("{indent}{}{newline}", edit.text),
    ))
}

/// The fixes of the unsuppressed findings among `diags` whose edits are
/// all in `file`, applied to its `text`: each fix whole or not at all, and
/// of two that touch the same text the one found first. Returns the new
/// text and how many fixes it applied (a fix whose edits another already
/// made counts as applied).
pub fn apply(text: &str, file: FileId, diags: &[Diagnostic]) -> (String, usize) {
    let mut fixes: Vec<Vec<(Span, String)>> = diags
        .iter()
        .filter(|d| d.suppressed.is_none())
        .filter_map(|d| d.fix.as_ref())
        .filter(|f| !f.edits.is_empty() && f.edits.iter().all(|e| e.file == file))
        .filter_map(|f| f.edits.iter().map(|e| resolve(text, e)).collect())
        .collect();
    fixes.sort_by_key(|f| f.iter().map(|(s, _)| (s.start, s.end)).min());
    let mut taken: Vec<(Span, String)> = Vec::new();
    let mut applied = 0;
    for fix in fixes {
        if fix.iter().all(|e| taken.contains(e)) {
            applied += 1;
            continue;
        }
        let clashes = fix.iter().any(|(s, _)| {
            taken.iter().any(|(t, _)| {
                // Two insertions at one place, or overlapping replacements.
                (s.start < t.end && t.start < s.end) || s.start == t.start
            })
        });
        if clashes {
            continue;
        }
        taken.extend(fix);
        applied += 1;
    }
    taken.sort_by_key(|(s, _)| (s.start, s.end));
    let mut out = text.to_string();
    for (s, t) in taken.iter().rev() {
        out.replace_range(s.start..s.end, t);
    }
    (out, applied)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Code;

    fn d(span: Span, text: &str, line: bool) -> Diagnostic {
        let d = Diagnostic::new(Code::FL702, FileId(0), span, "m");
        if line {
            d.fix_line("t", FileId(0), span.start, text)
        } else {
            d.fix("t", FileId(0), span, text)
        }
    }

    #[test]
    fn applies_fixes_once_and_in_place() {
        let text = "pipeline p {\n  retries 2\n}\n";
        let at = text.find("retries").expect("there");
        let ds = [
            d(Span::new(at, at + 7), "retries", false),
            d(Span::new(at + 3, at + 3), "timeout 30m", true),
            // The same insertion from another finding is made once.
            d(Span::new(at, at), "timeout 30m", true),
        ];
        let (out, n) = apply(text, FileId(0), &ds);
        assert_eq!(out, "pipeline p {\n  timeout 30m\n  retries 2\n}\n");
        assert_eq!(n, 3);
    }

    #[test]
    fn overlapping_and_foreign_and_suppressed_fixes_are_left() {
        let text = "read ordres\n";
        let mut suppressed = d(Span::new(5, 11), "x", false);
        suppressed.suppressed = Some("why".into());
        let ds = [
            d(Span::new(5, 11), "orders", false),
            d(Span::new(6, 8), "zz", false),
            suppressed,
            Diagnostic::new(Code::FL702, FileId(1), Span::new(0, 1), "m").fix(
                "t",
                FileId(1),
                Span::new(0, 1),
                "y",
            ),
            // Out of bounds: refused, not a panic.
            d(Span::new(5, 99), "q", false),
        ];
        let (out, n) = apply(text, FileId(0), &ds);
        assert_eq!((out.as_str(), n), ("read orders\n", 1));
    }

    #[test]
    fn a_line_keeps_the_files_line_ends() {
        let text = "a {\r\n  b\r\n}\r\n";
        let (out, _) = apply(text, FileId(0), &[d(Span::new(7, 8), "c", true)]);
        assert_eq!(out, "a {\r\n  c\r\n  b\r\n}\r\n");
    }
}
