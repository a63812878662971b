//! The reader's observations judged against the guarantee each output is
//! reported with: an anomaly that the guarantee allows (duplicates of an
//! `at_least_once` output) is a note, one it rules out is an error, and
//! what only deserves a look (a pin gone, a lagging bookmark) a warning.
//! The exit code follows: 2 when a check could not run, else 1 when an
//! output broke its guarantee, else 0.

use serde::Serialize;
use serde_json::{Map, Value};

use super::plan::{rfc3339, Planned};
use super::Check;
use crate::vocab::{Guarantee, Mode, Tracking};

/// The version of the JSON `flowc audit --format json` prints (docs/json.md).
pub const REPORT_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The output broke its reported guarantee.
    Error,
    /// Worth a look; no guarantee is broken by it alone.
    Warning,
    /// An anomaly the output's guarantee allows.
    Note,
}

impl Severity {
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One finding: a check's observation on one output (or one input).
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub check: &'static str,
    /// Where the output is declared (1-based), `None` for an input's finding.
    pub column: Option<usize>,
    pub count: u64,
    pub examples: Vec<Value>,
    pub file: String,
    pub guarantee: Option<&'static str>,
    pub input: Option<String>,
    pub line: Option<usize>,
    pub message: String,
    pub output: Option<String>,
    pub pipeline: String,
    pub severity: Severity,
    pub task: String,
    /// Why this severity: what the guarantee allows or rules out.
    pub why: String,
}

/// A check that could not run, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    pub message: String,
    pub output: Option<String>,
    pub pipeline: Option<String>,
    pub task: Option<String>,
}

/// What the audit cannot see for an output, said once.
#[derive(Debug, Clone, Serialize)]
pub struct Unseen {
    pub output: Option<String>,
    pub pipeline: Option<String>,
    pub task: Option<String>,
    pub what: String,
}

/// One audited pipeline: its window and how many intervals it expects.
#[derive(Debug, Clone, Serialize)]
pub struct PipelineHeader {
    pub file: String,
    pub intervals: usize,
    pub name: String,
    pub since: Option<String>,
    pub until: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub checks_run: usize,
    pub could_not_run: usize,
    pub errors: usize,
    pub notes: usize,
    pub warnings: usize,
}

/// The audit's result, as `--format json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub could_not_run: Vec<Problem>,
    pub findings: Vec<Finding>,
    pub not_observable: Vec<Unseen>,
    pub now: String,
    pub pipelines: Vec<PipelineHeader>,
    pub summary: Summary,
    /// `within_guarantee`, `broken` or `could_not_run`.
    pub verdict: &'static str,
    pub version: u32,
}

impl Report {
    /// 0 within every guarantee, 1 an output broke its guarantee, 2 a check could not run.
    pub fn exit_code(&self) -> u8 {
        if self.could_not_run.is_empty() {
            u8::from(self.summary.errors > 0)
        } else {
            2
        }
    }
}

/// An output as the verdict needs it.
struct Output<'a> {
    name: &'a str,
    guarantee: Guarantee,
    mode: Option<Mode>,
    tracking: Option<Tracking>,
}

fn outputs_of(task: &crate::codegen::ir::Task) -> Vec<Output<'_>> {
    let writes = task.writes.iter().map(|w| Output {
        name: &w.sink.name,
        guarantee: w.guarantee,
        mode: Some(w.mode),
        tracking: None,
    });
    let emits = task.emits.iter().map(|e| Output {
        name: &e.effect.name,
        guarantee: e.guarantee,
        mode: None,
        tracking: Some(e.tracking),
    });
    writes.chain(emits).collect()
}

fn strong(g: Guarantee) -> bool {
    matches!(g, Guarantee::ExactlyOnce | Guarantee::EffectivelyOnce)
}

/// Whether the output's guarantee rules out a duplicate.
fn no_duplicates(g: Guarantee) -> bool {
    strong(g) || g == Guarantee::AtMostOnce
}

/// Whether the output's guarantee rules out a loss.
fn no_loss(g: Guarantee) -> bool {
    strong(g) || g == Guarantee::AtLeastOnce
}

/// Whether applying the output again repeats its effect (a re-run appends again).
fn repeats(o: &Output<'_>) -> bool {
    matches!(o.mode, Some(Mode::Append | Mode::CheckThenAppend))
        || o.tracking == Some(Tracking::Untracked)
}

fn severity(check: Check, o: &Output<'_>, no_regression: Option<bool>) -> (Severity, String) {
    let g = o.guarantee.word();
    match check {
        Check::LateCommit if no_regression == Some(false) && no_loss(o.guarantee) => (
            Severity::Error,
            format!("`{g}`, but an older interval's write can replace a newer one's rows here"),
        ),
        Check::LateCommit if no_regression == Some(false) => (
            Severity::Note,
            format!("`{g}` allows an older interval's write to replace a newer one's rows"),
        ),
        Check::LateCommit => (
            Severity::Note,
            format!("`{g}`: an older interval's write cannot replace a newer one's rows here"),
        ),
        Check::IntervalMissing if no_loss(o.guarantee) => (
            Severity::Error,
            format!("`{g}` delivers the data of every interval"),
        ),
        Check::IntervalMissing => (Severity::Note, format!("`{g}` allows a lost interval")),
        Check::IntervalRepeated if o.guarantee == Guarantee::AtMostOnce && repeats(o) => (
            Severity::Error,
            format!("`{g}`: a re-run applied this output again, and it is not idempotent"),
        ),
        Check::IntervalRepeated if strong(o.guarantee) => (
            Severity::Note,
            format!("`{g}`: the output is idempotent, a re-run keeps one copy"),
        ),
        Check::IntervalRepeated if repeats(o) => (
            Severity::Note,
            format!("`{g}` allows a repeat: a re-run applied this output again"),
        ),
        Check::IntervalRepeated => (
            Severity::Note,
            format!("`{g}`: a re-run of an output that is applied by key"),
        ),
        Check::DuplicateKey
        | Check::OutboxRepeated
        | Check::MessageResent
        | Check::CommitRepeated
            if no_duplicates(o.guarantee) =>
        {
            (Severity::Error, format!("`{g}` allows no duplicate"))
        }
        Check::OutboxUnkeyed if no_duplicates(o.guarantee) => (
            Severity::Warning,
            format!("`{g}` relies on the receiver deduplicating by the key these rows lack"),
        ),
        Check::DuplicateKey
        | Check::OutboxRepeated
        | Check::MessageResent
        | Check::CommitRepeated
        | Check::OutboxUnkeyed => (Severity::Note, format!("`{g}` allows duplicates")),
        Check::IdenticalRows if !no_duplicates(o.guarantee) => {
            (Severity::Note, format!("`{g}` allows duplicates"))
        }
        Check::IdenticalRows => (
            Severity::Warning,
            format!("`{g}` allows no duplicate, but identical rows may be equal data rather than a repeat"),
        ),
        Check::RegressedRow if no_loss(o.guarantee) => (
            Severity::Error,
            format!("`{g}` keeps the newest write of every key"),
        ),
        Check::RegressedRow => (
            Severity::Note,
            format!("`{g}` allows an older write to stand for a newer one"),
        ),
        Check::LedgerMismatch => (
            Severity::Warning,
            "the ledger decides what a re-run appends: rows outside it are appended again, rows deleted since are not restored".to_owned(),
        ),
        Check::OutboxUnsent if no_loss(o.guarantee) => (
            Severity::Error,
            format!("`{g}` delivers every message"),
        ),
        Check::OutboxUnsent => (Severity::Note, format!("`{g}` allows a lost message")),
        Check::PinGone | Check::PinChanged | Check::CursorLagging => {
            (Severity::Warning, String::new())
        }
    }
}

fn text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn first_example<'a>(examples: &'a [Value], field: &str) -> Option<&'a Value> {
    examples.first().and_then(|e| e.get(field))
}

/// The sentence of an observation.
fn message(
    check: Check,
    count: u64,
    input: &str,
    examples: &[Value],
    d: &Map<String, Value>,
) -> String {
    match check {
        Check::IntervalMissing => {
            let them = if count == 1 { "it" } else { "them" };
            let catchup = if d.get("catchup").and_then(Value::as_bool) == Some(true) {
                format!("catch-up is on: the scheduler would still run {them}")
            } else {
                format!("catch-up is off: no scheduler runs {them} again (`flowc backfill` can)")
            };
            let first = text(d.get("first"));
            let last = text(d.get("last"));
            let range = if first == last {
                first
            } else {
                format!("{first} .. {last}")
            };
            format!(
                "{} with no successful attempt ({range}); {catchup}",
                plural(count, "interval", "intervals")
            )
        }
        Check::LateCommit => format!(
            "{} committed after a newer interval had (interval {} last committed at {}, after interval {} at {})",
            plural(count, "interval", "intervals"),
            text(first_example(examples, "interval_start")),
            text(first_example(examples, "committed_at")),
            text(first_example(examples, "newer_interval")),
            text(first_example(examples, "newer_committed_at"))
        ),
        Check::IntervalRepeated => {
            let maybe = first_example(examples, "maybe_committed")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            let died = if maybe == 0 {
                String::new()
            } else {
                format!(
                    ", and {} that died in its commit phase and may have committed",
                    plural(maybe, "attempt", "attempts")
                )
            };
            format!(
                "{} committed more than once (interval {}: {} successful attempts{died})",
                plural(count, "interval", "intervals"),
                text(first_example(examples, "interval_start")),
                text(first_example(examples, "commits"))
            )
        }
        Check::DuplicateKey => {
            let key = d
                .get("key")
                .and_then(Value::as_array)
                .map(|k| k.iter().map(|c| text(Some(c))).collect::<Vec<_>>().join(", "))
                .unwrap_or_default();
            let per = d
                .get("partition")
                .and_then(Value::as_array)
                .filter(|p| !p.is_empty())
                .map(|p| {
                    format!(
                        ", per partition ({})",
                        p.iter().map(|c| text(Some(c))).collect::<Vec<_>>().join(", ")
                    )
                })
                .unwrap_or_default();
            format!(
                "{} held by more than one row ({} rows) in table `{}`, key ({key}){per}{}",
                plural(count, "key", "keys"),
                text(d.get("rows_involved")),
                text(d.get("table")),
                ignored(d)
            )
        }
        Check::IdenticalRows => format!(
            "{} more than once ({} rows) in table `{}`, which has no key columns{}",
            plural(count, "row appears", "rows appear"),
            text(d.get("rows_involved")),
            text(d.get("table")),
            ignored(d)
        ),
        Check::MessageResent => format!(
            "{} sent again in topic `{}` by another attempt of its interval ({} more {}; interval {}: attempts {})",
            plural(count, "message was", "messages were"),
            text(d.get("topic")),
            text(d.get("messages_again")),
            if d.get("messages_again").and_then(Value::as_u64) == Some(1) {
                "copy"
            } else {
                "copies"
            },
            text(first_example(examples, "interval_start")),
            text(first_example(examples, "attempts"))
        ),
        Check::CommitRepeated => {
            let rows = d.get("rows_again").and_then(Value::as_u64);
            let what = match first_example(examples, "txn") {
                Some(txn) => format!("transaction {}", text(Some(txn))),
                None => format!("interval {}", text(first_example(examples, "interval_start"))),
            };
            format!(
                "{} appended again to the {} by another attempt ({} more {}; {what}: attempts {}, commits {})",
                plural(count, "interval's rows were", "intervals' rows were"),
                text(d.get("table")),
                text(d.get("rows_again")),
                if rows == Some(1) { "row" } else { "rows" },
                text(first_example(examples, "attempts")),
                text(first_example(examples, "commits"))
            )
        }
        Check::OutboxUnsent => format!(
            "{} unsent more than {}s after their interval ended ({} {}, oldest {})",
            plural(count, "outbox row", "outbox rows"),
            text(d.get("grace_seconds")),
            text(d.get("intervals")),
            if d.get("intervals").and_then(Value::as_u64) == Some(1) {
                "interval"
            } else {
                "intervals"
            },
            text(first_example(examples, "interval_start"))
        ),
        Check::RegressedRow => {
            let column = text(d.get("column"));
            let what = if text(d.get("by")) == "version" {
                format!("version `{column}`")
            } else {
                format!("interval fence `{column}`")
            };
            format!(
                "{} of {} in table `{}` older by {what} than a newer row of the same key (first: {} < {})",
                plural(count, "row", "rows"),
                plural(
                    d.get("keys").and_then(Value::as_u64).unwrap_or(0),
                    "key",
                    "keys"
                ),
                text(d.get("table")),
                text(first_example(examples, &column)),
                text(first_example(examples, "newer"))
            )
        }
        Check::LedgerMismatch => {
            let rows = text(first_example(examples, "table_rows"));
            let keys = text(first_example(examples, "ledger_keys"));
            if text(d.get("direction")) == "keys_without_row" {
                format!(
                    "the ledger holds {} with no row in table `{}` ({rows} rows, {keys} keys): rows deleted since, which a re-run does not restore",
                    plural(count, "key", "keys"),
                    text(d.get("table"))
                )
            } else {
                format!(
                    "table `{}` holds {} outside the ledger ({rows} rows, {keys} keys): a re-run appends them again",
                    text(d.get("table")),
                    plural(count, "row", "rows")
                )
            }
        }
        Check::OutboxUnkeyed => format!(
            "{} without their idempotency key (first: interval {}): the receiver cannot deduplicate a resend",
            plural(count, "outbox row", "outbox rows"),
            text(first_example(examples, "interval_start"))
        ),
        Check::OutboxRepeated => format!(
            "{} held by more than one outbox row ({} rows): sent more than once",
            plural(count, "message", "messages"),
            text(d.get("rows_involved"))
        ),
        Check::PinGone => {
            // a staging table (SQL), a Delta version, an Iceberg snapshot, a Kafka offset range
            let what = d
                .get("what")
                .and_then(Value::as_str)
                .unwrap_or("pinned snapshot");
            let pinned = match first_example(examples, "staging_table") {
                Some(table) => format!("`{}`", text(Some(table))),
                None => format!(
                    "{}: {}",
                    text(first_example(examples, "pinned")),
                    text(first_example(examples, "why"))
                ),
            };
            format!(
                "{} of `{input}` no longer {} (interval {}: {pinned}): re-running {} fails",
                plural(count, what, &format!("{what}s")),
                if count == 1 { "exists" } else { "exist" },
                text(first_example(examples, "interval_start")),
                if count == 1 { "it" } else { "them" }
            )
        }
        Check::PinChanged => format!(
            "{} of `{input}`'s pinned listings changed since {} pinned ({} of interval {}: {}): re-running {} fails",
            plural(count, "file", "files"),
            if count == 1 { "it was" } else { "they were" },
            text(first_example(examples, "object")),
            text(first_example(examples, "interval_start")),
            text(first_example(examples, "change")),
            if count == 1 { "it" } else { "them" }
        ),
        Check::CursorLagging => format!(
            "the bookmark of `{input}` is {} behind the source's maximum ({} after it), more than the lookback ({})",
            text(d.get("lag")),
            plural(count, "row", "rows"),
            text(d.get("lookback"))
        ),
    }
}

/// `; compared without COL, ...`: the run-scoped columns a duplicate check left out.
fn ignored(d: &Map<String, Value>) -> String {
    let cols: Vec<String> = d
        .get("ignored")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|c| format!("`{}`", text(Some(c)))).collect())
        .unwrap_or_default();
    if cols.is_empty() {
        String::new()
    } else {
        format!(
            "; compared without {} (run-scoped: new at every attempt)",
            cols.join(", ")
        )
    }
}

fn field(v: &Value, name: &str) -> Option<String> {
    v.get(name).and_then(Value::as_str).map(str::to_owned)
}

/// The reader's answer `answer` on the pipelines of `planned`, judged.
pub fn judge(planned: &[Planned], answer: &Value, now: jiff::Timestamp) -> Report {
    let empty = Vec::new();
    let list = |name: &str| answer.get(name).and_then(Value::as_array).unwrap_or(&empty);
    let mut findings = Vec::new();
    let mut could_not_run: Vec<Problem> = list("errors")
        .iter()
        .map(|e| Problem {
            message: field(e, "message").unwrap_or_default(),
            output: field(e, "output"),
            pipeline: field(e, "pipeline"),
            task: field(e, "task"),
        })
        .collect();
    if answer.get("version").and_then(Value::as_u64) != Some(1) && could_not_run.is_empty() {
        could_not_run.push(Problem {
            message: "the runtime's reader answered in a version this flowc does not read".into(),
            output: None,
            pipeline: None,
            task: None,
        });
    }
    for o in list("observations") {
        let (Some(check), Some(pipeline), Some(task)) = (
            o.get("check")
                .and_then(Value::as_str)
                .and_then(Check::from_id),
            field(o, "pipeline"),
            field(o, "task"),
        ) else {
            continue;
        };
        let Some(planned) = planned.iter().find(|p| p.pipeline.name == pipeline) else {
            continue;
        };
        let Some(t) = planned.pipeline.tasks.iter().find(|t| t.name == task) else {
            continue;
        };
        let count = o.get("count").and_then(Value::as_u64).unwrap_or(0);
        let examples = o
            .get("examples")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let detail = o
            .get("detail")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let input = field(o, "input");
        let msg = message(
            check,
            count,
            input.as_deref().unwrap_or(""),
            &examples,
            &detail,
        );
        let file = planned.pipeline.source_file.clone();
        let outputs = outputs_of(t);
        let targets: Vec<&Output<'_>> = match field(o, "output") {
            Some(name) => outputs.iter().filter(|x| x.name == name).collect(),
            None if input.is_none() => outputs.iter().collect(),
            None => Vec::new(),
        };
        if targets.is_empty() {
            let (severity, why) = (Severity::Warning, String::new());
            findings.push(Finding {
                check: check.id(),
                column: None,
                count,
                examples,
                file,
                guarantee: None,
                input,
                line: None,
                message: msg,
                output: None,
                pipeline,
                severity,
                task,
                why,
            });
            continue;
        }
        for x in targets {
            let facts = planned.facts.get(&(task.clone(), x.name.to_owned()));
            let (severity, why) = severity(check, x, facts.and_then(|f| f.no_regression));
            findings.push(Finding {
                check: check.id(),
                column: facts.map(|f| f.column),
                count,
                examples: examples.clone(),
                file: file.clone(),
                guarantee: Some(x.guarantee.word()),
                input: input.clone(),
                line: facts.map(|f| f.line),
                message: msg.clone(),
                output: Some(x.name.to_owned()),
                pipeline: pipeline.clone(),
                severity,
                task: task.clone(),
                why,
            });
        }
    }
    // A stable order: file order of pipelines and tasks, then check, then output.
    let rank = |f: &Finding| {
        let p = planned.iter().position(|p| p.pipeline.name == f.pipeline);
        let task = p.and_then(|p| planned[p].pipeline.tasks.iter().find(|t| t.name == f.task));
        let t = p.and_then(|p| {
            planned[p]
                .pipeline
                .tasks
                .iter()
                .position(|t| t.name == f.task)
        });
        // outputs in declaration order (writes, then emits); an input's finding after them
        let o = task.map(|task| {
            outputs_of(task)
                .iter()
                .position(|x| Some(x.name) == f.output.as_deref())
                .unwrap_or(usize::MAX)
        });
        (p, t, o, f.input.clone(), Check::from_id(f.check))
    };
    findings.sort_by_key(|f| rank(f));
    let not_observable = list("not_observable")
        .iter()
        .map(|u| Unseen {
            output: field(u, "output").or_else(|| field(u, "input")),
            pipeline: field(u, "pipeline"),
            task: field(u, "task"),
            what: field(u, "what").unwrap_or_default(),
        })
        .collect();
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let summary = Summary {
        checks_run: list("checked").len(),
        could_not_run: could_not_run.len(),
        errors: count(Severity::Error),
        notes: count(Severity::Note),
        warnings: count(Severity::Warning),
    };
    let verdict = if !could_not_run.is_empty() {
        "could_not_run"
    } else if summary.errors > 0 {
        "broken"
    } else {
        "within_guarantee"
    };
    let pipelines = planned
        .iter()
        .map(|p| PipelineHeader {
            file: p.pipeline.source_file.clone(),
            intervals: p.intervals.len(),
            name: p.pipeline.name.clone(),
            since: p.window.map(|w| w.0.to_string()),
            until: p.window.map(|w| w.1.to_string()),
        })
        .collect();
    Report {
        could_not_run,
        findings,
        not_observable,
        now: rfc3339(now),
        pipelines,
        summary,
        verdict,
        version: REPORT_VERSION,
    }
}
