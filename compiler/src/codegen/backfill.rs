//! `flowc backfill`: what runs every interval of a scheduled pipeline
//! between two dates. The intervals come from the pipeline's cron schedule
//! in its time zone (the IR's [`Schedule`](super::ir::Schedule) and
//! `timezone`); Argo gets one `Workflow` per interval from the pipeline's
//! own DAG ([`super::argo::backfill`]), Airflow the `airflow backfill
//! create` command for the same window. Pure: text in, text out
//! (`docs/targets/backfill.md` describes the output).

use std::fmt::Write as _;

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::Timestamp;

use super::argo::{self, IntervalRun};
use super::ir::Pipeline;
use super::TargetProblem;

/// More intervals than this is a mistake (a minutely schedule over a year),
/// not a backfill: refused, with the count.
pub const MAX_INTERVALS: usize = 10_000;

/// One interval of a schedule: `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    pub start: Timestamp,
    pub end: Timestamp,
}

/// Why a backfill cannot be computed: a sentence for the user and a help
/// line saying what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub message: String,
    pub help: String,
}

fn refuse(message: String, help: impl Into<String>) -> Refusal {
    Refusal {
        message,
        help: help.into(),
    }
}

/// The intervals of `pipeline` that start on a day from `from` through `to`
/// (both included, days of the pipeline's time zone), oldest first, and not
/// before the pipeline's `start` date.
///
/// # Errors
/// A manual pipeline, `from` after `to`, a window without an interval, or
/// more than [`MAX_INTERVALS`].
pub fn intervals(pipeline: &Pipeline, from: Date, to: Date) -> Result<Vec<Interval>, Refusal> {
    let Some(schedule) = &pipeline.schedule else {
        return Err(refuse(
            format!(
                "pipeline `{}` is manual: it has no intervals to backfill",
                pipeline.name
            ),
            "trigger it once per run instead; give it `param` settings (for example `param month: string`) to pass what a run covers",
        ));
    };
    if from > to {
        return Err(refuse(
            format!("`--from {from}` is after `--to {to}`"),
            "give the earlier date to `--from`",
        ));
    }
    let zone = TimeZone::get(&pipeline.timezone).map_err(|e| {
        refuse(
            format!(
                "pipeline `{}`: time zone `{}`: {e}",
                pipeline.name, pipeline.timezone
            ),
            "use an IANA zone name such as `Europe/Paris`",
        )
    })?;
    let cron: croner::Cron = schedule.cron.parse().map_err(|e| {
        refuse(
            format!(
                "pipeline `{}`: schedule `{}`: {e}",
                pipeline.name, schedule.text
            ),
            "run `flowc check` on the file",
        )
    })?;
    let first_day = pipeline.start.map_or(from, |start| start.max(from));
    let (Some(lo), Some(hi)) = (civil02(first_day), to.tomorrow().ok().and_then(civil02)) else {
        return Err(refuse(
            format!("the dates {from} and {to} are out of range"),
            "give dates between 0001-01-01 and 9999-12-30",
        ));
    };
    // The schedule's ticks are civil times of the zone (as cron reads them);
    // each becomes an instant there, a time in a DST gap the first instant
    // after it, a time in a fold the earlier of its two.
    let instant = |t: jiff02::civil::DateTime| -> Option<Timestamp> {
        let civil =
            jiff::civil::date(t.year(), t.month(), t.day()).at(t.hour(), t.minute(), t.second(), 0);
        zone.to_ambiguous_zoned_datetime(civil)
            .compatible()
            .ok()
            .map(|z| z.timestamp())
    };
    let mut out: Vec<Interval> = Vec::new();
    let mut tick = cron.find_next_occurrence(&lo, true).ok();
    while let Some(start) = tick.filter(|t| *t < hi) {
        let Ok(end) = cron.find_next_occurrence(&start, false) else {
            break;
        };
        if out.len() == MAX_INTERVALS {
            return Err(refuse(
                format!(
                    "`{}` has more than {MAX_INTERVALS} intervals from {from} to {to}",
                    pipeline.name
                ),
                "backfill a shorter range at a time",
            ));
        }
        if let (Some(start), Some(end)) = (instant(start), instant(end)) {
            // Two civil ticks of one fold can meet in one instant: keep one.
            if out.last().is_none_or(|last| last.start < start) {
                out.push(Interval { start, end });
            }
        }
        tick = Some(end);
    }
    if out.is_empty() {
        let since = pipeline
            .start
            .filter(|s| *s > to)
            .map(|s| format!(" (the pipeline starts on {s})"))
            .unwrap_or_default();
        return Err(refuse(
            format!(
                "no interval of `{}` starts from {from} to {to}{since}",
                pipeline.name
            ),
            format!(
                "its schedule is `{}` in `{}`: widen the range",
                schedule.text, pipeline.timezone
            ),
        ));
    }
    Ok(out)
}

/// Midnight of `day` as croner's civil time.
fn civil02(day: Date) -> Option<jiff02::civil::DateTime> {
    jiff02::civil::DateTime::new(day.year(), day.month(), day.day(), 0, 0, 0, 0).ok()
}

/// RFC 3339 in UTC, to the second (`2026-03-01T00:00:00Z`), as the runtime
/// reads `FLOW_INTERVAL_START` and `FLOW_INTERVAL_END`.
fn rfc3339(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn header(pipeline: &Pipeline, from: Date, to: Date, intervals: &[Interval]) -> String {
    let count = intervals.len();
    let mut out = format!(
        "# flowc backfill of pipeline `{}` ({}): {count} interval{} starting from {from} to {to} in {}\n",
        pipeline.name,
        pipeline.source_file,
        if count == 1 { "" } else { "s" },
        pipeline.timezone
    );
    for i in intervals {
        let _ = writeln!(out, "#   {} .. {}", rfc3339(i.start), rfc3339(i.end));
    }
    out
}

/// The Airflow command that runs `intervals` (Airflow 3's `airflow backfill
/// create`, whose window holds the logical dates, which are the interval
/// starts under flowc's `CronDataIntervalTimetable`), after a comment
/// listing them.
pub fn airflow(pipeline: &Pipeline, from: Date, to: Date, intervals: &[Interval]) -> String {
    let iso = |t: Timestamp| t.strftime("%Y-%m-%dT%H:%M:%S+00:00").to_string();
    let (Some(first), Some(last)) = (intervals.first(), intervals.last()) else {
        return header(pipeline, from, to, intervals);
    };
    format!(
        "{}airflow backfill create --dag-id {} --from-date {} --to-date {} --reprocess-behavior failed\n",
        header(pipeline, from, to, intervals),
        shell_word(&pipeline.name),
        iso(first.start),
        iso(last.start),
    )
}

/// `s` as one POSIX shell word (pipeline names are identifiers, so this
/// quotes only in theory).
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// One Argo `Workflow` per interval, as a multi-document YAML stream after a
/// comment listing them.
///
/// # Errors
/// The problems the Argo target finds in the pipeline (FL801-FL803).
pub fn argo(
    pipeline: &Pipeline,
    from: Date,
    to: Date,
    intervals: &[Interval],
) -> Result<String, Vec<TargetProblem>> {
    let runs: Vec<IntervalRun> = intervals
        .iter()
        .map(|i| IntervalRun {
            start: rfc3339(i.start),
            end: rfc3339(i.end),
            suffix: i.start.strftime("%Y%m%d-%H%M").to_string(),
        })
        .collect();
    let documents = argo::backfill(pipeline, &runs)?;
    let mut out = header(pipeline, from, to, intervals);
    for doc in documents {
        out.push_str("---\n");
        out.push_str(&doc);
        if !doc.ends_with('\n') {
            out.push('\n');
        }
    }
    Ok(out)
}
