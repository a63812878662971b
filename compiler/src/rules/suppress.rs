//! Suppressions: which findings an `allow` covers, and the allows that
//! cover nothing (FL705).

use std::collections::BTreeSet;

use crate::analyze::model::AllowDef;
use crate::analyze::Program;
use crate::diagnostic::{Code, Diagnostic};
use crate::source::FileId;

/// Target warnings found by `build` after `check` (FL807, FL808): an
/// `allow` of one is applied to the build's findings ([`suppress_target`]),
/// so `check` never calls it unused.
const BUILD_CODES: [Code; 2] = [Code::FL807, Code::FL808];

/// Every `allow` of the run, each task's before its pipeline's.
fn allows_of(program: &Program) -> Vec<(&AllowDef, bool)> {
    let mut allows: Vec<(&AllowDef, bool)> = Vec::new();
    for p in &program.pipelines {
        for t in &p.tasks {
            allows.extend(t.allows.iter().map(|a| (a, false)));
        }
        allows.extend(p.allows.iter().map(|a| (a, false)));
    }
    allows
}

/// Mark each finding covered by an `allow`. The first allow in `allows`
/// that covers it takes it: a task's comes before its pipeline's, so the
/// narrowest scope wins, and a wider one counts as used only through the
/// findings no narrower one took.
fn mark(allows: &mut [(&AllowDef, bool)], diags: &mut [Diagnostic]) {
    for d in diags.iter_mut() {
        if matches!(
            d.code,
            Code::FL001 | Code::FL705 | Code::FL706 | Code::FL707
        ) {
            continue;
        }
        if let Some((a, used)) = allows
            .iter_mut()
            .find(|(a, _)| a.code == d.code && a.loc.file == d.file && a.scope.contains(d.span))
        {
            d.suppressed = Some(a.reason.clone());
            *used = true;
        }
    }
}

/// Mark findings covered by an `allow`, and report allows that cover nothing
/// (FL705), except in `broken` files: the rules did not run there, so an
/// allow's finding may yet come once the file's other errors are fixed.
/// An allow of a code only `build` finds is never FL705 here.
pub fn suppress(program: &Program, broken: &BTreeSet<FileId>, diags: &mut Vec<Diagnostic>) {
    let mut marks = Marks::new(program);
    marks.mark(diags);
    diags.extend(marks.unused(broken));
}

/// The allows of a run and which of them covered a finding so far: findings
/// can be marked a batch at a time (`check` does, to keep only what it lists),
/// and the unused allows told once all are marked.
pub struct Marks<'p> {
    allows: Vec<(&'p AllowDef, bool)>,
}

impl<'p> Marks<'p> {
    pub fn new(program: &'p Program) -> Self {
        Marks {
            allows: allows_of(program),
        }
    }

    /// No allows at all.
    pub fn empty() -> Self {
        Marks { allows: Vec::new() }
    }

    /// Mark the findings of `diags` that an allow covers.
    pub fn mark(&mut self, diags: &mut [Diagnostic]) {
        mark(&mut self.allows, diags);
    }

    /// FL705 for each allow that covered nothing (see [`suppress`]).
    pub fn unused(self, broken: &BTreeSet<FileId>) -> Vec<Diagnostic> {
        self.allows
            .into_iter()
            .filter(|(a, used)| {
                !used && !broken.contains(&a.loc.file) && !BUILD_CODES.contains(&a.code)
            })
            .map(|(a, _)| super::fl705_unused_allow::finding(a))
            .collect()
    }
}

/// Mark the target warnings of a build that an `allow` covers.
pub fn suppress_target(program: &Program, diags: &mut [Diagnostic]) {
    let mut allows = allows_of(program);
    allows.retain(|(a, _)| BUILD_CODES.contains(&a.code));
    mark(&mut allows, diags);
}
