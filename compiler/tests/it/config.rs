//! Which configuration file is in force, through the real binary: the
//! closest one wins, in one folder `flowc.toml` beats `pyproject.toml`, a
//! `pyproject.toml` without `[tool.flowc]` is passed over, the command line
//! beats the file, `--isolated` reads none and `--config PATH` exactly PATH;
//! and every mistake in a file is an error naming the file and the key.

use std::path::Path;

use crate::common::{flowc_in, Run};

const APPEND: &str = include_str!("../../../tests/fixtures/rules/FL202/trigger.flow");

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    dir
}

/// The rule codes reported for `file`, and the configuration `--show-settings` names for it.
fn seen(dir: &Path, file: &str, extra: &[&str]) -> (Vec<String>, String) {
    let mut args = vec!["check", "--output-format", "concise", "-q", file];
    args.extend_from_slice(extra);
    let Run {
        stdout: out,
        stderr: err,
        ..
    } = flowc_in(dir).args(&args).run();
    assert!(err.is_empty(), "{err}");
    let codes = out
        .lines()
        .filter_map(|l| l.split(": ").nth(1)?.split(' ').next().map(str::to_owned))
        .collect();
    let mut args = vec!["check", "--show-settings", file];
    args.extend_from_slice(extra);
    let Run {
        code,
        stdout: settings,
        stderr: err,
    } = flowc_in(dir).args(&args).run();
    assert_eq!(code, Some(0), "{err}");
    let origin = settings.lines().next().unwrap_or_default().to_owned();
    (codes, origin)
}

#[test]
fn the_closest_configuration_wins_and_flowc_toml_beats_pyproject_in_one_folder() {
    let dir = project(&[
        ("flowc.toml", "ignore = [\"FL900\"]\n"),
        ("a/pyproject.toml", "[tool.flowc]\nignore = [\"FL202\"]\n"),
        ("a/p.flow", APPEND),
        ("a/b/pyproject.toml", "[tool.ruff]\nline-length = 100\n"),
        ("a/b/p.flow", APPEND),
        ("c/pyproject.toml", "[tool.flowc]\nignore = [\"FL202\"]\n"),
        ("c/flowc.toml", "select = [\"FL202\"]\n"),
        ("c/p.flow", APPEND),
        ("p.flow", APPEND),
    ]);
    let d = dir.path();
    // The top flowc.toml.
    let (codes, origin) = seen(d, "p.flow", &[]);
    assert_eq!(codes, ["FL202"]);
    assert!(
        origin.ends_with("flowc.toml`") && !origin.contains("/c/"),
        "{origin}"
    );
    // a/pyproject.toml is closer than the top flowc.toml: it alone applies.
    let (codes, origin) = seen(d, "a/p.flow", &[]);
    assert_eq!(codes, ["FL900"]);
    assert!(origin.ends_with("a/pyproject.toml`"), "{origin}");
    // a/b/pyproject.toml has no [tool.flowc]: passed over for a/pyproject.toml.
    let (codes, origin) = seen(d, "a/b/p.flow", &[]);
    assert_eq!(codes, ["FL900"]);
    assert!(origin.ends_with("a/pyproject.toml`"), "{origin}");
    // In c/, flowc.toml beats pyproject.toml.
    let (codes, origin) = seen(d, "c/p.flow", &[]);
    assert_eq!(codes, ["FL202"]);
    assert!(origin.ends_with("c/flowc.toml`"), "{origin}");
    // The command line beats the file: --select starts afresh.
    let (codes, _) = seen(d, "c/p.flow", &["--select", "FL900"]);
    assert_eq!(codes, ["FL900"]);
    // --isolated reads none.
    let (codes, origin) = seen(d, "c/p.flow", &["--isolated"]);
    assert_eq!(codes, ["FL900", "FL202"]);
    assert_eq!(origin, "config: none (--isolated)");
    // --config PATH uses exactly that file for every file.
    let (codes, origin) = seen(d, "c/p.flow", &["--config", "a/pyproject.toml"]);
    assert_eq!(codes, ["FL900"]);
    assert_eq!(
        origin,
        "config: `a/pyproject.toml`".replace(
            "a/",
            &format!("{}/a/", d.canonicalize().expect("c").display())
        )
    );
    // One run over all files: each file by its own configuration.
    let Run { stdout: out, .. } = flowc_in(d)
        .args(["check", "--output-format", "concise", "-q"])
        .run();
    assert!(
        out.lines()
            .any(|l| l.starts_with("a/p.flow") && l.contains("FL900")),
        "{out}"
    );
    assert!(
        !out.lines()
            .any(|l| l.starts_with("a/p.flow") && l.contains("FL202")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("p.flow") && l.contains("FL202")),
        "{out}"
    );
}

#[test]
fn show_settings_prints_what_is_in_force() {
    let config = "select = [\"FL2\", \"FL900\"]\nignore = [\"FL207\"]\ntarget = \"argo\"\nexclude = [\"gen\"]\n\
                  [severity]\nFL202 = \"error\"\n[per-file-ignores]\n\"legacy/*.flow\" = [\"FL900\"]\n";
    let dir = project(&[("flowc.toml", config)]);
    let Run {
        code, stdout: out, ..
    } = flowc_in(dir.path())
        .args(["check", "--show-settings"])
        .run();
    assert_eq!(code, Some(0));
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("config: `") && lines[0].ends_with("flowc.toml`"),
        "{out}"
    );
    assert_eq!(lines[1], "target: argo");
    assert!(
        lines[2].starts_with("enabled: FL001 FL005 FL201 FL202"),
        "{out}"
    );
    assert!(
        !lines[2].contains("FL207") && lines[2].contains("FL706") && lines[2].ends_with("FL900")
    );
    assert!(lines[3].starts_with("disabled: FL002"), "{out}");
    assert_eq!(lines[4], "severity: FL202=error");
    assert_eq!(lines[6], "  \"legacy/*.flow\" = FL900");
    assert_eq!(lines[7], "exclude: gen");
    let Run { stdout: out, .. } = flowc_in(dir.path())
        .args([
            "check",
            "--show-settings",
            "--target",
            "airflow",
            "--isolated",
        ])
        .run();
    assert!(
        out.contains("target: airflow") && out.contains("disabled: none"),
        "{out}"
    );
}

#[test]
fn mistakes_in_a_configuration_name_the_file_and_the_key() {
    let cases: [(&str, &str, &[&str]); 9] = [
        (
            "flowc.toml",
            "selct = [\"FL202\"]\n",
            &["`selct`", "select"],
        ),
        (
            "flowc.toml",
            "select = [\"FL999\"]\n",
            &["`select`", "FL999"],
        ),
        (
            "flowc.toml",
            "ignore = \"FL202\"\n",
            &["`ignore`", "list of strings"],
        ),
        (
            "flowc.toml",
            "[severity]\nFL202 = \"fatal\"\n",
            &["`severity`", "fatal"],
        ),
        (
            "flowc.toml",
            "[severity]\nFL001 = \"warning\"\n",
            &["`severity`", "FL001", "always an error"],
        ),
        (
            "flowc.toml",
            "[per-file-ignores]\n\"a/[\" = [\"FL202\"]\n",
            &["`per-file-ignores`", "a/["],
        ),
        ("flowc.toml", "exclude = [\"{a\"]\n", &["`exclude`", "{a"]),
        ("flowc.toml", "select = [\n", &["not valid TOML"]),
        (
            "pyproject.toml",
            "[tool.flowc]\nignor = []\n",
            &["`tool.flowc.ignor`", "ignore"],
        ),
    ];
    for (name, text, words) in cases {
        let dir = project(&[(name, text), ("p.flow", APPEND)]);
        let Run {
            code,
            stdout: out,
            stderr: err,
        } = flowc_in(dir.path()).args(["check"]).run();
        assert_eq!(code, Some(2), "{text}: {out}{err}");
        assert!(
            err.starts_with("error: ") && err.contains(name),
            "{text}: {err}"
        );
        for w in words {
            assert!(err.contains(w), "{text}: `{w}` not in {err}");
        }
        assert!(!err.contains("panicked"), "{err}");
    }
    // A near miss: the same keys spelled right are accepted.
    let dir = project(&[
        (
            "flowc.toml",
            "select = [\"FL2\"]\nignore = [\"FL207\"]\n[severity]\nFL202 = \"error\"\n",
        ),
        ("p.flow", APPEND),
    ]);
    let Run {
        code,
        stdout: out,
        stderr: err,
    } = flowc_in(dir.path()).args(["check"]).run();
    assert_eq!(code, Some(1), "{out}{err}");
    // --config of a missing file, or of a pyproject.toml without the table.
    let Run {
        code, stderr: err, ..
    } = flowc_in(dir.path())
        .args(["check", "--config", "nope.toml"])
        .run();
    assert_eq!(code, Some(2));
    assert!(err.contains("nope.toml"), "{err}");
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\nname = \"x\"\n",
    )
    .expect("write");
    let Run {
        code, stderr: err, ..
    } = flowc_in(dir.path())
        .args(["check", "--config", "pyproject.toml"])
        .run();
    assert_eq!(code, Some(2));
    assert!(err.contains("[tool.flowc]"), "{err}");
    let Run {
        code, stderr: err, ..
    } = flowc_in(dir.path())
        .args(["check", "--config", "flowc.toml", "--isolated"])
        .run();
    assert_eq!(code, Some(2), "{err}");
}

/// One LSP message from `out`.
fn lsp_message(out: &mut impl std::io::BufRead) -> Option<serde_json::Value> {
    let mut len = 0;
    loop {
        let mut line = String::new();
        if out.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            len = n.parse().ok()?;
        }
    }
    let mut body = vec![0; len];
    out.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The codes `flowc lsp` publishes for `file` opened with `text`.
fn lsp_codes(dir: &Path, file: &Path, text: &str) -> Vec<String> {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = crate::common::flowc()
        .arg("lsp")
        .current_dir(dir)
        .env("XDG_CACHE_HOME", dir)
        .std_command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("flowc lsp starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let uri = format!("file://{}", file.display());
    let messages = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"processId": null, "rootUri": null, "capabilities": {}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params":
            {"textDocument": {"uri": uri, "languageId": "flow", "version": 1, "text": text}}}),
    ];
    for m in messages {
        let body = m.to_string();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
    }
    stdin.flush().expect("flush");
    let mut codes = None;
    for _ in 0..50 {
        let Some(m) = lsp_message(&mut out) else {
            break;
        };
        if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str() {
            codes = Some(
                m["params"]["diagnostics"]
                    .as_array()
                    .expect("a list")
                    .iter()
                    .map(|d| d["code"].as_str().unwrap_or_default().to_owned())
                    .collect(),
            );
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    codes.expect("diagnostics published")
}

#[test]
fn the_language_server_honours_the_configuration() {
    let dir = project(&[("p.flow", APPEND)]);
    let file = dir.path().canonicalize().expect("canonical").join("p.flow");
    let all = lsp_codes(dir.path(), &file, APPEND);
    assert!(
        all.contains(&"FL202".to_owned()) && all.contains(&"FL900".to_owned()),
        "{all:?}"
    );
    std::fs::write(dir.path().join("flowc.toml"), "ignore = [\"FL202\"]\n").expect("write");
    let some = lsp_codes(dir.path(), &file, APPEND);
    assert!(
        !some.contains(&"FL202".to_owned()) && some.contains(&"FL900".to_owned()),
        "{some:?}"
    );
}

#[test]
fn the_documented_configurations_are_accepted() {
    let page =
        std::fs::read_to_string(crate::common::repo_root().join("docs/tooling.md")).expect("page");
    let section = page
        .split("## Configuration\n")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a Configuration section");
    let blocks: Vec<&str> = section
        .split("```toml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .collect();
    assert_eq!(blocks.len(), 2, "a flowc.toml and a pyproject.toml");
    for block in blocks {
        let name = if block.contains("[tool.flowc]") {
            "pyproject.toml"
        } else {
            "flowc.toml"
        };
        let dir = project(&[(name, block), ("legacy/p.flow", APPEND)]);
        let Run {
            code,
            stdout: out,
            stderr: err,
        } = flowc_in(dir.path())
            .args(["check", "--show-settings"])
            .run();
        assert_eq!(code, Some(0), "{name}: {err}");
        assert!(out.contains(name) && out.contains("target: argo"), "{out}");
        assert!(
            out.contains("FL202=error") && out.contains("\"legacy/**\""),
            "{out}"
        );
        // A check under it runs: FL900 and FL2 ignored in legacy/, the
        // target's FL807 reported.
        let Run {
            code,
            stdout: out,
            stderr: err,
        } = flowc_in(dir.path())
            .args(["check", "--output-format", "concise"])
            .run();
        assert_eq!(code, Some(0), "{out}{err}");
        assert!(!out.contains("FL900") && !out.contains("FL202"), "{out}");
        assert!(out.contains("FL807"), "{out}");
    }
}

/// `--config KEY=VALUE` (ruff's form): a line of TOML whose key replaces the
/// configuration file's, repeated, checked as the file's keys are.
#[test]
fn config_key_value_lines_override_the_file() {
    let dir = project(&[
        (
            "flowc.toml",
            "ignore = [\"FL202\", \"FL900\"]\ntarget = \"airflow\"\n",
        ),
        ("p.flow", APPEND),
    ]);
    // The file alone: FL202 ignored.
    let Run { code, stdout, .. } = flowc_in(dir.path()).args(["check", "p.flow"]).run();
    assert_eq!(code, Some(0), "{stdout}");
    // `ignore = ["FL900"]` replaces the file's list: FL202 reports; the
    // file's `target` stays unless a second line replaces it.
    let Run {
        code,
        stdout: out,
        stderr: err,
    } = flowc_in(dir.path())
        .args(["check", "--config", "ignore = [\"FL900\"]", "p.flow"])
        .run();
    assert_eq!(code, Some(0), "a warning: {out}{err}");
    assert!(out.contains("FL202"), "{out}");
    let Run { stdout: out, .. } = flowc_in(dir.path())
        .args([
            "check",
            "--show-settings",
            "--config",
            "ignore = []",
            "--config",
            "target = \"argo\"",
        ])
        .run();
    assert!(
        out.contains("target: argo")
            && out.contains("disabled: none")
            && out.contains("flowc.toml"),
        "{out}"
    );
    // With a file named by `--config` too, and with `--isolated`.
    let Run { stdout: out, .. } = flowc_in(dir.path())
        .args([
            "check",
            "--show-settings",
            "--config",
            "flowc.toml",
            "--config",
            "target = \"argo\"",
        ])
        .run();
    assert!(
        out.contains("target: argo") && out.contains("disabled: FL202 FL900"),
        "{out}"
    );
    let Run { stdout: out, .. } = flowc_in(dir.path())
        .args([
            "check",
            "--show-settings",
            "--isolated",
            "--config",
            "target = \"argo\"",
        ])
        .run();
    assert!(
        out.contains("--isolated") && out.contains("target: argo"),
        "{out}"
    );
    // Mistakes name `--config`, the key and the closest key, and exit 2.
    let cases: [(&str, &[&str]); 5] = [
        (
            "selct = [\"FL2\"]",
            &["`--config`", "`selct`", "did you mean `select`"],
        ),
        ("target = \"nomad\"", &["`--config`", "no target `nomad`"]),
        ("select = [\"FL999\"]", &["`--config`", "FL999"]),
        (
            "select = \"FL2\"",
            &["`--config`", "`select` must be a list of strings"],
        ),
        ("select = [", &["`--config select = [`", "not valid TOML"]),
    ];
    for (line, words) in cases {
        let Run {
            code, stderr: err, ..
        } = flowc_in(dir.path())
            .args(["check", "--config", line, "p.flow"])
            .run();
        assert_eq!(code, Some(2), "{line}: {err}");
        for w in words {
            assert!(err.contains(w), "{line}: `{w}` not in {err}");
        }
    }
    // Two files are refused.
    let Run {
        code, stderr: err, ..
    } = flowc_in(dir.path())
        .args(["check", "--config", "flowc.toml", "--config", "flowc.toml"])
        .run();
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("one configuration file"), "{err}");
}
