//! `textDocument/hover`: an output's guarantee, a name's kind and
//! capabilities, a rule's summary, a property's role.

use std::fmt::Write as _;

use lsp_types as lt;

use super::super::position::Lines;
use super::super::query::{
    decl_around, entity_at, file_and_offset, within, word_at, Entity, Query,
};
use super::super::server::{Failure, Server};
use super::super::words::{self, Place};
use super::super::Snapshot;
use crate::analyze::model::{DeclDef, KindDef, Loc, Role};
use crate::analyze::OutputReport;
use crate::diagnostic::Code;
use crate::source::FileId;

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
    if !o.anomalies.is_empty() {
        s.push_str("\n\nanomalies:");
        for a in &o.anomalies {
            let _ = write!(s, "\n- `{}` ({}): {}", a.kind.word(), a.clause, a.scenario);
        }
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
        let (sp, w) = word?;
        let program = &snap.outcome.program;
        let Some(entity) = entity_at(snap, file, at) else {
            // A property of the declaration around the cursor.
            if let Some(d) = decl_around(snap, file, at) {
                let word = words::word(Place::Decl(d.role), w)?;
                return Some(markdown(
                    words::markdown(&word, Some(&d.name)),
                    lines.range(sp),
                ));
            }
            // A setting of a pipeline, task or kind: the first word of its
            // line there.
            let q = Query::at(text, sp.start);
            let place = q.line_start()?;
            let word = words::word(place, w)?;
            return Some(markdown(words::markdown(&word, None), lines.range(sp)));
        };
        match entity {
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
    Some(markdown(md, lines.range(span)))
}

fn markdown(value: String, range: lt::Range) -> lt::Hover {
    lt::Hover {
        contents: lt::HoverContents::Markup(lt::MarkupContent {
            kind: lt::MarkupKind::Markdown,
            value,
        }),
        range: Some(range),
    }
}

pub fn handle(s: &mut Server, p: lt::HoverParams) -> Result<Option<lt::Hover>, Failure> {
    let at = p.text_document_position_params;
    Ok(s.current()
        .and_then(|snap| hover(&snap, at.text_document.uri.as_str(), at.position)))
}
