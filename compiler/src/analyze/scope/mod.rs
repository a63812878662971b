//! Whether a sink's parameters name one interval's place (MODEL-v0.3 C1):
//! a declaration is interval-scoped for a pipeline only when the tuple of
//! all its rendered string parameters is injective over the pipeline's
//! intervals, so that two different intervals never render the same place.
//!
//! The decision is symbolic: the placeholders give the finest calendar unit
//! they pin down (a full timestamp, or the date and clock fields their
//! strftime directives render in the pipeline's zone), and the schedule
//! gives how often it fires within each unit. The test module checks the
//! decision against an enumeration of two years of interval starts, DST
//! changes included.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::model::{DeclDef, PipelineDef};
use crate::vocab::ParamValue;

/// The directives of one moment's placeholders (`interval.start` or
/// `interval.end`), over all the parameters of a declaration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
struct Fields {
    /// A placeholder of this moment is there, with or without directives.
    seen: bool,
    /// An unformatted `{interval.start}`/`{interval.end}`: a full timestamp.
    full: bool,
    /// One bit per directive letter (`a`..`z`, `A`..`Z`).
    letters: u64,
}

impl Fields {
    fn add(&mut self, directive: char) {
        if directive.is_ascii_alphabetic() {
            let bit = if directive.is_ascii_lowercase() {
                u32::from(directive) - u32::from('a')
            } else {
                26 + u32::from(directive) - u32::from('A')
            };
            self.letters |= 1 << bit;
        }
    }

    fn has(self, directive: char) -> bool {
        let mut probe = Fields::default();
        probe.add(directive);
        probe.letters != 0 && self.letters & probe.letters == probe.letters
    }

    fn any(self) -> bool {
        self.seen
    }
}

/// What a declaration's string parameters render of an interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Rendered {
    start: Fields,
    end: Fields,
}

impl Rendered {
    /// The placeholders of every string parameter of `decl` (template form).
    pub fn of_decl(decl: &DeclDef) -> Self {
        let mut out = Rendered::default();
        for v in decl.params.values() {
            if let ParamValue::String(t) = v {
                out.add_template(t);
            }
        }
        out
    }

    /// The placeholders of one template (placeholders as written, literal
    /// braces doubled).
    pub fn of_templates<'t>(templates: impl IntoIterator<Item = &'t str>) -> Self {
        let mut out = Rendered::default();
        for t in templates {
            out.add_template(t);
        }
        out
    }

    fn add_template(&mut self, template: &str) {
        for (which, format) in placeholders(template) {
            let fields = if which == "end" {
                &mut self.end
            } else {
                &mut self.start
            };
            fields.seen = true;
            match (which, format) {
                ("date", _) => {
                    for d in ['Y', 'm', 'd'] {
                        fields.add(d);
                    }
                }
                (_, None) => fields.full = true,
                (_, Some(format)) => {
                    let mut chars = format.chars();
                    while let Some(c) = chars.next() {
                        if c == '%' {
                            if let Some(d) = chars.next() {
                                fields.add(d);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Whether any placeholder is there at all.
    pub fn any(self) -> bool {
        self.start.any() || self.end.any()
    }
}

/// The placeholders of a template: (`start`/`end`/`date`, its format).
fn placeholders(template: &str) -> Vec<(&str, Option<&str>)> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        let after = &rest[at + 1..];
        if after.starts_with(['{', '}']) {
            rest = &after[1..];
            continue;
        }
        let Some(close) = after.find('}') else {
            break;
        };
        let inner = &after[..close];
        rest = &after[close + 1..];
        let (name, format) = match inner.split_once(':') {
            Some((n, f)) => (n, Some(f)),
            None => (inner, None),
        };
        if let Some(which) = name.strip_prefix("interval.") {
            out.push((which, format));
        }
    }
    out
}

/// The calendar units a moment's fields identify, coarsest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unit {
    Year,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Instant,
}

impl Unit {
    /// The unit's word in messages.
    pub fn word(self) -> &'static str {
        match self {
            Unit::Year => "year",
            Unit::Month => "month",
            Unit::Week => "ISO week",
            Unit::Day => "day",
            Unit::Hour => "hour",
            Unit::Minute => "minute",
            Unit::Instant => "instant",
        }
    }
}

/// The units `f` identifies in the pipeline's zone (any two moments with
/// one rendering share each of them), and whether it renders the offset
/// (`%z`), which tells a fall-back hour's two passes apart.
fn units(f: Fields) -> (Vec<Unit>, bool) {
    if f.full {
        return (vec![Unit::Instant], true);
    }
    let year = f.has('Y');
    let iso_week = f.has('G') && f.has('V');
    let day = (year && (f.has('j') || (f.has('m') && f.has('d')))) || (iso_week && f.has('u'));
    let mut out = Vec::new();
    if year {
        out.push(Unit::Year);
    }
    if day || (year && f.has('m')) {
        out.push(Unit::Month);
    }
    if day || iso_week {
        out.push(Unit::Week);
    }
    if day {
        out.push(Unit::Day);
        if f.has('H') {
            out.push(Unit::Hour);
            if f.has('M') {
                out.push(Unit::Minute);
            }
        }
    }
    (out, f.has('z'))
}

/// Why a declaration is not interval-scoped for a pipeline: one sentence
/// for a label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotScoped {
    /// No `{interval...}` placeholder in any parameter.
    NoPlaceholder,
    /// A manual pipeline: only a full timestamp tells trigger times apart.
    Manual,
    /// The finest unit the parameters render and how the schedule fires
    /// more than once within it (`None`: no unit at all, as with a format
    /// that has no year).
    Coarse { unit: Option<Unit> },
    /// An hour or finer in a zone whose fall-back hour repeats, without `%z`.
    FallBack { zone: String },
}

impl NotScoped {
    /// The reason, after "is not interval-scoped: ".
    pub fn reason(&self, schedule: &str) -> String {
        match self {
            NotScoped::NoPlaceholder => {
                "no parameter holds an `{interval...}` placeholder".to_string()
            }
            NotScoped::Manual => "the pipeline is manual and only a full `{interval.start}` tells two runs apart".to_string(),
            NotScoped::Coarse { unit: Some(u) } => format!(
                "its placeholders render one {} and schedule `{schedule}` starts more than one interval in some {}, so they render the same place",
                u.word(),
                u.word()
            ),
            NotScoped::Coarse { unit: None } => format!(
                "its placeholders render no whole date (a format without its year, or no directive), so intervals of schedule `{schedule}` render the same place"
            ),
            NotScoped::FallBack { zone } => format!(
                "its placeholders render the local clock and `{zone}` repeats the hour it falls back: add `%z` to the format"
            ),
        }
    }
}

/// Whether `decl` is interval-scoped for `pipeline` (C1).
pub fn scoped(decl: &DeclDef, pipeline: &PipelineDef) -> Result<(), NotScoped> {
    let r = Rendered::of_decl(decl);
    scoped_for(
        r,
        pipeline.schedule.as_ref().map(|(_, c)| c.as_str()),
        &pipeline.timezone,
    )
}

/// The decision for rendered fields `r`, a five-field schedule (`None`:
/// manual) and a zone; cached per (fields, schedule, zone).
pub fn scoped_for(r: Rendered, cron: Option<&str>, zone: &str) -> Result<(), NotScoped> {
    type Cache = Mutex<HashMap<(Rendered, Option<String>, String), Result<(), NotScoped>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key = (r, cron.map(str::to_string), zone.to_string());
    let cache = CACHE.get_or_init(Cache::default);
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return hit;
    }
    let out = decide(r, cron, zone);
    if let Ok(mut c) = cache.lock() {
        c.insert(key, out.clone());
    }
    out
}

fn decide(r: Rendered, cron: Option<&str>, zone: &str) -> Result<(), NotScoped> {
    if !r.any() {
        return Err(NotScoped::NoPlaceholder);
    }
    let Some(cron) = cron else {
        return if r.start.full || r.end.full {
            Ok(())
        } else {
            Err(NotScoped::Manual)
        };
    };
    let Some(s) = Schedule::of(cron) else {
        // A schedule flowc could not read was reported (FL002): nothing more to say.
        return Ok(());
    };
    // The ends are ticks of the same schedule, one on from the starts: the
    // same test applies to each; either one being injective is enough.
    let mut worst = None;
    for f in [r.start, r.end] {
        if !f.any() {
            continue;
        }
        match decide_one(f, &s, zone) {
            Ok(()) => return Ok(()),
            Err(e) => {
                if worst.is_none() {
                    worst = Some(e);
                }
            }
        }
    }
    Err(worst.unwrap_or(NotScoped::NoPlaceholder))
}

fn decide_one(f: Fields, s: &Schedule, zone: &str) -> Result<(), NotScoped> {
    let (units, offset) = units(f);
    if units.contains(&Unit::Instant) {
        return Ok(());
    }
    let Some(unit) = units.iter().copied().find(|u| s.at_most_once_per(*u)) else {
        return Err(NotScoped::Coarse {
            unit: units.last().copied(),
        });
    };
    if unit >= Unit::Hour && !offset && s.ticks_in_fold(zone) {
        return Err(NotScoped::FallBack {
            zone: zone.to_string(),
        });
    }
    Ok(())
}

/// What the decision needs of a schedule.
struct Schedule {
    minutes: Vec<u32>,
    hours: Vec<u32>,
    /// The days of 28 years from 2000 (the calendar's cycle) the schedule fires on.
    days: Vec<jiff::civil::Date>,
}

impl Schedule {
    fn of(cron: &str) -> Option<Self> {
        let parsed: croner::Cron = cron.parse().ok()?;
        let p = &parsed.pattern;
        let minutes = (0..60)
            .filter(|m| p.minute_match(*m).unwrap_or(false))
            .collect();
        let hours = (0..24)
            .filter(|h| p.hour_match(*h).unwrap_or(false))
            .collect();
        let mut days = Vec::new();
        let mut day = jiff::civil::date(2000, 1, 1);
        while day.year() < 2028 {
            let weekday = croner::Weekday::from_days_from_sunday(u32::from(
                day.weekday().to_sunday_zero_offset().unsigned_abs(),
            ));
            let month = u32::from(day.month().unsigned_abs());
            let dom = u32::from(day.day().unsigned_abs());
            if p.month_match(month).unwrap_or(false)
                && p.day_match(i32::from(day.year()), month, dom, weekday)
                    .unwrap_or(false)
            {
                days.push(day);
            }
            day = day.tomorrow().ok()?;
        }
        Some(Schedule {
            minutes,
            hours,
            days,
        })
    }

    fn per_day(&self) -> usize {
        self.minutes.len() * self.hours.len()
    }

    /// Whether no two ticks fall in one `unit` of the zone's calendar.
    fn at_most_once_per(&self, unit: Unit) -> bool {
        match unit {
            Unit::Instant | Unit::Minute => true,
            Unit::Hour => self.minutes.len() <= 1,
            Unit::Day => self.per_day() <= 1,
            Unit::Week | Unit::Month | Unit::Year => {
                self.per_day() <= 1
                    && self.days.windows(2).all(|w| {
                        let (a, b) = (w[0], w[1]);
                        match unit {
                            Unit::Week => {
                                a.iso_week_date().year() != b.iso_week_date().year()
                                    || a.iso_week_date().week() != b.iso_week_date().week()
                            }
                            Unit::Month => a.year() != b.year() || a.month() != b.month(),
                            _ => a.year() != b.year(),
                        }
                    })
            }
        }
    }

    /// Whether a tick's clock time falls in an hour that the zone repeats
    /// (a fall-back), on a schedule that fires more than once a day: the
    /// schedulers step such schedules by elapsed time, so both passes of
    /// the repeated hour start an interval.
    fn ticks_in_fold(&self, zone: &str) -> bool {
        if self.per_day() <= 1 {
            return false;
        }
        let folds = folds(zone);
        self.hours.iter().any(|h| {
            self.minutes.iter().any(|m| {
                let t = h * 60 + m;
                folds.iter().any(|(lo, hi)| (*lo..*hi).contains(&t))
            })
        })
    }
}

/// The clock ranges a zone repeats when it falls back, as minutes of the
/// day `[lo, hi)`, over 2000–2100; cached per zone.
fn folds(zone: &str) -> Vec<(u32, u32)> {
    type Folds = Mutex<HashMap<String, Vec<(u32, u32)>>>;
    static CACHE: OnceLock<Folds> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(zone).cloned()) {
        return hit;
    }
    let mut out: Vec<(u32, u32)> = Vec::new();
    if let Ok(tz) = jiff::tz::TimeZone::get(zone) {
        // Rules of the past (Lord Howe's one-hour DST before 1986) start no
        // interval of a pipeline written today.
        let from = jiff::civil::date(2000, 1, 1)
            .to_zoned_datetime(jiff::tz::TimeZone::UTC)
            .map_or(jiff::Timestamp::UNIX_EPOCH, |z| z.timestamp());
        let until = jiff::civil::date(2100, 1, 1)
            .to_zoned_datetime(jiff::tz::TimeZone::UTC)
            .map_or(from, |z| z.timestamp());
        for t in tz.following(from) {
            if t.timestamp() > until {
                break;
            }
            let after = t.offset().seconds();
            let before = tz
                .to_offset(t.timestamp() - jiff::SignedDuration::from_secs(1))
                .seconds();
            if after >= before {
                continue;
            }
            // Clock times from (transition + after) to (transition + before) occur twice.
            let local = t
                .timestamp()
                .to_zoned_datetime(jiff::tz::TimeZone::fixed(t.offset()));
            let lo = u32::try_from(i32::from(local.hour()) * 60 + i32::from(local.minute()))
                .unwrap_or(0);
            let len = u32::try_from((before - after + 59) / 60).unwrap_or(0);
            let hi = lo + len;
            let mut push = |r: (u32, u32)| {
                if !out.contains(&r) {
                    out.push(r);
                }
            };
            if hi <= 24 * 60 {
                push((lo, hi));
            } else {
                push((lo, 24 * 60));
                push((0, hi - 24 * 60));
            }
        }
    }
    out.sort_unstable();
    if let Ok(mut c) = cache.lock() {
        c.insert(zone.to_string(), out.clone());
    }
    out
}

#[cfg(test)]
mod tests;
