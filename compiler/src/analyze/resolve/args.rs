//! The typed readers of a setting's value (`*_arg`): each checks the value's
//! shape and reports FL002/FL006 for a wrong one.

use super::{loc, not_a_value, Names, Resolver};
use crate::analyze::literal::{self, NumberKind};
use crate::analyze::pod::{Executor, PodDef};
use crate::analyze::problem::Problem;
use crate::analyze::settings::{Id, Parsed, Shape};
use crate::source::FileId;
use crate::suggest::closest;
use crate::syntax::ast::{self, Value};
use crate::vocab::Guarantee;

impl<N: std::borrow::Borrow<Names>> Resolver<'_, N> {
    // ---- value helpers ------------------------------------------------------------

    pub(super) fn one<'v>(
        &mut self,
        f: FileId,
        s: &'v ast::Setting,
        expected: &str,
    ) -> Option<&'v Value> {
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

    pub(super) fn wrong_type(
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
    pub(super) fn number(
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

    pub(super) fn int_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<u32> {
        self.number(f, s, NumberKind::Int, "an integer", "3")
            .and_then(|t| literal::parse_int(&t).ok())
    }

    pub(super) fn duration_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<u64> {
        self.number(f, s, NumberKind::Duration, "a duration", "30m")
            .and_then(|t| literal::parse_duration(&t).ok())
    }

    /// A duration that is a lease (`timeout`): zero is FL002, since a lease
    /// of no time lets no attempt run (flowc 0.2).
    pub(super) fn lease_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<u64> {
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

    pub(super) fn date_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<String> {
        self.number(f, s, NumberKind::Date, "a date", "2026-01-01")
    }

    pub(super) fn bool_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<bool> {
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

    pub(super) fn string_arg_raw(&mut self, f: FileId, s: &ast::Setting) -> Option<ast::Str> {
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
    pub(super) fn check_image(&mut self, f: FileId, image: &ast::Str) {
        if image.value.trim().is_empty() {
            self.problem(Problem::EmptyImage {
                at: loc(f, image.span),
            });
        }
    }

    /// FL002 unless `check` accepts `s` (a value of `setting`).
    pub(super) fn pod_value(
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
    pub(super) fn map_arg(
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

    /// One pod setting (`Place::Pod` in the catalog) of a pipeline or task.
    pub(super) fn pod_setting(
        &mut self,
        f: FileId,
        s: &ast::Setting,
        id: Id,
        pod: &mut PodDef,
        executor: &mut Option<Executor>,
    ) {
        use crate::analyze::pod;
        match id {
            Id::Namespace => {
                if let Some(v) = self.string_arg_raw(f, s) {
                    if self.pod_value(f, "namespace", &v, pod::dns_label) {
                        pod.namespace = Some(v.value);
                    }
                }
            }
            Id::ServiceAccount => {
                if let Some(v) = self.string_arg_raw(f, s) {
                    if self.pod_value(f, "service_account", &v, pod::dns_subdomain) {
                        pod.service_account = Some(v.value);
                    }
                }
            }
            Id::ImagePullPolicy => {
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
            Id::Resources => {
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
            Id::Labels | Id::Annotations => {
                let labels = id == Id::Labels;
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
            Id::AirflowExecutor => {
                let words = Executor::ALL.map(|(w, _)| w);
                if let Some(w) = self.word_arg(f, s, &words) {
                    *executor = Executor::ALL.iter().find(|(n, _)| *n == w).map(|(_, e)| *e);
                }
            }
            // The caller passes only pod settings.
            _ => {}
        }
    }

    /// `argo_pod_gc "STRATEGY"` or `argo_pod_gc none`.
    pub(super) fn pod_gc_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<String> {
        if let [Value::Ident(i)] = s.args.as_slice() {
            if i.name == "none" {
                return Some("none".to_owned());
            }
        }
        let v = self.string_arg_raw(f, s)?;
        let known = |g: &str| {
            if crate::analyze::pod::POD_GC.contains(&g) {
                Ok(())
            } else {
                Err("Argo knows `OnPodCompletion`, `OnPodSuccess`, `OnWorkflowCompletion` and `OnWorkflowSuccess`".to_owned())
            }
        };
        self.pod_value(f, "argo_pod_gc", &v, known)
            .then_some(v.value)
    }

    pub(super) fn string_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<String> {
        self.string_arg_raw(f, s).map(|s| s.value)
    }

    pub(super) fn word_arg(
        &mut self,
        f: FileId,
        s: &ast::Setting,
        words: &[&str],
    ) -> Option<String> {
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
    pub(super) fn word_list(&mut self, f: FileId, s: &ast::Setting, words: &[&str]) -> Vec<String> {
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
    pub(super) fn fields_arg(
        &mut self,
        f: FileId,
        s: &ast::Setting,
        allow_none: bool,
    ) -> Option<Vec<String>> {
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

    pub(super) fn list_of_names(&mut self, f: FileId, s: &ast::Setting) -> Option<Vec<String>> {
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

    pub(super) fn guarantee_arg(&mut self, f: FileId, s: &ast::Setting) -> Option<Guarantee> {
        let words = Guarantee::ALL.map(|(w, _)| w);
        let w = self.word_arg(f, s, &words)?;
        Guarantee::ALL
            .iter()
            .find(|(n, _)| *n == w)
            .map(|(_, g)| *g)
    }

    /// A guarantee in a `require` clause.
    pub(super) fn guarantee_word(&mut self, f: FileId, id: &ast::Ident) -> Option<Guarantee> {
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

    /// The value of `s` as the reader of `shape` gives it, for a setting
    /// whose catalog entry stores it (`settings::Store`); `None` after a
    /// finding, or for a shape that has no reader of its own here.
    pub(super) fn parsed(&mut self, f: FileId, s: &ast::Setting, shape: Shape) -> Option<Parsed> {
        match shape {
            Shape::Flag => self.no_value(f, s).then_some(Parsed::Flag),
            Shape::Int => self.int_arg(f, s).map(Parsed::Int),
            Shape::Duration => self.duration_arg(f, s).map(Parsed::Duration),
            Shape::Date => self.date_arg(f, s).map(Parsed::Date),
            Shape::Bool => self.bool_arg(f, s).map(Parsed::Bool),
            Shape::Str => self.string_arg(f, s).map(Parsed::Str),
            Shape::Guarantee => self.guarantee_arg(f, s).map(Parsed::Guarantee),
            _ => None,
        }
    }

    pub(super) fn no_value(&mut self, f: FileId, s: &ast::Setting) -> bool {
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
