//! MODEL-v0.3 C1: an `overwrite` is interval-scoped only when its sink's
//! rendered parameters are unique per interval (not when a placeholder is
//! merely there), and a path that can leave its folder is FL002. Each case
//! with its near miss, through the findings and `report --format json`.

use serde_json::Value;

struct Run {
    codes: Vec<String>,
    report: Value,
    messages: Vec<String>,
}

impl Run {
    fn has(&self, code: &str) -> bool {
        self.codes.iter().any(|c| c == code)
    }

    fn output(&self) -> &Value {
        &self.report["pipelines"][0]["tasks"][0]["outputs"][0]
    }

    fn guarantee(&self) -> &str {
        self.output()["guarantee"].as_str().expect("guarantee")
    }

    fn no_regression(&self) -> Value {
        self.output()["clauses"]["no_regression"].clone()
    }
}

fn run(src: &str) -> Run {
    let o = crate::common::check_text(src);
    let live: Vec<_> = o
        .diagnostics
        .iter()
        .filter(|d| d.suppressed.is_none())
        .collect();
    let codes = live.iter().map(|d| d.code.as_str().to_string()).collect();
    let messages = live
        .iter()
        .map(|d| {
            format!(
                "{}: {} {:?} {:?}",
                d.code.as_str(),
                d.message,
                d.labels,
                d.help
            )
        })
        .collect();
    let report: Value = crate::common::report_json(&o);
    Run {
        codes,
        report,
        messages,
    }
}

/// A pipeline on `schedule` in `zone` whose one task overwrites a folder
/// at `path` from an immutable, pinned input.
fn overwrite(path: &str, schedule: &str, zone: &str) -> Run {
    let schedule = if schedule == "manual" {
        String::new()
    } else {
        format!("  schedule \"{schedule}\"\n  start 2026-01-01\n")
    };
    run(&format!(
        "source src: files {{\n  path \"in/{{interval.start}}/\"\n  immutable\n  identity id\n}}\n\n\
         sink out: files {{\n  path \"{path}\"\n}}\n\n\
         pipeline p {{\n{schedule}  timezone \"{zone}\"\n  retries 1\n  timeout 30m\n\n  \
         task t {{\n    read src pinned listing\n    write out overwrite\n    require none\n    run command [\"job\"]\n  }}\n}}\n"
    ))
}

fn scoped(path: &str, schedule: &str, zone: &str) {
    let r = overwrite(path, schedule, zone);
    assert!(
        !r.has("FL204") && !r.has("FL002"),
        "`{path}` on `{schedule}` in {zone}: {:#?}",
        r.messages
    );
    assert_eq!(
        r.no_regression(),
        Value::Bool(true),
        "`{path}` on `{schedule}`"
    );
    assert_eq!(
        r.guarantee(),
        "effectively_once",
        "`{path}` on `{schedule}`"
    );
}

fn not_scoped(path: &str, schedule: &str, zone: &str, reason: &str) {
    let r = overwrite(path, schedule, zone);
    assert!(
        r.has("FL204"),
        "`{path}` on `{schedule}` in {zone}: {:#?}",
        r.messages
    );
    assert!(
        r.messages.iter().any(|m| m.contains(reason)),
        "`{path}` on `{schedule}`: no `{reason}` in {:#?}",
        r.messages
    );
    assert_eq!(
        r.no_regression(),
        Value::Bool(false),
        "`{path}` on `{schedule}`"
    );
    assert_eq!(r.guarantee(), "at_most_once", "`{path}` on `{schedule}`");
}

#[test]
fn a_date_folder_is_one_interval_only_on_a_daily_schedule() {
    scoped("out/{interval.date}/", "@daily", "UTC");
    scoped("out/{interval.date}/", "0 2 * * 1-5", "Europe/Paris");
    not_scoped(
        "out/{interval.date}/",
        "@hourly",
        "UTC",
        "more than one interval in some day",
    );
    not_scoped(
        "out/{interval.date}/",
        "0 6,18 * * *",
        "UTC",
        "more than one interval in some day",
    );
}

#[test]
fn a_format_must_tell_every_interval_apart() {
    not_scoped(
        "out/{interval.start:%Y}/",
        "@daily",
        "UTC",
        "more than one interval in some year",
    );
    scoped("out/{interval.start:%Y}/", "@yearly", "UTC");
    scoped("out/{interval.start:%Y-%m}/", "@monthly", "UTC");
    not_scoped(
        "out/{interval.start:%Y-%m}/",
        "@weekly",
        "UTC",
        "in some month",
    );
    scoped("out/{interval.start:%Y/%m/%d}/", "@daily", "UTC");
    scoped("out/{interval.start:%Y%j}/", "@daily", "UTC");
    scoped("out/{interval.start:%G-W%V}/", "@weekly", "UTC");
    // `%Y` with `%V` is not a week: the last days of December can be week 1.
    not_scoped(
        "out/{interval.start:%Y-W%V}/",
        "@weekly",
        "UTC",
        "render one year",
    );
    // A format without its year repeats every year.
    not_scoped(
        "out/{interval.start:%m-%d}/",
        "@daily",
        "UTC",
        "no whole date",
    );
    // A format with no directive at all names one place for every interval.
    not_scoped(
        "out/{interval.start:static}/",
        "@daily",
        "UTC",
        "no whole date",
    );
}

#[test]
fn an_hourly_format_needs_the_offset_where_the_clock_falls_back() {
    scoped("out/{interval.start:%Y-%m-%dT%H}/", "@hourly", "UTC");
    not_scoped(
        "out/{interval.start:%Y-%m-%dT%H}/",
        "@hourly",
        "America/New_York",
        "add `%z`",
    );
    scoped(
        "out/{interval.start:%Y-%m-%dT%H%z}/",
        "@hourly",
        "America/New_York",
    );
    // Office hours never meet New York's repeated 1 a.m.
    scoped(
        "out/{interval.start:%Y-%m-%dT%H}/",
        "0 9-17 * * *",
        "America/New_York",
    );
    scoped("out/{interval.start}/", "@hourly", "America/New_York");
}

/// A user kind with two string parameters, both rendered per interval.
fn two_params(bucket: &str, prefix: &str) -> Run {
    run(&format!(
        "kind blob {{\n  roles sink\n  writes overwrite\n  param bucket: string\n  param prefix: string\n}}\n\n\
         source src: files {{\n  path \"in/{{interval.start}}/\"\n  immutable\n  identity id\n}}\n\n\
         sink out: blob {{\n  bucket \"{bucket}\"\n  prefix \"{prefix}\"\n}}\n\n\
         pipeline p {{\n  schedule \"@hourly\"\n  start 2026-01-01\n  retries 1\n  timeout 30m\n\n  \
         task t {{\n    read src pinned listing\n    write out overwrite\n    require none\n    run command [\"job\"]\n  }}\n}}\n"
    ))
}

#[test]
fn the_tuple_of_all_parameters_counts() {
    let both = two_params("b-{interval.date}", "h={interval.start:%H}/");
    assert!(!both.has("FL204"), "{:#?}", both.messages);
    assert_eq!(both.no_regression(), Value::Bool(true));
    let one = two_params("b-{interval.date}", "all/");
    assert!(one.has("FL204"), "{:#?}", one.messages);
    assert_eq!(one.no_regression(), Value::Bool(false));
}

#[test]
fn a_manual_pipeline_needs_a_full_timestamp() {
    scoped("out/{interval.start}/", "manual", "UTC");
    not_scoped("out/{interval.date}/", "manual", "UTC", "manual");
}

#[test]
fn no_placeholder_keeps_its_v02_reason() {
    not_scoped(
        "out/",
        "@daily",
        "UTC",
        "no parameter holds an `{interval...}` placeholder",
    );
    // Literal braces are no placeholder.
    not_scoped(
        "out/\\{interval.start\\}/",
        "@daily",
        "UTC",
        "no parameter holds",
    );
}

#[test]
fn a_path_that_leaves_its_folder_is_fl002() {
    for path in [
        "out/{interval.date}/../victim",
        "../victim/{interval.start}",
        "out/{interval.start:%Y/..}/x",
        "out/{interval.start:.}/x",
        "out/.{interval.start:.}/x",
        // A format that starts with `/`: the relative path renders absolute.
        "{interval.start:/%Y/%m/%d}/",
    ] {
        let r = overwrite(path, "@daily", "UTC");
        assert!(r.has("FL002"), "`{path}`: {:#?}", r.messages);
    }
    // Near misses: a `./` prefix, dots inside a name, a format's own `/`.
    for path in [
        "./out/{interval.start}/",
        "out/v1..2/{interval.start}/",
        "out/{interval.start:%Y/%m/%d}/",
        "out/{interval.start:%Y.%m}.d/{interval.start}",
        "/data/{interval.start:/%Y/%m/%d}/",
        "{interval.start:%Y/%m/%d}/",
    ] {
        let r = overwrite(path, "@daily", "UTC");
        assert!(!r.has("FL002"), "`{path}`: {:#?}", r.messages);
    }
}

#[test]
fn reads_keep_the_placeholder_test() {
    // A read's scope (FL111) still only asks for a placeholder: a skipped
    // hour of a daily folder loses input all the same.
    let r = run(
        "source src: files {\n  path \"in/{interval.date}/\"\n  immutable\n  identity id\n}\n\n\
         sink out: files {\n  path \"out/{interval.start}/\"\n}\n\n\
         pipeline p {\n  schedule \"@hourly\"\n  start 2026-01-01\n  catchup false\n  retries 1\n  timeout 30m\n\n  \
         task t {\n    read src pinned listing\n    write out overwrite\n    require none\n    run command [\"job\"]\n  }\n}\n",
    );
    assert!(r.has("FL111"), "{:#?}", r.messages);
    assert!(!r.has("FL204"), "{:#?}", r.messages);
}
