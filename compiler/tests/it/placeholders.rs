//! Every brace of a parameter string: placeholders that are well formed and
//! known pass, every other brace written as such is FL002 at its exact
//! span, and braces written by escapes (`\{`, `\}`, `\u{7B}`) are literal.
//! What reaches the runtime is the template form: placeholders as written,
//! literal braces doubled, so it reads one way only.

use flowc::analyze::literal;
use flowc::check::{self, Input};
use flowc::diagnostic::Diagnostic;
use flowc::vocab::ParamValue;

/// A file whose source `raw` has the path `path` (written between the
/// quotes exactly as given), read by a task that also runs `run`.
fn file(path: &str, run: &str) -> String {
    format!(
        "source raw: files {{\n  path      \"{path}\"\n  immutable\n  identity  id\n}}\n\n\
         sink out: sqlite_table {{\n  database     \"db.sqlite\"\n  table        \"o\"\n  primary_key  id\n}}\n\n\
         pipeline p {{\n  schedule  \"@daily\"\n  start     2026-01-01\n  timeout   30m\n\n  \
         task t {{\n    read   raw pinned listing\n    key    input.id\n    write  out upsert\n    \
         run    command [\"python\", \"{run}\"]\n    env {{\n      WHEN \"{run}\"\n    }}\n  }}\n}}\n"
    )
}

fn check(text: &str) -> check::Outcome {
    let loader = flowc::invariants::MemLoader::new(Vec::new());
    check::check(
        vec![Input {
            path: "t.flow".into(),
            key: "t.flow".into(),
            bytes: text.as_bytes().to_vec(),
        }],
        &loader,
    )
}

/// The FL002 findings of a file.
fn fl002(o: &check::Outcome) -> Vec<&Diagnostic> {
    o.diagnostics.iter().filter(|d| d.code == "FL002").collect()
}

/// The value of `raw`'s `path` as the model holds it (its template form).
fn template_of(o: &check::Outcome) -> String {
    let raw = o
        .program
        .decls
        .iter()
        .find(|d| d.name == "raw")
        .expect("raw is declared");
    match raw.params.get("path") {
        Some(ParamValue::String(s)) => s.clone(),
        other => panic!("path is {other:?}"),
    }
}

/// A path that must pass, with the template the runtime gets, and whether
/// it is interval-scoped.
fn clean(path: &str, template: &str, interval: bool) {
    let text = file(path, "x");
    let o = check(&text);
    assert!(
        o.diagnostics.iter().all(|d| d.code != "FL002"),
        "{path}: {:?}",
        o.diagnostics
            .iter()
            .map(|d| d.message.as_str())
            .collect::<Vec<_>>()
    );
    assert!(!o.has_errors(), "{path}");
    assert_eq!(template_of(&o), template, "{path}");
    let raw = o
        .program
        .decls
        .iter()
        .find(|d| d.name == "raw")
        .expect("raw");
    assert_eq!(literal::has_interval_placeholder(raw), interval, "{path}");
}

/// A path that must be refused with one FL002 underlining `under`, whose
/// message contains `says` and whose help contains `help`.
fn refused(path: &str, under: &str, says: &str, help: &str) {
    let text = file(path, "x");
    let o = check(&text);
    let found = fl002(&o);
    assert_eq!(found.len(), 1, "{path}: {found:?}");
    let d = found[0];
    assert_eq!(&text[d.span.start..d.span.end], under, "{path}");
    assert!(d.message.contains(says), "{path}: {}", d.message);
    let h = d.help.as_deref().unwrap_or("");
    assert!(h.contains(help), "{path}: {h}");
    // House style: lowercase, no final period.
    assert!(!d.message.ends_with('.'), "{}", d.message);
}

#[test]
fn known_placeholders_and_formats_pass() {
    clean("lake/{interval.start}/", "lake/{interval.start}/", true);
    clean("lake/{interval.end}/", "lake/{interval.end}/", true);
    clean("dt={interval.date}/", "dt={interval.date}/", true);
    clean(
        "dt={interval.start:%Y-%m-%d}/",
        "dt={interval.start:%Y-%m-%d}/",
        true,
    );
    clean(
        "{interval.end:%j %u %V %G %% %H%M%S}",
        "{interval.end:%j %u %V %G %% %H%M%S}",
        true,
    );
    clean(
        "h={interval.start:hour %H, week %V}",
        "h={interval.start:hour %H, week %V}",
        true,
    );
    clean("lake/plain/", "lake/plain/", false);
}

#[test]
fn escaped_braces_are_literal_and_doubled_for_the_runtime() {
    // `\{ds\}` and `\u{7B}ds\u{7D}` are the text `{ds}`, never a placeholder.
    clean(r"lake/\{ds\}/", "lake/{{ds}}/", false);
    clean(r"lake/\u{7B}ds\u{7D}/", "lake/{{ds}}/", false);
    // An escaped placeholder is its text, and does not scope the source.
    clean(
        r"lake/\{interval.start\}/",
        "lake/{{interval.start}}/",
        false,
    );
    // A `}` written as such after an escaped `{` closes nothing.
    refused(
        r"lake/\u{7b}interval.start}",
        "}",
        "closes no placeholder",
        r"`\}`",
    );
}

#[test]
fn refused_forms_are_fl002_at_their_braces() {
    refused(
        "dt={{ ds }}/",
        "{{ ds }}",
        "Jinja",
        "write `{interval.date}`",
    );
    refused(
        "dt={{ ds_nodash }}/",
        "{{ ds_nodash }}",
        "Jinja",
        "`{interval.start:%Y%m%d}`",
    );
    refused("{{ ts }}", "{{ ts }}", "Jinja", "`{interval.start}`");
    refused(
        "{{ macros.foo() }}",
        "{{ macros.foo() }}",
        "Jinja",
        "Airflow's `ds` is `{interval.date}`",
    );
    // v0.1's literal braces are now refused, with both ways out.
    refused(
        "{{interval.start}}",
        "{{interval.start}}",
        "Jinja",
        r"`\{\{interval.start\}\}` for the text",
    );
    refused(
        "dt={ds}/",
        "{ds}",
        "`{ds}` is not a placeholder",
        "`{interval.date}`",
    );
    refused("{x}", "{x}", "not a placeholder", r"`\{x\}`");
    refused("{}", "{}", "not a placeholder", "the placeholders are");
    refused(
        "{ interval.start }",
        "{ interval.start }",
        "blanks",
        "write `{interval.start}`",
    );
    refused(
        "{interval.start:%Q}",
        "{interval.start:%Q}",
        "`%Q`",
        "the directives are",
    );
    refused(
        "{interval.end:%Y%}",
        "{interval.end:%Y%}",
        "lone `%`",
        "`%%`",
    );
    refused(
        "{interval.date:%Y}",
        "{interval.date:%Y}",
        "takes no format",
        "`{interval.start:%Y}`",
    );
    refused(
        "{interval.start:}",
        "{interval.start:}",
        "empty format",
        "drop the `:`",
    );
    refused(
        "{interval.start:%H:%M}",
        "{interval.start:%H:%M}",
        "cannot hold `:`",
        "%H%M",
    );
    refused(
        r"{interval.start:%Y\}}",
        r"{interval.start:%Y\}}",
        "cannot hold `}`",
        "any character but",
    );
    refused(
        "{interval.strat}",
        "{interval.strat}",
        "did you mean `{interval.start}`",
        "literal braces",
    );
    refused("a}b", "}", "closes no placeholder", r"`\}`");
    refused(r"\{a}b", "}", "closes no placeholder", r"`\}`");
    refused("a{b", "{", "never closed", r"`\{`");
    refused("a{b{interval.start}", "{", "never closed", r"`\{`");
    // The span is right after an escape earlier in the string.
    refused(
        r"\u{1F600}/\t/{interval.strat}",
        "{interval.strat}",
        "unknown placeholder",
        "",
    );
}

#[test]
fn every_bad_brace_of_a_string_is_reported_in_order() {
    let text = file("{{ ds }}/{x}/}/{interval.start}/{", "x");
    let o = check(&text);
    let under: Vec<&str> = fl002(&o)
        .iter()
        .map(|d| &text[d.span.start..d.span.end])
        .collect();
    assert_eq!(under, ["{{ ds }}", "{x}", "}", "{"]);
}

#[test]
fn a_string_of_many_unclosed_braces_is_checked_in_linear_time() {
    for unit in ["{{", "{", "{interval.start:%Y"] {
        let path = unit.repeat(200_000 / unit.len());
        let started = std::time::Instant::now();
        let o = check(&file(&path, "x"));
        assert!(o.has_errors(), "{unit}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{unit}: {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn run_and_env_strings_are_not_checked() {
    for run in ["{interval.start}", "{{ ds }}", "}{", "{interval.strat}"] {
        let o = check(&file("lake/{interval.start}/", run));
        assert!(fl002(&o).is_empty(), "{run}: {:?}", fl002(&o));
        assert!(!o.has_errors(), "{run}");
        let task = &o.program.pipelines[0].tasks[0];
        let command = &task.run.as_ref().expect("run").command;
        assert_eq!(command[1], run, "reaches the process as written");
    }
}

#[test]
fn brace_escapes_are_no_syntax_error_and_the_formatter_keeps_them() {
    let text = file(r"a/\{x\}/\u{7B}/{interval.date}", "x");
    assert!(!check(&text).has_errors());
    let formatted = flowc::format::format(&text).expect("formats");
    assert!(
        formatted.contains(r#""a/\{x\}/\u{7B}/{interval.date}""#),
        "{formatted}"
    );
    // An escape the language does not have is still FL001.
    let o = check(&file(r"a/\q", "x"));
    assert!(o.diagnostics.iter().any(|d| d.code == "FL001"));
}

#[test]
fn the_scaffold_hands_the_runtime_the_template_form() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("t.flow"),
        file(r"lake/\{raw\}/{interval.start:%Y%m%d}/", "x"),
    )
    .expect("write");
    let out = crate::common::flowc()
        .current_dir(dir.path())
        .args(["scaffold", "--lang", "python", "--out", "gen", "t.flow"])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{out:?}");
    let mut found = false;
    for entry in walk(&dir.path().join("gen")) {
        let text = std::fs::read_to_string(&entry).unwrap_or_default();
        if text.contains("Endpoint(\"raw\"") {
            assert!(
                text.contains(r#""path": "lake/{{raw}}/{interval.start:%Y%m%d}/""#),
                "{text}"
            );
            found = true;
        }
    }
    assert!(found, "no module declares `raw`");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "py") {
            out.push(path);
        }
    }
    out
}

/// `format` of a `files` declaration is one of the formats the runtime reads
/// (FL002 naming them, at the value, otherwise); a placeholder or another
/// case is no format, and leaving it out is clean.
#[test]
fn a_files_format_is_one_the_runtime_reads() {
    let with = |format: &str| {
        file("in/{interval.date}/", "x").replace(
            "  immutable\n",
            &format!("  format    \"{format}\"\n  immutable\n"),
        )
    };
    for good in ["parquet", "csv", "jsonl", "json"] {
        let o = check(&with(good));
        assert!(o.diagnostics.is_empty(), "{good}: {:?}", o.diagnostics);
        let raw = o
            .program
            .decls
            .iter()
            .find(|d| d.name == "raw")
            .expect("raw");
        assert_eq!(
            raw.params.get("format"),
            Some(&ParamValue::String(good.into()))
        );
    }
    assert!(check(&file("in/", "x")).diagnostics.is_empty());
    for bad in ["xml", "Parquet", "parquet ", "{interval.date}", ""] {
        let text = with(bad);
        let o = check(&text);
        let found = fl002(&o);
        assert_eq!(found.len(), 1, "{bad}: {:?}", o.diagnostics);
        let message = &found[0].message;
        assert!(
            message.contains("`format`") && message.contains(&format!("`\"{bad}\"`")),
            "{message}"
        );
        let help = found[0].help.as_deref().unwrap_or_default();
        assert!(
            help.contains("`\"parquet\"`, `\"csv\"`, `\"jsonl\"`, `\"json\"`"),
            "{help}"
        );
        let at = text.find(&format!("\"{bad}\"")).expect("value in text");
        assert_eq!(found[0].span.start, at, "{bad}: the value's span");
        let raw = o.program.decls.iter().find(|d| d.name == "raw");
        assert!(
            raw.is_none_or(|d| !d.params.contains_key("format")),
            "{bad}"
        );
    }
}
