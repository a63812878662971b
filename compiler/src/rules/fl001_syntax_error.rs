//! FL001 `syntax-error`: the file does not parse, or is not UTF-8.
//!
//! Found by the parser (`syntax::parser`), and, for a word that is not one
//! of its clause's words, by the resolver (`analyze::resolve`), which
//! reports a typed `Problem`; the resolver's words are here.

use super::Rule;
use crate::analyze::model::Loc;
use crate::diagnostic::{Code, Diagnostic};
use crate::suggest::mean;

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
}

/// The write mode `name` (at `at`), which is none; `near` is the closest
/// mode, or `replace` or `ledger` for the two-word ones.
pub fn not_a_write_mode(name: &str, near: Option<&str>, at: Loc) -> Diagnostic {
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
