//! Generated files stay inside `--out` (FL804).

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use flowc::codegen::emit;
use flowc::codegen::GeneratedFile;

fn flowc(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_flowc"));
    c.args(args).env("NO_COLOR", "1");
    c
}

fn run(args: &[&str]) -> Output {
    flowc(args).output().expect("flowc runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every entry under `root` (links not followed): relative path to what it
/// is, `link -> target`, `dir` or the file's bytes as text.
fn tree(root: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable folder") {
            let path = entry.expect("entry").path();
            let rel = path
                .strip_prefix(root)
                .expect("under root")
                .to_string_lossy()
                .into_owned();
            let meta = path.symlink_metadata().expect("metadata");
            let what = if meta.file_type().is_symlink() {
                format!(
                    "link -> {}",
                    std::fs::read_link(&path).expect("link").display()
                )
            } else if meta.is_dir() {
                stack.push(path);
                "dir".to_owned()
            } else {
                text(&std::fs::read(&path).expect("file"))
            };
            found.insert(rel, what);
        }
    }
    found
}

fn write(path: &Path, contents: &str) {
    std::fs::write(path, contents).expect("write");
}

#[cfg(unix)]
fn link(target: &str, at: &Path) {
    std::os::unix::fs::symlink(target, at).expect("symlink");
}

const ONE_TASK: &str = "pipeline orders_daily {\n  task load_orders {\n    run command [\"python\", \"-m\", \"jobs.orders.load\"]\n  }\n}\n";

/// A work folder with `outside/` (holding a file someone else owns), `out/`
/// and the spec `orders.flow`.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("outside")).expect("mkdir");
    std::fs::create_dir(dir.path().join("out")).expect("mkdir");
    write(
        &dir.path().join("outside/theirs.py"),
        "# another team's file\n",
    );
    write(&dir.path().join("orders.flow"), ONE_TASK);
    dir
}

/// Build (or scaffold) in `dir`; the run must fail with FL804 and change
/// nothing at all, inside `out/` or outside it.
fn refused_with_fl804(dir: &Path, args: &[&str]) {
    let before = tree(dir);
    let mut args = args.to_vec();
    let out = dir.join("out");
    let flow = dir.join("orders.flow");
    args.extend([
        "--out",
        out.to_str().expect("utf-8"),
        flow.to_str().expect("utf-8"),
    ]);
    let output = run(&args);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FL804"), "{stdout}");
    assert_eq!(tree(dir), before, "the refused build changed files");
}

#[cfg(unix)]
#[test]
fn a_link_where_a_dag_file_goes_is_refused_and_left_alone() {
    for target in ["airflow", "argo"] {
        let dir = workspace();
        let file = if target == "airflow" {
            "orders_daily.py"
        } else {
            "orders_daily.yaml"
        };
        link("../outside/theirs.py", &dir.path().join("out").join(file));
        let args = ["build", "--target", target];
        if target == "argo" {
            // Argo needs an image; the link is what this is about.
            write(
                &dir.path().join("orders.flow"),
                &ONE_TASK.replace("{\n  task", "{\n  image \"img:1\"\n  task"),
            );
        }
        refused_with_fl804(dir.path(), &args);
    }
}

#[cfg(unix)]
#[test]
fn a_linked_folder_leading_outside_is_refused() {
    // `python -m jobs.orders.load` scaffolds `jobs/orders/load.py`: with
    // `out/jobs` a link to a folder elsewhere, the modules would land there.
    let dir = workspace();
    link("../outside", &dir.path().join("out/jobs"));
    refused_with_fl804(dir.path(), &["scaffold", "--lang", "python"]);
    // The runtime package too.
    let dir = workspace();
    link("../outside", &dir.path().join("out/flowc_runtime"));
    refused_with_fl804(dir.path(), &["scaffold", "--lang", "python"]);
}

#[cfg(unix)]
#[test]
fn links_that_stay_inside_the_output_folder_are_fine() {
    let dir = workspace();
    std::fs::create_dir(dir.path().join("out/real_jobs")).expect("mkdir");
    link("real_jobs", &dir.path().join("out/jobs"));
    let out = dir.path().join("out");
    let output = flowc(&["scaffold", "--lang", "python", "--out"])
        .arg(&out)
        .arg(dir.path().join("orders.flow"))
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    assert!(out.join("real_jobs/orders/load.py").is_file());
    assert_eq!(
        tree(&dir.path().join("outside")).len(),
        1,
        "nothing outside"
    );
}

#[test]
fn paths_that_leave_the_folder_are_refused_before_anything_is_written() {
    // Names in a .flow file are identifiers, so no spec can name these paths
    // (see the next test); generators are checked all the same.
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).expect("mkdir");
    let absolute = dir.path().join("abs.py").to_string_lossy().into_owned();
    for bad in [
        "../escape.py",
        "a/../../escape.py",
        "./x.py",
        "",
        absolute.as_str(),
    ] {
        let files = [
            GeneratedFile {
                path: "fine.py".into(),
                contents: "ok\n".into(),
            },
            GeneratedFile {
                path: bad.into(),
                contents: "escaped\n".into(),
            },
        ];
        let Err(found) = emit::write_all(&out, &files, flowc::source::FileId(0)) else {
            panic!("`{bad}` was written");
        };
        assert!(found.iter().all(|d| d.code == "FL804"), "{bad}");
        assert_eq!(found.len(), 1, "{bad}");
        assert!(
            tree(dir.path()) == BTreeMap::from([("out".into(), "dir".into())]),
            "{bad}: something was written"
        );
    }
}

#[test]
fn names_that_look_like_paths_never_become_paths() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("deep/out");
    // A pipeline name is an identifier: `../x` does not parse.
    let flow = dir.path().join("bad.flow");
    write(
        &flow,
        "pipeline ../x {\n  task t {\n    run command [\"x\"]\n  }\n}\n",
    );
    let output = flowc(&["build", "--target", "airflow", "--out"])
        .arg(&out)
        .arg(&flow)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stdout).contains("FL001"));
    // A `python -m` module that is not a dotted identifier is not used as a
    // path: the task's module is then `<pipeline>.<task>`.
    write(
        &flow,
        "pipeline p {\n  task t {\n    run command [\"python\", \"-m\", \"../../escape\"]\n  }\n}\n",
    );
    let output = flowc(&["scaffold", "--lang", "python", "--out"])
        .arg(&out)
        .arg(&flow)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    assert!(out.join("p/t.py").is_file());
    let outside: Vec<String> = tree(dir.path())
        .into_keys()
        .filter(|p| !p.starts_with("deep"))
        .collect();
    assert_eq!(outside, ["bad.flow"]);
}
