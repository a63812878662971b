//! Every rule has a fixture that triggers it and a near miss that does not;
//! the rendered diagnostics of the trigger are snapshotted (source, then
//! human output, then JSON), gleam-style.

use crate::common;

use flowc::diagnostic::Code;

const FIXTURES: &str = "tests/fixtures/rules";

/// One test per rule of the catalog, named by its code (`rules::FL201`):
/// `cargo test --test it rules::FL201` runs one rule's fixtures.
macro_rules! one_test_per_rule {
    ($($code:ident $module:ident $name:literal $severity:ident $summary:literal;)*) => {
        $(
            #[test]
            #[allow(non_snake_case)]
            fn $code() {
                rule(Code::$code);
            }
        )*
    };
}

flowc::catalog!(one_test_per_rule);

/// A rule found by a code generator (`FL8xx`) is tested with its target, by
/// the tests of `compiler/tests/it` that build for it; the others here.
fn rule(code: Code) {
    if code.as_str().starts_with("FL8") {
        target_rule(code);
    } else {
        fixtures(code);
    }
}

/// The rule's fixtures: `trigger.flow` fires it, `clean.flow` (a near miss)
/// does not, and the trigger's rendered diagnostics match the snapshot
/// beside them (source, then human output, then JSON).
fn fixtures(code: Code) {
    common::at_root();
    let trigger = format!("{FIXTURES}/{code}/trigger.flow");
    let clean = format!("{FIXTURES}/{code}/clean.flow");
    for f in [&trigger, &clean] {
        assert!(std::path::Path::new(f).exists(), "{f} is missing");
    }
    let t = common::check(&[&trigger]);
    assert!(
        common::codes(&t).contains(&code.as_str()),
        "{trigger}: expected {code}, got {:?}",
        common::codes(&t)
    );
    let c = common::check(&[&clean]);
    assert!(
        !common::codes(&c).contains(&code.as_str()),
        "{clean}: {code} fired: {:?}",
        common::codes(&c)
    );
    let source = std::fs::read_to_string(&trigger).unwrap_or_default();
    let snap = format!(
        "SOURCE\n{source}\nHUMAN\n{}\nJSON\n{}",
        common::human(&t),
        common::json(&t)
    );
    // Each rule's snapshot sits beside its fixtures (the path is from this
    // file's folder, `compiler/tests/it`).
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(format!("../../../{FIXTURES}/{code}"));
    settings.bind(|| {
        insta::assert_snapshot!(format!("{}_{}", code.as_str(), code.name()), snap);
    });
}

/// A test of the targets' names the rule, outside this file.
fn target_rule(code: Code) {
    let named: Vec<String> = common::files_with_extension("compiler/tests/it", "rs")
        .into_iter()
        .filter(|f| !f.ends_with("/rules.rs"))
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap_or_default()
                .contains(code.as_str())
        })
        .collect();
    assert!(
        !named.is_empty(),
        "{code} is found by a code generator, and no test of compiler/tests/it names it"
    );
}
