//! `flowc build --target ir`: one `PIPELINE.ir.json` per pipeline, the IR
//! every other target renders from. It reads back as `ir::Pipeline`, and
//! rendering Airflow from it gives the bytes `--target airflow` writes.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

use crate::common::flowc;
use flowc::codegen::{airflow, ir::Pipeline};

fn build(target: &str, out: &Path, paths: &[&str]) -> Output {
    flowc()
        .args(["build", "--target", target])
        .arg("--out")
        .arg(out)
        .args(paths)
        .output()
        .expect("runs")
}

/// Every file of a folder (not recursive), by name.
fn files(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .expect("listed")
        .map(|e| {
            let path = e.expect("entry").path();
            let name = path
                .file_name()
                .expect("named")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read_to_string(&path).expect("text"))
        })
        .collect()
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn one_pretty_json_file_per_pipeline() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = build("ir", dir.path(), &["examples/revenue_daily.flow"]);
    assert!(out.status.success(), "{}", said(&out));
    assert!(said(&out).contains("wrote 1 file to"), "{}", said(&out));
    let written = files(dir.path());
    let names: Vec<&str> = written.keys().map(String::as_str).collect();
    assert_eq!(names, ["revenue_daily.ir.json"]);
    let text = &written["revenue_daily.ir.json"];
    assert!(text.starts_with("{\n  \"generated\": "), "{text}");
    assert!(text.ends_with("}\n") && !text.ends_with("\n\n"), "{text}");
    insta::assert_snapshot!("revenue_daily", text);
}

#[test]
fn the_dump_reads_back_and_renders_the_airflow_build() {
    let examples: Vec<String> = common::flow_files("examples")
        .into_iter()
        .filter(|p| !p.starts_with("examples/common/"))
        .collect();
    assert!(examples.len() >= 5, "{examples:?}");
    for example in &examples {
        let ir_dir = tempfile::tempdir().expect("temp dir");
        let out = build("ir", ir_dir.path(), &[example]);
        assert!(out.status.success(), "{example}: {}", said(&out));
        let pipelines: Vec<Pipeline> = files(ir_dir.path())
            .values()
            .map(|text| serde_json::from_str(text).expect("the dump is IR"))
            .collect();
        assert!(!pipelines.is_empty(), "{example}");
        // Serialised again, each says the same as the dump, marker aside.
        for (p, text) in pipelines.iter().zip(files(ir_dir.path()).values()) {
            let mut dumped: serde_json::Value = serde_json::from_str(text).expect("json");
            dumped.as_object_mut().expect("object").remove("generated");
            assert_eq!(serde_json::to_value(p).expect("json"), dumped, "{example}");
        }
        let from_ir: BTreeMap<String, String> = airflow::generate(&pipelines)
            .expect("the examples build for Airflow")
            .into_iter()
            .map(|f| (f.path.clone(), f.text().into_owned()))
            .collect();
        let dag_dir = tempfile::tempdir().expect("temp dir");
        let out = build("airflow", dag_dir.path(), &[example]);
        assert!(out.status.success(), "{example}: {}", said(&out));
        assert_eq!(from_ir, files(dag_dir.path()), "{example}");
    }
}

#[test]
fn a_rebuild_replaces_its_dump_but_no_other_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("revenue_daily.ir.json");
    for _ in 0..2 {
        let out = build("ir", dir.path(), &["examples/revenue_daily.flow"]);
        assert!(out.status.success(), "{}", said(&out));
    }
    let first = std::fs::read_to_string(&path).expect("written");
    // A JSON file someone else wrote there is refused and left alone.
    let theirs = "{\n  \"name\": \"revenue_daily\"\n}\n";
    std::fs::write(&path, theirs).expect("write");
    let out = build("ir", dir.path(), &["examples/revenue_daily.flow"]);
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert!(said(&out).contains("FL804"), "{}", said(&out));
    assert_eq!(std::fs::read_to_string(&path).expect("kept"), theirs);
    // A near miss: the marker, changed by hand, is not flowc's either.
    let edited = first.replacen("by flowc for ir", "by hand for ir", 1);
    std::fs::write(&path, &edited).expect("write");
    let out = build("ir", dir.path(), &["examples/revenue_daily.flow"]);
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert_eq!(std::fs::read_to_string(&path).expect("kept"), edited);
    // Its own dump, even from an older build, is replaced.
    std::fs::write(
        &path,
        first.replace("\"catchup\": false", "\"catchup\": true"),
    )
    .expect("write");
    let out = build("ir", dir.path(), &["examples/revenue_daily.flow"]);
    assert!(out.status.success(), "{}", said(&out));
    assert_eq!(std::fs::read_to_string(&path).expect("rewritten"), first);
}

#[test]
fn a_dump_of_a_pipeline_that_is_gone_is_removed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let flow = dir.path().join("p.flow");
    let one = |name: &str| {
        format!("pipeline {name} {{\n  task t {{\n    run command [\"x\"]\n  }}\n}}\n")
    };
    std::fs::write(&flow, one("old_name")).expect("write");
    let out_dir = dir.path().join("out");
    let flow = flow.to_str().expect("utf-8");
    assert!(build("ir", &out_dir, &[flow]).status.success());
    // Someone else's JSON beside it is never stale.
    std::fs::write(out_dir.join("notes.json"), "{}\n").expect("write");
    std::fs::write(dir.path().join("p.flow"), one("new_name")).expect("write");
    let out = build("ir", &out_dir, &[flow]);
    assert!(out.status.success(), "{}", said(&out));
    assert!(said(&out).contains("removed stale"), "{}", said(&out));
    let names: Vec<String> = files(&out_dir).into_keys().collect();
    assert_eq!(names, ["new_name.ir.json", "notes.json"]);
}

#[test]
fn nothing_is_dumped_for_a_file_with_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let flow = dir.path().join("bad.flow");
    std::fs::write(
        &flow,
        "pipeline p {\n  task t {\n    run command [\"x\"]\n  }\n",
    )
    .expect("write");
    let out_dir = dir.path().join("out");
    let out = build("ir", &out_dir, &[flow.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert!(files(&out_dir).is_empty());
}

#[test]
fn the_help_lists_every_target_of_the_registry() {
    let out = crate::common::flowc()
        .args(["build", "--help"])
        .output()
        .expect("runs");
    let help = String::from_utf8_lossy(&out.stdout);
    for target in flowc::codegen::target::TARGETS {
        assert!(
            help.contains(&format!("- {}:", target.name)) && help.contains(target.about),
            "{}: {help}",
            target.name
        );
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let out = build("python", dir.path(), &["examples/revenue_daily.flow"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        said(&out).contains("[possible values: airflow, argo, ir]"),
        "{}",
        said(&out)
    );
}

/// The IR fixtures of the Airflow end-to-end test are what `--target ir`
/// writes for their `.flow` files (`FLOWC_BLESS=1` rewrites them).
#[test]
fn the_airflow_ir_fixtures_are_current() {
    let dir = tempfile::tempdir().expect("temp dir");
    let stems = ["argv", "names", "protocol"];
    let flows: Vec<String> = stems
        .iter()
        .map(|s| format!("tests/airflow/{s}.flow"))
        .collect();
    let flows: Vec<&str> = flows.iter().map(String::as_str).collect();
    let out = build("ir", dir.path(), &flows);
    assert!(out.status.success(), "{}", said(&out));
    let dumped = files(dir.path());
    for stem in stems {
        let fresh = &dumped[&format!("flowc_e2e_{stem}.ir.json")];
        let fixture = common::repo_root().join(format!("tests/airflow/{stem}.ir.json"));
        if std::env::var_os("FLOWC_BLESS").is_some() {
            std::fs::write(&fixture, fresh).expect("write");
        }
        let old = std::fs::read_to_string(&fixture).expect("fixture");
        assert_eq!(
            &old, fresh,
            "{stem}: run `FLOWC_BLESS=1 cargo test --test it ir_target::`"
        );
    }
}
