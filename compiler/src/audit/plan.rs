//! The audit plan: per pipeline, flowc's IR (tables, keys, fence columns,
//! outboxes, pins, the guarantee each output is reported with) and the
//! intervals its schedule defines in the audited window that have ended by
//! the time of the audit. The runtime's reader (`flowc_runtime/audit.py`)
//! reads it as JSON on its standard input.

use std::collections::BTreeMap;

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::Timestamp;
use serde_json::{json, Value};

use crate::check::Outcome;
use crate::codegen::backfill::{self, Interval, Refusal};
use crate::codegen::ir::Pipeline;

/// The version of the plan's JSON (`flowc_runtime.audit.PLAN_VERSION`).
pub const PLAN_VERSION: u32 = 1;

/// What the command line asks for.
#[derive(Debug, Clone)]
pub struct Options {
    /// The first day whose intervals are audited; `None`: the pipeline's `start`.
    pub since: Option<Date>,
    /// The last day whose intervals are audited (included); `None`: the
    /// day of `now` in the pipeline's time zone.
    pub until: Option<Date>,
    /// The time of the audit: intervals that end after it are not expected yet.
    pub now: Timestamp,
    /// How many examples each finding shows.
    pub examples: u32,
    /// How long after its interval's end an outbox row may stay unsent.
    pub grace_seconds: u64,
}

/// The days of one call of the schedule's walk.
const CHUNK_DAYS: i64 = 30;

/// More intervals than this in one audit is a mistake (a minutely schedule
/// over years), refused with the count.
pub const MAX_AUDITED: usize = 200_000;

/// One pipeline's part of the plan, kept for the verdict and the header.
#[derive(Debug, Clone)]
pub struct Planned {
    pub pipeline: Pipeline,
    pub intervals: Vec<Interval>,
    /// The window's days, when the pipeline has a schedule.
    pub window: Option<(Date, Date)>,
    /// What the analysis says of each output, by (task, output).
    pub facts: BTreeMap<(String, String), Facts>,
}

/// What the analysis says of one output that the verdict and SARIF use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    /// The `no_regression` clause: `Some(false)` when an older interval's
    /// write can replace a newer one's rows.
    pub no_regression: Option<bool>,
    /// Where the output is declared (1-based line and column).
    pub line: usize,
    pub column: usize,
}

/// The facts of every output of pipeline `name` declared in the checked files.
pub fn facts(outcome: &Outcome, name: &str) -> BTreeMap<(String, String), Facts> {
    let mut out = BTreeMap::new();
    for pr in &outcome.analysis.pipelines {
        if outcome.program.pipelines[pr.pipeline].name != name {
            continue;
        }
        for t in &pr.tasks {
            for o in &t.outputs {
                let at = outcome.sources.locate(o.loc.file, o.loc.span);
                out.entry((t.name.clone(), o.target.clone()))
                    .or_insert(Facts {
                        no_regression: o.clauses.no_regression,
                        line: at.line,
                        column: at.column,
                    });
            }
        }
        break;
    }
    out
}

/// RFC 3339 in UTC, to the second: how the runtime keys an interval.
pub fn rfc3339(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The intervals of `pipeline` to audit under `options`.
///
/// # Errors
/// `--since` after `--until`, a zone or schedule that does not resolve, or
/// more intervals than a backfill would take.
pub fn planned(
    pipeline: &Pipeline,
    facts: BTreeMap<(String, String), Facts>,
    options: &Options,
) -> Result<Planned, Refusal> {
    if pipeline.schedule.is_none() {
        return Ok(Planned {
            pipeline: pipeline.clone(),
            intervals: Vec::new(),
            window: None,
            facts,
        });
    }
    let zone = TimeZone::get(&pipeline.timezone).map_err(|e| Refusal {
        message: format!(
            "pipeline `{}`: time zone `{}`: {e}",
            pipeline.name, pipeline.timezone
        ),
        help: "run `flowc check` on the file".to_owned(),
    })?;
    let today = zone.to_datetime(options.now).date();
    let until = options.until.unwrap_or(today);
    let since = options.since.or(pipeline.start).unwrap_or(until);
    if since > until {
        return Err(Refusal {
            message: format!("`--since {since}` is after `--until {until}`"),
            help: "give the earlier date to `--since`".to_owned(),
        });
    }
    // Month by month (a backfill's limit holds per call), up to MAX_AUDITED in all.
    let mut intervals = Vec::new();
    let mut from = since;
    while from <= until {
        let to = from
            .checked_add(jiff::Span::new().days(CHUNK_DAYS - 1))
            .map_or(until, |d| d.min(until));
        match backfill::intervals(pipeline, from, to) {
            Ok(found) => intervals.extend(found.into_iter().filter(|i| i.end <= options.now)),
            // A window in which the schedule has no interval (or before the
            // pipeline's start): nothing is expected there.
            Err(r) if r.message.starts_with("no interval") => {}
            Err(r) => {
                return Err(Refusal {
                    message: r.message,
                    help: "audit a shorter range at a time (`--since`, `--until`)".to_owned(),
                })
            }
        }
        if intervals.len() > MAX_AUDITED {
            return Err(Refusal {
                message: format!(
                    "`{}` has more than {MAX_AUDITED} intervals from {since} to {until}",
                    pipeline.name
                ),
                help: "audit a shorter range at a time (`--since`, `--until`)".to_owned(),
            });
        }
        let Ok(next) = to.tomorrow() else { break };
        from = next;
    }
    Ok(Planned {
        pipeline: pipeline.clone(),
        intervals,
        window: Some((since, until)),
        facts,
    })
}

/// The plan's JSON for the runtime's reader.
pub fn to_json(planned: &[Planned], options: &Options) -> Value {
    let pipelines: Vec<Value> = planned
        .iter()
        .map(|p| {
            let mut v = serde_json::to_value(&p.pipeline).unwrap_or(Value::Null);
            if let Some(o) = v.as_object_mut() {
                o.insert(
                    "intervals".into(),
                    json!(p
                        .intervals
                        .iter()
                        .map(|i| [rfc3339(i.start), rfc3339(i.end)])
                        .collect::<Vec<_>>()),
                );
            }
            v
        })
        .collect();
    json!({
        "version": PLAN_VERSION,
        "now": rfc3339(options.now),
        "examples": options.examples,
        "grace_seconds": options.grace_seconds,
        "pipelines": pipelines,
    })
}
