//! Kinds: their capability lines and parameters, and which kinds each file sees.

use std::collections::{BTreeMap, BTreeSet};

use super::{first_of_each, loc, Resolver, Seen, Unit, CAPS};
use crate::analyze::model::{KindDef, Loc, ParamDef, Role, WRITE_CAPS};
use crate::analyze::problem::{Namespace, Problem};
use crate::source::FileId;
use crate::span::Span;
use crate::suggest::closest;
use crate::syntax::ast;
use crate::vocab::{CommitMode, Pin};

impl Resolver<'_> {
    // ---- kinds ----------------------------------------------------------------

    pub(super) fn kinds(&mut self, units: &[Unit<'_>]) {
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

    pub(super) fn kind(&mut self, u: &Unit<'_>, k: &ast::KindDecl) -> KindDef {
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
}
