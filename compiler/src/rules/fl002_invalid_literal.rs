//! FL002 `invalid-literal`: a bad duration, date, integer, cron expression, time zone or placeholder.
//!
//! Found while resolving names and literals (`analyze::resolve`, with the
//! literal checks of `analyze::literal`), which report typed problems; their
//! words are here.

use std::fmt;

use super::Rule;
use crate::analyze::literal::{LiteralError, PlaceholderError, CRON_FIELDS};
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

/// A `ready marker` name at `at` that is empty or holds a path separator.
pub fn bad_ready_marker(at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL002,
        at.file,
        at.span,
        "a ready marker is the name of one file in the interval's folder",
    )
    .help("write a file name without `/`, as in `ready marker \"_SUCCESS\"`")
}

/// `setting` (a lease) of zero at `at`.
pub fn zero_lease(setting: &str, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL002,
        at.file,
        at.span,
        format!("`{setting}` of zero: a lease must be positive"),
    )
    .help(
        "give the longest time an attempt may run, such as `30m`; leave `timeout` out for no lease",
    )
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

/// The braces at `at` of a string parameter are not a placeholder flowc fills in.
pub fn bad_placeholder(error: &PlaceholderError, at: Loc) -> Diagnostic {
    Diagnostic::new(Code::FL002, at.file, at.span, error.to_string()).help(placeholder_help(error))
}

/// The value `value` at `at` of the parameter `param` of kind `kind` is not
/// one of `allowed`.
pub fn not_allowed_value(
    kind: &str,
    param: &str,
    value: &str,
    allowed: &[&str],
    at: Loc,
) -> Diagnostic {
    let list = allowed
        .iter()
        .map(|w| format!("`\"{w}\"`"))
        .collect::<Vec<_>>()
        .join(", ");
    Diagnostic::new(
        Code::FL002,
        at.file,
        at.span,
        format!("`{param}` of kind `{kind}` cannot be `\"{value}\"`"),
    )
    .help(format!(
        "write one of {list}, or leave `{param}` out to take it from each file's extension"
    ))
}

/// FL002 for `value` of kind `kind`'s parameter `param`, which its system
/// refuses for `why`.
pub fn bad_system_value(kind: &str, param: &str, value: &str, why: &str, at: Loc) -> Diagnostic {
    let shown: String = value.escape_debug().take(120).collect();
    Diagnostic::new(
        Code::FL002,
        at.file,
        at.span,
        format!("`{param}` of kind `{kind}` cannot be \"{shown}\": {why}"),
    )
    .help(match (kind, param) {
        ("kafka_topic", "transaction_timeout") => "a Kafka producer takes a transaction timeout of 1s to 24d (`transaction.timeout.ms`), and the broker refuses one above its `transaction.max.timeout.ms` (15m by default); without the setting it is 1m",
        ("kafka_topic", _) => "a Kafka topic name is 1 to 249 letters, digits, `.`, `_` and `-`, and not `.` or `..`",
        _ => "an Iceberg table is `NAMESPACE.NAME`: two non-empty names with no `/`, `\\`, space or control character",
    })
}

/// The placeholders, as the helps list them.
const THE_PLACEHOLDERS: &str = "the placeholders are `{interval.start}`, `{interval.end}` and `{interval.date}`, and `{interval.start:FORMAT}` or `{interval.end:FORMAT}` with strftime directives";

/// The directives, as the helps list them.
const THE_DIRECTIVES: &str =
    "the directives are `%Y`, `%m`, `%d`, `%H`, `%M`, `%S`, `%j`, `%u`, `%V`, `%G`, `%z` and `%%`";

/// What to write instead, for each placeholder error.
fn placeholder_help(error: &PlaceholderError) -> String {
    match error {
        PlaceholderError::Unknown { .. } => {
            format!("{THE_PLACEHOLDERS}; write `\\{{` and `\\}}` for literal braces")
        }
        PlaceholderError::NotAPlaceholder { text, flowc } => {
            let literal = literal_braces(text);
            match flowc {
                Some(flowc) => format!(
                    "write `{flowc}` for flowc's placeholder, or `{literal}` for the text as it is"
                ),
                None => format!("{THE_PLACEHOLDERS}; write `{literal}` for the text as it is"),
            }
        }
        PlaceholderError::Jinja { text, flowc } => {
            let literal = literal_braces(text);
            match flowc {
                Some(flowc) => format!(
                    "flowc renders no Jinja and has no `{{{{` escape: write `{flowc}` for flowc's placeholder, or `{literal}` for the text as it is"
                ),
                None => format!(
                    "flowc renders no Jinja: {THE_PLACEHOLDERS} (Airflow's `ds` is `{{interval.date}}`, `ds_nodash` is `{{interval.start:%Y%m%d}}`, `ts` is `{{interval.start}}`); write `{literal}` for the text as it is"
                ),
            }
        }
        PlaceholderError::Spaced { fixed, .. } => {
            format!("write `{fixed}`: a placeholder has no blanks inside its braces")
        }
        PlaceholderError::Unclosed => {
            "close the placeholder with `}`, or write `\\{` for a literal brace".to_string()
        }
        PlaceholderError::LoneClose => "write `\\}` for a literal brace".to_string(),
        PlaceholderError::UnknownDirective { .. } | PlaceholderError::DanglingPercent { .. } => {
            format!("{THE_DIRECTIVES}; write `%%` for a literal `%`")
        }
        PlaceholderError::DateTakesNoFormat { text } => {
            let start = text.replacen("interval.date", "interval.start", 1);
            format!("`{{interval.date}}` is the start's date, `YYYY-MM-DD`; for another format write `{start}`")
        }
        PlaceholderError::EmptyFormat { .. } => {
            "write a format after `:`, as in `{interval.start:%Y-%m-%d}`, or drop the `:`".to_string()
        }
        PlaceholderError::AbsoluteRendering { .. } => "start the path with its folder (`out/{interval.start:%Y/%m/%d}/`), or write an absolute path's first folder before the placeholder (`/data/{interval.start:%Y}/`): a format that starts with `/` turns a relative path into an absolute one, outside the connection's folder".to_string(),
        PlaceholderError::DotSegment { .. } => "name the folder itself: a path that leaves its sink's folder (`out/../victim`) lets an `overwrite` delete what another sink owns, so flowc refuses `..` segments and placeholders that render as `.` or `..`".to_string(),
        PlaceholderError::FormatChar { .. } => format!(
            "a format holds directives and any character but `{{`, `}}` and `:`, as in `{{interval.start:%Y%m%dT%H%M}}`; {THE_DIRECTIVES}"
        ),
    }
}

/// `text` with its braces escaped: how to write it as literal text.
fn literal_braces(text: &str) -> String {
    text.replace('{', "\\{").replace('}', "\\}")
}

/// The message of each placeholder error.
impl fmt::Display for PlaceholderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlaceholderError::Unknown { name, near } => match near {
                Some(s) => write!(
                    f,
                    "unknown placeholder `{{{name}}}`; did you mean `{{{s}}}`?"
                ),
                None => write!(f, "unknown placeholder `{{{name}}}`"),
            },
            PlaceholderError::NotAPlaceholder { text, .. } => {
                write!(f, "`{text}` is not a placeholder")
            }
            PlaceholderError::Jinja { text, .. } => {
                write!(
                    f,
                    "`{text}` is a Jinja expression, which flowc never renders"
                )
            }
            PlaceholderError::Spaced { text, .. } => {
                write!(f, "`{text}` has blanks inside its braces")
            }
            PlaceholderError::Unclosed => {
                f.write_str("`{` starts a placeholder that is never closed")
            }
            PlaceholderError::LoneClose => f.write_str("`}` closes no placeholder"),
            PlaceholderError::UnknownDirective { text, directive } => {
                write!(
                    f,
                    "`{text}`: `%{directive}` is not a format directive flowc renders"
                )
            }
            PlaceholderError::DanglingPercent { text } => {
                write!(f, "`{text}`: the format ends with a lone `%`")
            }
            PlaceholderError::DateTakesNoFormat { text } => {
                write!(f, "`{text}`: `interval.date` takes no format")
            }
            PlaceholderError::EmptyFormat { text } => {
                write!(f, "`{text}` has an empty format after `:`")
            }
            PlaceholderError::FormatChar { text, ch } => {
                write!(f, "`{text}`: a format cannot hold `{ch}`")
            }
            PlaceholderError::DotSegment {
                segment,
                rendered: false,
            } => {
                write!(
                    f,
                    "the path segment `{segment}` leaves the folder the path names"
                )
            }
            PlaceholderError::AbsoluteRendering { text } => {
                write!(f, "the path starts with `{text}`, whose format starts with `/`: it renders an absolute path")
            }
            PlaceholderError::DotSegment {
                segment,
                rendered: true,
            } => {
                write!(f, "a placeholder renders the path segment `{segment}`, which is no folder of its own")
            }
        }
    }
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
            LiteralError::BeforeEarliest { text } => write!(
                f,
                "`{text}` is before 1970-01-01, the earliest date flowc accepts: catch-up would start there"
            ),
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
        }
    }
}

/// The value at `at` of pod setting `setting` breaks a Kubernetes rule (`why`).
pub fn bad_pod_value(setting: &str, value: &str, why: &str, at: Loc) -> Diagnostic {
    let help = match setting {
        "namespace" => "write a Kubernetes namespace: lowercase letters, digits and `-`, at most 63, as in `namespace \"data-jobs\"`",
        "service_account" | "secret" => "write a Kubernetes object name: lowercase letters, digits, `-` and `.`, as in `\"flowc-runner\"`",
        "cpu" => "write a CPU quantity, such as `\"500m\"` (half a core) or `\"2\"`",
        "memory" => "write a memory quantity, such as `\"512Mi\"` or `\"1Gi\"`",
        "resources" => "`resources` takes `cpu` and `memory`, as in `resources { cpu \"500m\" memory \"1Gi\" }`",
        "label" | "annotation" => "a key is `NAME` or `PREFIX/NAME`: NAME at most 63 letters, digits, `-`, `_` or `.`, PREFIX a DNS name, as in `\"app.kubernetes.io/part-of\"`",
        "label value" => "a label value is at most 63 letters, digits, `-`, `_` or `.`, starting and ending with a letter or digit; put free text in `annotations`",
        "image_pull_policy" => "write `\"Always\"`, `\"IfNotPresent\"` or `\"Never\"`",
        "argo_pod_gc" => "write `\"OnPodCompletion\"`, `\"OnPodSuccess\"`, `\"OnWorkflowCompletion\"`, `\"OnWorkflowSuccess\"` or `none`",
        _ => "see `docs/targets/` for the values this setting takes",
    };
    let what = match setting {
        "secret" => "Secret name",
        "service_account" => "service account name",
        "cpu" => "CPU quantity",
        "memory" => "memory quantity",
        "resources" => "key of `resources`",
        "label" => "label key",
        "annotation" => "annotation key",
        "image_pull_policy" => "image pull policy",
        "argo_pod_gc" => "pod garbage-collection strategy",
        other => other,
    };
    Diagnostic::new(
        Code::FL002,
        at.file,
        at.span,
        format!("`{value}` is not a valid {what}: {why}"),
    )
    .help(help)
}

/// A `lookback` of zero (`text`, at `at`) on a cursor read (flowc 0.3).
pub fn zero_lookback(text: &str, at: Loc) -> Diagnostic {
    Diagnostic::new(
        Code::FL002,
        at.file,
        at.span,
        format!("`lookback {text}` reads nothing again"),
    )
    .help("give how far behind the bookmark rows can still commit (`lookback 2h`, `lookback 1000`), or leave `lookback` out")
}
