//! The canonical layout of a `.flow` file, as `flowc fmt` writes it.
//!
//! The formatter has its own small lexer and never builds an AST, so its
//! layout ([`format`]) works on any file whose strings are terminated and
//! whose brackets balance, even one the parser rejects. `flowc fmt` calls
//! [`format_file`], which first refuses what `check` refuses as a syntax
//! error (FL001), so that it never rewrites a file `check` would not read
//! the same way. Both refuse a file over [`MAX_INPUT_BYTES`] and brackets
//! nested deeper than `check` takes. It only ever changes whitespace, the spelling of
//! comment markers (`#foo` becomes `# foo`) and trailing commas in lists and
//! tuples; the tests check that the token stream survives.
//!
//! Layout:
//! - two spaces of indentation per `{` level; a line that starts with `}`
//!   sits at the level of its opening line;
//! - in a block, consecutive statements form an alignment group, broken by a
//!   blank line, a comment-only line, or a line holding `{` or `}`; when a
//!   group holds statements with a value whose first words differ in width,
//!   every value starts in one column, two spaces after the longest first
//!   word (otherwise one space already aligns them);
//! - exactly one blank line around top-level blocks and around tasks (any
//!   block opened at indentation level 0 or 1), together with the comments
//!   directly above them; at most one blank line kept anywhere else; none at
//!   the start or end of a block or file;
//! - single spaces between tokens, none inside brackets, none around `.`,
//!   none before `,` `:` `?`; a word written directly against `(`
//!   (`hash(input)`) stays so, otherwise `(` gets a space (`key (a, b)`);
//! - a list or tuple written over several lines keeps one element per line,
//!   one level deeper, each followed by a comma (a group holding one element
//!   and no comment or comma is joined onto one line instead); on one line,
//!   a trailing comma is dropped when the list has two or more elements;
//! - a newline after a comma outside brackets is removed unless a comment
//!   sits there;
//! - a comment stays where it was: on its own line at the indentation of the
//!   code around it, or at the end of its line one space after the code (not
//!   aligned, so that editing a line never moves its neighbours' comments);
//!   its marker (`#`, or a run such as `##`) is followed by one space unless
//!   whitespace already follows it, and trailing whitespace is removed;
//! - `\r\n` is read as a newline; the output uses `\n` and ends with exactly
//!   one newline (an empty file stays empty).

use std::fmt;

use crate::syntax::parser::{MAX_FILE_BYTES, MAX_NESTING};

/// The largest file `fmt` formats, in bytes: the same limit as `check`'s
/// ([`MAX_FILE_BYTES`]); a larger one is refused (and the CLI does not read
/// it whole).
pub const MAX_INPUT_BYTES: u64 = MAX_FILE_BYTES as u64;

/// Why a file could not be formatted. The position is where the problem
/// starts in the original text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    pub kind: FormatErrorKind,
    /// Byte offset into the source.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in Unicode scalar values.
    pub column: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatErrorKind {
    UnterminatedString,
    UnexpectedCharacter(char),
    /// An opening bracket or brace that is never closed.
    Unclosed(char),
    /// A closing bracket or brace with nothing open.
    UnexpectedClose(char),
    /// A closing bracket that does not match the innermost open one.
    Mismatched {
        open: char,
        close: char,
    },
    /// A `{` or `}` inside `[...]` or `(...)`.
    BraceInBrackets {
        brace: char,
        open: char,
    },
    /// Brackets and braces nested deeper than `check` accepts
    /// ([`crate::syntax::parser::MAX_NESTING`]).
    TooDeep,
    /// A file over [`MAX_INPUT_BYTES`]; its size in bytes.
    TooLarge(u64),
    /// A syntax error `check` reports (FL001), in its words.
    Syntax(String),
}

impl fmt::Display for FormatErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnterminatedString => f.write_str(crate::rules::UNTERMINATED_STRING),
            Self::UnexpectedCharacter(c) => {
                write!(f, "unexpected character `{}`", c.escape_debug())
            }
            Self::Unclosed(c) => write!(f, "`{c}` is never closed"),
            Self::UnexpectedClose(c) => write!(f, "`{c}` closes nothing"),
            Self::Mismatched { open, close } => {
                write!(
                    f,
                    "`{close}` cannot close `{open}`; expected `{}`",
                    closing(*open)
                )
            }
            Self::BraceInBrackets { brace, open } => {
                write!(
                    f,
                    "`{brace}` cannot appear inside `{open}...{}`",
                    closing(*open)
                )
            }
            Self::TooDeep => f.write_str(&crate::rules::too_deep(MAX_NESTING)),
            Self::TooLarge(bytes) => write!(
                f,
                "file is too large to format ({} MB; the limit is {} MB)",
                bytes.div_ceil(1_048_576),
                MAX_INPUT_BYTES / 1_048_576
            ),
            Self::Syntax(message) => {
                f.write_str(&crate::diagnostic::human::escape_controls(message))
            }
        }
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.kind)
    }
}

impl std::error::Error for FormatError {}

/// The character of an opening bracket token.
fn open_char(t: Token) -> char {
    match t.kind {
        Kind::Punct(b) => char::from(b),
        _ => '(',
    }
}

fn closing(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        _ => '}',
    }
}

/// Formats a whole `.flow` file, as `flowc fmt` does: refuses a file over
/// [`MAX_INPUT_BYTES`] and any file `check` reports a syntax error (FL001)
/// for, with `check`'s words and position, then lays it out with
/// [`format`].
pub fn format_file(source: &str) -> Result<String, FormatError> {
    too_large(source)?;
    let (_, problems) = crate::syntax::parse(crate::source::FileId(0), source);
    if let Some(d) = problems.first().map(crate::rules::syntax_finding) {
        return Err(error_at(
            source,
            d.span.start,
            FormatErrorKind::Syntax(d.message),
        ));
    }
    format(source)
}

/// The layout alone, on any file whose strings are terminated and whose
/// brackets balance, even one the parser rejects. Never panics; returns an
/// error for an unterminated string, unbalanced brackets, brackets nested
/// deeper than `check` accepts, a character the language does not use
/// outside strings and comments, or a file over [`MAX_INPUT_BYTES`].
pub fn format(source: &str) -> Result<String, FormatError> {
    too_large(source)?;
    let entries = build(source, Lexer::new(source))?;
    Ok(layout(&entries))
}

/// The error for a file of `size` bytes, over [`MAX_INPUT_BYTES`]
/// (`io::read::read_limited` found it so).
pub fn file_too_large(size: u64) -> FormatError {
    FormatError {
        kind: FormatErrorKind::TooLarge(size.max(MAX_INPUT_BYTES + 1)),
        offset: 0,
        line: 1,
        column: 1,
    }
}

fn too_large(source: &str) -> Result<(), FormatError> {
    let bytes = u64::try_from(source.len()).unwrap_or(u64::MAX);
    if bytes > MAX_INPUT_BYTES {
        return Err(error_at(source, 0, FormatErrorKind::TooLarge(bytes)));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Lexer

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Word,
    Number,
    Str,
    Punct(u8),
    Comment,
    Newline,
}

/// A token: its kind and where it is. Offsets are `u32` to keep the nodes
/// of a long statement small; [`format`] refuses files over
/// [`MAX_INPUT_BYTES`], far below 4 GiB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) kind: Kind,
    pub(crate) start: u32,
    /// For a comment: trailing whitespace excluded.
    pub(crate) end: u32,
}

impl Token {
    pub(crate) fn text(self, source: &str) -> &str {
        &source[self.start as usize..self.end as usize]
    }
}

fn pos(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}
fn error_at(source: &str, offset: usize, kind: FormatErrorKind) -> FormatError {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    FormatError {
        kind,
        offset,
        line,
        column,
    }
}

const PUNCT: &[u8] = b":,=()[]{}.?";

/// Every token of `source`, or the first lexing error (for tests).
#[cfg(test)]
pub(crate) fn lex(source: &str) -> Result<Vec<Token>, FormatError> {
    Lexer::new(source).collect()
}

/// The tokens of a file, one at a time, so that no token list of the whole
/// file is ever held; ends after the first error.
pub(crate) struct Lexer<'a> {
    source: &'a str,
    i: usize,
    failed: bool,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(source: &'a str) -> Self {
        // The grammar takes one byte order mark at the start, after any
        // spaces or tabs; the output drops it.
        let lead = source.len() - source.trim_start_matches([' ', '\t']).len();
        let i = if source[lead..].starts_with('\u{feff}') {
            lead + 3
        } else {
            0
        };
        Lexer {
            source,
            i,
            failed: false,
        }
    }
}

impl Iterator for Lexer<'_> {
    type Item = Result<Token, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let next = self.step();
        self.failed = matches!(next, Some(Err(_)));
        next
    }
}

impl Lexer<'_> {
    fn step(&mut self) -> Option<Result<Token, FormatError>> {
        let source = self.source;
        let bytes = source.as_bytes();
        let len = bytes.len();
        let token = |kind, start: usize, end: usize| Token {
            kind,
            start: pos(start),
            end: pos(end),
        };
        while self.i < len {
            let i = self.i;
            let b = bytes[i];
            match b {
                b'\n' => {
                    self.i = i + 1;
                    return Some(Ok(token(Kind::Newline, i, i + 1)));
                }
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                    self.i = i + 2;
                    return Some(Ok(token(Kind::Newline, i, i + 2)));
                }
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'#' => {
                    let mut end = memchr::memchr(b'\n', &bytes[i..]).map_or(len, |n| i + n);
                    if end > i && bytes[end - 1] == b'\r' {
                        end -= 1;
                    }
                    let text = source[i..end].trim_end();
                    self.i = end;
                    return Some(Ok(token(Kind::Comment, i, i + text.len())));
                }
                b'"' => {
                    let mut j = i + 1;
                    loop {
                        match bytes.get(j) {
                            None | Some(b'\n') => {
                                return Some(Err(error_at(
                                    source,
                                    i,
                                    FormatErrorKind::UnterminatedString,
                                )))
                            }
                            Some(b'\r') if bytes.get(j + 1) == Some(&b'\n') => {
                                return Some(Err(error_at(
                                    source,
                                    i,
                                    FormatErrorKind::UnterminatedString,
                                )))
                            }
                            Some(b'"') => break,
                            Some(b'\\') => match bytes.get(j + 1) {
                                // An escaped newline is still a raw newline.
                                None | Some(b'\n' | b'\r') => j += 1,
                                Some(_) => j += 2,
                            },
                            Some(_) => j += 1,
                        }
                    }
                    self.i = j + 1;
                    return Some(Ok(token(Kind::Str, i, j + 1)));
                }
                b'0'..=b'9' => {
                    // As the grammar's `number`: one token up to the first other byte.
                    let mut j = i + 1;
                    while j < len
                        && (bytes[j].is_ascii_alphanumeric()
                            || matches!(bytes[j], b'_' | b'-' | b':' | b'.'))
                    {
                        j += 1;
                    }
                    self.i = j;
                    return Some(Ok(token(Kind::Number, i, j)));
                }
                b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                    let mut j = i + 1;
                    while j < len && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
                        j += 1;
                    }
                    self.i = j;
                    return Some(Ok(token(Kind::Word, i, j)));
                }
                _ if PUNCT.contains(&b) => {
                    self.i = i + 1;
                    return Some(Ok(token(Kind::Punct(b), i, i + 1)));
                }
                _ => {
                    let c = source[i..].chars().next().unwrap_or('\u{fffd}');
                    return Some(Err(error_at(
                        source,
                        i,
                        FormatErrorKind::UnexpectedCharacter(c),
                    )));
                }
            }
        }
        None
    }
}

/// The comment with one space after its marker and no trailing whitespace.
fn normalize_comment(text: &str) -> String {
    let text = text.trim_end();
    let marker = text.bytes().take_while(|&b| b == b'#').count();
    let rest = &text[marker..];
    if rest.is_empty() || rest.starts_with([' ', '\t']) {
        text.to_string()
    } else {
        format!("{} {rest}", &text[..marker])
    }
}

// ---------------------------------------------------------------------------
// Structure: statements, with `[...]` and `(...)` as nested groups

#[derive(Debug, Clone)]
enum Node {
    Tok(Token),
    /// A comment among code, laid out by [`normalize_comment`] when written.
    Comment {
        tok: Token,
        own_line: bool,
    },
    /// A newline the grammar ignores (inside brackets or after a comma).
    Nl,
    /// Boxed, so that a node takes 16 bytes.
    Group(Box<Group>),
}

#[derive(Debug, Clone)]
struct Group {
    open: Token,
    inner: Vec<Node>,
    close: Token,
}

impl Node {
    fn is_punct(&self, p: u8) -> bool {
        matches!(self, Node::Tok(t) if t.kind == Kind::Punct(p))
    }
    fn is_code(&self) -> bool {
        matches!(self, Node::Tok(_) | Node::Group(_))
    }
    /// The token that decides spacing before this node.
    fn first_token(&self) -> Option<&Token> {
        match self {
            Node::Tok(t) => Some(t),
            Node::Group(g) => Some(&g.open),
            _ => None,
        }
    }
}

#[derive(Debug)]
enum Entry {
    Blank,
    Comment { depth: usize, text: String },
    Stmt(Done),
}

/// A statement once rendered (without alignment), with what the layout
/// needs to know about it.
#[derive(Debug)]
struct Done {
    indent: usize,
    opens: bool,
    closes: bool,
    ends_with_close: bool,
    is_header: bool,
    has_brace: bool,
    align_width: Option<usize>,
    /// Bytes of the first token, after which alignment pads.
    first_len: Option<usize>,
    /// Its lines, each ending in `\n`.
    text: String,
}

impl Done {
    fn new(stmt: &Stmt, source: &str) -> Self {
        let mut w = Writer::new(source);
        w.start_line(stmt.indent);
        w.nodes(&stmt.nodes, stmt.indent + 1);
        let mut text = String::new();
        for line in w.finish() {
            text.push_str(&line);
            text.push('\n');
        }
        // A setting whose block opens and closes on its line (`resources {
        // cpu "1" }`) is laid out as any one-line statement.
        let inline = stmt.inline_block(source);
        Done {
            indent: stmt.indent,
            opens: stmt.opens(),
            closes: stmt.closes(),
            ends_with_close: stmt.ends_with_close() && !inline,
            is_header: stmt.is_header() && !inline,
            has_brace: stmt.has_brace() && !inline,
            align_width: stmt.align_width(source, inline),
            first_len: match stmt.nodes.first() {
                Some(Node::Tok(first)) => Some((first.end - first.start) as usize),
                _ => None,
            },
            text,
        }
    }
    fn opens(&self) -> bool {
        self.opens
    }
    fn closes(&self) -> bool {
        self.closes
    }
    fn ends_with_close(&self) -> bool {
        self.ends_with_close
    }
    fn is_header(&self) -> bool {
        self.is_header
    }
    fn has_brace(&self) -> bool {
        self.has_brace
    }
    fn align_width(&self) -> Option<usize> {
        self.align_width
    }

    /// Append the statement, its value starting at `column` when aligned.
    fn render(&self, column: Option<usize>, out: &mut String) {
        if let (Some(column), Some(width), Some(first_len)) =
            (column, self.align_width, self.first_len)
        {
            let at = self.indent * 2 + first_len;
            if self.text.as_bytes().get(at) == Some(&b' ') && column > width + 1 {
                out.push_str(&self.text[..at]);
                out.extend(std::iter::repeat_n(' ', column - width - 1));
                out.push_str(&self.text[at..]);
                return;
            }
        }
        out.push_str(&self.text);
    }
}

#[derive(Debug)]
struct Stmt {
    indent: usize,
    nodes: Vec<Node>,
}

impl Stmt {
    fn code(&self) -> impl DoubleEndedIterator<Item = &Node> {
        self.nodes.iter().filter(|n| n.is_code())
    }
    /// Ends with `{` (ignoring a trailing comment).
    fn opens(&self) -> bool {
        self.code().next_back().is_some_and(|n| n.is_punct(b'{'))
    }
    /// Ends with `}`.
    fn ends_with_close(&self) -> bool {
        self.code().next_back().is_some_and(|n| n.is_punct(b'}'))
    }
    /// Starts with `}`.
    fn closes(&self) -> bool {
        self.code().next().is_some_and(|n| n.is_punct(b'}'))
    }
    fn has_brace(&self) -> bool {
        self.nodes
            .iter()
            .any(|n| n.is_punct(b'{') || n.is_punct(b'}'))
    }
    /// A block header (`task x {`) rather than a line that closes one.
    fn is_header(&self) -> bool {
        !self.closes() && self.nodes.iter().any(|n| n.is_punct(b'{'))
    }
    /// A setting whose `{ KEY "value" ... }` block is on its one line
    /// (flowc 0.2's pod settings): not a block header, though it holds braces.
    fn inline_block(&self, source: &str) -> bool {
        const BLOCKS: [&str; 7] = [
            "kind", "source", "sink", "effect", "pipeline", "task", "env",
        ];
        self.has_brace()
            && !self.opens()
            && !self.closes()
            && self.ends_with_close()
            && matches!(self.nodes.first(), Some(Node::Tok(t)) if !BLOCKS.contains(&t.text(source)))
    }
    /// The first token's width when this statement takes part in value alignment.
    fn align_width(&self, source: &str, inline: bool) -> Option<usize> {
        if self.has_brace() && !inline {
            return None;
        }
        let Node::Tok(first) = self.nodes.first()? else {
            return None;
        };
        // A newline kept after a comma renders as nothing.
        let second = self.nodes[1..]
            .iter()
            .find(|n| !matches!(n, Node::Nl))?
            .first_token()?;
        space_between(first, second).then(|| first.text(source).chars().count())
    }
}

struct Frame {
    open: Token,
    inner: Vec<Node>,
}

/// The entries of a file; each statement is rendered as soon as it ends,
/// so only one statement's nodes are held at a time.
fn build(
    source: &str,
    tokens: impl Iterator<Item = Result<Token, FormatError>>,
) -> Result<Vec<Entry>, FormatError> {
    fn push(frames: &mut [Frame], stmt: &mut Option<Stmt>, indent: usize, node: Node) {
        if let Some(frame) = frames.last_mut() {
            frame.inner.push(node);
        } else {
            stmt.get_or_insert_with(|| Stmt {
                indent,
                nodes: Vec::new(),
            })
            .nodes
            .push(node);
        }
    }

    let mut entries = Vec::new();
    let mut stmt: Option<Stmt> = None;
    let mut frames: Vec<Frame> = Vec::new();
    let mut braces: Vec<Token> = Vec::new();
    let mut line_has_content = false;

    for tok in tokens {
        let tok = &tok?;
        let depth = braces.len();
        match tok.kind {
            Kind::Newline => {
                if let Some(frame) = frames.last_mut() {
                    frame.inner.push(Node::Nl);
                } else if let Some(s) = stmt.as_mut() {
                    let after_comma = s
                        .nodes
                        .iter()
                        .rev()
                        .find(|n| !matches!(n, Node::Comment { .. } | Node::Nl))
                        .is_some_and(|n| n.is_punct(b','));
                    if after_comma {
                        s.nodes.push(Node::Nl);
                    } else if let Some(done) = stmt.take() {
                        entries.push(Entry::Stmt(Done::new(&done, source)));
                    }
                } else if !line_has_content {
                    entries.push(Entry::Blank);
                }
                line_has_content = false;
            }
            Kind::Comment => {
                if frames.is_empty() && stmt.is_none() {
                    let text = normalize_comment(tok.text(source));
                    entries.push(Entry::Comment { depth, text });
                } else {
                    push(
                        &mut frames,
                        &mut stmt,
                        depth,
                        Node::Comment {
                            tok: *tok,
                            own_line: !line_has_content,
                        },
                    );
                }
                line_has_content = true;
            }
            Kind::Punct(b'[' | b'(' | b'{') if depth + frames.len() >= MAX_NESTING => {
                // As `check` counts: every open bracket or brace. Rendering
                // recurses into groups, so this also bounds the stack.
                return Err(error_at(
                    source,
                    tok.start as usize,
                    FormatErrorKind::TooDeep,
                ));
            }
            Kind::Punct(b'[' | b'(') => {
                // Make sure a statement exists so the group lands in it.
                if frames.is_empty() {
                    stmt.get_or_insert_with(|| Stmt {
                        indent: depth,
                        nodes: Vec::new(),
                    });
                }
                frames.push(Frame {
                    open: *tok,
                    inner: Vec::new(),
                });
                line_has_content = true;
            }
            Kind::Punct(close @ (b']' | b')')) => {
                let Some(frame) = frames.pop() else {
                    return Err(error_at(
                        source,
                        tok.start as usize,
                        FormatErrorKind::UnexpectedClose(close as char),
                    ));
                };
                let open = open_char(frame.open);
                if closing(open) != close as char {
                    return Err(error_at(
                        source,
                        tok.start as usize,
                        FormatErrorKind::Mismatched {
                            open,
                            close: close as char,
                        },
                    ));
                }
                let node = Node::Group(Box::new(Group {
                    open: frame.open,
                    inner: frame.inner,
                    close: *tok,
                }));
                push(&mut frames, &mut stmt, depth, node);
                line_has_content = true;
            }
            Kind::Punct(brace @ (b'{' | b'}')) => {
                if let Some(frame) = frames.last() {
                    let open = open_char(frame.open);
                    return Err(error_at(
                        source,
                        tok.start as usize,
                        FormatErrorKind::BraceInBrackets {
                            brace: brace as char,
                            open,
                        },
                    ));
                }
                let indent = if brace == b'{' {
                    braces.push(*tok);
                    depth
                } else if braces.pop().is_some() {
                    depth - 1
                } else {
                    return Err(error_at(
                        source,
                        tok.start as usize,
                        FormatErrorKind::UnexpectedClose('}'),
                    ));
                };
                push(&mut frames, &mut stmt, indent, Node::Tok(*tok));
                line_has_content = true;
            }
            _ => {
                push(&mut frames, &mut stmt, depth, Node::Tok(*tok));
                line_has_content = true;
            }
        }
    }
    if let Some(frame) = frames.first() {
        let open = open_char(frame.open);
        return Err(error_at(
            source,
            frame.open.start as usize,
            FormatErrorKind::Unclosed(open),
        ));
    }
    if let Some(brace) = braces.last() {
        return Err(error_at(
            source,
            brace.start as usize,
            FormatErrorKind::Unclosed('{'),
        ));
    }
    if let Some(done) = stmt.take() {
        entries.push(Entry::Stmt(Done::new(&done, source)));
    }
    Ok(entries)
}

// ---------------------------------------------------------------------------
// Rendering

/// Whether one space separates two tokens written on one line.
fn space_between(prev: &Token, next: &Token) -> bool {
    match (prev.kind, next.kind) {
        // Joined, they would lex as one number.
        (Kind::Number, Kind::Punct(b':' | b'.')) => true,
        (_, Kind::Punct(b',' | b')' | b']' | b':' | b'?' | b'.'))
        | (Kind::Punct(b'(' | b'[' | b'.'), _) => false,
        (Kind::Word, Kind::Punct(b'(')) => prev.end != next.start,
        _ => true,
    }
}

struct Writer<'a> {
    source: &'a str,
    lines: Vec<String>,
    cur: String,
    cur_indent: usize,
    prev: Option<Token>,
    has_content: bool,
}

impl<'a> Writer<'a> {
    fn new(source: &'a str) -> Self {
        Writer {
            source,
            lines: Vec::new(),
            cur: String::new(),
            cur_indent: 0,
            prev: None,
            has_content: false,
        }
    }

    fn start_line(&mut self, indent: usize) {
        if self.has_content {
            self.lines.push(std::mem::take(&mut self.cur));
        }
        self.cur = "  ".repeat(indent);
        self.cur_indent = indent;
        self.prev = None;
        self.has_content = false;
    }

    fn finish(mut self) -> Vec<String> {
        if self.has_content {
            self.lines.push(self.cur);
        }
        self.lines
    }

    fn token(&mut self, tok: Token) {
        if let Some(prev) = &self.prev {
            if space_between(prev, &tok) {
                self.cur.push(' ');
            }
        }
        // A comma the layout adds has no text in the source.
        if tok.start == tok.end && tok.kind == Kind::Punct(b',') {
            self.cur.push(',');
        } else {
            self.cur.push_str(tok.text(self.source));
        }
        self.prev = Some(tok);
        self.has_content = true;
    }

    /// A comment ends its line; what follows starts a new line at `cont`.
    fn comment(&mut self, text: &str, own_line: bool, cont: usize) {
        if self.has_content {
            if own_line {
                self.start_line(cont);
            } else {
                self.cur.push(' ');
            }
        }
        self.cur.push_str(text);
        self.has_content = true;
        self.start_line(cont);
    }

    fn nodes(&mut self, nodes: &[Node], cont: usize) {
        for node in nodes {
            self.node(node, cont);
        }
    }

    fn node(&mut self, node: &Node, cont: usize) {
        match node {
            Node::Tok(t) => self.token(*t),
            Node::Comment { tok, own_line } => {
                let text = normalize_comment(tok.text(self.source));
                self.comment(&text, *own_line, cont);
            }
            Node::Nl => {}
            Node::Group(g) => self.group(g.open, &g.inner, g.close, cont),
        }
    }

    fn group(&mut self, open: Token, inner: &[Node], close: Token, cont: usize) {
        // Split at top-level commas.
        let mut elems: Vec<&[Node]> = Vec::new();
        let mut start = 0;
        for (i, n) in inner.iter().enumerate() {
            if n.is_punct(b',') {
                elems.push(&inner[start..i]);
                start = i + 1;
            }
        }
        elems.push(&inner[start..]);
        let commas = elems.len() - 1;
        let has_comment = inner.iter().any(|n| matches!(n, Node::Comment { .. }));
        let has_newline = contains_newline(inner);
        let nonempty = elems.iter().filter(|e| e.iter().any(Node::is_code)).count();

        if !has_newline || (commas == 0 && !has_comment) {
            // One line.
            self.token(open);
            let drop_trailing = nonempty >= 2 && !elems[commas].iter().any(Node::is_code);
            for (i, n) in inner.iter().enumerate() {
                // Every comma after the last element goes, so that a second
                // pass finds none to drop (`["a", "b",,]` is `["a", "b"]`).
                if drop_trailing
                    && n.is_punct(b',')
                    && inner[i + 1..]
                        .iter()
                        .all(|m| !m.is_code() || m.is_punct(b','))
                {
                    continue;
                }
                self.node(n, cont);
            }
            self.token(close);
            return;
        }

        // One element per line.
        let base = self.cur_indent;
        let item = base + 1;
        self.token(open);
        let last_nonempty = elems.iter().rposition(|e| e.iter().any(Node::is_code));
        for (i, elem) in elems.iter().enumerate() {
            let first_code = elem.iter().position(Node::is_code);
            let last_code = elem.iter().rposition(Node::is_code);
            let (leading, body, trailing) = match (first_code, last_code) {
                (Some(a), Some(b)) => (&elem[..a], &elem[a..=b], &elem[b + 1..]),
                _ => (*elem, &elem[..0], &elem[..0]),
            };
            self.nodes(leading, item);
            if !body.is_empty() || i < commas {
                self.start_line(item);
                self.nodes(body, item + 1);
                if i < commas || (commas > 0 && Some(i) == last_nonempty) {
                    self.token(Token {
                        kind: Kind::Punct(b','),
                        start: 0,
                        end: 0,
                    });
                }
            }
            self.nodes(trailing, item);
        }
        self.start_line(base);
        self.token(close);
    }
}

fn contains_newline(nodes: &[Node]) -> bool {
    nodes.iter().any(|n| match n {
        Node::Nl | Node::Comment { .. } => true,
        Node::Group(g) => contains_newline(&g.inner),
        Node::Tok(_) => false,
    })
}

fn layout(entries: &[Entry]) -> String {
    // Only non-blank entries are rendered; blank lines are decided per entry.
    let items: Vec<(usize, &Entry)> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| !matches!(e, Entry::Blank))
        .collect();

    // Entries that must have a blank line before them: a top-level block or a
    // task header, or the first of the comments directly above it.
    let mut forced = vec![false; items.len()];
    for (k, (_, e)) in items.iter().enumerate() {
        if let Entry::Stmt(s) = e {
            if s.is_header() && s.indent <= 1 {
                let mut first = k;
                while first > 0
                    && matches!(items[first - 1].1, Entry::Comment { .. })
                    && items[first - 1].0 + 1 == items[first].0
                {
                    first -= 1;
                }
                forced[first] = true;
            }
        }
    }

    let mut blank_before = vec![false; items.len()];
    for k in 1..items.len() {
        let (idx, e) = items[k];
        let (prev_idx, prev) = items[k - 1];
        let prev_opens = matches!(prev, Entry::Stmt(s) if s.opens());
        let closes = matches!(e, Entry::Stmt(s) if s.closes());
        let after_block = matches!(prev, Entry::Stmt(s) if s.ends_with_close() && s.indent <= 1);
        blank_before[k] =
            !prev_opens && !closes && (forced[k] || after_block || idx > prev_idx + 1);
    }

    // Alignment groups: runs of brace-free statements with no blank line or
    // comment line between them.
    let mut columns = vec![None; items.len()];
    let mut k = 0;
    while k < items.len() {
        let is_member = |k: usize| matches!(items[k].1, Entry::Stmt(s) if !s.has_brace());
        if !is_member(k) {
            k += 1;
            continue;
        }
        let mut end = k + 1;
        while end < items.len() && is_member(end) && !blank_before[end] {
            end += 1;
        }
        let widths: Vec<usize> = (k..end)
            .filter_map(|j| match items[j].1 {
                Entry::Stmt(s) => s.align_width(),
                _ => None,
            })
            .collect();
        // Values already line up when every first word has the same width.
        if widths.iter().any(|w| *w != widths[0]) {
            let column = widths.iter().max().map(|w| w + 2);
            for c in &mut columns[k..end] {
                *c = column;
            }
        }
        k = end;
    }

    let mut out = String::new();
    for (k, (_, e)) in items.iter().enumerate() {
        if blank_before[k] {
            out.push('\n');
        }
        match e {
            Entry::Blank => {}
            Entry::Comment { depth, text } => {
                out.push_str(&"  ".repeat(*depth));
                out.push_str(text);
                out.push('\n');
            }
            Entry::Stmt(s) => s.render(columns[k], &mut out),
        }
    }
    out
}

// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests;

#[cfg(test)]
mod size {
    #[test]
    fn a_node_is_small() {
        assert!(std::mem::size_of::<super::Node>() <= 16);
    }
}
