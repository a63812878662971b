//! String escapes: decoding a literal's body, and mapping offsets of the
//! decoded value back into the body as written.

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
