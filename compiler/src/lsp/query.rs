//! What stands at a position: the name under the cursor and what it
//! refers to (read off a [`Snapshot`]), and, for completion, where the
//! cursor is in the syntax of the text as the editor has it now
//! ([`Query::at`]: the enclosing blocks and the tokens of the statement
//! being typed, from the lexer, so comments, strings and line breaks inside
//! brackets are what the grammar says they are, and a half-typed file that
//! does not parse still has a context).

use lsp_types as lt;

use super::position::Lines;
use super::words::Place;
use super::Snapshot;
use crate::analyze::model::{DeclDef, KindDef, Loc, Role};
use crate::format::{Kind as Tok, Lexer, Token};
use crate::source::FileId;
use crate::span::Span;

pub fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The identifier around byte `at`, and its span.
pub fn word_at(text: &str, at: usize) -> Option<(Span, &str)> {
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
pub fn name_in(text: &str, span: Span, name: &str) -> Option<Span> {
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

pub fn within(loc: &Loc, file: FileId, at: usize) -> bool {
    loc.file == file && loc.span.start <= at && at <= loc.span.end
}

pub fn file_and_offset(snap: &Snapshot, uri: &str, pos: lt::Position) -> Option<(FileId, usize)> {
    let file = *snap.file_of.get(uri)?;
    Some((file, Lines::new(snap.text(file)).offset(pos)))
}

/// What a name at the cursor stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entity {
    Decl(usize),
    Kind(usize),
    /// (pipeline, task)
    Task(usize, usize),
}

pub fn kind_name_span(snap: &Snapshot, k: &KindDef) -> Span {
    let text = snap.text(k.loc.file);
    let after = Span::new((k.loc.span.start + 4).min(k.loc.span.end), k.loc.span.end);
    name_in(text, after, &k.name).unwrap_or(k.loc.span)
}

/// The declaration named `name`, one of `file` first.
pub fn decl_named(snap: &Snapshot, file: FileId, name: &str) -> Option<usize> {
    let decls = &snap.outcome.program.decls;
    decls
        .iter()
        .position(|d| d.name == name && d.loc.file == file)
        .or_else(|| decls.iter().position(|d| d.name == name))
}

pub fn kind_of_decl<'a>(snap: &'a Snapshot, file: FileId, name: &str) -> Option<&'a KindDef> {
    let i = decl_named(snap, file, name)?;
    snap.outcome
        .program
        .kinds
        .get(snap.outcome.program.decls[i].kind_idx)
}

/// The declaration whose block holds byte `at` of `file`.
pub fn decl_around(snap: &Snapshot, file: FileId, at: usize) -> Option<&DeclDef> {
    snap.outcome
        .program
        .decls
        .iter()
        .find(|d| d.loc.file == file && d.loc.span.start < at && at <= d.loc.span.end)
}

pub fn entity_at(snap: &Snapshot, file: FileId, at: usize) -> Option<Entity> {
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

/// A block open at the cursor, as its header names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// `source|sink|effect NAME: KIND {`
    Decl {
        role: Role,
        name: String,
        kind: String,
    },
    /// `pipeline NAME {`
    Pipeline(String),
    /// `task NAME {`
    Task(String),
    /// `kind NAME {`
    Kind(String),
    /// Any other (a setting's braces).
    Other,
}

/// One token of the statement at the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Word(String),
    Punct(u8),
    /// A number or a string.
    Value,
}

/// Where the cursor is, in the syntax of the text before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The blocks open at the cursor, outermost first.
    pub blocks: Vec<Block>,
    /// The statement's tokens before the cursor, the word being typed
    /// (one that ends at the cursor) left out.
    pub done: Vec<Piece>,
    /// The word being typed, if any.
    pub typing: Option<String>,
    /// The cursor is inside a comment or a string.
    pub inert: bool,
}

impl Query {
    /// The context at byte `at` of `text`: the text before it lexed as
    /// `flowc fmt` lexes it (up to a lexing error, after which only the
    /// cursor's line is used).
    pub fn at(text: &str, at: usize) -> Query {
        let mut at = at.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let before = &text[..at];
        let mut tokens: Vec<Token> = Vec::new();
        let mut offset = 0;
        let mut failed_at = None;
        for t in Lexer::new(before) {
            match t {
                Ok(t) => tokens.push(t),
                Err(e) => {
                    failed_at = Some(e.offset);
                    break;
                }
            }
        }
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        if let Some(bad) = failed_at {
            if bad >= line_start {
                // An unterminated string (or a stray byte) on this line:
                // the cursor is in a string, or nowhere completion helps.
                return Query {
                    blocks: Vec::new(),
                    done: Vec::new(),
                    typing: None,
                    inert: true,
                };
            }
            // Lexing failed on an earlier line: this line alone.
            tokens = Lexer::new(&before[line_start..])
                .map_while(Result::ok)
                .collect();
            offset = line_start;
        }
        let src = &before[offset..];
        let mut blocks: Vec<Block> = Vec::new();
        let mut stmt: Vec<Token> = Vec::new();
        let mut depth = 0usize;
        for t in &tokens {
            match t.kind {
                Tok::Newline if depth == 0 => stmt.clear(),
                Tok::Newline | Tok::Comment => {}
                Tok::Punct(b'{') => {
                    blocks.push(block_of(src, &stmt));
                    stmt.clear();
                    depth = 0;
                }
                Tok::Punct(b'}') => {
                    blocks.pop();
                    stmt.clear();
                    depth = 0;
                }
                Tok::Punct(b'(' | b'[') => {
                    depth += 1;
                    stmt.push(*t);
                }
                Tok::Punct(b')' | b']') => {
                    depth = depth.saturating_sub(1);
                    stmt.push(*t);
                }
                _ => stmt.push(*t),
            }
        }
        let inert = tokens.last().is_some_and(|t| {
            t.kind == Tok::Comment || (t.kind == Tok::Str && t.end as usize == src.len())
        });
        let mut done: Vec<Piece> = stmt
            .iter()
            .map(|t| match t.kind {
                Tok::Word => Piece::Word(t.text(src).to_string()),
                Tok::Punct(b) => Piece::Punct(b),
                _ => Piece::Value,
            })
            .collect();
        let typing = match (stmt.last(), done.last()) {
            (Some(t), Some(Piece::Word(w))) if t.end as usize == src.len() => {
                let w = w.clone();
                done.pop();
                Some(w)
            }
            _ => None,
        };
        Query {
            blocks,
            done,
            typing,
            inert,
        }
    }

    /// The statement's finished words, as text (punctuation left out).
    pub fn words(&self) -> Vec<&str> {
        self.done
            .iter()
            .filter_map(|p| match p {
                Piece::Word(w) => Some(w.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The innermost block of each sort.
    pub fn decl(&self) -> Option<(Role, &str, &str)> {
        match self.blocks.last()? {
            Block::Decl { role, name, kind } => Some((*role, name, kind)),
            _ => None,
        }
    }

    /// Which words may start the statement at the cursor, from the
    /// innermost block: a declaration's properties, a pipeline's, task's
    /// or kind's settings and statements; `None` elsewhere, and after the
    /// statement's first word.
    pub fn line_start(&self) -> Option<Place> {
        if !self.done.is_empty() {
            return None;
        }
        match self.blocks.last()? {
            Block::Decl { role, .. } => Some(Place::Decl(*role)),
            Block::Pipeline(_) => Some(Place::Pipeline),
            Block::Task(_) => Some(Place::Task),
            Block::Kind(_) => Some(Place::Kind),
            Block::Other => None,
        }
    }

    pub fn pipeline(&self) -> Option<&str> {
        self.blocks.iter().rev().find_map(|b| match b {
            Block::Pipeline(n) => Some(n.as_str()),
            _ => None,
        })
    }

    pub fn task(&self) -> Option<&str> {
        self.blocks.iter().rev().find_map(|b| match b {
            Block::Task(n) => Some(n.as_str()),
            _ => None,
        })
    }

    /// Just after `output.` (or `output.` and part of a field).
    pub fn after_output_dot(&self) -> bool {
        matches!(
            self.done.as_slice(),
            [.., Piece::Word(w), Piece::Punct(b'.')] if w == "output"
        )
    }
}

fn role_of(word: &str) -> Option<Role> {
    match word {
        "source" => Some(Role::Source),
        "sink" => Some(Role::Sink),
        "effect" => Some(Role::Effect),
        _ => None,
    }
}

fn block_of(src: &str, header: &[Token]) -> Block {
    let words: Vec<&str> = header
        .iter()
        .filter(|t| t.kind == Tok::Word)
        .map(|t| t.text(src))
        .collect();
    match words.as_slice() {
        [role, name, kind, ..] if role_of(role).is_some() => Block::Decl {
            role: role_of(role).unwrap_or(Role::Source),
            name: (*name).to_string(),
            kind: (*kind).to_string(),
        },
        ["pipeline", name, ..] => Block::Pipeline((*name).to_string()),
        ["task", name, ..] => Block::Task((*name).to_string()),
        ["kind", name, ..] => Block::Kind((*name).to_string()),
        _ => Block::Other,
    }
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

    #[test]
    fn the_context_comes_from_the_syntax() {
        let text = "source o: postgres_table {\n  tab";
        let q = Query::at(text, text.len());
        assert_eq!(q.decl(), Some((Role::Source, "o", "postgres_table")));
        assert_eq!(q.typing.as_deref(), Some("tab"));
        assert!(q.done.is_empty());
        // A comment and a string are no place to complete in.
        assert!(Query::at("pipeline p {\n  # read ", 22).inert);
        assert!(Query::at("use \"com", 8).inert);
        // A line break inside brackets does not end the statement.
        let text = "pipeline p {\n task t {\n  key (a,\n   output.";
        let q = Query::at(text, text.len());
        assert!(q.after_output_dot(), "{q:?}");
        assert_eq!(q.task(), Some("t"));
        assert_eq!(q.pipeline(), Some("p"));
        // A closed block is left.
        let text = "source o: x {\n}\nwrite ";
        let q = Query::at(text, text.len());
        assert!(q.blocks.is_empty());
        assert_eq!(q.words(), vec!["write"]);
        // Words in a comment are not the statement's.
        let text = "pipeline p {\n  task t {\n    # write x\n    read ";
        assert_eq!(Query::at(text, text.len()).words(), vec!["read"]);
    }
}
