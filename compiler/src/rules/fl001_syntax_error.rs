//! FL001 `syntax-error`: the file does not parse, or is not UTF-8.
//!
//! Found by the parser (`syntax::parser`), which reports a typed
//! `SyntaxProblem`, and, for a word that is not one of its clause's words, by
//! the resolver (`analyze::resolve`), which reports a typed `Problem`; the
//! words of both are here.

use super::Rule;
use crate::analyze::model::Loc;
use crate::diagnostic::{Code, Diagnostic};
use crate::source::FileId;
use crate::span::Span;
use crate::suggest::mean;
use crate::syntax::problem::{Hint, SyntaxError, SyntaxProblem};

pub const RULE: Rule = Rule {
    code: Code::FL001,
    check: None,
};

/// `pinned name` (at `at`), where `name` is no pin; `near` is the closest
/// pin.
pub fn not_a_pin(name: &str, near: Option<&str>, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL001,
        at.file,
        at.span,
        format!("`{name}` is not a pin{}", mean(near)),
    )
    .help("the pins are `version`, `snapshot`, `listing` and `offsets`; write `unpinned` for none")
    .fix_name(near, at.file, at.span)
}

/// `commit name` (at `at`), where `name` is no commit mode; `near` is the
/// closest mode.
pub fn not_a_commit_mode(name: &str, near: Option<&str>, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL001,
        at.file,
        at.span,
        format!("`{name}` is not a commit mode{}", mean(near)),
    )
    .help("the commit modes are `auto`, `before_write`, `after_write` and `in_transaction`")
    .fix_name(near, at.file, at.span)
}

/// The write mode `name` (at `at`), which is none; `near` is the closest
/// mode, or `replace` or `ledger` for the two-word ones.
pub fn not_a_write_mode(name: &str, near: Option<&str>, at: Loc) -> Diagnostic {
    // The two-word modes written with an underscore, as JSON spells them.
    let near = near.or(match name {
        "replace_partition" => Some("replace"),
        "append_ledger" => Some("ledger"),
        _ => None,
    });
    let hint = near.map(|s| match s {
        "replace" => "; did you mean `replace partition COL = TERM`?".to_string(),
        "ledger" => "; did you mean `append ledger`?".to_string(),
        s => format!("; did you mean `{s}`?"),
    });
    Diagnostic::new(
        Code::FL001,
        at.file,
        at.span,
        format!("`{name}` is not a write mode{}", hint.unwrap_or_default()),
    )
    .help("the modes are `upsert`, `replace partition COL = TERM`, `append`, `append ledger`, `check_then_append`, `conditional_commit`, `overwrite` and `transactional`")
}

/// `require name` (at `at`), where `name` is no guarantee; `near` is the
/// closest guarantee.
pub fn not_a_guarantee(name: &str, near: Option<&str>, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL001,
        at.file,
        at.span,
        format!("`{name}` is not a guarantee{}", mean(near)),
    )
    .help("the guarantees are `exactly_once`, `effectively_once`, `at_least_once`, `at_most_once` and `none`")
    .fix_name(near, at.file, at.span)
}

/// The key term `text` (at `at`), which is none of `terms`; `guess` is what
/// it most likely meant, `bare` the word when it is one bare word.
pub fn not_a_key_term(
    text: &str,
    guess: Option<&str>,
    bare: Option<&str>,
    terms: &[&str],
    at: Loc,
) -> Diagnostic {
    let hint = guess
        .map(|g| format!("; did you mean `{g}`?"))
        .unwrap_or_default();
    Diagnostic::new(
        Code::FL001,
        at.file,
        at.span,
        format!("`{text}` is not a key term{hint}"),
    )
    .help(if let Some(side @ ("input" | "output")) = bare {
        format!("key on one field, `{side}.FIELD`, or on the whole record, `hash({side})`")
    } else if let Some(call @ ("now" | "uuid" | "random" | "hash")) = bare {
        let arg = if call == "hash" { "input" } else { "" };
        format!("`{call}` is called: write `{call}({arg})`")
    } else if let Some(word @ ("interval" | "run" | "attempt")) = bare {
        let terms: Vec<String> = terms
            .iter()
            .filter(|t| t.starts_with(&format!("{word}.")))
            .map(|t| format!("`{t}`"))
            .collect();
        format!("name the part: {}", terms.join(" or "))
    } else if bare.is_some() {
        format!("name where the value comes from: `input.{text}` or `output.{text}`")
    } else {
        format!(
            "a key term is one of {}",
            terms[..12]
                .iter()
                .map(|w| format!("`{w}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// What an unterminated string is told, by `check` and by `fmt` alike.
pub const UNTERMINATED_STRING: &str =
    "unterminated string: a string must close with `\"` on the line it starts";

/// What `check` and `fmt` say about brackets nested deeper than `limit`.
pub fn too_deep(limit: usize) -> String {
    format!("brackets nested more than {limit} levels deep")
}

/// `words` joined into one phrase: "a, b or c".
fn join_or(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// The finding of a problem the parser found.
pub fn syntax_finding(problem: &SyntaxProblem) -> Diagnostic {
    let SyntaxProblem { file, span, what } = problem;
    let (file, span) = (*file, *span);
    match what {
        SyntaxError::TooLarge { bytes, limit } => Diagnostic::new(
            Code::FL001,
            file,
            span,
            format!(
                "file is too large to check ({} MiB; the limit is {} MiB)",
                bytes.div_ceil(1_048_576),
                limit / 1_048_576
            ),
        )
        .help("split the declarations and pipelines over several files joined with `use`"),
        SyntaxError::TooDeep { limit } => Diagnostic::new(Code::FL001, file, span, too_deep(*limit))
            .help("a `.flow` file nests at most a pipeline, a task and an `env` block, and lists hold no lists"),
        SyntaxError::TooComplex => Diagnostic::new(
            Code::FL001,
            file,
            span,
            "input is too complex to parse",
        )
        .help("this does not look like a `.flow` file; check that the path is right"),
        SyntaxError::UnterminatedString => Diagnostic::new(
            Code::FL001,
            file,
            span,
            UNTERMINATED_STRING,
        )
        .help("close the string with `\"`; inside a string, write `\\\"` for a quote and `\\\\` for a backslash"),
        SyntaxError::BadEscape(why) => Diagnostic::new(Code::FL001, file, span, why.clone())
            .help("the escapes are `\\\"`, `\\\\`, `\\n`, `\\t`, `\\{`, `\\}` and `\\u{1F600}`"),
        SyntaxError::OutboxNameIsClauseWord(word) => Diagnostic::new(
            Code::FL001,
            file,
            span,
            format!("`{word}` starts a clause, so it cannot name the outbox sink here"),
        )
        .help("rename the sink, or leave the name out to use the task's first transactional write"),
        SyntaxError::OutboxKeyWithoutTerms => Diagnostic::new(
            Code::FL001,
            file,
            span,
            "`key` after `via outbox` needs the key's terms",
        )
        .help("write the effect's key, e.g. `key input.id` or `key (input.id, interval.start)`, or remove `key` to use the key of the outbox's write"),
        SyntaxError::NotAWriteMode(word) => {
            let mut modes: Vec<&str> = crate::vocab::Mode::ALL
                .iter()
                .filter(|(_, m)| {
                    !matches!(
                        m,
                        crate::vocab::Mode::ReplacePartition | crate::vocab::Mode::AppendLedger
                    )
                })
                .map(|(w, _)| *w)
                .collect();
            modes.extend(["replace", "ledger"]);
            let near = crate::suggest::closest(word, modes);
            not_a_write_mode(word, near, Loc { file, span })
        }
        SyntaxError::Unexpected {
            found,
            expected,
            after,
            hint,
        } => unexpected(file, span, found, expected, after, hint),
    }
}

/// The finding of a parse that stopped at `found` (at `span`), where one of
/// `expected` was wanted, after the word `after`.
fn unexpected(
    file: FileId,
    span: Span,
    found: &str,
    expected: &[String],
    after: &str,
    hint: &Hint,
) -> Diagnostic {
    // After a clause word, "a name" is one of a closed set of words: say which.
    let named = match after {
        "require" => Some(
            "a guarantee (`exactly_once`, `effectively_once`, `at_least_once` or `at_most_once`)",
        ),
        "pinned" => Some("a pin (`version`, `snapshot`, `listing` or `offsets`)"),
        "commit" => {
            Some("a commit mode (`auto`, `before_write`, `after_write` or `in_transaction`)")
        }
        "allow" => Some("a rule code such as `FL202`"),
        _ => None,
    };
    let words: Vec<String> = match named {
        Some(what) => expected
            .iter()
            .map(|w| {
                if w == "a name" {
                    what.to_string()
                } else {
                    w.clone()
                }
            })
            .collect(),
        None => expected.to_vec(),
    };
    let expected = join_or(&words);
    let message = if expected.is_empty() {
        format!("unexpected {found}")
    } else {
        format!("expected {expected}, found {found}")
    };
    let d = Diagnostic::new(Code::FL001, file, span, message);
    match hint {
        Hint::Unclosed { open, bracket } => {
            let close = match bracket {
                '{' => '}',
                '[' => ']',
                _ => ')',
            };
            d.label(file, *open, format!("this `{bracket}` is never closed"))
                .help(format!("add the missing `{close}`"))
        }
        Hint::OpenBlock => d.help("open the block: `{` at the end of this line, the statements on the lines after it, and `}` on a line of its own"),
        Hint::EndsMidStatement => d.help("the file ends in the middle of a statement; `flowc explain FL001` shows the shape of a `.flow` file"),
        Hint::OneStatementPerLine => d.help("statements end at the end of their line; put each on a line of its own"),
        Hint::BlockEndsLine => d.help("`{` ends its line: put each statement of the block on a line of its own, and `}` on a line of its own"),
        Hint::ClauseWord { image_first: true } => {
            d.help("write the image first: `run image \"REF\" command [..]`".to_string())
        }
        Hint::ClauseWord { image_first: false } => d.help(format!("{found} starts a clause, so it cannot stand here; if it names a declaration, rename that declaration")),
        Hint::Incomplete => d.help("the statement is incomplete; statements end at the end of their line, except inside `[...]` and `(...)` and after a comma"),
        Hint::Keyword(keyword) => {
            let word = found.trim_matches('`');
            let d = d.help(format!("did you mean `{keyword}`? keywords are lowercase"));
            // Only the case is fixed: a misspelled keyword may be a name.
            if word.eq_ignore_ascii_case(keyword) {
                d.fix(format!("write `{keyword}` in lowercase"), file, span, *keyword)
            } else {
                d
            }
        }
        Hint::Shape => d.help("`flowc explain FL001` shows the shape of a `.flow` file; docs/reference/language.md describes every construct"),
    }
}

#[cfg(test)]
mod tests {
    use super::syntax_finding;
    use crate::source::FileId;
    use crate::span::Span;
    use crate::syntax::problem::{Hint, SyntaxError};

    /// The parser names what it found and what could have come, with no
    /// sentence; the rule file words it.
    #[test]
    fn the_parser_reports_token_names_and_the_rule_file_words_them() {
        let (ast, problems) = crate::syntax::parse(FileId(0), "pipeline p {\n");
        assert!(ast.is_none());
        let [problem] = problems.as_slice() else {
            panic!("one problem: {problems:?}")
        };
        let SyntaxError::Unexpected {
            found,
            expected,
            hint,
            ..
        } = &problem.what
        else {
            panic!("a parse that stopped: {problem:?}")
        };
        assert_eq!(found, "end of file");
        assert!(expected.iter().any(|w| w == "`}`"), "{expected:?}");
        assert_eq!(
            *hint,
            Hint::Unclosed {
                open: Span::new(11, 12),
                bracket: '{'
            }
        );
        let d = syntax_finding(problem);
        assert!(d.message.starts_with("expected "), "{}", d.message);
        assert!(d.message.ends_with(", found end of file"), "{}", d.message);
        assert_eq!(d.help.as_deref(), Some("add the missing `}`"));
        assert_eq!(d.labels.len(), 1);
    }

    #[test]
    fn a_file_that_parses_has_no_problem() {
        let (ast, problems) = crate::syntax::parse(FileId(0), "pipeline p {\n}\n");
        assert!(ast.is_some());
        assert!(problems.is_empty(), "{problems:?}");
    }

    /// After `require`, "a name" is worded as the guarantees; the problem
    /// itself keeps the token's name.
    #[test]
    fn a_name_after_a_clause_word_is_worded_as_its_words() {
        let (_, problems) = crate::syntax::parse(
            FileId(0),
            "pipeline p {\n  task t {\n    emit e require\n  }\n}\n",
        );
        let [problem] = problems.as_slice() else {
            panic!("one problem: {problems:?}")
        };
        let SyntaxError::Unexpected {
            expected, after, ..
        } = &problem.what
        else {
            panic!("a parse that stopped: {problem:?}")
        };
        assert_eq!(after, "require");
        assert!(expected.iter().any(|w| w == "a name"), "{expected:?}");
        let d = syntax_finding(problem);
        assert!(
            d.message.contains("a guarantee (`exactly_once`"),
            "{}",
            d.message
        );
        assert!(!d.message.contains("a name"), "{}", d.message);
    }
}
