//! Cascades (issue 36 item 5): findings that only follow from an earlier
//! error on the same declaration are not reported on top of it.
//!
//! The first cascade, a `schedule` that FL002 refuses, is settled in the
//! model (`PipelineDef::schedule_invalid`, so FL102 does not fire). This is
//! the second: a source or sink whose kind was changed (or is wrong) has
//! settings that do not fit the kind. Every unknown property (FL003) and
//! missing parameter (FL004) of it is one mistake, reported as one finding
//! (the first, the others folded under it as labels), and what the rules
//! find on the statements that read or write it (FL107, FL205, FL900 ...)
//! is left out until its settings fit: those follow from the kind.

use std::collections::{BTreeMap, BTreeSet};

use crate::analyze::problem::Problem;
use crate::analyze::Program;
use crate::diagnostic::Diagnostic;
use crate::source::FileId;
use crate::span::Span;

/// The most findings folded under one as labels; the rest are counted in
/// its help.
const MAX_FOLDED: usize = 20;

/// The declarations whose settings do not fit their kind.
#[derive(Default)]
pub struct Doubtful {
    /// The declarations, by file and name (two of one name in one file are
    /// FL703 already).
    decls: BTreeSet<(FileId, String)>,
    /// The read and write statements of those declarations, and the task
    /// each is in: (file, statement span, task span, declaration name).
    uses: Vec<(FileId, Span, Span, String)>,
}

/// The declaration (its file and name) a settings
/// finding is about, and which finding it is.
fn settings_problem(p: &Problem) -> Option<((FileId, &str), Setting)> {
    match p {
        Problem::UnknownProperty { decl, near, at, .. } => Some((
            (at.file, decl.as_str()),
            if near.is_none() {
                Setting::Foreign
            } else {
                Setting::Typo
            },
        )),
        Problem::MissingParameter { decl, at, .. } => {
            Some(((at.file, decl.as_str()), Setting::Missing))
        }
        _ => None,
    }
}

/// A settings finding: an unknown property with no near name (not a typo),
/// one with a near name, or a missing parameter.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Setting {
    Foreign,
    Typo,
    Missing,
}

impl Doubtful {
    /// The declarations whose settings look written for another kind: a
    /// property the kind does not know (and that is not a typo of one it
    /// does) together with a missing parameter or a second such property.
    /// One unknown property alone is a typo or a stray line, and a missing
    /// parameter alone is a missing line: both are reported as they are,
    /// next to any other finding on the declaration.
    pub fn find(problems: &[Problem], program: &Program) -> Self {
        // Per declaration: (foreign properties, missing parameters).
        let mut count: BTreeMap<(FileId, &str), (usize, usize)> = BTreeMap::new();
        for p in problems {
            if let Some((key, setting)) = settings_problem(p) {
                let e = count.entry(key).or_default();
                match setting {
                    Setting::Foreign => e.0 += 1,
                    Setting::Missing => e.1 += 1,
                    Setting::Typo => {}
                }
            }
        }
        let decls: BTreeSet<(FileId, String)> = count
            .into_iter()
            .filter(|(_, (foreign, missing))| *foreign >= 1 && (*missing >= 1 || *foreign >= 2))
            .map(|((file, name), _)| (file, name.to_owned()))
            .collect();
        let mut uses = Vec::new();
        if !decls.is_empty() {
            let doubtful = |decl: usize| {
                program.decls.get(decl).and_then(|d| {
                    decls
                        .contains(&(d.loc.file, d.name.clone()))
                        .then(|| d.name.clone())
                })
            };
            for p in &program.pipelines {
                for t in &p.tasks {
                    let statements = t
                        .reads
                        .iter()
                        .map(|r| (r.decl, r.loc))
                        .chain(t.writes.iter().map(|w| (w.decl, w.loc)));
                    for (decl, loc) in statements {
                        if let Some(name) = doubtful(decl) {
                            uses.push((loc.file, loc.span, t.loc.span, name));
                        }
                    }
                }
            }
        }
        Doubtful { decls, uses }
    }

    /// Take the settings problems of doubtful declarations out of
    /// `problems`: one finding each, the others folded under it.
    pub fn fold(&self, problems: &mut Vec<Problem>) -> Vec<Diagnostic> {
        if self.decls.is_empty() {
            return Vec::new();
        }
        let mut groups: BTreeMap<(FileId, String), Vec<Diagnostic>> = BTreeMap::new();
        let mut rest = Vec::with_capacity(problems.len());
        for p in problems.drain(..) {
            let key = settings_problem(&p).map(|((file, name), _)| (file, name.to_owned()));
            match key {
                Some(key) if self.decls.contains(&key) => {
                    groups.entry(key).or_default().push(super::finding(p));
                }
                _ => rest.push(p),
            }
        }
        *problems = rest;
        groups
            .into_iter()
            .filter_map(|(key, mut found)| {
                found.sort_by_key(|d| (d.span.start, d.code));
                let mut found = found.into_iter();
                let mut first = found.next()?;
                let mut more = 0;
                for d in found {
                    if first.labels.len() < MAX_FOLDED {
                        first.labels.push(crate::diagnostic::Label {
                            file: d.file,
                            span: d.span,
                            message: d.message,
                        });
                    }
                    more += 1;
                }
                let name = &key.1;
                let help = first
                    .help
                    .take()
                    .map_or_else(String::new, |h| format!("{h}; "));
                first.help = Some(format!(
                    "{help}{more} more setting{} of `{name}` {} not fit its kind either: if the \
                     kind is what changed, change it back or rewrite the settings for it (findings \
                     on the statements that use `{name}` wait until its settings fit)",
                    if more == 1 { "" } else { "s" },
                    if more == 1 { "does" } else { "do" }
                ));
                Some(first)
            })
            .collect()
    }

    /// Whether a rule's finding is on a statement that reads or writes a
    /// doubtful declaration, or is about one in a task that does.
    pub fn follows(&self, d: &Diagnostic) -> bool {
        self.uses.iter().any(|(file, statement, task, name)| {
            *file == d.file
                && (statement.contains(d.span)
                    || (task.contains(d.span) && d.message.contains(&format!("`{name}`"))))
        })
    }
}
