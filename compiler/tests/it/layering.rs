//! The top-level modules of `compiler/src` depend on each other one way.
//!
//! The layering, lowest first (a module may use those on its own line or above):
//!
//! - `span`, `source`, `suggest`, `par`: plumbing, no dependencies in the crate;
//! - `vocab`: the language's words (guarantees, modes, pins, terms);
//! - `diagnostic`: findings, every rule code (`diagnostic::code`) and their renderings;
//! - `config`: the configuration's meaning (rule selection, severities);
//! - `syntax`: text to syntax tree;
//! - `analyze`: resolved program, task graph, guarantees, and the typed problems
//!   the resolver reports (`analyze::problem`, worded by `rules`); never `rules`,
//!   `check` or `codegen`;
//! - `rules`: the rule checks over an analysis, and suppression;
//! - `fix`: the findings' fixes, as edits;
//! - `check`: the driver, from files to findings (above `analyze` and `rules`);
//! - `codegen`, `format`, `graph`, `report`, `kinds`, `invariants`: what runs
//!   on a checked program, pure (codegen writes through `codegen::Writer`);
//! - `io`: the file system: reading `.flow` files for `check`, and the
//!   `Writer` that writes generated files inside one folder;
//! - `init`, `lsp`, then `cli`: the command line, above everything.
//!
//! The tests read every `compiler/src/**/*.rs` outside `#[cfg(test)]` items,
//! comments and string literals, collect its `crate::X` and `super::` paths
//! per top-level module, and fail on any cycle between top-level modules and
//! on any edge to a higher layer ([`LAYERS`], which must list every module).
//! Unit tests below show them finding a planted cycle, an upward edge and an
//! unlisted module, and passing near misses.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level module a file belongs to, and its module path below the
/// crate root (`src/rules/fl101.rs` is `["rules", "fl101"]`; `mod.rs` and
/// `lib.rs` name their folder). `None` for the crate root itself.
fn module_path(rel: &str) -> Option<Vec<String>> {
    let rel = rel.strip_suffix(".rs")?;
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        return None;
    }
    Some(parts)
}

/// Rust text with comments, string and character literals blanked out
/// (lengths kept), so that neither braces nor paths inside them count.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                let mut j = i;
                while j < b.len() {
                    if b[j..].starts_with(b"/*") {
                        depth += 1;
                        j += 2;
                    } else if b[j..].starts_with(b"*/") {
                        depth -= 1;
                        j += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        j += 1;
                    }
                }
                blank(&mut out, i, j);
                i = j;
            }
            b'r' if !b[..i]
                .last()
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                && matches!(b.get(i + 1), Some(b'"' | b'#')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let start = i + 2 + hashes;
                let end = text[start..]
                    .find(&close)
                    .map_or(b.len(), |n| start + n + close.len());
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i, j + 1);
                i = j + 1;
            }
            b'\'' => {
                // A character literal ('x', '\n', '\u{..}'), not a lifetime ('a).
                let rest = &text[i + 1..];
                let len = if rest.starts_with('\\') {
                    rest.get(2..).and_then(|r| r.find('\'')).map(|n| n + 3)
                } else {
                    rest.chars()
                        .next()
                        .filter(|c| rest[c.len_utf8()..].starts_with('\''))
                        .map(|c| c.len_utf8() + 1)
                };
                match len {
                    Some(n) => {
                        blank(&mut out, i, i + 1 + n);
                        i += 1 + n;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// `code` without the items marked `#[cfg(test)]` (the attribute up to the
/// end of the item: its closing brace, or its `;`).
fn without_test_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, c) in item.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first segment of each path that `rest` (the text right after
/// `crate::`) starts: one name, or each name of a `{..}` group.
fn first_segments(rest: &str) -> Vec<String> {
    let rest = rest.trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        let mut names = Vec::new();
        let mut depth = 0usize;
        let mut start = true;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => start = true,
                c if start && !c.is_whitespace() => {
                    start = false;
                    let name = ident_at(&group[i..]);
                    if !name.is_empty() && name != "self" {
                        names.push(name.to_string());
                    }
                }
                _ => {}
            }
        }
        names
    } else {
        let name = ident_at(rest);
        if name.is_empty() {
            Vec::new()
        } else {
            vec![name.to_string()]
        }
    }
}

fn is_path_start(code: &str, at: usize) -> bool {
    !code[..at]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '$')
}

/// For each top-level module, the other top-level modules it names, with
/// one file that names each.
fn dependencies(files: &[(String, String)]) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut deps: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (rel, text) in files {
        let Some(path) = module_path(rel) else {
            continue;
        };
        let top = path[0].clone();
        deps.entry(top.clone()).or_default();
        let code = without_test_items(&code_only(text));
        let mut named = Vec::new();
        for (at, _) in code.match_indices("crate::") {
            if is_path_start(&code, at) {
                named.extend(first_segments(&code[at + "crate::".len()..]));
            }
        }
        for (at, _) in code.match_indices("super::") {
            if !is_path_start(&code, at) {
                continue;
            }
            // Count the `super::`s, then resolve from this file's module.
            let mut ups = 0;
            let mut rest = &code[at..];
            while let Some(r) = rest.strip_prefix("super::") {
                ups += 1;
                rest = r.trim_start();
            }
            if ups < path.len() {
                continue; // stays inside this top-level module
            }
            if ups == path.len() {
                named.extend(first_segments(rest));
            }
        }
        for other in named {
            if other != top && other != "self" {
                if let Some(m) = deps.get_mut(&top) {
                    m.entry(other).or_insert_with(|| rel.clone());
                }
            }
        }
    }
    deps
}

/// The groups of two or more modules that depend on each other (Tarjan).
fn cycles(deps: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<BTreeSet<String>> {
    struct State<'a> {
        deps: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        let deps = s.deps;
        for w in deps.get(v).into_iter().flat_map(BTreeMap::keys) {
            let w = w.as_str();
            if !deps.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                group.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                s.found.push(group);
            }
        }
    }
    let mut s = State {
        deps,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in deps.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

/// Each cycle, with the edges inside it and a file that makes each edge.
fn describe(deps: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<String> {
    cycles(deps)
        .into_iter()
        .map(|group| {
            let edges: Vec<String> = group
                .iter()
                .flat_map(|from| {
                    deps[from]
                        .iter()
                        .filter(|(to, _)| group.contains(*to))
                        .map(move |(to, file)| format!("{from} -> {to} ({file})"))
                })
                .collect();
            format!("cycle {group:?}: {}", edges.join(", "))
        })
        .collect()
}

/// `files` without those that are `#[cfg(test)] mod NAME;` of another.
fn without_test_files(files: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut tests = BTreeSet::new();
    for (rel, text) in &files {
        let code = code_only(text);
        let dir = rel
            .strip_suffix("mod.rs")
            .or_else(|| rel.strip_suffix("lib.rs"))
            .map_or_else(
                || format!("{}/", rel.trim_end_matches(".rs")),
                str::to_string,
            );
        for (at, _) in code.match_indices("#[cfg(test)]") {
            let rest = code[at + "#[cfg(test)]".len()..].trim_start();
            let rest = rest.strip_prefix("pub ").unwrap_or(rest).trim_start();
            if let Some(decl) = rest.strip_prefix("mod ") {
                let name = ident_at(decl.trim_start());
                if decl.trim_start()[name.len()..]
                    .trim_start()
                    .starts_with(';')
                {
                    tests.insert(format!("{dir}{name}.rs"));
                    tests.insert(format!("{dir}{name}/mod.rs"));
                }
            }
        }
    }
    files
        .into_iter()
        .filter(|(rel, _)| !tests.contains(rel))
        .collect()
}

fn crate_sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, "", &mut files);
    without_test_files(files)
}

fn sources(dir: &Path, rel: &str, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir.join(rel))
        .expect("source folder")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let child = if rel.is_empty() {
            name.to_string()
        } else {
            format!("{rel}/{name}")
        };
        if p.is_dir() {
            sources(dir, &child, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push((child, std::fs::read_to_string(&p).expect("source")));
        }
    }
}

#[test]
fn top_level_modules_have_no_cycle() {
    let files = crate_sources();
    let deps = dependencies(&files);
    // The checker saw the crate: the driver names the analysis and the rules.
    assert!(deps["check"].contains_key("analyze"), "{deps:#?}");
    assert!(deps["check"].contains_key("rules"), "{deps:#?}");
    let found = describe(&deps);
    assert!(found.is_empty(), "{found:#?}");
}

/// The files outside `io/`, `cli` and `main.rs` that name the file system
/// or the environment (`std::fs`, `std::env`, or either in a `std::{..}`
/// group) outside their tests, comments and strings.
fn impure(files: &[(String, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(rel, _)| {
            !(rel.starts_with("io/")
                || rel.starts_with("cli/")
                || rel == "cli.rs"
                || rel == "main.rs")
        })
        .filter(|(_, text)| {
            let code = without_test_items(&code_only(text));
            let code: String = code.split_whitespace().collect();
            code.contains("std::fs")
                || code.contains("std::env")
                || code.match_indices("std::{").any(|(at, _)| {
                    let group = &code[at..];
                    let group = &group[..group.find(';').unwrap_or(group.len())];
                    first_segments(&group["std::".len()..])
                        .iter()
                        .any(|n| n == "fs" || n == "env")
                })
        })
        .map(|(rel, _)| rel.clone())
        .collect()
}

#[test]
fn only_io_and_the_cli_touch_the_file_system() {
    let files = crate_sources();
    assert!(files.iter().any(|(rel, _)| rel == "io/write.rs"));
    let found = impure(&files);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn file_system_use_outside_io_is_found() {
    let file = |path: &str, text: &str| (path.to_string(), text.to_string());
    let files = vec![
        file("io/read.rs", "pub fn f() { std::fs::read(\"x\"); }\n"),
        file("cli.rs", "fn main() { std::env::args(); }\n"),
        file(
            "codegen/ok.rs",
            "// std::fs::write\nconst S: &str = \"std::env\";\n#[cfg(test)]\nmod tests { fn t() { std::fs::read(\"x\"); } }\n",
        ),
        file("codegen/bad.rs", "fn f() { let _ = std :: fs :: read(\"x\"); }\n"),
        file("analyze/bad.rs", "use std::{collections::BTreeMap, env};\n"),
        file("format.rs", "#[cfg(test)]\nmod tests;\n"),
        file("format/tests.rs", "fn t() { std::fs::read(\"x\"); }\n"),
    ];
    let files = without_test_files(files);
    assert_eq!(impure(&files), ["codegen/bad.rs", "analyze/bad.rs"]);
}

#[test]
fn a_planted_cycle_is_found_and_a_near_miss_is_not() {
    let file = |path: &str, text: &str| (path.to_string(), text.to_string());
    // `low` names `high` only in a test, a comment and a string: no cycle.
    let near_miss = vec![
        file("high/mod.rs", "use crate::low::Thing;\nmod part;\n"),
        file("high/part.rs", "use super::super::low::Other;\n"),
        file(
            "low.rs",
            "// crate::high::X\nconst S: &str = \"crate::high::Y\";\nconst C: char = '{';\n\
             #[cfg(test)]\nmod tests {\n    use crate::high::Z;\n    fn f() { let _ = '}'; }\n}\n\
             pub struct Thing;\n",
        ),
    ];
    let deps = dependencies(&near_miss);
    assert_eq!(deps["high"].keys().collect::<Vec<_>>(), ["low"]);
    assert!(deps["low"].is_empty(), "{deps:#?}");
    assert!(describe(&deps).is_empty());

    // The same, with one real use in `low`, through a group and `super` from a child.
    let mut planted = near_miss.clone();
    planted.push(file(
        "low/deep.rs",
        "use super::super::{high::part, span};\n",
    ));
    let deps = dependencies(&planted);
    let found = describe(&deps);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].contains("low -> high (low/deep.rs)"), "{found:#?}");

    let planted = vec![
        file("a.rs", "fn f() { crate::b::g() }\n"),
        file("b.rs", "use crate::{c::x, span::Span};\n"),
        file("c.rs", "pub fn x() { crate::a::f() }\n"),
        file("span.rs", ""),
    ];
    let found = cycles(&dependencies(&planted));
    assert_eq!(
        found,
        [["a", "b", "c"].iter().map(ToString::to_string).collect()]
    );
}

/// The layers, lowest first: a module may use those of a lower layer, and
/// another of its own layer (the cycle test keeps those one way). `io` sits
/// above the code generators: they write through `codegen::Writer`, which
/// `io::write::Disk` implements, so the pure core never reaches the disk.
const LAYERS: &[&[&str]] = &[
    &["span", "source", "suggest", "par"],
    &["vocab"],
    &["diagnostic"],
    &["config"],
    &["syntax"],
    &["analyze"],
    &["rules"],
    &["fix"],
    &["check"],
    &[
        "codegen",
        "format",
        "graph",
        "report",
        "kinds",
        "invariants",
        "schedule",
        "audit",
    ],
    &["io"],
    &["init"],
    &["lsp"],
    &["cli"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// Each edge from a module to one of a higher layer, with a file that makes
/// it, and each module that no layer lists.
fn upward_edges(deps: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<String> {
    let mut found = Vec::new();
    for (from, tos) in deps {
        let Some(low) = layer_of(from) else {
            found.push(format!("`{from}` is in no layer of LAYERS"));
            continue;
        };
        for (to, file) in tos {
            if layer_of(to).is_some_and(|high| high > low) {
                found.push(format!("{from} -> {to} ({file}) goes up"));
            }
        }
    }
    found
}

#[test]
fn no_module_uses_a_higher_layer() {
    let deps = dependencies(&crate_sources());
    assert!(deps["cli"].contains_key("io"), "{deps:#?}");
    let found = upward_edges(&deps);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn an_upward_edge_and_an_unlisted_module_are_found() {
    let file = |path: &str, text: &str| (path.to_string(), text.to_string());
    // `codegen` using `io` makes no cycle, but goes up; `io` using `codegen` is fine.
    let files = vec![
        file("codegen/places.rs", "use crate::io::write::Disk;\n"),
        file("io/write.rs", "use crate::span::Span;\n"),
        file("newcomer.rs", "use crate::span::Span;\n"),
        file("span.rs", ""),
    ];
    let deps = dependencies(&files);
    assert!(describe(&deps).is_empty());
    assert_eq!(
        upward_edges(&deps),
        [
            "codegen -> io (codegen/places.rs) goes up",
            "`newcomer` is in no layer of LAYERS",
        ]
    );
    // The near miss: only the downward edge.
    let near_miss = vec![
        file("io/write.rs", "use crate::codegen::writer::Writer;\n"),
        file(
            "codegen/places.rs",
            "use crate::diagnostic::words::display;\n",
        ),
    ];
    assert!(upward_edges(&dependencies(&near_miss)).is_empty());
}
