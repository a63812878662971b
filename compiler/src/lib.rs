//! flowc: a compiler and linter for `.flow` pipeline specs.
//!
//! The core is pure: source text in, AST, diagnostics and generated files out.
//! Only [`io`] and the CLI (`cli`) touch the file system or the environment
//! (reads behind `check::Loader`, writes behind `codegen::writer::Writer`,
//! both implemented in `io`); the CLI also owns the terminal. Modules depend
//! on each other one way (`compiler/tests/it/layering.rs` lists the layers
//! and fails on a cycle or an edge to a higher layer).
//!
//! - [`span`], [`source`], [`par`]: byte spans, the files of a run, threads.
//! - [`vocab`]: the language's words: guarantees, modes, pins, key terms.
//! - [`syntax`]: pest grammar to a typed AST with byte spans.
//! - [`analyze`]: imports, names and literals, the task graph, guarantees.
//! - [`rules`]: the rule catalog, one file per rule, and suppressions.
//! - [`check`]: the driver from files to findings, above `analyze` and `rules`.
//! - [`diagnostic`]: findings, every rule code, and their human, JSON, SARIF
//!   and GitHub forms.
//! - [`config`]: `flowc.toml` and `[tool.flowc]`: rule selection, severities, excludes.
//! - [`suggest`]: "did you mean" for every phase.
//! - [`fix`]: the findings' machine-applicable fixes, as edits (`flowc check --fix`).
//! - [`io`]: reading `.flow` files; writing files confined to a folder, atomically.
//! - [`codegen`]: Airflow, Argo and Python scaffolding.
//! - [`kinds`]: the standard library's kinds and what they offer (`flowc kinds`).
//! - [`format`], [`graph`], [`init`], [`report`]: `flowc fmt`, `flowc graph`,
//!   `flowc init`, `flowc report`.
//! - [`audit`]: `flowc audit`: the plan of a deployment's audit, the verdict
//!   on what the runtime's reader observed, and its renderings.
//! - [`lsp`]: `flowc lsp`, the language server, on [`check`] and [`format`].
//! - [`invariants`]: what holds for every input; shared by the tests and fuzzers.

pub mod analyze;
pub mod audit;
pub mod check;
pub mod cli;
pub mod codegen;
pub mod config;
pub mod diagnostic;
pub mod fix;
pub mod format;
pub mod graph;
pub mod init;
pub mod invariants;
pub mod io;
pub mod kinds;
pub mod lsp;
pub mod par;
pub mod report;
pub mod rules;
pub mod schedule;
pub mod source;
pub mod span;
pub mod suggest;
pub mod syntax;
pub mod vocab;
