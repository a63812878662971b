//! Kinds: their capability lines and parameters, and which kinds each file sees.

use std::collections::{BTreeMap, BTreeSet};

use super::{first_of_each, loc, Resolver, Seen, Unit};
use crate::analyze::model::{KindDef, Loc, ParamDef, Role, WRITE_CAPS};
use crate::analyze::problem::{Namespace, Problem};
use crate::analyze::settings::{self, Id, Parsed, Place, Shape};
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
            let Some(cap) = settings::find(Place::Kind, name) else {
                let caps = settings::names(Place::Kind);
                let mut all: Vec<&str> = caps.to_vec();
                all.push("param");
                self.problem(Problem::UnknownCapability {
                    name: name.to_string(),
                    kind: k.name.name.clone(),
                    near: closest(name, all.iter().copied()).map(str::to_string),
                    caps,
                    at: loc(f, line.name.span),
                });
                continue;
            };
            if !seen.first(self.diags, f, line) {
                continue;
            }
            if cap.shape == Shape::Flag {
                if let Some(v) = line.args.first() {
                    self.problem(Problem::TakesNoValue {
                        name: name.to_string(),
                        found: v.describe(),
                        at: loc(f, v.span()),
                    });
                }
            }
            if let Some(store) = cap.store.kind {
                // A flag given a value was said above; the line still counts.
                let v = if cap.shape == Shape::Flag {
                    Some(Parsed::Flag)
                } else {
                    self.parsed(f, line, cap.shape)
                };
                if let Some(v) = v {
                    store(&mut def, v, loc(f, line.span));
                }
                continue;
            }
            match cap.id {
                Id::Idempotency => {
                    if let Some(w) = self.word_arg(f, line, &["none", "key"]) {
                        def.idempotency_key = w == "key";
                    }
                }
                Id::Roles => {
                    for w in self.word_list(f, line, &["source", "sink", "effect"]) {
                        def.roles.insert(match w.as_str() {
                            "source" => Role::Source,
                            "sink" => Role::Sink,
                            _ => Role::Effect,
                        });
                    }
                }
                Id::Pins => {
                    let words: Vec<&str> = Pin::ALL.iter().map(|(w, _)| *w).collect();
                    for w in self.word_list(f, line, &words) {
                        if let Some((_, p)) = Pin::ALL.iter().find(|(n, _)| *n == w) {
                            def.pins.insert(*p);
                        }
                    }
                }
                Id::Writes => {
                    for w in self.word_list(f, line, &WRITE_CAPS) {
                        def.writes.insert(w);
                    }
                }
                Id::Commits => {
                    let words: Vec<&str> = CommitMode::ALL.iter().map(|(w, _)| *w).collect();
                    for w in self.word_list(f, line, &words) {
                        if let Some((_, m)) = CommitMode::ALL.iter().find(|(n, _)| *n == w) {
                            def.commits.insert(*m);
                            def.first_commit.get_or_insert(*m);
                        }
                    }
                }
                // `find` gives only a kind's lines.
                _ => {}
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
