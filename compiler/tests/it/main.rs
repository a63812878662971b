//! The integration tests, as one test binary (`cargo test --test it`): one
//! module per area, sharing the helpers of [`common`]. One binary links
//! once and runs every test on the same thread pool; run one area with
//! `cargo test --test it airflow::`.
//!
//! The in-process helpers of [`common`] run from the repository root (so
//! paths show as `tests/...`); every test that starts `flowc` passes its
//! own `current_dir`, and no test depends on the folder it starts in.

mod common;

mod airflow;
mod argo;
mod audit;
mod backfill;
mod cascades;
mod check_controls;
mod cli;
mod cli_consistency;
mod config;
mod contract;
mod contributing;
mod debug_notes;
mod deployable;
mod determinism;
mod docs;
mod examples;
mod findings;
mod fix;
mod fmt;
mod hardening_codegen;
mod hardening_env;
mod hardening_files;
mod hardening_input;
mod hardening_render;
mod hardening_secrets;
mod hardening_values;
mod hardening_walk;
mod ir_target;
mod kinds;
mod layering;
mod lsp;
mod lsp_hardening;
mod messages;
mod model_v02_keys;
mod model_v02_loss;
mod model_v02_state;
mod model_v03_anomalies;
mod model_v03_modes;
mod model_v03_scope;
mod output_safety;
mod params;
mod placeholders;
mod proptest_ast;
mod reach;
mod robustness;
mod rules;
mod scaffold;
mod scaffold_spark;
mod schedule_words;
mod settings;
mod versions;
mod walkthrough;
