//! `flowc fmt` never changes meaning: on every example and fixture the
//! syntax tree (spans aside) and the findings of `check` are the same before
//! and after, and formatting twice changes nothing more.

use crate::common;

use flowc::invariants::{findings, strip_spans};
use flowc::source::FileId;

#[test]
fn formatting_keeps_meaning_and_is_idempotent() {
    let mut files = common::flow_files("examples");
    files.extend(common::flow_files("tests"));
    let mut formatted = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).expect("utf-8 file");
        let (before, _) = flowc::syntax::parse(FileId(0), &text);
        let Ok(once) = flowc::format::format(&text) else {
            // Only files that do not parse may be refused.
            assert!(before.is_none(), "{f} parses but fmt refused it");
            continue;
        };
        formatted += 1;
        assert_eq!(
            flowc::format::format(&once).as_deref(),
            Ok(once.as_str()),
            "{f}: not idempotent"
        );
        let (after, _) = flowc::syntax::parse(FileId(0), &once);
        assert_eq!(
            before.is_some(),
            after.is_some(),
            "{f}: parses before xor after"
        );
        if let (Some(b), Some(a)) = (before, after) {
            assert_eq!(
                strip_spans(&format!("{b:?}")),
                strip_spans(&format!("{a:?}")),
                "{f}: the tree changed"
            );
        }
        assert_eq!(
            findings(&text),
            findings(&once),
            "{f}: the findings changed"
        );
    }
    assert!(formatted > 100, "only {formatted} files formatted");
}

#[test]
fn the_strip_is_not_vacuous() {
    let (a, _) = flowc::syntax::parse(FileId(0), "source a: files {\n  path \"x\"\n}\n");
    let (b, _) = flowc::syntax::parse(FileId(0), "source b: files {\n  path \"x\"\n}\n");
    assert_ne!(
        strip_spans(&format!("{a:?}")),
        strip_spans(&format!("{b:?}"))
    );
}
