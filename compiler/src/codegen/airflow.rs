//! The Airflow 3 target: one DAG file per pipeline, `<pipeline>.py`, plus the
//! operator module [`OPERATOR_MODULE`] once per output folder.
//!
//! Templates live in `templates/airflow/` and are embedded at compile time.
//! Every user string reaches a template through the `py_str` helper (a
//! Python string literal) and every Python name through `py_ident`.

use crate::diagnostic::Code;
use std::collections::{BTreeSet, HashMap};

use handlebars::Handlebars;
use serde::Serialize;

use super::helpers::{checked, py_str_helper};
use super::ir::{Pipeline, Task};
use super::python_names::is_plain_identifier;
use super::{At, GeneratedFile, TargetProblem};
use crate::rules::{fl802, fl803};
use crate::vocab::OnAmbiguous;

/// The module every generated DAG imports. Its leading underscore keeps it
/// apart from pipeline files unless a pipeline is named `_flowc_airflow`,
/// which is reported (FL803).
pub const OPERATOR_MODULE: &str = "_flowc_airflow";

const DAG_TEMPLATE: &str = include_str!("../../../templates/airflow/dag.py.hbs");
const TASK_TEMPLATE: &str = include_str!("../../../templates/airflow/task.py.hbs");
const EDGE_TEMPLATE: &str = include_str!("../../../templates/airflow/edge.py.hbs");
const OPERATOR_SOURCE: &str = include_str!("../../../templates/airflow/_flowc_airflow.py");

/// Module-level names the DAG template itself uses; a task variable must
/// not shadow them.
const GENERATED_NAMES: &[&str] = &[
    "datetime",
    "pendulum",
    "DAG",
    "CronDataIntervalTimetable",
    "flowc",
];

/// Up to this many tasks, edges are written `a >> b`, as every Airflow user
/// reads them; a larger DAG records its edges with `flowc.set_upstream`,
/// since each `>>` hashes the whole DAG (templates/airflow/README.md): a
/// 200-task DAG spends about a millisecond on them, a 5,000-task one 0.4 s.
const RSHIFT_MAX_TASKS: usize = 200;

/// Airflow's limit on `dag_id` and `task_id`.
const MAX_AIRFLOW_ID: usize = 250;

/// Render every pipeline for Airflow 3. Returns the problems instead when a
/// pipeline cannot be emitted unchanged (names Airflow rejects, a start
/// date Python cannot hold, a clash with the operator module).
pub fn generate(pipelines: &[Pipeline]) -> Result<Vec<GeneratedFile>, Vec<TargetProblem>> {
    let mut problems = Vec::new();
    let mut views = Vec::new();
    let mut seen_files: HashMap<String, &str> = HashMap::new();
    for pipeline in pipelines {
        let before = problems.len();
        check_names(pipeline, &mut problems);
        if let Some(why) = shadowed_module(&pipeline.name) {
            let (message, help) = fl803::airflow_dag_file_shadows(&pipeline.name, &why);
            problems.push(problem(Code::FL803, pipeline, None, message, help));
        }
        // DAG files whose names differ only in case are one file where the
        // file system ignores case (macOS, Windows).
        match seen_files.get(&pipeline.name.to_lowercase()) {
            Some(first) if *first == pipeline.name => {
                let (message, help) = fl803::airflow_pipeline_twice(&pipeline.name);
                problems.push(problem(Code::FL803, pipeline, None, message, help));
            }
            Some(first) => {
                let (message, help) =
                    fl803::airflow_pipelines_differ_in_case(first, &pipeline.name);
                problems.push(problem(Code::FL803, pipeline, None, message, help));
            }
            None => {
                seen_files.insert(pipeline.name.to_lowercase(), &pipeline.name);
            }
        }
        let view = DagView::new(pipeline, &mut problems);
        if problems.len() == before {
            views.push((pipeline, view));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }

    let registry = registry();
    let mut files = Vec::with_capacity(views.len() + 1);
    for (pipeline, view) in views {
        // The module's head, then every task's operator and every task's
        // upstream edges, each rendered on its own (see [`super::render_each`]).
        let rendered = registry.render("dag", &view).and_then(|head| {
            let tasks = super::render_each(&registry, "task", &view.task_views, "")?;
            let edges = super::render_each(&registry, "edge", &view.edges, "")?;
            Ok((head, tasks.into_iter().chain(edges).collect()))
        });
        match rendered {
            Ok((contents, more)) => files.push(GeneratedFile {
                path: format!("{}.py", pipeline.name),
                contents,
                more,
                pipeline: Some(pipeline.name.clone()),
                // Two files of one run may not write DAG files whose names
                // differ only in case either.
                claim: Some(format!(
                    "the DAG file `{}.py` where the file system ignores case",
                    pipeline.name.to_lowercase()
                )),
                write: super::WritePolicy::Always,
            }),
            Err(err) => {
                let (message, help) = fl802::airflow_unrenderable(&err);
                problems.push(problem(Code::FL802, pipeline, None, message, help));
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    if !files.is_empty() {
        files.push(GeneratedFile::new(
            format!("{OPERATOR_MODULE}.py"),
            OPERATOR_SOURCE.to_owned(),
        ));
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// Third-party modules every generated DAG imports.
const DAG_IMPORTS: [&str; 2] = ["airflow", "pendulum"];

/// Why a DAG file `<name>.py` would break the DAG folder, if it would:
/// Airflow puts the folder first on `sys.path`, so a file there named like
/// a module hides that module from every DAG (a pipeline `datetime` would
/// break the others' `import datetime`).
fn shadowed_module(name: &str) -> Option<String> {
    if name == OPERATOR_MODULE {
        Some(fl803::airflow_shadowed_module(name, true))
    } else if DAG_IMPORTS.contains(&name) || super::python_names::TAKEN.contains(&name) {
        // The standard library, what the DAGs import, what the task runtime
        // imports.
        Some(fl803::airflow_shadowed_module(name, false))
    } else {
        None
    }
}

/// The longest `datetime.timedelta`, in whole seconds.
const TIMEDELTA_MAX_SECONDS: u64 = 999_999_999 * 86_400 + 86_399;

fn problem(
    code: Code,
    pipeline: &Pipeline,
    task: Option<&Task>,
    message: String,
    help: String,
) -> TargetProblem {
    TargetProblem {
        code,
        pipeline: pipeline.name.clone(),
        task: task.map(|t| t.name.clone()),
        message,
        help,
        at: At::Name,
    }
}

/// Airflow ids: letters, digits, `_`, `.` and `-`, at most 250 characters.
/// A pipeline name is also a file name, so it may not start with a dot.
fn is_airflow_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_AIRFLOW_ID
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

fn check_names(pipeline: &Pipeline, problems: &mut Vec<TargetProblem>) {
    if !is_airflow_id(&pipeline.name) || pipeline.name.starts_with('.') {
        let (message, help) = fl802::airflow_pipeline_name(&pipeline.name, MAX_AIRFLOW_ID);
        problems.push(problem(Code::FL802, pipeline, None, message, help));
    }
    for task in &pipeline.tasks {
        if !is_airflow_id(&task.name) {
            let (message, help) = fl802::airflow_task_name(&task.name, MAX_AIRFLOW_ID);
            problems.push(problem(Code::FL802, pipeline, Some(task), message, help));
        }
    }
}

/// One run parameter as an Airflow `Param`: its JSON Schema type.
#[derive(Serialize)]
struct ParamView<'a> {
    name: &'a str,
    schema_type: &'static str,
    optional: bool,
}

#[derive(Serialize)]
struct DagView<'a> {
    source_file: &'a str,
    pipeline: &'a str,
    module: &'static str,
    cron: Option<&'a str>,
    timezone: &'a str,
    start: Option<StartView>,
    catchup: bool,
    /// `params={...}`: the pipeline's run parameters.
    params: Vec<ParamView<'a>>,
    has_tasks: bool,
    /// The tasks' operators and edges end the module: each is rendered on
    /// its own (see [`super::render_each`]) and appended.
    #[serde(skip)]
    task_views: Vec<TaskView<'a>>,
    #[serde(skip)]
    edges: Vec<EdgeView>,
}

#[derive(Serialize)]
struct StartView {
    year: i16,
    month: i8,
    day: i8,
}

#[derive(Serialize)]
struct TaskView<'a> {
    var: String,
    name: &'a str,
    operator: &'static str,
    image: Option<&'a str>,
    command: &'a [String],
    env: Vec<EnvView<'a>>,
    on_ambiguous: &'static str,
    retries: u32,
    retry_delay_seconds: u64,
    has_timeout: bool,
    timeout_seconds: u64,
    /// The pod operator's settings (flowc 0.2); all empty for a local process.
    namespace: Option<&'a str>,
    service_account: Option<&'a str>,
    has_resources: bool,
    cpu: Option<&'a str>,
    memory: Option<&'a str>,
    labels: Vec<EnvView<'a>>,
    annotations: Vec<EnvView<'a>>,
    image_pull_policy: Option<&'a str>,
    /// Pod: `FLOW_CONN_<DECL>` from a Kubernetes Secret.
    secrets: Vec<EnvView<'a>>,
    /// Local process: `FLOW_CONN_<DECL>` from an Airflow Connection.
    connections: Vec<EnvView<'a>>,
    /// `doc_md`, one string literal per line (see [`super::notes::doc_md`]).
    doc_md: Vec<String>,
    /// A comment above `on_ambiguous="fail"`: why the task does not retry.
    fail_why: Option<String>,
}

#[derive(Serialize)]
struct EnvView<'a> {
    name: &'a str,
    value: &'a str,
}

#[derive(Serialize)]
struct EdgeView {
    /// The first edge of the module, after a blank line.
    first: bool,
    /// `upstream >> task`, as one writes it by hand; else
    /// `flowc.set_upstream(task, [upstream])` (see [`RSHIFT_MAX_TASKS`]).
    rshift: bool,
    /// More than one upstream task: `[a, b] >> task`.
    several: bool,
    upstream: Vec<String>,
    downstream: String,
}

impl<'a> DagView<'a> {
    fn new(pipeline: &'a Pipeline, problems: &mut Vec<TargetProblem>) -> Self {
        let cron = pipeline.schedule.as_ref().map(|s| s.cron.as_str());
        let start = pipeline.start.and_then(|date| {
            if date.year() < 1 {
                let (message, help) = fl802::airflow_start_before_year_one(&date);
                problems.push(problem(Code::FL802, pipeline, None, message, help));
                None
            } else {
                Some(StartView {
                    year: date.year(),
                    month: date.month(),
                    day: date.day(),
                })
            }
        });
        if cron.is_some() && pipeline.start.is_none() {
            let (message, help) = fl802::airflow_schedule_without_start();
            problems.push(problem(Code::FL802, pipeline, None, message, help));
        }

        let vars = task_variables(&pipeline.tasks);
        let var_of: HashMap<&str, &String> = pipeline
            .tasks
            .iter()
            .map(|t| t.name.as_str())
            .zip(&vars)
            .collect();
        let mut edges = Vec::new();
        for (task, var) in pipeline.tasks.iter().zip(&vars) {
            let mut upstream = Vec::with_capacity(task.upstream.len());
            for name in &task.upstream {
                if let Some(v) = var_of.get(name.as_str()) {
                    upstream.push((*v).clone());
                } else {
                    let (message, help) = fl802::unknown_upstream(&task.name, name);
                    problems.push(problem(Code::FL802, pipeline, Some(task), message, help));
                }
            }
            if !upstream.is_empty() {
                edges.push(EdgeView {
                    first: edges.is_empty(),
                    rshift: pipeline.tasks.len() <= RSHIFT_MAX_TASKS,
                    several: upstream.len() > 1,
                    upstream,
                    downstream: var.clone(),
                });
            }
        }

        for task in &pipeline.tasks {
            // Python's timedelta holds under a billion days; Airflow keeps
            // the retry count in a 32-bit database column.
            let durations = [
                ("timeout", task.timeout_seconds),
                ("retry_delay", Some(task.retry_delay_seconds)),
            ];
            for (what, seconds) in durations {
                if let Some(s) = seconds.filter(|s| *s > TIMEDELTA_MAX_SECONDS) {
                    let (message, help) = fl802::airflow_duration_too_long(what, s);
                    let mut found = problem(Code::FL802, pipeline, Some(task), message, help);
                    if what == "timeout" {
                        found.at = At::Timeout;
                    }
                    problems.push(found);
                }
            }
            if task.timeout_seconds == Some(0) {
                let (message, help) = fl802::airflow_zero_timeout();
                let mut found = problem(Code::FL802, pipeline, Some(task), message, help);
                found.at = At::Timeout;
                problems.push(found);
            }
            // `_flowc_airflow.flow_env` sets the first six.
            for (message, help, at) in
                super::process_problems(task, &super::FLOW_ENV[..6], &pipeline.params)
            {
                let mut found = problem(Code::FL802, pipeline, Some(task), message, help.into());
                found.at = at;
                problems.push(found);
            }
            if i32::try_from(task.retries).is_err() {
                let (message, help) = fl802::airflow_too_many_retries(task.retries);
                let mut found = problem(Code::FL802, pipeline, Some(task), message, help);
                found.at = At::Retries;
                problems.push(found);
            }
        }

        let tasks: Vec<TaskView<'a>> = pipeline
            .tasks
            .iter()
            .zip(vars)
            .map(|(task, var)| {
                let pod = runs_in_pod(task);
                let pairs = |m: &'a std::collections::BTreeMap<String, String>| {
                    m.iter()
                        .map(|(k, v)| EnvView { name: k, value: v })
                        .collect::<Vec<_>>()
                };
                let secrets: Vec<EnvView<'a>> = task
                    .secrets
                    .iter()
                    .map(|s| EnvView {
                        name: &s.name,
                        value: &s.secret,
                    })
                    .collect();
                // A local process reads its connections from Airflow
                // Connections; an effect's token only reaches pods.
                let (secrets, connections) = if pod {
                    (secrets, Vec::new())
                } else {
                    let conns = secrets
                        .into_iter()
                        .filter(|s| !s.name.starts_with(super::ir::TOKEN_PREFIX))
                        .collect();
                    (Vec::new(), conns)
                };
                let p = &task.pod;
                TaskView {
                    var,
                    name: &task.name,
                    operator: if pod {
                        "FlowPodOperator"
                    } else {
                        "FlowSubprocessOperator"
                    },
                    image: task.image.as_deref().filter(|_| pod),
                    namespace: p.namespace.as_deref().filter(|_| pod),
                    service_account: p.service_account.as_deref().filter(|_| pod),
                    has_resources: pod && (p.cpu.is_some() || p.memory.is_some()),
                    cpu: p.cpu.as_deref(),
                    memory: p.memory.as_deref(),
                    labels: if pod { pairs(&p.labels) } else { Vec::new() },
                    annotations: if pod {
                        pairs(&p.annotations)
                    } else {
                        Vec::new()
                    },
                    image_pull_policy: p.image_pull_policy.as_deref().filter(|_| pod),
                    secrets,
                    connections,
                    command: &task.command,
                    env: task
                        .env
                        .iter()
                        .map(|e| EnvView {
                            name: &e.name,
                            value: &e.value,
                        })
                        .collect(),
                    on_ambiguous: match task.on_ambiguous {
                        OnAmbiguous::Retry => "retry",
                        OnAmbiguous::Fail => "fail",
                    },
                    retries: task.retries,
                    retry_delay_seconds: task.retry_delay_seconds,
                    has_timeout: task.timeout_seconds.is_some(),
                    timeout_seconds: task.timeout_seconds.unwrap_or(0),
                    doc_md: super::notes::doc_md(pipeline, task),
                    fail_why: super::notes::why_fail(task),
                }
            })
            .collect();

        DagView {
            source_file: &pipeline.source_file,
            pipeline: &pipeline.name,
            module: OPERATOR_MODULE,
            cron,
            timezone: &pipeline.timezone,
            start,
            catchup: pipeline.catchup,
            params: pipeline
                .params
                .iter()
                .map(|p| ParamView {
                    name: &p.name,
                    schema_type: match p.ty {
                        crate::vocab::ParamType::Int => "integer",
                        crate::vocab::ParamType::Bool => "boolean",
                        // a duration is given as flowc writes it (`30m`)
                        _ => "string",
                    },
                    optional: p.optional,
                })
                .collect(),
            has_tasks: !tasks.is_empty(),
            task_views: tasks,
            edges,
        }
    }
}

/// Whether Airflow runs `task` as a Kubernetes pod: it has an image and
/// `airflow_executor` does not say `local`.
pub(crate) fn runs_in_pod(task: &Task) -> bool {
    task.image.is_some() && task.airflow_executor.as_deref() != Some("local")
}

/// The Python variable for each task: the task's own name where that is a
/// plain identifier clashing with nothing (so the variable equals the
/// `task_id`, as ruff's AIR001 prefers), else `task_<name>` (or `task_<n>`),
/// made unique with a numeric suffix. Deterministic in task order.
fn task_variables(tasks: &[Task]) -> Vec<String> {
    let mut taken: BTreeSet<String> = GENERATED_NAMES.iter().map(|s| (*s).to_owned()).collect();
    // Names kept as they are are claimed first, so a mangled name never takes one.
    let keeps = |name: &str| {
        is_plain_identifier(name) && !name.starts_with("__") && !GENERATED_NAMES.contains(&name)
    };
    for task in tasks {
        if keeps(&task.name) {
            taken.insert(task.name.clone());
        }
    }
    let mut vars = Vec::with_capacity(tasks.len());
    for (index, task) in tasks.iter().enumerate() {
        if keeps(&task.name) {
            vars.push(task.name.clone());
            continue;
        }
        let base = if is_plain_identifier(&format!("task_{}", task.name)) {
            format!("task_{}", task.name)
        } else {
            format!("task_{index}")
        };
        let mut candidate = base.clone();
        let mut n = 2;
        while taken.contains(&candidate) {
            candidate = format!("{base}_{n}");
            n += 1;
        }
        taken.insert(candidate.clone());
        vars.push(candidate);
    }
    vars
}

fn registry() -> Handlebars<'static> {
    let mut registry = super::helpers::registry();
    registry.register_helper("py_str", py_str_helper());
    registry.register_helper("comment", super::helpers::comment_helper());
    registry.register_helper(
        "py_ident",
        Box::new(checked(
            "py_ident",
            is_plain_identifier,
            "a Python identifier flowc may assign",
        )),
    );
    registry
        .register_template_string("dag", DAG_TEMPLATE)
        .expect("the embedded Airflow DAG template is valid handlebars");
    registry
        .register_template_string("task", TASK_TEMPLATE)
        .expect("the embedded Airflow task template is valid handlebars");
    registry
        .register_template_string("edge", EDGE_TEMPLATE)
        .expect("the embedded Airflow edge template is valid handlebars");
    registry
}
