//! FL807 `no-catchup-on-target`: `build --target argo` of a scheduled
//! pipeline with an interval-scoped read. Argo runs no missed interval, and
//! the input of an interval that never runs is never read.
//!
//! Found by the code generators (`codegen::argo`), for the target being
//! built; the words and the test of a parameter string are here.

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL807,
    check: None,
};

/// Whether a parameter string names an interval: it holds a `{interval...}`
/// placeholder (`{interval.start}`, `{interval.end}`, `{interval.date}`,
/// with or without a format). A doubled `{{` is a literal brace and starts
/// none.
pub(crate) fn interval_scoped(value: &str) -> bool {
    crate::analyze::literal::template_has_interval_placeholder(value)
}

/// The message and help of FL807 for pipeline `pipeline`, whose reads of
/// `sources` (the interval-scoped ones, in order) follow the interval.
pub(crate) fn words(pipeline: &str, sources: &[&str]) -> (String, String) {
    let names = sources
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let message = format!(
        "pipeline `{pipeline}` reads {names} one interval at a time, and Argo has no catch-up: an interval whose tick is missed never runs, and its input is never read"
    );
    let help = "after the controller was down or the CronWorkflow suspended, run the missed intervals with `flowc backfill --from DATE --to DATE`, oldest first, or build for Airflow, which catches up".to_string();
    (message, help)
}

#[cfg(test)]
mod tests {
    use super::interval_scoped;

    #[test]
    fn placeholders_of_the_interval_count_and_literal_braces_do_not() {
        for scoped in [
            "lake/{interval.start}/",
            "dt={interval.date}",
            "{interval.end:%Y}",
            "a{{b}}{interval.start}",
        ] {
            assert!(interval_scoped(scoped), "{scoped}");
        }
        for plain in [
            "lake/orders/",
            "{{interval.start}}",
            "{intervals}",
            "{other.start}",
            "",
        ] {
            assert!(!interval_scoped(plain), "{plain}");
        }
    }
}
