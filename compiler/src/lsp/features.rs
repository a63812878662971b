//! The answers to requests, each read off a [`Snapshot`] (one check of the
//! open documents): nothing here analyses a file again.

use std::fmt::Write as _;

use lsp_types as lt;
use lsp_types::Uri;

use super::position::Lines;
use super::Snapshot;
use crate::analyze::model::{DeclDef, KindDef, Loc, Role};
use crate::analyze::OutputReport;
use crate::diagnostic::Code;
use crate::source::FileId;
use crate::span::Span;
use crate::vocab::Mode;

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The identifier around byte `at`, and its span.
fn word_at(text: &str, at: usize) -> Option<(Span, &str)> {
    let b = text.as_bytes();
    let at = at.min(b.len());
    let mut s = at;
    while s > 0 && is_word(b[s - 1]) {
        s -= 1;
    }
    let mut e = at;
    while e < b.len() && is_word(b[e]) {
        e += 1;
    }
    (s < e).then(|| (Span::new(s, e), &text[s..e]))
}

/// The first whole-word `name` inside `span` of `text`.
fn name_in(text: &str, span: Span, name: &str) -> Option<Span> {
    let hay = text.get(span.start..span.end.min(text.len()))?;
    let b = hay.as_bytes();
    let mut from = 0;
    while let Some(i) = hay[from..].find(name) {
        let s = from + i;
        let e = s + name.len();
        let before = s == 0 || !is_word(b[s - 1]);
        let after = e >= b.len() || !is_word(b[e]);
        if before && after {
            return Some(Span::new(span.start + s, span.start + e));
        }
        from = e;
    }
    None
}

fn within(loc: &Loc, file: FileId, at: usize) -> bool {
    loc.file == file && loc.span.start <= at && at <= loc.span.end
}

fn file_and_offset(snap: &Snapshot, uri: &str, pos: lt::Position) -> Option<(FileId, usize)> {
    let file = *snap.file_of.get(uri)?;
    Some((file, Lines::new(snap.text(file)).offset(pos)))
}

/// What a name at the cursor stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entity {
    Decl(usize),
    Kind(usize),
    /// (pipeline, task)
    Task(usize, usize),
}

fn kind_name_span(snap: &Snapshot, k: &KindDef) -> Span {
    let text = snap.text(k.loc.file);
    let after = Span::new((k.loc.span.start + 4).min(k.loc.span.end), k.loc.span.end);
    name_in(text, after, &k.name).unwrap_or(k.loc.span)
}

fn decl_named(snap: &Snapshot, file: FileId, name: &str) -> Option<usize> {
    let decls = &snap.outcome.program.decls;
    decls
        .iter()
        .position(|d| d.name == name && d.loc.file == file)
        .or_else(|| decls.iter().position(|d| d.name == name))
}

fn entity_at(snap: &Snapshot, file: FileId, at: usize) -> Option<Entity> {
    let (_, word) = word_at(snap.text(file), at)?;
    let program = &snap.outcome.program;
    for (pi, p) in program.pipelines.iter().enumerate() {
        if !within(&p.loc, file, at) {
            continue;
        }
        for t in &p.tasks {
            if t.after.iter().any(|(_, l)| within(l, file, at)) || within(&t.name_loc, file, at) {
                if let Some(ti) = p.tasks.iter().position(|x| x.name == word) {
                    return Some(Entity::Task(pi, ti));
                }
            }
        }
    }
    if let Some(d) = program.decls.iter().find(|d| within(&d.kind_loc, file, at)) {
        return Some(Entity::Kind(d.kind_idx));
    }
    if let Some(i) = decl_named(snap, file, word) {
        return Some(Entity::Decl(i));
    }
    program
        .kinds
        .iter()
        .position(|k| k.name == word)
        .map(Entity::Kind)
}

fn output_at(snap: &Snapshot, file: FileId, at: usize) -> Option<&OutputReport> {
    snap.outcome
        .analysis
        .pipelines
        .iter()
        .flat_map(|p| p.tasks.iter())
        .flat_map(|t| t.outputs.iter())
        .find(|o| within(&o.loc, file, at))
}

fn line_of(snap: &Snapshot, loc: &Loc) -> usize {
    snap.outcome.sources.locate(loc.file, loc.span).line
}

fn output_markdown(snap: &Snapshot, o: &OutputReport) -> String {
    let what = if o.role == Role::Effect {
        "emit"
    } else {
        "write"
    };
    let mut s = format!("**{what} `{}`**", o.target);
    if let Some(m) = o.mode {
        let _ = write!(s, " ({})", m.source());
    }
    let _ = write!(
        s,
        "\n\nguarantee: `{}`\n\nrequired: `{}`",
        o.guarantee.word(),
        o.required.word()
    );
    match &o.required_loc {
        Some(l) => {
            let _ = write!(s, " (from `require` on line {})", line_of(snap, l));
        }
        None => s.push_str(" (the default)"),
    }
    let failing = crate::report::failing_clauses(&o.clauses);
    if !failing.is_empty() {
        s.push_str("\n\nfailing clauses: ");
        s.push_str(
            &failing
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", "),
        );
    }
    for (loc, why) in &o.failing {
        let _ = write!(s, "\n- {why} (line {})", line_of(snap, loc));
    }
    s
}

fn yes(b: bool, word: &str, out: &mut Vec<String>) {
    if b {
        out.push(word.to_string());
    }
}

/// A kind's capabilities, as lines of Markdown.
pub fn capabilities_markdown(k: &KindDef) -> String {
    let mut s = format!(
        "**kind `{}`**{}",
        k.name,
        if k.stdlib { " (standard library)" } else { "" }
    );
    let join = |v: Vec<&str>| v.join(", ");
    let _ = write!(
        s,
        "\n\nroles: {}",
        join(k.roles.iter().map(|r| r.word()).collect())
    );
    if !k.pins.is_empty() {
        let _ = write!(
            s,
            "\n\npins: {}",
            join(k.pins.iter().map(|p| p.word()).collect())
        );
    }
    if !k.writes.is_empty() {
        let _ = write!(
            s,
            "\n\nwrites: {}",
            join(k.writes.iter().map(String::as_str).collect())
        );
    }
    if !k.commits.is_empty() {
        let _ = write!(
            s,
            "\n\ncommits: {}",
            join(k.commits.iter().map(|c| c.word()).collect())
        );
    }
    let mut flags = Vec::new();
    yes(k.transactional, "transactional", &mut flags);
    yes(k.atomic, "atomic", &mut flags);
    yes(k.versioned, "versioned", &mut flags);
    yes(k.fenced, "fenced", &mut flags);
    yes(k.state, "state", &mut flags);
    yes(k.offsets, "offsets", &mut flags);
    yes(k.idempotency_key, "idempotency key", &mut flags);
    if !flags.is_empty() {
        let _ = write!(s, "\n\nalso: {}", flags.join(", "));
    }
    if let Some(c) = &k.coordinator {
        let _ = write!(s, "\n\ncoordinator: `{c}`");
    }
    if !k.params.is_empty() {
        let params: Vec<String> = k
            .params
            .iter()
            .map(|p| {
                format!(
                    "`{}: {}{}`",
                    p.name,
                    p.ty.word(),
                    if p.optional { "?" } else { "" }
                )
            })
            .collect();
        let _ = write!(s, "\n\nparameters: {}", params.join(", "));
    }
    s
}

fn decl_markdown(snap: &Snapshot, d: &DeclDef) -> String {
    let mut s = format!("**{} `{}`**: kind `{}`", d.role.word(), d.name, d.kind);
    if let Some(k) = snap.outcome.program.kinds.get(d.kind_idx) {
        s.push_str("\n\n---\n\n");
        s.push_str(&capabilities_markdown(k));
    }
    s
}

/// Hover: an output's guarantee, a name's kind and capabilities, a rule's summary.
pub fn hover(snap: &Snapshot, uri: &str, pos: lt::Position) -> Option<lt::Hover> {
    let (file, at) = file_and_offset(snap, uri, pos)?;
    let text = snap.text(file);
    let lines = Lines::new(text);
    let word = word_at(text, at);
    let (md, span) = if let Some(code) = word
        .filter(|(_, w)| w.len() == 5 && w.starts_with("FL"))
        .and_then(|(sp, w)| Some((sp, Code::lookup(w)?)))
    {
        let (sp, c) = code;
        (
            format!(
                "**{}** `{}` ({})\n\n{}",
                c.as_str(),
                c.name(),
                c.severity().word(),
                c.summary()
            ),
            sp,
        )
    } else if let Some(o) = output_at(snap, file, at) {
        (output_markdown(snap, o), o.loc.span)
    } else {
        let (sp, _) = word?;
        let program = &snap.outcome.program;
        match entity_at(snap, file, at)? {
            Entity::Decl(i) => (decl_markdown(snap, &program.decls[i]), sp),
            Entity::Kind(i) => (capabilities_markdown(&program.kinds[i]), sp),
            Entity::Task(p, t) => {
                let task = &program.pipelines[p].tasks[t];
                (
                    format!(
                        "**task `{}`** of pipeline `{}`",
                        task.name, program.pipelines[p].name
                    ),
                    sp,
                )
            }
        }
    };
    Some(lt::Hover {
        contents: lt::HoverContents::Markup(lt::MarkupContent {
            kind: lt::MarkupKind::Markdown,
            value: md,
        }),
        range: Some(lines.range(span)),
    })
}

fn use_at(text: &str, at: usize) -> Option<String> {
    let (ast, _) = crate::syntax::parse(FileId(0), text);
    ast?.items.into_iter().find_map(|i| match i {
        crate::syntax::ast::Item::Use(u) if u.span.start <= at && at <= u.span.end => {
            Some(u.path.value)
        }
        _ => None,
    })
}

fn declaration_of(snap: &Snapshot, e: Entity) -> Option<lt::Location> {
    let program = &snap.outcome.program;
    match e {
        Entity::Decl(i) => {
            let d = &program.decls[i];
            snap.location(d.name_loc.file, d.name_loc.span)
        }
        Entity::Kind(i) => {
            let k = &program.kinds[i];
            snap.location(k.loc.file, kind_name_span(snap, k))
        }
        Entity::Task(p, t) => {
            let l = &program.pipelines[p].tasks[t].name_loc;
            snap.location(l.file, l.span)
        }
    }
}

/// Go to definition: a source, sink, effect, kind, task in `after`, or `use` path.
pub fn definition(
    snap: &Snapshot,
    uri: &str,
    pos: lt::Position,
) -> Option<lt::GotoDefinitionResponse> {
    let (file, at) = file_and_offset(snap, uri, pos)?;
    if let Some(rel) = use_at(snap.text(file), at) {
        let here = std::path::Path::new(snap.outcome.sources.path(file));
        let wanted = crate::io::read::normalize(&here.parent()?.join(rel));
        let wanted = wanted.to_string_lossy();
        let target = (0..snap.outcome.sources.len())
            .map(FileId)
            .find(|f| snap.outcome.sources.path(*f) == wanted)?;
        let loc = snap.location(target, Span::new(0, 0))?;
        return Some(lt::GotoDefinitionResponse::Scalar(loc));
    }
    let e = entity_at(snap, file, at)?;
    declaration_of(snap, e).map(lt::GotoDefinitionResponse::Scalar)
}

/// Find references: every place the name at the cursor is used.
pub fn references(
    snap: &Snapshot,
    uri: &str,
    pos: lt::Position,
    include_declaration: bool,
) -> Vec<lt::Location> {
    let Some((file, at)) = file_and_offset(snap, uri, pos) else {
        return Vec::new();
    };
    let Some(e) = entity_at(snap, file, at) else {
        return Vec::new();
    };
    let program = &snap.outcome.program;
    let mut spans: Vec<(FileId, Span)> = Vec::new();
    match e {
        Entity::Decl(i) => {
            let name = &program.decls[i].name;
            for p in &program.pipelines {
                for t in &p.tasks {
                    let locs = t
                        .reads
                        .iter()
                        .filter(|r| r.decl == i)
                        .map(|r| r.loc)
                        .chain(t.writes.iter().filter(|w| w.decl == i).map(|w| w.loc))
                        .chain(t.emits.iter().filter(|w| w.decl == i).map(|w| w.loc));
                    for l in locs {
                        if let Some(sp) = name_in(snap.text(l.file), l.span, name) {
                            spans.push((l.file, sp));
                        }
                    }
                }
            }
        }
        Entity::Kind(i) => {
            for d in program.decls.iter().filter(|d| d.kind_idx == i) {
                spans.push((d.kind_loc.file, d.kind_loc.span));
            }
        }
        Entity::Task(p, t) => {
            let name = &program.pipelines[p].tasks[t].name;
            for task in &program.pipelines[p].tasks {
                for (n, l) in &task.after {
                    if n == name {
                        let sp = name_in(snap.text(l.file), l.span, name).unwrap_or(l.span);
                        spans.push((l.file, sp));
                    }
                }
            }
        }
    }
    let mut out: Vec<lt::Location> = Vec::new();
    if include_declaration {
        out.extend(declaration_of(snap, e));
    }
    out.extend(spans.into_iter().filter_map(|(f, s)| snap.location(f, s)));
    out
}

fn item(label: &str, kind: lt::CompletionItemKind, detail: Option<String>) -> lt::CompletionItem {
    lt::CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail,
        ..lt::CompletionItem::default()
    }
}

/// A declared source, sink or effect as a completion: its name, with its role and kind.
fn decl_item(d: &DeclDef) -> lt::CompletionItem {
    item(
        &d.name,
        lt::CompletionItemKind::VARIABLE,
        Some(format!("{}: {}", d.role.word(), d.kind)),
    )
}

fn kind_of_decl<'a>(snap: &'a Snapshot, file: FileId, name: &str) -> Option<&'a KindDef> {
    let i = decl_named(snap, file, name)?;
    snap.outcome
        .program
        .kinds
        .get(snap.outcome.program.decls[i].kind_idx)
}

/// Completion at `pos` of `text` (the document as the editor has it now);
/// names come from `snap`, the latest check in which the document parsed.
pub fn completion(
    snap: &Snapshot,
    uri: &str,
    text: &str,
    pos: lt::Position,
) -> Vec<lt::CompletionItem> {
    use lt::CompletionItemKind as K;
    let lines = Lines::new(text);
    let at = lines.offset(pos);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..at];
    let words: Vec<&str> = before.split_whitespace().collect();
    let typing = !before.ends_with(char::is_whitespace);
    // The words before the one being typed.
    let done: &[&str] = if typing && !words.is_empty() {
        &words[..words.len() - 1]
    } else {
        &words
    };
    let program = &snap.outcome.program;
    let file = snap.file_of.get(uri).copied().unwrap_or(FileId(usize::MAX));

    if done.first() == Some(&"allow") && done.len() == 1 {
        return Code::ALL
            .iter()
            .map(|c| item(c.as_str(), K::CONSTANT, Some(c.summary().to_string())))
            .collect();
    }
    if let Some(rest) = before.trim_start().strip_prefix("output.") {
        if rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return fields_for(snap, file, text, at);
        }
    }
    if before.contains("output.") && before.trim_end().ends_with("output.")
        || before
            .rsplit([' ', '(', ','])
            .next()
            .is_some_and(|w| w.starts_with("output."))
    {
        return fields_for(snap, file, text, at);
    }
    // `source NAME: KIND`
    if matches!(done.first(), Some(&("source" | "sink" | "effect"))) && before.contains(':') {
        let role = match done[0] {
            "source" => Role::Source,
            "sink" => Role::Sink,
            _ => Role::Effect,
        };
        return program
            .kinds
            .iter()
            .filter(|k| k.roles.contains(&role))
            .map(|k| {
                item(
                    &k.name,
                    K::CLASS,
                    Some(format!("kind for a {}", role.word())),
                )
            })
            .collect();
    }
    match done {
        ["write", name] => {
            if let Some(k) = kind_of_decl(snap, file, name) {
                return Mode::ALL
                    .iter()
                    .filter(|(_, m)| k.writes.contains(m.capability()))
                    .map(|(_, m)| item(m.source(), K::ENUM_MEMBER, Some("write mode".into())))
                    .collect();
            }
        }
        ["read", _] => return vec![item("pinned", K::KEYWORD, None)],
        ["read", name, "pinned"] => {
            if let Some(k) = kind_of_decl(snap, file, name) {
                return k
                    .pins
                    .iter()
                    .map(|p| item(p.word(), K::ENUM_MEMBER, Some("pin".into())))
                    .collect();
            }
        }
        [verb @ ("read" | "write" | "emit")] => {
            let role = match *verb {
                "read" => Role::Source,
                "write" => Role::Sink,
                _ => Role::Effect,
            };
            return program
                .decls
                .iter()
                .filter(|d| d.role == role)
                .map(decl_item)
                .collect();
        }
        ["after", ..] => {
            if let Some(p) = program
                .pipelines
                .iter()
                .find(|p| p.loc.file == file && p.loc.span.start <= at && at <= p.loc.span.end)
            {
                return p
                    .tasks
                    .iter()
                    .map(|t| item(&t.name, K::FUNCTION, Some("task".into())))
                    .collect();
            }
        }
        [] => {
            // The first word of a line inside a declaration: its
            // properties and its kind's parameters.
            if let Some(d) = program
                .decls
                .iter()
                .find(|d| d.loc.file == file && d.loc.span.start < at && at <= d.loc.span.end)
            {
                let mut out: Vec<lt::CompletionItem> = crate::analyze::resolve::role_props(d.role)
                    .iter()
                    .map(|p| item(p, K::PROPERTY, Some(format!("{} property", d.role.word()))))
                    .collect();
                if let Some(k) = program.kinds.get(d.kind_idx) {
                    out.extend(k.params.iter().map(|p| {
                        item(
                            &p.name,
                            K::FIELD,
                            Some(format!(
                                "parameter of `{}`: {}{}",
                                k.name,
                                p.ty.word(),
                                if p.optional { "?" } else { "" }
                            )),
                        )
                    }));
                }
                return out;
            }
        }
        _ => {}
    }
    // Anything else: the declared names and the top-level words.
    let mut out: Vec<lt::CompletionItem> = program
        .decls
        .iter()
        .filter(|d| !d.name.is_empty())
        .map(decl_item)
        .collect();
    out.extend(
        [
            "source", "sink", "effect", "kind", "pipeline", "task", "use",
        ]
        .iter()
        .map(|w| item(w, K::KEYWORD, None)),
    );
    out
}

/// `output.` fields: from the `fields` lines of what the task at `at` reads
/// and writes (every declaration's when no task holds the cursor).
fn fields_for(snap: &Snapshot, file: FileId, text: &str, at: usize) -> Vec<lt::CompletionItem> {
    let program = &snap.outcome.program;
    // The snapshot may be of an older text: find the task by name.
    let task = program
        .pipelines
        .iter()
        .flat_map(|p| p.tasks.iter())
        .filter(|t| t.loc.file == file)
        .find(|t| {
            text[..at]
                .rfind("task ")
                .and_then(|i| word_at(text, i + 5))
                .is_some_and(|(_, w)| w == t.name)
        });
    let decls: Vec<usize> = match task {
        Some(t) => t
            .reads
            .iter()
            .map(|r| r.decl)
            .chain(t.writes.iter().map(|w| w.decl))
            .collect(),
        None => (0..program.decls.len()).collect(),
    };
    let mut seen = std::collections::BTreeSet::new();
    decls
        .into_iter()
        .filter_map(|i| program.decls.get(i))
        .flat_map(|d| {
            d.fields
                .iter()
                .flatten()
                .map(move |f| (f.clone(), d.name.clone()))
        })
        .filter(|(f, _)| seen.insert(f.clone()))
        .map(|(f, d)| {
            item(
                &f,
                lt::CompletionItemKind::FIELD,
                Some(format!("field of `{d}`")),
            )
        })
        .collect()
}

/// `flowc fmt` as one edit of the whole document (none when it is formatted).
pub fn formatting(text: &str) -> Result<Vec<lt::TextEdit>, String> {
    let formatted = crate::format::format_file(text).map_err(|e| {
        format!(
            "cannot format: {} (line {}, column {})",
            e.kind, e.line, e.column
        )
    })?;
    if formatted == text {
        return Ok(Vec::new());
    }
    let lines = Lines::new(text);
    Ok(vec![lt::TextEdit {
        range: lt::Range::new(lt::Position::new(0, 0), lines.position(text.len())),
        new_text: formatted,
    }])
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` has to be named
fn symbol(
    name: &str,
    detail: Option<String>,
    kind: lt::SymbolKind,
    range: lt::Range,
    selection: lt::Range,
    children: Option<Vec<lt::DocumentSymbol>>,
) -> lt::DocumentSymbol {
    lt::DocumentSymbol {
        name: if name.is_empty() {
            "?".into()
        } else {
            name.into()
        },
        detail,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range: selection,
        children,
    }
}

/// Document symbols: kinds, declarations, pipelines and their tasks.
pub fn symbols(snap: &Snapshot, uri: &str) -> Vec<lt::DocumentSymbol> {
    let Some(&file) = snap.file_of.get(uri) else {
        return Vec::new();
    };
    let lines = Lines::new(snap.text(file));
    let program = &snap.outcome.program;
    let mut out: Vec<(usize, lt::DocumentSymbol)> = Vec::new();
    for k in program.kinds.iter().filter(|k| k.loc.file == file) {
        let r = lines.range(k.loc.span);
        let sel = lines.range(kind_name_span(snap, k));
        out.push((
            k.loc.span.start,
            symbol(
                &k.name,
                Some("kind".into()),
                lt::SymbolKind::CLASS,
                r,
                sel,
                None,
            ),
        ));
    }
    for d in program.decls.iter().filter(|d| d.loc.file == file) {
        out.push((
            d.loc.span.start,
            symbol(
                &d.name,
                Some(format!("{}: {}", d.role.word(), d.kind)),
                lt::SymbolKind::VARIABLE,
                lines.range(d.loc.span),
                lines.range(d.name_loc.span),
                None,
            ),
        ));
    }
    for p in program.pipelines.iter().filter(|p| p.loc.file == file) {
        let tasks = p
            .tasks
            .iter()
            .map(|t| {
                symbol(
                    &t.name,
                    Some("task".into()),
                    lt::SymbolKind::FUNCTION,
                    lines.range(t.loc.span),
                    lines.range(t.name_loc.span),
                    None,
                )
            })
            .collect();
        out.push((
            p.loc.span.start,
            symbol(
                &p.name,
                Some("pipeline".into()),
                lt::SymbolKind::MODULE,
                lines.range(p.loc.span),
                lines.range(p.name_loc.span),
                Some(tasks),
            ),
        ));
    }
    out.sort_by_key(|(at, _)| *at);
    out.into_iter().map(|(_, s)| s).collect()
}

/// Inlay hints: each output's guarantee at the end of its line.
pub fn inlay_hints(snap: &Snapshot, uri: &str, range: lt::Range) -> Vec<lt::InlayHint> {
    let Some(&file) = snap.file_of.get(uri) else {
        return Vec::new();
    };
    let text = snap.text(file);
    let lines = Lines::new(text);
    let (from, to) = (lines.offset(range.start), lines.offset(range.end));
    snap.outcome
        .analysis
        .pipelines
        .iter()
        .flat_map(|p| p.tasks.iter())
        .flat_map(|t| t.outputs.iter())
        .filter(|o| o.loc.file == file && o.loc.span.start >= from && o.loc.span.start <= to)
        .map(|o| {
            let start = o.loc.span.start.min(text.len());
            let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
            let end = if text[..end].ends_with('\r') {
                end - 1
            } else {
                end
            };
            lt::InlayHint {
                position: lines.position(end),
                label: lt::InlayHintLabel::String(format!("⇒ {}", o.guarantee.word())),
                kind: None,
                text_edits: None,
                tooltip: Some(lt::InlayHintTooltip::String(format!(
                    "derived guarantee of `{}`; required: {}",
                    o.target,
                    o.required.word()
                ))),
                padding_left: Some(true),
                padding_right: None,
                data: None,
            }
        })
        .collect()
}

/// Quick fixes: the fix a finding carries in its `data` (the edits of
/// `flowc check --fix`); failing that, a finding that names the one likely
/// right name (`did you mean `x`?`) at a span that holds just the wrong
/// name replaces it.
// `WorkspaceEdit::changes` is keyed by `Uri`, which clippy thinks mutable.
#[allow(clippy::mutable_key_type)]
pub fn code_actions(
    uri: &Uri,
    text: &str,
    diagnostics: &[lt::Diagnostic],
) -> Vec<lt::CodeActionOrCommand> {
    let lines = Lines::new(text);
    let mut out = Vec::new();
    for d in diagnostics {
        if d.source.as_deref() != Some("flowc") {
            continue;
        }
        if let Some(fix) = d.data.as_ref().map(|v| &v["fix"]).filter(|f| f.is_object()) {
            let edits: Option<Vec<lt::TextEdit>> =
                serde_json::from_value(fix["edits"].clone()).ok();
            if let (Some(title), Some(edits)) = (fix["title"].as_str(), edits) {
                // One word replaced by another says both, as an editor's
                // menu shows it: "replace `ordres` with `orders`".
                let title = match edits.as_slice() {
                    [one] => text
                        .get(lines.offset(one.range.start)..lines.offset(one.range.end))
                        .filter(|old| !old.is_empty() && old.bytes().all(is_word))
                        .filter(|_| !one.new_text.is_empty() && one.new_text.bytes().all(is_word))
                        .map_or_else(
                            || title.to_string(),
                            |old| format!("replace `{old}` with `{}`", one.new_text),
                        ),
                    _ => title.to_string(),
                };
                out.push(quick_fix(uri, d, title, edits));
                continue;
            }
        }
        let Some(rest) = d.message.split("did you mean `").nth(1) else {
            continue;
        };
        let Some(name) = rest.split('`').next() else {
            continue;
        };
        let (s, e) = (lines.offset(d.range.start), lines.offset(d.range.end));
        let Some(old) = text.get(s..e) else {
            continue;
        };
        if old.is_empty() || !old.bytes().all(is_word) || name.is_empty() {
            continue;
        }
        let edit = lt::TextEdit {
            range: d.range,
            new_text: name.to_string(),
        };
        out.push(quick_fix(
            uri,
            d,
            format!("replace `{old}` with `{name}`"),
            vec![edit],
        ));
    }
    out
}

/// The preferred quick fix for `d` that makes `edits` in `uri`.
// `WorkspaceEdit::changes` is keyed by `Uri`, which clippy thinks mutable.
#[allow(clippy::mutable_key_type)]
fn quick_fix(
    uri: &Uri,
    d: &lt::Diagnostic,
    title: String,
    edits: Vec<lt::TextEdit>,
) -> lt::CodeActionOrCommand {
    let mut changes = std::collections::HashMap::new();
    changes.insert(uri.clone(), edits);
    lt::CodeActionOrCommand::CodeAction(lt::CodeAction {
        title,
        kind: Some(lt::CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![d.clone()]),
        edit: Some(lt::WorkspaceEdit {
            changes: Some(changes),
            ..lt::WorkspaceEdit::default()
        }),
        is_preferred: Some(true),
        ..lt::CodeAction::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_names_are_found_whole() {
        let t = "write orders_out upsert";
        assert_eq!(word_at(t, 8).map(|w| w.1), Some("orders_out"));
        assert_eq!(word_at(t, 5).map(|w| w.1), Some("write"));
        assert_eq!(word_at("a  b", 2), None);
        let t = "read ordersx orders";
        assert_eq!(
            name_in(t, Span::new(0, t.len()), "orders"),
            Some(Span::new(13, 19))
        );
    }
}
