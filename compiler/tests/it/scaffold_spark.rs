//! `flowc scaffold --lang python` for tasks that run with `spark-submit` of a
//! Python application: the module sits where the application file is, runs
//! inside the Spark driver (`flowc_runtime.spark`), and what the Spark runtime
//! cannot run is FL805.

use crate::common;

use assert_cmd::Command;

fn flowc() -> Command {
    let mut c = Command::cargo_bin("flowc").expect("binary builds");
    c.current_dir(common::repo_root()).env("NO_COLOR", "1");
    c
}

const SOURCES: &str = "source raw: delta_table {\n  location \"raw\"\n  pin version\n  identity id\n  fields [id, day]\n}\n\nsink facts: iceberg_table {\n  table \"lake.facts\"\n}\n\n";

fn scaffold(flow: &str) -> (tempfile::TempDir, std::process::Output) {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("s.flow");
    std::fs::write(&file, flow).expect("write");
    let out = flowc()
        .args(["scaffold", "--lang", "python", "--out"])
        .arg(dir.path().join("out"))
        .arg(&file)
        .output()
        .expect("runs");
    (dir, out)
}

fn task(command: &str, body: &str) -> String {
    format!("{SOURCES}pipeline p {{\n  schedule \"@daily\"\n  start 2026-01-01\n  task t {{\n    timeout 30m\n    require none\n    read raw\n    write facts conditional_commit\n{body}    run command [{command}]\n  }}\n}}\n")
}

#[test]
fn a_spark_submit_of_a_python_file_gets_a_spark_module_where_the_file_is() {
    let (dir, out) = scaffold(&task(
        r#""spark-submit", "--master", "local[2]", "--conf", "x.py=1", "jobs/daily/load.py", "--day", "1""#,
        "",
    ));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let root = dir.path().join("out");
    let module = std::fs::read_to_string(root.join("jobs/daily/load.py")).expect("module");
    assert!(
        module.contains("from flowc_runtime.spark import main"),
        "{module}"
    );
    // the scaffold's folder goes first on sys.path: two levels above jobs/daily/load.py
    assert!(
        module.contains("Path(__file__).resolve().parents[2]"),
        "{module}"
    );
    assert!(module.contains("from jobs.daily.load_transform import transform"));
    let transform =
        std::fs::read_to_string(root.join("jobs/daily/load_transform.py")).expect("transform");
    assert!(transform.contains("def transform(ctx: JobContext, inputs: dict[str, Any])"));
    assert!(transform.contains("\"facts\": rows"), "{transform}");
    assert!(root.join("jobs/__init__.py").exists());
    for file in [
        "attempt.py",
        "session.py",
        "delta.py",
        "iceberg.py",
        "__init__.py",
    ] {
        assert!(
            root.join("flowc_runtime/spark").join(file).exists(),
            "{file}"
        );
    }
}

#[test]
fn a_python_module_and_a_jvm_application_keep_the_python_runtime() {
    for command in [
        r#""python", "-m", "p.t""#,
        r#""spark-submit", "--class", "acme.Load", "/opt/jobs/load.jar""#,
    ] {
        let (dir, out) = scaffold(&task(command, ""));
        assert_eq!(out.status.code(), Some(0), "{command}");
        let module =
            std::fs::read_to_string(dir.path().join("out/p/t.py")).expect("module at p/t.py");
        assert!(
            !module.contains("flowc_runtime.spark"),
            "{command}: {module}"
        );
    }
}

#[test]
fn what_the_spark_runtime_cannot_run_is_fl805_and_nothing_is_written() {
    let flow = format!(
        "source inbox: files {{\n  path \"in/{{interval.start}}/\"\n}}\n\nsink db: sqlite_table {{\n  table \"t\"\n  database \"x.db\"\n  primary_key (id)\n}}\n\neffect hook: webhook {{\n  url \"http://127.0.0.1:1/\"\n}}\n\n{}",
        task(
            r#""spark-submit", "job.py""#,
            "    read inbox pinned listing\n    write db upsert key input.id\n    emit hook via idempotency_key interval.start\n",
        )
    );
    let (dir, out) = scaffold(&flow);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("FL805"), "{text}");
    assert!(
        text.contains("kind `files` (read of `inbox`) has no Spark runtime"),
        "{text}"
    );
    assert!(
        text.contains("kind `sqlite_table` (write to `db`) has no Spark runtime"),
        "{text}"
    );
    assert!(
        text.contains("the emit of `hook` has no Spark runtime"),
        "{text}"
    );
    assert!(!dir.path().join("out/job.py").exists());
    // A near miss: the same kinds under `python -m` have a runtime.
    let python = flow.replace(r#""spark-submit", "job.py""#, r#""python", "-m", "p.t""#);
    let (_dir, out) = scaffold(&python);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
