//! pest to AST. Syntax errors come out as typed FL001 problems
//! (`syntax::problem`) naming tokens in words, which FL001's rule file makes
//! into sentences: pest's rule names never reach a user.

use std::collections::BTreeSet;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use pest::iterators::Pair;
use pest::Parser as _;

use super::ast::{
    After, Allow, Decl, Emit, Env, File, Ident, Item, KeyExpr, KeyPart, KeyStmt, KindDecl,
    ParamDecl, PinClause, Pipeline, Read, Role, Run, Setting, Str, Task, TaskStmt, TermExpr, Use,
    Value, Via, Write, WriteModeExpr,
};
use super::escape::unescape;
use super::problem::{Hint, SyntaxError, SyntaxProblem};
use crate::source::FileId;
use crate::span::Span;

#[derive(pest_derive::Parser)]
#[grammar = "../../grammar/flow.pest"]
struct FlowParser;

/// Texts larger than this (32 MiB) are refused with a diagnostic instead of
/// parsed; files larger than this are not even read
/// ([`crate::io::read::MAX_INPUT_BYTES`]). 100,000 generated tasks take about
/// 22 MB; a larger spec is split over files joined with `use`.
pub const MAX_FILE_BYTES: usize = 32 * 1024 * 1024;
/// Brackets and braces nested deeper than this are refused before parsing.
pub const MAX_NESTING: usize = 64;

/// Parse one file. Returns the tree when the file parses; syntax problems
/// (FL001, worded by `rules::syntax_finding`) otherwise, or alongside the
/// tree for problems found while lowering (a bad escape in a string).
pub fn parse(file: FileId, text: &str) -> (Option<File>, Vec<SyntaxProblem>) {
    if text.len() > MAX_FILE_BYTES {
        let d = SyntaxProblem {
            file,
            span: Span::new(0, 0),
            what: SyntaxError::TooLarge {
                bytes: text.len(),
                limit: MAX_FILE_BYTES,
            },
        };
        return (None, vec![d]);
    }
    // The grammar is linear and its nesting bounded (by the chunked parse's
    // scan, or below), so the call budget only stops pathological inputs. One
    // value for every file, since files may be parsed on several threads at once.
    pest::set_call_limit(NonZeroUsize::new(MAX_FILE_BYTES * 64));
    if let Some(done) = parse_chunked(file, text) {
        return done;
    }
    if let Some(d) = check_nesting(file, text) {
        return (None, vec![d]);
    }
    match lower_text(file, text, PosMap::IDENTITY) {
        Some((items, diags)) => (Some(File { items }), diags),
        None => explain_failure(file, text),
    }
}

/// The items of a file or chunk, and the problems found while building them.
type Lowered = (Vec<Item>, Vec<SyntaxProblem>);

/// Parse `text` (the whole file, or one chunk of it placed by `map`) and
/// build its items; `None` when it does not parse.
fn lower_text(file: FileId, text: &str, map: PosMap) -> Option<Lowered> {
    let pairs = FlowParser::parse(Rule::file, text).ok()?;
    let mut lower = Lower {
        file,
        diags: Vec::new(),
        map,
    };
    let mut items = Vec::new();
    for pair in pairs {
        if pair.as_rule() == Rule::file {
            for item in pair.into_inner() {
                if let Some(i) = lower.item(item) {
                    items.push(i);
                }
            }
        }
    }
    Some((items, lower.diags))
}

/// Serialises the parses that explain a failure: pest's error detail is a
/// process-wide switch.
static EXPLAINING: Mutex<()> = Mutex::new(());

/// The FL001 problem of a file that does not parse. Error detail (the rule
/// stack behind each expected token) slows a parse, so only this second
/// parse of a failed file turns it on.
fn explain_failure(file: FileId, text: &str) -> (Option<File>, Vec<SyntaxProblem>) {
    let _one_at_a_time = EXPLAINING.lock().unwrap_or_else(PoisonError::into_inner);
    pest::set_error_detail(true);
    let result = FlowParser::parse(Rule::file, text);
    pest::set_error_detail(false);
    match result {
        Err(e) => (None, vec![syntax_error(file, text, &e)]),
        // Detail does not change what parses; should it ever, the tree stands.
        Ok(_) => match lower_text(file, text, PosMap::IDENTITY) {
            Some((items, diags)) => (Some(File { items }), diags),
            None => (None, Vec::new()),
        },
    }
}

/// Files at least this large are parsed in chunks on all cores.
const CHUNKED_MIN_BYTES: usize = 256 * 1024;
/// About the size of a chunk: small enough that the token queues pest
/// builds for the chunks being parsed at one time stay small.
const CHUNK_BYTES: usize = 64 * 1024;

/// The first lines of the blocks open at a cut, outermost first: an item's
/// (`pipeline p {`, `sink s: k {`, `kind k {`), then perhaps a task's, then
/// perhaps the task's `env {`. Each is a line `(start, end)` of the file,
/// its line break included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Heads {
    lines: [(usize, usize); 3],
    open: usize,
}

impl Heads {
    fn lines(&self) -> &[(usize, usize)] {
        &self.lines[..self.open]
    }
}

/// A place where the file can be cut: the start of a line that begins a
/// top-level item after another one ended, or a line that begins a statement
/// of an item's block (or of a task's) after the previous statement ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cut {
    at: usize,
    /// For a cut inside blocks: their first lines, which the chunk after
    /// the cut repeats so that it parses on its own (the chunk before closes
    /// them with a `}` each).
    heads: Heads,
}

/// Parse a large file in chunks on all cores. A chunk is cut so that it
/// parses as a file of its own: a cut inside a block closes it with `}`
/// before the cut and repeats its first line after. `None` (parse the whole
/// file instead) for small files, a single core, no place to cut, or any
/// chunk that does not parse: the whole-file parse then explains the error
/// exactly as it would have without chunks.
fn parse_chunked(file: FileId, text: &str) -> Option<(Option<File>, Vec<SyntaxProblem>)> {
    if text.len() < CHUNKED_MIN_BYTES {
        return None;
    }
    let cores = crate::par::cores();
    if cores < 2 {
        return None;
    }
    parse_in_chunks(file, text, (text.len() / CHUNK_BYTES).max(cores))
}

/// [`parse_chunked`] with a given number of chunks, whatever the file's size
/// (public for the tests that compare it with the whole-file parse).
#[doc(hidden)]
pub fn parse_in_chunks(
    file: FileId,
    text: &str,
    chunks: usize,
) -> Option<(Option<File>, Vec<SyntaxProblem>)> {
    if chunks < 2 {
        return None;
    }
    let cuts = cuts(text, chunks)?;
    if cuts.is_empty() {
        return None;
    }
    let start = Cut {
        at: 0,
        heads: Heads::default(),
    };
    let end = Cut {
        at: text.len(),
        heads: Heads::default(),
    };
    let bounds: Vec<(Cut, Cut)> = std::iter::once(start)
        .chain(cuts.iter().copied())
        .zip(cuts.iter().copied().chain(std::iter::once(end)))
        .collect();
    // The text pest sees for a chunk, and where it sits in the file.
    let piece = |(begin, end): (Cut, Cut)| {
        let mut piece = String::new();
        let map = PosMap {
            heads: begin.heads,
            base: begin.at,
        };
        for &(hs, he) in begin.heads.lines() {
            piece.push_str(&text[hs..he]);
        }
        piece.push_str(&text[begin.at..end.at]);
        for _ in 0..end.heads.open {
            piece.push_str("}\n");
        }
        lower_text(file, &piece, map)
    };
    // A pool of one thread per core takes the chunks in order, so only a
    // few chunks' token queues exist at any time.
    let failed = AtomicBool::new(false);
    let done = crate::par::map_each(&bounds, crate::par::cores(), |&b| {
        if failed.load(Ordering::Relaxed) {
            // No use parsing the rest: the whole file will be.
            return None;
        }
        let r = piece(b);
        failed.fetch_or(r.is_none(), Ordering::Relaxed);
        r
    });
    if failed.load(Ordering::Relaxed) {
        return None;
    }
    // What each chunk adds to the item the chunk before left open (summed
    // over the chunks that go on with it), so that the joined lists are
    // sized once, not grown.
    let mut joining: Vec<usize> = done
        .iter()
        .zip(&bounds)
        .map(|(result, (begin, _))| match (begin.heads.open, result) {
            (0, _) | (_, None) => 0,
            (_, Some((items, _))) => items.first().map_or(0, Item::statements),
        })
        .collect();
    for k in (1..joining.len()).rev() {
        if bounds[k].0.heads.open > 0 {
            joining[k - 1] += joining[k];
        }
    }
    let mut items: Vec<Item> = Vec::new();
    let mut diags = Vec::new();
    for ((result, (begin, _)), still) in done.into_iter().zip(&bounds).zip(joining) {
        let (more, d) = result?;
        diags.extend(d);
        let mut more = more.into_iter();
        if begin.heads.open > 0 {
            // The chunk goes on with the item the previous one closed.
            join(items.last_mut()?, more.next()?, begin.heads.open, still)?;
        }
        items.extend(more);
    }
    Some((Some(File { items }), diags))
}

impl Item {
    /// How many entries the item holds in the list that grows most when a
    /// chunk goes on with it: a pipeline's tasks, a declaration's or a
    /// kind's lines.
    fn statements(&self) -> usize {
        match self {
            Item::Pipeline(p) => p.tasks.len(),
            Item::Decl(d) => d.props.len(),
            Item::Kind(k) => k.lines.len(),
            Item::Use(_) => 0,
        }
    }
}

/// Append to `prev` what `next` holds of the same item, continued by the
/// chunk after a cut inside `open` blocks (the item's, then a task's, then
/// its `env`); `still` sizes its lists. `None` when `next` is not the same
/// item.
fn join(prev: &mut Item, next: Item, open: usize, still: usize) -> Option<()> {
    match (prev, next) {
        (Item::Pipeline(into), Item::Pipeline(more)) if into.name.name == more.name.name => {
            let mut tasks = more.tasks.into_iter();
            if open >= 2 {
                let (Some(task), Some(rest)) = (into.tasks.last_mut(), tasks.next()) else {
                    return None;
                };
                if task.name.name != rest.name.name {
                    return None;
                }
                let mut stmts = rest.stmts.into_iter();
                if open == 3 {
                    let (Some(TaskStmt::Env(env)), Some(TaskStmt::Env(env_rest))) =
                        (task.stmts.last_mut(), stmts.next())
                    else {
                        return None;
                    };
                    env.entries.extend(env_rest.entries);
                    env.span.end = env_rest.span.end;
                }
                task.stmts.extend(stmts);
                task.span.end = rest.span.end;
            }
            into.tasks.reserve(still);
            into.settings.extend(more.settings);
            into.params.extend(more.params);
            into.allows.extend(more.allows);
            into.tasks.extend(tasks);
            into.span.end = more.span.end;
        }
        (Item::Decl(into), Item::Decl(more))
            if open == 1 && into.name.name == more.name.name && into.role == more.role =>
        {
            into.props.reserve(still);
            into.props.extend(more.props);
            into.span.end = more.span.end;
        }
        (Item::Kind(into), Item::Kind(more)) if open == 1 && into.name.name == more.name.name => {
            into.lines.reserve(still);
            into.lines.extend(more.lines);
            into.params.extend(more.params);
            into.span.end = more.span.end;
        }
        _ => return None,
    }
    Some(())
}

/// What a `{` opens, for [`cuts`]: a block whose statements may be cut
/// between (an item's, a task's in a pipeline, an `env` in a task), or
/// anything else.
#[derive(Clone, Copy)]
enum Open {
    Item {
        line: (usize, usize),
        pipeline: bool,
    },
    Task {
        line: (usize, usize),
    },
    Env {
        line: (usize, usize),
    },
    Other,
}

/// Up to `chunks - 1` cuts that split `text` into chunks of about equal size
/// (see [`Cut`]), found in one pass over the code outside strings and
/// comments; `None` for brackets nested deeper than [`MAX_NESTING`], which
/// pest must not see (the whole-file path reports them).
///
/// A cut inside blocks is only made where the grammar ends a statement
/// anyway: at the start of a line whose first code character may begin a
/// statement (or an `env` entry), in blocks that are all an item's, a
/// task's or an `env` (not a bracket or a setting's `{ ... }`), after a line
/// that does not end with a comma (the one way a statement goes on to the
/// next line outside them).
fn cuts(text: &str, chunks: usize) -> Option<Vec<Cut>> {
    let bytes = text.as_bytes();
    let target = text.len() / chunks;
    let mut out: Vec<Cut> = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let mut line_start = 0usize;
    let mut line_has_code = false;
    // The last code character that is not a blank (`"` for a string).
    let mut last = '\n';
    let starts_word = |at: usize, word: &str| {
        bytes[at..].starts_with(word.as_bytes())
            && bytes
                .get(at + word.len())
                .is_some_and(|b| *b == b' ' || *b == b'\t')
    };
    let mut chars = code_chars(text);
    let mut strings = 0usize;
    while let Some((i, c)) = chars.next() {
        if chars.strings != strings {
            strings = chars.strings;
            last = '"';
        }
        if c == '\n' {
            line_start = i + 1;
            line_has_code = false;
            continue;
        }
        if c == ' ' || c == '\t' || c == '\r' {
            continue;
        }
        if !line_has_code {
            line_has_code = true;
            let wanted = (out.len() + 1) * target;
            // Only blanks before it: a byte the iterator skips (a byte-order
            // mark, any non-ASCII character, a string) is text pest sees.
            let blank_before = bytes[line_start..i]
                .iter()
                .all(|b| matches!(b, b' ' | b'\t' | b'\r'));
            if line_start >= wanted && out.len() + 1 < chunks && blank_before {
                // An item or a statement starts with a word. The line's
                // first code character decides, not its first byte: after
                // blanks there may be a byte-order mark, which pest accepts
                // at the start of a chunk but a file has only at byte 0.
                let word = c.is_ascii_alphabetic() || c == '_';
                if open.is_empty() {
                    if last == '}' && c.is_ascii_alphabetic() {
                        out.push(Cut {
                            at: line_start,
                            heads: Heads::default(),
                        });
                    }
                } else if word && last != ',' && open.len() <= 3 {
                    let mut heads = Heads::default();
                    for o in &open {
                        match *o {
                            Open::Item { line, .. } | Open::Task { line } | Open::Env { line } => {
                                heads.lines[heads.open] = line;
                                heads.open += 1;
                            }
                            Open::Other => break,
                        }
                    }
                    if heads.open == open.len() {
                        out.push(Cut {
                            at: line_start,
                            heads,
                        });
                    }
                }
            }
        }
        match c {
            '{' | '[' | '(' => {
                if open.len() >= MAX_NESTING {
                    return None;
                }
                // Only a brace may open a block whose statements are cut
                // between, and only where such a block is open around it:
                // the line's first word says which block.
                let holder = matches!(
                    open.as_slice(),
                    [] | [Open::Item { pipeline: true, .. }]
                        | [Open::Item { pipeline: true, .. }, Open::Task { .. }]
                );
                let block = if c == '{' && holder {
                    let first = line_start + text[line_start..].len()
                        - text[line_start..].trim_start().len();
                    let line = (
                        line_start,
                        memchr::memchr(b'\n', &bytes[i..]).map_or(text.len(), |n| i + n + 1),
                    );
                    match open.len() {
                        0 if starts_word(first, "pipeline") => Open::Item {
                            line,
                            pipeline: true,
                        },
                        0 if ["source", "sink", "effect", "kind"]
                            .iter()
                            .any(|w| starts_word(first, w)) =>
                        {
                            Open::Item {
                                line,
                                pipeline: false,
                            }
                        }
                        1 if starts_word(first, "task") => Open::Task { line },
                        2 if starts_word(first, "env") => Open::Env { line },
                        _ => Open::Other,
                    }
                } else {
                    Open::Other
                };
                open.push(block);
            }
            '}' | ']' | ')' => {
                open.pop();
            }
            // Up to the next line break, bracket, string or comment, nothing
            // changes what is known but the last character that is not a
            // blank, which is not `}`.
            _ => {
                chars.skip_plain();
                if let Some(&b) = bytes[i..chars.at]
                    .iter()
                    .rev()
                    .find(|b| !matches!(b, b' ' | b'\t' | b'\r'))
                {
                    last = char::from(b);
                }
                continue;
            }
        }
        last = c;
    }
    Some(out)
}

/// Bare pest parse of a whole file with the grammar's defaults, walking
/// every pair once: the baseline that `scripts/bench` compares `check` to.
/// Returns the number of pairs; not used by the compiler itself.
#[doc(hidden)]
pub fn bare_parse(text: &str) -> Result<usize, String> {
    let pairs = FlowParser::parse(Rule::file, text).map_err(|e| e.to_string())?;
    Ok(pairs.flatten().count())
}

/// Where the text that pest saw sits in the file: a chunk of a file parsed
/// on its own thread may start with copies of the first lines of the blocks
/// it goes on with.
#[derive(Clone, Copy)]
struct PosMap {
    /// The first lines of the blocks the chunk repeats before its own text.
    heads: Heads,
    /// Where the chunk's own text starts in the file.
    base: usize,
}

impl PosMap {
    const IDENTITY: PosMap = PosMap {
        heads: Heads {
            lines: [(0, 0); 3],
            open: 0,
        },
        base: 0,
    };

    fn pos(self, mut at: usize) -> usize {
        for &(start, end) in self.heads.lines() {
            if at < end - start {
                return start + at;
            }
            at -= end - start;
        }
        self.base + at
    }
}

struct Lower {
    file: FileId,
    diags: Vec<SyntaxProblem>,
    map: PosMap,
}

impl Lower {
    fn span_of(&self, pair: &Pair<'_, Rule>) -> Span {
        let s = pair.as_span();
        Span::new(self.map.pos(s.start()), self.map.pos(s.end()))
    }

    fn ident(&self, pair: &Pair<'_, Rule>) -> Ident {
        Ident {
            name: pair.as_str().to_string(),
            span: self.span_of(pair),
        }
    }

    /// The first inner pair of the given rule.
    fn first<'a>(pair: &Pair<'a, Rule>, rule: Rule) -> Option<Pair<'a, Rule>> {
        pair.clone().into_inner().find(|p| p.as_rule() == rule)
    }

    fn item(&mut self, pair: Pair<'_, Rule>) -> Option<Item> {
        let span = self.span_of(&pair);
        match pair.as_rule() {
            Rule::use_item => {
                let s = Self::first(&pair, Rule::string)?;
                Some(Item::Use(Use {
                    path: self.string(&s),
                    span,
                }))
            }
            Rule::kind_item => {
                let mut name = None;
                let mut lines = Vec::new();
                let mut params = Vec::new();
                for p in pair.into_inner() {
                    match p.as_rule() {
                        Rule::ident if name.is_none() => name = Some(self.ident(&p)),
                        Rule::setting => lines.push(self.setting(p)),
                        Rule::param_decl => params.push(self.param(&p)),
                        _ => {}
                    }
                }
                Some(Item::Kind(KindDecl {
                    name: name?,
                    lines,
                    params,
                    span,
                }))
            }
            Rule::decl_item => {
                let mut role = None;
                let mut idents = Vec::new();
                let inner = pair.into_inner();
                // Sized once: all but the words, names and braces are lines.
                let mut props = Vec::with_capacity(inner.len().saturating_sub(5));
                for p in inner {
                    match p.as_rule() {
                        Rule::kw_source => role = Some((Role::Source, self.span_of(&p))),
                        Rule::kw_sink => role = Some((Role::Sink, self.span_of(&p))),
                        Rule::kw_effect => role = Some((Role::Effect, self.span_of(&p))),
                        Rule::ident => idents.push(self.ident(&p)),
                        Rule::setting => props.push(self.setting(p)),
                        _ => {}
                    }
                }
                let (role, role_span) = role?;
                let mut idents = idents.into_iter();
                Some(Item::Decl(Decl {
                    role,
                    role_span,
                    name: idents.next()?,
                    kind: idents.next()?,
                    props,
                    span,
                }))
            }
            Rule::pipeline_item => {
                let mut name = None;
                let mut settings = Vec::new();
                let mut params = Vec::new();
                let mut allows = Vec::new();
                let mut tasks = Vec::new();
                for p in pair.into_inner() {
                    match p.as_rule() {
                        Rule::ident if name.is_none() => name = Some(self.ident(&p)),
                        Rule::setting => settings.push(self.setting(p)),
                        Rule::param_decl => params.push(self.param(&p)),
                        Rule::allow_stmt => allows.push(self.allow(&p)),
                        Rule::task_item => {
                            if let Some(t) = self.task(p) {
                                tasks.push(t);
                            }
                        }
                        _ => {}
                    }
                }
                Some(Item::Pipeline(Pipeline {
                    name: name?,
                    settings,
                    params,
                    allows,
                    tasks,
                    span,
                }))
            }
            _ => None,
        }
    }

    fn param(&self, pair: &Pair<'_, Rule>) -> ParamDecl {
        let idents: Vec<Ident> = pair
            .clone()
            .into_inner()
            .filter(|p| p.as_rule() == Rule::ident)
            .map(|p| self.ident(&p))
            .collect();
        let optional = Self::first(pair, Rule::optional_mark).is_some();
        let mut it = idents.into_iter();
        let name = it.next().unwrap_or_else(|| Ident {
            name: String::new(),
            span: self.span_of(pair),
        });
        let ty = it.next().unwrap_or_else(|| name.clone());
        ParamDecl {
            name,
            ty,
            optional,
            span: self.span_of(pair),
        }
    }

    fn setting(&mut self, pair: Pair<'_, Rule>) -> Setting {
        let span = self.span_of(&pair);
        let mut name = None;
        let mut args = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => name = Some(self.ident(&p)),
                Rule::args => {
                    let values = p.into_inner();
                    // Sized once: most settings have one value.
                    args.reserve_exact(values.len());
                    for v in values {
                        if let Some(v) = self.value(v) {
                            args.push(v);
                        }
                    }
                }
                Rule::map_block => {
                    let at = self.span_of(&p);
                    let entries = p
                        .into_inner()
                        .filter(|q| q.as_rule() == Rule::map_entry)
                        .filter_map(|q| {
                            let mut parts = q.into_inner();
                            let key = parts.next()?;
                            let value = parts.next()?;
                            let key = if key.as_rule() == Rule::ident {
                                let i = self.ident(&key);
                                Str {
                                    value: i.name,
                                    span: i.span,
                                    raw: None,
                                }
                            } else {
                                self.string(&key)
                            };
                            Some((key, self.string(&value)))
                        })
                        .collect();
                    args.push(Value::Map(entries, at));
                }
                _ => {}
            }
        }
        Setting {
            name: name.unwrap_or_else(|| Ident {
                name: String::new(),
                span,
            }),
            args,
            span,
        }
    }

    fn value(&mut self, pair: Pair<'_, Rule>) -> Option<Value> {
        let span = self.span_of(&pair);
        Some(match pair.as_rule() {
            Rule::string => Value::Str(self.string(&pair)),
            Rule::number => Value::Number(self.ident(&pair)),
            Rule::ident => Value::Ident(self.ident(&pair)),
            Rule::list => Value::List(
                pair.into_inner().filter_map(|p| self.value(p)).collect(),
                span,
            ),
            Rule::tuple => {
                let mut items: Vec<Value> =
                    pair.into_inner().filter_map(|p| self.value(p)).collect();
                // `(a)` is the same as `a`.
                if items.len() == 1 {
                    items.pop()?
                } else {
                    Value::Tuple(items, span)
                }
            }
            _ => return None,
        })
    }

    fn string(&mut self, pair: &Pair<'_, Rule>) -> Str {
        let span = self.span_of(pair);
        let body = Self::first(pair, Rule::string_body);
        let (raw, body_start) = body.as_ref().map_or(("", span.start + 1), |b| {
            (b.as_str(), self.map.pos(b.as_span().start()))
        });
        match unescape(raw) {
            Ok(value) => {
                let raw = (value != raw).then(|| raw.into());
                Str { value, span, raw }
            }
            Err((at, len, msg)) => {
                self.diags.push(SyntaxProblem {
                    file: self.file,
                    span: Span::new(body_start + at, body_start + at + len),
                    what: SyntaxError::BadEscape(msg),
                });
                Str {
                    value: raw.to_string(),
                    span,
                    raw: None,
                }
            }
        }
    }

    fn allow(&mut self, pair: &Pair<'_, Rule>) -> Allow {
        let span = self.span_of(pair);
        let code = Self::first(pair, Rule::ident).map_or_else(
            || Ident {
                name: String::new(),
                span,
            },
            |p| self.ident(&p),
        );
        let reason = Self::first(pair, Rule::string).map(|s| self.string(&s));
        Allow { code, reason, span }
    }

    fn task(&mut self, pair: Pair<'_, Rule>) -> Option<Task> {
        let span = self.span_of(&pair);
        let mut name = None;
        let inner = pair.into_inner();
        // Sized once: the task's name and its statements.
        let mut stmts = Vec::with_capacity(inner.len().saturating_sub(1));
        for p in inner {
            let s = self.span_of(&p);
            let stmt = match p.as_rule() {
                Rule::ident if name.is_none() => {
                    name = Some(self.ident(&p));
                    continue;
                }
                Rule::after_stmt => TaskStmt::After(After {
                    tasks: p
                        .into_inner()
                        .filter(|q| q.as_rule() == Rule::ident)
                        .map(|q| self.ident(&q))
                        .collect(),
                    span: s,
                }),
                Rule::read_stmt => TaskStmt::Read(self.read(p)),
                Rule::key_stmt => TaskStmt::Key(KeyStmt {
                    key: self.key_expr(&Self::first(&p, Rule::key_expr)?),
                    span: s,
                }),
                Rule::write_stmt => TaskStmt::Write(Box::new(self.write(p)?)),
                Rule::emit_stmt => TaskStmt::Emit(Box::new(self.emit(p)?)),
                Rule::run_stmt => TaskStmt::Run(self.run(p)),
                Rule::env_stmt => TaskStmt::Env(Env {
                    entries: p
                        .into_inner()
                        .filter(|q| q.as_rule() == Rule::env_entry)
                        .filter_map(|q| {
                            let n = Self::first(&q, Rule::ident)?;
                            let v = Self::first(&q, Rule::string)?;
                            Some((self.ident(&n), self.string(&v)))
                        })
                        .collect(),
                    span: s,
                }),
                Rule::allow_stmt => TaskStmt::Allow(self.allow(&p)),
                Rule::setting => TaskStmt::Setting(self.setting(p)),
                _ => continue,
            };
            stmts.push(stmt);
        }
        Some(Task {
            name: name?,
            stmts,
            span,
        })
    }

    fn read(&self, pair: Pair<'_, Rule>) -> Read {
        let span = self.span_of(&pair);
        let mut source = None;
        let mut pins = Vec::new();
        let mut commits = Vec::new();
        let mut lookbacks = Vec::new();
        let mut inclusive = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident if source.is_none() => source = Some(self.ident(&p)),
                Rule::pinned_clause => {
                    if let Some(i) = Self::first(&p, Rule::ident) {
                        pins.push(PinClause::Pinned(self.ident(&i)));
                    }
                }
                Rule::unpinned_clause => pins.push(PinClause::Unpinned(self.span_of(&p))),
                Rule::cursor_clause => pins.push(PinClause::Cursor(self.span_of(&p))),
                Rule::commit_clause => {
                    if let Some(i) = Self::first(&p, Rule::ident) {
                        commits.push(self.ident(&i));
                    }
                }
                Rule::lookback_clause => {
                    if let Some(n) = Self::first(&p, Rule::number) {
                        lookbacks.push(self.ident(&n));
                    }
                }
                Rule::inclusive_clause => inclusive.push(self.span_of(&p)),
                _ => {}
            }
        }
        Read {
            source: source.unwrap_or_else(|| Ident {
                name: String::new(),
                span,
            }),
            pins,
            commits,
            lookbacks,
            inclusive,
            span,
        }
    }

    fn key_expr(&self, pair: &Pair<'_, Rule>) -> KeyExpr {
        let inner = pair.clone().into_inner();
        let mut parts = Vec::with_capacity(inner.len());
        parts.extend(
            inner
                .filter(|p| p.as_rule() == Rule::key_part)
                .map(|p| self.key_part(&p)),
        );
        KeyExpr {
            parts,
            span: self.span_of(pair),
        }
    }

    fn key_part(&self, pair: &Pair<'_, Rule>) -> KeyPart {
        let column = Self::first(pair, Rule::key_column)
            .and_then(|c| Self::first(&c, Rule::ident))
            .map(|c| self.ident(&c));
        let term = Self::first(pair, Rule::key_term).map_or_else(
            || TermExpr {
                path: Vec::new(),
                call: None,
                span: self.span_of(pair),
            },
            |t| {
                let mut path = Vec::new();
                let mut call = None;
                for p in t.clone().into_inner() {
                    match p.as_rule() {
                        Rule::ident => path.push(self.ident(&p)),
                        Rule::call_args => {
                            call = Some(Self::first(&p, Rule::ident).map(|i| self.ident(&i)));
                        }
                        _ => {}
                    }
                }
                TermExpr {
                    path,
                    call,
                    span: self.span_of(&t),
                }
            },
        );
        KeyPart {
            column,
            term,
            span: self.span_of(pair),
        }
    }

    fn write(&self, pair: Pair<'_, Rule>) -> Option<Write> {
        let span = self.span_of(&pair);
        let mut sink = None;
        let mut mode = None;
        let mut keys = Vec::new();
        let mut requires = Vec::new();
        let mut newest = Vec::new();
        let mut txns = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident if sink.is_none() => sink = Some(self.ident(&p)),
                Rule::write_mode => {
                    let ms = self.span_of(&p);
                    let inner = p.into_inner().next()?;
                    mode = Some(match inner.as_rule() {
                        Rule::replace_mode => WriteModeExpr::ReplacePartition(
                            self.key_part(&Self::first(&inner, Rule::key_part)?),
                            ms,
                        ),
                        Rule::ledger_mode => WriteModeExpr::AppendLedger(ms),
                        _ => WriteModeExpr::Word(self.ident(&inner)),
                    });
                }
                Rule::key_clause => keys.push(self.key_expr(&Self::first(&p, Rule::key_expr)?)),
                Rule::require_clause => requires.push(self.ident(&Self::first(&p, Rule::ident)?)),
                Rule::newest_clause => {
                    let at = self.span_of(&p);
                    newest.push((self.ident(&Self::first(&p, Rule::ident)?), at));
                }
                Rule::txn_clause => txns.push(self.key_expr(&Self::first(&p, Rule::key_expr)?)),
                _ => {}
            }
        }
        Some(Write {
            sink: sink?,
            mode: mode?,
            keys,
            requires,
            newest,
            txns,
            span,
        })
    }

    fn emit(&mut self, pair: Pair<'_, Rule>) -> Option<Emit> {
        let span = self.span_of(&pair);
        let mut effect = None;
        let mut via = None;
        let mut key = None;
        let mut require = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident if effect.is_none() => effect = Some(self.ident(&p)),
                Rule::via_clause => {
                    let vs = self.span_of(&p);
                    let inner = p
                        .into_inner()
                        .find(|q| matches!(q.as_rule(), Rule::outbox_via | Rule::idem_via))?;
                    if let Some(word) = Self::first(&inner, Rule::reserved_name) {
                        self.diags.push(SyntaxProblem {
                            file: self.file,
                            span: self.span_of(&word),
                            what: SyntaxError::OutboxNameIsClauseWord(word.as_str().to_owned()),
                        });
                    }
                    if let Some(k) = Self::first(&inner, Rule::outbox_key) {
                        match Self::first(&k, Rule::key_expr) {
                            Some(expr) => key = Some(self.key_expr(&expr)),
                            None => self.diags.push(SyntaxProblem {
                                file: self.file,
                                span: Self::first(&k, Rule::kw_key)
                                    .map_or_else(|| self.span_of(&k), |w| self.span_of(&w)),
                                what: SyntaxError::OutboxKeyWithoutTerms,
                            }),
                        }
                    }
                    via = Some(if inner.as_rule() == Rule::outbox_via {
                        Via::Outbox(
                            Self::first(&inner, Rule::clause_free_name).map(|n| self.ident(&n)),
                            vs,
                        )
                    } else {
                        Via::IdempotencyKey(
                            self.key_expr(&Self::first(&inner, Rule::key_expr)?),
                            vs,
                        )
                    });
                }
                Rule::require_clause => require = Some(self.ident(&Self::first(&p, Rule::ident)?)),
                _ => {}
            }
        }
        Some(Emit {
            effect: effect?,
            via,
            key,
            require,
            span,
        })
    }

    fn run(&mut self, pair: Pair<'_, Rule>) -> Run {
        let span = self.span_of(&pair);
        let mut image = None;
        let mut command = Vec::new();
        let mut command_span = span;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::run_image => {
                    if let Some(s) = Self::first(&p, Rule::string) {
                        image = Some(self.string(&s));
                    }
                }
                Rule::command_list => {
                    command_span = self.span_of(&p);
                    let inner = p.into_inner();
                    command.reserve_exact(inner.len());
                    for s in inner.filter(|q| q.as_rule() == Rule::string) {
                        command.push(self.string(&s));
                    }
                }
                _ => {}
            }
        }
        Run {
            image,
            command,
            command_span,
            span,
        }
    }
}

/// The ASCII characters of `text` outside strings and comments, with their
/// offsets. A comment runs to the end of its line; a string to its closing
/// quote or the end of its line (a backslash escapes the next byte, a line
/// break included).
fn code_chars(text: &str) -> CodeChars<'_> {
    CodeChars {
        bytes: text.as_bytes(),
        at: 0,
        strings: 0,
    }
}

/// See [`code_chars`]. Bytes, not chars: every byte that matters here is
/// ASCII, and no byte of a multi-byte UTF-8 sequence is. Comments and
/// strings are skipped with `memchr`, not a byte at a time.
struct CodeChars<'a> {
    bytes: &'a [u8],
    at: usize,
    /// How many strings were skipped so far.
    strings: usize,
}

impl CodeChars<'_> {
    /// Skip the bytes up to the next line break, bracket, quote or `#`.
    fn skip_plain(&mut self) {
        const PLAIN: [bool; 256] = {
            let mut t = [true; 256];
            let structure = b"\n\"#{}[]()";
            let mut i = 0;
            while i < structure.len() {
                t[structure[i] as usize] = false;
                i += 1;
            }
            t
        };
        while self.bytes.get(self.at).is_some_and(|&b| PLAIN[b as usize]) {
            self.at += 1;
        }
    }
}

impl Iterator for CodeChars<'_> {
    type Item = (usize, char);

    fn next(&mut self) -> Option<(usize, char)> {
        let bytes = self.bytes;
        while let Some(&b) = bytes.get(self.at) {
            let i = self.at;
            self.at += 1;
            match b {
                b'#' => {
                    // To the line break, which is code again.
                    self.at = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |n| i + n);
                }
                b'"' => {
                    self.strings += 1;
                    loop {
                        let rest = &bytes[self.at.min(bytes.len())..];
                        match memchr::memchr3(b'"', b'\\', b'\n', rest) {
                            None => {
                                self.at = bytes.len();
                                break;
                            }
                            Some(n) if rest[n] == b'\\' => self.at += n + 2,
                            Some(n) => {
                                self.at += n + 1;
                                break;
                            }
                        }
                    }
                }
                _ if b.is_ascii() => return Some((i, char::from(b))),
                _ => {}
            }
        }
        None
    }
}

/// Refuse input nested deeper than [`MAX_NESTING`] before pest sees it.
fn check_nesting(file: FileId, text: &str) -> Option<SyntaxProblem> {
    let mut depth = 0usize;
    for (i, c) in code_chars(text) {
        match c {
            '(' | '[' | '{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(SyntaxProblem {
                        file,
                        span: Span::new(i, i + 1),
                        what: SyntaxError::TooDeep { limit: MAX_NESTING },
                    });
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// The innermost bracket that is never closed, for a label on an end-of-file error.
fn unclosed_brace(text: &str) -> Option<(usize, char)> {
    let mut stack = Vec::new();
    for (i, c) in code_chars(text) {
        match c {
            '{' | '[' | '(' => stack.push((i, c)),
            '}' | ']' | ')' => {
                stack.pop();
            }
            _ => {}
        }
    }
    stack.pop()
}

/// How an expected rule reads in a message; `None` hides it.
fn rule_words(rule: Rule) -> Option<&'static str> {
    Some(match rule {
        Rule::ident | Rule::clause_free_name | Rule::key_column => "a name",
        Rule::number => "a number",
        Rule::string | Rule::string_body => "a string",
        Rule::list | Rule::command_list => "a list",
        Rule::tuple => "a tuple",
        Rule::args => "a value",
        Rule::setting => "a property name",
        Rule::lbrace | Rule::map_block => "`{`",
        Rule::rbrace => "`}`",
        Rule::EOI => "end of file",
        Rule::use_item | Rule::kw_use => "`use`",
        Rule::kind_item | Rule::kw_kind => "`kind`",
        Rule::decl_item | Rule::kw_source | Rule::kw_sink | Rule::kw_effect => {
            "`source`, `sink` or `effect`"
        }
        Rule::pipeline_item | Rule::kw_pipeline => "`pipeline`",
        Rule::task_item | Rule::kw_task => "`task`",
        Rule::param_decl | Rule::kw_param => "`param`",
        Rule::optional_mark => "`?`",
        Rule::after_stmt | Rule::kw_after => "`after`",
        Rule::read_stmt | Rule::kw_read => "`read`",
        Rule::key_stmt | Rule::kw_key | Rule::key_clause | Rule::outbox_key => "`key`",
        Rule::write_stmt | Rule::kw_write => "`write`",
        Rule::emit_stmt | Rule::kw_emit => "`emit`",
        Rule::run_stmt | Rule::kw_run => "`run`",
        Rule::env_stmt | Rule::kw_env => "`env`",
        Rule::allow_stmt | Rule::kw_allow => "`allow`",
        Rule::pinned_clause | Rule::kw_pinned => "`pinned`",
        Rule::unpinned_clause | Rule::kw_unpinned => "`unpinned`",
        Rule::commit_clause | Rule::kw_commit => "`commit`",
        Rule::cursor_clause | Rule::kw_cursor => "`cursor`",
        Rule::lookback_clause | Rule::kw_lookback => "`lookback`",
        Rule::inclusive_clause | Rule::kw_inclusive => "`inclusive`",
        Rule::newest_clause | Rule::kw_newest => "`newest by`",
        Rule::kw_by => "`by`",
        Rule::txn_clause | Rule::kw_txn => "`txn`",
        Rule::via_clause | Rule::kw_via => "`via`",
        Rule::outbox_via | Rule::kw_outbox => "`outbox`",
        Rule::idem_via | Rule::kw_idem => "`idempotency_key`",
        Rule::require_clause | Rule::kw_require => "`require`",
        Rule::replace_mode | Rule::kw_replace => "`replace partition`",
        Rule::kw_partition => "`partition`",
        Rule::ledger_mode | Rule::kw_ledger => "`ledger`",
        Rule::kw_append => "`append`",
        Rule::kw_because => "`because`",
        Rule::kw_command => "`command`",
        Rule::run_image | Rule::kw_image => "`image`",
        Rule::write_mode | Rule::mode_word => "a write mode",
        Rule::key_expr | Rule::key_part | Rule::key_term => "a key term",
        Rule::call_args => "`(`",
        Rule::env_entry => "a variable name",
        Rule::map_entry => "a key",
        _ => return None,
    })
}

/// Words that start a clause, and so cannot be names where a clause may start.
const CLAUSE_WORDS: [&str; 13] = [
    "pinned",
    "unpinned",
    "commit",
    "via",
    "outbox",
    "idempotency_key",
    "require",
    "key",
    "partition",
    "ledger",
    "because",
    "command",
    "image",
];

/// Punctuation worth naming in "expected ..." (whitespace and the letters
/// of keywords are not).
const PUNCTUATION: [&str; 12] = ["}", "{", "]", ")", "(", "[", ",", ":", "=", "?", ".", "\""];

/// Statement words of a task; `allow` (last) also starts a pipeline statement.
const TASK_WORDS: [Rule; 8] = [
    Rule::kw_after,
    Rule::kw_read,
    Rule::kw_key,
    Rule::kw_write,
    Rule::kw_emit,
    Rule::kw_run,
    Rule::kw_env,
    Rule::kw_allow,
];

/// The statements of a task, as rules.
const STATEMENTS: [Rule; 8] = [
    Rule::after_stmt,
    Rule::read_stmt,
    Rule::key_stmt,
    Rule::write_stmt,
    Rule::emit_stmt,
    Rule::run_stmt,
    Rule::env_stmt,
    Rule::allow_stmt,
];

/// How many brackets are open at the end of `text`.
fn open_brackets(text: &str) -> usize {
    let mut depth = 0usize;
    for (_, c) in code_chars(text) {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    depth
}

/// The expected rules and tokens, in words. Where a statement could start,
/// say so once instead of listing every statement keyword.
fn expected_words(rules: &BTreeSet<Rule>, tokens: Vec<String>, line_start: bool) -> Vec<String> {
    let any = |rs: &[Rule]| rs.iter().any(|r| rules.contains(r));
    let mut words: Vec<String> = Vec::new();
    let mut skip: BTreeSet<Rule> = BTreeSet::new();
    let statement_rules = [
        Rule::setting,
        Rule::ident,
        Rule::kw_task,
        Rule::task_item,
        Rule::kw_param,
        Rule::param_decl,
        Rule::allow_stmt,
    ];
    let item_rules = [
        Rule::use_item,
        Rule::kw_use,
        Rule::kind_item,
        Rule::kw_kind,
        Rule::decl_item,
        Rule::kw_source,
        Rule::kw_sink,
        Rule::kw_effect,
        Rule::pipeline_item,
        Rule::kw_pipeline,
    ];
    let mut tokens = tokens;
    if any(&[Rule::key_expr, Rule::key_part, Rule::key_term]) {
        skip.extend([Rule::ident, Rule::key_column, Rule::call_args]);
        tokens.retain(|t| t != "`(`");
    }
    if tokens.iter().any(|t| t == "`]`" || t == "`)`") {
        skip.extend([Rule::list, Rule::tuple]);
    }
    if !line_start {
        // Mid-line, only the statement under way can go on: no statement
        // starts here, though `key` may start a clause of a `write`.
        skip.extend(statement_rules.iter().filter(|r| **r != Rule::ident));
        let clauses = any(&[Rule::require_clause, Rule::kw_require]);
        skip.extend(
            TASK_WORDS
                .iter()
                .filter(|r| !(clauses && **r == Rule::kw_key)),
        );
        skip.extend(STATEMENTS);
        skip.extend(item_rules);
    } else if any(&TASK_WORDS[..7]) && any(&[Rule::setting, Rule::ident]) {
        words.push("a task statement".into());
        skip.extend(TASK_WORDS);
        skip.extend(statement_rules);
        skip.extend(item_rules);
    } else if any(&[Rule::kw_task, Rule::task_item]) {
        words.push("`task`".into());
        words.push("`allow`".into());
        words.push("a pipeline setting".into());
        skip.extend(statement_rules);
        skip.extend(item_rules);
        skip.insert(Rule::kw_allow);
    } else if any(&[Rule::kw_param, Rule::param_decl]) {
        words.push("`param`".into());
        words.push("a capability".into());
        skip.extend(statement_rules);
        skip.extend(item_rules);
    } else if any(&[Rule::setting, Rule::ident]) {
        words.push("a property name".into());
        skip.extend(statement_rules);
        skip.extend(item_rules);
    } else if any(&item_rules) {
        words.push("an item (`use`, `kind`, `source`, `sink`, `effect` or `pipeline`)".into());
        skip.extend(item_rules);
    }
    for r in rules {
        if skip.contains(r) {
            continue;
        }
        if let Some(w) = rule_words(*r) {
            words.push(w.to_string());
        }
    }
    // A thing and the token that opens it say the same: keep the thing.
    for (thing, opener) in [("a string", "`\"`"), ("a list", "`[`"), ("a tuple", "`(`")] {
        if words.iter().any(|w| w == thing) {
            tokens.retain(|t| t != opener);
        }
    }
    words.extend(tokens);
    let mut seen = BTreeSet::new();
    words.retain(|w| seen.insert(w.clone()));
    words.sort_by_key(|w| order(w));
    words
}

/// Words are listed in this order, so messages are stable.
fn order(word: &str) -> usize {
    const FIRST: [&str; 5] = ["`}`", "`{`", "`]`", "`)`", "`,`"];
    FIRST.iter().position(|w| *w == word).unwrap_or(FIRST.len())
}

/// What is wrong where pest stopped (`e`): the token found, the names of
/// the tokens that could have come there, and which help fits.
fn syntax_error(file: FileId, text: &str, e: &pest::error::Error<Rule>) -> SyntaxProblem {
    use pest::error::{ErrorVariant, InputLocation};
    let pos = match e.location {
        InputLocation::Pos(p) | InputLocation::Span((p, _)) => p,
    };
    let pos = pos.min(text.len());
    if let ErrorVariant::CustomError { message } = &e.variant {
        // pest's own limits (call budget, stack guard).
        let _ = message;
        return SyntaxProblem {
            file,
            span: Span::new(pos, pos),
            what: SyntaxError::TooComplex,
        };
    }
    let mut rules = BTreeSet::new();
    let mut tokens: Vec<String> = Vec::new();
    let mut pos = pos;
    // With error detail on, pest also records the literal tokens it tried;
    // they may reach further than the rules it reports.
    let attempts = e.parse_attempts().filter(|a| a.max_position >= pos);
    if let Some(a) = &attempts {
        if a.max_position > pos {
            pos = a.max_position.min(text.len());
        } else if let ErrorVariant::ParsingError { positives, .. } = &e.variant {
            rules.extend(positives.iter().copied());
        }
        for stack in a.call_stacks() {
            if let Some(r) = stack.deepest.get_rule() {
                rules.insert(*r);
            }
        }
        for t in a.expected_tokens() {
            // `ParsingToken` is not exported; its display is the token.
            let token = t.to_string();
            if PUNCTUATION.contains(&token.as_str()) {
                tokens.push(format!("`{token}`"));
            }
        }
    } else if let ErrorVariant::ParsingError { positives, .. } = &e.variant {
        rules.extend(positives.iter().copied());
    }
    let line_start = text[..pos]
        .rsplit('\n')
        .next()
        .is_none_or(|l| l.trim().is_empty());
    if open_brackets(&text[..pos]) > 0 {
        // Inside a block the file cannot end.
        rules.remove(&Rule::EOI);
    }
    let words = expected_words(&rules, tokens, line_start);

    // Describe the next token, not the blank before it.
    let pos = pos + (text[pos..].len() - text[pos..].trim_start_matches([' ', '\t']).len());
    let rest = &text[pos..];
    let (found, len) = describe_found(rest);
    // A keyword tried in a lookahead is not what is expected.
    let words: Vec<String> = words.into_iter().filter(|w| *w != found).collect();
    let before = text[..pos].rsplit('\n').next().unwrap_or_default();
    let last_word = before.split_whitespace().last().unwrap_or_default();
    let span = Span::new(pos, pos + len);
    if let Some(open) = unterminated_string(text, pos) {
        let line_end = text[open..]
            .find(['\n', '\r'])
            .map_or(text.len(), |n| open + n);
        return SyntaxProblem {
            file,
            span: Span::new(open, line_end),
            what: SyntaxError::UnterminatedString,
        };
    }
    if let Some((word, at)) = unknown_write_mode(before, pos) {
        return SyntaxProblem {
            file,
            span: at,
            what: SyntaxError::NotAWriteMode(word.to_owned()),
        };
    }
    let hint = if rest.trim().is_empty() {
        if let Some((open, c)) = unclosed_brace(text) {
            Hint::Unclosed {
                open: Span::new(open, open + 1),
                bracket: c,
            }
        } else if words.iter().any(|w| w == "`{`") {
            Hint::OpenBlock
        } else {
            Hint::EndsMidStatement
        }
    } else if found == "end of line" && words.iter().any(|w| w == "`}`") {
        Hint::OneStatementPerLine
    } else if before.trim_end().ends_with('{') && words.iter().any(|w| w == "`}`") {
        Hint::BlockEndsLine
    } else if CLAUSE_WORDS.iter().any(|w| found == format!("`{w}`")) {
        Hint::ClauseWord {
            image_first: found == "`image`" && before.trim_start().starts_with("run"),
        }
    } else if found == "end of line" {
        Hint::Incomplete
    } else if let Some(keyword) = keyword_meant(&rest[..len], line_start) {
        Hint::Keyword(keyword)
    } else {
        Hint::Shape
    };
    SyntaxProblem {
        file,
        span,
        what: SyntaxError::Unexpected {
            found,
            expected: words,
            after: last_word.to_owned(),
            hint,
        },
    }
}

/// In `write SINK WORD` stopped at `pos` (the text of the line before it is
/// `before`), `WORD` and its span when it is no write mode: the parse took it
/// for one, so what follows it (the columns of a misspelled `replace
/// partition`, say) is where it stopped.
fn unknown_write_mode(before: &str, pos: usize) -> Option<(&str, Span)> {
    let words: Vec<&str> = before.split_whitespace().collect();
    let [first, _, word] = words.as_slice() else {
        return None;
    };
    if *first != "write"
        || crate::vocab::Mode::from_word(word).is_some_and(|m| m.source() == *word)
        || ["replace", "append"].contains(word)
        || !word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return None;
    }
    let end = pos - (before.len() - before.trim_end().len());
    Some((word, Span::new(end - word.len(), end)))
}

/// The keyword a word that starts a line most likely means: the same in
/// lowercase (`Pipeline`, `KEY`), or a close spelling (`pipline`).
fn keyword_meant(word: &str, line_start: bool) -> Option<&'static str> {
    const KEYWORDS: [&str; 13] = [
        "use", "kind", "source", "sink", "effect", "pipeline", "task", "after", "read", "key",
        "write", "emit", "run",
    ];
    if !line_start || word.is_empty() {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    KEYWORDS.iter().copied().find(|k| *k == lower).or_else(|| {
        crate::suggest::closest(&lower, KEYWORDS.iter().copied()).filter(|_| lower.len() > 3)
    })
}

/// The opening quote of a string left open on the line that holds `pos`,
/// when the error is at that line's end.
fn unterminated_string(text: &str, pos: usize) -> Option<usize> {
    let rest = text[pos..].trim_start_matches([' ', '\t']);
    if !(rest.is_empty() || rest.starts_with(['\n', '\r'])) {
        return None;
    }
    let line_start = text[..pos].rfind('\n').map_or(0, |n| n + 1);
    let bytes = text.as_bytes();
    let mut open = None;
    let mut i = line_start;
    while i < pos {
        match (bytes[i], open) {
            (b'#', None) => return None,
            (b'"', None) => open = Some(i),
            (b'"', Some(_)) => open = None,
            (b'\\', Some(_)) => i += 1,
            _ => {}
        }
        i += 1;
    }
    open
}

fn describe_found(rest: &str) -> (String, usize) {
    match rest.chars().next() {
        None => ("end of file".into(), 0),
        Some('\n') => ("end of line".into(), 1),
        Some('\r') if rest.starts_with("\r\n") => ("end of line".into(), 2),
        Some('"') => ("a string".into(), 1),
        Some(c) if c.is_ascii_alphanumeric() || c == '_' => {
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let word = &rest[..len];
            let shown: String = word.chars().take(40).collect();
            (format!("`{shown}`"), len)
        }
        Some(c) if c.is_control() => (format!("character U+{:04X}", c as u32), c.len_utf8()),
        Some(c) => (format!("`{c}`"), c.len_utf8()),
    }
}
