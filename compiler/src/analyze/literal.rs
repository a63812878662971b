//! Literal values: durations, dates, integers, cron expressions, time zones
//! and string placeholders (FL002). What is wrong with one is a
//! [`LiteralError`] (with a parameter's braces, a [`PlaceholderError`]);
//! the words are in `rules::fl002_invalid_literal`.

use super::model::DeclDef;
use crate::span::Span;
use crate::syntax::ast::Str;
use crate::syntax::escape::decode;
use crate::vocab::ParamValue;

/// What is wrong with a literal (FL002), with what its message needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiteralError {
    /// A duration `text` with `unit`, which is no unit.
    NotAUnit { text: String, unit: char },
    /// A duration `text` whose `unit` has no number before it.
    NoNumberBeforeUnit { text: String, unit: char },
    /// A duration `text` whose units are not largest first, each once.
    UnitsOutOfOrder { text: String },
    /// A duration `text` with a number above 4294967295.
    DurationNumberTooLarge { text: String },
    /// A duration `text` too large to count in seconds.
    DurationTooLarge { text: String },
    /// A duration `text` with a number and no unit.
    NumberWithoutUnit { text: String },
    /// `text` is neither a number, a date nor a duration.
    NotANumber { text: String },
    /// An integer `text` above 4294967295.
    IntTooLarge { text: String },
    /// `text` is not written `YYYY-MM-DD`.
    DateShape { text: String },
    /// `text` is written as a date, and no such day exists.
    NotOnCalendar { text: String },
    /// `text` is a date before [`EARLIEST_DATE`].
    BeforeEarliest { text: String },
    /// `text` starts with `@` and is no preset; `near` is the closest one.
    UnknownPreset { text: String, near: Option<String> },
    /// An empty schedule.
    EmptySchedule,
    /// A schedule `text` with `count` fields, not 5.
    FieldCount { text: String, count: usize },
    /// A schedule `text` with `ch`, which no cron field takes.
    NotInCron { text: String, ch: char },
    /// A schedule `text` with `word` (`L`, `W`, `LW`).
    LastOrNearest { text: String, word: String },
    /// A schedule `text` with `word` in field `field` (0 to 4), which is
    /// no name that field takes.
    NotAName {
        text: String,
        word: String,
        field: usize,
    },
    /// A schedule `text` that the scheduling library refuses.
    Unschedulable { text: String },
    /// A schedule `text` that never fires; `month` (1 to 12) and `day` when
    /// it names one of each.
    NeverFires {
        text: String,
        month: Option<usize>,
        day: Option<u32>,
    },
    /// A schedule `text` whose field `field` has a range `range` with a
    /// side missing.
    RangeMissingValue {
        text: String,
        field: usize,
        range: String,
    },
    /// A schedule `text` whose field `field` has `value`, which is no value.
    NotAValue {
        text: String,
        field: usize,
        value: String,
    },
    /// A schedule `text` whose field `field` has `value` out of its range.
    OutOfRange {
        text: String,
        field: usize,
        value: String,
    },
    /// A schedule `text` whose field `field` (written `list`) has an empty item.
    EmptyItem {
        text: String,
        field: usize,
        list: String,
    },
    /// A schedule `text` whose field `field` has nothing after `/`.
    StepMissing { text: String, field: usize },
    /// A schedule `text` whose field `field` has the step `step`, no number.
    StepNotNumber {
        text: String,
        field: usize,
        step: String,
    },
    /// A schedule `text` whose field `field` has a step of 0.
    StepZero { text: String, field: usize },
    /// A schedule `text` whose field `field` has the step `step`, too large.
    StepTooLarge {
        text: String,
        field: usize,
        step: String,
    },
    /// A schedule `text` whose field `field` has a step after one value;
    /// `range` is that value when it is well formed, `last` the field's
    /// last value for the suggestion.
    StepAfterValue {
        text: String,
        field: usize,
        step: String,
        range: Option<String>,
        last: u32,
    },
    /// A schedule `text` whose field `field` has a range `range` that runs backwards.
    RangeBackwards {
        text: String,
        field: usize,
        range: String,
    },
    /// A time zone `name` spelled `canonical` in the database.
    ZoneSpelling { name: String, canonical: String },
    /// A time zone `name` that is no place's (`Etc/Unknown`, `Factory`);
    /// `near` is the closest zone.
    NotAPlace { name: String, near: Option<String> },
    /// A time zone `name` that is not in the database; `near` is the closest.
    NotAZone { name: String, near: Option<String> },
}

/// Seconds in a duration written `1h30m`: an integer with units in
/// descending order (`d`, `h`, `m`, `s`), each at most once.
pub fn parse_duration(text: &str) -> Result<u64, LiteralError> {
    const UNITS: [(char, u64); 4] = [('d', 86_400), ('h', 3_600), ('m', 60), ('s', 1)];
    let mut total: u64 = 0;
    let mut next_unit = 0;
    let mut digits = String::new();
    let mut saw_unit = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let Some(pos) = UNITS.iter().position(|(u, _)| *u == c) else {
            return Err(LiteralError::NotAUnit {
                text: text.to_string(),
                unit: c,
            });
        };
        if digits.is_empty() {
            return Err(LiteralError::NoNumberBeforeUnit {
                text: text.to_string(),
                unit: c,
            });
        }
        if pos < next_unit {
            return Err(LiteralError::UnitsOutOfOrder {
                text: text.to_string(),
            });
        }
        // Each number is an integer of the language: 0 to 4294967295.
        let n =
            u64::from(
                digits
                    .parse::<u32>()
                    .map_err(|_| LiteralError::DurationNumberTooLarge {
                        text: text.to_string(),
                    })?,
            );
        total = n
            .checked_mul(UNITS[pos].1)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(|| LiteralError::DurationTooLarge {
                text: text.to_string(),
            })?;
        digits.clear();
        next_unit = pos + 1;
        saw_unit = true;
    }
    if !digits.is_empty() || !saw_unit {
        return Err(LiteralError::NumberWithoutUnit {
            text: text.to_string(),
        });
    }
    Ok(total)
}

/// An integer from 0 to 4294967295.
pub fn parse_int(text: &str) -> Result<u32, LiteralError> {
    if !text.chars().all(|c| c.is_ascii_digit()) {
        return Err(LiteralError::NotANumber {
            text: text.to_string(),
        });
    }
    text.parse::<u32>().map_err(|_| LiteralError::IntTooLarge {
        text: text.to_string(),
    })
}

/// A calendar date `YYYY-MM-DD`.
pub fn parse_date(text: &str) -> Result<jiff::civil::Date, LiteralError> {
    let shape_ok = text.len() == 10
        && text.char_indices().all(|(i, c)| {
            if i == 4 || i == 7 {
                c == '-'
            } else {
                c.is_ascii_digit()
            }
        });
    if !shape_ok {
        return Err(LiteralError::DateShape {
            text: text.to_string(),
        });
    }
    let date = text
        .parse::<jiff::civil::Date>()
        .map_err(|_| LiteralError::NotOnCalendar {
            text: text.to_string(),
        })?;
    if date < EARLIEST_DATE {
        return Err(LiteralError::BeforeEarliest {
            text: text.to_string(),
        });
    }
    Ok(date)
}

/// The earliest date a `.flow` file may name. A pipeline's `start` is where
/// Airflow's catch-up begins: `start 0202-06-01` (a typo for 2026) on an
/// hourly schedule would ask for 16 million runs, which `flowc backfill`
/// refuses for the same range (issue 27, item 20). No scheduler predates it.
pub const EARLIEST_DATE: jiff::civil::Date = jiff::civil::date(1970, 1, 1);

/// What a token starting with a digit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberKind {
    Date,
    Duration,
    Int,
}

/// Classify a number token as the lexical rules try it: date, duration, integer.
pub fn classify(text: &str) -> Result<NumberKind, LiteralError> {
    if text.contains('-') {
        parse_date(text).map(|_| NumberKind::Date)
    } else if text.ends_with(|c: char| c.is_ascii_alphabetic())
        || text.contains(|c: char| c.is_ascii_alphabetic())
    {
        parse_duration(text).map(|_| NumberKind::Duration)
    } else {
        parse_int(text).map(|_| NumberKind::Int)
    }
}

pub const PRESETS: [(&str, &str); 5] = [
    ("@hourly", "0 * * * *"),
    ("@daily", "0 0 * * *"),
    ("@weekly", "0 0 * * 0"),
    ("@monthly", "0 0 1 * *"),
    ("@yearly", "0 0 1 1 *"),
];

const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
const WEEKDAYS: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

/// A schedule: exactly five cron fields, or one of the listed presets.
/// Returns the five-field form.
pub fn parse_cron(text: &str) -> Result<String, LiteralError> {
    if text.starts_with('@') {
        return PRESETS
            .iter()
            .find(|(p, _)| *p == text)
            .map(|(_, c)| (*c).to_string())
            .ok_or_else(|| LiteralError::UnknownPreset {
                text: text.to_string(),
                near: crate::suggest::closest(text, PRESETS.iter().map(|(p, _)| *p))
                    .map(str::to_string),
            });
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.is_empty() {
        return Err(LiteralError::EmptySchedule);
    }
    if fields.len() != 5 {
        return Err(LiteralError::FieldCount {
            text: text.to_string(),
            count: fields.len(),
        });
    }
    for (i, f) in fields.iter().enumerate() {
        if let Some(bad) = f
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '*' | ',' | '-' | '/')))
        {
            return Err(LiteralError::NotInCron {
                text: text.to_string(),
                ch: bad,
            });
        }
        // Letters only as three-letter month (field 4) or weekday (field 5) names.
        for word in f
            .split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| !w.is_empty())
        {
            let up = word.to_ascii_uppercase();
            let ok = match i {
                3 => MONTHS.contains(&up.as_str()),
                4 => WEEKDAYS.contains(&up.as_str()),
                _ => false,
            };
            if !ok && matches!(up.as_str(), "L" | "W" | "LW") {
                return Err(LiteralError::LastOrNearest {
                    text: text.to_string(),
                    word: word.to_string(),
                });
            }
            if !ok {
                return Err(LiteralError::NotAName {
                    text: text.to_string(),
                    word: word.to_string(),
                    field: i,
                });
            }
        }
    }
    for (i, f) in fields.iter().enumerate() {
        check_cron_field(text, i, f)?;
    }
    // The fields are well formed; the library that schedules them has the
    // last word, in flowc's own words.
    let cron = text
        .parse::<croner::Cron>()
        .map_err(|_| LiteralError::Unschedulable {
            text: text.to_string(),
        })?;
    if !fires(&cron) {
        return Err(never_fires(text, &fields));
    }
    Ok(fields.join(" "))
}

/// Whether a schedule fires at least once in 28 years from 2000-01-01 UTC:
/// the calendar repeats its leap years and weekdays every 28 years (2000 is
/// a leap year, and no year of the span skips one), so a schedule that has
/// no tick in them has none ever. A day of month and a day of week both
/// restricted are either-or, as in cron, Airflow and Argo.
fn fires(cron: &croner::Cron) -> bool {
    let pattern = &cron.pattern;
    // Every minute and hour field names at least one value (checked above),
    // so the schedule fires on any day whose month and day match.
    let mut day = jiff::civil::date(2000, 1, 1);
    while day.year() < 2028 {
        let weekday = croner::Weekday::from_days_from_sunday(u32::from(
            day.weekday().to_sunday_zero_offset().unsigned_abs(),
        ));
        let month = u32::from(day.month().unsigned_abs());
        let dom = u32::from(day.day().unsigned_abs());
        if pattern.month_match(month).unwrap_or(true)
            && pattern
                .day_match(i32::from(day.year()), month, dom, weekday)
                .unwrap_or(true)
        {
            return true;
        }
        match day.tomorrow() {
            Ok(next) => day = next,
            Err(_) => return true,
        }
    }
    false
}

/// Why a well-formed schedule never fires: the days it names are past the
/// end of every month it names.
fn never_fires(text: &str, fields: &[&str]) -> LiteralError {
    let only_month = fields[3]
        .parse::<usize>()
        .ok()
        .or_else(|| {
            let up = fields[3].to_ascii_uppercase();
            MONTHS.iter().position(|m| *m == up).map(|p| p + 1)
        })
        .filter(|m| (1..=12).contains(m));
    LiteralError::NeverFires {
        text: text.to_string(),
        month: only_month,
        day: fields[2].parse::<u32>().ok(),
    }
}

/// The five cron fields: name, lowest and highest value.
pub const CRON_FIELDS: [(&str, u32, u32); 5] = [
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day of month", 1, 31),
    ("month", 1, 12),
    ("day of week", 0, 7),
];

/// One cron field: a comma-separated list of `*`, `N`, `N-M`, each with an
/// optional `/STEP`; numbers in the field's range, or month and weekday names.
fn check_cron_field(text: &str, index: usize, field: &str) -> Result<(), LiteralError> {
    let (_, lo, hi) = CRON_FIELDS[index];
    let value = |v: &str, range: &str| -> Result<u32, LiteralError> {
        if v.is_empty() {
            return Err(LiteralError::RangeMissingValue {
                text: text.to_string(),
                field: index,
                range: range.to_string(),
            });
        }
        let up = v.to_ascii_uppercase();
        let named = match index {
            3 => MONTHS.iter().position(|m| *m == up).map(|p| p as u32 + 1),
            4 => WEEKDAYS.iter().position(|d| *d == up).map(|p| p as u32),
            _ => None,
        };
        if let Some(n) = named {
            return Ok(n);
        }
        if !v.bytes().all(|b| b.is_ascii_digit()) {
            return Err(LiteralError::NotAValue {
                text: text.to_string(),
                field: index,
                value: v.to_string(),
            });
        }
        match v.parse::<u32>() {
            Ok(n) if (lo..=hi).contains(&n) => Ok(n),
            _ => Err(LiteralError::OutOfRange {
                text: text.to_string(),
                field: index,
                value: v.to_string(),
            }),
        }
    };
    for item in field.split(',') {
        if item.is_empty() {
            return Err(LiteralError::EmptyItem {
                text: text.to_string(),
                field: index,
                list: field.to_string(),
            });
        }
        let (range, step) = match item.split_once('/') {
            Some((r, s)) => (r, Some(s)),
            None => (item, None),
        };
        if let Some(step) = step {
            if step.is_empty() {
                return Err(LiteralError::StepMissing {
                    text: text.to_string(),
                    field: index,
                });
            }
            if !step.bytes().all(|b| b.is_ascii_digit()) {
                return Err(LiteralError::StepNotNumber {
                    text: text.to_string(),
                    field: index,
                    step: step.to_string(),
                });
            }
            match step.parse::<u32>() {
                Ok(0) => {
                    return Err(LiteralError::StepZero {
                        text: text.to_string(),
                        field: index,
                    })
                }
                Ok(_) => {}
                Err(_) => {
                    return Err(LiteralError::StepTooLarge {
                        text: text.to_string(),
                        field: index,
                        step: step.to_string(),
                    })
                }
            }
        }
        if range == "*" {
            continue;
        }
        if let Some(step) = step.filter(|_| !range.contains('-')) {
            // Sunday is 0 in the suggestion: Argo's cron has no 7.
            let last = if index == 4 { 6 } else { hi };
            let well_formed = !range.is_empty() && value(range, range).is_ok();
            return Err(LiteralError::StepAfterValue {
                text: text.to_string(),
                field: index,
                step: step.to_string(),
                range: well_formed.then(|| range.to_string()),
                last,
            });
        }
        match range.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (value(a, range)?, value(b, range)?);
                if a > b {
                    return Err(LiteralError::RangeBackwards {
                        text: text.to_string(),
                        field: index,
                        range: range.to_string(),
                    });
                }
            }
            None => {
                value(range, range)?;
            }
        }
    }
    Ok(())
}

/// Names the bundled database answers that are no place's time: jiff's
/// `Etc/Unknown` (which pendulum and Go's `time.LoadLocation` refuse) and
/// the tz database's `Factory` (a placeholder for unconfigured machines,
/// whose abbreviation is `-00`).
const NOT_ZONES: [&str; 2] = ["Etc/Unknown", "Factory"];

/// The time zone database flowc checks against: the one compiled into
/// flowc, never the system's or `$TZDIR`'s, so a name passes or fails the
/// same everywhere.
fn zones() -> &'static jiff::tz::TimeZoneDatabase {
    static DB: std::sync::OnceLock<jiff::tz::TimeZoneDatabase> = std::sync::OnceLock::new();
    DB.get_or_init(jiff::tz::TimeZoneDatabase::bundled)
}

/// An IANA time zone name of the bundled database, spelled as it is there,
/// and one the targets load (not one of [`NOT_ZONES`]).
pub fn check_timezone(name: &str) -> Result<(), LiteralError> {
    let not_zone = NOT_ZONES.iter().find(|n| n.eq_ignore_ascii_case(name));
    if not_zone.is_none() {
        if let Ok(tz) = zones().get(name) {
            // The database matches names without regard to case; schedulers do not.
            return match tz.iana_name() {
                Some(canonical) if canonical != name => Err(LiteralError::ZoneSpelling {
                    name: name.to_string(),
                    canonical: canonical.to_string(),
                }),
                _ => Ok(()),
            };
        }
    }
    let names: Vec<String> = zones()
        .available()
        .map(|n| n.to_string())
        .filter(|n| !NOT_ZONES.contains(&n.as_str()))
        .collect();
    let near = crate::suggest::closest(name, names.iter().map(String::as_str)).map(str::to_string);
    let name = name.to_string();
    Err(match not_zone {
        Some(_) => LiteralError::NotAPlace { name, near },
        None => LiteralError::NotAZone { name, near },
    })
}

/// The placeholders of a string parameter, without their format.
pub const PLACEHOLDERS: [&str; 3] = ["interval.start", "interval.end", "interval.date"];

/// The strftime directives a placeholder's format may hold, after `%`.
pub const DIRECTIVES: [char; 12] = ['Y', 'm', 'd', 'H', 'M', 'S', 'j', 'u', 'V', 'G', 'z', '%'];

/// Airflow's template variables and flowc's placeholder for each.
pub const AIRFLOW_FORMS: [(&str, &str); 11] = [
    ("ds", "{interval.date}"),
    ("ds_nodash", "{interval.start:%Y%m%d}"),
    ("ts", "{interval.start}"),
    ("ts_nodash", "{interval.start:%Y%m%dT%H%M%S}"),
    ("data_interval_start", "{interval.start}"),
    ("data_interval_end", "{interval.end}"),
    ("logical_date", "{interval.start}"),
    ("execution_date", "{interval.start}"),
    ("next_ds", "{interval.end:%Y-%m-%d}"),
    ("next_ds_nodash", "{interval.end:%Y%m%d}"),
    ("macros.ds_add(ds, 1)", "{interval.end:%Y-%m-%d}"),
];

/// flowc's placeholder for an Airflow variable (`ds`, blanks around it allowed).
fn airflow_form(inner: &str) -> Option<String> {
    let inner = inner.trim();
    AIRFLOW_FORMS
        .iter()
        .find(|(airflow, _)| *airflow == inner)
        .map(|(_, flowc)| (*flowc).to_string())
}

/// flowc's form of what a Jinja expression holds: an Airflow variable's
/// placeholder, or a placeholder of flowc's (`{{interval.start}}`).
fn jinja_form(inner: &str) -> Option<String> {
    let inner = inner.trim();
    airflow_form(inner).or_else(|| {
        placeholder(inner, inner)
            .ok()
            .map(|()| format!("{{{inner}}}"))
    })
}

/// What is wrong with the braces of a string parameter (FL002).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlaceholderError {
    /// `{name}` (with any format) looks like a placeholder and is none;
    /// `near` is the closest placeholder.
    Unknown { name: String, near: Option<String> },
    /// `text` (`{ds}`, `{}`) is in braces and no placeholder; `flowc` is
    /// flowc's form of it, when there is one.
    NotAPlaceholder { text: String, flowc: Option<String> },
    /// `text` is a Jinja expression `{{ ... }}`; `flowc` as above.
    Jinja { text: String, flowc: Option<String> },
    /// `text` is a placeholder with blanks inside its braces; `fixed` without.
    Spaced { text: String, fixed: String },
    /// A `{` that nothing closes.
    Unclosed,
    /// A `}` that closes nothing.
    LoneClose,
    /// `text` has the format directive `%directive`, which is not one flowc renders.
    UnknownDirective { text: String, directive: char },
    /// `text`'s format ends with a `%`.
    DanglingPercent { text: String },
    /// `text` gives `interval.date` a format.
    DateTakesNoFormat { text: String },
    /// `text` has a `:` and nothing after it.
    EmptyFormat { text: String },
    /// `text`'s format holds `ch` (`:`, or an escaped brace).
    FormatChar { text: String, ch: char },
    /// A path segment `..` written as such, or a segment that renders as
    /// `.` or `..` (`rendered`): the path would leave its folder (C1).
    DotSegment { segment: String, rendered: bool },
    /// A `path` or `location` that starts with a placeholder whose format
    /// starts with `/` (`text`): it renders an absolute path, outside the
    /// folder its connection names (C1).
    AbsoluteRendering { text: String },
}

/// The placeholder a path template starts with, when its format starts with
/// `/` or `\`: the path renders absolute although nothing before it is
/// written. (In the template form a literal brace is doubled, so a leading
/// `{interval.` is a placeholder.)
pub fn absolute_rendering(template: &str) -> Option<String> {
    let rest = template.strip_prefix("{interval.")?;
    let (inner, _) = rest.split_once('}')?;
    let (_, format) = inner.split_once(':')?;
    format
        .starts_with(['/', '\\'])
        .then(|| format!("{{interval.{inner}}}"))
}

/// Check the braces of a string parameter and give its template form.
///
/// Every `{` written as such starts a placeholder that must be well formed
/// and known, and every `}` written as such must close one; characters an
/// escape wrote (`\{`, `\u{7B}`) are literal. The template form is what the
/// runtime renders: each placeholder as written, and every literal brace
/// doubled (`{{`, `}}`), so a template reads one way only. Errors come with
/// their span in the file, in order.
pub fn template(s: &Str) -> Result<String, Vec<(Span, PlaceholderError)>> {
    let body = s.span.start + 1;
    let chars = decode(s.raw.as_deref().unwrap_or(&s.value));
    let live = |k: usize, c: char| chars.get(k).is_some_and(|d| !d.escaped && d.ch == c);
    let text = |from: usize, to: usize| chars[from..to].iter().map(|d| d.ch).collect::<String>();
    let span = |from: usize, to: usize| Span::new(body + chars[from].from, body + chars[to - 1].to);
    let mut out = String::with_capacity(s.value.len());
    let mut bad = Vec::new();
    // From here on no `}}` is written as such: a later `{{` need not look
    // again (a string of many `{{` stays linear).
    let mut no_pair_from = chars.len();
    let mut i = 0;
    while i < chars.len() {
        let d = chars[i];
        if d.escaped || !matches!(d.ch, '{' | '}') {
            match d.ch {
                '{' => out.push_str("{{"),
                '}' => out.push_str("}}"),
                c => out.push(c),
            }
            i += 1;
            continue;
        }
        if d.ch == '}' {
            bad.push((span(i, i + 1), PlaceholderError::LoneClose));
            i += 1;
            continue;
        }
        if live(i + 1, '{') {
            // `{{ ... }}`: up to the next `}}` written as such.
            let close = (i + 2..no_pair_from).find(|&k| live(k, '}') && live(k + 1, '}'));
            if close.is_none() {
                no_pair_from = i;
            }
            let end = close.map_or(i + 2, |k| k + 2);
            let flowc = close.and_then(|k| jinja_form(&text(i + 2, k)));
            bad.push((
                span(i, end),
                PlaceholderError::Jinja {
                    text: text(i, end),
                    flowc,
                },
            ));
            i = end;
            continue;
        }
        let close = (i + 1..chars.len())
            .find(|&k| !chars[k].escaped && matches!(chars[k].ch, '{' | '}'))
            .filter(|&k| chars[k].ch == '}');
        let Some(close) = close else {
            bad.push((span(i, i + 1), PlaceholderError::Unclosed));
            i += 1;
            continue;
        };
        let inner = text(i + 1, close);
        match placeholder(&inner, &text(i, close + 1)) {
            Ok(()) => {
                out.push('{');
                out.push_str(&inner);
                out.push('}');
            }
            Err(e) => bad.push((span(i, close + 1), e)),
        }
        i = close + 1;
    }
    if bad.is_empty() {
        if let Some(e) = dot_segment(&out) {
            bad.push((Span::new(s.span.start, s.span.end), e));
        }
    }
    if bad.is_empty() {
        Ok(out)
    } else {
        Err(bad)
    }
}

/// A segment of a template (split at `/`, a `/` of a format included) that
/// is `..` as written, or renders as `.` or `..` only: every directive
/// renders digits and a full timestamp more than dots, so a segment renders
/// dots alone exactly when its placeholders' formats hold no directive and
/// its text is dots. A literal `.` segment (`./data`) is the folder itself.
fn dot_segment(template: &str) -> Option<PlaceholderError> {
    // The template's shape: each placeholder as its format's text, each
    // directive `0`, an unformatted placeholder `0`; literal braces as `{`.
    let mut shape = String::new();
    let mut placeholder_at = Vec::new();
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        shape.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if after.starts_with(['{', '}']) {
            shape.push('{');
            rest = &after[1..];
            continue;
        }
        let close = after.find('}').unwrap_or(after.len());
        let inner = &after[..close];
        placeholder_at.push(shape.len());
        match inner.split_once(':') {
            Some((_, format)) => {
                let mut chars = format.chars();
                while let Some(c) = chars.next() {
                    if c == '%' {
                        shape.push(if chars.next() == Some('%') { '%' } else { '0' });
                    } else {
                        shape.push(c);
                    }
                }
            }
            None => shape.push('0'),
        }
        rest = after.get(close + 1..).unwrap_or("");
    }
    shape.push_str(rest);
    let mut from = 0;
    for segment in shape.split('/') {
        let to = from + segment.len();
        let rendered = placeholder_at.iter().any(|p| (from..=to).contains(p));
        if segment == ".." || (rendered && segment == ".") {
            return Some(PlaceholderError::DotSegment {
                segment: segment.to_string(),
                rendered,
            });
        }
        from = to + 1;
    }
    None
}

/// Check what one pair of braces holds (`inner`, written `text`).
fn placeholder(inner: &str, text: &str) -> Result<(), PlaceholderError> {
    let trimmed = inner.trim();
    if trimmed != inner && !trimmed.is_empty() {
        return match placeholder(trimmed, text) {
            Ok(()) => Err(PlaceholderError::Spaced {
                text: text.to_string(),
                fixed: format!("{{{trimmed}}}"),
            }),
            Err(e) => Err(e),
        };
    }
    let (name, format) = match inner.split_once(':') {
        Some((name, format)) => (name, Some(format)),
        None => (inner, None),
    };
    let text = text.to_string();
    match (name, format) {
        ("interval.start" | "interval.end" | "interval.date", None) => Ok(()),
        ("interval.date", Some(_)) => Err(PlaceholderError::DateTakesNoFormat { text }),
        ("interval.start" | "interval.end", Some(format)) => check_format(text, format),
        _ if name
            .split_once('.')
            .is_some_and(|(a, b)| is_ident(a) && is_ident(b)) =>
        {
            Err(PlaceholderError::Unknown {
                name: name.to_string(),
                near: crate::suggest::closest(name, PLACEHOLDERS.iter().copied())
                    .map(str::to_string),
            })
        }
        _ => Err(PlaceholderError::NotAPlaceholder {
            flowc: airflow_form(inner),
            text,
        }),
    }
}

/// A placeholder's format: directives of [`DIRECTIVES`] after `%`, and any
/// other character but `{`, `}` and `:`.
fn check_format(text: String, format: &str) -> Result<(), PlaceholderError> {
    if format.is_empty() {
        return Err(PlaceholderError::EmptyFormat { text });
    }
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        match c {
            '%' => match chars.next() {
                Some(d) if DIRECTIVES.contains(&d) => {}
                Some(directive) => {
                    return Err(PlaceholderError::UnknownDirective { text, directive })
                }
                None => return Err(PlaceholderError::DanglingPercent { text }),
            },
            '{' | '}' | ':' => return Err(PlaceholderError::FormatChar { text, ch: c }),
            _ => {}
        }
    }
    Ok(())
}

/// Whether a template (a string parameter's value in the model: placeholders
/// as written, literal braces doubled) holds an `{interval...}` placeholder.
pub fn template_has_interval_placeholder(template: &str) -> bool {
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        let after = &rest[at + 1..];
        if after.starts_with(['{', '}']) {
            // A literal brace, doubled.
            rest = &after[1..];
        } else if after.starts_with("interval.") {
            return true;
        } else {
            rest = after;
        }
    }
    false
}

/// Whether a declaration has an `{interval...}` placeholder in one of its
/// parameters: it reads or writes one interval's data (a path, a table, a
/// location per interval). A brace an escape wrote (`\{`) is no placeholder.
pub fn has_interval_placeholder(decl: &DeclDef) -> bool {
    decl.params.values().any(|v| match v {
        ParamValue::String(template) => template_has_interval_placeholder(template),
        _ => false,
    })
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Why `topic` is no Kafka topic name, if it is not: Kafka's own rule
/// (`org.apache.kafka.common.internals.Topic.validate`), 1 to 249 of
/// `[A-Za-z0-9._-]`, and not `.` or `..`.
pub fn kafka_topic(topic: &str) -> Result<(), String> {
    if topic.is_empty() {
        return Err("a topic name cannot be empty".to_owned());
    }
    if topic == "." || topic == ".." {
        return Err("Kafka refuses `.` and `..` as topic names".to_owned());
    }
    if topic.len() > 249 {
        return Err(format!(
            "{} characters, more than Kafka's 249",
            topic.chars().count()
        ));
    }
    if let Some(c) = topic
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
    {
        return Err(format!(
            "Kafka topic names cannot hold `{}`",
            c.escape_debug()
        ));
    }
    Ok(())
}

/// Why `seconds` is no transaction timeout a Kafka producer takes, if it is
/// not: librdkafka's `transaction.timeout.ms` is 1,000 to 2,147,483,647 ms.
pub fn kafka_transaction_timeout(seconds: u64) -> Result<(), String> {
    match seconds {
        0 => Err("a transaction that may stay open for no time never commits".to_owned()),
        1..=2_147_483 => Ok(()),
        _ => Err(
            "it is longer than a Kafka producer's longest transaction timeout (24d 20h 31m 23s)"
                .to_owned(),
        ),
    }
}

/// Why `table` is no Iceberg table identifier the runtime's catalog takes,
/// if it is not: `NAMESPACE.NAME`, both non-empty, with no path separator
/// (the catalog makes folders of them), whitespace or control character.
pub fn iceberg_identifier(table: &str) -> Result<(), String> {
    let parts: Vec<&str> = table.split('.').collect();
    if parts.len() != 2 {
        return Err(format!(
            "an Iceberg table is `NAMESPACE.NAME`, and this has {} part{}",
            parts.len(),
            if parts.len() == 1 { "" } else { "s" }
        ));
    }
    if parts.iter().any(|p| p.is_empty()) {
        return Err("the namespace and the name cannot be empty".to_owned());
    }
    if let Some(c) = table
        .chars()
        .find(|c| matches!(c, '/' | '\\') || c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "an Iceberg namespace or name cannot hold `{}`",
            c.escape_debug()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("45s"), Ok(45));
        assert_eq!(parse_duration("1h30m"), Ok(5400));
        assert_eq!(parse_duration("2d"), Ok(172_800));
        assert!(parse_duration("30min").is_err());
        assert!(parse_duration("1h1h").is_err());
        assert!(parse_duration("30m1h").is_err());
        assert!(parse_duration("5").is_err());
        assert!(parse_duration("1h30").is_err());
        // Each number is an integer of the language: at most 4294967295.
        assert_eq!(parse_duration("4294967295s"), Ok(4_294_967_295));
        assert!(parse_duration("4294967296s")
            .unwrap_err()
            .to_string()
            .contains("4294967295"));
        assert!(parse_duration("99999999999m").is_err());
    }

    #[test]
    fn integers_and_dates() {
        assert_eq!(parse_int("4294967295"), Ok(u32::MAX));
        assert!(parse_int("4294967296").is_err());
        assert!(parse_int("99999999999").is_err());
        assert!(parse_date("2026-01-01").is_ok());
        assert!(parse_date("2026-13-01").is_err());
        assert!(parse_date("2026-02-30").is_err());
        assert!(parse_date("1970-01-01").is_ok());
        assert_eq!(
            parse_date("0202-06-01"),
            Err(LiteralError::BeforeEarliest {
                text: "0202-06-01".into()
            })
        );
        assert!(parse_date("1969-12-31").is_err());
        assert!(parse_date("2026-1-01").is_err());
        assert_eq!(classify("2026-01-01"), Ok(NumberKind::Date));
        assert_eq!(classify("30m"), Ok(NumberKind::Duration));
        assert_eq!(classify("3"), Ok(NumberKind::Int));
    }

    #[test]
    fn cron() {
        assert!(parse_cron("0 2 * * *").is_ok());
        assert!(parse_cron("*/15 9-17 * JAN,FEB mon-fri").is_ok());
        assert_eq!(parse_cron("@daily").as_deref(), Ok("0 0 * * *"));
        assert!(parse_cron("@dayly")
            .unwrap_err()
            .to_string()
            .contains("@daily"));
        assert!(parse_cron("0 2 * *").is_err());
        assert!(parse_cron("0 0 2 * * *").is_err());
        assert!(parse_cron("61 2 * * *").is_err());
        assert!(parse_cron("0 2 L * *").is_err());
        assert!(parse_cron("0 2 * * 1#2").is_err());
        // Each field's problem in flowc's words, naming the field.
        let err = |c: &str| parse_cron(c).unwrap_err().to_string();
        assert!(err("61 2 * * *").ends_with("minute 61 is out of range 0 to 59"));
        assert!(err("0 24 * * *").ends_with("hour 24 is out of range 0 to 23"));
        assert!(err("0 0 0 * *").ends_with("day of month 0 is out of range 1 to 31"));
        assert!(err("0 0 * 13 *").ends_with("month 13 is out of range 1 to 12"));
        assert!(err("0 0 * * 8").ends_with("day of week 8 is out of range 0 to 7"));
        assert!(err("*/0 * * * *").ends_with("the minute step cannot be 0"));
        assert!(err("5-1 * * * *").contains("the minute range `5-1` runs backwards"));
        assert!(err("1,,2 * * * *").contains("empty item"));
        assert!(err("5/15 * * * *").contains("`*/15` or `5-59/15`"));
        assert!(err("0 5/2 * * *").contains("an hour step"));
        assert!(err("@reboot").contains("the presets are `@hourly`"));
        assert!(err("0 0 L * *").contains("`L` (last day"));
        assert!(err("0 0 * * MON/2").contains("`MON-6/2`"));
        // Missing parts are named, never shown as empty backticks.
        for (bad, says) in [
            ("/5 * * * *", "as in `*/5`"),
            ("-1 * * * *", "missing a value"),
            ("1- * * * *", "missing a value"),
            ("*/ * * * *", "step is missing after `/`"),
            ("*/4294967296 * * * *", "too large"),
            (
                "99999999999 * * * *",
                "minute 99999999999 is out of range 0 to 59",
            ),
            ("", "the schedule is empty"),
        ] {
            let e = err(bad);
            assert!(e.contains(says), "{bad}: {e}");
            assert!(!e.contains("``"), "{bad}: {e}");
        }
        assert!(err("0 0 * DEC-JAN *").contains("runs backwards"));
        assert!(err("0 0 30 2 *").ends_with("never fires: February never has a 30th"));
        assert!(err("0 0 31 APR *").ends_with("never fires: April never has a 31st"));
        assert!(err("0 0 30,31 2 *").contains("never fires"));
        for ok in [
            "0 0 * * 7",
            "0-59/5 * * * *",
            "0 0 1-31 * *",
            "5-59/15 * * * *",
            "0 0 * * MON-FRI",
            "0 0 29 2 *",
            "0 0 30 2 MON",
            "0 0 31 */2 *",
        ] {
            assert!(parse_cron(ok).is_ok(), "{ok}: {:?}", parse_cron(ok));
        }
    }

    #[test]
    fn timezones() {
        assert!(check_timezone("UTC").is_ok());
        assert!(check_timezone("Europe/Paris").is_ok());
        assert!(check_timezone("Europe/Pari")
            .unwrap_err()
            .to_string()
            .contains("Europe/Paris"));
        for bad in ["Etc/Unknown", "etc/unknown", "Factory"] {
            assert!(check_timezone(bad).is_err(), "{bad}");
        }
        assert!(check_timezone("America/Argentina/Buenos_Aires").is_ok());
    }

    #[test]
    fn interval_placeholders_in_templates() {
        assert!(template_has_interval_placeholder("lake/{interval.start}/x"));
        assert!(template_has_interval_placeholder("d={interval.date}"));
        assert!(template_has_interval_placeholder("{{}}{interval.end:%Y}"));
        // Literal braces, doubled, are no placeholder.
        assert!(!template_has_interval_placeholder("a/{{interval.start}}/b"));
        assert!(!template_has_interval_placeholder(
            "a/{{{{interval.start}}}}"
        ));
        assert!(!template_has_interval_placeholder("plain"));
    }
}
