//! FL808 at `flowc build` and `flowc check --target`: an effect emitted by a
//! task that runs in a container, whose endpoint nothing gives the container.
//! The runtime finds an effect's endpoint in `FLOW_CONN_<NAME>`, else in its
//! `url` parameter; in a container `FLOW_CONN_<NAME>` is set only by the
//! effect's `secret` (a Kubernetes Secret) or by the task's `env`.

use super::ir::{Pipeline, Task};
use super::{At, TargetProblem};
use crate::diagnostic::Code;

/// FL808 for every effect a task of `pipelines` that runs in a container
/// (`in_container`, on `target`) emits without a way to reach it, once per
/// task and effect, at the `emit`.
pub fn problems(
    pipelines: &[Pipeline],
    in_container: fn(&Task) -> bool,
    target: &str,
) -> Vec<TargetProblem> {
    let mut out = Vec::new();
    for p in pipelines {
        for t in p.tasks.iter().filter(|t| in_container(t)) {
            let mut seen: Vec<&str> = Vec::new();
            for e in &t.emits {
                let effect = &e.effect;
                if seen.contains(&effect.name.as_str()) {
                    continue;
                }
                seen.push(&effect.name);
                let var = format!("FLOW_CONN_{}", effect.name.to_uppercase());
                let reachable = effect.params.contains_key("url")
                    || t.secrets.iter().any(|s| s.name == var)
                    || t.env.iter().any(|v| v.name == var);
                if reachable {
                    continue;
                }
                let (message, help) =
                    crate::rules::fl808_words(&t.name, &effect.name, &effect.kind, &var, target);
                out.push(TargetProblem {
                    code: Code::FL808,
                    pipeline: p.name.clone(),
                    task: Some(t.name.clone()),
                    message,
                    help,
                    at: At::Emit(effect.name.clone()),
                });
            }
        }
    }
    out
}
