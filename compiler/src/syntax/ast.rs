//! The typed syntax tree. Every node keeps its byte span; nothing here is
//! resolved or validated beyond what the grammar guarantees.

use crate::span::Span;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A string literal, escapes decoded.
#[derive(Clone)]
pub struct Str {
    pub value: String,
    pub span: Span,
    /// The literal's text between its quotes, kept only when it has escapes
    /// (so differs from `value`): where a part of `value` is written. Like
    /// the span it says where, not what, so equality and the debug form
    /// leave it out.
    pub raw: Option<Box<str>>,
}

impl Str {
    /// The span, in the file, of `value[from..to]`.
    pub fn span_of(&self, from: usize, to: usize) -> Span {
        let body = self.span.start + 1;
        match &self.raw {
            None => Span::new(body + from, body + to),
            Some(raw) => Span::new(
                body + super::escape::raw_offset(raw, from),
                body + super::escape::raw_offset(raw, to),
            ),
        }
    }
}

impl PartialEq for Str {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value && self.span == other.span
    }
}

impl Eq for Str {}

impl std::fmt::Debug for Str {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Str")
            .field("value", &self.value)
            .field("span", &self.span)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    pub items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Use(Use),
    Kind(KindDecl),
    Decl(Decl),
    Pipeline(Pipeline),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Use {
    pub path: Str,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindDecl {
    pub name: Ident,
    pub lines: Vec<Setting>,
    pub params: Vec<ParamDecl>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamDecl {
    pub name: Ident,
    pub ty: Ident,
    pub optional: bool,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Source,
    Sink,
    Effect,
}

impl Role {
    pub fn word(self) -> &'static str {
        match self {
            Role::Source => "source",
            Role::Sink => "sink",
            Role::Effect => "effect",
        }
    }
}

/// `source|sink|effect NAME: KIND { properties }`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decl {
    pub role: Role,
    pub role_span: Span,
    pub name: Ident,
    pub kind: Ident,
    pub props: Vec<Setting>,
    pub span: Span,
}

/// A generic `name value...` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    pub name: Ident,
    pub args: Vec<Value>,
    pub span: Span,
}

impl Setting {
    /// The span of the values, or of the name when there are none.
    pub fn value_span(&self) -> Span {
        match (self.args.first(), self.args.last()) {
            (Some(a), Some(b)) => a.span().to(b.span()),
            _ => self.name.span,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Str(Str),
    /// A token starting with a digit: a date, duration or integer, as written.
    Number(Ident),
    Ident(Ident),
    List(Vec<Value>, Span),
    Tuple(Vec<Value>, Span),
    /// `{ KEY "value" ... }` after a setting's name (flowc 0.2's pod
    /// settings): each key (a name, or a string) with its value, in order.
    Map(Vec<(Str, Str)>, Span),
}

impl Value {
    pub fn span(&self) -> Span {
        match self {
            Value::Str(s) => s.span,
            Value::Number(i) | Value::Ident(i) => i.span,
            Value::List(_, s) | Value::Tuple(_, s) | Value::Map(_, s) => *s,
        }
    }

    /// What the value is, in words, for "expected X, found Y".
    pub fn describe(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Number(n) if n.name.contains('-') => "a date",
            Value::Number(n) if n.name.ends_with(|c: char| c.is_ascii_alphabetic()) => "a duration",
            Value::Number(_) => "a number",
            Value::Ident(_) => "a name",
            Value::List(..) => "a list",
            Value::Tuple(..) => "a tuple",
            Value::Map(..) => "a block",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    pub name: Ident,
    pub settings: Vec<Setting>,
    /// `param NAME: TYPE` settings given when a manual run is triggered.
    pub params: Vec<ParamDecl>,
    pub allows: Vec<Allow>,
    pub tasks: Vec<Task>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    pub name: Ident,
    pub stmts: Vec<TaskStmt>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskStmt {
    After(After),
    Read(Read),
    Key(KeyStmt),
    // Boxed: the largest statements, kept out of every other statement's size.
    Write(Box<Write>),
    Emit(Box<Emit>),
    Run(Run),
    Env(Env),
    Allow(Allow),
    Setting(Setting),
}

impl TaskStmt {
    pub fn span(&self) -> Span {
        match self {
            TaskStmt::After(s) => s.span,
            TaskStmt::Read(s) => s.span,
            TaskStmt::Key(s) => s.span,
            TaskStmt::Write(s) => s.span,
            TaskStmt::Emit(s) => s.span,
            TaskStmt::Run(s) => s.span,
            TaskStmt::Env(s) => s.span,
            TaskStmt::Allow(s) => s.span,
            TaskStmt::Setting(s) => s.span,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct After {
    pub tasks: Vec<Ident>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinClause {
    Pinned(Ident),
    Unpinned(Span),
    /// `cursor` (flowc 0.3): an incremental read by the source's cursor.
    Cursor(Span),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    pub source: Ident,
    pub pins: Vec<PinClause>,
    pub commits: Vec<Ident>,
    /// `lookback L` (flowc 0.3), as written (a duration or a count).
    pub lookbacks: Vec<Ident>,
    /// `inclusive` (flowc 0.3), where written.
    pub inclusive: Vec<Span>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyStmt {
    pub key: KeyExpr,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyExpr {
    pub parts: Vec<KeyPart>,
    pub span: Span,
}

/// `[COL =] TERM`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPart {
    pub column: Option<Ident>,
    pub term: TermExpr,
    pub span: Span,
}

/// A key term as written: `input.F`, `hash(input)`, `now()`, `interval.start`...
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermExpr {
    pub path: Vec<Ident>,
    /// `Some(arg)` for a call: `hash(input)` has `Some(Some(input))`, `now()` `Some(None)`.
    pub call: Option<Option<Ident>>,
    pub span: Span,
}

impl TermExpr {
    /// The term as written, normalised (no spaces).
    pub fn text(&self) -> String {
        let mut s = self
            .path
            .iter()
            .map(|i| i.name.as_str())
            .collect::<Vec<_>>()
            .join(".");
        if let Some(arg) = &self.call {
            s.push('(');
            if let Some(a) = arg {
                s.push_str(&a.name);
            }
            s.push(')');
        }
        s
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteModeExpr {
    /// A one-word mode, as written (validated later).
    Word(Ident),
    ReplacePartition(KeyPart, Span),
    AppendLedger(Span),
}

impl WriteModeExpr {
    pub fn span(&self) -> Span {
        match self {
            WriteModeExpr::Word(i) => i.span,
            WriteModeExpr::ReplacePartition(_, s) | WriteModeExpr::AppendLedger(s) => *s,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    pub sink: Ident,
    pub mode: WriteModeExpr,
    pub keys: Vec<KeyExpr>,
    pub requires: Vec<Ident>,
    /// `newest by COLUMN` (flowc 0.3): the column, and the clause's span.
    pub newest: Vec<(Ident, Span)>,
    /// `txn TERM` (flowc 0.3): the id a conditional commit deduplicates on.
    pub txns: Vec<KeyExpr>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    Outbox(Option<Ident>, Span),
    IdempotencyKey(KeyExpr, Span),
}

impl Via {
    pub fn span(&self) -> Span {
        match self {
            Via::Outbox(_, s) | Via::IdempotencyKey(_, s) => *s,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Emit {
    pub effect: Ident,
    pub via: Option<Via>,
    /// `via outbox [S] key K`: the effect's own key.
    pub key: Option<KeyExpr>,
    pub require: Option<Ident>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub image: Option<Str>,
    pub command: Vec<Str>,
    pub command_span: Span,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Env {
    pub entries: Vec<(Ident, Str)>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allow {
    pub code: Ident,
    pub reason: Option<Str>,
    pub span: Span,
}
