//! Names and literals: from syntax trees to the resolved [`Program`].
//! Reports FL002–FL009, FL702, FL703 and FL706/FL707, all in one pass, so a
//! file's semantic errors all show in one run. It reports [`Problem`]s: typed
//! ones, which the driver words through their rule's file, and, for the rules
//! whose words have not moved there yet, findings built here.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::literal::{self, NumberKind};
use super::model::{
    AllowDef, DeclDef, EmitDef, KeyDef, KeyPartDef, KindDef, Loc, Lookback, ParamDef, PipelineDef,
    Program, ReadDef, Ready, Role, RunDef, TaskDef, ViaDef, WriteDef, WRITE_CAPS,
};
use super::pod::{Executor, PodDef, POD_SETTINGS};
use super::problem::{Clause, Namespace, Problem};
use crate::diagnostic::Code;
use crate::source::FileId;
use crate::span::Span;
use crate::suggest::closest;
use crate::syntax::ast::{self, Value};
use crate::vocab::{
    CommitMode, Guarantee, Mode, OnAmbiguous, ParamType, ParamValue, Pin, Term, ENUMERATED_PARAMS,
};

/// One parsed file of the run.
pub struct Unit<'a> {
    pub file: FileId,
    pub ast: &'a ast::File,
    pub stdlib: bool,
    /// Given on the command line: only these files' pipelines are part of the
    /// run (`use` makes declarations visible, not pipelines).
    pub root: bool,
    /// Files this one `use`s directly (each once).
    pub uses: Vec<FileId>,
}

impl<'a> Unit<'a> {
    /// The units of files parsed in the order the standard library's files,
    /// then one file of the user's: the last is the root, the others are
    /// the standard library, and none `use`s another. What a benchmark or a
    /// test of a single file needs.
    pub fn stdlib_then_root(asts: &'a [ast::File]) -> Vec<Unit<'a>> {
        let last = asts.len().saturating_sub(1);
        asts.iter()
            .enumerate()
            .map(|(i, ast)| Unit {
                file: FileId(i),
                ast,
                stdlib: i < last,
                root: i == last,
                uses: Vec::new(),
            })
            .collect()
    }
}

pub fn resolve(units: &[Unit<'_>], diags: &mut Vec<Problem>) -> Program {
    resolve_on(crate::par::cores(), units, diags)
}

/// [`resolve`] with the tasks of large pipelines on `threads` threads.
fn resolve_on(threads: usize, units: &[Unit<'_>], diags: &mut Vec<Problem>) -> Program {
    let mut r = Resolver {
        diags,
        names: Names::default(),
        referenced: BTreeSet::new(),
        threads,
    };
    r.kinds(units);
    r.decls(units);
    let (pipelines, files_with_pipelines) = r.pipelines(units);
    Program {
        kinds: r.names.kinds,
        decls: r.names.decls,
        pipelines,
        files_with_pipelines,
        referenced: r.referenced,
    }
}

/// The kinds and declarations of a run, and which names each file sees.
/// Built first, then only read: tasks are resolved against it on all cores.
#[derive(Default)]
struct Names {
    kinds: Vec<KindDef>,
    decls: Vec<DeclDef>,
    /// Per file: kind name -> index.
    kind_scope: HashMap<FileId, BTreeMap<String, usize>>,
    /// Per file: declaration name -> index.
    decl_scope: HashMap<FileId, BTreeMap<String, usize>>,
    /// Per file: names of declarations in scope that are declared but did
    /// not resolve (an unknown kind, say). Their own finding says why; a
    /// statement naming one gets no second finding.
    broken_scope: HashMap<FileId, BTreeSet<String>>,
}

/// `N` is [`Names`] while kinds and declarations are resolved, and `&Names`
/// on the threads that resolve tasks.
struct Resolver<'d, N = Names> {
    diags: &'d mut Vec<Problem>,
    names: N,
    /// Declarations some statement names (even one that is otherwise wrong).
    referenced: BTreeSet<usize>,
    /// Threads for the tasks of a large pipeline.
    threads: usize,
}

fn loc(file: FileId, span: Span) -> Loc {
    Loc { file, span }
}

/// The first declaration of each name in one file, with where its name is;
/// every later one is FL703.
fn first_of_each<'a, T>(
    diags: &mut Vec<Problem>,
    file: FileId,
    items: impl Iterator<Item = (&'a ast::Ident, T)>,
    namespace: &Namespace,
) -> Vec<(T, Loc)> {
    let mut seen: BTreeMap<&str, Loc> = BTreeMap::new();
    let mut out = Vec::new();
    for (name, item) in items {
        let at = loc(file, name.span);
        if let Some(prev) = seen.get(name.name.as_str()) {
            diags.push(Problem::DuplicateName {
                namespace: namespace.clone(),
                name: name.name.clone(),
                first: *prev,
                again: at,
            });
        } else {
            seen.insert(&name.name, at);
            out.push((item, at));
        }
    }
    out
}

/// Build a per-file scope from own and imported names, reporting clashes
/// (FL703) at the importing file's own declaration where there is one.
fn scope_for(
    unit: &Unit<'_>,
    own: &BTreeMap<FileId, Vec<(String, usize, Loc)>>,
    diags: &mut Vec<Problem>,
    shadowed: &mut Vec<usize>,
) -> BTreeMap<String, usize> {
    let mut scope: BTreeMap<String, (usize, Loc)> = BTreeMap::new();
    // Imported names first, then the file's own (duplicates among those were
    // reported where they were declared).
    let files = unit.uses.iter().chain(std::iter::once(&unit.file));
    for (name, idx, at) in files.flat_map(|f| own.get(f).into_iter().flatten()) {
        match scope.get(name) {
            Some((prev, prev_loc)) if prev != idx => {
                diags.push(Problem::DuplicateName {
                    namespace: Namespace::ImportedDecl,
                    name: name.clone(),
                    first: *prev_loc,
                    again: *at,
                });
                // Names bind to the first; the second is the FL703, not also unused.
                shadowed.push(*idx);
            }
            Some(_) => {}
            None => {
                scope.insert(name.clone(), (*idx, *at));
            }
        }
    }
    scope.into_iter().map(|(k, (i, _))| (k, i)).collect()
}

impl<N: std::borrow::Borrow<Names>> Resolver<'_, N> {
    fn problem(&mut self, p: Problem) {
        self.diags.push(p);
    }

    fn names(&self) -> &Names {
        self.names.borrow()
    }
}

impl Resolver<'_> {
    // ---- kinds ----------------------------------------------------------------

    fn kinds(&mut self, units: &[Unit<'_>]) {
        let mut own: BTreeMap<FileId, Vec<(String, usize, Loc)>> = BTreeMap::new();
        let mut stdlib_names = Vec::new();
        for u in units {
            let kinds = u.ast.items.iter().filter_map(|i| match i {
                ast::Item::Kind(k) => Some((&k.name, k)),
                _ => None,
            });
            for (k, at) in first_of_each(self.diags, u.file, kinds, &Namespace::Kind) {
                let def = self.kind(u, k);
                self.names.kinds.push(def);
                let idx = self.names.kinds.len() - 1;
                if u.stdlib {
                    stdlib_names.push((k.name.name.clone(), idx, at));
                } else {
                    own.entry(u.file)
                        .or_default()
                        .push((k.name.name.clone(), idx, at));
                }
            }
        }
        for u in units.iter().filter(|u| !u.stdlib) {
            // Stdlib kinds are always visible; a user kind may not reuse their names.
            let mut scope: BTreeMap<String, usize> = stdlib_names
                .iter()
                .map(|(n, i, _)| (n.clone(), *i))
                .collect();
            for (n, i, l) in own.get(&u.file).into_iter().flatten() {
                if let Some((_, _, sl)) = stdlib_names.iter().find(|(sn, _, _)| sn == n) {
                    self.problem(Problem::StdlibKindReused {
                        name: n.clone(),
                        stdlib: *sl,
                        again: *l,
                    });
                }
                scope.entry(n.clone()).or_insert(*i);
            }
            for used in &u.uses {
                for (n, i, l) in own.get(used).into_iter().flatten() {
                    match scope.get(n) {
                        Some(prev) if prev != i => {
                            // Found where it clashes: in this file, whose
                            // kind meets the imported one (as for sources,
                            // sinks and effects).
                            let own_loc = self.names.kinds[*prev].loc;
                            self.problem(Problem::DuplicateName {
                                namespace: Namespace::ImportedKind,
                                name: n.clone(),
                                first: *l,
                                again: own_loc,
                            });
                        }
                        Some(_) => {}
                        None => {
                            scope.insert(n.clone(), *i);
                        }
                    }
                }
            }
            self.names.kind_scope.insert(u.file, scope);
        }
        for u in units.iter().filter(|u| u.stdlib) {
            let scope = stdlib_names
                .iter()
                .map(|(n, i, _)| (n.clone(), *i))
                .collect();
            self.names.kind_scope.insert(u.file, scope);
        }
    }

    fn kind(&mut self, u: &Unit<'_>, k: &ast::KindDecl) -> KindDef {
        let f = u.file;
        let mut def = KindDef {
            name: k.name.name.clone(),
            loc: loc(f, k.name.span),
            stdlib: u.stdlib,
            roles: BTreeSet::new(),
            pins: BTreeSet::new(),
            writes: BTreeSet::new(),
            transactional: false,
            versioned: false,
            fenced: false,
            atomic: false,
            state: false,
            conditional_upsert: false,
            serialized_replace: false,
            lossy: false,
            idempotent_producer: false,
            unenforced_key: false,
            eventual_upsert: false,
            deduplicates_inserts: false,
            offsets: false,
            commits: BTreeSet::new(),
            first_commit: None,
            coordinator: None,
            idempotency_key: false,
            params: Vec::new(),
        };
        let mut seen = Seen::default();
        for line in &k.lines {
            let name = line.name.name.as_str();
            if !CAPS.contains(&name) {
                let mut all: Vec<&str> = CAPS.to_vec();
                all.push("param");
                self.problem(Problem::UnknownCapability {
                    name: name.to_string(),
                    kind: k.name.name.clone(),
                    near: closest(name, all.iter().copied()).map(str::to_string),
                    caps: &CAPS,
                    at: loc(f, line.name.span),
                });
                continue;
            }
            if !seen.first(self.diags, f, line) {
                continue;
            }
            match name {
                "transactional"
                | "versioned"
                | "offsets"
                | "fenced"
                | "atomic"
                | "state"
                | "conditional_upsert"
                | "serialized_replace"
                | "lossy"
                | "idempotent_producer"
                | "unenforced_key"
                | "eventual_upsert"
                | "deduplicates_inserts" => {
                    if let Some(v) = line.args.first() {
                        self.problem(Problem::TakesNoValue {
                            name: name.to_string(),
                            found: v.describe(),
                            at: loc(f, v.span()),
                        });
                    }
                    match name {
                        "transactional" => def.transactional = true,
                        "versioned" => def.versioned = true,
                        "fenced" => def.fenced = true,
                        "atomic" => def.atomic = true,
                        "state" => def.state = true,
                        "conditional_upsert" => def.conditional_upsert = true,
                        "serialized_replace" => def.serialized_replace = true,
                        "lossy" => def.lossy = true,
                        "idempotent_producer" => def.idempotent_producer = true,
                        "unenforced_key" => def.unenforced_key = true,
                        "eventual_upsert" => def.eventual_upsert = true,
                        "deduplicates_inserts" => def.deduplicates_inserts = true,
                        _ => def.offsets = true,
                    }
                }
                "coordinator" => def.coordinator = self.string_arg(f, line),
                "idempotency" => {
                    if let Some(w) = self.word_arg(f, line, &["none", "key"]) {
                        def.idempotency_key = w == "key";
                    }
                }
                "roles" => {
                    for w in self.word_list(f, line, &["source", "sink", "effect"]) {
                        def.roles.insert(match w.as_str() {
                            "source" => Role::Source,
                            "sink" => Role::Sink,
                            _ => Role::Effect,
                        });
                    }
                }
                "pins" => {
                    let words: Vec<&str> = Pin::ALL.iter().map(|(w, _)| *w).collect();
                    for w in self.word_list(f, line, &words) {
                        if let Some((_, p)) = Pin::ALL.iter().find(|(n, _)| *n == w) {
                            def.pins.insert(*p);
                        }
                    }
                }
                "writes" => {
                    for w in self.word_list(f, line, &WRITE_CAPS) {
                        def.writes.insert(w);
                    }
                }
                _ => {
                    let words: Vec<&str> = CommitMode::ALL.iter().map(|(w, _)| *w).collect();
                    for w in self.word_list(f, line, &words) {
                        if let Some((_, m)) = CommitMode::ALL.iter().find(|(n, _)| *n == w) {
                            def.commits.insert(*m);
                            def.first_commit.get_or_insert(*m);
                        }
                    }
                }
            }
        }
        let mut param_seen: BTreeMap<&str, Span> = BTreeMap::new();
        for p in &k.params {
            if let Some(prev) = param_seen.get(p.name.name.as_str()) {
                self.problem(Problem::ParamTwice {
                    param: p.name.name.clone(),
                    kind: k.name.name.clone(),
                    at: loc(f, p.span),
                    first: loc(f, *prev),
                });
                continue;
            }
            param_seen.insert(&p.name.name, p.span);
            let Some(ty) = self.param_type(f, &p.ty) else {
                continue;
            };
            def.params.push(ParamDef {
                name: p.name.name.clone(),
                ty,
                optional: p.optional,
            });
        }
        def
    }

    // ---- sources, sinks, effects ----------------------------------------------

    fn decls(&mut self, units: &[Unit<'_>]) {
        let mut own: BTreeMap<FileId, Vec<(String, usize, Loc)>> = BTreeMap::new();
        let mut broken: BTreeMap<FileId, Vec<String>> = BTreeMap::new();
        for u in units {
            let decls = u.ast.items.iter().filter_map(|i| match i {
                ast::Item::Decl(d) => Some((&d.name, d)),
                _ => None,
            });
            for (d, at) in first_of_each(self.diags, u.file, decls, &Namespace::Decl) {
                let Some(def) = self.decl(u, d) else {
                    broken.entry(u.file).or_default().push(d.name.name.clone());
                    continue;
                };
                self.names.decls.push(def);
                own.entry(u.file).or_default().push((
                    d.name.name.clone(),
                    self.names.decls.len() - 1,
                    at,
                ));
            }
        }
        for u in units {
            let mut shadowed = Vec::new();
            let scope = scope_for(u, &own, self.diags, &mut shadowed);
            self.referenced.extend(shadowed);
            let files = u.uses.iter().chain(std::iter::once(&u.file));
            let not_resolved: BTreeSet<String> = files
                .flat_map(|f| broken.get(f).into_iter().flatten())
                .filter(|name| !scope.contains_key(*name))
                .cloned()
                .collect();
            if !not_resolved.is_empty() {
                self.names.broken_scope.insert(u.file, not_resolved);
            }
            self.names.decl_scope.insert(u.file, scope);
        }
    }

    fn decl(&mut self, u: &Unit<'_>, d: &ast::Decl) -> Option<DeclDef> {
        let f = u.file;
        let known = self.names.kind_scope.get(&f);
        let Some(&kind_idx) = known.and_then(|scope| scope.get(&d.kind.name)) else {
            let near = closest(
                &d.kind.name,
                known
                    .into_iter()
                    .flat_map(|scope| scope.keys().map(String::as_str)),
            );
            let mut builtin: Vec<String> = self
                .names
                .kinds
                .iter()
                .filter(|k| k.stdlib && k.roles.contains(&d.role))
                .map(|k| k.name.clone())
                .collect();
            builtin.sort();
            builtin.dedup();
            self.problem(Problem::UnknownKind {
                name: d.kind.name.clone(),
                near: near.map(str::to_string),
                builtin,
                at: loc(f, d.kind.span),
            });
            return None;
        };
        let kind = self.names.kinds[kind_idx].clone();
        if !kind.roles.contains(&d.role) {
            self.problem(Problem::KindLacksRole {
                kind: kind.name.clone(),
                roles: kind.roles.iter().copied().collect(),
                role: d.role,
                at: loc(f, d.role_span),
                kind_at: loc(f, d.kind.span),
                kind_loc: kind.loc,
            });
        }
        let mut def = DeclDef {
            name: d.name.name.clone(),
            role: d.role,
            kind: kind.name.clone(),
            kind_idx,
            kind_loc: loc(f, d.kind.span),
            loc: loc(f, d.span),
            name_loc: loc(f, d.name.span),
            immutable: false,
            mutability_loc: None,
            pin: None,
            pin_loc: None,
            identity: None,
            identity_loc: None,
            identity_global: false,
            cursor: None,
            fields: None,
            commit: None,
            commit_loc: None,
            primary_key: None,
            primary_key_loc: None,
            coordinator: kind.coordinator.clone(),
            cluster: "default".into(),
            ready: None,
            secret: None,
            param_locs: BTreeMap::new(),
            params: BTreeMap::new(),
        };
        let mut seen = Seen::default();
        for p in &d.props {
            let name = p.name.name.as_str();
            let analysis = matches!(
                name,
                "immutable"
                    | "mutable"
                    | "pin"
                    | "identity"
                    | "cursor"
                    | "fields"
                    | "commit"
                    | "coordinator"
                    | "ready"
                    | "secret"
            );
            let param = kind.params.iter().find(|q| q.name == name);
            if !analysis && param.is_none() {
                let mut names: Vec<&str> = kind.params.iter().map(|q| q.name.as_str()).collect();
                names.extend(role_props(d.role));
                self.problem(Problem::UnknownProperty {
                    name: name.to_string(),
                    role: d.role,
                    decl: d.name.name.clone(),
                    kind: kind.name.clone(),
                    params: kind.params.iter().map(|q| q.name.clone()).collect(),
                    near: closest(name, names.iter().copied()).map(str::to_string),
                    at: loc(f, p.name.span),
                    kind_loc: kind.loc,
                });
                continue;
            }
            // `immutable` and `mutable` are one setting.
            let key = if name == "mutable" { "immutable" } else { name };
            if !seen.first_named(self.diags, f, key, p) {
                continue;
            }
            if analysis && !role_props(d.role).contains(&name) {
                self.problem(Problem::NotARoleProperty {
                    name: name.to_string(),
                    role: d.role,
                    props: role_props(d.role),
                    at: loc(f, p.name.span),
                });
                continue;
            }
            let at = loc(f, p.span);
            match name {
                "immutable" | "mutable" => {
                    if self.no_value(f, p) {
                        def.immutable = name == "immutable";
                        def.mutability_loc = Some(at);
                    }
                }
                "pin" => {
                    let mut words: Vec<&str> = Pin::ALL.iter().map(|(w, _)| *w).collect();
                    words.push("none");
                    if let Some(w) = self.word_arg(f, p, &words) {
                        def.pin = Some(Pin::ALL.iter().find(|(n, _)| *n == w).map(|(_, p)| *p));
                        def.pin_loc = Some(at);
                    }
                }
                "identity" => {
                    // `identity (F, ...) global` (flowc 0.3): unique across
                    // every interval, so a key holding it never recurs.
                    let global =
                        matches!(p.args.as_slice(), [_, Value::Ident(g)] if g.name == "global");
                    let trimmed;
                    let p = if global {
                        trimmed = ast::Setting {
                            name: p.name.clone(),
                            args: p.args[..1].to_vec(),
                            span: p.span,
                        };
                        &trimmed
                    } else {
                        p
                    };
                    if let Some(fields) = self.fields_arg(f, p, true) {
                        def.identity_global = global && !fields.is_empty();
                        def.identity = Some(fields);
                        def.identity_loc = Some(at);
                    }
                }
                "cursor" => match p.args.as_slice() {
                    [Value::Ident(c)] => def.cursor = Some((c.name.clone(), false, at)),
                    [Value::Ident(c), Value::Ident(u)] if u.name == "unique" => {
                        def.cursor = Some((c.name.clone(), true, at));
                    }
                    [] => self.problem(Problem::NeedsValue {
                        setting: "cursor".to_string(),
                        expected: "a column, then `unique` if no two rows share a value"
                            .to_string(),
                        at: loc(f, p.name.span),
                    }),
                    [_, rest @ ..] if !matches!(rest, [Value::Ident(_)]) || rest.len() > 1 => {
                        let span = rest[0].span().to(rest[rest.len() - 1].span());
                        self.problem(Problem::TakesOneValue {
                            setting: "cursor".to_string(),
                            expected: "a column, then `unique` if no two rows share a value"
                                .to_string(),
                            at: loc(f, span),
                        });
                    }
                    [other, ..] => {
                        self.wrong_type(
                            f,
                            p,
                            other,
                            "a column, then `unique`",
                            "cursor updated_at",
                        );
                    }
                },
                "fields" => {
                    if let Some(fields) = self.list_of_names(f, p) {
                        def.fields = Some(fields);
                    }
                }
                "commit" => {
                    let words: Vec<&str> = CommitMode::ALL.iter().map(|(w, _)| *w).collect();
                    if let Some(w) = self.word_arg(f, p, &words) {
                        if kind.offsets {
                            def.commit = CommitMode::ALL
                                .iter()
                                .find(|(n, _)| *n == w)
                                .map(|(_, m)| *m);
                            def.commit_loc = Some(at);
                            if let Some(m) = def.commit.filter(|m| !kind.commits.contains(m)) {
                                self.problem(commit_not_offered(
                                    f,
                                    p.args.first().map_or(p.span, ast::Value::span),
                                    &kind,
                                    m,
                                ));
                            }
                        } else {
                            self.problem(Problem::CommitWithoutOffsets {
                                kind: kind.name.clone(),
                                decl: d.name.name.clone(),
                                at: loc(f, p.name.span),
                            });
                        }
                    }
                }
                "coordinator" => {
                    if let Some(s) = self.string_arg(f, p) {
                        def.cluster = s;
                    }
                }
                "ready" => def.ready = self.ready(f, p, &kind, &d.name.name).map(|r| (r, at)),
                "secret" => {
                    if let Some(s) = self.string_arg_raw(f, p) {
                        if self.pod_value(f, "secret", &s, super::pod::dns_subdomain) {
                            def.secret = Some((s.value, at));
                        }
                    }
                }
                _ => {
                    let Some(param) = param else { continue };
                    if let Some(v) = self.param_value(f, p, param) {
                        if kind.stdlib
                            && !(self.allowed_value(f, p, &kind.name, name, &v)
                                && self.system_name(f, p, &kind.name, name, &v))
                        {
                            continue;
                        }
                        if name == "primary_key" {
                            if let ParamValue::Fields(fs) = &v {
                                def.primary_key = Some(fs.clone());
                                def.primary_key_loc = Some(at);
                            }
                        }
                        def.params.insert(name.to_string(), v);
                        def.param_locs
                            .insert(name.to_string(), loc(f, p.value_span()));
                    }
                }
            }
        }
        let missing: Vec<&ParamDef> = kind
            .params
            .iter()
            .filter(|q| !q.optional && !d.props.iter().any(|p| p.name.name == q.name))
            .collect();
        for q in missing {
            self.problem(Problem::MissingParameter {
                role: d.role,
                decl: d.name.name.clone(),
                param: q.name.clone(),
                ty: q.ty,
                kind: kind.name.clone(),
                at: loc(f, d.name.span),
                kind_loc: kind.loc,
            });
        }
        if d.role == Role::Source && def.pin.is_none() && def.immutable {
            // An immutable source needs no pin; nothing to default.
        }
        Some(def)
    }

    /// Whether `value` of the standard kind `kind`'s parameter `param` is one
    /// its `ENUMERATED_PARAMS` entry allows (FL002 where it is not).
    fn allowed_value(
        &mut self,
        f: FileId,
        p: &ast::Setting,
        kind: &str,
        param: &str,
        value: &ParamValue,
    ) -> bool {
        let Some((_, _, allowed)) = ENUMERATED_PARAMS
            .iter()
            .find(|(k, q, _)| *k == kind && *q == param)
        else {
            return true;
        };
        let ParamValue::String(text) = value else {
            return true;
        };
        if allowed.contains(&text.as_str()) {
            return true;
        }
        let at = p.args.first().map_or(p.name.span, Value::span);
        self.problem(Problem::NotAllowedValue {
            kind: kind.to_string(),
            param: param.to_string(),
            value: text.clone(),
            allowed,
            at: loc(f, at),
        });
        false
    }

    /// Whether `value` of the standard kind `kind`'s parameter `param` is a
    /// name its system accepts, where flowc knows the system's rule (a
    /// Kafka topic, an Iceberg table identifier): FL002 where it is not.
    fn system_name(
        &mut self,
        f: FileId,
        p: &ast::Setting,
        kind: &str,
        param: &str,
        value: &ParamValue,
    ) -> bool {
        let ParamValue::String(text) = value else {
            return true;
        };
        let why = match (kind, param) {
            ("kafka_topic", "topic") => literal::kafka_topic(text),
            ("iceberg_table", "table") => literal::iceberg_identifier(text),
            _ => return true,
        };
        let Err(why) = why else {
            return true;
        };
        let at = p.args.first().map_or(p.name.span, Value::span);
        self.problem(Problem::BadSystemName {
            kind: kind.to_string(),
            param: param.to_string(),
            value: text.clone(),
            why,
            at: loc(f, at),
        });
        false
    }

    fn param_value(&mut self, f: FileId, p: &ast::Setting, param: &ParamDef) -> Option<ParamValue> {
        match param.ty {
            ParamType::String => {
                let s = self.string_arg_raw(f, p)?;
                match literal::template(&s) {
                    Ok(template) if matches!(param.name.as_str(), "path" | "location") => {
                        if let Some(text) = literal::absolute_rendering(&template) {
                            self.problem(Problem::BadPlaceholder {
                                error: literal::PlaceholderError::AbsoluteRendering { text },
                                at: loc(f, s.span),
                            });
                            return None;
                        }
                        Some(ParamValue::String(template))
                    }
                    Ok(template) => Some(ParamValue::String(template)),
                    Err(bad) => {
                        for (span, error) in bad {
                            self.problem(Problem::BadPlaceholder {
                                error,
                                at: loc(f, span),
                            });
                        }
                        None
                    }
                }
            }
            ParamType::Int => self.int_arg(f, p).map(|n| ParamValue::Int(u64::from(n))),
            ParamType::Duration => self.duration_arg(f, p).map(ParamValue::Int),
            ParamType::Bool => self.bool_arg(f, p).map(ParamValue::Bool),
            ParamType::Key => self.fields_arg(f, p, false).map(ParamValue::Fields),
        }
    }
}

impl<N: std::borrow::Borrow<Names>> Resolver<'_, N> {
    // ---- pipelines ----------------------------------------------------------------

    fn pipelines(&mut self, units: &[Unit<'_>]) -> (Vec<PipelineDef>, BTreeSet<FileId>) {
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
    fn mark_named_in<'t>(&mut self, f: FileId, tasks: impl IntoIterator<Item = &'t ast::Task>) {
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

    fn pipeline(&mut self, f: FileId, p: &ast::Pipeline) -> PipelineDef {
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
            if !SETTINGS.contains(&name) {
                self.problem(Problem::UnknownPipelineSetting {
                    name: name.to_string(),
                    near: closest(name, SETTINGS).map(str::to_string),
                    settings: &SETTINGS,
                    task_setting: TASK_SETTINGS.contains(&name),
                    at: loc(f, s.name.span),
                });
                continue;
            }
            if !seen.first(self.diags, f, s) {
                continue;
            }
            let at = loc(f, s.span);
            match name {
                "schedule" => match s.args.as_slice() {
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
                "start" => {
                    if let Some(d) = self.date_arg(f, s) {
                        def.start = Some(d);
                    }
                }
                "timezone" => {
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
                "catchup" => {
                    if let Some(b) = self.bool_arg(f, s) {
                        def.catchup = b;
                        def.catchup_loc = Some(at);
                    }
                }
                "retries" => def.retries = self.int_arg(f, s).map(|n| (n, at)),
                "retry_delay" => def.retry_delay = self.duration_arg(f, s),
                // A timeout written with a bad value still counts as a lease
                // written (FL002 says what is wrong; no FL503 on top); the
                // file has an error, so the value reaches no output.
                "timeout" => {
                    def.timeout = Some((self.lease_arg(f, s).unwrap_or(u64::MAX), at));
                }
                "image" => {
                    def.image = self.string_arg_raw(f, s).map(|st| {
                        self.check_image(f, &st);
                        st.value
                    });
                }
                "state" => def.state = self.state_setting(f, s).map(|i| (i, at)),
                "argo_ttl" => def.argo_ttl = self.duration_arg(f, s),
                "argo_pod_gc" => def.argo_pod_gc = self.pod_gc_arg(f, s),
                n if POD_SETTINGS.contains(&n) => {
                    self.pod_setting(f, s, &mut def.pod, &mut def.executor);
                }
                _ => def.require = self.guarantee_arg(f, s).map(|g| (g, at)),
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
    fn param_type(&mut self, f: FileId, ty: &ast::Ident) -> Option<ParamType> {
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

    fn pipeline_params(
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

    fn allow(&mut self, f: FileId, a: &ast::Allow, scope: Span) -> Option<AllowDef> {
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

    fn lookup_decl(&mut self, f: FileId, name: &ast::Ident, what: &'static str) -> Option<usize> {
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

    fn role_mismatch(
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

    fn task(&mut self, f: FileId, t: &ast::Task) -> TaskDef {
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

    fn task_setting(&mut self, f: FileId, s: &ast::Setting, def: &mut TaskDef, seen: &mut Seen) {
        let name = s.name.name.as_str();
        if !TASK_SETTINGS.contains(&name) {
            let mut words: Vec<&str> = TASK_SETTINGS.to_vec();
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
        }
        if !seen.first(self.diags, f, s) {
            return;
        }
        let at = loc(f, s.span);
        match name {
            "retries" => def.retries = self.int_arg(f, s).map(|n| (n, at)),
            "internal_retries" => def.internal_retries = self.int_arg(f, s).map(|n| (n, at)),
            "retry_delay" => def.retry_delay = self.duration_arg(f, s),
            // As for the pipeline's: a bad value still counts as written.
            "timeout" => def.timeout = Some((self.lease_arg(f, s).unwrap_or(u64::MAX), at)),
            "nondeterministic" => {
                if self.no_value(f, s) {
                    def.nondeterministic = Some(at);
                }
            }
            "on_ambiguous" => {
                let words = OnAmbiguous::ALL.map(|(w, _)| w);
                if let Some(o) = self
                    .word_arg(f, s, &words)
                    .and_then(|w| OnAmbiguous::from_word(&w))
                {
                    def.on_ambiguous = Some((o, at));
                }
            }
            n if POD_SETTINGS.contains(&n) => {
                self.pod_setting(f, s, &mut def.pod, &mut def.executor);
            }
            _ => def.require = self.guarantee_arg(f, s).map(|g| (g, at)),
        }
    }

    fn read(&mut self, f: FileId, r: &ast::Read) -> Option<ReadDef> {
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
    fn cursor_clauses(&mut self, f: FileId, r: &ast::Read, rd: &mut ReadDef) {
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

    fn write(&mut self, f: FileId, w: &ast::Write) -> Option<WriteDef> {
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

    fn emit(&mut self, f: FileId, e: &ast::Emit) -> Option<EmitDef> {
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

    fn key(&mut self, f: FileId, k: &ast::KeyExpr) -> Option<KeyDef> {
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

    fn key_part(&mut self, f: FileId, p: &ast::KeyPart) -> Option<KeyPartDef> {
        let term = self.term(f, &p.term)?;
        Some(KeyPartDef {
            column: p.column.as_ref().map(|c| c.name.clone()),
            term,
            // Findings about a part are about its term: `input.zz`, not `id = input.zz`.
            loc: loc(f, p.term.span),
        })
    }

    fn term(&mut self, f: FileId, t: &ast::TermExpr) -> Option<Term> {
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

    // ---- state and readiness (flowc 0.2) --------------------------------------------

    /// `state NAME`: the sink that keeps the pipeline's state. An unknown
    /// name is FL702; a source, an effect, or a sink whose kind has no
    /// `state` line is FL009. The sink counts as used either way.
    fn state_setting(&mut self, f: FileId, s: &ast::Setting) -> Option<usize> {
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
    fn ready(&mut self, f: FileId, p: &ast::Setting, kind: &KindDef, decl: &str) -> Option<Ready> {
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

    // ---- value helpers ------------------------------------------------------------

    fn one<'v>(&mut self, f: FileId, s: &'v ast::Setting, expected: &str) -> Option<&'v Value> {
        match s.args.as_slice() {
            [v] => Some(v),
            [] => {
                self.problem(Problem::NeedsValue {
                    setting: s.name.name.clone(),
                    expected: expected.to_string(),
                    at: loc(f, s.name.span),
                });
                None
            }
            [_, rest @ ..] => {
                let span = rest[0].span().to(rest[rest.len() - 1].span());
                self.problem(Problem::TakesOneValue {
                    setting: s.name.name.clone(),
                    expected: expected.to_string(),
                    at: loc(f, span),
                });
                None
            }
        }
    }

    fn wrong_type(
        &mut self,
        f: FileId,
        s: &ast::Setting,
        v: &Value,
        expected: &str,
        example: &str,
    ) {
        self.problem(Problem::WrongType {
            setting: s.name.name.clone(),
            expected: expected.to_string(),
            found: v.describe(),
            example: example.to_string(),
            at: loc(f, v.span()),
        });
    }

    /// A number token checked for FL002 and then for the expected kind.
    fn number(
        &mut self,
        f: FileId,
        s: &ast::Setting,
        want: NumberKind,
        expected: &str,
        example: &'static str,
    ) -> Option<String> {
        let v = self.one(f, s, expected)?;
        let Value::Number(n) = v else {
            self.wrong_type(f, s, v, expected, example);
            return None;
        };
        match literal::classify(&n.name) {
            Err(error) => {
                self.problem(Problem::BadNumber {
                    setting: s.name.name.clone(),
                    example,
                    error,
                    at: loc(f, n.span),
                });
                None
            }
            Ok(kind) if kind == want => Some(n.name.clone()),
            Ok(NumberKind::Int) if want == NumberKind::Duration => {
                self.problem(Problem::BareNumber {
                    number: n.name.clone(),
                    at: loc(f, n.span),
                });
                None
            }
            Ok(_) => {
                self.wrong_type(f, s, v, expected, example);
                None
            }
        }
    }

    fn int_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<u32> {
        self.number(f, s, NumberKind::Int, "an integer", "3")
            .and_then(|t| literal::parse_int(&t).ok())
    }

    fn duration_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<u64> {
        self.number(f, s, NumberKind::Duration, "a duration", "30m")
            .and_then(|t| literal::parse_duration(&t).ok())
    }

    /// A duration that is a lease (`timeout`): zero is FL002, since a lease
    /// of no time lets no attempt run (flowc 0.2).
    fn lease_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<u64> {
        let d = self.duration_arg(f, s)?;
        if d == 0 {
            self.problem(Problem::ZeroLease {
                setting: s.name.name.clone(),
                at: loc(f, s.value_span()),
            });
            return None;
        }
        Some(d)
    }

    fn date_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<String> {
        self.number(f, s, NumberKind::Date, "a date", "2026-01-01")
    }

    fn bool_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<bool> {
        let v = self.one(f, s, "`true` or `false`")?;
        match v {
            Value::Ident(i) if i.name == "true" => Some(true),
            Value::Ident(i) if i.name == "false" => Some(false),
            _ => {
                self.wrong_type(f, s, v, "`true` or `false`", "true");
                None
            }
        }
    }

    fn string_arg_raw(&mut self, f: FileId, s: &ast::Setting) -> Option<ast::Str> {
        let v = self.one(f, s, "a string")?;
        if let Value::Str(st) = v {
            Some(st.clone())
        } else {
            self.wrong_type(f, s, v, "a string", "\"...\"");
            None
        }
    }

    /// FL002 for an image name that is empty or only blanks: no scheduler
    /// can pull it (Airflow's operator fails to import, Argo's pod never starts).
    fn check_image(&mut self, f: FileId, image: &ast::Str) {
        if image.value.trim().is_empty() {
            self.problem(Problem::EmptyImage {
                at: loc(f, image.span),
            });
        }
    }

    /// FL002 unless `check` accepts `s` (a value of `setting`).
    fn pod_value(
        &mut self,
        f: FileId,
        setting: &str,
        s: &ast::Str,
        check: fn(&str) -> Result<(), String>,
    ) -> bool {
        match check(&s.value) {
            Ok(()) => true,
            Err(why) => {
                self.problem(Problem::BadPodValue {
                    setting: setting.to_owned(),
                    value: s.value.clone(),
                    why,
                    at: loc(f, s.span),
                });
                false
            }
        }
    }

    /// `{ KEY "value" ... }`: the entries, FL007 for a key given twice.
    fn map_arg(
        &mut self,
        f: FileId,
        s: &ast::Setting,
        example: &str,
    ) -> Option<Vec<(ast::Str, ast::Str)>> {
        let v = self.one(f, s, "a block")?;
        let Value::Map(entries, _) = v else {
            self.wrong_type(f, s, v, "a block", example);
            return None;
        };
        let mut out: Vec<(ast::Str, ast::Str)> = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            if let Some((first, _)) = out.iter().find(|(o, _)| o.value == k.value) {
                self.problem(Problem::SettingTwice {
                    first_word: k.value.clone(),
                    word: k.value.clone(),
                    at: loc(f, k.span),
                    first: loc(f, first.span),
                });
                continue;
            }
            out.push((k.clone(), v.clone()));
        }
        Some(out)
    }

    /// One pod setting (`POD_SETTINGS`) of a pipeline or task.
    fn pod_setting(
        &mut self,
        f: FileId,
        s: &ast::Setting,
        pod: &mut PodDef,
        executor: &mut Option<Executor>,
    ) {
        use super::pod;
        match s.name.name.as_str() {
            "namespace" => {
                if let Some(v) = self.string_arg_raw(f, s) {
                    if self.pod_value(f, "namespace", &v, pod::dns_label) {
                        pod.namespace = Some(v.value);
                    }
                }
            }
            "service_account" => {
                if let Some(v) = self.string_arg_raw(f, s) {
                    if self.pod_value(f, "service_account", &v, pod::dns_subdomain) {
                        pod.service_account = Some(v.value);
                    }
                }
            }
            "image_pull_policy" => {
                if let Some(v) = self.string_arg_raw(f, s) {
                    let known = |p: &str| {
                        if pod::PULL_POLICIES.contains(&p) {
                            Ok(())
                        } else {
                            Err("Kubernetes knows `Always`, `IfNotPresent` and `Never`".to_owned())
                        }
                    };
                    if self.pod_value(f, "image_pull_policy", &v, known) {
                        pod.image_pull_policy = Some(v.value);
                    }
                }
            }
            "resources" => {
                let Some(entries) = self.map_arg(f, s, "{ cpu \"500m\" memory \"1Gi\" }") else {
                    return;
                };
                for (k, v) in entries {
                    type Check = fn(&str) -> Result<(), String>;
                    let (check, slot): (Check, _) = match k.value.as_str() {
                        "cpu" => (|q| pod::quantity(q, false), &mut pod.cpu),
                        "memory" => (|q| pod::quantity(q, true), &mut pod.memory),
                        _ => {
                            self.problem(Problem::BadPodValue {
                                setting: "resources".to_owned(),
                                value: k.value.clone(),
                                why: "`resources` takes `cpu` and `memory`".to_owned(),
                                at: loc(f, k.span),
                            });
                            continue;
                        }
                    };
                    let name = k.value.clone();
                    if self.pod_value(f, &name, &v, check) {
                        *slot = Some(v.value);
                    }
                }
            }
            "labels" | "annotations" => {
                let labels = s.name.name == "labels";
                let Some(entries) = self.map_arg(f, s, "{ team \"billing\" }") else {
                    return;
                };
                let what = if labels { "label" } else { "annotation" };
                let mut out = Vec::with_capacity(entries.len());
                for (k, v) in entries {
                    let key_ok = self.pod_value(f, what, &k, pod::metadata_key);
                    let value_ok =
                        !labels || self.pod_value(f, "label value", &v, pod::label_value);
                    if key_ok && value_ok {
                        out.push((k.value, v.value));
                    }
                }
                out.sort();
                if labels {
                    pod.labels = out;
                } else {
                    pod.annotations = out;
                }
            }
            _ => {
                let words = Executor::ALL.map(|(w, _)| w);
                if let Some(w) = self.word_arg(f, s, &words) {
                    *executor = Executor::ALL.iter().find(|(n, _)| *n == w).map(|(_, e)| *e);
                }
            }
        }
    }

    /// `argo_pod_gc "STRATEGY"` or `argo_pod_gc none`.
    fn pod_gc_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<String> {
        if let [Value::Ident(i)] = s.args.as_slice() {
            if i.name == "none" {
                return Some("none".to_owned());
            }
        }
        let v = self.string_arg_raw(f, s)?;
        let known = |g: &str| {
            if super::pod::POD_GC.contains(&g) {
                Ok(())
            } else {
                Err("Argo knows `OnPodCompletion`, `OnPodSuccess`, `OnWorkflowCompletion` and `OnWorkflowSuccess`".to_owned())
            }
        };
        self.pod_value(f, "argo_pod_gc", &v, known)
            .then_some(v.value)
    }

    fn string_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<String> {
        self.string_arg_raw(f, s).map(|s| s.value)
    }

    fn word_arg(&mut self, f: FileId, s: &ast::Setting, words: &[&str]) -> Option<String> {
        let list = words
            .iter()
            .map(|w| format!("`{w}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let v = self.one(f, s, &format!("one of {list}"))?;
        match v {
            Value::Ident(i) if words.contains(&i.name.as_str()) => Some(i.name.clone()),
            Value::Ident(i) => {
                self.problem(not_a_value(f, s, i, words, true));
                None
            }
            _ => {
                self.wrong_type(
                    f,
                    s,
                    v,
                    &format!("one of {list}"),
                    words.first().copied().unwrap_or(""),
                );
                None
            }
        }
    }

    /// `a, b` or `[a, b]`, each a listed word.
    fn word_list(&mut self, f: FileId, s: &ast::Setting, words: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        let mut items: Vec<&Value> = Vec::new();
        for v in &s.args {
            match v {
                Value::List(vs, _) | Value::Tuple(vs, _) => items.extend(vs),
                other => items.push(other),
            }
        }
        for v in items {
            match v {
                Value::Ident(i) if words.contains(&i.name.as_str()) => out.push(i.name.clone()),
                Value::Ident(i) => self.problem(not_a_value(f, s, i, words, false)),
                other => {
                    self.wrong_type(f, s, other, "names", words.first().copied().unwrap_or(""));
                }
            }
        }
        out
    }

    /// A key-typed value: a field or a tuple of fields (or `none` when allowed).
    fn fields_arg(&mut self, f: FileId, s: &ast::Setting, allow_none: bool) -> Option<Vec<String>> {
        let v = self.one(f, s, "a field or a tuple of fields")?;
        match v {
            Value::Ident(i) if allow_none && i.name == "none" => Some(Vec::new()),
            Value::Ident(i) => Some(vec![i.name.clone()]),
            Value::Tuple(vs, _) => {
                let mut out = Vec::new();
                for x in vs {
                    match x {
                        Value::Ident(i) => out.push(i.name.clone()),
                        other => {
                            self.wrong_type(f, s, other, "field names", "(a, b)");
                            return None;
                        }
                    }
                }
                Some(out)
            }
            other => {
                self.wrong_type(
                    f,
                    s,
                    other,
                    "a field or a tuple of fields",
                    "(customer_id, day)",
                );
                None
            }
        }
    }

    fn list_of_names(&mut self, f: FileId, s: &ast::Setting) -> Option<Vec<String>> {
        let v = self.one(f, s, "a list of field names")?;
        let Value::List(vs, _) = v else {
            if let Value::Ident(i) = v {
                return Some(vec![i.name.clone()]);
            }
            self.wrong_type(f, s, v, "a list of field names", "[order_id, amount]");
            return None;
        };
        let mut out = Vec::new();
        for x in vs {
            match x {
                Value::Ident(i) => out.push(i.name.clone()),
                other => {
                    self.wrong_type(f, s, other, "field names", "[order_id, amount]");
                    return None;
                }
            }
        }
        Some(out)
    }

    fn guarantee_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<Guarantee> {
        let words = Guarantee::ALL.map(|(w, _)| w);
        let w = self.word_arg(f, s, &words)?;
        Guarantee::ALL
            .iter()
            .find(|(n, _)| *n == w)
            .map(|(_, g)| *g)
    }

    /// A guarantee in a `require` clause.
    fn guarantee_word(&mut self, f: FileId, id: &ast::Ident) -> Option<Guarantee> {
        if let Some((_, g)) = Guarantee::ALL.iter().find(|(w, _)| *w == id.name) {
            return Some(*g);
        }
        self.problem(Problem::NotAGuarantee {
            name: id.name.clone(),
            near: closest(&id.name, Guarantee::ALL.map(|(w, _)| w)).map(str::to_string),
            at: loc(f, id.span),
        });
        None
    }

    fn no_value(&mut self, f: FileId, s: &ast::Setting) -> bool {
        if let Some(v) = s.args.first() {
            self.problem(Problem::TakesNoValue {
                name: s.name.name.clone(),
                found: v.describe(),
                at: loc(f, v.span()),
            });
            return false;
        }
        true
    }
}

/// Capability lines of a kind.
const CAPS: [&str; 19] = [
    "roles",
    "pins",
    "writes",
    "transactional",
    "atomic",
    "versioned",
    "fenced",
    "state",
    "offsets",
    "commits",
    "coordinator",
    "idempotency",
    "conditional_upsert",
    "serialized_replace",
    "lossy",
    "idempotent_producer",
    "unenforced_key",
    "eventual_upsert",
    "deduplicates_inserts",
];

/// Settings of a pipeline.
const SETTINGS: [&str; 19] = [
    "schedule",
    "start",
    "timezone",
    "catchup",
    "retries",
    "retry_delay",
    "timeout",
    "image",
    "require",
    "state",
    "namespace",
    "service_account",
    "resources",
    "labels",
    "annotations",
    "image_pull_policy",
    "airflow_executor",
    "argo_ttl",
    "argo_pod_gc",
];

/// Settings of a task (besides its statements).
const TASK_SETTINGS: [&str; 14] = [
    "retries",
    "internal_retries",
    "retry_delay",
    "timeout",
    "nondeterministic",
    "on_ambiguous",
    "require",
    "namespace",
    "service_account",
    "resources",
    "labels",
    "annotations",
    "image_pull_policy",
    "airflow_executor",
];

pub fn role_props(role: Role) -> &'static [&'static str] {
    match role {
        Role::Source => &[
            "immutable",
            "mutable",
            "pin",
            "identity",
            "cursor",
            "fields",
            "commit",
            "coordinator",
            "ready",
            "secret",
        ],
        Role::Sink => &["fields", "coordinator", "secret"],
        Role::Effect => &["secret"],
    }
}

/// Settings seen in one block, for FL007.
#[derive(Default)]
struct Seen {
    /// Setting -> where it was first set, and the word that set it.
    at: BTreeMap<String, (Span, String)>,
}

impl Seen {
    fn first(&mut self, diags: &mut Vec<Problem>, f: FileId, s: &ast::Setting) -> bool {
        self.first_named(diags, f, &s.name.name, s)
    }

    /// Record `key`; report FL007 and return false when it was seen before.
    fn first_named(
        &mut self,
        diags: &mut Vec<Problem>,
        f: FileId,
        key: &str,
        s: &ast::Setting,
    ) -> bool {
        if let Some((prev, word)) = self.at.get(key) {
            diags.push(Problem::SettingTwice {
                first_word: word.clone(),
                word: s.name.name.clone(),
                at: loc(f, s.span),
                first: loc(f, *prev),
            });
            return false;
        }
        self.at
            .insert(key.to_string(), (s.span, s.name.name.clone()));
        true
    }
}

/// FL006: `ready` with a value other than `marker "NAME"`, `nonempty` or `always`.
fn ready_wrong_value(f: FileId, s: &ast::Setting) -> Problem {
    let (span, found) = match s.args.as_slice() {
        [] => (s.name.span, "nothing".to_string()),
        [Value::Ident(w)] if w.name == "marker" => (
            w.span,
            "`marker` without the marker's file name".to_string(),
        ),
        [first, .., last] => (first.span().to(last.span()), describe_args(&s.args)),
        [one] => (one.span(), describe_args(&s.args)),
    };
    Problem::ReadyWrongValue {
        found,
        at: loc(f, span),
    }
}

/// What a setting's values are, for a message.
fn describe_args(args: &[Value]) -> String {
    match args {
        [Value::Ident(w)] => format!("`{}`", w.name),
        [one] => one.describe().to_string(),
        _ => format!("{} values", args.len()),
    }
}

/// FL003: `ready marker` or `ready nonempty` on a source whose kind lists no files.
fn ready_not_listed(
    f: FileId,
    s: &ast::Setting,
    kind: &KindDef,
    decl: &str,
    ready: &Ready,
) -> Problem {
    let span = s.args.first().map_or(s.span, |first| {
        first
            .span()
            .to(s.args.last().map_or(first.span(), Value::span))
    });
    Problem::ReadyNotListed {
        word: ready.word(),
        decl: decl.to_owned(),
        kind: kind.name.clone(),
        kind_at: kind.loc,
        at: loc(f, span),
    }
}

/// FL003: a commit mode the kind does not list in `commits`.
fn commit_not_offered(f: FileId, span: Span, kind: &KindDef, mode: CommitMode) -> Problem {
    Problem::CommitNotOffered {
        kind: kind.name.clone(),
        mode,
        offered: kind.commits.iter().copied().collect(),
        at: loc(f, span),
        kind_loc: kind.loc,
    }
}

/// FL006: the word `i` of the setting `s`, none of `words`; `one_of` when
/// `s` takes one of them.
fn not_a_value(
    f: FileId,
    s: &ast::Setting,
    i: &ast::Ident,
    words: &[&str],
    one_of: bool,
) -> Problem {
    Problem::NotAValue {
        value: i.name.clone(),
        setting: s.name.name.clone(),
        words: words.iter().map(|w| (*w).to_string()).collect(),
        one_of,
        near: closest(&i.name, words.iter().copied()).map(str::to_string),
        at: loc(f, i.span),
    }
}

/// The first of a statement's repeatable clauses; every later one is FL007.
fn first_clause<'a, T>(
    diags: &mut Vec<Problem>,
    f: FileId,
    clauses: &'a [T],
    span: impl Fn(&T) -> Span,
    clause: Clause,
    name: &str,
) -> Option<&'a T> {
    for extra in clauses.iter().skip(1) {
        diags.push(Problem::ClauseTwice {
            clause,
            name: name.to_string(),
            at: loc(f, span(extra)),
        });
    }
    clauses.first()
}

/// For statements that may appear once in a task: report the second.
fn dup_statement(
    diags: &mut Vec<Problem>,
    f: FileId,
    what: &'static str,
    first: &mut Option<Span>,
    at: Span,
) -> bool {
    if let Some(prev) = first {
        diags.push(Problem::StatementTwice {
            what,
            at: loc(f, at),
            first: loc(f, *prev),
        });
        return false;
    }
    *first = Some(at);
    true
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::{resolve_on, Code, Unit};
    use crate::source::FileId;

    /// The tasks of a large pipeline are resolved on several threads.
    /// Whatever the number of threads, the program and the findings, in
    /// their order, are those of one thread.
    #[test]
    fn several_threads_resolve_what_one_thread_resolves() {
        let mut text = String::from(
            "source lake: files {\n  path \"s3://l/{interval.start}/\"\n  immutable\n  pin listing\n}\n\
             sink tbl: postgres_table {\n  table \"s.t\"\n  primary_key id\n}\n\
             effect hook: webhook {\n  url \"https://h.example.com\"\n}\n\
             pipeline big {\n  schedule \"@daily\"\n  start 2026-01-01\n",
        );
        // Every task is different, and most have something wrong: unknown
        // names, a role mismatch, bad settings and terms, duplicates.
        let variants = [
            "read lake pinned listing\n    key input.id\n    write tbl upsert",
            "after t{prev}\n    read nowhere\n    write tbl upsert",
            "read hook\n    write lake append\n    emit tbl via outbox",
            "read lake commit auto\n    key attempt.id\n    write tbl insert",
            "after ghost\n    retries \"three\"\n    timeout 5\n    write tbl upsert",
            "read lake unpinned\n    key (output.x, h = hash(input), run.id)\n    emit hook via idempotency_key input.id",
            "key now()\n    write nosuch upsert\n    emit hook",
            "frobnicate 3\n    on_ambiguous maybe\n    run command []",
        ];
        for i in 0..1_203 {
            let name = if i % 97 == 5 { i - 1 } else { i };
            let body = variants[i % variants.len()].replace("{prev}", &(i.max(1) - 1).to_string());
            writeln!(text, "  task t{name} {{\n    {body}\n  }}").expect("a String takes any text");
        }
        text.push_str("}\n");

        let mut texts: Vec<String> = crate::check::stdlib_files()
            .map(|(_, t)| t.to_string())
            .collect();
        texts.push(text);
        let asts: Vec<crate::syntax::ast::File> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let (ast, d) = crate::syntax::parse(FileId(i), t);
                assert!(d.is_empty(), "{d:?}");
                ast.expect("parses")
            })
            .collect();
        let units = Unit::stdlib_then_root(&asts);
        let mut one = Vec::new();
        let program = format!("{:?}", resolve_on(1, &units, &mut one));
        let codes: std::collections::BTreeSet<Code> =
            one.iter().map(super::Problem::code).collect();
        for code in [
            Code::FL002,
            Code::FL003,
            Code::FL009,
            Code::FL702,
            Code::FL703,
        ] {
            assert!(codes.contains(&code), "{code} not in {codes:?}");
        }
        assert!(one.len() > 1_000, "{}", one.len());
        for threads in [2, 3, 8] {
            let mut many = Vec::new();
            assert_eq!(
                program,
                format!("{:?}", resolve_on(threads, &units, &mut many))
            );
            assert_eq!(one, many, "{threads} threads");
        }
    }
}
