//! sarif output.
