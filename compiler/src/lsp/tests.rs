//! Every request on every input of the fuzz corpus (`fuzz/corpus/check/`),
//! at positions all over each file: answered, never a panic.

use std::str::FromStr as _;

use lsp_types as lt;

use super::diagnostics::diagnostics_of;
use super::handlers::code_action::code_actions;
use super::handlers::completion::completion;
use super::handlers::definition::definition;
use super::handlers::documents::apply_change;
use super::handlers::formatting::formatting;
use super::handlers::hover::hover;
use super::handlers::inlay_hints::inlay_hints;
use super::handlers::references::references;
use super::handlers::symbols::symbols;
use super::position::Lines;
use super::Snapshot;
use crate::check::{check, Input, NoImports};

const URI: &str = "file:///corpus/input.flow";

fn snapshot(text: &str) -> Snapshot {
    let outcome = check(
        vec![Input {
            path: "/corpus/input.flow".into(),
            key: "/corpus/input.flow".into(),
            bytes: text.as_bytes().to_vec(),
        }],
        &NoImports,
    );
    let root = outcome.roots[0];
    let uri = lt::Uri::from_str(URI).expect("uri");
    Snapshot {
        outcome,
        file_of: [(URI.to_string(), root)].into_iter().collect(),
        uri_of: [(root, uri)].into_iter().collect(),
    }
}

fn every_request(text: &str) {
    let snap = snapshot(text);
    let uri = lt::Uri::from_str(URI).expect("uri");
    let lines = Lines::new(text);
    let diags = diagnostics_of(&snap, snap.file_of[URI]);
    let whole = lt::Range::new(lt::Position::new(0, 0), lines.position(text.len()));
    symbols(&snap, URI);
    inlay_hints(&snap, URI, whole);
    code_actions(&uri, text, &diags);
    let _ = formatting(text);
    let step = (text.len() / 12).max(1);
    for at in (0..=text.len()).step_by(step) {
        let p = lines.position(at);
        hover(&snap, URI, p);
        definition(&snap, URI, p);
        references(&snap, URI, p, true);
        completion(&snap, URI, text, p);
    }
    // Positions the protocol allows but no text has: past a line, past the end.
    for p in [lt::Position::new(0, 9999), lt::Position::new(99_999, 3)] {
        hover(&snap, URI, p);
        completion(&snap, URI, text, p);
    }
}

#[test]
fn the_fuzz_corpus_never_panics_a_request() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/check");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the fuzz corpus")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(files.len() > 100, "{} files", files.len());
    for f in &files {
        let bytes = std::fs::read(f).expect("read");
        let text = String::from_utf8_lossy(&bytes);
        every_request(&text);
    }
}

#[test]
fn edits_with_positions_inside_characters_and_past_the_end_apply() {
    let mut text = "a😀é\nbc".to_string();
    let edit = |s: (u32, u32), e: (u32, u32), t: &str| lt::TextDocumentContentChangeEvent {
        range: Some(lt::Range::new(
            lt::Position::new(s.0, s.1),
            lt::Position::new(e.0, e.1),
        )),
        range_length: None,
        text: t.into(),
    };
    // Inside the surrogate pair: from the emoji's start.
    apply_change(&mut text, edit((0, 2), (0, 3), "x"));
    assert_eq!(text, "ax\u{e9}\nbc");
    // An end before the start, and a line past the end: no panic, clamped.
    apply_change(&mut text, edit((1, 1), (0, 0), "y"));
    assert_eq!(text, "ax\u{e9}\nbyc");
    apply_change(&mut text, edit((9, 0), (9, 0), "!"));
    assert_eq!(text, "ax\u{e9}\nbyc!");
    apply_change(
        &mut text,
        lt::TextDocumentContentChangeEvent {
            range: None,
            range_length: None,
            text: "whole".into(),
        },
    );
    assert_eq!(text, "whole");
}

#[test]
fn completion_and_hover_read_the_words_of_one_source() {
    use super::words::{words, Place};
    let text =
        "source orders: postgres_table {\n  table \"shop.orders\"\n  mutable\n  pin snapshot\n}\n";
    let snap = snapshot(text);
    let lines = Lines::new(text);
    // Hover on a property: what the word source says it is.
    let at = lines.position(text.find("mutable").expect("mutable") + 2);
    let h = hover(&snap, URI, at).expect("a hover");
    let lt::HoverContents::Markup(m) = h.contents else {
        panic!("markdown")
    };
    assert!(
        m.value.contains("`mutable`") && m.value.contains("source property"),
        "{}",
        m.value
    );
    // Completion at a line start in the block: those same words first.
    let text2 = text.replace("  mutable\n", "  \n");
    let at = Lines::new(&text2).position(text2.find("  \n").expect("blank") + 2);
    let got: Vec<String> = completion(&snap, URI, &text2, at)
        .into_iter()
        .map(|i| i.label)
        .collect();
    let want: Vec<&str> = words(Place::Decl(crate::analyze::model::Role::Source))
        .iter()
        .map(|w| w.name)
        .collect();
    assert_eq!(&got[..want.len()], want.as_slice(), "{got:?}");
    assert!(
        got.contains(&"table".to_string()),
        "the kind's parameters follow: {got:?}"
    );
    // Inside a comment: nothing.
    let text3 = format!("{text}# source ");
    let end = Lines::new(&text3).position(text3.len());
    assert!(completion(&snap, URI, &text3, end).is_empty());
}

#[test]
fn pipeline_and_task_settings_come_from_the_catalog() {
    let text = "pipeline p {\n  schedule \"0 6 * * *\"\n  start 2024-01-01\n  \n  task t {\n    retries 2\n    \n    run command [\"true\"]\n  }\n}\n";
    let snap = snapshot(text);
    let lines = Lines::new(text);
    let labels = |at: usize| -> Vec<String> {
        completion(&snap, URI, text, lines.position(at))
            .into_iter()
            .map(|i| i.label)
            .collect()
    };
    // A blank line of the pipeline: its settings, no task's own.
    let got = labels(text.find("  \n").expect("blank") + 2);
    assert!(got.contains(&"catchup".to_string()), "{got:?}");
    assert!(!got.contains(&"internal_retries".to_string()), "{got:?}");
    // A blank line of the task: the task's settings and statements.
    let got = labels(text.find("    \n").expect("blank") + 4);
    for w in ["internal_retries", "namespace", "read", "run"] {
        assert!(got.contains(&w.to_string()), "{w}: {got:?}");
    }
    assert!(!got.contains(&"schedule".to_string()), "{got:?}");
    // Hover on a setting: the catalog's summary.
    let h = hover(
        &snap,
        URI,
        lines.position(text.find("retries").expect("retries") + 1),
    )
    .expect("a hover");
    let lt::HoverContents::Markup(m) = h.contents else {
        panic!("markdown")
    };
    let summary = crate::analyze::settings::ALL
        .iter()
        .find(|s| s.name == "retries")
        .expect("retries")
        .summary;
    assert!(
        m.value.contains("task setting") && m.value.contains(summary),
        "{}",
        m.value
    );
    // A value is no setting: no hover of one.
    let at = lines.position(text.find("2024").expect("date") + 1);
    assert!(hover(&snap, URI, at).is_none_or(|h| !format!("{h:?}").contains("setting")));
}
