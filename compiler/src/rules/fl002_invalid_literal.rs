//! FL002 `invalid-literal`: a bad duration, date, integer, cron expression, time zone or placeholder.
//!
//! Found while resolving names and literals (`analyze::resolve`, with the
//! literal checks of `analyze::literal`), which report typed problems; their
//! words are here.

use std::fmt;

use super::Rule;
use crate::analyze::literal::{LiteralError, CRON_FIELDS};
use crate::analyze::model::Loc;
use crate::diagnostic::{Code, Diagnostic};

pub const RULE: Rule = Rule {
    code: Code::FL002,
    check: None,
};

/// The number of the setting `setting` at `at` is not well formed;
/// `example` is a value the setting takes.
pub fn bad_number(setting: &str, example: &str, error: &LiteralError, at: Loc) -> Diagnostic {
    Diagnostic::new(Code::FL002, at.file, at.span, error.to_string())
        .help(format!("write it like `{setting} {example}`"))
}

/// The integer `number` at `at` stands where a duration is expected.
pub fn bare_number(number: &str, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL002,
        at.file,
        at.span,
        format!("`{number}` is a bare number where a duration is expected"),
    )
    .help(format!(
        "give it a unit: `{number}s`, `{number}m` or `{number}h`"
    ))
}

/// The schedule at `at` is not one flowc can schedule.
pub fn bad_schedule(error: &LiteralError, at: Loc) -> Diagnostic {
    let help = if matches!(error, LiteralError::NeverFires { .. }) {
        "name a day every month of the schedule has (at most 28 in February, 30 in April, June, September and November), or write `schedule none`"
    } else {
        "write five fields, `\"0 2 * * *\"`, or one of `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`, or `schedule none`"
    };
    Diagnostic::new(Code::FL002, at.file, at.span, error.to_string()).help(help)
}

/// The time zone at `at` is not one flowc knows.
pub fn bad_timezone(error: &LiteralError, at: Loc) -> Diagnostic {
    Diagnostic::new(Code::FL002, at.file, at.span, error.to_string()).help(
        "use a name from the IANA time zone database, such as `\"Europe/Paris\"` or `\"UTC\"`",
    )
}

/// The image name at `at` is empty or blank.
pub fn empty_image(at: Loc) -> Diagnostic {
    Diagnostic::new(Code::FL002, at.file, at.span, "the image name is empty")
        .help("write the container image to run, as in `image \"ghcr.io/acme/job:1.0\"`")
}

/// The program of `run command` at `at` is an empty string.
pub fn empty_program(at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL002,
        at.file,
        at.span,
        "the program of `run command` is an empty string",
    )
    .help("write the program to start first, as in `run command [\"python\", \"-m\", \"job\"]`")
}

/// A placeholder at `at` of a string parameter is not one flowc fills in.
pub fn bad_placeholder(error: &LiteralError, at: Loc) -> Diagnostic {
    Diagnostic::new(Code::FL002, at.file, at.span, error.to_string()).help(
        "the placeholders are `{interval.start}` and `{interval.end}`; write `{{` and `}}` for literal braces",
    )
}

/// A cron field's name, and the article before it.
fn field(index: usize) -> (&'static str, &'static str) {
    let name = CRON_FIELDS[index].0;
    (if name.starts_with('h') { "an" } else { "a" }, name)
}

const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

fn ordinal_suffix(n: u32) -> &'static str {
    match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    }
}

/// The message of each literal error.
impl fmt::Display for LiteralError {
    #[allow(clippy::too_many_lines)]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LiteralError::NotAUnit { text, unit } => write!(
                f,
                "`{text}` is not a duration: `{unit}` is not a unit (use `d`, `h`, `m`, `s`, as in `1h30m`)"
            ),
            LiteralError::NoNumberBeforeUnit { text, unit } => write!(
                f,
                "`{text}` is not a duration: a number must come before `{unit}`"
            ),
            LiteralError::UnitsOutOfOrder { text } => write!(
                f,
                "`{text}` is not a duration: units go from largest to smallest, each at most once (`1h30m`)"
            ),
            LiteralError::DurationNumberTooLarge { text } => write!(
                f,
                "`{text}` is too large: each number of a duration goes up to 4294967295"
            ),
            LiteralError::DurationTooLarge { text } => {
                write!(f, "`{text}` is too large for a duration")
            }
            LiteralError::NumberWithoutUnit { text } => write!(
                f,
                "`{text}` is not a duration: every number needs a unit (`45s`, `30m`, `1h30m`, `2d`)"
            ),
            LiteralError::NotANumber { text } => {
                write!(f, "`{text}` is not a number, a date or a duration")
            }
            LiteralError::IntTooLarge { text } => {
                write!(f, "`{text}` is too large: integers go up to 4294967295")
            }
            LiteralError::DateShape { text } => {
                write!(f, "`{text}` is not a date: write it as `YYYY-MM-DD`")
            }
            LiteralError::NotOnCalendar { text } => {
                write!(f, "`{text}` is not a date on the calendar")
            }
            LiteralError::UnknownPreset { text, near } => match near {
                Some(s) => write!(f, "`{text}` is not a schedule preset; did you mean `{s}`?"),
                None => write!(
                    f,
                    "`{text}` is not a schedule preset: the presets are {}",
                    crate::analyze::literal::PRESETS
                        .iter()
                        .map(|(n, _)| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            LiteralError::EmptySchedule => f.write_str(
                "the schedule is empty: write five cron fields, as in `0 2 * * *`, or a preset such as `@daily`",
            ),
            LiteralError::FieldCount { text, count } => write!(
                f,
                "`{text}` has {count} field{}; a schedule has exactly 5: minute hour day-of-month month day-of-week",
                if *count == 1 { "" } else { "s" }
            ),
            LiteralError::NotInCron { text, ch } => {
                write!(f, "`{text}`: `{ch}` is not allowed in a cron field")
            }
            LiteralError::LastOrNearest { text, word } => write!(
                f,
                "`{text}`: `{word}` (last day, nearest weekday) is not supported by every scheduler; write the days as numbers"
            ),
            LiteralError::NotAName { text, word, field } => write!(
                f,
                "`{text}`: `{word}` is not a {}",
                match field {
                    3 => "month name (JAN to DEC)",
                    4 => "weekday name (SUN to SAT)",
                    _ => "number: names are allowed only for months and weekdays",
                }
            ),
            LiteralError::Unschedulable { text } => {
                write!(f, "`{text}` is not a cron expression flowc can schedule")
            }
            LiteralError::NeverFires { text, month, day } => match (month, day) {
                (Some(2), Some(day)) => write!(
                    f,
                    "`{text}` never fires: February never has a {day}{}",
                    ordinal_suffix(*day)
                ),
                (Some(m), Some(day)) => write!(
                    f,
                    "`{text}` never fires: {} never has a {day}{}",
                    MONTH_NAMES[m - 1],
                    ordinal_suffix(*day)
                ),
                _ => write!(
                    f,
                    "`{text}` never fires: no month it names has the days it names"
                ),
            },
            LiteralError::RangeMissingValue { text, field, range } => write!(
                f,
                "`{text}`: the {} range `{range}` is missing a value on one side of `-`",
                self::field(*field).1
            ),
            LiteralError::NotAValue { text, field, value } => {
                let (a, name) = self::field(*field);
                write!(f, "`{text}`: `{value}` is not {a} {name}")
            }
            LiteralError::OutOfRange { text, field, value } => {
                let (name, lo, hi) = CRON_FIELDS[*field];
                write!(f, "`{text}`: {name} {value} is out of range {lo} to {hi}")
            }
            LiteralError::EmptyItem { text, field, list } => write!(
                f,
                "`{text}`: the {} field `{list}` has an empty item between commas",
                self::field(*field).1
            ),
            LiteralError::StepMissing { text, field } => write!(
                f,
                "`{text}`: the {} step is missing after `/`",
                self::field(*field).1
            ),
            LiteralError::StepNotNumber { text, field, step } => write!(
                f,
                "`{text}`: the {} step `{step}` is not a number",
                self::field(*field).1
            ),
            LiteralError::StepZero { text, field } => write!(
                f,
                "`{text}`: the {} step cannot be 0",
                self::field(*field).1
            ),
            LiteralError::StepTooLarge { text, field, step } => {
                let (name, _, hi) = CRON_FIELDS[*field];
                write!(
                    f,
                    "`{text}`: the {name} step {step} is too large (at most {hi} makes sense)"
                )
            }
            LiteralError::StepAfterValue {
                text,
                field,
                step,
                range,
                last,
            } => {
                let (a, name) = self::field(*field);
                let example = match range {
                    None => format!("`*/{step}`"),
                    Some(range) => format!("`*/{step}` or `{range}-{last}/{step}`"),
                };
                write!(
                    f,
                    "`{text}`: {a} {name} step goes after `*` or a range, as in {example}"
                )
            }
            LiteralError::RangeBackwards { text, field, range } => write!(
                f,
                "`{text}`: the {} range `{range}` runs backwards; write the smaller value first",
                self::field(*field).1
            ),
            LiteralError::ZoneSpelling { name, canonical } => write!(
                f,
                "`{name}` is spelled `{canonical}` in the IANA time zone database"
            ),
            LiteralError::NotAPlace { name, near } => write!(
                f,
                "`{name}` is not the time zone of any place, and Airflow or Argo would refuse it; did you mean `{}`?",
                near.as_deref().unwrap_or("UTC")
            ),
            LiteralError::NotAZone { name, near } => match near {
                Some(s) => write!(f, "`{name}` is not an IANA time zone; did you mean `{s}`?"),
                None => write!(
                    f,
                    "`{name}` is not an IANA time zone (write it as `Area/City`, e.g. `Europe/Paris`)"
                ),
            },
            LiteralError::UnknownPlaceholder { name, near } => match near {
                Some(s) => write!(f, "unknown placeholder `{{{name}}}`; did you mean `{{{s}}}`?"),
                None => write!(
                    f,
                    "unknown placeholder `{{{name}}}`; the placeholders are `{{interval.start}}` and `{{interval.end}}`"
                ),
            },
        }
    }
}
