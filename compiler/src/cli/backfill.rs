//! `flowc backfill`: print (or write with `--out`) what runs every interval
//! of a scheduled pipeline between two dates (`docs/targets/backfill.md`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use jiff::civil::Date;

use super::{print, usage_error};
use crate::codegen::{backfill, lower, places};
use crate::diagnostic;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum BackfillTarget {
    /// One Argo `Workflow` per interval (Argo runs no missed interval itself)
    Argo,
    /// Airflow 3's `airflow backfill create` command for the window
    Airflow,
}

/// The arguments of `flowc backfill`.
#[derive(Args)]
pub(super) struct BackfillArgs {
    /// The first day whose intervals run (YYYY-MM-DD, in the pipeline's time zone)
    #[arg(long, value_parser = parse_date)]
    from: Date,
    /// The last day whose intervals run (YYYY-MM-DD, included)
    #[arg(long, value_parser = parse_date)]
    to: Date,
    /// The scheduler to run the intervals on
    #[arg(long, value_enum, default_value = "argo")]
    target: BackfillTarget,
    /// The pipeline, when the file has more than one scheduled pipeline
    #[arg(long)]
    pipeline: Option<String>,
    /// Write the output to this file (replaced atomically) instead of printing it
    #[arg(long)]
    out: Option<PathBuf>,
    /// The .flow file
    file: PathBuf,
}

fn parse_date(text: &str) -> Result<Date, String> {
    let well_formed = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    if !well_formed {
        return Err(format!("`{text}` is not a date: write YYYY-MM-DD"));
    }
    text.parse::<Date>()
        .map_err(|e| format!("`{text}` is not a date ({e})"))
}

fn refused(r: &backfill::Refusal) -> ExitCode {
    usage_error(&format!("{}\n  help: {}", r.message, r.help))
}

pub(super) fn run(args: &BackfillArgs) -> ExitCode {
    let mut outcome = match crate::io::read::check_paths(std::slice::from_ref(&args.file)) {
        Ok(outcome) => outcome,
        Err(e) => return usage_error(&e),
    };
    let Some(&file) = outcome.roots.first() else {
        return usage_error(&format!(
            "`{}` is not a .flow file",
            crate::io::read::display(&args.file)
        ));
    };
    if outcome.file_has_errors(file) || outcome.broken.contains(&file) {
        return findings(&outcome);
    }
    let pipelines = lower::pipelines_of(&outcome, file);
    let pipeline = match choose(&pipelines, args.pipeline.as_deref()) {
        Ok(p) => p,
        Err(r) => return refused(&r),
    };
    let intervals = match backfill::intervals(pipeline, args.from, args.to) {
        Ok(i) => i,
        Err(r) => return refused(&r),
    };
    let text = match args.target {
        BackfillTarget::Airflow => backfill::airflow(pipeline, args.from, args.to, &intervals),
        BackfillTarget::Argo => match backfill::argo(pipeline, args.from, args.to, &intervals) {
            Ok(text) => text,
            Err(backfill::ArgoRefusal::TooLarge(r)) => return refused(&r),
            Err(backfill::ArgoRefusal::Problems(problems)) => {
                let decl_names = places::Places::decl_names(&outcome);
                let at = places::Places::of(&outcome, file, &decl_names);
                let found = places::problems_to_diagnostics(&at, problems);
                outcome.diagnostics.extend(found);
                return findings(&outcome);
            }
        },
    };
    match &args.out {
        None => {
            print(&text);
            ExitCode::SUCCESS
        }
        Some(out) => write(out, &text, intervals.len()),
    }
}

fn write(out: &Path, text: &str, count: usize) -> ExitCode {
    match crate::io::write::write_atomic(out, text) {
        Ok(()) => {
            eprintln!(
                "flowc: wrote the backfill of {} to {}",
                super::build::plural(count, "interval"),
                super::shown_path(out)
            );
            ExitCode::SUCCESS
        }
        Err(e) => usage_error(&format!(
            "cannot write `{}`: {}",
            super::shown_path(out),
            crate::io::read::io_words(&e)
        )),
    }
}

/// The file's errors, on standard error (standard output is the backfill's).
fn findings(outcome: &crate::check::Outcome) -> ExitCode {
    let mut diags = outcome.diagnostics.clone();
    diagnostic::sort(&mut diags, &outcome.sources);
    let summary = outcome.summary();
    eprint!(
        "{}",
        diagnostic::human::render(&outcome.sources, &diags, summary, false)
    );
    ExitCode::from(1)
}

/// The pipeline to backfill: the one named, else the file's only scheduled one.
fn choose<'a>(
    pipelines: &'a [crate::codegen::ir::Pipeline],
    name: Option<&str>,
) -> Result<&'a crate::codegen::ir::Pipeline, backfill::Refusal> {
    let names = || {
        pipelines
            .iter()
            .map(|p| format!("`{}`", p.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(name) = name {
        return pipelines
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| backfill::Refusal {
                message: format!("no pipeline `{name}` in the file"),
                help: format!("the file has {}", names()),
            });
    }
    let scheduled: Vec<_> = pipelines.iter().filter(|p| p.schedule.is_some()).collect();
    match (scheduled.as_slice(), pipelines) {
        ([one], _) => Ok(*one),
        ([], [one]) => Ok(one),
        ([], []) => Err(backfill::Refusal {
            message: "the file has no pipeline".to_owned(),
            help: "name a file that declares a scheduled pipeline".to_owned(),
        }),
        ([], _) => Err(backfill::Refusal {
            message: "the file has no scheduled pipeline: a manual pipeline has no intervals to backfill".to_owned(),
            help: format!("its pipelines are {}; trigger a manual one once per run, with its `param` settings", names()),
        }),
        _ => Err(backfill::Refusal {
            message: "the file has several scheduled pipelines".to_owned(),
            help: format!(
                "choose one with `--pipeline NAME`: {}",
                scheduled
                    .iter()
                    .map(|p| format!("`{}`", p.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
    }
}
