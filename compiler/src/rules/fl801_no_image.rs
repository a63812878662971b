//! FL801 `no-image`: a task with no container image, built for a target that needs one.
//!
//! Found by the code generators (`codegen`), for the target being built.

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL801,
    check: None,
};

/// The message and help for `task`, which has no image, built for Argo.
pub(crate) fn no_image_on_argo(task: &str) -> (String, String) {
    (
        format!("task `{task}` has no image, and Argo runs every task in a container"),
        "add `run image \"REF\" command [..]` to the task, or `image \"REF\"` to the pipeline"
            .to_owned(),
    )
}
