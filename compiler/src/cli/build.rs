//! `flowc build`: check, lower, generate for a target of the registry, and
//! write all of a `.flow` file's outputs or none; then remove stale outputs.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{exit_without_freeing, print_findings, usage_error, ArgoKindArg};
use crate::diagnostic;
use crate::io::read::check_paths;

/// What [`generate_into`] did.
pub(super) struct Run {
    pub(super) code: ExitCode,
    /// The paths written, relative to the output folder.
    pub(super) written: std::collections::BTreeSet<String>,
    /// The `.flow` files whose outputs were all written, as headers name them.
    pub(super) sources: std::collections::BTreeSet<String>,
    /// What the generator said it kept, for the files whose outputs were written.
    pub(super) kept: std::collections::BTreeSet<String>,
}

/// The files of `files` to write, and the paths of those left as they were
/// because their [`WritePolicy`](crate::codegen::WritePolicy) keeps an
/// existing file (the quiet ones are not named).
fn apply_write_policy(
    out: &std::path::Path,
    files: Vec<crate::codegen::GeneratedFile>,
) -> (Vec<crate::codegen::GeneratedFile>, Vec<String>) {
    use crate::codegen::WritePolicy;
    let mut write = Vec::with_capacity(files.len());
    let mut kept = Vec::new();
    for f in files {
        let exists = f.write != WritePolicy::Always
            && crate::io::write::confined(out, &f.path).is_ok_and(|p| p.symlink_metadata().is_ok());
        if !exists {
            write.push(f);
        } else if f.write == WritePolicy::IfAbsent {
            kept.push(f.path);
        }
    }
    (write, kept)
}

/// Check the files, run `generate` on the pipelines of each file without
/// errors, and write what it returns inside `out` (as each file's
/// [`WritePolicy`](crate::codegen::WritePolicy) says), all of a `.flow`
/// file's outputs or none. Prints the findings (target problems included).
pub(super) fn generate_into(
    paths: &[PathBuf],
    out: &std::path::Path,
    mut generate: impl FnMut(&[crate::codegen::ir::Pipeline]) -> crate::codegen::target::Output,
    warnings: fn(&[crate::codegen::ir::Pipeline]) -> Vec<crate::codegen::TargetProblem>,
) -> Result<Run, ExitCode> {
    use crate::codegen::places;
    let mut outcome = check_paths(paths).map_err(|e| usage_error(&e))?;
    std::fs::create_dir_all(out).map_err(|e| {
        usage_error(&format!(
            "cannot create `{}`: {}",
            super::shown_path(out),
            crate::io::read::io_words(&e)
        ))
    })?;
    // Shared support files are written once per .flow file; count them once.
    let mut written = std::collections::BTreeSet::new();
    let mut sources = std::collections::BTreeSet::new();
    let mut kept = std::collections::BTreeSet::new();
    let mut extra = Vec::new();
    // Nothing is written for a file with errors.
    let lowered = lower_clean(&outcome);
    extra.extend(target_warnings(&outcome, &lowered, warnings));
    // The model and the analysis are in the pipelines now: free them (on
    // the other core) before the output takes their memory.
    let model = (
        std::mem::take(&mut outcome.program),
        std::mem::take(&mut outcome.analysis),
    );
    std::thread::spawn(move || drop(model));
    // Everything is generated before anything is written: pipelines of
    // different files may not claim one output (FL803).
    let mut left_alone = Vec::new();
    let mut generated: Vec<_> = lowered
        .iter()
        .map(|(places, pipelines)| {
            let result = generate(pipelines)
                .map(|files| apply_write_policy(out, files))
                .map(|(files, kept)| {
                    left_alone.push(kept);
                    files
                })
                .map_err(|p| {
                    left_alone.push(Vec::new());
                    places::problems_to_diagnostics(places, p)
                });
            (places, result)
        })
        .collect();
    places::claims_across_files(&mut generated);
    for (((places, result), (_, pipelines)), left) in
        generated.into_iter().zip(&lowered).zip(left_alone)
    {
        match result {
            Ok(files) => {
                let (count, problems) =
                    places::write_counted(&crate::io::write::Disk, out, &files, places);
                if problems.is_empty() {
                    sources.extend(pipelines.first().map(|p| p.source_file.clone()));
                    kept.extend(left);
                }
                written.extend(files.into_iter().take(count).map(|f| f.path));
                extra.extend(problems);
            }
            Err(d) => extra.extend(d),
        }
    }
    outcome.diagnostics.extend(extra);
    diagnostic::sort(&mut outcome.diagnostics, &outcome.sources);
    let summary = print_findings(&outcome);
    exit_without_freeing(outcome);
    Ok(Run {
        code: ExitCode::from(u8::from(summary.errors > 0)),
        written,
        sources,
        kept,
    })
}

/// The pipelines of each file of `outcome` without errors, lowered to the IR
/// (a file with errors gets no output, and no target findings).
fn lower_clean(
    outcome: &crate::check::Outcome,
) -> Vec<(
    crate::codegen::places::Places,
    Vec<crate::codegen::ir::Pipeline>,
)> {
    use crate::codegen::{lower, places};
    let decl_names = places::Places::decl_names(outcome);
    outcome
        .roots
        .iter()
        .filter(|&&file| !outcome.file_has_errors(file) && !outcome.broken.contains(&file))
        .map(|&file| {
            let places = places::Places::of(outcome, file, &decl_names);
            (places, lower::pipelines_of(outcome, file))
        })
        .filter(|(_, pipelines)| !pipelines.is_empty())
        .collect()
}

/// The target's warnings for the lowered files, with the `allow`s that cover them.
fn target_warnings(
    outcome: &crate::check::Outcome,
    lowered: &[(
        crate::codegen::places::Places,
        Vec<crate::codegen::ir::Pipeline>,
    )],
    warnings: fn(&[crate::codegen::ir::Pipeline]) -> Vec<crate::codegen::TargetProblem>,
) -> Vec<diagnostic::Diagnostic> {
    use crate::codegen::places;
    let mut extra = Vec::new();
    for (places, pipelines) in lowered {
        let mut found = places::problems_to_diagnostics(places, warnings(pipelines));
        crate::rules::suppress::suppress_target(&outcome.program, &mut found);
        extra.extend(found);
    }
    extra
}

/// What `build --target` generates for the pipelines of one file: the
/// target's files, or its problems with FL806 (state a retry cannot reach,
/// which concerns every target).
fn generator<'a>(
    target: &'a crate::codegen::target::Target,
    options: &'a crate::codegen::target::TargetOptions,
) -> impl FnMut(&[crate::codegen::ir::Pipeline]) -> crate::codegen::target::Output + 'a {
    move |pipelines| {
        let stateless = crate::codegen::state::problems(pipelines);
        match (target.generate)(pipelines, options) {
            Ok(_) if !stateless.is_empty() => Err(stateless),
            Err(mut problems) => {
                problems.extend(stateless);
                Err(problems)
            }
            ok => ok,
        }
    }
}

/// The target findings `build` would report for `outcome` (FL801 to FL807
/// but those met only while writing), found by the same steps, with nothing
/// written: what `flowc check --target` adds.
pub(super) fn target_findings(
    outcome: &crate::check::Outcome,
    target: &crate::codegen::target::Target,
    options: crate::codegen::target::TargetOptions,
) -> Vec<diagnostic::Diagnostic> {
    use crate::codegen::places;
    let lowered = lower_clean(outcome);
    let mut extra = target_warnings(outcome, &lowered, target.warnings);
    let mut generate = generator(target, &options);
    let mut generated: Vec<_> = lowered
        .iter()
        .map(|(places, pipelines)| {
            let result =
                generate(pipelines).map_err(|p| places::problems_to_diagnostics(places, p));
            (places, result)
        })
        .collect();
    places::claims_across_files(&mut generated);
    for (_, result) in generated {
        if let Err(d) = result {
            extra.extend(d);
        }
    }
    extra
}

pub(super) fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// The `target` of the configuration in force for the first path (what
/// `flowc check --show-settings` shows), for a `build` without `--target`.
pub(super) fn configured_target(paths: &[PathBuf]) -> Result<String, String> {
    use crate::io::read::{ConfigChoice, Configs};
    let names: Vec<&str> = crate::codegen::target::TARGETS
        .iter()
        .map(|t| t.name)
        .collect();
    let configs = Configs::new(
        ConfigChoice::Discover,
        crate::config::Overrides::default(),
        &names,
    )?;
    let settings = configs.for_paths(paths)?;
    settings.target.clone().ok_or_else(|| {
        format!(
            "no target: pass `--target {}`, or set `target` in flowc.toml",
            names.join("|")
        )
    })
}

pub(super) fn run(
    paths: &[PathBuf],
    target: &str,
    out: &std::path::Path,
    argo_kind: ArgoKindArg,
    keep_stale: bool,
) -> ExitCode {
    use crate::codegen::{argo, target};
    let Some(target) = target::find(target) else {
        // clap accepts only the names of the registry.
        return usage_error(&format!("no target `{target}`"));
    };
    let options = target::TargetOptions {
        argo_kind: match argo_kind {
            ArgoKindArg::Auto => argo::ArgoKind::Auto,
            ArgoKindArg::Template => argo::ArgoKind::Template,
        },
    };
    let result = generate_into(paths, out, generator(target, &options), target.warnings);
    let run = match result {
        Ok(run) => run,
        Err(code) => return code,
    };
    let mut removed = 0;
    for stale in crate::io::write::stale_files(out, target.name, &run.sources, &run.written) {
        let shown = super::shown_path(&stale.path);
        let why = stale.pipeline.as_ref().map_or_else(
            || format!("`{}` no longer produces it", stale.source),
            |p| format!("pipeline `{p}` is no longer in `{}`", stale.source),
        );
        let why = crate::diagnostic::human::escape_controls(&why);
        if keep_stale {
            eprintln!("flowc: stale `{shown}` ({why}); kept, as --keep-stale asks");
        } else {
            match std::fs::remove_file(&stale.path) {
                Ok(()) => {
                    removed += 1;
                    eprintln!("flowc: removed stale `{shown}` ({why})");
                }
                Err(e) => eprintln!(
                    "flowc: cannot remove stale `{shown}` ({why}): {}",
                    crate::io::read::io_words(&e)
                ),
            }
        }
    }
    let removed_note = if removed == 0 {
        String::new()
    } else {
        format!("; removed {}", plural(removed, "stale file"))
    };
    eprintln!(
        "flowc: wrote {} to {}{removed_note}",
        plural(run.written.len(), "file"),
        super::shown_path(out)
    );
    run.code
}
