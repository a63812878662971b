//! `flowc graph`: the task graph of every pipeline of the files (or of the
//! `.flow` files under folders) as DOT or Mermaid: one graph, with a
//! cluster per pipeline when there are several.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{print, print_findings, usage_error, GraphFormat};
use crate::io::read::check_paths;

pub(super) fn run(paths: &[PathBuf], format: GraphFormat, only: Option<&str>) -> ExitCode {
    let outcome = match check_paths(paths) {
        Ok(o) => o,
        Err(e) => return usage_error(&e),
    };
    let shown = |paths: &[PathBuf]| {
        if paths.is_empty() {
            "`.`".to_owned()
        } else {
            paths
                .iter()
                .map(|p| format!("`{}`", crate::io::read::display(p)))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    if outcome.roots.is_empty() {
        return usage_error(&format!("no .flow file in {}", shown(paths)));
    }
    // A file that cannot be drawn is never skipped in silence: its findings
    // are printed and nothing is drawn.
    if outcome.roots.iter().any(|r| outcome.broken.contains(r)) {
        print_findings(&outcome);
        return ExitCode::from(1);
    }
    let pipeline =
        |r: &crate::analyze::guarantee::PipelineReport| &outcome.program.pipelines[r.pipeline];
    let chosen: Vec<_> = outcome
        .analysis
        .pipelines
        .iter()
        .filter(|r| outcome.roots.contains(&pipeline(r).loc.file))
        .filter(|r| only.is_none_or(|n| pipeline(r).name == n))
        .collect();
    if chosen.is_empty() {
        return usage_error(&match only {
            Some(n) => format!("no pipeline `{n}` in {}", shown(paths)),
            None => format!("no pipeline declared in {}", shown(paths)),
        });
    }
    if let (Some(n), true) = (only, chosen.len() > 1) {
        let files: Vec<String> = chosen
            .iter()
            .map(|r| format!("`{}`", outcome.sources.path(pipeline(r).loc.file)))
            .collect();
        return usage_error(&format!(
            "pipeline `{n}` is declared in several files ({}): name one file",
            files.join(", ")
        ));
    }
    // Pipelines in the order of the files given, then of their declarations.
    let mut ordered = chosen;
    ordered.sort_by_key(|r| {
        let p = pipeline(r);
        (
            outcome.roots.iter().position(|f| *f == p.loc.file),
            p.loc.span.start,
        )
    });
    // One graph, a cluster per pipeline: `dot -Tpng` makes one image.
    let models: Vec<_> = ordered
        .into_iter()
        .map(|r| crate::graph::model_of(&outcome.program, r))
        .collect();
    print(&match format {
        GraphFormat::Dot => crate::graph::to_dot_all(&models),
        GraphFormat::Mermaid => crate::graph::to_mermaid_all(&models),
    });
    ExitCode::SUCCESS
}
