//! FL803 `name-collision`: two names that become one after conversion to a target's naming rules.
//!
//! Found by the code generators (`codegen`), for the target being built.

use super::Rule;
use crate::diagnostic::Code;

pub const RULE: Rule = Rule {
    code: Code::FL803,
    check: None,
};

/// The message and help for `task`, which runs `module` inside the
/// generated `flowc_runtime` package.
pub(crate) fn module_inside_runtime(task: &str, module: &str) -> (String, String) {
    (
        format!(
            "task `{task}` runs module `{module}`, inside the generated `flowc_runtime` package"
        ),
        "run the task from a module outside `flowc_runtime`".to_owned(),
    )
}

/// The message and help for tasks `other` and `this` (each
/// `pipeline.task`), where `module` of one is `transform`, the other's
/// transform.
pub(crate) fn module_is_transform(
    other: &str,
    this: &str,
    module: &str,
    transform: &str,
) -> (String, String) {
    (
        format!(
            "the modules of tasks `{other}` and `{this}` clash: one's module is the other's transform (`{module}` and `{transform}`)"
        ),
        "give the tasks modules that do not end in the other's name plus `_transform`".to_owned(),
    )
}

/// The message and help for tasks `other` and `this` (each
/// `pipeline.task`), where one's module is the package the other sits in.
pub(crate) fn module_is_package(other: &str, this: &str) -> (String, String) {
    (
        format!(
            "the modules of tasks `{other}` and `{this}` clash: one is the package the other sits in"
        ),
        "a module cannot also be a package: give the tasks modules that do not nest, as `orders.load` and `orders.report`".to_owned(),
    )
}

/// The message and help for tasks `other` and `this` (each
/// `pipeline.task`), whose modules `other_module` and `module` differ only
/// in case.
pub(crate) fn modules_differ_in_case(
    other: &str,
    this: &str,
    other_module: &str,
    module: &str,
) -> (String, String) {
    (
        format!(
            "the modules of tasks `{other}` and `{this}`, `{other_module}` and `{module}`, differ only in case: on a file system that ignores case they are one file"
        ),
        "give the tasks modules whose names differ in more than case".to_owned(),
    )
}

/// The message and help for tasks `other` and `this` (each
/// `pipeline.task`), which both run `module`.
pub(crate) fn module_run_twice(other: &str, this: &str, module: &str) -> (String, String) {
    (
        format!("tasks `{other}` and `{this}` both run module `{module}`"),
        "give each task its own module in `run command [\"python\", \"-m\", ...]`".to_owned(),
    )
}

/// The message and help for endpoints `first` and `name`, which would share
/// the connection variable `var`.
pub(crate) fn shared_connection(first: &str, name: &str, var: &str) -> (String, String) {
    (
        format!("`{first}` and `{name}` would share the connection variable `{var}`"),
        "rename one of them: the runtime finds each source, sink and effect's connection in `FLOW_CONN_` plus its name in upper case".to_owned(),
    )
}

/// The message, the label at `other`'s name and the help when pipelines
/// `other` and `pipeline` of different `.flow` files `what` (such as "would
/// both write `x.py`"); `scaffold` when the clash is between task modules of
/// a Python scaffold.
pub(crate) fn pipelines_clash(
    other: &str,
    pipeline: &str,
    what: &str,
    scaffold: bool,
) -> (String, String, &'static str) {
    let help = if scaffold {
        "give the tasks modules of their own in `run command [\"python\", \"-m\", ...]`, neither inside nor beside the other's"
    } else {
        "rename one of the pipelines, so each output has one owner"
    };
    (
        format!("pipelines `{other}` and `{pipeline}` {what}"),
        format!("`{other}` is here"),
        help,
    )
}

/// Why a DAG file for pipeline `name` would break the DAG folder: it would
/// overwrite the operator module (`operator`), or hide a module of that name.
pub(crate) fn airflow_shadowed_module(name: &str, operator: bool) -> String {
    if operator {
        "which would overwrite the operator module flowc emits for Airflow".to_owned()
    } else {
        format!("which would hide the module `{name}` from every DAG in the folder")
    }
}

/// The message and help for pipeline `name`, whose DAG file would break the
/// DAG folder for `why`.
pub(crate) fn airflow_dag_file_shadows(name: &str, why: &str) -> (String, String) {
    (
        format!("pipeline `{name}` would be written to `{name}.py`, {why}"),
        "rename the pipeline: the DAG folder is on Python's import path, so a DAG file may not take the name of a module the DAGs import".to_owned(),
    )
}

/// The message and help for two pipelines named `name`.
pub(crate) fn airflow_pipeline_twice(name: &str) -> (String, String) {
    (
        format!("two pipelines named `{name}` would both be written to `{name}.py`"),
        "give every pipeline its own name".to_owned(),
    )
}

/// The message and help for pipelines `first` and `name`, whose DAG files
/// differ only in case.
pub(crate) fn airflow_pipelines_differ_in_case(first: &str, name: &str) -> (String, String) {
    (
        format!(
            "pipelines `{first}` and `{name}` would be written to `{first}.py` and `{name}.py`, one file where the file system ignores case"
        ),
        "rename one of the pipelines, so their names differ in more than case".to_owned(),
    )
}

/// The message and help for pipelines `first` and `pipeline`, which both
/// become the Argo name `name`.
pub(crate) fn argo_pipelines_one_name(first: &str, pipeline: &str, name: &str) -> (String, String) {
    (
        format!("pipelines `{first}` and `{pipeline}` both become the Argo name `{name}`"),
        "Argo names are lowercase with `-` for `_`: rename one of the pipelines".to_owned(),
    )
}

/// The message and help for `pipeline`, which cannot become the name of an
/// Argo `api_kind` (at most `max_name` characters), for `why`.
pub(crate) fn argo_pipeline_name(
    pipeline: &str,
    api_kind: &str,
    max_name: usize,
    why: &str,
) -> (String, String) {
    (
        format!("pipeline `{pipeline}` cannot become an Argo {api_kind} name: {why}"),
        format!(
            "rename the pipeline: Argo needs a DNS-1123 name (lowercase letters, digits and `-`, \
             starting and ending with a letter or digit, at most {max_name} characters)"
        ),
    )
}

/// The message and help for tasks `first` and `task`, which both become the
/// Argo name `converted`.
pub(crate) fn argo_tasks_one_name(first: &str, task: &str, converted: &str) -> (String, String) {
    (
        format!("tasks `{first}` and `{task}` both become the Argo name `{converted}`"),
        "Argo names are lowercase with `-` for `_` here: rename one of the tasks".to_owned(),
    )
}

/// The message and help for `task`, which cannot become an Argo task name,
/// for `why`.
pub(crate) fn argo_task_name(task: &str, why: &str) -> (String, String) {
    (
        format!("task `{task}` cannot become an Argo task name: {why}"),
        "rename the task: Argo task names are letters, digits and `-`, starting with a letter or digit"
            .to_owned(),
    )
}

/// The message and help for pipelines `first` and `name`, whose IR dumps
/// differ only in case.
pub(crate) fn ir_pipelines_differ_in_case(first: &str, name: &str) -> (String, String) {
    (
        format!(
            "pipelines `{first}` and `{name}` would be written to `{first}.ir.json` and `{name}.ir.json`, one file where the file system ignores case"
        ),
        "rename one of the pipelines, so their names differ in more than case".to_owned(),
    )
}
