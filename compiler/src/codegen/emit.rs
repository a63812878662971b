//! Writing generated files: confined to the output folder, atomically.

use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use super::{At, GeneratedFile, TargetProblem};
use std::collections::{BTreeMap, HashMap, HashSet};

use crate::analyze::model::Loc;
use crate::analyze::Outcome;
use crate::diagnostic::Diagnostic;
use crate::source::FileId;

/// Where `rel` lands inside `out`, or why it may not (FL804).
pub fn confined(out: &Path, rel: &str) -> Result<PathBuf, String> {
    let p = Path::new(rel);
    if rel.is_empty()
        || p.is_absolute()
        || p.components().any(|c| !matches!(c, Component::Normal(_)))
    {
        return Err(format!("output path `{rel}` would leave the output folder"));
    }
    let target = out.join(p);
    // A link where the file goes (the case FL804's page describes): the
    // rename would silently replace the link, and whatever it leads to or
    // publishes would be cut off. Refused instead, like a linked folder.
    if target
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
    {
        return Err(format!(
            "output path `{rel}` is a symbolic link; flowc writes only plain files"
        ));
    }
    // A folder on the way that is a link to elsewhere would also lead outside.
    if let (Ok(root), Some(parent)) = (out.canonicalize(), target.parent()) {
        if let Ok(real_parent) = parent.canonicalize() {
            if !real_parent.starts_with(&root) {
                return Err(format!(
                    "output path `{rel}` resolves outside the output folder"
                ));
            }
        }
    }
    Ok(target)
}

/// The prefix of the temporary file [`write_atomic`] writes `name` through;
/// the process id follows it.
fn temp_prefix(name: &str) -> String {
    format!(".{name}.flowc-tmp-")
}

/// Remove the temporary files that a build stopped before its rename (killed,
/// or the machine went down) left next to `written`. Only names of the form
/// [`write_atomic`] uses, for the files just written, are touched. Another
/// build writing the same file into the same folder at the same moment could
/// lose its temporary file here: its rename then fails (FL804), and still no
/// file is ever partial.
fn remove_stale_temps<'a>(written: impl IntoIterator<Item = &'a Path>) {
    // A set per folder: one look-up per entry, not one per file written
    // (a scaffold of 100k tasks writes 200k files into one folder).
    let mut by_dir: std::collections::BTreeMap<&Path, HashSet<String>> =
        std::collections::BTreeMap::new();
    for path in written {
        if let (Some(dir), Some(name)) = (path.parent(), path.file_name()) {
            by_dir
                .entry(dir)
                .or_default()
                .insert(temp_prefix(&name.to_string_lossy()));
        }
    }
    for (dir, prefixes) in by_dir {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            // `<prefix><pid>`: the prefix ends in `-`, so it is what is left
            // once the trailing digits are cut.
            let prefix = name.trim_end_matches(|c: char| c.is_ascii_digit());
            let stale = prefix.len() < name.len() && prefixes.contains(prefix);
            if stale {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Write through a temporary file in the same folder, then rename, so a
/// scheduler watching the folder never reads half a file. Mode 0644.
pub fn write_atomic(path: &Path, contents: &str) -> std::io::Result<()> {
    write_pieces_atomic(path, std::iter::once(contents))
}

/// [`write_atomic`] of a text given in pieces, written one after the other.
pub fn write_pieces_atomic<'a>(
    path: &Path,
    pieces: impl IntoIterator<Item = &'a str>,
) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!("{}{}", temp_prefix(&name), std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        for piece in pieces {
            f.write_all(piece.as_bytes())?;
        }
        f.sync_all()?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o644))?;
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Where the pipelines and tasks of one file are named: enough to place
/// target problems once the model itself is gone.
pub struct Places {
    file: FileId,
    /// Pipeline name -> (where it is named, its tasks).
    pipelines: BTreeMap<String, (Loc, HashMap<String, TaskPlaces>)>,
    /// The run's declaration names, by index (shared by every file's places).
    decl_names: std::sync::Arc<[String]>,
}

/// Where a task is named, its `run` statement, the `retries` and `timeout`
/// lines in force, and its `read`, `write` and `emit` statements with the
/// declaration each names. Kept small: a pipeline may have 100,000 tasks.
struct TaskPlaces {
    name: Loc,
    run: Option<Loc>,
    retries: Option<Loc>,
    timeout: Option<Loc>,
    reads: Vec<(usize, Loc)>,
    writes: Vec<(usize, Loc)>,
    emits: Vec<(usize, Loc)>,
}

impl Places {
    /// The start of the file.
    fn start(&self) -> Loc {
        Loc {
            file: self.file,
            span: crate::span::Span::new(0, 0),
        }
    }

    /// Where pipeline `name` is named, or the start of the file.
    pub fn pipeline(&self, name: &str) -> Loc {
        self.pipelines
            .get(name)
            .map_or(self.start(), |(loc, _)| *loc)
    }

    /// No pipelines: every finding goes to the start of `file`.
    pub fn empty(file: FileId) -> Places {
        Places {
            file,
            pipelines: BTreeMap::new(),
            decl_names: std::sync::Arc::new([]),
        }
    }

    /// The run's declaration names, once for the places of all its files.
    pub fn decl_names(outcome: &Outcome) -> std::sync::Arc<[String]> {
        outcome
            .program
            .decls
            .iter()
            .map(|d| d.name.clone())
            .collect()
    }

    /// The first of `statements` naming declaration `name`.
    fn statement(&self, statements: &[(usize, Loc)], name: &str) -> Option<Loc> {
        statements
            .iter()
            .find(|(decl, _)| self.decl_names.get(*decl).is_some_and(|n| n == name))
            .map(|(_, at)| *at)
    }

    pub fn of(outcome: &Outcome, file: FileId, decl_names: &std::sync::Arc<[String]>) -> Places {
        let pipelines = outcome
            .program
            .pipelines
            .iter()
            .filter(|p| p.loc.file == file)
            .map(|p| {
                let tasks = p
                    .tasks
                    .iter()
                    .map(|t| {
                        let places = TaskPlaces {
                            name: t.name_loc,
                            run: t.run.as_ref().map(|r| r.loc),
                            retries: t.retries.or(p.retries).map(|(_, at)| at),
                            timeout: t.timeout.or(p.timeout).map(|(_, at)| at),
                            reads: t.reads.iter().map(|r| (r.decl, r.loc)).collect(),
                            writes: t.writes.iter().map(|w| (w.decl, w.loc)).collect(),
                            emits: t.emits.iter().map(|e| (e.decl, e.loc)).collect(),
                        };
                        (t.name.clone(), places)
                    })
                    .collect();
                (p.name.clone(), (p.name_loc, tasks))
            })
            .collect();
        Places {
            file,
            pipelines,
            decl_names: decl_names.clone(),
        }
    }
}

/// Target problems as findings, at the task (or pipeline) they name, or at
/// the statement or setting they are about. A pipeline's setting that every
/// task inherits is one finding, not one per task.
pub fn problems_to_diagnostics(places: &Places, problems: Vec<TargetProblem>) -> Vec<Diagnostic> {
    let mut seen = std::collections::HashSet::new();
    problems
        .into_iter()
        .map(|p| {
            let loc = places.pipelines.get(&p.pipeline).map(|(at, tasks)| {
                p.task.as_ref().and_then(|t| tasks.get(t)).map_or(*at, |t| {
                    let found = match &p.at {
                        At::Name => None,
                        At::Run => t.run,
                        At::Read(d) => places.statement(&t.reads, d),
                        At::Write(d) => places.statement(&t.writes, d),
                        At::Emit(d) => places.statement(&t.emits, d),
                        At::Retries => t.retries,
                        At::Timeout => t.timeout,
                    };
                    found.unwrap_or(t.name)
                })
            });
            let (f, span) = loc.map_or((places.file, crate::span::Span::new(0, 0)), |l| {
                (l.file, l.span)
            });
            Diagnostic::new(p.code, f, span, p.message).help(p.help)
        })
        .filter(|d| seen.insert((d.code, d.file, d.span, d.message.clone())))
        .collect()
}

/// Write generated files under `out`; errors become FL804 findings at the
/// name of the pipeline a file is for (else at the start of its file).
pub fn write_all(
    out: &Path,
    files: &[GeneratedFile],
    places: &Places,
) -> Result<usize, Vec<Diagnostic>> {
    let at = |g: &GeneratedFile| {
        let loc = g
            .pipeline
            .as_deref()
            .map_or_else(|| places.start(), |name| places.pipeline(name));
        (loc.file, loc.span)
    };
    let mut targets = Vec::new();
    let mut errors = Vec::new();
    for g in files {
        match confined(out, &g.path) {
            Ok(p) => targets.push((p, g)),
            Err(msg) => {
                let (file, span) = at(g);
                errors.push(
                    Diagnostic::new("FL804", file, span, msg)
                        .help("output file names come from pipeline names; keep `--out` free of links that lead elsewhere"),
                );
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    for (p, generated) in &targets {
        if let Err(e) = write_pieces_atomic(p, generated.pieces()) {
            let (file, span) = at(generated);
            return Err(vec![Diagnostic::new(
                "FL804",
                file,
                span,
                format!(
                    "cannot write `{}`: {}",
                    p.display(),
                    crate::files::io_words(&e)
                ),
            )
            .help("check that the output folder is writable")]);
        }
    }
    remove_stale_temps(targets.iter().map(|(p, _)| p.as_path()));
    Ok(targets.len())
}

/// What a generator made of one `.flow` file: its files, or its findings.
pub type Generated = Result<Vec<GeneratedFile>, Vec<Diagnostic>>;

/// FL803 where pipelines of different `.flow` files of one run would write
/// one path or take one scheduler name (a file's own pipelines are checked
/// by its generator). `outputs[i]` is what the `i`th file would write; a
/// file with a clash gets its findings instead, and writes nothing. The
/// first file to claim a name keeps it.
pub fn claims_across_files(outputs: &mut [(&Places, Generated)]) {
    // path, claim, Python module or package -> (index of the file, pipeline)
    let mut taken: HashMap<String, (usize, String)> = HashMap::new();
    let mut packages: HashMap<String, (usize, String)> = HashMap::new();
    let mut clashes: Vec<(usize, Diagnostic)> = Vec::new();
    // One finding per pair of pipelines, however many outputs they share.
    let mut reported: std::collections::HashSet<(usize, String, String)> =
        std::collections::HashSet::new();
    for (i, (places, result)) in outputs.iter().enumerate() {
        let Ok(files) = result else { continue };
        for f in files {
            let Some(pipeline) = &f.pipeline else {
                continue;
            };
            // A Python file: a module its packages' folders may not hold twice.
            let module = f.path.strip_suffix(".py");
            let mut found: Option<(usize, String, String)> = None;
            let mut note = |j: usize, other: &String, what: String| {
                if j != i && found.is_none() {
                    found = Some((j, other.clone(), what));
                }
            };
            let path_key = format!("`{}`", f.path);
            if let Some((j, other)) = taken.get(&path_key) {
                note(*j, other, format!("would both write {path_key}"));
            }
            if let Some(claim) = &f.claim {
                if let Some((j, other)) = taken.get(claim) {
                    note(*j, other, format!("both become {claim}"));
                }
            }
            // A Python module may not be a package another one sits in.
            let enclosing: Vec<&str> = module
                .map(|m| m.match_indices('/').map(|(k, _)| &m[..k]).collect())
                .unwrap_or_default();
            if let Some(m) = module {
                if let Some((j, other)) = packages.get(m) {
                    note(
                        *j,
                        other,
                        format!("clash: `{m}.py` is also a package of the other's"),
                    );
                }
                for p in &enclosing {
                    if let Some((j, other)) = taken.get(&format!("`{p}.py`")) {
                        note(
                            *j,
                            other,
                            format!("clash: `{p}.py` is also a package of the other's"),
                        );
                    }
                }
            }
            if let Some((j, other, what)) = found {
                if reported.insert((i, other.clone(), pipeline.clone())) {
                    let at = places.pipeline(pipeline);
                    let first = outputs[j].0.pipeline(&other);
                    let scaffold = f.path.contains('/') || f.path.ends_with("_transform.py");
                    let help = if f.claim.is_some() || !scaffold {
                        "rename one of the pipelines, so each output has one owner"
                    } else {
                        "give the tasks modules of their own in `run command [\"python\", \"-m\", ...]`, neither inside nor beside the other's"
                    };
                    clashes.push((
                        i,
                        Diagnostic::new(
                            "FL803",
                            at.file,
                            at.span,
                            format!("pipelines `{other}` and `{pipeline}` {what}"),
                        )
                        .label(first.file, first.span, format!("`{other}` is here"))
                        .help(help),
                    ));
                }
                continue;
            }
            taken
                .entry(path_key)
                .or_insert_with(|| (i, pipeline.clone()));
            if let Some(claim) = &f.claim {
                taken
                    .entry(claim.clone())
                    .or_insert_with(|| (i, pipeline.clone()));
            }
            for p in enclosing {
                packages
                    .entry(p.to_owned())
                    .or_insert_with(|| (i, pipeline.clone()));
            }
        }
    }
    for (i, d) in clashes {
        match &mut outputs[i].1 {
            Err(found) => found.push(d),
            result @ Ok(_) => *result = Err(vec![d]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_output_folder() {
        let dir = std::env::temp_dir();
        assert!(confined(&dir, "orders.py").is_ok());
        assert!(confined(&dir, "sub/orders.py").is_ok());
        for bad in ["../x.py", "/etc/passwd", "a/../../x", "", "./x"] {
            assert!(confined(&dir, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn atomic_write_replaces_whole_files() {
        let dir = tempfile_dir();
        let p = dir.join("a.txt");
        write_atomic(&p, "one").expect("write");
        write_atomic(&p, "two").expect("write");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "two");
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .expect("dir")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().contains("flowc-tmp"))
            .collect();
        assert!(leftovers.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A file generated in pieces is written whole, in order, and reads back
    /// as its text.
    #[test]
    fn a_file_in_pieces_is_written_whole() {
        let dir = tempfile_dir().join("pieces");
        let mut file = GeneratedFile::new("p.yaml".into(), "head\n".into());
        file.more = vec!["one\n".into(), String::new(), "two\n".into()];
        assert_eq!(file.text(), "head\none\ntwo\n");
        write_all(&dir, std::slice::from_ref(&file), &Places::empty(FileId(0))).expect("written");
        let written = std::fs::read_to_string(dir.join("p.yaml")).expect("read");
        assert_eq!(written, file.text());
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("flowc-emit-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("mkdir");
        d
    }
}
