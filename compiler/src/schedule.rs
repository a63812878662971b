//! A pipeline's schedule for people (`flowc report`): the cron expression in
//! words, and its first intervals in the pipeline's time zone, from `start`
//! (deterministic) or from a given moment (`--now`). A schedule typed the
//! wrong way round (`2 0 * * *` meant as 02:00) reads plainly wrong here.
//!
//! The words are croner's English description; the intervals are those
//! `flowc backfill` computes ([`crate::codegen::backfill::intervals`]), so
//! the two never disagree about a time-zone change.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::Timestamp;
use serde::Serialize;

use crate::analyze::model::PipelineDef;
use crate::codegen::backfill;
use crate::codegen::ir;

/// How many intervals the report shows.
pub const SHOWN: usize = 3;

/// One interval, in the pipeline's zone: `2026-01-01T00:00:00+01:00`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IntervalWords {
    pub start: String,
    pub end: String,
}

/// A scheduled pipeline's schedule, said in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScheduleWords {
    /// As written (`@daily`).
    pub cron: String,
    /// In words: `At 02:00`.
    pub words: String,
    pub timezone: String,
    /// `start` (the first intervals of the pipeline) or `now` (the next
    /// ones after the moment given).
    pub from: &'static str,
    /// The first [`SHOWN`] intervals from there (fewer only when the
    /// schedule has fewer in the next ten years).
    pub intervals: Vec<IntervalWords>,
}

/// The schedule of `p` in words; `None` for a manual pipeline, or a
/// schedule or zone that does not resolve (which `check` reports).
pub fn describe(p: &PipelineDef, now: Option<Timestamp>) -> Option<ScheduleWords> {
    let (text, five) = p.schedule.as_ref()?;
    let cron: croner::Cron = five.parse().ok()?;
    let zone = TimeZone::get(&p.timezone).ok()?;
    let start = p
        .start
        .as_deref()
        .and_then(|d| crate::analyze::literal::parse_date(d).ok());
    let pipeline = ir::Pipeline {
        name: p.name.clone(),
        source_file: String::new(),
        schedule: Some(ir::Schedule {
            text: text.clone(),
            cron: five.clone(),
        }),
        start,
        timezone: p.timezone.clone(),
        catchup: p.catchup,
        image: None,
        state: ir::StateStore::default(),
        needs_state: false,
        pod: ir::Pod::default(),
        argo_ttl_seconds: None,
        argo_pod_gc: None,
        params: Vec::new(),
        tasks: Vec::new(),
    };
    let (first_day, after) = match now {
        Some(t) => (t.to_zoned_datetime(zone.clone()).date(), Some(t)),
        None => (start?, None),
    };
    Some(ScheduleWords {
        cron: text.clone(),
        words: cron.describe().trim_end_matches('.').to_owned(),
        timezone: p.timezone.clone(),
        from: if now.is_some() { "now" } else { "start" },
        intervals: first_intervals(&pipeline, first_day, after)
            .into_iter()
            .map(|i| IntervalWords {
                start: shown(i.start, &zone),
                end: shown(i.end, &zone),
            })
            .collect(),
    })
}

/// The first [`SHOWN`] intervals starting on `day` or later (and at or
/// after `after`), looking a day ahead, then a month, a year, ten years.
fn first_intervals(
    pipeline: &ir::Pipeline,
    day: Date,
    after: Option<Timestamp>,
) -> Vec<backfill::Interval> {
    for days in [1, 31, 366, 3653] {
        let Ok(to) = day.checked_add(jiff::Span::new().days(days)) else {
            break;
        };
        let Ok(found) = backfill::intervals(pipeline, day, to) else {
            continue;
        };
        let found: Vec<_> = found
            .into_iter()
            .filter(|i| after.is_none_or(|t| i.start >= t))
            .take(SHOWN)
            .collect();
        if found.len() == SHOWN || days == 3653 {
            return found;
        }
    }
    Vec::new()
}

/// An instant as the zone's wall clock with its offset, to the second.
fn shown(t: Timestamp, zone: &TimeZone) -> String {
    t.to_zoned_datetime(zone.clone())
        .strftime("%Y-%m-%dT%H:%M:%S%:z")
        .to_string()
}

/// `2026-01-01 00:00 → 2026-01-02 00:00` for people: the zone's wall clock,
/// the offset left out (the zone is named beside it).
pub fn human_interval(i: &IntervalWords) -> String {
    let short = |s: &str| s.get(..16).unwrap_or(s).replacen('T', " ", 1);
    format!("{} → {}", short(&i.start), short(&i.end))
}
