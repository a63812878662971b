//! `flowc graph`: a file's task graph as DOT or Mermaid.

use std::process::ExitCode;

use super::{print, print_findings, usage_error, GraphFormat};
use crate::io::read::check_paths;

pub(super) fn run(file: &std::path::Path, format: GraphFormat, only: Option<&str>) -> ExitCode {
    let outcome = match check_paths(&[file.to_path_buf()]) {
        Ok(o) => o,
        Err(e) => return usage_error(&e),
    };
    let Some(&root) = outcome.roots.first() else {
        return usage_error(&format!("`{}` holds no .flow file", file.display()));
    };
    if outcome.broken.contains(&root) {
        print_findings(&outcome);
        return ExitCode::from(1);
    }
    let models: Vec<crate::graph::GraphModel> = outcome
        .analysis
        .pipelines
        .iter()
        .filter(|r| outcome.program.pipelines[r.pipeline].loc.file == root)
        .filter(|r| only.is_none_or(|n| outcome.program.pipelines[r.pipeline].name == n))
        .map(|r| crate::graph::model_of(&outcome.program, r))
        .collect();
    if models.is_empty() {
        return usage_error(&match only {
            Some(n) => format!("no pipeline `{n}` in `{}`", file.display()),
            None => format!("`{}` declares no pipeline", file.display()),
        });
    }
    let text: Vec<String> = models
        .iter()
        .map(|m| match format {
            GraphFormat::Dot => crate::graph::to_dot(m),
            GraphFormat::Mermaid => crate::graph::to_mermaid(m),
        })
        .collect();
    print(&text.join("\n"));
    ExitCode::SUCCESS
}
