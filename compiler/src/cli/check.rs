//! `flowc check`: findings for files, in one of five formats, with the
//! configuration in force (`flowc.toml`, `[tool.flowc]`) and the command
//! line's overrides; with a target, also what `flowc build` would refuse.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, ValueEnum};

use super::{exit_without_freeing, print, target_names, usage_error, CheckFormat};
use crate::config::Overrides;
use crate::diagnostic::{self, Diagnostic, Summary};
use crate::io::read::{check_files, discover, display, ConfigChoice, Configs};

/// The arguments of `flowc check`.
#[derive(Args)]
pub(super) struct CheckArgs {
    /// Files, or folders searched recursively for *.flow (default: the current folder); `-` reads standard input
    pub(super) paths: Vec<PathBuf>,
    /// Output format
    #[arg(
        long = "output-format",
        visible_alias = "format",
        value_enum,
        default_value = "human"
    )]
    pub(super) format: CheckFormat,
    /// Exit 1 on warnings too
    #[arg(long)]
    pub(super) deny_warnings: bool,
    /// Exit 0 even when there are findings (2 still means the command could not run)
    #[arg(long, conflicts_with = "deny_warnings")]
    pub(super) exit_zero: bool,
    /// Report only these rules (codes, names, prefixes such as FL2, or ALL; comma-separated), instead of the configured selection
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub(super) select: Option<Vec<String>>,
    /// Also report these rules
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub(super) extend_select: Vec<String>,
    /// Do not report these rules (FL001, FL005, FL702 and FL706 are always reported)
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub(super) ignore: Vec<String>,
    /// Use exactly this configuration file (flowc.toml, or a pyproject.toml with [tool.flowc]) for every file; or, given `KEY = VALUE` (a line of TOML, such as `select = ["FL2"]`; repeatable), use that value of the key instead of the configuration's
    #[arg(long, value_name = "PATH|KEY=VALUE")]
    pub(super) config: Vec<String>,
    /// Read no configuration file: the defaults and the command line only
    #[arg(long)]
    pub(super) isolated: bool,
    /// Print the settings in force (for the first path) and exit
    #[arg(long)]
    pub(super) show_settings: bool,
    /// The name standard input is shown and configured under (`flowc check - --stdin-filename a/p.flow`)
    #[arg(long, value_name = "NAME")]
    pub(super) stdin_filename: Option<PathBuf>,
    /// Print the findings and nothing else (no summary line, no notices)
    #[arg(long, short)]
    pub(super) quiet: bool,
    /// Colour in the human format (`auto`: on a terminal, unless `NO_COLOR`; `FORCE_COLOR` turns it on)
    #[arg(long, value_enum, default_value = "auto")]
    pub(super) color: ColorChoice,
    /// Print how many findings each rule has, instead of the findings
    #[arg(long)]
    pub(super) statistics: bool,
    /// Also report what `flowc build --target NAME` would refuse (FL801 to FL807); default: the configured `target`
    #[arg(long, value_parser = target_names())]
    pub(super) target: Option<String>,
    #[command(flatten)]
    pub(super) fixes: super::fix::FixArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Whether the human format is coloured: `--color` first, then `NO_COLOR`
/// (set and not empty: never), then `FORCE_COLOR` (set and not empty:
/// always), else only on a terminal.
pub(super) fn colored(choice: ColorChoice) -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto if set("NO_COLOR") => false,
        ColorChoice::Auto if set("FORCE_COLOR") => true,
        ColorChoice::Auto => std::io::stdout().is_terminal(),
    }
}

fn target_list() -> Vec<&'static str> {
    crate::codegen::target::TARGETS
        .iter()
        .map(|t| t.name)
        .collect()
}

pub(super) fn run(args: &CheckArgs) -> ExitCode {
    match checked(args) {
        Ok(code) => code,
        Err(e) => usage_error(&e),
    }
}

fn checked(args: &CheckArgs) -> Result<ExitCode, String> {
    let stdin_named = args.paths.iter().any(|p| p.as_os_str() == "-")
        || (args.paths.is_empty() && args.stdin_filename.is_some());
    let stdin = stdin_named.then(|| {
        args.stdin_filename
            .clone()
            .unwrap_or_else(|| PathBuf::from("-"))
    });
    let paths: Vec<PathBuf> = args
        .paths
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .cloned()
        .collect();
    if stdin.is_some() && args.fixes.rewrites() {
        return Err("`--fix` and `--diff` work on files, not on standard input".into());
    }
    if args.statistics && matches!(args.format, CheckFormat::Json | CheckFormat::Sarif) {
        return Err(
            "`--statistics` prints text: use it with `--output-format human` or `concise`".into(),
        );
    }
    let (file, lines) = config_args(&args.config)?;
    let choice = match (file, args.isolated) {
        (Some(_), true) => {
            return Err(
                "`--config PATH` and `--isolated` cannot be used together: one names the configuration file, the other reads none"
                    .into(),
            )
        }
        (Some(path), false) => ConfigChoice::File(path),
        (None, true) => ConfigChoice::Isolated,
        (None, false) => ConfigChoice::Discover,
    };
    let overrides = Overrides {
        select: args.select.clone(),
        extend_select: args.extend_select.clone(),
        ignore: args.ignore.clone(),
        target: args.target.clone(),
        config: lines,
    };
    let configs = Arc::new(Configs::new(choice, overrides, &target_list())?);
    let paths = match super::fix::run(&paths, &args.fixes, &configs) {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    if args.show_settings {
        let first: Vec<PathBuf> = match (&stdin, paths.is_empty()) {
            (Some(name), true) => vec![name.clone()],
            _ => paths.clone(),
        };
        print(&configs.for_paths(&first)?.show());
        return Ok(ExitCode::SUCCESS);
    }
    let found = if stdin.is_some() && paths.is_empty() {
        crate::io::read::Found::default()
    } else {
        discover(&paths, &configs)?
    };
    if !args.quiet {
        for dir in &found.empty {
            eprintln!(
                "warning: no .flow file under `{}` (nothing to check there)",
                crate::diagnostic::human::escape_controls(&display(dir))
            );
        }
    }
    let mut outcome = check_files(&found.files, stdin.as_deref(), &configs)?;
    let extra = target_findings(&mut outcome, args.target.as_deref(), &configs)?;
    if !extra.is_empty() {
        outcome.diagnostics.extend(extra);
        diagnostic::sort(&mut outcome.diagnostics, &outcome.sources);
    }
    let summary = outcome.summary();
    let s = &outcome.sources;
    let d = &outcome.diagnostics;
    let text = if args.statistics {
        statistics(d, &outcome.omitted_rules, summary, args.quiet)
    } else {
        match args.format {
            CheckFormat::Human => {
                let text = diagnostic::human::render(s, d, summary, colored(args.color));
                quieted(text, summary, args.quiet)
            }
            CheckFormat::Concise => concise(s, d, summary, args.quiet),
            CheckFormat::Json => diagnostic::json::render(s, d, summary),
            CheckFormat::Sarif => diagnostic::sarif::render(s, d, summary.omitted),
            CheckFormat::Github => quieted(
                diagnostic::github::render(s, d, summary),
                summary,
                args.quiet,
            ),
        }
    };
    print(&text);
    let failed =
        !args.exit_zero && (summary.errors > 0 || (args.deny_warnings && summary.warnings > 0));
    exit_without_freeing(outcome);
    Ok(ExitCode::from(u8::from(failed)))
}

/// The target findings for the files of `outcome`: with `--target`, of that
/// target for every file; else of each file's configured `target`, if any.
/// They are settled by the configuration like every other finding.
fn target_findings(
    outcome: &mut crate::check::Outcome,
    cli: Option<&str>,
    configs: &Configs,
) -> Result<Vec<Diagnostic>, String> {
    let mut by_target: BTreeMap<String, Vec<crate::source::FileId>> = BTreeMap::new();
    for &root in &outcome.roots {
        let target = match cli {
            Some(t) => Some(t.to_owned()),
            None => configs
                .for_file(Path::new(outcome.sources.path(root)))?
                .target
                .clone(),
        };
        if let Some(t) = target {
            by_target.entry(t).or_default().push(root);
        }
    }
    let all_roots = outcome.roots.clone();
    let mut extra = Vec::new();
    let options = crate::codegen::target::TargetOptions::default();
    for (name, roots) in by_target {
        let Some(target) = crate::codegen::target::find(&name) else {
            return Err(format!("no target `{name}`"));
        };
        // The same steps as `build`, over this target's files only.
        outcome.roots = roots;
        extra.extend(super::build::target_findings(outcome, target, options));
    }
    outcome.roots = all_roots;
    // What the generator refuses (an error) stays: `build` would not write
    // it whatever the configuration says. Its warnings are settled.
    let (refused, mut warned): (Vec<Diagnostic>, Vec<Diagnostic>) =
        extra.into_iter().partition(Diagnostic::is_error);
    crate::check::settle(configs, &outcome.sources, &mut warned);
    let mut extra = refused;
    extra.extend(warned);
    if let Some(e) = configs.problem() {
        return Err(e);
    }
    Ok(extra)
}

/// `text` without its summary line when `quiet`.
fn quieted(text: String, summary: Summary, quiet: bool) -> String {
    if !quiet {
        return text;
    }
    let tail = format!("{}\n", diagnostic::human::summary_line(summary));
    text.strip_suffix(&tail).map_or(text.clone(), str::to_owned)
}

/// `path:line:col: CODE message`, one finding a line (suppressed ones left
/// out), then the summary line unless `quiet`.
fn concise(
    sources: &crate::source::SourceMap,
    diags: &[Diagnostic],
    summary: Summary,
    quiet: bool,
) -> String {
    let mut out = String::new();
    for d in diags.iter().filter(|d| d.suppressed.is_none()) {
        let at = sources.locate(d.file, d.span);
        let message = d.message.replace(['\n', '\r'], " ");
        let _ = writeln!(
            out,
            "{}:{}:{}: {} {message}",
            sources.path(d.file),
            at.line,
            at.column,
            d.code
        );
    }
    if !quiet {
        out.push_str(&diagnostic::human::summary_line(summary));
        out.push('\n');
    }
    out
}

/// One line per rule with findings: the count, the code, the severity and
/// the rule's name, most frequent first (those left out of the list
/// included); then the summary line unless `quiet`.
fn statistics(
    diags: &[Diagnostic],
    omitted: &BTreeMap<(diagnostic::Code, diagnostic::Severity), usize>,
    summary: Summary,
    quiet: bool,
) -> String {
    let mut counts = omitted.clone();
    for d in diags.iter().filter(|d| d.suppressed.is_none()) {
        *counts.entry((d.code, d.severity)).or_default() += 1;
    }
    let mut rows: Vec<_> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut out = String::new();
    for ((code, severity), n) in rows {
        let _ = writeln!(
            out,
            "{n:>5}  {code}  {:<7}  {}",
            severity.word(),
            code.name()
        );
    }
    if !quiet {
        out.push_str(&diagnostic::human::summary_line(summary));
        out.push('\n');
    }
    out
}

/// The `--config` arguments: at most one file, and the `KEY = VALUE` lines
/// (an argument with `=` that names no file), merged in order (a later
/// line of a key wins).
fn config_args(args: &[String]) -> Result<(Option<PathBuf>, toml::Table), String> {
    let mut file: Option<PathBuf> = None;
    let mut lines = toml::Table::new();
    let targets = target_list();
    for a in args {
        if a.contains('=') && !std::path::Path::new(a).is_file() {
            lines.extend(crate::config::parse_override(a, &targets)?);
        } else if let Some(first) = file.replace(PathBuf::from(a)) {
            return Err(format!(
                "`--config` names one configuration file, not `{}` and `{a}` (a key is given as `KEY = VALUE`)",
                first.display()
            ));
        }
    }
    Ok((file, lines))
}
