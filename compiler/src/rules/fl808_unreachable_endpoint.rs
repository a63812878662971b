//! FL808 `unreachable-endpoint`: an effect emitted by a task that runs in a container, with no way for the container to reach the effect's endpoint.
//!
//! Found by `flowc build` and `flowc check --target` (`codegen::reach`) for
//! Argo (every task) and Airflow (a task that runs in a pod): the check reads
//! the IR, and its words are here.

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL808,
    check: None,
};

/// The message and help of FL808 for `emit effect` (of kind `kind`) in task
/// `task`, which runs in a container on `target`, where nothing sets the
/// effect's connection variable `var`.
pub fn words(task: &str, effect: &str, kind: &str, var: &str, target: &str) -> (String, String) {
    let token = var.replacen("FLOW_CONN_", "FLOW_TOKEN_", 1);
    (
        format!(
            "task `{task}` runs in a container on {target}, and nothing gives it the endpoint of `emit {effect}` ({kind}): no `secret`, no `url`, and no `{var}` in its `env`, so every attempt fails when it sends"
        ),
        format!(
            "add `secret \"NAME\"` to effect `{effect}`: a Kubernetes Secret whose key `url` reaches the pod as `{var}` (and whose key `token`, if it has one, as `{token}`); or give the kind a `url` parameter; or, if the image sets `{var}` itself, `allow FL808 because \"...\"`"
        ),
    )
}
