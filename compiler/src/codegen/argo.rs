//! The Argo Workflows target: one YAML document per pipeline, a
//! `CronWorkflow` when the pipeline is scheduled, else a `Workflow`, or a
//! `WorkflowTemplate` on request (`docs/targets/argo.md` has the mapping).
//!
//! Everything a template prints that comes from the user goes through the
//! `yaml` helper ([`yaml_str`]); strings that Kubernetes expands (`command`,
//! env values) have every `$` doubled here first. Problems the target cannot
//! carry (FL801, FL802, FL803) are collected for every pipeline and task and
//! returned together; a run with any problem emits nothing.

use crate::diagnostic::Code;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use handlebars::Handlebars;
use serde::Serialize;

use super::helpers::quoting;
use super::ir::{Pipeline, Task};
use super::quote::yaml_str;
use super::{At, GeneratedFile, TargetProblem};
use crate::rules::{fl802, fl803};
use crate::vocab::OnAmbiguous;

/// Which Argo resource a pipeline becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArgoKind {
    /// `CronWorkflow` when the pipeline has a schedule, else `Workflow`.
    #[default]
    Auto,
    /// `WorkflowTemplate`, whatever the schedule.
    Template,
    /// A `Workflow` that runs one interval of a scheduled pipeline, named by
    /// its parameters `interval_start` and `interval_end` (`flowc backfill`).
    Backfill,
}

impl std::str::FromStr for ArgoKind {
    type Err = String;

    /// The values of `--argo-kind`: `auto` or `template`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(Self::Auto),
            "template" => Ok(Self::Template),
            other => Err(format!(
                "unknown Argo kind `{other}`: expected `auto` or `template`"
            )),
        }
    }
}

/// Kubernetes' limit on a name that is also a label value.
const MAX_NAME: usize = 63;
/// What a backfill `Workflow` adds to the pipeline's name: `-YYYYMMDD-HHMM`
/// of its interval's start in UTC.
const BACKFILL_SUFFIX: usize = 14;
/// The parameters a backfill `Workflow` takes its interval from.
pub const BACKFILL_PARAMETERS: [&str; 2] = ["interval_start", "interval_end"];
const BACKFILL_START: &str = "{{workflow.parameters.interval_start}}";
const BACKFILL_END: &str = "{{workflow.parameters.interval_end}}";
/// Argo appends `-<unix time>` (11 characters) to a `CronWorkflow`'s name
/// for each run, and the result must still fit in 63.
const MAX_CRON_NAME: usize = 52;
/// Argo's `workflowFieldMaxLength` for template and DAG task names.
const MAX_FIELD_NAME: usize = 128;
/// Prefix of every container template; the DAG template is [`ENTRYPOINT`],
/// so no task can collide with it.
const TASK_TEMPLATE_PREFIX: &str = "task-";
const ENTRYPOINT: &str = "main";
/// How late a tick may still start after the controller missed it (for
/// example during a restart). Older missed ticks are skipped: Argo has no
/// catch-up.
const STARTING_DEADLINE_SECONDS: u64 = 300;
/// The exit code of the protocol that means "nothing was committed".
const EXIT_NOTHING_COMMITTED: u32 = 75;
/// The exit code of a deterministic error (nothing committed, never retried).
const EXIT_INVALID: u32 = 65;
/// How long Argo keeps a finished workflow unless `argo_ttl` says: a week.
const DEFAULT_TTL_SECONDS: u64 = 7 * 86_400;
/// Argo's pod garbage collection unless `argo_pod_gc` says: a pod that
/// succeeded goes, a failed one stays for its logs.
const DEFAULT_POD_GC: &str = "OnPodSuccess";

const DOCUMENT: &str = include_str!("../../../templates/argo/document.yaml.hbs");
const WORKFLOW_SPEC: &str = include_str!("../../../templates/argo/workflow_spec.yaml.hbs");
const DAG_TASK: &str = include_str!("../../../templates/argo/dag_task.yaml.hbs");
const CONTAINER_TEMPLATE: &str =
    include_str!("../../../templates/argo/container_template.yaml.hbs");

/// FL807 for each scheduled pipeline with a read whose declaration has an
/// interval-scoped parameter string: Argo runs no missed interval. One
/// warning per pipeline, at its first such read, naming every such source.
/// Then FL808 for each effect a task emits that its container cannot reach.
pub fn warnings(pipelines: &[Pipeline]) -> Vec<TargetProblem> {
    let mut out = Vec::new();
    for pipeline in pipelines.iter().filter(|p| p.schedule.is_some()) {
        let mut first: Option<(&str, &str)> = None;
        let mut sources: Vec<&str> = Vec::new();
        for task in &pipeline.tasks {
            for read in &task.reads {
                let scoped = read.source.params.values().any(|v| {
                    matches!(v, crate::vocab::ParamValue::String(s) if crate::rules::fl807_interval_scoped(s))
                });
                if scoped {
                    first.get_or_insert((&task.name, &read.source.name));
                    if !sources.contains(&read.source.name.as_str()) {
                        sources.push(&read.source.name);
                    }
                }
            }
        }
        let Some((task, source)) = first else {
            continue;
        };
        let (message, help) = crate::rules::fl807_words(&pipeline.name, &sources);
        out.push(TargetProblem {
            code: Code::FL807,
            pipeline: pipeline.name.clone(),
            task: Some(task.to_owned()),
            message,
            help,
            at: At::Read(source.to_owned()),
        });
    }
    // Argo runs every task in a container (FL801 without an image).
    out.extend(super::reach::problems(pipelines, |_| true, "Argo"));
    out
}

/// Renders every pipeline, or returns every problem found in any of them.
pub fn generate(
    pipelines: &[Pipeline],
    kind: ArgoKind,
) -> Result<Vec<GeneratedFile>, Vec<TargetProblem>> {
    let mut problems = Vec::new();
    let mut views = Vec::new();
    let mut taken: BTreeMap<String, &str> = BTreeMap::new();
    for pipeline in pipelines {
        let view = document(pipeline, kind, &mut problems);
        if let Some(name) = &view.as_ref().map(|v| v.name.clone()) {
            if let Some(first) = taken.get(name) {
                let (message, help) = fl803::argo_pipelines_one_name(first, &pipeline.name, name);
                problems.push(TargetProblem {
                    code: Code::FL803,
                    pipeline: pipeline.name.clone(),
                    task: None,
                    message,
                    help,
                    at: At::Name,
                });
            } else {
                taken.insert(name.clone(), &pipeline.name);
            }
        }
        views.push(view);
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let registry = registry();
    let files = pipelines
        .iter()
        .zip(views)
        .filter_map(|(pipeline, view)| view.map(|view| (pipeline, view)))
        .map(|(pipeline, view)| {
            let (contents, more) = render(&registry, &view);
            let argo_name = view.name.clone();
            drop(view);
            GeneratedFile {
                path: format!("{}.yaml", pipeline.name),
                contents,
                more,
                pipeline: Some(pipeline.name.clone()),
                claim: Some(format!("the Argo name `{argo_name}`")),
                write: super::WritePolicy::Always,
            }
        })
        .collect();
    Ok(files)
}

/// One interval a backfill runs: its bounds in RFC 3339 UTC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntervalRun {
    pub start: String,
    pub end: String,
    /// What the interval adds to the pipeline's Argo name (`20260301-0100`).
    pub suffix: String,
}

/// One `Workflow` per interval of a scheduled pipeline (`flowc backfill`):
/// the pipeline's DAG and containers, its interval taken from the
/// `spec.arguments.parameters` [`BACKFILL_PARAMETERS`], named
/// `<pipeline>-<suffix>`. Each is a YAML document of its own.
pub fn backfill(
    pipeline: &Pipeline,
    runs: &[IntervalRun],
) -> Result<Vec<String>, Vec<TargetProblem>> {
    let mut out = Vec::with_capacity(runs.len());
    backfill_each(pipeline, runs, |doc| {
        out.push(doc);
        true
    })?;
    Ok(out)
}

/// [`backfill`], handing each document to `sink` as it is rendered (so
/// that no more than one is held here); stops when `sink` returns false.
///
/// # Errors
/// As [`backfill`].
pub fn backfill_each(
    pipeline: &Pipeline,
    runs: &[IntervalRun],
    mut sink: impl FnMut(String) -> bool,
) -> Result<(), Vec<TargetProblem>> {
    let mut problems = Vec::new();
    let view = document(pipeline, ArgoKind::Backfill, &mut problems);
    let Some(mut view) = view.filter(|_| problems.is_empty()) else {
        return Err(problems);
    };
    let registry = registry();
    let base = view.name.clone();
    for run in runs {
        view.name = format!("{base}-{}", run.suffix);
        view.arguments = BACKFILL_PARAMETERS
            .iter()
            .zip([&run.start, &run.end])
            .map(|(name, value)| ArgumentView {
                name: (*name).to_owned(),
                value: Some(value.clone()),
                has_value: true,
            })
            .collect();
        let (contents, more) = render(&registry, &view);
        if !sink(std::iter::once(contents).chain(more).collect()) {
            break;
        }
    }
    Ok(())
}

/// The text of one document: its head, then the DAG's entries and the
/// container templates, rendered apart (see [`generate`]).
fn render(registry: &Handlebars<'static>, view: &DocumentView) -> (String, Vec<String>) {
    // The container templates end the document. They are rendered
    // apart, on all cores: a context holding every task makes
    // handlebars walk and copy far more than each task needs.
    let contents = registry
        .render("document", view)
        .unwrap_or_else(|e| panic!("argo templates must render every document: {e}"));
    // The DAG's entries go under `templates[0].dag.tasks`, and each
    // container template under `templates:`, which the document puts
    // under `spec:`, or under `spec.workflowSpec:` in a CronWorkflow.
    let (dag_indent, indent) = if view.cron.is_some() {
        ("            ", "      ")
    } else {
        ("          ", "    ")
    };
    let failed = |e| panic!("argo templates must render every task: {e}");
    // A DAG entry needs three of the task's fields: its context is
    // only those, not the whole task.
    let entries: Vec<DagTaskView<'_>> = view
        .task_views
        .iter()
        .map(|t| DagTaskView {
            dag_name: &t.dag_name,
            template_name: &t.template_name,
            depends: t.depends.as_deref(),
        })
        .collect();
    let dag = super::render_each(registry, "dag_task", &entries, dag_indent).unwrap_or_else(failed);
    let containers = super::render_each(registry, "container_template", &view.task_views, indent)
        .unwrap_or_else(failed);
    (contents, dag.into_iter().chain(containers).collect())
}

/// The handlebars registry of this target: strict, no HTML escaping, and the
/// `yaml` helper as the only way a string reaches the output.
fn registry() -> Handlebars<'static> {
    let mut hb = super::helpers::registry();
    // `{{yaml x}}`: the string as a double-quoted YAML scalar.
    hb.register_helper("yaml", Box::new(quoting("yaml", yaml_str)));
    hb.register_helper("comment", super::helpers::comment_helper());
    hb.register_template_string("document", DOCUMENT)
        .expect("document.yaml.hbs parses");
    hb.register_partial("workflow_spec", WORKFLOW_SPEC)
        .expect("workflow_spec.yaml.hbs parses");
    hb.register_template_string("dag_task", DAG_TASK)
        .expect("dag_task.yaml.hbs parses");
    hb.register_template_string("container_template", CONTAINER_TEMPLATE)
        .expect("container_template.yaml.hbs parses");
    hb
}

#[derive(Debug, Serialize)]
struct DocumentView {
    source_file: String,
    /// The pipeline's own name, for the header (`name` is the resource's).
    pipeline: String,
    kind: &'static str,
    name: String,
    /// The `flowc.dev/pipeline` label: the pipeline's Argo name, which a
    /// backfill's Workflows keep while their names add the interval.
    label: String,
    annotations: Vec<Annotation>,
    cron: Option<CronView>,
    entrypoint: &'static str,
    /// `metadata.namespace`: the pipeline's `namespace`.
    namespace: Option<String>,
    /// The workflow's `serviceAccountName`: the pipeline's.
    service_account: Option<String>,
    /// `podMetadata`: the pipeline's labels and annotations, on every pod.
    pod_labels: Vec<Annotation>,
    pod_annotations: Vec<Annotation>,
    /// `ttlStrategy.secondsAfterCompletion`, as text (`0` must still be written).
    ttl_seconds: Option<String>,
    pod_gc: Option<String>,
    /// `spec.arguments.parameters` (a backfill's interval).
    arguments: Vec<ArgumentView>,
    has_tasks: bool,
    /// The tasks: their DAG entries and container templates end the document,
    /// rendered on their own, each with its task alone as context, and
    /// appended to it (see [`generate`]).
    #[serde(skip)]
    task_views: Vec<TaskView>,
}

#[derive(Debug, Serialize)]
struct ArgumentView {
    name: String,
    /// `None`: a parameter `argo submit -p` must give.
    value: Option<String>,
    has_value: bool,
}

#[derive(Debug, Serialize)]
struct DagTaskView<'a> {
    dag_name: &'a str,
    template_name: &'a str,
    depends: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct Annotation {
    key: std::borrow::Cow<'static, str>,
    value: String,
}

fn pairs(m: &BTreeMap<String, String>) -> Vec<Annotation> {
    m.iter()
        .map(|(k, v)| Annotation {
            key: k.clone().into(),
            value: v.clone(),
        })
        .collect()
}

#[derive(Debug, Serialize)]
struct CronView {
    schedule: String,
    timezone: String,
    starting_deadline_seconds: u64,
}

#[derive(Debug, Serialize)]
struct TaskView {
    dag_name: String,
    template_name: String,
    depends: Option<String>,
    retry: Option<RetryView>,
    active_deadline_seconds: Option<u64>,
    mutexes: Vec<MutexView>,
    image: String,
    image_pull_policy: Option<String>,
    /// The template's own `serviceAccountName`, where the task's differs
    /// from the workflow's.
    service_account: Option<String>,
    /// The template's `metadata`, where the task's labels or annotations
    /// differ from the pipeline's (its full set: the task's over the pipeline's).
    has_metadata: bool,
    labels: Vec<Annotation>,
    annotations: Vec<Annotation>,
    has_resources: bool,
    cpu: Option<String>,
    memory: Option<String>,
    /// argv with every `$` doubled (Kubernetes expands `$(VAR)` and `$$`).
    command: Vec<String>,
    env: Vec<EnvView>,
}

#[derive(Debug, Serialize)]
struct RetryView {
    limit: u32,
    expression: Option<String>,
    /// Comment lines above the expression: what the exit codes mean.
    comment: Vec<String>,
    backoff_duration: String,
}

/// One mutex, with the sinks it serialises (for a comment).
#[derive(Debug, Serialize, PartialEq, Eq, PartialOrd, Ord)]
struct MutexView {
    name: String,
    sinks: String,
}

#[derive(Debug, Serialize)]
struct EnvView {
    name: String,
    /// The value with every `$` doubled.
    value: String,
    /// A connection from a Kubernetes Secret (its key `url`) instead of a value.
    secret: Option<String>,
    /// The Secret's key: `url`, or `token` for an effect's token.
    secret_key: &'static str,
    /// The key may be absent (a token): the variable is then unset.
    optional: bool,
}

/// Builds the view of one pipeline, pushing its problems; `None` when the
/// pipeline's own name cannot be converted.
fn document(
    pipeline: &Pipeline,
    kind: ArgoKind,
    problems: &mut Vec<TargetProblem>,
) -> Option<DocumentView> {
    let scheduled = pipeline.schedule.is_some();
    let (api_kind, max_name) = match kind {
        ArgoKind::Template => ("WorkflowTemplate", MAX_NAME),
        ArgoKind::Auto if scheduled => ("CronWorkflow", MAX_CRON_NAME),
        ArgoKind::Auto => ("Workflow", MAX_NAME),
        ArgoKind::Backfill => ("Workflow", MAX_NAME - BACKFILL_SUFFIX),
    };
    let cron_job = api_kind == "CronWorkflow";
    let problem = |task: Option<&str>, code: Code, message: String, help: String| TargetProblem {
        code,
        pipeline: pipeline.name.clone(),
        task: task.map(str::to_owned),
        message,
        help,
        at: At::Name,
    };

    let name = match metadata_name(&pipeline.name, max_name) {
        Ok(name) => Some(name),
        Err(why) => {
            let (message, help) =
                fl803::argo_pipeline_name(&pipeline.name, api_kind, max_name, &why);
            problems.push(problem(None, Code::FL803, message, help));
            None
        }
    };

    if let Some(schedule) = pipeline.schedule.as_ref().map(|s| &s.text) {
        if let Some(why) = schedule_problem(schedule) {
            let (message, help) = fl802::argo_schedule(schedule, &why);
            problems.push(problem(None, Code::FL802, message, help));
        }
    }
    if pipeline.timezone.contains("{{") {
        let (message, help) = fl802::argo_timezone_braces(&pipeline.timezone);
        problems.push(problem(None, Code::FL802, message, help));
    }

    // Task names: lowercase, `_` to `-`; collisions and unconvertible names are FL803.
    let mut task_names: HashMap<&str, String> = HashMap::with_capacity(pipeline.tasks.len());
    let mut seen: HashMap<String, &str> = HashMap::with_capacity(pipeline.tasks.len());
    for task in &pipeline.tasks {
        match task_name(&task.name) {
            Ok(converted) => {
                if let Some(first) = seen.get(&converted) {
                    let (message, help) = fl803::argo_tasks_one_name(first, &task.name, &converted);
                    problems.push(problem(Some(&task.name), Code::FL803, message, help));
                } else {
                    seen.insert(converted.clone(), &task.name);
                }
                task_names.insert(&task.name, converted);
            }
            Err(why) => {
                let (message, help) = fl803::argo_task_name(&task.name, &why);
                problems.push(problem(Some(&task.name), Code::FL803, message, help));
            }
        }
    }

    // Each task on its own, so a large pipeline's are spread over the cores;
    // problems stay in task order.
    let per_run = crate::par::map_runs(&pipeline.tasks, crate::par::cores(), 1000, |run| {
        run.iter()
            .map(|task| {
                let view = task_names.get(task.name.as_str()).map(|dag_name| {
                    task_view(pipeline, task, dag_name, &task_names, kind, cron_job)
                });
                (task_problems(pipeline, task), view)
            })
            .collect::<Vec<_>>()
    });
    let mut tasks = Vec::with_capacity(pipeline.tasks.len());
    for (found, view) in per_run.into_iter().flatten() {
        problems.extend(found);
        tasks.extend(view);
    }

    let mut annotations = Vec::new();
    if let Some(start) = &pipeline.start {
        annotations.push(Annotation {
            key: "flowc.dev/start".into(),
            value: start.to_string(),
        });
    }
    if pipeline.catchup && kind != ArgoKind::Backfill {
        annotations.push(Annotation {
            key: "flowc.dev/catchup".into(),
            value: "requested, but Argo has no catch-up: missed intervals are not run".to_owned(),
        });
    }
    let cron = if cron_job {
        pipeline.schedule.as_ref().map(|schedule| CronView {
            schedule: schedule.text.clone(),
            timezone: pipeline.timezone.clone(),
            starting_deadline_seconds: STARTING_DEADLINE_SECONDS,
        })
    } else {
        None
    };
    let name = name?;
    Some(DocumentView {
        source_file: pipeline.source_file.clone(),
        pipeline: pipeline.name.clone(),
        kind: api_kind,
        label: name.clone(),
        name,
        annotations,
        cron,
        entrypoint: ENTRYPOINT,
        namespace: pipeline.pod.namespace.clone(),
        service_account: pipeline.pod.service_account.clone(),
        pod_labels: pairs(&pipeline.pod.labels),
        pod_annotations: pairs(&pipeline.pod.annotations),
        ttl_seconds: Some(
            pipeline
                .argo_ttl_seconds
                .unwrap_or(DEFAULT_TTL_SECONDS)
                .to_string(),
        ),
        pod_gc: match pipeline.argo_pod_gc.as_deref() {
            Some("none") => None,
            Some(g) => Some(g.to_owned()),
            None => Some(DEFAULT_POD_GC.to_owned()),
        },
        // A run parameter without a value is one `argo submit -p NAME=VALUE`
        // must give; an optional one defaults to the empty string.
        arguments: pipeline
            .params
            .iter()
            .map(|p| ArgumentView {
                name: p.name.clone(),
                value: p.optional.then(String::new),
                has_value: p.optional,
            })
            .collect(),
        has_tasks: !tasks.is_empty(),
        task_views: tasks,
    })
}

/// What a string of a task is, in an FL802 message.
enum Label<'a> {
    Image,
    Argument(usize),
    EnvName,
    EnvValue(&'a str),
    Annotation(&'a str),
}

impl std::fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Label::Image => f.write_str("image"),
            Label::Argument(n) => write!(f, "command argument {n}"),
            Label::EnvName => f.write_str("env name"),
            Label::EnvValue(name) => write!(f, "env `{name}`"),
            Label::Annotation(key) => write!(f, "annotation `{key}`"),
        }
    }
}

/// A string in a one-line message: quoted and escaped like the YAML we
/// write, and cut to about 60 characters around its first `{{`.
fn shown(value: &str) -> String {
    const WIDTH: usize = 60;
    let quoted: Vec<char> = yaml_str(value).chars().collect();
    if quoted.len() <= WIDTH {
        return quoted.into_iter().collect();
    }
    let at = quoted.windows(2).position(|w| w == ['{', '{']).unwrap_or(0);
    let start = at.saturating_sub(WIDTH / 3);
    let end = (start + WIDTH).min(quoted.len());
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(&quoted[start..end]);
    if end < quoted.len() {
        out.push('…');
    }
    out
}

/// The longest Go `time.Duration`, in whole seconds.
const GO_DURATION_MAX_SECONDS: u64 = i64::MAX as u64 / 1_000_000_000;

/// FL801 and FL802 for one task.
fn task_problems(pipeline: &Pipeline, task: &Task) -> Vec<TargetProblem> {
    let mut out = Vec::new();
    let problem = |code: Code, message: String, help: &str| TargetProblem {
        code,
        pipeline: pipeline.name.clone(),
        task: Some(task.name.clone()),
        message,
        help: help.to_owned(),
        at: At::Name,
    };
    if task.image.is_none() {
        let (message, help) = crate::rules::fl801::no_image_on_argo(&task.name);
        out.push(problem(Code::FL801, message, &help));
    }
    // Every string Argo substitutes in, in the order they are written; what
    // each is called is only spelled out for one that holds `{{`.
    let image = task.image.iter().map(|i| (Label::Image, i.as_str()));
    let command = (1..)
        .zip(&task.command)
        .map(|(n, arg)| (Label::Argument(n), arg.as_str()));
    let env = task.env.iter().flat_map(|var| {
        [
            (Label::EnvName, var.name.as_str()),
            (Label::EnvValue(&var.name), var.value.as_str()),
        ]
    });
    let annotations = task
        .pod
        .annotations
        .iter()
        .map(|(k, v)| (Label::Annotation(k), v.as_str()));
    for (what, value) in image.chain(command).chain(env).chain(annotations) {
        if value.contains("{{") {
            let (message, help) = fl802::argo_braces(&what, &shown(value));
            let mut found = problem(Code::FL802, message, &help);
            if matches!(what, Label::Argument(_)) {
                found.at = At::Run;
            }
            out.push(found);
        }
    }
    for (message, help, at) in super::process_problems(task, &super::FLOW_ENV, &pipeline.params) {
        let mut found = problem(Code::FL802, message, help);
        found.at = at;
        out.push(found);
    }
    // Argo reads `retryStrategy.limit` and `activeDeadlineSeconds` as 32-bit
    // integers, and a backoff as a Go duration (at most about 292 years).
    if i32::try_from(task.retries).is_err() {
        let (message, help) = fl802::argo_too_many_retries(task.retries);
        let mut found = problem(Code::FL802, message, &help);
        found.at = At::Retries;
        out.push(found);
    }
    if task.timeout_seconds.is_some_and(|s| s > i32::MAX as u64) {
        let (message, help) =
            fl802::argo_timeout_too_long(task.timeout_seconds.unwrap_or_default());
        let mut found = problem(Code::FL802, message, &help);
        found.at = At::Timeout;
        out.push(found);
    }
    if task.retries > 0 && task.retry_delay_seconds > GO_DURATION_MAX_SECONDS {
        let (message, help) = fl802::argo_retry_delay_too_long(
            &task.name,
            task.retry_delay_seconds,
            GO_DURATION_MAX_SECONDS,
        );
        out.push(problem(Code::FL802, message, &help));
    }
    if task.timeout_seconds == Some(0) {
        let (message, help) = fl802::argo_zero_timeout();
        let mut found = problem(Code::FL802, message, &help);
        found.at = At::Timeout;
        out.push(found);
    }
    if let Some(ns) = task
        .pod
        .namespace
        .as_deref()
        .filter(|ns| pipeline.pod.namespace.as_deref() != Some(*ns))
    {
        let (message, help) =
            fl802::argo_task_namespace(&task.name, ns, pipeline.pod.namespace.as_deref());
        out.push(problem(Code::FL802, message, &help));
    }
    out
}

fn task_view(
    pipeline: &Pipeline,
    task: &Task,
    dag_name: &str,
    names: &HashMap<&str, String>,
    kind: ArgoKind,
    cron_job: bool,
) -> TaskView {
    let depends = task
        .upstream
        .iter()
        .filter_map(|up| names.get(up.as_str()).cloned())
        .collect::<Vec<_>>();
    let retry = (task.retries > 0).then(|| RetryView {
        limit: task.retries,
        // Exit 65 (a deterministic error) is never retried; under `on_ambiguous fail` only
        // 75 (nothing committed) is.
        expression: Some(if task.on_ambiguous == OnAmbiguous::Fail {
            format!("asInt(lastRetry.exitCode) == {EXIT_NOTHING_COMMITTED}")
        } else {
            format!("asInt(lastRetry.exitCode) != {EXIT_INVALID}")
        }),
        comment: retry_comment(task),
        backoff_duration: format!("{}s", task.retry_delay_seconds),
    });
    let mut mutexes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for w in &task.writes {
        mutexes
            .entry(sink_mutex(&w.sink))
            .or_default()
            .insert(format!("sink `{}` ({})", w.sink.name, w.sink.kind));
    }
    let mutexes = mutexes
        .into_iter()
        .map(|(name, sinks)| MutexView {
            name,
            sinks: sinks.into_iter().collect::<Vec<_>>().join(", "),
        })
        .collect();
    let mut env: Vec<EnvView> = task
        .env
        .iter()
        .map(|v| EnvView {
            name: v.name.clone(),
            value: kubernetes_literal(&v.value),
            secret: None,
            secret_key: "url",
            optional: false,
        })
        .collect();
    env.extend(task.secrets.iter().map(|s| EnvView {
        name: s.name.clone(),
        value: String::new(),
        secret: Some(s.secret.clone()),
        secret_key: s.key(),
        optional: s.is_token(),
    }));
    let mut flow = |name: &str, value: &str| {
        env.push(EnvView {
            name: name.to_owned(),
            value: kubernetes_literal(value),
            secret: None,
            secret_key: "url",
            optional: false,
        });
    };
    flow("FLOW_PIPELINE", &pipeline.name);
    flow("FLOW_TASK", &task.name);
    if kind == ArgoKind::Backfill {
        flow("FLOW_INTERVAL_START", BACKFILL_START);
    }
    flow(
        "FLOW_INTERVAL_END",
        if kind == ArgoKind::Backfill {
            BACKFILL_END
        } else if cron_job {
            "{{workflow.scheduledTime}}"
        } else {
            "{{workflow.creationTimestamp}}"
        },
    );
    if let Some(schedule) = &pipeline.schedule {
        flow("FLOW_SCHEDULE", &schedule.text);
    }
    flow("FLOW_TIMEZONE", &pipeline.timezone);
    flow("FLOW_RUN_ID", "{{workflow.uid}}");
    for param in &pipeline.params {
        flow(
            &param.env_name(),
            &format!("{{{{workflow.parameters.{}}}}}", param.name),
        );
    }
    // `retries` exists only in a template with a retryStrategy; it counts from 0.
    flow(
        "FLOW_ATTEMPT",
        if retry.is_some() {
            "{{=asInt(retries) + 1}}"
        } else {
            "1"
        },
    );
    // The template's own metadata: the task's labels and annotations where
    // they differ from the workflow's `podMetadata`, and flowc's notes on the
    // task (unless the task sets those keys itself).
    let own_metadata =
        task.pod.labels != pipeline.pod.labels || task.pod.annotations != pipeline.pod.annotations;
    let mut annotations = if own_metadata {
        pairs(&task.pod.annotations)
    } else {
        Vec::new()
    };
    for (key, value) in task_annotations(pipeline, task) {
        if !task.pod.annotations.contains_key(key) {
            annotations.push(Annotation {
                key: key.into(),
                value,
            });
        }
    }
    TaskView {
        dag_name: dag_name.to_owned(),
        template_name: format!("{TASK_TEMPLATE_PREFIX}{dag_name}"),
        depends: (!depends.is_empty()).then(|| depends.join(" && ")),
        retry,
        active_deadline_seconds: task.timeout_seconds.filter(|s| *s > 0),
        mutexes,
        image: task.image.clone().unwrap_or_default(),
        image_pull_policy: task.pod.image_pull_policy.clone(),
        service_account: task
            .pod
            .service_account
            .clone()
            .filter(|sa| pipeline.pod.service_account.as_ref() != Some(sa)),
        has_metadata: true,
        labels: if own_metadata {
            pairs(&task.pod.labels)
        } else {
            Vec::new()
        },
        annotations,
        has_resources: task.pod.cpu.is_some() || task.pod.memory.is_some(),
        cpu: task.pod.cpu.clone(),
        memory: task.pod.memory.clone(),
        command: task.command.iter().map(|a| kubernetes_literal(a)).collect(),
        env,
    }
}

/// flowc's annotations on a task's pod: where the task is declared, the
/// guarantee it achieves and each output's.
fn task_annotations(pipeline: &Pipeline, task: &Task) -> Vec<(&'static str, String)> {
    let mut out = vec![("flowc.dev/source", super::notes::source(pipeline, task))];
    if let Some(g) = super::notes::achieved(task) {
        out.push(("flowc.dev/guarantee", g.word().to_owned()));
        out.push((
            "flowc.dev/outputs",
            super::notes::outputs_line(task).replace('`', ""),
        ));
    }
    out
}

/// What the exit codes mean for the task's retry expression, as comment
/// lines (the runtime's protocol, docs/reference/language.md).
fn retry_comment(task: &Task) -> Vec<String> {
    let mut lines = vec![
        format!("The task runtime's exit codes: 0 done; {EXIT_NOTHING_COMMITTED} failed and committed nothing;"),
        format!("{EXIT_INVALID} a deterministic error, nothing committed (a retry cannot help); 76 refused to"),
        "run because an earlier attempt may have committed; 70, any other code, a kill or a".to_owned(),
        "lease expiry: failed, and may have committed.".to_owned(),
    ];
    match super::notes::why_fail(task) {
        Some(why) => {
            lines.push(format!(
                "Only {EXIT_NOTHING_COMMITTED} is retried here, under {why}."
            ));
        }
        None => lines.push(format!(
            "Every code but {EXIT_INVALID} is retried here: {}.",
            if task.on_ambiguous_why.is_empty() {
                "on_ambiguous \"retry\""
            } else {
                &task.on_ambiguous_why
            }
        )),
    }
    lines
}

/// A string that Kubernetes' `$(VAR)` expansion in `command`, `args` and env
/// values turns back into `s`: every `$` written as `$$`.
/// The Argo mutex of the system `sink` names: keyed on its kind, its
/// `secret` and its string parameters (table, path, topic...), not on the
/// declaration's name, so that two declarations of one table, in one
/// workflow or in two (a backfill beside the `CronWorkflow`), share it. The
/// key is hashed (FNV-1a, 64 bits; a sink with no string parameter is
/// keyed on its name as well) into a name Argo and Kubernetes take.
pub(crate) fn sink_mutex(sink: &super::ir::Endpoint) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |text: &str| {
        for b in text.bytes().chain([0xff]) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(&sink.kind);
    eat(sink.secret.as_deref().unwrap_or(""));
    let mut named = false;
    for (k, v) in &sink.params {
        if let crate::vocab::ParamValue::String(s) = v {
            eat(k);
            eat(s);
            named = true;
        }
    }
    if !named {
        // Nothing says which table: only the declaration's name does.
        eat(&sink.name);
    }
    format!("flowc-sink-{}-{hash:016x}", sink.kind.replace('_', "-"))
}

pub fn kubernetes_literal(s: &str) -> String {
    s.replace('$', "$$")
}

/// A pipeline name as an Argo `metadata.name`: lowercase, `_` to `-`, a
/// DNS-1123 label of at most `max` characters.
pub fn metadata_name(name: &str, max: usize) -> Result<String, String> {
    let converted = convert(name);
    if converted.is_empty() {
        return Err("it is empty".to_owned());
    }
    if !converted
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(format!(
            "`{converted}` has characters other than a-z, 0-9 and `-`"
        ));
    }
    if converted.starts_with('-') || converted.ends_with('-') {
        return Err(format!(
            "`{converted}` must start and end with a letter or digit"
        ));
    }
    if converted.len() > max {
        return Err(format!(
            "`{converted}` has {} characters, more than {max}",
            converted.len()
        ));
    }
    Ok(converted)
}

/// A task name as an Argo DAG task name (its template adds a prefix).
pub fn task_name(name: &str) -> Result<String, String> {
    let converted = convert(name);
    let ok_chars = converted
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !ok_chars {
        return Err(format!(
            "`{converted}` has characters other than a-z, 0-9 and `-`"
        ));
    }
    if !converted
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
    {
        return Err(format!("`{converted}` must start with a letter or digit"));
    }
    let longest = MAX_FIELD_NAME - TASK_TEMPLATE_PREFIX.len();
    if converted.len() > longest {
        return Err(format!(
            "`{converted}` has {} characters, more than {longest}",
            converted.len()
        ));
    }
    Ok(converted)
}

fn convert(name: &str) -> String {
    name.to_lowercase().replace('_', "-")
}

/// Month and weekday names robfig/cron reads (case-insensitive).
const CRON_NAMES: [&str; 19] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec", "sun",
    "mon", "tue", "wed", "thu", "fri", "sat",
];

/// Why robfig/cron (Argo's parser) would read a five-field schedule
/// differently from `.flow`, if it would: it has no `7` for Sunday and no
/// `L`, `W` or `#`.
fn schedule_problem(schedule: &str) -> Option<String> {
    if schedule.starts_with('@') {
        return None;
    }
    let fields: Vec<&str> = schedule.split_whitespace().collect();
    if fields.len() != 5 {
        return Some(format!("it has {} fields, not 5", fields.len()));
    }
    if let Some(c) = schedule
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '*' | ',' | '-' | '/' | ' ' | '?')))
    {
        return Some(format!("robfig/cron does not read `{c}`"));
    }
    let sunday_seven = fields[4].split(',').any(|part| {
        let range = part.split('/').next().unwrap_or_default();
        range.split('-').any(|v| v == "7")
    });
    if sunday_seven {
        return Some("robfig/cron has no `7` for Sunday in the day-of-week field".to_owned());
    }
    let unknown = schedule.split([',', '-', '/', ' ']).find(|t| {
        t.chars().any(|c| c.is_ascii_alphabetic())
            && !CRON_NAMES.contains(&t.to_ascii_lowercase().as_str())
    });
    if let Some(token) = unknown {
        return Some(format!("robfig/cron does not read `{token}`"));
    }
    None
}
