//! FL011 `env-overrides-connection`: a task's `env` sets a variable that a
//! connector of the runtime reads for a declared connection: any
//! `FLOW_CONN_<NAME>` (where the runtime finds a source, sink or effect),
//! `PG*` for a `postgres_table` declaration the task reaches (libpq reads them
//! for whatever the connection URL leaves out), `AWS_*`, `GOOGLE_*` and
//! `AZURE_*` for an object-store declaration (the object store client
//! reads them). An entry FL010 reports (a credential) is left to it. The variable then decides, out of sight of the declaration
//! and its `secret`, which system the task talks to and as whom.

use super::{Ctx, Rule};
use crate::analyze::model::{DeclDef, PipelineDef, Program, TaskDef};
use crate::analyze::state::{store, Store};
use crate::diagnostic::Diagnostic;

pub const RULE: Rule = Rule {
    code: crate::diagnostic::Code::FL011,
    check: Some(check),
};

/// Which standard kinds' connectors read which variables: `(kinds,
/// whether a name is read, the connector in words)`.
type Reader = (&'static [&'static str], fn(&str) -> bool, &'static str);

const READERS: [Reader; 2] = [
    (
        &["postgres_table"],
        libpq_variable,
        "the PostgreSQL driver (libpq)",
    ),
    (
        &["files", "delta_table", "iceberg_table"],
        object_store_variable,
        "the object store client",
    ),
];

/// libpq's environment: `PG` and upper-case letters (`PGHOST`,
/// `PGPASSWORD`, `PGSSLMODE`...).
fn libpq_variable(name: &str) -> bool {
    name.strip_prefix("PG")
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_uppercase()))
}

/// The object store's environment: `AWS_*`, `GOOGLE_*`, `AZURE_*`.
fn object_store_variable(name: &str) -> bool {
    ["AWS_", "GOOGLE_", "AZURE_"]
        .iter()
        .any(|p| name.len() > p.len() && name.starts_with(p))
}

/// The declarations whose connections the process of `task` opens: what
/// it reads, writes and emits to, and the pipeline's state store.
fn reached<'a>(program: &'a Program, p: &PipelineDef, task: &TaskDef) -> Vec<&'a DeclDef> {
    let mut out: Vec<usize> = task
        .reads
        .iter()
        .map(|r| r.decl)
        .chain(task.writes.iter().map(|w| w.decl))
        .chain(task.emits.iter().map(|e| e.decl))
        .collect();
    if let Store::Sink { decl, .. } = store(program, p) {
        out.push(decl);
    }
    out.sort_unstable();
    out.dedup();
    out.into_iter()
        .filter_map(|i| program.decls.get(i))
        .collect()
}

/// What `name` set in the `env` of `task` overrides, in words, if anything.
fn overrides(program: &Program, p: &PipelineDef, task: &TaskDef, name: &str) -> Option<String> {
    if let Some(decl) = name.strip_prefix("FLOW_CONN_") {
        return Some(
            match program.decls.iter().find(|d| d.name.to_uppercase() == decl) {
                Some(d) => format!(
                    "where the runtime finds {} `{}`{}",
                    d.role.word(),
                    d.name,
                    if d.secret.is_some() {
                        ", in place of its `secret`"
                    } else {
                        ""
                    }
                ),
                None => return None,
            },
        );
    }
    let reached = reached(program, p, task);
    READERS.iter().find_map(|(kinds, reads, connector)| {
        if !reads(name) {
            return None;
        }
        reached
            .iter()
            .find(|d| program.kind_of(d).stdlib && kinds.contains(&d.kind.as_str()))
            .map(|d| {
                format!(
                    "what {connector} reads for {} `{}` beyond its connection URL",
                    d.role.word(),
                    d.name
                )
            })
    })
}

fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for p in &ctx.program.pipelines {
        if ctx.broken.contains(&p.loc.file) {
            continue;
        }
        for t in &p.tasks {
            for ((name, value), at) in t.env.iter().zip(&t.env_locs) {
                // A credential written in the file is FL010's, the graver
                // problem: one finding per variable.
                if super::fl010_credential_in_url::env_credential(name, value).is_some() {
                    continue;
                }
                if name.starts_with("FLOW_CONN_")
                    && !ctx.program.decls.iter().any(|d| {
                        name.strip_prefix("FLOW_CONN_") == Some(d.name.to_uppercase().as_str())
                    })
                {
                    out.push(
                        Diagnostic::new(
                            RULE.code,
                            at.file,
                            at.span,
                            format!("`env` variable `{name}` of task `{}` names a connection that no source, sink or effect has: the runtime never reads it", t.name),
                        )
                        .help("spell the declaration's name in upper case after `FLOW_CONN_`, or remove the variable; better, keep the connection in the declaration's URL or `secret \"NAME\"`"),
                    );
                } else if let Some(what) = overrides(ctx.program, p, t, name) {
                    out.push(
                        Diagnostic::new(
                            RULE.code,
                            at.file,
                            at.span,
                            format!("`env` variable `{name}` of task `{}` sets {what}: the connection no longer comes from the declaration alone", t.name),
                        )
                        .help("keep where and as whom a task connects in the declaration: its URL, or its `secret \"NAME\"` holding the whole URL; set such variables on the worker or pod, outside the `.flow` file, if you must"),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{libpq_variable, object_store_variable};

    #[test]
    fn names_the_connectors_read() {
        for hot in ["PGHOST", "PGPASSWORD", "PGSSLMODE"] {
            assert!(libpq_variable(hot), "{hot}");
        }
        for cold in ["PG", "PG_HOST", "PGhost", "XPGHOST", "PAGER"] {
            assert!(!libpq_variable(cold), "{cold}");
        }
        for hot in [
            "AWS_ACCESS_KEY_ID",
            "GOOGLE_SERVICE_ACCOUNT",
            "AZURE_STORAGE_ACCOUNT_KEY",
        ] {
            assert!(object_store_variable(hot), "{hot}");
        }
        for cold in ["AWS_", "AWS", "MY_AWS_KEY", "aws_region"] {
            assert!(!object_store_variable(cold), "{cold}");
        }
    }
}
