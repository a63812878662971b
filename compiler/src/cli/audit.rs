//! `flowc audit`: check a running deployment against what its `.flow` files
//! promise (`docs/audit.md`). flowc plans the audit (`crate::audit::plan`),
//! writes its runtime (with `flowc_runtime/audit.py`) into a private
//! temporary folder, runs `python -m flowc_runtime.audit` there with the
//! plan on standard input and the tasks' connections in its environment, and
//! judges and renders the reader's answer (`crate::audit::verdict`).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};

use clap::{Args, ValueEnum};
use jiff::civil::Date;
use jiff::Timestamp;

use super::{print, usage_error};
use crate::audit::{plan, render, verdict};
use crate::codegen::lower;
use crate::diagnostic;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum AuditFormat {
    /// Findings per pipeline and output, for people
    Human,
    /// The versioned JSON of docs/json.md
    Json,
    /// SARIF 2.1.0, for code-scanning tools
    Sarif,
}

/// The arguments of `flowc audit`.
#[derive(Args)]
pub(super) struct AuditArgs {
    /// The first day whose intervals are audited (YYYY-MM-DD, in the pipeline's time zone; default: its `start`)
    #[arg(long, value_parser = parse_date)]
    since: Option<Date>,
    /// The last day whose intervals are audited (YYYY-MM-DD, included; default: today)
    #[arg(long, value_parser = parse_date)]
    until: Option<Date>,
    /// Audit only this pipeline
    #[arg(long)]
    pipeline: Option<String>,
    /// Audit only this task (of every audited pipeline that has it)
    #[arg(long)]
    task: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value = "human")]
    format: AuditFormat,
    #[arg(
        long = "conn",
        value_name = "NAME=URL",
        value_parser = parse_conn,
        help = "A connection, as the tasks get it in FLOW_CONN_<NAME> (repeatable; overrides the environment)"
    )]
    conns: Vec<(String, String)>,
    #[arg(
        long,
        value_name = "URL",
        help = "The state store's URL, as FLOWC_STATE gives it to the tasks (sqlite:///PATH or postgresql://...)"
    )]
    state: Option<String>,
    /// Audit as of this time (RFC 3339, default: now): intervals ending later are not expected yet
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    at: Option<Timestamp>,
    /// How long an outbox row may stay unsent after its interval ended, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    grace: u64,
    /// How many examples each finding shows (counts are always complete)
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(0..=1000))]
    examples: u32,
    /// Files, or folders searched recursively for *.flow (default: the current folder)
    paths: Vec<PathBuf>,
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

fn parse_time(text: &str) -> Result<Timestamp, String> {
    text.parse::<Timestamp>().map_err(|_| {
        format!("`{text}` is not a time: write RFC 3339, for example 2026-03-08T06:00:00Z")
    })
}

fn parse_conn(text: &str) -> Result<(String, String), String> {
    let Some((name, url)) = text.split_once('=') else {
        return Err("write NAME=URL, for example orders=postgresql://host/db".to_owned());
    };
    let ok = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !ok {
        return Err(format!(
            "`{name}` is not a declaration's name (letters, digits, `_`)"
        ));
    }
    if url.is_empty() {
        return Err(format!("`{name}=` gives no URL"));
    }
    Ok((name.to_owned(), url.to_owned()))
}

/// Credentials of any URL in `text` (`scheme://user:password@`) replaced by
/// `***`, as the runtime's `redact` does, for what flowc shows of the
/// reader's own failure.
pub(crate) fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| {
                c == '/' || c == '?' || c == '#' || c.is_whitespace() || c == '\'' || c == '"'
            })
            .unwrap_or(tail.len());
        match tail[..end].rfind('@') {
            Some(at) => {
                out.push_str("***");
                out.push_str(&tail[at..end]);
            }
            None => out.push_str(&tail[..end]),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

pub(super) fn run(args: &AuditArgs) -> ExitCode {
    let outcome = match crate::io::read::check_paths(&args.paths) {
        Ok(o) => o,
        Err(e) => return usage_error(&e),
    };
    let broken: Vec<_> = outcome
        .roots
        .iter()
        .filter(|f| outcome.file_has_errors(**f) || outcome.broken.contains(f))
        .collect();
    if !broken.is_empty() {
        let mut diags = outcome.diagnostics.clone();
        diagnostic::sort(&mut diags, &outcome.sources);
        eprint!(
            "{}",
            diagnostic::human::render(&outcome.sources, &diags, outcome.summary(), false)
        );
        return usage_error("the files have errors: fix them (`flowc check`) before auditing");
    }
    let mut pipelines = Vec::new();
    for root in &outcome.roots {
        pipelines.extend(lower::pipelines_of(&outcome, *root));
    }
    if let Some(name) = &args.pipeline {
        let names: Vec<String> = pipelines.iter().map(|p| format!("`{}`", p.name)).collect();
        pipelines.retain(|p| &p.name == name);
        if pipelines.is_empty() {
            return usage_error(&format!(
                "no pipeline `{name}` in the files\n  help: they declare {}",
                if names.is_empty() {
                    "no pipeline".to_owned()
                } else {
                    names.join(", ")
                }
            ));
        }
    }
    if let Some(name) = &args.task {
        for p in &mut pipelines {
            p.tasks.retain(|t| &t.name == name);
        }
        pipelines.retain(|p| !p.tasks.is_empty());
        if pipelines.is_empty() {
            return usage_error(&format!("no task `{name}` in the audited pipelines"));
        }
    }
    if pipelines.is_empty() {
        return usage_error("the files declare no pipeline to audit");
    }
    let options = plan::Options {
        since: args.since,
        until: args.until,
        now: args.at.unwrap_or_else(Timestamp::now),
        examples: args.examples,
        grace_seconds: args.grace,
    };
    let mut planned = Vec::new();
    for p in &pipelines {
        match plan::planned(p, plan::facts(&outcome, &p.name), &options) {
            Ok(x) => planned.push(x),
            Err(r) => return usage_error(&format!("{}\n  help: {}", r.message, r.help)),
        }
    }
    let input = plan::to_json(&planned, &options);
    let answer = match read_systems(&input, args) {
        Ok(a) => a,
        Err(e) => return usage_error(&format!("could not audit: {}", redact(&e))),
    };
    let report = verdict::judge(&planned, &answer, options.now);
    print(&match args.format {
        AuditFormat::Human => render::human(&report),
        AuditFormat::Json => render::json(&report),
        AuditFormat::Sarif => render::sarif(&report),
    });
    ExitCode::from(report.exit_code())
}

/// Run the runtime's reader on `plan`: its answer, or why it gave none.
fn read_systems(plan: &serde_json::Value, args: &AuditArgs) -> Result<serde_json::Value, String> {
    let folder = tempfile::Builder::new()
        .prefix("flowc-audit-")
        .tempdir()
        .map_err(|e| {
            format!(
                "cannot create a temporary folder: {}",
                crate::io::read::io_words(&e)
            )
        })?;
    for (rel, text) in crate::codegen::python::runtime_files() {
        let path = folder.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| {
                format!(
                    "cannot write the runtime: {}",
                    crate::io::read::io_words(&e)
                )
            })?;
        }
        std::fs::write(&path, text).map_err(|e| {
            format!(
                "cannot write the runtime: {}",
                crate::io::read::io_words(&e)
            )
        })?;
    }
    let python = std::env::var("FLOWC_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let mut command = Command::new(&python);
    command
        .args(["-m", "flowc_runtime.audit"])
        .env("PYTHONPATH", folder.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTHONSAFEPATH", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, url) in &args.conns {
        command.env(format!("FLOW_CONN_{}", name.to_uppercase()), url);
    }
    if let Some(url) = &args.state {
        command.env("FLOWC_STATE", url);
    }
    let mut child = command.spawn().map_err(|e| {
        format!(
            "cannot run `{python}` (the Python that reads the systems; set FLOWC_PYTHON): {}",
            crate::io::read::io_words(&e)
        )
    })?;
    let text = serde_json::to_string(plan).unwrap_or_default();
    if let Some(mut stdin) = child.stdin.take() {
        // A reader that died at once closes its input: its exit says why.
        let _ = stdin.write_all(text.as_bytes());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("`{python}` failed: {}", crate::io::read::io_words(&e)))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    match serde_json::from_str::<serde_json::Value>(stdout.trim()) {
        Ok(v) if out.status.success() => Ok(v),
        _ => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(12).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            Err(format!(
                "the runtime's reader (`{python} -m flowc_runtime.audit`) failed ({}):\n{}",
                out.status,
                tail.join("\n")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn redact_hides_userinfo_and_keeps_the_rest() {
        assert_eq!(
            redact("cannot reach postgresql://u:secret@db:5432/x now"),
            "cannot reach postgresql://***@db:5432/x now"
        );
        assert_eq!(redact("sqlite:///tmp/a.db"), "sqlite:///tmp/a.db");
        assert_eq!(redact("no url"), "no url");
    }
}
