//! From files to findings: parse, follow `use`, resolve names, build the task
//! graph, derive guarantees, run the rules, apply suppressions.
//!
//! Pure: files come in as bytes through a [`Loader`]; nothing here touches
//! the file system or the terminal.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, PoisonError};

use crate::analyze::model::Loc;
use crate::analyze::problem::Problem;
use crate::analyze::{guarantee, resolve, Analysis, Program};
use crate::diagnostic::{self, Code, Diagnostic};
use crate::source::{FileId, SourceMap};
use crate::span::{LineIndex, Span};
use crate::syntax::{self, ast};

/// A file's bytes and identity.
#[derive(Debug, Clone)]
pub struct Input {
    /// Shown in messages and output: the path as the user gave it.
    pub path: String,
    /// Identity for "each file once" (the canonical path).
    pub key: String,
    pub bytes: Vec<u8>,
}

/// Reads the files that `use` names.
pub trait Loader {
    /// The file `use "rel"` names, seen from the file whose [`Input::key`]
    /// is `from` (the key this loader gave it, never its display path).
    fn load(&self, from: &str, rel: &str) -> Result<Input, String>;
}

/// A loader for runs with no imports (tests, in-memory checks).
pub struct NoImports;

impl Loader for NoImports {
    fn load(&self, _from: &str, rel: &str) -> Result<Input, String> {
        Err(format!("cannot read `{rel}`"))
    }
}

/// Which findings of a file are kept, and at what severity: the
/// configuration in force for it (`config::Settings`, found by `io`).
pub trait Policy {
    /// Settle one finding of the file shown as `path`: `false` leaves it
    /// out of the run; the severity may change.
    fn settle(&self, path: &str, d: &mut Diagnostic) -> bool;
}

/// Every rule at its own severity.
pub struct Defaults;

impl Policy for Defaults {
    fn settle(&self, _path: &str, _d: &mut Diagnostic) -> bool {
        true
    }
}

/// Apply `policy` to findings (those of the standard library stay as they are).
pub fn settle(policy: &dyn Policy, sources: &SourceMap, diags: &mut Vec<Diagnostic>) {
    diags.retain_mut(|d| {
        let path = sources.path(d.file);
        path.starts_with("<stdlib>") || policy.settle(path, d)
    });
}

/// Everything one run found.
#[derive(Debug)]
pub struct Outcome {
    pub sources: SourceMap,
    pub diagnostics: Vec<Diagnostic>,
    pub program: Program,
    pub analysis: Analysis,
    /// The files given by the user, in order (imports not included).
    pub roots: Vec<FileId>,
    /// Files that did not parse, or whose names did not all resolve: they have no report.
    pub broken: BTreeSet<FileId>,
    /// Per file, the findings left out of `diagnostics` past
    /// [`diagnostic::MAX_FINDINGS_PER_FILE`]; they still count.
    pub omitted: BTreeMap<FileId, diagnostic::Omitted>,
    /// The unsuppressed findings left out of `diagnostics`, per rule and
    /// severity (for `check --statistics`).
    pub omitted_rules: BTreeMap<(Code, diagnostic::Severity), usize>,
    /// Per root read from the disk, its path as a generated file's header
    /// names it (relative to its project root: `io::read::header_path`,
    /// filled by `io::read::check_files`); [`Outcome::header_path`].
    pub header_paths: BTreeMap<FileId, String>,
}

impl Outcome {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
            || self.omitted.values().any(|o| o.errors > 0)
    }

    /// The path a generated file's header names for `file`: as `io` found
    /// it on the disk, else (a file checked from memory) as given.
    pub fn header_path(&self, file: FileId) -> &str {
        self.header_paths
            .get(&file)
            .map_or_else(|| self.sources.path(file), String::as_str)
    }

    /// Unsuppressed errors in one file, listed or left out.
    pub fn file_has_errors(&self, file: FileId) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.file == file && d.is_error())
            || self.omitted.get(&file).is_some_and(|o| o.errors > 0)
    }

    /// The counts of the run's findings, those left out of the list included.
    pub fn summary(&self) -> diagnostic::Summary {
        diagnostic::Summary::of(self.roots.len(), &self.diagnostics)
            .with_omitted(self.omitted.values())
    }
}

const STDLIB: [(&str, &str); 10] = [
    ("effects.flow", include_str!("../../stdlib/effects.flow")),
    ("files.flow", include_str!("../../stdlib/files.flow")),
    ("kafka.flow", include_str!("../../stdlib/kafka.flow")),
    (
        "lakehouse.flow",
        include_str!("../../stdlib/lakehouse.flow"),
    ),
    ("postgres.flow", include_str!("../../stdlib/postgres.flow")),
    ("sqlite.flow", include_str!("../../stdlib/sqlite.flow")),
    (
        "warehouse.flow",
        include_str!("../../stdlib/warehouse.flow"),
    ),
    (
        "clickhouse.flow",
        include_str!("../../stdlib/clickhouse.flow"),
    ),
    ("mysql.flow", include_str!("../../stdlib/mysql.flow")),
    ("duckdb.flow", include_str!("../../stdlib/duckdb.flow")),
];

/// The embedded standard library, as (display path, text).
pub fn stdlib_files() -> impl Iterator<Item = (String, &'static str)> {
    STDLIB.iter().map(|(n, t)| (format!("<stdlib>/{n}"), *t))
}

struct Loaded {
    file: FileId,
    /// The [`Input::key`] it was read under: what the loader resolves its
    /// `use` paths from.
    key: String,
    ast: Option<ast::File>,
    stdlib: bool,
    /// (`use` span, target file) for each import that loaded.
    uses: Vec<(Span, FileId)>,
}

/// Check a set of files with every rule at its own severity.
pub fn check(inputs: Vec<Input>, loader: &dyn Loader) -> Outcome {
    check_with(inputs, loader, &Defaults)
}

/// Check a set of files; `policy` says which findings each file keeps
/// (after suppression, so an `allow` of a rule turned off is not unused).
pub fn check_with(inputs: Vec<Input>, loader: &dyn Loader, policy: &dyn Policy) -> Outcome {
    let mut sources = SourceMap::default();
    let mut diags = Vec::new();
    let mut loaded: Vec<Loaded> = Vec::new();
    let mut by_key: BTreeMap<String, FileId> = BTreeMap::new();

    // Every file named on the command line, and the standard library, is
    // read and parsed up front on all cores; `use` then follows from them.
    let stdlib_count = STDLIB.len();
    let mut all: Vec<Input> = stdlib_files()
        .map(|(path, text)| Input {
            key: path.clone(),
            path,
            bytes: text.as_bytes().to_vec(),
        })
        .collect();
    all.extend(inputs);
    let mut parsed = parse_all(all).into_iter();
    for p in parsed.by_ref().take(stdlib_count) {
        let key = p.key.clone();
        let (file, ast) = place(&mut sources, &mut diags, p);
        loaded.push(Loaded {
            file,
            key,
            ast,
            stdlib: true,
            uses: Vec::new(),
        });
    }

    let mut roots = Vec::new();
    let mut index: BTreeMap<FileId, usize> = BTreeMap::new();
    for input in parsed {
        let (root, new) = ensure(
            &mut sources,
            &mut diags,
            &mut loaded,
            &mut by_key,
            &mut index,
            input,
        );
        if !roots.contains(&root) {
            roots.push(root);
        }
        // Follow `use` depth-first; each file is loaded once (by its key).
        let mut pending = if new { vec![root] } else { Vec::new() };
        while let Some(file) = pending.pop() {
            let from = loaded[index[&file]].key.clone();
            let uses: Vec<(Span, String, Span)> = loaded[index[&file]]
                .ast
                .iter()
                .flat_map(|t| t.items.iter())
                .filter_map(|i| match i {
                    ast::Item::Use(u) => Some((u.span, u.path.value.clone(), u.path.span)),
                    _ => None,
                })
                .collect();
            for (span, rel, path_span) in uses {
                match loader.load(&from, &rel) {
                    Ok(next) => {
                        let (target, new) = ensure(
                            &mut sources,
                            &mut diags,
                            &mut loaded,
                            &mut by_key,
                            &mut index,
                            parse_input(next),
                        );
                        loaded[index[&file]].uses.push((span, target));
                        if new {
                            pending.push(target);
                        }
                    }
                    Err(msg) => diags.push(crate::rules::finding(Problem::ImportFailed {
                        path: rel.clone(),
                        why: msg,
                        at: Loc {
                            file,
                            span: path_span,
                        },
                    })),
                }
            }
        }
    }
    report_use_cycles(&loaded, &sources, &mut diags);

    let units: Vec<resolve::Unit<'_>> = loaded
        .iter()
        .filter_map(|l| {
            let ast = l.ast.as_ref()?;
            let mut uses: Vec<FileId> = l
                .uses
                .iter()
                .map(|(_, f)| *f)
                .filter(|f| *f != l.file)
                .collect();
            uses.sort();
            uses.dedup();
            Some(resolve::Unit {
                file: l.file,
                ast,
                stdlib: l.stdlib,
                root: roots.contains(&l.file),
                uses,
            })
        })
        .collect();
    let mut problems = Vec::new();
    let program = resolve::resolve(&units, &mut problems);

    let mut broken: BTreeSet<FileId> = loaded
        .iter()
        .filter(|l| l.ast.is_none())
        .map(|l| l.file)
        .collect();
    let mark_broken = |broken: &mut BTreeSet<FileId>, diags: &[Diagnostic]| {
        for d in diags {
            if matches!(d.code, Code::FL001 | Code::FL702 | Code::FL005) {
                broken.insert(d.file);
            }
        }
    };
    // From here on findings go to the collector a batch at a time, which
    // keeps only what can be listed and counts the rest.
    let mut collector = Collector::new(&sources, policy, &program);
    mark_broken(&mut broken, &diags);
    collector.absorb(diags);
    // A declaration whose settings do not fit its kind: one finding for
    // them, and none for what follows from them (`rules::cascade`).
    let doubtful = crate::rules::cascade::Doubtful::find(&problems, &program);
    let folded = doubtful.fold(&mut problems);
    collector.absorb(folded);
    let mut problems = problems.into_iter().peekable();
    while problems.peek().is_some() {
        let batch: Vec<Diagnostic> = problems
            .by_ref()
            .take(COLLECT_BATCH)
            .map(crate::rules::finding)
            .collect();
        mark_broken(&mut broken, &batch);
        collector.absorb(batch);
    }
    // The syntax trees are not needed any more: free them now, before the
    // analysis allocates its own, on the other core.
    drop(units);
    std::thread::spawn(move || drop(loaded));
    let analysis = guarantee::analyze(&program, &broken, &mut []);
    crate::rules::run_into(&program, &analysis, &broken, &mut |mut found| {
        found.retain(|d| !doubtful.follows(d));
        collector.absorb(found);
    });
    let (diags, omitted, omitted_rules) = collector.finish(&broken);
    Outcome {
        sources,
        diagnostics: diags,
        program,
        analysis,
        roots,
        broken,
        omitted,
        omitted_rules,
        header_paths: BTreeMap::new(),
    }
}

/// Findings per rule and severity.
type RuleCounts = BTreeMap<(Code, diagnostic::Severity), usize>;

/// How many findings of the resolver are turned into diagnostics at a time.
const COLLECT_BATCH: usize = 4096;

/// The findings of a run as they come, kept as few as the output needs:
/// each is marked by the `allow`s, settled by the policy and told from a
/// repeat at once, and of each file only the first
/// [`diagnostic::MAX_FINDINGS_PER_FILE`] (in the sorted order) are kept;
/// the others are counted in [`diagnostic::Omitted`]. The result is the
/// same as collecting every finding, sorting and cutting at the end, with
/// memory bounded by the cap instead of by the number of findings.
struct Collector<'a> {
    sources: &'a SourceMap,
    policy: &'a dyn Policy,
    marks: crate::rules::suppress::Marks<'a>,
    /// Every finding seen, by file, span, code and a hash of its message:
    /// a repeat is dropped (and not counted) even when the first was left out.
    seen: BTreeSet<(FileId, Span, Code, u64)>,
    /// Per file, (order of arrival, finding): at most twice the cap between
    /// trims.
    kept: BTreeMap<FileId, Vec<(usize, Diagnostic)>>,
    omitted: BTreeMap<FileId, diagnostic::Omitted>,
    omitted_rules: RuleCounts,
    arrived: usize,
}

impl<'a> Collector<'a> {
    fn new(sources: &'a SourceMap, policy: &'a dyn Policy, program: &'a Program) -> Self {
        Collector {
            sources,
            policy,
            marks: crate::rules::suppress::Marks::new(program),
            seen: BTreeSet::new(),
            kept: BTreeMap::new(),
            omitted: BTreeMap::new(),
            omitted_rules: BTreeMap::new(),
            arrived: 0,
        }
    }

    fn absorb(&mut self, mut diags: Vec<Diagnostic>) {
        self.marks.mark(&mut diags);
        settle(self.policy, self.sources, &mut diags);
        for d in diags {
            if self.sources.path(d.file).starts_with("<stdlib>") && !d.is_error() {
                continue;
            }
            if !self
                .seen
                .insert((d.file, d.span, d.code, message_hash(&d.message)))
            {
                continue;
            }
            self.arrived += 1;
            let file = d.file;
            let list = self.kept.entry(file).or_default();
            list.push((self.arrived, d));
            if list.len() >= 2 * diagnostic::MAX_FINDINGS_PER_FILE {
                self.trim(file);
            }
        }
    }

    /// Keep the first [`diagnostic::MAX_FINDINGS_PER_FILE`] of `file`'s
    /// findings in the sorted order; count the others.
    fn trim(&mut self, file: FileId) {
        let Some(list) = self.kept.get_mut(&file) else {
            return;
        };
        let sources = self.sources;
        list.sort_by(|(i, a), (j, b)| diagnostic::order(sources, a, b).then(i.cmp(j)));
        if list.len() > diagnostic::MAX_FINDINGS_PER_FILE {
            let omitted = self.omitted.entry(file).or_default();
            for (_, d) in list.drain(diagnostic::MAX_FINDINGS_PER_FILE..) {
                omitted.add(&d);
                if d.suppressed.is_none() {
                    *self.omitted_rules.entry((d.code, d.severity)).or_default() += 1;
                }
            }
        }
    }

    /// The listed findings, sorted, and what was left out of each file;
    /// with FL705 for the allows that covered nothing.
    fn finish(
        mut self,
        broken: &BTreeSet<FileId>,
    ) -> (
        Vec<Diagnostic>,
        BTreeMap<FileId, diagnostic::Omitted>,
        RuleCounts,
    ) {
        let unused = std::mem::replace(&mut self.marks, crate::rules::suppress::Marks::empty())
            .unused(broken);
        self.absorb(unused);
        let files: Vec<FileId> = self.kept.keys().copied().collect();
        for file in files {
            self.trim(file);
        }
        let mut all: Vec<(usize, Diagnostic)> = self.kept.into_values().flatten().collect();
        let sources = self.sources;
        all.sort_by(|(i, a), (j, b)| diagnostic::order(sources, a, b).then(i.cmp(j)));
        (
            all.into_iter().map(|(_, d)| d).collect(),
            self.omitted,
            self.omitted_rules,
        )
    }
}

/// A fixed hash of a message (the same in every run), to tell repeats apart
/// without keeping every message.
fn message_hash(message: &str) -> u64 {
    use std::hash::{Hash as _, Hasher as _};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    message.hash(&mut h);
    h.finish()
}

/// A file read and parsed, before it has its place (and [`FileId`]) in
/// the source map; its findings carry [`UNPLACED`] until then.
struct Parsed {
    path: String,
    key: String,
    text: String,
    lines: LineIndex,
    ast: Option<ast::File>,
    diags: Vec<Diagnostic>,
}

const UNPLACED: FileId = FileId(usize::MAX);

fn parse_input(input: Input) -> Parsed {
    let Input { path, key, bytes } = input;
    let (text, ast, diags) = match String::from_utf8(bytes) {
        Ok(text) => {
            let (ast, problems) = syntax::parse(UNPLACED, &text);
            let d = problems.iter().map(crate::rules::syntax_finding).collect();
            (text, ast, d)
        }
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bad = e
                .utf8_error()
                .error_len()
                .unwrap_or(e.as_bytes().len() - at);
            // The text kept for the file has every byte that is not UTF-8
            // as a `?`, so offsets and lengths are the file's own bytes.
            let text = with_bad_bytes_as_marks(e.as_bytes());
            let (start, end) = (at, at + bad);
            let d = Diagnostic::new(
                Code::FL001,
                UNPLACED,
                Span::new(start, end),
                format!("file is not valid UTF-8 (first bad byte at offset {at})"),
            )
            .help("`.flow` files are UTF-8 text; check that this is the file you meant");
            (text, None, vec![d])
        }
    };
    let (text, ast, diags) = if is_opaque(&text, &diags) {
        hide_all_but_findings(&text, diags)
    } else {
        (text, ast, diags)
    };
    let lines = LineIndex::new(&text);
    Parsed {
        path,
        key,
        text,
        lines,
        ast,
        diags,
    }
}

/// The most of a file that is not `.flow` text shown at each finding.
const OPAQUE_TOKEN_BYTES: usize = 40;

/// Whether a file is not `.flow` text at all (a binary, an environment
/// dump, a `.env`, a key reached by mistake): not UTF-8, holding a NUL,
/// or wrong from its first token on (one that no fix would mend). Nothing of such a file is shown
/// beyond its offending tokens.
fn is_opaque(text: &str, diags: &[Diagnostic]) -> bool {
    if text.contains('\0') {
        return true;
    }
    let Some(first) = diags.iter().min_by_key(|d| d.span.start) else {
        return false;
    };
    // A first token with a fix (a keyword's case, a did-you-mean) is a
    // `.flow` file's mistake, not another kind of file.
    first.span.start <= first_token(text) && first.fix.is_none()
}

/// Where the first token of a `.flow` text starts: past blanks and comments.
fn first_token(text: &str) -> usize {
    let mut at = 0;
    let bytes = text.as_bytes();
    while at < bytes.len() {
        match bytes[at] {
            b' ' | b'\t' | b'\n' | b'\r' => at += 1,
            b'#' => {
                at = text[at..].find('\n').map_or(text.len(), |i| at + i);
            }
            _ => break,
        }
    }
    at
}

/// An opaque file as it is kept: every character blanked (line breaks
/// kept, so offsets and lines stay) but at most [`OPAQUE_TOKEN_BYTES`] of
/// each finding's span; no syntax tree, so nothing else of it is used;
/// and no fixes, which would write the blanks back.
fn hide_all_but_findings(
    text: &str,
    mut diags: Vec<Diagnostic>,
) -> (String, Option<ast::File>, Vec<Diagnostic>) {
    let mut shown: Vec<(usize, usize)> = diags
        .iter()
        .map(|d| {
            let start = d.span.start.min(text.len());
            let end = d.span.end.clamp(start, text.len());
            (start, end.min(start + OPAQUE_TOKEN_BYTES))
        })
        .collect();
    shown.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut next = 0;
    for (i, c) in text.char_indices() {
        while next < shown.len() && shown[next].1 <= i {
            next += 1;
        }
        // Ranges sorted by start: any that holds `i` is at or after `next`
        // and starts at or before `i`.
        let inside = shown[next..]
            .iter()
            .take_while(|&&(a, _)| a <= i)
            .any(|&(_, b)| i < b);
        if c == '\n' || inside {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        }
    }
    for d in &mut diags {
        d.fix = None;
        // A span past the kept part would underline blanks.
        let start = d.span.start.min(out.len());
        let end = d.span.end.clamp(start, out.len());
        let mut cut = end.min(start + OPAQUE_TOKEN_BYTES);
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        d.span = Span::new(start, cut.max(start));
    }
    (out, None, diags)
}

/// Parse files on all cores; the results keep the order of `inputs`.
fn parse_all(inputs: Vec<Input>) -> Vec<Parsed> {
    // Each input is taken out of its slot by the thread that parses it.
    let slots: Vec<Mutex<Option<Input>>> =
        inputs.into_iter().map(|i| Mutex::new(Some(i))).collect();
    crate::par::map_each(&slots, crate::par::cores(), |slot| {
        let input = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
        input.map(parse_input)
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Give a parsed file its place in the source map, and its findings their file.
fn place(
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
    parsed: Parsed,
) -> (FileId, Option<ast::File>) {
    let file = sources.add_indexed(parsed.path, parsed.text, parsed.lines);
    for mut d in parsed.diags {
        d.file = file;
        for l in &mut d.labels {
            if l.file == UNPLACED {
                l.file = file;
            }
        }
        for e in d.fix.iter_mut().flat_map(|f| f.edits.iter_mut()) {
            if e.file == UNPLACED {
                e.file = file;
            }
        }
        diags.push(d);
    }
    (file, parsed.ast)
}

/// Load a file once; `true` when it was new.
fn ensure(
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
    loaded: &mut Vec<Loaded>,
    by_key: &mut BTreeMap<String, FileId>,
    index: &mut BTreeMap<FileId, usize>,
    input: Parsed,
) -> (FileId, bool) {
    if let Some(&id) = by_key.get(&input.key) {
        return (id, false);
    }
    let key = input.key.clone();
    let (file, ast) = place(sources, diags, input);
    by_key.insert(key.clone(), file);
    index.insert(file, loaded.len());
    loaded.push(Loaded {
        file,
        key,
        ast,
        stdlib: false,
        uses: Vec::new(),
    });
    (file, true)
}

fn report_use_cycles(loaded: &[Loaded], sources: &SourceMap, diags: &mut Vec<Diagnostic>) {
    let edges: BTreeMap<FileId, &Vec<(Span, FileId)>> =
        loaded.iter().map(|l| (l.file, &l.uses)).collect();
    let mut reported: BTreeSet<(FileId, Span)> = BTreeSet::new();
    // 0 = unseen, 1 = on stack, 2 = done
    let mut state: BTreeMap<FileId, u8> = BTreeMap::new();
    for start in edges.keys() {
        if state.get(start).copied().unwrap_or(0) != 0 {
            continue;
        }
        let mut stack: Vec<(FileId, usize)> = vec![(*start, 0)];
        state.insert(*start, 1);
        while let Some((node, i)) = stack.last().copied() {
            let out = edges.get(&node).map_or(&[][..], |v| v.as_slice());
            if i >= out.len() {
                state.insert(node, 2);
                stack.pop();
                continue;
            }
            if let Some(top) = stack.last_mut() {
                top.1 += 1;
            }
            let (span, next) = out[i];
            match state.get(&next).copied().unwrap_or(0) {
                0 => {
                    state.insert(next, 1);
                    stack.push((next, 0));
                }
                1 if reported.insert((node, span)) => {
                    let pos = stack.iter().position(|(f, _)| *f == next).unwrap_or(0);
                    let mut files: Vec<String> = stack[pos..]
                        .iter()
                        .map(|(f, _)| sources.path(*f).to_string())
                        .collect();
                    files.push(sources.path(next).to_string());
                    diags.push(crate::rules::finding(Problem::UseCycle {
                        files,
                        own: next == node,
                        at: Loc { file: node, span },
                    }));
                }
                _ => {}
            }
        }
    }
}

/// `bytes` as text with each byte of every invalid UTF-8 sequence replaced
/// by `?`: one byte for one byte, so every offset stays the file's.
fn with_bad_bytes_as_marks(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        text.extend(std::iter::repeat_n('?', chunk.invalid().len()));
    }
    text
}
