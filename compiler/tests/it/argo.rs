//! The Argo Workflows target: snapshots of generated documents, a re-parse
//! of hostile strings, validation against Argo's strict JSON schema (and a
//! proof that the validator rejects broken documents), and FL801-FL803.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use crate::common::ir::{date, schedule};
use flowc::codegen::argo::{generate, ArgoKind};
use flowc::codegen::ir::{Endpoint, EnvVar, KeyPart, Pipeline, Task, Write};
use flowc::codegen::TargetProblem;
use flowc::vocab::{Guarantee, Mode, OnAmbiguous, Term};
use serde_json::{json, Value};

// ---------------------------------------------------------------- builders

fn sink(name: &str) -> Endpoint {
    Endpoint {
        name: name.to_owned(),
        kind: "postgres_table".to_owned(),
        params: BTreeMap::new(),
        fields: None,
        coordinator: Some("postgres".to_owned()),
        secret: None,
    }
}

fn upsert(sink_name: &str) -> Write {
    Write {
        sink: sink(sink_name).into(),
        mode: Mode::Upsert,
        partition: None,
        key: Some(vec![KeyPart {
            column: Some("order_id".to_owned()),
            term: Term::InputField {
                field: "order_id".to_owned(),
            },
        }]),
        primary_key: Some(vec!["order_id".to_owned()]),
        guarantee: Guarantee::EffectivelyOnce,
        required: Guarantee::EffectivelyOnce,
        newest_by: None,
        txn: None,
        anomalies: Vec::new(),
    }
}

fn task(name: &str, upstream: &[&str]) -> Task {
    Task {
        name: name.to_owned(),
        upstream: upstream.iter().map(|s| (*s).to_owned()).collect(),
        retries: 0,
        internal_retries: 0,
        retry_delay_seconds: 300,
        timeout_seconds: None,
        on_ambiguous: OnAmbiguous::Retry,
        image: Some("ghcr.io/acme/orders:1.4".to_owned()),
        command: vec!["python".to_owned(), "-m".to_owned(), name.to_owned()],
        env: Vec::new(),
        nondeterministic: false,
        reads: Vec::new(),
        writes: Vec::new(),
        emits: Vec::new(),
        pod: flowc::codegen::ir::Pod::default(),
        secrets: Vec::new(),
        airflow_executor: None,
        line: 0,
        on_ambiguous_why: String::new(),
    }
}

fn manual(name: &str, tasks: Vec<Task>) -> Pipeline {
    Pipeline {
        name: name.to_owned(),
        source_file: "tests/argo/manual.flow".to_owned(),
        schedule: None,
        start: None,
        timezone: "UTC".to_owned(),
        catchup: false,
        state: flowc::codegen::ir::StateStore::default(),
        needs_state: false,
        pod: flowc::codegen::ir::Pod::default(),
        argo_ttl_seconds: None,
        argo_pod_gc: None,
        params: Vec::new(),
        image: Some("ghcr.io/acme/orders:1.4".to_owned()),
        tasks,
    }
}

/// Mirrors `tests/argo/orders_daily.flow`.
fn orders_daily() -> Pipeline {
    let mut load = task("load_orders", &[]);
    load.retries = 3;
    load.timeout_seconds = Some(1800);
    load.on_ambiguous = OnAmbiguous::Retry;
    load.command = vec!["python".into(), "-m".into(), "orders.load".into()];
    load.env = vec![EnvVar {
        name: "LOG_LEVEL".into(),
        value: "info".into(),
    }];
    load.writes = vec![upsert("orders")];
    let mut rollup = task("rollup", &["load_orders"]);
    rollup.retries = 3;
    rollup.timeout_seconds = Some(1800);
    rollup.on_ambiguous = OnAmbiguous::Fail;
    rollup.image = Some("ghcr.io/acme/rollup:2.0".into());
    rollup.command = vec!["python".into(), "-m".into(), "orders.rollup".into()];
    let mut w = upsert("daily_totals");
    w.mode = Mode::ReplacePartition;
    rollup.writes = vec![w];
    Pipeline {
        name: "orders_daily".into(),
        source_file: "tests/argo/orders_daily.flow".into(),
        schedule: Some(schedule("0 2 * * *")),
        start: Some(date("2026-01-01")),
        timezone: "Europe/Paris".into(),
        catchup: false,
        state: flowc::codegen::ir::StateStore::default(),
        needs_state: false,
        pod: flowc::codegen::ir::Pod::default(),
        argo_ttl_seconds: None,
        argo_pod_gc: None,
        params: Vec::new(),
        image: Some("ghcr.io/acme/orders:1.4".into()),
        tasks: vec![load, rollup],
    }
}

/// Mirrors `tests/argo/manual_backfill.flow`: no schedule, no retries, a
/// diamond of dependencies.
fn manual_backfill() -> Pipeline {
    let mut p = manual(
        "manual_backfill",
        vec![
            task("extract", &[]),
            task("clean", &["extract"]),
            task("enrich", &["extract"]),
            task("publish", &["clean", "enrich"]),
        ],
    );
    p.source_file = "tests/argo/manual_backfill.flow".into();
    p.tasks[3].writes = vec![upsert("orders"), upsert("audit")];
    p
}

/// Mirrors `tests/argo/hourly_catchup.flow`: a preset, catch-up requested,
/// and both `on_ambiguous` settings.
fn hourly_catchup() -> Pipeline {
    let mut retry = task("retry_on_ambiguous", &[]);
    retry.retries = 2;
    retry.retry_delay_seconds = 60;
    retry.timeout_seconds = Some(600);
    retry.on_ambiguous = OnAmbiguous::Retry;
    let mut fail = task("fail_on_ambiguous", &["retry_on_ambiguous"]);
    fail.retries = 2;
    fail.retry_delay_seconds = 60;
    fail.timeout_seconds = Some(600);
    fail.on_ambiguous = OnAmbiguous::Fail;
    fail.writes = vec![upsert("orders")];
    Pipeline {
        name: "hourly_catchup".into(),
        source_file: "tests/argo/hourly_catchup.flow".into(),
        schedule: Some(schedule("@hourly")),
        start: Some(date("2026-03-01")),
        timezone: "UTC".into(),
        catchup: true,
        state: flowc::codegen::ir::StateStore::default(),
        needs_state: false,
        pod: flowc::codegen::ir::Pod::default(),
        argo_ttl_seconds: None,
        argo_pod_gc: None,
        params: Vec::new(),
        image: Some("ghcr.io/acme/orders:1.4".into()),
        tasks: vec![retry, fail],
    }
}

fn render_one(p: &Pipeline, kind: ArgoKind) -> String {
    let files =
        generate(std::slice::from_ref(p), kind).unwrap_or_else(|e| panic!("problems: {e:#?}"));
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].path, format!("{}.yaml", p.name));
    files[0].text().into_owned()
}

fn problems(pipelines: &[Pipeline], kind: ArgoKind) -> Vec<TargetProblem> {
    match generate(pipelines, kind) {
        Ok(files) => panic!("expected problems, got {} files", files.len()),
        Err(p) => p,
    }
}

fn parse(yaml: &str) -> Value {
    serde_norway::from_str(yaml).unwrap_or_else(|e| panic!("generated YAML parses: {e}\n{yaml}"))
}

// ---------------------------------------------------------------- snapshots

#[test]
fn snapshot_cron_workflow() {
    insta::assert_snapshot!("cron_workflow", render_one(&orders_daily(), ArgoKind::Auto));
}

#[test]
fn snapshot_manual_workflow() {
    insta::assert_snapshot!(
        "manual_workflow",
        render_one(&manual_backfill(), ArgoKind::Auto)
    );
}

#[test]
fn snapshot_workflow_template() {
    insta::assert_snapshot!(
        "workflow_template",
        render_one(&orders_daily(), ArgoKind::Template)
    );
}

#[test]
fn snapshot_on_ambiguous_fail_and_retry() {
    insta::assert_snapshot!(
        "on_ambiguous",
        render_one(&hourly_catchup(), ArgoKind::Auto)
    );
}

#[test]
fn output_is_deterministic() {
    let all = [orders_daily(), manual_backfill(), hourly_catchup()];
    assert_eq!(
        generate(&all, ArgoKind::Auto),
        generate(&all, ArgoKind::Auto)
    );
}

// ---------------------------------------------------------------- mapping

fn templates(doc: &Value) -> &Vec<Value> {
    let spec = if doc["kind"] == "CronWorkflow" {
        &doc["spec"]["workflowSpec"]
    } else {
        &doc["spec"]
    };
    spec["templates"].as_array().expect("templates")
}

fn template<'a>(doc: &'a Value, name: &str) -> &'a Value {
    templates(doc)
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("template {name}"))
}

fn env(t: &Value) -> BTreeMap<String, String> {
    t["container"]["env"]
        .as_array()
        .expect("env")
        .iter()
        .map(|e| {
            (
                e["name"].as_str().expect("name").to_owned(),
                e["value"].as_str().expect("value").to_owned(),
            )
        })
        .collect()
}

#[test]
fn cron_workflow_carries_schedule_zone_and_start() {
    let doc = parse(&render_one(&orders_daily(), ArgoKind::Auto));
    assert_eq!(doc["kind"], "CronWorkflow");
    assert_eq!(doc["metadata"]["name"], "orders-daily");
    assert_eq!(
        doc["metadata"]["annotations"]["flowc.dev/start"],
        "2026-01-01"
    );
    assert_eq!(doc["spec"]["schedules"], json!(["0 2 * * *"]));
    assert_eq!(doc["spec"]["timezone"], "Europe/Paris");
    assert_eq!(doc["spec"]["concurrencyPolicy"], "Forbid");
    assert!(doc["spec"].get("schedule").is_none());
    let dag = &template(&doc, "main")["dag"]["tasks"];
    assert_eq!(dag[1]["name"], "rollup");
    assert_eq!(dag[1]["depends"], "load-orders");
    assert!(dag[0].get("depends").is_none());

    let load = template(&doc, "task-load-orders");
    assert_eq!(load["retryStrategy"]["limit"], 3);
    assert_eq!(load["retryStrategy"]["retryPolicy"], "Always");
    // on_ambiguous retry: every failure but exit 65 (a deterministic error) is retried
    assert_eq!(
        load["retryStrategy"]["expression"],
        "asInt(lastRetry.exitCode) != 65"
    );
    assert_eq!(load["retryStrategy"]["backoff"]["duration"], "300s");
    assert_eq!(load["activeDeadlineSeconds"], 1800);
    // One mutex, named after the system (kind, secret, table), not the name.
    let mutexes = load["synchronization"]["mutexes"]
        .as_array()
        .expect("mutexes");
    assert_eq!(mutexes.len(), 1, "{mutexes:?}");
    let name = mutexes[0]["name"].as_str().unwrap_or_default();
    assert!(
        name.starts_with("flowc-sink-postgres-table-") && name.len() == 42,
        "{name}"
    );
    assert_eq!(load["container"]["image"], "ghcr.io/acme/orders:1.4");
    assert_eq!(
        load["container"]["command"],
        json!(["python", "-m", "orders.load"])
    );
    let e = env(load);
    assert_eq!(e["LOG_LEVEL"], "info");
    assert_eq!(e["FLOW_PIPELINE"], "orders_daily");
    assert_eq!(e["FLOW_TASK"], "load_orders");
    assert_eq!(e["FLOW_INTERVAL_END"], "{{workflow.scheduledTime}}");
    assert_eq!(e["FLOW_SCHEDULE"], "0 2 * * *");
    assert_eq!(e["FLOW_TIMEZONE"], "Europe/Paris");
    assert_eq!(e["FLOW_RUN_ID"], "{{workflow.uid}}");
    assert_eq!(e["FLOW_ATTEMPT"], "{{=asInt(retries) + 1}}");

    let rollup = template(&doc, "task-rollup");
    assert_eq!(
        rollup["retryStrategy"]["expression"],
        "asInt(lastRetry.exitCode) == 75"
    );
    assert_eq!(rollup["container"]["image"], "ghcr.io/acme/rollup:2.0");
}

#[test]
fn manual_workflow_has_no_retry_variables_without_a_retry_strategy() {
    let doc = parse(&render_one(&manual_backfill(), ArgoKind::Auto));
    assert_eq!(doc["kind"], "Workflow");
    assert_eq!(doc["metadata"]["name"], "manual-backfill");
    let dag = &template(&doc, "main")["dag"]["tasks"];
    assert_eq!(dag[3]["depends"], "clean && enrich");
    for t in templates(&doc)
        .iter()
        .filter(|t| t.get("container").is_some())
    {
        assert!(t.get("retryStrategy").is_none());
        let e = env(t);
        // Argo defines `retries` only in a template with a retryStrategy.
        assert_eq!(e["FLOW_ATTEMPT"], "1");
        assert_eq!(e["FLOW_INTERVAL_END"], "{{workflow.creationTimestamp}}");
        assert!(!e.contains_key("FLOW_SCHEDULE"));
    }
    let publish = template(&doc, "task-publish");
    // Two sinks, two mutexes, sorted.
    let names: Vec<&str> = publish["synchronization"]["mutexes"]
        .as_array()
        .expect("mutexes")
        .iter()
        .filter_map(|m| m["name"].as_str())
        .collect();
    assert!(
        names.len() == 2
            && names[0] < names[1]
            && names.iter().all(|n| n.starts_with("flowc-sink-")),
        "{names:?}"
    );
}

#[test]
fn template_kind_and_catchup_annotation() {
    let doc = parse(&render_one(&orders_daily(), ArgoKind::Template));
    assert_eq!(doc["kind"], "WorkflowTemplate");
    assert!(doc["spec"].get("schedules").is_none());
    let doc = parse(&render_one(&hourly_catchup(), ArgoKind::Auto));
    assert_eq!(doc["spec"]["schedules"], json!(["@hourly"]));
    assert!(doc["metadata"]["annotations"]["flowc.dev/catchup"]
        .as_str()
        .expect("catchup annotation")
        .contains("no catch-up"));
}

// ---------------------------------------------------------------- hostile strings

const HOSTILE: [&str; 22] = [
    "yes",
    "on",
    "No",
    "0755",
    "0x1F",
    "1e3",
    "~",
    "null",
    "key: value",
    "*alias",
    "&anchor",
    "!!python/object:os.system",
    "- dash",
    "# hash",
    "line\nbreak\r\n\ttab",
    "quote \" and backslash \\",
    "'single'",
    "$(HOME) and $$ and $",
    "héllo, wörld ✓ 😀",
    "\u{85}nel\u{2028}ls\u{2029}ps\u{feff}bom\u{7f}del",
    "[flow, seq]",
    "{a: b} % @ ` |",
];

/// What Kubernetes does to `command`, `args` and env values: `$$` becomes
/// `$`, `$(NAME)` becomes the variable when it is defined (here: never), any
/// other `$` stays.
fn kubernetes_expand(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek() == Some(&'$') {
            chars.next();
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

fn hostile_pipeline() -> Pipeline {
    let mut t = task("hostile", &[]);
    t.image = Some("registry.example.com:5000/x/y@sha256:00 # not a comment".into());
    t.command = HOSTILE.iter().map(|s| (*s).to_owned()).collect();
    t.env = HOSTILE
        .iter()
        .enumerate()
        .map(|(i, v)| EnvVar {
            name: format!("V{i}"),
            value: (*v).to_owned(),
        })
        .collect();
    let mut p = manual("hostile", vec![t]);
    p.source_file = "weird dir/\"quoted\"\nnew line: yes # x\u{2028}.flow".into();
    p
}

fn check_hostile(doc: &Value) {
    let t = template(doc, "task-hostile");
    assert_eq!(
        t["container"]["image"],
        "registry.example.com:5000/x/y@sha256:00 # not a comment"
    );
    let command: Vec<String> = t["container"]["command"]
        .as_array()
        .expect("command")
        .iter()
        .map(|v| kubernetes_expand(v.as_str().expect("a string, never a bool or number")))
        .collect();
    assert_eq!(command, HOSTILE);
    let e = env(t);
    for (i, v) in HOSTILE.iter().enumerate() {
        assert_eq!(kubernetes_expand(&e[&format!("V{i}")]), *v);
    }
    assert_eq!(e["FLOW_TASK"], "hostile");
}

#[test]
fn hostile_strings_survive_a_yaml_round_trip() {
    let yaml = render_one(&hostile_pipeline(), ArgoKind::Auto);
    // The header comments stay two lines whatever the source path holds.
    assert!(yaml
        .lines()
        .next()
        .expect("header")
        .starts_with("# Generated by flowc for argo"));
    assert!(yaml
        .lines()
        .nth(1)
        .expect("line 2")
        .starts_with("# Source \""));
    assert!(yaml
        .lines()
        .nth(2)
        .expect("line 3")
        .starts_with("apiVersion:"));
    let doc = parse(&yaml);
    check_hostile(&doc);
    // The `$` doubling is real: without the expansion the strings differ.
    let t = template(&doc, "task-hostile");
    assert_ne!(t["container"]["env"][17]["value"], HOSTILE[17]);
}

/// `PyYAML` reads YAML 1.1 (where `yes`, `on` and `0755` are not strings when
/// plain). Runs only where `PyYAML` is installed; cargo test never needs it.
#[test]
fn hostile_strings_survive_pyyaml_when_available() {
    let has_pyyaml = std::process::Command::new("python3")
        .args(["-c", "import yaml"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_pyyaml {
        eprintln!("PyYAML not available: skipping the YAML 1.1 re-parse");
        return;
    }
    let yaml = render_one(&hostile_pipeline(), ArgoKind::Auto);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("hostile.yaml");
    std::fs::write(&path, &yaml).expect("write");
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import json, sys, yaml\n\
             doc = yaml.safe_load(open(sys.argv[1], encoding='utf-8'))\n\
             sys.stdout.write(json.dumps(doc))",
        ])
        .arg(&path)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    check_hostile(&doc);
    assert_eq!(doc, parse(&yaml));
}

// ---------------------------------------------------------------- schema

const SCHEMA_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/data/argo-workflows-schema.strict.json"
);

static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    let text =
        std::fs::read_to_string(SCHEMA_PATH).unwrap_or_else(|e| panic!("read {SCHEMA_PATH}: {e}"));
    serde_json::from_str(&text).expect("schema is JSON")
});

/// A validator of one top-level Argo kind: the schema's definitions with a
/// root `$ref` to the kind instead of the schema's `oneOf`.
fn validator(kind: &str) -> jsonschema::Validator {
    let mut wrapper = SCHEMA.clone();
    let root = wrapper.as_object_mut().expect("schema object");
    root.remove("oneOf");
    root.remove("type");
    root.insert(
        "$ref".into(),
        json!(format!(
            "#/definitions/io.argoproj.workflow.v1alpha1.{kind}"
        )),
    );
    jsonschema::options()
        .build(&wrapper)
        .unwrap_or_else(|e| panic!("schema for {kind} compiles: {e}"))
}

static CRON: LazyLock<jsonschema::Validator> = LazyLock::new(|| validator("CronWorkflow"));
static WORKFLOW: LazyLock<jsonschema::Validator> = LazyLock::new(|| validator("Workflow"));
static TEMPLATE: LazyLock<jsonschema::Validator> = LazyLock::new(|| validator("WorkflowTemplate"));

fn errors(doc: &Value) -> Vec<String> {
    let v: &jsonschema::Validator = match doc["kind"].as_str() {
        Some("CronWorkflow") => &CRON,
        Some("Workflow") => &WORKFLOW,
        Some("WorkflowTemplate") => &TEMPLATE,
        other => panic!("unexpected kind {other:?}"),
    };
    v.iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn generated_documents_validate_against_the_strict_schema() {
    for kind in [ArgoKind::Auto, ArgoKind::Template] {
        let all = [
            orders_daily(),
            manual_backfill(),
            hourly_catchup(),
            hostile_pipeline(),
        ];
        for file in generate(&all, kind).expect("no problems") {
            let doc = parse(&file.text());
            let errs = errors(&doc);
            assert!(errs.is_empty(), "{} ({kind:?}): {errs:#?}", file.path);
        }
    }
}

#[test]
fn validator_rejects_broken_documents() {
    let good = parse(&render_one(&orders_daily(), ArgoKind::Auto));
    assert!(errors(&good).is_empty());

    let mut misspelled = good.clone();
    let t = &mut misspelled["spec"]["workflowSpec"]["templates"][1]["retryStrategy"];
    let limit = t["limit"].take();
    t.as_object_mut().expect("retryStrategy").remove("limit");
    t["limitt"] = limit;
    assert!(!errors(&misspelled).is_empty(), "`limitt` must fail");

    let mut old_schedule = good.clone();
    old_schedule["spec"]["schedule"] = json!("0 2 * * *");
    assert!(
        !errors(&old_schedule).is_empty(),
        "Argo 3 `schedule` must fail"
    );

    let mut no_schedules = good.clone();
    no_schedules["spec"]
        .as_object_mut()
        .expect("spec")
        .remove("schedules");
    assert!(
        !errors(&no_schedules).is_empty(),
        "missing `schedules` must fail"
    );

    let mut old_mutex = good.clone();
    old_mutex["spec"]["workflowSpec"]["templates"][1]["synchronization"] =
        json!({"mutex": {"name": "flowc-sink-orders"}});
    assert!(!errors(&old_mutex).is_empty(), "Argo 3 `mutex` must fail");

    let mut bool_image = good;
    bool_image["spec"]["workflowSpec"]["templates"][1]["container"]["image"] = json!(true);
    assert!(
        !errors(&bool_image).is_empty(),
        "a non-string image must fail"
    );
}

// ---------------------------------------------------------------- problems

#[test]
fn fl801_names_every_task_without_an_image() {
    let mut a = task("a", &[]);
    a.image = None;
    let mut b = task("b", &["a"]);
    b.image = None;
    let c = task("c", &["b"]);
    let mut p = manual("no_image", vec![a, b, c]);
    p.image = None;
    let found = problems(&[p], ArgoKind::Auto);
    let fl801: Vec<_> = found.iter().filter(|p| p.code == "FL801").collect();
    assert_eq!(fl801.len(), 2, "{found:#?}");
    assert_eq!(fl801[0].task.as_deref(), Some("a"));
    assert_eq!(fl801[1].task.as_deref(), Some("b"));
    assert!(fl801[0].message.contains("`a`"));
    assert!(fl801[0].help.contains("image"));
}

#[test]
fn fl802_names_each_string_with_argo_braces() {
    let mut t = task("braces", &[]);
    t.command = vec!["echo".into(), "{{workflow.name}}".into()];
    t.env = vec![EnvVar {
        name: "TPL".into(),
        value: "a{{=1}}".into(),
    }];
    t.image = Some("img:{{tag}}".into());
    let mut ok = task("single_braces_are_fine", &[]);
    ok.command = vec!["echo".into(), "{a} }} {".into()];
    let found = problems(&[manual("braces", vec![t, ok])], ArgoKind::Auto);
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(found
        .iter()
        .all(|p| p.code == "FL802" && p.task.as_deref() == Some("braces")));
    assert!(found[0].message.contains("img:{{tag}}"));
    assert!(found[1].message.contains("{{workflow.name}}"));
    assert!(found[2].message.contains("a{{=1}}"));
    assert!(found[0].help.contains("{{"));
}

#[test]
fn fl802_reserved_env_and_robfig_schedules() {
    let mut t = task("t", &[]);
    t.env = vec![EnvVar {
        name: "FLOW_ATTEMPT".into(),
        value: "9".into(),
    }];
    let found = problems(&[manual("reserved", vec![t])], ArgoKind::Auto);
    assert_eq!(found.len(), 1);
    assert!(found[0].message.contains("FLOW_ATTEMPT"));

    for (schedule, bad) in [
        ("0 2 * * 7", true),
        ("0 2 * * 5-7", true),
        ("0 2 * * 1#2", true),
        ("0 2 L * *", true),
        ("0 2 * JAN,jul SUN-WED", false),
        ("*/15 * * * 0", false),
        ("@daily", false),
    ] {
        let mut p = orders_daily();
        p.schedule = Some(self::schedule(schedule));
        let result = generate(&[p], ArgoKind::Auto);
        assert_eq!(result.is_err(), bad, "{schedule}: {result:?}");
    }
}

#[test]
fn fl803_reports_collisions_and_unconvertible_names() {
    // Two tasks that differ only in case.
    let found = problems(
        &[manual(
            "p",
            vec![task("Load_Orders", &[]), task("load_orders", &[])],
        )],
        ArgoKind::Auto,
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].code, "FL803");
    assert_eq!(found[0].task.as_deref(), Some("load_orders"));
    assert!(
        found[0].message.contains("`Load_Orders`") && found[0].message.contains("`load-orders`")
    );

    // Two pipelines that differ only in case.
    let found = problems(
        &[
            manual("Orders_Daily", vec![task("a", &[])]),
            manual("orders_daily", vec![task("a", &[])]),
        ],
        ArgoKind::Auto,
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].code, "FL803");
    assert!(found[0].message.contains("`orders-daily`"));

    // Names that cannot become DNS-1123 or Argo names.
    let found = problems(&[manual("_private", vec![task("_t", &[])])], ArgoKind::Auto);
    assert_eq!(
        found.iter().filter(|p| p.code == "FL803").count(),
        2,
        "{found:#?}"
    );
    assert!(found
        .iter()
        .any(|p| p.task.is_none() && p.message.contains("_private")));
    assert!(found.iter().any(|p| p.task.as_deref() == Some("_t")));

    // 53 characters: too long for a CronWorkflow, fine for a Workflow.
    let long = "a".repeat(53);
    let mut cron = orders_daily();
    cron.name.clone_from(&long);
    let found = problems(&[cron.clone()], ArgoKind::Auto);
    assert!(found[0].message.contains("more than 52"), "{found:#?}");
    assert!(generate(&[cron], ArgoKind::Template).is_ok());
    assert!(generate(&[manual(&long, vec![task("a", &[])])], ArgoKind::Auto).is_ok());
    assert!(generate(
        &[manual(&"a".repeat(64), vec![task("a", &[])])],
        ArgoKind::Auto
    )
    .is_err());
}

#[test]
fn a_pipeline_without_tasks_still_renders_a_valid_document() {
    let doc = parse(&render_one(&manual("empty", Vec::new()), ArgoKind::Auto));
    assert_eq!(template(&doc, "main")["dag"]["tasks"], json!([]));
    assert!(errors(&doc).is_empty(), "{:#?}", errors(&doc));
}

#[test]
fn fl802_for_braces_in_the_timezone() {
    let mut p = orders_daily();
    p.timezone = "Europe/{{Paris}}".into();
    let found = problems(&[p], ArgoKind::Auto);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].code, "FL802");
    assert!(found[0].task.is_none());
    assert!(found[0].message.contains("Europe/{{Paris}}"));
}

/// Values the language accepts but Argo cannot hold: `limit` and
/// `activeDeadlineSeconds` are 32-bit, a backoff is a Go duration.
#[test]
fn fl802_for_numbers_argo_cannot_hold() {
    let mut big = task("big", &[]);
    big.retries = u32::MAX;
    big.timeout_seconds = Some(u64::from(u32::MAX));
    big.retry_delay_seconds = 10_000_000_000;
    let mut edge = task("edge", &[]);
    edge.retries = i32::MAX as u32;
    edge.timeout_seconds = Some(i32::MAX as u64);
    edge.retry_delay_seconds = 9_223_372_036;
    let found = problems(&[manual("big", vec![big, edge])], ArgoKind::Auto);
    let said: Vec<(&str, Option<&str>, &str)> = found
        .iter()
        .map(|p| (p.code.as_str(), p.task.as_deref(), p.message.as_str()))
        .collect();
    assert_eq!(found.len(), 3, "{said:#?}");
    assert!(found
        .iter()
        .all(|p| p.code == "FL802" && p.task.as_deref() == Some("big")));
    assert!(
        found[0].message.contains("`retries 4294967295`"),
        "{said:#?}"
    );
    assert!(
        found[1].message.contains("timeout of 4294967295s"),
        "{said:#?}"
    );
    assert!(
        found[2].message.contains("10000000000s between retries"),
        "{said:#?}"
    );
}

/// An FL802 message is one line however the string is written, and a long
/// string is cut around its `{{`.
#[test]
fn fl802_shows_a_string_escaped_and_cut_to_one_line() {
    let mut t = task("t", &[]);
    let long = format!(
        "print(\"hi\")\n\t{}{{{{ ds }}}}{}",
        "x".repeat(80),
        "y".repeat(80)
    );
    t.command = vec!["python".into(), "-c".into(), long];
    let found = problems(&[manual("p", vec![t])], ArgoKind::Auto);
    assert_eq!(found.len(), 1, "{found:#?}");
    let m = &found[0].message;
    assert!(!m.contains('\n') && !m.contains('\t'), "{m}");
    assert!(m.contains("{{ ds }}"), "{m}");
    assert!(m.contains('…'), "{m}");
    assert!(m.chars().count() < 200, "{m}");
}

/// No process can be started with a NUL in its argv or env.
#[test]
fn fl802_for_a_nul_character() {
    let mut t = task("t", &[]);
    t.command = vec!["a\0b".into()];
    t.env = vec![EnvVar {
        name: "N".into(),
        value: "x\0y".into(),
    }];
    let found = problems(&[manual("p", vec![t])], ArgoKind::Auto);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found
        .iter()
        .all(|p| p.code == "FL802" && p.message.contains("NUL")));
}

#[test]
fn argo_kind_parses_the_cli_values() {
    assert_eq!("auto".parse::<ArgoKind>(), Ok(ArgoKind::Auto));
    assert_eq!("template".parse::<ArgoKind>(), Ok(ArgoKind::Template));
    let err = "cron".parse::<ArgoKind>().expect_err("unknown kind");
    assert!(
        err.contains("`cron`") && err.contains("`template`"),
        "{err}"
    );
}

/// Every example and every clean `tests/argo` pipeline, compiled from its
/// `.flow` file, validates against the strict schema in both kinds.
#[test]
fn every_example_compiles_to_a_valid_document() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut count = 0;
    for dir in ["examples", "tests/argo"] {
        let outcome = flowc::io::read::check_paths(&[root.join(dir)]).expect("folder exists");
        for &file in &outcome.roots {
            if outcome.file_has_errors(file) {
                continue;
            }
            let pipelines = flowc::codegen::lower::pipelines_of(&outcome, file);
            for kind in [ArgoKind::Auto, ArgoKind::Template] {
                let files = match generate(&pipelines, kind) {
                    Ok(files) => files,
                    // `tests/argo` also holds the FL80x cases; examples must all build.
                    Err(_) if dir == "tests/argo" => continue,
                    Err(p) => panic!("{}: {p:#?}", outcome.sources.path(file)),
                };
                for f in files {
                    let doc = parse(&f.text());
                    let errs = errors(&doc);
                    assert!(errs.is_empty(), "{} ({kind:?}): {errs:#?}", f.path);
                    count += 1;
                }
            }
        }
    }
    assert!(count >= 14, "only {count} documents validated");
}
