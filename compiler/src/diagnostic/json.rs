//! json output.
