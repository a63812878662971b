//! The file system: the only module besides the command line that touches
//! it. [`read`](mod@read) finds and reads `.flow` files (the [`crate::check::Loader`]
//! of a run); [`write`](mod@write) writes generated and formatted files, confined to
//! their folder and atomically.

pub mod read;
pub mod write;
