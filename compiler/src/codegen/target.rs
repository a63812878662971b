//! The targets `flowc build` compiles for, in one list: a target is a name,
//! a line of help and a function from the IR to the files it wants written.
//! `--target` accepts exactly the names of [`TARGETS`]; the cross-target
//! tests walk the same list.

use std::fmt::Write as _;

use super::ir::Pipeline;
use super::{airflow, argo, python, GeneratedFile, TargetProblem, WritePolicy};
use crate::diagnostic::Code;

/// What the command line passes to every generator; each reads what it needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TargetOptions {
    /// For Argo: which resource a pipeline becomes.
    pub argo_kind: argo::ArgoKind,
}

/// What a generator returns for the pipelines of one `.flow` file.
pub type Output = Result<Vec<GeneratedFile>, Vec<TargetProblem>>;

/// One target of `flowc build --target NAME`.
#[derive(Debug)]
pub struct Target {
    /// The value of `--target`, and the word in the header of its files.
    pub name: &'static str,
    /// One line for `flowc build --help`.
    pub about: &'static str,
    /// The files for the pipelines of one `.flow` file, or why they cannot be
    /// generated unchanged.
    pub generate: fn(&[Pipeline], &TargetOptions) -> Output,
    /// Warnings about what the target does differently, for the pipelines
    /// of one `.flow` file; they stop nothing from being written.
    pub warnings: fn(&[Pipeline]) -> Vec<TargetProblem>,
}

/// Every target, in the order `--help` lists them.
pub static TARGETS: &[Target] = &[
    Target {
        name: "airflow",
        about: "Airflow 3 DAG files",
        generate: |pipelines, _| airflow::generate(pipelines),
        warnings: |pipelines| super::reach::problems(pipelines, airflow::runs_in_pod, "Airflow"),
    },
    Target {
        name: "argo",
        about: "Argo Workflows YAML",
        generate: |pipelines, options| argo::generate(pipelines, options.argo_kind),
        warnings: argo::warnings,
    },
    Target {
        name: "ir",
        about: "The IR every other target renders from, as JSON (for debugging)",
        generate: |pipelines, _| ir_files(pipelines),
        warnings: |_| Vec::new(),
    },
];

/// The target named `name`.
pub fn find(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// The key the `ir` target writes first in each file: flowc recognises its
/// own dumps by it (`io::write::header_of`), and replaces no other JSON file.
pub const IR_MARKER_KEY: &str = "generated";

/// The value of [`IR_MARKER_KEY`].
pub const IR_MARKER: &str =
    "by flowc for ir: do not edit, rewritten by every `flowc build --target ir`";

/// One `PIPELINE.ir.json` per pipeline: the pipeline's IR as pretty JSON,
/// keys in declaration order, ending in a newline. It reads back as an
/// [`super::ir::Pipeline`] (the marker key is ignored). Names that differ
/// only in case would be one file where the file system ignores case
/// (FL803, as for the other targets).
fn ir_files(pipelines: &[Pipeline]) -> Output {
    #[derive(serde::Serialize)]
    struct Dump<'a> {
        generated: &'static str,
        #[serde(flatten)]
        pipeline: &'a Pipeline,
    }
    let mut seen = std::collections::HashMap::new();
    let mut problems = Vec::new();
    for pipeline in pipelines {
        let lower = pipeline.name.to_lowercase();
        if let Some(first) = seen.insert(lower, &pipeline.name) {
            let (message, help) =
                crate::rules::fl803::ir_pipelines_differ_in_case(first, &pipeline.name);
            problems.push(TargetProblem {
                code: Code::FL803,
                pipeline: pipeline.name.clone(),
                task: None,
                message,
                help,
                at: super::At::Name,
            });
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(pipelines
        .iter()
        .map(|pipeline| {
            let dump = Dump {
                generated: IR_MARKER,
                pipeline,
            };
            let mut text = serde_json::to_string_pretty(&dump)
                .unwrap_or_else(|e| panic!("the IR always serialises to JSON: {e}"));
            let _ = writeln!(text);
            let mut file = GeneratedFile::new(format!("{}.ir.json", pipeline.name), text)
                .for_pipeline(&pipeline.name);
            file.claim = Some(format!(
                "the IR file `{}.ir.json` where the file system ignores case",
                pipeline.name.to_lowercase()
            ));
            file
        })
        .collect())
}

/// The files of `flowc scaffold --lang python`: the generated modules and
/// the runtime are rewritten on every run; transforms and package
/// `__init__.py` files are created only where nothing exists yet.
pub fn python_scaffold(pipelines: &[Pipeline]) -> Output {
    let scaffold = python::generate(pipelines)?;
    let mut files = scaffold.rewrite;
    files.extend(scaffold.create_if_absent.into_iter().map(|mut f| {
        // A package's existing `__init__.py` is no one's edit to keep.
        f.write = if f.path.ends_with("__init__.py") {
            WritePolicy::IfAbsentQuietly
        } else {
            WritePolicy::IfAbsent
        };
        f
    }));
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        let mut names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TARGETS.len());
        for t in TARGETS {
            assert_eq!(find(t.name).map(|f| f.name), Some(t.name));
            assert!(!t.about.is_empty());
        }
        assert!(find("python").is_none());
        assert!(find("Airflow").is_none());
    }

    #[test]
    fn ir_dumps_are_recognised_as_generated() {
        let pipeline: Pipeline = serde_json::from_value(serde_json::json!({
            "name": "p \"q\"", "source_file": "a/b.flow", "schedule": null, "start": null,
            "timezone": "UTC", "catchup": false, "image": null, "tasks": []
        }))
        .expect("a pipeline");
        let files = ir_files(std::slice::from_ref(&pipeline)).expect("one pipeline");
        let text = &files[0].contents;
        assert!(text.ends_with("}\n"));
        let header = crate::io::write::header_of(text).expect("a header");
        assert_eq!(header.target, "ir");
        assert_eq!(header.pipeline.as_deref(), Some("p \"q\""));
        assert_eq!(header.source.as_deref(), Some("a/b.flow"));
        let back: Pipeline = serde_json::from_str(text).expect("reads back");
        assert_eq!(back, pipeline);
        // A JSON file that does not start with the marker is not flowc's.
        let other = text.replacen(IR_MARKER, "by hand", 1);
        assert!(crate::io::write::header_of(&other).is_none());
        assert!(crate::io::write::header_of("{\n  \"name\": \"p\"\n}\n").is_none());
    }
}
