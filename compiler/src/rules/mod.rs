//! The rule catalog: one file per rule, each declaring its code and check,
//! and the registry that lists them (built from `diagnostic::code`, which
//! holds each code's name, default severity, summary and explain page).
//! Codes FL001–FL009, FL702, FL703, FL706 and FL707 are
//! found while resolving names (`analyze::resolve`), which reports typed
//! problems that [`finding`] words through the rule's file (FL001 also by
//! the parser, whose typed problems [`syntax_finding`] words); `FL8xx` by the code
//! generators, which call their rule's file for the words; the rest by the
//! `check` functions here.

// One module per rule of the catalog (`diagnostic::code`), declared here with
// plain `mod` lines so that `cargo fmt` reaches them; `declare_rules!` below
// refers to each by the catalog's name, so a missing line does not compile.
pub(crate) mod fl001_syntax_error;
pub(crate) mod fl002_invalid_literal;
pub(crate) mod fl003_unknown_property;
pub(crate) mod fl004_missing_parameter;
pub(crate) mod fl005_import_error;
pub(crate) mod fl006_wrong_type;
pub(crate) mod fl007_duplicate_setting;
pub(crate) mod fl008_missing_setting;
pub(crate) mod fl009_role_mismatch;
pub(crate) mod fl010_credential_in_url;
pub(crate) mod fl011_env_overrides_connection;
pub(crate) mod fl101_attempt_scoped_key;
pub(crate) mod fl102_run_scoped_key;
pub(crate) mod fl103_unknown_key_field;
pub(crate) mod fl104_input_not_uniquely_keyed;
pub(crate) mod fl105_output_key_nondeterministic;
pub(crate) mod fl106_key_too_coarse;
pub(crate) mod fl107_key_not_enforced;
pub(crate) mod fl108_missing_key;
pub(crate) mod fl109_unbound_partition;
pub(crate) mod fl110_partition_not_interval;
pub(crate) mod fl111_skipped_intervals;
pub(crate) mod fl112_unfenced_upsert;
pub(crate) mod fl201_check_then_append;
pub(crate) mod fl202_append_without_dedup;
pub(crate) mod fl203_ledger_of_attempts;
pub(crate) mod fl204_unconditional_overwrite;
pub(crate) mod fl205_mode_unsupported;
pub(crate) mod fl206_needs_transaction;
pub(crate) mod fl207_concurrent_writers;
pub(crate) mod fl208_unserialized_replace;
pub(crate) mod fl209_unenforced_key;
pub(crate) mod fl210_eventual_upsert;
pub(crate) mod fl211_deduplicated_reinsert;
pub(crate) mod fl301_auto_commit_offsets;
pub(crate) mod fl302_offset_before_sink;
pub(crate) mod fl303_no_shared_coordinator;
pub(crate) mod fl304_unpinned_mutable_input;
pub(crate) mod fl305_pin_unsupported;
pub(crate) mod fl306_uncommitted_offsets;
pub(crate) mod fl307_no_commit_mode;
pub(crate) mod fl308_incomplete_cursor;
pub(crate) mod fl401_untracked_effect;
pub(crate) mod fl402_unstable_idempotency_key;
pub(crate) mod fl403_idempotency_unsupported;
pub(crate) mod fl404_outbox_without_sink;
pub(crate) mod fl501_nested_retries;
pub(crate) mod fl502_ambiguous_retry;
pub(crate) mod fl503_no_lease;
pub(crate) mod fl504_effect_downgrades_retry;
pub(crate) mod fl601_nondeterministic_dedup;
pub(crate) mod fl701_cycle;
pub(crate) mod fl702_unknown_name;
pub(crate) mod fl703_duplicate_name;
pub(crate) mod fl704_unused_declaration;
pub(crate) mod fl705_unused_allow;
pub(crate) mod fl706_allow_without_reason;
pub(crate) mod fl707_unknown_code;
pub(crate) mod fl708_dense_task_graph;
pub(crate) mod fl801_no_image;
pub(crate) mod fl802_unsafe_for_target;
pub(crate) mod fl803_name_collision;
pub(crate) mod fl804_output_outside_folder;
pub(crate) mod fl805_no_runtime;
pub(crate) mod fl806_no_durable_state;
pub(crate) mod fl807_no_catchup_on_target;
pub(crate) mod fl808_unreachable_endpoint;
pub(crate) mod fl900_guarantee_below_requirement;

/// Builds the registry of the rules' checks from the catalog
/// (`diagnostic::code`), in code order.
macro_rules! declare_rules {
    ($($code:ident $module:ident $name:literal $severity:ident $summary:literal;)*) => {
        // Each rule file's `RULE` carries the code of its catalog entry.
        $(const _: () = assert!(matches!($module::RULE.code, Code::$code));)*

        /// Every rule, in code order.
        pub fn all() -> &'static [Rule] {
            static RULES: &[Rule] = &[$($module::RULE,)*];
            RULES
        }
    };
}

pub mod cascade;
pub mod suppress;

/// FL001's words for what the parser found (`syntax::problem`), for the
/// driver and `fmt`.
pub use fl001_syntax_error::{syntax_finding, too_deep, UNTERMINATED_STRING};
/// FL806's words, for the check at `flowc build` (`codegen::state`).
pub use fl806_no_durable_state::words as no_durable_state_words;
/// FL807's words and its test of a parameter string, for `codegen::argo`.
pub(crate) use fl807_no_catchup_on_target::{
    interval_scoped as fl807_interval_scoped, words as fl807_words,
};
/// FL808's words, for the check at `flowc build` (`codegen::reach`).
pub use fl808_unreachable_endpoint::words as fl808_words;
/// The words of FL801 to FL805, for the code generators (`codegen`), which
/// find them for the target being built. (FL802's name says "unsafe" of a
/// string, not of Rust code.)
#[allow(clippy::unsafe_removed_from_name)]
pub(crate) use {
    fl801_no_image as fl801, fl802_unsafe_for_target as fl802, fl803_name_collision as fl803,
    fl804_output_outside_folder as fl804, fl805_no_runtime as fl805,
};

/// The finding of a problem the front end found, in its rule's words.
pub fn finding(problem: Problem) -> Diagnostic {
    match problem {
        Problem::BadReadyMarker { at } => fl002_invalid_literal::bad_ready_marker(at),
        Problem::ZeroLease { setting, at } => fl002_invalid_literal::zero_lease(&setting, at),
        Problem::ReadyWrongValue { found, at } => fl006_wrong_type::ready_wrong_value(&found, at),
        Problem::ReadyNotListed {
            word,
            decl,
            kind,
            kind_at,
            at,
        } => fl003_unknown_property::ready_not_listed(word, &decl, &kind, kind_at, at),
        Problem::ZeroLookback { text, at } => fl002_invalid_literal::zero_lookback(&text, at),
        Problem::CursorClauseWithoutCursor { word, source, at } => {
            fl003_unknown_property::cursor_clause_without_cursor(word, &source, at)
        }
        Problem::ClauseForOtherMode { word, mode, at } => {
            fl003_unknown_property::clause_for_other_mode(word, mode, at)
        }
        Problem::CursorWithoutColumn { source, decl, at } => {
            fl008_missing_setting::cursor_without_column(&source, decl, at)
        }
        Problem::ImportFailed { path, why, at } => {
            fl005_import_error::import_failed(&path, &why, at)
        }
        Problem::UseCycle { files, own, at } => fl005_import_error::use_cycle(&files, own, at),
        Problem::ParamTwice {
            param,
            kind,
            at,
            first,
        } => fl007_duplicate_setting::param_twice(&param, &kind, at, first),
        Problem::PipelineParamTwice {
            param,
            first_spelled,
            pipeline,
            at,
            first,
        } => fl007_duplicate_setting::pipeline_param_twice(
            &param,
            first_spelled.as_deref(),
            &pipeline,
            at,
            first,
        ),
        Problem::ParamOnSchedule {
            param,
            pipeline,
            at,
            schedule,
        } => fl003_unknown_property::param_on_schedule(&param, &pipeline, at, schedule),
        Problem::KeyPipelineParam { param, at } => fl006_wrong_type::key_pipeline_param(&param, at),
        Problem::EnvTwice { name, at, first } => {
            fl007_duplicate_setting::env_twice(&name, at, first)
        }
        Problem::SettingTwice {
            first_word,
            word,
            at,
            first,
        } => fl007_duplicate_setting::setting_twice(&first_word, &word, at, first),
        Problem::ClauseTwice { clause, name, at } => {
            fl007_duplicate_setting::clause_twice(clause, &name, at)
        }
        Problem::StatementTwice { what, at, first } => {
            fl007_duplicate_setting::statement_twice(what, at, first)
        }
        Problem::NotAPin { name, near, at } => {
            fl001_syntax_error::not_a_pin(&name, near.as_deref(), at)
        }
        Problem::NotACommitMode { name, near, at } => {
            fl001_syntax_error::not_a_commit_mode(&name, near.as_deref(), at)
        }
        Problem::NotAWriteMode { name, near, at } => {
            fl001_syntax_error::not_a_write_mode(&name, near.as_deref(), at)
        }
        Problem::NotAGuarantee { name, near, at } => {
            fl001_syntax_error::not_a_guarantee(&name, near.as_deref(), at)
        }
        Problem::NotAKeyTerm {
            text,
            guess,
            bare,
            terms,
            at,
        } => {
            fl001_syntax_error::not_a_key_term(&text, guess.as_deref(), bare.as_deref(), terms, at)
        }
        Problem::UnknownCapability {
            name,
            kind,
            near,
            caps,
            at,
        } => fl003_unknown_property::unknown_capability(&name, &kind, near.as_deref(), caps, at),
        Problem::UnknownProperty {
            name,
            role,
            decl,
            kind,
            params,
            near,
            at,
            kind_loc,
        } => fl003_unknown_property::unknown_property(
            &name,
            (role, &decl),
            &kind,
            &params,
            near.as_deref(),
            at,
            kind_loc,
        ),
        Problem::NotARoleProperty {
            name,
            role,
            props,
            at,
        } => fl003_unknown_property::not_a_role_property(&name, role, props, at),
        Problem::CommitWithoutOffsets { kind, decl, at } => {
            fl003_unknown_property::commit_without_offsets(&kind, &decl, at)
        }
        Problem::CommitClauseWithoutOffsets { source, kind, at } => {
            fl003_unknown_property::commit_clause_without_offsets(&source, &kind, at)
        }
        Problem::CommitNotOffered {
            kind,
            mode,
            offered,
            at,
            kind_loc,
        } => fl003_unknown_property::commit_not_offered(&kind, mode, &offered, at, kind_loc),
        Problem::UnknownPipelineSetting {
            name,
            near,
            settings,
            task_setting,
            at,
        } => fl003_unknown_property::unknown_pipeline_setting(
            &name,
            near.as_deref(),
            settings,
            task_setting,
            at,
        ),
        Problem::UnknownTaskStatement {
            name,
            task,
            near,
            at,
        } => fl003_unknown_property::unknown_task_statement(&name, &task, near.as_deref(), at),
        Problem::TakesNoValue { name, found, at } => {
            fl006_wrong_type::takes_no_value(&name, found, at)
        }
        Problem::UnknownParamType { name, near, at } => {
            fl006_wrong_type::unknown_param_type(&name, near.as_deref(), at)
        }
        Problem::EmptyCommand { at } => fl006_wrong_type::empty_command(at),
        Problem::NeedsValue {
            setting,
            expected,
            at,
        } => fl006_wrong_type::needs_value(&setting, &expected, at),
        Problem::TakesOneValue {
            setting,
            expected,
            at,
        } => fl006_wrong_type::takes_one_value(&setting, &expected, at),
        Problem::WrongType {
            setting,
            expected,
            found,
            example,
            at,
        } => fl006_wrong_type::wrong_type(&setting, &expected, found, &example, at),
        Problem::NotAValue {
            value,
            setting,
            words,
            one_of,
            near,
            at,
        } => fl006_wrong_type::not_a_value(&value, &setting, &words, one_of, near.as_deref(), at),
        Problem::MissingParameter {
            role,
            decl,
            param,
            ty,
            kind,
            at,
            kind_loc,
        } => fl004_missing_parameter::finding(role, &decl, &param, ty, &kind, at, kind_loc),
        Problem::KindLacksRole {
            kind,
            roles,
            role,
            at,
            kind_at,
            kind_loc,
        } => fl009_role_mismatch::kind_lacks_role(&kind, &roles, role, at, kind_at, kind_loc),
        Problem::RoleMismatch {
            stmt,
            name,
            role,
            kind,
            at,
            declared,
        } => fl009_role_mismatch::role_mismatch(stmt, &name, role, &kind, at, declared),
        Problem::StateNotStore {
            name,
            role,
            kind,
            at,
            declared,
            stores,
        } => fl009_role_mismatch::state_not_store(&name, role, &kind, at, declared, &stores),
        Problem::UnknownKind {
            name,
            near,
            builtin,
            at,
        } => fl702_unknown_name::unknown_kind(&name, near.as_deref(), &builtin, at),
        Problem::UnknownDecl {
            what,
            name,
            near,
            at,
        } => fl702_unknown_name::unknown_decl(what, &name, near.as_deref(), at),
        Problem::UnknownTask {
            name,
            pipeline,
            near,
            at,
        } => fl702_unknown_name::unknown_task(&name, &pipeline, near.as_deref(), at),
        Problem::NoStart {
            pipeline,
            at,
            schedule,
        } => fl008_missing_setting::no_start(&pipeline, at, schedule),
        Problem::NoRun { task, at } => fl008_missing_setting::no_run(&task, at),
        Problem::DuplicateName {
            namespace,
            name,
            first,
            again,
        } => fl703_duplicate_name::duplicate(&namespace, &name, first, again),
        Problem::StdlibKindReused {
            name,
            stdlib,
            again,
        } => fl703_duplicate_name::stdlib_kind_reused(&name, stdlib, again),
        Problem::AllowWithoutReason { code, at } => fl706_allow_without_reason::finding(&code, at),
        Problem::UnknownCode { code, at } => fl707_unknown_code::finding(&code, at),
        // FL002 (invalid-literal)
        Problem::BadNumber {
            setting,
            example,
            error,
            at,
        } => fl002_invalid_literal::bad_number(&setting, example, &error, at),
        Problem::BareNumber { number, at } => fl002_invalid_literal::bare_number(&number, at),
        Problem::BadSchedule { error, at } => fl002_invalid_literal::bad_schedule(&error, at),
        Problem::BadTimezone { error, at } => fl002_invalid_literal::bad_timezone(&error, at),
        Problem::EmptyImage { at } => fl002_invalid_literal::empty_image(at),
        Problem::EmptyProgram { at } => fl002_invalid_literal::empty_program(at),
        Problem::BadPlaceholder { error, at } => fl002_invalid_literal::bad_placeholder(&error, at),
        Problem::BadPodValue {
            setting,
            value,
            why,
            at,
        } => fl002_invalid_literal::bad_pod_value(&setting, &value, &why, at),
        Problem::NotAllowedValue {
            kind,
            param,
            value,
            allowed,
            at,
        } => fl002_invalid_literal::not_allowed_value(&kind, &param, &value, allowed, at),
        Problem::BadSystemValue {
            kind,
            param,
            value,
            why,
            at,
        } => fl002_invalid_literal::bad_system_value(&kind, &param, &value, &why, at),
    }
}

crate::diagnostic::code::catalog!(declare_rules);

use std::collections::BTreeSet;

use crate::analyze::guarantee::{TaskFacts, TaskReport};
use crate::analyze::model::{DeclDef, KindDef, PipelineDef, Program, TaskDef, WriteDef};
use crate::analyze::problem::Problem;
use crate::analyze::{Analysis, PipelineReport};
use crate::diagnostic::{Code, Diagnostic};
use crate::source::FileId;

/// A rule of the catalog: its code (name, severity, summary and explain page
/// come with it, from `diagnostic::code`) and its analysis.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub code: Code,
    /// The analysis, for rules found after names resolve.
    pub check: Option<Check>,
}

/// What rules see: the resolved program and the derived guarantees.
/// A rule's check: findings about the whole program, pushed in order.
pub type Check = fn(&Ctx<'_>, &mut Vec<Diagnostic>);

pub struct Ctx<'a> {
    pub program: &'a Program,
    pub analysis: &'a Analysis,
    pub broken: &'a BTreeSet<FileId>,
}

/// One task with everything known about it.
pub struct TaskCtx<'a> {
    pub pipeline: &'a PipelineDef,
    pub report: &'a PipelineReport,
    pub task: &'a TaskDef,
    pub index: usize,
    pub derived: &'a TaskReport,
    pub facts: TaskFacts<'a>,
}

impl<'a> Ctx<'a> {
    /// Every task of every analysed pipeline, in source order.
    pub fn each_task(&self, mut f: impl FnMut(&TaskCtx<'a>)) {
        for report in &self.analysis.pipelines {
            let pipeline = &self.program.pipelines[report.pipeline];
            for (index, (task, derived)) in pipeline.tasks.iter().zip(&report.tasks).enumerate() {
                f(&TaskCtx {
                    pipeline,
                    report,
                    task,
                    index,
                    derived,
                    facts: TaskFacts::new(self.program, pipeline, task),
                });
            }
        }
    }
}

/// A finding on a write into a sink whose kind has a line that makes the
/// write's mode unsafe (FL209, FL210, FL211): what the rule checks and says.
pub struct KindLineWrite {
    pub code: Code,
    /// The modes it is about.
    pub modes: &'static [crate::vocab::Mode],
    /// The kind's line (`unenforced_key`) and whether a kind has it.
    pub line: &'static str,
    pub has: fn(&KindDef) -> bool,
    /// The message, from the write, the sink, the task and the kind.
    pub message: fn(&WriteDef, &DeclDef, &TaskDef, &KindDef) -> String,
    pub help: &'static str,
}

impl Ctx<'_> {
    /// Each write of a mode of `rule.modes` that its sink's kind supports
    /// (FL205 covers the others) into a kind that has `rule.line`: a
    /// finding at the write's mode, labelled at the kind.
    pub fn kind_line_writes(&self, rule: &KindLineWrite, out: &mut Vec<Diagnostic>) {
        self.each_task(|t| {
            for w in t
                .task
                .writes
                .iter()
                .filter(|w| rule.modes.contains(&w.mode))
            {
                if !t.facts.mode_supported(w) {
                    continue;
                }
                let sink = t.facts.decl(w.decl);
                let kind = self.program.kind_of(sink);
                if !(rule.has)(kind) {
                    continue;
                }
                out.push(
                    Diagnostic::new(
                        rule.code,
                        w.mode_loc.file,
                        w.mode_loc.span,
                        (rule.message)(w, sink, t.task, kind),
                    )
                    .label(
                        kind.loc.file,
                        kind.loc.span,
                        format!("kind `{}` has the line `{}`", kind.name, rule.line),
                    )
                    .help(rule.help),
                );
            }
        });
    }
}

/// Run every analysis rule.
pub fn run(
    program: &Program,
    analysis: &Analysis,
    broken: &BTreeSet<FileId>,
    diags: &mut Vec<Diagnostic>,
) {
    run_into(program, analysis, broken, &mut |found| diags.extend(found));
}

/// Run every analysis rule, handing each rule's findings to `sink` in rule
/// order as soon as they are known: only a few rules' findings (as many as
/// there are threads) are held at once.
pub fn run_into(
    program: &Program,
    analysis: &Analysis,
    broken: &BTreeSet<FileId>,
    sink: &mut dyn FnMut(Vec<Diagnostic>),
) {
    let ctx = Ctx {
        program,
        analysis,
        broken,
    };
    let tasks: usize = program.pipelines.iter().map(|p| p.tasks.len()).sum();
    let cores = crate::par::cores();
    let threads = if tasks < PARALLEL_MIN_TASKS { 1 } else { cores };
    run_batched(threads, &ctx, sink);
}

/// [`run`] on a given number of threads (public for the test that compares
/// one thread with several).
#[doc(hidden)]
pub fn run_on(threads: usize, ctx: &Ctx<'_>, diags: &mut Vec<Diagnostic>) {
    run_batched(threads, ctx, &mut |found| diags.extend(found));
}

fn run_batched(threads: usize, ctx: &Ctx<'_>, sink: &mut dyn FnMut(Vec<Diagnostic>)) {
    let checks: Vec<Check> = all().iter().filter_map(|r| r.check).collect();
    // Rules are independent: each runs into its own list, and the lists are
    // handed on in rule order, exactly as one thread would push them. A
    // batch has a few rules per thread, so that a slow rule does not leave
    // the other threads idle for long.
    let batch = if threads < 2 { 1 } else { threads * 4 };
    for batch in checks.chunks(batch) {
        let found = crate::par::map_each(batch, threads, |check| {
            let mut d = Vec::new();
            check(ctx, &mut d);
            d
        });
        for d in found {
            sink(d);
        }
    }
}

/// Below this many tasks the rules run on one core: a thread costs more
/// than it saves.
const PARALLEL_MIN_TASKS: usize = 1000;
