//! Sources, sinks and effects: their kind, properties and parameters.

use std::collections::{BTreeMap, BTreeSet};

use super::{commit_not_offered, first_of_each, loc, scope_for, Resolver, Seen, Unit};
use crate::analyze::literal::{self};
use crate::analyze::model::{DeclDef, Loc, ParamDef, Role};
use crate::analyze::problem::{Namespace, Problem};
use crate::analyze::settings::{self, Id, Place};
use crate::source::FileId;
use crate::suggest::closest;
use crate::syntax::ast::{self, Value};
use crate::vocab::{CommitMode, ParamType, ParamValue, Pin, ENUMERATED_PARAMS};

impl Resolver<'_> {
    // ---- sources, sinks, effects ----------------------------------------------

    pub(super) fn decls(&mut self, units: &[Unit<'_>]) {
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

    pub(super) fn decl(&mut self, u: &Unit<'_>, d: &ast::Decl) -> Option<DeclDef> {
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
            // A property of the analysis (of some role), or else a parameter of the kind.
            let prop = settings::property(name);
            let analysis = prop.is_some();
            let param = kind.params.iter().find(|q| q.name == name);
            if !analysis && param.is_none() {
                let mut names: Vec<&str> = kind.params.iter().map(|q| q.name.as_str()).collect();
                names.extend(settings::names(Place::of(d.role)));
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
            if prop.is_some_and(|s| !s.at(Place::of(d.role))) {
                self.problem(Problem::NotARoleProperty {
                    name: name.to_string(),
                    role: d.role,
                    props: settings::names(Place::of(d.role)),
                    at: loc(f, p.name.span),
                });
                continue;
            }
            let at = loc(f, p.span);
            match prop.map(|s| s.id) {
                Some(Id::Immutable | Id::Mutable) => {
                    if self.no_value(f, p) {
                        def.immutable = name == "immutable";
                        def.mutability_loc = Some(at);
                    }
                }
                Some(Id::Pin) => {
                    let mut words: Vec<&str> = Pin::ALL.iter().map(|(w, _)| *w).collect();
                    words.push("none");
                    if let Some(w) = self.word_arg(f, p, &words) {
                        def.pin = Some(Pin::ALL.iter().find(|(n, _)| *n == w).map(|(_, p)| *p));
                        def.pin_loc = Some(at);
                    }
                }
                Some(Id::Identity) => {
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
                Some(Id::Cursor) => match p.args.as_slice() {
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
                Some(Id::Fields) => {
                    if let Some(fields) = self.list_of_names(f, p) {
                        def.fields = Some(fields);
                    }
                }
                Some(Id::Commit) => {
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
                Some(Id::Coordinator) => {
                    if let Some(s) = self.string_arg(f, p) {
                        def.cluster = s;
                    }
                }
                Some(Id::Ready) => {
                    def.ready = self.ready(f, p, &kind, &d.name.name).map(|r| (r, at));
                }
                Some(Id::Secret) => {
                    if let Some(s) = self.string_arg_raw(f, p) {
                        if self.pod_value(f, "secret", &s, crate::analyze::pod::dns_subdomain) {
                            def.secret = Some((s.value, at));
                        }
                    }
                }
                _ => {
                    let Some(param) = param else { continue };
                    // A name the system refuses (a Kafka topic `..`) is worded by the system's
                    // rule, not as a template's path segment.
                    if kind.stdlib {
                        if let [Value::Str(raw)] = p.args.as_slice() {
                            if !self.system_name(f, p, &kind.name, name, &raw.value) {
                                continue;
                            }
                        }
                    }
                    if let Some(v) = self.param_value(f, p, param) {
                        if kind.stdlib
                            && !(self.allowed_value(f, p, &kind.name, name, &v)
                                && self.system_range(f, p, &kind.name, name, &v))
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
    pub(super) fn allowed_value(
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

    /// Whether `text`, the string of the standard kind `kind`'s parameter
    /// `param`, is a name its system accepts, where flowc knows the system's rule (a
    /// Kafka topic, an Iceberg table identifier): FL002 where it is not.
    pub(super) fn system_name(
        &mut self,
        f: FileId,
        p: &ast::Setting,
        kind: &str,
        param: &str,
        text: &str,
    ) -> bool {
        let why = match (kind, param) {
            ("kafka_topic", "topic") => literal::kafka_topic(text),
            ("iceberg_table", "table") => literal::iceberg_identifier(text),
            _ => return true,
        };
        let Err(why) = why else {
            return true;
        };
        self.bad_system_value(f, p, kind, param, text.to_owned(), why)
    }

    /// Whether `value`, the number of the standard kind `kind`'s parameter
    /// `param`, is one its system takes, where flowc knows the system's range
    /// (a Kafka producer's transaction timeout): FL002 where it is not.
    pub(super) fn system_range(
        &mut self,
        f: FileId,
        p: &ast::Setting,
        kind: &str,
        param: &str,
        value: &ParamValue,
    ) -> bool {
        let (("kafka_topic", "transaction_timeout"), ParamValue::Int(n)) = ((kind, param), value)
        else {
            return true;
        };
        let Err(why) = literal::kafka_transaction_timeout(*n) else {
            return true;
        };
        let shown = match p.args.as_slice() {
            [Value::Number(x)] => x.name.clone(),
            _ => format!("{n}s"),
        };
        self.bad_system_value(f, p, kind, param, shown, why)
    }

    /// FL002 for `shown`, the value of the standard kind `kind`'s parameter
    /// `param`, which its system refuses for `why`; false, for the callers.
    fn bad_system_value(
        &mut self,
        f: FileId,
        p: &ast::Setting,
        kind: &str,
        param: &str,
        shown: String,
        why: String,
    ) -> bool {
        let at = p.args.first().map_or(p.name.span, Value::span);
        self.problem(Problem::BadSystemValue {
            kind: kind.to_string(),
            param: param.to_string(),
            value: shown,
            why,
            at: loc(f, at),
        });
        false
    }

    pub(super) fn param_value(
        &mut self,
        f: FileId,
        p: &ast::Setting,
        param: &ParamDef,
    ) -> Option<ParamValue> {
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
