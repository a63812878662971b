//! human output.
