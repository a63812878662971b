//! The command line: files and the terminal around the pure core. Lives in
//! the library so every binary that installs `flowc` is the same one line.
//! The clap definitions and the helpers the commands share are here; each
//! command is a module of its own.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Parser, Subcommand, ValueEnum};

use crate::diagnostic::{self, Summary};

mod audit;
mod backfill;
mod build;
mod check;
mod completions;
pub use completions::man_page;
mod explain;
mod fix;
mod fmt;
mod graph;
mod init;
mod kinds;
mod lsp;
mod report;
mod rules;
mod scaffold;

const EXAMPLES: &str = "\
Examples:
  flowc check examples/                               check every .flow file under examples/
  flowc check --format json examples/billing_dq.flow  findings as JSON (shape: docs/json.md)
  flowc report examples/revenue_daily.flow            the guarantee each output gets
  flowc explain FL101                                 what a rule catches and how to fix it

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
    /// Rendered diagnostics for people (colour as `--color` says)
    Human,
    /// One finding a line: `path:line:col: CODE message`
    Concise,
    /// The versioned JSON of docs/json.md
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
    /// The versioned JSON of docs/json.md
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Check .flow files and report findings
    #[command(after_help = "\
Examples:
  flowc check                            every .flow file under the current folder
  flowc check examples/ tests/fixtures/  folders are searched recursively for *.flow
  flowc check --format sarif . > flowc.sarif
  flowc check --deny-warnings examples/billing_dq.flow
  flowc check --fix --diff examples/   what --fix would change, as a diff
  flowc check --select FL2,unused-allow --ignore FL202 .
  flowc check --target airflow .       also what `flowc build --target airflow` would refuse
  flowc check - --stdin-filename examples/revenue_daily.flow --output-format concise < examples/revenue_daily.flow
  flowc check --show-settings          the configuration in force, and where it comes from

Configuration: the closest flowc.toml, or pyproject.toml with [tool.flowc], at or above
each file's folder (in one folder flowc.toml wins); the command line beats it, --isolated
reads none, --config PATH reads exactly PATH. Keys: select, extend-select, ignore,
severity, per-file-ignores, exclude, target (docs/tooling.md). Folders are searched
honouring .gitignore, .ignore and exclude.

Exit status: 0 no errors; 1 errors (or warnings with --deny-warnings); 2 the command could not run.")]
    Check(check::CheckArgs),
    /// Print the delivery guarantee derived for every output
    #[command(after_help = "\
Examples:
  flowc report examples/revenue_daily.flow
  flowc report --output-format json examples/ | jq '.pipelines[].tasks[].achieved'
  flowc report --now now examples/revenue_daily.flow   the next intervals instead of the first ones

A file that does not parse or whose names do not resolve has no report.
Exit status: 0 no errors; 1 the files have errors (the report is still printed); 2 the command could not run.")]
    Report {
        /// Files, or folders searched recursively for *.flow (default: the current folder)
        paths: Vec<PathBuf>,
        /// Output format
        #[arg(
            long = "output-format",
            visible_alias = "format",
            value_enum,
            default_value = "human"
        )]
        format: ReportFormat,
        /// Print the report and nothing else (no notes about files with errors)
        #[arg(long, short)]
        quiet: bool,
        /// Show each schedule's next intervals after this instant (`now`, or RFC 3339 such as 2026-03-01T12:00:00Z) instead of its first ones from `start`
        #[arg(long, value_name = "TIME")]
        now: Option<String>,
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
  flowc build --target argo --out k8s/ examples/revenue_daily.flow
  flowc build --target argo --argo-kind template --out k8s/ examples/billing_dq.flow

One file per pipeline. Nothing is written for a .flow file with errors, and no
file that flowc did not generate is replaced. Files generated earlier from the
same .flow files for pipelines they no longer have are removed (--keep-stale lists them).
Exit status: as for `flowc check`.")]
    Build {
        /// The scheduler to compile for (default: the configured `target`, as `flowc check --show-settings` shows it for the first path)
        #[arg(long, value_parser = target_names())]
        target: Option<String>,
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
  flowc scaffold --out tasks/ examples/revenue_daily.flow
  flowc scaffold --out . examples/billing_dq.flow

For every task: a generated module that applies the task's declarations (pin, key,
write protocol, outbox, exit codes), rewritten on every run, and a transform module
that is created only when absent, so your code is never overwritten. A kind with no
runtime yet is FL805. Exit status: as for `flowc check`.")]
    Scaffold {
        /// The language to generate
        #[arg(long, value_enum, default_value = "python")]
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
  flowc fmt --check examples/   print a diff and exit 1 if a file would change (--diff is the same)

Comments stay where they are; formatting never changes what a file means.
Exit status: 0 formatted (or nothing to change); 1 a file would change (--check) or cannot be formatted; 2 the command could not run.")]
    Fmt {
        /// Files, or folders searched recursively for *.flow (default: the current folder)
        paths: Vec<PathBuf>,
        /// Change nothing; print what would change as a diff and exit 1 if anything would
        #[arg(long, visible_alias = "diff")]
        check: bool,
    },
    /// Draw a file's task graph: tasks, sources, sinks and effects, outputs coloured by guarantee
    #[command(after_help = "\
Examples:
  flowc graph examples/revenue_daily.flow | dot -Tsvg > revenue.svg
  flowc graph --format mermaid examples/revenue_daily.flow

Every pipeline of every file is drawn, in one graph with a cluster per pipeline
(in file order), so `dot -Tpng` makes one image; --pipeline picks one, and names
the files when several declare it.")]
    Graph {
        /// Files, or folders searched recursively for *.flow (default: the current folder)
        paths: Vec<PathBuf>,
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
    /// List the kinds: roles, pins, writes, capabilities and parameters of each
    #[command(after_help = kinds::AFTER_HELP)]
    Kinds(kinds::KindsArgs),
    /// Print what runs every interval of a scheduled pipeline between two dates
    #[command(after_help = "\
Examples:
  flowc backfill --from 2026-03-01 --to 2026-03-31 orders.flow | kubectl create -f -
  flowc backfill --target airflow --from 2026-03-01 --to 2026-03-07 orders.flow | sh
  flowc backfill --from 2026-03-01 --to 2026-03-31 --out march.yaml orders.flow

The intervals are those that start on a day from --from through --to, in the
pipeline's time zone. Argo: one Workflow per interval; Airflow: the
`airflow backfill create` command (docs/targets/backfill.md).
Exit status: 0 printed; 1 the file has errors; 2 the command could not run.")]
    Backfill(backfill::BackfillArgs),
    /// Check a running deployment against what its .flow files promise (read-only)
    #[command(after_help = "\
Examples:
  flowc audit --since 2026-03-01 --until 2026-03-07 orders.flow
  flowc audit --conn orders=postgresql://auditor@db/shop --format json orders.flow
  flowc audit --state sqlite:///srv/flowc/state.sqlite --format sarif . > audit.sarif

Reads the systems through the connections the tasks get (FLOW_CONN_<NAME>,
FLOWC_STATE, or --conn / --state), read-only, with bounded queries, and
reports per pipeline and output: intervals missing or committed twice,
duplicate keys, messages sent again, lake commits repeated, outbox rows
unsent or repeated, pins gone or changed, lagging bookmarks (docs/audit.md).
Runs the runtime's reader with python3, or FLOWC_PYTHON (it needs psycopg
for PostgreSQL, deltalake, pyiceberg, confluent-kafka or obstore for those
systems: the packages the tasks run with).
Exit status: 0 every output within its guarantee; 1 an output broke its guarantee;
2 the audit could not run (unreachable system, missing table, bad arguments).")]
    Audit(audit::AuditArgs),
    /// Run the language server (LSP 3.17 on stdin/stdout) for editors
    #[command(after_help = "Editors start it themselves; see docs/editors.md.")]
    Lsp,
    /// Print a shell's completion script for flowc
    #[command(after_help = completions::AFTER_HELP)]
    Completions {
        /// The shell to complete in
        #[arg(value_enum)]
        shell: clap_complete::Shell,
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
fn exit_without_freeing(outcome: crate::check::Outcome) {
    std::mem::forget(outcome);
}

/// A path as messages show it: `/` between folders, control characters escaped.
fn shown_path(p: &std::path::Path) -> String {
    crate::diagnostic::human::escape_controls(&crate::io::read::display(p)).into_owned()
}

fn usage_error(msg: &str) -> ExitCode {
    // A path or a configuration's text in the message may hold control
    // characters: they are shown escaped, never sent to the terminal.
    eprintln!("error: {}", crate::diagnostic::human::escape_controls(msg));
    ExitCode::from(2)
}

/// "no kind `slak`; did you mean `slack_message`? (`flowc kinds` lists them)",
/// or without the question when nothing is near.
fn not_found(what: &str, name: &str, near: Option<&str>, lister: &str) -> String {
    match near {
        Some(near) => {
            format!("no {what} `{name}`; did you mean `{near}`? (`{lister}` lists them)")
        }
        None => format!("no {what} `{name}`; `{lister}` lists them"),
    }
}

fn color_wanted() -> bool {
    check::colored(check::ColorChoice::Auto)
}

fn print(s: &str) {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`flowc check | head`) is not an error worth a panic.
    let _ = out.write_all(s.as_bytes());
    let _ = out.flush();
}

/// Print findings in the human format (to stderr when stdout carries other output).
fn print_findings(outcome: &crate::check::Outcome) -> Summary {
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
        Command::Check(args) => check::run(&args),
        Command::Report {
            paths,
            format,
            quiet,
            now,
        } => report::run(&paths, format, quiet, now.as_deref()),
        Command::Explain { rule } => explain::run(&rule),
        Command::Build {
            target,
            out,
            argo_kind,
            keep_stale,
            paths,
        } => match target.map_or_else(|| build::configured_target(&paths), Ok) {
            Ok(target) => build::run(&paths, &target, &out, argo_kind, keep_stale),
            Err(e) => usage_error(&e),
        },
        Command::Scaffold {
            lang: Lang::Python,
            out,
            paths,
        } => scaffold::run(&paths, &out),
        Command::Fmt { paths, check } => fmt::run(&paths, check),
        Command::Graph {
            paths,
            format,
            pipeline,
        } => graph::run(&paths, format, pipeline.as_deref()),
        Command::Init { dir } => init::run(dir.as_deref()),
        Command::Rules => rules::run(),
        Command::Lsp => lsp::run(),
        Command::Kinds(args) => kinds::run(&args),
        Command::Backfill(args) => backfill::run(&args),
        Command::Completions { shell } => completions::run(shell),
        Command::Audit(args) => audit::run(&args),
    }
}
