//! What the front end (the loader in `check`, the resolver) finds wrong, as data: the problem and what its message
//! needs, without the message. The driver (`check`) turns each into a
//! finding through its rule's file (`rules::finding`), which holds the words.

use super::literal::{LiteralError, PlaceholderError};
use super::model::{Loc, Role};
use crate::diagnostic::Code;
use crate::vocab::{CommitMode, ParamType};

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
    /// `lookback` of a `read` (flowc 0.3).
    Lookback,
    /// `inclusive` of a `read` (flowc 0.3).
    Inclusive,
    /// `newest by` of a `write` (flowc 0.3).
    Newest,
    /// `txn` of a `write` (flowc 0.3).
    Txn,
}

/// One problem found while resolving names and literals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
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
    /// FL001: `pinned name` at `at`, where `name` is no pin; `near` is the
    /// closest pin.
    NotAPin {
        name: String,
        near: Option<String>,
        at: Loc,
    },
    /// FL001: `commit name` at `at`, where `name` is no commit mode; `near`
    /// is the closest mode.
    NotACommitMode {
        name: String,
        near: Option<String>,
        at: Loc,
    },
    /// FL001: the write mode `name` at `at` is none; `near` is the closest
    /// mode, or `replace` or `ledger` for the two-word ones.
    NotAWriteMode {
        name: String,
        near: Option<String>,
        at: Loc,
    },
    /// FL001: `require name` at `at`, where `name` is no guarantee; `near`
    /// is the closest guarantee.
    NotAGuarantee {
        name: String,
        near: Option<String>,
        at: Loc,
    },
    /// FL001: the key term `text` at `at` is none of `terms`; `guess` is
    /// what it most likely meant, `bare` the word when it is one bare word.
    NotAKeyTerm {
        text: String,
        guess: Option<String>,
        bare: Option<String>,
        terms: &'static [&'static str],
        at: Loc,
    },
    /// FL003: the line `name` (at `at`) of kind `kind` is none of the
    /// capability lines `caps`; `near` is the closest line that is.
    UnknownCapability {
        name: String,
        kind: String,
        near: Option<String>,
        caps: &'static [&'static str],
        at: Loc,
    },
    /// FL003: the `role` `decl` sets at `at` the property `name`, which its
    /// kind `kind` (declared at `kind_loc`, with the parameters `params`)
    /// does not declare; `near` is the closest name that is.
    UnknownProperty {
        name: String,
        role: Role,
        decl: String,
        kind: String,
        params: Vec<String>,
        near: Option<String>,
        at: Loc,
        kind_loc: Loc,
    },
    /// FL003: a declaration of a kind used by analysis sets at `at` the
    /// property `name`, which a `role` does not take; it takes `props`.
    NotARoleProperty {
        name: String,
        role: Role,
        props: &'static [&'static str],
        at: Loc,
    },
    /// FL003: the source `decl` has a `commit` line at `at`, and its kind
    /// `kind` has no offsets.
    CommitWithoutOffsets { kind: String, decl: String, at: Loc },
    /// FL003: `read source` has a `commit` clause at `at`, and the source's
    /// kind `kind` has no offsets.
    CommitClauseWithoutOffsets {
        source: String,
        kind: String,
        at: Loc,
    },
    /// FL003: `commit mode` at `at`, which the kind `kind` (declared at
    /// `kind_loc`, offering `offered`) does not offer.
    CommitNotOffered {
        kind: String,
        mode: CommitMode,
        offered: Vec<CommitMode>,
        at: Loc,
        kind_loc: Loc,
    },
    /// FL003: the pipeline setting `name` at `at` is none of `settings`;
    /// `task_setting` when it is a task's, `near` the closest setting.
    UnknownPipelineSetting {
        name: String,
        near: Option<String>,
        settings: &'static [&'static str],
        task_setting: bool,
        at: Loc,
    },
    /// FL003: the statement `name` at `at` of the task `task` is no task
    /// statement or setting; `near` is the closest that is.
    UnknownTaskStatement {
        name: String,
        task: String,
        near: Option<String>,
        at: Loc,
    },
    /// FL006: `name` takes no value, and is given `found` at `at`.
    TakesNoValue {
        name: String,
        found: &'static str,
        at: Loc,
    },
    /// FL006: the parameter type `name` at `at` is no type; `near` is the
    /// closest that is.
    UnknownParamType {
        name: String,
        near: Option<String>,
        at: Loc,
    },
    /// FL006: `run command` at `at` has an empty argv.
    EmptyCommand { at: Loc },
    /// FL006: the setting `setting` (named at `at`) has no value; it takes
    /// `expected`.
    NeedsValue {
        setting: String,
        expected: String,
        at: Loc,
    },
    /// FL006: the setting `setting` has extra values at `at`; it takes one,
    /// `expected`.
    TakesOneValue {
        setting: String,
        expected: String,
        at: Loc,
    },
    /// FL006: the setting `setting` has at `at` a value described as
    /// `found`; it takes `expected`, written like `example`.
    WrongType {
        setting: String,
        expected: String,
        found: &'static str,
        example: String,
        at: Loc,
    },
    /// FL006: the word `value` at `at` is none of the `words` the setting
    /// `setting` takes (`one_of` when it takes one, not a list); `near` is
    /// the closest that is.
    NotAValue {
        value: String,
        setting: String,
        words: Vec<String>,
        one_of: bool,
        near: Option<String>,
        at: Loc,
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
    /// scope; `near` is the closest kind that is; `builtin` the standard
    /// library's kinds with the declaration's role, in name order.
    UnknownKind {
        name: String,
        near: Option<String>,
        builtin: Vec<String>,
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
    /// FL007: the run parameter `param` of pipeline `pipeline` is declared
    /// at `first` and again at `at`.
    PipelineParamTwice {
        param: String,
        /// The first one's name, when it differs from `param` in case only.
        first_spelled: Option<String>,
        pipeline: String,
        at: Loc,
        first: Loc,
    },
    /// FL003: `param` at `at` in pipeline `pipeline`, scheduled at `schedule`.
    ParamOnSchedule {
        param: String,
        pipeline: String,
        at: Loc,
        schedule: Loc,
    },
    /// FL006: the run parameter `param` has the type `key` (at `at`).
    KeyPipelineParam { param: String, at: Loc },
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

    // ---- FL002 (invalid-literal) ----
    /// FL002: the number at `at` of the setting `setting` is not well
    /// formed; `example` is a value the setting takes.
    BadNumber {
        setting: String,
        example: &'static str,
        error: LiteralError,
        at: Loc,
    },
    /// FL002: the integer `number` at `at` stands where a duration is expected.
    BareNumber { number: String, at: Loc },
    /// FL002: the schedule at `at` is not one flowc can schedule.
    BadSchedule { error: LiteralError, at: Loc },
    /// FL002: the time zone at `at` is not one flowc knows.
    BadTimezone { error: LiteralError, at: Loc },
    /// FL002: the image name at `at` is empty or blank.
    EmptyImage { at: Loc },
    /// FL002: a `ready marker` name at `at` that is empty or holds a path
    /// separator.
    BadReadyMarker { at: Loc },
    /// FL002: `setting` (a lease, `timeout`) of zero at `at`.
    ZeroLease { setting: String, at: Loc },
    /// FL006: `ready` at `at` with no value it takes; `found` says what it
    /// has (`nothing`, `` `x` ``, `2 values`, ...).
    ReadyWrongValue { found: String, at: Loc },
    /// FL003: `ready WORD` at `at` on source `decl`, whose kind `kind`
    /// (declared at `kind_at`) does not list an interval's files.
    ReadyNotListed {
        word: &'static str,
        decl: String,
        kind: String,
        kind_at: Loc,
        at: Loc,
    },
    /// FL002: the program of `run command` at `at` is an empty string.
    EmptyProgram { at: Loc },
    /// FL002: a placeholder at `at` of a string parameter is not well formed
    /// or not known.
    BadPlaceholder { error: PlaceholderError, at: Loc },
    /// FL002: the value at `at` of pod setting `setting` (`namespace`,
    /// `resources`'s `cpu`, a label key...) breaks a Kubernetes rule: `why`.
    BadPodValue {
        setting: String,
        value: String,
        why: String,
        at: Loc,
    },
    /// FL002: the value `value` at `at` of the parameter `param` of kind
    /// `kind` is not one of `allowed`.
    NotAllowedValue {
        kind: String,
        param: String,
        value: String,
        allowed: &'static [&'static str],
        at: Loc,
    },
    /// FL002: `value` of the standard kind `kind`'s parameter `param` is no
    /// value its system accepts (a Kafka topic's name, a transaction
    /// timeout out of the client's range), for `why`.
    BadSystemValue {
        kind: String,
        param: String,
        value: String,
        why: String,
        at: Loc,
    },
    /// FL002: `lookback TEXT` at `at` of a cursor read is zero (flowc 0.3).
    ZeroLookback { text: String, at: Loc },
    // ---- end FL002 ----
    /// FL003: `lookback` or `inclusive` (`word`) at `at` on a read of
    /// `source` that is not a cursor read (flowc 0.3).
    CursorClauseWithoutCursor {
        word: &'static str,
        source: String,
        at: Loc,
    },
    /// FL003: `newest by` or `txn` (`word`) at `at` on a write whose mode is
    /// `mode` (flowc 0.3).
    ClauseForOtherMode {
        word: &'static str,
        mode: crate::vocab::Mode,
        at: Loc,
    },
    /// FL008: a cursor read at `at` of `source` (declared at `decl`), which
    /// names no cursor column (flowc 0.3).
    CursorWithoutColumn { source: String, decl: Loc, at: Loc },
}

impl Problem {
    /// The rule the problem is a finding of.
    pub fn code(&self) -> Code {
        match self {
            Problem::NotAPin { .. }
            | Problem::NotACommitMode { .. }
            | Problem::NotAWriteMode { .. }
            | Problem::NotAGuarantee { .. }
            | Problem::NotAKeyTerm { .. } => Code::FL001,
            Problem::UnknownCapability { .. }
            | Problem::UnknownProperty { .. }
            | Problem::NotARoleProperty { .. }
            | Problem::CommitWithoutOffsets { .. }
            | Problem::CommitClauseWithoutOffsets { .. }
            | Problem::CommitNotOffered { .. }
            | Problem::UnknownPipelineSetting { .. }
            | Problem::ParamOnSchedule { .. }
            | Problem::UnknownTaskStatement { .. }
            | Problem::CursorClauseWithoutCursor { .. }
            | Problem::ClauseForOtherMode { .. }
            | Problem::ReadyNotListed { .. } => Code::FL003,
            Problem::MissingParameter { .. } => Code::FL004,
            Problem::TakesNoValue { .. }
            | Problem::UnknownParamType { .. }
            | Problem::KeyPipelineParam { .. }
            | Problem::EmptyCommand { .. }
            | Problem::NeedsValue { .. }
            | Problem::TakesOneValue { .. }
            | Problem::WrongType { .. }
            | Problem::NotAValue { .. }
            | Problem::ReadyWrongValue { .. } => Code::FL006,
            Problem::KindLacksRole { .. }
            | Problem::RoleMismatch { .. }
            | Problem::StateNotStore { .. } => Code::FL009,
            Problem::UnknownKind { .. }
            | Problem::UnknownDecl { .. }
            | Problem::UnknownTask { .. } => Code::FL702,
            Problem::ImportFailed { .. } | Problem::UseCycle { .. } => Code::FL005,
            Problem::ParamTwice { .. }
            | Problem::PipelineParamTwice { .. }
            | Problem::EnvTwice { .. }
            | Problem::SettingTwice { .. }
            | Problem::ClauseTwice { .. }
            | Problem::StatementTwice { .. } => Code::FL007,
            Problem::NoStart { .. }
            | Problem::NoRun { .. }
            | Problem::CursorWithoutColumn { .. } => Code::FL008,
            Problem::DuplicateName { .. } | Problem::StdlibKindReused { .. } => Code::FL703,
            Problem::AllowWithoutReason { .. } => Code::FL706,
            Problem::UnknownCode { .. } => Code::FL707,
            // FL002 (invalid-literal)
            Problem::BadNumber { .. }
            | Problem::BareNumber { .. }
            | Problem::BadSchedule { .. }
            | Problem::BadTimezone { .. }
            | Problem::EmptyImage { .. }
            | Problem::BadReadyMarker { .. }
            | Problem::ZeroLease { .. }
            | Problem::EmptyProgram { .. }
            | Problem::BadPlaceholder { .. }
            | Problem::BadPodValue { .. }
            | Problem::NotAllowedValue { .. }
            | Problem::BadSystemValue { .. }
            | Problem::ZeroLookback { .. } => Code::FL002,
        }
    }
}
