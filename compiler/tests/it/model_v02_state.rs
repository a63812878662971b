//! flowc 0.2: where a pipeline's state lives (`state NAME`, FL806) and when
//! a source's input is ready (`ready`). Each checker is shown refusing bad
//! input and accepting a near miss; the report, the IR and the Python
//! scaffold are read back for what they say.

use crate::common;
use crate::common::{flowc_in, Run};

/// Declarations every case shares: a `files` source, a `postgres_table`
/// source and sinks (whose kind has `state`), a `sqlite_table` sink (whose
/// kind has not) and an effect.
const DECLS: &str = r#"
source raw: files {
  path      "lake/raw/{interval.start}/"
  immutable
  identity  order_id
}

source billing: postgres_table {
  table     "billing.invoices"
  immutable
  identity  order_id
}

sink warehouse: postgres_table {
  table        "core.orders"
  primary_key  order_id
}

sink archive: postgres_table {
  table        "core.archive"
  primary_key  order_id
}

sink lite: sqlite_table {
  database     "orders.db"
  table        "orders"
  primary_key  order_id
}

effect hook: webhook {
  url  "https://hooks.example.com/orders"
}
"#;

/// A pipeline with `settings`, one task reading `read` and running
/// `python -m p.t`, and the task lines `body`.
fn pipeline(settings: &str, read: &str, body: &str) -> String {
    format!(
        "{DECLS}\npipeline p {{\n  schedule  \"@daily\"\n  start     2026-01-01\n{settings}\n  task t {{\n    read   {read}\n    key    input.order_id\n{body}\n    run    command [\"python\", \"-m\", \"p.t\"]\n  }}\n}}\n"
    )
}

/// A folder holding `p.flow` with `text`.
fn project(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("p.flow"), text).expect("write p.flow");
    dir
}

/// The codes `flowc check --format json` reports for `text`, but FL704
/// (the shared declarations a case does not use).
fn codes(text: &str) -> Vec<String> {
    let dir = project(text);
    let Run { stdout: out, .. } = flowc_in(dir.path())
        .args(["check", "--format", "json", "p.flow"])
        .run();
    let v: serde_json::Value = serde_json::from_str(&out).expect("check prints JSON");
    v["diagnostics"]
        .as_array()
        .expect("a list of diagnostics")
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default().to_owned())
        .filter(|c| c != "FL704")
        .collect()
}

/// The messages and helps of the findings with `code`.
fn findings(text: &str, code: &str) -> Vec<String> {
    let dir = project(text);
    let Run { stdout: out, .. } = flowc_in(dir.path())
        .args(["check", "--format", "json", "p.flow"])
        .run();
    let v: serde_json::Value = serde_json::from_str(&out).expect("check prints JSON");
    v["diagnostics"]
        .as_array()
        .expect("a list of diagnostics")
        .iter()
        .filter(|d| d["code"] == code)
        .map(|d| format!("{} | help: {}", d["message"], d["help"]))
        .collect()
}

/// The report's `state` object of the pipeline.
fn state_json(text: &str) -> serde_json::Value {
    let dir = project(text);
    let Run {
        code,
        stdout: out,
        stderr: err,
    } = flowc_in(dir.path())
        .args(["report", "--format", "json", "p.flow"])
        .run();
    assert_eq!(code, Some(0), "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("report prints JSON");
    v["pipelines"][0]["state"].clone()
}

fn human_report(text: &str) -> String {
    let dir = project(text);
    let Run {
        code,
        stdout: out,
        stderr: err,
    } = flowc_in(dir.path()).args(["report", "p.flow"]).run();
    assert_eq!(code, Some(0), "{out}{err}");
    out
}

const UPSERT_WAREHOUSE: &str = "    write  warehouse upsert";
const UPSERT_LITE: &str = "    write  lite upsert";

// ---- state NAME -------------------------------------------------------------------

#[test]
fn a_named_postgres_sink_is_the_store() {
    let text = pipeline("  state     archive", "raw pinned listing", UPSERT_LITE);
    assert!(codes(&text).is_empty(), "{:?}", codes(&text));
    assert_eq!(
        state_json(&text),
        serde_json::json!({"store": "postgres_table", "via": "archive"})
    );
    assert!(
        human_report(&text)
            .contains("  state: postgres_table of sink `archive` (named by `state`)\n"),
        "{}",
        human_report(&text)
    );
}

#[test]
fn without_state_the_first_written_sink_that_can_hold_it_is_the_store() {
    // `lite` is written first, but SQLite cannot hold state; `archive` is
    // the first written sink that can, though `warehouse` is declared first.
    let body = "    write  lite upsert\n    write  archive upsert\n    write  warehouse upsert";
    let text = pipeline("", "raw pinned listing", body);
    assert_eq!(
        state_json(&text),
        serde_json::json!({"store": "postgres_table", "via": "archive"})
    );
    assert!(human_report(&text).contains(
        "  state: postgres_table of sink `archive` (the first written sink that can hold it)\n"
    ));
}

#[test]
fn with_no_sink_that_can_hold_it_the_store_is_a_local_file() {
    let text = pipeline("", "raw pinned listing", UPSERT_LITE);
    assert_eq!(state_json(&text), serde_json::json!({"store": "local"}));
    assert!(human_report(&text).contains(
        "  state: a local SQLite file (durable only for tasks that run as local processes on one machine)\n"
    ));
}

#[test]
fn state_naming_a_source_an_effect_or_a_sqlite_sink_is_fl009() {
    for (name, words) in [
        ("billing", "`state billing`: source `billing` is not a sink"),
        ("hook", "`state hook`: effect `hook` is not a sink"),
        (
            "lite",
            "`state lite`: sink `lite` of kind `sqlite_table` cannot keep the pipeline's state",
        ),
    ] {
        let text = pipeline(&format!("  state     {name}"), "raw", UPSERT_WAREHOUSE);
        let found = findings(&text, "FL009");
        assert_eq!(found.len(), 1, "{name}: {found:?}");
        assert!(found[0].contains(words), "{name}: {found:?}");
        assert!(
            found[0].contains("such as `archive`"),
            "{name}: the help names a sink that can: {found:?}"
        );
    }
    // Near miss: a PostgreSQL sink.
    let text = pipeline("  state     warehouse", "raw", UPSERT_WAREHOUSE);
    assert!(codes(&text).is_empty(), "{:?}", codes(&text));
}

#[test]
fn state_naming_an_unknown_sink_is_fl702_with_the_closest_name() {
    let text = pipeline("  state     warehose", "raw", UPSERT_WAREHOUSE);
    let found = findings(&text, "FL702");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("unknown sink `warehose`; did you mean `warehouse`?"),
        "{found:?}"
    );
    // `state` takes a name, not a string.
    let text = pipeline("  state     \"warehouse\"", "raw", UPSERT_WAREHOUSE);
    assert_eq!(codes(&text), ["FL006"]);
}

#[test]
fn a_sink_used_only_by_state_is_used() {
    let with = pipeline("  state     archive", "raw", UPSERT_WAREHOUSE);
    let found = findings(&with, "FL704");
    assert!(!found.iter().any(|f| f.contains("`archive`")), "{found:?}");
    assert!(found.iter().any(|f| f.contains("`hook`")), "{found:?}");
    // Near miss: without the `state` line, `archive` (and the others no
    // task names) are unused.
    let without = pipeline("", "raw", UPSERT_WAREHOUSE);
    let found = findings(&without, "FL704");
    assert!(found.iter().any(|f| f.contains("`archive`")), "{found:?}");
}

// ---- FL806 ------------------------------------------------------------------------

/// `flowc check` and `flowc build --target airflow` of `text`: (check's
/// exit code, build's exit code, build's findings).
fn check_and_build(text: &str) -> (Option<i32>, Option<i32>, String) {
    let dir = project(text);
    let Run { code: checked, .. } = flowc_in(dir.path()).args(["check", "p.flow"]).run();
    let Run {
        code: built,
        stdout: out,
        stderr: err,
    } = flowc_in(dir.path())
        .args(["build", "--target", "airflow", "--out", "dags", "p.flow"])
        .run();
    (checked, built, format!("{out}{err}"))
}

#[test]
fn fl806_pins_in_a_local_file_behind_a_container() {
    let text = pipeline(
        "  image     \"ghcr.io/acme/orders:1.4\"",
        "raw pinned listing",
        UPSERT_LITE,
    );
    let (checked, built, out) = check_and_build(&text);
    assert_eq!(
        checked,
        Some(0),
        "check does not report a target error: {out}"
    );
    assert_eq!(built, Some(1), "{out}");
    assert!(out.contains("FL806"), "{out}");
    assert!(
        out.contains("keeps the pin of `read raw` (task `t`) in a local file"),
        "{out}"
    );
    // Every target refuses it, the IR included.
    for target in ["argo", "ir"] {
        let dir = project(&text);
        let Run {
            code,
            stdout: out,
            stderr: err,
        } = flowc_in(dir.path())
            .args(["build", "--target", target, "--out", "out", "p.flow"])
            .run();
        assert_eq!(code, Some(1), "{target}: {out}{err}");
        assert!(out.contains("FL806"), "{target}: {out}");
    }
    // A task's own image counts as well as the pipeline's.
    let text = pipeline(
        "",
        "raw pinned listing",
        "    write  lite upsert\n    run    image \"ghcr.io/acme/orders:1.4\" command [\"python\"]",
    )
    .replace("    run    command [\"python\", \"-m\", \"p.t\"]\n", "");
    let (_, built, out) = check_and_build(&text);
    assert_eq!(built, Some(1), "{out}");
    assert!(out.contains("FL806"), "{out}");
}

/// Issue 28 item 4: a pipeline whose state store is a Kafka sink (the first
/// written sink with `state`) has no durable state in a pod: the runtime keeps
/// it in the local file, so `build` says FL806 as for a local store.
#[test]
fn fl806_a_kafka_state_store_in_a_container() {
    let kafka = "sink events_out: kafka_topic {\n  topic  \"orders\"\n}\n";
    let image = "  image     \"ghcr.io/acme/orders:1.4\"\n  require   at_least_once";
    let text = format!(
        "{kafka}{}",
        pipeline(image, "raw pinned listing", "    write  events_out append")
    );
    let (checked, built, out) = check_and_build(&text);
    assert_eq!(checked, Some(0), "{out}");
    assert_eq!(built, Some(1), "{out}");
    assert!(
        out.contains("FL806")
            && out.contains(
                "`events_out` is a kafka_topic, where flowc's runtime cannot keep state yet"
            ),
        "{out}"
    );
    let dir = project(&text);
    let Run { stdout: report, .. } = flowc_in(dir.path()).args(["report", "p.flow"]).run();
    assert!(
        report.contains("state: a local SQLite file: its store is kafka_topic `events_out`"),
        "{report}"
    );
    // The JSON says where the state really goes, and which sink it stands in for.
    assert_eq!(
        state_json(&text),
        serde_json::json!({"store": "local", "instead_of": {"store": "kafka_topic", "via": "events_out"}})
    );
    // Near misses: the same pipeline as local processes; and in a container
    // with `state` naming a PostgreSQL sink.
    let local = format!(
        "{kafka}{}",
        pipeline(
            "  require   at_least_once",
            "raw pinned listing",
            "    write  events_out append"
        )
    );
    let (_, built, out) = check_and_build(&local);
    assert_eq!(built, Some(0), "{out}");
    let named = format!(
        "{kafka}{}",
        pipeline(
            &format!("{image}\n  state     archive"),
            "raw pinned listing",
            "    write  events_out append"
        )
    );
    let (_, built, out) = check_and_build(&named);
    assert_eq!(built, Some(0), "{out}");
    assert!(!out.contains("FL806"), "{out}");
}

#[test]
fn fl806_near_misses() {
    let image = "  image     \"ghcr.io/acme/orders:1.4\"";
    // An image, pins, and a written PostgreSQL sink keeps the state.
    let (_, built, out) = check_and_build(&pipeline(image, "raw pinned listing", UPSERT_WAREHOUSE));
    assert_eq!(built, Some(0), "{out}");
    // An image, pins, SQLite only, but `state` names a PostgreSQL sink.
    let (_, built, out) = check_and_build(&pipeline(
        &format!("{image}\n  state     archive"),
        "raw pinned listing",
        UPSERT_LITE,
    ));
    assert_eq!(built, Some(0), "{out}");
    // An image and a local store, but nothing to keep: no pin, no ledger,
    // no conditional commit, no outbox.
    let (_, built, out) = check_and_build(&pipeline(image, "raw unpinned", UPSERT_LITE));
    assert_eq!(built, Some(0), "{out}");
    assert!(!out.contains("FL806"), "{out}");
    // Pins in a local file, but the task runs as a local process.
    let (_, built, out) = check_and_build(&pipeline("", "raw pinned listing", UPSERT_LITE));
    assert_eq!(built, Some(0), "{out}");
}

#[test]
fn fl806_fixtures_fire_at_build_and_the_near_miss_does_not() {
    common::at_root();
    let root = common::repo_root();
    let out = tempfile::tempdir().expect("temp dir");
    let out_dir = out.path().to_str().expect("a UTF-8 temp path");
    let Run { code: checked, .. } = flowc_in(&root)
        .args(["check", "tests/fixtures/rules/FL806/trigger.flow"])
        .run();
    assert_eq!(checked, Some(0));
    let Run {
        code,
        stdout,
        stderr,
    } = flowc_in(&root)
        .args([
            "build",
            "--target",
            "airflow",
            "--out",
            out_dir,
            "tests/fixtures/rules/FL806/trigger.flow",
        ])
        .run();
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    let source = std::fs::read_to_string(root.join("tests/fixtures/rules/FL806/trigger.flow"))
        .unwrap_or_default();
    insta::assert_snapshot!(
        "FL806_no-durable-state",
        format!("SOURCE\n{source}\nHUMAN\n{stdout}")
    );
    let Run {
        code,
        stdout,
        stderr,
    } = flowc_in(&root)
        .args([
            "build",
            "--target",
            "airflow",
            "--out",
            out_dir,
            "tests/fixtures/rules/FL806/clean.flow",
        ])
        .run();
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(!stdout.contains("FL806"), "{stdout}");
}

// ---- what reaches the runtime -------------------------------------------------------

/// The module `flowc scaffold --lang python` generates for task `t`.
fn scaffolded(text: &str) -> String {
    let dir = project(text);
    let Run {
        code,
        stdout: out,
        stderr: err,
    } = flowc_in(dir.path())
        .args(["scaffold", "--lang", "python", "--out", "py", "p.flow"])
        .run();
    assert_eq!(code, Some(0), "{out}{err}");
    std::fs::read_to_string(dir.path().join("py/p/t.py")).expect("the task module")
}

#[test]
fn the_scaffold_hands_the_state_store_and_readiness_to_the_runtime() {
    let text = pipeline("  state     archive", "raw pinned listing", UPSERT_LITE).replace(
        "  identity  order_id\n}\n\nsource billing",
        "  identity  order_id\n  ready     marker \"_SUCCESS\"\n}\n\nsource billing",
    );
    let module = scaffolded(&text);
    assert!(
        module.contains("    state=StateStore(kind=\"postgres_table\", endpoint=Endpoint(\"archive\", \"postgres_table\", params={\"primary_key\": (\"order_id\",), \"table\": \"core.archive\"}, fields=None)),\n"),
        "{module}"
    );
    assert!(
        module.contains("            ready=\"marker\",\n            ready_marker=\"_SUCCESS\",\n"),
        "{module}"
    );
    assert!(
        module.contains("import Emit, Endpoint, Read, StateStore, Task"),
        "{module}"
    );
    // The local store, and the default of a `files` source.
    let module = scaffolded(&pipeline("", "raw pinned listing", UPSERT_LITE));
    assert!(
        module.contains("    state=StateStore(kind=\"local\", endpoint=None),\n"),
        "{module}"
    );
    assert!(
        module.contains("            ready=\"nonempty\",\n            ready_marker=None,\n"),
        "{module}"
    );
}

#[test]
fn the_ir_carries_the_state_store_and_readiness() {
    let text = pipeline("", "billing", UPSERT_WAREHOUSE);
    let dir = project(&text);
    let Run {
        code,
        stdout: out,
        stderr: err,
    } = flowc_in(dir.path())
        .args(["build", "--target", "ir", "--out", "ir", "p.flow"])
        .run();
    assert_eq!(code, Some(0), "{out}{err}");
    let ir: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("ir/p.ir.json")).expect("the IR"),
    )
    .expect("JSON");
    assert_eq!(ir["state"]["kind"], "postgres_table");
    assert_eq!(ir["state"]["endpoint"]["name"], "warehouse");
    assert_eq!(ir["state"]["named"], false);
    assert_eq!(ir["needs_state"], false, "an unpinned read keeps nothing");
    // A PostgreSQL source is always ready by default.
    assert_eq!(ir["tasks"][0]["reads"][0]["ready"], "always");
    assert_eq!(
        ir["tasks"][0]["reads"][0]["ready_marker"],
        serde_json::Value::Null
    );
}

// ---- ready ------------------------------------------------------------------------

/// The pipeline reading `raw` (a `files` source) and `billing` (a
/// `postgres_table` source), with `ready_raw` and `ready_billing` as their extra
/// lines.
fn with_ready(on_raw: &str, on_billing: &str) -> String {
    pipeline("", "raw\n    read   billing", UPSERT_WAREHOUSE)
        .replacen(
            "  identity  order_id\n}\n\nsource billing",
            &format!("  identity  order_id\n{on_raw}\n}}\n\nsource billing"),
            1,
        )
        .replacen(
            "  table     \"billing.invoices\"\n",
            &format!("  table     \"billing.invoices\"\n{on_billing}\n"),
            1,
        )
}

#[test]
fn ready_forms_accepted_where_they_apply() {
    for (raw, billing) in [
        ("  ready marker \"_SUCCESS\"", ""),
        ("  ready nonempty", ""),
        ("  ready always", "  ready always"),
    ] {
        let text = with_ready(raw, billing);
        assert!(
            codes(&text).is_empty(),
            "{raw} / {billing}: {:?}",
            codes(&text)
        );
    }
}

#[test]
fn ready_marker_and_nonempty_need_a_kind_that_lists_files() {
    for form in ["ready marker \"_SUCCESS\"", "ready nonempty"] {
        let text = with_ready("", &format!("  {form}"));
        let found = findings(&text, "FL003");
        assert_eq!(found.len(), 1, "{form}: {found:?}");
        assert!(
            found[0].contains("does not apply to source `billing`: kind `postgres_table` does not list an interval's files"),
            "{form}: {found:?}"
        );
        assert!(found[0].contains("write `ready always`"), "{found:?}");
    }
}

#[test]
fn ready_with_another_value_is_fl006_and_a_bad_marker_fl002() {
    for (form, code) in [
        ("ready sometimes", "FL006"),
        ("ready", "FL006"),
        ("ready marker", "FL006"),
        ("ready marker _SUCCESS", "FL006"),
        ("ready nonempty always", "FL006"),
        ("ready \"nonempty\"", "FL006"),
        ("ready marker \"\"", "FL002"),
        ("ready marker \"a/_SUCCESS\"", "FL002"),
    ] {
        let text = with_ready(&format!("  {form}"), "");
        assert_eq!(codes(&text), [code], "{form}");
        let words = if code == "FL006" {
            "`nonempty` or `always`, found "
        } else {
            "a ready marker is the name of one file in the interval's folder"
        };
        let found = findings(&text, code);
        assert!(found[0].contains(words), "{form}: {found:?}");
    }
}

#[test]
fn ready_on_a_sink_or_an_effect_is_fl003() {
    let text = pipeline("", "raw", UPSERT_WAREHOUSE).replacen(
        "  primary_key  order_id\n}\n\nsink archive",
        "  primary_key  order_id\n  ready        always\n}\n\nsink archive",
        1,
    );
    let found = findings(&text, "FL003");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("`ready` is not a property of sinks"),
        "{found:?}"
    );
    let text = pipeline("", "raw", UPSERT_WAREHOUSE).replacen(
        "  url  \"https://hooks.example.com/orders\"\n",
        "  url  \"https://hooks.example.com/orders\"\n  ready always\n",
        1,
    );
    let found = findings(&text, "FL003");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("`ready` is not a property of effects"),
        "{found:?}"
    );
}

#[test]
fn state_and_ready_survive_fmt() {
    let text = with_ready("  ready    marker   \"_SUCCESS\"", "").replacen(
        "  start     2026-01-01\n",
        "  start     2026-01-01\n  state archive\n",
        1,
    );
    let dir = project(&text);
    let Run {
        code,
        stdout: out,
        stderr: err,
    } = flowc_in(dir.path()).args(["fmt", "p.flow"]).run();
    assert_eq!(code, Some(0), "{out}{err}");
    let formatted = std::fs::read_to_string(dir.path().join("p.flow")).expect("p.flow");
    assert!(
        formatted.contains("  ready     marker \"_SUCCESS\"\n"),
        "{formatted}"
    );
    assert!(formatted.contains("  state     archive\n"), "{formatted}");
    assert!(codes(&formatted).is_empty(), "{:?}", codes(&formatted));
}

#[test]
fn state_in_a_task_is_fl003_pointing_at_the_pipeline() {
    let text = pipeline("", "raw", "    write  warehouse upsert\n    state  archive");
    let found = findings(&text, "FL003");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("`state` is a pipeline setting; move it to the pipeline"),
        "{found:?}"
    );
    // Near miss: the same line in the pipeline.
    let text = pipeline("  state     archive", "raw", UPSERT_WAREHOUSE);
    assert!(codes(&text).is_empty(), "{:?}", codes(&text));
}
