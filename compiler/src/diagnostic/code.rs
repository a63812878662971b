//! Every code flowc can report, in code order, with its name, default
//! severity and summary: the one list behind [`Code`], the rule registry
//! (`rules`), `flowc rules`, `flowc explain`, suppressions and the SARIF rule
//! list. A rule is added here (one entry), in its own file under `rules/`,
//! and with its explain page, `docs/rules/FLxxx.md` (included from there).

use std::fmt;

use super::Severity;

/// The catalog, handed to `$then!` as `CODE module "name" Severity "summary";`
/// entries: [`Code`] is built from it here, and `rules` builds its registry
/// from the same entries. Exported (`flowc::catalog!`) for
/// the integration tests, which make one named test per rule from it.
#[macro_export]
#[doc(hidden)]
macro_rules! catalog {
    ($then:ident) => {
        $then! {
            FL001 fl001_syntax_error "syntax-error" Error
                "the file does not parse, or is not UTF-8";
            FL002 fl002_invalid_literal "invalid-literal" Error
                "a bad duration, date, integer, cron expression, time zone or placeholder";
            FL003 fl003_unknown_property "unknown-property" Error
                "a property, parameter or setting that the kind or block does not declare";
            FL004 fl004_missing_parameter "missing-parameter" Error
                "a required kind parameter is missing";
            FL005 fl005_import_error "import-error" Error
                "`use` of a file that cannot be read, or a cycle of `use`";
            FL006 fl006_wrong_type "wrong-type" Error
                "a setting, property or parameter with a value of the wrong type";
            FL007 fl007_duplicate_setting "duplicate-setting" Error
                "the same setting or property twice in one block";
            FL008 fl008_missing_setting "missing-setting" Error
                "a scheduled pipeline without `start`, or a task without `run`";
            FL009 fl009_role_mismatch "role-mismatch" Error
                "a declaration, `read`, `write` or `emit` that does not fit the kind's roles";
            FL010 fl010_credential_in_url "credential-in-url" Warning
                "a connection URL with a password written in the `.flow` file";
            FL011 fl011_env_overrides_connection "env-overrides-connection" Warning
                "a task `env` that sets what a connector reads for a declared connection (`FLOW_CONN_*`, `PG*`, `AWS_*`)";
            FL101 fl101_attempt_scoped_key "attempt-scoped-key" Error
                "a key term that changes on every attempt: `attempt.*`, `now()`, `uuid()`, `random()`";
            FL102 fl102_run_scoped_key "run-scoped-key" Warning
                "a key term scoped to one run: `run.id`, or an interval term in an unscheduled pipeline";
            FL103 fl103_unknown_key_field "unknown-key-field" Error
                "`input.F` or `output.F` names a field that no read or written declaration has";
            FL104 fl104_input_not_uniquely_keyed "input-not-uniquely-keyed" Warning
                "a record-level key of `input.*` terms that does not cover the input's identity";
            FL105 fl105_output_key_nondeterministic "output-key-nondeterministic" Error
                "a key derived from the output of a nondeterministic task";
            FL106 fl106_key_too_coarse "key-too-coarse" Warning
                "an `upsert` or `append ledger` keyed only on interval terms";
            FL107 fl107_key_not_enforced "key-not-enforced" Error
                "an `upsert` whose key columns are not exactly the sink's primary key";
            FL108 fl108_missing_key "missing-key" Error
                "an `upsert` or `append ledger` with no key";
            FL109 fl109_unbound_partition "unbound-partition" Error
                "`replace partition TERM` where TERM is not a field and names no column";
            FL110 fl110_partition_not_interval "partition-not-interval" Warning
                "`replace partition` by a term taken from the data: a run can replace another interval's partition";
            FL111 fl111_skipped_intervals "skipped-intervals" Warning
                "`catchup false` in a scheduled pipeline with interval-scoped reads: skipped intervals are never read";
            FL112 fl112_unfenced_upsert "unfenced-upsert" Warning
                "an `upsert` on a kind that is not `fenced`: an older interval can put older values back";
            FL201 fl201_check_then_append "check-then-append" Error
                "`check_then_append`: the check and the append are separate steps";
            FL202 fl202_append_without_dedup "append-without-dedup" Warning
                "a plain `append`: every retry appends again";
            FL203 fl203_ledger_of_attempts "ledger-of-attempts" Error
                "an `append ledger` keyed on the attempt: it records attempts, not records";
            FL204 fl204_unconditional_overwrite "unconditional-overwrite" Warning
                "`overwrite` of a sink that is not interval-scoped: a late attempt or an older interval replaces newer output";
            FL205 fl205_mode_unsupported "mode-unsupported" Error
                "a write mode that the sink's kind does not offer";
            FL206 fl206_needs_transaction "needs-transaction" Error
                "`replace partition` on a sink neither transactional nor atomic, or `append ledger` on one not transactional";
            FL207 fl207_concurrent_writers "concurrent-writers" Warning
                "two unordered tasks write the same sink: in one pipeline, or in two pipelines of one run";
            FL208 fl208_unserialized_replace "unserialized-replace" Warning
                "`replace partition` on a kind without `serialized_replace`: two live attempts can both delete and both insert";
            FL209 fl209_unenforced_key "unenforced-key" Warning
                "an `upsert` or `insert_if_absent` into a kind whose primary key is not enforced (`unenforced_key`)";
            FL210 fl210_eventual_upsert "eventual-upsert" Warning
                "an `upsert` into a kind that removes older row versions only in background merges (`eventual_upsert`)";
            FL211 fl211_deduplicated_reinsert "deduplicated-reinsert" Warning
                "`replace partition` or `overwrite` on a kind that silently drops an insert identical to a recent one (`deduplicates_inserts`)";
            FL301 fl301_auto_commit_offsets "auto-commit-offsets" Error
                "a read whose offsets are committed on a timer (`commit auto`)";
            FL302 fl302_offset_before_sink "offset-before-sink" Error
                "a read whose offsets are committed before the write (`commit before_write`)";
            FL303 fl303_no_shared_coordinator "no-shared-coordinator" Error
                "a `transactional` write whose reads do not commit in its transaction under one coordinator";
            FL304 fl304_unpinned_mutable_input "unpinned-mutable-input" Warning
                "a mutable source read without a pin";
            FL305 fl305_pin_unsupported "pin-unsupported" Error
                "a pin that the source's kind does not offer";
            FL306 fl306_uncommitted_offsets "uncommitted-offsets" Warning
                "a source with offsets read with neither a pin nor a commit mode";
            FL307 fl307_no_commit_mode "no-commit-mode" Error
                "a source with offsets read with no commit mode, on a kind that offers no `after_write` to default to";
            FL308 fl308_incomplete_cursor "incomplete-cursor" Warning
                "a cursor read that can skip rows: its cursor is not `unique` and the read not `inclusive`, or it has no `lookback`";
            FL401 fl401_untracked_effect "untracked-effect" Error
                "a bare `emit`: the effect is sent again on every attempt";
            FL402 fl402_unstable_idempotency_key "unstable-idempotency-key" Error
                "an idempotency key that changes between attempts or runs";
            FL403 fl403_idempotency_unsupported "idempotency-unsupported" Error
                "`via idempotency_key` on an effect kind that cannot deduplicate";
            FL404 fl404_outbox_without_sink "outbox-without-sink" Error
                "`via outbox` in a task with no transactional write to hold the outbox";
            FL501 fl501_nested_retries "nested-retries" Error
                "scheduler retries and internal retries multiplied on one task";
            FL502 fl502_ambiguous_retry "ambiguous-retry" Warning
                "`on_ambiguous retry` on a task with an output below effectively-once";
            FL503 fl503_no_lease "no-lease" Warning
                "`conditional_commit` or retries without a `timeout` lease";
            FL504 fl504_effect_downgrades_retry "effect-downgrades-retry" Warning
                "an effect below effectively_once makes a task whose writes are safe fail on an ambiguous failure instead of retrying";
            FL601 fl601_nondeterministic_dedup "nondeterministic-dedup" Warning
                "a nondeterministic task writes through an idempotent mode";
            FL701 fl701_cycle "cycle" Error
                "the task graph has a cycle";
            FL702 fl702_unknown_name "unknown-name" Error
                "a reference to an undeclared source, sink, effect, kind or task";
            FL703 fl703_duplicate_name "duplicate-name" Error
                "two declarations with one name in one namespace";
            FL704 fl704_unused_declaration "unused-declaration" Warning
                "a source, sink or effect that no task uses";
            FL705 fl705_unused_allow "unused-allow" Warning
                "an `allow` that suppresses nothing";
            FL706 fl706_allow_without_reason "allow-without-reason" Error
                "an `allow` with a missing or blank reason";
            FL707 fl707_unknown_code "unknown-code" Error
                "an `allow` naming a code that does not exist";
            FL708 fl708_dense_task_graph "dense-task-graph" Error
                "a pipeline whose data-flow edges (readers of a sink times its writers) pass 100,000";
            FL801 fl801_no_image "no-image" Error
                "a task with no container image, built for a target that needs one";
            FL802 fl802_unsafe_for_target "unsafe-for-target" Error
                "a string the target cannot carry unchanged";
            FL803 fl803_name_collision "name-collision" Error
                "two names that become one after conversion to a target's naming rules";
            FL804 fl804_output_outside_folder "output-outside-folder" Error
                "an output path that would leave `--out`";
            FL805 fl805_no_runtime "no-runtime" Error
                "`scaffold` for a kind that has no runtime yet";
            FL806 fl806_no_durable_state "no-durable-state" Error
                "a pipeline that keeps state in a local file while a task runs in a container";
            FL807 fl807_no_catchup_on_target "no-catchup-on-target" Warning
                "`build --target argo` of a scheduled pipeline whose reads follow the interval: Argo runs no missed interval";
            FL808 fl808_unreachable_endpoint "unreachable-endpoint" Warning
                "an effect emitted from a container that nothing gives the effect's endpoint (no `secret`, `url` or `env`)";
            FL900 fl900_guarantee_below_requirement "guarantee-below-requirement" Error
                "an output's derived guarantee is below its requirement";
        }
    };
}
pub(crate) use crate::catalog;

macro_rules! define_codes {
    ($($code:ident $module:ident $name:literal $severity:ident $summary:literal;)*) => {
        /// A rule's code. Findings name their rule by it, so an unknown code
        /// does not compile; user text (`allow FLxxx`, `flowc explain`)
        /// becomes one through [`Code::lookup`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $($code,)*
        }

        impl Code {
            /// Every code, in code order.
            pub const ALL: &'static [Code] = &[$(Code::$code,)*];

            /// `FL101`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$code => stringify!($code),)*
                }
            }

            /// kebab-case; names the problem, not the cure.
            pub fn name(self) -> &'static str {
                match self {
                    $(Code::$code => $name,)*
                }
            }

            /// The default severity.
            pub fn severity(self) -> Severity {
                match self {
                    $(Code::$code => Severity::$severity,)*
                }
            }

            /// One line: when it fires.
            pub fn summary(self) -> &'static str {
                match self {
                    $(Code::$code => $summary,)*
                }
            }

            /// Markdown: what it catches, why it matters, an unsafe example, the fix.
            pub fn explain(self) -> &'static str {
                match self {
                    $(Code::$code => include_str!(concat!("../../../docs/rules/", stringify!($code), ".md")),)*
                }
            }
        }
    };
}

catalog!(define_codes);

impl Code {
    /// A code by its text (`FL101`, any case) or its name (`attempt-scoped-key`).
    pub fn lookup(code_or_name: &str) -> Option<Code> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str().eq_ignore_ascii_case(code_or_name) || c.name() == code_or_name)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for Code {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}
