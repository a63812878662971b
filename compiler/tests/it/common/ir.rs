//! Builders of codegen IR for the target tests (`airflow.rs`, `argo.rs`).

use flowc::codegen::ir::Schedule;

/// A schedule as the front end lowers it: a preset with its five fields.
pub fn schedule(text: &str) -> Schedule {
    let cron = match text {
        "@hourly" => "0 * * * *",
        "@daily" => "0 0 * * *",
        other => other,
    };
    Schedule {
        text: text.into(),
        cron: cron.into(),
    }
}

/// A calendar date, as in `2024-01-01`.
pub fn date(text: &str) -> jiff::civil::Date {
    text.parse().expect("a date")
}
