//! `flowc kinds`: the catalogue of the kinds a run sees (the standard
//! library's and the user's), generated from the resolved program, never
//! from a second reading of the files. The same catalogue is
//! `docs/reference/kinds.md` (`flowc kinds --format markdown`).

use std::fmt::Write as _;

use serde::Serialize;

use crate::analyze::model::KindDef;
use crate::check::Outcome;

/// One kind parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Param {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: &'static str,
    pub optional: bool,
}

/// One kind, as the catalogue shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub name: String,
    /// `<stdlib>/postgres.flow`, or the user's file.
    pub file: String,
    pub stdlib: bool,
    /// The comment lines right above `kind NAME`, without their `#`.
    pub about: Option<String>,
    pub roles: Vec<&'static str>,
    pub pins: Vec<&'static str>,
    pub writes: Vec<String>,
    pub commits: Vec<&'static str>,
    /// The flag lines: `transactional`, `fenced`, `atomic`, `versioned`,
    /// `offsets`, `state`.
    pub capabilities: Vec<&'static str>,
    pub coordinator: Option<String>,
    /// For a kind with the `effect` role: `key` when its receiver
    /// deduplicates on a key flowc sends, else `none`.
    pub idempotency: Option<&'static str>,
    pub params: Vec<Param>,
}

/// The version of the `--format json` shape.
pub const JSON_VERSION: u32 = 1;

/// Every kind of the run, the standard library's first (in file order),
/// then the user's in the order their files were read.
pub fn catalogue(outcome: &Outcome) -> Vec<Entry> {
    let mut out: Vec<Entry> = outcome
        .program
        .kinds
        .iter()
        .map(|k| entry(outcome, k))
        .collect();
    out.sort_by_key(|e| !e.stdlib);
    out
}

fn entry(outcome: &Outcome, k: &KindDef) -> Entry {
    let mut capabilities = Vec::new();
    for (on, word) in [
        (k.transactional, "transactional"),
        (k.fenced, "fenced"),
        (k.atomic, "atomic"),
        (k.versioned, "versioned"),
        (k.offsets, "offsets"),
        (k.state, "state"),
        (k.conditional_upsert, "conditional_upsert"),
        (k.serialized_replace, "serialized_replace"),
        (k.lossy, "lossy"),
        (k.idempotent_producer, "idempotent_producer"),
        (k.unenforced_key, "unenforced_key"),
        (k.eventual_upsert, "eventual_upsert"),
        (k.deduplicates_inserts, "deduplicates_inserts"),
    ] {
        if on {
            capabilities.push(word);
        }
    }
    Entry {
        name: k.name.clone(),
        file: outcome.sources.path(k.loc.file).to_string(),
        stdlib: k.stdlib,
        about: comment_above(outcome.sources.text(k.loc.file), k.loc.span.start),
        roles: k.roles.iter().map(|r| r.word()).collect(),
        pins: k.pins.iter().map(|p| p.word()).collect(),
        writes: crate::analyze::model::WRITE_CAPS
            .iter()
            .filter(|w| k.writes.contains(**w))
            .map(|w| (*w).to_string())
            .collect(),
        commits: k.commits.iter().map(|c| c.word()).collect(),
        capabilities,
        coordinator: k.coordinator.clone(),
        idempotency: k
            .roles
            .contains(&crate::analyze::model::Role::Effect)
            .then_some(if k.idempotency_key { "key" } else { "none" }),
        params: k
            .params
            .iter()
            .map(|p| Param {
                name: p.name.clone(),
                ty: p.ty.word(),
                optional: p.optional,
            })
            .collect(),
    }
}

/// The `#` lines directly above byte `at` (no blank line between), joined.
fn comment_above(text: &str, at: usize) -> Option<String> {
    let before = text.get(..at)?;
    let mut lines: Vec<&str> = before.lines().collect();
    // The line `kind NAME {` itself starts at `at`: what is left of it is empty.
    if before.ends_with(|c| c != '\n') {
        lines.pop();
    }
    let mut out = Vec::new();
    for line in lines.iter().rev() {
        let t = line.trim();
        match t.strip_prefix('#') {
            Some(c) => out.push(c.trim()),
            None => break,
        }
    }
    if out.is_empty() {
        return None;
    }
    out.reverse();
    // Lines starting with `- ` are list items (a kind's sources): each
    // starts a new line; other lines join into one paragraph.
    let mut text = String::new();
    for line in out {
        if text.is_empty() {
            text.push_str(line);
        } else if line.starts_with("- ") {
            text.push('\n');
            text.push_str(line);
        } else {
            text.push(' ');
            text.push_str(line);
        }
    }
    Some(text)
}

fn list(words: &[impl AsRef<str>]) -> String {
    if words.is_empty() {
        "-".to_string()
    } else {
        words
            .iter()
            .map(AsRef::as_ref)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn param_line(p: &Param) -> String {
    format!("{}: {}{}", p.name, p.ty, if p.optional { "?" } else { "" })
}

/// The plain-text catalogue: one block per kind.
pub fn text(entries: &[Entry]) -> String {
    let mut out = String::new();
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "kind {}  ({})", e.name, e.file);
        if let Some(a) = &e.about {
            for line in a.lines() {
                let _ = writeln!(out, "  {line}");
            }
        }
        let _ = writeln!(out, "  roles          {}", list(&e.roles));
        if !e.pins.is_empty() {
            let _ = writeln!(out, "  pins           {}", list(&e.pins));
        }
        if !e.writes.is_empty() {
            let _ = writeln!(out, "  writes         {}", list(&e.writes));
        }
        if !e.commits.is_empty() {
            let _ = writeln!(out, "  commits        {}", list(&e.commits));
        }
        let _ = writeln!(out, "  capabilities   {}", list(&e.capabilities));
        if let Some(c) = &e.coordinator {
            let _ = writeln!(out, "  coordinator    {c}");
        }
        if let Some(i) = e.idempotency {
            let _ = writeln!(out, "  idempotency    {i}");
        }
        for p in &e.params {
            let _ = writeln!(out, "  param          {}", param_line(p));
        }
    }
    out
}

/// The catalogue as versioned JSON: `{"version": 1, "kinds": [...]}`.
pub fn json(entries: &[Entry]) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        version: u32,
        kinds: &'a [Entry],
    }
    let mut s = serde_json::to_string_pretty(&Doc {
        version: JSON_VERSION,
        kinds: entries,
    })
    .unwrap_or_default();
    s.push('\n');
    s
}

const CAPABILITIES: &str = "\
Capabilities: `transactional` (a write and its bookkeeping commit together),
`fenced` (the sink refuses a write from an interval older than the row's last
writer), `atomic` (each commit of one table is atomic), `versioned` (every
commit is a version a reader can pin), `offsets` (readers track offsets),
`state` (flowc's runtime can keep its own state in this system),
`conditional_upsert` (an upsert can replace a row only when its version column
is greater: `newest by`), `serialized_replace` (two live replaces of one
partition never interleave), `lossy` (the system may acknowledge a write it
later drops), `idempotent_producer` (the client deduplicates its own resends
within one attempt), `unenforced_key` (a declared primary key is accepted but
never enforced), `eventual_upsert` (an upsert adds a row version that the
system deduplicates at an unknown later time) and `deduplicates_inserts` (the
system silently drops an insert identical to a recent one). An effect's
`idempotency` is `key` when its receiver deduplicates on a key flowc sends,
`none` when it cannot. For the kinds of other systems, the bullets under a
kind name the vendor's page that establishes each line.";

/// The catalogue as the Markdown page `docs/reference/kinds.md`.
pub fn markdown(entries: &[Entry]) -> String {
    let mut out = String::from(
        "# Kinds\n\n\
<!-- Generated by `flowc kinds --format markdown`; do not edit by hand.\n     \
Regenerate: cargo run -q --bin flowc -- kinds --format markdown > docs/reference/kinds.md -->\n\n\
Every kind the standard library declares, with its roles, the pins its reads\n\
can take, the write modes it supports, its capabilities and its parameters.\n\
`flowc kinds` prints the same for the kinds your own files declare as well\n\
(`flowc kinds --from pipelines/`), and `flowc kinds NAME` prints one.\n\n",
    );
    out.push_str(CAPABILITIES);
    out.push_str("\n\n");
    for e in entries {
        let _ = writeln!(out, "## `{}`\n", e.name);
        if let Some(a) = &e.about {
            // A blank line between the paragraph and its list of sources.
            let a = a.replacen("\n- ", "\n\n- ", 1);
            let _ = writeln!(out, "{a}\n");
        }
        let _ = writeln!(out, "| | |\n| --- | --- |");
        let _ = writeln!(out, "| declared in | `{}` |", e.file);
        let _ = writeln!(out, "| roles | {} |", code_list(&e.roles));
        let _ = writeln!(out, "| pins | {} |", code_list(&e.pins));
        let _ = writeln!(out, "| writes | {} |", code_list(&e.writes));
        if !e.commits.is_empty() {
            let _ = writeln!(out, "| commits | {} |", code_list(&e.commits));
        }
        let _ = writeln!(out, "| capabilities | {} |", code_list(&e.capabilities));
        if let Some(c) = &e.coordinator {
            let _ = writeln!(out, "| coordinator | `{c}` |");
        }
        if let Some(i) = e.idempotency {
            let _ = writeln!(out, "| idempotency | `{i}` |");
        }
        out.push('\n');
        if e.params.is_empty() {
            out.push_str("No parameters.\n\n");
        } else {
            out.push_str("| parameter | type | required |\n| --- | --- | --- |\n");
            for p in &e.params {
                let _ = writeln!(
                    out,
                    "| `{}` | `{}` | {} |",
                    p.name,
                    p.ty,
                    if p.optional { "no" } else { "yes" }
                );
            }
            out.push('\n');
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

fn code_list(words: &[impl AsRef<str>]) -> String {
    if words.is_empty() {
        "—".to_string()
    } else {
        words
            .iter()
            .map(|w| format!("`{}`", w.as_ref()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::comment_above;

    #[test]
    fn the_comment_is_the_block_right_above() {
        let text = "# a file\n\n# about k\n# more\nkind k {\n}\n";
        let at = text.find("kind").unwrap();
        assert_eq!(comment_above(text, at).as_deref(), Some("about k more"));
        let text = "# a file\n\nkind k {\n}\n";
        let at = text.find("kind").unwrap();
        assert_eq!(comment_above(text, at), None);
        let text = "  # indented\n  kind k {}\n";
        let at = text.find("kind").unwrap();
        assert_eq!(comment_above(text, at).as_deref(), Some("indented"));
        let text =
            "# about k\n# more\n# - `atomic`: a page\n#   continued\n# - `state`\nkind k {}\n";
        let at = text.find("kind").unwrap();
        assert_eq!(
            comment_above(text, at).as_deref(),
            Some("about k more\n- `atomic`: a page continued\n- `state`")
        );
    }
}
