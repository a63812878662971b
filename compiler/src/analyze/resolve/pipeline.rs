//! Pipelines: their settings, parameters, `allow` lines and tasks, and the
//! `state` sink and a source's `ready`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{loc, ready_not_listed, ready_wrong_value, Names, Resolver, Seen, Unit};
use crate::analyze::literal::{self};
use crate::analyze::model::{AllowDef, KindDef, Loc, ParamDef, PipelineDef, Ready, Role, TaskDef};
use crate::analyze::pod::PodDef;
use crate::analyze::problem::{Namespace, Problem};
use crate::analyze::settings::{self, Id, Place};
use crate::diagnostic::Code;
use crate::source::FileId;
use crate::span::Span;
use crate::suggest::closest;
use crate::syntax::ast::{self, Value};
use crate::vocab::{ParamType, Pin};

impl<N: std::borrow::Borrow<Names>> Resolver<'_, N> {
    // ---- pipelines ----------------------------------------------------------------

    pub(super) fn pipelines(&mut self, units: &[Unit<'_>]) -> (Vec<PipelineDef>, BTreeSet<FileId>) {
        let mut pipelines = Vec::new();
        let mut files = BTreeSet::new();
        let mut names: BTreeMap<String, Loc> = BTreeMap::new();
        for u in units.iter().filter(|u| u.root) {
            for item in &u.ast.items {
                let ast::Item::Pipeline(p) = item else {
                    continue;
                };
                files.insert(u.file);
                if let Some(prev) = names.get(&p.name.name) {
                    self.problem(Problem::DuplicateName {
                        namespace: Namespace::Pipeline,
                        name: p.name.name.clone(),
                        first: *prev,
                        again: loc(u.file, p.name.span),
                    });
                    // Still resolved and analysed: FL703 replaces no other
                    // finding, and the report still shows the pipeline.
                    pipelines.push(self.pipeline(u.file, p));
                    continue;
                }
                names.insert(p.name.name.clone(), loc(u.file, p.name.span));
                let def = self.pipeline(u.file, p);
                pipelines.push(def);
            }
        }
        (pipelines, files)
    }

    /// Count as used every declaration a statement of `tasks` names.
    pub(super) fn mark_named_in<'t>(
        &mut self,
        f: FileId,
        tasks: impl IntoIterator<Item = &'t ast::Task>,
    ) {
        let names = self.names.borrow();
        let Some(scope) = names.decl_scope.get(&f) else {
            return;
        };
        let mut used = Vec::new();
        for task in tasks {
            for stmt in &task.stmts {
                let named: Vec<&ast::Ident> = match stmt {
                    ast::TaskStmt::Read(r) => vec![&r.source],
                    ast::TaskStmt::Write(w) => vec![&w.sink],
                    ast::TaskStmt::Emit(e) => match &e.via {
                        Some(ast::Via::Outbox(Some(s), _)) => vec![&e.effect, s],
                        _ => vec![&e.effect],
                    },
                    _ => Vec::new(),
                };
                used.extend(named.iter().filter_map(|n| scope.get(&n.name).copied()));
            }
        }
        self.referenced.extend(used);
    }

    pub(super) fn pipeline(&mut self, f: FileId, p: &ast::Pipeline) -> PipelineDef {
        let mut def = PipelineDef {
            name: p.name.name.clone(),
            loc: loc(f, p.span),
            name_loc: loc(f, p.name.span),
            schedule: None,
            schedule_loc: None,
            schedule_invalid: false,
            start: None,
            timezone: "UTC".into(),
            catchup: true,
            catchup_loc: None,
            retries: None,
            retry_delay: None,
            timeout: None,
            image: None,
            require: None,
            state: None,
            pod: PodDef::default(),
            executor: None,
            argo_ttl: None,
            argo_pod_gc: None,
            params: Vec::new(),
            allows: Vec::new(),
            tasks: Vec::with_capacity(p.tasks.len()),
        };
        let mut seen = Seen::default();
        for s in &p.settings {
            let name = s.name.name.as_str();
            let Some(setting) = settings::find(Place::Pipeline, name) else {
                let known = settings::names(Place::Pipeline);
                self.problem(Problem::UnknownPipelineSetting {
                    name: name.to_string(),
                    near: closest(name, known.iter().copied()).map(str::to_string),
                    settings: known,
                    task_setting: settings::find(Place::Task, name).is_some(),
                    at: loc(f, s.name.span),
                });
                continue;
            };
            if !seen.first(self.diags, f, s) {
                continue;
            }
            let at = loc(f, s.span);
            if let Some(store) = setting.store.pipeline {
                if let Some(v) = self.parsed(f, s, setting.shape) {
                    store(&mut def, v, at);
                }
                continue;
            }
            match setting.id {
                Id::Schedule => match s.args.as_slice() {
                    [Value::Ident(i)] if i.name == "none" => {}
                    _ => {
                        if let Some(text) = self.string_arg(f, s) {
                            match literal::parse_cron(&text) {
                                Ok(five) => {
                                    def.schedule = Some((text, five));
                                    def.schedule_loc = Some(at);
                                }
                                Err(error) => {
                                    def.schedule_invalid = true;
                                    self.problem(Problem::BadSchedule {
                                        error,
                                        at: loc(f, s.value_span()),
                                    });
                                }
                            }
                        }
                    }
                },
                Id::Timezone => {
                    if let Some(tz) = self.string_arg(f, s) {
                        match literal::check_timezone(&tz) {
                            Ok(()) => def.timezone = tz,
                            Err(error) => self.problem(Problem::BadTimezone {
                                error,
                                at: loc(f, s.value_span()),
                            }),
                        }
                    }
                }
                // A timeout written with a bad value still counts as a lease
                // written (FL002 says what is wrong; no FL503 on top); the
                // file has an error, so the value reaches no output.
                Id::Timeout => {
                    def.timeout = Some((self.lease_arg(f, s).unwrap_or(u64::MAX), at));
                }
                Id::Image => {
                    def.image = self.string_arg_raw(f, s).map(|st| {
                        self.check_image(f, &st);
                        st.value
                    });
                }
                Id::State => def.state = self.state_setting(f, s).map(|i| (i, at)),
                Id::ArgoPodGc => def.argo_pod_gc = self.pod_gc_arg(f, s),
                _ if setting.at(Place::Pod) => {
                    self.pod_setting(f, s, setting.id, &mut def.pod, &mut def.executor);
                }
                // `find` gives only the pipeline's settings.
                _ => {}
            }
        }
        def.params = self.pipeline_params(f, p, def.schedule_loc);
        let has_start = p.settings.iter().any(|s| s.name.name == "start");
        if def.schedule.is_some() && !has_start {
            self.problem(Problem::NoStart {
                pipeline: p.name.name.clone(),
                at: loc(f, p.name.span),
                schedule: loc(f, def.schedule_loc.map_or(p.name.span, |l| l.span)),
            });
        }
        def.allows = p
            .allows
            .iter()
            .filter_map(|a| self.allow(f, a, p.span))
            .collect();
        // A task declared twice is FL703 where it stands, and only its first
        // declaration is resolved.
        let mut task_names: HashMap<&str, Span> = HashMap::with_capacity(p.tasks.len());
        // (position among the pipeline's tasks, FL703) for each repeated name.
        let mut again: Vec<(usize, Problem)> = Vec::new();
        let mut first: Vec<&ast::Task> = Vec::with_capacity(p.tasks.len());
        // Not resolved, but what they name is used: no FL704 on top of FL703.
        let mut repeated: Vec<&ast::Task> = Vec::new();
        for (at, t) in p.tasks.iter().enumerate() {
            if let Some(prev) = task_names.get(t.name.name.as_str()) {
                again.push((
                    at,
                    Problem::DuplicateName {
                        namespace: Namespace::Task {
                            pipeline: p.name.name.clone(),
                        },
                        name: t.name.name.clone(),
                        first: loc(f, *prev),
                        again: loc(f, t.name.span),
                    },
                ));
                repeated.push(t);
                continue;
            }
            task_names.insert(&t.name.name, t.name.span);
            first.push(t);
        }
        self.mark_named_in(f, repeated);
        // Each task is resolved on its own, so a large pipeline's are spread
        // over the cores; every task's findings are then added in the order
        // of the file, as one thread would have.
        let names = self.names();
        let runs = crate::par::map_runs(&first, self.threads, 1000, |run| {
            let mut found = Vec::new();
            let mut r = Resolver {
                diags: &mut found,
                names,
                referenced: BTreeSet::new(),
                threads: 1,
            };
            // Each task with the number of findings so far, after it. Boxed,
            // so that gathering the runs moves pointers, not whole tasks.
            let tasks: Vec<(Box<TaskDef>, usize)> = run
                .iter()
                .map(|t| {
                    let task = Box::new(r.task(f, t));
                    (task, r.diags.len())
                })
                .collect();
            let referenced = r.referenced;
            (tasks, found, referenced)
        });
        let mut per_run = Vec::with_capacity(runs.len());
        for (tasks, found, referenced) in runs {
            self.referenced.extend(referenced);
            per_run.push((tasks, found));
        }
        // Every task resolved, in order, with its own findings.
        let mut resolved = per_run.into_iter().flat_map(|(tasks, found)| {
            let mut found = found.into_iter();
            let mut taken = 0;
            tasks.into_iter().map(move |(task, upto)| {
                let own: Vec<Problem> = found.by_ref().take(upto - taken).collect();
                taken = upto;
                (task, own)
            })
        });
        let mut again = again.into_iter().peekable();
        for at in 0..p.tasks.len() {
            if let Some((_, d)) = again.next_if(|(dup, _)| *dup == at) {
                self.problem(d);
            } else if let Some((task, found)) = resolved.next() {
                self.diags.extend(found);
                def.tasks.push(task);
            }
        }
        // `after` names tasks of this pipeline. The names in order, for the
        // suggestions, only once one is unknown.
        let mut sorted: Option<BTreeSet<&str>> = None;
        for t in &mut def.tasks {
            t.after.retain(|(name, at)| {
                if task_names.contains_key(name.as_str()) {
                    return true;
                }
                let known = sorted.get_or_insert_with(|| task_names.keys().copied().collect());
                self.diags.push(Problem::UnknownTask {
                    name: name.clone(),
                    pipeline: p.name.name.clone(),
                    near: closest(name, known.iter().copied()).map(str::to_string),
                    at: *at,
                });
                false
            });
        }
        def
    }

    /// A pipeline's `param NAME: TYPE` lines: each name once, a type that a
    /// trigger can give (`string`, `int`, `bool`, `duration`), and only in a
    /// manual pipeline (`schedule` at `schedule`, if any): a scheduled run
    /// has nobody to give the value.
    /// The parameter type written `ty`, or FL006 (with the closest type) for
    /// a word that names none.
    pub(super) fn param_type(&mut self, f: FileId, ty: &ast::Ident) -> Option<ParamType> {
        let found = ParamType::ALL.iter().find(|(w, _)| *w == ty.name);
        if found.is_none() {
            let words = ParamType::ALL.map(|(w, _)| w);
            self.problem(Problem::UnknownParamType {
                name: ty.name.clone(),
                near: closest(&ty.name, words).map(str::to_string),
                at: loc(f, ty.span),
            });
        }
        found.map(|(_, t)| *t)
    }

    pub(super) fn pipeline_params(
        &mut self,
        f: FileId,
        p: &ast::Pipeline,
        schedule: Option<Loc>,
    ) -> Vec<ParamDef> {
        let mut out: Vec<ParamDef> = Vec::new();
        // Keyed by the upper-cased name: a task sees each parameter as
        // `FLOW_PARAM_<NAME>`, so `month` and `Month` would be one variable.
        let mut seen: BTreeMap<String, (Span, &str)> = BTreeMap::new();
        for param in &p.params {
            let at = loc(f, param.span);
            if let Some((first, spelled)) = seen.get(&param.name.name.to_ascii_uppercase()) {
                self.problem(Problem::PipelineParamTwice {
                    param: param.name.name.clone(),
                    first_spelled: (*spelled != param.name.name).then(|| (*spelled).to_string()),
                    pipeline: p.name.name.clone(),
                    at,
                    first: loc(f, *first),
                });
                continue;
            }
            seen.insert(
                param.name.name.to_ascii_uppercase(),
                (param.span, &param.name.name),
            );
            if let Some(schedule) = schedule {
                self.problem(Problem::ParamOnSchedule {
                    param: param.name.name.clone(),
                    pipeline: p.name.name.clone(),
                    at,
                    schedule,
                });
                continue;
            }
            let Some(ty) = self.param_type(f, &param.ty) else {
                continue;
            };
            if ty == ParamType::Key {
                self.problem(Problem::KeyPipelineParam {
                    param: param.name.name.clone(),
                    at: loc(f, param.ty.span),
                });
                continue;
            }
            out.push(ParamDef {
                name: param.name.name.clone(),
                ty,
                optional: param.optional,
            });
        }
        out
    }

    pub(super) fn allow(&mut self, f: FileId, a: &ast::Allow, scope: Span) -> Option<AllowDef> {
        let code = a.code.name.as_str();
        let Some(known) = Code::lookup(code) else {
            self.problem(Problem::UnknownCode {
                code: code.to_string(),
                at: loc(f, a.code.span),
            });
            return None;
        };
        let reason = a
            .reason
            .as_ref()
            .map(|r| r.value.trim().to_string())
            .unwrap_or_default();
        if reason.is_empty() {
            self.problem(Problem::AllowWithoutReason {
                code: code.to_string(),
                at: loc(f, a.span),
            });
            return None;
        }
        Some(AllowDef {
            code: known,
            reason: a
                .reason
                .as_ref()
                .map(|r| r.value.clone())
                .unwrap_or_default(),
            loc: loc(f, a.span),
            scope,
        })
    }

    pub(super) fn lookup_decl(
        &mut self,
        f: FileId,
        name: &ast::Ident,
        what: &'static str,
    ) -> Option<usize> {
        let scope = self.names().decl_scope.get(&f)?;
        if let Some(&i) = scope.get(&name.name) {
            self.referenced.insert(i);
            return Some(i);
        }
        if self
            .names()
            .broken_scope
            .get(&f)
            .is_some_and(|b| b.contains(&name.name))
        {
            return None;
        }
        let near = closest(&name.name, scope.keys().map(String::as_str));
        self.problem(Problem::UnknownDecl {
            what,
            name: name.name.clone(),
            near: near.map(str::to_string),
            at: loc(f, name.span),
        });
        None
    }

    pub(super) fn role_mismatch(
        &mut self,
        f: FileId,
        name: &ast::Ident,
        decl: usize,
        stmt: &'static str,
        allowed: &[Role],
    ) -> bool {
        let d = &self.names().decls[decl];
        let kind = &self.names().kinds[d.kind_idx];
        // A sink can also be read through its kind's read capabilities, and a
        // source written through its kind's write capabilities: only effects,
        // and kinds without the role, are mismatches (docs/reference/guarantees.md, FL009).
        let ok = allowed.contains(&d.role)
            || (stmt == "read" && d.role == Role::Sink && kind.roles.contains(&Role::Source))
            || (stmt == "write" && d.role == Role::Source && kind.roles.contains(&Role::Sink));
        if ok {
            return false;
        }
        let (nl, kind_name, role) = (d.name_loc, kind.name.clone(), d.role);
        self.problem(Problem::RoleMismatch {
            stmt,
            name: name.name.clone(),
            role,
            kind: kind_name,
            at: loc(f, name.span),
            declared: nl,
        });
        true
    }

    // ---- state and readiness (flowc 0.2) --------------------------------------------

    /// `state NAME`: the sink that keeps the pipeline's state. An unknown
    /// name is FL702; a source, an effect, or a sink whose kind has no
    /// `state` line is FL009. The sink counts as used either way.
    pub(super) fn state_setting(&mut self, f: FileId, s: &ast::Setting) -> Option<usize> {
        let value = self.one(f, s, "the name of a sink")?;
        let Value::Ident(name) = value else {
            self.wrong_type(f, s, value, "the name of a sink", "warehouse");
            return None;
        };
        let index = self.lookup_decl(f, name, "sink")?;
        let names = self.names();
        let decl = &names.decls[index];
        let kind = &names.kinds[decl.kind_idx];
        if decl.role == Role::Sink && kind.state {
            return Some(index);
        }
        let mut stores: Vec<String> = names
            .decl_scope
            .get(&f)
            .into_iter()
            .flatten()
            .filter(|(_, &other)| {
                let other = &names.decls[other];
                other.role == Role::Sink && names.kinds[other.kind_idx].state
            })
            .map(|(n, _)| n.clone())
            .collect();
        stores.sort();
        let problem = Problem::StateNotStore {
            name: name.name.clone(),
            role: decl.role,
            kind: kind.name.clone(),
            at: loc(f, name.span),
            declared: decl.name_loc,
            stores,
        };
        self.problem(problem);
        None
    }

    /// A source's `ready marker "NAME"`, `ready nonempty` or `ready always`.
    pub(super) fn ready(
        &mut self,
        f: FileId,
        p: &ast::Setting,
        kind: &KindDef,
        decl: &str,
    ) -> Option<Ready> {
        let ready = match p.args.as_slice() {
            [Value::Ident(w)] if w.name == "always" => return Some(Ready::Always),
            [Value::Ident(w)] if w.name == "nonempty" => Ready::Nonempty,
            [Value::Ident(w), Value::Str(name)] if w.name == "marker" => {
                if name.value.is_empty() || name.value.contains(['/', '\\']) {
                    self.problem(Problem::BadReadyMarker {
                        at: loc(f, name.span),
                    });
                    return None;
                }
                Ready::Marker(name.value.clone())
            }
            _ => {
                self.problem(ready_wrong_value(f, p));
                return None;
            }
        };
        if !kind.pins.contains(&Pin::Listing) {
            self.problem(ready_not_listed(f, p, kind, decl, &ready));
            return None;
        }
        Some(ready)
    }
}
