//! The rule pages in docs/rules/ are what `flowc explain` prints (the
//! catalog includes them): each has every heading, and its examples do
//! what they say.

use flowc::diagnostic::Code;

const HEADINGS: [&str; 4] = [
    "## What it catches",
    "## Why it matters",
    "## Unsafe example",
    "## Fix",
];

#[test]
fn explain_pages_have_every_heading() {
    for r in Code::ALL {
        assert!(
            r.explain()
                .starts_with(&format!("# {} {}\n", r.as_str(), r.name())),
            "{} title",
            r.as_str()
        );
        for h in HEADINGS {
            assert!(r.explain().contains(h), "{} lacks `{h}`", r.as_str());
        }
        assert!(
            r.explain().contains("```flow"),
            "{} has no example",
            r.as_str()
        );
    }
}

fn flow_block_after(page: &str, heading: &str) -> Option<String> {
    let at = page.find(heading)?;
    let rest = &page[at..];
    let start = rest.find("```flow\n")? + "```flow\n".len();
    let end = rest[start..].find("```")?;
    Some(rest[start..start + end].to_string())
}

fn codes_of(src: &str) -> Vec<&'static str> {
    let o = flowc::check::check(
        vec![flowc::check::Input {
            path: "example.flow".into(),
            key: "example.flow".into(),
            bytes: src.as_bytes().to_vec(),
        }],
        &flowc::check::NoImports,
    );
    o.diagnostics
        .iter()
        .filter(|d| d.suppressed.is_none())
        .map(|d| d.code.as_str())
        .collect()
}

/// Each page's unsafe example triggers its rule, and its fix does not.
#[test]
fn explain_examples_do_what_they_say() {
    let mut wrong = Vec::new();
    for r in Code::ALL {
        // Target codes need a build; FL005's fix imports a file that exists only on disk.
        if r.as_str().starts_with("FL8") {
            continue;
        }
        let bad = flow_block_after(r.explain(), "## Unsafe example").unwrap_or_default();
        // FL708's trigger needs 100,000 edges: its page shows the shape, and
        // tests/fixtures/rules/FL708/trigger.flow (the rule's own test) the real size.
        if *r != Code::FL708 && !codes_of(&bad).contains(&r.as_str()) {
            wrong.push(format!(
                "{}: unsafe example gives {:?}",
                r.as_str(),
                codes_of(&bad)
            ));
        }
        if *r == Code::FL005 {
            continue;
        }
        let fixed = flow_block_after(r.explain(), "## Fix").unwrap_or_default();
        if codes_of(&fixed).contains(&r.as_str()) {
            wrong.push(format!(
                "{}: fix still gives {:?}",
                r.as_str(),
                codes_of(&fixed)
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn argo_strict_check(
    published: &std::path::Path,
    strict: &std::path::Path,
) -> std::process::Output {
    std::process::Command::new("python3")
        .arg(repo_root().join("scripts/argo-schema-strict"))
        .arg("--check")
        .arg(published)
        .arg(strict)
        .output()
        .expect("python3 runs scripts/argo-schema-strict")
}

/// The strict Argo schema the Argo tests validate against is exactly what
/// scripts/argo-schema-strict derives from the published schema committed
/// beside it; a strict file edited by hand (or a published one replaced
/// without re-deriving) fails.
#[test]
fn argo_strict_schema_is_derived_from_the_published_one() {
    let data = repo_root().join("tests/data");
    let published = data.join("argo-workflows-schema.json");
    let strict = data.join("argo-workflows-schema.strict.json");
    let out = argo_strict_check(&published, &strict);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A near miss: the same file with one `additionalProperties: false` dropped.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(&strict).unwrap();
    let tampered = text.replacen("   \"additionalProperties\": false,\n", "", 1);
    assert_ne!(tampered, text);
    let bad = dir.path().join("strict.json");
    std::fs::write(&bad, tampered).unwrap();
    let out = argo_strict_check(&published, &bad);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run scripts/argo-schema-strict"));
}

/// The examples of one reference page: (line, annotation, source) of every
/// fenced block whose info string starts with `flow`.
fn reference_examples(page: &str) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    let mut lines = page.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let Some(info) = line.strip_prefix("```flow") else {
            continue;
        };
        let mut src = String::new();
        for (_, l) in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            src.push_str(l);
            src.push('\n');
        }
        out.push((n + 1, info.trim().to_string(), src));
    }
    out
}

/// What an example's annotation promises, checked against its findings:
/// `clean` gives no finding at all; `FL304` (or `FL304 FL102`) gives each
/// code named. An example with no annotation is refused, so every example
/// of the reference says what it does.
fn example_problem(annotation: &str, codes: &[&str]) -> Option<String> {
    if annotation == "clean" {
        return (!codes.is_empty()).then(|| format!("marked clean, gives {codes:?}"));
    }
    let named: Vec<&str> = annotation.split_whitespace().collect();
    if named.is_empty()
        || !named
            .iter()
            .all(|c| Code::ALL.iter().any(|r| r.as_str() == *c))
    {
        return Some(format!(
            "annotation `{annotation}` is neither `clean` nor rule codes"
        ));
    }
    let missing: Vec<&&str> = named.iter().filter(|c| !codes.contains(c)).collect();
    (!missing.is_empty()).then(|| format!("should give {missing:?}, gives {codes:?}"))
}

#[test]
fn example_annotations_are_checked() {
    assert_eq!(example_problem("clean", &[]), None);
    assert!(example_problem("clean", &["FL202"]).is_some());
    assert_eq!(example_problem("FL304", &["FL304", "FL202"]), None);
    assert!(example_problem("FL304", &["FL202"]).is_some());
    assert!(example_problem("", &[]).is_some());
    assert!(example_problem("FL999", &["FL999"]).is_some());
    assert!(build_codes(
        "argo",
        "pipeline p {\n  task t {\n    run command [\"true\"]\n  }\n}\n"
    )
    .contains(&"FL801".to_string()));
    assert!(build_codes(
        "airflow",
        "pipeline p {\n  task t {\n    run command [\"true\"]\n  }\n}\n"
    )
    .is_empty());
    let page = "text\n```flow clean\npipeline p {\n}\n```\n```flow FL001\n{\n```\n";
    let ex = reference_examples(page);
    assert_eq!(ex.len(), 2);
    assert_eq!(ex[0], (2, "clean".into(), "pipeline p {\n}\n".into()));
    assert_eq!(ex[1].1, "FL001");
}

/// The codes `flowc build --target TARGET` reports for one file.
fn build_codes(target: &str, src: &str) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("example.flow"), src).expect("write example");
    let out = crate::common::flowc()
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .args(["build", "--target", target, "--out", "out", "example.flow"])
        .output()
        .expect("flowc runs");
    let text = String::from_utf8_lossy(&out.stdout);
    Code::ALL
        .iter()
        .filter(|c| text.contains(&format!("{}(", c.as_str())))
        .map(|c| c.as_str().to_string())
        .collect()
}

/// Every example of docs/reference/ does what its annotation says (an
/// annotation that starts with a target's name, `argo FL801`, is checked
/// against what `flowc build --target argo` reports).
#[test]
fn reference_examples_do_what_they_say() {
    let dir = repo_root().join("docs/reference");
    let mut pages: Vec<_> = std::fs::read_dir(&dir)
        .expect("docs/reference exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for p in &pages {
        let page = std::fs::read_to_string(p).unwrap();
        for (line, annotation, src) in reference_examples(&page) {
            seen += 1;
            // `argo FL801`: the codes `flowc build --target argo` gives.
            let (annotation, codes) = match annotation.split_once(' ') {
                Some((target, rest)) if ["airflow", "argo", "ir"].contains(&target) => {
                    (rest.to_string(), build_codes(target, &src))
                }
                _ => (
                    annotation.clone(),
                    codes_of(&src).into_iter().map(str::to_string).collect(),
                ),
            };
            let codes: Vec<&str> = codes.iter().map(AsRef::as_ref).collect();
            if let Some(why) = example_problem(&annotation, &codes) {
                wrong.push(format!(
                    "{}:{line}: {why}",
                    p.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    assert!(seen >= 40, "only {seen} examples in docs/reference");
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Every page under docs/ is a page of the docs site: SUMMARY.md lists it,
/// and every page SUMMARY.md lists exists.
#[test]
fn the_site_summary_lists_every_page() {
    let docs = repo_root().join("docs");
    let summary = std::fs::read_to_string(docs.join("SUMMARY.md")).unwrap();
    let listed: std::collections::BTreeSet<String> = summary
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(str::to_string)
        .collect();
    let mut pages = std::collections::BTreeSet::new();
    let mut stack = vec![docs.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                let rel = p
                    .strip_prefix(&docs)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                if rel != "SUMMARY.md" {
                    pages.insert(rel);
                }
            }
        }
    }
    let missing: Vec<&String> = pages.difference(&listed).collect();
    let dangling: Vec<&String> = listed.difference(&pages).collect();
    assert!(
        missing.is_empty(),
        "pages not in docs/SUMMARY.md (add a line for each): {missing:?}"
    );
    assert!(
        dangling.is_empty(),
        "docs/SUMMARY.md lists missing pages: {dangling:?}"
    );
    assert!(pages.contains("rules/FL900.md") && pages.contains("reference/language.md"));
}

/// The fenced blocks of a page with this info string, in order.
fn blocks(page: &str, info: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = page.lines();
    while let Some(line) = lines.next() {
        if line != format!("```{info}") {
            continue;
        }
        let mut block = String::new();
        for l in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            block.push_str(l);
            block.push('\n');
        }
        out.push(block);
    }
    out
}

/// docs/getting-started.md does what it says: every shell block after the
/// install runs, in order, in an empty folder with the `flowc` under test on
/// PATH, and the report it shows is what `flowc report` prints.
#[test]
fn getting_started_runs_as_written() {
    let page = std::fs::read_to_string(repo_root().join("docs/getting-started.md")).unwrap();
    let shell = blocks(&page, "sh");
    assert!(shell.len() >= 4, "only {} shell blocks", shell.len());
    assert!(
        shell[0].contains("cargo install"),
        "the first block installs"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("flowc"), bin.join("flowc")).unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let script = format!("set -euo pipefail\n{}", shell[1..].concat());
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(&work)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{script}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The finding the page promises, and the report it shows.
    assert!(
        stdout.contains("FL202") && stdout.contains("FL900"),
        "{stdout}"
    );
    assert!(stdout.contains("flowc check exits 1"), "{stdout}");
    let shown = blocks(&page, "text");
    assert!(!shown.is_empty());
    assert!(
        stdout.contains(shown[0].as_str()),
        "page shows:\n{}\nflowc printed:\n{stdout}",
        shown[0]
    );
    let demo = work.join("demo");
    assert!(demo.join("build/airflow").is_dir() && demo.join("build/argo").is_dir());
    let pipeline = std::fs::read_to_string(demo.join("pipeline.flow")).unwrap();
    assert!(pipeline.contains("write  events upsert") && pipeline.contains("image \""));
}

/// The docs site's `.flow` highlighting (docs/assets/flow-highlight.js) is
/// generated from the `TextMate` grammar and current; a stale copy is seen.
#[test]
fn the_site_highlighting_is_current() {
    let check = |out: Option<&std::path::Path>| {
        let mut cmd = std::process::Command::new("python3");
        cmd.arg(repo_root().join("scripts/gen-highlight"))
            .arg("--check");
        if let Some(o) = out {
            cmd.env("FLOWC_HIGHLIGHT_OUT", o);
        }
        cmd.output().expect("python3 runs")
    };
    let out = check(None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let stale = dir.path().join("flow-highlight.js");
    let current =
        std::fs::read_to_string(repo_root().join("docs/assets/flow-highlight.js")).unwrap();
    std::fs::write(&stale, current.replace("exactly_once ", "")).unwrap();
    assert_eq!(check(Some(&stale)).status.code(), Some(1));
}

/// The lines of `text` that install `flowc` by its bare name from a package
/// index (issue 27 item 21): `pip install flowc` not followed by a path or
/// URL, or a requirement `"flowc"` / `"flowc==..."` without `@ URL`.
fn bare_name_installs(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        while let Some(at) = rest.find("pip install flowc") {
            let after = &rest[at + "pip install flowc".len()..];
            if !after.starts_with(['-', '_', '.', '/']) && !after.starts_with(char::is_alphanumeric)
            {
                // "never `pip install flowc` by bare name" warns, not installs.
                let lower = line.to_lowercase();
                if !(lower.contains("never") || lower.contains("bare name")) {
                    found.push(line.to_owned());
                }
            }
            rest = after;
        }
        let t = line.trim().trim_end_matches(',');
        if t.starts_with("\"flowc") && t.ends_with('"') && !t.contains('@') {
            let spec = t.trim_matches('"').trim_start_matches("flowc").trim();
            if spec.is_empty() || spec.starts_with(['=', '<', '>', '~', '!']) {
                found.push(line.to_owned());
            }
        }
        let requirement = line.contains("dependencies") || line.contains("requires");
        if requirement && (line.contains("[\"flowc==") || line.contains("[\"flowc\"]")) {
            found.push(line.to_owned());
        }
    }
    found
}

#[test]
fn no_install_by_bare_name() {
    let root = repo_root();
    let mut files: Vec<std::path::PathBuf> = [
        "README.md",
        ".pre-commit-hooks.yaml",
        "packaging/pre-commit-mirror/pyproject.toml",
        "packaging/pre-commit-mirror/.pre-commit-hooks.yaml",
        "packaging/wheel/pyproject.toml",
    ]
    .iter()
    .map(|p| root.join(p))
    .collect();
    for dir in ["docs", "templates/init"] {
        for entry in walkdir_files(&root.join(dir)) {
            files.push(entry);
        }
    }
    let mut bad = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for line in bare_name_installs(&text) {
            bad.push(format!("{}: {line}", f.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "flowc installed by bare name:\n{}",
        bad.join("\n")
    );
    // The check itself: what the mirror and the hooks file said before.
    assert_eq!(
        bare_name_installs("dependencies = [\"flowc==0.2.0\"]").len(),
        1
    );
    assert_eq!(
        bare_name_installs("# PATH (`cargo install`, or `pip install flowc`) and").len(),
        1
    );
    assert!(bare_name_installs("pip install ./dist/flowc-*.whl").is_empty());
    assert!(bare_name_installs("  \"flowc @ https://example.invalid/flowc.whl\",").is_empty());
}

/// Every file under `dir`, recursively, in a stable order.
fn walkdir_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
