//! What `check` reads, and how much: `use` stays inside the project root and
//! reads only regular `.flow` files, files over the size limit are refused
//! unread, the answer does not depend on the number of cores, and the
//! findings of one file are capped (and counted) in every output format.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use crate::common::{flowc_in, Run};
use serde_json::Value;

/// Long enough for a debug build on a busy machine; a read that blocks or
/// runs away takes longer.
const LIMIT: Duration = Duration::from_secs(60);

/// The documented largest input file (docs/performance.md).
const SIZE_LIMIT: usize = 32 * 1024 * 1024;

fn check_json(dir: &Path, file: &str) -> (Run, Value) {
    let mut c = flowc_in(dir);
    c.timeout(LIMIT);
    c.args(["check", "--format", "json", file]);
    let r = c.run();
    let v = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.all()));
    (r, v)
}

fn diagnostics(v: &Value) -> &Vec<Value> {
    v["diagnostics"].as_array().expect("a list of findings")
}

/// A project: a folder with `flowc.toml`, inside a folder that has other
/// files next to it (outside the project).
fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let top = tempfile::tempdir().expect("temp dir");
    let proj = top.path().join("proj");
    std::fs::create_dir_all(proj.join("lib")).expect("mkdir");
    std::fs::write(proj.join("flowc.toml"), "").expect("write");
    std::fs::write(
        proj.join("lib/ok.flow"),
        "source raw: files {\n  path \"r/\"\n}\n",
    )
    .expect("write");
    (top, proj)
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write");
}

/// The FL005 messages of a run, in order.
fn import_errors(v: &Value) -> Vec<String> {
    diagnostics(v)
        .iter()
        .filter(|d| d["code"] == "FL005")
        .map(|d| d["message"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[cfg(unix)]
#[test]
fn use_reads_nothing_outside_the_project_root_and_prints_none_of_it() {
    let (top, proj) = project();
    write(
        &top.path().join("outside.flow"),
        "SECRET_OUTSIDE_LINE_ONE\nSECRET_OUTSIDE_LINE_TWO\n",
    );
    std::os::unix::fs::symlink(top.path().join("outside.flow"), proj.join("link.flow"))
        .expect("symlink");
    write(
        &proj.join("main.flow"),
        "use \"/proc/self/environ\"\nuse \"../outside.flow\"\nuse \"../../../../../../../../../../etc/passwd\"\nuse \"link.flow\"\n",
    );
    let mut c = flowc_in(&proj);
    c.timeout(LIMIT);
    c.env("FLOWC_PROBE_SECRET", "SECRET_FROM_THE_ENVIRONMENT")
        .args(["check", "--format", "json", "main.flow"]);
    let r = c.run();
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    for secret in ["SECRET_FROM_THE_ENVIRONMENT", "SECRET_OUTSIDE", "root:x:0"] {
        assert!(!r.all().contains(secret), "{secret} printed:\n{}", r.all());
    }
    let errors = import_errors(&v);
    assert_eq!(errors.len(), 4, "{v}");
    assert!(
        errors
            .iter()
            .all(|m| m.contains("outside the project root")),
        "{errors:?}"
    );
    assert!(errors[3].contains("link"), "{}", errors[3]);
    assert_eq!(diagnostics(&v).len(), 4, "nothing else is reported: {v}");
    // The human format does not print them either.
    let mut c = flowc_in(&proj);
    c.timeout(LIMIT);
    c.env("FLOWC_PROBE_SECRET", "SECRET_FROM_THE_ENVIRONMENT")
        .args(["check", "main.flow"]);
    let r = c.run();
    assert_eq!(r.code, Some(1));
    for secret in ["SECRET_FROM_THE_ENVIRONMENT", "SECRET_OUTSIDE", "root:x:0"] {
        assert!(!r.all().contains(secret), "{secret} printed:\n{}", r.all());
    }
}

#[cfg(unix)]
#[test]
fn use_inside_the_project_root_still_imports() {
    let (_top, proj) = project();
    std::os::unix::fs::symlink(proj.join("lib/ok.flow"), proj.join("alias.flow")).expect("symlink");
    std::fs::create_dir(proj.join("sub")).expect("mkdir");
    let absolute = proj.join("lib/ok.flow");
    for (name, path) in [
        ("relative.flow", "lib/ok.flow".to_string()),
        ("dotted.flow", "./lib/../lib/ok.flow".to_string()),
        ("absolute.flow", absolute.to_string_lossy().into_owned()),
        ("alias_user.flow", "alias.flow".to_string()),
    ] {
        write(
            &proj.join(name),
            &format!(
                "use \"{path}\"\n\nsink out: files {{\n  path \"o/\"\n}}\n\npipeline p {{\n  task t {{\n    read raw\n    write out append\n    require at_least_once\n    allow FL202 because \"test\"\n    allow FL304 because \"test\"\n    run command [\"x\"]\n  }}\n}}\n"
            ),
        );
        let (r, v) = check_json(&proj, name);
        assert!(import_errors(&v).is_empty(), "{name}: {v}");
        assert!(
            !diagnostics(&v).iter().any(|d| d["code"] == "FL702"),
            "{name}: `raw` is imported: {v}"
        );
        assert!(matches!(r.code, Some(0 | 1)), "{name}: {}", r.all());
    }
    // A file in a sub-folder imports from the project's other folders.
    write(&proj.join("sub/deep.flow"), "use \"../lib/ok.flow\"\n");
    let (r, v) = check_json(&proj, "sub/deep.flow");
    assert_eq!(r.code, Some(0), "{v}");
}

#[test]
fn use_reads_only_flow_files() {
    let (_top, proj) = project();
    write(&proj.join("notes.txt"), "SECRET_IN_A_TEXT_FILE {\n");
    write(&proj.join("main.flow"), "use \"notes.txt\"\nuse \"lib\"\n");
    let (r, v) = check_json(&proj, "main.flow");
    assert!(!r.all().contains("SECRET_IN_A_TEXT_FILE"), "{}", r.all());
    let errors = import_errors(&v);
    assert_eq!(errors.len(), 2, "{v}");
    assert!(errors[0].contains("only `.flow` files"), "{}", errors[0]);
    assert!(errors[1].contains("is a folder"), "{}", errors[1]);
    // The same text in a `.flow` file is read, and is a syntax error there.
    write(&proj.join("notes.flow"), "SECRET_IN_A_TEXT_FILE {\n");
    write(&proj.join("near.flow"), "use \"notes.flow\"\n");
    let (_, v) = check_json(&proj, "near.flow");
    assert!(import_errors(&v).is_empty(), "{v}");
    assert_eq!(diagnostics(&v)[0]["code"], "FL001", "{v}");
}

#[cfg(unix)]
#[test]
fn pipes_and_devices_are_never_opened_by_use_or_a_folder_walk() {
    let (_top, proj) = project();
    let made = std::process::Command::new("mkfifo")
        .arg(proj.join("pipe.flow"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    std::os::unix::fs::symlink("/dev/zero", proj.join("zero.flow")).expect("symlink");
    write(
        &proj.join("main.flow"),
        "use \"pipe.flow\"\nuse \"zero.flow\"\n",
    );
    let (_, v) = check_json(&proj, "main.flow");
    let errors = import_errors(&v);
    assert_eq!(errors.len(), 2, "{v}");
    assert!(errors[0].contains("not a regular file"), "{}", errors[0]);
    assert!(
        errors[1].contains("outside the project root"),
        "{}",
        errors[1]
    );
    // Checking the folder skips the pipe instead of waiting on it.
    std::fs::remove_file(proj.join("main.flow")).expect("rm");
    let (r, v) = check_json(&proj, ".");
    assert_eq!(r.code, Some(0), "{v}");
    assert_eq!(v["summary"]["files"], 1, "only lib/ok.flow: {v}");
}

#[test]
fn files_over_the_size_limit_are_refused_unread() {
    let (_top, proj) = project();
    let over = SIZE_LIMIT + 1;
    let mut big = "# a comment line to make the file large\n".repeat(over / 40 + 1);
    big.truncate(over);
    write(&proj.join("big.flow"), &big);
    write(&proj.join("main.flow"), "use \"big.flow\"\n");
    let (_, v) = check_json(&proj, "main.flow");
    let errors = import_errors(&v);
    assert_eq!(errors.len(), 1, "{v}");
    assert!(errors[0].contains("larger than 32 MiB"), "{}", errors[0]);
    // Named on the command line: a usage problem, before anything is checked.
    let mut c = flowc_in(&proj);
    c.timeout(LIMIT);
    c.args(["check", "big.flow"]);
    let r = c.run();
    assert_eq!(r.code, Some(2), "{}", r.all());
    assert!(r.all().contains("larger than 32 MiB"), "{}", r.all());
    // A device without end is never read, even named on the command line.
    #[cfg(unix)]
    {
        let mut c = flowc_in(&proj);
        c.timeout(LIMIT);
        c.args(["check", "/dev/zero"]);
        let r = c.run();
        assert_eq!(r.code, Some(2), "{}", r.all());
        assert!(r.all().contains("not a regular file"), "{}", r.all());
    }
    // Just under the limit is read and checked.
    big.truncate(SIZE_LIMIT - 100);
    big.push('\n');
    write(&proj.join("big.flow"), &big);
    let (r, v) = check_json(&proj, "main.flow");
    assert_eq!(r.code, Some(0), "{v}");
}

#[cfg(unix)]
#[test]
fn a_backslash_in_a_folder_name_is_part_of_the_name() {
    let top = tempfile::tempdir().expect("temp dir");
    std::fs::write(top.path().join("flowc.toml"), "").expect("write");
    let odd = top.path().join("a\\b");
    std::fs::create_dir(&odd).expect("mkdir");
    write(
        &odd.join("lib.flow"),
        "source raw: files {\n  path \"r/\"\n  immutable\n}\n",
    );
    write(
        &odd.join("main.flow"),
        "use \"lib.flow\"\n\nsink out: files {\n  path \"o/\"\n}\n\npipeline p {\n  task t {\n    read raw\n    write out append\n    require at_least_once\n    allow FL202 because \"test\"\n    run command [\"x\"]\n  }\n}\n",
    );
    // The folder that `a\b` would be with the backslash read as a separator.
    std::fs::create_dir_all(top.path().join("a/b")).expect("mkdir");
    write(&top.path().join("a/b/lib.flow"), "this is not the file\n");
    let (r, v) = check_json(top.path(), "a\\b/main.flow");
    assert_eq!(r.code, Some(0), "{v}");
    assert_eq!(v["summary"]["warnings"], 0, "{v}");
    assert!(import_errors(&v).is_empty(), "{v}");
}

/// `size` bytes or more of sink declarations, each line after the first
/// starting with `prefix`.
fn many_sinks(first: &str, prefix: &str, size: usize) -> String {
    let mut text = String::from(first);
    let mut i = 0;
    while text.len() < size {
        let _ = write!(text, "{prefix}sink s{i}: files {{\n  path \"x\"\n}}\n");
        i += 1;
    }
    text
}

/// `check`'s codes, on all cores and (where `taskset` exists) on one.
fn codes_on_any_core_count(dir: &Path, file: &str) -> Vec<Vec<String>> {
    let codes = |v: &Value| {
        diagnostics(v)
            .iter()
            .map(|d| d["code"].as_str().unwrap_or_default().to_string())
            .collect::<Vec<_>>()
    };
    let (_, v) = check_json(dir, file);
    let mut out = vec![codes(&v)];
    let pinned = std::process::Command::new("taskset")
        .args(["-c", "0", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if pinned {
        let out1 = std::process::Command::new("taskset")
            .args([
                "-c",
                "0",
                env!("CARGO_BIN_EXE_flowc"),
                "check",
                "--format",
                "json",
                file,
            ])
            .current_dir(dir)
            .output()
            .expect("runs");
        let v: Value = serde_json::from_slice(&out1.stdout).expect("json");
        out.push(codes(&v));
    }
    out
}

#[test]
fn a_byte_order_mark_after_blanks_is_an_error_on_any_core_count() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Past the size from which a file is parsed in chunks, every item but
    // the first behind blanks and a byte-order mark: a chunk may start there.
    let text = many_sinks(
        "sink first: files {\n  path \"x\"\n}\n",
        "  \u{feff}",
        330_000,
    );
    write(&dir.path().join("bom.flow"), &text);
    for codes in codes_on_any_core_count(dir.path(), "bom.flow") {
        assert_eq!(
            codes.first().map(String::as_str),
            Some("FL001"),
            "{codes:?}"
        );
    }
    // Blanks before a byte-order mark at the start of a file.
    write(
        &dir.path().join("lead.flow"),
        "  \u{feff}sink s: files {\n  path \"x\"\n}\n",
    );
    let (_, v) = check_json(dir.path(), "lead.flow");
    assert_eq!(diagnostics(&v)[0]["code"], "FL001", "{v}");
    // The near miss: one mark at byte 0 of the same large file is fine.
    let text = many_sinks(
        "\u{feff}sink first: files {\n  path \"x\"\n}\n",
        "",
        330_000,
    );
    write(&dir.path().join("ok.flow"), &text);
    for codes in codes_on_any_core_count(dir.path(), "ok.flow") {
        assert!(!codes.iter().any(|c| c == "FL001"), "{codes:?}");
    }
}

/// A pipeline past the size from which a file is parsed in chunks, its
/// `param` lines after its tasks: the chunked parse dropped the params of
/// every chunk but the first, and with them their findings.
#[test]
fn a_large_pipeline_keeps_its_params_after_its_tasks_on_any_core_count() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = |params: &str| {
        let mut text = String::from(concat!(
            "source s: files {\n  path \"in/{interval.start}/\"\n  immutable\n  identity id\n}\n",
            "sink o: postgres_table {\n  table \"t\"\n  primary_key id\n}\n",
            "pipeline p {\n  schedule \"@daily\"\n  start 2026-01-01\n",
        ));
        // Each task after the one before: one writer of `o` at a time.
        let mut i = 0;
        while text.len() < 330_000 {
            let after = if i > 0 {
                format!("    after t{}\n", i - 1)
            } else {
                String::new()
            };
            let _ = write!(
                text,
                "  task t{i} {{\n{after}    read s pinned listing\n    key input.id\n    write o upsert\n    run command [\"echo\"]\n  }}\n"
            );
            i += 1;
        }
        text.push_str(params);
        text.push_str("}\n");
        text
    };
    write(
        &dir.path().join("twice.flow"),
        &file("  param region: string\n  param region: string\n"),
    );
    for codes in codes_on_any_core_count(dir.path(), "twice.flow") {
        assert!(codes.iter().any(|c| c == "FL007"), "{codes:?}");
    }
    // The near miss: one param is no finding.
    write(
        &dir.path().join("once.flow"),
        &file("  param region: string\n"),
    );
    for codes in codes_on_any_core_count(dir.path(), "once.flow") {
        assert!(!codes.iter().any(|c| c == "FL007"), "{codes:?}");
    }
}

/// A sink with `n + 1` `path` lines: `n` FL007 errors.
fn duplicate_settings(n: usize) -> String {
    format!("sink s: files {{\n{}}}\n", "  path \"x\"\n".repeat(n + 1))
}

/// Findings past the cap are counted as they come, not kept (issue 27,
/// item 13): the totals stay exact, `--statistics` counts every finding of
/// each rule (it counted only the listed ones), and the listed ones are the
/// first in the file even when a rule finds them after the resolver found
/// hundreds further down.
#[test]
fn findings_past_the_cap_keep_exact_counts_per_rule() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fixture = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/rules/FL207/trigger.flow"),
    )
    .expect("FL207 fixture");
    // FL207 and FL704 (found by rules, after the resolver) come first in
    // the file; 999 FL007 (found by the resolver) after them.
    let text = format!("{fixture}\n{}", duplicate_settings(999));
    write(&dir.path().join("mix.flow"), &text);
    let run = |args: &[&str]| {
        let mut c = flowc_in(dir.path());
        c.timeout(LIMIT);
        c.arg("check").args(args).arg("mix.flow");
        c.run()
    };
    let stats = run(&["--statistics"]);
    assert_eq!(stats.code, Some(1), "{}", stats.all());
    assert_eq!(
        stats.stdout,
        "  999  FL007  error    duplicate-setting\n\
         \x20   1  FL207  warning  concurrent-writers\n\
         \x20   1  FL704  warning  unused-declaration\n\
         999 errors, 2 warnings in 1 file\n\
         801 more findings not shown: at most 200 are listed per file\n"
    );
    let (_, v) = check_json(dir.path(), "mix.flow");
    let listed = diagnostics(&v);
    assert_eq!(listed.len(), 200);
    let codes: Vec<&str> = listed[..3]
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(codes, ["FL207", "FL704", "FL007"], "{v}");
    assert_eq!(v["summary"]["errors"], 999, "{}", v["summary"]);
    assert_eq!(v["summary"]["warnings"], 2, "{}", v["summary"]);
    assert_eq!(v["summary"]["omitted"], 801, "{}", v["summary"]);
    // Ignoring the rule that has the most findings leaves no omission.
    let ignored = run(&["--statistics", "--ignore", "FL007"]);
    assert!(
        ignored.stdout.ends_with("0 errors, 2 warnings in 1 file\n"),
        "{}",
        ignored.all()
    );
}

#[test]
fn findings_past_the_cap_are_counted_in_every_format() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(&dir.path().join("many.flow"), &duplicate_settings(999));
    let (r, v) = check_json(dir.path(), "many.flow");
    assert_eq!(r.code, Some(1));
    assert_eq!(diagnostics(&v).len(), 200, "at most 200 listed");
    assert_eq!(v["summary"]["errors"], 999, "{}", v["summary"]);
    assert_eq!(v["summary"]["omitted"], 799, "{}", v["summary"]);

    let format = |f: &str| {
        let mut c = flowc_in(dir.path());
        c.timeout(LIMIT);
        c.args(["check", "--format", f, "many.flow"]);
        c.run()
    };
    let human = format("human");
    assert_eq!(
        human.stdout.matches("FL007(duplicate-setting)").count(),
        200
    );
    assert!(
        human
            .stdout
            .contains("999 errors, 0 warnings in 1 file\n799 more findings not shown: at most 200 are listed per file"),
        "{}",
        &human.stdout[human.stdout.len().saturating_sub(300)..]
    );
    let github = format("github");
    assert_eq!(
        github
            .stdout
            .lines()
            .filter(|l| l.starts_with("::error "))
            .count(),
        200
    );
    assert!(github.stdout.contains("799 more findings not shown"));
    let sarif: Value = serde_json::from_str(&format("sarif").stdout).expect("sarif json");
    let run0 = &sarif["runs"][0];
    assert_eq!(run0["results"].as_array().map(Vec::len), Some(200));
    assert_eq!(run0["properties"]["omitted"], 799, "{}", run0["properties"]);
    assert!(
        run0["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("799"))
    );

    // The near miss: exactly 200 findings are all listed, and nothing is said.
    write(
        &dir.path().join("two_hundred.flow"),
        &duplicate_settings(200),
    );
    let (_, v) = check_json(dir.path(), "two_hundred.flow");
    assert_eq!(diagnostics(&v).len(), 200);
    assert!(v["summary"].get("omitted").is_none(), "{}", v["summary"]);
    let mut c = flowc_in(dir.path());
    c.timeout(LIMIT);
    c.args(["check", "two_hundred.flow"]);
    assert!(!c.run().stdout.contains("not shown"));
    let mut c = flowc_in(dir.path());
    c.timeout(LIMIT);
    c.args(["check", "--format", "sarif", "two_hundred.flow"]);
    let sarif: Value = serde_json::from_str(&c.run().stdout).expect("sarif json");
    assert!(sarif["runs"][0].get("invocations").is_none());
}

#[test]
fn an_error_past_the_cap_still_stops_the_build() {
    let dir = tempfile::tempdir().expect("temp dir");
    // 250 warnings (reads without a pin) come first; the one error (a
    // duplicate setting) is the last finding.
    let text = format!(
        "source s: files {{\n  path \"x\"\n}}\n\npipeline p {{\n  task t {{\n{}    run command [\"x\"]\n  }}\n}}\n\nsink z: files {{\n  path \"a\"\n  path \"b\"\n}}\n",
        "    read s\n".repeat(250)
    );
    write(&dir.path().join("p.flow"), &text);
    let (r, v) = check_json(dir.path(), "p.flow");
    assert_eq!(r.code, Some(1), "{}", v["summary"]);
    assert!(!diagnostics(&v).iter().any(|d| d["severity"] == "error"));
    assert_eq!(v["summary"]["errors"], 1, "{}", v["summary"]);
    let out = dir.path().join("out");
    let mut c = flowc_in(dir.path());
    c.timeout(LIMIT);
    c.args(["build", "--target", "airflow", "--out"])
        .arg(&out)
        .arg("p.flow");
    let r = c.run();
    assert_eq!(r.code, Some(1), "{}", r.all());
    let written = std::fs::read_dir(&out).map_or(0, Iterator::count);
    assert_eq!(written, 0, "nothing is written for a file with errors");
}

/// Peak memory of a run in KiB, where GNU time is installed.
fn peak_kib(dir: &Path, args: &[&str]) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return None;
    }
    let out = std::process::Command::new(time)
        .args(["-f", "PEAK %M"])
        .arg(env!("CARGO_BIN_EXE_flowc"))
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    let err = String::from_utf8_lossy(&out.stderr);
    err.lines()
        .find_map(|l| l.strip_prefix("PEAK "))
        .and_then(|n| n.trim().parse().ok())
}

#[test]
fn a_file_full_of_findings_has_bounded_output_and_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    // About 1 MiB, 100,000 duplicate settings.
    write(&dir.path().join("dup.flow"), &duplicate_settings(100_000));
    let (r, v) = check_json(dir.path(), "dup.flow");
    assert_eq!(v["summary"]["errors"], 100_000);
    assert!(
        r.stdout.len() < 200_000,
        "{} bytes of output",
        r.stdout.len()
    );
    if let Some(kib) = peak_kib(dir.path(), &["check", "--format", "json", "dup.flow"]) {
        assert!(kib < 400 * 1024, "{kib} KiB for a 1 MiB file");
    }
}

/// `n` tasks that write one sink and `n` that read it: `n * n` data-flow
/// edges from a file that grows with `n`.
fn fan(n: usize) -> String {
    let mut s = String::from(
        "source raw: files {\n  path \"raw/{interval.start}/\"\n  immutable\n  identity id\n}\n\nsink staging: postgres_table {\n  table \"t.staging\"\n  primary_key id\n}\n\n",
    );
    for i in 0..n {
        let _ = writeln!(
            s,
            "sink out{i}: postgres_table {{\n  table \"t.out{i}\"\n  primary_key id\n}}\n"
        );
    }
    s.push_str("pipeline fan {\n  schedule \"@daily\"\n  start 2026-01-01\n  require at_least_once\n  image \"r/i:1\"\n  state staging\n");
    for i in 0..n {
        let _ = writeln!(
            s,
            "  task load{i} {{\n    read raw pinned listing\n    key input.id\n    write staging upsert\n    run command [\"x\"]\n  }}"
        );
    }
    for i in 0..n {
        let _ = writeln!(
            s,
            "  task report{i} {{\n    read staging pinned snapshot\n    key input.id\n    write out{i} upsert\n    run command [\"x\"]\n  }}"
        );
    }
    s.push_str("}\n");
    s
}

/// Issue 27, item 13: 1,000 writers and 1,000 readers of one sink used to
/// give a 6 MB DAG from a 262 KB file (and 2,000 of each, four million
/// edges and 440 MB). Past 100,000 data-flow edges the pipeline is refused
/// with FL708, on both targets, and nothing is written; just under the
/// limit it builds, and its DAG stays linear in the tasks only where the
/// graph allows (the near miss builds).
#[test]
fn a_quadratic_task_graph_is_refused_not_generated() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("dense.flow"), fan(1000)).expect("write");
    let (r, v) = check_json(dir.path(), "dense.flow");
    assert_eq!(r.code, Some(1), "{}", r.all());
    let dense: Vec<&Value> = diagnostics(&v)
        .iter()
        .filter(|d| d["code"] == "FL708")
        .collect();
    assert_eq!(dense.len(), 1, "{}", r.all());
    assert!(
        dense[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("1,000,000 data-flow edges")),
        "{}",
        dense[0]
    );
    // Without the data-flow edges, "nothing orders them" would be untrue.
    assert!(
        !diagnostics(&v).iter().any(|d| d["code"] == "FL207"),
        "{}",
        r.all()
    );
    for target in ["airflow", "argo"] {
        let b = flowc_in(dir.path())
            .args(["build", "--target", target, "--out", target, "dense.flow"])
            .run();
        assert_eq!(b.code, Some(1), "{}", b.all());
        assert!(b.all().contains("FL708"), "{}", b.all());
        let written = std::fs::read_dir(dir.path().join(target)).map_or(0, Iterator::count);
        assert_eq!(written, 0, "{target}: {}", b.all());
    }

    // Near miss: 316 x 316 = 99,856 edges builds.
    std::fs::write(dir.path().join("near.flow"), fan(316)).expect("write");
    let (r, v) = check_json(dir.path(), "near.flow");
    assert!(
        !diagnostics(&v).iter().any(|d| d["code"] == "FL708"),
        "{}",
        r.all()
    );
    let b = flowc_in(dir.path())
        .args(["build", "--target", "airflow", "--out", "near", "near.flow"])
        .run();
    assert!(b.all().contains("wrote"), "{}", b.all());
    assert!(dir.path().join("near/fan.py").is_file(), "{}", b.all());
}

/// Issue 27, item 20: `start 0202-06-01` on an hourly pipeline passed and its
/// DAG asked Airflow for 16 million catch-up runs, while `backfill` refused
/// the same range. A date before 1970-01-01 is now FL002, so neither the DAG
/// nor a backfill is made; 1970-01-01 itself passes.
#[test]
fn a_start_before_1970_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let flow = |start: &str| {
        format!(
            "sink s: postgres_table {{\n  table \"t\"\n  primary_key id\n}}\n\npipeline p {{\n  schedule \"@hourly\"\n  start {start}\n  require at_least_once\n  task t {{\n    write s append\n    run command [\"x\"]\n  }}\n}}\n"
        )
    };
    std::fs::write(dir.path().join("old.flow"), flow("0202-06-01")).expect("write");
    let (r, v) = check_json(dir.path(), "old.flow");
    assert_eq!(r.code, Some(1), "{}", r.all());
    assert!(
        diagnostics(&v).iter().any(|d| d["code"] == "FL002"
            && d["message"]
                .as_str()
                .is_some_and(|m| m.contains("before 1970-01-01"))),
        "{}",
        r.all()
    );
    let b = flowc_in(dir.path())
        .args(["build", "--target", "airflow", "--out", "dags", "old.flow"])
        .run();
    assert_eq!(b.code, Some(1), "{}", b.all());
    assert!(!dir.path().join("dags/p.py").exists(), "{}", b.all());

    std::fs::write(dir.path().join("epoch.flow"), flow("1970-01-01")).expect("write");
    let (r, v) = check_json(dir.path(), "epoch.flow");
    assert!(
        !diagnostics(&v).iter().any(|d| d["code"] == "FL002"),
        "{}",
        r.all()
    );
}
