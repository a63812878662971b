//! Hardening of `fmt` and of the diagnostic renderers, through the real
//! binary: findings far out on a long line, terminal escapes in a source,
//! SARIF file URIs, and `fmt` refusing exactly what `check` refuses.

use crate::common;

use std::path::Path;
use std::process::Output;

use crate::common::flowc_in;
use serde_json::Value;

fn run(dir: &Path, args: &[&str]) -> Output {
    flowc_in(dir).args(args).output().expect("flowc runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", text(&out.stdout), text(&out.stderr)))
}

fn write(dir: &Path, name: &str, contents: &str) {
    std::fs::write(dir.join(name), contents).expect("write fixture");
}

// ---------------------------------------------------------------------------
// Findings past column 65,536

/// `examples/churn_scoring.flow` with its FL202 warning no longer allowed,
/// and `pad` spaces before the word it points at (`append`, line 54,
/// column 33).
fn churn_with_padding(pad: usize) -> String {
    let original = std::fs::read_to_string(common::repo_root().join("examples/churn_scoring.flow"))
        .expect("example");
    let line = "    write         churn_signals append require at_least_once";
    let allow = "    allow         FL202 because";
    assert!(
        original.contains(line) && original.contains(allow),
        "the example changed"
    );
    let original = original.replace(allow, "    # no allow");
    original.replace(
        line,
        &format!(
            "    write         churn_signals {}append require at_least_once",
            " ".repeat(pad)
        ),
    )
}

/// The FL202 finding in every format: (line, column) as each one reports it.
fn far_finding_everywhere(dir: &Path, file: &str) -> Vec<(String, usize, usize)> {
    let mut found = Vec::new();
    let out = run(dir, &["check", "--format", "json", file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v = json_of(&out);
    let d = v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["code"] == "FL202")
        .expect("FL202");
    let num = |v: &Value| usize::try_from(v.as_u64().expect("number")).expect("fits");
    found.push((
        "json".into(),
        num(&d["span"]["line"]),
        num(&d["span"]["column"]),
    ));

    let out = run(dir, &["check", "--format", "sarif", file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v = json_of(&out);
    let region = &v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
    found.push((
        "sarif".into(),
        num(&region["startLine"]),
        num(&region["startColumn"]),
    ));

    let out = run(dir, &["check", "--format", "github", file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let gh = text(&out.stdout);
    let field = |name: &str| -> usize {
        let at = gh.find(&format!(",{name}=")).expect(name) + name.len() + 2;
        gh[at..]
            .split(',')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("number")
    };
    found.push(("github".into(), field("line"), field("col")));

    let out = run(dir, &["check", file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let human = text(&out.stdout);
    // The snippet of the finding's own line (the first one shows where
    // `churn_signals` is declared).
    let tag = format!("[{file}:54:");
    let at = human.find(&tag).expect("location header") + tag.len() - 3;
    let mut parts = human[at..].split(']').next().expect("header").split(':');
    let line = parts.next().and_then(|n| n.parse().ok()).expect("line");
    let column = parts.next().and_then(|n| n.parse().ok()).expect("column");
    found.push(("human".into(), line, column));
    // The snippet stays readable: no line of the report is anywhere near
    // as long as the source line.
    let longest = human.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(longest < 400, "a report line of {longest} characters");
    assert!(human.contains("append"), "{human}");
    found
}

#[test]
fn findings_past_column_65536_are_reported_in_every_format() {
    for pad in [70_000, 1_000_000] {
        let dir = tempfile::tempdir().expect("temp dir");
        write(dir.path(), "churn.flow", &churn_with_padding(pad));
        for (format, line, column) in far_finding_everywhere(dir.path(), "churn.flow") {
            assert_eq!((line, column), (54, 33 + pad), "{format} with {pad} spaces");
        }
    }
}

#[test]
fn build_with_a_warning_past_column_65536_finishes() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "churn.flow", &churn_with_padding(70_000));
    let out = run(
        dir.path(),
        &["build", "--target", "airflow", "--out", "out", "churn.flow"],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(text(&out.stdout).contains("FL202"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(dir.path().join("out").read_dir().expect("out").count() > 0);
}

#[test]
fn a_syntax_error_far_out_on_a_long_line_points_at_the_right_column() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A stray `@` after a million spaces on line 2, and one on a short line 3.
    write(
        dir.path(),
        "long.flow",
        &format!("# long\n{}@\n", " ".repeat(1_000_000)),
    );
    for format in ["human", "json", "sarif", "github"] {
        let out = run(dir.path(), &["check", "--format", format, "long.flow"]);
        let stdout = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{format}: {}",
            text(&out.stderr)
        );
        let wanted = match format {
            "human" => "[long.flow:2:1000001]",
            "json" => "\"column\": 1000001",
            "sarif" => "\"startColumn\": 1000001",
            _ => ",line=2,col=1000001,",
        };
        assert!(
            stdout.contains(wanted),
            "{format}: {}",
            &stdout[..stdout.len().min(2000)]
        );
    }
}

// ---------------------------------------------------------------------------
// Terminal escapes in source lines and messages

/// A string and comments holding ESC/CSI sequences, C1 controls and bidi
/// overrides, with findings on their lines.
const HOSTILE: &str = "source s: files {\n  path \"\u{1b}[31mred\u{202e}\u{9b}{interval.strat}\"  # \u{1b}]0;title\u{7}\u{2066}\n}\npipeline p {\n  schedule \"\u{1b}[2J\u{85}\"\n}\n";

/// Whether a character would be acted on by a terminal or reorder text.
fn is_hostile(c: char) -> bool {
    (c.is_control() && c != '\n') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[test]
fn human_and_github_output_escape_control_characters() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "hostile.flow", HOSTILE);
    for format in ["human", "github"] {
        let out = run(dir.path(), &["check", "--format", format, "hostile.flow"]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let bad: Vec<char> = stdout.chars().filter(|&c| is_hostile(c)).collect();
        assert!(bad.is_empty(), "{format}: {bad:?} in\n{stdout}");
        // The characters are shown, escaped: in the message of the
        // schedule finding, and (human) in the snippet lines.
        assert!(
            stdout.contains("`\\u{1b}[2J\\u{85}` has 1 field"),
            "{format}: {stdout}"
        );
        if format == "human" {
            assert!(
                stdout.contains("path \"\\u{1b}[31mred\\u{202e}\\u{9b}{interval.strat}\""),
                "{stdout}"
            );
            assert!(
                stdout.contains("# \\u{1b}]0;title\\u{7}\\u{2066}"),
                "{stdout}"
            );
        }
    }
}

#[test]
fn human_underlines_stay_under_their_span_after_escaping() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "hostile.flow", HOSTILE);
    let out = run(dir.path(), &["check", "hostile.flow"]);
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    // The placeholder finding: its header gives the true column, and the
    // underline below the snippet line starts under the `{`.
    let header = lines
        .iter()
        .position(|l| l.contains("[hostile.flow:2:19]"))
        .unwrap_or_else(|| panic!("{stdout}"));
    let source_line = lines[header..]
        .iter()
        .position(|l| l.contains("path \""))
        .map(|i| i + header)
        .expect("snippet");
    // (The escapes hold braces too: `\u{1b}`.)
    let brace = {
        let l = lines[source_line];
        l[..l.find("{interval").expect("placeholder")]
            .chars()
            .count()
    };
    let under = lines[source_line + 1];
    let first_mark = under
        .chars()
        .position(|c| c == '─' || c == '┬' || c == '^')
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(first_mark, brace, "{stdout}");
    let width = under.chars().filter(|&c| c == '─' || c == '┬').count();
    assert_eq!(width, "{interval.strat}".len(), "{stdout}");
}

#[test]
fn json_and_sarif_escape_control_characters() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "hostile.flow", HOSTILE);
    for format in ["json", "sarif"] {
        let out = run(dir.path(), &["check", "--format", format, "hostile.flow"]);
        let stdout = text(&out.stdout);
        let bad: Vec<char> = stdout.chars().filter(|&c| is_hostile(c)).collect();
        assert!(bad.is_empty(), "{format}: {bad:?}");
        // Escaped, not lost: the JSON text decodes to the original message.
        let v = json_of(&out);
        assert!(v.to_string().contains("\\u001b[2J"), "{format}");
        let messages: Vec<&str> = if format == "json" {
            v["diagnostics"]
                .as_array()
                .expect("diagnostics")
                .iter()
                .filter_map(|d| d["message"].as_str())
                .collect()
        } else {
            v["runs"][0]["results"]
                .as_array()
                .expect("results")
                .iter()
                .filter_map(|r| r["message"]["text"].as_str())
                .collect()
        };
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with("`\u{1b}[2J\u{85}` has 1 field")),
            "{format}: {messages:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// SARIF artifact URIs

/// RFC 3986 percent-decoding; `None` for a malformed escape or a byte that
/// should have been encoded.
fn percent_decode(uri: &str) -> Option<String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = uri.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) => {
                out.push(b);
                i += 1;
            }
            _ => return None,
        }
    }
    String::from_utf8(out).ok()
}

#[test]
fn percent_decoding_refuses_raw_reserved_characters() {
    assert_eq!(percent_decode("a%23b/c%20d").as_deref(), Some("a#b/c d"));
    assert_eq!(percent_decode("a#b"), None);
    assert_eq!(percent_decode("a%2"), None);
    assert_eq!(percent_decode("%C3%A9").as_deref(), Some("é"));
}

fn sarif_validator() -> jsonschema::Validator {
    // As in tests/cli.rs: the published schema's `language` pattern has a
    // stray `]` that Rust's regex engine rejects.
    let schema =
        std::fs::read_to_string(common::repo_root().join("tests/data/sarif-2.1.0-rtm.5.json"))
            .expect("schema")
            .replace(
                "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$",
                "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$",
            );
    let schema: Value = serde_json::from_str(&schema).expect("json");
    jsonschema::options()
        .should_validate_formats(false)
        .build(&schema)
        .expect("schema compiles")
}

#[test]
fn sarif_artifact_uris_are_percent_encoded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let names = [
        "a#1.flow",
        "q?x=1.flow",
        "p%41.flow",
        "with space.flow",
        "caf\u{e9}.flow",
        "c:colon.flow",
        "plain-name_1.flow",
    ];
    std::fs::create_dir(dir.path().join("sub dir#")).expect("folder");
    for name in names {
        write(&dir.path().join("sub dir#"), name, "source s: files {\n}\n");
    }
    let out = run(dir.path(), &["check", "--format", "sarif", "sub dir#"]);
    let v = json_of(&out);
    let errors: Vec<String> = sarif_validator()
        .iter_errors(&v)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let json = json_of(&run(dir.path(), &["check", "--format", "json", "sub dir#"]));
    let mut paths: Vec<String> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["file"].as_str().expect("file").to_owned())
        .collect();
    let mut decoded: Vec<String> = v["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .expect("uri");
            percent_decode(uri).unwrap_or_else(|| panic!("`{uri}` is not percent-encoded"))
        })
        .collect();
    paths.sort();
    decoded.sort();
    assert_eq!(paths.len(), names.len(), "{json}");
    assert_eq!(decoded, paths);
    // A relative reference whose first segment holds a `:` would read as a scheme.
    assert!(v.to_string().contains("c%3Acolon.flow"), "{v}");
}

// ---------------------------------------------------------------------------
// `fmt` refuses what `check` refuses

/// `check` of one file: the codes of its findings.
fn check_codes(dir: &Path, name: &str) -> Vec<String> {
    let v = json_of(&run(dir, &["check", "--format", "json", name]));
    v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["code"].as_str().expect("code").to_owned())
        .collect()
}

/// A file `check` accepts, in `fmt`'s layout.
const VALID: &str = "pipeline p {\n  schedule  \"@daily\"\n  start     2026-01-01\n\n  task t {\n    run command [\"x\"]\n  }\n}\n";

/// `fmt` on a copy of `contents`: its output, and the file afterwards.
fn fmt_copy(dir: &Path, name: &str, contents: &str) -> (Output, String) {
    write(dir, name, contents);
    let out = run(dir, &["fmt", name]);
    let after = std::fs::read_to_string(dir.join(name)).expect("still there");
    (out, after)
}

#[test]
fn fmt_refuses_a_lone_carriage_return_as_check_does() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (i, contents) in [
        VALID.replacen("\n  task", "\r  task", 1),
        VALID.replacen("[\"x\"]", "[\"x\ry\"]", 1),
        format!("{VALID}\r"),
        "\r".to_owned(),
    ]
    .iter()
    .enumerate()
    {
        let name = format!("cr{i}.flow");
        let (out, after) = fmt_copy(dir.path(), &name, contents);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{contents:?}: {stderr}");
        assert_eq!(&after, contents, "fmt changed a file it refused");
        assert!(stderr.contains(&format!("{name}:")), "{stderr}");
        assert!(check_codes(dir.path(), &name).contains(&"FL001".to_owned()));
    }
    // Near miss: `\r\n` line ends are fine, and become `\n`.
    let (out, after) = fmt_copy(dir.path(), "crlf.flow", &VALID.replace('\n', "\r\n"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(after, VALID);
}

#[test]
fn fmt_refuses_deep_nesting_with_checks_words() {
    let dir = tempfile::tempdir().expect("temp dir");
    let nested = |levels: usize| {
        // The pipeline's brace is one level.
        format!(
            "pipeline p {{\n  x {}{}\n}}\n",
            "[".repeat(levels - 1),
            "]".repeat(levels - 1)
        )
    };
    for levels in [65, 25_000] {
        let name = format!("deep{levels}.flow");
        let (out, _) = fmt_copy(dir.path(), &name, &nested(levels));
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{levels}: {stderr}");
        let check = run(dir.path(), &["check", &name]);
        let words = "brackets nested more than 64 levels deep";
        assert!(
            text(&check.stdout).contains(words),
            "{}",
            text(&check.stdout)
        );
        assert!(stderr.contains(words), "{stderr}");
        // Where check points: the 65th opening bracket, on line 2.
        assert!(stderr.contains(&format!("{name}:2:68:")), "{stderr}");
    }
    // Near miss: 64 levels pass the nesting check in both (the file still
    // has other problems for check, but not this one).
    write(dir.path(), "deep64.flow", &nested(64));
    let check = run(dir.path(), &["check", "deep64.flow"]);
    assert!(!text(&check.stdout).contains("nested more than"));
    let fmt = run(dir.path(), &["fmt", "--check", "deep64.flow"]);
    assert!(
        !text(&fmt.stderr).contains("nested more than"),
        "{}",
        text(&fmt.stderr)
    );
}

/// Malformed files next to a valid one. For each, `fmt` must fail when
/// `check` reports FL001, and a file `fmt` accepts must keep its findings.
fn near_misses() -> Vec<(&'static str, String)> {
    vec![
        ("valid", VALID.to_owned()),
        ("crlf", VALID.replace('\n', "\r\n")),
        ("bom", format!("\u{feff}{VALID}")),
        ("late bom", format!("{VALID}\u{feff}")),
        ("tabs", VALID.replace("  ", "\t")),
        ("lone cr in code", VALID.replacen("\n  task", "\r  task", 1)),
        ("lone cr in string", VALID.replacen("\"x\"", "\"x\ry\"", 1)),
        ("lone cr at end", format!("{VALID}\r")),
        ("lone cr in comment", format!("# a\rb\n{VALID}")),
        ("crlf then cr", format!("# a\r\n\r{VALID}")),
        ("backslash cr", VALID.replacen("\"x\"", "\"x\\\ry\"", 1)),
        ("bad escape", VALID.replacen("\"x\"", "\"\\q\"", 1)),
        ("double comma", VALID.replacen("[\"x\"]", "[\"x\",,]", 1)),
        ("trailing comma", VALID.replacen("[\"x\"]", "[\"x\",]", 1)),
        ("number dot", VALID.replacen("[\"x\"]", "[1.]", 1)),
        ("comma after brace", VALID.replacen("p {\n", "p {,\n", 1)),
        ("digit ident", VALID.replacen("task t", "task 1t", 1)),
        ("form feed", VALID.replacen("  task", "\u{c} task", 1)),
        ("nbsp", VALID.replacen("  task", "\u{a0} task", 1)),
        ("unterminated", VALID.replacen("\"x\"", "\"x", 1)),
        ("unclosed", VALID.replacen("  }\n}\n", "  }\n", 1)),
        ("extra close", format!("{VALID}}}\n")),
        ("esc in comment", format!("# \u{1b}[31m\n{VALID}")),
        ("nul in string", VALID.replacen("\"x\"", "\"x\0\"", 1)),
        ("missing value", VALID.replacen(" \"@daily\"", "", 1)),
        ("unknown keyword", VALID.replacen("task t", "tsk t", 1)),
        ("empty", String::new()),
        ("whitespace", "  \n\t\n".to_owned()),
    ]
}

#[test]
fn fmt_never_formats_a_file_check_reports_fl001_for() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut refused = 0;
    let mut formatted = 0;
    for (i, (what, contents)) in near_misses().iter().enumerate() {
        let name = format!("case{i}.flow");
        write(dir.path(), &name, contents);
        let before = check_codes(dir.path(), &name);
        let (out, after) = fmt_copy(dir.path(), &name, contents);
        if before.contains(&"FL001".to_owned()) {
            assert_eq!(out.status.code(), Some(1), "{what}: fmt formatted it");
            assert_eq!(&after, contents, "{what}: fmt changed a file it refused");
            refused += 1;
        } else {
            assert_eq!(out.status.code(), Some(0), "{what}: {}", text(&out.stderr));
            assert_eq!(
                check_codes(dir.path(), &name),
                before,
                "{what}: findings changed"
            );
            formatted += 1;
        }
    }
    // Both sides of the table are exercised.
    assert!(refused >= 15, "{refused}");
    assert!(formatted >= 6, "{formatted}");
}

// ---------------------------------------------------------------------------
// `fmt`'s input size limit

#[test]
fn fmt_refuses_a_file_over_the_input_limit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let limit = usize::try_from(flowc::format::MAX_INPUT_BYTES).expect("fits");
    // Comments, so that the file is valid and every byte counts.
    let line = format!("# {}\n", "x".repeat(1021));
    let mut big = line.repeat(limit / line.len());
    big.push_str(VALID);
    assert!(big.len() > limit);
    let (out, after) = fmt_copy(dir.path(), "big.flow", &big);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("too large"), "{stderr}");
    assert!(stderr.contains("32 MB"), "{stderr}");
    assert!(after == big);
    // Near miss: just under the limit formats (with an unnormalized comment).
    let mut under = "#x\n".to_owned();
    under.push_str(&line.repeat(limit / line.len() - 1));
    under.push_str(VALID);
    assert!(under.len() <= limit);
    let (out, after) = fmt_copy(dir.path(), "under.flow", &under);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(after.starts_with("# x\n"));
}
