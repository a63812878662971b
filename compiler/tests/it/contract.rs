//! The contract of docs/reference/guarantees.md, tested broadly: every write mode against every
//! stdlib sink kind, every key term, every pin, every effect tracking,
//! retries and requirements. Expectations are written from docs/reference/guarantees.md here,
//! not computed by flowc.

use std::fmt::Write as _;

use serde_json::Value;

struct Run {
    codes: Vec<(String, String)>,
    report: Value,
}

impl Run {
    fn has(&self, code: &str) -> bool {
        self.codes.iter().any(|(c, _)| c == code)
    }

    fn severity(&self, code: &str) -> Option<&str> {
        self.codes
            .iter()
            .find(|(c, _)| c == code)
            .map(|(_, s)| s.as_str())
    }

    /// The guarantee of output `i` of task `task`.
    fn guarantee(&self, task: &str, i: usize) -> String {
        let tasks = self.report["pipelines"][0]["tasks"]
            .as_array()
            .expect("tasks");
        let t = tasks
            .iter()
            .find(|t| t["name"] == task)
            .expect("task in report");
        t["outputs"][i]["guarantee"]
            .as_str()
            .expect("guarantee")
            .to_string()
    }

    fn task(&self, task: &str) -> Value {
        let tasks = self.report["pipelines"][0]["tasks"]
            .as_array()
            .expect("tasks");
        tasks
            .iter()
            .find(|t| t["name"] == task)
            .expect("task")
            .clone()
    }
}

fn run(src: &str) -> Run {
    let o = crate::common::check_text(src);
    let json: Value = serde_json::from_str(&flowc::diagnostic::json::render(
        &o.sources,
        &o.diagnostics,
        flowc::diagnostic::Summary::of(1, &o.diagnostics),
    ))
    .expect("json");
    let codes = json["diagnostics"]
        .as_array()
        .expect("diags")
        .iter()
        .filter(|d| d.get("suppressed").is_none())
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                d["severity"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let report: Value = crate::common::report_json(&o);
    Run { codes, report }
}

const SOURCE: &str = "source src: files {\n  path \"in/{interval.start}/\"\n  immutable\n  identity id\n  fields [id, v]\n}\n";

/// A pipeline with one task writing `sink` of `kind` in `mode`.
fn mode_case(kind: &str, mode: &str) -> String {
    let params = match kind {
        "files" => "  path \"out/\"\n",
        "postgres_table" | "sqlite_table" => "  table \"t\"\n  primary_key id\n",
        "delta_table" => "  location \"s3://b/t\"\n  primary_key id\n",
        "iceberg_table" => "  table \"db.t\"\n  primary_key id\n",
        "kafka_topic" => "  topic \"t\"\n",
        _ => unreachable!(),
    };
    format!(
        "{SOURCE}\nsink out: {kind} {{\n{params}}}\n\npipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n  retries 1\n  timeout 30m\n\n  task t {{\n    read src pinned listing\n    key input.id\n    write out {mode}\n    run command [\"job\"]\n  }}\n}}\n"
    )
}

#[test]
fn every_mode_against_every_sink_kind() {
    // (kind, writes it offers, transactional, versioned) per docs/reference/kinds.md.
    let kinds: [(&str, &[&str], bool, bool); 6] = [
        ("files", &["append", "overwrite"], false, false),
        (
            "postgres_table",
            &[
                "upsert",
                "replace partition day = interval.start",
                "append",
                "append ledger",
                "check_then_append",
                "transactional",
            ],
            true,
            false,
        ),
        (
            "sqlite_table",
            &[
                "upsert",
                "replace partition day = interval.start",
                "append",
                "append ledger",
                "check_then_append",
                "transactional",
            ],
            true,
            false,
        ),
        (
            "delta_table",
            &[
                "conditional_commit",
                "overwrite",
                "append",
                "replace partition day = interval.start",
            ],
            true,
            true,
        ),
        (
            "iceberg_table",
            &[
                "conditional_commit",
                "overwrite",
                "append",
                "replace partition day = interval.start",
            ],
            true,
            true,
        ),
        ("kafka_topic", &["append", "transactional"], true, false),
    ];
    let modes = [
        "upsert",
        "replace partition day = interval.start",
        "append",
        "append ledger",
        "check_then_append",
        "conditional_commit",
        "overwrite",
        "transactional",
    ];
    for (kind, offered, _transactional, _versioned) in kinds {
        for mode in modes {
            let r = run(&mode_case(kind, mode));
            let supported = offered.contains(&mode);
            assert_eq!(r.has("FL205"), !supported, "{kind} {mode}: {:?}", r.codes);
            let g = r.guarantee("t", 0);
            let expected = match (mode, supported) {
                ("upsert" | "replace partition day = interval.start" | "append ledger", true) => {
                    "effectively_once"
                }
                ("conditional_commit", true) => "exactly_once",
                // flowc 0.2: an overwrite of a sink that is not interval-scoped
                // (none here is) can replace newer output: loss, no duplicates.
                ("overwrite", true) => "at_most_once",
                // Unsupported modes fail `idempotent`; `transactional` needs reads
                // with offsets under one coordinator, and files have none.
                _ => "at_least_once",
            };
            assert_eq!(g, expected, "{kind} {mode}: {:?}", r.codes);
            assert_eq!(
                r.has("FL900"),
                matches!(expected, "at_least_once" | "at_most_once"),
                "{kind} {mode}: {:?}",
                r.codes
            );
            assert_eq!(r.has("FL201"), mode == "check_then_append", "{kind} {mode}");
            assert_eq!(r.has("FL202"), mode == "append", "{kind} {mode}");
            assert_eq!(
                r.has("FL204"),
                mode == "overwrite" && supported,
                "{kind} {mode}"
            );
            assert_eq!(r.has("FL303"), mode == "transactional", "{kind} {mode}");
        }
    }
}

fn key_case(term: &str, scheduled: bool, nondeterministic: bool) -> String {
    let schedule = if scheduled {
        "  schedule \"0 2 * * *\"\n  start 2026-01-01\n"
    } else {
        ""
    };
    let nd = if nondeterministic {
        "    nondeterministic\n"
    } else {
        ""
    };
    format!(
        "{SOURCE}\nsink out: postgres_table {{\n  table \"t\"\n  primary_key id\n}}\n\npipeline p {{\n{schedule}  timeout 30m\n\n  task t {{\n    read src pinned listing\n    key id = {term}\n    write out upsert\n{nd}    run command [\"job\"]\n  }}\n}}\n"
    )
}

#[test]
fn every_key_term() {
    // (term, effectively_once in a scheduled deterministic task, code it
    // triggers). An interval term is stable, but every record of the
    // interval shares it, so the key is not unique (FL104 besides FL106).
    let cases: [(&str, bool, Option<&str>); 12] = [
        ("input.id", true, None),
        ("hash(input)", true, None),
        ("output.id", true, None),
        ("hash(output)", true, None),
        ("interval.start", false, Some("FL104")),
        ("interval.end", false, Some("FL106")),
        ("run.id", false, Some("FL102")),
        ("attempt.id", false, Some("FL101")),
        ("attempt.number", false, Some("FL101")),
        ("now()", false, Some("FL101")),
        ("uuid()", false, Some("FL101")),
        ("random()", false, Some("FL101")),
    ];
    for (term, stable, code) in cases {
        let r = run(&key_case(term, true, false));
        let want = if stable {
            "effectively_once"
        } else {
            "at_least_once"
        };
        assert_eq!(r.guarantee("t", 0), want, "{term}: {:?}", r.codes);
        if let Some(c) = code {
            assert!(r.has(c), "{term}: {:?}", r.codes);
        }
        assert_eq!(r.has("FL900"), !stable, "{term}: {:?}", r.codes);
    }
    // Interval terms are run-scoped without a schedule.
    let r = run(&key_case("interval.start", false, false));
    assert!(r.has("FL102") && r.has("FL900"), "{:?}", r.codes);
    assert_eq!(r.guarantee("t", 0), "at_least_once");
    // Output terms are not stable in a nondeterministic task.
    let r = run(&key_case("output.id", true, true));
    assert!(
        r.has("FL105") && r.has("FL601") && r.has("FL900"),
        "{:?}",
        r.codes
    );
    assert_eq!(r.guarantee("t", 0), "at_least_once");
}

fn pin_case(source: &str, read: &str) -> String {
    format!(
        "{source}\nsink out: postgres_table {{\n  table \"t\"\n  primary_key id\n}}\n\npipeline p {{\n  schedule \"@hourly\"\n  start 2026-01-01\n  timeout 10m\n\n  task t {{\n    read {read}\n    key input.id\n    write out upsert\n    run command [\"job\"]\n  }}\n}}\n"
    )
}

#[test]
fn every_pin_and_its_absence() {
    let files = "source s: files {\n  path \"in/\"\n  identity id\n}\n";
    let delta = "source s: delta_table {\n  location \"s3://b/t\"\n  identity id\n}\n";
    let pg = "source s: postgres_table {\n  table \"t\"\n  identity id\n}\n";
    let kafka = "source s: kafka_topic {\n  topic \"t\"\n  identity id\n}\n";
    // (source, read clauses, guarantee, codes that must fire)
    let cases: [(&str, &str, &str, &[&str]); 14] = [
        (files, "s pinned listing", "effectively_once", &[]),
        (files, "s", "at_least_once", &["FL304", "FL900"]),
        (files, "s unpinned", "at_least_once", &["FL304", "FL900"]),
        (
            files,
            "s pinned version",
            "at_least_once",
            &["FL305", "FL900"],
        ),
        (delta, "s pinned version", "effectively_once", &[]),
        (delta, "s pinned snapshot", "effectively_once", &[]),
        (delta, "s pinned offsets", "at_least_once", &["FL305"]),
        (pg, "s pinned snapshot", "effectively_once", &[]),
        (pg, "s pinned listing", "at_least_once", &["FL305"]),
        (kafka, "s pinned offsets", "effectively_once", &[]),
        (kafka, "s", "at_least_once", &["FL306", "FL304"]),
        (
            kafka,
            "s pinned offsets commit after_write",
            "effectively_once",
            &[],
        ),
        (
            kafka,
            "s pinned offsets commit auto",
            "at_most_once",
            &["FL301", "FL900"],
        ),
        (
            kafka,
            "s commit before_write",
            "none",
            &["FL302", "FL304", "FL900"],
        ),
    ];
    for (source, read, want, codes) in cases {
        let r = run(&pin_case(source, read));
        assert_eq!(
            r.guarantee("t", 0),
            want,
            "{read} on {source}: {:?}",
            r.codes
        );
        for c in codes {
            assert!(r.has(c), "{read}: expected {c}, got {:?}", r.codes);
        }
        if codes.is_empty() {
            assert!(r.codes.is_empty(), "{read}: {:?}", r.codes);
        }
    }
    // A default pin on the source counts for its readers.
    let r = run(&pin_case(
        "source s: files {\n  path \"in/\"\n  pin listing\n  identity id\n}\n",
        "s",
    ));
    assert!(r.codes.is_empty(), "{:?}", r.codes);
    // An immutable source needs no pin.
    let r = run(&pin_case(
        "source s: files {\n  path \"in/\"\n  immutable\n  identity id\n}\n",
        "s unpinned",
    ));
    assert!(r.codes.is_empty(), "{:?}", r.codes);
}

fn effect_case(effect_kind: &str, emit: &str, write: &str) -> String {
    let param = if effect_kind == "slack_message" {
        "channel \"#ops\""
    } else if effect_kind == "email" {
        "to \"a@b.c\""
    } else {
        "url \"https://x\""
    };
    format!(
        "{SOURCE}\nsink pg: postgres_table {{\n  table \"t\"\n  primary_key id\n}}\n\nsink lake: files {{\n  path \"out/\"\n}}\n\neffect e: {effect_kind} {{\n  {param}\n}}\n\npipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n  timeout 30m\n\n  task t {{\n    read src pinned listing\n    key input.id\n    {write}\n    {emit}\n    run command [\"job\"]\n  }}\n\n  task other {{\n    write pg upsert\n    write lake append\n    key input.id\n    after t\n    require at_least_once\n    allow FL202 because \"test\"\n    run command [\"x\"]\n  }}\n}}\n"
    )
}

#[test]
fn every_effect_tracking() {
    // (effect kind, emit, write, guarantee of the emit, codes)
    let cases: [(&str, &str, &str, &str, &[&str]); 10] = [
        (
            "webhook",
            "emit e via outbox",
            "write pg upsert",
            "effectively_once",
            &[],
        ),
        (
            "webhook",
            "emit e via outbox pg",
            "write pg upsert",
            "effectively_once",
            &[],
        ),
        (
            "http_request",
            "emit e via outbox",
            "write pg upsert",
            "effectively_once",
            &[],
        ),
        (
            "slack_message",
            "emit e via outbox",
            "write pg upsert",
            "at_least_once",
            &["FL900"],
        ),
        (
            "email",
            "emit e via outbox require at_least_once",
            "write pg upsert",
            "at_least_once",
            &[],
        ),
        (
            "webhook",
            "emit e",
            "write pg upsert",
            "at_least_once",
            &["FL401", "FL900"],
        ),
        (
            "webhook",
            "emit e via idempotency_key input.id",
            "write pg upsert",
            "effectively_once",
            &[],
        ),
        (
            "webhook",
            "emit e via idempotency_key run.id",
            "write pg upsert",
            "at_least_once",
            &["FL402", "FL900"],
        ),
        (
            "slack_message",
            "emit e via idempotency_key input.id",
            "write pg upsert",
            "at_least_once",
            &["FL403", "FL900"],
        ),
        (
            "webhook",
            "emit e via outbox",
            "write lake overwrite require at_least_once",
            "at_least_once",
            &["FL404", "FL900"],
        ),
    ];
    for (kind, emit, write, want, codes) in cases {
        let r = run(&effect_case(kind, emit, write));
        assert_eq!(r.guarantee("t", 1), want, "{kind} `{emit}`: {:?}", r.codes);
        for c in codes {
            assert!(r.has(c), "{kind} `{emit}`: expected {c}, got {:?}", r.codes);
        }
        if codes.is_empty() {
            assert!(
                !r.has("FL900") && !r.has("FL401"),
                "{kind} `{emit}`: {:?}",
                r.codes
            );
        }
    }
}

fn retry_case(pipeline: &str, task: &str, write: &str) -> String {
    format!(
        "{SOURCE}\nsink out: postgres_table {{\n  table \"t\"\n  primary_key id\n}}\n\npipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n{pipeline}\n  task t {{\n    read src pinned listing\n    key input.id\n    {write}\n{task}    run command [\"job\"]\n  }}\n}}\n"
    )
}

#[test]
fn retries_leases_and_requirements() {
    // Nested retries on an effectively-once task: a warning with the product.
    let r = run(&retry_case(
        "  retries 2\n  timeout 5m\n",
        "    internal_retries 2\n",
        "write out upsert",
    ));
    assert_eq!(r.severity("FL501"), Some("warning"));
    assert_eq!(r.task("t")["attempts_per_write"], 9);
    // ... and an error when an output is below effectively-once.
    let r = run(&retry_case(
        "  retries 3\n  timeout 5m\n",
        "    internal_retries 2\n    allow FL202 because \"t\"\n",
        "write out append require at_least_once",
    ));
    assert_eq!(r.severity("FL501"), Some("error"));
    assert_eq!(r.task("t")["attempts_per_write"], 12);
    assert_eq!(r.task("t")["on_ambiguous"], "fail");
    // on_ambiguous retry on an unsafe task.
    let r = run(&retry_case(
        "  timeout 5m\n",
        "    on_ambiguous retry\n    allow FL202 because \"t\"\n",
        "write out append require at_least_once",
    ));
    assert!(r.has("FL502"), "{:?}", r.codes);
    // Retries with no lease.
    let r = run(&retry_case("  retries 1\n", "", "write out upsert"));
    assert!(r.has("FL503") && !r.has("FL900"), "{:?}", r.codes);
    assert_eq!(r.task("t")["on_ambiguous"], "retry");
    // Requirements: pipeline, task and output level; exactly_once is above effectively_once.
    for (pipeline, task, write, fl900) in [
        ("  require at_least_once\n", "", "write out append", false),
        ("", "    require at_least_once\n", "write out append", false),
        ("", "", "write out append require at_least_once", false),
        ("", "", "write out append", true),
        ("  require exactly_once\n", "", "write out upsert", true),
        ("", "    require at_most_once\n", "write out append", true),
        ("", "    require none\n", "write out append", false),
    ] {
        let r = run(&retry_case(pipeline, task, write));
        assert_eq!(
            r.has("FL900"),
            fl900,
            "{pipeline}{task}{write}: {:?}",
            r.codes
        );
    }
}

#[test]
fn transactional_exactly_once_needs_offsets_in_one_coordinator() {
    let base = |commit: &str, coord: &str| {
        format!("source in: kafka_topic {{\n  topic \"a\"\n  identity id\n{coord}}}\n\nsink out: kafka_topic {{\n  topic \"b\"\n}}\n\npipeline p {{\n  schedule \"@hourly\"\n  start 2026-01-01\n  timeout 5m\n\n  task t {{\n    read in pinned offsets {commit}\n    write out transactional\n    run command [\"x\"]\n  }}\n}}\n")
    };
    let r = run(&base("commit in_transaction", ""));
    assert_eq!(r.guarantee("t", 0), "exactly_once", "{:?}", r.codes);
    assert!(r.codes.is_empty(), "{:?}", r.codes);
    let r = run(&base("commit in_transaction", "  coordinator \"other\"\n"));
    assert_eq!(r.guarantee("t", 0), "at_least_once");
    assert!(r.has("FL303"), "{:?}", r.codes);
    let r = run(&base("commit after_write", ""));
    assert!(r.has("FL303"), "{:?}", r.codes);
}

#[test]
fn conditional_commit_without_a_lease_is_effectively_once() {
    let src = format!("{SOURCE}\nsink out: delta_table {{\n  location \"s3://b\"\n}}\n\npipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n\n  task t {{\n    read src pinned listing\n    write out conditional_commit\n    run command [\"x\"]\n  }}\n}}\n");
    let r = run(&src);
    assert_eq!(r.guarantee("t", 0), "effectively_once");
    assert!(r.has("FL503") && !r.has("FL900"), "{:?}", r.codes);
}

/// A task of a writers case: name, mode on `dt` (or `other`), `after`.
type Writer<'a> = (&'a str, &'a str, &'a str);

fn writers_case(tasks: &[Writer<'_>]) -> String {
    let mut s = format!("{SOURCE}\nsink dt: delta_table {{\n  location \"s3://b\"\n}}\n\nsink other: delta_table {{\n  location \"s3://c\"\n}}\n\npipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n  timeout 30m\n");
    for (name, mode, after) in tasks {
        let sink = if *mode == "other" {
            "other conditional_commit".to_string()
        } else {
            format!("dt {mode}")
        };
        let after = if after.is_empty() {
            String::new()
        } else {
            format!("    after {after}\n")
        };
        let _ = write!(s, "\n  task {name} {{\n    read src pinned listing\n    write {sink}\n{after}    require at_least_once\n    run command [\"x\"]\n  }}\n");
    }
    s.push_str("}\n");
    s
}

#[test]
fn concurrent_writers_are_found_without_comparing_all_pairs() {
    // (tasks: name, mode on `dt`, after; FL207 expected)
    let cases: [(&[Writer<'_>], bool); 7] = [
        (&[("a", "append", ""), ("b", "append", "")], true),
        (&[("a", "append", ""), ("b", "append", "a")], false),
        // Two conditional commits move each other's version (flowc 0.2).
        (
            &[
                ("a", "conditional_commit", ""),
                ("b", "conditional_commit", ""),
            ],
            true,
        ),
        (
            &[
                ("a", "conditional_commit", ""),
                ("b", "conditional_commit", "a"),
            ],
            false,
        ),
        (
            &[("a", "conditional_commit", ""), ("b", "append", "")],
            true,
        ),
        // `a` and `c` are unordered, with a conditional commit between them.
        (
            &[
                ("a", "overwrite", ""),
                ("b", "conditional_commit", "a"),
                ("d", "other", ""),
                ("c", "conditional_commit", "d"),
            ],
            true,
        ),
        (
            &[
                ("a", "append", ""),
                ("b", "conditional_commit", "a"),
                ("c", "append", "b"),
            ],
            false,
        ),
    ];
    for (tasks, fires) in cases {
        let r = run(&writers_case(tasks));
        assert_eq!(r.has("FL207"), fires, "{tasks:?}: {:?}", r.codes);
    }
}
