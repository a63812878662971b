//! `flowc scaffold --lang python`: per task, a generated module (rewritten on
//! every run) and a hand-written transform module (created only when absent),
//! plus the `flowc_runtime` package they import.
//!
//! The generated module is placed where the task's `run command` looks for it:
//! `python -m a.b.c` gives `a/b/c.py` (and the transform `a/b/c_transform.py`);
//! any other command gives `<pipeline>/<task>.py`.

use crate::diagnostic::Code;
use std::collections::BTreeMap;
use std::sync::LazyLock;

use handlebars::{Context, Handlebars, Helper, HelperResult, Output, RenderContext, RenderError};
use serde_json::{json, Value};

use super::helpers::{checked, param, py_str_helper};
use super::ir::{Emit, Endpoint, KeyPart, Pipeline, Read, Task, Write};
use super::quote::python_str;
use super::{At, GeneratedFile, TargetProblem};
use crate::rules::{fl802, fl803, fl805};
use crate::vocab::{ParamValue, Term, Tracking};

/// What `scaffold` produces: files to write on every run, and files to write
/// only when no file exists at that path (the hand-written transforms and the
/// packages' `__init__.py`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scaffold {
    pub rewrite: Vec<GeneratedFile>,
    pub create_if_absent: Vec<GeneratedFile>,
}

/// The runtime package, written next to the task modules on every run.
const RUNTIME: &[(&str, &str)] = &[
    (
        "flowc_runtime/__init__.py",
        include_str!("../../../templates/python/flowc_runtime/__init__.py"),
    ),
    (
        "flowc_runtime/attempt.py",
        include_str!("../../../templates/python/flowc_runtime/attempt.py"),
    ),
    (
        "flowc_runtime/attempts.py",
        include_str!("../../../templates/python/flowc_runtime/attempts.py"),
    ),
    (
        "flowc_runtime/audit.py",
        include_str!("../../../templates/python/flowc_runtime/audit.py"),
    ),
    (
        "flowc_runtime/batches.py",
        include_str!("../../../templates/python/flowc_runtime/batches.py"),
    ),
    (
        "flowc_runtime/bulk.py",
        include_str!("../../../templates/python/flowc_runtime/bulk.py"),
    ),
    (
        "flowc_runtime/connectors/__init__.py",
        include_str!("../../../templates/python/flowc_runtime/connectors/__init__.py"),
    ),
    (
        "flowc_runtime/connectors/base.py",
        include_str!("../../../templates/python/flowc_runtime/connectors/base.py"),
    ),
    (
        "flowc_runtime/connectors/delta_table.py",
        include_str!("../../../templates/python/flowc_runtime/connectors/delta_table.py"),
    ),
    (
        "flowc_runtime/connectors/files.py",
        include_str!("../../../templates/python/flowc_runtime/connectors/files.py"),
    ),
    (
        "flowc_runtime/connectors/iceberg_table.py",
        include_str!("../../../templates/python/flowc_runtime/connectors/iceberg_table.py"),
    ),
    (
        "flowc_runtime/connectors/kafka_topic.py",
        include_str!("../../../templates/python/flowc_runtime/connectors/kafka_topic.py"),
    ),
    (
        "flowc_runtime/connectors/sql_table.py",
        include_str!("../../../templates/python/flowc_runtime/connectors/sql_table.py"),
    ),
    (
        "flowc_runtime/context.py",
        include_str!("../../../templates/python/flowc_runtime/context.py"),
    ),
    (
        "flowc_runtime/cursors.py",
        include_str!("../../../templates/python/flowc_runtime/cursors.py"),
    ),
    (
        "flowc_runtime/delta.py",
        include_str!("../../../templates/python/flowc_runtime/delta.py"),
    ),
    (
        "flowc_runtime/effects.py",
        include_str!("../../../templates/python/flowc_runtime/effects.py"),
    ),
    (
        "flowc_runtime/files.py",
        include_str!("../../../templates/python/flowc_runtime/files.py"),
    ),
    (
        "flowc_runtime/formats.py",
        include_str!("../../../templates/python/flowc_runtime/formats.py"),
    ),
    (
        "flowc_runtime/hooks.py",
        include_str!("../../../templates/python/flowc_runtime/hooks.py"),
    ),
    (
        "flowc_runtime/iceberg.py",
        include_str!("../../../templates/python/flowc_runtime/iceberg.py"),
    ),
    (
        "flowc_runtime/kafka.py",
        include_str!("../../../templates/python/flowc_runtime/kafka.py"),
    ),
    (
        "flowc_runtime/keys.py",
        include_str!("../../../templates/python/flowc_runtime/keys.py"),
    ),
    (
        "flowc_runtime/requirements.txt",
        include_str!("../../../templates/python/flowc_runtime/requirements.txt"),
    ),
    (
        "flowc_runtime/run.py",
        include_str!("../../../templates/python/flowc_runtime/run.py"),
    ),
    (
        "flowc_runtime/spark/__init__.py",
        include_str!("../../../templates/python/flowc_runtime/spark/__init__.py"),
    ),
    (
        "flowc_runtime/spark/delta.py",
        include_str!("../../../templates/python/flowc_runtime/spark/delta.py"),
    ),
    (
        "flowc_runtime/spark/iceberg.py",
        include_str!("../../../templates/python/flowc_runtime/spark/iceberg.py"),
    ),
    (
        "flowc_runtime/spark/attempt.py",
        include_str!("../../../templates/python/flowc_runtime/spark/attempt.py"),
    ),
    (
        "flowc_runtime/spark/session.py",
        include_str!("../../../templates/python/flowc_runtime/spark/session.py"),
    ),
    (
        "flowc_runtime/spec.py",
        include_str!("../../../templates/python/flowc_runtime/spec.py"),
    ),
    (
        "flowc_runtime/sql.py",
        include_str!("../../../templates/python/flowc_runtime/sql.py"),
    ),
    (
        "flowc_runtime/state.py",
        include_str!("../../../templates/python/flowc_runtime/state.py"),
    ),
];

/// The runtime package's files (path below the output folder, text): what
/// `scaffold` writes and what `flowc audit` runs its reader from.
pub fn runtime_files() -> &'static [(&'static str, &'static str)] {
    RUNTIME
}

const TASK_TEMPLATE: &str = include_str!("../../../templates/python/task.py.hbs");
const TRANSFORM_TEMPLATE: &str = include_str!("../../../templates/python/transform.py.hbs");
const SPARK_TRANSFORM_TEMPLATE: &str =
    include_str!("../../../templates/python/spark_transform.py.hbs");
const ENDPOINT_PARTIAL: &str = include_str!("../../../templates/python/endpoint.hbs");
const TERM_PARTIAL: &str = include_str!("../../../templates/python/term.hbs");

/// What the runtime can reach, per kind: the one table that both these checks and the
/// runtime's connector registry follow (a Python test keeps the registry equal to it).
const CAPABILITIES_JSON: &str = include_str!("../../../templates/python/capabilities.json");

/// One source or sink kind the runtime has a connector for.
#[derive(Debug, serde::Deserialize)]
struct DataKind {
    /// The pins (IR names) a read of this kind may use; no pin is always supported.
    pins: Vec<String>,
    /// The write modes (IR names) a write to this kind may use.
    modes: Vec<String>,
    /// Whether an outbox may live in a sink of this kind.
    outbox: bool,
}

#[derive(Debug, serde::Deserialize)]
struct Capabilities {
    data: BTreeMap<String, DataKind>,
    effects: Vec<String>,
    /// What the Spark runtime (`flowc_runtime/spark`) reaches, for tasks that
    /// run with `spark-submit`.
    spark: SparkCapabilities,
}

#[derive(Debug, serde::Deserialize)]
struct SparkCapabilities {
    data: BTreeMap<String, DataKind>,
}

static CAPABILITIES: LazyLock<Result<Capabilities, String>> = LazyLock::new(|| {
    serde_json::from_str(CAPABILITIES_JSON).map_err(|err| fl805::capabilities_unparsable(&err))
});

/// A problem with flowc's own Python templates (never with the user's input).
fn template_bug(message: String) -> Vec<TargetProblem> {
    vec![TargetProblem {
        code: Code::FL805,
        pipeline: String::new(),
        task: None,
        message,
        help: fl805::TEMPLATE_BUG_HELP.to_owned(),
        at: At::Name,
    }]
}

/// Renders every task of `pipelines`. Any problem (a kind, mode or pin with no
/// runtime, two tasks that would share a module) emits nothing.
pub fn generate(pipelines: &[Pipeline]) -> Result<Scaffold, Vec<TargetProblem>> {
    let caps = CAPABILITIES
        .as_ref()
        .map_err(|message| template_bug(message.clone()))?;
    let problems = check(caps, pipelines);
    if !problems.is_empty() {
        return Err(problems);
    }
    let registry = registry().map_err(template_bug)?;

    // Path -> (contents, the pipeline whose task it is for, if one).
    let mut rewrite: BTreeMap<String, (String, Option<&str>)> = BTreeMap::new();
    let mut create: BTreeMap<String, (String, Option<&str>)> = BTreeMap::new();
    for (path, contents) in RUNTIME {
        rewrite.insert((*path).to_owned(), ((*contents).to_owned(), None));
    }
    let mut problems = Vec::new();
    for pipeline in pipelines {
        for task in &pipeline.tasks {
            let module = module_for(pipeline, task);
            let parts: Vec<&str> = module.split('.').collect();
            for depth in 1..parts.len() {
                create.insert(
                    format!("{}/__init__.py", parts[..depth].join("/")),
                    (String::new(), None),
                );
            }
            let path = format!("{}.py", parts.join("/"));
            let transform_path = format!("{}_transform.py", parts.join("/"));
            let data = view(pipeline, task, &module, &transform_path);
            match registry.render("task", &data) {
                Ok(mut text) => {
                    // The renderer's buffer grows by doubling; a scaffold of
                    // many tasks holds every module until it is written.
                    text.shrink_to_fit();
                    rewrite.insert(path, (text, Some(&pipeline.name)));
                }
                Err(err) => problems.push(render_problem(pipeline, task, &err)),
            }
            let transform_template = if is_spark(task) {
                "spark_transform"
            } else {
                "transform"
            };
            match registry.render(transform_template, &data) {
                Ok(mut text) => {
                    text.shrink_to_fit();
                    create.insert(transform_path, (text, Some(&pipeline.name)));
                }
                Err(err) => problems.push(render_problem(pipeline, task, &err)),
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let files = |map: BTreeMap<String, (String, Option<&str>)>| {
        map.into_iter()
            .map(|(path, (contents, pipeline))| {
                let file = GeneratedFile::new(path, contents);
                match pipeline {
                    Some(p) => file.for_pipeline(p),
                    None => file,
                }
            })
            .collect()
    };
    Ok(Scaffold {
        rewrite: files(rewrite),
        create_if_absent: files(create),
    })
}

fn render_problem(pipeline: &Pipeline, task: &Task, err: &RenderError) -> TargetProblem {
    TargetProblem {
        code: Code::FL805,
        pipeline: pipeline.name.clone(),
        task: Some(task.name.clone()),
        message: fl805::scaffold_unrenderable(&task.name, err),
        help: fl805::TEMPLATE_BUG_HELP.to_owned(),
        at: At::Name,
    }
}

/// The module a task's `run command` runs (`python -m a.b.c`, or the
/// application file `a/b/c.py` of `spark-submit`), else `<pipeline>.<task>`.
pub fn module_for(pipeline: &Pipeline, task: &Task) -> String {
    run_module(task)
        .map(str::to_owned)
        .or_else(|| spark_module(task))
        .unwrap_or_else(|| format!("{}.{}", pipeline.name, task.name))
}

/// Whether the task's `run command` is `spark-submit` of a Python
/// application (`spark-submit [OPTIONS] app.py`): its module is generated for
/// the Spark runtime (`flowc_runtime.spark`). A JVM application (a jar) is
/// the team's own code, scaffolded as before.
pub fn is_spark(task: &Task) -> bool {
    // Case-sensitive, as spark-submit tells a Python application from a JVM one.
    spark_application(task)
        .and_then(|app| app.rsplit_once('.'))
        .is_some_and(|(_, ext)| ext == "py")
}

/// The application file of a `spark-submit` command: its first argument
/// that is neither an option nor an option's value.
fn spark_application(task: &Task) -> Option<&str> {
    let argv0 = task.command.first()?;
    if argv0.rsplit('/').next().unwrap_or(argv0) != "spark-submit" {
        return None;
    }
    let mut args = task.command.iter().skip(1);
    while let Some(arg) = args.next() {
        if SPARK_SUBMIT_VALUED.contains(&arg.as_str()) {
            args.next();
        } else if !arg.starts_with('-') {
            return Some(arg);
        }
    }
    None
}

/// `spark-submit`'s options that take a value (as `--name VALUE`).
const SPARK_SUBMIT_VALUED: &[&str] = &[
    "--master",
    "--deploy-mode",
    "--class",
    "--name",
    "--jars",
    "--packages",
    "--exclude-packages",
    "--repositories",
    "--py-files",
    "--files",
    "--archives",
    "--conf",
    "-c",
    "--properties-file",
    "--driver-memory",
    "--driver-java-options",
    "--driver-library-path",
    "--driver-class-path",
    "--executor-memory",
    "--proxy-user",
    "--driver-cores",
    "--total-executor-cores",
    "--executor-cores",
    "--num-executors",
    "--queue",
    "--principal",
    "--keytab",
];

/// The module of `spark-submit`'s application file, when it is a relative
/// `.py` path (`jobs/sessions.py` gives `jobs.sessions`).
fn spark_module(task: &Task) -> Option<String> {
    let app = spark_application(task)?;
    let stem = app.strip_prefix("./").unwrap_or(app).strip_suffix(".py")?;
    if stem.starts_with('/') || stem.contains('\\') || stem.contains(':') {
        return None;
    }
    Some(stem.replace('/', "."))
}

/// What follows `-m` in a command that starts Python.
fn run_module(task: &Task) -> Option<&str> {
    let runs_python = task.command.first().is_some_and(|argv0| {
        let base = argv0.rsplit('/').next().unwrap_or(argv0);
        base.starts_with("python")
    });
    if !runs_python {
        return None;
    }
    // Python's own options come before the script or module: `-m MODULE`
    // (or `-mMODULE`); `-m` last names no module (an empty one, which
    // cannot be imported). A script, or `-c`, runs no module.
    let mut args = task.command.iter().skip(1);
    while let Some(arg) = args.next() {
        if arg == "-m" {
            return Some(args.next().map_or("", String::as_str));
        }
        if let Some(module) = arg.strip_prefix("-m") {
            return Some(module);
        }
        if arg.starts_with("-c") || arg == "--" || !arg.starts_with('-') {
            return None;
        }
        if arg == "-W" || arg == "-X" {
            // Options that take a value.
            args.next();
        }
    }
    None
}

/// Why Python cannot import `module`, if it cannot.
fn unimportable(module: &str) -> Option<String> {
    if module.is_empty() {
        return Some("`-m` is not followed by a module".to_string());
    }
    for part in module.split('.') {
        if part.is_empty() {
            return Some(format!(
                "`{module}` is not a dotted name of Python identifiers"
            ));
        }
        if !super::python_names::is_identifier(part) {
            return Some(format!(
                "`{}` is not a Python identifier of ASCII letters, digits and `_`",
                part.escape_debug()
            ));
        }
        if super::python_names::KEYWORDS.contains(&part) {
            return Some(format!("`{part}` is a Python keyword"));
        }
        if part.starts_with("__") && part.ends_with("__") {
            return Some(format!(
                "`{part}` is a name Python gives a meaning of its own"
            ));
        }
    }
    let top = module.split('.').next().unwrap_or_default();
    if super::python_names::TAKEN.contains(&top) {
        return Some(format!(
            "a generated `{top}` in the output folder would hide the module `{top}` that Python or the runtime imports"
        ));
    }
    None
}

fn is_dotted_identifier(s: &str) -> bool {
    s.split('.').all(super::python_names::is_identifier)
}

fn problem(pipeline: &Pipeline, task: &Task, at: At, message: String, help: &str) -> TargetProblem {
    TargetProblem {
        code: Code::FL805,
        pipeline: pipeline.name.clone(),
        task: Some(task.name.clone()),
        message,
        help: help.to_owned(),
        at,
    }
}

/// The URL scheme of a location (`s3` of `s3://bucket/x`), if it has one.
fn scheme(location: &str) -> Option<&str> {
    let (scheme, _) = location.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

/// The URL schemes of a `files` path the Python runtime reads and writes:
/// local folders and the object stores it reaches through obstore.
const FILES_SCHEMES: [&str; 4] = ["file", "s3", "gs", "az"];

/// FL805 for a `files` location the Python runtime cannot read or write: it
/// works on local folders and `s3://`, `gs://` and `az://` prefixes only, and
/// a path on any other scheme must never be listed as an empty folder.
fn unreadable_location(
    pipeline: &Pipeline,
    task: &Task,
    endpoint: &Endpoint,
    at: At,
) -> Option<TargetProblem> {
    if endpoint.kind != "files" {
        return None;
    }
    let Some(ParamValue::String(path)) = endpoint.params.get("path") else {
        return None;
    };
    let scheme = scheme(path)?;
    if FILES_SCHEMES.iter().any(|s| scheme.eq_ignore_ascii_case(s)) {
        return None;
    }
    let (message, help) = fl805::location_unreadable(&endpoint.name, scheme);
    Some(problem(pipeline, task, at, message, &help))
}

/// A problem with the module a task's `run` statement runs.
fn run_problem(
    pipeline: &Pipeline,
    task: &Task,
    code: Code,
    message: String,
    help: &str,
) -> TargetProblem {
    TargetProblem {
        code,
        pipeline: pipeline.name.clone(),
        task: Some(task.name.clone()),
        message,
        help: help.to_owned(),
        at: At::Run,
    }
}

fn check(caps: &Capabilities, pipelines: &[Pipeline]) -> Vec<TargetProblem> {
    let mut problems = Vec::new();
    let mut modules: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut transforms: BTreeMap<String, (String, String)> = BTreeMap::new();
    // Packages the modules sit in (`m` and `m.x` for `m.x.y`).
    let mut packages: BTreeMap<String, (String, String)> = BTreeMap::new();
    // Module paths in lower case: a file system that ignores case holds one.
    let mut folded: BTreeMap<String, (String, String, String)> = BTreeMap::new();
    // `FLOW_CONN_<NAME>` -> the first endpoint whose connection it is.
    let mut connections: BTreeMap<String, String> = BTreeMap::new();
    for pipeline in pipelines {
        for task in &pipeline.tasks {
            if is_spark(task) {
                check_spark(caps, pipeline, task, &mut problems);
            }
            for read in &task.reads {
                if !is_spark(task) {
                    check_read(caps, pipeline, task, read, &mut problems);
                }
                check_connection(
                    pipeline,
                    task,
                    &read.source.name,
                    At::Read(read.source.name.clone()),
                    &mut connections,
                    &mut problems,
                );
            }
            for write in &task.writes {
                if !is_spark(task) {
                    check_write(caps, pipeline, task, write, &mut problems);
                }
                check_connection(
                    pipeline,
                    task,
                    &write.sink.name,
                    At::Write(write.sink.name.clone()),
                    &mut connections,
                    &mut problems,
                );
            }
            for emit in &task.emits {
                if !is_spark(task) {
                    check_emit(caps, pipeline, task, emit, &mut problems);
                }
                check_connection(
                    pipeline,
                    task,
                    &emit.effect.name,
                    At::Emit(emit.effect.name.clone()),
                    &mut connections,
                    &mut problems,
                );
            }
            let module = module_for(pipeline, task);
            if let Some(why) = unimportable(&module) {
                let (message, help) = if run_module(task).is_some() {
                    let shown = format!("python -m {module}")
                        .trim_end()
                        .escape_debug()
                        .to_string();
                    fl802::run_module_unimportable(&task.name, &shown, &why)
                } else {
                    fl802::scaffold_module_unimportable(&task.name, &module, &why)
                };
                problems.push(run_problem(pipeline, task, Code::FL802, message, &help));
                continue;
            }
            let top = module.split('.').next().unwrap_or_default();
            if top == "flowc_runtime" {
                let (message, help) = fl803::module_inside_runtime(&task.name, &module);
                problems.push(run_problem(pipeline, task, Code::FL803, message, &help));
            }
            // A module may not be another task's transform, nor the reverse.
            let transform = format!("{module}_transform");
            let clash = transforms
                .get(&module)
                .or_else(|| modules.get(&transform))
                .cloned();
            if let Some((other_pipeline, other_task)) = clash {
                let (message, help) = fl803::module_is_transform(
                    &format!("{other_pipeline}.{other_task}"),
                    &format!("{}.{}", pipeline.name, task.name),
                    &module,
                    &transform,
                );
                problems.push(run_problem(pipeline, task, Code::FL803, message, &help));
            }
            transforms.insert(transform, (pipeline.name.clone(), task.name.clone()));
            // A module may not also be a package another module sits in.
            let owner = (pipeline.name.clone(), task.name.clone());
            let enclosing: Vec<String> = module
                .match_indices('.')
                .map(|(i, _)| module[..i].to_owned())
                .collect();
            let clash = packages
                .get(&module)
                .cloned()
                .or_else(|| enclosing.iter().find_map(|p| modules.get(p).cloned()));
            if let Some((other_pipeline, other_task)) = clash {
                let (message, help) = fl803::module_is_package(
                    &format!("{other_pipeline}.{other_task}"),
                    &format!("{}.{}", pipeline.name, task.name),
                );
                problems.push(run_problem(pipeline, task, Code::FL803, message, &help));
            }
            for p in enclosing {
                packages.entry(p).or_insert_with(|| owner.clone());
            }
            let lower = module.to_lowercase();
            match folded.get(&lower) {
                Some((other_pipeline, other_task, other)) if *other != module => {
                    let (message, help) = fl803::modules_differ_in_case(
                        &format!("{other_pipeline}.{other_task}"),
                        &format!("{}.{}", pipeline.name, task.name),
                        other,
                        &module,
                    );
                    problems.push(run_problem(pipeline, task, Code::FL803, message, &help));
                }
                Some(_) => {}
                None => {
                    folded.insert(
                        lower,
                        (pipeline.name.clone(), task.name.clone(), module.clone()),
                    );
                }
            }
            if let Some((other_pipeline, other_task)) =
                modules.insert(module.clone(), (pipeline.name.clone(), task.name.clone()))
            {
                let (message, help) = fl803::module_run_twice(
                    &format!("{other_pipeline}.{other_task}"),
                    &format!("{}.{}", pipeline.name, task.name),
                    &module,
                );
                problems.push(run_problem(pipeline, task, Code::FL803, message, &help));
            }
        }
    }
    problems
}

/// FL803 when the endpoint `name` and another endpoint of the run differ only
/// in case: the runtime reads both connections from one `FLOW_CONN_<NAME>`
/// variable (the name in upper case).
fn check_connection(
    pipeline: &Pipeline,
    task: &Task,
    name: &str,
    at: At,
    connections: &mut BTreeMap<String, String>,
    problems: &mut Vec<TargetProblem>,
) {
    let var = format!("FLOW_CONN_{}", name.to_uppercase());
    match connections.get(&var) {
        Some(first) if first != name => {
            let (message, help) = fl803::shared_connection(first, name, &var);
            problems.push(TargetProblem {
                code: Code::FL803,
                ..problem(pipeline, task, at, message, &help)
            });
        }
        Some(_) => {}
        None => {
            connections.insert(var, name.to_owned());
        }
    }
}

/// FL805 for what a task that runs with `spark-submit` declares and the Spark
/// runtime cannot run: its kinds, pins and modes are `caps.spark`'s; it runs no effects.
fn check_spark(
    caps: &Capabilities,
    pipeline: &Pipeline,
    task: &Task,
    problems: &mut Vec<TargetProblem>,
) {
    let spark = &caps.spark.data;
    for read in &task.reads {
        let (kind, name) = (read.source.kind.as_str(), &read.source.name);
        let what = match spark.get(kind) {
            None => Some(format!("kind `{kind}` (read of `{name}`)")),
            Some(data)
                if read
                    .pin
                    .is_some_and(|pin| !data.pins.contains(&enum_name(&pin))) =>
            {
                Some(format!("pin `{}` (read of `{name}`)", enum_name(&read.pin)))
            }
            Some(_) => None,
        };
        if let Some(what) = what {
            let (message, help) = fl805::spark_without_runtime(&what);
            problems.push(problem(
                pipeline,
                task,
                At::Read(name.clone()),
                message,
                &help,
            ));
        }
    }
    for write in &task.writes {
        let (kind, name) = (write.sink.kind.as_str(), &write.sink.name);
        let what = match spark.get(kind) {
            None => Some(format!("kind `{kind}` (write to `{name}`)")),
            Some(data) if !data.modes.contains(&enum_name(&write.mode)) => Some(format!(
                "mode `{}` (write to `{name}`)",
                enum_name(&write.mode)
            )),
            Some(_) => None,
        };
        if let Some(what) = what {
            let (message, help) = fl805::spark_without_runtime(&what);
            problems.push(problem(
                pipeline,
                task,
                At::Write(name.clone()),
                message,
                &help,
            ));
        }
    }
    for emit in &task.emits {
        let what = format!("the emit of `{}`", emit.effect.name);
        let (message, help) = fl805::spark_without_runtime(&what);
        problems.push(problem(
            pipeline,
            task,
            At::Emit(emit.effect.name.clone()),
            message,
            &help,
        ));
    }
}

fn check_read(
    caps: &Capabilities,
    pipeline: &Pipeline,
    task: &Task,
    read: &Read,
    problems: &mut Vec<TargetProblem>,
) {
    let kind = read.source.kind.as_str();
    let Some(data) = caps.data.get(kind) else {
        let (message, help) = fl805::read_without_runtime(kind, &read.source.name);
        problems.push(problem(
            pipeline,
            task,
            At::Read(read.source.name.clone()),
            message,
            &help,
        ));
        return;
    };
    if let Some(p) = unreadable_location(
        pipeline,
        task,
        &read.source,
        At::Read(read.source.name.clone()),
    ) {
        problems.push(p);
    }
    let supported = read
        .pin
        .is_none_or(|pin| data.pins.contains(&enum_name(&pin)));
    if !supported {
        let (message, help) =
            fl805::read_without_pin(kind, &read.source.name, &enum_name(&read.pin));
        problems.push(problem(
            pipeline,
            task,
            At::Read(read.source.name.clone()),
            message,
            &help,
        ));
    }
}

fn check_write(
    caps: &Capabilities,
    pipeline: &Pipeline,
    task: &Task,
    write: &Write,
    problems: &mut Vec<TargetProblem>,
) {
    let kind = write.sink.kind.as_str();
    let Some(data) = caps.data.get(kind) else {
        let (message, help) = fl805::write_without_runtime(kind, &write.sink.name);
        problems.push(problem(
            pipeline,
            task,
            At::Write(write.sink.name.clone()),
            message,
            &help,
        ));
        return;
    };
    if let Some(p) = unreadable_location(
        pipeline,
        task,
        &write.sink,
        At::Write(write.sink.name.clone()),
    ) {
        problems.push(p);
    }
    let supported = data.modes.contains(&enum_name(&write.mode));
    if !supported {
        let (message, help) =
            fl805::write_without_mode(kind, &write.sink.name, &enum_name(&write.mode));
        problems.push(problem(
            pipeline,
            task,
            At::Write(write.sink.name.clone()),
            message,
            &help,
        ));
    }
}

fn check_emit(
    caps: &Capabilities,
    pipeline: &Pipeline,
    task: &Task,
    emit: &Emit,
    problems: &mut Vec<TargetProblem>,
) {
    let kind = emit.effect.kind.as_str();
    if !caps.effects.iter().any(|k| k == kind) {
        let (message, help) = fl805::emit_without_runtime(kind, &emit.effect.name);
        problems.push(problem(
            pipeline,
            task,
            At::Emit(emit.effect.name.clone()),
            message,
            &help,
        ));
    }
    if emit.tracking == Tracking::Outbox {
        let holder = emit
            .outbox
            .as_deref()
            .and_then(|name| task.writes.iter().find(|w| w.sink.name == name));
        match holder {
            Some(w)
                if caps
                    .data
                    .get(w.sink.kind.as_str())
                    .is_some_and(|k| k.outbox) => {}
            Some(w) => {
                let (message, help) =
                    fl805::outbox_without_runtime(&w.sink.kind, &emit.effect.name);
                problems.push(problem(
                    pipeline,
                    task,
                    At::Emit(emit.effect.name.clone()),
                    message,
                    &help,
                ));
            }
            None => {
                let (message, help) = fl805::outbox_without_sink(&emit.effect.name);
                problems.push(problem(
                    pipeline,
                    task,
                    At::Emit(emit.effect.name.clone()),
                    message,
                    &help,
                ));
            }
        }
    }
}

fn enum_name<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(s)) => s,
        Ok(Value::Null) => "none".to_owned(),
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// The JSON a template sees: the IR, with every optional field present (strict
/// mode rejects missing ones) and key terms flattened to `{term, field, column}`.
fn view(pipeline: &Pipeline, task: &Task, module: &str, transform_path: &str) -> Value {
    let mut task_json = serde_json::to_value(task).unwrap_or(Value::Null);
    if let Some(writes) = task_json.get_mut("writes").and_then(Value::as_array_mut) {
        for write in writes {
            normalize_terms(write, "key");
            if let Some(partition) = write.get_mut("partition") {
                if !partition.is_null() {
                    *partition = term(partition);
                }
            }
        }
    }
    if let Some(emits) = task_json.get_mut("emits").and_then(Value::as_array_mut) {
        for emit in emits {
            normalize_terms(emit, "key");
            normalize_terms(emit, "effect_key");
        }
    }
    let transform_module = format!("{module}_transform");
    let mut outputs: Vec<String> = task.writes.iter().map(|w| w.sink.name.clone()).collect();
    outputs.extend(task.emits.iter().map(|e| e.effect.name.clone()));
    // The scaffold's first transform gives each effect a message of its kind's shape: one per
    // record, or one summary of the interval when the emit's key has no record term (the key
    // chooses how many messages there are; the runtime refuses different messages for one key).
    let summary = |emit: &Emit| -> bool {
        effective_effect_key(task, emit)
            .is_some_and(|terms| !terms.iter().any(|t| per_record(&t.term)))
    };
    let effects_of = |kind: &str, one: bool| -> Vec<&str> {
        let of = task
            .emits
            .iter()
            .filter(|e| e.effect.kind == kind && summary(e) == one);
        of.map(|e| e.effect.name.as_str()).collect()
    };
    let (slack, email) = (
        effects_of("slack_message", false),
        effects_of("email", false),
    );
    let (slack_summaries, email_summaries) =
        (effects_of("slack_message", true), effects_of("email", true));
    let other_effects = |one: bool| {
        task.emits
            .iter()
            .filter(move |e| {
                !matches!(e.effect.kind.as_str(), "slack_message" | "email") && summary(e) == one
            })
            .map(|e| e.effect.name.as_str())
    };
    // A pair (input record, output record) only where a term reads the input record the
    // output came from; elsewhere the record itself, with no pair and no copy per record.
    let reads_input = |parts: &[&KeyPart]| {
        parts
            .iter()
            .any(|p| matches!(p.term, Term::InputField { .. } | Term::InputHash))
    };
    let write_reads_input = |w: &Write| {
        let parts: Vec<&KeyPart> = w
            .key
            .iter()
            .flatten()
            .chain(w.partition.iter())
            .chain(w.txn.iter().flatten())
            .collect();
        reads_input(&parts)
    };
    let emit_reads_input = |name: &str| {
        task.emits
            .iter()
            .filter(|e| e.effect.name == name)
            .any(|e| effective_effect_key(task, e).is_some_and(|terms| reads_input(&terms)))
    };
    let records: Vec<Value> = task
        .writes
        .iter()
        .map(|w| json!({"name": w.sink.name, "paired": write_reads_input(w)}))
        .chain(
            other_effects(false)
                .map(|name| json!({"name": name, "paired": emit_reads_input(name)})),
        )
        .collect();
    let summaries: Vec<&str> = other_effects(true).collect();
    json!({
        "spark": is_spark(task),
        // `parents[N]` of the module's file is the scaffold's folder (spark-submit puts only
        // the application's own folder on `sys.path`)
        "root_parent": module.matches('.').count(),
        "pipeline": pipeline.name,
        "source_file": pipeline.source_file,
        "schedule": pipeline.schedule.as_ref().map(|s| &s.text),
        "timezone": pipeline.timezone,
        "state": pipeline.state,
        "task": task_json,
        "transform_module": transform_module,
        "transform_file": transform_path,
        "first_read": task.reads.first().map(|r| r.source.name.clone()),
        "outputs": outputs,
        "records": records,
        "has_summaries": !summaries.is_empty() || !slack_summaries.is_empty() || !email_summaries.is_empty(),
        "summaries": summaries,
        "has_effects": !task.emits.is_empty(),
        "has_cursor": task.reads.iter().any(|r| r.cursor.is_some()),
        "needs_json": !slack.is_empty() || !email.is_empty(),
        "slack_messages": slack,
        "emails": email,
        "slack_summaries": slack_summaries,
        "email_summaries": email_summaries,
    })
}

/// The terms an emit's messages are keyed on, as the runtime derives them
/// (`flowc_runtime/state.py`, `effect_key_terms`): the emit's own `key`, else the
/// holding write's key, else its partition term (outbox); the `idempotency_key`'s
/// key; none for an untracked emit.
fn effective_effect_key<'a>(task: &'a Task, emit: &'a Emit) -> Option<Vec<&'a KeyPart>> {
    match emit.tracking {
        Tracking::Outbox => {
            if let Some(own) = &emit.effect_key {
                return Some(own.iter().collect());
            }
            let holder = task
                .writes
                .iter()
                .find(|w| Some(&w.sink.name) == emit.outbox.as_ref())?;
            if let Some(key) = &holder.key {
                return Some(key.iter().collect());
            }
            holder.partition.as_ref().map(|p| vec![p])
        }
        Tracking::IdempotencyKey => emit.key.as_ref().map(|k| k.iter().collect()),
        Tracking::Untracked => None,
    }
}

/// Whether a key term can differ between the records of one interval.
fn per_record(term: &Term) -> bool {
    matches!(
        term,
        Term::InputField { .. }
            | Term::InputHash
            | Term::OutputField { .. }
            | Term::OutputHash
            | Term::Uuid
            | Term::Random
    )
}

fn normalize_terms(holder: &mut Value, field: &str) {
    if let Some(list) = holder.get_mut(field).and_then(Value::as_array_mut) {
        for part in list.iter_mut() {
            *part = term(part);
        }
    }
}

fn term(part: &Value) -> Value {
    json!({
        "term": part.get("term").cloned().unwrap_or(Value::Null),
        "field": part.get("field").cloned().unwrap_or(Value::Null),
        "column": part.get("column").cloned().unwrap_or(Value::Null),
    })
}

fn registry() -> Result<Handlebars<'static>, String> {
    let mut hb = super::helpers::registry();
    hb.register_helper("py_str", py_str_helper());
    hb.register_helper("py_value", Box::new(py_value_helper));
    hb.register_helper(
        "py_ident",
        Box::new(checked(
            "py_ident",
            is_dotted_identifier,
            "a dotted Python module path",
        )),
    );
    for (name, text) in [
        ("task", TASK_TEMPLATE),
        ("transform", TRANSFORM_TEMPLATE),
        ("spark_transform", SPARK_TRANSFORM_TEMPLATE),
        ("endpoint", ENDPOINT_PARTIAL.trim_end()),
        ("term", TERM_PARTIAL.trim_end()),
    ] {
        hb.register_template_string(name, text)
            .map_err(|e| format!("template `{name}`: {e}"))?;
    }
    Ok(hb)
}

/// `{{py_value v}}`: any JSON value as a Python literal (strings through `python_str`,
/// arrays as tuples, objects as dicts with sorted keys).
fn py_value_helper(
    h: &Helper<'_>,
    _: &Handlebars<'_>,
    _: &Context,
    _: &mut RenderContext<'_, '_>,
    out: &mut dyn Output,
) -> HelperResult {
    out.write(&py_literal(param(h, "py_value")?))?;
    Ok(())
}

/// A JSON value as a Python literal.
pub fn py_literal(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => python_str(s),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(py_literal).collect();
            match inner.len() {
                0 => "()".to_owned(),
                1 => format!("({},)", inner[0]),
                _ => format!("({})", inner.join(", ")),
            }
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let inner: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}: {}", python_str(k), py_literal(&map[k])))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_capability_table_parses_and_the_help_names_every_kind() {
        let caps = CAPABILITIES.as_ref().expect("capabilities.json parses");
        assert!(caps.data.contains_key("sqlite_table"));
        for kind in caps.data.keys().chain(&caps.effects) {
            assert!(
                fl805::NO_RUNTIME_HELP.contains(kind.as_str()),
                "{kind} is missing from the help"
            );
        }
        for data in caps.data.values() {
            for name in data.pins.iter().chain(&data.modes) {
                assert!(
                    name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                    "{name} is no IR name"
                );
            }
        }
    }

    #[test]
    fn literals_are_python() {
        assert_eq!(py_literal(&json!(null)), "None");
        assert_eq!(py_literal(&json!(["a"])), "(\"a\",)");
        assert_eq!(
            py_literal(&json!({"b": 1, "a": true})),
            "{\"a\": True, \"b\": 1}"
        );
        assert_eq!(py_literal(&json!("x\"\n")), "\"x\\\"\\n\"");
    }
}
