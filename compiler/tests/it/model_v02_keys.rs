//! flowc 0.2's key amendments and smaller corrections, each with a near
//! miss that stays clean: keys made "unique" by an interval term (FL104),
//! outbox effects with their own key, FL207 across conditional commits and
//! pipelines, zero leases (FL002), reads with no commit mode (FL307), unbound
//! upsert key terms (FL107), `hash(output)`, overlapping `allow`s (FL705)
//! and Argo's missing catch-up (FL807).

use flowc::check::{self, Input, NoImports, Outcome};
use flowc::codegen::{argo, lower, python};
use serde_json::Value;

fn outcome(files: &[(&str, &str)]) -> Outcome {
    check::check(
        files
            .iter()
            .map(|(path, src)| Input {
                path: (*path).into(),
                key: (*path).into(),
                bytes: src.as_bytes().to_vec(),
            })
            .collect(),
        &NoImports,
    )
}

struct Run {
    o: Outcome,
    diags: Value,
    report: Value,
}

impl Run {
    fn new(src: &str) -> Run {
        Run::files(&[("t.flow", src)])
    }

    fn files(files: &[(&str, &str)]) -> Run {
        let o = outcome(files);
        let diags: Value = serde_json::from_str(&flowc::diagnostic::json::render(
            &o.sources,
            &o.diagnostics,
            flowc::diagnostic::Summary::of(files.len(), &o.diagnostics),
        ))
        .expect("json");
        let report: Value = serde_json::from_str(&flowc::report::json(&o)).expect("report");
        Run { o, diags, report }
    }

    /// Unsuppressed findings as (code, message).
    fn findings(&self) -> Vec<(String, String)> {
        self.diags["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter(|d| d.get("suppressed").is_none())
            .map(|d| {
                (
                    d["code"].as_str().unwrap_or_default().to_string(),
                    d["message"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect()
    }

    fn codes(&self) -> Vec<String> {
        self.findings().into_iter().map(|(c, _)| c).collect()
    }

    fn has(&self, code: &str) -> bool {
        self.codes().iter().any(|c| c == code)
    }

    fn message(&self, code: &str) -> String {
        self.findings()
            .into_iter()
            .find(|(c, _)| c == code)
            .map(|(_, m)| m)
            .unwrap_or_default()
    }

    /// Output `i` of task `task` in the first pipeline.
    fn output(&self, task: &str, i: usize) -> Value {
        self.report["pipelines"][0]["tasks"]
            .as_array()
            .expect("tasks")
            .iter()
            .find(|t| t["name"] == task)
            .expect("task")["outputs"][i]
            .clone()
    }
}

const ORDERS: &str = "source orders: files {\n  path \"in/{interval.start}/\"\n  immutable\n  identity order_id\n  fields [order_id, customer_id, amount]\n}\n";
const EVENTS_NO_ID: &str = "source events: files {\n  path \"in/{interval.start}/\"\n  immutable\n  identity none\n  fields [a, b]\n}\n";

fn scheduled(body: &str) -> String {
    format!("pipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n  timeout 30m\n\n{body}}}\n")
}

fn manual(body: &str) -> String {
    format!("pipeline p {{\n  timeout 30m\n\n{body}}}\n")
}

// ---- A4: interval terms make no key unique -----------------------------------

fn upsert_case(source: &str, pk: &str, key: &str) -> String {
    format!(
        "{source}\nsink out: postgres_table {{\n  table \"t\"\n  primary_key {pk}\n}}\n\n{}",
        scheduled(&format!(
            "  task t {{\n    read {} pinned listing\n    key {key}\n    write out upsert\n    run command [\"job\"]\n  }}\n",
            if source == ORDERS { "orders" } else { "events" }
        ))
    )
}

#[test]
fn an_interval_term_does_not_make_a_customer_key_unique() {
    let r = Run::new(&upsert_case(
        ORDERS,
        "(customer_id, day)",
        "(input.customer_id, day = interval.start)",
    ));
    assert!(r.has("FL104"), "{:?}", r.codes());
    let out = r.output("t", 0);
    assert_eq!(out["clauses"]["key_unique"], false);
    assert_eq!(out["guarantee"], "at_least_once");
    // Near miss: the identity's own field.
    let r = Run::new(&upsert_case(ORDERS, "order_id", "input.order_id"));
    assert!(!r.has("FL104"), "{:?}", r.codes());
    assert_eq!(r.output("t", 0)["clauses"]["key_unique"], true);
    assert_eq!(r.output("t", 0)["guarantee"], "effectively_once");
    // Near miss: the identity plus an interval term is still unique.
    let r = Run::new(&upsert_case(
        ORDERS,
        "(order_id, day)",
        "(input.order_id, day = interval.start)",
    ));
    assert!(!r.has("FL104"), "{:?}", r.codes());
}

fn ledger_case(source: &str, key: &str) -> String {
    format!(
        "{source}\nsink out: postgres_table {{\n  table \"t\"\n}}\n\n{}",
        scheduled(&format!(
            "  task t {{\n    read {} pinned listing\n    key {key}\n    write out append ledger\n    run command [\"job\"]\n  }}\n",
            if source == ORDERS { "orders" } else { "events" }
        ))
    )
}

#[test]
fn hash_of_input_is_not_unique_under_identity_none() {
    let r = Run::new(&ledger_case(EVENTS_NO_ID, "hash(input)"));
    assert!(r.has("FL104"), "{:?}", r.codes());
    let d = r.diags["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["code"] == "FL104")
        .expect("FL104")
        .clone();
    assert!(
        d["labels"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("`hash(input)` collapses them")),
        "{d}"
    );
    assert!(
        d["help"]
            .as_str()
            .is_some_and(|h| h.contains("declare the source's `identity`")),
        "{d}"
    );
    assert_eq!(r.output("t", 0)["clauses"]["key_unique"], false);
    // Near miss: a source that declares an identity.
    let r = Run::new(&ledger_case(ORDERS, "hash(input)"));
    assert!(!r.has("FL104"), "{:?}", r.codes());
    assert_eq!(r.output("t", 0)["clauses"]["key_unique"], true);
    // An output term identifies what is written, whatever the input.
    let r = Run::new(&ledger_case(EVENTS_NO_ID, "output.a"));
    assert!(!r.has("FL104"), "{:?}", r.codes());
    // Interval terms alone: FL104 besides FL106.
    let r = Run::new(&ledger_case(ORDERS, "interval.start"));
    assert!(r.has("FL104") && r.has("FL106"), "{:?}", r.codes());
}

// ---- A10: outbox keys ----------------------------------------------------------

fn outbox_case(pipeline: fn(&str) -> String, write: &str, emit: &str) -> String {
    format!(
        "{ORDERS}\nsink out: postgres_table {{\n  table \"t\"\n  primary_key order_id\n}}\n\neffect hook: webhook {{\n  url \"https://x.example/h\"\n}}\n\n{}",
        pipeline(&format!(
            "  task t {{\n    read orders pinned listing\n    {write}\n    {emit}\n    run command [\"job\"]\n  }}\n"
        ))
    )
}

#[test]
fn an_outbox_key_with_an_interval_term_is_run_scoped_in_a_manual_pipeline() {
    let r = Run::new(&outbox_case(
        manual,
        "write out append",
        "emit hook via outbox key (input.order_id, interval.start)",
    ));
    assert!(r.has("FL102"), "{:?}", r.codes());
    let e = r.output("t", 1);
    assert_eq!(e["key"]["from"], "own");
    assert_eq!(e["key"]["terms"][0], "input.order_id");
    assert_eq!(e["key"]["terms"][1], "interval.start");
    assert_eq!(e["guarantee"], "at_least_once");
    // Near miss: the input's identity alone is stable in a manual pipeline.
    let r = Run::new(&outbox_case(
        manual,
        "write out append",
        "emit hook via outbox key input.order_id",
    ));
    assert!(!r.has("FL102"), "{:?}", r.codes());
    // Near miss: the same key in a scheduled pipeline.
    let r = Run::new(&outbox_case(
        scheduled,
        "write out upsert key input.order_id",
        "emit hook via outbox key (input.order_id, interval.start)",
    ));
    assert!(!r.has("FL102"), "{:?}", r.codes());
    assert_eq!(r.output("t", 1)["guarantee"], "effectively_once");
}

#[test]
fn an_outbox_without_a_key_falls_back_to_the_write_then_the_interval() {
    // The holding write's key.
    let r = Run::new(&outbox_case(
        manual,
        "write out upsert key input.order_id",
        "emit hook via outbox",
    ));
    let e = r.output("t", 1);
    assert_eq!(e["key"]["from"], "write");
    assert_eq!(e["key"]["terms"][0], "input.order_id");
    assert_eq!(e["guarantee"], "effectively_once");
    // A partition replace: its partition term.
    let r = Run::new(&outbox_case(
        scheduled,
        "write out replace partition day = interval.start",
        "emit hook via outbox",
    ));
    let e = r.output("t", 1);
    assert_eq!(e["key"]["from"], "partition", "{e}");
    assert_eq!(e["key"]["terms"][0], "interval.start");
    // A keyless append: the interval and the position, run-scoped when manual.
    let r = Run::new(&outbox_case(
        manual,
        "write out append",
        "emit hook via outbox",
    ));
    let e = r.output("t", 1);
    assert_eq!(e["key"]["from"], "position");
    assert_eq!(e["guarantee"], "at_least_once");
    assert!(r.has("FL900"), "{:?}", r.codes());
    // Near miss: scheduled, the interval is stable.
    let r = Run::new(&outbox_case(
        scheduled,
        "write out upsert key input.order_id",
        "emit hook via outbox",
    ));
    assert_eq!(r.output("t", 1)["guarantee"], "effectively_once");
}

#[test]
fn outbox_keys_get_the_write_key_rules_but_not_fl104_or_fl106() {
    let r = Run::new(&outbox_case(
        scheduled,
        "write out upsert key input.order_id",
        "emit hook via outbox key attempt.id",
    ));
    assert!(r.has("FL101"), "{:?}", r.codes());
    assert_eq!(r.output("t", 1)["guarantee"], "at_least_once");
    // One message per interval: a coarse key is a choice, not a bug.
    let r = Run::new(&outbox_case(
        scheduled,
        "write out upsert key input.order_id",
        "emit hook via outbox key interval.start",
    ));
    assert!(
        !r.has("FL104") && !r.has("FL106") && !r.has("FL101"),
        "{:?}",
        r.codes()
    );
    assert_eq!(r.output("t", 1)["guarantee"], "effectively_once");
    // Fields are checked like any key's.
    let r = Run::new(&outbox_case(
        scheduled,
        "write out upsert key input.order_id",
        "emit hook via outbox out key input.nope",
    ));
    assert!(r.has("FL103"), "{:?}", r.codes());
}

#[test]
fn key_after_via_outbox_without_terms_is_a_syntax_error() {
    for emit in ["emit hook via outbox key", "emit hook via outbox out key"] {
        let r = Run::new(&outbox_case(
            scheduled,
            "write out upsert key input.order_id",
            emit,
        ));
        assert!(r.has("FL001"), "{emit}: {:?}", r.codes());
        assert!(
            r.message("FL001")
                .contains("`key` after `via outbox` needs"),
            "{emit}: {}",
            r.message("FL001")
        );
    }
    // Near miss: with a sink name and a requirement around it.
    let r = Run::new(&outbox_case(
        scheduled,
        "write out upsert key input.order_id",
        "emit hook via outbox out key (input.order_id, day = interval.start) require effectively_once",
    ));
    assert!(!r.has("FL001"), "{:?}", r.codes());
    assert_eq!(r.output("t", 1)["via"], "out");
}

#[test]
fn fmt_keeps_an_outbox_key() {
    let src = outbox_case(
        scheduled,
        "write out upsert key input.order_id",
        "emit hook via outbox out key (input.order_id,day=interval.start) require effectively_once",
    );
    let formatted = flowc::format::format_file(&src).expect("formats");
    assert!(
        formatted.contains(
            "emit   hook via outbox out key (input.order_id, day = interval.start) require effectively_once"
        ) || formatted.contains(
            "emit hook via outbox out key (input.order_id, day = interval.start) require effectively_once"
        ),
        "{formatted}"
    );
    assert_eq!(
        flowc::format::format_file(&formatted).as_deref(),
        Ok(formatted.as_str())
    );
    // What it formats still checks the same.
    assert!(!Run::new(&formatted).has("FL001"));
}

#[test]
fn the_python_module_carries_the_written_effect_key_only() {
    let src = format!(
        "{ORDERS}\nsink out: postgres_table {{\n  table \"t\"\n  primary_key order_id\n}}\n\neffect hook: webhook {{\n  url \"https://x.example/h\"\n}}\n\neffect note: webhook {{\n  url \"https://x.example/n\"\n}}\n\n{}",
        scheduled("  task t {\n    read orders pinned listing\n    write out upsert key input.order_id\n    emit hook via outbox key input.customer_id\n    emit note via outbox\n    run command [\"python\", \"-m\", \"jobs.t\"]\n  }\n")
    );
    let o = outcome(&[("t.flow", &src)]);
    assert!(o.diagnostics.is_empty(), "{:?}", o.diagnostics);
    let pipelines = lower::pipelines_of(&o, o.roots[0]);
    let scaffold = python::generate(&pipelines).expect("python");
    let module = scaffold
        .rewrite
        .iter()
        .find(|f| f.path == "jobs/t.py")
        .expect("module");
    let text = &module.contents;
    assert!(
        text.contains("effect_key=(Term(\"input_field\", field=\"customer_id\", column=None),),"),
        "{text}"
    );
    // The other emit has no key of its own: the runtime derives it.
    assert_eq!(text.matches("effect_key=None,").count(), 1, "{text}");
}

// ---- A15: smaller corrections ----------------------------------------------------

const VERSIONED: &str = "source a: files {\n  path \"a/{interval.start}/\"\n  immutable\n  identity id\n}\n\nsink lake: delta_table {\n  location \"s3://b/t\"\n}\n";

#[test]
fn two_unordered_conditional_commits_of_one_sink_are_fl207() {
    let body = |after: &str| {
        scheduled(&format!(
            "  task x {{\n    read a pinned listing\n    write lake conditional_commit\n    run command [\"x\"]\n  }}\n\n  task y {{\n{after}    read a pinned listing\n    write lake conditional_commit\n    run command [\"y\"]\n  }}\n"
        ))
    };
    let r = Run::new(&format!("{VERSIONED}\n{}", body("")));
    assert!(r.has("FL207"), "{:?}", r.codes());
    assert!(
        r.message("FL207").contains("`x` and `y`"),
        "{}",
        r.message("FL207")
    );
    // Near miss: ordered.
    let r = Run::new(&format!("{VERSIONED}\n{}", body("    after x\n")));
    assert!(!r.has("FL207"), "{:?}", r.codes());
}

#[test]
fn writers_of_one_sink_in_two_pipelines_of_a_run_are_fl207() {
    let decls = "source a: files {\n  path \"a/{interval.start}/\"\n  immutable\n  identity id\n}\n\nsink out: postgres_table {\n  table \"t\"\n  primary_key id\n}\n";
    let pipeline = |name: &str, stmt: &str| {
        format!("pipeline {name} {{\n  schedule \"@daily\"\n  start 2026-01-01\n  timeout 30m\n\n  task t {{\n    {stmt}\n    run command [\"x\"]\n  }}\n}}\n")
    };
    let write = "read a pinned listing\n    key input.id\n    write out upsert";
    let src = format!(
        "{decls}\n{}\n{}",
        pipeline("one", write),
        pipeline("two", write)
    );
    let r = Run::new(&src);
    assert!(r.has("FL207"), "{:?}", r.codes());
    let m = r.message("FL207");
    assert!(m.contains("`one`") && m.contains("`two`"), "{m}");
    // In two files of one run as well.
    let r = Run::files(&[
        ("a.flow", &format!("{decls}\n{}", pipeline("one", write))),
        (
            "b.flow",
            &format!(
                "{}\n{}",
                decls
                    .replace("source a", "source a2")
                    .replace("sink out", "sink out2"),
                pipeline(
                    "two",
                    "read a2 pinned listing\n    key input.id\n    write out2 upsert"
                )
            ),
        ),
    ]);
    // Two declarations of one table are one sink (issue 27, item 19).
    assert!(r.has("FL207"), "one table, two names: {:?}", r.codes());
    let r = Run::files(&[
        ("a.flow", &format!("{decls}\n{}", pipeline("one", write))),
        (
            "b.flow",
            &format!(
                "{}\n{}",
                decls
                    .replace("source a", "source a2")
                    .replace("sink out", "sink out2")
                    .replace("table \"t\"", "table \"t2\""),
                pipeline(
                    "two",
                    "read a2 pinned listing\n    key input.id\n    write out2 upsert"
                )
            ),
        ),
    ]);
    assert!(!r.has("FL207"), "separate sinks: {:?}", r.codes());
    // Near miss: the second pipeline reads the sink instead.
    let src = format!(
        "{decls}\n{}\n{}",
        pipeline("one", write),
        pipeline("two", "read out pinned snapshot")
    );
    let r = Run::new(&src);
    assert!(!r.has("FL207"), "{:?}", r.codes());
}

#[test]
fn a_zero_timeout_is_fl002() {
    let src = |setting: &str, task_setting: &str| {
        format!(
            "{ORDERS}\nsink out: postgres_table {{\n  table \"t\"\n  primary_key order_id\n}}\n\npipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n{setting}\n  task t {{\n    read orders pinned listing\n    key input.order_id\n    write out upsert\n{task_setting}    run command [\"x\"]\n  }}\n}}\n"
        )
    };
    for (p, t) in [("  timeout 0s\n", ""), ("", "    timeout 0m\n")] {
        let r = Run::new(&src(p, t));
        assert!(r.has("FL002"), "{:?}", r.codes());
        assert!(r.message("FL002").contains("a lease must be positive"));
        // A lease was written, if a wrong one: no FL503 on top.
        assert!(!r.has("FL503"), "{:?}", r.codes());
    }
    let r = Run::new(&src("  timeout 1s\n", ""));
    assert!(r.codes().is_empty(), "{:?}", r.codes());
}

fn queue_case(commits: &str, read: &str) -> String {
    format!(
        "kind queue {{\n  roles source\n  pins offsets\n  offsets\n  commits {commits}\n  param name: string\n}}\n\nsource q: queue {{\n  name \"q\"\n  identity id\n}}\n\nsink out: postgres_table {{\n  table \"t\"\n  primary_key id\n}}\n\n{}",
        scheduled(&format!(
            "  task t {{\n    read {read}\n    key input.id\n    write out upsert\n    run command [\"x\"]\n  }}\n"
        ))
    )
}

#[test]
fn a_read_with_no_commit_mode_on_a_kind_without_after_write_is_fl307() {
    let r = Run::new(&queue_case("auto", "q pinned offsets"));
    assert!(r.has("FL307"), "{:?}", r.codes());
    assert!(!r.has("FL306") && !r.has("FL301"), "{:?}", r.codes());
    assert!(
        r.message("FL307").contains("assumes `auto`"),
        "{}",
        r.message("FL307")
    );
    // The first mode listed is assumed: auto loses.
    let out = r.output("t", 0);
    assert_eq!(out["clauses"]["no_loss"], false);
    assert_eq!(out["guarantee"], "at_most_once");
    // The first listed mode, not the safest.
    let r = Run::new(&queue_case("in_transaction, auto", "q pinned offsets"));
    assert!(
        r.message("FL307").contains("assumes `in_transaction`"),
        "{}",
        r.message("FL307")
    );
    // Near miss: the kind lists after_write, so FL306's default applies.
    let r = Run::new(&queue_case("auto, after_write", "q"));
    assert!(!r.has("FL307") && r.has("FL306"), "{:?}", r.codes());
    // Near miss: the mode is written.
    let r = Run::new(&queue_case("auto", "q pinned offsets commit auto"));
    assert!(!r.has("FL307") && r.has("FL301"), "{:?}", r.codes());
}

#[test]
fn an_unbound_term_that_is_no_field_is_fl107() {
    let case = |pk: &str, key: &str| upsert_case(ORDERS, pk, key);
    let r = Run::new(&case("order_id", "(input.order_id, interval.start)"));
    assert!(r.has("FL107"), "{:?}", r.codes());
    assert!(
        r.message("FL107")
            .contains("`interval.start` fills no column"),
        "{}",
        r.message("FL107")
    );
    assert_eq!(r.output("t", 0)["clauses"]["idempotent"], false);
    let r = Run::new(&case("order_id", "(input.order_id, hash(input))"));
    assert!(r.has("FL107"), "{:?}", r.codes());
    // Near miss: bound to a primary key column.
    let r = Run::new(&case(
        "(order_id, day)",
        "(input.order_id, day = interval.start)",
    ));
    assert!(!r.has("FL107"), "{:?}", r.codes());
    assert_eq!(r.output("t", 0)["clauses"]["idempotent"], true);
}

#[test]
fn hash_of_output_is_stable_when_the_task_is_deterministic() {
    let src = |nd: &str| {
        format!(
            "{ORDERS}\nsink out: postgres_table {{\n  table \"t\"\n  primary_key h\n}}\n\n{}",
            scheduled(&format!("  task t {{\n    read orders pinned listing\n    key h = hash(output)\n    write out upsert\n{nd}    run command [\"x\"]\n  }}\n"))
        )
    };
    let r = Run::new(&src(""));
    assert_eq!(r.output("t", 0)["clauses"]["key_stable"], true);
    assert_eq!(r.output("t", 0)["guarantee"], "effectively_once");
    let r = Run::new(&src("    nondeterministic\n"));
    assert_eq!(r.output("t", 0)["clauses"]["key_stable"], false);
}

#[test]
fn the_narrowest_allow_takes_a_finding_and_the_wider_one_is_unused_only_if_it_takes_none() {
    let src = |second_append: bool| {
        let second = if second_append {
            "    write out2 append\n"
        } else {
            "    key input.order_id\n    write out2 upsert\n"
        };
        format!(
            "{ORDERS}\nsink out: postgres_table {{\n  table \"t\"\n  primary_key order_id\n}}\n\nsink out2: postgres_table {{\n  table \"t2\"\n  primary_key order_id\n}}\n\npipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n  timeout 30m\n  allow FL202 because \"readers count distinct ids\"\n  allow FL900 because \"accepted here\"\n\n  task a {{\n    read orders pinned listing\n    write out append\n    allow FL202 because \"this one is deduplicated downstream\"\n    run command [\"a\"]\n  }}\n\n  task b {{\n    read orders pinned listing\n{second}    run command [\"b\"]\n  }}\n}}\n"
        )
    };
    // Both allows take a finding: no FL705.
    let r = Run::new(&src(true));
    assert!(!r.has("FL705"), "{:?}", r.findings());
    let suppressed: Vec<String> = r.diags["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["code"] == "FL202")
        .map(|d| {
            d["suppressed"]["reason"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(
        suppressed,
        [
            "this one is deduplicated downstream",
            "readers count distinct ids"
        ]
    );
    // The task's allow takes the only FL202: the pipeline's suppresses nothing.
    let r = Run::new(&src(false));
    assert!(r.has("FL705"), "{:?}", r.findings());
    assert!(
        r.message("FL705").contains("`allow FL202`"),
        "{}",
        r.message("FL705")
    );
    assert_eq!(
        r.o.diagnostics
            .iter()
            .filter(|d| d.code.as_str() == "FL705")
            .count(),
        1
    );
}

// ---- FL807 --------------------------------------------------------------------

fn argo_warnings(src: &str) -> Vec<flowc::codegen::TargetProblem> {
    let o = outcome(&[("t.flow", src)]);
    assert!(
        !o.diagnostics
            .iter()
            .any(|d| d.severity == flowc::diagnostic::Severity::Error),
        "{:?}",
        o.diagnostics
    );
    argo::warnings(&lower::pipelines_of(&o, o.roots[0]))
}

#[test]
fn argo_warns_of_interval_scoped_reads_in_scheduled_pipelines() {
    let task = "  task t {\n    read orders pinned listing\n    key input.order_id\n    write out upsert\n    run command [\"x\"]\n  }\n";
    let decls = format!(
        "{ORDERS}\nsink out: postgres_table {{\n  table \"t\"\n  primary_key order_id\n}}\n\n"
    );
    let w = argo_warnings(&format!("{decls}{}", scheduled(task)));
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].code, flowc::diagnostic::Code::FL807);
    assert!(w[0].message.contains("`orders`"), "{}", w[0].message);
    // Near miss: a manual pipeline has no intervals to miss.
    assert!(argo_warnings(&format!("{decls}{}", manual(task))).is_empty());
    // Near miss: an escaped brace is a literal one, not a placeholder.
    let literal = decls.replace("in/{interval.start}/", "in/\\{interval.start\\}/");
    assert!(argo_warnings(&format!("{literal}{}", scheduled(task))).is_empty());
}

#[test]
fn fl807_fixtures_build_with_and_without_the_warning() {
    crate::common::at_root();
    let root = crate::common::repo_root();
    for (file, warns) in [("trigger", true), ("clean", false)] {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = crate::common::flowc()
            .current_dir(&root)
            .args(["build", "--target", "argo", "--out"])
            .arg(dir.path())
            .arg(format!("tests/fixtures/rules/FL807/{file}.flow"))
            .output()
            .expect("runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{file}: {stderr}");
        assert_eq!(stdout.contains("FL807"), warns, "{file}: {stdout}");
        assert!(stderr.contains("wrote 1 file"), "{file}: {stderr}");
        if warns {
            insta::assert_snapshot!("fl807_trigger_build", stdout);
        }
        // Airflow catches up: never FL807.
        let out = crate::common::flowc()
            .current_dir(&root)
            .args(["build", "--target", "airflow", "--out"])
            .arg(dir.path().join("airflow"))
            .arg(format!("tests/fixtures/rules/FL807/{file}.flow"))
            .output()
            .expect("runs");
        assert!(out.status.success());
        assert!(!String::from_utf8_lossy(&out.stdout).contains("FL807"));
    }
}

#[test]
fn an_allow_of_fl807_is_applied_by_build_and_never_unused_in_check() {
    let trigger = std::fs::read_to_string(
        crate::common::repo_root().join("tests/fixtures/rules/FL807/trigger.flow"),
    )
    .expect("fixture");
    let allowed = trigger.replace(
        "    run    command [\"python\", \"-m\", \"orders.load\"]",
        "    allow  FL807 because \"missed days are run by the on-call script\"\n    run    command [\"python\", \"-m\", \"orders.load\"]",
    );
    assert_ne!(allowed, trigger);
    // `check` cannot know whether the build will find it: no FL705.
    let r = Run::new(&allowed);
    assert!(r.codes().is_empty(), "{:?}", r.codes());
    let dir = tempfile::tempdir().expect("tempdir");
    let flow = dir.path().join("p.flow");
    std::fs::write(&flow, &allowed).expect("write");
    let out = crate::common::flowc()
        .current_dir(dir.path())
        .args(["build", "--target", "argo", "--out", "out", "p.flow"])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("0 errors, 0 warnings"), "{stdout}");
    // Near miss: without the allow the build warns.
    std::fs::write(&flow, &trigger).expect("write");
    let out = crate::common::flowc()
        .current_dir(dir.path())
        .args(["build", "--target", "argo", "--out", "out", "p.flow"])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("1 warning"), "{stdout}");
}

#[test]
fn fl207_across_files_counts_the_run_not_what_use_reaches() {
    let dir = tempfile::tempdir().expect("tempdir");
    let shared = "source a: files {\n  path \"a/{interval.start}/\"\n  immutable\n  identity id\n}\n\nsink out: postgres_table {\n  table \"t\"\n  primary_key id\n}\n";
    let pipeline = |name: &str| {
        format!("use \"shared.flow\"\n\npipeline {name} {{\n  schedule \"@daily\"\n  start 2026-01-01\n  timeout 30m\n\n  task t {{\n    read a pinned listing\n    key input.id\n    write out upsert\n    run command [\"x\"]\n  }}\n}}\n")
    };
    std::fs::write(dir.path().join("shared.flow"), shared).expect("write");
    std::fs::write(dir.path().join("one.flow"), pipeline("one")).expect("write");
    // `two.flow` also uses `one.flow`: its pipeline is not part of a run of `two.flow` alone.
    std::fs::write(
        dir.path().join("two.flow"),
        format!("use \"one.flow\"\n{}", pipeline("two")),
    )
    .expect("write");
    let check = |files: &[&str]| {
        let out = crate::common::flowc()
            .current_dir(dir.path())
            .arg("check")
            .args(files)
            .output()
            .expect("runs");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let both = check(&["one.flow", "two.flow"]);
    assert!(both.contains("FL207"), "{both}");
    assert!(
        both.contains("pipelines `one` and `two` both write `out`"),
        "{both}"
    );
    // Near miss: `one`'s pipeline is only reached through `use`.
    let alone = check(&["two.flow"]);
    assert!(!alone.contains("FL207"), "{alone}");
}
