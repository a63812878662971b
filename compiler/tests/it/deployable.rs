//! flowc 0.2's deployable output: connections from the platform's secret
//! store (`secret "NAME"`), pod settings, `airflow_executor`, and the state
//! store's connection on every task. Each checker is shown refusing bad input
//! and accepting a near miss; the generated files are read back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::common;
use flowc::codegen::argo::{generate, ArgoKind};

/// A pipeline with `settings`, one task with `task` lines that upserts `out`.
fn file(settings: &str, task: &str) -> String {
    format!(
        r#"
sink out: postgres_table {{
  table        "core.out"
  primary_key  id
  secret       "out-db"
}}

pipeline p {{
  image  "ghcr.io/acme/job:1"
{settings}
  task t {{
    key    output.id
    write  out upsert
{task}
    run    command ["python", "-m", "job"]
  }}
}}
"#
    )
}

/// The codes `check` reports for `text`.
fn codes_of(text: &str) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("p.flow");
    std::fs::write(&path, text).expect("write");
    let o = flowc::io::read::check_paths(&[path]).expect("path exists");
    common::codes(&o).into_iter().map(str::to_owned).collect()
}

#[test]
fn pod_settings_refuse_what_kubernetes_refuses() {
    let bad = [
        ("  namespace \"Data_Jobs\"", "FL002"),
        ("  namespace 5", "FL006"),
        ("  namespace \"\"", "FL002"),
        (&format!("  namespace \"{}\"", "a".repeat(64)), "FL002"),
        ("  service_account \"runner..x\"", "FL002"),
        ("  resources { cpu \"half\" }", "FL002"),
        ("  resources { memory \"500m\" }", "FL002"),
        ("  resources { memory \"1GB\" }", "FL002"),
        ("  resources { gpu \"1\" }", "FL002"),
        ("  resources \"500m\"", "FL006"),
        ("  resources { cpu \"1\" cpu \"2\" }", "FL007"),
        ("  labels { \"team name\" \"x\" }", "FL002"),
        ("  labels { team \"has space\" }", "FL002"),
        ("  labels { \"Bad_Prefix/x\" \"y\" }", "FL002"),
        ("  annotations { \"-x\" \"free text is fine\" }", "FL002"),
        ("  image_pull_policy \"ifnotpresent\"", "FL002"),
        ("  image_pull_policy IfNotPresent", "FL006"),
        ("  airflow_executor celery", "FL006"),
        ("  argo_pod_gc \"OnFailure\"", "FL002"),
        ("  argo_ttl \"1d\"", "FL006"),
        ("  namespace \"a\"\n  namespace \"b\"", "FL007"),
    ];
    for (settings, code) in bad {
        let got = codes_of(&file(settings, ""));
        assert!(
            got.iter().any(|c| c == code),
            "{settings:?}: expected {code}, got {got:?}"
        );
        // The same line on a task is checked the same way (but the
        // pipeline-only Argo settings, which a task does not take).
        if !settings.contains("argo_") {
            let got = codes_of(&file("", &format!("  {settings}")));
            assert!(
                got.iter().any(|c| c == code),
                "task {settings:?}: expected {code}, got {got:?}"
            );
        }
    }
    let near_misses = [
        "  namespace \"data-jobs\"",
        "  service_account \"flowc.runner\"",
        "  resources { cpu \"0.5\" memory \"512Mi\" }",
        "  resources {\n    cpu     \"2\"\n    memory  \"1e9\"\n  }",
        "  labels { \"app.kubernetes.io/part-of\" \"billing\" team \"\" }",
        "  annotations { \"acme.io/owner\" \"Billing team <billing@acme.example>\" }",
        "  image_pull_policy \"IfNotPresent\"",
        "  airflow_executor local",
        "  airflow_executor kubernetes",
        "  argo_pod_gc \"OnWorkflowSuccess\"",
        "  argo_pod_gc none",
        "  argo_ttl 12h",
    ];
    for settings in near_misses {
        let got = codes_of(&file(settings, ""));
        assert!(got.is_empty(), "{settings:?}: {got:?}");
    }
    // The Argo settings are the pipeline's alone.
    let got = codes_of(&file("", "    argo_ttl 1d"));
    assert_eq!(got, ["FL003"], "{got:?}");
}

#[test]
fn a_secret_names_a_kubernetes_object() {
    let with = |secret: &str| {
        codes_of(&format!(
            "sink out: postgres_table {{\n  table \"t\"\n  primary_key id\n  secret {secret}\n}}\n\npipeline p {{\n  task t {{\n    key output.id\n    write out upsert\n    run command [\"x\"]\n  }}\n}}\n"
        ))
    };
    assert_eq!(with("\"warehouse-db\""), Vec::<String>::new());
    assert_eq!(with("\"Warehouse_DB\""), ["FL002"]);
    assert_eq!(with("warehouse"), ["FL006"]);
}

/// The IR of every pipeline of a repository file.
fn lowered(path: &str) -> Vec<flowc::codegen::ir::Pipeline> {
    let o = common::check(&[path]);
    assert!(!o.file_has_errors(o.roots[0]), "{}", common::human(&o));
    flowc::codegen::lower::pipelines_of(&o, o.roots[0])
}

/// Every container template of an Argo document, by template name.
fn containers(doc: &Value) -> BTreeMap<String, Value> {
    let spec = doc["spec"]
        .get("workflowSpec")
        .unwrap_or(&doc["spec"])
        .clone();
    spec["templates"]
        .as_array()
        .expect("templates")
        .iter()
        .filter(|t| t.get("container").is_some())
        .map(|t| (t["name"].as_str().expect("name").to_owned(), t.clone()))
        .collect()
}

#[test]
fn every_connection_reaches_argo_as_a_secret_key_ref() {
    for path in [
        "examples/invoices_deploy.flow",
        "tests/argo/deployable.flow",
    ] {
        let pipelines = lowered(path);
        let files = generate(&pipelines, ArgoKind::Auto).expect("builds");
        for (pipeline, file) in pipelines.iter().zip(&files) {
            let doc: Value = serde_norway::from_str(&file.text()).expect("YAML");
            let templates = containers(&doc);
            for task in &pipeline.tasks {
                let name = format!("task-{}", task.name.replace('_', "-"));
                let env = templates[&name]["container"]["env"]
                    .as_array()
                    .expect("env")
                    .clone();
                let from_secrets: BTreeMap<String, String> = env
                    .iter()
                    .filter(|e| e.get("valueFrom").is_some())
                    .map(|e| {
                        let r = &e["valueFrom"]["secretKeyRef"];
                        // A connection from the key `url`; an effect's
                        // token from the key `token`, which may be absent.
                        if e["name"]
                            .as_str()
                            .is_some_and(|n| n.starts_with("FLOW_TOKEN_"))
                        {
                            assert_eq!(r["key"], "token", "{e}");
                            assert_eq!(r["optional"], true, "{e}");
                        } else {
                            assert_eq!(r["key"], "url", "{e}");
                            assert!(r.get("optional").is_none(), "{e}");
                        }
                        assert!(e.get("value").is_none(), "{e}");
                        (
                            e["name"].as_str().expect("name").to_owned(),
                            r["name"].as_str().expect("secret").to_owned(),
                        )
                    })
                    .collect();
                // What the declarations say, independently of the IR's list.
                let mut expected = BTreeMap::new();
                let endpoints = task
                    .reads
                    .iter()
                    .map(|r| &r.source)
                    .chain(task.writes.iter().map(|w| &w.sink))
                    .chain(task.emits.iter().map(|e| &e.effect))
                    .chain(pipeline.state.endpoint.iter());
                for e in endpoints {
                    if let Some(s) = &e.secret {
                        expected.insert(format!("FLOW_CONN_{}", e.name.to_uppercase()), s.clone());
                    }
                }
                for e in task.emits.iter().map(|e| &e.effect) {
                    if let Some(s) = &e.secret {
                        expected.insert(format!("FLOW_TOKEN_{}", e.name.to_uppercase()), s.clone());
                    }
                }
                assert!(!expected.is_empty(), "{path}: {} has no secret", task.name);
                assert_eq!(from_secrets, expected, "{path}: {}", task.name);
                // No connection is written as a plain value.
                assert!(
                    env.iter().all(|e| !e["name"]
                        .as_str()
                        .is_some_and(|n| n.starts_with("FLOW_CONN_"))
                        || e.get("valueFrom").is_some()),
                    "{env:?}"
                );
            }
        }
    }
}

#[test]
fn the_state_store_connection_reaches_a_task_that_does_not_touch_it() {
    let pipelines = lowered("tests/argo/deployable.flow");
    let task = pipelines[0]
        .tasks
        .iter()
        .find(|t| t.name == "archive_old")
        .expect("task");
    assert!(task.writes.iter().all(|w| w.sink.name == "archive"));
    assert_eq!(
        task.secrets
            .iter()
            .map(|s| (s.name.as_str(), s.secret.as_str()))
            .collect::<Vec<_>>(),
        [("FLOW_CONN_WAREHOUSE", "warehouse-db")]
    );
}

#[test]
fn argo_carries_the_pod_settings() {
    let pipelines = lowered("tests/argo/deployable.flow");
    let files = generate(&pipelines, ArgoKind::Auto).expect("builds");
    let doc: Value = serde_norway::from_str(&files[0].text()).expect("YAML");
    assert_eq!(doc["metadata"]["namespace"], "orders");
    let spec = &doc["spec"]["workflowSpec"];
    assert_eq!(spec["serviceAccountName"], "orders-runner");
    assert_eq!(spec["podMetadata"]["labels"]["team"], "orders");
    assert_eq!(
        spec["podMetadata"]["annotations"]["acme.io/runbook"],
        "https://wiki.example.com/orders"
    );
    assert_eq!(spec["ttlStrategy"]["secondsAfterCompletion"], 172_800);
    assert!(spec.get("podGC").is_none(), "argo_pod_gc none: {spec}");
    let t = containers(&doc);
    let copy = &t["task-copy"];
    assert_eq!(copy["container"]["imagePullPolicy"], "Always");
    assert_eq!(copy["container"]["resources"]["requests"]["cpu"], "250m");
    assert_eq!(copy["container"]["resources"]["limits"]["cpu"], "250m");
    assert!(copy.get("serviceAccountName").is_none());
    // No labels of its own (the workflow's `podMetadata` has them); only
    // flowc's notes on the task.
    assert!(copy["metadata"].get("labels").is_none(), "{copy}");
    let notes = copy["metadata"]["annotations"]
        .as_object()
        .expect("annotations");
    assert!(notes.keys().all(|k| k.starts_with("flowc.dev/")), "{copy}");
    let archive = &t["task-archive-old"];
    assert_eq!(archive["serviceAccountName"], "orders-archiver");
    assert_eq!(archive["metadata"]["labels"]["tier"], "cold");
    assert_eq!(archive["metadata"]["labels"]["team"], "orders");
    assert_eq!(archive["container"]["resources"]["limits"]["memory"], "1Gi");
    // The defaults: a week, and successful pods removed.
    let files =
        generate(&lowered("examples/invoices_deploy.flow"), ArgoKind::Auto).expect("builds");
    let doc: Value = serde_norway::from_str(&files[0].text()).expect("YAML");
    let spec = &doc["spec"]["workflowSpec"];
    assert_eq!(spec["ttlStrategy"]["secondsAfterCompletion"], 604_800);
    assert_eq!(spec["podGC"]["strategy"], "OnPodSuccess");
}

#[test]
fn argo_refuses_a_task_namespace_of_its_own() {
    let text = file("  namespace \"jobs\"", "    namespace \"other\"");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("p.flow");
    std::fs::write(&path, &text).expect("write");
    let o = flowc::io::read::check_paths(&[path]).expect("exists");
    let pipelines = flowc::codegen::lower::pipelines_of(&o, o.roots[0]);
    let problems = generate(&pipelines, ArgoKind::Auto).expect_err("FL802");
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert_eq!(problems[0].code.as_str(), "FL802");
    assert!(
        problems[0].message.contains("`other`") && problems[0].message.contains("`jobs`"),
        "{}",
        problems[0].message
    );
    // Airflow starts each pod on its own, so it takes it.
    let files = flowc::codegen::airflow::generate(&pipelines).expect("airflow builds");
    assert!(files
        .iter()
        .any(|f| f.text().contains("namespace=\"other\"")));
    // The same namespace as the pipeline's is no problem.
    let text = file("  namespace \"jobs\"", "    namespace \"jobs\"");
    std::fs::write(dir.path().join("p.flow"), &text).expect("write");
    let o = flowc::io::read::check_paths(&[dir.path().join("p.flow")]).expect("exists");
    let pipelines = flowc::codegen::lower::pipelines_of(&o, o.roots[0]);
    assert!(generate(&pipelines, ArgoKind::Auto).is_ok());
}

/// `flowc build --target TARGET` of `paths` into `out`, with `env` set.
fn build(target: &str, out: &Path, paths: &[&str], env: &[(&str, &str)]) {
    let status = crate::common::flowc()
        .current_dir(common::repo_root())
        .args(["build", "--target", target, "--out"])
        .arg(out)
        .args(paths)
        .envs(env.iter().copied())
        .output()
        .expect("flowc runs");
    assert!(
        status.status.success(),
        "{target}: {}",
        String::from_utf8_lossy(&status.stderr)
    );
}

#[test]
fn airflow_executor_local_runs_a_process_on_airflow_and_a_pod_on_argo() {
    let pipelines = lowered("tests/airflow/connection.flow");
    let files = flowc::codegen::airflow::generate(&pipelines).expect("airflow");
    let dag = files
        .iter()
        .find(|f| f.path == "flowc_e2e_connection.py")
        .expect("DAG")
        .text();
    assert!(dag.contains("flowc.FlowSubprocessOperator("), "{dag}");
    assert!(!dag.contains("FlowPodOperator"), "{dag}");
    assert!(
        dag.contains(r#"connections={"FLOW_CONN_E2E_WAREHOUSE": "flowc-e2e-warehouse"},"#),
        "{dag}"
    );
    // The pod's settings do not reach a local process.
    assert!(
        !dag.contains("image=") && !dag.contains("namespace="),
        "{dag}"
    );
    let files = generate(&pipelines, ArgoKind::Auto).expect("argo");
    let doc: Value = serde_norway::from_str(&files[0].text()).expect("YAML");
    assert_eq!(doc["metadata"]["namespace"], "flowc-e2e");
    let t = containers(&doc);
    assert_eq!(
        t["task-write-interval"]["container"]["image"],
        "ghcr.io/acme/flowc-e2e:1"
    );
    // Without the setting, an image means a pod on Airflow as well.
    let files = flowc::codegen::airflow::generate(&lowered("examples/invoices_deploy.flow"))
        .expect("airflow");
    let dag = files
        .iter()
        .find(|f| f.path == "invoices_deploy.py")
        .expect("DAG")
        .text();
    assert_eq!(dag.matches("flowc.FlowPodOperator(").count(), 2, "{dag}");
    assert!(
        dag.contains(r#"service_account_name="flowc-invoices","#),
        "{dag}"
    );
    assert!(
        dag.contains(r#"container_resources={"cpu": "2", "memory": "2Gi"},"#),
        "{dag}"
    );
    assert!(
        dag.contains(r#"secrets={"FLOW_CONN_BILLING_INVOICES": "billing-db", "FLOW_CONN_WH_INVOICES": "warehouse-db"},"#),
        "{dag}"
    );
}

#[test]
fn airflow_executor_local_without_an_image_is_still_fl801_on_argo() {
    let text = "sink out: postgres_table {\n  table \"t\"\n  primary_key id\n}\n\npipeline p {\n  airflow_executor local\n  task t {\n    key output.id\n    write out upsert\n    run command [\"x\"]\n  }\n}\n";
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("p.flow");
    std::fs::write(&path, text).expect("write");
    let o = flowc::io::read::check_paths(&[path]).expect("exists");
    let pipelines = flowc::codegen::lower::pipelines_of(&o, o.roots[0]);
    let problems = generate(&pipelines, ArgoKind::Auto).expect_err("FL801");
    assert!(problems.iter().any(|p| p.code.as_str() == "FL801"));
    assert!(flowc::codegen::airflow::generate(&pipelines).is_ok());
}

/// A password the tests' secret stores would hold: it is in flowc's
/// environment while it builds, and must be in no file it writes.
const PASSWORD: &str = "Sup3r-S3cret-h16";

#[test]
fn no_secret_reaches_a_generated_file() {
    let url = format!("postgresql://loader:{PASSWORD}@db.internal:5432/warehouse");
    let env: Vec<(&str, &str)> = vec![
        ("FLOW_CONN_WH_INVOICES", &url),
        ("FLOW_CONN_BILLING_INVOICES", &url),
        ("FLOW_CONN_WAREHOUSE", &url),
        ("FLOWC_STATE", &url),
    ];
    let out = tempfile::tempdir().expect("temp dir");
    let paths = [
        "examples/invoices_deploy.flow",
        "tests/argo/deployable.flow",
    ];
    for target in ["airflow", "argo", "ir"] {
        build(target, &out.path().join(target), &paths, &env);
    }
    let status = crate::common::flowc()
        .current_dir(common::repo_root())
        .args(["scaffold", "--lang", "python", "--out"])
        .arg(out.path().join("py"))
        .args(paths)
        .envs(env.iter().copied())
        .output()
        .expect("flowc runs");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let mut seen = BTreeSet::new();
    let mut stack = vec![out.path().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let bytes = std::fs::read(&p).expect("read");
            let text = String::from_utf8_lossy(&bytes);
            assert!(
                !text.contains(PASSWORD),
                "{} holds the password",
                p.display()
            );
            seen.insert(p.strip_prefix(out.path()).expect("inside").to_path_buf());
        }
    }
    for target in ["airflow", "argo", "ir", "py"] {
        assert!(
            seen.iter().any(|p| p.starts_with(target)),
            "{target} wrote nothing: {seen:?}"
        );
    }
    // Each target names the secrets instead.
    let dag = std::fs::read_to_string(out.path().join("airflow/invoices_deploy.py")).expect("DAG");
    assert!(dag.contains("\"warehouse-db\""));
    let doc = std::fs::read_to_string(out.path().join("argo/invoices_deploy.yaml")).expect("doc");
    assert!(doc.contains("secretKeyRef"));
}

#[test]
fn the_ir_carries_the_new_settings_and_old_ir_still_reads() {
    let pipelines = lowered("tests/argo/deployable.flow");
    let json = serde_json::to_value(&pipelines[0]).expect("JSON");
    assert_eq!(json["pod"]["namespace"], "orders");
    assert_eq!(json["argo_ttl_seconds"], 172_800);
    assert_eq!(json["argo_pod_gc"], "none");
    assert_eq!(
        json["tasks"][1]["pod"]["service_account"],
        "orders-archiver"
    );
    let copy = &json["tasks"][0];
    assert_eq!(copy["reads"][0]["source"]["secret"], "shop-db");
    // IR written before these settings has none of the fields.
    let old = common::repo_root().join("tests/airflow/argv.ir.json");
    let text = std::fs::read_to_string(old).expect("fixture");
    assert!(!text.contains("\"pod\"") && !text.contains("secrets"));
    let back: flowc::codegen::ir::Pipeline = serde_json::from_str(&text).expect("old IR reads");
    assert!(back
        .tasks
        .iter()
        .all(|t| t.pod.is_empty() && t.secrets.is_empty()));
}
