//! Properties that hold for every input, whatever its bytes: shared by the
//! tests, the proptest generators (`tests/proptest_ast.rs`) and the fuzz
//! targets (`fuzz/`), so they all check the same thing.
//!
//! - [`check_holds`]: `check` and everything downstream of it (reports,
//!   every diagnostic renderer, the graphs, code generation for clean
//!   files) finish without panicking, and every span of every finding lies
//!   inside the text of the file it names, on character boundaries.
//! - [`format_holds`]: a file that parses formats; formatting is idempotent;
//!   a file that parses still parses after formatting, to the same syntax
//!   tree (spans aside) with the same findings.
//!
//! Each returns `Err` with a description instead of panicking, so callers
//! choose how to fail.

use crate::check::{self, Input, Loader, NoImports, Outcome};
use crate::diagnostic::{self, Code};
use crate::source::FileId;
use crate::span::Span;

/// The byte that separates files in one fuzz input: never part of UTF-8.
pub const FILE_SEPARATOR: u8 = 0xff;

/// Names of the files of a multi-file input, in order: the first is the
/// root, the others are what `use "b.flow"` and so on reach.
pub const FILE_NAMES: [&str; 4] = ["a.flow", "b.flow", "c.flow", "d.flow"];

/// Serves the files of one input from memory, by name.
#[derive(Debug, Clone, Default)]
pub struct MemLoader {
    files: Vec<(String, Vec<u8>)>,
}

impl MemLoader {
    pub fn new(files: Vec<(String, Vec<u8>)>) -> Self {
        MemLoader { files }
    }
}

impl Loader for MemLoader {
    fn load(&self, _from: &str, rel: &str) -> Result<Input, String> {
        let name = rel.trim_start_matches("./");
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(n, bytes)| Input {
                path: n.clone(),
                key: n.clone(),
                bytes: bytes.clone(),
            })
            .ok_or_else(|| "no such file".to_string())
    }
}

/// Split one input into files at [`FILE_SEPARATOR`] (at most
/// [`FILE_NAMES`]`.len()` files; the last keeps any further separators).
/// The first file is the root; all of them can be imported by name.
pub fn split_files(bytes: &[u8]) -> (Input, MemLoader) {
    let parts: Vec<&[u8]> = bytes
        .splitn(FILE_NAMES.len(), |&b| b == FILE_SEPARATOR)
        .collect();
    let files: Vec<(String, Vec<u8>)> = parts
        .iter()
        .zip(FILE_NAMES)
        .map(|(p, n)| (n.to_string(), p.to_vec()))
        .collect();
    let root = Input {
        path: FILE_NAMES[0].into(),
        key: FILE_NAMES[0].into(),
        bytes: files.first().map(|f| f.1.clone()).unwrap_or_default(),
    };
    (root, MemLoader::new(files))
}

/// Check one file, with no imports.
pub fn check_one(bytes: &[u8]) -> Outcome {
    check::check(
        vec![Input {
            path: "f.flow".into(),
            key: "f.flow".into(),
            bytes: bytes.to_vec(),
        }],
        &NoImports,
    )
}

/// Check `bytes` (split into files by [`split_files`]), render the results
/// in every form, generate code for the clean files, and verify the spans.
pub fn check_holds(bytes: &[u8]) -> Result<Outcome, String> {
    let (root, loader) = split_files(bytes);
    let outcome = check::check(vec![root], &loader);
    spans_inside(&outcome)?;
    let summary = outcome.summary();
    let _ = diagnostic::human::render(&outcome.sources, &outcome.diagnostics, summary, false);
    let _ = diagnostic::json::render(&outcome.sources, &outcome.diagnostics, summary);
    let _ = diagnostic::sarif::render(&outcome.sources, &outcome.diagnostics, summary.omitted);
    let _ = diagnostic::github::render(&outcome.sources, &outcome.diagnostics, summary);
    let _ = crate::report::json(&outcome);
    let _ = crate::report::table(&outcome);
    for &root in &outcome.roots {
        if !outcome.broken.contains(&root) {
            for r in &outcome.analysis.pipelines {
                if outcome.program.pipelines[r.pipeline].loc.file == root {
                    let g = crate::graph::model_of(&outcome.program, r);
                    let _ = crate::graph::to_dot(&g);
                    let _ = crate::graph::to_mermaid(&g);
                }
            }
        }
        if !outcome.file_has_errors(root) {
            let pipelines = crate::codegen::lower::pipelines_of(&outcome, root);
            let _ =
                crate::codegen::argo::generate(&pipelines, crate::codegen::argo::ArgoKind::Auto);
            let _ = crate::codegen::airflow::generate(&pipelines);
            let _ = crate::codegen::python::generate(&pipelines);
        }
    }
    Ok(outcome)
}

/// Every finding names a known file, and its span and its labels' spans lie
/// inside that file's text, on character boundaries.
pub fn spans_inside(outcome: &Outcome) -> Result<(), String> {
    let inside = |file: FileId, span: Span, what: &str, code: Code| -> Result<(), String> {
        if file.0 >= outcome.sources.len() {
            return Err(format!("{code}: {what} names unknown file {}", file.0));
        }
        let text = outcome.sources.text(file);
        let ok = span.start <= span.end
            && span.end <= text.len()
            && text.is_char_boundary(span.start)
            && text.is_char_boundary(span.end);
        if ok {
            Ok(())
        } else {
            Err(format!(
                "{code}: {what} span {}..{} is not inside `{}` ({} bytes)",
                span.start,
                span.end,
                outcome.sources.path(file),
                text.len()
            ))
        }
    };
    for d in &outcome.diagnostics {
        inside(d.file, d.span, "the finding's", d.code)?;
        for l in &d.labels {
            inside(l.file, l.span, "a label's", d.code)?;
        }
    }
    Ok(())
}

/// A syntax tree's debug form with every `Span { .. }` removed, to compare
/// trees whose text moved.
pub fn strip_spans(debug: &str) -> String {
    let mut out = String::with_capacity(debug.len());
    let mut rest = debug;
    while let Some(i) = rest.find("Span {") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find('}').map_or(rest.len(), |e| i + e + 1);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The syntax tree of a file, spans aside, or `None` when it does not parse.
pub fn tree(text: &str) -> Option<String> {
    let (ast, _) = crate::syntax::parse(FileId(0), text);
    ast.map(|a| strip_spans(&format!("{a:?}")))
}

/// The findings of checking one file alone: (code, message), in order.
pub fn findings(text: &str) -> Vec<(String, String)> {
    check_one(text.as_bytes())
        .diagnostics
        .iter()
        .map(|d| (d.code.to_string(), d.message.clone()))
        .collect()
}

/// A large file is parsed in chunks (cut between items and between the
/// statements of a block): whatever the text, cut in 2 to 4 chunks it parses
/// to exactly what the whole text parses to, spans and problems included,
/// or the chunked parse declines.
pub fn chunks_hold(text: &str) -> Result<(), String> {
    let whole = crate::syntax::parse(FileId(0), text);
    for chunks in 2..=4 {
        if let Some(parts) = crate::syntax::parser::parse_in_chunks(FileId(0), text, chunks) {
            if parts != whole {
                return Err(format!(
                    "{chunks} chunks parse differently from the whole file\n--- whole\n{whole:?}\n--- chunks\n{parts:?}"
                ));
            }
        }
    }
    Ok(())
}

/// Format `text` and verify the formatter's promises. Returns the formatted
/// text, or `None` when the formatter refused a file that does not parse.
pub fn format_holds(text: &str) -> Result<Option<String>, String> {
    let before = tree(text);
    let once = match crate::format::format(text) {
        Ok(once) => once,
        Err(e) if before.is_none() => {
            let _ = e.to_string();
            return Ok(None);
        }
        Err(e) => return Err(format!("the file parses but fmt refused it: {e}")),
    };
    match crate::format::format(&once) {
        Ok(twice) if twice == once => {}
        Ok(twice) => {
            return Err(format!(
                "formatting is not idempotent\n--- once\n{once}\n--- twice\n{twice}"
            ))
        }
        Err(e) => return Err(format!("the formatted text does not format: {e}\n{once}")),
    }
    let Some(before) = before else {
        return Ok(Some(once));
    };
    let Some(after) = tree(&once) else {
        return Err(format!(
            "the file parses but its formatted text does not\n{once}"
        ));
    };
    if before != after {
        return Err(format!(
            "formatting changed the syntax tree\n--- before\n{before}\n--- after\n{after}"
        ));
    }
    let (f_before, f_after) = (findings(text), findings(&once));
    if f_before != f_after {
        return Err(format!(
            "formatting changed the findings\n--- before\n{f_before:?}\n--- after\n{f_after:?}"
        ));
    }
    Ok(Some(once))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_serves_every_part_by_name() {
        let (root, loader) = split_files(b"use \"b.flow\"\n\xffsource s: files {\n}\n");
        assert_eq!(root.path, "a.flow");
        assert_eq!(root.bytes, b"use \"b.flow\"\n");
        let b = loader.load("a.flow", "./b.flow").expect("b is there");
        assert_eq!(b.bytes, b"source s: files {\n}\n");
        assert!(loader.load("a.flow", "c.flow").is_err());
    }

    #[test]
    fn a_span_past_the_end_is_caught() {
        let mut o = check_one(b"pipeline p {\n  x\n");
        assert!(spans_inside(&o).is_ok());
        let d = o.diagnostics.first_mut().expect("a syntax error");
        d.span = Span::new(0, 1_000);
        assert!(spans_inside(&o).is_err());
    }

    #[test]
    fn the_strip_is_not_vacuous() {
        let a = tree("source a: files {\n  path \"x\"\n}\n");
        let b = tree("source b: files {\n  path \"x\"\n}\n");
        assert!(a.is_some());
        assert_ne!(a, b);
        assert_eq!(
            a,
            tree("source   a : files {\n\n  path  \"x\"   # c\n}\n\n")
        );
    }
}
