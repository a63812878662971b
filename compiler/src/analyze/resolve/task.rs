//! Tasks: their statements (`read`, `write`, `emit`, `key`, `run`, `env`, ...) and settings.

use std::collections::BTreeMap;

use super::{commit_not_offered, dup_statement, first_clause, loc, Names, Resolver, Seen};
use crate::analyze::literal::{self};
use crate::analyze::model::{
    EmitDef, KeyDef, KeyPartDef, Lookback, ReadDef, Role, RunDef, TaskDef, ViaDef, WriteDef,
};
use crate::analyze::pod::PodDef;
use crate::analyze::problem::{Clause, Problem};
use crate::analyze::settings::{self, Id, Place};
use crate::source::FileId;
use crate::span::Span;
use crate::suggest::closest;
use crate::syntax::ast;
use crate::vocab::{CommitMode, Mode, OnAmbiguous, Pin, Term};

impl<N: std::borrow::Borrow<Names>> Resolver<'_, N> {
    pub(super) fn task(&mut self, f: FileId, t: &ast::Task) -> TaskDef {
        // Each list sized once: a model of 100,000 tasks is mostly these.
        let count = |is: fn(&ast::TaskStmt) -> bool| t.stmts.iter().filter(|s| is(s)).count();
        let mut def = TaskDef {
            name: t.name.name.clone(),
            loc: loc(f, t.span),
            name_loc: loc(f, t.name.span),
            after: Vec::new(),
            reads: Vec::with_capacity(count(|s| matches!(s, ast::TaskStmt::Read(_)))),
            key: None,
            writes: Vec::with_capacity(count(|s| matches!(s, ast::TaskStmt::Write(_)))),
            emits: Vec::with_capacity(count(|s| matches!(s, ast::TaskStmt::Emit(_)))),
            retries: None,
            internal_retries: None,
            retry_delay: None,
            timeout: None,
            nondeterministic: None,
            on_ambiguous: None,
            require: None,
            run: None,
            env: Vec::new(),
            env_locs: Vec::new(),
            pod: PodDef::default(),
            executor: None,
            allows: Vec::new(),
        };
        let mut seen = Seen::default();
        let mut key_at: Option<Span> = None;
        let mut run_at: Option<Span> = None;
        let mut env_at: Option<Span> = None;
        for stmt in &t.stmts {
            match stmt {
                ast::TaskStmt::After(a) => {
                    for n in &a.tasks {
                        if n.name != t.name.name {
                            def.after.push((n.name.clone(), loc(f, n.span)));
                        }
                    }
                }
                ast::TaskStmt::Read(r) => {
                    if let Some(rd) = self.read(f, r) {
                        def.reads.push(rd);
                    }
                }
                ast::TaskStmt::Key(k) => {
                    if dup_statement(self.diags, f, "key", &mut key_at, k.span) {
                        def.key = self.key(f, &k.key);
                    }
                }
                ast::TaskStmt::Write(w) => {
                    if let Some(wd) = self.write(f, w) {
                        def.writes.push(wd);
                    }
                }
                ast::TaskStmt::Emit(e) => {
                    if let Some(ed) = self.emit(f, e) {
                        def.emits.push(ed);
                    }
                }
                ast::TaskStmt::Run(r) => {
                    if dup_statement(self.diags, f, "run", &mut run_at, r.span) {
                        def.run = Some(RunDef {
                            image: r.image.as_ref().map(|s| s.value.clone()),
                            command: r.command.iter().map(|s| s.value.clone()).collect(),
                            loc: loc(f, r.span),
                        });
                        if let Some(image) = &r.image {
                            self.check_image(f, image);
                        }
                        match r.command.first() {
                            None => self.problem(Problem::EmptyCommand {
                                at: loc(f, r.command_span),
                            }),
                            // Later empty strings are argv entries like any
                            // other; the program is a file to start.
                            Some(program) if program.value.is_empty() => {
                                self.problem(Problem::EmptyProgram {
                                    at: loc(f, program.span),
                                });
                            }
                            Some(_) => {}
                        }
                    }
                }
                ast::TaskStmt::Env(e) => {
                    if dup_statement(self.diags, f, "env", &mut env_at, e.span) {
                        let mut names: BTreeMap<&str, Span> = BTreeMap::new();
                        for (n, v) in &e.entries {
                            if let Some(prev) = names.get(n.name.as_str()) {
                                self.problem(Problem::EnvTwice {
                                    name: n.name.clone(),
                                    at: loc(f, n.span),
                                    first: loc(f, *prev),
                                });
                                continue;
                            }
                            names.insert(&n.name, n.span);
                            def.env.push((n.name.clone(), v.value.clone()));
                            def.env_locs.push(loc(f, v.span));
                        }
                    }
                }
                ast::TaskStmt::Allow(a) => {
                    if let Some(al) = self.allow(f, a, t.span) {
                        def.allows.push(al);
                    }
                }
                ast::TaskStmt::Setting(s) => self.task_setting(f, s, &mut def, &mut seen),
            }
        }
        if def.run.is_none() {
            self.problem(Problem::NoRun {
                task: t.name.name.clone(),
                at: loc(f, t.name.span),
            });
        }
        def
    }

    pub(super) fn task_setting(
        &mut self,
        f: FileId,
        s: &ast::Setting,
        def: &mut TaskDef,
        seen: &mut Seen,
    ) {
        let name = s.name.name.as_str();
        let Some(setting) = settings::find(Place::Task, name) else {
            let mut words: Vec<&str> = settings::names(Place::Task).to_vec();
            words.extend([
                "after", "read", "key", "write", "emit", "run", "env", "allow",
            ]);
            self.problem(Problem::UnknownTaskStatement {
                name: name.to_string(),
                task: def.name.clone(),
                near: closest(name, words).map(str::to_string),
                at: loc(f, s.name.span),
            });
            return;
        };
        if !seen.first(self.diags, f, s) {
            return;
        }
        let at = loc(f, s.span);
        if let Some(store) = setting.store.task {
            if let Some(v) = self.parsed(f, s, setting.shape) {
                store(def, v, at);
            }
            return;
        }
        match setting.id {
            // As for the pipeline's: a bad value still counts as written.
            Id::Timeout => def.timeout = Some((self.lease_arg(f, s).unwrap_or(u64::MAX), at)),
            Id::OnAmbiguous => {
                let words = OnAmbiguous::ALL.map(|(w, _)| w);
                if let Some(o) = self
                    .word_arg(f, s, &words)
                    .and_then(|w| OnAmbiguous::from_word(&w))
                {
                    def.on_ambiguous = Some((o, at));
                }
            }
            _ if setting.at(Place::Pod) => {
                self.pod_setting(f, s, setting.id, &mut def.pod, &mut def.executor);
            }
            // `find` gives only the task's settings.
            _ => {}
        }
    }

    pub(super) fn read(&mut self, f: FileId, r: &ast::Read) -> Option<ReadDef> {
        let decl = self.lookup_decl(f, &r.source, "source");
        let mut rd = ReadDef {
            decl: decl.unwrap_or(usize::MAX),
            loc: loc(f, r.span),
            source_loc: loc(f, r.source.span),
            pin: None,
            pin_loc: None,
            commit: None,
            commit_loc: None,
            lookback: None,
            inclusive: None,
        };
        let pin_span = |p: &ast::PinClause| match p {
            ast::PinClause::Pinned(id) => id.span,
            ast::PinClause::Unpinned(s) | ast::PinClause::Cursor(s) => *s,
        };
        if let Some(p) = first_clause(
            self.diags,
            f,
            &r.pins,
            pin_span,
            Clause::Pin,
            &r.source.name,
        ) {
            match p {
                ast::PinClause::Unpinned(s) => {
                    rd.pin = Some(None);
                    rd.pin_loc = Some(loc(f, *s));
                }
                ast::PinClause::Cursor(s) => {
                    rd.pin = Some(Some(Pin::Cursor));
                    rd.pin_loc = Some(loc(f, *s));
                }
                ast::PinClause::Pinned(id) => {
                    if let Some((_, pin)) = Pin::ALL.iter().find(|(w, _)| *w == id.name) {
                        rd.pin = Some(Some(*pin));
                        rd.pin_loc = Some(loc(f, id.span));
                    } else {
                        self.problem(Problem::NotAPin {
                            name: id.name.clone(),
                            near: closest(&id.name, Pin::ALL.map(|(w, _)| w)).map(str::to_string),
                            at: loc(f, id.span),
                        });
                    }
                }
            }
        }
        if let Some(c) = first_clause(
            self.diags,
            f,
            &r.commits,
            |c| c.span,
            Clause::Commit,
            &r.source.name,
        ) {
            if let Some((_, m)) = CommitMode::ALL.iter().find(|(w, _)| *w == c.name) {
                rd.commit = Some(*m);
                rd.commit_loc = Some(loc(f, c.span));
            } else {
                self.problem(Problem::NotACommitMode {
                    name: c.name.clone(),
                    near: closest(&c.name, CommitMode::ALL.map(|(w, _)| w)).map(str::to_string),
                    at: loc(f, c.span),
                });
            }
        }
        self.cursor_clauses(f, r, &mut rd);
        let decl = decl?;
        if self.role_mismatch(f, &r.source, decl, "read", &[Role::Source]) {
            return None;
        }
        {
            let d = &self.names().decls[decl];
            let pin = rd.pin.unwrap_or(d.pin.flatten());
            if pin == Some(Pin::Cursor) && d.cursor.is_none() {
                let at = rd.pin_loc.unwrap_or(rd.loc);
                let problem = Problem::CursorWithoutColumn {
                    source: d.name.clone(),
                    decl: d.name_loc,
                    at,
                };
                self.problem(problem);
            }
            if pin != Some(Pin::Cursor) {
                for (word, at) in [
                    ("lookback", rd.lookback.map(|l| l.1)),
                    ("inclusive", rd.inclusive),
                ] {
                    if let Some(at) = at {
                        self.problem(Problem::CursorClauseWithoutCursor {
                            word,
                            source: r.source.name.clone(),
                            at,
                        });
                    }
                }
            }
        }
        if let (Some(at), Some(m)) = (rd.commit_loc, rd.commit) {
            let kind = &self.names().kinds[self.names().decls[decl].kind_idx];
            if kind.offsets && !kind.commits.contains(&m) {
                let d = commit_not_offered(f, at.span, kind, m);
                self.problem(d);
            }
        }
        if let Some(at) = rd.commit_loc {
            let d = &self.names().decls[decl];
            if !self.names().kinds[d.kind_idx].offsets {
                let kind = d.kind.clone();
                self.problem(Problem::CommitClauseWithoutOffsets {
                    source: r.source.name.clone(),
                    kind,
                    at: loc(f, at.span),
                });
                rd.commit = None;
            }
        }
        Some(rd)
    }

    /// `lookback L` and `inclusive` of a read (flowc 0.3): each at most
    /// once, a positive duration or count, and only on a cursor read.
    pub(super) fn cursor_clauses(&mut self, f: FileId, r: &ast::Read, rd: &mut ReadDef) {
        if let Some(l) = first_clause(
            self.diags,
            f,
            &r.lookbacks,
            |l| l.span,
            Clause::Lookback,
            &r.source.name,
        ) {
            let at = loc(f, l.span);
            let value = match literal::classify(&l.name) {
                Ok(literal::NumberKind::Duration) => {
                    literal::parse_duration(&l.name).map(Lookback::Seconds)
                }
                Ok(literal::NumberKind::Int) => {
                    literal::parse_int(&l.name).map(|n| Lookback::Count(u64::from(n)))
                }
                Ok(literal::NumberKind::Date) => Err(literal::LiteralError::NotANumber {
                    text: l.name.clone(),
                }),
                Err(e) => Err(e),
            };
            match value {
                Ok(Lookback::Seconds(0) | Lookback::Count(0)) => {
                    self.problem(Problem::ZeroLookback {
                        text: l.name.clone(),
                        at,
                    });
                }
                Ok(v) => rd.lookback = Some((v, at)),
                Err(error) => self.problem(Problem::BadNumber {
                    setting: "lookback".to_string(),
                    example: "2h",
                    error,
                    at,
                }),
            }
        }
        if let Some(s) = first_clause(
            self.diags,
            f,
            &r.inclusive,
            |s| *s,
            Clause::Inclusive,
            &r.source.name,
        ) {
            rd.inclusive = Some(loc(f, *s));
        }
    }

    pub(super) fn write(&mut self, f: FileId, w: &ast::Write) -> Option<WriteDef> {
        let decl = self.lookup_decl(f, &w.sink, "sink");
        let (mode, mode_span, partition) = match &w.mode {
            ast::WriteModeExpr::ReplacePartition(part, s) => {
                (Mode::ReplacePartition, *s, self.key_part(f, part))
            }
            ast::WriteModeExpr::AppendLedger(s) => (Mode::AppendLedger, *s, None),
            ast::WriteModeExpr::Word(id) => {
                let words = [
                    "upsert",
                    "insert_if_absent",
                    "append",
                    "check_then_append",
                    "conditional_commit",
                    "overwrite",
                    "transactional",
                ];
                if let Some((_, m)) = Mode::ALL.iter().find(|(n, m)| {
                    *n == id.name && !matches!(m, Mode::ReplacePartition | Mode::AppendLedger)
                }) {
                    (*m, id.span, None)
                } else {
                    let mut all = words.to_vec();
                    all.extend(["replace", "ledger"]);
                    self.problem(Problem::NotAWriteMode {
                        name: id.name.clone(),
                        near: closest(&id.name, all).map(str::to_string),
                        at: loc(f, id.span),
                    });
                    return None;
                }
            }
        };
        if mode == Mode::ReplacePartition && partition.is_none() {
            return None;
        }
        let key = first_clause(
            self.diags,
            f,
            &w.keys,
            |k| k.span,
            Clause::Key,
            &w.sink.name,
        )
        .and_then(|k| self.key(f, k));
        let require = first_clause(
            self.diags,
            f,
            &w.requires,
            |r| r.span,
            Clause::Require,
            &w.sink.name,
        )
        .and_then(|r| self.guarantee_word(f, r).map(|g| (g, loc(f, r.span))));
        let newest_by = first_clause(
            self.diags,
            f,
            &w.newest,
            |(_, s)| *s,
            Clause::Newest,
            &w.sink.name,
        )
        .map(|(c, s)| (c.name.clone(), loc(f, *s)));
        let txn = first_clause(
            self.diags,
            f,
            &w.txns,
            |k| k.span,
            Clause::Txn,
            &w.sink.name,
        )
        .and_then(|k| self.key(f, k));
        for (word, at, ok) in [
            (
                "newest by",
                newest_by.as_ref().map(|n| n.1),
                mode == Mode::Upsert,
            ),
            (
                "txn",
                w.txns.first().map(|k| loc(f, k.span)),
                mode == Mode::ConditionalCommit,
            ),
        ] {
            if let (Some(at), false) = (at, ok) {
                self.problem(Problem::ClauseForOtherMode { word, mode, at });
            }
        }
        let decl = decl?;
        if self.role_mismatch(f, &w.sink, decl, "write", &[Role::Sink]) {
            return None;
        }
        Some(WriteDef {
            decl,
            loc: loc(f, w.span),
            mode,
            mode_loc: loc(f, mode_span),
            partition,
            key,
            require,
            newest_by: newest_by.filter(|_| mode == Mode::Upsert),
            txn: txn.filter(|_| mode == Mode::ConditionalCommit),
        })
    }

    pub(super) fn emit(&mut self, f: FileId, e: &ast::Emit) -> Option<EmitDef> {
        let decl = self.lookup_decl(f, &e.effect, "effect");
        let via = match &e.via {
            None => ViaDef::Untracked,
            Some(ast::Via::Outbox(s, _)) => match s {
                None => ViaDef::Outbox(None),
                // Whether it names a sink this task writes transactionally is FL404's question.
                Some(name) => ViaDef::Outbox(Some((
                    self.lookup_decl(f, name, "sink")?,
                    loc(f, name.span),
                ))),
            },
            Some(ast::Via::IdempotencyKey(k, _)) => ViaDef::IdempotencyKey(self.key(f, k)?),
        };
        let key = match &e.key {
            Some(k) => Some(self.key(f, k)?),
            None => None,
        };
        let require = match &e.require {
            Some(r) => Some((self.guarantee_word(f, r)?, loc(f, r.span))),
            None => None,
        };
        let decl = decl?;
        if self.role_mismatch(f, &e.effect, decl, "emit", &[Role::Effect]) {
            return None;
        }
        Some(EmitDef {
            decl,
            loc: loc(f, e.span),
            via,
            via_loc: e.via.as_ref().map(|v| loc(f, v.span())),
            key,
            require,
        })
    }

    pub(super) fn key(&mut self, f: FileId, k: &ast::KeyExpr) -> Option<KeyDef> {
        let mut parts = Vec::with_capacity(k.parts.len());
        let mut ok = true;
        for p in &k.parts {
            match self.key_part(f, p) {
                Some(kp) => parts.push(kp),
                None => ok = false,
            }
        }
        ok.then_some(KeyDef {
            parts,
            loc: loc(f, k.span),
        })
    }

    pub(super) fn key_part(&mut self, f: FileId, p: &ast::KeyPart) -> Option<KeyPartDef> {
        let term = self.term(f, &p.term)?;
        Some(KeyPartDef {
            column: p.column.as_ref().map(|c| c.name.clone()),
            term,
            // Findings about a part are about its term: `input.zz`, not `id = input.zz`.
            loc: loc(f, p.term.span),
        })
    }

    pub(super) fn term(&mut self, f: FileId, t: &ast::TermExpr) -> Option<Term> {
        let names: Vec<&str> = t.path.iter().map(|i| i.name.as_str()).collect();
        let term = match (names.as_slice(), &t.call) {
            (["input", field], None) => Some(Term::InputField {
                field: (*field).to_string(),
            }),
            (["output", field], None) => Some(Term::OutputField {
                field: (*field).to_string(),
            }),
            (["interval", "start"], None) => Some(Term::IntervalStart),
            (["interval", "end"], None) => Some(Term::IntervalEnd),
            (["run", "id"], None) => Some(Term::RunId),
            (["attempt", "id"], None) => Some(Term::AttemptId),
            (["attempt", "number"], None) => Some(Term::AttemptNumber),
            (["hash"], Some(Some(arg))) if arg.name == "input" => Some(Term::InputHash),
            (["hash"], Some(Some(arg))) if arg.name == "output" => Some(Term::OutputHash),
            (["now"], Some(None)) => Some(Term::Now),
            (["uuid"], Some(None)) => Some(Term::Uuid),
            (["random"], Some(None)) => Some(Term::Random),
            _ => None,
        };
        if term.is_none() {
            const TERMS: [&str; 13] = [
                "input.F",
                "hash(input)",
                "output.F",
                "hash(output)",
                "interval.start",
                "interval.end",
                "run.id",
                "attempt.id",
                "attempt.number",
                "now()",
                "uuid()",
                "random()",
                "COL = TERM",
            ];
            let text = t.text();
            let guess = match (names.as_slice(), &t.call) {
                ([word @ ("now" | "uuid" | "random")], None) => Some(format!("{word}()")),
                (["hash"], None) => Some("hash(input)".to_string()),
                ([first @ ("input" | "output")], None) => Some(format!("hash({first})")),
                ([first @ ("input" | "output"), ..], _) => Some(format!("{first}.FIELD")),
                // Written in other case: the term in its case (`Input.id`).
                ([first, rest @ ..], _)
                    if matches!(first.to_ascii_lowercase().as_str(), "input" | "output")
                        && rest.len() == 1 =>
                {
                    Some(format!("{}.{}", first.to_ascii_lowercase(), rest[0]))
                }
                _ => {
                    let lower = text.to_ascii_lowercase();
                    let terms = || TERMS[1..12].iter().copied();
                    // A term cut short (`attempt.num`), then one in other
                    // case (`INTERVAL.START`), then the closest spelling.
                    terms()
                        .find(|t| t.starts_with(&lower) && lower.contains('.'))
                        .or_else(|| terms().find(|t| *t == lower))
                        .map(str::to_string)
                        .or_else(|| {
                            closest(&text, terms().chain(["input.F", "output.F"]))
                                .map(str::to_string)
                        })
                }
            };
            let bare = (names.len() == 1 && t.call.is_none()).then(|| names[0]);
            self.problem(Problem::NotAKeyTerm {
                text,
                guess,
                bare: bare.map(str::to_string),
                terms: &TERMS,
                at: loc(f, t.span),
            });
        }
        term
    }
}
