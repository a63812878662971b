//! Where target problems and write failures are reported: the places of a
//! file's pipelines and tasks, target problems and FL804 as findings, and
//! the FL803 clashes between the outputs of different `.flow` files. The
//! writing itself is a [`Writer`]'s (`io::write::Disk`).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::writer::{Refusal, Writer};
use super::{At, GeneratedFile, TargetProblem};
use crate::analyze::model::Loc;
use crate::check::Outcome;
use crate::diagnostic::words::{display, io_words};
use crate::diagnostic::{Code, Diagnostic};
use crate::rules::{fl803, fl804};
use crate::source::FileId;

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
/// name of the pipeline a file is for (else at the start of its file). See
/// [`write_counted`]; `Ok` is the number of files written, all of them.
pub fn write_all(
    writer: &dyn Writer,
    out: &Path,
    files: &[GeneratedFile],
    places: &Places,
) -> Result<usize, Vec<Diagnostic>> {
    let (written, problems) = write_counted(writer, out, files, places);
    if problems.is_empty() {
        Ok(written)
    } else {
        Err(problems)
    }
}

/// Write generated files under `out`, all or none: every path is checked
/// first (inside `out`, no link, no folder, and no existing file that flowc
/// did not generate), then every file is written to a temporary file beside
/// its path, and only when all are staged are they renamed into place. On
/// any problem before the renames nothing is replaced and the staged files
/// are removed. Returns how many files were written (the first ones of
/// `files`: a rename can fail only midway if the system fails) and the
/// findings, FL804 at the name of the pipeline a file is for (else at the
/// start of its `.flow` file).
pub fn write_counted(
    writer: &dyn Writer,
    out: &Path,
    files: &[GeneratedFile],
    places: &Places,
) -> (usize, Vec<Diagnostic>) {
    let at = |g: &GeneratedFile| {
        let loc = g
            .pipeline
            .as_deref()
            .map_or_else(|| places.start(), |name| places.pipeline(name));
        (loc.file, loc.span)
    };
    let finding = |g: &GeneratedFile, message: String, help: &str| {
        let (file, span) = at(g);
        Diagnostic::new(Code::FL804, file, span, message).help(help)
    };
    let (written, refused) = writer.write_all_or_none(out, files);
    let problems = refused
        .into_iter()
        .map(|(i, why)| {
            let g = &files[i];
            match why {
                Refusal::Outside(msg) => finding(g, msg, fl804::OUTSIDE_HELP),
                Refusal::Folder(p) => {
                    let (message, help) = fl804::folder_in_the_way(&display(&p));
                    finding(g, message, &help)
                }
                Refusal::NotPlain(p) => {
                    let (message, help) = fl804::not_a_plain_file(&display(&p));
                    finding(g, message, &help)
                }
                Refusal::NotGenerated(p) => {
                    let (message, help) = fl804::not_generated(&display(&p));
                    finding(g, message, &help)
                }
                Refusal::Io(p, e) => {
                    let (message, help) = fl804::cannot_write(&display(&p), &io_words(&e));
                    finding(g, message, &help)
                }
            }
        })
        .collect();
    (written, problems)
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
                    let (message, label, help) = fl803::pipelines_clash(
                        &other,
                        pipeline,
                        &what,
                        f.claim.is_none() && scaffold,
                    );
                    clashes.push((
                        i,
                        Diagnostic::new(Code::FL803, at.file, at.span, message)
                            .label(first.file, first.span, label)
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

    /// A file generated in pieces is written whole, in order, and reads back
    /// as its text.
    #[test]
    fn a_file_in_pieces_is_written_whole() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = root.path().join("pieces");
        let mut file = GeneratedFile::new("p.yaml".into(), "head\n".into());
        file.more = vec!["one\n".into(), String::new(), "two\n".into()];
        assert_eq!(file.text(), "head\none\ntwo\n");
        write_all(
            &crate::io::write::Disk,
            &dir,
            std::slice::from_ref(&file),
            &Places::empty(FileId(0)),
        )
        .expect("written");
        let written = std::fs::read_to_string(dir.join("p.yaml")).expect("read");
        assert_eq!(written, file.text());
    }
}
