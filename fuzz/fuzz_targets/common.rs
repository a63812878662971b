//! What the fuzz targets share.

/// `s` as a `.flow` string literal: quotes, backslashes and every control
/// or non-ASCII character escaped, so any text can stand in a file.
pub fn flow_literal(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_ascii_graphic() || c == ' ' => out.push(c),
            c => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
        }
    }
    out.push('"');
    out
}
