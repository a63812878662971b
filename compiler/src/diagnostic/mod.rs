//! Findings, and their rendering: miette for people, JSON, SARIF and GitHub
//! annotations for tools.

pub mod github;
pub mod human;
pub mod json;
pub mod sarif;

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

/// One finding. `code` names a rule of the registry (`rules::registry`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub file: FileId,
    pub span: Span,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    /// The reason of the `allow` that suppresses it.
    pub suppressed: Option<String>,
}

impl Diagnostic {
    /// A finding with the rule's default severity.
    pub fn new(code: &'static str, file: FileId, span: Span, message: impl Into<String>) -> Self {
        let severity = crate::rules::registry::severity_of(code);
        Diagnostic {
            code,
            severity,
            message: message.into(),
            file,
            span,
            labels: Vec::new(),
            help: None,
            suppressed: None,
        }
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
    diags.sort_by(|a, b| {
        sources
            .path(a.file)
            .cmp(sources.path(b.file))
            .then(a.span.start.cmp(&b.span.start))
            .then(a.code.cmp(b.code))
            .then(a.message.cmp(&b.message))
    });
}

/// Counts of unsuppressed findings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
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
}
