//! docs/contributing.md names the files to touch for a rule, a target and a runtime
//! kind; every path it writes in backticks must exist, so the page cannot go stale.

use crate::common;

/// The backticked spans of `text` that look like repository paths: a `/`, and only
/// path characters (this leaves out commands and code).
fn backticked_paths(text: &str) -> Vec<&str> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| span.contains('/') && !span.contains("://"))
        .filter(|span| {
            span.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'))
        })
        .collect()
}

/// The paths `page` names that do not exist under the repository root.
fn missing_paths(page: &str) -> Vec<&str> {
    let root = common::repo_root();
    backticked_paths(page)
        .into_iter()
        .filter(|p| !root.join(p).exists())
        .collect()
}

#[test]
fn every_path_in_contributing_exists() {
    let root = common::repo_root();
    let page =
        std::fs::read_to_string(root.join("docs/contributing.md")).expect("docs/contributing.md");
    let paths = backticked_paths(&page);
    assert!(paths.len() >= 20, "too few paths found: {paths:?}");
    let missing = missing_paths(&page);
    assert!(
        missing.is_empty(),
        "docs/contributing.md names files that do not exist: {missing:?}"
    );
}

#[test]
fn a_page_naming_a_missing_file_is_refused() {
    let page = "edit `compiler/src/codegen/python.rs` and `compiler/src/codegen/no_such_file.rs`";
    assert_eq!(
        missing_paths(page),
        ["compiler/src/codegen/no_such_file.rs"]
    );
}

#[test]
fn the_extraction_keeps_paths_and_leaves_out_the_rest() {
    let text = "see `compiler/src/cli.rs`, run `cargo test --test it docs::`, \
                read `https://example.com/x` and `docs/targets/` but not `a b/c`";
    assert_eq!(
        backticked_paths(text),
        ["compiler/src/cli.rs", "docs/targets/"]
    );
}

/// Every target of the registry has its page, and the page on adding one
/// names the registry.
#[test]
fn every_target_has_a_page_and_the_registry_is_named() {
    let root = common::repo_root();
    for target in flowc::codegen::target::TARGETS {
        let page = root.join(format!("docs/targets/{}.md", target.name));
        assert!(page.exists(), "no page for target `{}`", target.name);
    }
    let page =
        std::fs::read_to_string(root.join("docs/contributing.md")).expect("docs/contributing.md");
    let section = page
        .split("## A target")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("an `A target` section");
    for path in [
        "compiler/src/codegen/target.rs",
        "compiler/src/codegen/ir.rs",
        "compiler/src/codegen/mod.rs",
    ] {
        assert!(
            section.contains(&format!("`{path}`")),
            "{path} is not named"
        );
    }
}

/// One line of a checklist: a path (a file, or a folder ending in `/`), the
/// text it must contain, if any, and the prefixes it does not apply to.
#[derive(Debug, PartialEq)]
struct Item {
    path: String,
    names: Option<String>,
    except: Vec<String>,
}

/// The `- [ ] ...` lines of each `### Checklist: ...` section, by the
/// section's title.
fn checklists(page: &str) -> Vec<(String, Vec<Item>)> {
    let mut lists: Vec<(String, Vec<Item>)> = Vec::new();
    for line in page.lines() {
        if let Some(title) = line.strip_prefix("### Checklist: ") {
            lists.push((title.to_owned(), Vec::new()));
        } else if line.starts_with("## ") || line.starts_with("### ") {
            lists.push((String::new(), Vec::new()));
        } else if let Some(rest) = line.strip_prefix("- [ ] `") {
            let Some((_, items)) = lists.last_mut() else {
                continue;
            };
            let Some((path, rest)) = rest.split_once('`') else {
                continue;
            };
            let names = rest
                .strip_prefix(" names `")
                .and_then(|r| r.split_once('`'))
                .map(|(n, _)| n.to_owned());
            let except = rest
                .split("except `")
                .skip(1)
                .filter_map(|r| r.split_once('`'))
                .map(|(e, _)| e.to_owned())
                .collect();
            items.push(Item {
                path: path.to_owned(),
                names,
                except,
            });
        }
    }
    lists.retain(|(title, _)| !title.is_empty());
    lists
}

/// `text` with each `{KEY}` of `fill` replaced.
fn fill(text: &str, fill: &[(&str, &str)]) -> String {
    fill.iter().fold(text.to_owned(), |t, (k, v)| {
        t.replace(&format!("{{{k}}}"), v)
    })
}

/// The problems of one filled-in item under `root`: a missing file, or a
/// file (any file under a folder) without the text it must name.
fn item_problem(root: &std::path::Path, item: &Item, values: &[(&str, &str)]) -> Option<String> {
    let path = fill(&item.path, values);
    let names = item.names.as_deref().map(|n| fill(n, values));
    let full = root.join(&path);
    let texts: Vec<String> = if path.ends_with('/') {
        let mut files = Vec::new();
        let mut stack = vec![full.clone()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                if e.path().is_dir() {
                    stack.push(e.path());
                } else {
                    files.push(std::fs::read_to_string(e.path()).unwrap_or_default());
                }
            }
        }
        files
    } else {
        std::fs::read_to_string(&full).into_iter().collect()
    };
    if texts.is_empty() {
        return Some(format!("`{path}` does not exist"));
    }
    match names {
        Some(n) if !texts.iter().any(|t| t.contains(&n)) => {
            Some(format!("`{path}` does not name `{n}`"))
        }
        _ => None,
    }
}

/// Each problem of `items` for every instance (its key, then its values).
fn problems(
    root: &std::path::Path,
    items: &[Item],
    instances: &[(String, Vec<(&str, String)>)],
) -> Vec<String> {
    let mut found = Vec::new();
    for (key, values) in instances {
        let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
        for item in items {
            if item.except.iter().any(|e| key.starts_with(e.as_str())) {
                continue;
            }
            if let Some(p) = item_problem(root, item, &values) {
                found.push(format!("{key}: {p}"));
            }
        }
    }
    found
}

/// The rules of the catalog: code, module and name.
fn rules() -> Vec<(String, Vec<(&'static str, String)>)> {
    let mut out = Vec::new();
    macro_rules! collect {
        ($($code:ident $module:ident $name:literal $severity:ident $summary:literal;)*) => {
            $(out.push((
                stringify!($code).to_owned(),
                vec![
                    ("CODE", stringify!($code).to_owned()),
                    ("module", stringify!($module).to_owned()),
                    ("name", $name.to_owned()),
                ],
            ));)*
        };
    }
    flowc::catalog!(collect);
    out
}

/// The words of the settings catalog (`compiler/src/analyze/settings.rs`).
fn settings() -> Vec<String> {
    flowc::analyze::settings::words()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_checklist_holds_for_everything_that_exists() {
    let root = common::repo_root();
    let page =
        std::fs::read_to_string(root.join("docs/contributing.md")).expect("docs/contributing.md");
    let lists = checklists(&page);
    let caps: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("templates/python/capabilities.json"))
            .expect("capabilities.json"),
    )
    .expect("json");
    let one = |k: &'static str, v: &str| (v.to_owned(), vec![(k, v.to_owned())]);
    let instances = |title: &str| -> Vec<(String, Vec<(&'static str, String)>)> {
        if title.starts_with("a rule") {
            rules()
        } else if title.starts_with("a target") {
            let targets = flowc::codegen::target::TARGETS.iter();
            targets.map(|t| one("target", t.name)).collect()
        } else if title.starts_with("a runtime kind") {
            let kinds = caps["data"].as_object().expect("data").keys();
            kinds.map(|k| one("kind", k)).collect()
        } else if title.starts_with("a setting") {
            settings().iter().map(|s| one("setting", s)).collect()
        } else {
            panic!("a checklist this test does not know: {title}")
        }
    };
    let titles: Vec<&str> = lists.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(titles.len(), 4, "{titles:?}");
    let mut found = Vec::new();
    for (title, items) in &lists {
        assert!(items.len() >= 4, "{title}: {items:?}");
        let all = instances(title);
        assert!(!all.is_empty(), "{title}: nothing to check");
        found.extend(problems(&root, items, &all));
    }
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn a_checklist_line_that_does_not_hold_is_found() {
    let page = "## Intro\n\n### Checklist: a target (`{target}`)\n\n\
                - [ ] `docs/targets/{target}.md`\n\
                - [ ] `docs/SUMMARY.md` names `(targets/{target}.md)`\n\
                - [ ] `compiler/src/io/write.rs` names `\"{target}\"` (except `ir`)\n\
                - [ ] `docs/targets/{target}-extra.md`\n\n## After\n- [ ] `not/in/a/list`\n";
    let lists = checklists(page);
    assert_eq!(lists.len(), 1, "{lists:?}");
    assert_eq!(
        lists[0].1[2],
        Item {
            path: "compiler/src/io/write.rs".into(),
            names: Some("\"{target}\"".into()),
            except: vec!["ir".into()],
        }
    );
    let root = common::repo_root();
    let instances = |names: &[&str]| -> Vec<(String, Vec<(&'static str, String)>)> {
        names
            .iter()
            .map(|n| ((*n).to_owned(), vec![("target", (*n).to_owned())]))
            .collect()
    };
    // `ir` is excepted from the header line; nobody has an `-extra` page;
    // `nomad` has nothing at all.
    assert_eq!(
        problems(&root, &lists[0].1, &instances(&["ir", "nomad"])),
        [
            "ir: `docs/targets/ir-extra.md` does not exist",
            "nomad: `docs/targets/nomad.md` does not exist",
            "nomad: `docs/SUMMARY.md` does not name `(targets/nomad.md)`",
            "nomad: `compiler/src/io/write.rs` does not name `\"nomad\"`",
            "nomad: `docs/targets/nomad-extra.md` does not exist",
        ]
    );
}
