//! What the generated files say about a task for the person who debugs them
//! (Airflow's `doc_md`, Argo's comments and annotations): where the task is
//! declared, what it writes and emits with which guarantee and anomalies,
//! and why `on_ambiguous` is what it is. One place, so both targets say the
//! same thing in the same words.

use super::ir::{Anomaly, Pipeline, Task};
use crate::vocab::{Guarantee, OnAmbiguous, Tracking};

/// `FILE:LINE` of the task's declaration; the file alone in IR written
/// before lines were recorded.
pub(crate) fn source(pipeline: &Pipeline, task: &Task) -> String {
    if task.line == 0 {
        pipeline.source_file.clone()
    } else {
        format!("{}:{}", pipeline.source_file, task.line)
    }
}

/// One output of a task: `write `orders` (upsert)` and its guarantee and anomalies.
pub(crate) struct Output<'a> {
    pub what: String,
    pub guarantee: Guarantee,
    pub anomalies: &'a [Anomaly],
}

/// The task's writes, then its emits, in source order.
pub(crate) fn outputs(task: &Task) -> Vec<Output<'_>> {
    let writes = task.writes.iter().map(|w| Output {
        what: format!("write `{}` ({})", w.sink.name, w.mode.source()),
        guarantee: w.guarantee,
        anomalies: &w.anomalies,
    });
    let emits = task.emits.iter().map(|e| Output {
        what: match e.tracking {
            Tracking::Untracked => format!("emit `{}` (untracked)", e.effect.name),
            via => format!("emit `{}` (via {})", e.effect.name, via.word()),
        },
        guarantee: e.guarantee,
        anomalies: &e.anomalies,
    });
    writes.chain(emits).collect()
}

/// The weakest guarantee of the task's outputs; `None` for a task without any.
pub(crate) fn achieved(task: &Task) -> Option<Guarantee> {
    outputs(task)
        .iter()
        .map(|o| o.guarantee)
        .reduce(Guarantee::meet)
}

/// `write `orders` (upsert): effectively_once; emit ...`, one line.
pub(crate) fn outputs_line(task: &Task) -> String {
    outputs(task)
        .iter()
        .map(|o| format!("{}: {}", o.what, o.guarantee.word()))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why the task fails rather than retries after an ambiguous failure, in
/// one sentence; `None` when it retries.
pub(crate) fn why_fail(task: &Task) -> Option<String> {
    (task.on_ambiguous == OnAmbiguous::Fail).then(|| {
        if task.on_ambiguous_why.is_empty() {
            "on_ambiguous \"fail\"".to_owned()
        } else {
            format!("on_ambiguous \"fail\": {}", task.on_ambiguous_why)
        }
    })
}

/// The task's description in Markdown, one line per element (each ending in
/// a newline): Airflow shows it as the task's documentation.
pub(crate) fn doc_md(pipeline: &Pipeline, task: &Task) -> Vec<String> {
    let mut lines = vec![
        format!(
            "Task `{}` of pipeline `{}`, declared at `{}`.\n",
            task.name,
            pipeline.name,
            source(pipeline, task)
        ),
        "\n".to_owned(),
    ];
    let outputs = outputs(task);
    if outputs.is_empty() {
        lines.push("It writes nothing and emits nothing.\n".to_owned());
    }
    for o in &outputs {
        lines.push(format!("- {}: **{}**\n", o.what, o.guarantee.word()));
        for a in o.anomalies {
            lines.push(format!("  - {}: {}\n", a.kind, a.scenario));
        }
    }
    lines.push("\n".to_owned());
    let attempts = u64::from(task.retries) + 1;
    let ambiguous = match task.on_ambiguous {
        OnAmbiguous::Retry => "retried",
        OnAmbiguous::Fail => "not retried",
    };
    let mut last = format!(
        "Up to {attempts} attempt{}; an attempt that fails after it may have committed is {ambiguous}",
        if attempts == 1 { "" } else { "s" }
    );
    if !task.on_ambiguous_why.is_empty() {
        last = format!("{last} ({})", task.on_ambiguous_why);
    }
    last.push_str(".\n");
    lines.push(last);
    lines
}
