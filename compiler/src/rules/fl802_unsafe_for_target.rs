//! FL802 `unsafe-for-target`: a string the target cannot carry unchanged.
//!
//! Found by the code generators (`codegen`), for the target being built.

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL802,
    check: None,
};

/// The message and help for `task`, which runs `python -m MODULE` (`shown`,
/// as written) that flowc cannot scaffold, for `why`.
pub(crate) fn run_module_unimportable(task: &str, shown: &str, why: &str) -> (String, String) {
    (
        format!("task `{task}` runs `{shown}`, which flowc cannot scaffold: {why}"),
        "run a module of your own: ASCII identifiers that are not Python keywords, in a package that no standard module shares, as in `python -m orders.load`".to_owned(),
    )
}

/// The message and help for `task`, whose scaffold would be `module`, which
/// cannot work for `why`.
pub(crate) fn scaffold_module_unimportable(
    task: &str,
    module: &str,
    why: &str,
) -> (String, String) {
    (
        format!("the scaffold of task `{task}` would be module `{module}`, which cannot work: {why}"),
        "run the task with `python -m MODULE` naming a module of your own, or rename the pipeline or task".to_owned(),
    )
}

/// The help of a problem that is a bug in flowc's analysis.
pub(crate) const ANALYSIS_BUG_HELP: &str = "this is a bug in flowc's analysis; please report it";

/// The help when a process's argument or environment holds a NUL.
pub(crate) const NUL_HELP: &str =
    "a process's arguments and environment cannot hold a NUL character; remove the `\\u{0}`";

/// The help when a task's `env` sets a name flowc sets itself.
pub(crate) const RESERVED_ENV_HELP: &str =
    "rename the variable: names the runtime reads (`FLOW_*` and `FLOWC_*`, except `FLOW_CONN_<NAME>`, `FLOW_TOKEN_<NAME>`, `FLOWC_BATCH_ROWS` and `FLOWC_PROGRESS_SECONDS`) are reserved";

/// The message when command argument `n` of `task` holds a NUL.
pub(crate) fn nul_in_argument(n: usize, task: &str) -> String {
    format!("command argument {n} of task `{task}` holds a NUL character")
}

/// The message when the image of `task` holds a NUL.
pub(crate) fn nul_in_image(task: &str) -> String {
    format!("the image of task `{task}` holds a NUL character")
}

/// The message when env `name` (shown with its NULs escaped) of `task`
/// holds a NUL.
pub(crate) fn nul_in_env(name: &str, task: &str) -> String {
    format!("env `{name}` of task `{task}` holds a NUL character")
}

/// The message when env `name` is one flowc sets itself.
pub(crate) fn reserved_env(name: &str) -> String {
    format!("env `{name}` is set by flowc itself and would be overridden")
}

/// The message when env `name` is one the runtime reads, which flowc
/// reserves although the target does not set it.
pub(crate) fn reserved_env_read(name: &str) -> String {
    format!("env `{name}` is a name the flowc runtime reads, reserved for flowc")
}

/// The message and help for the pipeline name `name`, which Airflow cannot
/// carry (at most `max` characters).
pub(crate) fn airflow_pipeline_name(name: &str, max: usize) -> (String, String) {
    (
        format!("Airflow cannot carry the pipeline name `{name}` as a DAG id and file name"),
        format!("use letters, digits and `_`, at most {max} characters"),
    )
}

/// The message and help for the task name `name`, which Airflow cannot
/// carry (at most `max` characters).
pub(crate) fn airflow_task_name(name: &str, max: usize) -> (String, String) {
    (
        format!("Airflow cannot carry the task name `{name}` as a task id"),
        format!("use letters, digits and `_`, at most {max} characters"),
    )
}

/// The message and help for a start date `date` before year 1.
pub(crate) fn airflow_start_before_year_one(date: &dyn std::fmt::Display) -> (String, String) {
    (
        format!("start `{date}` is before year 1, which Python's dates cannot hold"),
        "start the pipeline on a date from 0001-01-01 on".to_owned(),
    )
}

/// The message and help for a scheduled pipeline with no `start`.
pub(crate) fn airflow_schedule_without_start() -> (String, String) {
    (
        "a scheduled pipeline needs `start` for Airflow".to_owned(),
        "add `start YYYY-MM-DD` to the pipeline".to_owned(),
    )
}

/// The message and help for `task`, which depends on `name`, no task of
/// the pipeline.
pub(crate) fn unknown_upstream(task: &str, name: &str) -> (String, String) {
    (
        format!("task `{task}` depends on `{name}`, which is not a task of the pipeline"),
        ANALYSIS_BUG_HELP.to_owned(),
    )
}

/// The message and help for a `what` (`timeout` or `retry_delay`) of
/// `seconds`, longer than a Python timedelta.
pub(crate) fn airflow_duration_too_long(what: &str, seconds: u64) -> (String, String) {
    (
        format!(
            "a `{what}` of {seconds}s is longer than a Python timedelta holds (999999999 days)"
        ),
        format!("give a shorter `{what}`"),
    )
}

/// The message and help for a timeout of 0s on Airflow.
pub(crate) fn airflow_zero_timeout() -> (String, String) {
    (
        "a timeout of 0s, which Airflow reads as no timeout at all".to_owned(),
        "give a timeout of at least 1s, or none".to_owned(),
    )
}

/// The message and help for `retries` more than Airflow's 32-bit count.
pub(crate) fn airflow_too_many_retries(retries: u32) -> (String, String) {
    (
        format!(
            "`retries {retries}` is more than Airflow's 32-bit retry count holds ({})",
            i32::MAX
        ),
        "give fewer retries".to_owned(),
    )
}

/// The message and help when the Airflow DAG cannot be rendered (`err`).
pub(crate) fn airflow_unrenderable(err: &dyn std::fmt::Display) -> (String, String) {
    (
        format!("cannot render the Airflow DAG: {err}"),
        "this is a bug in flowc; please report it with the .flow file".to_owned(),
    )
}

/// The message and help for `schedule`, which Argo cannot carry unchanged
/// for `why`.
pub(crate) fn argo_schedule(schedule: &str, why: &str) -> (String, String) {
    (
        format!("schedule \"{schedule}\" cannot be carried to Argo unchanged: {why}"),
        "Argo reads schedules with robfig/cron: write Sunday as `0` and use only numbers, \
         names, `*`, `,`, `-` and `/`"
            .to_owned(),
    )
}

/// The message and help for `timezone`, which holds `{{`.
pub(crate) fn argo_timezone_braces(timezone: &str) -> (String, String) {
    (
        format!("timezone \"{timezone}\" contains `{{{{`, which Argo would substitute"),
        "Argo has no escape for `{{`: use an IANA zone name".to_owned(),
    )
}

/// The message and help for `what` (`shown` as written), which holds `{{`.
pub(crate) fn argo_braces(what: &dyn std::fmt::Display, shown: &str) -> (String, String) {
    (
        format!("{what} {shown} contains `{{{{`, which Argo substitutes with no way to escape it"),
        "keep `{{` out of the definition: read the text from a file in the image, or build it \
         at run time (for example `printf '\\173\\173'` in a shell)"
            .to_owned(),
    )
}

/// The message and help for `retries` more than Argo's limit holds.
pub(crate) fn argo_too_many_retries(retries: u32) -> (String, String) {
    (
        format!(
            "`retries {retries}` is more than Argo's `retryStrategy.limit` holds ({})",
            i32::MAX
        ),
        "give fewer retries".to_owned(),
    )
}

/// The message and help for a timeout of `seconds`, more than Argo's
/// `activeDeadlineSeconds` holds.
pub(crate) fn argo_timeout_too_long(seconds: u64) -> (String, String) {
    (
        format!(
            "a timeout of {seconds}s is more than Argo's `activeDeadlineSeconds` holds ({}s)",
            i32::MAX
        ),
        "give a shorter timeout (68 years at the most)".to_owned(),
    )
}

/// The message and help for `task`, which waits `seconds` between retries,
/// more than Argo's backoff (`max` seconds).
pub(crate) fn argo_retry_delay_too_long(task: &str, seconds: u64, max: u64) -> (String, String) {
    (
        format!("task `{task}` waits {seconds}s between retries; Argo's backoff goes up to {max}s"),
        "give a shorter `retry_delay`".to_owned(),
    )
}

/// The message and help for a timeout of 0s on Argo.
pub(crate) fn argo_zero_timeout() -> (String, String) {
    (
        "a timeout of 0s, which Argo cannot express".to_owned(),
        "Argo's `activeDeadlineSeconds` must be positive: give a timeout of at least 1s, or none"
            .to_owned(),
    )
}

/// The message and help for task `task`, whose pods would run in
/// `namespace` while its workflow runs in `workflow` (`None`: the
/// namespace the workflow is submitted to).
pub(crate) fn argo_task_namespace(
    task: &str,
    namespace: &str,
    workflow: Option<&str>,
) -> (String, String) {
    let workflow = workflow.map_or_else(
        || "the namespace it is submitted to".to_owned(),
        |w| format!("`{w}`"),
    );
    (
        format!(
            "task `{task}` asks for namespace `{namespace}`, but Argo runs every pod of a workflow in the workflow's namespace ({workflow})"
        ),
        "set `namespace` on the pipeline for Argo, or move the task to a pipeline of its own".to_owned(),
    )
}
