//! Issue 28 item 7: an effect emitted from a container needs its endpoint
//! there (FL808 at `check --target` and `build`), and an effect's `secret`
//! carries its token into pods (`FLOW_TOKEN_<NAME>`, the Secret's key
//! `token`, optional).

use flowc::check::{self, Input, NoImports, Outcome};
use flowc::codegen::{argo, lower, reach};
use flowc::diagnostic::Code;

fn outcome(src: &str) -> Outcome {
    check::check(
        vec![Input {
            path: "t.flow".into(),
            key: "t.flow".into(),
            bytes: src.as_bytes().to_vec(),
        }],
        &NoImports,
    )
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        crate::common::repo_root().join(format!("tests/fixtures/rules/FL808/{name}.flow")),
    )
    .expect("fixture")
}

/// The FL808 findings of `src` for Argo (every task in a container).
fn argo_fl808(src: &str) -> Vec<flowc::codegen::TargetProblem> {
    let o = outcome(src);
    assert!(
        !o.diagnostics
            .iter()
            .any(|d| d.severity == flowc::diagnostic::Severity::Error),
        "{:?}",
        o.diagnostics
    );
    argo::warnings(&lower::pipelines_of(&o, o.roots[0]))
        .into_iter()
        .filter(|p| p.code == Code::FL808)
        .collect()
}

fn flowc(dir: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let out = assert_cmd::Command::cargo_bin("flowc")
        .expect("binary builds")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn fl808_fixtures_check_with_and_without_the_warning_on_both_targets() {
    let root = crate::common::repo_root();
    for target in ["argo", "airflow"] {
        for (file, warns) in [("trigger", true), ("clean", false)] {
            let path = format!("tests/fixtures/rules/FL808/{file}.flow");
            let (ok, stdout, stderr) = flowc(&root, &["check", "--target", target, &path]);
            assert!(ok, "{target} {file}: {stdout}{stderr}");
            assert_eq!(stdout.contains("FL808"), warns, "{target} {file}: {stdout}");
            if warns {
                insta::assert_snapshot!(format!("fl808_trigger_check_{target}"), stdout);
            }
            // Plain `check` knows no target: never FL808.
            let (_, plain, _) = flowc(&root, &["check", &path]);
            assert!(!plain.contains("FL808"), "{plain}");
        }
    }
}

#[test]
fn fl808_is_reported_by_build_and_the_files_are_still_written() {
    let root = crate::common::repo_root();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let (ok, stdout, stderr) = flowc(
        &root,
        &[
            "build",
            "--target",
            "argo",
            "--out",
            out.to_str().expect("utf-8"),
            "tests/fixtures/rules/FL808/trigger.flow",
        ],
    );
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("FL808"), "{stdout}");
    assert!(stderr.contains("wrote 1 file"), "{stderr}");
}

#[test]
fn a_url_a_secret_or_an_env_reaches_the_endpoint() {
    let trigger = fixture("trigger");
    let found = argo_fl808(&trigger);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].message.contains("`emit loaded`") && found[0].message.contains("FLOW_CONN_LOADED"),
        "{}",
        found[0].message
    );
    assert_eq!(found[0].task.as_deref(), Some("load"));
    // Near misses: a secret, an env naming the variable, a kind with a `url`.
    let secret = trigger.replace(
        "  channel \"#data\"\n",
        "  channel \"#data\"\n  secret \"slack-alerts\"\n",
    );
    assert_ne!(secret, trigger);
    assert!(argo_fl808(&secret).is_empty());
    let env = trigger.replace(
        "    run           command",
        "    env {\n      FLOW_CONN_LOADED \"https://hooks.slack.invalid/services/x\"\n    }\n    run           command",
    );
    assert_ne!(env, trigger);
    assert!(argo_fl808(&env).is_empty(), "{:?}", argo_fl808(&env));
    let webhook = trigger.replace(
        "effect loaded: slack_message {\n  channel \"#data\"\n}",
        "effect loaded: webhook {\n  url \"https://hooks.example.com/loaded\"\n}",
    );
    assert_ne!(webhook, trigger);
    assert!(argo_fl808(&webhook).is_empty());
    // An env that names another effect's variable does not count.
    let other = trigger.replace(
        "    run           command",
        "    env {\n      FLOW_CONN_OTHER \"https://x.invalid\"\n    }\n    run           command",
    );
    assert_eq!(argo_fl808(&other).len(), 1);
}

#[test]
fn airflow_reports_only_tasks_that_run_in_pods() {
    let trigger = fixture("trigger");
    let pipelines = |src: &str| {
        let o = outcome(src);
        lower::pipelines_of(&o, o.roots[0])
    };
    let in_pod = |t: &flowc::codegen::ir::Task| {
        t.image.is_some() && t.airflow_executor.as_deref() != Some("local")
    };
    assert_eq!(
        reach::problems(&pipelines(&trigger), in_pod, "Airflow").len(),
        1
    );
    // The same task as a local process: the worker's environment or an
    // Airflow Connection gives it the URL.
    let local = trigger.replace(
        "  image     \"ghcr.io/acme/orders:1.4\"\n",
        "  image     \"ghcr.io/acme/orders:1.4\"\n  airflow_executor local\n",
    );
    assert_ne!(local, trigger);
    let root = crate::common::repo_root();
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("p.flow"), &local).expect("write");
    let (ok, stdout, stderr) = flowc(dir.path(), &["check", "--target", "airflow", "p.flow"]);
    assert!(ok, "{stdout}{stderr}");
    assert!(!stdout.contains("FL808"), "{stdout}");
    let (_, stdout, _) = flowc(
        &root,
        &[
            "check",
            "--target",
            "airflow",
            "tests/fixtures/rules/FL808/trigger.flow",
        ],
    );
    assert!(stdout.contains("FL808"), "{stdout}");
}

#[test]
fn an_allow_of_fl808_is_applied() {
    let trigger = fixture("trigger");
    let allowed = trigger.replace(
        "    run           command",
        "    allow         FL808 because \"the image sets FLOW_CONN_LOADED\"\n    run           command",
    );
    assert_ne!(allowed, trigger);
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("p.flow"), &allowed).expect("write");
    let (ok, stdout, stderr) = flowc(dir.path(), &["check", "--target", "argo", "p.flow"]);
    assert!(ok, "{stdout}{stderr}");
    assert!(
        !stdout.contains("⚠ task `load` runs in a container"),
        "{stdout}"
    );
    assert!(stdout.contains("0 warnings"), "{stdout}");
}

#[test]
fn an_effects_secret_carries_its_token_into_pods_on_both_targets() {
    let root = crate::common::repo_root();
    let dir = tempfile::tempdir().expect("tempdir");
    let argo_out = dir.path().join("argo");
    let airflow_out = dir.path().join("airflow");
    for (target, out) in [("argo", &argo_out), ("airflow", &airflow_out)] {
        let (ok, stdout, stderr) = flowc(
            &root,
            &[
                "build",
                "--target",
                target,
                "--out",
                out.to_str().expect("utf-8"),
                "tests/fixtures/rules/FL808/clean.flow",
            ],
        );
        assert!(ok, "{target}: {stdout}{stderr}");
    }
    let yaml = std::fs::read_to_string(argo_out.join("orders_daily.yaml")).expect("yaml");
    let token = "- name: \"FLOW_TOKEN_LOADED\"\n              valueFrom:\n                secretKeyRef:\n                  name: \"slack-data-alerts\"\n                  key: \"token\"\n                  optional: true\n";
    assert!(yaml.contains(token), "{yaml}");
    let url = "- name: \"FLOW_CONN_LOADED\"\n              valueFrom:\n                secretKeyRef:\n                  name: \"slack-data-alerts\"\n                  key: \"url\"\n";
    assert!(yaml.contains(url), "{yaml}");
    // A sink's secret carries no token: only effects have one.
    assert!(!yaml.contains("FLOW_TOKEN_ORDERS"), "{yaml}");
    let dag = std::fs::read_to_string(airflow_out.join("orders_daily.py")).expect("dag");
    assert!(
        dag.contains("\"FLOW_TOKEN_LOADED\": \"slack-data-alerts\""),
        "{dag}"
    );
    // As a local process the token is not an Airflow Connection.
    let local = fixture("clean").replace(
        "  image     \"ghcr.io/acme/orders:1.4\"\n",
        "  image     \"ghcr.io/acme/orders:1.4\"\n  airflow_executor local\n",
    );
    std::fs::write(dir.path().join("p.flow"), &local).expect("write");
    let (ok, stdout, stderr) = flowc(
        dir.path(),
        &["build", "--target", "airflow", "--out", "local", "p.flow"],
    );
    assert!(ok, "{stdout}{stderr}");
    let dag = std::fs::read_to_string(dir.path().join("local/orders_daily.py")).expect("dag");
    assert!(dag.contains("connections="), "{dag}");
    assert!(!dag.contains("FLOW_TOKEN_LOADED"), "{dag}");
}
