//! Paths and I/O errors in a finding's words: pure, so that the code
//! generators word what `io` reports without reaching the file system.

use std::path::Path;

/// An I/O error in the house style: lowercase, without the `(os error N)`
/// that only means something to a programmer.
pub fn io_words(e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::PermissionDenied {
        return "permission denied".to_string();
    }
    let text = e.to_string();
    let text = text.split(" (os error").next().unwrap_or(&text);
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_lowercase().collect::<String>() + chars.as_str()
    })
}

/// A path as messages show it, with `/` between its parts.
pub fn display(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}
