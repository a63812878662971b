//! Source text to syntax tree.

pub mod ast;
pub mod escape;
pub mod parser;
pub mod problem;

pub use parser::parse;
