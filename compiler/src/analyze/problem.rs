//! What the front end (the loader in `check`, the resolver) finds wrong, as data: the problem and what its message
//! needs, without the message. The driver (`check`) turns each into a
//! finding through its rule's file (`rules::finding`), which holds the words.

use super::model::{Loc, Role};
use crate::diagnostic::{Code, Diagnostic};
use crate::vocab::ParamType;

/// The namespace two declarations of one name clash in (FL703).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Namespace {
    /// Kinds declared in one file.
    Kind,
    /// A kind of this file and one it imports.
    ImportedKind,
    /// Sources, sinks and effects declared in one file.
    Decl,
    /// Sources, sinks and effects of this file and those it imports.
    ImportedDecl,
    /// Pipelines across all the files of a run.
    Pipeline,
    /// Tasks of one pipeline.
    Task { pipeline: String },
}

/// A clause a statement may state once (FL007).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clause {
    /// `pinned P` or `unpinned` of a `read`.
    Pin,
    /// `commit` of a `read`.
    Commit,
    /// `key` of a `write`.
    Key,
    /// `require` of a `write`.
    Require,
}

/// One problem found while resolving names and literals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A finding whose words are still built where it is found.
    Found(Diagnostic),
    /// FL703: `name` is declared at `first`, and again at `again`.
    DuplicateName {
        namespace: Namespace,
        name: String,
        first: Loc,
        again: Loc,
    },
    /// FL703: a user kind at `again` takes the name of the standard
    /// library's kind at `stdlib`.
    StdlibKindReused {
        name: String,
        stdlib: Loc,
        again: Loc,
    },
    /// FL004: the `role` `decl` (named at `at`) does not set the required
    /// parameter `param` (of type `ty`) of its kind `kind`, declared at
    /// `kind_loc`.
    MissingParameter {
        role: Role,
        decl: String,
        param: String,
        ty: ParamType,
        kind: String,
        at: Loc,
        kind_loc: Loc,
    },
    /// FL702: a declaration at `at` names the kind `name`, which is not in
    /// scope; `near` is the closest kind that is.
    UnknownKind {
        name: String,
        near: Option<String>,
        at: Loc,
    },
    /// FL009: a declaration gives the role `role` (at `at`) to the kind
    /// `kind` (named at `kind_at`, declared at `kind_loc`), which has only
    /// the roles `roles`.
    KindLacksRole {
        kind: String,
        roles: Vec<Role>,
        role: Role,
        at: Loc,
        kind_at: Loc,
        kind_loc: Loc,
    },
    /// FL009: the statement `stmt` (`read`, `write` or `emit`) names at `at`
    /// the `role` `name` of kind `kind`, declared at `declared`, which it
    /// cannot take.
    RoleMismatch {
        stmt: &'static str,
        name: String,
        role: Role,
        kind: String,
        at: Loc,
        declared: Loc,
    },
    /// FL009: `state` names at `at` the `role` `name` of kind `kind`,
    /// declared at `declared`, which cannot keep the pipeline's state (a
    /// source, an effect, or a sink whose kind has no `state` line);
    /// `stores` are the sinks in scope that can, by name.
    StateNotStore {
        name: String,
        role: Role,
        kind: String,
        at: Loc,
        declared: Loc,
        stores: Vec<String>,
    },
    /// FL702: a statement at `at` names the `what` (source, sink, effect)
    /// `name`, which is not in scope; `near` is the closest name that is.
    UnknownDecl {
        what: &'static str,
        name: String,
        near: Option<String>,
        at: Loc,
    },
    /// FL702: `after` at `at` names the task `name`, which `pipeline` does
    /// not have; `near` is the closest task it has.
    UnknownTask {
        name: String,
        pipeline: String,
        near: Option<String>,
        at: Loc,
    },
    /// FL005: the file at `at` cannot import `path`, for the reason `why`.
    ImportFailed { path: String, why: String, at: Loc },
    /// FL005: the `use` at `at` closes a cycle through `files`, in order;
    /// `own` when the file imports itself.
    UseCycle {
        files: Vec<String>,
        own: bool,
        at: Loc,
    },
    /// FL007: the parameter `param` of kind `kind` is declared at `first`
    /// and again at `at`.
    ParamTwice {
        param: String,
        kind: String,
        at: Loc,
        first: Loc,
    },
    /// FL007: the environment variable `name` is set at `first` and again
    /// at `at`.
    EnvTwice { name: String, at: Loc, first: Loc },
    /// FL007: a setting set at `first` as `first_word` and again at `at` as
    /// `word` (the same word, or another spelling of the same setting).
    SettingTwice {
        first_word: String,
        word: String,
        at: Loc,
        first: Loc,
    },
    /// FL007: the statement that names `name` (a source for `read`, a sink
    /// for `write`) states `clause` again at `at`.
    ClauseTwice {
        clause: Clause,
        name: String,
        at: Loc,
    },
    /// FL007: a task's second `what` statement (`key`, `run`, `env`) at
    /// `at`, the first at `first`.
    StatementTwice {
        what: &'static str,
        at: Loc,
        first: Loc,
    },
    /// FL008: the scheduled pipeline `pipeline` (named at `at`, scheduled at
    /// `schedule`) has no `start`.
    NoStart {
        pipeline: String,
        at: Loc,
        schedule: Loc,
    },
    /// FL008: the task `task` (named at `at`) has no `run`.
    NoRun { task: String, at: Loc },
    /// FL706: `allow code` at `at` gives no reason.
    AllowWithoutReason { code: String, at: Loc },
    /// FL707: `allow` names `code` (at `at`), which no rule has.
    UnknownCode { code: String, at: Loc },
}

impl Problem {
    /// The rule the problem is a finding of.
    pub fn code(&self) -> Code {
        match self {
            Problem::Found(d) => d.code,
            Problem::MissingParameter { .. } => Code::FL004,
            Problem::KindLacksRole { .. }
            | Problem::RoleMismatch { .. }
            | Problem::StateNotStore { .. } => Code::FL009,
            Problem::UnknownKind { .. }
            | Problem::UnknownDecl { .. }
            | Problem::UnknownTask { .. } => Code::FL702,
            Problem::ImportFailed { .. } | Problem::UseCycle { .. } => Code::FL005,
            Problem::ParamTwice { .. }
            | Problem::EnvTwice { .. }
            | Problem::SettingTwice { .. }
            | Problem::ClauseTwice { .. }
            | Problem::StatementTwice { .. } => Code::FL007,
            Problem::NoStart { .. } | Problem::NoRun { .. } => Code::FL008,
            Problem::DuplicateName { .. } | Problem::StdlibKindReused { .. } => Code::FL703,
            Problem::AllowWithoutReason { .. } => Code::FL706,
            Problem::UnknownCode { .. } => Code::FL707,
        }
    }
}

impl From<Diagnostic> for Problem {
    fn from(d: Diagnostic) -> Self {
        Problem::Found(d)
    }
}
