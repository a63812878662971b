//! What a folder walk, configuration discovery, `--fix`, `fmt`, `init` and
//! `backfill` read, write and print, through the real binary (issue 27,
//! items 1 to 4 and 18): links named `x.flow` or `flowc.toml` that leave the
//! project root are neither read nor written through, nothing of a file that
//! is not `.flow` text is shown beyond its offending token, configuration
//! errors and diffs reach the terminal escaped, and a file name cannot end
//! a comment of backfill's output. Each test has a near miss beside it: a
//! link inside the root, a `.flow` file with a syntax error, a valid
//! configuration.

#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{flowc_in, Run};

/// `flowc` in `dir`, with a secret in its environment that no output may show.
fn walk_in(dir: &Path, args: &[&str]) -> Run {
    flowc_in(dir)
        .env("FLOWC_PROBE_SECRET", "SECRET_FROM_THE_ENVIRONMENT")
        .args(args)
        .run()
}

fn write(path: &Path, contents: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, contents).expect("write");
}

/// A temporary folder holding `outside/` (not in the project, with a
/// secret file and a shell script) and `proj/` (a git checkout).
fn layout() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let top = tempfile::tempdir().expect("temp dir");
    let root = top.path().canonicalize().expect("canonical");
    let outside = root.join("outside");
    let proj = root.join("proj");
    std::fs::create_dir_all(proj.join(".git")).expect("mkdir");
    write(
        &outside.join(".env"),
        "SECRET_TOKEN=hunter2_OUTSIDE\nOTHER=SECRET_OUTSIDE_TWO\n",
    );
    write(&outside.join("script.sh"), "#!/bin/sh\necho hello\n");
    (top, outside, proj)
}

const OK: &str = "source raw: files {\n  path \"data/in.csv\"\n  format \"csv\"\n}\n";

/// `proj` with a valid file, a link inside the root, and links named
/// `.flow` to the environment, `/etc/passwd` and a `.env` outside.
fn hostile_tree(outside: &Path, proj: &Path) {
    write(&proj.join("ok.flow"), OK);
    write(
        &proj.join("lib/real.flow"),
        OK.replace("raw", "other").as_str(),
    );
    symlink(proj.join("lib/real.flow"), proj.join("alias.flow")).expect("symlink");
    symlink("/proc/self/environ", proj.join("environ.flow")).expect("symlink");
    symlink("/etc/passwd", proj.join("passwd.flow")).expect("symlink");
    std::fs::create_dir_all(proj.join("sub")).expect("mkdir");
    symlink(outside.join(".env"), proj.join("sub/env.flow")).expect("symlink");
}

const SECRETS: [&str; 4] = [
    "SECRET_FROM_THE_ENVIRONMENT",
    "hunter2",
    "SECRET_OUTSIDE",
    "root:x:0",
];

fn assert_no_secret(r: &Run, what: &str) {
    for s in SECRETS {
        assert!(!r.all().contains(s), "{what}: `{s}` printed:\n{}", r.all());
    }
}

#[test]
fn a_folder_walk_reads_no_link_that_leaves_the_project_root() {
    let (_top, outside, proj) = layout();
    hostile_tree(&outside, &proj);
    for format in ["human", "json", "sarif", "github", "concise"] {
        let r = walk_in(&proj, &["check", "--output-format", format, "."]);
        assert_no_secret(&r, format);
        assert_eq!(r.code, Some(0), "{format}: {}", r.all());
    }
    let r = walk_in(&proj, &["check", "."]);
    for skipped in ["environ.flow", "passwd.flow", "sub/env.flow"] {
        assert!(
            r.stderr
                .lines()
                .any(|l| l.starts_with("warning: skipped") && l.contains(skipped)),
            "{skipped} not reported as skipped:\n{}",
            r.stderr
        );
    }
    // The near miss: the link inside the root is read like any file.
    let r = walk_in(
        &proj,
        &["check", "--output-format", "json", "--select", "FL", "."],
    );
    assert!(!r.stderr.contains("alias.flow"), "{}", r.stderr);
    for args in [
        &["graph", "."][..],
        &["report", "."],
        &["fmt", "--check", "."],
        &["check", "--with-importers", "ok.flow"],
        &["build", "--target", "ir", "--out", "out", "."],
    ] {
        let r = walk_in(&proj, args);
        assert_no_secret(&r, &args.join(" "));
    }
    // Named on the command line, such a link is refused, not read.
    for name in ["environ.flow", "passwd.flow", "sub/env.flow"] {
        let r = walk_in(&proj, &["check", name]);
        assert_eq!(r.code, Some(2), "{name}: {}", r.all());
        assert!(
            r.stderr.contains("outside the project root"),
            "{}",
            r.stderr
        );
        assert_no_secret(&r, name);
    }
    let r = walk_in(&proj, &["check", "alias.flow"]);
    assert_eq!(r.code, Some(0), "{}", r.all());
}

#[test]
fn a_fifo_or_device_named_on_the_command_line_is_refused_without_blocking() {
    let (_top, _outside, proj) = layout();
    let fifo = proj.join("pipe.flow");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let r = walk_in(&proj, &["check", "pipe.flow"]);
    assert_eq!(r.code, Some(2), "{}", r.all());
    assert!(r.stderr.contains("not a regular file"), "{}", r.stderr);
    // In a folder walk it is skipped, and said so.
    write(&proj.join("ok.flow"), OK);
    let r = walk_in(&proj, &["check", "."]);
    assert_eq!(r.code, Some(0), "{}", r.all());
    assert!(r.stderr.contains("skipped `pipe.flow`"), "{}", r.stderr);
}

#[test]
fn nothing_of_a_file_that_is_not_flow_text_is_shown_beyond_its_first_token() {
    let (_top, _outside, proj) = layout();
    write(
        &proj.join("dotenv.flow"),
        "SECRET_TOKEN=hunter2\nOTHER_SECRET=SECRET_OUTSIDE_TWO\n",
    );
    write(
        &proj.join("environ.flow"),
        "NO_COLOR=1\0SECRET_TOKEN=hunter2\0HOME=/root\0",
    );
    write(
        &proj.join("binary.flow"),
        "\u{7f}ELF\u{1}\u{1}hunter2 SECRET_OUTSIDE",
    );
    for name in ["dotenv.flow", "environ.flow", "binary.flow"] {
        for format in ["human", "json", "sarif", "github", "concise"] {
            let r = walk_in(&proj, &["check", "--output-format", format, name]);
            assert_eq!(r.code, Some(1), "{name} {format}: {}", r.all());
            assert_no_secret(&r, &format!("{name} {format}"));
            assert!(!r.all().contains('\0'), "{name} {format}: a NUL printed");
        }
    }
    // The near miss: a `.flow` file with a mistake further down is shown
    // with its lines around the mistake.
    write(
        &proj.join("typo.flow"),
        "source raw: files {\n  path \"data/in.csv\"\n  format \"csv\"\n  CONTEXT_LINE_SHOWN @@ 1\n}\n",
    );
    let r = walk_in(&proj, &["check", "typo.flow"]);
    assert_eq!(r.code, Some(1), "{}", r.all());
    assert!(r.stdout.contains("format \"csv\""), "{}", r.stdout);
}

#[test]
fn configuration_is_read_only_from_regular_files_inside_the_project_root() {
    let (_top, outside, proj) = layout();
    write(&proj.join("ok.flow"), OK);
    write(
        &outside.join("environ.toml"),
        "select = [\"FL\"]\nSECRET_TOKEN=hunter2_OUTSIDE\n",
    );
    symlink(outside.join("environ.toml"), proj.join("flowc.toml")).expect("symlink");
    for args in [
        &["check", "ok.flow"][..],
        &["check", "."],
        &["fmt", "--check", "."],
    ] {
        let r = walk_in(&proj, args);
        assert_eq!(r.code, Some(2), "{args:?}: {}", r.all());
        assert!(r.stderr.contains("flowc.toml"), "{}", r.stderr);
        assert!(
            r.stderr.contains("outside the project root"),
            "{}",
            r.stderr
        );
        assert_no_secret(&r, &args.join(" "));
    }
    std::fs::remove_file(proj.join("flowc.toml")).expect("rm");
    symlink("/proc/self/environ", proj.join("flowc.toml")).expect("symlink");
    let r = walk_in(&proj, &["check", "ok.flow"]);
    assert_eq!(r.code, Some(2), "{}", r.all());
    assert_no_secret(&r, "flowc.toml to /proc/self/environ");
    // The near miss: a link to a configuration inside the root is read.
    std::fs::remove_file(proj.join("flowc.toml")).expect("rm");
    write(
        &proj.join("config/flowc.toml"),
        "exclude = [\"bad.flow\"]\n",
    );
    symlink(proj.join("config/flowc.toml"), proj.join("flowc.toml")).expect("symlink");
    write(&proj.join("bad.flow"), "source raw: filez {\n}\n");
    let r = walk_in(&proj, &["check", "."]);
    assert_eq!(r.code, Some(0), "{}", r.all());
}

#[test]
fn a_configuration_above_the_repository_is_not_read() {
    let (_top, outside, proj) = layout();
    // `outside` and `proj` share a parent; a configuration there is above
    // the repository.
    let above = outside.parent().expect("parent").join("flowc.toml");
    write(&above, "exclude = [\"bad.flow\"]\n");
    write(&proj.join("bad.flow"), "source raw: filez {\n}\n");
    let r = walk_in(&proj, &["check", "."]);
    assert_eq!(
        r.code,
        Some(1),
        "the configuration above applied: {}",
        r.all()
    );
    // The near miss: the same file at the repository's root applies.
    std::fs::rename(&above, proj.join("flowc.toml")).expect("mv");
    let r = walk_in(&proj, &["check", "."]);
    assert_eq!(r.code, Some(0), "{}", r.all());
}

#[test]
fn a_toml_error_shows_an_escaped_excerpt_of_its_line_only() {
    let (_top, _outside, proj) = layout();
    write(&proj.join("ok.flow"), OK);
    let long = "A".repeat(300);
    write(
        &proj.join("flowc.toml"),
        &format!("select = [\"FL\"]\nx = \u{1b}]0;OWNED\u{7}\u{1b}[2J {long}TAIL_OF_THE_LINE\n"),
    );
    let r = walk_in(&proj, &["check", "ok.flow"]);
    assert_eq!(r.code, Some(2), "{}", r.all());
    assert!(r.stderr.contains("not valid TOML"), "{}", r.stderr);
    assert!(r.stderr.contains("line 2"), "{}", r.stderr);
    assert!(
        !r.all().contains('\u{1b}'),
        "an escape sequence printed: {:?}",
        r.stderr
    );
    assert!(!r.all().contains('\u{7}'), "a bell printed: {:?}", r.stderr);
    assert!(r.stderr.contains("\\u{1b}"), "{}", r.stderr);
    assert!(
        !r.stderr.contains("TAIL_OF_THE_LINE"),
        "the whole line: {}",
        r.stderr
    );
    assert!(r.stderr.len() < 1000, "{}", r.stderr);
}

#[test]
fn diffs_show_control_characters_escaped() {
    let (_top, _outside, proj) = layout();
    write(
        &proj.join("p.flow"),
        "# title \u{1b}]0;OWNED\u{7} and \u{1b}[2J\nsource raw: files {\npath \"data/in.csv\"\n      format csv\n}\n",
    );
    let r = walk_in(&proj, &["fmt", "--check", "p.flow"]);
    assert!(!r.all().contains('\u{1b}'), "{:?}", r.all());
    assert!(!r.all().contains('\u{7}'), "{:?}", r.all());
    let r = walk_in(&proj, &["check", "--diff", "p.flow"]);
    assert!(!r.all().contains('\u{1b}'), "{:?}", r.all());
}

#[test]
fn fmt_and_fix_never_write_through_a_link_that_leaves_the_root() {
    let (_top, outside, proj) = layout();
    symlink(outside.join("script.sh"), proj.join("script.flow")).expect("symlink");
    // The near miss: a badly laid out file reached through a link inside
    // the root is formatted, and the link kept.
    write(
        &proj.join("lib/real.flow"),
        "source raw: files {\npath \"data/in.csv\"\n      format \"csv\"\n}\n",
    );
    symlink(proj.join("lib/real.flow"), proj.join("alias.flow")).expect("symlink");
    let before = std::fs::read_to_string(outside.join("script.sh")).expect("read");
    for args in [
        &["fmt", "."][..],
        &["check", "--fix", "."],
        &["fmt", "script.flow"],
        &["check", "--fix", "script.flow"],
    ] {
        let _ = walk_in(&proj, args);
        assert_eq!(
            std::fs::read_to_string(outside.join("script.sh")).expect("read"),
            before,
            "{args:?} rewrote the file outside"
        );
    }
    let r = walk_in(&proj, &["fmt", "script.flow"]);
    assert_eq!(r.code, Some(2), "{}", r.all());
    assert!(proj
        .join("alias.flow")
        .symlink_metadata()
        .expect("link")
        .file_type()
        .is_symlink());
    let formatted = std::fs::read_to_string(proj.join("lib/real.flow")).expect("read");
    assert!(
        formatted.contains("\n  path "),
        "not formatted: {formatted}"
    );
}

#[test]
fn check_fix_and_diff_together_print_the_diff_and_write_nothing() {
    let (_top, _outside, proj) = layout();
    let text = "source raw: filez {\n  path \"data/in.csv\"\n}\n";
    write(&proj.join("p.flow"), text);
    let diff = walk_in(&proj, &["check", "--diff", "p.flow"]);
    assert_eq!(diff.code, Some(1), "the fixture has a fix: {}", diff.all());
    let r = walk_in(&proj, &["check", "--fix", "--diff", "p.flow"]);
    assert_eq!(r.code, Some(1), "{}", r.all());
    assert_eq!(r.stdout, diff.stdout);
    assert_eq!(
        std::fs::read_to_string(proj.join("p.flow")).expect("read"),
        text
    );
}

#[test]
fn init_refuses_a_dangling_link_where_a_starter_file_goes() {
    let (_top, outside, proj) = layout();
    symlink(outside.join("not-yet"), proj.join("pipeline.flow")).expect("symlink");
    let r = walk_in(&proj, &["init"]);
    assert_eq!(r.code, Some(2), "{}", r.all());
    assert!(r.stderr.contains("already exists"), "{}", r.stderr);
    assert!(proj
        .join("pipeline.flow")
        .symlink_metadata()
        .expect("link")
        .file_type()
        .is_symlink());
    assert!(!outside.join("not-yet").exists());
    assert!(!proj.join("README.md").exists());
}

const DAILY: &str = include_str!("../../../tests/argo/orders_daily.flow");

#[test]
fn a_file_name_cannot_end_a_comment_of_backfill_output() {
    let (_top, _outside, proj) = layout();
    let name = "a\n$(touch PWNED)`touch PWNED2`\n---\nkind: ConfigMap\n#.flow";
    write(&proj.join(name), DAILY);
    // The near miss first: the same pipeline under a plain name.
    write(&proj.join("plain.flow"), DAILY);
    let base = ["backfill", "--from", "2026-03-01", "--to", "2026-03-02"];
    let plain = walk_in(
        &proj,
        &[&base[..], &["--target", "argo", "plain.flow"]].concat(),
    );
    assert_eq!(plain.code, Some(0), "{}", plain.all());
    let documents = plain.stdout.lines().filter(|l| *l == "---").count();
    assert_eq!(documents, 2, "{}", plain.stdout);
    for target in ["argo", "airflow"] {
        let r = walk_in(&proj, &[&base[..], &["--target", target, name]].concat());
        assert_eq!(r.code, Some(0), "{target}: {}", r.all());
        let header: Vec<&str> = r
            .stdout
            .lines()
            .take_while(|l| l.starts_with('#'))
            .collect();
        assert!(
            header[0].contains("\\n$(touch PWNED)"),
            "{target}: {}",
            r.stdout
        );
        assert_eq!(
            r.stdout.lines().filter(|l| *l == "---").count(),
            if target == "argo" { 2 } else { 0 }
        );
        assert!(
            !r.stdout.lines().any(|l| l.starts_with("kind: ConfigMap")),
            "{}",
            r.stdout
        );
        // Every line is a comment, a document, or the one command.
        if target == "airflow" {
            let commands: Vec<&str> = r.stdout.lines().filter(|l| !l.starts_with('#')).collect();
            assert_eq!(commands.len(), 1, "{}", r.stdout);
            assert!(
                commands[0].starts_with("airflow backfill create"),
                "{}",
                r.stdout
            );
            // Run as the docs show (`| sh`), with an `airflow` that does nothing.
            let bin = proj.join("bin");
            write(&bin.join("airflow"), "#!/bin/sh\nexit 0\n");
            Command::new("chmod")
                .arg("+x")
                .arg(bin.join("airflow"))
                .status()
                .expect("chmod");
            let sh = Command::new("sh")
                .arg("-c")
                .arg(&r.stdout)
                .current_dir(&proj)
                .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
                .status()
                .expect("sh runs");
            assert!(sh.success());
            assert!(!proj.join("PWNED").exists(), "the file name ran a command");
            assert!(!proj.join("PWNED2").exists(), "the file name ran a command");
        }
    }
}

/// A pipeline of `tasks` hourly tasks.
fn hourly(tasks: usize) -> String {
    let task = "  task tN {\n    run command [\"python\", \"-m\", \"jobs.tN\"]\n  }\n";
    let body: String = (0..tasks)
        .map(|i| task.replace('N', &i.to_string()))
        .collect();
    format!("pipeline hourly {{\n  schedule \"0 * * * *\"\n  start 2026-01-01\n  timezone \"UTC\"\n  image \"img:1\"\n{body}}}\n")
}

#[test]
fn backfill_output_is_bounded_and_refused_before_it_is_rendered() {
    let (_top, _outside, proj) = layout();
    // 200 tasks: about 150 KiB per Workflow; a month of hours is 744 of
    // them, over 100 MiB (flowc 0.2 printed all of it, with 360 MB RSS).
    write(&proj.join("big.flow"), &hourly(200));
    let started = std::time::Instant::now();
    let r = walk_in(
        &proj,
        &[
            "backfill",
            "--from",
            "2026-03-01",
            "--to",
            "2026-03-31",
            "big.flow",
        ],
    );
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{} bytes printed", r.stdout.len());
    assert!(r.stderr.contains("more than the 64 MiB"), "{}", r.stderr);
    assert!(r.stderr.contains("744 Workflows"), "{}", r.stderr);
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
    // With `--out`, nothing is written either.
    let r = walk_in(
        &proj,
        &[
            "backfill",
            "--from",
            "2026-03-01",
            "--to",
            "2026-03-31",
            "--out",
            "b.yaml",
            "big.flow",
        ],
    );
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(!proj.join("b.yaml").exists());
    // The near miss: a day of it (24 Workflows, under 4 MiB) is printed.
    let r = walk_in(
        &proj,
        &[
            "backfill",
            "--from",
            "2026-03-01",
            "--to",
            "2026-03-01",
            "big.flow",
        ],
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout.lines().filter(|l| *l == "---").count(), 24);
}

#[test]
fn messages_naming_a_file_show_its_control_characters_escaped() {
    let (_top, _outside, proj) = layout();
    let name = "a\u{1b}]0;OWNED\u{7}\u{1b}[2J.flow";
    write(&proj.join(name), DAILY);
    write(
        &proj.join("lib/b\u{1b}[31m.flow"),
        "source raw: filez {\n}\n",
    );
    for args in [
        &["report", name][..],
        &["fmt", name],
        &["check", "--fix", "."],
        &["check", "nothing\u{1b}[2J.flow"],
    ] {
        let r = walk_in(&proj, args);
        assert!(!r.all().contains('\u{1b}'), "{args:?}: {:?}", r.all());
        assert!(!r.all().contains('\u{7}'), "{args:?}: {:?}", r.all());
    }
}

/// A link named `x.flow` to a file in another folder takes the settings of
/// the folder it sits in: the configuration beside its target (outside the
/// project) is never read, so none of it reaches an error (found by the
/// `walk` fuzz target: `select = ["<secret>"]` there was echoed as "no rule").
#[test]
fn a_link_never_brings_the_configuration_beside_its_target() {
    let (_top, outside, proj) = layout();
    write(&proj.join("ok.flow"), OK);
    write(&outside.join("secret.flow"), OK);
    write(
        &outside.join("flowc.toml"),
        "select = [\"SECRET_IN_CONFIG\"]\n",
    );
    symlink(outside.join("secret.flow"), proj.join("linked.flow")).expect("symlink");
    let run = walk_in(&proj, &["check", "."]);
    let all = run.all();
    assert!(!all.contains("SECRET_IN_CONFIG"), "{all}");
    assert!(all.contains("skipped `linked.flow`"), "{all}");
    assert_eq!(run.code, Some(0), "{all}");
    // Near miss: the same configuration inside the project is read and refused.
    write(&proj.join("flowc.toml"), "select = [\"NOT_A_RULE\"]\n");
    let run = walk_in(&proj, &["check", "."]);
    assert!(run.all().contains("NOT_A_RULE"), "{}", run.all());
    assert_eq!(run.code, Some(2), "{}", run.all());
}
