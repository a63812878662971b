//! How generated files are headed and written, through the real binary: no
//! user text where Python reads a file's encoding, temporary files that a
//! planted link cannot redirect, no hand-written file overwritten, stale
//! outputs of a renamed pipeline removed, `fmt` keeping links and modes, no
//! half-written set of outputs, and headers that do not depend on the
//! working folder.

use crate::common::flowc_in;
use std::path::{Path, PathBuf};
use std::process::Command;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn write(path: &Path, contents: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, contents).expect("write");
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A project folder: a temporary folder with a `.git` folder in it, so it is
/// the project root of every `.flow` file under it.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    dir
}

/// A command string that UTF-7 would decode into `", <code>, "`.
fn hostile(marker: &str) -> String {
    format!("+ACI-, __import__(+ACI-os+ACI-).system(+ACI-touch {marker}+ACI-), +ACI-")
}

/// One pipeline, one task running `python -m orders.load`, writing to a
/// `SQLite` table: both its command and its table hold `hostile` text.
fn hostile_flow() -> String {
    format!(
        "sink results: sqlite_table {{\n  table        \"{table}\"\n  database     \"r.sqlite3\"\n  primary_key  (id)\n  fields       [id, v]\n}}\n\npipeline orders_daily {{\n  image \"img:1\"\n  task load {{\n    key    (output.id)\n    write  results upsert\n    run    command [\"python\", \"-m\", \"orders.load\", \"{command}\"]\n  }}\n}}\n",
        table = hostile("table-ran"),
        command = hostile("command-ran"),
    )
}

/// Python reads `path` from its bytes as it would import it: the first line
/// is the fixed UTF-8 declaration, the file compiles, and `needle` is a
/// string constant in its syntax tree (not code).
fn python_reads_as_literal(path: &Path, needle: &str) {
    let script = r##"
import ast, sys
path, needle = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
first = data.split(b"\n")[0]
assert first == b"# -*- coding: utf-8 -*-", first
tree = ast.parse(data)
compile(data, path, "exec")
found = [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and needle in n.value]
assert found, "the text is not a string literal"
calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "__import__"]
assert not calls, "__import__ is called"
"##;
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(path)
        .arg(needle)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}: {}",
        path.display(),
        text(&out.stderr)
    );
}

/// Every `*.py` file under `dir`.
fn python_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("folder") {
            let p = entry.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "py") {
                found.push(p);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn a_folder_named_like_an_encoding_cannot_change_how_python_reads_output() {
    for folder in [
        "coding:utf-7",
        "encoding=fast",
        "a\nimport os\r#",
        "b\u{2028}\u{85}\u{c}\u{1b}[2Jc",
    ] {
        let dir = project();
        let flow = format!("{folder}/p.flow");
        write(&dir.path().join(&flow), &hostile_flow());
        let built = flowc_in(dir.path())
            .args(["build", "--target", "airflow", "--out", "dags", &flow])
            .output()
            .expect("flowc runs");
        assert_eq!(built.status.code(), Some(0), "{built:?}");
        let scaffolded = flowc_in(dir.path())
            .args(["scaffold", "--lang", "python", "--out", "py", &flow])
            .output()
            .expect("flowc runs");
        assert_eq!(scaffolded.status.code(), Some(0), "{scaffolded:?}");

        let dag = dir.path().join("dags/orders_daily.py");
        python_reads_as_literal(
            &dag,
            "__import__(+ACI-os+ACI-).system(+ACI-touch command-ran",
        );
        python_reads_as_literal(
            &dir.path().join("py/orders/load.py"),
            "__import__(+ACI-os+ACI-).system(+ACI-touch table-ran",
        );
        // Every generated Python file starts with the fixed declaration and
        // holds no user text on its first two lines.
        for file in python_files(&dir.path().join("dags"))
            .into_iter()
            .chain(python_files(&dir.path().join("py")))
        {
            let body = read(&file);
            if body.is_empty() {
                continue; // a package's `__init__.py`
            }
            let mut lines = body.lines();
            assert_eq!(
                lines.next(),
                Some("# -*- coding: utf-8 -*-"),
                "{}",
                file.display()
            );
            let second = lines.next().unwrap_or_default();
            assert!(
                !second.contains("coding") && !second.contains("p.flow"),
                "{}: {second}",
                file.display()
            );
            // No line is cut by a line break in the path: the path is only
            // ever inside a comment, and no raw CR is written.
            assert!(!body.contains('\r'), "{}", file.display());
            // Elsewhere (a task's `doc_md`) it is inside a string literal.
            for line in body.lines().filter(|l| l.contains("p.flow")) {
                assert!(
                    line.starts_with('#') || line.trim_start().starts_with("\"Task `"),
                    "{}: {line}",
                    file.display()
                );
            }
        }
        // Importing the task module really (its runtime is beside it) runs nothing.
        let imported = Command::new("python3")
            .current_dir(dir.path().join("py"))
            .args(["-c", "import orders.load, orders.load_transform"])
            .output()
            .expect("python3 runs");
        assert!(imported.status.success(), "{}", text(&imported.stderr));
        for marker in ["table-ran", "command-ran"] {
            assert!(
                !dir.path().join("py").join(marker).exists(),
                "{folder}: {marker}"
            );
        }

        // Argo YAML: the path stays inside its comment line.
        let argo = flowc_in(dir.path())
            .args(["build", "--target", "argo", "--out", "k8s", &flow])
            .output()
            .expect("flowc runs");
        assert_eq!(argo.status.code(), Some(0), "{argo:?}");
        let yaml = read(&dir.path().join("k8s/orders_daily.yaml"));
        assert!(
            yaml.lines().next().is_some_and(|l| l.starts_with('#')),
            "{yaml}"
        );
        assert!(!yaml.contains('\r'), "{yaml}");
        // Elsewhere (the task's `flowc.dev/source` annotation) it is a
        // quoted scalar that reads back exactly.
        for line in yaml.lines().filter(|l| l.contains("p.flow")) {
            assert!(
                line.starts_with('#') || line.trim_start().starts_with("\"flowc.dev/source\": "),
                "{line}"
            );
        }
        let doc: serde_norway::Value = serde_norway::from_str(&yaml).expect("YAML");
        let source = doc["spec"]["templates"][1]["metadata"]["annotations"]["flowc.dev/source"]
            .as_str()
            .map(str::to_owned);
        assert_eq!(source, Some(format!("{flow}:10")), "{yaml}");
        assert_eq!(doc["apiVersion"].as_str(), Some("argoproj.io/v1alpha1"));
    }
}

const ONE_TASK: &str = "pipeline orders_daily {\n  task load {\n    run command [\"python\", \"-m\", \"orders.load\"]\n  }\n}\n";

/// Links planted at every temporary name the next processes could use for
/// `name` in `out` (the name used to end with the process id), each leading
/// to `victim`.
#[cfg(target_os = "linux")]
fn plant_links(out: &Path, name: &str, victim: &Path) {
    let last: u32 = std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .expect("last pid")
        .trim()
        .parse()
        .expect("a number");
    for pid in last + 1..last + 400 {
        std::os::unix::fs::symlink(victim, out.join(format!(".{name}.flowc-tmp-{pid}")))
            .expect("symlink");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_link_planted_at_a_temporary_name_is_not_followed() {
    use std::os::unix::fs::PermissionsExt as _;
    for args in [
        &[
            "build",
            "--target",
            "airflow",
            "--out",
            "out",
            "orders.flow",
        ][..],
        &[
            "scaffold",
            "--lang",
            "python",
            "--out",
            "out",
            "orders.flow",
        ][..],
    ] {
        let dir = project();
        write(&dir.path().join("orders.flow"), ONE_TASK);
        let victim = dir.path().join("secret.txt");
        write(&victim, "mine\n");
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let out = dir.path().join("out");
        std::fs::create_dir_all(out.join("orders")).expect("mkdir");
        let file = if args[0] == "build" {
            "orders_daily.py"
        } else {
            "load.py"
        };
        let folder = if args[0] == "build" {
            out.clone()
        } else {
            out.join("orders")
        };
        plant_links(&folder, file, &victim);
        let run = flowc_in(dir.path())
            .args(args)
            .output()
            .expect("flowc runs");
        assert_eq!(run.status.code(), Some(0), "{run:?}");
        assert_eq!(
            read(&victim),
            "mine\n",
            "{args:?}: the file behind the link changed"
        );
        let mode = std::fs::metadata(&victim)
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600, "{args:?}");
        assert!(read(&folder.join(file)).contains("Generated by flowc"));
    }
}

#[test]
fn a_hand_written_file_is_refused_and_left_alone() {
    const MINE: &str = "# our own loader\nprint('hello')\n";
    // scaffold: the task's module is someone's file.
    let dir = project();
    write(&dir.path().join("orders.flow"), ONE_TASK);
    write(&dir.path().join("out/orders/load.py"), MINE);
    let run = flowc_in(dir.path())
        .args([
            "scaffold",
            "--lang",
            "python",
            "--out",
            "out",
            "orders.flow",
        ])
        .output()
        .expect("flowc runs");
    let stdout = text(&run.stdout);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("FL804"), "{stdout}");
    assert!(
        stdout.contains("`out/orders/load.py` exists and was not generated by flowc"),
        "{stdout}"
    );
    assert!(
        stdout.contains("orders.flow:1:10"),
        "at the pipeline: {stdout}"
    );
    assert_eq!(read(&dir.path().join("out/orders/load.py")), MINE);
    assert!(
        !dir.path().join("out/flowc_runtime").exists(),
        "nothing is written"
    );
    assert!(!dir.path().join("out/orders/load_transform.py").exists());
    assert!(stderr.contains("wrote 0 files"), "{stderr}");
    assert!(!stderr.contains("kept"), "{stderr}");

    // build: another team's DAG at the pipeline's path.
    write(&dir.path().join("dags/orders_daily.py"), MINE);
    let run = flowc_in(dir.path())
        .args([
            "build",
            "--target",
            "airflow",
            "--out",
            "dags",
            "orders.flow",
        ])
        .output()
        .expect("flowc runs");
    let stdout = text(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("`dags/orders_daily.py` exists and was not generated by flowc"),
        "{stdout}"
    );
    assert_eq!(read(&dir.path().join("dags/orders_daily.py")), MINE);
    assert!(!dir.path().join("dags/_flowc_airflow.py").exists());

    // A near miss: files flowc generated, with this header or v0.1's, are
    // replaced; an existing transform is kept and counted.
    let v01_dag = "# Generated by flowc from \"orders.flow\", pipeline \"orders_daily\".\n# Do not edit this file: change the .flow file and run `flowc build --target airflow` again.\nold = 1\n";
    write(&dir.path().join("dags/orders_daily.py"), v01_dag);
    let run = flowc_in(dir.path())
        .args([
            "build",
            "--target",
            "airflow",
            "--out",
            "dags",
            "orders.flow",
        ])
        .output()
        .expect("flowc runs");
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    assert!(!read(&dir.path().join("dags/orders_daily.py")).contains("old = 1"));
    let v01_module = "# Generated by flowc from \"orders.flow\": pipeline \"orders_daily\", task \"load\".\nold = 1\n";
    write(&dir.path().join("out/orders/load.py"), v01_module);
    write(&dir.path().join("out/orders/load_transform.py"), MINE);
    let run = flowc_in(dir.path())
        .args([
            "scaffold",
            "--lang",
            "python",
            "--out",
            "out",
            "orders.flow",
        ])
        .output()
        .expect("flowc runs");
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    assert!(!read(&dir.path().join("out/orders/load.py")).contains("old = 1"));
    assert_eq!(read(&dir.path().join("out/orders/load_transform.py")), MINE);
    assert!(stderr.contains("kept 1 existing transform"), "{stderr}");
    // And a second run replaces what the first wrote.
    let again = flowc_in(dir.path())
        .args([
            "scaffold",
            "--lang",
            "python",
            "--out",
            "out",
            "orders.flow",
        ])
        .output()
        .expect("flowc runs");
    assert_eq!(again.status.code(), Some(0), "{again:?}");
}

/// A named pipe where a DAG goes is refused at once: reading it for a header
/// would wait forever for a writer.
#[cfg(unix)]
#[test]
fn a_pipe_where_a_file_goes_is_refused_without_waiting() {
    let dir = project();
    write(&dir.path().join("orders.flow"), ONE_TASK);
    std::fs::create_dir(dir.path().join("dags")).expect("mkdir");
    let made = Command::new("mkfifo")
        .arg(dir.path().join("dags/orders_daily.py"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let mut child = crate::common::flowc()
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .args([
            "build",
            "--target",
            "airflow",
            "--out",
            "dags",
            "orders.flow",
        ])
        .std_command()
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawns");
    let started = std::time::Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("flowc waited on the pipe");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("output");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("`dags/orders_daily.py` is not a plain file"),
        "{stdout}"
    );
}

#[test]
fn a_renamed_pipeline_leaves_no_stale_output() {
    for (target, ext) in [("airflow", "py"), ("argo", "yaml")] {
        let dir = project();
        let flow = dir.path().join("orders.flow");
        let with_image = |name: &str| {
            ONE_TASK
                .replace("orders_daily", name)
                .replace("{\n  task", "{\n  image \"img:1\"\n  task")
        };
        write(&flow, &with_image("old_name"));
        write(&dir.path().join("other.flow"), &with_image("other_team"));
        let build = |extra: &[&str], files: &[&str]| {
            let mut args = vec!["build", "--target", target, "--out", "out"];
            args.extend(extra);
            args.extend(files);
            flowc_in(dir.path())
                .args(&args)
                .output()
                .expect("flowc runs")
        };
        let first = build(&[], &["orders.flow", "other.flow"]);
        assert_eq!(first.status.code(), Some(0), "{first:?}");
        let old = dir.path().join(format!("out/old_name.{ext}"));
        assert!(old.exists());
        let mine = dir.path().join(format!("out/notes.{ext}"));
        write(&mine, "# hand-written\n");

        write(&flow, &with_image("new_name"));
        // --keep-stale: listed, not removed.
        let kept = build(&["--keep-stale"], &["orders.flow"]);
        let stderr = text(&kept.stderr);
        assert_eq!(kept.status.code(), Some(0), "{kept:?}");
        assert!(old.exists(), "{target}: --keep-stale removed it");
        assert!(stderr.contains(&format!("out/old_name.{ext}")), "{stderr}");
        assert!(!stderr.contains("removed"), "{stderr}");

        let renamed = build(&[], &["orders.flow"]);
        let stderr = text(&renamed.stderr);
        assert_eq!(renamed.status.code(), Some(0), "{renamed:?}");
        assert!(!old.exists(), "{target}: the stale file is still there");
        assert!(
            stderr.contains(&format!("removed stale `out/old_name.{ext}`"))
                && stderr.contains("`old_name`")
                && stderr.contains("`orders.flow`"),
            "{stderr}"
        );
        assert!(dir.path().join(format!("out/new_name.{ext}")).exists());
        // Another file's output, a hand-written file and the support module stay.
        assert!(
            dir.path().join(format!("out/other_team.{ext}")).exists(),
            "{target}"
        );
        assert_eq!(read(&mine), "# hand-written\n");
        if target == "airflow" {
            assert!(dir.path().join("out/_flowc_airflow.py").exists());
        }
    }
}

const UNFORMATTED: &str = "pipeline   p {\n  task t {\n  run command [\"x\"]\n  }\n}\n";

#[cfg(unix)]
#[test]
fn fmt_keeps_links_and_modes() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let dir = project();
    let real = dir.path().join("real/p.flow");
    write(&real, UNFORMATTED);
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    std::os::unix::fs::symlink("real/p.flow", dir.path().join("link.flow")).expect("symlink");
    let hard = dir.path().join("hard/h.flow");
    write(&hard, UNFORMATTED);
    std::fs::set_permissions(&hard, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    std::fs::hard_link(&hard, dir.path().join("hard-too.flow")).expect("hard link");

    let run = flowc_in(dir.path())
        .args(["fmt", "link.flow", "hard/h.flow"])
        .output()
        .expect("flowc runs");
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let link = dir.path().join("link.flow");
    assert!(
        link.symlink_metadata()
            .expect("meta")
            .file_type()
            .is_symlink(),
        "the link was replaced by a copy"
    );
    assert!(read(&real).starts_with("pipeline p {"), "{}", read(&real));
    assert_eq!(
        std::fs::metadata(&real).expect("meta").permissions().mode() & 0o777,
        0o600
    );
    let meta = std::fs::metadata(&hard).expect("meta");
    assert_eq!(meta.permissions().mode() & 0o777, 0o640);
    assert_eq!(meta.nlink(), 2, "the hard link was broken");
    assert!(read(&dir.path().join("hard-too.flow")).starts_with("pipeline p {"));
    // A near miss: a file already formatted is not touched at all.
    let before = std::fs::metadata(&real)
        .expect("meta")
        .modified()
        .expect("mtime");
    let again = flowc_in(dir.path())
        .args(["fmt", "link.flow"])
        .output()
        .expect("flowc runs");
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    assert_eq!(
        std::fs::metadata(&real)
            .expect("meta")
            .modified()
            .expect("mtime"),
        before
    );
}

#[test]
fn a_write_error_replaces_no_file_of_the_run() {
    let two = |v: &str| {
        format!("pipeline aa {{\n  task t {{\n    run command [\"a{v}\"]\n  }}\n}}\n\npipeline zz {{\n  task t {{\n    run command [\"z{v}\"]\n  }}\n}}\n")
    };
    // build: a folder where the second DAG goes.
    let dir = project();
    write(&dir.path().join("p.flow"), &two("1"));
    let first = flowc_in(dir.path())
        .args(["build", "--target", "airflow", "--out", "out", "p.flow"])
        .output()
        .expect("flowc runs");
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let aa = dir.path().join("out/aa.py");
    let before = read(&aa);
    std::fs::remove_file(dir.path().join("out/zz.py")).expect("rm");
    std::fs::create_dir(dir.path().join("out/zz.py")).expect("mkdir");
    write(&dir.path().join("p.flow"), &two("2"));
    let run = flowc_in(dir.path())
        .args(["build", "--target", "airflow", "--out", "out", "p.flow"])
        .output()
        .expect("flowc runs");
    let stdout = text(&run.stdout);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("FL804") && stdout.contains("out/zz.py"),
        "{stdout}"
    );
    assert_eq!(read(&aa), before, "a file of the failed run was replaced");
    assert!(stderr.contains("wrote 0 files"), "{stderr}");
    assert_no_temps(&dir.path().join("out"));

    // scaffold: a plain file where the second task's package goes.
    let dir = project();
    let tasks = |v: &str| {
        format!("pipeline p {{\n  task a {{\n    run command [\"python\", \"-m\", \"aa.load\", \"{v}\"]\n  }}\n  task z {{\n    run command [\"python\", \"-m\", \"zz.load\", \"{v}\"]\n  }}\n}}\n")
    };
    write(&dir.path().join("p.flow"), &tasks("1"));
    let first = flowc_in(dir.path())
        .args(["scaffold", "--lang", "python", "--out", "out", "p.flow"])
        .output()
        .expect("flowc runs");
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let aa = dir.path().join("out/aa/load.py");
    let before = read(&aa);
    std::fs::remove_dir_all(dir.path().join("out/zz")).expect("rm");
    write(&dir.path().join("out/zz"), "not a folder\n");
    write(&dir.path().join("p.flow"), &tasks("2"));
    let run = flowc_in(dir.path())
        .args(["scaffold", "--lang", "python", "--out", "out", "p.flow"])
        .output()
        .expect("flowc runs");
    let stdout = text(&run.stdout);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("FL804"), "{stdout}");
    assert_eq!(read(&aa), before, "a file of the failed run was replaced");
    assert!(stderr.contains("wrote 0 files"), "{stderr}");
    assert_no_temps(&dir.path().join("out"));
}

fn assert_no_temps(dir: &Path) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("folder") {
            let p = entry.expect("entry").path();
            assert!(
                !p.to_string_lossy().contains("flowc-tmp"),
                "left behind: {}",
                p.display()
            );
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
}

#[test]
fn the_header_is_the_same_from_any_working_folder() {
    let dir = project();
    let root = dir.path().canonicalize().expect("canonical");
    write(&root.join("sub/p.flow"), ONE_TASK);
    let absolute = root.join("sub/p.flow");
    let absolute = absolute.to_str().expect("utf-8");
    let runs: [(PathBuf, &str); 4] = [
        (root.clone(), "sub/p.flow"),
        (root.join("sub"), "p.flow"),
        (root.join("sub"), absolute),
        (PathBuf::from("/"), absolute),
    ];
    let mut seen = Vec::new();
    for (n, (cwd, given)) in runs.iter().enumerate() {
        let out = root.join(format!("out{n}"));
        let out = out.to_str().expect("utf-8");
        let run = flowc_in(cwd)
            .args(["build", "--target", "airflow", "--out", out, given])
            .output()
            .expect("flowc runs");
        assert_eq!(run.status.code(), Some(0), "{run:?}");
        let dag = read(&Path::new(out).join("orders_daily.py"));
        assert!(
            dag.contains("\"sub/p.flow\""),
            "{given} from {}: {dag}",
            cwd.display()
        );
        assert!(!dag.contains(root.to_str().expect("utf-8")), "{dag}");
        seen.push(dag);
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]), "the bytes differ");
}

/// Every file `scaffold` writes, the whole `flowc_runtime` package included
/// (a runtime file added later must not be forgotten), starts with the fixed
/// encoding line and flowc's header, and a second scaffold into the same
/// folder succeeds.
#[test]
fn every_scaffolded_file_is_recognised_as_flowcs_own() {
    let dir = project();
    let flow = dir.path().join("p.flow");
    write(
        &flow,
        &read(&repo_root().join("tests/fault/sqlite_modes.flow")),
    );
    for run in ["first", "second"] {
        let out = flowc_in(dir.path())
            .args(["scaffold", "--lang", "python", "--out", "out", "p.flow"])
            .output()
            .expect("flowc runs");
        assert!(
            out.status.success(),
            "{run} scaffold: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
    }
    let files = python_files(&dir.path().join("out"));
    assert!(files.len() > 10, "{files:?}");
    for f in &files {
        let body = read(f);
        // A task's package is an empty `__init__.py`: no text, nothing to declare.
        if body.is_empty() && f.ends_with("__init__.py") {
            continue;
        }
        assert!(
            body.starts_with("# -*- coding: utf-8 -*-\n"),
            "{} lacks the encoding line",
            f.display()
        );
    }
    // The runtime's own files are all among them.
    for f in ["flowc_runtime/hooks.py", "flowc_runtime/connectors/base.py"] {
        assert!(dir.path().join("out").join(f).is_file(), "{f}");
    }
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}
