//! `flowc kinds`: the kinds a run sees, with their roles, pins, writes,
//! capabilities and parameters (`crate::kinds` builds the catalogue).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::{exit_without_freeing, not_found, print, usage_error};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum KindsFormat {
    /// One block per kind, for people
    Text,
    /// `{"version": 1, "kinds": [...]}`
    Json,
    /// The page docs/reference/kinds.md
    Markdown,
}

#[derive(Args)]
pub(super) struct KindsArgs {
    /// Show only this kind
    name: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    format: KindsFormat,
    /// Files, or folders searched recursively for *.flow, whose kinds are listed too
    #[arg(long = "from", value_name = "PATH")]
    from: Vec<PathBuf>,
}

pub(super) const AFTER_HELP: &str = "\
Examples:
  flowc kinds                          every kind of the standard library
  flowc kinds postgres_table           one kind
  flowc kinds --from pipelines/        the standard library's kinds and those your files declare
  flowc kinds --format json | jq '.kinds[].name'

Exit status: 0 listed; 1 the --from files have errors (the kinds that resolved are still listed); 2 no such kind, or the command could not run.";

pub(super) fn run(args: &KindsArgs) -> ExitCode {
    let outcome = if args.from.is_empty() {
        crate::check::check(Vec::new(), &crate::check::NoImports)
    } else {
        match crate::io::read::check_paths(&args.from) {
            Ok(o) => o,
            Err(e) => return usage_error(&e),
        }
    };
    let mut entries = crate::kinds::catalogue(&outcome);
    if let Some(name) = &args.name {
        if !entries.iter().any(|e| &e.name == name) {
            let near =
                crate::suggest::closest_or_start(name, entries.iter().map(|e| e.name.as_str()));
            exit_without_freeing(outcome);
            return usage_error(&not_found("kind", name, near, "flowc kinds"));
        }
        entries.retain(|e| &e.name == name);
    }
    print(&match args.format {
        KindsFormat::Text => crate::kinds::text(&entries),
        KindsFormat::Json => crate::kinds::json(&entries),
        KindsFormat::Markdown => crate::kinds::markdown(&entries),
    });
    let errors = outcome.summary().errors > 0;
    if errors {
        eprintln!("flowc: the files have errors; run `flowc check` for details");
    }
    exit_without_freeing(outcome);
    ExitCode::from(u8::from(errors))
}
