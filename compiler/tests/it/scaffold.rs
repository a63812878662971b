//! Snapshots of the Python scaffold generated from the fault-matrix IR fixtures,
//! and the problems `scaffold` reports for kinds with no runtime.

use flowc::codegen::ir::Pipeline;
use flowc::codegen::python;

fn fixture(name: &str) -> Vec<Pipeline> {
    let path = format!(
        "{}/../tests/fault/ir/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    serde_json::from_str(&text).expect("fixture is IR")
}

#[test]
fn generated_modules_match_snapshots() {
    for name in ["sqlite_modes", "sqlite_inputs", "delta_lease"] {
        let scaffold = python::generate(&fixture(name)).expect("fixtures have a runtime");
        for file in scaffold
            .rewrite
            .iter()
            .filter(|f| !f.path.starts_with("flowc_runtime/"))
        {
            insta::assert_snapshot!(file.path.replace('/', "__"), &file.contents);
        }
    }
}

#[test]
fn transforms_and_packages_are_create_only() {
    let scaffold = python::generate(&fixture("sqlite_modes")).expect("fixtures have a runtime");
    let create: Vec<&str> = scaffold
        .create_if_absent
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert!(create.contains(&"sq_modes/__init__.py"));
    assert!(create.contains(&"sq_modes/upsert_input_transform.py"));
    assert!(scaffold
        .rewrite
        .iter()
        .all(|f| !f.path.ends_with("_transform.py")));
    assert!(scaffold
        .rewrite
        .iter()
        .any(|f| f.path == "flowc_runtime/run.py"));
    let transform = scaffold
        .create_if_absent
        .iter()
        .find(|f| f.path == "sq_modes/upsert_input_transform.py")
        .expect("transform");
    insta::assert_snapshot!("upsert_input_transform", &transform.contents);
}

#[test]
fn the_first_transform_pairs_only_outputs_whose_terms_read_the_input() {
    let scaffold = python::generate(&fixture("sqlite_modes")).expect("fixtures have a runtime");
    let transform = |task: &str| {
        let path = format!("sq_modes/{task}_transform.py");
        let file = scaffold.create_if_absent.iter().find(|f| f.path == path);
        file.expect("transform").contents.clone()
    };
    // `replace partition day = interval.start`: the record itself; the emit keyed on `input.id`: a pair
    let replace = transform("replace_interval");
    assert!(
        replace.contains("\"sq_daily\": (row for row in rows),"),
        "{replace}"
    );
    assert!(
        replace.contains("\"sq_api\": ((row, dict(row)) for row in rows),"),
        "{replace}"
    );
    // a partition term, a ledger key and the input's hash read the input record
    for (task, output) in [
        ("replace_input", "sq_by_day"),
        ("ledger_hash", "sq_ledger_hash"),
    ] {
        let text = transform(task);
        assert!(
            text.contains(&format!(
                "\"{output}\": ((row, dict(row)) for row in rows),"
            )),
            "{text}"
        );
    }
    let plain = transform("replace_run");
    assert!(!plain.contains("dict(row)"), "{plain}");
}

#[test]
fn output_is_byte_identical_across_runs() {
    let a = python::generate(&fixture("sqlite_modes")).expect("ok");
    let b = python::generate(&fixture("sqlite_modes")).expect("ok");
    assert_eq!(a, b);
}

#[test]
fn kinds_without_a_runtime_are_fl805_naming_the_kind() {
    // user kinds (a `kind` declared in a `.flow` file) have no runtime
    let mut pipelines = fixture("sqlite_modes");
    "bigquery_table"
        .clone_into(&mut std::sync::Arc::make_mut(&mut pipelines[0].tasks[0].writes[0].sink).kind);
    "mainframe_dataset"
        .clone_into(&mut std::sync::Arc::make_mut(&mut pipelines[0].tasks[1].reads[0].source).kind);
    let problems = python::generate(&pipelines).expect_err("no runtime");
    assert!(problems.iter().all(|p| p.code == "FL805"));
    assert!(problems
        .iter()
        .any(|p| p.message.contains("`bigquery_table`")));
    assert!(problems
        .iter()
        .any(|p| p.message.contains("`mainframe_dataset`")));
    assert_eq!(problems[0].task.as_deref(), Some("upsert_input"));
    // The help says such kinds are analysis-only and where the protocol is
    // described for a task that implements it itself.
    let bq: Vec<_> = problems
        .iter()
        .filter(|p| {
            p.message.contains("`bigquery_table`") && p.message.contains("no Python runtime yet")
        })
        .collect();
    assert!(!bq.is_empty());
    for p in bq {
        assert!(
            p.help.contains("analysis-only") && p.help.contains("docs/targets/deploying.md"),
            "{}",
            p.help
        );
    }
}

/// `kafka_topic` and `iceberg_table` have runtimes: every read commit mode and
/// write mode of the Kafka and Iceberg fault cells scaffolds, with the commit
/// mode in the generated module and the Kafka and Iceberg modules in the runtime.
#[test]
fn kafka_and_iceberg_scaffold() {
    let dir = tempfile::tempdir().expect("tempdir");
    let flow = crate::common::repo_root().join("tests/fault/kafka_iceberg.flow");
    let out = crate::common::flowc()
        .args(["scaffold", "--lang", "python", "--out"])
        .arg(dir.path())
        .arg(&flow)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(!stdout.contains("FL805"), "{stdout}");
    let txn = std::fs::read_to_string(dir.path().join("kq/txn.py")).expect("module");
    assert!(txn.contains("commit=\"in_transaction\""), "{txn}");
    assert!(txn.contains("mode=\"transactional\""), "{txn}");
    let before = std::fs::read_to_string(dir.path().join("kq/before.py")).expect("module");
    assert!(before.contains("commit=\"before_write\""), "{before}");
    for file in [
        "kafka.py",
        "iceberg.py",
        "connectors/kafka_topic.py",
        "connectors/iceberg_table.py",
    ] {
        assert!(
            dir.path().join("flowc_runtime").join(file).is_file(),
            "{file}"
        );
    }
}

#[test]
fn module_follows_the_run_command() {
    let mut pipelines = fixture("sqlite_modes");
    pipelines[0].tasks[0].command = vec!["python3".into(), "-m".into(), "orders.load".into()];
    pipelines[0].tasks[1].command = vec!["/bin/run-it".into()];
    let scaffold = python::generate(&pipelines).expect("ok");
    let paths: Vec<&str> = scaffold.rewrite.iter().map(|f| f.path.as_str()).collect();
    assert!(paths.contains(&"orders/load.py"));
    assert!(paths.contains(&"sq_modes/upsert_interval.py"));
    let load = scaffold
        .rewrite
        .iter()
        .find(|f| f.path == "orders/load.py")
        .expect("module");
    assert!(load
        .contents
        .contains("from orders.load_transform import transform"));
}

#[test]
fn two_tasks_running_one_module_is_a_problem() {
    let mut pipelines = fixture("sqlite_modes");
    let command = pipelines[0].tasks[0].command.clone();
    pipelines[0].tasks[1].command = command;
    let problems = python::generate(&pipelines).expect_err("collision");
    assert_eq!(problems[0].code, "FL803");
}

/// A module Python cannot import (a keyword, a name that is not an
/// identifier) is FL802, whether the command names it with `-m` or it is the
/// `<pipeline>.<task>` fallback; nothing is written.
#[test]
fn modules_python_cannot_import_are_refused() {
    let cases: [(&str, Option<&str>, &str); 5] = [
        ("class.def", None, "`class` is a Python keyword"),
        ("my-pkg.load", None, "`my-pkg` is not a Python identifier"),
        ("1abc.x", None, "`1abc` is not a Python identifier"),
        ("ok.load", Some("def"), ""),
        ("", Some("def"), "`def` is a Python keyword"),
    ];
    for (module, pipeline_name, says) in cases {
        let mut pipelines = fixture("sqlite_modes");
        pipelines[0].tasks.truncate(1);
        if let Some(name) = pipeline_name {
            pipelines[0].name = name.to_owned();
        }
        pipelines[0].tasks[0].command = if module.is_empty() {
            vec!["./run.sh".to_owned()]
        } else {
            vec!["python".to_owned(), "-m".to_owned(), module.to_owned()]
        };
        match python::generate(&pipelines) {
            Ok(scaffold) => {
                assert!(says.is_empty(), "{module}: generated");
                let path = format!("{}.py", module.replace('.', "/"));
                assert!(scaffold.rewrite.iter().any(|f| f.path == path), "{module}");
            }
            Err(problems) => {
                assert!(!says.is_empty(), "{module}: {problems:#?}");
                assert_eq!(problems.len(), 1, "{problems:#?}");
                assert_eq!(problems[0].code, "FL802");
                assert!(
                    problems[0].message.contains(says),
                    "{}",
                    problems[0].message
                );
            }
        }
    }
}

/// One task's module may not be another's transform: `m.x_transform` is
/// where the transform of `m.x` goes. Alone, `m.x_transform` is fine.
#[test]
fn a_module_that_is_another_tasks_transform_is_fl803() {
    let mut pipelines = fixture("sqlite_modes");
    pipelines[0].tasks.truncate(2);
    pipelines[0].tasks[0].command = vec!["python".into(), "-m".into(), "m.x_transform".into()];
    pipelines[0].tasks[1].command = vec!["python".into(), "-m".into(), "m.x".into()];
    let problems = python::generate(&pipelines).expect_err("clash");
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert_eq!(problems[0].code, "FL803");
    assert!(
        problems[0].message.contains("`m.x_transform`"),
        "{}",
        problems[0].message
    );
    pipelines[0].tasks.truncate(1);
    let scaffold = python::generate(&pipelines).expect("one task");
    assert!(scaffold
        .rewrite
        .iter()
        .any(|f| f.path == "m/x_transform.py"));
    assert!(scaffold
        .create_if_absent
        .iter()
        .any(|f| f.path == "m/x_transform_transform.py"));
}

/// A generated package named like a module Python or the runtime imports
/// would hide it when the task runs from the output folder.
#[test]
fn a_module_that_would_hide_a_standard_module_is_refused() {
    for (module, refused) in [
        ("json.load", true),
        ("psycopg.x", true),
        ("obstore.load", true),
        ("jsonish.load", false),
    ] {
        let mut pipelines = fixture("sqlite_modes");
        pipelines[0].tasks.truncate(1);
        pipelines[0].tasks[0].command = vec!["python".into(), "-m".into(), module.into()];
        let result = python::generate(&pipelines);
        assert_eq!(result.is_err(), refused, "{module}: {result:#?}");
        if let Err(problems) = result {
            assert_eq!(problems[0].code, "FL802");
            assert!(
                problems[0].message.contains("would hide"),
                "{}",
                problems[0].message
            );
        }
    }
}

/// The module is what Python would run: `-m X`, `-mX`, after Python's own
/// options; a script's arguments are not Python's options.
#[test]
fn the_module_is_read_as_python_reads_its_options() {
    let module_of = |command: &[&str]| {
        let mut pipelines = fixture("sqlite_modes");
        pipelines[0].tasks.truncate(1);
        pipelines[0].tasks[0].command = command.iter().map(|s| (*s).to_owned()).collect();
        python::generate(&pipelines).map(|s| {
            s.rewrite
                .iter()
                .map(|f| f.path.clone())
                .find(|p| !p.starts_with("flowc_runtime/"))
                .unwrap_or_default()
        })
    };
    assert_eq!(
        module_of(&["python", "-u", "-W", "ignore", "-m", "a.b"])
            .ok()
            .as_deref(),
        Some("a/b.py")
    );
    assert_eq!(
        module_of(&["python3", "-ma.b"]).ok().as_deref(),
        Some("a/b.py")
    );
    assert_eq!(
        module_of(&["python", "job.py", "-mode", "x"])
            .ok()
            .as_deref(),
        Some("sq_modes/upsert_input.py")
    );
    let problems = module_of(&["python", "-m"]).expect_err("no module");
    assert!(
        problems[0]
            .message
            .contains("`-m` is not followed by a module"),
        "{}",
        problems[0].message
    );
}

/// A module may not also be the package another module sits in, nor be
/// `__init__` or `__main__`.
#[test]
fn a_module_that_is_also_a_package_or_a_dunder_is_refused() {
    let mut pipelines = fixture("sqlite_modes");
    pipelines[0].tasks.truncate(2);
    pipelines[0].tasks[0].command = vec!["python".into(), "-m".into(), "m.x".into()];
    pipelines[0].tasks[1].command = vec!["python".into(), "-m".into(), "m.x.y".into()];
    let problems = python::generate(&pipelines).expect_err("nested");
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert_eq!(problems[0].code, "FL803");
    assert!(
        problems[0].message.contains("package"),
        "{}",
        problems[0].message
    );
    for dunder in ["at.__init__", "__main__"] {
        pipelines[0].tasks.truncate(1);
        pipelines[0].tasks[0].command = vec!["python".into(), "-m".into(), dunder.into()];
        let problems = python::generate(&pipelines).expect_err("dunder");
        assert_eq!(problems[0].code, "FL802", "{dunder}");
    }
}

/// A `files` location on a scheme the Python runtime cannot reach is FL805 at
/// scaffold: a path it cannot read must never be listed as an empty folder. A
/// relative path, `file://` and the object stores `s3://`, `gs://` and
/// `az://` are not.
#[test]
fn a_files_path_on_an_unsupported_scheme_is_fl805() {
    let flow = |path: &str| {
        format!(
            "source raw: files {{\n  path \"{path}\"\n  immutable\n  identity id\n}}\n\nsink out: sqlite_table {{\n  table \"o\"\n  primary_key id\n}}\n\npipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n  timeout 10m\n\n  task t {{\n    read raw\n    key input.id\n    write out upsert\n    run command [\"python3\", \"-m\", \"p.t\"]\n  }}\n}}\n"
        )
    };
    for (path, refused) in [
        ("hdfs://lake/in/{interval.date}/", true),
        ("http://lake/in/", true),
        ("s3://lake/in/{interval.date}/", false),
        ("gs://lake/in/", false),
        ("az://lake/in/", false),
        ("S3://lake/in/", false),
        ("in/{interval.date}/", false),
        ("file:///data/in/", false),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("p.flow"), flow(path)).expect("write");
        let out = crate::common::flowc()
            .current_dir(dir.path())
            .args(["scaffold", "--lang", "python", "--out", "py", "p.flow"])
            .output()
            .expect("runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(stdout.contains("FL805"), refused, "{path}: {stdout}");
        assert_eq!(out.status.success(), !refused, "{path}: {stdout}");
        if refused {
            let scheme = path.split("://").next().unwrap_or_default();
            assert!(stdout.contains(&format!("`{scheme}://`")), "{stdout}");
            assert!(
                !dir.path().join("py").join("p").exists(),
                "nothing is written"
            );
        }
    }
}

/// Cursor reads have a runtime on `sqlite_table` and `postgres_table`
/// (flowc 0.3): no FL805, the cursor's column and range in the generated
/// module, and the runtime's cursor module written next to it.
#[test]
fn cursor_reads_scaffold_on_sqlite_and_postgres() {
    for (db, pipeline) in [("sqlite", "v3s"), ("postgres", "v3p")] {
        let dir = tempfile::tempdir().expect("tempdir");
        let flow = crate::common::repo_root().join(format!("tests/fault/v03_{db}.flow"));
        let out = crate::common::flowc()
            .args(["scaffold", "--lang", "python", "--out"])
            .arg(dir.path())
            .arg(&flow)
            .output()
            .expect("runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{db}: {stdout}");
        assert!(!stdout.contains("FL805"), "{db}: {stdout}");
        let module =
            std::fs::read_to_string(dir.path().join(format!("{pipeline}/cur_lookback.py")))
                .expect("module");
        assert!(
            module.contains("from flowc_runtime.spec import Cursor"),
            "{module}"
        );
        assert!(
            module.contains("cursor=Cursor(column=\"seq\", unique=False, lookback_seconds=None, lookback_count=2, inclusive=True)"),
            "{module}"
        );
        // a task without a cursor read imports nothing more
        let pinned =
            std::fs::read_to_string(dir.path().join(format!("{pipeline}/first_pinned.py")))
                .expect("module");
        assert!(!pinned.contains("Cursor"), "{pinned}");
        assert!(dir.path().join("flowc_runtime/cursors.py").exists());
    }
}
