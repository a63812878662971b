//! `flowc audit`: check a running deployment against what its `.flow` files
//! promise (`docs/audit.md`). Pure, like the rest of the core: the CLI
//! (`cli/audit.rs`) runs the runtime's reader (`flowc_runtime.audit`) and
//! hands its answer here.
//!
//! - [`plan`]: what to look for, per pipeline: the pipeline as flowc's IR and
//!   the intervals its schedule defines in the audited window (JSON for the
//!   runtime's reader).
//! - [`verdict`]: the reader's observations judged against each output's
//!   reported guarantee: findings, their severities and the exit code.
//! - [`render`]: the findings for people, as JSON and as SARIF.

pub mod plan;
pub mod render;
pub mod verdict;

/// One thing the audit looks for. Its id is the finding's `check` in JSON,
/// the SARIF rule id and the anchor of its section in `docs/audit.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Check {
    IntervalMissing,
    IntervalRepeated,
    LateCommit,
    DuplicateKey,
    IdenticalRows,
    MessageResent,
    CommitRepeated,
    RegressedRow,
    LedgerMismatch,
    OutboxUnsent,
    OutboxRepeated,
    OutboxUnkeyed,
    PinGone,
    PinChanged,
    CursorLagging,
}

impl Check {
    /// Every check, in the order findings are listed.
    pub const ALL: [Check; 15] = [
        Check::IntervalMissing,
        Check::IntervalRepeated,
        Check::LateCommit,
        Check::DuplicateKey,
        Check::IdenticalRows,
        Check::MessageResent,
        Check::CommitRepeated,
        Check::RegressedRow,
        Check::LedgerMismatch,
        Check::OutboxUnsent,
        Check::OutboxRepeated,
        Check::OutboxUnkeyed,
        Check::PinGone,
        Check::PinChanged,
        Check::CursorLagging,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Check::IntervalMissing => "interval-missing",
            Check::IntervalRepeated => "interval-repeated",
            Check::LateCommit => "late-commit",
            Check::DuplicateKey => "duplicate-key",
            Check::IdenticalRows => "identical-rows",
            Check::MessageResent => "message-resent",
            Check::CommitRepeated => "commit-repeated",
            Check::RegressedRow => "regressed-row",
            Check::LedgerMismatch => "ledger-mismatch",
            Check::OutboxUnkeyed => "outbox-unkeyed",
            Check::OutboxUnsent => "outbox-unsent",
            Check::OutboxRepeated => "outbox-repeated",
            Check::PinGone => "pin-gone",
            Check::PinChanged => "pin-changed",
            Check::CursorLagging => "cursor-lagging",
        }
    }

    /// One line: what the check finds.
    pub fn summary(self) -> &'static str {
        match self {
            Check::IntervalMissing => {
                "an interval of the schedule has no successful attempt in the attempt register"
            }
            Check::IntervalRepeated => "an interval has more than one successful attempt (it was re-run)",
            Check::LateCommit => {
                "an interval committed after a newer interval did: its write may have replaced newer rows"
            }
            Check::DuplicateKey => "a key is held by more than one row of a sink table",
            Check::IdenticalRows => "a sink table without key columns holds identical rows",
            Check::MessageResent => {
                "a topic holds a message that two attempts of its interval both sent"
            }
            Check::CommitRepeated => {
                "a Delta or Iceberg table holds an interval's rows that two attempts both appended"
            }
            Check::RegressedRow => {
                "a row's version or interval fence is older than another row of its key that should have replaced it"
            }
            Check::LedgerMismatch => {
                "an append ledger holds another number of keys than its table holds rows"
            }
            Check::OutboxUnkeyed => {
                "outbox rows of an effect with an idempotency key carry none (or another than their id)"
            }
            Check::OutboxUnsent => {
                "outbox rows are still unsent after their interval's end plus the grace period"
            }
            Check::OutboxRepeated => "one message is held by more than one outbox row",
            Check::PinGone => {
                "a pinned snapshot, version or offset range is no longer held by its source, so its interval cannot be re-read"
            }
            Check::PinChanged => {
                "a file of a pinned listing is gone, or an object's ETag changed, since it was pinned"
            }
            Check::CursorLagging => {
                "a cursor read's bookmark is behind the source's maximum by more than the lookback"
            }
        }
    }

    pub fn from_id(id: &str) -> Option<Check> {
        Check::ALL.into_iter().find(|c| c.id() == id)
    }
}
