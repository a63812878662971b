//! Quoting of user strings for generated files. Every user string that
//! reaches a template goes through one of these, never through hand-written
//! escaping in a template.

use std::fmt::Write as _;

/// A double-quoted string literal that Python 3 reads back exactly.
///
/// JSON's string encoding is a valid Python 3 literal; characters Python's
/// tokenizer could treat specially are escaped as `\uXXXX` too.
pub fn python_str(s: &str) -> String {
    quoted(s)
}

/// A double-quoted YAML scalar that YAML 1.1 and 1.2 readers both read back
/// exactly (no plain scalars, so `yes`, `0755`, `*alias` or `- x` stay strings).
pub fn yaml_str(s: &str) -> String {
    quoted(s)
}

/// JSON string encoding, plus escapes for every character a YAML 1.2 stream
/// may not hold raw or that no one can read in a generated file: DEL, C1
/// controls (NEL among them), the Unicode line and paragraph separators, the
/// byte-order mark, U+FFFE, U+FFFF and the other noncharacters. YAML 1.1
/// treats some of them as line breaks and libyaml refuses others. Both
/// languages read `\uXXXX` and `\UXXXXXXXX` in a double-quoted string.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    // Most strings are printable ASCII with nothing to escape.
    if s.bytes()
        .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
    {
        out.push_str(s);
        out.push('"');
        return out;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                let n = c as u32;
                let _ = if n > 0xffff {
                    write!(out, "\\U{n:08x}")
                } else {
                    write!(out, "\\u{n:04x}")
                };
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Controls, separators, the byte-order mark and noncharacters: written as
/// escapes, never raw.
fn needs_escape(c: char) -> bool {
    let n = c as u32;
    n < 0x20
        || (0x7f..=0x9f).contains(&n)
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
        // Noncharacters: U+FDD0 to U+FDEF and the last two code points of
        // every plane (U+FFFE, U+FFFF, U+1FFFE, ... U+10FFFF).
        || (0xfdd0..=0xfdef).contains(&n)
        || n & 0xfffe == 0xfffe
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_quotes_backslashes_and_controls() {
        assert_eq!(python_str("a\"b\\c\nd"), r#""a\"b\\c\nd""#);
        assert_eq!(yaml_str("\u{85}x\u{2028}"), r#""\u0085x\u2028""#);
        assert_eq!(yaml_str("héllo 😀"), "\"héllo 😀\"");
        assert_eq!(yaml_str("plain ~ text {{x}}"), "\"plain ~ text {{x}}\"");
        assert_eq!(yaml_str("tab\there\u{7f}"), r#""tab\there\u007f""#);
        assert_eq!(
            yaml_str("\u{fffe}\u{ffff}\u{fdd0}\u{1fffe}\u{10ffff}\u{fffd}"),
            "\"\\ufffe\\uffff\\ufdd0\\U0001fffe\\U0010ffff\u{fffd}\""
        );
    }
}
