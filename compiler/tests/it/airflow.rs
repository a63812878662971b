//! The Airflow target: snapshots of generated files, and a Python re-parse
//! of every output checking that names and strings survive exactly.

use std::path::Path;
use std::process::Command;

use crate::common::ir::{date, schedule};
use flowc::codegen::ir::{EnvVar, Pipeline, Task};
use flowc::codegen::{airflow, GeneratedFile};
use flowc::vocab::OnAmbiguous;

fn task(name: &str, upstream: &[&str], command: &[&str]) -> Task {
    Task {
        name: name.into(),
        upstream: upstream.iter().map(|s| (*s).into()).collect(),
        retries: 0,
        internal_retries: 0,
        retry_delay_seconds: 300,
        timeout_seconds: None,
        on_ambiguous: OnAmbiguous::Retry,
        image: None,
        command: command.iter().map(|s| (*s).into()).collect(),
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

fn env(pairs: &[(&str, &str)]) -> Vec<EnvVar> {
    pairs
        .iter()
        .map(|(n, v)| EnvVar {
            name: (*n).into(),
            value: (*v).into(),
        })
        .collect()
}

/// Scheduled, in a time zone, every task in a container.
fn scheduled_with_image() -> Pipeline {
    let image = "ghcr.io/acme/orders:1.4";
    let mut load = task("load_orders", &[], &["python", "-m", "orders.load"]);
    load.retries = 3;
    load.timeout_seconds = Some(1800);
    load.on_ambiguous = OnAmbiguous::Fail;
    load.image = Some(image.into());
    load.env = env(&[("ORDERS_DSN", "postgres://$USER@db/orders")]);
    let mut rollup = task(
        "rollup",
        &["load_orders"],
        &["python", "-m", "orders.rollup", "{{ds}}"],
    );
    rollup.retries = 3;
    rollup.retry_delay_seconds = 60;
    rollup.timeout_seconds = Some(1800);
    rollup.image = Some("ghcr.io/acme/rollup:2".into());
    let mut report = task(
        "report",
        &["load_orders", "rollup"],
        &["python", "-m", "orders.report"],
    );
    report.image = Some(image.into());
    Pipeline {
        name: "orders_daily".into(),
        source_file: "examples/orders.flow".into(),
        schedule: Some(schedule("0 2 * * *")),
        start: Some(date("2026-01-01")),
        timezone: "Europe/Paris".into(),
        catchup: true,
        state: flowc::codegen::ir::StateStore::default(),
        needs_state: false,
        pod: flowc::codegen::ir::Pod::default(),
        argo_ttl_seconds: None,
        argo_pod_gc: None,
        params: Vec::new(),
        image: Some(image.into()),
        tasks: vec![load, rollup, report],
    }
}

/// Manual, local processes.
fn manual_without_image() -> Pipeline {
    let mut extract = task("extract", &[], &["./extract.sh", "--since", "$LAST_RUN"]);
    extract.retries = 2;
    extract.retry_delay_seconds = 5;
    extract.env = env(&[("MODE", "full"), ("TEMPLATE", "{{ ds }} {% if x %}")]);
    let mut load = task("load", &["extract"], &["./load.sh"]);
    load.on_ambiguous = OnAmbiguous::Fail;
    load.timeout_seconds = Some(90);
    Pipeline {
        name: "adhoc_load".into(),
        source_file: "pipelines/adhoc.flow".into(),
        schedule: None,
        start: None,
        timezone: "UTC".into(),
        catchup: false,
        state: flowc::codegen::ir::StateStore::default(),
        needs_state: false,
        pod: flowc::codegen::ir::Pod::default(),
        argo_ttl_seconds: None,
        argo_pod_gc: None,
        params: Vec::new(),
        image: None,
        tasks: vec![extract, load],
    }
}

/// Task names that are Python keywords or names the template uses itself.
fn keyword_names() -> Pipeline {
    let names = [
        "class",
        "None",
        "def",
        "dag",
        "DAG",
        "flowc",
        "datetime",
        "task_class",
        "__init__",
        "match",
        "_",
    ];
    let mut tasks = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let upstream: Vec<&str> = if i == 0 { vec![] } else { vec![names[i - 1]] };
        tasks.push(task(name, &upstream, &["echo", name]));
    }
    Pipeline {
        name: "keywords".into(),
        source_file: "tests/keywords.flow".into(),
        schedule: Some(schedule("@daily")),
        start: Some(date("2026-03-29")),
        timezone: "America/New_York".into(),
        catchup: false,
        state: flowc::codegen::ir::StateStore::default(),
        needs_state: false,
        pod: flowc::codegen::ir::Pod::default(),
        argo_ttl_seconds: None,
        argo_pod_gc: None,
        params: Vec::new(),
        image: None,
        tasks,
    }
}

/// Strings full of what breaks naive quoting: quotes, backslashes, newlines,
/// Jinja and Argo braces, HTML specials, non-ASCII, emoji, controls.
fn nasty_strings() -> Pipeline {
    let nasty = [
        "it's \"quoted\"",
        "back\\slash\\",
        "line\nbreak\r\ncrlf\ttab",
        "{{ds}} {{ ti.try_number }}",
        "{% raw %}x{% endraw %} {# c #}",
        "a&b<c>&amp;'d'",
        "$HOME $(HOME) $$ `id`",
        "naïve café 東京 😀 \u{1F680}",
        "nul-ish \u{1} bell \u{7} del \u{7f} nel \u{85} ls \u{2028} ps \u{2029} bom \u{feff}",
        "\"\"\" ''' # not a comment",
        "",
    ];
    let mut local = task("local", &[], &nasty);
    local.env = nasty
        .iter()
        .enumerate()
        .map(|(i, v)| EnvVar {
            name: format!("V{i}"),
            value: (*v).into(),
        })
        .collect();
    let mut pod = task("pod", &["local"], &nasty);
    pod.image = Some("registry.example/ü:{{tag}}\"x".into());
    pod.env = env(&[("QUOTE", "\"'\\\n")]);
    Pipeline {
        name: "nasty".into(),
        source_file: "dir with \"quotes\"/new\nline {{x}} é.flow".into(),
        schedule: Some(schedule("*/5 * * * MON-FRI")),
        start: Some(date("2026-02-28")),
        timezone: "Asia/Tokyo".into(),
        catchup: false,
        state: flowc::codegen::ir::StateStore::default(),
        needs_state: false,
        pod: flowc::codegen::ir::Pod::default(),
        argo_ttl_seconds: None,
        argo_pod_gc: None,
        params: Vec::new(),
        image: None,
        tasks: vec![local, pod],
    }
}

fn generate(pipelines: &[Pipeline]) -> Vec<GeneratedFile> {
    airflow::generate(pipelines).expect("the pipelines are valid for Airflow")
}

fn contents(files: &[GeneratedFile], path: &str) -> String {
    files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no file {path}"))
        .text()
        .into_owned()
}

#[test]
fn snapshot_scheduled_with_image() {
    let files = generate(&[scheduled_with_image()]);
    insta::assert_snapshot!("orders_daily", contents(&files, "orders_daily.py"));
}

#[test]
fn snapshot_manual_without_image() {
    let files = generate(&[manual_without_image()]);
    insta::assert_snapshot!("adhoc_load", contents(&files, "adhoc_load.py"));
}

#[test]
fn snapshot_keyword_task_names() {
    let files = generate(&[keyword_names()]);
    insta::assert_snapshot!("keywords", contents(&files, "keywords.py"));
}

#[test]
fn operator_module_is_emitted_once_and_files_are_sorted() {
    let files = generate(&[
        scheduled_with_image(),
        manual_without_image(),
        keyword_names(),
    ]);
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "_flowc_airflow.py",
            "adhoc_load.py",
            "keywords.py",
            "orders_daily.py"
        ]
    );
    assert!(contents(&files, "_flowc_airflow.py")
        .starts_with("# -*- coding: utf-8 -*-\n# Generated by flowc for airflow."));
    assert!(generate(&[]).is_empty(), "no pipelines, no files");
}

#[test]
fn output_is_byte_identical_across_runs() {
    let input = [nasty_strings(), scheduled_with_image(), keyword_names()];
    assert_eq!(generate(&input), generate(&input));
}

#[test]
fn header_names_the_source_and_says_generated() {
    let files = generate(&[scheduled_with_image()]);
    let text = contents(&files, "orders_daily.py");
    let mut lines = text.lines();
    // Python reads a file's encoding from its first two lines: no user text there.
    assert_eq!(lines.next(), Some("# -*- coding: utf-8 -*-"));
    assert!(lines
        .next()
        .is_some_and(|l| l.starts_with("# Generated by flowc for airflow. Do not edit this file")));
    assert_eq!(
        lines.next(),
        Some("# `flowc build --target airflow` again.")
    );
    assert_eq!(
        lines.next(),
        Some("# Source \"examples/orders.flow\", pipeline \"orders_daily\".")
    );
}

/// A start date off the calendar cannot even be written in the IR: the
/// front end has checked it, and reading IR JSON checks it again.
#[test]
fn the_ir_holds_only_calendar_dates() {
    let mut json = serde_json::to_value(keyword_names()).expect("json");
    assert_eq!(json["start"], "2026-03-29");
    assert_eq!(json["schedule"]["cron"], "0 0 * * *");
    assert!(serde_json::from_value::<Pipeline>(json.clone()).is_ok());
    json["start"] = "2026-13-01".into();
    assert!(serde_json::from_value::<Pipeline>(json.clone()).is_err());
    json["start"] = "2026-02-29".into();
    assert!(serde_json::from_value::<Pipeline>(json).is_err());
}

#[test]
fn problems_instead_of_broken_files() {
    let mut clash = manual_without_image();
    clash.name = airflow::OPERATOR_MODULE.into();
    let mut bad_task = manual_without_image();
    bad_task.name = "bad_task".into();
    bad_task.tasks[0].name = "has space".into();
    bad_task.tasks[1].upstream = vec!["has space".into()];
    let twice = [manual_without_image(), manual_without_image()];

    let codes = |pipelines: &[Pipeline]| -> Vec<&'static str> {
        airflow::generate(pipelines)
            .expect_err("must be rejected")
            .iter()
            .map(|p| p.code.as_str())
            .collect()
    };
    assert_eq!(codes(&[clash]), ["FL803"]);
    assert_eq!(codes(&[bad_task]), ["FL802"]);
    assert_eq!(codes(&twice), ["FL803"]);

    // Values the language accepts that Python or Airflow cannot hold.
    let mut year_zero = keyword_names();
    year_zero.start = Some(date("0000-01-01"));
    assert_eq!(codes(&[year_zero]), ["FL802"]);
    let mut huge = manual_without_image();
    huge.tasks[0].timeout_seconds = Some(u64::from(u32::MAX) * 86_400);
    huge.tasks[0].retry_delay_seconds = 999_999_999 * 86_400 + 86_400;
    huge.tasks[0].retries = u32::MAX;
    assert_eq!(codes(&[huge]), ["FL802", "FL802", "FL802"]);
    let mut edge = manual_without_image();
    edge.tasks[0].timeout_seconds = Some(999_999_999 * 86_400 + 86_399);
    edge.tasks[0].retries = i32::MAX as u32;
    // A lease of 0s is no lease to Airflow; a NUL cannot reach a process;
    // the runtime's own variables would override the task's.
    let mut zero = manual_without_image();
    zero.tasks[0].timeout_seconds = Some(0);
    assert_eq!(codes(&[zero]), ["FL802"]);
    let mut nul = manual_without_image();
    nul.tasks[0].command = vec!["a\0b".into()];
    assert_eq!(codes(&[nul]), ["FL802"]);
    let mut reserved = manual_without_image();
    reserved.tasks[0].env = vec![EnvVar {
        name: "FLOW_TASK".into(),
        value: "mine".into(),
    }];
    assert_eq!(codes(&[reserved]), ["FL802"]);
    // Airflow's operator sets no `FLOW_SCHEDULE`, but the runtime reads it:
    // reserved there too, as is every `FLOWC_*` (issue 27, item 14).
    for name in ["FLOW_SCHEDULE", "FLOWC_STATE"] {
        let mut read = manual_without_image();
        read.tasks[0].env = vec![EnvVar {
            name: name.into(),
            value: "x".into(),
        }];
        assert_eq!(codes(&[read]), ["FL802"], "{name}");
    }
    // A user's own connection and token stay settable.
    let mut free = manual_without_image();
    free.tasks[0].env = vec![EnvVar {
        name: "FLOW_TOKEN_ALERTS".into(),
        value: "x".into(),
    }];
    assert!(airflow::generate(&[free]).is_ok());
    let mut first_year = keyword_names();
    first_year.start = Some(date("0001-01-01"));
    assert!(airflow::generate(&[edge, first_year]).is_ok());
}

/// Reads every generated DAG back with Python's `ast` (no Airflow needed),
/// evaluates the literals, and prints what each file says as JSON.
const READ_BACK: &str = r#"
import ast, json, sys

def lit(node):
    return ast.literal_eval(node)

out = {}
for path in sys.argv[1:]:
    source = open(path, encoding="utf-8").read()
    tree = ast.parse(source, filename=path)
    compile(tree, path, "exec")
    header = source.splitlines()[:4]
    with_node = next(n for n in tree.body if isinstance(n, ast.With))
    dag_call = with_node.items[0].context_expr
    dag = {k.arg: k.value for k in dag_call.keywords}
    info = {"header": header, "dag_id": lit(dag["dag_id"]), "catchup": lit(dag["catchup"])}
    schedule = dag["schedule"]
    if isinstance(schedule, ast.Call):
        info["cron"] = lit(schedule.args[0])
        info["timezone"] = lit(schedule.keywords[0].value)
    else:
        info["cron"] = lit(schedule)
    if "start_date" in dag:
        start = dag["start_date"]
        info["start"] = [lit(a) for a in start.args]
        info["start_tz"] = lit(start.keywords[0].value)
    tasks, var_to_id, edges = [], {}, {}
    for stmt in with_node.body:
        if isinstance(stmt, ast.Assign):
            (target,) = stmt.targets
            call = stmt.value
            kw = {k.arg: k.value for k in call.keywords}
            task = {"var": target.id, "operator": call.func.attr}
            for key in ("task_id", "command", "env", "image", "on_ambiguous", "retries"):
                if key in kw:
                    task[key] = lit(kw[key])
            for key in ("retry_delay", "execution_timeout"):
                if key in kw:
                    task[key] = lit(kw[key].keywords[0].value)
            assert target.id not in var_to_id, f"variable {target.id} assigned twice"
            var_to_id[target.id] = task["task_id"]
            tasks.append(task)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            assert call.func.attr == "set_upstream"
            down, ups = call.args
            edges[var_to_id[down.id]] = [var_to_id[u.id] for u in ups.elts]
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.BinOp):
            # `up >> down` or `[up, ...] >> down`
            assert isinstance(stmt.value.op, ast.RShift)
            ups, down = stmt.value.left, stmt.value.right
            ups = ups.elts if isinstance(ups, ast.List) else [ups]
            edges[var_to_id[down.id]] = [var_to_id[u.id] for u in ups]
    info["tasks"] = tasks
    info["edges"] = edges
    out[path.rsplit("/", 1)[-1]] = info
json.dump(out, sys.stdout, ensure_ascii=True)
"#;

fn python_read_back(dir: &Path, files: &[GeneratedFile]) -> serde_json::Value {
    let mut args = vec!["-c".to_owned(), READ_BACK.to_owned()];
    for file in files {
        std::fs::write(dir.join(&file.path), file.text().as_bytes()).expect("write generated file");
        if file.path != format!("{}.py", airflow::OPERATOR_MODULE) {
            args.push(dir.join(&file.path).to_string_lossy().into_owned());
        }
    }
    let output = Command::new("python3")
        .args(&args)
        .output()
        .expect("python3 must be installed to check Airflow output");
    assert!(
        output.status.success(),
        "python3 failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("python prints JSON")
}

#[test]
fn python_reads_back_every_name_and_string_exactly() {
    let mut empty = manual_without_image();
    empty.name = "no_tasks".into();
    empty.tasks.clear();
    let pipelines = [
        nasty_strings(),
        scheduled_with_image(),
        manual_without_image(),
        keyword_names(),
        empty,
    ];
    let files = generate(&pipelines);
    let dir = tempfile::tempdir().expect("temp dir");
    let seen = python_read_back(dir.path(), &files);

    for pipeline in &pipelines {
        let info = &seen[format!("{}.py", pipeline.name)];
        assert_eq!(info["dag_id"], pipeline.name.as_str());
        assert_eq!(info["catchup"], pipeline.catchup);
        let header = info["header"][3].as_str().expect("header line");
        assert_eq!(
            header,
            format!(
                "# Source {}, pipeline {}.",
                flowc::codegen::quote::python_str(&pipeline.source_file),
                flowc::codegen::quote::python_str(&pipeline.name)
            )
        );
        match &pipeline.schedule {
            None => {
                assert!(info["cron"].is_null());
                assert!(info.get("start").is_none());
            }
            Some(schedule) => {
                assert_eq!(info["cron"], schedule.cron.as_str());
                assert_eq!(info["timezone"], pipeline.timezone.as_str());
                assert_eq!(info["start_tz"], pipeline.timezone.as_str());
                let start = pipeline.start.expect("scheduled pipelines have a start");
                assert_eq!(
                    info["start"],
                    serde_json::json!([start.year(), start.month(), start.day()])
                );
            }
        }
        let tasks = info["tasks"].as_array().expect("tasks");
        assert_eq!(tasks.len(), pipeline.tasks.len());
        for (task, seen) in pipeline.tasks.iter().zip(tasks) {
            assert_eq!(seen["task_id"], task.name.as_str());
            assert_eq!(seen["command"], serde_json::json!(task.command));
            let env: serde_json::Map<String, serde_json::Value> = task
                .env
                .iter()
                .map(|e| (e.name.clone(), e.value.clone().into()))
                .collect();
            if env.is_empty() {
                // No `env={}` noise: the operator's default is empty.
                assert!(seen.get("env").is_none(), "{seen}");
            } else {
                assert_eq!(seen["env"], serde_json::Value::Object(env));
            }
            assert_eq!(seen["retries"], task.retries);
            assert_eq!(seen["retry_delay"], task.retry_delay_seconds);
            assert_eq!(
                seen.get("execution_timeout")
                    .and_then(serde_json::Value::as_u64),
                task.timeout_seconds
            );
            let on_ambiguous = match task.on_ambiguous {
                OnAmbiguous::Retry => "retry",
                OnAmbiguous::Fail => "fail",
            };
            assert_eq!(seen["on_ambiguous"], on_ambiguous);
            if let Some(image) = &task.image {
                assert_eq!(seen["image"], image.as_str());
                assert_eq!(seen["operator"], "FlowPodOperator");
            } else {
                assert!(seen.get("image").is_none());
                assert_eq!(seen["operator"], "FlowSubprocessOperator");
            }
            let upstream = &info["edges"][&task.name];
            if task.upstream.is_empty() {
                assert!(upstream.is_null(), "{} has no upstream", task.name);
            } else {
                assert_eq!(*upstream, serde_json::json!(task.upstream));
            }
        }
    }
    // Task variables equal the task id wherever Python allows it (ruff AIR001).
    let keywords = &seen["keywords.py"]["tasks"];
    let vars: Vec<(&str, &str)> = keywords
        .as_array()
        .expect("tasks")
        .iter()
        .map(|t| {
            (
                t["task_id"].as_str().expect("id"),
                t["var"].as_str().expect("var"),
            )
        })
        .collect();
    assert!(vars.contains(&("task_class", "task_class")));
    assert!(vars.contains(&("class", "task_class_2")));
    assert!(vars.contains(&("match", "match")));
    assert!(vars.contains(&("_", "_")));
    assert!(vars.contains(&("dag", "dag")));
    assert!(vars.contains(&("DAG", "task_DAG")));
}

#[test]
/// Correctness at size; the speed is measured by `scripts/bench` (Airflow,
/// 10k tasks) and `scripts/bench-dagbag`, not asserted here: a shared
/// machine is no stopwatch.
fn five_thousand_tasks_render_and_parse() {
    let mut tasks = Vec::new();
    for i in 0..5000 {
        let upstream = match i {
            0 => vec![],
            i if i % 50 == 0 => vec![format!("t{}", i - 50), format!("t{}", i - 1)],
            i => vec![format!("t{}", i - 1)],
        };
        let mut t = task(&format!("t{i}"), &[], &["run", "--part", &i.to_string()]);
        t.upstream = upstream;
        t.retries = 2;
        t.timeout_seconds = Some(600);
        tasks.push(t);
    }
    let pipeline = Pipeline {
        name: "big".into(),
        source_file: "big.flow".into(),
        schedule: Some(schedule("@hourly")),
        start: Some(date("2026-01-01")),
        timezone: "UTC".into(),
        catchup: false,
        state: flowc::codegen::ir::StateStore::default(),
        needs_state: false,
        pod: flowc::codegen::ir::Pod::default(),
        argo_ttl_seconds: None,
        argo_pod_gc: None,
        params: Vec::new(),
        image: None,
        tasks,
    };
    let files = generate(&[pipeline]);

    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("big.py");
    std::fs::write(&path, contents(&files, "big.py")).expect("write");
    let output = Command::new("python3")
        .args([
            "-c",
            "import ast, sys; t = ast.parse(open(sys.argv[1]).read()); print(len(t.body[-1].body))",
        ])
        .arg(&path)
        .output()
        .expect("python3");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // 5,000 assignments and 4,999 set_upstream lines inside the `with DAG` block.
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "9999");
}
