//! FL009 `role-mismatch`: a declaration, `read`, `write` or `emit` that does not fit the kind's roles.
//!
//! Found while resolving names and literals (`analyze::resolve`), which
//! reports a typed `Problem`; its words are here.

use super::Rule;
use crate::analyze::model::{Loc, Role};
use crate::diagnostic::{Code, Diagnostic};

pub const RULE: Rule = Rule {
    code: Code::FL009,
    check: None,
};

/// A declaration giving the role `role` (at `at`) to the kind `kind` (named
/// at `kind_at`, declared at `kind_loc`), which has only the roles `roles`.
pub fn kind_lacks_role(
    kind: &str,
    roles: &[Role],
    role: Role,
    at: Loc,
    kind_at: Loc,
    kind_loc: Loc,
) -> Diagnostic {
    let roles: Vec<&str> = roles.iter().map(|r| r.word()).collect();
    Diagnostic::new(
        Code::FL009,
        at.file,
        at.span,
        format!("kind `{kind}` cannot be {}", with_article(role.word())),
    )
    .label(
        kind_at.file,
        kind_at.span,
        format!(
            "`{kind}` has roles: {}",
            if roles.is_empty() {
                "none".into()
            } else {
                roles.join(", ")
            }
        ),
    )
    .label(kind_loc.file, kind_loc.span, "kind declared here")
    .help(format!(
        "declare it as {} or pick a kind with the {} role",
        with_article(roles.first().copied().unwrap_or("source")),
        role.word()
    ))
}

/// The statement `stmt` (`read`, `write` or `emit`) naming at `at` the
/// `role` `name` of kind `kind`, declared at `declared`, which it cannot take.
pub fn role_mismatch(
    stmt: &str,
    name: &str,
    role: Role,
    kind: &str,
    at: Loc,
    declared: Loc,
) -> Diagnostic {
    let msg = match stmt {
        "read" => format!(
            "`read {name}`: {} `{name}` of kind `{kind}` cannot be read",
            role.word()
        ),
        "write" => format!(
            "`write {name}`: {} `{name}` of kind `{kind}` cannot be written",
            role.word()
        ),
        _ => format!("`emit {name}`: {} `{name}` is not an effect", role.word()),
    };
    let help = match stmt {
        "read" => "read a source, or a sink whose kind also has the source role",
        "write" => "write to a sink; effects are sent with `emit`",
        _ => "`emit` sends effects; write to sinks with `write`",
    };
    Diagnostic::new(Code::FL009, at.file, at.span, msg)
        .label(
            declared.file,
            declared.span,
            format!("declared as a {} of kind `{kind}`", role.word()),
        )
        .help(help)
}

/// `state` naming at `at` the `role` `name` of kind `kind`, declared at
/// `declared`, which cannot keep the pipeline's state; `stores` are the
/// sinks in scope that can.
pub fn state_not_store(
    name: &str,
    role: Role,
    kind: &str,
    at: Loc,
    declared: Loc,
    stores: &[String],
) -> Diagnostic {
    let msg = if role == Role::Sink {
        format!("`state {name}`: sink `{name}` of kind `{kind}` cannot keep the pipeline's state")
    } else {
        format!("`state {name}`: {} `{name}` is not a sink", role.word())
    };
    let label = if role == Role::Sink {
        format!("declared as a sink of kind `{kind}`, which has no `state` line")
    } else {
        format!("declared as {} of kind `{kind}`", with_article(role.word()))
    };
    let help = match stores.first() {
        Some(first) => format!(
            "name a sink whose kind has `state`, such as `{first}`, or remove the line to keep the state in a local file"
        ),
        None => "name a sink whose kind has `state` (in the standard library: `postgres_table`, `delta_table`, `iceberg_table`, `kafka_topic`), or remove the line to keep the state in a local file".to_string(),
    };
    Diagnostic::new(Code::FL009, at.file, at.span, msg)
        .label(declared.file, declared.span, label)
        .help(help)
}

/// `a source`, `an effect`.
fn with_article(word: &str) -> String {
    let article = if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {word}")
}
