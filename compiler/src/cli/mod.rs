//! The command line: files and the terminal around the pure core. Lives in
//! the library so every binary that installs `flowc` is the same one line.

use std::fmt::Write as _;
use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Parser, Subcommand, ValueEnum};

use crate::analyze;
use crate::diagnostic::{self, Summary};
use crate::files::check_paths;
use crate::rules::registry;

const EXAMPLES: &str = "\
Examples:
  flowc check examples/                      check every .flow file under examples/
  flowc check --format json pipeline.flow    findings as JSON (shape: docs/json.md)
  flowc report examples/orders.flow          the guarantee each output gets
  flowc explain FL101                        what a rule catches and how to fix it

Exit status: 0 no errors; 1 errors (or warnings with --deny-warnings); 2 the command could not run.";

#[derive(Parser)]
#[command(
    name = "flowc",
    version,
    about = "Compile and lint .flow pipeline specs: derive the delivery guarantee of every output",
    long_about = "flowc reads .flow files, which declare for every scheduled task how its input is pinned, \
its dedup key, how its sink applies a write and which side effects escape. It derives the delivery \
guarantee each output really gets (exactly-once, effectively-once, at-least-once, at-most-once), rejects \
unsafe combinations, and emits Airflow and Argo definitions that carry the right retry policy.",
    after_help = EXAMPLES
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CheckFormat {
    /// Rendered diagnostics for people (colour only on a terminal; `NO_COLOR` honoured)
    Human,
    /// The versioned JSON of RULES.md
    Json,
    /// SARIF 2.1.0, for code-scanning tools
    Sarif,
    /// GitHub Actions workflow-command annotations
    Github,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ReportFormat {
    /// A table per pipeline
    Human,
    /// The versioned JSON of RULES.md
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Check .flow files and report findings
    #[command(after_help = "\
Examples:
  flowc check                          every .flow file under the current folder
  flowc check examples/ more.flow      folders are searched recursively for *.flow
  flowc check --format sarif . > flowc.sarif
  flowc check --deny-warnings pipeline.flow

Exit status: 0 no errors; 1 errors (or warnings with --deny-warnings); 2 the command could not run.")]
    Check {
        /// Files, or folders searched recursively for *.flow (default: the current folder)
        paths: Vec<PathBuf>,
        /// Output format
        #[arg(long, value_enum, default_value = "human")]
        format: CheckFormat,
        /// Exit 1 on warnings too
        #[arg(long)]
        deny_warnings: bool,
    },
    /// Print the delivery guarantee derived for every output
    #[command(after_help = "\
Examples:
  flowc report examples/orders.flow
  flowc report --format json examples/ | jq '.pipelines[].tasks[].achieved'

A file that does not parse or whose names do not resolve has no report.
Exit status: 0 no errors; 1 the files have errors (the report is still printed); 2 the command could not run.")]
    Report {
        /// Files, or folders searched recursively for *.flow (default: the current folder)
        paths: Vec<PathBuf>,
        /// Output format
        #[arg(long, value_enum, default_value = "human")]
        format: ReportFormat,
    },
    /// Explain a rule: what it catches, why it matters, an unsafe example, the fix
    #[command(after_help = "\
Examples:
  flowc explain FL201
  flowc explain check-then-append")]
    Explain {
        /// A rule code (FL201) or name (check-then-append)
        rule: String,
    },
    /// List every rule, one per line
    #[command(after_help = "Example:\n  flowc rules | grep offsets")]
    Rules,
    /// Compile pipelines to scheduler definitions (Airflow DAG files or Argo YAML)
    #[command(after_help = "\
Examples:
  flowc build --target airflow --out dags/ examples/
  flowc build --target argo --out k8s/ examples/orders.flow
  flowc build --target argo --argo-kind template --out k8s/ pipeline.flow

One file per pipeline. Nothing is written for a .flow file with errors, and no
file that flowc did not generate is replaced. Files generated earlier from the
same .flow files for pipelines they no longer have are removed (--keep-stale lists them).
Exit status: as for `flowc check`.")]
    Build {
        /// The scheduler to compile for
        #[arg(long, value_parser = target_names())]
        target: String,
        /// The folder to write into (created if missing)
        #[arg(long)]
        out: PathBuf,
        /// For Argo: `auto` (`CronWorkflow` when scheduled, else Workflow) or `template` (`WorkflowTemplate`)
        #[arg(long, value_enum, default_value = "auto")]
        argo_kind: ArgoKindArg,
        /// List the files earlier builds generated for pipelines that are gone, instead of removing them
        #[arg(long)]
        keep_stale: bool,
        /// Files, or folders searched recursively for *.flow (default: the current folder)
        paths: Vec<PathBuf>,
    },
    /// Generate Python task modules, their runtime, and transform stubs you fill in
    #[command(after_help = "\
Examples:
  flowc scaffold --lang python --out tasks/ examples/orders.flow
  flowc scaffold --lang python --out . pipelines/

For every task: a generated module that applies the task's declarations (pin, key,
write protocol, outbox, exit codes), rewritten on every run, and a transform module
that is created only when absent, so your code is never overwritten. A kind with no
runtime yet is FL805. Exit status: as for `flowc check`.")]
    Scaffold {
        /// The language to generate
        #[arg(long, value_enum)]
        lang: Lang,
        /// The folder to write into (created if missing)
        #[arg(long)]
        out: PathBuf,
        /// Files, or folders searched recursively for *.flow (default: the current folder)
        paths: Vec<PathBuf>,
    },
    /// Format .flow files in place in the one canonical layout
    #[command(after_help = "\
Examples:
  flowc fmt                     format every .flow file under the current folder
  flowc fmt --check examples/   print a diff and exit 1 if a file would change

Comments stay where they are; formatting never changes what a file means.
Exit status: 0 formatted (or nothing to change); 1 a file would change (--check) or cannot be formatted; 2 the command could not run.")]
    Fmt {
        /// Files, or folders searched recursively for *.flow (default: the current folder)
        paths: Vec<PathBuf>,
        /// Change nothing; show what would change and exit 1 if anything would
        #[arg(long)]
        check: bool,
    },
    /// Draw a file's task graph: tasks, sources, sinks and effects, outputs coloured by guarantee
    #[command(after_help = "\
Examples:
  flowc graph examples/revenue_daily.flow | dot -Tsvg > revenue.svg
  flowc graph --format mermaid examples/revenue_daily.flow

Every pipeline of the file is drawn (one graph each); --pipeline picks one.")]
    Graph {
        /// The .flow file
        file: PathBuf,
        /// Output format
        #[arg(long, value_enum, default_value = "dot")]
        format: GraphFormat,
        /// Draw only this pipeline
        #[arg(long)]
        pipeline: Option<String>,
    },
    /// Create a starter project: a pipeline, a pre-commit config and a README
    #[command(after_help = "\
Examples:
  flowc init                 in the current folder
  flowc init my-pipelines    in a new folder

Nothing is overwritten: init stops (exit 2) if any of its files exists.")]
    Init {
        /// The folder to create the project in (default: the current folder)
        dir: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Lang {
    #[value(help = "Python 3.11+ (SQLite, PostgreSQL, local files, Delta Lake)")]
    Python,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GraphFormat {
    /// Graphviz DOT (`dot -Tsvg`)
    Dot,
    /// A Mermaid `flowchart`
    Mermaid,
}

/// `--target`: the names of [`crate::codegen::target::TARGETS`], each with its help line.
fn target_names() -> PossibleValuesParser {
    PossibleValuesParser::new(
        crate::codegen::target::TARGETS
            .iter()
            .map(|t| PossibleValue::new(t.name).help(t.about)),
    )
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ArgoKindArg {
    Auto,
    Template,
}

/// The command is done and the process exits next: leave the memory of a
/// large check to the operating system instead of freeing it piece by piece.
fn exit_without_freeing(outcome: analyze::Outcome) {
    std::mem::forget(outcome);
}

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

fn color_wanted() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal()
}

fn print(s: &str) {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`flowc check | head`) is not an error worth a panic.
    let _ = out.write_all(s.as_bytes());
    let _ = out.flush();
}

/// Print findings in the human format (to stderr when stdout carries other output).
fn print_findings(outcome: &analyze::Outcome) -> Summary {
    let summary = outcome.summary();
    let text = diagnostic::human::render(
        &outcome.sources,
        &outcome.diagnostics,
        summary,
        color_wanted(),
    );
    print(&text);
    summary
}

/// What [`generate_into`] did.
struct Run {
    code: ExitCode,
    /// The paths written, relative to the output folder.
    written: std::collections::BTreeSet<String>,
    /// The `.flow` files whose outputs were all written, as headers name them.
    sources: std::collections::BTreeSet<String>,
    /// What the generator said it kept, for the files whose outputs were written.
    kept: std::collections::BTreeSet<String>,
}

/// The files of `files` to write, and the paths of those left as they were
/// because their [`WritePolicy`](crate::codegen::WritePolicy) keeps an
/// existing file (the quiet ones are not named).
fn apply_write_policy(
    out: &std::path::Path,
    files: Vec<crate::codegen::GeneratedFile>,
) -> (Vec<crate::codegen::GeneratedFile>, Vec<String>) {
    use crate::codegen::{emit, WritePolicy};
    let mut write = Vec::with_capacity(files.len());
    let mut kept = Vec::new();
    for f in files {
        let exists = f.write != WritePolicy::Always
            && emit::confined(out, &f.path).is_ok_and(|p| p.symlink_metadata().is_ok());
        if !exists {
            write.push(f);
        } else if f.write == WritePolicy::IfAbsent {
            kept.push(f.path);
        }
    }
    (write, kept)
}

/// Check the files, run `generate` on the pipelines of each file without
/// errors, and write what it returns inside `out` (as each file's
/// [`WritePolicy`](crate::codegen::WritePolicy) says), all of a `.flow`
/// file's outputs or none. Prints the findings (target problems included).
fn generate_into(
    paths: &[PathBuf],
    out: &std::path::Path,
    mut generate: impl FnMut(&[crate::codegen::ir::Pipeline]) -> crate::codegen::target::Output,
) -> Result<Run, ExitCode> {
    use crate::codegen::{emit, lower};
    let mut outcome = check_paths(paths).map_err(|e| usage_error(&e))?;
    std::fs::create_dir_all(out).map_err(|e| {
        usage_error(&format!(
            "cannot create `{}`: {}",
            out.display(),
            crate::files::io_words(&e)
        ))
    })?;
    // Shared support files are written once per .flow file; count them once.
    let mut written = std::collections::BTreeSet::new();
    let mut sources = std::collections::BTreeSet::new();
    let mut kept = std::collections::BTreeSet::new();
    let mut extra = Vec::new();
    // Nothing is written for a file with errors.
    let decl_names = emit::Places::decl_names(&outcome);
    let lowered: Vec<_> = outcome
        .roots
        .iter()
        .filter(|&&file| !outcome.file_has_errors(file) && !outcome.broken.contains(&file))
        .map(|&file| {
            let places = emit::Places::of(&outcome, file, &decl_names);
            (places, lower::pipelines_of(&outcome, file))
        })
        .filter(|(_, pipelines)| !pipelines.is_empty())
        .collect();
    // The model and the analysis are in the pipelines now: free them (on
    // the other core) before the output takes their memory.
    let model = (
        std::mem::take(&mut outcome.program),
        std::mem::take(&mut outcome.analysis),
    );
    std::thread::spawn(move || drop(model));
    // Everything is generated before anything is written: pipelines of
    // different files may not claim one output (FL803).
    let mut left_alone = Vec::new();
    let mut generated: Vec<_> = lowered
        .iter()
        .map(|(places, pipelines)| {
            let result = generate(pipelines)
                .map(|files| apply_write_policy(out, files))
                .map(|(files, kept)| {
                    left_alone.push(kept);
                    files
                })
                .map_err(|p| {
                    left_alone.push(Vec::new());
                    emit::problems_to_diagnostics(places, p)
                });
            (places, result)
        })
        .collect();
    emit::claims_across_files(&mut generated);
    for (((places, result), (_, pipelines)), left) in
        generated.into_iter().zip(&lowered).zip(left_alone)
    {
        match result {
            Ok(files) => {
                let (count, problems) = emit::write_counted(out, &files, places);
                if problems.is_empty() {
                    sources.extend(pipelines.first().map(|p| p.source_file.clone()));
                    kept.extend(left);
                }
                written.extend(files.into_iter().take(count).map(|f| f.path));
                extra.extend(problems);
            }
            Err(d) => extra.extend(d),
        }
    }
    outcome.diagnostics.extend(extra);
    diagnostic::sort(&mut outcome.diagnostics, &outcome.sources);
    let summary = print_findings(&outcome);
    exit_without_freeing(outcome);
    Ok(Run {
        code: ExitCode::from(u8::from(summary.errors > 0)),
        written,
        sources,
        kept,
    })
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn build(
    paths: &[PathBuf],
    target: &str,
    out: &std::path::Path,
    argo_kind: ArgoKindArg,
    keep_stale: bool,
) -> ExitCode {
    use crate::codegen::{argo, emit, target};
    let Some(target) = target::find(target) else {
        // clap accepts only the names of the registry.
        return usage_error(&format!("no target `{target}`"));
    };
    let options = target::TargetOptions {
        argo_kind: match argo_kind {
            ArgoKindArg::Auto => argo::ArgoKind::Auto,
            ArgoKindArg::Template => argo::ArgoKind::Template,
        },
    };
    let result = generate_into(paths, out, |pipelines| {
        (target.generate)(pipelines, &options)
    });
    let run = match result {
        Ok(run) => run,
        Err(code) => return code,
    };
    let mut removed = 0;
    for stale in emit::stale_files(out, target.name, &run.sources, &run.written) {
        let shown = crate::files::display(&stale.path);
        let why = stale.pipeline.as_ref().map_or_else(
            || format!("`{}` no longer produces it", stale.source),
            |p| format!("pipeline `{p}` is no longer in `{}`", stale.source),
        );
        if keep_stale {
            eprintln!("flowc: stale `{shown}` ({why}); kept, as --keep-stale asks");
        } else {
            match std::fs::remove_file(&stale.path) {
                Ok(()) => {
                    removed += 1;
                    eprintln!("flowc: removed stale `{shown}` ({why})");
                }
                Err(e) => eprintln!(
                    "flowc: cannot remove stale `{shown}` ({why}): {}",
                    crate::files::io_words(&e)
                ),
            }
        }
    }
    let removed_note = if removed == 0 {
        String::new()
    } else {
        format!("; removed {}", plural(removed, "stale file"))
    };
    eprintln!(
        "flowc: wrote {} to {}{removed_note}",
        plural(run.written.len(), "file"),
        out.display()
    );
    run.code
}

fn scaffold(paths: &[PathBuf], out: &std::path::Path) -> ExitCode {
    let result = generate_into(paths, out, crate::codegen::target::python_scaffold);
    match result {
        Ok(run) => {
            let kept_note = if run.kept.is_empty() {
                String::new()
            } else {
                format!(
                    "; kept {} as it was",
                    plural(run.kept.len(), "existing transform")
                )
            };
            eprintln!(
                "flowc: wrote {} to {}{kept_note}",
                plural(run.written.len(), "file"),
                out.display()
            );
            run.code
        }
        Err(code) => code,
    }
}

fn fmt(paths: &[PathBuf], check: bool) -> ExitCode {
    use crate::files::{collect, display};
    let files = match collect(paths) {
        Ok(f) => f,
        Err(e) => return usage_error(&e),
    };
    let mut failed = false;
    let mut out = String::new();
    for f in &files {
        let name = display(f);
        let text = match crate::format::read_limited(f) {
            Ok(Err(e)) => {
                eprintln!("{name}:{e}");
                failed = true;
                continue;
            }
            Ok(Ok(bytes)) => {
                if let Ok(t) = String::from_utf8(bytes) {
                    t
                } else {
                    eprintln!("{name}: not UTF-8; run `flowc check {name}`");
                    failed = true;
                    continue;
                }
            }
            Err(e) => {
                return usage_error(&format!(
                    "cannot read `{name}`: {}",
                    crate::files::io_words(&e)
                ))
            }
        };
        match crate::format::format_file(&text) {
            Ok(new) if new == text => {}
            Ok(new) if check => {
                failed = true;
                let diff = similar::TextDiff::from_lines(&text, &new);
                out.push_str(
                    &diff
                        .unified_diff()
                        .context_radius(2)
                        .header(&name, &format!("{name} (formatted)"))
                        .to_string(),
                );
            }
            Ok(new) => {
                if let Err(e) = crate::codegen::emit::rewrite_existing(f, &new) {
                    return usage_error(&format!(
                        "cannot write `{name}`: {}",
                        crate::files::io_words(&e)
                    ));
                }
                eprintln!("formatted {name}");
            }
            Err(e) => {
                eprintln!("{name}:{e}; run `flowc check {name}` for details");
                failed = true;
            }
        }
    }
    print(&out);
    ExitCode::from(u8::from(failed))
}

fn graph(file: &std::path::Path, format: GraphFormat, only: Option<&str>) -> ExitCode {
    let outcome = match check_paths(&[file.to_path_buf()]) {
        Ok(o) => o,
        Err(e) => return usage_error(&e),
    };
    let Some(&root) = outcome.roots.first() else {
        return usage_error(&format!("`{}` holds no .flow file", file.display()));
    };
    if outcome.broken.contains(&root) {
        print_findings(&outcome);
        return ExitCode::from(1);
    }
    let models: Vec<crate::graph::GraphModel> = outcome
        .analysis
        .pipelines
        .iter()
        .filter(|r| outcome.program.pipelines[r.pipeline].loc.file == root)
        .filter(|r| only.is_none_or(|n| outcome.program.pipelines[r.pipeline].name == n))
        .map(|r| crate::graph::model_of(&outcome.program, r))
        .collect();
    if models.is_empty() {
        return usage_error(&match only {
            Some(n) => format!("no pipeline `{n}` in `{}`", file.display()),
            None => format!("`{}` declares no pipeline", file.display()),
        });
    }
    let text: Vec<String> = models
        .iter()
        .map(|m| match format {
            GraphFormat::Dot => crate::graph::to_dot(m),
            GraphFormat::Mermaid => crate::graph::to_mermaid(m),
        })
        .collect();
    print(&text.join("\n"));
    ExitCode::SUCCESS
}

fn init(dir: Option<&std::path::Path>) -> ExitCode {
    let dir = dir.unwrap_or(std::path::Path::new("."));
    let name = std::fs::canonicalize(dir)
        .ok()
        .or_else(|| Some(dir.to_path_buf()))
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "pipelines".into());
    let files = crate::init::starter_files(&name);
    for (rel, _) in &files {
        if dir.join(rel).exists() {
            return usage_error(&format!(
                "`{}` already exists; init changes nothing in a project that has it",
                dir.join(rel).display()
            ));
        }
    }
    for (rel, contents) in &files {
        if let Err(e) = crate::codegen::emit::write_atomic(&dir.join(rel), contents) {
            return usage_error(&format!(
                "cannot write `{}`: {}",
                dir.join(rel).display(),
                crate::files::io_words(&e)
            ));
        }
        eprintln!("created {}", dir.join(rel).display());
    }
    eprintln!("next: `flowc check {}`", dir.display());
    ExitCode::SUCCESS
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Check {
            paths,
            format,
            deny_warnings,
        } => {
            let outcome = match check_paths(&paths) {
                Ok(o) => o,
                Err(e) => return usage_error(&e),
            };
            let summary = outcome.summary();
            let s = &outcome.sources;
            let d = &outcome.diagnostics;
            print(&match format {
                CheckFormat::Human => diagnostic::human::render(s, d, summary, color_wanted()),
                CheckFormat::Json => diagnostic::json::render(s, d, summary),
                CheckFormat::Sarif => diagnostic::sarif::render(s, d, summary.omitted),
                CheckFormat::Github => diagnostic::github::render(s, d, summary),
            });
            let failed = summary.errors > 0 || (deny_warnings && summary.warnings > 0);
            exit_without_freeing(outcome);
            ExitCode::from(u8::from(failed))
        }
        Command::Report { paths, format } => {
            let outcome = match check_paths(&paths) {
                Ok(o) => o,
                Err(e) => return usage_error(&e),
            };
            match format {
                ReportFormat::Human => print(&crate::report::table(&outcome)),
                ReportFormat::Json => print(&crate::report::json(&outcome)),
            }
            let summary = outcome.summary();
            if summary.errors > 0 {
                eprintln!(
                    "flowc: {}; run `flowc check` for details",
                    diagnostic::human::summary_line(summary)
                );
                for f in &outcome.roots {
                    if outcome.broken.contains(f) {
                        eprintln!("flowc: `{}` has no report: it does not parse or its names do not resolve", outcome.sources.path(*f));
                    }
                }
            }
            exit_without_freeing(outcome);
            ExitCode::from(u8::from(summary.errors > 0))
        }
        Command::Explain { rule } => {
            if let Some(r) = registry::lookup(&rule) {
                print(r.explain);
                ExitCode::SUCCESS
            } else {
                let names = registry::all().iter().flat_map(|r| [r.code, r.name]);
                let hint = analyze::suggest::did_you_mean(&rule, names);
                usage_error(&format!("no rule `{rule}`{hint}; `flowc rules` lists them"))
            }
        }
        Command::Build {
            target,
            out,
            argo_kind,
            keep_stale,
            paths,
        } => build(&paths, &target, &out, argo_kind, keep_stale),
        Command::Scaffold {
            lang: Lang::Python,
            out,
            paths,
        } => scaffold(&paths, &out),
        Command::Fmt { paths, check } => fmt(&paths, check),
        Command::Graph {
            file,
            format,
            pipeline,
        } => graph(&file, format, pipeline.as_deref()),
        Command::Init { dir } => init(dir.as_deref()),
        Command::Rules => {
            let mut out = String::new();
            for r in registry::all() {
                let _ = writeln!(
                    out,
                    "{}  {:<28} {:<7}  {}",
                    r.code,
                    r.name,
                    r.severity.word(),
                    r.summary
                );
            }
            print(&out);
            ExitCode::SUCCESS
        }
    }
}
