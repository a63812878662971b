//! github output.
