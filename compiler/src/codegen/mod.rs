//! Code generation: one module per target, all rendering from [`ir`].

pub mod airflow;
pub mod argo;
pub mod emit;
pub mod ir;
pub mod lower;
pub mod python;
pub mod quote;

/// One file a generator wants written, relative to the output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// A relative path using `/`; checked to stay inside `--out` before writing.
    pub path: String,
    pub contents: String,
}

/// A problem a generator found that makes a pipeline impossible to emit
/// for its target (`FL8xx`). The caller attaches the span of the named task
/// (or of the pipeline when `task` is `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetProblem {
    pub code: &'static str,
    pub pipeline: String,
    pub task: Option<String>,
    pub message: String,
    pub help: String,
}
