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
    // each becomes an instant there, a time in a DST gap read with the offset
    // before the change (02:30 in a one-hour gap is 03:30 after it), a time
    // in a fold the earlier of its two. In civil order, a tick whose instant
    // is not after the last kept one is dropped (two civil ticks of a gap or a
    // fold that meet in one instant are one tick); an interval runs from a
    // kept tick to the next. The Python runtime's `previous_tick` reads a tick
    // the same way (tests/python/test_intervals.py checks the two agree).
    let instant = |t: jiff02::civil::DateTime| -> Option<Timestamp> {
        let civil =
            jiff::civil::date(t.year(), t.month(), t.day()).at(t.hour(), t.minute(), t.second(), 0);
        zone.to_ambiguous_zoned_datetime(civil)
            .compatible()
            .ok()
            .map(|z| z.timestamp())
    };
    let mut out: Vec<Interval> = Vec::new();
    // The last kept tick: its instant, and whether its civil time is inside the window.
    let mut open: Option<(Timestamp, bool)> = None;
    let mut tick = cron.find_next_occurrence(&lo, true).ok();
    while let Some(civil) = tick {
        let inside = civil < hi;
        if !inside && open.is_none_or(|(_, was_inside)| !was_inside) {
            break;
        }
        if let Some(at) = instant(civil) {
            match open {
                Some((start, _)) if at <= start => {}
                Some((start, was_inside)) => {
                    if was_inside {
                        if out.len() == MAX_INTERVALS {
                            return Err(refuse(
                                format!(
                                    "`{}` has more than {MAX_INTERVALS} intervals from {from} to {to}",
                                    pipeline.name
                                ),
                                "backfill a shorter range at a time",
                            ));
                        }
                        out.push(Interval { start, end: at });
                    }
                    open = Some((at, inside));
                }
                None => open = Some((at, inside)),
            }
        }
        let Ok(next) = cron.find_next_occurrence(&civil, false) else {
            break;
        };
        tick = Some(next);
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

/// `s` as it may stand in a `#` comment line of a shell script or a YAML
/// stream: as is when it is printable ASCII, else double-quoted with every
/// line break (`\n`, `\r`, NEL, U+2028, U+2029) and control character
/// escaped, so the comment cannot end early.
fn comment_text(s: &str) -> String {
    if s.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        s.to_owned()
    } else {
        super::quote::yaml_str(s)
    }
}

fn header(pipeline: &Pipeline, from: Date, to: Date, intervals: &[Interval]) -> String {
    let count = intervals.len();
    let mut out = format!(
        "# flowc backfill of pipeline `{}` ({}): {count} interval{} starting from {from} to {to} in {}\n",
        pipeline.name,
        // Quoted and escaped: a line break in the file's name would end the
        // comment, and what follows would be a shell line or a document.
        comment_text(&pipeline.source_file),
        if count == 1 { "" } else { "s" },
        comment_text(&pipeline.timezone)
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

/// The most bytes a backfill writes (64 MiB): past it, the range is refused
/// before anything is printed or written.
pub const MAX_OUTPUT_BYTES: usize = 64 * 1_048_576;

/// Why an Argo backfill was not produced.
#[derive(Debug)]
pub enum ArgoRefusal {
    /// The problems the Argo target finds in the pipeline (FL801-FL803).
    Problems(Vec<TargetProblem>),
    /// The output would pass [`MAX_OUTPUT_BYTES`].
    TooLarge(Refusal),
}

/// One Argo `Workflow` per interval, as a multi-document YAML stream after a
/// comment listing them. Each document is rendered on its own and appended,
/// so memory stays near the output's size, which is bounded by
/// [`MAX_OUTPUT_BYTES`]: the first document's size tells what the whole
/// stream would take, and a range past the bound is refused before the
/// rest is rendered.
///
/// # Errors
/// The problems the Argo target finds in the pipeline (FL801-FL803), or an
/// output past [`MAX_OUTPUT_BYTES`].
pub fn argo(
    pipeline: &Pipeline,
    from: Date,
    to: Date,
    intervals: &[Interval],
) -> Result<String, ArgoRefusal> {
    let run = |i: &Interval| IntervalRun {
        start: rfc3339(i.start),
        end: rfc3339(i.end),
        suffix: i.start.strftime("%Y%m%d-%H%M").to_string(),
    };
    let runs: Vec<IntervalRun> = intervals.iter().map(run).collect();
    let mut out = header(pipeline, from, to, intervals);
    let mut too_large = None;
    let mut first = true;
    argo::backfill_each(pipeline, &runs, |doc| {
        if std::mem::take(&mut first) {
            // The first document: every other has its size, but for the
            // dates in its name and arguments.
            let estimate = out.len() + (doc.len() + 5).saturating_mul(intervals.len());
            if estimate > MAX_OUTPUT_BYTES {
                too_large = Some(refuse(
                    format!(
                        "the backfill of `{}` would be about {} MiB ({} Workflows of {} KiB), more than the {} MiB flowc writes",
                        pipeline.name,
                        estimate.div_ceil(1_048_576),
                        intervals.len(),
                        doc.len().div_ceil(1024),
                        MAX_OUTPUT_BYTES / 1_048_576
                    ),
                    "backfill a shorter range at a time (`--from`, `--to`)",
                ));
                return false;
            }
            out.reserve(estimate.saturating_sub(out.len()));
        }
        if out.len() + doc.len() + 5 > MAX_OUTPUT_BYTES {
            too_large = Some(refuse(
                format!(
                    "the backfill of `{}` would be more than the {} MiB flowc writes",
                    pipeline.name,
                    MAX_OUTPUT_BYTES / 1_048_576
                ),
                "backfill a shorter range at a time (`--from`, `--to`)",
            ));
            return false;
        }
        out.push_str("---\n");
        out.push_str(&doc);
        if !doc.ends_with('\n') {
            out.push('\n');
        }
        true
    })
    .map_err(ArgoRefusal::Problems)?;
    if let Some(r) = too_large {
        return Err(ArgoRefusal::TooLarge(r));
    }
    Ok(out)
}
