//! Every rule has a fixture that triggers it and a near miss that does not;
//! the rendered diagnostics of the trigger are snapshotted (source, then
//! human output, then JSON), gleam-style.

use crate::common;

use flowc::diagnostic::Code;

const FIXTURES: &str = "tests/fixtures/rules";

/// Codes found by code generators, tested with their targets.
fn is_target_code(code: &str) -> bool {
    code.starts_with("FL8")
}

#[test]
fn every_rule_has_two_fixtures() {
    common::at_root();
    let mut missing = Vec::new();
    for r in Code::ALL.iter().filter(|r| !is_target_code(r.as_str())) {
        for f in ["trigger.flow", "clean.flow"] {
            let p = format!("{FIXTURES}/{}/{f}", r.as_str());
            if !std::path::Path::new(&p).exists() {
                missing.push(p);
            }
        }
    }
    assert!(missing.is_empty(), "missing fixtures: {missing:#?}");
}

#[test]
fn triggers_fire_and_near_misses_do_not() {
    common::at_root();
    let mut failures = Vec::new();
    for r in Code::ALL.iter().filter(|r| !is_target_code(r.as_str())) {
        let trigger = format!("{FIXTURES}/{}/trigger.flow", r.as_str());
        let clean = format!("{FIXTURES}/{}/clean.flow", r.as_str());
        assert!(
            std::path::Path::new(&trigger).exists(),
            "{trigger} is missing"
        );
        let t = common::check(&[&trigger]);
        if !common::codes(&t).contains(&r.as_str()) {
            failures.push(format!(
                "{trigger}: expected {}, got {:?}",
                r.as_str(),
                common::codes(&t)
            ));
        }
        let c = common::check(&[&clean]);
        if common::codes(&c).contains(&r.as_str()) {
            failures.push(format!(
                "{clean}: {} fired: {:?}",
                r.as_str(),
                common::codes(&c)
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn trigger_snapshots() {
    common::at_root();
    for r in Code::ALL.iter().filter(|r| !is_target_code(r.as_str())) {
        let trigger = format!("{FIXTURES}/{}/trigger.flow", r.as_str());
        assert!(
            std::path::Path::new(&trigger).exists(),
            "{trigger} is missing"
        );
        let o = common::check(&[&trigger]);
        let source = std::fs::read_to_string(&trigger).unwrap_or_default();
        let snap = format!(
            "SOURCE\n{source}\nHUMAN\n{}\nJSON\n{}",
            common::human(&o),
            common::json(&o)
        );
        // Each rule's snapshot sits beside its fixtures (the path is from
        // this file's folder, `compiler/tests/it`).
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(format!("../../../{FIXTURES}/{}", r.as_str()));
        settings.bind(|| {
            insta::assert_snapshot!(format!("{}_{}", r.as_str(), r.name()), snap);
        });
    }
}
