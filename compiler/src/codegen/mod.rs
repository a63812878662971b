//! Code generation: one module per target, all rendering from [`ir`].

pub mod airflow;
pub mod argo;
pub mod backfill;
mod helpers;
pub mod ir;
pub mod lower;
mod notes;
pub mod places;
pub mod python;
mod python_names;
pub mod quote;
pub mod reach;
pub mod state;
pub mod target;
pub mod writer;

use crate::diagnostic::Code;
use crate::rules::fl802;
/// Environment variables the generated Argo definitions set for the task
/// runtime (Airflow's operator sets the first six); a task's own `env` may
/// not use the names its target sets.
pub(crate) const FLOW_ENV: [&str; 8] = [
    "FLOW_PIPELINE",
    "FLOW_TASK",
    "FLOW_INTERVAL_START",
    "FLOW_INTERVAL_END",
    "FLOW_RUN_ID",
    "FLOW_ATTEMPT",
    "FLOW_SCHEDULE",
    "FLOW_TIMEZONE",
];

/// What no process can be started with, on any target: `(problem, help,
/// where)` for each string of the task's argv, image and env that holds a
/// NUL character, and each `env` name in `reserved`, which the target sets,
/// or that is the `FLOW_PARAM_` variable of one of the pipeline's `params`.
pub(crate) fn process_problems(
    task: &ir::Task,
    reserved: &[&str],
    params: &[ir::RunParam],
) -> Vec<(String, &'static str, At)> {
    let mut out = Vec::new();
    let nul = fl802::NUL_HELP;
    for (n, arg) in (1usize..).zip(&task.command) {
        if arg.contains('\0') {
            out.push((fl802::nul_in_argument(n, &task.name), nul, At::Run));
        }
    }
    if task.image.as_deref().is_some_and(|i| i.contains('\0')) {
        out.push((fl802::nul_in_image(&task.name), nul, At::Name));
    }
    for var in &task.env {
        if var.name.contains('\0') || var.value.contains('\0') {
            out.push((
                fl802::nul_in_env(&var.name.replace('\0', "\\u{0}"), &task.name),
                nul,
                At::Name,
            ));
        }
        if reserved.contains(&var.name.as_str()) || params.iter().any(|p| p.env_name() == var.name)
        {
            out.push((
                fl802::reserved_env(&var.name),
                fl802::RESERVED_ENV_HELP,
                At::Name,
            ));
        } else if reserved_name(&var.name) {
            out.push((
                fl802::reserved_env_read(&var.name),
                fl802::RESERVED_ENV_HELP,
                At::Name,
            ));
        }
    }
    out
}

/// The runtime's variables that only tune an attempt (its batch size, how
/// often it logs progress), which a task's `env` may set.
pub(crate) const TUNING_ENV: [&str; 2] = ["FLOWC_BATCH_ROWS", "FLOWC_PROGRESS_SECONDS"];

/// Whether a task's `env` may not set `name` on any target: the runtime
/// reads `FLOW_*` and `FLOWC_*` (`FLOWC_STATE` would move a pod's state
/// into a throw-away file), except the two families a user supplies
/// himself: `FLOW_CONN_<NAME>` (FL808 warns when it shadows a declared
/// connection) and `FLOW_TOKEN_<NAME>` (FL010 warns on a written value),
/// and the runtime's tuning knobs, [`TUNING_ENV`].
pub(crate) fn reserved_name(name: &str) -> bool {
    (name.starts_with("FLOWC_") && !TUNING_ENV.contains(&name))
        || (name.starts_with("FLOW_")
            && !name.starts_with("FLOW_CONN_")
            && !name.starts_with("FLOW_TOKEN_"))
}

/// Items per string of [`render_each`]: about 300 KB of Argo YAML.
const RENDER_BATCH: usize = 256;

/// Render `template` once per item, with the item alone as its context, on
/// all cores: one context holding every task makes handlebars walk and copy
/// far more than each task needs. Every line with text gets `indent` before
/// it. The items are rendered in batches, each batch's text one string, in
/// item order: no string grows to the size of the whole output.
pub(crate) fn render_each<T: serde::Serialize + Sync>(
    registry: &handlebars::Handlebars<'static>,
    template: &str,
    items: &[T],
    indent: &str,
) -> Result<Vec<String>, handlebars::RenderError> {
    let render = |run: &[T]| {
        let mut out = String::new();
        for item in run {
            let text = registry.render(template, item)?;
            if indent.is_empty() {
                out.push_str(&text);
            } else {
                push_indented(&mut out, &text, indent);
            }
        }
        Ok(out)
    };
    let batches: Vec<&[T]> = items.chunks(RENDER_BATCH).collect();
    let threads = if items.len() < 64 {
        1
    } else {
        crate::par::cores()
    };
    crate::par::map_each(&batches, threads, |batch| render(batch))
        .into_iter()
        .collect()
}

/// Append `text` with `indent` before every line that has text.
fn push_indented(out: &mut String, text: &str, indent: &str) {
    for line in text.split_inclusive('\n') {
        if line != "\n" {
            out.push_str(indent);
        }
        out.push_str(line);
    }
}

/// One file a generator wants written, relative to the output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// A relative path using `/`; checked to stay inside `--out` before writing.
    pub path: String,
    /// The text, or its first piece (see [`GeneratedFile::text`]).
    pub contents: String,
    /// The rest of the text, in order: a large file rendered in pieces on
    /// several cores is written piece by piece, never joined in memory.
    pub more: Vec<String>,
    /// The pipeline the file is for, if one: a problem writing it is
    /// reported at that pipeline's name, and two pipelines of different
    /// `.flow` files may not claim one path (FL803).
    pub pipeline: Option<String>,
    /// The name the file's definition takes in the scheduler besides its
    /// path (an Argo resource's `metadata.name`), which two pipelines of a
    /// run may not share either.
    pub claim: Option<String>,
    /// Whether an existing file at `path` is replaced.
    pub write: WritePolicy,
}

/// What happens to a file already at a [`GeneratedFile`]'s path.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WritePolicy {
    /// Replaced, if flowc generated it (a file it did not is refused).
    #[default]
    Always,
    /// Left as it is, and named as kept (a file the user edits, such as a
    /// transform stub); written only where nothing exists yet.
    IfAbsent,
    /// Left as it is without a word (a package's `__init__.py`).
    IfAbsentQuietly,
}

impl GeneratedFile {
    pub fn new(path: String, contents: String) -> Self {
        GeneratedFile {
            path,
            contents,
            more: Vec::new(),
            pipeline: None,
            claim: None,
            write: WritePolicy::Always,
        }
    }

    /// The same file, for `pipeline`.
    #[must_use]
    pub fn for_pipeline(mut self, pipeline: &str) -> Self {
        self.pipeline = Some(pipeline.to_owned());
        self
    }

    /// The whole text.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        if self.more.is_empty() {
            std::borrow::Cow::Borrowed(&self.contents)
        } else {
            std::borrow::Cow::Owned(self.pieces().collect())
        }
    }

    /// The text's pieces, in order.
    pub fn pieces(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.contents.as_str()).chain(self.more.iter().map(String::as_str))
    }
}

/// A problem a generator found that makes a pipeline impossible to emit
/// for its target (`FL8xx`). The caller attaches the span of the named task
/// (or of the pipeline when `task` is `None`), or of the statement `at`
/// names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetProblem {
    pub code: Code,
    pub pipeline: String,
    pub task: Option<String>,
    pub message: String,
    pub help: String,
    /// Where in the task the problem is.
    pub at: At,
}

/// The part of a task a [`TargetProblem`] is about; its finding points there.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum At {
    /// The task's (or pipeline's) name.
    #[default]
    Name,
    /// The task's `run` statement.
    Run,
    /// The `read` of the named source.
    Read(String),
    /// The `write` to the named sink.
    Write(String),
    /// The `emit` of the named effect.
    Emit(String),
    /// The `retries` line in force for the task (its own, else its pipeline's).
    Retries,
    /// The `timeout` line in force for the task (its own, else its pipeline's).
    Timeout,
}
