//! Suppressions: which findings an `allow` covers, and the allows that
//! cover nothing (FL705).

use std::collections::BTreeSet;

use crate::analyze::model::AllowDef;
use crate::analyze::Program;
use crate::diagnostic::{Code, Diagnostic};
use crate::source::FileId;

/// Mark findings covered by an `allow`, and report allows that cover nothing
/// (FL705), except in `broken` files: the rules did not run there, so an
/// allow's finding may yet come once the file's other errors are fixed.
pub fn suppress(program: &Program, broken: &BTreeSet<FileId>, diags: &mut Vec<Diagnostic>) {
    let mut allows: Vec<(&AllowDef, bool)> = Vec::new();
    for p in &program.pipelines {
        for t in &p.tasks {
            allows.extend(t.allows.iter().map(|a| (a, false)));
        }
        allows.extend(p.allows.iter().map(|a| (a, false)));
    }
    for d in diags.iter_mut() {
        if matches!(
            d.code,
            Code::FL001 | Code::FL705 | Code::FL706 | Code::FL707
        ) {
            continue;
        }
        // Task allows come before pipeline allows: the narrowest scope wins.
        if let Some((a, used)) = allows
            .iter_mut()
            .find(|(a, _)| a.code == d.code && a.loc.file == d.file && a.scope.contains(d.span))
        {
            d.suppressed = Some(a.reason.clone());
            *used = true;
        }
    }
    for (a, used) in allows {
        if !used && !broken.contains(&a.loc.file) {
            diags.push(super::fl705_unused_allow::finding(a));
        }
    }
}
