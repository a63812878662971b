//! Findings, and their rendering: miette for people, JSON, SARIF and GitHub
//! annotations for tools.

pub mod code;
pub mod github;
pub mod human;
pub mod json;
pub mod sarif;
pub mod words;

pub use code::Code;

use crate::source::FileId;
use crate::span::Span;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub file: FileId,
    pub span: Span,
    pub message: String,
}

/// One finding of the rule `code`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    pub file: FileId,
    pub span: Span,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    /// The reason of the `allow` that suppresses it.
    pub suppressed: Option<String>,
    /// The machine-applicable part of its help, which `flowc check --fix`
    /// applies and the language server offers as a quick fix.
    pub fix: Option<Fix>,
}

/// One replacement of the text at `span` of `file` (empty to insert); or,
/// with `line`, `text` as a line of its own before the line that holds
/// `span.start`, indented as that line is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub file: FileId,
    pub span: Span,
    pub text: String,
    pub line: bool,
}

/// A change that does what a finding's help says, and only that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// What it does, as a quick fix's title: "pin the read with `pinned listing`".
    pub title: String,
    pub edits: Vec<Edit>,
}

impl Diagnostic {
    /// A finding with the rule's default severity.
    pub fn new(code: Code, file: FileId, span: Span, message: impl Into<String>) -> Self {
        let severity = code.severity();
        Diagnostic {
            code,
            severity,
            message: message.into(),
            file,
            span,
            labels: Vec::new(),
            help: None,
            suppressed: None,
            fix: None,
        }
    }

    /// The fix of a "did you mean `near`?": the misspelled name at `span`
    /// of `file` becomes `near`; none when there is no likely name.
    #[must_use]
    pub fn fix_name(self, near: Option<&str>, file: FileId, span: Span) -> Self {
        match near {
            Some(n) if !n.is_empty() => self.fix(format!("replace with `{n}`"), file, span, n),
            _ => self,
        }
    }

    /// The fix: replace `span` of `file` with `text`.
    #[must_use]
    pub fn fix(
        mut self,
        title: impl Into<String>,
        file: FileId,
        span: Span,
        text: impl Into<String>,
    ) -> Self {
        self.fix = Some(Fix {
            title: title.into(),
            edits: vec![Edit {
                file,
                span,
                text: text.into(),
                line: false,
            }],
        });
        self
    }

    /// The fix: `line` as a line of its own before the line that holds
    /// `at` in `file`, indented as that line is.
    #[must_use]
    pub fn fix_line(
        mut self,
        title: impl Into<String>,
        file: FileId,
        at: usize,
        line: impl Into<String>,
    ) -> Self {
        self.fix = Some(Fix {
            title: title.into(),
            edits: vec![Edit {
                file,
                span: Span::new(at, at),
                text: line.into(),
                line: true,
            }],
        });
        self
    }

    #[must_use]
    pub fn label(mut self, file: FileId, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            file,
            span,
            message: message.into(),
        });
        self
    }

    #[must_use]
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    #[must_use]
    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error && self.suppressed.is_none()
    }
}

/// Sort findings as the JSON contract says: by file path, then offset, then code.
pub fn sort(diags: &mut [Diagnostic], sources: &crate::source::SourceMap) {
    diags.sort_by(|a, b| order(sources, a, b));
}

/// The order of [`sort`].
pub fn order(
    sources: &crate::source::SourceMap,
    a: &Diagnostic,
    b: &Diagnostic,
) -> std::cmp::Ordering {
    sources
        .path(a.file)
        .cmp(sources.path(b.file))
        .then(a.span.start.cmp(&b.span.start))
        .then(a.code.cmp(&b.code))
        .then(a.message.cmp(&b.message))
}

/// The most findings listed for one file: past it, findings are counted
/// (in [`Summary`]) but not listed, so a hostile or generated file cannot
/// make the output grow without bound.
pub const MAX_FINDINGS_PER_FILE: usize = 200;

/// Findings of one file left out of the list past [`MAX_FINDINGS_PER_FILE`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Omitted {
    /// Every finding left out, suppressed ones included.
    pub findings: usize,
    /// Of them, unsuppressed errors and warnings.
    pub errors: usize,
    pub warnings: usize,
}

impl Omitted {
    /// Count `d` as left out.
    pub fn add(&mut self, d: &Diagnostic) {
        self.findings += 1;
        match (d.suppressed.is_none(), d.severity) {
            (true, Severity::Error) => self.errors += 1,
            (true, Severity::Warning) => self.warnings += 1,
            (false, _) => {}
        }
    }
}

/// Keep the first [`MAX_FINDINGS_PER_FILE`] findings of each file, in the
/// order of `diags` (sorted); what is left out, per file.
pub fn cap_per_file(
    diags: &mut Vec<Diagnostic>,
    max: usize,
) -> std::collections::BTreeMap<FileId, Omitted> {
    let mut listed: std::collections::BTreeMap<FileId, usize> = std::collections::BTreeMap::new();
    let mut omitted: std::collections::BTreeMap<FileId, Omitted> =
        std::collections::BTreeMap::new();
    diags.retain(|d| {
        let n = listed.entry(d.file).or_default();
        *n += 1;
        if *n <= max {
            return true;
        }
        omitted.entry(d.file).or_default().add(d);
        false
    });
    omitted
}

/// Counts of unsuppressed findings, those left out of the list included.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
    /// Findings not listed (past [`MAX_FINDINGS_PER_FILE`] in a file).
    pub omitted: usize,
}

impl Summary {
    pub fn of(files: usize, diags: &[Diagnostic]) -> Self {
        let mut s = Summary {
            files,
            ..Summary::default()
        };
        for d in diags.iter().filter(|d| d.suppressed.is_none()) {
            match d.severity {
                Severity::Error => s.errors += 1,
                Severity::Warning => s.warnings += 1,
            }
        }
        s
    }

    /// These counts with findings that were left out of the list.
    #[must_use]
    pub fn with_omitted<'a>(mut self, omitted: impl IntoIterator<Item = &'a Omitted>) -> Self {
        for o in omitted {
            self.errors += o.errors;
            self.warnings += o.warnings;
            self.omitted += o.findings;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::{cap_per_file, Code, Diagnostic, Omitted, Severity, Summary};
    use crate::source::FileId;
    use crate::span::Span;

    fn finding(file: usize, at: usize, severity: Severity, suppressed: bool) -> Diagnostic {
        let mut d = Diagnostic::new(Code::FL007, FileId(file), Span::new(at, at + 1), "m")
            .severity(severity);
        if suppressed {
            d.suppressed = Some("r".into());
        }
        d
    }

    #[test]
    fn the_cap_keeps_the_first_of_each_file_and_counts_the_rest() {
        let mut diags: Vec<Diagnostic> = (0..5)
            .map(|i| finding(0, i, Severity::Error, false))
            .chain([
                finding(0, 9, Severity::Warning, false),
                finding(0, 10, Severity::Error, true),
            ])
            .chain((0..2).map(|i| finding(1, i, Severity::Warning, false)))
            .collect();
        let omitted = cap_per_file(&mut diags, 3);
        assert_eq!(diags.len(), 5);
        assert!(diags
            .iter()
            .filter(|d| d.file == FileId(0))
            .all(|d| d.span.start < 3));
        assert_eq!(
            omitted.get(&FileId(0)),
            Some(&Omitted {
                findings: 4,
                errors: 2,
                warnings: 1
            })
        );
        assert_eq!(
            omitted.get(&FileId(1)),
            None,
            "two findings are under the cap"
        );
        let s = Summary::of(2, &diags).with_omitted(omitted.values());
        assert_eq!((s.errors, s.warnings, s.omitted), (5, 3, 4));
    }
}
