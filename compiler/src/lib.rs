//! flowc: a compiler and linter for `.flow` pipeline specs.
//!
//! The core is pure: source text in, AST, diagnostics and generated files out.
//! The CLI (`cli`) wraps it with the file system and the terminal.

pub mod codegen;
pub mod format;
pub mod graph;
pub mod init;
