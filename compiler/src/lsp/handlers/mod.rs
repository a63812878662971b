//! One file per request or group of notifications, each with a `handle`
//! (or notification functions) that [`super::server`] dispatches to by the
//! protocol's types, and the pure function it answers with, read off a
//! [`super::Snapshot`] (one check of the open documents): nothing here
//! analyses a file again.

// Every handler takes its parameters by value, as the dispatch hands them
// over (one function type for all), whether or not it keeps them.
#![allow(clippy::needless_pass_by_value)]

pub mod code_action;
pub mod completion;
pub mod definition;
pub mod documents;
pub mod formatting;
pub mod hover;
pub mod inlay_hints;
pub mod references;
pub mod symbols;
