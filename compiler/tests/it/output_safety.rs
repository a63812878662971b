//! Generated files stay inside `--out` (FL804), and a build stopped at any
//! moment leaves every generated file whole: the old bytes, the new bytes, or
//! no file (each file is written to a temporary name and renamed).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use crate::common::flowc;
use flowc::codegen::places;
use flowc::codegen::GeneratedFile;

fn run(args: &[&str]) -> Output {
    flowc().args(args).output().expect("flowc runs")
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
fn refused_with_fl804(dir: &Path, args: &[&str]) -> String {
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
    stdout
}

/// The name of the file `target` writes for the pipeline of `dir/orders.flow`
/// (found by building into a folder of its own), beside support files.
#[cfg(unix)]
fn pipeline_file(dir: &Path, target: &str) -> String {
    let probe = tempfile::tempdir().expect("temp dir");
    let out = run(&[
        "build",
        "--target",
        target,
        "--out",
        probe.path().to_str().expect("utf-8"),
        dir.join("orders.flow").to_str().expect("utf-8"),
    ]);
    assert!(out.status.success(), "{target}: {}", text(&out.stdout));
    let names: Vec<String> = std::fs::read_dir(probe.path())
        .expect("listed")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("orders_daily"))
        .collect();
    assert_eq!(names.len(), 1, "{target}: {names:?}");
    names[0].clone()
}

#[cfg(unix)]
#[test]
fn a_link_where_a_dag_file_goes_is_refused_and_left_alone() {
    for target in flowc::codegen::target::TARGETS.iter().map(|t| t.name) {
        let dir = workspace();
        // Argo needs an image; the link is what this is about.
        write(
            &dir.path().join("orders.flow"),
            &ONE_TASK.replace("{\n  task", "{\n  image \"img:1\"\n  task"),
        );
        let file = pipeline_file(dir.path(), target);
        link("../outside/theirs.py", &dir.path().join("out").join(file));
        let args = ["build", "--target", target];
        let said = refused_with_fl804(dir.path(), &args);
        // At the name of the pipeline whose file it is.
        let flow = std::fs::read_to_string(dir.path().join("orders.flow")).expect("read");
        let line = flow
            .lines()
            .position(|l| l.starts_with("pipeline orders_daily"))
            .expect("the pipeline")
            + 1;
        assert!(
            said.contains(&format!("orders.flow:{line}:10]")),
            "{target}: {said}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_linked_folder_leading_outside_is_refused() {
    // `python -m jobs.orders.load` scaffolds `jobs/orders/load.py`: with
    // `out/jobs` a link to a folder elsewhere, the modules would land there.
    let dir = workspace();
    link("../outside", &dir.path().join("out/jobs"));
    let _ = refused_with_fl804(dir.path(), &["scaffold", "--lang", "python"]);
    // The runtime package too.
    let dir = workspace();
    link("../outside", &dir.path().join("out/flowc_runtime"));
    let _ = refused_with_fl804(dir.path(), &["scaffold", "--lang", "python"]);
}

#[cfg(unix)]
#[test]
fn links_that_stay_inside_the_output_folder_are_fine() {
    let dir = workspace();
    std::fs::create_dir(dir.path().join("out/real_jobs")).expect("mkdir");
    link("real_jobs", &dir.path().join("out/jobs"));
    let out = dir.path().join("out");
    let output = flowc()
        .args(["scaffold", "--lang", "python", "--out"])
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
            GeneratedFile::new("fine.py".into(), "ok\n".into()),
            GeneratedFile::new(bad.into(), "escaped\n".into()),
        ];
        let Err(found) = places::write_all(
            &flowc::io::write::Disk,
            &out,
            &files,
            &places::Places::empty(flowc::source::FileId(0)),
        ) else {
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
    let output = flowc()
        .args(["build", "--target", "airflow", "--out"])
        .arg(&out)
        .arg(&flow)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stdout).contains("FL001"));
    // A `python -m` module that is not a dotted identifier is not used as a
    // path: it is FL802, and nothing is written.
    write(
        &flow,
        "pipeline p {\n  task t {\n    run command [\"python\", \"-m\", \"../../escape\"]\n  }\n}\n",
    );
    let output = flowc()
        .args(["scaffold", "--lang", "python", "--out"])
        .arg(&out)
        .arg(&flow)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stdout));
    assert!(text(&output.stdout).contains("FL802"));
    assert!(!out.join("p/t.py").exists());
    let outside: Vec<String> = tree(dir.path())
        .into_keys()
        .filter(|p| !p.starts_with("deep"))
        .collect();
    assert_eq!(outside, ["bad.flow"]);
}

/// A spec of `pipelines` small scheduled pipelines: one DAG file each, so a
/// build writes many files and can be stopped between and inside writes.
fn many_pipelines(pipelines: usize) -> String {
    let mut out = String::new();
    for p in 0..pipelines {
        let _ = writeln!(
            out,
            "pipeline p{p} {{\n  schedule \"@daily\"\n  start 2026-01-01"
        );
        for t in 0..3 {
            let after = if t > 0 {
                format!("    after t{}\n", t - 1)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "  task t{t} {{\n{after}    run command [\"job\", \"{p}\", \"{t}\"]\n  }}"
            );
        }
        out.push_str("}\n");
    }
    out
}

fn is_temp(name: &str) -> bool {
    name.contains(".flowc-tmp-")
}

/// Build `flow` into `out` and return how long it took.
fn full_build(flow: &Path, out: &Path) -> Duration {
    let started = Instant::now();
    let output = flowc()
        .args(["build", "--target", "airflow", "--out"])
        .arg(out)
        .arg(flow)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    started.elapsed()
}

/// Every file of `out` as name to bytes (the folder is flat).
fn flat(out: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(out)
        .map(|entries| {
            entries
                .map(|e| {
                    let e = e.expect("entry");
                    let bytes = std::fs::read(e.path()).expect("file");
                    (e.file_name().to_string_lossy().into_owned(), bytes)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A build killed (SIGKILL: `Child::kill` on Unix) at 30 moments spread over
/// its run leaves, at every final path, the reference bytes, the previous
/// file's bytes, or nothing; never a partial file. The next full build
/// removes the temporary files the killed one left and writes the reference.
#[test]
fn a_build_killed_at_any_moment_leaves_no_partial_file() {
    const KILLS: u32 = 30;
    // A build's time is mostly the fsync of each file before its rename
    // (a few milliseconds each here), so the pipeline count sets it.
    const PIPELINES: usize = 20;
    // Files of an earlier build carry flowc's header: flowc replaces no other.
    const OLD: &[u8] =
        b"# -*- coding: utf-8 -*-\n# Generated by flowc for airflow: written by an earlier build\n";
    let dir = tempfile::tempdir().expect("temp dir");
    let flow = dir.path().join("many.flow");
    write(&flow, &many_pipelines(PIPELINES));
    let reference_dir = dir.path().join("reference");
    full_build(&flow, &reference_dir);
    let took = full_build(&flow, &dir.path().join("timing"));
    let reference = flat(&reference_dir);
    assert_eq!(
        reference.len(),
        PIPELINES + 1,
        "one DAG per pipeline and the operator module"
    );

    let mut partial_sets = 0;
    let mut temps_left = 0;
    for kill in 0..KILLS {
        let out = dir.path().join(format!("killed{kill}"));
        std::fs::create_dir(&out).expect("mkdir");
        // Every other run replaces the files of an earlier build.
        let replacing = kill % 2 == 1;
        if replacing {
            for name in reference.keys() {
                std::fs::write(out.join(name), OLD).expect("write");
            }
        }
        let mut child = flowc()
            .args(["build", "--target", "airflow", "--out"])
            .arg(&out)
            .arg(&flow)
            .std_command()
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawns");
        std::thread::sleep(took * kill / (KILLS - 1));
        let _ = child.kill();
        child.wait().expect("waits");

        let mut new = 0;
        for (name, bytes) in flat(&out) {
            if is_temp(&name) {
                temps_left += 1;
                continue;
            }
            let expected = reference
                .get(&name)
                .unwrap_or_else(|| panic!("kill {kill}: unexpected file {name}"));
            if bytes == *expected {
                new += 1;
            } else {
                assert!(
                    replacing && bytes == OLD,
                    "kill {kill}: {name} is neither the old nor the new file ({} bytes of {})",
                    bytes.len(),
                    expected.len()
                );
            }
        }
        if new > 0 && new < reference.len() {
            partial_sets += 1;
        }

        full_build(&flow, &out);
        let after = flat(&out);
        assert!(
            after.keys().all(|name| !is_temp(name)),
            "kill {kill}: the next build left temporary files: {:?}",
            after.keys().filter(|n| is_temp(n)).collect::<Vec<_>>()
        );
        assert!(
            after == reference,
            "kill {kill}: the next build differs from the reference"
        );
    }
    // The kills must have stopped builds in the middle of writing, or this
    // test proved nothing about partial files. A file's outputs are all
    // staged before any is renamed, so a kill mostly lands among the staged
    // temporary files, and rarely among the renames.
    assert!(
        partial_sets + temps_left > 0,
        "no kill landed while files were being written (a build took {took:?})"
    );
    eprintln!(
        "{KILLS} kills over {took:?}: {partial_sets} stopped among the writes, {temps_left} temporary files left and then removed"
    );
}
