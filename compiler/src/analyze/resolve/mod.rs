//! Names and literals: from syntax trees to the resolved [`Program`].
//! Reports FL002–FL009, FL702, FL703 and FL706/FL707, all in one pass, so a
//! file's semantic errors all show in one run. It reports [`Problem`]s: typed
//! ones, which the driver words through their rule's file, and, for the rules
//! whose words have not moved there yet, findings built here.
//!
//! The setting words come from the catalog (`analyze/settings.rs`): each
//! block's reader looks a word up there; a setting whose entry stores its
//! value (`settings::Store`) is read by its shape (`args::parsed`) and handed
//! to the entry, the others are matched on their [`Id`]. One file
//! per sort of block: `kinds`, `decls` (sources, sinks, effects),
//! `pipeline` (with `state` and `ready`), `task` (with its statements), and
//! `args`, the typed readers of a setting's value.
//!
//! [`Id`]: super::settings::Id

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::model::{DeclDef, KindDef, Loc, Program, Ready};
use super::problem::{Clause, Namespace, Problem};
use crate::source::FileId;
use crate::span::Span;
use crate::suggest::closest;
use crate::syntax::ast::{self, Value};
use crate::vocab::CommitMode;

mod args;
mod decls;
mod kinds;
mod pipeline;
mod task;

/// One parsed file of the run.
pub struct Unit<'a> {
    pub file: FileId,
    pub ast: &'a ast::File,
    pub stdlib: bool,
    /// Given on the command line: only these files' pipelines are part of the
    /// run (`use` makes declarations visible, not pipelines).
    pub root: bool,
    /// Files this one `use`s directly (each once).
    pub uses: Vec<FileId>,
}

impl<'a> Unit<'a> {
    /// The units of files parsed in the order the standard library's files,
    /// then one file of the user's: the last is the root, the others are
    /// the standard library, and none `use`s another. What a benchmark or a
    /// test of a single file needs.
    pub fn stdlib_then_root(asts: &'a [ast::File]) -> Vec<Unit<'a>> {
        let last = asts.len().saturating_sub(1);
        asts.iter()
            .enumerate()
            .map(|(i, ast)| Unit {
                file: FileId(i),
                ast,
                stdlib: i < last,
                root: i == last,
                uses: Vec::new(),
            })
            .collect()
    }
}

pub fn resolve(units: &[Unit<'_>], diags: &mut Vec<Problem>) -> Program {
    resolve_on(crate::par::cores(), units, diags)
}

/// [`resolve`] with the tasks of large pipelines on `threads` threads.
fn resolve_on(threads: usize, units: &[Unit<'_>], diags: &mut Vec<Problem>) -> Program {
    let mut r = Resolver {
        diags,
        names: Names::default(),
        referenced: BTreeSet::new(),
        threads,
    };
    r.kinds(units);
    r.decls(units);
    let (pipelines, files_with_pipelines) = r.pipelines(units);
    Program {
        kinds: r.names.kinds,
        decls: r.names.decls,
        pipelines,
        files_with_pipelines,
        referenced: r.referenced,
    }
}

/// The kinds and declarations of a run, and which names each file sees.
/// Built first, then only read: tasks are resolved against it on all cores.
#[derive(Default)]
struct Names {
    kinds: Vec<KindDef>,
    decls: Vec<DeclDef>,
    /// Per file: kind name -> index.
    kind_scope: HashMap<FileId, BTreeMap<String, usize>>,
    /// Per file: declaration name -> index.
    decl_scope: HashMap<FileId, BTreeMap<String, usize>>,
    /// Per file: names of declarations in scope that are declared but did
    /// not resolve (an unknown kind, say). Their own finding says why; a
    /// statement naming one gets no second finding.
    broken_scope: HashMap<FileId, BTreeSet<String>>,
}

/// `N` is [`Names`] while kinds and declarations are resolved, and `&Names`
/// on the threads that resolve tasks.
struct Resolver<'d, N = Names> {
    diags: &'d mut Vec<Problem>,
    names: N,
    /// Declarations some statement names (even one that is otherwise wrong).
    referenced: BTreeSet<usize>,
    /// Threads for the tasks of a large pipeline.
    threads: usize,
}

fn loc(file: FileId, span: Span) -> Loc {
    Loc { file, span }
}

/// The first declaration of each name in one file, with where its name is;
/// every later one is FL703.
fn first_of_each<'a, T>(
    diags: &mut Vec<Problem>,
    file: FileId,
    items: impl Iterator<Item = (&'a ast::Ident, T)>,
    namespace: &Namespace,
) -> Vec<(T, Loc)> {
    let mut seen: BTreeMap<&str, Loc> = BTreeMap::new();
    let mut out = Vec::new();
    for (name, item) in items {
        let at = loc(file, name.span);
        if let Some(prev) = seen.get(name.name.as_str()) {
            diags.push(Problem::DuplicateName {
                namespace: namespace.clone(),
                name: name.name.clone(),
                first: *prev,
                again: at,
            });
        } else {
            seen.insert(&name.name, at);
            out.push((item, at));
        }
    }
    out
}

/// Build a per-file scope from own and imported names, reporting clashes
/// (FL703) at the importing file's own declaration where there is one.
fn scope_for(
    unit: &Unit<'_>,
    own: &BTreeMap<FileId, Vec<(String, usize, Loc)>>,
    diags: &mut Vec<Problem>,
    shadowed: &mut Vec<usize>,
) -> BTreeMap<String, usize> {
    let mut scope: BTreeMap<String, (usize, Loc)> = BTreeMap::new();
    // Imported names first, then the file's own (duplicates among those were
    // reported where they were declared).
    let files = unit.uses.iter().chain(std::iter::once(&unit.file));
    for (name, idx, at) in files.flat_map(|f| own.get(f).into_iter().flatten()) {
        match scope.get(name) {
            Some((prev, prev_loc)) if prev != idx => {
                diags.push(Problem::DuplicateName {
                    namespace: Namespace::ImportedDecl,
                    name: name.clone(),
                    first: *prev_loc,
                    again: *at,
                });
                // Names bind to the first; the second is the FL703, not also unused.
                shadowed.push(*idx);
            }
            Some(_) => {}
            None => {
                scope.insert(name.clone(), (*idx, *at));
            }
        }
    }
    scope.into_iter().map(|(k, (i, _))| (k, i)).collect()
}

impl<N: std::borrow::Borrow<Names>> Resolver<'_, N> {
    fn problem(&mut self, p: Problem) {
        self.diags.push(p);
    }

    fn names(&self) -> &Names {
        self.names.borrow()
    }
}

/// Settings seen in one block, for FL007.
#[derive(Default)]
struct Seen {
    /// Setting -> where it was first set, and the word that set it.
    at: BTreeMap<String, (Span, String)>,
}

impl Seen {
    fn first(&mut self, diags: &mut Vec<Problem>, f: FileId, s: &ast::Setting) -> bool {
        self.first_named(diags, f, &s.name.name, s)
    }

    /// Record `key`; report FL007 and return false when it was seen before.
    fn first_named(
        &mut self,
        diags: &mut Vec<Problem>,
        f: FileId,
        key: &str,
        s: &ast::Setting,
    ) -> bool {
        if let Some((prev, word)) = self.at.get(key) {
            diags.push(Problem::SettingTwice {
                first_word: word.clone(),
                word: s.name.name.clone(),
                at: loc(f, s.span),
                first: loc(f, *prev),
            });
            return false;
        }
        self.at
            .insert(key.to_string(), (s.span, s.name.name.clone()));
        true
    }
}

/// FL006: `ready` with a value other than `marker "NAME"`, `nonempty` or `always`.
fn ready_wrong_value(f: FileId, s: &ast::Setting) -> Problem {
    let (span, found) = match s.args.as_slice() {
        [] => (s.name.span, "nothing".to_string()),
        [Value::Ident(w)] if w.name == "marker" => (
            w.span,
            "`marker` without the marker's file name".to_string(),
        ),
        [first, .., last] => (first.span().to(last.span()), describe_args(&s.args)),
        [one] => (one.span(), describe_args(&s.args)),
    };
    Problem::ReadyWrongValue {
        found,
        at: loc(f, span),
    }
}

/// What a setting's values are, for a message.
fn describe_args(args: &[Value]) -> String {
    match args {
        [Value::Ident(w)] => format!("`{}`", w.name),
        [one] => one.describe().to_string(),
        _ => format!("{} values", args.len()),
    }
}

/// FL003: `ready marker` or `ready nonempty` on a source whose kind lists no files.
fn ready_not_listed(
    f: FileId,
    s: &ast::Setting,
    kind: &KindDef,
    decl: &str,
    ready: &Ready,
) -> Problem {
    let span = s.args.first().map_or(s.span, |first| {
        first
            .span()
            .to(s.args.last().map_or(first.span(), Value::span))
    });
    Problem::ReadyNotListed {
        word: ready.word(),
        decl: decl.to_owned(),
        kind: kind.name.clone(),
        kind_at: kind.loc,
        at: loc(f, span),
    }
}

/// FL003: a commit mode the kind does not list in `commits`.
fn commit_not_offered(f: FileId, span: Span, kind: &KindDef, mode: CommitMode) -> Problem {
    Problem::CommitNotOffered {
        kind: kind.name.clone(),
        mode,
        offered: kind.commits.iter().copied().collect(),
        at: loc(f, span),
        kind_loc: kind.loc,
    }
}

/// FL006: the word `i` of the setting `s`, none of `words`; `one_of` when
/// `s` takes one of them.
fn not_a_value(
    f: FileId,
    s: &ast::Setting,
    i: &ast::Ident,
    words: &[&str],
    one_of: bool,
) -> Problem {
    Problem::NotAValue {
        value: i.name.clone(),
        setting: s.name.name.clone(),
        words: words.iter().map(|w| (*w).to_string()).collect(),
        one_of,
        near: closest(&i.name, words.iter().copied()).map(str::to_string),
        at: loc(f, i.span),
    }
}

/// The first of a statement's repeatable clauses; every later one is FL007.
fn first_clause<'a, T>(
    diags: &mut Vec<Problem>,
    f: FileId,
    clauses: &'a [T],
    span: impl Fn(&T) -> Span,
    clause: Clause,
    name: &str,
) -> Option<&'a T> {
    for extra in clauses.iter().skip(1) {
        diags.push(Problem::ClauseTwice {
            clause,
            name: name.to_string(),
            at: loc(f, span(extra)),
        });
    }
    clauses.first()
}

/// For statements that may appear once in a task: report the second.
fn dup_statement(
    diags: &mut Vec<Problem>,
    f: FileId,
    what: &'static str,
    first: &mut Option<Span>,
    at: Span,
) -> bool {
    if let Some(prev) = first {
        diags.push(Problem::StatementTwice {
            what,
            at: loc(f, at),
            first: loc(f, *prev),
        });
        return false;
    }
    *first = Some(at);
    true
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::{resolve_on, Unit};
    use crate::diagnostic::Code;
    use crate::source::FileId;

    /// The tasks of a large pipeline are resolved on several threads.
    /// Whatever the number of threads, the program and the findings, in
    /// their order, are those of one thread.
    #[test]
    fn several_threads_resolve_what_one_thread_resolves() {
        let mut text = String::from(
            "source lake: files {\n  path \"s3://l/{interval.start}/\"\n  immutable\n  pin listing\n}\n\
             sink tbl: postgres_table {\n  table \"s.t\"\n  primary_key id\n}\n\
             effect hook: webhook {\n  url \"https://h.example.com\"\n}\n\
             pipeline big {\n  schedule \"@daily\"\n  start 2026-01-01\n",
        );
        // Every task is different, and most have something wrong: unknown
        // names, a role mismatch, bad settings and terms, duplicates.
        let variants = [
            "read lake pinned listing\n    key input.id\n    write tbl upsert",
            "after t{prev}\n    read nowhere\n    write tbl upsert",
            "read hook\n    write lake append\n    emit tbl via outbox",
            "read lake commit auto\n    key attempt.id\n    write tbl insert",
            "after ghost\n    retries \"three\"\n    timeout 5\n    write tbl upsert",
            "read lake unpinned\n    key (output.x, h = hash(input), run.id)\n    emit hook via idempotency_key input.id",
            "key now()\n    write nosuch upsert\n    emit hook",
            "frobnicate 3\n    on_ambiguous maybe\n    run command []",
        ];
        for i in 0..1_203 {
            let name = if i % 97 == 5 { i - 1 } else { i };
            let body = variants[i % variants.len()].replace("{prev}", &(i.max(1) - 1).to_string());
            writeln!(text, "  task t{name} {{\n    {body}\n  }}").expect("a String takes any text");
        }
        text.push_str("}\n");

        let mut texts: Vec<String> = crate::check::stdlib_files()
            .map(|(_, t)| t.to_string())
            .collect();
        texts.push(text);
        let asts: Vec<crate::syntax::ast::File> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let (ast, d) = crate::syntax::parse(FileId(i), t);
                assert!(d.is_empty(), "{d:?}");
                ast.expect("parses")
            })
            .collect();
        let units = Unit::stdlib_then_root(&asts);
        let mut one = Vec::new();
        let program = format!("{:?}", resolve_on(1, &units, &mut one));
        let codes: std::collections::BTreeSet<Code> =
            one.iter().map(super::Problem::code).collect();
        for code in [
            Code::FL002,
            Code::FL003,
            Code::FL009,
            Code::FL702,
            Code::FL703,
        ] {
            assert!(codes.contains(&code), "{code} not in {codes:?}");
        }
        assert!(one.len() > 1_000, "{}", one.len());
        for threads in [2, 3, 8] {
            let mut many = Vec::new();
            assert_eq!(
                program,
                format!("{:?}", resolve_on(threads, &units, &mut many))
            );
            assert_eq!(one, many, "{threads} threads");
        }
    }
}
