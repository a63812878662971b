//! The settings catalog (`compiler/src/analyze/settings.rs`) against what
//! lists its words outside the compiler: the `TextMate` grammar's word list
//! (generated from the catalog: `FLOWC_BLESS=1 cargo test --test it
//! settings::` rewrites it, then `scripts/gen-highlight` the docs site's copy)
//! and the language reference, where each setting has its section.

use crate::common::repo_root;
use flowc::analyze::settings::{self, Setting};

const GRAMMAR: &str = "editors/textmate/flow.tmLanguage.json";
const REFERENCE: &str = "docs/reference/language.md";

/// The first words of a line that are statements, not settings: the
/// grammar colours them alike.
const STATEMENTS: [&str; 10] = [
    "read",
    "write",
    "key",
    "emit",
    "after",
    "run",
    "env",
    "allow",
    "param",
    "primary_key",
];

/// The grammar's `statement` pattern for these words.
fn statement_regex(words: &[&str]) -> String {
    format!("^\\s*({})\\b", words.join("|"))
}

/// The statements, then every setting word once, in catalog order.
fn grammar_words() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = STATEMENTS.to_vec();
    for w in settings::words() {
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The grammar's `statement` pattern, or why it cannot be read.
fn statement_of(grammar: &str) -> Result<String, String> {
    let json: serde_json::Value = serde_json::from_str(grammar).map_err(|e| e.to_string())?;
    json["repository"]["statement"]["match"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| "no repository.statement.match".to_owned())
}

/// What is wrong with `grammar`'s word list against `words`, if anything.
fn grammar_problem(grammar: &str, words: &[&str]) -> Option<String> {
    match statement_of(grammar) {
        Err(e) => Some(e),
        Ok(found) if found != statement_regex(words) => Some(format!(
            "{GRAMMAR} is not current: run `FLOWC_BLESS=1 cargo test --test it settings::`, \
             then `scripts/gen-highlight`\n found: {found}\n want:  {}",
            statement_regex(words)
        )),
        Ok(_) => None,
    }
}

#[test]
fn the_grammar_lists_every_setting_word() {
    let path = repo_root().join(GRAMMAR);
    let text = std::fs::read_to_string(&path).expect("the grammar");
    let words = grammar_words();
    if std::env::var_os("FLOWC_BLESS").is_some() && grammar_problem(&text, &words).is_some() {
        let old = statement_of(&text).expect("a statement pattern");
        let quoted = |s: &str| serde_json::to_string(s).expect("a JSON string");
        let new = text.replacen(&quoted(&old), &quoted(&statement_regex(&words)), 1);
        std::fs::write(&path, new).expect("the grammar written");
        return;
    }
    assert_eq!(grammar_problem(&text, &words), None);
}

#[test]
fn a_grammar_missing_a_setting_word_is_found() {
    let words = grammar_words();
    let fewer: Vec<&str> = words.iter().copied().filter(|w| *w != "lossy").collect();
    let grammar = serde_json::json!({
        "repository": { "statement": { "match": statement_regex(&fewer) } }
    })
    .to_string();
    let found = grammar_problem(&grammar, &words).expect("a stale grammar");
    assert!(found.contains("not current"), "{found}");
    assert!(grammar_problem("{}", &words).is_some());
}

/// The settings whose section of `page` is missing or does not name them:
/// a heading `#... SECTION` whose text, up to the next heading as high,
/// names the word in backticks (alone or starting a usage).
fn undocumented(page: &str, all: &[Setting]) -> Vec<String> {
    let lines: Vec<&str> = page.lines().collect();
    let mut out = Vec::new();
    for s in all {
        let found = lines.iter().enumerate().find_map(|(i, l)| {
            let level = l.chars().take_while(|c| *c == '#').count();
            (level > 0 && l[level..].trim() == s.section).then_some((i, level))
        });
        let Some((at, level)) = found else {
            out.push(format!("{}: no section \"{}\"", s.name, s.section));
            continue;
        };
        let body = lines[at + 1..]
            .iter()
            .take_while(|l| {
                let n = l.chars().take_while(|c| *c == '#').count();
                n == 0 || n > level || !l[n..].starts_with(' ')
            })
            .copied()
            .collect::<Vec<_>>()
            .join("\n");
        let named = [format!("`{}`", s.name), format!("`{} ", s.name)]
            .iter()
            .any(|w| body.contains(w.as_str()) || lines[at].contains(w.as_str()));
        if !named {
            out.push(format!(
                "{}: section \"{}\" does not name it",
                s.name, s.section
            ));
        }
    }
    out
}

#[test]
fn every_setting_has_its_reference_section() {
    let page = std::fs::read_to_string(repo_root().join(REFERENCE)).expect("the reference");
    assert_eq!(undocumented(&page, settings::ALL), Vec::<String>::new());
}

#[test]
fn a_setting_without_its_section_is_found() {
    let page = "# Ref\n\n### `schedule`\n\n`schedule \"0 6 * * *\"` runs at six.\n\n\
                ### Pod settings\n\n`namespace \"NAME\"` only.\n\n### `start`\n\nThe first day.\n";
    let all: Vec<Setting> = ["schedule", "namespace", "service_account", "start", "image"]
        .iter()
        .map(|n| {
            *settings::ALL
                .iter()
                .find(|s| s.name == *n)
                .expect("a setting")
        })
        .collect();
    assert_eq!(
        undocumented(page, &all),
        vec![
            "service_account: section \"Pod settings\" does not name it",
            "image: no section \"`image`\"",
        ]
    );
}
