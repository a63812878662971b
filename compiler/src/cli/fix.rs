//! `flowc check --fix`, `--diff` and `--with-importers`: what runs before
//! the check itself.
//!
//! `--fix` applies the findings' fixes (`crate::fix`) to the files named,
//! round after round on the text in memory until none applies (at most
//! [`crate::fix::MAX_ROUNDS`]), writes each changed file once, atomically,
//! and lets the check report what is left. `--diff` prints what `--fix`
//! would change as a unified diff and exits 1 if anything would.
//! `--with-importers` adds to the files named every `.flow` file under the
//! current folder that imports one of them with `use`, directly or not.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use super::{print, usage_error};
use crate::check::{Input, Loader};
use crate::io::read::{discover, display, Configs, FsLoader};

#[derive(clap::Args, Debug, Clone, Default)]
pub(super) struct FixArgs {
    /// Apply the fixes the findings offer (a did-you-mean name, a keyword's case,
    /// the pin a source's kind offers, a lease), then report what is left
    #[arg(long)]
    fix: bool,
    /// Print what --fix would change as a unified diff and write nothing (also with
    /// --fix, as ruff does); exit 1 if it would change anything
    #[arg(long)]
    diff: bool,
    /// Also check every .flow file under the current folder that imports one of the
    /// files named with `use`, directly or through others (for pre-commit hooks)
    #[arg(long)]
    with_importers: bool,
}

/// Files read from disk, with the text a round of fixes gave some of them.
struct Overlay<'a> {
    fs: FsLoader,
    texts: &'a BTreeMap<String, String>,
}

impl Overlay<'_> {
    fn patched(&self, mut input: Input) -> Input {
        if let Some(t) = self.texts.get(&input.key) {
            input.bytes = t.clone().into_bytes();
        }
        input
    }
}

impl Loader for Overlay<'_> {
    fn load(&self, from: &str, rel: &str) -> Result<Input, String> {
        self.fs.load(from, rel).map(|i| self.patched(i))
    }
}

/// The paths to check, or the exit status to end with now (`--diff`, or a
/// usage error).
impl FixArgs {
    /// Whether `--fix` or `--diff` was given.
    pub(super) fn rewrites(&self) -> bool {
        self.fix || self.diff
    }
}

pub(super) fn run(
    paths: &[PathBuf],
    args: &FixArgs,
    configs: &Arc<Configs>,
) -> Result<Vec<PathBuf>, ExitCode> {
    let paths = if args.with_importers {
        with_importers(paths, configs).map_err(|e| usage_error(&e))?
    } else {
        paths.to_vec()
    };
    if !(args.fix || args.diff) {
        return Ok(paths);
    }
    let changes = fixed(&paths, configs).map_err(|e| usage_error(&e))?;
    if args.diff {
        let mut out = String::new();
        for c in changes.values() {
            let diff = similar::TextDiff::from_lines(&c.before, &c.after);
            // Escaped: a control character of the file would reach the
            // terminal.
            out.push_str(&crate::diagnostic::human::escape_controls(
                &diff
                    .unified_diff()
                    .context_radius(2)
                    .header(&c.shown, &format!("{} (fixed)", c.shown))
                    .to_string(),
            ));
        }
        print(&out);
        return Err(ExitCode::from(u8::from(!changes.is_empty())));
    }
    for c in changes.values() {
        if let Err(e) = crate::io::write::rewrite_existing(Path::new(&c.shown), &c.after) {
            return Err(usage_error(&format!(
                "cannot write `{}`: {}",
                c.shown,
                crate::io::read::io_words(&e)
            )));
        }
        let s = if c.fixes == 1 { "" } else { "es" };
        eprintln!(
            "fixed {}: {} fix{s}",
            crate::diagnostic::human::escape_controls(&c.shown),
            c.fixes
        );
    }
    Ok(paths)
}

/// One file `--fix` changes.
struct Change {
    shown: String,
    before: String,
    after: String,
    fixes: usize,
}

/// Every file named (or found under a folder named) that fixes change, by
/// its real path, after as many rounds as change something.
fn fixed(paths: &[PathBuf], configs: &Arc<Configs>) -> Result<BTreeMap<String, Change>, String> {
    let files = discover(paths, configs)?.files;
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    let mut changes: BTreeMap<String, Change> = BTreeMap::new();
    for _ in 0..crate::fix::MAX_ROUNDS {
        let loader = Overlay {
            fs: FsLoader::new(),
            texts: &texts,
        };
        let mut inputs = Vec::new();
        for f in &files {
            let input = loader
                .fs
                .read_root(f)
                .map_err(|e| format!("cannot read `{}`: {e}", display(f)))?;
            inputs.push(loader.patched(input));
        }
        let keys: Vec<(String, String)> = inputs
            .iter()
            .map(|i| (i.path.clone(), i.key.clone()))
            .collect();
        // The configuration in force decides which findings are fixed: a
        // rule it turns off is not fixed either.
        let outcome = crate::check::check_with(inputs, &loader, &**configs);
        let mut next = texts.clone();
        for &root in &outcome.roots {
            let shown = outcome.sources.path(root);
            let Some((_, key)) = keys.iter().find(|(p, _)| p == shown) else {
                continue;
            };
            let text = outcome.sources.text(root);
            let (after, n) = crate::fix::apply(text, root, &outcome.diagnostics);
            if n == 0 || after == text {
                continue;
            }
            let c = changes.entry(key.clone()).or_insert_with(|| Change {
                shown: shown.to_string(),
                before: text.to_string(),
                after: String::new(),
                fixes: 0,
            });
            c.after.clone_from(&after);
            c.fixes += n;
            next.insert(key.clone(), after);
        }
        if next == texts {
            break;
        }
        texts = next;
    }
    changes.retain(|_, c| c.after != c.before);
    Ok(changes)
}

/// `paths`, then every `.flow` file under the current folder that imports
/// one of their files, directly or through others, in path order.
fn with_importers(paths: &[PathBuf], configs: &Arc<Configs>) -> Result<Vec<PathBuf>, String> {
    let named = discover(paths, configs)?.files;
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let mut wanted: BTreeSet<PathBuf> = named.iter().map(|p| real(p)).collect();
    let all = discover(&[], configs)?.files;
    // Who imports whom, by real path: `use "rel"` is relative to the file.
    let mut importers: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for f in &all {
        // Read as every `.flow` file is: inside the root, regular, bounded.
        let Ok(Ok(bytes)) =
            crate::io::read::read_source(f, crate::io::read::MAX_INPUT_BYTES as u64)
        else {
            continue;
        };
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        let dir = real(f).parent().map(Path::to_path_buf).unwrap_or_default();
        for rel in uses(&text) {
            importers
                .entry(real(&dir.join(rel)))
                .or_default()
                .push(f.clone());
        }
    }
    let mut out = named.clone();
    let mut queue: Vec<PathBuf> = wanted.iter().cloned().collect();
    while let Some(p) = queue.pop() {
        for imp in importers.get(&p).into_iter().flatten() {
            if wanted.insert(real(imp)) {
                out.push(imp.clone());
                queue.push(real(imp));
            }
        }
    }
    out[named.len()..].sort();
    Ok(out)
}

/// The paths of the `use "..."` lines of a `.flow` text. A line scan, not a
/// parse: a file that does not parse still names what it imports.
fn uses(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("use"))
        .filter(|r| r.starts_with([' ', '\t']))
        .filter_map(|r| {
            let r = r.trim_start().strip_prefix('"')?;
            r.find('"').map(|end| &r[..end])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::uses;

    #[test]
    fn finds_the_use_lines() {
        let text = "use \"shared/a.flow\"\n  use\t\"b.flow\" # x\nuser \"c.flow\"\n# use \"d.flow\"\nsource s: files {\n";
        assert_eq!(uses(text), ["shared/a.flow", "b.flow"]);
    }
}
