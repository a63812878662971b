//! FL806 `no-durable-state`: a pipeline that keeps state in a local file while a task runs in a container.
//!
//! Found by `flowc build` (`codegen::durable_state`), for every target: the
//! check reads the IR, and its words are here.

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL806,
    check: None,
};

/// The message and help of FL806 for `pipeline`, whose state (needed for
/// `why`, such as "the pin of `read raw`") would live in a local file while
/// its task `task` runs in a container. `store` names the sink chosen as the
/// state store when its kind has no runtime for flowc's state (`kafka_topic`):
/// the runtime then keeps the state in the local file too. `durable` lists
/// the kinds the runtime keeps state in.
pub fn words(
    pipeline: &str,
    task: &str,
    why: &str,
    store: Option<(&str, &str)>,
    durable: &[&str],
) -> (String, String) {
    let place = match store {
        Some((sink, kind)) => format!(
            "in a local file (its state store `{sink}` is a {kind}, where flowc's runtime cannot keep state yet)"
        ),
        None => "in a local file".to_owned(),
    };
    (
        format!(
            "pipeline `{pipeline}` keeps {why} {place}, but task `{task}` runs in a container: a retry in a new container cannot see it"
        ),
        format!(
            "name a sink whose kind the runtime keeps state in with `state NAME` (in the standard library: {}), or run the pipeline's tasks as local processes",
            durable
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}
