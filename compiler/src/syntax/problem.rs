//! What the parser found wrong with a file (FL001), with the data each
//! message needs: the parser sits below `rules`, so it reports these and the
//! driver words them through FL001's rule file (`rules::syntax_finding`).

use crate::source::FileId;
use crate::span::Span;

/// One syntax problem of `file`, at `span`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxProblem {
    pub file: FileId,
    pub span: Span,
    pub what: SyntaxError,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyntaxError {
    /// The text is `bytes` long, over the limit of `limit` bytes.
    TooLarge { bytes: usize, limit: usize },
    /// Brackets nested more than `limit` levels deep.
    TooDeep { limit: usize },
    /// pest's own limits (call budget, stack guard) stopped the parse.
    TooComplex,
    /// A string left open at the end of its line.
    UnterminatedString,
    /// A bad escape in a string, and what is wrong with it.
    BadEscape(String),
    /// `word`, which starts a clause, names the outbox sink of `via outbox`.
    OutboxNameIsClauseWord(String),
    /// `key` after `via outbox` with no terms.
    OutboxKeyWithoutTerms,
    /// `write SINK word ...`, where `word` (at the problem's span) is no
    /// write mode and more follows it on the line.
    NotAWriteMode(String),
    /// The parse stopped at `found` (a token's name, such as "end of line"
    /// or "`image`"), where one of `expected` (the names of the tokens that
    /// could come there, in order) was wanted; `after` is the last word
    /// before it on its line, and `hint` what the help says.
    Unexpected {
        found: String,
        expected: Vec<String>,
        after: String,
        hint: Hint,
    },
}

/// Which help an [`SyntaxError::Unexpected`] gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hint {
    /// The file ends with the bracket `bracket` at `open` never closed.
    Unclosed { open: Span, bracket: char },
    /// The file ends where a block should open.
    OpenBlock,
    /// The file ends in the middle of a statement.
    EndsMidStatement,
    /// A line ends where a statement needed `}`.
    OneStatementPerLine,
    /// A statement follows `{` on its line.
    BlockEndsLine,
    /// A clause word stands where a name should; `image_first` when it is
    /// `image` after `run`.
    ClauseWord { image_first: bool },
    /// The line ends before its statement does.
    Incomplete,
    /// A word at the start of a line that means the keyword.
    Keyword(&'static str),
    /// None of these.
    Shape,
}
