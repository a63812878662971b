//! String escapes: decoding a literal's body, and mapping offsets of the
//! decoded value back into the body as written.
//!
//! The escapes are `\"`, `\\`, `\n`, `\t`, `\{`, `\}` and `\u{HEX}`. A
//! character an escape writes is always literal: `\{` and `\u{7B}` are plain
//! braces, never the start of a placeholder ([`decode`] says which
//! characters an escape wrote).

/// One character of a decoded string body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decoded {
    pub ch: char,
    /// Written by an escape (`\{`, `\u{7B}`), so never placeholder syntax.
    pub escaped: bool,
    /// Its byte range in the body as written.
    pub from: usize,
    pub to: usize,
}

/// The characters of a string body, each with whether an escape wrote it.
/// A body whose escapes do not decode (the parser has reported it) is taken
/// as written, character by character.
pub fn decode(raw: &str) -> Vec<Decoded> {
    if unescape(raw).is_err() {
        return raw
            .char_indices()
            .map(|(i, ch)| Decoded {
                ch,
                escaped: false,
                from: i,
                to: i + ch.len_utf8(),
            })
            .collect();
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while let Some(ch) = raw[i..].chars().next() {
        if ch != '\\' {
            out.push(Decoded {
                ch,
                escaped: false,
                from: i,
                to: i + ch.len_utf8(),
            });
            i += ch.len_utf8();
            continue;
        }
        // Every escape decodes (checked above): one character, or `u{HEX}`.
        let rest = &raw[i + 1..];
        let (ch, len) = match rest.chars().next() {
            Some('u') => {
                let close = rest.find('}').unwrap_or(rest.len() - 1);
                let ch = rest
                    .get(2..close)
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .and_then(char::from_u32)
                    .unwrap_or('\u{FFFD}');
                (ch, close + 1)
            }
            Some(c) => (
                match c {
                    'n' => '\n',
                    't' => '\t',
                    other => other,
                },
                c.len_utf8(),
            ),
            None => ('\\', 0),
        };
        out.push(Decoded {
            ch,
            escaped: true,
            from: i,
            to: i + 1 + len,
        });
        i += 1 + len;
    }
    out
}

/// Where in a string body (`raw`, escapes and all) the byte `decoded` of its
/// decoded value is written. Past the end, the end.
pub fn raw_offset(raw: &str, decoded: usize) -> usize {
    let mut at = 0;
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if at >= decoded {
            return i;
        }
        if c != '\\' {
            at += c.len_utf8();
            continue;
        }
        match chars.next() {
            Some((_, 'u')) => {
                let rest = &raw[i + 2..];
                let close = rest.find('}').unwrap_or(0);
                let ch = rest
                    .get(1..close)
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .and_then(char::from_u32);
                at += ch.map_or(1, char::len_utf8);
                while chars.peek().is_some_and(|&(j, _)| j <= i + 2 + close) {
                    chars.next();
                }
            }
            _ => at += 1,
        }
    }
    raw.len()
}

/// Decode the escapes of a string body. Errors give (offset, length, message).
pub fn unescape(raw: &str) -> Result<String, (usize, usize, String)> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some((_, '"')) => out.push('"'),
            Some((_, '\\')) => out.push('\\'),
            Some((_, 'n')) => out.push('\n'),
            Some((_, 't')) => out.push('\t'),
            // A brace that starts or closes no placeholder.
            Some((_, '{')) => out.push('{'),
            Some((_, '}')) => out.push('}'),
            Some((_, 'u')) => {
                let rest = &raw[i + 2..];
                let close = rest.find('}');
                let ok = rest.starts_with('{')
                    && close.is_some_and(|c| (2..=7).contains(&c))
                    && close
                        .and_then(|c| {
                            u32::from_str_radix(&rest[1..c], 16)
                                .ok()
                                .and_then(char::from_u32)
                        })
                        .is_some_and(|ch| {
                            out.push(ch);
                            true
                        });
                if !ok {
                    // The whole escape, up to its `}` when it has one on the line.
                    let len = match close {
                        Some(c) if rest.starts_with('{') && c <= 10 => 2 + c + 1,
                        _ => 2,
                    };
                    return Err((
                        i,
                        len,
                        "invalid unicode escape: write `\\u{` then 1 to 6 hex digits of a Unicode scalar value, then `}`".into(),
                    ));
                }
                let close = close.unwrap_or(0);
                // Skip `{hex}`.
                while chars.peek().is_some_and(|&(j, _)| j <= i + 2 + close) {
                    chars.next();
                }
            }
            Some((_, other)) => {
                return Err((
                    i,
                    1 + other.len_utf8(),
                    format!("unknown escape `\\{other}` in string"),
                ))
            }
            None => return Err((i, 1, "a string cannot end with a lone `\\`".into())),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brace_escapes_decode_to_literal_braces() {
        assert_eq!(unescape(r"a\{b\}c").as_deref(), Ok("a{b}c"));
        let d = decode(r"\{x\u{7D}é\n");
        let chars: Vec<(char, bool, usize, usize)> =
            d.iter().map(|c| (c.ch, c.escaped, c.from, c.to)).collect();
        assert_eq!(
            chars,
            [
                ('{', true, 0, 2),
                ('x', false, 2, 3),
                ('}', true, 3, 9),
                ('é', false, 9, 11),
                ('\n', true, 11, 13),
            ]
        );
        // What the parser refused is taken as written.
        assert!(decode(r"\q{").iter().all(|c| !c.escaped));
        assert!(unescape(r"\q").is_err());
    }
}
