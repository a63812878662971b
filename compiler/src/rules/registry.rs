//! Every code flowc can report, in code order: the table behind `flowc rules`,
//! `flowc explain`, suppressions and the SARIF rule list.

use super::Rule;
use crate::diagnostic::Severity;

static RULES: [Rule; 52] = [
    super::fl001_syntax_error::RULE,
    super::fl002_invalid_literal::RULE,
    super::fl003_unknown_property::RULE,
    super::fl004_missing_parameter::RULE,
    super::fl005_import_error::RULE,
    super::fl006_wrong_type::RULE,
    super::fl007_duplicate_setting::RULE,
    super::fl008_missing_setting::RULE,
    super::fl009_role_mismatch::RULE,
    super::fl101_attempt_scoped_key::RULE,
    super::fl102_run_scoped_key::RULE,
    super::fl103_unknown_key_field::RULE,
    super::fl104_input_not_uniquely_keyed::RULE,
    super::fl105_output_key_nondeterministic::RULE,
    super::fl106_key_too_coarse::RULE,
    super::fl107_key_not_enforced::RULE,
    super::fl108_missing_key::RULE,
    super::fl109_unbound_partition::RULE,
    super::fl201_check_then_append::RULE,
    super::fl202_append_without_dedup::RULE,
    super::fl203_ledger_of_attempts::RULE,
    super::fl204_unconditional_overwrite::RULE,
    super::fl205_mode_unsupported::RULE,
    super::fl206_needs_transaction::RULE,
    super::fl207_concurrent_writers::RULE,
    super::fl301_auto_commit_offsets::RULE,
    super::fl302_offset_before_sink::RULE,
    super::fl303_no_shared_coordinator::RULE,
    super::fl304_unpinned_mutable_input::RULE,
    super::fl305_pin_unsupported::RULE,
    super::fl306_uncommitted_offsets::RULE,
    super::fl401_untracked_effect::RULE,
    super::fl402_unstable_idempotency_key::RULE,
    super::fl403_idempotency_unsupported::RULE,
    super::fl404_outbox_without_sink::RULE,
    super::fl501_nested_retries::RULE,
    super::fl502_ambiguous_retry::RULE,
    super::fl503_no_lease::RULE,
    super::fl601_nondeterministic_dedup::RULE,
    super::fl701_cycle::RULE,
    super::fl702_unknown_name::RULE,
    super::fl703_duplicate_name::RULE,
    super::fl704_unused_declaration::RULE,
    super::fl705_unused_allow::RULE,
    super::fl706_allow_without_reason::RULE,
    super::fl707_unknown_code::RULE,
    super::fl801_no_image::RULE,
    super::fl802_unsafe_for_target::RULE,
    super::fl803_name_collision::RULE,
    super::fl804_output_outside_folder::RULE,
    super::fl805_no_runtime::RULE,
    super::fl900_guarantee_below_requirement::RULE,
];

/// Every rule, in code order.
pub fn all() -> &'static [Rule] {
    &RULES
}

/// A rule by code (`FL101`, any case) or name (`attempt-scoped-key`).
pub fn lookup(code_or_name: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .find(|r| r.code.eq_ignore_ascii_case(code_or_name) || r.name == code_or_name)
}

/// The default severity of a code; unknown codes are errors.
pub fn severity_of(code: &str) -> Severity {
    lookup(code).map_or(Severity::Error, |r| r.severity)
}
