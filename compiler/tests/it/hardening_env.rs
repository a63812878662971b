//! A task's `env` through the real binary (issue 27, item 14): the names the
//! runtime reads (`FLOW_*`, `FLOWC_*`, such as `FLOWC_STATE`) are refused by
//! every target (FL802), and a variable a connector reads for a declared
//! connection (`FLOW_CONN_*`, `PG*`, `AWS_*`) is warned about (FL011);
//! near misses beside each stay quiet.

use crate::common::{flowc, Run};

/// A pipeline whose task writes a `postgres_table` sink (its state store) and
/// reads `files`, with `env` lines `env`.
fn pipeline(env: &str) -> String {
    format!(
        "sink warehouse: postgres_table {{\n  table        \"analytics.orders\"\n  primary_key  order_id\n  secret       \"warehouse-url\"\n}}\n\nsource raw: files {{\n  path       \"s3://lake/raw/{{interval.start}}/\"\n  immutable\n  identity   order_id\n}}\n\npipeline orders_daily {{\n  schedule  \"@daily\"\n  start     2026-01-01\n  image     \"ghcr.io/acme/orders:1.4\"\n\n  task load_orders {{\n    read   raw pinned listing\n    write  warehouse upsert\n    key    input.order_id\n    env {{\n      {env}\n      LOG_LEVEL \"info\"\n    }}\n    run command [\"python\", \"-m\", \"orders.load\"]\n  }}\n}}\n"
    )
}

const CHECK: &[&str] = &["check", "--output-format", "concise"];

fn lines<'a>(out: &'a str, code: &str) -> Vec<&'a str> {
    out.lines()
        .filter(|l| l.contains(&format!(" {code} ")))
        .collect()
}

#[test]
fn fl802_reserves_the_names_the_runtime_reads_on_every_target() {
    for name in [
        "FLOWC_STATE",
        "FLOWC_ANYTHING",
        "FLOW_SCHEDULE",
        "FLOW_TIMEZONE",
        "FLOW_PARAM_DAY",
        "FLOW_FUTURE_KNOB",
    ] {
        let text = pipeline(&format!("{name} \"sqlite:///tmp/throwaway.db\""));
        for target in ["argo", "airflow"] {
            let Run {
                code, stdout: out, ..
            } = flowc()
                .project(&[("p.flow", &text)])
                .args(["build", "--target", target, "--out", "out"])
                .arg("p.flow")
                .run();
            assert!(
                code != Some(0)
                    && out.contains("FL802(unsafe-for-target)")
                    && out.contains(&format!("env `{name}` is ")),
                "{name} on {target}: exit {code:?}\n{out}"
            );
        }
    }
    // Near misses: the two families a user supplies, and look-alikes.
    for name in [
        "FLOW_TOKEN_ALERTS",
        "FLOW_CONN_WAREHOUSE",
        "FLOWC_BATCH_ROWS",
        "FLOWC_PROGRESS_SECONDS",
        "FLOWER",
        "flowc_state",
        "MY_FLOWC_STATE",
    ] {
        let text = pipeline(&format!("{name} \"x\""));
        for target in ["argo", "airflow"] {
            let Run { stdout: out, .. } = flowc()
                .project(&[("p.flow", &text)])
                .args(["build", "--target", target, "--out", "out"])
                .arg("p.flow")
                .run();
            assert!(!out.contains("FL802"), "{name} on {target}:\n{out}");
        }
    }
}

#[test]
fn fl011_warns_when_env_sets_what_a_connector_reads() {
    for (name, what) in [
        (
            "FLOW_CONN_WAREHOUSE",
            "sink `warehouse`, in place of its `secret`",
        ),
        ("FLOW_CONN_RAW", "source `raw`"),
        ("FLOW_CONN_NOWHERE", "no source, sink or effect has"),
        ("PGHOST", "libpq"),
        ("PGPASSFILE", "libpq"),
        ("AWS_ENDPOINT_URL", "object store"),
        ("AZURE_STORAGE_ACCOUNT_KEY", "object store"),
    ] {
        let Run {
            code, stdout: out, ..
        } = flowc()
            .project(&[("p.flow", &pipeline(&format!("{name} \"v\"")))])
            .args(CHECK)
            .arg("p.flow")
            .run();
        let found = lines(&out, "FL011");
        assert!(
            code == Some(0)
                && found.len() == 1
                && found[0].contains(name)
                && found[0].contains(what),
            "{name}: exit {code:?}\n{out}"
        );
    }
    // Near misses: no connector reads these names.
    for name in ["PG_HOST", "PAGER", "MY_AWS_KEY", "AWS_", "ORDERS_BATCH"] {
        let Run { stdout: out, .. } = flowc()
            .project(&[("p.flow", &pipeline(&format!("{name} \"v\"")))])
            .args(CHECK)
            .arg("p.flow")
            .run();
        assert!(lines(&out, "FL011").is_empty(), "{name}:\n{out}");
    }
    // A credential written in the file is FL010's alone.
    for env in [
        "PGPASSWORD \"hunter2\"",
        "FLOW_CONN_WAREHOUSE \"postgresql://u:pw@db/x\"",
    ] {
        let Run { stdout: out, .. } = flowc()
            .project(&[("p.flow", &pipeline(env))])
            .args(CHECK)
            .arg("p.flow")
            .run();
        assert!(
            lines(&out, "FL011").is_empty() && lines(&out, "FL010").len() == 1,
            "{env}:\n{out}"
        );
    }
    // A connector's variable in a task that reaches no system it is for.
    let only_postgres = pipeline("AWS_REGION \"eu-west-1\"")
        .replace("    read   raw pinned listing\n", "")
        .replace("key    input.order_id", "key    output.order_id");
    let Run { stdout: out, .. } = flowc()
        .project(&[("p.flow", &only_postgres)])
        .args(CHECK)
        .arg("p.flow")
        .run();
    assert!(lines(&out, "FL011").is_empty(), "{out}");
    let Run { stdout: out, .. } = flowc()
        .project(&[("p.flow", &only_postgres.replace("AWS_REGION", "PGHOST"))])
        .args(CHECK)
        .arg("p.flow")
        .run();
    assert_eq!(lines(&out, "FL011").len(), 1, "{out}");
}
