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
/// its task `task` runs in a container.
pub fn words(pipeline: &str, task: &str, why: &str) -> (String, String) {
    (
        format!(
            "pipeline `{pipeline}` keeps {why} in a local file, but task `{task}` runs in a container: a retry in a new container cannot see it"
        ),
        "name a sink whose kind has `state` with `state NAME` (in the standard library: `postgres_table`, `delta_table`, `iceberg_table`, `kafka_topic`), or run the pipeline's tasks as local processes".to_owned(),
    )
}
