//! `file:` URIs to paths and back, for the files the server reads.

use std::fmt::Write as _;
use std::str::FromStr as _;

use lsp_types::Uri;

/// The local path of a `file:` URI (percent-decoded); `None` for any other.
pub fn to_path(uri: &Uri) -> Option<String> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file:///p` (empty host) or `file://localhost/p`.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or(path);
    decode(path)
}

/// The `file:` URI of an absolute path.
pub fn from_path(path: &str) -> Option<Uri> {
    let mut s = String::from("file://");
    if !path.starts_with('/') {
        s.push('/');
    }
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(char::from(b));
        } else {
            let _ = write!(s, "%{b:02X}");
        }
    }
    Uri::from_str(&s).ok()
}

fn decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_round_trip_through_uris() {
        for p in ["/tmp/a.flow", "/tmp/with space/é.flow", "/a%b/c#d.flow"] {
            let uri = from_path(p).expect("uri");
            assert!(uri.as_str().starts_with("file:///"), "{}", uri.as_str());
            assert_eq!(to_path(&uri).as_deref(), Some(p));
        }
        let u = Uri::from_str("file:///tmp/x%20y.flow").unwrap();
        assert_eq!(to_path(&u).as_deref(), Some("/tmp/x y.flow"));
        let u = Uri::from_str("untitled:Untitled-1").unwrap();
        assert_eq!(to_path(&u), None);
    }
}
