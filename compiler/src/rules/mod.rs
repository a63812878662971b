//! The rule catalog: one file per rule, each declaring its code, name,
//! default severity, summary and explain page together, and the registry
//! that lists them. Codes FL001–FL009, FL702, FL703, FL706 and FL707 are
//! found while resolving names (`analyze::resolve`); `FL8xx` by the code
//! generators; the rest by the `check` functions here.

pub mod registry;

mod fl001_syntax_error;
mod fl002_invalid_literal;
mod fl003_unknown_property;
mod fl004_missing_parameter;
mod fl005_import_error;
mod fl006_wrong_type;
mod fl007_duplicate_setting;
mod fl008_missing_setting;
mod fl009_role_mismatch;
mod fl101_attempt_scoped_key;
mod fl102_run_scoped_key;
mod fl103_unknown_key_field;
mod fl104_input_not_uniquely_keyed;
mod fl105_output_key_nondeterministic;
mod fl106_key_too_coarse;
mod fl107_key_not_enforced;
mod fl108_missing_key;
mod fl109_unbound_partition;
mod fl201_check_then_append;
mod fl202_append_without_dedup;
mod fl203_ledger_of_attempts;
mod fl204_unconditional_overwrite;
mod fl205_mode_unsupported;
mod fl206_needs_transaction;
mod fl207_concurrent_writers;
mod fl301_auto_commit_offsets;
mod fl302_offset_before_sink;
mod fl303_no_shared_coordinator;
mod fl304_unpinned_mutable_input;
mod fl305_pin_unsupported;
mod fl306_uncommitted_offsets;
mod fl401_untracked_effect;
mod fl402_unstable_idempotency_key;
mod fl403_idempotency_unsupported;
mod fl404_outbox_without_sink;
mod fl501_nested_retries;
mod fl502_ambiguous_retry;
mod fl503_no_lease;
mod fl601_nondeterministic_dedup;
mod fl701_cycle;
mod fl702_unknown_name;
mod fl703_duplicate_name;
mod fl704_unused_declaration;
mod fl705_unused_allow;
mod fl706_allow_without_reason;
mod fl707_unknown_code;
mod fl801_no_image;
mod fl802_unsafe_for_target;
mod fl803_name_collision;
mod fl804_output_outside_folder;
mod fl805_no_runtime;
mod fl900_guarantee_below_requirement;

use std::collections::BTreeSet;

use crate::analyze::guarantee::{TaskFacts, TaskReport};
use crate::analyze::model::{PipelineDef, Program, TaskDef};
use crate::analyze::{Analysis, PipelineReport};
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::FileId;

/// A rule of the catalog.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub code: &'static str,
    /// kebab-case; names the problem, not the cure.
    pub name: &'static str,
    pub severity: Severity,
    /// One line: when it fires.
    pub summary: &'static str,
    /// Markdown: what it catches, why it matters, an unsafe example, the fix.
    pub explain: &'static str,
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

/// Run every analysis rule.
pub fn run(
    program: &Program,
    analysis: &Analysis,
    broken: &BTreeSet<FileId>,
    diags: &mut Vec<Diagnostic>,
) {
    let ctx = Ctx {
        program,
        analysis,
        broken,
    };
    let tasks: usize = program.pipelines.iter().map(|p| p.tasks.len()).sum();
    let cores = crate::par::cores();
    let threads = if tasks < PARALLEL_MIN_TASKS { 1 } else { cores };
    run_on(threads, &ctx, diags);
}

/// [`run`] on a given number of threads (public for the test that compares
/// one thread with several).
#[doc(hidden)]
pub fn run_on(threads: usize, ctx: &Ctx<'_>, diags: &mut Vec<Diagnostic>) {
    let checks: Vec<Check> = registry::all().iter().filter_map(|r| r.check).collect();
    // Rules are independent: each runs into its own list, and the lists are
    // kept in rule order, exactly as one thread would push them.
    let found = crate::par::map_each(&checks, threads, |check| {
        let mut d = Vec::new();
        check(ctx, &mut d);
        d
    });
    diags.extend(found.into_iter().flatten());
}

/// Below this many tasks the rules run on one core: a thread costs more
/// than it saves.
const PARALLEL_MIN_TASKS: usize = 1000;
