//! The real binary: exit codes, formats and hostile input.

use crate::common;

use std::io::Write as _;
use std::time::{Duration, Instant};

use crate::common::flowc;
use serde_json::Value;

fn temp_flow(contents: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new()
        .suffix(".flow")
        .tempfile()
        .expect("temp file");
    f.write_all(contents).expect("write");
    f
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).expect("valid JSON")
}

#[test]
fn missing_brace_is_fl001_at_end_of_file_with_words() {
    let f = temp_flow(b"pipeline p {\n  task t {\n    run command [\"x\"]\n  }\n");
    let out = flowc()
        .args(["check", "--format", "json"])
        .arg(f.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out.stdout);
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "FL001");
    assert_eq!(d["span"]["line"], 5);
    assert_eq!(d["span"]["column"], 1);
    let msg = d["message"].as_str().unwrap_or_default();
    assert!(msg.contains("expected `}`"), "{msg}");
    // The label points at the brace that is never closed.
    assert_eq!(d["labels"][0]["span"]["line"], 1);
    assert_eq!(d["labels"][0]["span"]["column"], 12);

    let human = flowc().arg("check").arg(f.path()).output().expect("runs");
    let text = String::from_utf8_lossy(&human.stdout);
    for rule_name in [
        "pipeline_item",
        "task_item",
        "kw_",
        "rbrace",
        "EOI",
        "_stmt",
    ] {
        assert!(
            !text.contains(rule_name),
            "grammar internals `{rule_name}` in:\n{text}"
        );
    }
    assert!(text.contains("expected `}`"), "{text}");
}

#[test]
fn syntax_errors_never_show_rule_names() {
    let cases: [&[u8]; 8] = [
        b"source x files {}\n",
        b"sink s: files {\n  path \"x\" \n  fields [a, b\n",
        b"pipeline p {\n  task t {\n    read\n  }\n}\n",
        b"pipeline p {\n  task t {\n    write s upsert key\n  }\n}\n",
        b"kind k {\n  param x string\n}\n",
        b"pipeline p {\n  task t {\n    emit e via\n  }\n}\n",
        b"}}}\n",
        b"pipeline p { retries 3 }\n",
    ];
    for c in cases {
        let f = temp_flow(c);
        let out = flowc()
            .args(["check", "--format", "json"])
            .arg(f.path())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(c));
        let v = json_of(&out.stdout);
        let msg = v["diagnostics"][0]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            msg.starts_with("expected ") || msg.starts_with("unexpected "),
            "{msg}"
        );
        assert!(
            !msg.contains('_') || msg.contains('`'),
            "looks like a rule name: {msg}"
        );
        for internal in ["kw_", "_item", "_stmt", "rbrace", "lbrace", "EOI", "SOI"] {
            assert!(!msg.contains(internal), "{msg}");
        }
    }
}

#[test]
fn non_utf8_and_binary_files_are_fl001() {
    for bytes in [
        &b"pipeline p {\xff\xfe }\n"[..],
        &[0u8, 159, 146, 150, 0, 1, 2][..],
    ] {
        let f = temp_flow(bytes);
        let out = flowc()
            .args(["check", "--format", "json"])
            .arg(f.path())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1));
        let v = json_of(&out.stdout);
        assert_eq!(v["diagnostics"][0]["code"], "FL001");
    }
}

#[test]
fn empty_file_is_clean() {
    let f = temp_flow(b"");
    flowc().arg("check").arg(f.path()).assert().code(0);
}

#[test]
fn huge_and_deeply_nested_inputs_end_quickly() {
    let nested = "[".repeat(100_000);
    let parens = format!(
        "pipeline p {{\n  task t {{\n    key {}\n  }}\n}}\n",
        "(".repeat(100_000)
    );
    let over = flowc::syntax::parser::MAX_FILE_BYTES + 1024;
    let mut big = String::with_capacity(over + 64);
    let block = "source s: files {\n  path \"x\"\n}\n";
    while big.len() < over {
        big.push_str("# filler comment line to make the file large\n");
    }
    big.push_str(block);
    for input in [
        format!("sink s: files {{\n  path {nested}\n}}\n"),
        parens,
        big,
    ] {
        let f = temp_flow(input.as_bytes());
        let start = Instant::now();
        let out = flowc()
            .args(["check", "--format", "json"])
            .arg(f.path())
            .timeout(Duration::from_secs(30))
            .output()
            .expect("runs");
        assert!(start.elapsed() < Duration::from_secs(30));
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
        if input.len() > flowc::syntax::parser::MAX_FILE_BYTES {
            // Refused before it is read: a usage problem, like an unreadable file.
            assert_eq!(out.status.code(), Some(2));
            assert!(String::from_utf8_lossy(&out.stderr).contains("larger than"));
            continue;
        }
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "status {:?}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let v = json_of(&out.stdout);
        assert!(v["summary"].is_object());
    }
}

#[test]
fn exit_status_two_for_usage_problems() {
    flowc()
        .args(["check", "does/not/exist.flow"])
        .assert()
        .code(2);
    flowc().args(["check", "--format", "xml"]).assert().code(2);
    flowc().args(["explain", "FL999"]).assert().code(2);
    flowc().arg("frobnicate").assert().code(2);
}

#[test]
fn help_and_version() {
    let out = flowc().arg("--help").output().expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Examples:"));
    for sub in [
        "check", "report", "explain", "rules", "build", "fmt", "graph", "init",
    ] {
        let out = flowc().args([sub, "--help"]).output().expect("runs");
        assert_eq!(out.status.code(), Some(0));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("Example"),
            "{sub} --help has no example"
        );
    }
    let out = flowc().arg("--version").output().expect("runs");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("flowc "));
}

#[test]
fn folders_are_searched_recursively_and_no_path_means_current_folder() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::create_dir_all(dir.path().join("a/b")).expect("mkdir");
    std::fs::write(
        dir.path().join("a/b/x.flow"),
        "pipeline p {\n  task t {\n  }\n}\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("a/ignored.txt"), "not flow").expect("write");
    let out = crate::common::flowc()
        .current_dir(dir.path())
        .args(["check", "--format", "json"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out.stdout);
    assert_eq!(v["summary"]["files"], 1);
    assert_eq!(v["diagnostics"][0]["code"], "FL008");
    assert_eq!(v["diagnostics"][0]["file"], "a/b/x.flow");
}

#[test]
fn deny_warnings_turns_warnings_into_failure() {
    let f = temp_flow(b"source s: files {\n  path \"x\"\n}\n\npipeline p {\n  task t {\n    read s\n    run command [\"x\"]\n  }\n}\n");
    let out = flowc()
        .args(["check", "--format", "json"])
        .arg(f.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out.stdout);
    assert_eq!(v["summary"]["warnings"], 1);
    flowc()
        .args(["check", "--deny-warnings"])
        .arg(f.path())
        .assert()
        .code(1);
}

#[test]
fn github_annotations_name_file_line_and_code() {
    let f = temp_flow(b"pipeline p {\n  task t {\n  }\n}\n");
    let out = flowc()
        .args(["check", "--format", "github"])
        .arg(f.path())
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("::error file="), "{text}");
    assert!(text.contains(",line=2,col=8,"), "{text}");
    assert!(text.contains("title=FL008 missing-setting::"), "{text}");
}

fn sarif_validator() -> jsonschema::Validator {
    // The published schema's `language` patterns have a stray `]` that
    // Rust's regex engine rejects; this is the pattern they mean.
    let text =
        std::fs::read_to_string(common::repo_root().join("tests/data/sarif-2.1.0-rtm.5.json"))
            .expect("schema");
    let text = text.replace(
        "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$",
        "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$",
    );
    let schema: Value = serde_json::from_str(&text).expect("json");
    jsonschema::options()
        .should_validate_formats(false)
        .build(&schema)
        .expect("schema compiles")
}

#[test]
fn sarif_output_validates_against_the_sarif_schema() {
    let validator = sarif_validator();
    let out = flowc()
        .args(["check", "--format", "sarif", "tests/fixtures/rules"])
        .output()
        .expect("runs");
    let v = json_of(&out.stdout);
    let errors: Vec<String> = validator
        .iter_errors(&v)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let rules = v["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    assert_eq!(rules.len(), flowc::diagnostic::Code::ALL.len());
    assert!(rules.iter().all(|r| r["helpUri"]
        .as_str()
        .is_some_and(|u| u.starts_with("https://"))));
    // Each rule's `helpUri` is its page of the docs site as `scripts/docs` builds it.
    for r in rules {
        let id = r["id"].as_str().unwrap();
        let uri = r["helpUri"].as_str().unwrap();
        assert_eq!(uri, format!("https://flowc.dev/rules/{id}.html"));
        assert!(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("../docs/rules/{id}.md"))
                .is_file(),
            "{uri} has no page"
        );
    }
    assert!(!v["runs"][0]["results"]
        .as_array()
        .expect("results")
        .is_empty());
    // The validator can fail: a result without its message is rejected.
    let mut broken = v.clone();
    broken["runs"][0]["results"][0]
        .as_object_mut()
        .expect("object")
        .remove("message");
    broken["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(!validator.is_valid(&broken));
}

/// SARIF counts `charOffset` and `charLength` in code points (the run's
/// `columnKind`), not in bytes as flowc's JSON spans do.
#[test]
fn sarif_char_offsets_count_code_points() {
    let f = temp_flow("source a: files {\r\n  path \"é😀{interval.strat}\"\r\n}\r\n".as_bytes());
    let run = |format: &str| {
        let out = flowc()
            .args(["check", "--format", format])
            .arg(f.path())
            .output()
            .expect("runs");
        json_of(&out.stdout)
    };
    let sarif = run("sarif");
    assert_eq!(sarif["runs"][0]["columnKind"], "unicodeCodePoints");
    let region = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
    let json = run("json");
    let span = &json["diagnostics"][0]["span"];
    // `source a: files {\r\n  path "é😀` is 29 code points and 33 bytes.
    assert_eq!(span["offset"], 33, "{json}");
    assert_eq!(region["charOffset"], 29, "{sarif}");
    assert_eq!(region["charLength"], 16, "{sarif}");
    assert_eq!(region["startColumn"], span["column"], "{sarif}");
}

#[test]
fn json_shape_matches_rules_md_for_every_fixture() {
    let out = flowc()
        .args(["check", "--format", "json", "tests/fixtures"])
        .output()
        .expect("runs");
    let v = json_of(&out.stdout);
    assert_eq!(v["version"], 1);
    let diags = v["diagnostics"].as_array().expect("array");
    assert!(!diags.is_empty());
    let span_ok = |s: &Value| {
        ["offset", "length", "line", "column"]
            .iter()
            .all(|k| s[k].is_u64())
    };
    for d in diags {
        assert!(
            d["code"]
                .as_str()
                .is_some_and(|c| c.len() == 5 && c.starts_with("FL")),
            "{d}"
        );
        assert!(d["name"].as_str().is_some_and(|n| !n.is_empty()), "{d}");
        assert!(
            matches!(d["severity"].as_str(), Some("error" | "warning")),
            "{d}"
        );
        assert!(d["message"].is_string() && d["file"].is_string(), "{d}");
        assert!(span_ok(&d["span"]), "{d}");
        for l in d["labels"].as_array().expect("labels") {
            assert!(l["message"].is_string() && span_ok(&l["span"]), "{d}");
        }
        assert!(d["help"].is_string() || d["help"].is_null(), "{d}");
    }
    for k in ["files", "errors", "warnings"] {
        assert!(v["summary"][k].is_u64());
    }
    // Sorted by file, then offset, then code.
    let keys: Vec<(String, u64, String)> = diags
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap_or_default().to_string(),
                d["span"]["offset"].as_u64().unwrap_or(0),
                d["code"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn output_is_deterministic() {
    let run = || {
        flowc()
            .args(["check", "--format", "json", "tests/fixtures", "examples"])
            .output()
            .expect("runs")
            .stdout
    };
    assert_eq!(run(), run());
}

#[test]
fn explain_and_rules() {
    let out = flowc()
        .args(["explain", "check-then-append"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("# FL201 check-then-append"));
    let out = flowc().arg("rules").output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), flowc::diagnostic::Code::ALL.len());
    assert!(text
        .lines()
        .any(|l| l.starts_with("FL900  guarantee-below-requirement")));
}

#[test]
fn every_example_graph_renders_with_graphviz_and_mermaid() {
    use std::process::Stdio;
    let have_dot = std::process::Command::new("dot")
        .arg("-V")
        .stderr(Stdio::null())
        .status()
        .is_ok();
    assert!(
        have_dot || std::env::var_os("CI").is_none(),
        "graphviz `dot` is required in CI"
    );
    for f in common::flow_files("examples")
        .iter()
        .filter(|f| !f.contains("/common/"))
    {
        let out = flowc().args(["graph", f]).output().expect("runs");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{f}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.starts_with(b"digraph "), "{f}");
        if have_dot {
            let mut child = std::process::Command::new("dot")
                .arg("-Tsvg")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("dot");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(&out.stdout)
                .expect("write");
            let svg = child.wait_with_output().expect("dot runs");
            assert!(
                svg.status.success(),
                "{f}: {}",
                String::from_utf8_lossy(&svg.stderr)
            );
            assert!(String::from_utf8_lossy(&svg.stdout).contains("<svg"), "{f}");
        }
        let mermaid = flowc()
            .args(["graph", "--format", "mermaid", f])
            .output()
            .expect("runs");
        assert!(mermaid.stdout.starts_with(b"flowchart "), "{f}");
    }
}

#[test]
fn fmt_check_reports_a_diff_and_init_makes_a_clean_project() {
    let dir = tempfile::tempdir().expect("dir");
    let messy = dir.path().join("m.flow");
    std::fs::write(
        &messy,
        "source s: files {\n path \"x\"\n     immutable\n}\n",
    )
    .expect("write");
    let out = flowc()
        .args(["fmt", "--check"])
        .arg(&messy)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("+  path"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    flowc().arg("fmt").arg(&messy).assert().code(0);
    flowc()
        .args(["fmt", "--check"])
        .arg(&messy)
        .assert()
        .code(0);

    let project = dir.path().join("proj");
    flowc().arg("init").arg(&project).assert().code(0);
    flowc().arg("check").arg(&project).assert().code(0);
    flowc()
        .args(["fmt", "--check"])
        .arg(&project)
        .assert()
        .code(0);
    assert!(project.join(".pre-commit-config.yaml").exists());
    // A second init changes nothing.
    flowc().arg("init").arg(&project).assert().code(2);

    // Both targets: Airflow as written; Argo after the one line the starter's
    // README names (an image), with no error (FL807's advice stays a warning).
    let pipeline = project.join("pipeline.flow");
    for target in ["airflow", "argo"] {
        let out = flowc()
            .args(["check", "--target", target])
            .arg(&pipeline)
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        if target == "airflow" {
            assert_eq!(out.status.code(), Some(0), "{text}");
        } else {
            assert!(text.contains("FL801"), "no image yet: {text}");
        }
    }
    let readme = std::fs::read_to_string(project.join("README.md")).expect("README");
    assert!(
        readme.contains("`image \"REGISTRY/IMAGE:TAG\"`"),
        "{readme}"
    );
    let text = std::fs::read_to_string(&pipeline).expect("pipeline");
    let with_image = text.replacen(
        "  state events\n",
        "  image \"ghcr.io/acme/jobs:1.0\"\n  state events\n",
        1,
    );
    assert_ne!(with_image, text, "the starter names its state store");
    std::fs::write(&pipeline, with_image).expect("write");
    let out = flowc()
        .args(["check", "--target", "argo"])
        .arg(&pipeline)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("0 errors"), "{text}");
    let build = dir.path().join("argo");
    flowc()
        .args(["build", "--target", "argo", "--out"])
        .arg(&build)
        .arg(&pipeline)
        .assert()
        .code(0);
}

/// The README's example shows exactly what flowc prints for it.
#[test]
fn readme_example_output_is_what_flowc_prints() {
    let readme = std::fs::read_to_string(common::repo_root().join("README.md")).expect("README");
    let flow_start = readme
        .find("## What it says\n\n```flow\n")
        .expect("example")
        + "## What it says\n\n```flow\n".len();
    let flow = &readme[flow_start..flow_start + readme[flow_start..].find("```").expect("end")];
    let shown_start = readme.find("$ flowc check orders.flow\n").expect("output")
        + "$ flowc check orders.flow\n".len();
    let shown = &readme[shown_start..shown_start + readme[shown_start..].find("```").expect("end")];
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("orders.flow"), flow).expect("write");
    let out = crate::common::flowc()
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .args(["check", "orders.flow"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), shown);
}

#[test]
fn scaffold_rewrites_generated_modules_but_never_user_transforms() {
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().join("py");
    flowc()
        .args(["scaffold", "--lang", "python", "--out"])
        .arg(&out)
        .arg("tests/fault/sqlite_modes.flow")
        .assert()
        .code(0);
    let transform = out.join("sq_modes/upsert_interval_transform.py");
    let module = out.join("sq_modes/upsert_interval.py");
    assert!(transform.exists() && module.exists());
    std::fs::write(&transform, "# my code\n").expect("write");
    // A module an earlier flowc generated (its header says so) is replaced;
    // one without the header would be refused (FL804).
    let stale = "# -*- coding: utf-8 -*-\n# Generated by flowc for python: rewritten by every `flowc scaffold`, do not edit.\n# stale\n";
    std::fs::write(&module, stale).expect("write");
    flowc()
        .args(["scaffold", "--lang", "python", "--out"])
        .arg(&out)
        .arg("tests/fault/sqlite_modes.flow")
        .assert()
        .code(0);
    assert_eq!(
        std::fs::read_to_string(&transform).expect("read"),
        "# my code\n"
    );
    assert_ne!(std::fs::read_to_string(&module).expect("read"), stale);
    // A kind with no runtime (a user kind) is FL805, naming the kind, and nothing is written.
    let kafka = dir.path().join("k.flow");
    std::fs::write(&kafka, "kind queue_topic {\n  roles source, sink\n  pins offsets\n  offsets\n  commits after_write\n  writes append\n  param topic: string\n}\n\nsource s: queue_topic {\n  topic \"t\"\n}\n\nsink o: queue_topic {\n  topic \"u\"\n}\n\npipeline k {\n  task t {\n    read s pinned offsets\n    write o append\n    require at_least_once\n    allow FL202 because \"test\"\n    run command [\"x\"]\n  }\n}\n").expect("write");
    let empty = dir.path().join("none");
    let res = flowc()
        .args(["scaffold", "--lang", "python", "--format-is-not-an-option"])
        .output()
        .expect("runs");
    assert_eq!(res.status.code(), Some(2));
    let res = flowc()
        .args(["scaffold", "--lang", "python", "--out"])
        .arg(&empty)
        .arg(&kafka)
        .output()
        .expect("runs");
    assert_eq!(res.status.code(), Some(1));
    let text = String::from_utf8_lossy(&res.stdout);
    assert!(
        text.contains("FL805") && text.contains("queue_topic"),
        "{text}"
    );
    // Each at the statement that uses the kind: `read s` (line 20), `write o` (21).
    assert!(text.contains("k.flow:20:5]"), "{text}");
    assert!(text.contains("k.flow:21:5]"), "{text}");
    assert!(std::fs::read_dir(&empty).map_or(0, Iterator::count) == 0);
}

#[test]
fn imports_are_non_transitive_reported_once_and_cycles_are_fl005() {
    let dir = tempfile::tempdir().expect("dir");
    let w = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).expect("write");
    w(
        "base.flow",
        "sink orders: postgres_table {\n  table \"o\"\n  primary_key id\n}\n",
    );
    w(
        "mid.flow",
        "use \"base.flow\"\n\nsource raw: files {\n  path \"r/\"\n  immutable\n  identity id\n}\n",
    );
    // `top` sees `raw` (imported) but not `orders` (imported by `mid` only).
    w("top.flow", "use \"mid.flow\"\n\npipeline p {\n  task t {\n    read raw\n    key input.id\n    write orders upsert\n    run command [\"x\"]\n  }\n}\n");
    w(
        "clash.flow",
        "use \"base.flow\"\n\nsink orders: files {\n  path \"x\"\n}\n",
    );
    w("cycle_a.flow", "use \"cycle_b.flow\"\n");
    w("cycle_b.flow", "use \"cycle_a.flow\"\n");
    let run = |file: &str| {
        let out = crate::common::flowc()
            .current_dir(dir.path())
            .args(["check", "--format", "json", file])
            .output()
            .expect("runs");
        json_of(&out.stdout)
    };
    let codes = |v: &Value| {
        v["diagnostics"]
            .as_array()
            .expect("array")
            .iter()
            .map(|d| d["code"].as_str().unwrap_or_default().to_string())
            .collect::<Vec<_>>()
    };
    let v = run("top.flow");
    assert_eq!(codes(&v), ["FL702"], "{v}");
    assert!(v["diagnostics"][0]["message"]
        .as_str()
        .unwrap_or_default()
        .contains("`orders`"));
    let v = run("clash.flow");
    assert_eq!(codes(&v), ["FL703"], "{v}");
    let labels = v["diagnostics"][0]["labels"].as_array().expect("labels");
    assert_eq!(v["diagnostics"][0]["file"], "clash.flow", "{v}");
    assert!(labels.iter().any(|l| l["file"] == "base.flow"), "{v}");
    let v = run("cycle_a.flow");
    assert!(codes(&v).contains(&"FL005".to_string()), "{v}");
    w("missing.flow", "use \"nope.flow\"\n");
    let v = run("missing.flow");
    assert_eq!(codes(&v), ["FL005"], "{v}");
    // A file that imports itself is the shortest cycle (docs/language.md).
    w("self.flow", "use \"self.flow\"\n");
    let v = run("self.flow");
    assert_eq!(codes(&v), ["FL005"], "{v}");
    assert!(v["diagnostics"][0]["help"]
        .as_str()
        .unwrap_or_default()
        .contains("remove this `use`"));
    // A folder is not a file to import, said in flowc's words.
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    w("folder.flow", "use \"sub\"\n");
    let v = run("folder.flow");
    assert_eq!(codes(&v), ["FL005"], "{v}");
    let message = v["diagnostics"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("is a folder"), "{message}");
    assert!(!message.contains("os error"), "{message}");
}

/// FL802 for a command argument points at the `run` statement that holds
/// it; for an env value, at the task. Both messages are one line.
#[test]
fn argo_braces_in_a_command_point_at_the_run_statement() {
    let f = temp_flow(
        b"pipeline p {\n  image \"i\"\n  task load {\n    env {\n      JINJA \"{{ dag }}\"\n    }\n    run command [\"python\", \"-c\", \"print(1)\\n{{ ds }}\"]\n  }\n}\n",
    );
    let out_dir = tempfile::tempdir().expect("temp dir");
    let out = flowc()
        .args(["build", "--target", "argo", "--out"])
        .arg(out_dir.path())
        .arg(f.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Each finding: its message line, then `╭─[FILE:LINE:COLUMN]`.
    let found: Vec<(u64, u64, String)> = text
        .split("FL802(unsafe-for-target)")
        .skip(1)
        .map(|block| {
            let message = block
                .trim_start()
                .lines()
                .next()
                .unwrap_or_default()
                .to_owned();
            let at = block.split("╭─[").nth(1).unwrap_or_default();
            let at = at.split(']').next().unwrap_or_default();
            let mut nums = at.rsplit(':').map(|n| n.parse::<u64>().unwrap_or_default());
            let column = nums.next().unwrap_or_default();
            let line = nums.next().unwrap_or_default();
            (line, column, message)
        })
        .collect();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(
        (found[0].0, found[0].1),
        (3, 8),
        "the task name: {found:#?}"
    );
    assert!(found[0].2.contains("JINJA"), "{found:#?}");
    assert_eq!(
        (found[1].0, found[1].1),
        (7, 5),
        "the run statement: {found:#?}"
    );
    // The message of the command argument is one line, its `\n` escaped.
    assert!(found[1].2.contains(r"print(1)\n{{ ds }}"), "{found:#?}");
}

/// docs/reference/targets.md: headers name the source relative to its project root, never
/// by an absolute path of the machine.
#[test]
fn headers_never_name_an_absolute_path() {
    let f =
        temp_flow(b"pipeline p {\n  image \"i\"\n  task t {\n    run command [\"x\"]\n  }\n}\n");
    let absolute = f.path().canonicalize().expect("path");
    let name = absolute
        .file_name()
        .and_then(|n| n.to_str())
        .expect("name")
        .to_owned();
    for target in flowc::codegen::target::TARGETS.iter().map(|t| t.name) {
        let out_dir = tempfile::tempdir().expect("temp dir");
        let out = flowc()
            .args(["build", "--target", target, "--out"])
            .arg(out_dir.path())
            .arg(&absolute)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let mut seen = 0;
        for entry in std::fs::read_dir(out_dir.path()).expect("listed") {
            let path = entry.expect("entry").path();
            let text = std::fs::read_to_string(&path).expect("written");
            let dir = absolute.parent().and_then(|d| d.to_str()).expect("dir");
            assert!(!text.contains(dir), "{target}: {text}");
            // The pipeline's own file names its source; a support file none.
            let support = path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('_'));
            assert!(support || text.contains(&name), "{target}: {text}");
            seen += usize::from(!support);
        }
        assert_eq!(seen, 1, "{target}: one file for the pipeline");
    }
    // A file of this repository is named relative to the repository's root.
    let out_dir = tempfile::tempdir().expect("temp dir");
    let out = flowc()
        .args(["build", "--target", "airflow", "--out"])
        .arg(out_dir.path())
        .arg("examples/revenue_daily.flow")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = std::fs::read_to_string(out_dir.path().join("revenue_daily.py")).expect("written");
    assert!(text.contains("\"examples/revenue_daily.flow\""), "{text}");
}

/// docs/contributing.md, "How messages are written": messages are lowercase, with no programmer's detail such as
/// `(os error 40)`.
#[cfg(unix)]
#[test]
fn io_errors_are_said_in_the_house_style() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink("loop.flow", dir.path().join("loop.flow")).expect("link");
    let out = crate::common::flowc()
        .current_dir(dir.path())
        .args(["check", "loop.flow"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("cannot read `loop.flow`: too many levels"),
        "{text}"
    );
    assert!(!text.contains("os error"), "{text}");
}

/// Pipelines of different files of one run may not claim one output: the
/// same Argo name, or one task's module as another's transform. FL803, and
/// the second file writes nothing.
#[test]
fn outputs_claimed_by_pipelines_of_two_files_are_fl803() {
    let dir = tempfile::tempdir().expect("dir");
    let w = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).expect("write");
    let run = |args: &[&str]| {
        crate::common::flowc()
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .args(args)
            .output()
            .expect("runs")
    };
    let pipeline = |name: &str| {
        format!(
            "pipeline {name} {{\n  image \"i:1\"\n  task t {{\n    run command [\"x\"]\n  }}\n}}\n"
        )
    };
    w("a.flow", &pipeline("Orders_Daily"));
    w("b.flow", &pipeline("orders_daily"));
    let out = run(&[
        "build", "--target", "argo", "--out", "argo", "a.flow", "b.flow",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FL803") && text.contains("the Argo name `orders-daily`"),
        "{text}"
    );
    assert!(text.contains("b.flow:1:10]"), "{text}");
    assert!(dir.path().join("argo/Orders_Daily.yaml").is_file());
    assert!(!dir.path().join("argo/orders_daily.yaml").exists());
    // Airflow's DAG ids keep their case, but `Orders_Daily.py` and
    // `orders_daily.py` are one file where the file system ignores case.
    let out = run(&[
        "build", "--target", "airflow", "--out", "dags", "a.flow", "b.flow",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FL803") && text.contains("the DAG file `orders_daily.py`"),
        "{text}"
    );
    assert!(dir.path().join("dags/Orders_Daily.py").is_file());
    assert!(!dir.path().join("dags/orders_daily.py").exists());

    let task = |pipeline: &str, module: &str| {
        format!("pipeline {pipeline} {{\n  task t {{\n    run command [\"python\", \"-m\", \"{module}\"]\n  }}\n}}\n")
    };
    w("x1.flow", &task("p1", "m.x_transform"));
    w("x2.flow", &task("p2", "m.x"));
    let out = run(&[
        "scaffold", "--lang", "python", "--out", "py", "x1.flow", "x2.flow",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("would both write `m/x_transform.py`"),
        "{text}"
    );
    assert!(dir.path().join("py/m/x_transform.py").is_file());
    assert!(!dir.path().join("py/m/x.py").exists());
    // One finding per pair of pipelines, however many files they share.
    w("y1.flow", &task("q1", "n.x"));
    w("y2.flow", &task("q2", "n.x"));
    let out = run(&[
        "scaffold", "--lang", "python", "--out", "py2", "y1.flow", "y2.flow",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("FL803").count(), 1, "{text}");
    // A module in one file that is the package of another's module.
    w("z1.flow", &task("r1", "k.x"));
    w("z2.flow", &task("r2", "k.x.y"));
    let out = run(&[
        "scaffold", "--lang", "python", "--out", "py3", "z1.flow", "z2.flow",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("also a package"), "{text}");
}

/// A value a target cannot hold is found at the line that sets it: the
/// task's own, else the pipeline's.
#[test]
fn target_limits_point_at_the_setting() {
    let f = temp_flow(b"pipeline p {\n  image \"i\"\n  retries 4294967295\n  task t {\n    timeout 4294967295d\n    run command [\"a\"]\n  }\n}\n");
    for target in ["argo", "airflow"] {
        let out_dir = tempfile::tempdir().expect("temp dir");
        let out = flowc()
            .args(["build", "--target", target, "--out"])
            .arg(out_dir.path())
            .arg(f.path())
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(
            text.contains(":3:3]"),
            "{target}: retries at the pipeline's line: {text}"
        );
        assert!(
            text.contains(":5:5]"),
            "{target}: timeout at the task's line: {text}"
        );
    }
}
