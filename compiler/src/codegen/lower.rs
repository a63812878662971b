//! From the analysed program to the target-neutral IR.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::ir;
use crate::analyze::guarantee::{outbox_write, TaskFacts};
use crate::analyze::model::{DeclDef, KeyDef, KeyPartDef, Loc, PipelineDef, Program, ViaDef};
use crate::analyze::PipelineReport;
use crate::check::Outcome;
use crate::source::FileId;

fn key(k: Option<&KeyDef>) -> Option<Vec<ir::KeyPart>> {
    k.map(|k| k.parts.iter().map(part).collect())
}

fn part(p: &KeyPartDef) -> ir::KeyPart {
    ir::KeyPart {
        column: p.column.clone(),
        term: p.term.clone(),
    }
}

/// Each declaration becomes one endpoint, shared by every read, write and
/// emit that names it (a large pipeline would otherwise copy its parameters
/// once per task).
#[derive(Default)]
struct Endpoints(RefCell<BTreeMap<Loc, Arc<ir::Endpoint>>>);

impl Endpoints {
    fn of(&self, program: &Program, d: &DeclDef) -> Arc<ir::Endpoint> {
        Arc::clone(self.0.borrow_mut().entry(d.loc).or_insert_with(|| {
            Arc::new(ir::Endpoint {
                name: d.name.clone(),
                kind: program.kind_of(d).name.clone(),
                params: d.params.clone(),
                fields: d.fields.clone(),
                coordinator: d.coordinator.clone(),
                secret: d.secret.as_ref().map(|(s, _)| s.clone()),
            })
        }))
    }
}

fn pipeline(
    outcome: &Outcome,
    p: &PipelineDef,
    report: &PipelineReport,
    source_file: &str,
) -> ir::Pipeline {
    let program = &outcome.program;
    // The tasks of a large pipeline are lowered on all cores, each thread
    // sharing its own endpoints; they come back in order.
    // Only the edges no longer path implies are emitted.
    let upstream = report.graph.reduced_upstream();
    // Where each task is declared, for the generated files' comments.
    let lines: Vec<usize> = p
        .tasks
        .iter()
        .map(|t| outcome.sources.locate(t.loc.file, t.loc.span).line)
        .collect();
    let runs = crate::par::map_runs(&report.graph.order, crate::par::cores(), 1000, |run| {
        let endpoints = Endpoints::default();
        run.iter()
            .map(|&i| lower_task(program, &endpoints, p, report, &upstream[i], i, lines[i]))
            .collect::<Vec<_>>()
    });
    let tasks = runs.into_iter().flatten().collect();
    ir::Pipeline {
        name: p.name.clone(),
        source_file: source_file.to_owned(),
        schedule: p.schedule.as_ref().map(|(text, five)| ir::Schedule {
            text: text.clone(),
            // A preset expanded; an expression as written, blanks and all
            // (the generated files carry it unchanged).
            cron: if text.starts_with('@') {
                five.clone()
            } else {
                text.clone()
            },
        }),
        // Checked by the front end (`literal::parse_date`): it always parses.
        start: p
            .start
            .as_deref()
            .and_then(|d| crate::analyze::literal::parse_date(d).ok()),
        timezone: p.timezone.clone(),
        // `catchup` has no meaning without a schedule (its default, `true`,
        // is for scheduled pipelines).
        catchup: p.catchup && p.schedule.is_some(),
        image: p.image.clone(),
        state: state_store(program, p),
        needs_state: crate::analyze::state::needs_state(program, p),
        pod: pod(&p.pod),
        argo_ttl_seconds: p.argo_ttl,
        argo_pod_gc: p.argo_pod_gc.clone(),
        params: p
            .params
            .iter()
            .map(|d| ir::RunParam {
                name: d.name.clone(),
                ty: d.ty,
                optional: d.optional,
            })
            .collect(),
        tasks,
    }
}

fn pod(p: &crate::analyze::pod::PodDef) -> ir::Pod {
    ir::Pod {
        namespace: p.namespace.clone(),
        service_account: p.service_account.clone(),
        cpu: p.cpu.clone(),
        memory: p.memory.clone(),
        labels: p.labels.iter().cloned().collect(),
        annotations: p.annotations.iter().cloned().collect(),
        image_pull_policy: p.image_pull_policy.clone(),
    }
}

/// `FLOW_CONN_<NAME>` from its secret for every declaration the task
/// reaches that names one, and the pipeline's state store; and
/// `FLOW_TOKEN_<NAME>` from the secret of every effect the task emits.
fn secrets(
    program: &Program,
    pipeline: &PipelineDef,
    t: &crate::analyze::model::TaskDef,
) -> Vec<ir::SecretEnv> {
    use crate::analyze::state::{store, Store};
    let mut decls: Vec<usize> = t.reads.iter().map(|r| r.decl).collect();
    decls.extend(t.writes.iter().map(|w| w.decl));
    decls.extend(t.emits.iter().map(|e| e.decl));
    for e in &t.emits {
        if let ViaDef::Outbox(Some((d, _))) = &e.via {
            decls.push(*d);
        }
    }
    if let Store::Sink { decl, .. } = store(program, pipeline) {
        decls.push(decl);
    }
    let mut out: Vec<ir::SecretEnv> = decls
        .into_iter()
        .filter_map(|i| program.decls.get(i))
        .filter_map(|d| {
            d.secret.as_ref().map(|(s, _)| ir::SecretEnv {
                name: format!("FLOW_CONN_{}", d.name.to_uppercase()),
                secret: s.clone(),
            })
        })
        .collect();
    // An effect's token (`FLOW_TOKEN_<NAME>`) from its Secret's key `token`,
    // where the Secret has one.
    out.extend(t.emits.iter().filter_map(|e| {
        let d = program.decls.get(e.decl)?;
        d.secret.as_ref().map(|(s, _)| ir::SecretEnv {
            name: format!("{}{}", ir::TOKEN_PREFIX, d.name.to_uppercase()),
            secret: s.clone(),
        })
    }));
    out.sort();
    out.dedup();
    out
}

/// Where the pipeline's state lives, with the sink that reaches it.
fn state_store(program: &Program, p: &PipelineDef) -> ir::StateStore {
    use crate::analyze::state::{store, Store};
    match store(program, p) {
        Store::Local => ir::StateStore::default(),
        Store::Sink { decl, named } => {
            let d = &program.decls[decl];
            ir::StateStore {
                kind: program.kind_of(d).name.clone(),
                endpoint: Some(Endpoints::default().of(program, d)),
                named,
            }
        }
    }
}

/// One task of the pipeline as the targets see it.
fn lower_task(
    program: &Program,
    endpoints: &Endpoints,
    pipeline: &PipelineDef,
    report: &PipelineReport,
    upstream: &[usize],
    index: usize,
    line: usize,
) -> ir::Task {
    let t = &pipeline.tasks[index];
    let derived = &report.tasks[index];
    let facts = TaskFacts::new(program, pipeline, t);
    let writes: Vec<ir::Write> = t
        .writes
        .iter()
        .zip(&derived.outputs)
        .map(|(w, o)| {
            let sink = facts.decl(w.decl);
            ir::Write {
                sink: endpoints.of(program, sink),
                mode: w.mode,
                partition: w.partition.as_ref().map(part),
                key: key(facts.write_key(w)),
                primary_key: sink.primary_key.clone(),
                guarantee: o.guarantee,
                required: o.required,
                newest_by: w.newest_by.as_ref().map(|(c, _)| c.clone()),
                txn: w.txn.as_ref().and_then(|k| key(Some(k))),
                anomalies: anomalies(&o.anomalies),
            }
        })
        .collect();
    let emits = t
        .emits
        .iter()
        .zip(derived.outputs.iter().skip(t.writes.len()))
        .map(|(e, o)| {
            let effect = facts.decl(e.decl);
            let (tracking, outbox, k) = match &e.via {
                ViaDef::Untracked => (crate::vocab::Tracking::Untracked, None, None),
                ViaDef::IdempotencyKey(k) => {
                    (crate::vocab::Tracking::IdempotencyKey, None, key(Some(k)))
                }
                ViaDef::Outbox(_) => {
                    let w = outbox_write(&facts, e);
                    (
                        crate::vocab::Tracking::Outbox,
                        w.map(|w| facts.decl(w.decl).name.clone()),
                        w.and_then(|w| key(facts.write_key(w))),
                    )
                }
            };
            ir::Emit {
                effect: endpoints.of(program, effect),
                tracking,
                outbox,
                key: k,
                effect_key: key(e.key.as_ref()),
                kind_has_idempotency_key: program.kind_of(effect).idempotency_key,
                guarantee: o.guarantee,
                required: o.required,
                anomalies: anomalies(&o.anomalies),
            }
        })
        .collect();
    ir::Task {
        name: t.name.clone(),
        upstream: upstream
            .iter()
            .map(|&u| pipeline.tasks[u].name.clone())
            .collect(),
        retries: derived.retries,
        internal_retries: derived.internal_retries,
        retry_delay_seconds: t.retry_delay.or(pipeline.retry_delay).unwrap_or(300),
        timeout_seconds: t.timeout.or(pipeline.timeout).map(|(s, _)| s),
        on_ambiguous: derived.on_ambiguous,
        image: t
            .run
            .as_ref()
            .and_then(|r| r.image.clone())
            .or_else(|| pipeline.image.clone()),
        command: t
            .run
            .as_ref()
            .map(|r| r.command.clone())
            .unwrap_or_default(),
        env: t
            .env
            .iter()
            .map(|(n, v)| ir::EnvVar {
                name: n.clone(),
                value: v.clone(),
            })
            .collect(),
        nondeterministic: t.nondeterministic.is_some(),
        reads: t
            .reads
            .iter()
            .map(|r| {
                let d = facts.decl(r.decl);
                let ready = crate::analyze::state::ready(program, d);
                ir::Read {
                    source: endpoints.of(program, d),
                    immutable: d.immutable,
                    pin: facts.effective_pin(r),
                    commit: facts.effective_commit(r).map(|c| c.word().to_string()),
                    identity: facts.read_identity(r),
                    ready: ready.word().to_owned(),
                    ready_marker: match ready {
                        crate::analyze::model::Ready::Marker(m) => Some(m),
                        _ => None,
                    },
                    cursor: (facts.effective_pin(r) == Some(crate::vocab::Pin::Cursor))
                        .then_some(d.cursor.as_ref())
                        .flatten()
                        .map(|(column, unique, _)| {
                            use crate::analyze::model::Lookback;
                            let lookback = r.lookback.map(|l| l.0);
                            ir::Cursor {
                                column: column.clone(),
                                unique: *unique,
                                lookback_seconds: match lookback {
                                    Some(Lookback::Seconds(s)) => Some(s),
                                    _ => None,
                                },
                                lookback_count: match lookback {
                                    Some(Lookback::Count(n)) => Some(n),
                                    _ => None,
                                },
                                inclusive: r.inclusive.is_some(),
                            }
                        }),
                }
            })
            .collect(),
        writes,
        emits,
        pod: pod(&t.pod.over(&pipeline.pod)),
        secrets: secrets(program, pipeline, t),
        airflow_executor: t
            .executor
            .or(pipeline.executor)
            .map(|e| e.word().to_owned()),
        line,
        on_ambiguous_why: derived.on_ambiguous_why.clone(),
    }
}

fn anomalies(found: &[crate::analyze::anomaly::Anomaly]) -> Vec<ir::Anomaly> {
    found
        .iter()
        .map(|a| ir::Anomaly {
            kind: a.kind.word().to_owned(),
            scenario: a.scenario.clone(),
        })
        .collect()
}

/// The IR of every analysed pipeline declared in `file`, in source order.
pub fn pipelines_of(outcome: &Outcome, file: FileId) -> Vec<ir::Pipeline> {
    // Found on the file system by `io`, once per file (`Outcome::header_path`).
    let source_file = outcome.header_path(file).to_owned();
    outcome
        .analysis
        .pipelines
        .iter()
        .filter(|r| outcome.program.pipelines[r.pipeline].loc.file == file)
        .map(|r| {
            pipeline(
                outcome,
                &outcome.program.pipelines[r.pipeline],
                r,
                &source_file,
            )
        })
        .collect()
}
