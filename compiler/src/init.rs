//! The files `flowc init [DIR]` writes: a starter pipeline, a pre-commit
//! configuration using flowc's hooks, and a README.
//!
//! The contents live in `templates/init/` and are embedded in the binary.
//! `PROJECT_NAME` in them is replaced by the project's name.

const PIPELINE: &str = include_str!("../../templates/init/pipeline.flow");
const PRE_COMMIT_CONFIG: &str = include_str!("../../templates/init/pre-commit-config.yaml");
const README: &str = include_str!("../../templates/init/README.md");

/// The name used when the caller has none (e.g. `flowc init` in `/`).
pub const DEFAULT_PROJECT_NAME: &str = "flow-pipelines";

/// `(relative path, contents)` of every starter file, in the order to write
/// them. Paths use `/` and never leave the target folder. The caller decides
/// what to do with files that already exist (the CLI should refuse to
/// overwrite them).
pub fn starter_files(project_name: &str) -> Vec<(String, String)> {
    let name = display_name(project_name);
    vec![
        (
            "pipeline.flow".to_string(),
            PIPELINE.replace("PROJECT_NAME", &name),
        ),
        (
            ".pre-commit-config.yaml".to_string(),
            PRE_COMMIT_CONFIG.to_string(),
        ),
        (
            "README.md".to_string(),
            README.replace("PROJECT_NAME", &name),
        ),
    ]
}

/// The project name on one line, safe inside a `#` comment and a Markdown
/// heading: control characters become spaces, runs of spaces collapse.
fn display_name(project_name: &str) -> String {
    let cleaned: String = project_name
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let name = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        DEFAULT_PROJECT_NAME.to_string()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::format;

    fn file<'a>(files: &'a [(String, String)], path: &str) -> &'a str {
        files
            .iter()
            .find(|(p, _)| p == path)
            .map_or_else(|| panic!("no {path}"), |(_, c)| c.as_str())
    }

    #[test]
    fn starter_files_are_relative_and_named_after_the_project() {
        let files = starter_files("acme-orders");
        let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            ["pipeline.flow", ".pre-commit-config.yaml", "README.md"]
        );
        for (path, contents) in &files {
            assert!(!path.starts_with('/') && !path.contains(".."), "{path}");
            assert!(
                !contents.contains("PROJECT_NAME"),
                "{path} keeps a placeholder"
            );
            assert!(contents.ends_with('\n'), "{path} ends without a newline");
        }
        assert!(file(&files, "pipeline.flow").starts_with("# acme-orders: a starter pipeline.\n"));
        assert!(file(&files, "README.md").starts_with("# acme-orders\n"));
    }

    #[test]
    fn the_starter_pipeline_is_already_formatted_whatever_the_name() {
        for name in [
            "demo",
            "",
            "  two\nlines\r\n# and a hash  ",
            "ünïcødé 🎉",
            "\"quoted\" {braces}",
        ] {
            let files = starter_files(name);
            let pipeline = file(&files, "pipeline.flow");
            assert_eq!(format(pipeline).as_deref(), Ok(pipeline), "name {name:?}");
            // The name only ever lands in the first comment line.
            assert_eq!(
                pipeline.lines().skip(1).collect::<Vec<_>>(),
                PIPELINE.lines().skip(1).collect::<Vec<_>>()
            );
        }
        assert!(file(&starter_files(""), "README.md")
            .starts_with(&format!("# {DEFAULT_PROJECT_NAME}\n")));
    }

    #[test]
    fn the_starter_pipeline_declares_what_an_effectively_once_load_needs() {
        let files = starter_files("x");
        let pipeline = file(&files, "pipeline.flow");
        // Checked line by line against docs/reference/language.md's forms; the parser's own
        // tests should also parse templates/init/pipeline.flow.
        for needle in [
            "source raw_events: files {",
            "  immutable\n",
            "  identity  event_id\n",
            "sink events: postgres_table {",
            "  primary_key  event_id\n",
            "  state events\n",
            "pipeline events_daily {",
            "  schedule  \"0 3 * * *\"\n",
            "  start     2026-01-01\n",
            "  timeout   30m\n",
            "  require   effectively_once\n",
            "    read   raw_events pinned listing\n",
            "    key    input.event_id\n",
            "    write  events upsert\n",
            "    run    command [\"python\", \"-m\", \"jobs.load_events\"]\n",
        ] {
            assert!(pipeline.contains(needle), "missing {needle:?}");
        }
    }

    #[test]
    fn the_pre_commit_config_uses_both_hooks() {
        let files = starter_files("x");
        let config = file(&files, ".pre-commit-config.yaml");
        assert!(config.contains("- id: flowc-fmt\n") && config.contains("- id: flowc-check\n"));
        assert!(config.contains("rev: "));
        // Parse it as YAML where PyYAML is at hand.
        let check = "import sys, yaml; c = yaml.safe_load(sys.stdin); \
                     ids = [h['id'] for r in c['repos'] for h in r['hooks']]; \
                     assert ids == ['flowc-fmt', 'flowc-check'], ids; assert c['repos'][0]['rev']";
        let child = std::process::Command::new("python3")
            .args(["-c", check])
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn();
        let Ok(mut child) = child else {
            eprintln!(
                "notice: python3 not found; the YAML of .pre-commit-config.yaml was not parsed"
            );
            return;
        };
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            stdin
                .write_all(config.as_bytes())
                .expect("write to python3");
        }
        let out = child.wait_with_output().expect("python3 runs");
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("No module named 'yaml'") {
            eprintln!(
                "notice: PyYAML not installed; the YAML of .pre-commit-config.yaml was not parsed"
            );
            return;
        }
        assert!(out.status.success(), "{err}");
    }
}
