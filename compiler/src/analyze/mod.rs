//! The analysis of resolved programs: imports, names and literals
//! (`resolve`), the task graph (`graph`) and derived guarantees
//! (`guarantee`). The driver that runs it over files is `check`.

pub mod anomaly;
pub mod graph;
pub mod guarantee;
pub mod literal;
pub mod model;
pub mod pod;
pub mod problem;
pub mod resolve;
pub mod scope;
pub mod settings;
pub mod state;

pub use guarantee::{Analysis, OutputReport, PipelineReport, TaskReport};
pub use model::Program;
