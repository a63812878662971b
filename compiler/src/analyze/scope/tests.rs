//! The symbolic decision against enumeration: two years of interval starts
//! (2025 and 2026, with their DST changes), rendered as the runtime renders
//! them, for a grid of schedules, zones and templates.

use std::collections::BTreeSet;

use jiff::tz::TimeZone;
use jiff::Timestamp;

use super::{scoped_for, Rendered, Schedule};

/// The interval starts of `cron` in `zone` from 2025-01-01 over two years
/// (six for a schedule that fires at most once a day, so that a yearly one
/// has intervals enough), and one more tick (the last interval's end). A clock time in a gap is
/// the first instant after it; in a fold, the earlier pass, and both passes
/// when the schedule fires more than once a day (schedulers step those by
/// elapsed time).
fn ticks(cron: &str, zone: &str) -> Vec<Timestamp> {
    let tz = TimeZone::get(zone).unwrap();
    let c: croner::Cron = cron.parse().unwrap();
    let stepped = Schedule::of(cron).unwrap().per_day() > 1;
    let lo = jiff02::civil::DateTime::new(2025, 1, 1, 0, 0, 0, 0).unwrap();
    let years = if stepped { 2 } else { 6 };
    let hi = jiff02::civil::DateTime::new(2025 + years, 1, 2, 0, 0, 0, 0).unwrap();
    let mut out: Vec<Timestamp> = Vec::new();
    let mut tick = c.find_next_occurrence(&lo, true).ok();
    while let Some(t) = tick.filter(|t| *t < hi) {
        let civil = jiff::civil::date(t.year(), t.month(), t.day()).at(t.hour(), t.minute(), 0, 0);
        let amb = tz.to_ambiguous_timestamp(civil);
        let mut instants = vec![amb.compatible().unwrap()];
        if stepped && amb.is_ambiguous() {
            instants.push(amb.later().unwrap());
        }
        for i in instants {
            if out.last().is_none_or(|l| *l < i) {
                out.push(i);
            }
        }
        tick = c.find_next_occurrence(&t, false).ok();
    }
    out
}

/// A template rendered for an interval, as `flowc_runtime.context` does.
fn render(template: &str, start: Timestamp, end: Timestamp, zone: &TimeZone) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let close = rest[at..].find('}').unwrap() + at;
        let inner = &rest[at + 1..close];
        let (name, format) = match inner.split_once(':') {
            Some((n, f)) => (n, Some(f)),
            None => (inner, None),
        };
        let moment = if name == "interval.end" { end } else { start };
        let local = moment.to_zoned_datetime(zone.clone());
        out.push_str(&match (name, format) {
            ("interval.date", _) => local.strftime("%Y-%m-%d").to_string(),
            (_, None) => moment.to_string(),
            (_, Some(f)) => local.strftime(f).to_string(),
        });
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

fn injective(templates: &[&str], t: &[Timestamp], zone: &str) -> bool {
    let tz = TimeZone::get(zone).unwrap();
    let mut seen = BTreeSet::new();
    t.windows(2).all(|w| {
        let tuple: Vec<String> = templates
            .iter()
            .map(|x| render(x, w[0], w[1], &tz))
            .collect();
        seen.insert(tuple)
    })
}

const SCHEDULES: [&str; 14] = [
    "0 * * * *",
    "*/20 0-3 * * *",
    "0 */2 * * *",
    "0 9-17 * * *",
    "30 1 * * *",
    "0 0 * * *",
    "0 2 * * 1-5",
    "0 0 * * 1",
    "0 0 * * 0",
    "0 0 1 * *",
    "0 0 1,15 * *",
    "0 0 1 1 *",
    "0 0 1 */3 *",
    "0 0 31 12 *",
];

const ZONES: [&str; 4] = [
    "UTC",
    "America/New_York",
    "Europe/Paris",
    "Australia/Lord_Howe",
];

const TEMPLATES: [&[&str]; 22] = [
    &["out/{interval.start}/"],
    &["out/{interval.end}/"],
    &["out/{interval.date}/"],
    &["out/{interval.start:%Y}/"],
    &["out/{interval.start:%Y-%m}/"],
    &["out/{interval.start:%Y/%m/%d}/"],
    &["out/{interval.start:%Y%j}/"],
    &["out/{interval.start:%G-W%V}/"],
    &["out/{interval.start:%Y-W%V}/"],
    &["out/{interval.start:%G-W%V-%u}/"],
    &["out/{interval.start:%Y-%m-%dT%H}/"],
    &["out/{interval.start:%Y-%m-%dT%H%z}/"],
    &["out/{interval.start:%Y-%m-%dT%H:%M}/"],
    &["out/{interval.start:%Y-%m-%dT%H%M%z}/"],
    &["out/{interval.start:%m-%d}/"],
    &["out/{interval.start:%H}/"],
    &["out/{interval.start:static}/"],
    &["out/{interval.date}/", "h={interval.start:%H}"],
    &["out/{interval.date}/", "h={interval.start:%H%z}"],
    &["out/{interval.end:%Y-%m-%d}/"],
    &["out/{interval.end:%Y-%m}/"],
    &["out/{interval.start:%Y}/{interval.end:%Y}"],
];

/// Templates the decision refuses although a finite window of intervals may
/// not show a repeat: without a year, a place repeats in some later year;
/// `%Y` with the ISO week `%V` is refused whole, although a schedule that
/// never fires in the first and last days of one year never meets its
/// repeat (a week 1 in late December, a week 52 in early January).
const REFUSED_BEYOND_THE_WINDOW: [&str; 4] = [
    "out/{interval.start:%m-%d}/",
    "out/{interval.start:%H}/",
    "out/{interval.start:static}/",
    "out/{interval.start:%Y-W%V}/",
];

/// The decision never calls a template injective that is not (sound), and
/// agrees with the enumeration on every case of the grid (precise), except
/// where a finite window cannot show the repeat.
#[test]
fn symbolic_decision_matches_enumeration() {
    let mut wrong = Vec::new();
    for cron in SCHEDULES {
        for zone in ZONES {
            let t = ticks(cron, zone);
            for templates in TEMPLATES {
                let r = Rendered::of_templates(templates.iter().copied());
                let decided = scoped_for(r, Some(cron), zone).is_ok();
                let enumerated = injective(templates, &t, zone);
                let refused = !decided
                    && templates.len() == 1
                    && REFUSED_BEYOND_THE_WINDOW.contains(&templates[0]);
                if decided != enumerated && !refused {
                    wrong.push(format!(
                        "{templates:?} on `{cron}` in {zone}: decided {decided}, enumerated {enumerated}"
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn manual_pipelines_need_a_full_timestamp() {
    let full = Rendered::of_templates(["out/{interval.start}"]);
    let date = Rendered::of_templates(["out/{interval.date}"]);
    assert!(scoped_for(full, None, "UTC").is_ok());
    assert!(scoped_for(date, None, "UTC").is_err());
}

#[test]
fn literal_braces_are_no_placeholder() {
    let r = Rendered::of_templates(["out/{{interval.start}}/"]);
    assert!(!r.any());
    assert!(scoped_for(r, Some("0 * * * *"), "UTC").is_err());
}
